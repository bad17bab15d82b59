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
use crate::engine::read::parse_yaml;
use crate::engine::{Scenario, ScenarioError};
use crate::extends::{self, Bases, Chain, Source};
use crate::suggest::closest;

/// One directive, read.
#[derive(Clone, Debug)]
pub(super) enum Block {
    /// A scenario, with its YAML as the author wrote it (for the playground link).
    Sim(Box<SimDirective>, String),
    Sweep(SweepDirective),
    Schedule(Box<ScheduleDirective>),
    /// A generated table of the authors' reference, as HTML.
    Table(String),
    /// A stored live run beside a scenario's simulation.
    Live(Box<live::LiveBlock>),
}

impl Block {
    /// The kind of directive it was read from.
    /// The limit of work of each of its scenarios ([`crate::engine::work`]): a sweep's
    /// values share it equally.
    pub(super) fn work_limit(&self) -> u64 {
        match self {
            Block::Sweep(sweep) => crate::engine::work::share(sweep.points.len()),
            _ => crate::engine::work::limit(),
        }
    }

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

    /// The id it claims across the site, which no other directive may have: a
    /// scenario's, a sweep's or a schedule's own, and `live-{id}` for the live run of
    /// the scenario `id`; a reference table has none.
    fn unique_id(&self) -> Option<String> {
        match self {
            Block::Sim(sim, _) => Some(sim.scenario.id.clone()),
            Block::Sweep(sweep) => Some(sweep.id.clone()),
            Block::Schedule(schedule) => Some(schedule.id.clone()),
            Block::Live(block) => Some(format!("live-{}", block.directive.scenario)),
            Block::Table(_) => None,
        }
    }

    /// What its figure offers a cross-reference: each name (`fig-{id}`, and
    /// `tbl-{id}` for a scenario's results table) with the id it leads to.
    pub(super) fn named(&self) -> Vec<(String, String)> {
        match self {
            Block::Sim(sim, _) => {
                let id = &sim.scenario.id;
                vec![
                    (format!("fig-{id}"), format!("sim-{id}")),
                    (format!("tbl-{id}"), format!("{id}-results-caption")),
                ]
            }
            Block::Sweep(sweep) => {
                vec![(format!("fig-{}", sweep.id), format!("sweep-{}", sweep.id))]
            }
            Block::Schedule(schedule) => vec![(
                format!("fig-{}", schedule.id),
                format!("schedule-{}", schedule.id),
            )],
            Block::Live(block) => {
                let id = &block.directive.scenario;
                vec![(format!("fig-live-{id}"), format!("live-{id}"))]
            }
            Block::Table(_) => Vec::new(),
        }
    }

