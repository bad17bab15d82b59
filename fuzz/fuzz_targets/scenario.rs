//! The scenario reader on any text: it returns a scenario or located errors, and the
//! errors print as the command line prints them, without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylab::diag::Diagnostic;
use retrylab::engine::parse_scenario;
use retrylab::yaml::Pos;

fuzz_target!(|text: &str| {
    for default_id in [Some("fuzz"), None] {
        if let Err(errors) = parse_scenario(text, default_id) {
            for e in errors {
                let _ = Diagnostic::from_scenario("s.yaml", text, Pos::START, e).to_string();
            }
        }
    }
});
