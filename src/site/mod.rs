//! The site: the only layer that touches the disk. `build` is a list of steps, each
//! handing its data to the next: load → read directives → check references → run the
//! engine → Markdown → templates → write.

pub mod address;
pub mod cache;
pub mod config;
pub mod docs;
pub mod explore;
pub mod feeds;
mod front_matter;
pub mod highlight;
pub mod links;
pub mod live;
pub mod memo;
mod meta;
pub mod output;
pub mod page;
pub mod playground;
pub mod progress;
pub mod render;
pub mod scaffold;
pub mod serve;
pub mod templates;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::chart::table::escape;
use crate::chart::{self, Sweep, SweepPoint};
use crate::diag::{Diagnostic, Failure, LineIndex};
use crate::directive::condition;
use crate::directive::reference::{self, Reference};
use crate::directive::schedule::ScheduleDirective;
use crate::directive::sweep::{self, SweepDirective};
use crate::directive::{self, Kind, SimDirective};
use crate::engine::schedule::schedule;
use crate::engine::{Scenario, ScenarioResult};
use crate::format::thousands;
use crate::suggest::closest;
use cache::Cache;
use config::Config;
use memo::Memo;
use output::{Place, Staging};
use page::Page;
use progress::Progress;
use render::Rendered;

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

/// One directive, read.
#[derive(Debug)]
enum Block {
    /// A scenario, with its YAML as the author wrote it (for the playground link).
    Sim(Box<SimDirective>, String),
    Sweep(SweepDirective),
    Schedule(ScheduleDirective),
    /// A generated table of the authors' reference, as HTML.
    Table(String),
    /// A stored live run beside a scenario's simulation.
    Live(Box<live::LiveBlock>),
}

impl Block {
    /// The scenarios the engine must run for it.
    fn scenarios(&self) -> Vec<&Scenario> {
        match self {
            Block::Sim(sim, _) => vec![&sim.scenario],
            Block::Sweep(sweep) => sweep.points.iter().map(|p| &p.2).collect(),
            Block::Schedule(_) | Block::Table(_) => Vec::new(),
            // The page's scenario, once checked: its results are the page's own.
            Block::Live(block) => block.scenario.iter().collect(),
        }
    }

    /// The ids its figure holds, known without drawing it, so that `check` keeps a
    /// heading off them as `build` does: the figure's own (`sim-{id}`, the anchor a link
    /// names), and those of its charts and tables, each `{id}-` and a name.
    fn ids(&self) -> Vec<String> {
        let (kind, id) = match self {
            Block::Sim(sim, _) => ("sim", &sim.scenario.id),
            Block::Sweep(sweep) => ("sweep", &sweep.id),
            Block::Schedule(schedule) => ("schedule", &schedule.id),
            Block::Table(_) => return Vec::new(),
            Block::Live(block) => {
                let id = &block.directive.scenario;
                return vec![format!("live-{id}"), format!("{id}-live-caption")];
            }
        };
        let mut ids = vec![format!("{kind}-{id}")];
        for name in ["title", "desc", "hatch"] {
            ids.push(format!("{id}-{name}"));
            ids.push(format!("{id}-{name}-narrow"));
        }
        for name in ["results", "ticks", "sweep", "waits"] {
            ids.push(format!("{id}-{name}-caption"));
        }
        if let Block::Sim(sim, _) = self {
            ids.extend(explore::ids(id, &sim.explore));
        }
        ids
    }

