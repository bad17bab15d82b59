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
    let mut scans = Vec::new();
    let mut scenarios: BTreeMap<String, Scenario> = BTreeMap::new();
    // Where each id is first used: the page and the byte offset in its source.
    let mut defined_at: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut blocks_of_pages = Vec::new();
    // Ids of directives that failed: references to them are not reported again.
    let mut broken: HashSet<String> = HashSet::new();
    // Each page's line index, made only when something on the page is placed.
    let indexes: Vec<OnceCell<LineIndex>> = pages.iter().map(|_| OnceCell::new()).collect();
    let index = |p: usize| indexes[p].get_or_init(|| LineIndex::new(&pages[p].source));
    for (p, page) in pages.iter().enumerate() {
        let body = page.body();
        let (body_key, scanned) = last
            .bodies
            .remove_entry(body)
            .unwrap_or_else(|| (body.to_string(), Scanned::of(body)));
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
            let key = (found.kind, found.body.clone());
            let read = match last.directives.remove(&key) {
                Some(block) => Ok(block),
                None => match found.kind {
                    Kind::Sim => directive::read_sim(&found.body)
                        .map(|sim| Block::Sim(Box::new(sim), found.body.clone())),
                    Kind::Sweep => sweep::read_sweep(&found.body).map(Block::Sweep),
                    Kind::Schedule => {
                        directive::schedule::read_schedule(&found.body).map(Block::Schedule)
                    }
                    Kind::Live => match directive::live::read_live(&found.body) {
                        Ok(read) => match live::load(root, page, origin(), read) {
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
                                    &name_range(body, found, name),
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
                        text: found.body.clone(),
                        block,
                    });
                }
                Err(errors) => {
                    if let Some(id) = directive::id_of(&found.body) {
                        broken.insert(id);
                    }
                    let origin = origin();
                    problems.extend(
                        errors.into_iter().map(|e| {
                            Diagnostic::from_scenario(&page.file, &page.source, origin, e)
                        }),
                    );
                }
            }
        }
        blocks_of_pages.push(blocks);
        scans.push((body_key, scanned));
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
