//! The site: the only layer that touches the disk. `build` is a list of steps, each
//! handing its data to the next: load → read directives → check references → run the
//! engine → Markdown → templates → write.

pub mod address;
pub mod cache;
pub mod config;
pub mod docs;
pub mod explore;
pub mod feeds;
mod figures;
mod front_matter;
pub mod highlight;
pub mod links;
pub mod live;
pub mod memo;
mod meta;
pub mod output;
pub mod page;
mod parts;
pub mod playground;
pub mod progress;
pub mod render;
pub mod scaffold;
pub mod serve;
pub mod templates;
mod write;

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::chart;
use crate::diag::{Diagnostic, Failure, LineIndex};
use crate::engine::{Scenario, ScenarioResult};
use crate::format::thousands;
use cache::Cache;
use figures::draw_figures;
use memo::Memo;
use output::{Place, Staging};
use page::Page;
use parts::{Block, PageParts, read_parts};
use progress::Progress;
use render::Rendered;
use write::{
    render_pages, write_aliases, write_copied, write_defaults, write_pages, write_site_files,
};

/// What `build` and `check` are asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The site's folder (holding `site.yaml`).
    pub root: PathBuf,
    /// Where to write, instead of the config's `output`.
    pub output: Option<PathBuf>,
    /// The address to publish at, instead of the config's `base_url`.
    pub base_url: Option<String>,
    /// Whether to include draft pages.
    pub drafts: bool,
    /// Whether to show a progress line on stderr while simulating (for a terminal).
    pub progress: bool,
}

/// What a build did, for the summary line.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Pages written.
    pub pages: usize,
    /// Scenarios run or taken from the cache (a sweep has one per value).
    pub scenarios: usize,
    /// Runs simulated now (strategies × runs of the scenarios not in the cache).
    pub runs: u64,
    /// Scenarios taken from the cache.
    pub cached: usize,
    /// How long it took.
    pub elapsed: Duration,
    /// Where the site is.
    pub output: PathBuf,
}

/// Each `sim` scenario's setup and results, by id: what references quote.
type ResultsById<'a> = BTreeMap<&'a str, (&'a Scenario, &'a ScenarioResult)>;

impl std::fmt::Display for Summary {
    /// The summary line: `built 2 pages with 1 scenario (1,000 runs simulated) in …`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let cached = if self.cached > 0 {
            format!(", {} from the cache", thousands(self.cached as u64))
        } else {
            String::new()
        };
        write!(
            f,
            "built {} with {} ({} run{} simulated{cached}) in {:.2} s into {}",
            plural(self.pages, "page"),
            plural(self.scenarios, "scenario"),
            thousands(self.runs),
            if self.runs == 1 { "" } else { "s" },
            self.elapsed.as_secs_f64(),
            self.output
                .strip_prefix(".")
                .unwrap_or(&self.output)
                .display()
        )
    }
}

/// A page's figures, by the byte offset in its body at which each one's block starts.
type Figures = BTreeMap<usize, figures::Figure>;

/// Builds the site into its output folder. On any problem nothing is written and the
/// last good output stays as it was; an output folder that could hold files the build
/// did not write is refused (see [`output::place`]).
pub fn build(options: &Options) -> Result<Summary, Failure> {
    build_with(options, &mut Memo::new())
}

