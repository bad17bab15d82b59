//! The integration suite: one binary, a module per area, a small harness in `util`.

mod content;
mod engine_facts;
mod errors;
mod links;
mod properties;
mod sim_command;
mod site;
mod util;
