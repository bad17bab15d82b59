//! Directives in Markdown: find them with their byte offsets, read their YAML, and find
//! the inline references of the prose. Pure: text in, typed values and errors out.
//!
//! A scenario directive is a fenced code block whose info string is `sim`:
//!
//! ````markdown
//! ```sim
//! id: crowd
//! clients: 100
//! ```
//! ````
//!
//! On GitHub it stays a readable YAML block; at build time it becomes a figure.

pub mod condition;
pub mod explore;
pub mod live;
pub mod reference;
pub mod schedule;
pub mod sweep;

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::engine::read::parse_yaml;
use crate::engine::schema::{self, Section};
use crate::engine::units;
use crate::engine::{Scenario, ScenarioError, scenario_from_node};
use crate::figure::FigureOptions;
use crate::yaml::{self, Map, Naming, Node};

/// The info string that marks a scenario directive.
pub const SIM: &str = "sim";

/// The kinds of directive, by the info string of their fenced block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// ```` ```sim ````: one scenario, lanes and a results table.
    Sim,
    /// ```` ```sweep ````: one parameter varied, a total charted against it.
    Sweep,
    /// ```` ```schedule ````: the waits of a policy, attempt by attempt.
    Schedule,
    /// ```` ```reference ````: a table of the authors' reference, generated.
    ReferenceTable,
    /// ```` ```live ````: a stored live run beside a scenario's simulation.
    Live,
}

impl Kind {
    /// Every kind with its info string.
    pub const ALL: [(Kind, &'static str); 5] = [
        (Kind::Sim, SIM),
        (Kind::Sweep, "sweep"),
        (Kind::Schedule, "schedule"),
        (Kind::ReferenceTable, "reference"),
        (Kind::Live, "live"),
    ];

    /// Its info string: `sim`, `sweep`, …
    pub fn name(self) -> &'static str {
        Kind::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("", |(_, name)| name)
    }

    /// The kind an info string names, if any.
    pub fn of_info(info: &str) -> Option<Kind> {
        let word = info.split_whitespace().next()?;
        Kind::ALL
            .iter()
            .find(|(_, name)| *name == word)
            .map(|(k, _)| *k)
    }
}

/// The Markdown extensions every page is read with; every pass must agree, since they
/// decide where blocks and spans are. GitHub's: tables, footnotes, strikethrough, task
/// lists and alerts (`> [!NOTE]`); GitHub's maths (`$…$` inline, `$$…$$` on its own),
/// typeset at build time; and, as in Zola and Hugo, definition lists and heading
/// attributes (`## Retries {#retries}`).
///
/// Smart punctuation is the site's choice (`smart_punctuation` in `site.yaml`), added
/// when a page is rendered: it changes letters in the text, never where a block, a code
/// span or a link is, so the passes that find directives and references need not know.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_MATH
}

/// A directive as found in the Markdown, before its YAML is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Which directive.
    pub kind: Kind,
    /// The YAML body, with any indentation of the block removed.
    pub body: String,
    /// Byte offset of the body's first character in the Markdown.
    pub body_start: usize,
    /// Byte range of the whole fenced block.
    pub block: Range<usize>,
}

/// What a scan of one Markdown text finds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// The directives, in order.
    pub directives: Vec<Found>,
    /// Byte ranges of code (blocks and spans), where references are not expanded.
    pub code: Vec<Range<usize>>,
    /// Directive blocks that could not be read as blocks: a fence never closed.
    pub problems: Vec<FenceError>,
}

/// A directive block whose fence is never closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceError {
    /// Byte range of the opening fence and its info string.
    pub range: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub help: Option<String>,
}

/// Finds the directives and the code of a Markdown text.
pub fn scan(markdown: &str) -> Scan {
    let mut scan = Scan::default();
    let mut open: Option<Found> = None;
    for (event, range) in Parser::new_ext(markdown, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(block)) => {
                let kind = match &block {
                    CodeBlockKind::Fenced(info) => Kind::of_info(info),
                    CodeBlockKind::Indented => None,
                };
                if let Some(kind) = kind {
                    match unclosed(markdown, &range) {
                        // Its body would be prose: report the fence, read nothing.
                        Some(problem) => scan.problems.push(problem),
                        None => {
                            open = Some(Found {
                                kind,
                                body: String::new(),
                                body_start: range.end,
                                block: range.clone(),
                            })
                        }
                    }
                }
                scan.code.push(range);
            }
            Event::Text(text) => {
                if let Some(found) = open.as_mut() {
                    if found.body.is_empty() {
                        found.body_start = range.start;
                    }
                    found.body.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(found) = open.take() {
                    scan.directives.push(found);
                }
            }
            // A formula is read as LaTeX, where `{{` is a group: like code, no
            // reference is looked for in it.
            Event::Code(_)
            | Event::Html(_)
            | Event::InlineHtml(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_) => scan.code.push(range),
            _ => {}
        }
    }
    scan
}

