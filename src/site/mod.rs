//! The site: the only layer that touches the disk. `build` and `check` are one
//! pipeline of steps, each handing its data to the next: read (the config, the pages,
//! the directives, the templates) → simulate and draw → render and check the links →
//! write, which only `build` does (see [`pipeline`]).

pub mod address;
pub mod cache;
pub mod config;
pub mod docs;
pub mod explore;
pub mod external;
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
pub(crate) use parts::resolve_outside;
pub use parts::resolved;
pub mod playground;
pub mod progress;
pub mod render;
pub mod scaffold;
pub mod search;
pub mod serve;
pub mod sources;
pub mod templates;
pub mod ticks;
pub mod weight;
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
use figures::{Drawing, draw_figures};
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
    /// What the build has to say about the site beyond the summary, one `warning:` or
    /// `note:` each: a page too heavy for a phone, that it has no absolute address.
    pub notes: Vec<String>,
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
    pipeline(options, memo, End::Write)
}

/// Validates everything `build` does, by the same steps, without writing the site:
/// the same problems, in the same order. Returns the number of pages checked.
pub fn check(options: &Options) -> Result<usize, Failure> {
    check_site(options).map(|summary| summary.pages)
}

/// [`check`], with what the build would say beyond its problems: the warnings of a
/// page too heavy for a phone ([`weight`]), as `build` gives them.
pub fn check_site(options: &Options) -> Result<Summary, Failure> {
    pipeline(options, &mut Memo::new(), End::Check)
}

/// [`check_site`], with every link that leaves the site asked of its host
/// (`check --external`, see [`external`]): the problems of both, and what the
/// external check did, which is told whatever the outcome.
pub fn check_external(
    options: &Options,
    asked: &external::Options,
) -> (Result<Summary, Failure>, Option<external::Tally>) {
    let mut tally = None;
    let result = pipeline_with(
        options,
        &mut Memo::new(),
        End::Check,
        Some((asked, &mut tally)),
    );
    (result, tally)
}

/// Where the pipeline ends: with the site written into its output folder, or checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// `build`: the site is written and swapped in.
    Write,
    /// `check`: nothing is written but the simulation cache.
    Check,
}

/// The build, step by step; `check` is the same steps without the last.
///
/// 1. **Read**: the config, the pages, the templates and every directive. A problem
///    here does not stop the reading, so that every one is listed.
/// 2. **Simulate and draw** (only when everything read): each block's scenarios, from
///    the cache or the engine, and its figure.
/// 3. **Render** every page, checking each reference and condition against the
///    results, then every link and anchor; with `check --external` alone, every link
///    that leaves the site too ([`external`]). Without results (a problem in step 1),
///    the pages are still rendered, for the problems rendering finds.
/// 4. **Write** (`build` only, and only without a problem): the site into a staging
///    folder, swapped in for the last one at once.
fn pipeline(options: &Options, memo: &mut Memo, end: End) -> Result<Summary, Failure> {
    pipeline_with(options, memo, end, None)
}

/// What `check --external` asks of the pipeline: how to ask, and where to tell what it
/// did.
type ExternalRun<'a> = (&'a external::Options, &'a mut Option<external::Tally>);

