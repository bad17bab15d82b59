//! The integration suite: one binary, a module per area, a small harness in `util`.

mod beyond;
mod content;
mod engine_facts;
mod errors;
mod links;
mod playground_module;
mod properties;
mod publish;
mod scaffold;
mod serve;
mod sim_command;
mod site;
mod util;
