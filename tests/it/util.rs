//! Helpers shared by the suite.

use std::path::PathBuf;
use std::process::Command;

use retrylab::diag::Diagnostic;
use retrylab::engine::{Scenario, parse_scenario};
use retrylab::yaml::Pos;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parses a scenario that must be valid.
pub fn scenario(yaml: &str) -> Scenario {
    match parse_scenario(yaml, Some("test")) {
        Ok(s) => s,
        Err(errors) => panic!("invalid scenario: {errors:#?}"),
    }
}

/// The diagnostics of a scenario that must be invalid, rendered as the CLI prints them.
pub fn errors(yaml: &str) -> String {
    let errors = parse_scenario(yaml, None).expect_err("the scenario should be refused");
    errors
        .into_iter()
        .map(|e| Diagnostic::from_scenario("s.yaml", yaml, Pos::START, e).to_string())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The `retrylab` binary, started in the repository root.
pub fn retrylab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_retrylab"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}