/// [`pipeline`], with the links that leave the site checked after the others when
/// `external` says how (`check --external` only).
fn pipeline_with(
    options: &Options,
    memo: &mut Memo,
    end: End,
    external: Option<ExternalRun>,
) -> Result<Summary, Failure> {
    let started = Instant::now();
    let root = &options.root;
    let config = config::load(root, options.base_url.as_deref(), options.output.as_deref())?;
    let place = match end {
        End::Write => {
            // Refused before any work; checked again once the build holds the lock.
            let place = Place::check(root, &config)?;
            memo.with_spare(|spare| output::recover_if_idle(&place, spare))?;
            Some(place)
        }
        End::Check => None,
    };

    // 1. Read.
    let (content, mut problems) = page::load_content(root, options.drafts)?;
    let pages = &content.pages;
    let (parts, more) = read_parts(root, pages, &mut memo.reads);
    problems.extend(more);
    let templates = read_templates(root, memo.templates.take(), pages, &mut problems)?;
    if config.search {
        problems.extend(search::own_index(root));
    }
    let sources = sources::read_for_site(root, &mut problems)?;

    // 2. Simulate and draw.
    let simulated = match problems.is_empty() {
        true => match simulate(root, pages, &parts, options.progress, &mut memo.results) {
            Ok(simulated) => Some(simulated),
            Err(more) => {
                problems.extend(more);
                None
            }
        },
        false => None,
    };
    let playground = playground::address(pages, &config);
    let drawn = simulated.as_ref().map(|(results, _)| {
        let drawing = Drawing {
            playground: playground.as_deref(),
            base_path: &config.base_path,
            smart: config.smart_punctuation,
        };
        let figures = draw_figures(pages, &parts, results, &drawing, &mut memo.figures);
        (figures, results_by_id(&parts, results))
    });

    // 3. Render and check the links.
    let shared = write::Shared {
        config: &config,
        sources: sources.as_ref(),
        highlights: &memo.highlights,
    };
    let (rendered, more) = render_pages(
        &content,
        &parts,
        &shared,
        templates.as_ref().map(|(_, t)| t),
        drawn
            .as_ref()
            .map(|(figures, by_id)| (figures.as_slice(), by_id)),
        memo.keeps_pages.then_some(&mut memo.pages),
    );
    memo.highlights.rotate();
    problems.extend(more);
    let ids = parts_ids(pages, &rendered, &parts);
    problems.extend(links::problems(&content, &ids, &rendered));
    // 3b. The links that leave the site, asked of their hosts (`check --external`).
    if let Some((asked, tally)) = external {
        let written = external::written(&content, &rendered, sources.as_ref());
        let line = Progress::start(
            options.progress && !written.is_empty(),
            "checking the links that leave the site…".to_string(),
        );
        let (more, counted) = external::check(root, &written, asked, &config.external_skip);
        drop(line);
        problems.extend(more);
        *tally = Some(counted);
    }
    // A source no page cites, once every page is read: only when nothing else is wrong,
    // since a page that could not be read or a citation that could not be leaves its
    // sources uncited. A draft left out of the build still cites its sources.
    if let Some(sources) = &sources
        && problems.is_empty()
    {
        let drafts: Vec<_> = content
            .drafts
            .iter()
            .map(|d| render::cited_in(d.body()))
            .collect();
        let cited = (rendered.iter().flat_map(|r| &r.cited))
            .chain(drafts.iter().flatten())
            .map(String::as_str);
        problems.extend(sources::uncited(sources, &cited.collect()));
    }
    let templates = memo.templates.insert(match templates {
        Some(templates) => templates,
        // Only a problem leaves the templates unread, and it stops here.
        None => return Err(in_order(problems)),
    });
    if !problems.is_empty() {
        return Err(in_order(problems));
    }
    // A page too heavy for a phone, said by `build` and `check` alike.
    let heavy: Vec<String> = config::placeholder_note(&config)
        .into_iter()
        .chain(drawn.as_ref().map_or_else(Vec::new, |(figures, _)| {
            weight::warnings(pages, rendered.iter().map(|r| r.html.as_str()), figures)
        }))
        .chain(match config.search {
            true => search::unsearched(pages, &templates.1),
            false => Vec::new(),
        })
        .collect();
    let (Some(place), Some((results, stats)), Some((figures, by_id))) = (place, &simulated, &drawn)
    else {
        return Ok(Summary {
            pages: pages.len(),
            scenarios: simulated.as_ref().map_or(0, |(_, s)| s.scenarios),
            runs: simulated.as_ref().map_or(0, |(_, s)| s.runs),
            cached: simulated.as_ref().map_or(0, |(_, s)| s.cached),
            elapsed: started.elapsed(),
            output: config.output.clone(),
            notes: heavy,
        });
    };

    // 4. Write.
    let staging = Staging::new(&place, memo::take(&memo.spare))?;
    let cards = cards(pages, &parts, by_id);
    let explorable = parts
        .iter()
        .flat_map(|p| &p.blocks)
        .any(|p| matches!(&p.block, Block::Sim(sim, _) if !sim.explore.is_empty()));
    // The binary carries the playground's engine and writes it whenever a site has one,
    // or a page whose figure a reader may rerun.
    let has_module = playground.is_some() || explorable;
    let written = write_pages(
        &staging,
        &templates.1.tera,
        &config,
        pages,
        &rendered,
        &cards,
        // Whether the playground's engine is published, and whether the site runs any
        // simulation.
        (has_module, stats.scenarios > 0 || playground.is_some()),
    )?;
    write_site_files(&staging, &config, pages)?;
    if config.search {
        staging.write(search::SCRIPT, search::SCRIPT_TEXT.as_bytes())?;
    }
    // The search index is made on a thread of its own while the rest is written.
    std::thread::scope(|scope| {
        let index = config.search.then(|| {
            scope.spawn(|| {
                // Each page without its figures, which the index leaves out: most of
                // a page's bytes, which Pagefind would otherwise read to leave out.
                let indexed: Vec<(&str, String)> = pages
                    .iter()
                    .zip(&written)
                    .zip(figures)
                    .map(|((page, html), drawn)| {
                        (page.url.as_str(), search::without(html, drawn.values()))
                    })
                    .collect();
                search::index(&indexed, &config.language)
            })
        });
        staging.copy_tree(&root.join("static"))?;
        write_copied(&staging, &content.files)?;
        write_aliases(&staging, &config, pages)?;
        write_defaults(&staging)?;
        templates::write_sheets(&staging)?;
        ticks::write_files(&staging, pages, &parts, results, playground.is_some())?;
        if playground.is_some() {
            playground::write_files(&staging, root, &shown(&parts, results))?;
        }
        if explorable {
            explore::write_files(&staging, root)?;
        }
        if let Some(index) = index {
            let files = index
                .join()
                .unwrap_or_else(|_| Err("the search index failed".to_string()))
                .map_err(Failure::Other)?;
            // The site's static/ has no `pagefind/` (`search::own_index`).
            for (path, bytes) in &files {
                staging.write(path, bytes)?;
            }
        }
        Ok::<(), Failure>(())
    })?;
    if memo.keeps_spare {
        memo.keep_spare(staging.commit_keeping_replaced()?);
    } else {
        staging.commit()?;
    }
    Ok(Summary {
        pages: pages.len(),
        scenarios: stats.scenarios,
        runs: stats.runs,
        cached: stats.cached,
        elapsed: started.elapsed(),
        output: config.output.clone(),
        notes: heavy
            .into_iter()
            .chain(config::relative_base_note(&config))
            .collect(),
    })
}

