//! The one module that reads YAML: a small tree whose every node remembers where it stood.
//!
//! Scenarios and front matter are read into this tree and then into typed structs by hand,
//! so that every mistake, from a syntax error to "cap below base", can point at a line and
//! column. The parser underneath is `yaml-rust2`; nothing outside this file names it.
//! Maps are read through [`Map`], which checks their keys the same way everywhere.

use std::fmt;

mod map;

pub use map::{Map, Naming, Problem, boolean};

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// How deeply lists and maps may nest; a scenario needs four levels.
const MAX_DEPTH: usize = 32;

/// A position in the source text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// The line, counting from 1.
    pub line: usize,
    /// The column, counting from 1, in characters.
    pub column: usize,
}

impl Pos {
    /// The very start of a text.
    pub const START: Pos = Pos { line: 1, column: 1 };

    fn from_marker(mark: Marker) -> Pos {
        Pos {
            line: mark.line().max(1),
            column: mark.col() + 1,
        }
    }
}

/// One value of the tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A scalar as written; `plain` is false for quoted and block scalars, which are
    /// always strings.
    Scalar {
        /// The text of the scalar, quotes removed.
        text: String,
        /// Whether it was written without quotes or a block indicator (`|`, `>`).
        plain: bool,
        /// Whether it was written in quotes (`'…'` or `"…"`).
        quoted: bool,
    },
    /// A sequence (`[a, b]` or `- a`).
    Seq(Vec<Node>),
    /// A mapping, in source order.
    Map(Vec<(Node, Node)>),
}

/// A value with the position where it starts and the width of its token.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it starts.
    pub pos: Pos,
    /// How many characters a caret under it should cover (at least 1).
    pub width: usize,
}

impl Node {
    /// The scalar text, if this is a scalar.
    pub fn as_scalar(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// True for an absent value: an empty plain scalar, `~` or `null`.
    pub fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar { text, plain: true, .. }
            if text.is_empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    }

    /// Where the key `name` stands among the entries of this map: the first, where a key
    /// is given twice (reading the map with [`Map::read`] reports the second). `None`
    /// for a node that is no map, or a map without the key. Every lookup of a key in a
    /// node comes through here: [`Node::entry`] and [`Node::get`] to read, the index to
    /// change the map in place.
    pub fn position(&self, name: &str) -> Option<usize> {
        match &self.value {
            Value::Map(pairs) => pairs.iter().position(|(k, _)| k.as_scalar() == Some(name)),
            Value::Scalar { .. } | Value::Seq(_) => None,
        }
    }

    /// The entry `name` of this map, its key and its value as written (a null value
    /// too): for a mistake placed at the key, or a value read even when empty.
    pub fn entry(&self, name: &str) -> Option<(&Node, &Node)> {
        let i = self.position(name)?;
        match &self.value {
            Value::Map(pairs) => pairs.get(i).map(|(k, v)| (k, v)),
            Value::Scalar { .. } | Value::Seq(_) => None,
        }
    }

    /// The value of the key `name` of this map, unless it is absent or null: what
    /// [`Map::get`] gives of a map whose keys were checked.
    pub fn get(&self, name: &str) -> Option<&Node> {
        self.entry(name).map(|(_, v)| v).filter(|v| !v.is_null())
    }

    /// What kind of value this is, in plain English, for "expected X, found Y".
    pub fn describe(&self) -> String {
        match &self.value {
            Value::Seq(_) => "a list".to_string(),
            Value::Map(_) => "a map of keys".to_string(),
            Value::Scalar { .. } if self.is_null() => "nothing".to_string(),
            // Quotes make a value text, which is why `"10"` is no number: say so.
            Value::Scalar {
                text, quoted: true, ..
            } => format!("the quoted string {text:?}"),
            Value::Scalar { text, .. } => format!("`{text}`"),
        }
    }
}

/// A YAML syntax error, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where the parser stopped.
    pub pos: Pos,
    /// What went wrong, in plain words.
    pub message: String,
    /// What to do about it, when there is a usual fix.
    pub help: Option<String>,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (line {}, column {})",
            self.message, self.pos.line, self.pos.column
        )
    }
}

