//! The command line: clap arguments, and the glue from them to the library.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::diag::Diagnostic;
use crate::engine::{parse_scenario, run_scenario};
use crate::report;
use crate::yaml::Pos;

/// Learn how retries, backoff and jitter behave under load: simulate, chart, publish.
#[derive(Debug, Parser)]
#[command(name = "retrylab", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one scenario file and print its results.
    Sim(SimArgs),
}

/// Arguments of `retrylab sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// The scenario file (YAML), for example scenarios/crowd.yaml.
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// With --json, add each strategy's per-tick lanes of its typical run.
    #[arg(long, requires = "json")]
    pub lanes: bool,
}

/// Why a command failed: problems in the input, or a file that could not be read.
#[derive(Debug)]
pub enum Failure {
    /// Mistakes in the user's input, each with its place.
    Input(Vec<Diagnostic>),
    /// Anything else, as a sentence.
    Other(String),
}

/// Runs a parsed command line and returns what to print.
pub fn run(cli: Cli) -> Result<String, Failure> {
    match cli.command {
        Command::Sim(args) => sim(&args),
    }
}

fn sim(args: &SimArgs) -> Result<String, Failure> {
    let name = args.file.display().to_string();
    let source = std::fs::read_to_string(&args.file)
        .map_err(|e| Failure::Other(format!("cannot read {name}: {e}")))?;
    let stem = args.file.file_stem().and_then(|s| s.to_str()).filter(|s| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    });
    let scenario = parse_scenario(&source, stem).map_err(|errors| {
        Failure::Input(
            errors
                .into_iter()
                .map(|e| Diagnostic::from_scenario(&name, &source, Pos::START, e))
                .collect(),
        )
    })?;
    let result = run_scenario(&scenario);
    Ok(if args.json {
        report::json(&result, args.lanes) + "\n"
    } else {
        report::table(&result)
    })
}
