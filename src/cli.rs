//! The command line: clap arguments, and the glue from them to the library.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::diag::{Diagnostic, Failure};
use crate::engine::{parse_scenario, run_scenario};
use crate::format::thousands;
use crate::report;
use crate::site;
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
    /// Build the site into its output folder (public/ by default).
    Build(BuildArgs),
    /// Check the site, its directives, references, links and anchors, without writing.
    Check(SiteArgs),
    /// Run one scenario file and print its results.
    Sim(SimArgs),
}

/// Where the site is.
#[derive(Debug, clap::Args)]
pub struct SiteArgs {
    /// The site's folder, holding site.yaml [default: the current folder]
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Include pages whose front matter says `draft: true`.
    #[arg(long)]
    pub drafts: bool,
}

/// Arguments of `retrylab build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Where the site is.
    #[command(flatten)]
    pub site: SiteArgs,
    /// Write the site here instead of the folder named in site.yaml.
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Publish under this address instead of site.yaml's base_url
    /// (a GitHub Pages project site lives under https://USER.github.io/REPO/).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
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

/// Runs a parsed command line and returns what to print.
pub fn run(cli: Cli) -> Result<String, Failure> {
    match cli.command {
        Command::Build(args) => build(&args),
        Command::Check(args) => check(&args),
        Command::Sim(args) => sim(&args),
    }
}

fn options(site: &SiteArgs) -> site::Options {
    site::Options {
        root: site::root_or_current(site.root.as_deref()),
        output: None,
        base_url: None,
        drafts: site.drafts,
    }
}

fn build(args: &BuildArgs) -> Result<String, Failure> {
    let mut options = options(&args.site);
    options.output = args.output_dir.clone();
    options.base_url = args.base_url.clone();
    let s = site::build(&options)?;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let cached = if s.cached > 0 {
        format!(", {} from the cache", thousands(s.cached as u64))
    } else {
        String::new()
    };
    Ok(format!(
        "built {} with {} ({} runs simulated{cached}) in {:.2} s into {}\n",
        plural(s.pages, "page"),
        plural(s.scenarios, "scenario"),
        thousands(s.runs),
        s.elapsed.as_secs_f64(),
        s.output.strip_prefix(".").unwrap_or(&s.output).display()
    ))
}

fn check(args: &SiteArgs) -> Result<String, Failure> {
    let pages = site::check(&options(args))?;
    Ok(format!(
        "checked {pages} page{}: no problems\n",
        if pages == 1 { "" } else { "s" }
    ))
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
