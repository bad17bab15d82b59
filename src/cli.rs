//! The command line: clap arguments, and the glue from them to the library.

use std::io::{IsTerminal, Write};
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::diag::{Diagnostic, Failure};
use crate::engine::{Scenario, run_scenario_within, work};
use crate::extends::{Chain, Source};
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
    /// Check the site, its directives, references, links and anchors, without writing;
    /// with --external, the links that leave the site too.
    Check(CheckArgs),
    /// Build, serve on 127.0.0.1 and rebuild and reload the open pages on every change.
    Serve(ServeArgs),
    /// Write a new article, content/<slug>.md, with a working example scenario.
    New(NewArgs),
    /// Create a new site in an empty or new folder; with --templates, copy the built-in
    /// templates and stylesheets into a site, to change its look.
    Init(InitArgs),
    /// Run one scenario file and print its results.
    Sim(SimArgs),
    /// Print the authors' reference: every key of a scenario and of each directive, with
    /// its type, default and meaning, as Markdown tables.
    Keys(KeysArgs),
    /// Play a scenario file for real, an HTTP server and its clients on loopback, and
    /// print the live run beside the simulation.
    #[cfg(feature = "live")]
    Live(LiveArgs),
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

/// Arguments of `retrylab check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Where the site is.
    #[command(flatten)]
    pub site: SiteArgs,
    /// Also ask every http(s) address the pages and sources.yaml write of its host
    /// (needs the network; answers younger than a day come from .retrylab-cache/).
    #[arg(long)]
    pub external: bool,
    /// With --external, the most the whole check of external links may take
    /// [default: 120]
    #[arg(long, value_name = "SECONDS", requires = "external", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub external_deadline: Option<u64>,
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

/// Arguments of `retrylab serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Where the site is.
    #[command(flatten)]
    pub site: SiteArgs,
    /// Write the site here instead of the folder named in site.yaml.
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// The port to listen on; 0 lets the system choose a free one.
    #[arg(short, long, default_value_t = 1111)]
    pub port: u16,
    /// The address to listen on; anything but loopback opens the site to the network.
    #[arg(short, long, value_name = "ADDRESS", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub interface: IpAddr,
}

/// Arguments of `retrylab new`.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The article's title; its file name is made from it ("Why jitter?" → why-jitter.md).
    pub title: String,
    /// The site's folder, holding site.yaml [default: the current folder]
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// Arguments of `retrylab init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The folder to create the site in: a new or empty one, or a repository's fresh
    /// clone (.git, .github, a README, a licence). With --templates, a site's folder
    /// [default: the current folder]
    #[arg(required_unless_present = "templates")]
    pub dir: Option<PathBuf>,
    /// The site's title [default: the folder's name]
    #[arg(long)]
    pub title: Option<String>,
    /// Copy the built-in templates (base.html, page.html, index.html, 404.html,
    /// playground.html) into DIR/templates/ and the stylesheets (style.css, chart.css,
    /// highlight.css) into DIR/static/, where each replaces the built-in one to change
    /// the site's look; a file already there is kept. In an empty or new folder, makes
    /// the site first.
    #[arg(long)]
    pub templates: bool,
    /// Leave out .github/workflows/pages.yml, the GitHub Actions workflow that builds the
    /// site and publishes it with GitHub Pages on every push to main
    #[arg(long)]
    pub no_workflow: bool,
}

/// Arguments of `retrylab sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// The scenario file (YAML), for example scenarios/crowd.yaml; or a page's block,
    /// content/PAGE.md#ID (a page alone lists its blocks).
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// With --json, add each strategy's per-tick lanes of its typical run.
    #[arg(long, requires = "json")]
    pub lanes: bool,
    /// Print, instead of the run, each strategy's wait before each retry as it draws
    /// them: the draws' min, median, p95 and max, or with --json every draw.
    #[arg(long, conflicts_with = "lanes")]
    pub schedule: bool,
    /// With --schedule, how many clients' sequences of waits to draw (draw d uses the
    /// scenario's seed + d), from 1 to 100,000.
    #[arg(long, value_name = "N", requires = "schedule", default_value_t = 1_000,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub draws: u32,
    /// Set a parameter a sweep can vary, as a sweep or an explorable figure sets it
    /// (`--set clients=50 --set outage=5s`), or the strategies compared
    /// (`--set strategies=fixed,full-jitter`); may be given more than once.
    #[arg(long, value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