/// The build's problems as a failure, in file and line order: where several steps
/// found problems in one file, an author reads them from the top. Problems at the same
/// place keep the order in which the steps found them.
fn in_order(mut problems: Vec<Diagnostic>) -> Failure {
    problems.sort_by(|a, b| {
        let place = |d: &Diagnostic| (d.pos.map(|p| (p.line, p.column)), d.file.clone());
        let (pa, fa) = place(a);
        let (pb, fb) = place(b);
        fa.cmp(&fb).then(pa.cmp(&pb))
    });
    Failure::Input(problems)
}

/// The templates' texts by name, and what they compiled to.
type KnownTemplates = (Vec<(String, String)>, templates::Templates);

/// The templates, compiled, or the ones `known` holds when their texts are the same;
/// `None` with the problems added to `problems` when they do not compile. Also checks
/// that every page's template exists.
fn read_templates(
    root: &Path,
    known: Option<KnownTemplates>,
    pages: &[Page],
    problems: &mut Vec<Diagnostic>,
) -> Result<Option<KnownTemplates>, Failure> {
    let compiled = templates::sources(root).and_then(|sources| match known {
        Some((texts, templates)) if texts == sources => Ok((texts, templates)),
        Some(_) | None => templates::compile(sources.clone()).map(|t| (sources, t)),
    });
    match compiled {
        Ok(templates) => {
            problems.extend(template_problems(pages, &templates.1.tera));
            Ok(Some(templates))
        }
        Err(Failure::Input(more)) => {
            problems.extend(more);
            Ok(None)
        }
        Err(other) => Err(other),
    }
}

/// What the simulation step did, for the summary line.
struct Simulated {
    /// Scenarios run or taken from the cache.
    scenarios: usize,
    /// Runs simulated now.
    runs: u64,
    /// Scenarios taken from the cache.
    cached: usize,
}

