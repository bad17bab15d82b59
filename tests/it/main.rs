//! The integration suite: one binary, a module per area, a small harness in `util`.

mod addresses;
mod articles;
mod beyond;
mod cards;
mod content;
mod engine_facts;
mod errors;
mod links;
mod located_errors;
mod old_loops;
mod output_safety;
mod playground_module;
mod presets;
mod properties;
mod proportionate;
mod publish;
mod quoting;
mod references;
mod robust;
mod scaffold;
mod serve;
mod sim_command;
mod site;
mod util;
