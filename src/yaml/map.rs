//! The one reader of YAML maps: known keys, duplicates, "did you mean", and typed getters
//! whose every mistake is placed at the node it is about.
//!
//! Scenarios, directives, sweeps, front matter and `site.yaml` all read their maps here, so
//! a key is checked the same way wherever it is written.

use super::{Node, Pos, Value};
use crate::suggest;

/// One mistake in a map, at the node it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where it is, relative to the YAML text.
    pub pos: Pos,
    /// How many characters to underline.
    pub width: usize,
    /// What is wrong.
    pub message: String,
    /// What to do about it, if there is something to say.
    pub help: Option<String>,
}

impl Problem {
    /// A problem underlining `node`.
    pub fn at(node: &Node, message: String, help: Option<String>) -> Problem {
        Problem {
            pos: node.pos,
            width: node.width,
            message,
            help,
        }
    }
}

/// How a map's keys are named in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming<'a> {
    /// By their path from the top of a scenario or directive: with the prefix `server.`,
    /// the key `tick` is `server.tick`.
    Path(&'a str),
    /// As keys of a named whole, such as `front matter`: "unknown key `x` in front matter".
    In(&'a str),
}

impl Naming<'_> {
    /// A key's full name: `server.tick`, or `title`.
    pub fn label(self, name: &str) -> String {
        match self {
            Naming::Path(prefix) => format!("{prefix}{name}"),
            Naming::In(_) => name.to_string(),
        }
    }

    /// What the list of known keys is called in the help.
    fn keys(self) -> String {
        match self {
            Naming::Path(_) => "keys here".to_string(),
            Naming::In(what) => format!("keys of {what}"),
        }
    }

    /// Where an unknown key was found, after its name.
    fn place(self) -> String {
        match self {
            Naming::Path(_) => String::new(),
            Naming::In(what) => format!(" in {what}"),
        }
    }
}

/// A map whose keys were checked: each known, none twice. Keys in error are left out, so a
/// getter sees only the first of a duplicated key.
#[derive(Clone, Debug)]
pub struct Map<'a> {
    /// The map's own node.
    pub node: &'a Node,
    naming: Naming<'a>,
    entries: Vec<(&'a str, &'a Node, &'a Node)>,
}

impl<'a> Map<'a> {
    /// Checks the keys of `node` against `known`, adding a problem for each key that is not
    /// a name, not known, or given twice. A null node is an empty map; any other value is
    /// one problem, "`what` must be a map of keys", and no map.
    pub fn read(
        node: &'a Node,
        known: &[&str],
        naming: Naming<'a>,
        what: &str,
        problems: &mut Vec<Problem>,
    ) -> Option<Map<'a>> {
        Map::read_keys(node, Some(known), naming, what, problems)
    }

    /// As [`Map::read`], for a map whose keys are the author's own (such as `extra:`):
    /// any name is known, but each must be a name, and given once.
    pub fn read_free(
        node: &'a Node,
        naming: Naming<'a>,
        what: &str,
        problems: &mut Vec<Problem>,
    ) -> Option<Map<'a>> {
        Map::read_keys(node, None, naming, what, problems)
    }

    fn read_keys(
        node: &'a Node,
        known: Option<&[&str]>,
        naming: Naming<'a>,
        what: &str,
        problems: &mut Vec<Problem>,
    ) -> Option<Map<'a>> {
        let mut map = Map {
            node,
            naming,
            entries: Vec::new(),
        };
        let pairs = match &node.value {
            Value::Map(pairs) => pairs.as_slice(),
            Value::Scalar { .. } if node.is_null() => &[],
            Value::Scalar { .. } | Value::Seq(_) => {
                problems.push(Problem::at(
                    node,
                    format!("{what} must be a map of keys, found {}", node.describe()),
                    None,
                ));
                return None;
            }
        };
        for (key, value) in pairs {
            let Some(name) = key.as_scalar().filter(|_| !key.is_null()) else {
                problems.push(Problem::at(
                    key,
                    format!("a key must be a plain name, found {}", key.describe()),
                    None,
                ));
                continue;
            };
            if let Some(known) = known.filter(|known| !known.contains(&name)) {
                problems.push(Problem::at(
                    key,
                    format!("unknown key `{}`{}", naming.label(name), naming.place()),
                    Some(suggest::help(name, known.iter().copied(), &naming.keys())),
                ));
                continue;
            }
            if map.entries.iter().any(|(n, _, _)| *n == name) {
                problems.push(Problem::at(
                    key,
                    format!("`{}` is given twice", naming.label(name)),
                    None,
                ));
                continue;
            }
            map.entries.push((name, key, value));
        }
        Some(map)
    }

    /// A key's full name for messages: `server.tick`.
    pub fn label(&self, name: &str) -> String {
        self.naming.label(name)
    }

    /// The value of `name`, unless it is absent or null.
    pub fn get(&self, name: &str) -> Option<&'a Node> {
        self.entries
            .iter()
            .find(|(n, _, v)| *n == name && !v.is_null())
            .map(|(_, _, v)| *v)
    }

    /// The key `name` as written, if the map has it (even with a null value).
    pub fn key(&self, name: &str) -> Option<&'a Node> {
        self.entries
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, k, _)| *k)
    }

    /// The keys read, in source order: each name with its key node.
    pub fn keys(&self) -> impl Iterator<Item = (&'a str, &'a Node)> + '_ {
        self.entries.iter().map(|(n, k, _)| (*n, *k))
    }

    /// The value of `name`, or a problem at the map: "missing key", with what to add.
    pub fn required(&self, name: &str, meaning: &str) -> Result<&'a Node, Problem> {
        self.get(name).ok_or_else(|| Problem {
            pos: self.node.pos,
            width: 1,
            message: format!("missing key `{}`", self.label(name)),
            help: Some(format!("add `{name}:`, {meaning}")),
        })
    }

    /// The text of `name`, if written; a list or map there is a problem at it.
    pub fn text(&self, name: &str) -> Result<Option<&'a str>, Problem> {
        let Some(node) = self.get(name) else {
            return Ok(None);
        };
        match node.as_scalar() {
            Some(text) => Ok(Some(text)),
            None => Err(Problem::at(
                node,
                format!(
                    "`{}` must be a single value, found {}",
                    self.label(name),
                    node.describe()
                ),
                None,
            )),
        }
    }

    /// `true` or `false` at `name`, if written.
    pub fn boolean(&self, name: &str) -> Result<Option<bool>, Problem> {
        self.get(name)
            .map(|node| boolean(node, &self.label(name)))
            .transpose()
    }
}