    /// Its HTML, taking its results from `results` in the order of [`Block::scenarios`].
    /// A scenario's figure links to the playground at `playground`, when the site has one
    /// and the playground can show the scenario.
    fn figure<'r>(
        &self,
        results: &mut impl Iterator<Item = &'r ScenarioResult>,
        playground: Option<&str>,
        base_path: &str,
    ) -> String {
        match self {
            Block::Sim(sim, source) => {
                let result = results.next().expect("a result per scenario");
                let options = &sim.figure;
                let figure = if sim.explore.is_empty() {
                    chart::figure(&sim.scenario, result, options)
                } else {
                    let controls = explore::controls(
                        &sim.scenario.id,
                        source,
                        &sim.explore,
                        &sim.scenario.strategies,
                        options.window,
                        options.caption.as_deref(),
                    );
                    chart::explorable_figure(&sim.scenario, result, options, &controls)
                        + &explore::script(base_path)
                };
                // Every scenario runs there: what the form cannot show stays in its YAML
                // editor, which holds the block as the author wrote it. The link names
                // the figure's window, so the playground's chart shows the same ticks.
                match playground {
                    Some(address) => {
                        let window = options
                            .window
                            .unwrap_or_else(|| chart::auto_window(&sim.scenario, result));
                        figure + &playground::try_it(address, source, window)
                    }
                    None => figure,
                }
            }
            Block::Sweep(sweep) => {
                let points: Vec<SweepPoint> = sweep
                    .points
                    .iter()
                    .map(|(label, x, _)| SweepPoint {
                        label: label.clone(),
                        x: *x,
                        result: results.next().expect("a result per point").clone(),
                    })
                    .collect();
                chart::sweep_figure(&Sweep {
                    id: &sweep.id,
                    parameter: sweep.parameter.name(),
                    axis: &sweep.parameter.axis(),
                    total: sweep.total,
                    points: &points,
                    caption: sweep.caption.as_deref(),
                })
            }
            Block::Schedule(s) => {
                let rows: Vec<_> = s
                    .strategies
                    .iter()
                    .map(|&strategy| (strategy, schedule(strategy, &s.retry, s.waits, s.seed)))
                    .collect();
                chart::schedule_figure(&s.id, &rows, s.caption.as_deref())
            }
            Block::Table(html) => html.clone(),
            Block::Live(block) => {
                let result = results.next().expect("a result per scenario");
                live::figure(block, result)
            }
        }
    }
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
type Figures = BTreeMap<usize, String>;