/// [`build`], with what earlier builds of this process left in `memo` (see
/// [`memo`]): the same bytes, sooner. `serve` keeps one between its builds.
pub fn build_with(options: &Options, memo: &mut Memo) -> Result<Summary, Failure> {
    let started = Instant::now();
    let root = &options.root;
    let config = config::load(root, options.base_url.as_deref(), options.output.as_deref())?;
    // Refused before any work; checked again once the build holds the output's lock.
    let place = Place::check(root, &config)?;
    memo.with_spare(|spare| output::recover_if_idle(&place, spare))?;
    let content = stop_on(page::load_content(root, options.drafts)?)?;
    let pages = &content.pages;
    let parts = stop_on(read_parts(root, pages, &mut memo.reads))?;
    let scenarios: Vec<&Scenario> = parts
        .iter()
        .flat_map(|p| p.blocks.iter().flat_map(|placed| placed.block.scenarios()))
        .collect();
    let cache = Cache::new(root);
    let missing = cache.missing(&scenarios);
    let s = if missing == 1 { "" } else { "s" };
    let progress = Progress::start(
        options.progress && missing > 0,
        format!("simulating {missing} scenario{s}…"),
    );
    let (results, stats) = cache.run_all(&scenarios, &mut memo.results);
    drop(progress);
    let playground = playground::address(pages, &config);
    let figures = draw_figures(
        &parts,
        &results,
        playground.as_deref(),
        &config.base_path,
        &mut memo.figures,
    );
    let mut by_id: ResultsById = BTreeMap::new();
    // Every scenario figure as its try-it link gives it, for the playground's presets.
    let mut shown: Vec<playground::Figure> = Vec::new();
    let mut in_order = results.iter();
    for block in parts.iter().flat_map(|p| &p.blocks).map(|p| &p.block) {
        for scenario in block.scenarios() {
            let result = in_order.next().expect("a result per scenario");
            if let Block::Sim(sim, source) = block {
                by_id.insert(scenario.id.as_str(), (scenario, result));
                let window = sim
                    .figure
                    .window
                    .unwrap_or_else(|| chart::auto_window(scenario, result));
                shown.push(playground::Figure {
                    id: &scenario.id,
                    source,
                    window,
                });
            }
        }
    }
    let sources = templates::sources(root)?;
    let templates = match memo.templates.take() {
        Some((known, templates)) if known == sources => templates,
        Some(_) | None => templates::compile(sources.clone())?,
    };
    let templates = &memo.templates.insert((sources, templates)).1;
    stop_on(((), template_problems(pages, &templates.tera)))?;
    let rendered = render_pages(
        &content,
        &parts,
        &config,
        Some(templates),
        Some((&figures, &by_id)),
        &memo.highlights,
        memo.keeps_pages.then_some(&mut memo.pages),
    );
    memo.highlights.rotate();
    let rendered = stop_on(rendered)?;
    let ids = parts_ids(pages, &rendered, &parts);
    stop_on(((), links::problems(&content, &ids, &rendered)))?;
    let staging = Staging::new(&place, memo::take(&memo.spare))?;
    let cards: Vec<Option<String>> = pages
        .iter()
        .map(|page| {
            let id = page.front.card.as_deref()?;
            let (scenario, result) = by_id.get(id)?;
            // The card shows its figure's window, as the author set it.
            let window = parts
                .iter()
                .flat_map(|p| &p.blocks)
                .find_map(|placed| match &placed.block {
                    Block::Sim(sim, _) if sim.scenario.id == id => Some(sim.figure.window),
                    Block::Sim(..)
                    | Block::Sweep(_)
                    | Block::Schedule(_)
                    | Block::Table(_)
                    | Block::Live(_) => None,
                })
                .flatten();
            Some(chart::thumbnail(scenario, result, window))
        })
        .collect();
    // The binary carries the playground's engine and writes it whenever a site has one,
    // or a page whose figure a reader may rerun.
    let explorable = parts
        .iter()
        .flat_map(|p| &p.blocks)
        .any(|p| matches!(&p.block, Block::Sim(sim, _) if !sim.explore.is_empty()));
    let has_module = playground.is_some() || explorable;
    write_pages(
        &staging,
        &templates.tera,
        &config,
        pages,
        &rendered,
        &cards,
        // Whether the playground's engine is published, and whether the site runs any
        // simulation.
        (has_module, !scenarios.is_empty() || playground.is_some()),
    )?;
    write_site_files(&staging, &config, pages)?;
    staging.copy_tree(&root.join("static"))?;
    write_copied(&staging, &content.files)?;
    write_aliases(&staging, &config, pages)?;
    write_defaults(&staging)?;
    if playground.is_some() {
        playground::write_files(&staging, root, &shown)?;
    }
    if explorable {
        explore::write_files(&staging, root)?;
    }
    if memo.keeps_spare {
        memo.keep_spare(staging.commit_keeping_replaced()?);
    } else {
        staging.commit()?;
    }
    Ok(Summary {
        pages: pages.len(),
        scenarios: scenarios.len(),
        runs: stats.runs,
        cached: stats.cached,
        elapsed: started.elapsed(),
        output: config.output.clone(),
    })
}

