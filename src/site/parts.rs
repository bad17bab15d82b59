//! Reading every page's directives and references, and checking them against the
//! site's scenarios: the step between loading the pages and running the engine.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use super::page::Page;
use super::{at, docs, explore, live};
use crate::diag::{Diagnostic, LineIndex};
use crate::directive::condition;
use crate::directive::reference::{self, RawReference, Reference, ReferenceError};
use crate::directive::schedule::ScheduleDirective;
use crate::directive::sweep::{self, SweepDirective};
use crate::directive::{self, Kind, Scan, SimDirective};
use crate::engine::Scenario;
use crate::engine::read::parse_yaml;
use crate::extends::{self, Bases, Chain, Source};
use crate::suggest::closest;

/// One directive, read.
#[derive(Clone, Debug)]
pub(super) enum Block {
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
    /// The kind of directive it was read from.
    pub(super) fn kind(&self) -> Kind {
        match self {
            Block::Sim(..) => Kind::Sim,
            Block::Sweep(_) => Kind::Sweep,
            Block::Schedule(_) => Kind::Schedule,
            Block::Table(_) => Kind::ReferenceTable,
            Block::Live(_) => Kind::Live,
        }
    }

    /// The scenarios the engine must run for it.
    pub(super) fn scenarios(&self) -> Vec<&Scenario> {
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
    pub(super) fn ids(&self) -> Vec<String> {
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
}

/// A directive read, at its place in the page.
pub(super) struct Placed {
    /// The byte offset in the body at which its fenced block starts, which is where its
    /// figure goes.
    pub(super) at: usize,
    /// Its text, of which the block is a function (but a live block's, which reads a
    /// file of its own).
    pub(super) text: String,
    pub(super) block: Block,
}

/// A page's directives and references, read and checked.
pub(super) struct PageParts {
    /// Each directive, at its place.
    pub(super) blocks: Vec<Placed>,
    pub(super) references: Vec<Reference>,
    /// The sentences marked with a condition (`{{ if … }}…{{ end }}`).
    pub(super) conditions: Vec<condition::Condition>,
}

/// What reading the pages gave, kept by `serve` for the next build (see
/// [`super::memo`]): each directive read without a mistake, by its kind and text, of
/// which its reading is a function (a live block's stored run is a file of its own,
/// so a live block is read anew each time); and each page's scan and references as
/// found, by its body, of which they are a function.
#[derive(Default)]
pub struct Reads {
    directives: HashMap<(Kind, String), Block>,
    bodies: HashMap<String, Scanned>,
}

/// A page body's directives and code, and its references as found (before they are
/// checked against the site's scenarios).
struct Scanned {
    scan: Scan,
    references: Vec<Result<RawReference, ReferenceError>>,
}

impl Scanned {
    fn of(body: &str) -> Scanned {
        let scan = directive::scan(body);
        let references = reference::find(body, &scan.code);
        Scanned { scan, references }
    }
}

/// Reads every page's directives, then checks every reference and live run against all
/// scenarios. What is wrong is left out of the parts and returned as problems. Live
/// directives read their stored runs from the site's folder `root`. What `reads` holds
/// of an earlier build is taken rather than read again, and `reads` is left holding
/// this build's.
pub(super) fn read_parts(
    root: &Path,
    pages: &[Page],
    reads: &mut Reads,
) -> (Vec<PageParts>, Vec<Diagnostic>) {
    let mut last = std::mem::take(reads);
    let mut problems = Vec::new();
    let mut scenarios: BTreeMap<String, Scenario> = BTreeMap::new();
    // Where each id is first used: the page and the byte offset in its source.
    let mut defined_at: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut blocks_of_pages = Vec::new();
    // Ids of directives that failed: references to them are not reported again.
    let mut broken: HashSet<String> = HashSet::new();
    // Each page's line index, made only when something on the page is placed.
    let indexes: Vec<OnceCell<LineIndex>> = pages.iter().map(|_| OnceCell::new()).collect();
    let index = |p: usize| indexes[p].get_or_init(|| LineIndex::new(&pages[p].source));
    let scans: Vec<(String, Scanned)> = pages
        .iter()
        .map(|page| {
            let body = page.body();
            last.bodies
                .remove_entry(body)
                .unwrap_or_else(|| (body.to_string(), Scanned::of(body)))
        })
        .collect();
    let bases = SiteBases::new(root, pages, &scans, &indexes);
    for (p, page) in pages.iter().enumerate() {
        let scanned = &scans[p].1;
        for problem in &scanned.scan.problems {
            problems.push(at(
                page,
                index(p),
                &problem.range,
                problem.message.clone(),
                problem.help.clone(),
            ));
        }
        let mut blocks = Vec::new();
        for found in &scanned.scan.directives {
            let offset = page.body_start + found.body_start;
            let origin = || index(p).pos(&page.source, offset);
            let own = Source {
                file: page.file.clone(),
                text: page.source.clone(),
                origin: origin(),
                body: found.body.clone(),
            };
            // A scenario's block is laid over the one its `extends` names, if any, and
            // its reading is a function of every text of the chain.
            let mut chain = Chain::default();
            let merged = match found.kind {
                Kind::Sim | Kind::Sweep => match parse_yaml(&found.body)
                    .and_then(|root| extends::resolve(root, &own, &bases, &mut chain))
                {
                    Ok(root) => Some(root),
                    Err(errors) => {
                        if let Some(id) = directive::id_of(&found.body) {
                            broken.insert(id);
                        }
                        problems.extend(errors.into_iter().map(|e| chain.place(&own, e)));
                        continue;
                    }
                },
                _ => None,
            };
            let text = chain.key(&found.body);
            let key = (found.kind, text.clone());
            let read = match last.directives.remove(&key) {
                Some(block) => Ok(block),
                None => match (found.kind, &merged) {
                    (Kind::Sim, Some(root)) => directive::read_sim_root(root).map(|sim| {
                        let source = match chain.is_empty() {
                            true => found.body.clone(),
                            false => extends::emit(root),
                        };
                        Block::Sim(Box::new(sim), source)
                    }),
                    (Kind::Sweep, Some(root)) => sweep::read_sweep_root(root).map(Block::Sweep),
                    (Kind::Sim | Kind::Sweep, None) => unreachable!("read above"),
                    (Kind::Schedule, _) => {
                        directive::schedule::read_schedule(&found.body).map(Block::Schedule)
                    }
                    (Kind::Live, _) => match directive::live::read_live(&found.body) {
                        Ok(read) => match live::load(root, page, origin(), read) {
                            Ok(block) => Ok(Block::Live(Box::new(block))),
                            Err(more) => {
                                problems.extend(more);
                                continue;
                            }
                        },
                        Err(errors) => Err(errors),
                    },
                    (Kind::ReferenceTable, _) => {
                        // The table's name, then, optionally, the table itself as
                        // `retrylab keys NAME` writes it, for readers of the source.
                        let (first, written) =
                            found.body.split_once('\n').unwrap_or((&found.body, ""));
                        let name = first.trim();
                        let name = if written.trim().is_empty() {
                            found.body.trim()
                        } else {
                            name
                        };
                        match docs::table(name) {
                            Some(table) => match stale_line(&table.markdown(), written) {
                                None => Ok(Block::Table(table.html())),
                                Some((line, expected)) => {
                                    let should = match expected {
                                        Some(w) => format!("this line should read `{w}`"),
                                        None => "the table ends before this line".to_string(),
                                    };
                                    problems.push(at(
                                        page,
                                        index(p),
                                        &name_range(page.body(), found, line),
                                        format!(
                                            "this `{name}` table is not the one retrylab checks \
                                             against: {should}"
                                        ),
                                        Some(format!(
                                            "replace the lines after `{name}` with what \
                                             `retrylab keys {name}` prints under its heading, \
                                             or leave the name alone"
                                        )),
                                    ));
                                    continue;
                                }
                            },
                            None if name.is_empty() => {
                                problems.push(at(
                                    page,
                                    index(p),
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
                                    index(p),
                                    &name_range(page.body(), found, name),
                                    format!("there is no reference table `{name}`"),
                                    Some(help),
                                ));
                                continue;
                            }
                        }
                    }
                },
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
                        if let Some(&(first_page, first_offset)) = defined_at.get(&id) {
                            let first = &pages[first_page];
                            let line = index(first_page).pos(&first.source, first_offset).line;
                            problems.push(at(
                                page,
                                index(p),
                                &(found.body_start..found.body_start + 1),
                                format!("the id `{id}` is used twice"),
                                Some(format!(
                                    "it is first used at {}:{line}; directive ids are unique across the site",
                                    first.file
                                )),
                            ));
                            continue;
                        }
                        defined_at.insert(id.clone(), (p, offset));
                        if let Block::Sim(sim, _) = &block {
                            scenarios.insert(id, sim.scenario.clone());
                        }
                    }
                    if !matches!(block, Block::Live(_)) {
                        reads.directives.insert(key, block.clone());
                    }
                    blocks.push(Placed {
                        at: found.block.start,
                        text,
                        block,
                    });
                }
                Err(errors) => {
                    if let Some(id) = directive::id_of(&found.body) {
                        broken.insert(id);
                    }
                    problems.extend(errors.into_iter().map(|e| chain.place(&own, e)));
                }
            }
        }
        blocks_of_pages.push(blocks);
    }
    let mut parts = Vec::new();
    for (p, ((page, (body_key, scanned)), mut blocks)) in
        pages.iter().zip(scans).zip(blocks_of_pages).enumerate()
    {
        let scan = &scanned.scan;
        let mut references = Vec::new();
        // A live run is shown only beside the very scenario it was played with.
        blocks.retain_mut(|Placed { at, block, .. }| {
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
                            index(p).pos(&page.source, page.body_start + d.body_start)
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
        for found in &scanned.references {
            if let Ok(raw) = found
                && broken.contains(&raw.path[0])
            {
                continue;
            }
            match found
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|raw| reference::check(raw, &scenarios))
            {
                Ok(r) => references.push(r),
                Err(e) => problems.push(at(page, index(p), &e.range, e.message, e.help)),
            }
        }
        let mut conditions = Vec::new();
        for found in condition::find(page.body(), &scan.code, &scenarios) {
            match found {
                Ok(c) if broken.contains(&c.id) => {}
                Ok(c) => conditions.push(c),
                Err(e) => problems.push(at(page, index(p), &e.range, e.message, e.help)),
            }
        }
        parts.push(PageParts {
            blocks,
            references,
            conditions,
        });
        reads.bodies.insert(body_key, scanned);
    }
    for page in pages {
        if let Some(id) = &page.front.card
            && !scenarios.contains_key(id)
        {
            problems.push(card_problem(page, id, &scenarios));
        }
    }
    problems.sort_by(|a, b| (&a.file, a.pos).cmp(&(&b.file, b.pos)));
    (parts, once_each(problems))
}

/// Where `name`, the trimmed body of the directive `found`, stands in the page's body
/// `markdown`: after any blank lines and indentation that open the block. A body the
/// Markdown split (a block indented in a list) falls back to the body's start.
/// The first line of a reference table written out in its block that differs from
/// the table the build knows (`expected`, as Markdown), with the line it should be;
/// `None` when nothing is written out or all of it is right.
fn stale_line<'a>(expected: &'a str, written: &'a str) -> Option<(&'a str, Option<&'a str>)> {
    let written = written.trim();
    if written.is_empty() {
        return None;
    }
    let mut want = expected.trim().lines();
    let mut have = written.lines();
    loop {
        match (want.next(), have.next()) {
            (None, None) => return None,
            (Some(w), Some(h)) if w.trim_end() == h.trim_end() => {}
            (Some(w), Some(h)) => return Some((h, Some(w))),
            (Some(w), None) => return Some((written.lines().last().unwrap_or(written), Some(w))),
            (None, Some(h)) => return Some((h, None)),
        }
    }
}

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