    /// The caption its author wrote, if any.
    fn caption(&self) -> Option<&str> {
        match self {
            Block::Sim(sim, _) => sim.figure.caption.as_deref(),
            Block::Sweep(sweep) => sweep.caption.as_deref(),
            Block::Schedule(schedule) => schedule.caption.as_deref(),
            Block::Live(block) => block.directive.caption.as_deref(),
            Block::Table(_) => None,
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
        // The lane chart's, and a fleet's replicas' chart's.
        for name in [
            "title",
            "desc",
            "hatch",
            "replicas-title",
            "replicas-desc",
            "replicas-hatch",
        ] {
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
    /// Where each scenario of the block ([`Block::scenarios`]) is told that it passed
    /// its limit of work, with the message left to say: only for a scenario whose
    /// most work passes it, which may stop ([`crate::engine::work`]).
    pub(super) blame: Vec<Option<Diagnostic>>,
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
///
/// One pass after another, each of one job: the pages' scans, each directive read, the
/// ids made unique across the site (which gives the site's scenarios), then what names
/// a scenario checked against them: live runs, references, conditions and cards.
pub(super) fn read_parts(
    root: &Path,
    pages: &[Page],
    reads: &mut Reads,
) -> (Vec<PageParts>, Vec<Diagnostic>) {
    let mut last = std::mem::take(reads);
    let lines = Lines::new(pages);
    let scans = scan_pages(pages, &mut last.bodies);
    let bases = SiteBases::new(root, &lines, &scans);
    let mut site = Reading::new(&lines);
    site.tell_fence_problems(&scans);
    let read = site.read_directives(root, &scans, &bases, &mut last.directives);
    let mut blocks = site.keep_unique_ids(read);
    remember_directives(&blocks, &mut reads.directives);
    site.check_live(&scans, &mut blocks);
    let references = site.check_references(&scans);
    let conditions = site.check_conditions(&scans);
    site.check_cards();
    let parts = blocks
        .into_iter()
        .zip(references)
        .zip(conditions)
        .map(|((blocks, references), conditions)| PageParts {
            blocks,
            references,
            conditions,
        })
        .collect();
    reads.bodies.extend(scans);
    (parts, site.into_problems())
}

/// Each page's scan and references as found, by its body: the last build's, where the
/// body is the same, else found anew.
fn scan_pages(pages: &[Page], last: &mut HashMap<String, Scanned>) -> Vec<(String, Scanned)> {
    pages
        .iter()
        .map(|page| {
            let body = page.body();
            last.remove_entry(body)
                .unwrap_or_else(|| (body.to_string(), Scanned::of(body)))
        })
        .collect()
}

/// Keeps each directive read without a mistake for the next build, by its kind and
/// text; not a live block, whose stored run is a file of its own.
fn remember_directives(blocks: &[Vec<Placed>], reads: &mut HashMap<(Kind, String), Block>) {
    for placed in blocks.iter().flatten() {
        if !matches!(placed.block, Block::Live(_)) {
            let key = (placed.block.kind(), placed.text.clone());
            reads.insert(key, placed.block.clone());
        }
    }
}

/// The pages read, each with its line index, made only when something on the page is
/// placed.
struct Lines<'a> {
    pages: &'a [Page],
    indexes: Vec<OnceCell<LineIndex>>,
}

impl<'a> Lines<'a> {
    fn new(pages: &'a [Page]) -> Lines<'a> {
        let indexes = pages.iter().map(|_| OnceCell::new()).collect();
        Lines { pages, indexes }
    }

    fn index(&self, p: usize) -> &LineIndex {
        let page = &self.pages[p];
        self.indexes[p].get_or_init(|| LineIndex::new(&page.source))
    }

    /// Where the byte `offset` of page `p`'s source is.
    fn pos(&self, p: usize, offset: usize) -> crate::yaml::Pos {
        self.index(p).pos(&self.pages[p].source, offset)
    }

    /// A problem at `range` of page `p`'s body.
    fn at(
        &self,
        p: usize,
        range: &Range<usize>,
        message: String,
        help: Option<String>,
    ) -> Diagnostic {
        at(&self.pages[p], self.index(p), range, message, help)
    }
}

/// A directive read, before its id is known to be its own.
struct Read {
    placed: Placed,
    /// Where its body starts in the page's body.
    body_start: usize,
}

/// Why a directive gave no block.
enum Failed {
    /// Its YAML has mistakes, placed in the texts of its chain of `extends`.
    Read(Vec<ScenarioError>),
    /// Its problems, each placed already.
    Told(Vec<Diagnostic>),
}

/// What the passes of [`read_parts`] share: the pages, the problems found so far, the
/// ids of directives that failed (references to them are not reported again), and the
/// site's scenarios by id, once the ids are known to be unique.
struct Reading<'a> {
    lines: &'a Lines<'a>,
    problems: Vec<Diagnostic>,
    broken: HashSet<String>,
    scenarios: BTreeMap<String, Scenario>,
}

impl<'a> Reading<'a> {
    fn new(lines: &'a Lines<'a>) -> Reading<'a> {
        Reading {
            lines,
            problems: Vec::new(),
            broken: HashSet::new(),
            scenarios: BTreeMap::new(),
        }
    }

    /// The problems, sorted by place, each told once.
    fn into_problems(mut self) -> Vec<Diagnostic> {
        self.problems
            .sort_by(|a, b| (&a.file, a.pos).cmp(&(&b.file, b.pos)));
        once_each(self.problems)
    }

    /// The directive blocks that could not be read as blocks (a fence never closed).
    fn tell_fence_problems(&mut self, scans: &[(String, Scanned)]) {
        for (p, (_, scanned)) in scans.iter().enumerate() {
            let body = self.lines.pages[p].body();
            for problem in &scanned.scan.problems {
                // What the block names itself, up to the next fence: what quotes it is
                // not told again beside this one error.
                let after = body[problem.range.end..]
                    .split_once('\n')
                    .map_or("", |(_, rest)| rest);
                let own: Vec<&str> = after
                    .lines()
                    .take_while(|l| !l.trim_start().starts_with("```"))
                    .collect();
                if let Some(id) = directive::id_of(&own.join("\n")) {
                    self.broken.insert(id);
                }
                let (message, help) = (problem.message.clone(), problem.help.clone());
                let told = self.lines.at(p, &problem.range, message, help);
                self.problems.push(told);
            }
        }
    }

    /// A caption that names a figure or a table (`[@fig-x]`, `{#fig-x}`), which a
    /// caption, being text, would publish as written: a problem at the name in the
    /// block, or at the block's first line when the caption is another block's.
    fn tell_named_caption(&mut self, p: usize, found: &directive::Found, block: &Block) {
        let Some(caption) = block.caption() else {
            return;
        };
        let names = ["@fig-", "@tbl-", "#fig-", "#tbl-"];
        if !names.iter().any(|name| caption.contains(name)) {
            return;
        }
        let in_body = (names.iter())
            .filter_map(|name| found.body.find(name))
            .min()
            .map(|at| {
                let name = found.body[at + 1..]
                    .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_')))
                    .map_or(found.body.len(), |e| at + 1 + e);
                at..name
            });
        let range = in_body.unwrap_or(0..0);
        let range = found.body_start + range.start..found.body_start + range.end;
        self.problems.push(
            self.lines.at(
                p,
                &range,
                "a caption is text: a figure or a table it names is written as it stands"
                    .to_string(),
                Some(
                    "refer to the figure in the sentences around it, `[@fig-crowd]`, and say in \
                 the caption what this figure shows"
                        .to_string(),
                ),
            ),
        );
    }

    /// Every page's directives, each read, in the order of the pages and of each page.
    fn read_directives(
        &mut self,
        root: &Path,
        scans: &[(String, Scanned)],
        bases: &SiteBases,
        last: &mut HashMap<(Kind, String), Block>,
    ) -> Vec<Vec<Read>> {
        let mut read = Vec::new();
        for (p, (_, scanned)) in scans.iter().enumerate() {
            let blocks = (scanned.scan.directives.iter())
                .filter_map(|found| self.read_directive(root, p, found, bases, last))
                .collect();
            read.push(blocks);
        }
        read
    }

    /// One directive of page `p`: its YAML laid over what it `extends`, then read as
    /// its kind asks, or taken from the last build's reads when all its texts are the
    /// same. A mistake is told, and the block left out.
    fn read_directive(
        &mut self,
        root: &Path,
        p: usize,
        found: &directive::Found,
        bases: &SiteBases,
        last: &mut HashMap<(Kind, String), Block>,
    ) -> Option<Read> {
        let lines = self.lines;
        let page = &lines.pages[p];
        let own = Source {
            file: page.file.clone(),
            text: page.source.clone(),
            origin: lines.pos(p, page.body_start + found.body_start),
            body: found.body.clone(),
        };
        // A scenario's block is laid over the one its `extends` names, if any, and its
        // reading is a function of every text of the chain.
        let mut chain = Chain::default();
        let read = merged(found, &own, bases, &mut chain).and_then(|merged| {
            let text = chain.key(&found.body);
            let block = match last.remove(&(found.kind, text.clone())) {
                Some(block) => block,
                None => read_kind(root, lines, p, found, own.origin, merged.as_ref(), &chain)?,
            };
            let blame = blame(&block, merged.as_ref(), &chain, &own);
            Ok((text, block, blame))
        });
        if let Ok((_, block, _)) = &read {
            self.tell_named_caption(p, found, block);
        }
        match read {
            Ok((text, block, blame)) => Some(Read {
                placed: Placed {
                    at: found.block.start,
                    text,
                    block,
                    blame,
                },
                body_start: found.body_start,
            }),
            Err(Failed::Read(errors)) => {
                if let Some(id) = directive::id_of(&found.body) {
                    self.broken.insert(id);
                }
                let placed = errors.into_iter().map(|e| chain.place(&own, e));
                self.problems.extend(placed);
                None
            }
            Err(Failed::Told(problems)) => {
                if let Some(id) = directive::id_of(&found.body) {
                    self.broken.insert(id);
                }
                self.problems.extend(problems);
                None
            }
        }
    }

    /// The directives whose id is the first of its use across the site; every other is
    /// told and left out. The scenarios of the `sim` blocks kept are the site's.
    fn keep_unique_ids(&mut self, read: Vec<Vec<Read>>) -> Vec<Vec<Placed>> {
        // Where each id is first used: the page and the byte offset in its source.
        let mut defined_at: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        // The ids a fleet's figure takes for its replicas' chart and data
        // (`{id}-replicas`), by the fleet's id.
        let mut fleets: BTreeMap<String, String> = BTreeMap::new();
        let mut kept = Vec::new();
        for (p, blocks) in read.into_iter().enumerate() {
            let mut placed = Vec::new();
            for Read {
                placed: block,
                body_start,
            } in blocks
            {
                let Some(id) = block.block.unique_id() else {
                    placed.push(block);
                    continue;
                };
                let fleet = match &block.block {
                    Block::Sim(sim, _) => sim.scenario.server.fleet.is_some(),
                    _ => false,
                };
                let taken = match fleets.get(&id) {
                    Some(owner) => Some(format!(
                        "the id `{id}` is the name of the fleet `{owner}`'s replicas' chart and \
                         data"
                    )),
                    None if fleet && defined_at.contains_key(&format!("{id}-replicas")) => {
                        Some(format!(
                            "the fleet `{id}` names its replicas' chart and data `{id}-replicas`, \
                             which is another directive's id"
                        ))
                    }
                    None => None,
                };
                if let Some(message) = taken {
                    self.problems.push(
                        self.lines.at(
                            p,
                            &(body_start..body_start + 1),
                            message,
                            Some(
                                "rename one of the two: a fleet's figure names its replicas' \
                              chart and data after its own id"
                                    .to_string(),
                            ),
                        ),
                    );
                    continue;
                }
                if let Some(&(first_page, first_offset)) = defined_at.get(&id) {
                    let first = &self.lines.pages[first_page];
                    let line = self.lines.pos(first_page, first_offset).line;
                    self.problems.push(self.lines.at(
                        p,
                        &(body_start..body_start + 1),
                        format!("the id `{id}` is used twice"),
                        Some(format!(
                            "it is first used at {}:{line}; directive ids are unique across the site",
                            first.file
                        )),
                    ));
                    continue;
                }
                let offset = self.lines.pages[p].body_start + body_start;
                defined_at.insert(id.clone(), (p, offset));
                if fleet {
                    fleets.insert(format!("{id}-replicas"), id.clone());
                }
                if let Block::Sim(sim, _) = &block.block {
                    self.scenarios.insert(id, sim.scenario.clone());
                }
                placed.push(block);
            }
            kept.push(placed);
        }
        kept
    }

    /// A live run is shown only beside the very scenario it was played with: each live
    /// block is given its scenario, or left out.
    fn check_live(&mut self, scans: &[(String, Scanned)], blocks: &mut [Vec<Placed>]) {
        for (p, ((_, scanned), blocks)) in scans.iter().zip(blocks).enumerate() {
            let page = &self.lines.pages[p];
            blocks.retain_mut(|Placed { at, block, .. }| {
                let Block::Live(live_block) = block else {
                    return true;
                };
                // A scenario that failed has said so; its live block is left out quietly.
                if self.broken.contains(&live_block.directive.scenario) {
                    return false;
                }
                match live::check(live_block, &self.scenarios) {
                    Ok(scenario) => {
                        live_block.scenario = Some(scenario);
                        true
                    }
                    Err(e) => {
                        let origin = (scanned.scan.directives.iter())
                            .find(|d| d.block.start == *at)
                            .map_or(crate::yaml::Pos::START, |d| {
                                self.lines.pos(p, page.body_start + d.body_start)
                            });
                        self.problems.push(Diagnostic::from_scenario(
                            &page.file,
                            &page.source,
                            origin,
                            e,
                        ));
                        false
                    }
                }
            });
        }
    }

    /// Each page's references, checked against the site's scenarios.
    fn check_references(&mut self, scans: &[(String, Scanned)]) -> Vec<Vec<Reference>> {
        let mut checked = Vec::new();
        for (p, (_, scanned)) in scans.iter().enumerate() {
            let mut references = Vec::new();
            for found in &scanned.references {
                if let Ok(raw) = found
                    && self.broken.contains(&raw.path[0])
                {
                    continue;
                }
                match found
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|raw| reference::check(raw, &self.scenarios))
                {
                    Ok(r) => references.push(r),
                    Err(e) => self
                        .problems
                        .push(self.lines.at(p, &e.range, e.message, e.help)),
                }
            }
            checked.push(references);
        }
        checked
    }

    /// The sentences of each page marked with a condition, each read against the
    /// site's scenarios.
    fn check_conditions(&mut self, scans: &[(String, Scanned)]) -> Vec<Vec<condition::Condition>> {
        let mut checked = Vec::new();
        for (p, (_, scanned)) in scans.iter().enumerate() {
            let page = &self.lines.pages[p];
            let mut conditions = Vec::new();
            for found in condition::find(page.body(), &scanned.scan.code, &self.scenarios) {
                match found {
                    Ok(c) if self.broken.contains(&c.id) => {}
                    // A scenario that failed has said so; what names it is not told again.
                    Err(e) if names_any(&page.body()[e.range.clone()], &self.broken) => {}
                    Ok(c) => conditions.push(c),
                    Err(e) => self
                        .problems
                        .push(self.lines.at(p, &e.range, e.message, e.help)),
                }
            }
            checked.push(conditions);
        }
        checked
    }

    /// Each page's `card:`, which names a scenario of the site.
    fn check_cards(&mut self) {
        for page in self.lines.pages {
            if let Some(id) = &page.front.card
                && !self.scenarios.contains_key(id)
                && !self.broken.contains(id)
            {
                self.problems.push(card_problem(page, id, &self.scenarios));
            }
        }
    }
}

/// Whether the text of a condition's marker (`{{ if crowd.fixed.calls > 0 }}`) quotes a
/// scenario of `ids`.
fn names_any(marker: &str, ids: &HashSet<String>) -> bool {
    marker
        .split(|c: char| c.is_whitespace() || "<>=!{}".contains(c))
        .filter_map(|token| token.split_once('.'))
        .any(|(id, _)| ids.contains(id))
}

/// Where each scenario of `block`, read from `merged` through `chain`, is told that it
/// passed its limit of work (see [`Placed::blame`]).
fn blame(
    block: &Block,
    merged: Option<&crate::yaml::Node>,
    chain: &Chain,
    own: &Source,
) -> Vec<Option<Diagnostic>> {
    let limit = u128::from(block.work_limit());
    let place = |node: &crate::yaml::Node| {
        let spot = ScenarioError {
            pos: node.pos,
            width: node.width,
            message: String::new(),
            help: None,
        };
        chain.place(own, spot)
    };
    match (block, merged) {
        (Block::Sim(sim, _), Some(root)) => {
            let may_stop = sim.scenario.most_work() > limit;
            vec![may_stop.then(|| place(crate::engine::read::load_node(root)))]
        }
        (Block::Sweep(sweep), Some(root)) => (sweep.points.iter().enumerate())
            .map(|(i, (_, _, scenario))| {
                let may_stop = scenario.most_work() > limit;
                may_stop.then(|| place(sweep::value_node(root, i)))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The YAML of a `sim` or `sweep` block with what it `extends` laid under it; `None`
/// for the other kinds, which are read from their text.
fn merged(
    found: &directive::Found,
    own: &Source,
    bases: &SiteBases,
    chain: &mut Chain,
) -> Result<Option<crate::yaml::Node>, Failed> {
    match found.kind {
        Kind::Sim | Kind::Sweep => parse_yaml(&found.body)
            .and_then(|root| extends::resolve(root, own, bases, chain))
            .map(Some)
            .map_err(Failed::Read),
        Kind::Schedule | Kind::ReferenceTable | Kind::Live => Ok(None),
    }
}

/// A directive of page `p` read as its kind asks: `merged` is its YAML with what it
/// extends, for the kinds that extend; `origin` is where its body starts.
fn read_kind(
    root: &Path,
    lines: &Lines,
    p: usize,
    found: &directive::Found,
    origin: crate::yaml::Pos,
    merged: Option<&crate::yaml::Node>,
    chain: &Chain,
) -> Result<Block, Failed> {
    match (found.kind, merged) {
        (Kind::Sim, Some(root)) => directive::read_sim_root(root)
            .map(|sim| {
                let source = match chain.is_empty() {
                    true => found.body.clone(),
                    false => extends::emit(root),
                };
                Block::Sim(Box::new(sim), source)
            })
            .map_err(Failed::Read),
        (Kind::Sweep, Some(root)) => sweep::read_sweep_root(root)
            .map(Block::Sweep)
            .map_err(Failed::Read),
        (Kind::Sim | Kind::Sweep, None) => unreachable!("read above"),
        (Kind::Schedule, _) => directive::schedule::read_schedule(&found.body)
            .map(|s| Block::Schedule(Box::new(s)))
            .map_err(Failed::Read),
        (Kind::Live, _) => {
            let read = directive::live::read_live(&found.body).map_err(Failed::Read)?;
            match live::load(root, &lines.pages[p], origin, read) {
                Ok(block) => Ok(Block::Live(Box::new(block))),
                Err(more) => Err(Failed::Told(more)),
            }
        }
        (Kind::ReferenceTable, _) => reference_table(lines, p, found).map(Block::Table),
    }
}

/// A `reference` block of page `p`: the table it names, as HTML. It holds the table's
/// name, then, optionally, the table itself as `retrylab keys NAME` writes it, for
/// readers of the source, which must then be the one the build knows.
fn reference_table(lines: &Lines, p: usize, found: &directive::Found) -> Result<String, Failed> {
    let page = &lines.pages[p];
    let (first, written) = found.body.split_once('\n').unwrap_or((&found.body, ""));
    let name = first.trim();
    let name = if written.trim().is_empty() {
        found.body.trim()
    } else {
        name
    };
    let problem = match docs::table(name) {
        Some(table) => match stale_line(&table.markdown(), written) {
            None => return Ok(table.html()),
            Some((line, expected)) => {
                let should = match expected {
                    Some(w) => format!("this line should read `{w}`"),
                    None => "the table ends before this line".to_string(),
                };
                lines.at(
                    p,
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
                )
            }
        },
        None if name.is_empty() => lines.at(
            p,
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
        ),
        None => {
            let names = docs::TABLES.iter().map(|(n, _)| *n);
            let help = crate::suggest::help(name, names, "tables");
            lines.at(
                p,
                &name_range(page.body(), found, name),
                format!("there is no reference table `{name}`"),
                Some(help),
            )
        }
    };
    Err(Failed::Told(vec![problem]))
}

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

/// The scenarios an `extends` of this site can name: the files of `scenarios/`, then
/// the `sim` and `sweep` blocks of every page, by id (the first, where an id is used
/// twice: that mistake is reported on its own).
struct SiteBases<'a> {
    root: &'a Path,
    lines: &'a Lines<'a>,
    blocks: BTreeMap<String, (usize, &'a directive::Found)>,
}

impl<'a> SiteBases<'a> {
    fn new(root: &'a Path, lines: &'a Lines<'a>, scans: &'a [(String, Scanned)]) -> SiteBases<'a> {
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
            lines,
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
            let page = &self.lines.pages[p];
            return Ok(Source {
                file: page.file.clone(),
                text: page.source.clone(),
                origin: self.lines.pos(p, page.body_start + found.body_start),
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
    let lines = Lines::new(&pages);
    let bases = SiteBases::new(root, &lines, &scans);
    extends::resolve(tree, own, &bases, chain)
}
