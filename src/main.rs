//! The `retrylab` binary: parse the command line, run it, print, choose the exit code.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use retrylab::cli::{self, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli::run(cli) {
        Ok(output) => {
            // A closed pipe (`retrylab sim f | head`) is not an error worth a panic.
            let _ = std::io::stdout().write_all(output.as_bytes());
            ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("{failure}");
            ExitCode::FAILURE
        }
    }
}