/// A page's directives and references, read and checked.
struct PageParts {
    /// Each directive, with the byte offset in the body at which its fenced block
    /// starts, which is where its figure goes.
    blocks: Vec<(usize, Block)>,
    references: Vec<Reference>,
    /// The sentences marked with a condition (`{{ if … }}…{{ end }}`).
    conditions: Vec<condition::Condition>,
}

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
    memo.tidied();
    let root = &options.root;
    let config = config::load(root, options.base_url.as_deref(), options.output.as_deref())?;
    // Refused before any work; checked again once the build holds the output's lock.
    let place = Place::check(root, &config)?;
    output::recover_if_idle(&place)?;
    let content = stop_on(page::load_content(root, options.drafts)?)?;
    let pages = &content.pages;
    let parts = stop_on(read_parts(root, pages))?;
    let scenarios: Vec<&Scenario> = parts
        .iter()
        .flat_map(|p| p.blocks.iter().flat_map(|(_, b)| b.scenarios()))
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
    for (_, block) in parts.iter().flat_map(|p| &p.blocks) {
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
    let staging = Staging::new(&place)?;
    let cards: Vec<Option<String>> = pages
        .iter()
        .map(|page| {
            let id = page.front.card.as_deref()?;
            let (scenario, result) = by_id.get(id)?;
            // The card shows its figure's window, as the author set it.
            let window = parts
                .iter()
                .flat_map(|p| &p.blocks)
                .find_map(|(_, b)| match b {
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
        .any(|(_, b)| matches!(b, Block::Sim(sim, _) if !sim.explore.is_empty()));
    let has_module = playground.is_some() || explorable;
    write_pages(
        &staging,
        &templates.tera,
        &config,
        pages,
        &rendered,
        &cards,
        has_module,
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
    if memo.tidy_after {
        if let Some(replaced) = staging.commit_leaving_replaced()? {
            memo.tidying = Some(std::thread::spawn(move || replaced.remove()));
        }
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

/// Each page's figures, by the place of their blocks: drawn, or found in `memo` by
/// every field of the directive and the playground's address (which fix its
/// scenarios, hence its results). `memo` is left holding this build's figures.
fn draw_figures(
    parts: &[PageParts],
    results: &[ScenarioResult],
    playground: Option<&str>,
    base_path: &str,
    memo: &mut HashMap<String, String>,
) -> Vec<Figures> {
    let mut in_order = results.iter();
    let mut drawn = HashMap::new();
    let figures = parts
        .iter()
        .map(|p| {
            p.blocks
                .iter()
                .map(|(at, block)| {
                    let key = format!("{block:?}\n{playground:?}\n{base_path}");
                    let figure = match memo.remove(&key).or_else(|| drawn.get(&key).cloned()) {
                        Some(figure) => {
                            // The figure's results are passed over, as drawing takes them.
                            in_order
                                .by_ref()
                                .take(block.scenarios().len())
                                .for_each(drop);
                            figure
                        }
                        None => block.figure(&mut in_order, playground, base_path),
                    };
                    drawn.insert(key, figure.clone());
                    (*at, figure)
                })
                .collect()
        })
        .collect();
    *memo = drawn;
    figures
}

/// The files a host and a feed reader look for: the sitemap, the Atom feed,
/// `robots.txt`, and `.nojekyll` (GitHub Pages would otherwise run Jekyll, which hides
/// files whose names start with `_`).
fn write_site_files(staging: &Staging, config: &Config, pages: &[Page]) -> Result<(), Failure> {
    staging.write(feeds::SITEMAP, feeds::sitemap(config, pages).as_bytes())?;
    staging.write(feeds::FEED, feeds::atom(config, pages).as_bytes())?;
    staging.write("robots.txt", feeds::robots(config).as_bytes())?;
    staging.write(".nojekyll", b"")
}

/// The files of `content/` that are no page, each at its own path (see [`page::Copied`]).
fn write_copied(staging: &Staging, files: &[page::Copied]) -> Result<(), Failure> {
    for file in files {
        let bytes = std::fs::read(&file.from)
            .map_err(|e| Failure::Other(format!("cannot read content/{}: {e}", file.path)))?;
        staging.write(&file.path, &bytes)?;
    }
    Ok(())
}

/// For each page's alias, a page that sends readers on to the page, as Zola and Hugo
/// write one: at once by `refresh`, for search engines by its canonical link, and by
/// a link for a reader whose browser does neither. It is listed nowhere.
fn write_aliases(staging: &Staging, config: &Config, pages: &[Page]) -> Result<(), Failure> {
    for page in pages {
        let permalink = escape(&format!("{}{}", config.base_url, page.url));
        let title = escape(&page.front.title);
        let language = escape(&config.language);
        let html = format!(
            "<!DOCTYPE html>\n<html lang=\"{language}\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>{title}</title>\n<meta name=\"robots\" content=\"noindex\">\n\
             <link rel=\"canonical\" href=\"{permalink}\">\n\
             <meta http-equiv=\"refresh\" content=\"0; url={permalink}\">\n</head>\n<body>\n\
             <p>This page has moved to <a href=\"{permalink}\">{title}</a>.</p>\n</body>\n</html>\n"
        );
        for alias in &page.aliases {
            staging.write(alias, html.as_bytes())?;
        }
    }
    Ok(())
}

/// The built-in stylesheet and favicon, unless `static/` brought its own.
fn write_defaults(staging: &Staging) -> Result<(), Failure> {
    if !staging.has("style.css") {
        staging.write("style.css", templates::default_css().as_bytes())?;
    }
    if !staging.has("favicon.svg") {
        staging.write("favicon.svg", templates::FAVICON.as_bytes())?;
    }
    Ok(())
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
    let (parts, more) = read_parts(root, pages);
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
            for (_, block) in &part.blocks {
                if let Block::Sim(sim, _) = block {
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

/// Reads every page's directives, then checks every reference and live run against all
/// scenarios. What is wrong is left out of the parts and returned as problems. Live
/// directives read their stored runs from the site's folder `root`.
fn read_parts(root: &Path, pages: &[Page]) -> (Vec<PageParts>, Vec<Diagnostic>) {
    let mut problems = Vec::new();
    let mut scans = Vec::new();
    let mut scenarios: BTreeMap<String, Scenario> = BTreeMap::new();
    let mut defined_at: BTreeMap<String, String> = BTreeMap::new();
    let mut blocks_of_pages = Vec::new();
    // Ids of directives that failed: references to them are not reported again.
    let mut broken: HashSet<String> = HashSet::new();
    for page in pages {
        let body = page.body();
        let scan = directive::scan(body);
        let index = LineIndex::new(&page.source);
        for p in &scan.problems {
            problems.push(at(
                page,
                &index,
                &p.range,
                p.message.clone(),
                p.help.clone(),
            ));
        }
        let mut blocks = Vec::new();
        for found in &scan.directives {
            let origin = index.pos(&page.source, page.body_start + found.body_start);
            let read = match found.kind {
                Kind::Sim => directive::read_sim(&found.body)
                    .map(|sim| Block::Sim(Box::new(sim), found.body.clone())),
                Kind::Sweep => sweep::read_sweep(&found.body).map(Block::Sweep),
                Kind::Schedule => {
                    directive::schedule::read_schedule(&found.body).map(Block::Schedule)
                }
                Kind::Live => match directive::live::read_live(&found.body) {
                    Ok(read) => match live::load(root, page, origin, read) {
                        Ok(block) => Ok(Block::Live(Box::new(block))),
                        Err(more) => {
                            problems.extend(more);
                            continue;
                        }
                    },
                    Err(errors) => Err(errors),
                },
                Kind::ReferenceTable => {
                    let name = found.body.trim();
                    match docs::table_named(name) {
                        Some(html) => Ok(Block::Table(html)),
                        None if name.is_empty() => {
                            problems.push(at(
                                page,
                                &index,
                                &found.block,
                                "this `reference` block names no table".to_string(),
                                Some(format!(
                                    "write the name of a table inside it: {}",
                                    docs::TABLES
                                        .iter()
                                        .map(|(n, _)| *n)
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )),
                            ));
                            continue;
                        }
                        None => {
                            let names = docs::TABLES.iter().map(|(n, _)| *n);
                            let help = crate::suggest::help(name, names, "tables");
                            problems.push(at(
                                page,
                                &index,
                                &name_range(body, found, name),
                                format!("there is no reference table `{name}`"),
                                Some(help),
                            ));
                            continue;
                        }
                    }
                }
            };
            match read {
                Ok(block) => {
                    let id = match &block {
                        Block::Sim(sim, _) => Some(sim.scenario.id.clone()),
                        Block::Sweep(sweep) => Some(sweep.id.clone()),
                        Block::Schedule(schedule) => Some(schedule.id.clone()),
                        Block::Live(block) => Some(format!("live-{}", block.directive.scenario)),
                        Block::Table(_) => None,
                    };
                    if let Some(id) = id {
                        if let Some(first) = defined_at.get(&id) {
                            problems.push(at(
                                page,
                                &index,
                                &(found.body_start..found.body_start + 1),
                                format!("the id `{id}` is used twice"),
                                Some(format!(
                                    "it is first used at {first}; directive ids are unique across the site"
                                )),
                            ));
                            continue;
                        }
                        defined_at.insert(id.clone(), format!("{}:{}", page.file, origin.line));
                        if let Block::Sim(sim, _) = &block {
                            scenarios.insert(id, sim.scenario.clone());
                        }
                    }
                    blocks.push((found.block.start, block));
                }
                Err(errors) => {
                    if let Some(id) = directive::id_of(&found.body) {
                        broken.insert(id);
                    }
                    problems.extend(
                        errors.into_iter().map(|e| {
                            Diagnostic::from_scenario(&page.file, &page.source, origin, e)
                        }),
                    );
                }
            }
        }
        blocks_of_pages.push(blocks);
        scans.push(scan);
    }
    let mut parts = Vec::new();
    for ((page, scan), mut blocks) in pages.iter().zip(&scans).zip(blocks_of_pages) {
        let mut references = Vec::new();
        let index = LineIndex::new(&page.source);
        // A live run is shown only beside the very scenario it was played with.
        blocks.retain_mut(|(at, block)| {
            let Block::Live(live_block) = block else {
                return true;
            };
            // A scenario that failed has said so; its live block is left out quietly.
            if broken.contains(&live_block.directive.scenario) {
                return false;
            }
            match live::check(live_block, &scenarios) {
                Ok(scenario) => {
                    live_block.scenario = Some(scenario);
                    true
                }
                Err(e) => {
                    let origin = scan
                        .directives
                        .iter()
                        .find(|d| d.block.start == *at)
                        .map_or(crate::yaml::Pos::START, |d| {
                            index.pos(&page.source, page.body_start + d.body_start)
                        });
                    problems.push(Diagnostic::from_scenario(
                        &page.file,
                        &page.source,
                        origin,
                        e,
                    ));
                    false
                }
            }
        });
        for found in reference::find(page.body(), &scan.code) {
            if let Ok(raw) = &found
                && broken.contains(&raw.path[0])
            {
                continue;
            }
            match found.and_then(|raw| reference::check(&raw, &scenarios)) {
                Ok(r) => references.push(r),
                Err(e) => problems.push(at(page, &index, &e.range, e.message, e.help)),
            }
        }
        let mut conditions = Vec::new();
        for found in condition::find(page.body(), &scan.code, &scenarios) {
            match found {
                Ok(c) if broken.contains(&c.id) => {}
                Ok(c) => conditions.push(c),
                Err(e) => problems.push(at(page, &index, &e.range, e.message, e.help)),
            }
        }
        parts.push(PageParts {
            blocks,
            references,
            conditions,
        });
    }
    for page in pages {
        if let Some(id) = &page.front.card
            && !scenarios.contains_key(id)
        {
            problems.push(card_problem(page, id, &scenarios));
        }
    }
    problems.sort_by(|a, b| (&a.file, a.pos).cmp(&(&b.file, b.pos)));
    (parts, problems)
}

/// Where `name`, the trimmed body of the directive `found`, stands in the page's body
/// `markdown`: after any blank lines and indentation that open the block. A body the
/// Markdown split (a block indented in a list) falls back to the body's start.
fn name_range(markdown: &str, found: &directive::Found, name: &str) -> Range<usize> {
    let start = markdown
        .get(found.body_start..found.block.end)
        .and_then(|block| block.find(name))
        .map_or(found.body_start, |at| found.body_start + at);
    start..start + name.len()
}

/// A front matter `card:` that names no scenario, placed on its line.
fn card_problem(page: &Page, id: &str, scenarios: &BTreeMap<String, Scenario>) -> Diagnostic {
    let line = page.source[..page.body_start]
        .lines()
        .position(|l| l.trim_start().starts_with("card:"))
        .map_or(1, |i| i + 1);
    let column = page
        .source
        .lines()
        .nth(line - 1)
        .and_then(|l| l.find(id))
        .map_or(1, |c| c + 1);
    let help = match closest(id, scenarios.keys().map(String::as_str)) {
        Some(near) => format!("did you mean `{near}`?"),
        None => "`card` names the id of a sim directive on any page".to_string(),
    };
    Diagnostic::new(
        &page.file,
        &page.source,
        crate::yaml::Pos { line, column },
        id.chars().count(),
        format!("no scenario has the id `{id}`"),
    )
    .with_help(Some(help))
}

/// Renders every page's Markdown. Without results (for `check`) figures and values are
/// left empty. Links to missing pages are returned as problems.
fn render_pages(
    content: &page::Content,
    parts: &[PageParts],
    config: &Config,
    templates: Option<&templates::Templates>,
    results: Option<(&[Figures], &ResultsById)>,
    highlights: &highlight::Kept,
    mut remembered: Option<&mut HashMap<String, render::Remembered>>,
) -> (Vec<Rendered>, Vec<Diagnostic>) {
    let pages = &content.pages;
    // What this build rendered, for the next build: only what it used is kept.
    let mut kept = HashMap::new();
    let content_paths = content.addresses();
    let mut problems = Vec::new();
    let mut out = Vec::new();
    let no_figures = BTreeMap::new();
    for (i, (page, part)) in pages.iter().zip(parts).enumerate() {
        let index = LineIndex::new(&page.source);
        let (figures, mut values): (&Figures, Vec<(Range<usize>, String)>) = match results {
            Some((figures, by_id)) => (
                &figures[i],
                part.references
                    .iter()
                    .filter_map(|r| {
                        let (scenario, result) = by_id[r.id.as_str()];
                        match reference::render(r, scenario, result) {
                            Ok(value) => Some((r.range.clone(), value)),
                            Err(e) => {
                                problems.push(at(page, &index, &e.range, e.message, e.help));
                                None
                            }
                        }
                    })
                    .collect(),
            ),
            // Without values, each reference stands for itself: the page is read as
            // `build` reads it, so its headings get the same ids.
            None => (
                &no_figures,
                part.references
                    .iter()
                    .filter_map(|r| {
                        let text = page.body().get(r.range.clone())?;
                        Some((r.range.clone(), text.to_string()))
                    })
                    .collect(),
            ),
        };
        // Each condition holds for the built numbers.
        if let Some((_, by_id)) = results {
            for c in &part.conditions {
                let (scenario, result) = by_id[c.id.as_str()];
                match c.holds(scenario, result) {
                    Ok(true) => {}
                    Ok(false) => problems.push(at(
                        page,
                        &index,
                        &c.open,
                        format!(
                            "this condition does not hold for the numbers of `{}` as built: {}",
                            c.id,
                            c.marked()
                        ),
                        Some(
                            "a marked sentence must be true on the page as built; correct the \
                             sentence or its condition"
                                .to_string(),
                        ),
                    )),
                    Err(e) => problems.push(at(page, &index, &e.range, e.message, e.help)),
                }
            }
        }
        // A condition's markers become the element that holds its sentence.
        for c in &part.conditions {
            values.push((c.open.clone(), String::new()));
            values.push((c.close.clone(), String::new()));
        }
        // References to a scenario explorable on this page are marked for the browser.
        let explorable: HashSet<&str> = part
            .blocks
            .iter()
            .filter_map(|(_, b)| match b {
                Block::Sim(sim, _) if !sim.explore.is_empty() => Some(sim.scenario.id.as_str()),
                Block::Sim(..)
                | Block::Sweep(_)
                | Block::Schedule(_)
                | Block::Table(_)
                | Block::Live(_) => None,
            })
            .collect();
        let mut marks: BTreeMap<usize, render::Mark> = part
            .references
            .iter()
            .filter(|r| explorable.contains(r.id.as_str()))
            .map(|r| (r.range.start, render::Mark::Ref(reference::marked(r))))
            .collect();
        for c in &part.conditions {
            marks.insert(c.open.start, render::Mark::If(c.marked()));
            marks.insert(c.close.start, render::Mark::End);
        }
        // The template's own ids (`main`, …) are the page's too.
        let written = templates.map(|t| t.ids_of(templates::of_page(page)));
        let reserved: Vec<String> = (written.iter().flatten().cloned())
            .chain(part.blocks.iter().flat_map(|(_, b)| b.ids()))
            .collect();
        let content_path = page.file.strip_prefix("content/").unwrap_or(&page.file);
        let cx = render::Context {
            url: &page.url,
            content_path,
            pages: &content_paths,
            base_path: &config.base_path,
            figures,
            reserved: &reserved,
            values: &values,
            marks: &marks,
            smart_punctuation: config.smart_punctuation,
            highlights,
        };
        let rendered = match remembered.as_mut() {
            None => render::render(page.body(), &cx),
            // The last build's rendering of the page, when it was of the very same inputs.
            Some(memo) => {
                let last = memo
                    .remove(&page.file)
                    .filter(|last| last.is_for(page.body(), &cx))
                    .unwrap_or_else(|| {
                        let rendered = render::render(page.body(), &cx);
                        render::Remembered::new(page.body(), &cx, rendered)
                    });
                let rendered = last.rendered.clone();
                kept.insert(page.file.clone(), last);
                rendered
            }
        };
        for &open in &rendered.unbalanced {
            let c = part.conditions.iter().find(|c| c.open.start == open);
            let range = c.map_or(open..open + 1, |c| c.open.clone());
            problems.push(at(
                page,
                &index,
                &range,
                "the sentence this condition marks is not one piece of text".to_string(),
                Some(
                    "keep it in one paragraph, list item or cell, outside links and titles, \
                     and close any emphasis begun in it before `{{ end }}`"
                        .to_string(),
                ),
            ));
        }
        for taken in &rendered.taken {
            let help = match taken.first {
                Some(first) => {
                    let line = index.pos(&page.source, page.body_start + first).line;
                    format!("the heading on line {line} has it, and ids are unique on a page")
                }
                None if written.iter().flatten().any(|w| *w == taken.id) => format!(
                    "the page's template, `{}`, writes it",
                    templates::of_page(page)
                ),
                None => "a figure on this page has it: its directive's id gives it".to_string(),
            };
            problems.push(at(
                page,
                &index,
                &taken.range,
                format!("the id `{}` is already used on this page", taken.id),
                Some(format!("{help}; choose another id")),
            ));
        }
        out.push(rendered);
    }
    if let Some(memo) = remembered {
        *memo = kept;
    }
    (out, problems)
}

/// A page as listed in indexes and navigation: no content, so that listing every page
/// on every page stays cheap.
#[derive(Serialize)]
struct ListedPage<'a> {
    /// A small chart of the page's `card` scenario, as SVG.
    card: Option<&'a str>,
    title: &'a str,
    description: &'a str,
    date: &'a str,
    tags: &'a [String],
    weight: i64,
    url: &'a str,
    /// The front matter's `extra:` map, so that an index can show the author's keys.
    extra: &'a serde_json::Map<String, serde_json::Value>,
}

/// A page as templates see it.
#[derive(Serialize)]
struct PageView<'a> {
    title: &'a str,
    description: &'a str,
    date: &'a str,
    tags: &'a [String],
    weight: i64,
    url: &'a str,
    permalink: String,
    content: &'a str,
    toc: &'a [render::TocEntry],
    /// The front matter's `extra:` map, the author's own keys.
    extra: &'a serde_json::Map<String, serde_json::Value>,
    /// The article before this one in the index, if any.
    prev: Option<Neighbour<'a>>,
    /// The article after this one in the index, if any.
    next: Option<Neighbour<'a>>,
}

/// A link to the previous or next article.
#[derive(Clone, Copy, Serialize)]
struct Neighbour<'a> {
    title: &'a str,
    url: &'a str,
}

fn view<'a>(
    page: &'a Page,
    rendered: &'a Rendered,
    config: &Config,
    (prev, next): (Option<Neighbour<'a>>, Option<Neighbour<'a>>),
) -> PageView<'a> {
    PageView {
        title: &page.front.title,
        description: &page.front.description,
        date: &page.front.date,
        tags: &page.front.tags,
        weight: page.front.weight,
        url: &page.url,
        permalink: format!("{}{}", config.base_url, page.url),
        content: &rendered.html,
        toc: &rendered.toc,
        extra: &page.front.extra,
        prev,
        next,
    }
}

/// Renders every page with its template and writes it.
fn write_pages(
    staging: &Staging,
    tera: &tera::Tera,
    config: &Config,
    pages: &[Page],
    rendered: &[Rendered],
    cards: &[Option<String>],
    has_module: bool,
) -> Result<(), Failure> {
    let mut order: Vec<usize> = (0..pages.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&pages[a].front, &pages[b].front);
        (a.weight, &a.date, &a.title).cmp(&(b.weight, &b.date, &b.title))
    });
    let listed: Vec<ListedPage> = order
        .iter()
        .map(|&i| {
            let front = &pages[i].front;
            ListedPage {
                card: cards[i].as_deref(),
                title: &front.title,
                description: &front.description,
                date: &front.date,
                tags: &front.tags,
                weight: front.weight,
                url: &pages[i].url,
                extra: &front.extra,
            }
        })
        .collect();
    // Converted once; each page's context starts from a copy of it.
    let mut shared = serde_json::Map::new();
    shared.insert(
        "site".into(),
        serde_json::to_value(config).unwrap_or_default(),
    );
    shared.insert(
        "pages".into(),
        serde_json::to_value(&listed).unwrap_or_default(),
    );
    // Whether the playground's engine is published, so a page never preloads a file
    // that is not there.
    shared.insert("playground_module".into(), has_module.into());
    let context_with = |page: Option<serde_json::Value>| {
        let mut map = shared.clone();
        if let Some(page) = page {
            map.insert("page".into(), page);
        }
        tera::Context::from_value(serde_json::Value::Object(map)).unwrap_or_default()
    };
    // Articles (every page but the home page) in index order, for prev/next links.
    let articles: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| !pages[i].is_home())
        .collect();
    let neighbour = |i: usize| Neighbour {
        title: &pages[i].front.title,
        url: &pages[i].url,
    };
    let neighbours = |page: usize| match articles.iter().position(|&i| i == page) {
        Some(at) => (
            at.checked_sub(1).map(|p| neighbour(articles[p])),
            articles.get(at + 1).map(|&n| neighbour(n)),
        ),
        None => (None, None),
    };
    let mut problems = Vec::new();
    let has_home = pages.iter().any(Page::is_home);
    // Pages are rendered and written on all cores; results come back in page order.
    // Each thread copies the shared context once and changes only its `page` from page
    // to page: a copy per page would copy the listing of every page, n times.
    let shared_context = context_with(None);
    let outcomes: Vec<Result<Option<Diagnostic>, Failure>> = pages
        .par_iter()
        .zip(rendered)
        .enumerate()
        .map_init(
            || shared_context.clone(),
            |context, (i, (page, r))| {
                let template = templates::of_page(page);
                context.insert("page", &view(page, r, config, neighbours(i)));
                match tera.render(template, context) {
                    Ok(html) => staging
                        .write(&format!("{}index.html", page.folder), html.as_bytes())
                        .map(|()| None),
                    Err(e) => Ok(Some(Diagnostic::in_file(
                        &page.file,
                        format!("template `{template}` failed: {}", templates::describe(&e)),
                    ))),
                }
            },
        )
        .collect();
    for outcome in outcomes {
        problems.extend(outcome?);
    }
    // The home page when content/ has none, and the page a host shows for a missing
    // address (its links are absolute paths, so they work at any depth).
    let extra: &[(&str, &str)] = if has_home {
        &[("404.html", "404.html")]
    } else {
        &[("index.html", "index.html"), ("404.html", "404.html")]
    };
    for (template, file) in extra {
        match tera.render(template, &context_with(None)) {
            Ok(html) => staging.write(file, html.as_bytes())?,
            Err(e) => problems.push(Diagnostic::in_file(
                &format!("templates/{template}"),
                templates::describe(&e),
            )),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Input(problems))
    }
}

/// The root a command works on: the given folder, or the current one.
pub fn root_or_current(root: Option<&Path>) -> PathBuf {
    root.map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}