/// The scenarios an `extends` of this site can name: the files of `scenarios/`, then
/// the `sim` and `sweep` blocks of every page, by id (the first, where an id is used
/// twice: that mistake is reported on its own).
struct SiteBases<'a> {
    root: &'a Path,
    pages: &'a [Page],
    indexes: &'a [OnceCell<LineIndex>],
    blocks: BTreeMap<String, (usize, &'a directive::Found)>,
}

impl<'a> SiteBases<'a> {
    fn new(
        root: &'a Path,
        pages: &'a [Page],
        scans: &'a [(String, Scanned)],
        indexes: &'a [OnceCell<LineIndex>],
    ) -> SiteBases<'a> {
        let mut blocks = BTreeMap::new();
        for (p, (_, scanned)) in scans.iter().enumerate() {
            for found in &scanned.scan.directives {
                if matches!(found.kind, Kind::Sim | Kind::Sweep)
                    && let Some(id) = directive::id_of(&found.body)
                {
                    blocks.entry(id).or_insert((p, found));
                }
            }
        }
        SiteBases {
            root,
            pages,
            indexes,
            blocks,
        }
    }
}

impl Bases for SiteBases<'_> {
    fn find(&self, name: &str) -> Result<Source, String> {
        if let Some(source) = scenario_file(self.root, name)? {
            return Ok(source);
        }
        if let Some(&(p, found)) = self.blocks.get(name) {
            let page = &self.pages[p];
            let index = self.indexes[p].get_or_init(|| LineIndex::new(&page.source));
            return Ok(Source {
                file: page.file.clone(),
                text: page.source.clone(),
                origin: index.pos(&page.source, page.body_start + found.body_start),
                body: found.body.clone(),
            });
        }
        let mut names: Vec<String> = self.blocks.keys().cloned().collect();
        names.extend(scenario_files(self.root));
        names.sort();
        names.dedup();
        Err(format!(
            "a scenario extends a file of scenarios/ (by its name without `.yaml`) or a \
             `sim` or `sweep` block of a page (by its id); {}",
            crate::suggest::help(name, names.iter().map(String::as_str), "scenarios")
        ))
    }
}