/// Parses one YAML document into a tree. An empty text gives a null node. A byte-order
/// mark that starts the text is skipped: positions count from after it.
pub fn parse(src: &str) -> Result<Node, YamlError> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(src);
    let loaded = parser.load(&mut builder, true);
    if let Some(err) = builder.error {
        return Err(err);
    }
    if let Err(err) = loaded {
        // The scanner stops after a tab, often at the end of the line before it: the
        // error goes to the tab itself.
        if err.info().contains("tab")
            && let Some(pos) = tab_near(src, Pos::from_marker(*err.marker()))
        {
            return Err(YamlError {
                pos,
                message: "a tab cannot indent YAML".to_string(),
                help: Some("YAML indents with spaces: replace the tab with spaces".to_string()),
            });
        }
        return Err(YamlError {
            pos: Pos::from_marker(*err.marker()),
            message: plain_words(err.info()),
            help: None,
        });
    }
    if builder.documents > 1 {
        return Err(YamlError {
            pos: builder.second_document.unwrap_or(Pos::START),
            message: "expected one YAML document, found several (remove the extra `---`)"
                .to_string(),
            help: None,
        });
    }
    Ok(builder.root.unwrap_or(Node {
        value: Value::Scalar {
            text: String::new(),
            plain: true,
            quoted: false,
        },
        pos: Pos::START,
        width: 1,
    }))
}

/// The tab that indents the line of `at` or the line after it (where the scanner, having
/// stopped at the end of a line, met it), if either is indented with one.
fn tab_near(src: &str, at: Pos) -> Option<Pos> {
    src.lines()
        .enumerate()
        .skip(at.line.saturating_sub(1))
        .take(2)
        .find_map(|(i, line)| {
            let indent = line.chars().take_while(|c| *c == ' ' || *c == '\t');
            let column = indent.take_while(|c| *c == ' ').count();
            (line.chars().nth(column) == Some('\t')).then_some(Pos {
                line: i + 1,
                column: column + 1,
            })
        })
}

/// Rewrites the scanner's messages into words an author knows.
fn plain_words(info: &str) -> String {
    let info = info.trim_start_matches("while parsing a ");
    match info {
        i if i.contains("mapping values are not allowed") => {
            "a `key: value` pair cannot start here (check the indentation, or quote a value \
             that contains `: `)"
                .to_string()
        }
        i if i.contains("did not find expected ',' or ']'") => {
            "this list is not closed: expected `,` or `]`".to_string()
        }
        i if i.contains("did not find expected ',' or '}'") => {
            "this map is not closed: expected `,` or `}`".to_string()
        }
        i if i.contains("illegal placement of ':'") => {
            "a `:` cannot stand here (is a list or map above it left open?)".to_string()
        }
        i if i.contains("tabs") => "tabs are not allowed for indentation; use spaces".to_string(),
        other => format!("invalid YAML: {other}"),
    }
}

/// Collects parser events into nodes, keeping a stack instead of recursing.
#[derive(Default)]
struct Builder {
    stack: Vec<Open>,
    root: Option<Node>,
    error: Option<YamlError>,
    documents: usize,
    second_document: Option<Pos>,
}

/// A list or map still being filled.
struct Open {
    pos: Pos,
    items: Vec<Node>,
    is_map: bool,
    pos_known: bool,
}

impl Builder {
    fn fail(&mut self, pos: Pos, message: &str) {
        if self.error.is_none() {
            self.error = Some(YamlError {
                pos,
                message: message.to_string(),
                help: None,
            });
        }
    }

    fn push_node(&mut self, node: Node) {
        match self.stack.last_mut() {
            Some(open) => {
                // Block maps report their start at their first value; the first key is
                // where a reader sees the map begin.
                if open.is_map && !open.pos_known && open.items.is_empty() {
                    open.pos = node.pos;
                    open.pos_known = true;
                }
                open.items.push(node);
            }
            None => self.root = Some(node),
        }
    }