/// `true` or `false`, or a problem at the node naming `label`.
pub fn boolean(node: &Node, label: &str) -> Result<bool, Problem> {
    match node.as_scalar() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(Problem::at(
            node,
            format!("`{label}` must be true or false, found {}", node.describe()),
            None,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    fn problems(text: &str, naming: Naming) -> Vec<String> {
        let root = parse(text).unwrap();
        let mut problems = Vec::new();
        Map::read(
            &root,
            &["title", "weight"],
            naming,
            "front matter",
            &mut problems,
        );
        problems
            .iter()
            .map(|p| format!("{}:{} {}", p.pos.line, p.pos.column, p.message))
            .collect()
    }

    #[test]
    fn keys_are_known_named_and_given_once() {
        assert_eq!(
            problems(
                "title: a\ntitle: b\n[x]: 1\n7: 2\n~: 3\nwieght: 4\n",
                Naming::In("front matter")
            ),
            [
                "2:1 `title` is given twice",
                "3:1 a key must be a plain name, found a list",
                "4:1 unknown key `7` in front matter",
                "5:1 a key must be a plain name, found nothing",
                "6:1 unknown key `wieght` in front matter",
            ]
        );
        assert_eq!(
            problems("{title: a, title: b, x: 1}", Naming::Path("page.")),
            [
                "1:12 `page.title` is given twice",
                "1:22 unknown key `page.x`"
            ]
        );
        assert_eq!(
            problems("[1, 2]", Naming::Path("")),
            ["1:1 front matter must be a map of keys, found a list"]
        );
    }

    #[test]
    fn getters_place_their_problems_at_the_value() {
        let root = parse("title: [a]\nweight: maybe\n").unwrap();
        let mut problems = Vec::new();
        let map = Map::read(
            &root,
            &["title", "weight"],
            Naming::Path(""),
            "m",
            &mut problems,
        )
        .unwrap();
        let err = map.text("title").unwrap_err();
        assert_eq!(err.message, "`title` must be a single value, found a list");
        assert_eq!((err.pos.line, err.pos.column), (1, 8));
        let err = map.boolean("weight").unwrap_err();
        assert_eq!(err.message, "`weight` must be true or false, found `maybe`");
        assert_eq!(err.pos.line, 2);
        let err = Map::read(&root, &["x"], Naming::Path(""), "m", &mut problems)
            .unwrap()
            .required("x", "a thing")
            .unwrap_err();
        assert_eq!(err.message, "missing key `x`");
        assert_eq!(err.help.as_deref(), Some("add `x:`, a thing"));
    }
}