/// The error for a directive block at `block` of `markdown` whose fence is never closed.
///
/// CommonMark lets an unclosed fence run to the end of its container, the page itself
/// at the top level, so the prose after it would be read as YAML and be reported where
/// no one made a mistake. Two signs give it away: the block does not end with a closing
/// fence, or an opening fence that could have closed it stands among its lines (a fence
/// with an info string never closes one, so the next block's closing fence does).
fn unclosed(markdown: &str, block: &Range<usize>) -> Option<FenceError> {
    let text = &markdown[block.clone()];
    let first = text.lines().next().unwrap_or_default();
    let mark = first.chars().next()?;
    let fence = &first[..first.len() - first.trim_start_matches(mark).len()];
    let name = first[fence.len()..]
        .split_whitespace()
        .next()
        .unwrap_or_default();
    let opened = format!("{fence}{name}");
    let next = text.lines().skip(1).find_map(|line| {
        let line = line.trim_start_matches([' ', '\t', '>']);
        let marks = line.len() - line.trim_start_matches(mark).len();
        let word = line[marks..].split_whitespace().next()?;
        // Only a fence that could close this one has closed it early.
        (marks >= fence.len()).then(|| format!("{}{word}", &line[..marks]))
    });
    let last = text.rsplit_once('\n').map(|(_, last)| last);
    let closes = last.is_some_and(|line| {
        let line = line.trim_start_matches([' ', '\t', '>']).trim_end();
        line.len() >= fence.len() && line.chars().all(|c| c == mark)
    });
    let message = match next {
        Some(inner) => format!(
            "this {opened} block is never closed, so the {inner} block after it is read as part of it"
        ),
        None if !closes => format!("this {opened} block is never closed"),
        None => return None,
    };
    Some(FenceError {
        range: block.start..block.start + first.trim_end().len(),
        message,
        help: Some(format!(
            "end it with a line of {fence} after its YAML; without one, what follows is read as YAML"
        )),
    })
}

/// A scenario directive, read.
#[derive(Clone, Debug, PartialEq)]
pub struct SimDirective {
    /// The scenario for the engine.
    pub scenario: Scenario,
    /// How to draw it: the directive's `figure:` keys.
    pub figure: FigureOptions,
    /// What a reader may vary under the figure (`figure.explore`); nothing for a
    /// printed figure.
    pub explore: explore::Explore,
}

/// Reads a directive's YAML: the scenario (which must have an `id`) and its figure keys.
/// Errors are positioned relative to the body.
pub fn read_sim(body: &str) -> Result<SimDirective, Vec<ScenarioError>> {
    read_sim_root(&parse_yaml(body)?)
}

/// Reads a directive from its parsed YAML (an `extends` already resolved).
pub fn read_sim_root(root: &Node) -> Result<SimDirective, Vec<ScenarioError>> {
    let figure = figure_spec(root);
    let scenario = scenario_from_node(root, None);
    // The scenario format knows `sweep` for sweep blocks; here it would be ignored.
    let stray = root.entry("sweep").map(|(key, _)| ScenarioError {
        pos: key.pos,
        width: key.width,
        message: "a ```sim block has no `sweep`".to_string(),
        help: Some(
            "to chart a total against a varied parameter, open the block with ```sweep".to_string(),
        ),
    });
    match (scenario, figure, stray) {
        (Ok(scenario), Ok(figure), None) => {
            let explore = explore::read_explore(root, &scenario)?;
            Ok(SimDirective {
                scenario,
                figure,
                explore,
            })
        }
        (scenario, figure, stray) => {
            let mut errors = scenario.err().unwrap_or_default();
            errors.extend(figure.err().unwrap_or_default());
            errors.extend(stray);
            errors.sort_by_key(|e| e.pos);
            Err(errors)
        }
    }
}

/// The `id` a directive body gives, if its YAML can be read that far.
pub fn id_of(body: &str) -> Option<String> {
    let Ok(root) = yaml::parse(body) else {
        // A block that is no YAML still names its id on a line of its own, so that the
        // references to it are not reported again beside its one error.
        return body.lines().find_map(|line| {
            let value = line.strip_prefix("id:")?;
            let value = value.split(" #").next()?.trim().trim_matches(['"', '\'']);
            (!value.is_empty() && !value.contains([' ', '{', '[', ':'])).then(|| value.to_string())
        });
    };
    root.entry("id")
        .and_then(|(_, v)| v.as_scalar())
        .map(str::to_string)
}