/// The pages whose front matter names a template the site does not have, each placed at
/// the name (`check` finds them as `build` would).
fn template_problems(pages: &[Page], tera: &tera::Tera) -> Vec<Diagnostic> {
    let names: Vec<&str> = tera.get_template_names().collect();
    pages
        .iter()
        .filter_map(|page| {
            let name = page.front.template.as_deref()?;
            if names.contains(&name) {
                return None;
            }
            // The front matter's `template:` line, and the name on it.
            let front = page.source.get(..page.body_start).unwrap_or("");
            let offset = front
                .match_indices("template:")
                .map(|(i, _)| i)
                .find(|&i| i == 0 || front[..i].ends_with('\n'))
                .and_then(|i| front[i..].find(name).map(|j| i + j))
                .unwrap_or(0);
            let index = LineIndex::new(&page.source);
            let pos = index.pos(&page.source, offset);
            let mut choices: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| !n.starts_with("partials/"))
                .collect();
            choices.sort_unstable();
            let help = crate::suggest::help(name, choices.iter().copied(), "templates");
            Some(
                Diagnostic::indexed(
                    &page.file,
                    &page.source,
                    &index,
                    pos,
                    name.chars().count(),
                    format!("there is no template `{name}`"),
                )
                .with_help(Some(help)),
            )
        })
        .collect()
}

/// Validates everything `build` does, plus internal links and anchors, without running
/// the engine or writing anything. Returns the number of pages checked.
pub fn check(options: &Options) -> Result<usize, Failure> {
    let root = &options.root;
    let config = config::load(root, options.base_url.as_deref(), options.output.as_deref())?;
    let (content, mut problems) = page::load_content(root, options.drafts)?;
    let pages = &content.pages;
    let templates = match templates::load(root) {
        Ok(templates) => {
            problems.extend(template_problems(pages, &templates.tera));
            Some(templates)
        }
        Err(Failure::Input(more)) => {
            problems.extend(more);
            None
        }
        Err(other) => return Err(other),
    };
    let (parts, more) = read_parts(root, pages, &mut parts::Reads::default());
    problems.extend(more);
    let (rendered, more) = render_pages(
        &content,
        &parts,
        &config,
        templates.as_ref(),
        None,
        &highlight::Kept::default(),
        None,
    );
    problems.extend(more);
    problems.extend(links::problems(
        &content,
        &parts_ids(&content.pages, &rendered, &parts),
        &rendered,
    ));
    if problems.is_empty() {
        Ok(pages.len())
    } else {
        Err(Failure::Input(problems))
    }
}

/// Each page's anchors, by its address: its headings, and its scenario figures
/// (`sim-{id}`), which the playground's presets link to.
fn parts_ids<'p>(
    pages: &'p [Page],
    rendered: &[Rendered],
    parts: &[PageParts],
) -> BTreeMap<&'p str, HashSet<String>> {
    pages
        .iter()
        .zip(rendered)
        .zip(parts)
        .map(|((p, r), part)| {
            let mut ids = r.ids.clone();
            for placed in &part.blocks {
                if let Block::Sim(sim, _) = &placed.block {
                    ids.insert(format!("sim-{}", sim.scenario.id));
                }
            }
            (p.url.as_str(), ids)
        })
        .collect()
}

/// A step's value, or its problems as the build's failure.
fn stop_on<T>((value, problems): (T, Vec<Diagnostic>)) -> Result<T, Failure> {
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(Failure::Input(problems))
    }
}

/// A diagnostic at a byte range of a page's body. A range that does not fall on
/// characters of the page (past its end, or inside a character) still gives a
/// diagnostic, with a caret of one. `index` is the page source's, built once per page:
/// a page with thousands of problems stays linear.
fn at(
    page: &Page,
    index: &LineIndex,
    range: &Range<usize>,
    message: String,
    help: Option<String>,
) -> Diagnostic {
    let start = page.body_start + range.start;
    let pos = index.pos(&page.source, start);
    let width = page
        .source
        .get(start..page.body_start + range.end)
        .and_then(|text| text.lines().next())
        .map_or(1, |l| l.chars().count());
    Diagnostic::indexed(&page.file, &page.source, index, pos, width, message).with_help(help)
}

/// The root a command works on: the given folder, or the current one.
pub fn root_or_current(root: Option<&Path>) -> PathBuf {
    root.map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}