/// Arguments of `retrylab live`.
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// The scenario file (YAML), for example scenarios/crowd.yaml.
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also store the run, as the JSON of --json, in this file (for the site's ```live
    /// directive); an existing file is replaced only if it holds a live run.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

/// Arguments of `retrylab keys`.
#[derive(Debug, clap::Args)]
pub struct KeysArgs {
    /// The table to print (`retry`, `budget`, `sweep`, ...); without one, every table.
    #[arg(value_name = "TABLE")]
    pub table: Option<String>,
}

/// Runs a parsed command line and returns what to print.
pub fn run(cli: Cli) -> Result<String, Failure> {
    match cli.command {
        Command::Build(args) => build(&args),
        Command::Check(args) => check(&args),
        Command::Serve(args) => serve(&args),
        Command::New(args) => new(&args),
        Command::Init(args) => init(&args),
        Command::Sim(args) => sim(&args),
        Command::Keys(args) => keys(&args),
        #[cfg(feature = "live")]
        Command::Live(args) => live(&args),
    }
}

fn options(site: &SiteArgs) -> site::Options {
    site::Options {
        root: site::root_or_current(site.root.as_deref()),
        output: None,
        base_url: None,
        drafts: site.drafts,
        progress: std::io::stderr().is_terminal(),
    }
}

fn build(args: &BuildArgs) -> Result<String, Failure> {
    let mut options = options(&args.site);
    options.output = args.output_dir.clone();
    options.base_url = args.base_url.clone();
    let summary = site::build(&options)?;
    // A closed terminal is no reason to fail a build that is done.
    let mut stderr = std::io::stderr().lock();
    for note in &summary.notes {
        let _ = writeln!(stderr, "{note}");
    }
    Ok(format!("{summary}\n"))
}

fn serve(args: &ServeArgs) -> Result<String, Failure> {
    let mut options = options(&args.site);
    options.output = args.output_dir.clone();
    site::serve::serve(&site::serve::ServeOptions {
        site: options,
        interface: args.interface,
        port: args.port,
    })?;
    Ok(String::new())
}

fn new(args: &NewArgs) -> Result<String, Failure> {
    let root = site::root_or_current(args.root.as_deref());
    let file = site::scaffold::new_article(&root, &args.title)?;
    Ok(format!(
        "wrote {}: edit its scenario and prose, then `retrylab serve` to see it\n",
        file.display()
    ))
}

/// The reference tables, the same the ```` ```reference ```` blocks of a page show.
fn keys(args: &KeysArgs) -> Result<String, Failure> {
    let tables = site::docs::TABLES;
    let names: Vec<&str> = match &args.table {
        None => tables.iter().map(|(name, _)| *name).collect(),
        Some(name) if tables.iter().any(|(t, _)| t == name) => vec![name.as_str()],
        Some(name) => {
            let help = crate::suggest::help(name, tables.iter().map(|(t, _)| *t), "tables");
            let message = format!("there is no table `{name}`\n  = help: {help}");
            return Err(Failure::Other(message));
        }
    };
    let printed: Vec<String> = names
        .iter()
        .filter_map(|name| {
            let what = tables
                .iter()
                .find(|(t, _)| t == name)
                .map_or("", |(_, w)| w);
            site::docs::table(name).map(|t| format!("## {name}: {what}\n\n{}", t.markdown()))
        })
        .collect();
    Ok(printed.join("\n"))
}

fn init(args: &InitArgs) -> Result<String, Failure> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let title = args.title.clone().unwrap_or_else(|| {
        dir.canonicalize()
            .unwrap_or_else(|_| dir.clone())
            .file_name()
            .map_or_else(
                || "My site".to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
    });
    let workflow = !args.no_workflow;
    let (created, copied) = if args.templates {
        let (created, copied) = site::scaffold::init_with_look(&dir, &title, workflow)?;
        (created, Some(copied))
    } else {
        (Some(site::scaffold::init(&dir, &title, workflow)?), None)
    };
    let mut out = String::new();
    if let Some(created) = created {
        out.push_str(&if dir == Path::new(".") {
            "created a site here: `retrylab serve` to write, `retrylab build` to publish\n"
                .to_string()
        } else {
            format!(
                "created a site in {dir}: `cd {dir}` and `retrylab serve` to write, \
                 `retrylab build` to publish\n",
                dir = dir.display()
            )
        });
        if created
            .written
            .iter()
            .any(|f| f == site::scaffold::WORKFLOW)
        {
            out.push_str(&format!(
                "wrote {}: pushed to GitHub, it publishes the site with GitHub Pages \
                 (Settings → Pages → Source: GitHub Actions)\n",
                site::scaffold::WORKFLOW
            ));
        }
        let mut stderr = std::io::stderr().lock();
        for note in &created.kept {
            let _ = writeln!(stderr, "{note}");
        }
    }
    let Some(copied) = copied else {
        return Ok(out);
    };
    for file in &copied.written {
        out.push_str(&format!("wrote {file}\n"));
    }
    if copied.kept.is_empty() {
        return Ok(out);
    }
    // What was written is said even when a file was kept.
    let _ = std::io::stdout().write_all(out.as_bytes());
    Err(Failure::Input(copied.kept))
}

fn check(args: &CheckArgs) -> Result<String, Failure> {
    let options = options(&args.site);
    let summary = match args.external {
        false => site::check_site(&options)?,
        true => {
            let mut asked = site::external::Options::default();
            if let Some(seconds) = args.external_deadline {
                asked.deadline = std::time::Duration::from_secs(seconds);
            }
            let (result, tally) = site::check_external(&options, &asked);
            // What the external check did, whatever the outcome.
            if let Some(tally) = tally {
                let mut stderr = std::io::stderr().lock();
                for note in &tally.notes {
                    let _ = writeln!(stderr, "{note}\n");
                }
                let _ = writeln!(stderr, "{tally}");
            }
            result?
        }
    };
    let mut stderr = std::io::stderr().lock();
    for note in &summary.notes {
        let _ = writeln!(stderr, "{note}");
    }
    let pages = summary.pages;
    Ok(format!(
        "checked {pages} page{}: no problems\n",
        if pages == 1 { "" } else { "s" }
    ))
}

/// The scenario of `source` with each `NAME=VALUE` of `--set` in place, as a sweep
/// sets it: the scenario's own mistakes, or a failure that names the setting.
fn with_set(
    tree: &crate::yaml::Node,
    id: Option<&str>,
    sets: &[String],
) -> Result<crate::engine::Scenario, Failure> {
    use crate::engine::read::vary::{Parameter, placed, scalar, set_strategies};
    let mut tree = tree.clone();
    for set in sets {
        let fail = |message: String| Failure::Other(format!("--set {set}: {message}"));
        let Some((key, value)) = set.split_once('=') else {
            return Err(fail(
                "write it as NAME=VALUE, for example clients=50".to_string(),
            ));
        };
        if key == "strategies" {
            let at = scalar(String::new(), &tree);
            set_strategies(&mut tree, value, &at);
            continue;
        }
        let Some(parameter) = Parameter::from_name(key) else {
            let names = Parameter::ALL
                .iter()
                .map(|p| p.name())
                .chain(["strategies"]);
            return Err(fail(format!(
                "there is no parameter `{key}` to set; {}",
                crate::suggest::help(key, names, "parameters")
            )));
        };
        let node = scalar(value.to_string(), &tree);
        tree = match placed(&tree, parameter, &node, value) {
            Ok((tree, _)) => tree,
            Err(errors) => return Err(fail(errors[0].message.clone())),
        };
    }
    crate::engine::scenario_from_node(&tree, id).map_err(|errors| {
        Failure::Other(format!(
            "with --set {}: {}",
            sets.join(" --set "),
            errors[0].message
        ))
    })
}

/// A scenario file's name without its extension, when it can be a scenario's id.
fn stem_of(file: &std::path::Path) -> Option<&str> {
    file.file_stem().and_then(|s| s.to_str()).filter(|s| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// A scenario file or a page's block as read: where it stands, the bases its `extends`
/// names, and its YAML laid over them.
struct Text {
    own: Source,
    chain: Chain,
    tree: crate::yaml::Node,
}

impl Text {
    /// Reads `own`, resolving its `extends` against the site that `near` stands in.
    fn read(own: Source, near: &std::path::Path) -> Result<Text, Failure> {
        let mut chain = Chain::default();
        let tree = crate::engine::read::parse_yaml(&own.body)
            .and_then(|tree| {
                crate::site::resolve_outside(&site_root_of(near), &own, tree, &mut chain)
            })
            .map_err(|errors| Text::placed(&chain, &own, errors))?;
        Ok(Text { own, chain, tree })
    }

    fn placed(chain: &Chain, own: &Source, errors: Vec<crate::engine::ScenarioError>) -> Failure {
        Failure::Input(errors.into_iter().map(|e| chain.place(own, e)).collect())
    }

    /// Mistakes of the merged YAML, each in the file where its key was written.
    fn failure(&self, errors: Vec<crate::engine::ScenarioError>) -> Failure {
        Text::placed(&self.chain, &self.own, errors)
    }

    /// The YAML that reads as the tree: the text itself, or, when it extends another,
    /// the two merged.
    fn yaml(&self) -> String {
        match self.chain.is_empty() {
            true => self.own.body.clone(),
            false => crate::extends::emit(&self.tree),
        }
    }
}

/// The site a file stands in: the nearest folder above it with a `site.yaml`, or the
/// current folder.
fn site_root_of(file: &std::path::Path) -> PathBuf {
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    absolute
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("site.yaml").is_file())
        .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf)
}

/// Reads and validates the scenario file `file`, its `extends` resolved: the text as
/// read and the scenario. Every mistake is placed in the file that has it.
fn read_scenario_file(file: &std::path::Path) -> Result<(Text, Scenario), Failure> {
    let name = file.display().to_string();
    let bytes =
        std::fs::read(file).map_err(|e| Failure::Other(format!("cannot read {name}: {e}")))?;
    let source = crate::diag::utf8_or_located(&name, bytes)?;
    let text = Text::read(
        Source {
            file: name,
            text: source.clone(),
            origin: Pos::START,
            body: source,
        },
        file,
    )?;
    let scenario = crate::engine::scenario_from_node(&text.tree, stem_of(file))
        .map_err(|errors| text.failure(errors))?;
    Ok((text, scenario))
}

/// Scenario errors as the failure that prints them, placed in the file `name`.
#[cfg(feature = "live")]
fn located(name: &str, source: &str, errors: Vec<crate::engine::ScenarioError>) -> Failure {
    Failure::Input(
        errors
            .into_iter()
            .map(|e| Diagnostic::from_scenario(name, source, Pos::START, e))
            .collect(),
    )
}

fn sim(args: &SimArgs) -> Result<String, Failure> {
    if let Some((page, id)) = page_block(&args.file) {
        return sim_block(args, &page, id.as_deref());
    }
    let (text, scenario) = read_scenario_file(&args.file)?;
    let name = &text.own.file;
    let scenario = match args.set.is_empty() {
        true => scenario,
        false => with_set(&text.tree, stem_of(&args.file), &args.set)?,
    };
    if args.schedule {
        return Ok(schedule(&scenario, args));
    }
    let progress = crate::site::progress::Progress::start(
        std::io::stderr().is_terminal(),
        format!("simulating {name}…"),
    );
    // The lanes are simulated again for each typical run: only when they are printed.
    let result = run_scenario_within(&scenario, args.json && args.lanes, work::limit());
    drop(progress);
    let load = crate::engine::read::load_node(&text.tree);
    let result = result.map_err(|over| text.failure(vec![over.error(load, false)]))?;
    Ok(if args.json {
        report::json(&result, args.lanes) + "\n"
    } else {
        report::table(&result)
    })
}

/// Retries a schedule shows for a strategy without an attempt limit.
const UNLIMITED_RETRIES: u32 = 10;

/// `sim --schedule`: each strategy's waits, retry by retry, over `args.draws` clients'
/// sequences, draw `d` seeded with the scenario's seed + `d`.
fn schedule(scenario: &Scenario, args: &SimArgs) -> String {
    use crate::engine::schedule::schedule;
    let strategies: Vec<Schedule> = scenario
        .strategies
        .iter()
        .map(|&strategy| {
            let max_attempts = scenario.lane(strategy).retry.max_attempts;
            let retries = max_attempts.map_or(UNLIMITED_RETRIES, |n| n.saturating_sub(1));
            let mut waits = vec![Vec::with_capacity(args.draws as usize); retries as usize];
            for d in 0..args.draws {
                let seed = scenario.seed.wrapping_add(u64::from(d));
                for (r, step) in schedule(strategy, &scenario.retry, retries, seed)
                    .into_iter()
                    .enumerate()
                {
                    waits[r].push(step.wait);
                }
            }
            Schedule {
                strategy,
                max_attempts,
                waits,
            }
        })
        .collect();
    match args.json {
        true => schedule_json(&strategies) + "\n",
        false => schedule_table(&scenario.id, scenario.seed, args.draws, &strategies),
    }
}

/// One strategy's waits for `sim --schedule`.
struct Schedule {
    /// The strategy.
    strategy: crate::engine::Strategy,
    /// Its attempt limit, counting the first call; `None` for none.
    max_attempts: Option<u32>,
    /// For each retry, from the first, the wait before it in every draw, in draw order.
    waits: Vec<Vec<crate::engine::units::Micros>>,
}

/// The JSON of `sim --schedule --json`: `{"strategies": [{"strategy", "max_attempts",
/// "retries": [{"retry", "waits_s"}]}]}`, waits in seconds.
fn schedule_json(strategies: &[Schedule]) -> String {
    let strategies: Vec<serde_json::Value> = strategies
        .iter()
        .map(|s| {
            let retries: Vec<serde_json::Value> = s
                .waits
                .iter()
                .enumerate()
                .map(|(r, waits)| {
                    let waits: Vec<f64> = waits.iter().map(|&w| w as f64 / 1e6).collect();
                    serde_json::json!({"retry": r + 1, "waits_s": waits})
                })
                .collect();
            serde_json::json!({
                "strategy": s.strategy.name(),
                "max_attempts": s.max_attempts,
                "retries": retries,
            })
        })
        .collect();
    serde_json::json!({ "strategies": strategies }).to_string()
}

/// The tables of `sim --schedule`: for each strategy, each retry's wait over the
/// draws, min, median, p95 and max (nearest rank), as `sim` prints latencies.
fn schedule_table(id: &str, seed: u64, draws: u32, strategies: &[Schedule]) -> String {
    use crate::format::{latency, thousands};
    let seeds = match draws {
        1 => format!("1 draw (seed {seed})"),
        n => format!(
            "{} draws (seeds {seed}–{})",
            thousands(n),
            seed.wrapping_add(u64::from(n) - 1)
        ),
    };
    let mut out = format!("{id}: the wait before each retry, {seeds}\n");
    for s in strategies {
        let limit = match s.max_attempts {
            Some(1) => "1 attempt, no retry".to_string(),
            Some(n) => format!("{n} attempts, {} retries", n - 1),
            None => format!("no attempt limit; the first {} retries", s.waits.len()),
        };
        out.push_str(&format!("\n{}: {limit}\n", s.strategy.name()));
        if s.waits.is_empty() {
            continue;
        }
        out.push_str("retry        min     median        p95        max\n");
        for (r, waits) in s.waits.iter().enumerate() {
            let mut sorted = waits.clone();
            sorted.sort_unstable();
            let rank = |p: usize| sorted[(p * sorted.len()).div_ceil(100).max(1) - 1];
            let cells = [sorted[0], rank(50), rank(95), sorted[sorted.len() - 1]];
            out.push_str(&format!("{:<5}", r + 1));
            for cell in cells {
                out.push_str(&format!("  {:>9}", latency(cell)));
            }
            out.push('\n');
        }
    }
    out
}

/// A page and the block of it that `sim` was given: `content/page.md#ID`, or a page
/// alone (`None` for the id); `None` for a scenario file.
fn page_block(file: &std::path::Path) -> Option<(PathBuf, Option<String>)> {
    let text = file.to_str()?;
    match text.rsplit_once('#') {
        Some((page, id)) if page.ends_with(".md") => {
            Some((PathBuf::from(page), Some(id.to_string())))
        }
        _ if text.ends_with(".md") => Some((file.to_path_buf(), None)),
        _ => None,
    }
}

/// `sim content/page.md#ID`: the block with that id, read and run as the page's build
/// reads and runs it (a sweep's every point, with its table); without an id, the list
/// of the page's blocks.
fn sim_block(args: &SimArgs, page: &std::path::Path, id: Option<&str>) -> Result<String, Failure> {
    use crate::directive::{self, Kind};
    let name = page.display().to_string();
    let bytes =
        std::fs::read(page).map_err(|e| Failure::Other(format!("cannot read {name}: {e}")))?;
    let source = crate::diag::utf8_or_located(&name, bytes)?;
    let blocks: Vec<(directive::Found, Option<String>)> = directive::scan(&source)
        .directives
        .into_iter()
        .map(|found| {
            let id = directive::id_of(&found.body);
            (found, id)
        })
        .collect();
    let line_of = |offset: usize| source[..offset].matches('\n').count() + 1;
    let Some(id) = id else {
        let noun = if blocks.len() == 1 { "block" } else { "blocks" };
        let mut out = format!("{name}: {} {noun}\n", blocks.len());
        for (found, id) in &blocks {
            out.push_str(&format!(
                "  {:<8} {:<24} line {}\n",
                found.kind.name(),
                id.as_deref().unwrap_or("(no id)"),
                line_of(found.block.start)
            ));
        }
        out.push_str(&format!("run one with `retrylab sim {name}#ID`\n"));
        return Ok(out);
    };
    let Some((found, _)) = blocks.iter().find(|(_, i)| i.as_deref() == Some(id)) else {
        let ids = blocks.iter().filter_map(|(_, i)| i.as_deref());
        return Err(Failure::Other(format!(
            "{name} has no block with the id `{id}`; {}",
            crate::suggest::help(id, ids, "blocks of this page")
        )));
    };
    // Where the block's own line 1, column 1 stands in the page.
    let line_start = source[..found.body_start].rfind('\n').map_or(0, |i| i + 1);
    let origin = Pos {
        line: line_of(found.body_start),
        column: source[line_start..found.body_start].chars().count() + 1,
    };
    let text = Text::read(
        Source {
            file: name.clone(),
            text: source.clone(),
            origin,
            body: found.body.clone(),
        },
        page,
    )?;
    let placed = |errors: Vec<crate::engine::ScenarioError>| text.failure(errors);
    let set = |scenario: crate::engine::Scenario| -> Result<_, Failure> {
        if args.set.is_empty() {
            return Ok(scenario);
        }
        with_set(&text.tree, Some(&scenario.id), &args.set)
    };
    let run = |scenario: &crate::engine::Scenario, limit: u64| {
        let progress = crate::site::progress::Progress::start(
            std::io::stderr().is_terminal(),
            format!("simulating {}…", scenario.id),
        );
        let result = run_scenario_within(scenario, args.json && args.lanes, limit);
        drop(progress);
        result
    };
    match found.kind {
        Kind::Sim => {
            let sim = directive::read_sim_root(&text.tree).map_err(placed)?;
            let scenario = set(sim.scenario)?;
            if args.schedule {
                return Ok(schedule(&scenario, args));
            }
            let load = crate::engine::read::load_node(&text.tree);
            let result = run(&scenario, work::limit())
                .map_err(|over| text.failure(vec![over.error(load, false)]))?;
            Ok(if args.json {
                report::json(&result, args.lanes) + "\n"
            } else {
                report::table(&result)
            })
        }
        Kind::Sweep => {
            if args.schedule {
                return Err(Failure::Other(
                    "--schedule prints the waits of one scenario's strategies; a sweep runs \
                     many scenarios (run a sim block, or a scenario file)"
                        .to_string(),
                ));
            }
            if !args.set.is_empty() {
                return Err(Failure::Other(
                    "--set sets a parameter of one scenario; a sweep varies its own (run a \
                     sim block, or change the sweep's block)"
                        .to_string(),
                ));
            }
            let sweep = directive::sweep::read_sweep_root(&text.tree).map_err(placed)?;
            let share = work::share(sweep.points.len());
            let results: Vec<(String, crate::engine::ScenarioResult)> = (sweep.points.iter())
                .enumerate()
                .map(|(i, (label, _, scenario))| match run(scenario, share) {
                    Ok(result) => Ok((label.clone(), result)),
                    Err(over) => {
                        let value = directive::sweep::value_node(&text.tree, i);
                        Err(text.failure(vec![over.error(value, true)]))
                    }
                })
                .collect::<Result<_, _>>()?;
            Ok(if args.json {
                report::sweep_json(&results, args.lanes) + "\n"
            } else {
                report::sweep_table(&sweep.id, sweep.parameter.name(), sweep.total, &results)
            })
        }
        other => Err(Failure::Other(format!(
            "`{id}` is a ```{} block, which runs no scenario of its own; `sim` runs a sim or a \
             sweep block",
            other.name()
        ))),
    }
}

#[cfg(feature = "live")]
fn live(args: &LiveArgs) -> Result<String, Failure> {
    let (text, scenario) = read_scenario_file(&args.file)?;
    let source = text.yaml();
    // Positions of the merged YAML, for a file that extends another.
    let name = match text.chain.is_empty() {
        true => text.own.file.clone(),
        false => format!("{} (merged with what it extends)", text.own.file),
    };
    crate::live::playable::check(&source, &scenario)
        .map_err(|errors| located(&name, &source, errors))?;
    if let Some(path) = &args.record {
        crate::live::record::check_replaceable(path).map_err(Failure::Other)?;
    }
    let (record, refused) = crate::live::run(&scenario, &source, std::io::stderr().is_terminal())
        .map_err(Failure::Other)?;
    let refusals = format!(
        "{} from outside the run (without its token) refused and not counted\n",
        match refused {
            1 => "1 request".to_string(),
            n => format!("{} requests", crate::format::thousands(n)),
        }
    );
    let json = crate::live::record::to_json(&record);
    if let Some(path) = &args.record {
        crate::live::record::write(path, &json).map_err(Failure::Other)?;
    }
    Ok(if args.json {
        // The JSON stays the record alone; the count goes beside it.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), refusals.as_bytes());
        json
    } else {
        format!("{}\n{refusals}", crate::live::table::table(&record))
    })
}