/// The `figure:` keys of a directive, each checked.
pub(crate) fn figure_spec(root: &Node) -> Result<FigureOptions, Vec<ScenarioError>> {
    let Some((_, node)) = root.entry("figure") else {
        return Ok(FigureOptions::default());
    };
    let mut spec = FigureOptions::default();
    let mut errors = Vec::new();
    let known: Vec<&str> = schema::names(Section::Figure).collect();
    let naming = Naming::Path(Section::Figure.prefix());
    if let Some(figure) = Map::read(node, &known, naming, "`figure`", &mut errors) {
        match figure.text("window") {
            Ok(Some("auto")) | Ok(None) => {}
            Ok(Some(text)) => match units::parse_duration(text) {
                Ok(us) if us > 0 => spec.window = Some(us),
                _ => {
                    let value = figure.get("window").unwrap_or(node);
                    errors.push(ScenarioError::at(
                        value,
                        format!(
                            "`figure.window` must be `auto` or a duration like 5s, found {}",
                            value.describe()
                        ),
                        None,
                    ));
                }
            },
            Err(e) => errors.push(e),
        }
        match figure.text("caption") {
            Ok(caption) => spec.caption = caption.map(str::to_string),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(spec)
    } else {
        errors.sort_by_key(|e| e.pos);
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sim_blocks_with_their_offsets_and_skips_others() {
        let md = "# T\n\n```sim\nid: a\nclients: 1\n```\n\n```yaml\nid: b\n```\n\nText `code`.\n";
        let scan = scan(md);
        assert_eq!(scan.directives.len(), 1);
        let d = &scan.directives[0];
        assert_eq!(d.body, "id: a\nclients: 1\n");
        assert_eq!(&md[d.body_start..d.body_start + 5], "id: a");
        assert_eq!(&md[d.block.clone()], "```sim\nid: a\nclients: 1\n```");
        assert_eq!(scan.code.len(), 3);
    }

    #[test]
    fn an_unclosed_fence_is_reported_at_its_opening_and_not_read() {
        let closed = [
            "```sim\nid: a\n```",
            "```sim\nid: a\n```\n\nText.\n",
            "  ~~~~ sim\n  id: a\n  ~~~~~  \n",
            "> ```sim\n> id: a\n> ```\n",
            "```sim\n```\n",
            "~~~sim\n```yaml\n~~~\n",
            "````sim\n```yaml\n````\n",
        ];
        for md in closed {
            let scan = scan(md);
            assert!(scan.problems.is_empty(), "{md:?}");
            assert_eq!(scan.directives.len(), 1, "{md:?}");
        }
        let unclosed = [
            ("Text.\n\n```sim\nid: a\n\nMore text.\n", 7..13),
            ("```sim\nid: a", 0..6),
            ("```sim", 0..6),
            ("````sim\nid: a\n```\n", 0..7),
            ("- item\n\n  ```sweep  \n  id: a\n\nafter\n", 10..18),
            ("> ```sim\n> id: a\n\nafter\n", 2..8),
        ];
        for (md, range) in unclosed {
            let scan = scan(md);
            assert!(scan.directives.is_empty(), "{md:?}");
            assert_eq!(scan.problems.len(), 1, "{md:?}");
            assert_eq!(scan.problems[0].range, range, "{md:?}");
        }
        let md = "```sim\nid: a\n\nText.\n\n```schedule   x\nid: b\n```\n";
        let problem = &scan(md).problems[0];
        assert_eq!(
            problem.message,
            "this ```sim block is never closed, so the ```schedule block after it is read as part of it"
        );
        assert_eq!(problem.range, 0..6);
    }

    #[test]
    fn an_indented_block_in_a_list_loses_its_indentation() {
        let md = "- item\n\n  ```sim\n  id: a\n  clients: 1\n  ```\n";
        let d = &scan(md).directives[0];
        assert_eq!(d.body, "id: a\nclients: 1\n");
        assert_eq!(&md[d.body_start..d.body_start + 5], "id: a");
    }

    #[test]
    fn reads_figure_keys_and_reports_their_mistakes() {
        let ok = read_sim("id: a\nclients: 1\nfigure: {window: 5s, caption: Hi}\n").unwrap();
        assert_eq!(ok.figure.window, Some(5_000_000));
        assert_eq!(ok.figure.caption.as_deref(), Some("Hi"));
        let err = read_sim("id: a\nclients: 1\nfigure: {windw: 5s}\n").unwrap_err();
        assert_eq!(err[0].message, "unknown key `figure.windw`");
        assert_eq!(err[0].help.as_deref(), Some("did you mean `window`?"));
        let err = read_sim("clients: 1\n").unwrap_err();
        assert_eq!(err[0].message, "missing key `id`");
        let err = read_sim("id: a\nclients: 1\nfigure: {caption: A, caption: B}\n").unwrap_err();
        assert_eq!(err[0].message, "`figure.caption` is given twice");
        let err = read_sim("id: a\nclients: 1\nsweep: {vary: clients, values: [1]}\n").unwrap_err();
        assert_eq!(err[0].message, "a ```sim block has no `sweep`");
        assert_eq!((err[0].pos.line, err[0].pos.column), (3, 1));
    }
}