    fn close(&mut self) {
        let Some(open) = self.stack.pop() else {
            return;
        };
        let value = if open.is_map {
            let mut pairs = Vec::with_capacity(open.items.len() / 2);
            let mut items = open.items.into_iter();
            while let (Some(key), Some(value)) = (items.next(), items.next()) {
                pairs.push((key, value));
            }
            Value::Map(pairs)
        } else {
            Value::Seq(open.items)
        };
        self.push_node(Node {
            value,
            pos: open.pos,
            width: 1,
        });
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let pos = Pos::from_marker(mark);
        match ev {
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents == 2 {
                    self.second_document = Some(pos);
                }
            }
            Event::Alias(_) => self.fail(pos, "anchors and aliases (`*name`) are not supported"),
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    self.fail(pos, "anchors and tags (`&name`, `!tag`) are not supported");
                    return;
                }
                let plain = style == TScalarStyle::Plain;
                let quoted = matches!(
                    style,
                    TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
                );
                let width = text.chars().count().max(1) + if quoted { 2 } else { 0 };
                self.push_node(Node {
                    value: Value::Scalar {
                        text,
                        plain,
                        quoted,
                    },
                    pos,
                    width,
                });
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                if anchor != 0 || tag.is_some() {
                    self.fail(pos, "anchors and tags (`&name`, `!tag`) are not supported");
                    return;
                }
                if self.stack.len() >= MAX_DEPTH {
                    self.fail(pos, "lists and maps are nested too deeply");
                    return;
                }
                let is_map = matches!(ev, Event::MappingStart(..));
                self.stack.push(Open {
                    pos,
                    items: Vec::new(),
                    is_map,
                    pos_known: !is_map,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_that_indents_is_placed_at_the_tab_with_a_hint() {
        for (src, line, column) in [
            // The scanner stops at the end of the line before: the tab is below.
            ("retry:\n  base: 1s\n\tcap: 2s\n", 3, 1),
            ("strategies:\n\t- fixed\n", 2, 1),
            ("retry:\n  base: 1s\n  \tcap: 2s\n", 3, 3),
        ] {
            let err = parse(src).unwrap_err();
            assert_eq!(err.pos, Pos { line, column }, "{src:?}: {err}");
            assert_eq!(err.message, "a tab cannot indent YAML");
            assert_eq!(
                err.help.as_deref(),
                Some("YAML indents with spaces: replace the tab with spaces")
            );
        }
        // A tab that indents nothing is not called indentation.
        if let Err(err) = parse("clients:\t100\n") {
            assert_ne!(err.message, "a tab cannot indent YAML");
        }
    }

    fn scalar(node: &Node) -> &str {
        node.as_scalar().unwrap()
    }

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let doc = parse("id: é crowd\nclients: 100\nserver:\n  capacity: 10\n").unwrap();
        let Value::Map(pairs) = &doc.value else {
            panic!("not a map")
        };
        assert_eq!(scalar(&pairs[1].0), "clients");
        assert_eq!(
            pairs[1].1.pos,
            Pos {
                line: 2,
                column: 10
            }
        );
        let Value::Map(server) = &pairs[2].1.value else {
            panic!("not a map")
        };
        assert_eq!(server[0].0.pos, Pos { line: 4, column: 3 });
        assert_eq!(pairs[2].1.pos, Pos { line: 4, column: 3 });
    }

    #[test]
    fn syntax_errors_have_a_position_and_plain_words() {
        let err = parse("a: [1, 2\nb: 3").unwrap_err();
        assert_eq!(err.pos.line, 2);
        assert!(!err.message.is_empty());
    }

    #[test]
    fn aliases_are_refused() {
        let err = parse("a: &x 1\nb: *x\n").unwrap_err();
        assert_eq!(
            err.message,
            "anchors and tags (`&name`, `!tag`) are not supported"
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = "[".repeat(10_000);
        assert!(parse(&text).is_err());
    }

    #[test]
    fn empty_text_is_null() {
        assert!(parse("").unwrap().is_null());
    }
}
