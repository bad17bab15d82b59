//! Flat YAML maps of the site: `site.yaml` and front matter, read key by key with
//! located diagnostics.

use crate::diag::Diagnostic;
use crate::suggest::closest;
use crate::yaml::{self, Node, Pos, Value};

/// A flat map read from YAML, with the file it came from, for diagnostics.
pub struct Meta<'a> {
    file: &'a str,
    source: &'a str,
    /// Where the YAML's line 1 stands in the file.
    first_line: usize,
    pairs: Vec<(String, Node)>,
    /// Problems found so far.
    pub problems: Vec<Diagnostic>,
}

impl<'a> Meta<'a> {
    /// Parses `yaml`, which starts at line `first_line` of `source` (the whole file),
    /// and checks its keys against `known`. `what` names the map in messages.
    pub fn parse(
        file: &'a str,
        source: &'a str,
        yaml: &str,
        first_line: usize,
        known: &[&str],
        what: &str,
    ) -> Meta<'a> {
        let mut meta = Meta {
            file,
            source,
            first_line,
            pairs: Vec::new(),
            problems: Vec::new(),
        };
        let root = match yaml::parse(yaml) {
            Ok(root) => root,
            Err(e) => {
                meta.problem_at(e.pos, 1, e.message, None);
                return meta;
            }
        };
        let pairs = match root.value {
            Value::Map(pairs) => pairs,
            _ if root.is_null() => Vec::new(),
            _ => {
                let message = format!("{what} must be a map of keys, found {}", root.describe());
                meta.problem(&root, message, None);
                return meta;
            }
        };
        for (key, value) in pairs {
            let name = key.as_scalar().unwrap_or("").to_string();
            if !known.contains(&name.as_str()) {
                let help = match closest(&name, known.iter().copied()) {
                    Some(near) => format!("did you mean `{near}`?"),
                    None => format!("the keys of {what} are: {}", known.join(", ")),
                };
                meta.problem(&key, format!("unknown key `{name}` in {what}"), Some(help));
            } else if meta.pairs.iter().any(|(n, _)| *n == name) {
                meta.problem(&key, format!("`{name}` is given twice"), None);
            } else {
                meta.pairs.push((name, value));
            }
        }
        meta
    }

    fn problem_at(&mut self, pos: Pos, width: usize, message: String, help: Option<String>) {
        let pos = Pos {
            line: pos.line + self.first_line - 1,
            column: pos.column,
        };
        self.problems
            .push(Diagnostic::new(self.file, self.source, pos, width, message).with_help(help));
    }

    /// Records a problem at a node.
    pub fn problem(&mut self, node: &Node, message: String, help: Option<String>) {
        self.problem_at(node.pos, node.width, message, help);
    }

    /// Where the map is, for problems about a missing key.
    pub fn missing(&mut self, key: &str, meaning: &str) {
        let pos = Pos::START;
        self.problem_at(
            pos,
            1,
            format!("missing key `{key}`"),
            Some(format!("add `{key}:`, {meaning}")),
        );
    }

    fn node(&self, key: &str) -> Option<Node> {
        self.pairs
            .iter()
            .find(|(n, v)| n == key && !v.is_null())
            .map(|(_, v)| v.clone())
    }

    /// A text value.
    pub fn text(&mut self, key: &str) -> Option<String> {
        let node = self.node(key)?;
        match node.as_scalar() {
            Some(text) => Some(text.to_string()),
            None => {
                let message = format!("`{key}` must be text, found {}", node.describe());
                self.problem(&node, message, None);
                None
            }
        }
    }

    /// A whole number, possibly negative.
    pub fn integer(&mut self, key: &str) -> Option<i64> {
        let node = self.node(key)?;
        let parsed = node.as_scalar().and_then(|t| t.parse::<i64>().ok());
        if parsed.is_none() {
            let message = format!("`{key}` must be a whole number, found {}", node.describe());
            self.problem(&node, message, None);
        }
        parsed
    }

    /// `true` or `false`.
    pub fn boolean(&mut self, key: &str) -> Option<bool> {
        let node = self.node(key)?;
        match node.as_scalar() {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => {
                let message = format!("`{key}` must be true or false, found {}", node.describe());
                self.problem(&node, message, None);
                None
            }
        }
    }

    /// A list of texts (a single text counts as a list of one).
    pub fn texts(&mut self, key: &str) -> Vec<String> {
        let Some(node) = self.node(key) else {
            return Vec::new();
        };
        let items: Vec<Node> = match node.value {
            Value::Seq(items) => items,
            Value::Scalar { .. } => vec![node],
            Value::Map(_) => {
                self.problem(&node, format!("`{key}` must be a list of texts"), None);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            match item.as_scalar() {
                Some(t) => out.push(t.to_string()),
                None => self.problem(&item, format!("`{key}` must be a list of texts"), None),
            }
        }
        out
    }

    /// A date written `YYYY-MM-DD`.
    pub fn date(&mut self, key: &str) -> Option<String> {
        let node = self.node(key)?;
        let text = node.as_scalar().unwrap_or("");
        let b = text.as_bytes();
        let shape = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        let month = text.get(5..7).and_then(|m| m.parse::<u32>().ok());
        let day = text.get(8..10).and_then(|d| d.parse::<u32>().ok());
        if shape && matches!(month, Some(1..=12)) && matches!(day, Some(1..=31)) {
            Some(text.to_string())
        } else {
            let message = format!(
                "`{key}` must be a date like 2026-11-29, found {}",
                node.describe()
            );
            self.problem(&node, message, None);
            None
        }
    }
}