/// The scenario file `scenarios/NAME.yaml` below `root`, if there is one; an error for
/// a name that is no plain file name or a file that cannot be read.
pub(crate) fn scenario_file(root: &Path, name: &str) -> Result<Option<Source>, String> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        return Err(
            "a name to extend is an id or a file name without `.yaml`: letters, digits, \
             `-`, `_` and `.`"
                .to_string(),
        );
    }
    let file = format!("scenarios/{name}.yaml");
    let path = root.join(&file);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{file} cannot be read: {e}")),
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{file} is not UTF-8 text (a byte that is no UTF-8 at byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(Some(Source {
        file,
        body: text.clone(),
        text,
        origin: crate::yaml::Pos::START,
    }))
}

/// The names of the scenario files below `root`, for a help line.
pub(crate) fn scenario_files(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join("scenarios")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// `problems`, sorted by place, with each told once: a mistake in a scenario that two
/// blocks extend is found by reading each.
fn once_each(problems: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut kept: Vec<Diagnostic> = Vec::with_capacity(problems.len());
    let mut group = 0;
    for problem in problems {
        if kept
            .last()
            .is_some_and(|last| (&last.file, last.pos) != (&problem.file, problem.pos))
        {
            group = kept.len();
        }
        if !kept[group..].contains(&problem) {
            kept.push(problem);
        }
    }
    kept
}

/// `extends` resolved for a text read outside a build (`retrylab sim`, `retrylab
/// live`): against the scenario files and every page, drafts included, of the site at
/// `root`. A text that extends nothing is given back without reading the site.
/// The YAML of a block or a scenario file of the site at `root`, with everything it
/// `extends` laid under it, as the build reads it; `file` names the text in messages.
/// For tools and tests that read a page's blocks themselves.
pub fn resolved(
    root: &Path,
    file: &str,
    body: &str,
) -> Result<crate::yaml::Node, Vec<crate::diag::Diagnostic>> {
    let own = Source {
        file: file.to_string(),
        text: body.to_string(),
        origin: crate::yaml::Pos::START,
        body: body.to_string(),
    };
    let mut chain = Chain::default();
    crate::engine::read::parse_yaml(body)
        .and_then(|tree| resolve_outside(root, &own, tree, &mut chain))
        .map_err(|errors| errors.into_iter().map(|e| chain.place(&own, e)).collect())
}

pub(crate) fn resolve_outside(
    root: &Path,
    own: &Source,
    tree: crate::yaml::Node,
    chain: &mut Chain,
) -> Result<crate::yaml::Node, Vec<crate::engine::ScenarioError>> {
    if tree.position("extends").is_none() {
        return Ok(tree);
    }
    let pages = super::page::load_all(root, true)
        .map(|(pages, _)| pages)
        .unwrap_or_default();
    let scans: Vec<(String, Scanned)> = pages
        .iter()
        .map(|page| (String::new(), Scanned::of(page.body())))
        .collect();
    let indexes: Vec<OnceCell<LineIndex>> = pages.iter().map(|_| OnceCell::new()).collect();
    let bases = SiteBases::new(root, &pages, &scans, &indexes);
    extends::resolve(tree, own, &bases, chain)
}