/// Each block's results, page by page and block by block: one per scenario of the
/// block, in the order of [`Block::scenarios`].
pub(super) type BlockResults = Vec<Vec<Vec<ScenarioResult>>>;

/// Runs every block's scenarios, from the cache or the engine (with a progress line
/// when `progress` and some must run), and hands each block its results. A scenario
/// that passes its limit of work (a sweep's values share one) is a problem, placed
/// where the block says so ([`parts::Placed::blame`]).
fn simulate(
    root: &Path,
    pages: &[Page],
    parts: &[PageParts],
    progress: bool,
    memo: &mut std::collections::HashMap<String, ScenarioResult>,
) -> Result<(BlockResults, Simulated), Vec<Diagnostic>> {
    let scenarios: Vec<cache::Job> = parts
        .iter()
        .flat_map(|p| p.blocks.iter())
        .flat_map(|placed| {
            let limit = placed.block.work_limit();
            placed
                .block
                .scenarios()
                .into_iter()
                .map(move |s| (s, limit))
        })
        .collect();
    let cache = Cache::new(root);
    let missing = cache.missing(&scenarios);
    let s = if missing == 1 { "" } else { "s" };
    let line = Progress::start(
        progress && missing > 0,
        format!("simulating {missing} scenario{s}…"),
    );
    let (results, stats) = cache.run_all(&scenarios, memo);
    drop(line);
    // The results come in the order of `scenarios`: each block takes as many as it has.
    let mut results = results.into_iter();
    let mut problems = Vec::new();
    let by_block = parts
        .iter()
        .zip(pages)
        .map(|(p, page)| {
            p.blocks
                .iter()
                .map(|placed| {
                    let n = placed.block.scenarios().len();
                    let outcomes: Vec<_> = results.by_ref().take(n).collect();
                    // One problem per block: a sweep's first value past its share.
                    let first = outcomes.iter().position(Result::is_err);
                    if let Some((i, Err(over))) = first.map(|i| (i, &outcomes[i])) {
                        let mut problem = (placed.blame.get(i).cloned().flatten())
                            .unwrap_or_else(|| Diagnostic::in_file(&page.file, String::new()));
                        problem.message = over.message(matches!(placed.block, Block::Sweep(_)));
                        problem.help = Some(over.help());
                        problems.push(problem);
                    }
                    outcomes.into_iter().filter_map(Result::ok).collect()
                })
                .collect()
        })
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    let simulated = Simulated {
        scenarios: scenarios.len(),
        runs: stats.runs,
        cached: stats.cached,
    };
    Ok((by_block, simulated))
}

/// Each `sim` block's scenario and results, by id: what references quote.
fn results_by_id<'a>(parts: &'a [PageParts], results: &'a BlockResults) -> ResultsById<'a> {
    let mut by_id = ResultsById::new();
    for (p, results) in parts.iter().zip(results) {
        for (placed, results) in p.blocks.iter().zip(results) {
            if let (Block::Sim(sim, _), [result]) = (&placed.block, results.as_slice()) {
                by_id.insert(sim.scenario.id.as_str(), (&sim.scenario, result));
            }
        }
    }
    by_id
}

/// Every scenario figure as its try-it link gives it, for the playground's presets.
fn shown<'a>(parts: &'a [PageParts], results: &'a BlockResults) -> Vec<playground::Figure<'a>> {
    let mut shown = Vec::new();
    for (p, results) in parts.iter().zip(results) {
        for (placed, results) in p.blocks.iter().zip(results) {
            if let (Block::Sim(sim, source), [result]) = (&placed.block, results.as_slice()) {
                let window = sim
                    .figure
                    .window
                    .unwrap_or_else(|| chart::auto_window(&sim.scenario, result));
                shown.push(playground::Figure {
                    id: &sim.scenario.id,
                    source,
                    window,
                });
            }
        }
    }
    shown
}

/// Each page's card: the thumbnail of the figure its front matter names, in the
/// figure's window as the author set it.
fn cards(pages: &[Page], parts: &[PageParts], by_id: &ResultsById) -> Vec<Option<String>> {
    pages
        .iter()
        .map(|page| {
            let id = page.front.card.as_deref()?;
            let (scenario, result) = by_id.get(id)?;
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
        .collect()
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
