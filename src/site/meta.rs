//! Flat YAML maps of the site: `site.yaml` and front matter, read key by key with
//! located diagnostics.

use crate::diag::Diagnostic;
use crate::yaml::{self, Map, Naming, Node, Pos, Problem, Value};

/// A flat map read from YAML, with the file it came from, for diagnostics.
pub struct Meta<'a> {
    file: &'a str,
    source: &'a str,
    /// Where the YAML's line 1 stands in the file.
    first_line: usize,
    /// The map's keys as read: each known, given once, with a value.
    entries: Node,
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
            entries: Node {
                value: Value::Map(Vec::new()),
                pos: Pos::START,
                width: 1,
            },
            problems: Vec::new(),
        };
        let root = match yaml::parse(yaml) {
            Ok(root) => root,
            Err(e) => {
                meta.problem_at(e.pos, 1, e.message, e.help);
                return meta;
            }
        };
        let mut problems = Vec::new();
        if let Some(map) = Map::read(&root, known, Naming::In(what), what, &mut problems) {
            let pairs = map
                .keys()
                .filter_map(|(name, key)| map.get(name).map(|v| (key.clone(), v.clone())))
                .collect();
            meta.entries.value = Value::Map(pairs);
        }
        for problem in problems {
            meta.add(problem);
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

    /// Records a problem found in the map's YAML.
    pub fn add(&mut self, problem: Problem) {
        self.problem_at(problem.pos, problem.width, problem.message, problem.help);
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

    /// The value of `key`, unless it is absent or null.
    pub fn node(&self, key: &str) -> Option<Node> {
        self.entries.get(key).cloned()
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
        match yaml::boolean(&node, key) {
            Ok(value) => Some(value),
            Err(problem) => {
                self.add(problem);
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

    /// A date written `YYYY-MM-DD` that is a day of the calendar.
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
        if !shape {
            let message = format!(
                "`{key}` must be a date like 2026-11-29, found {}",
                node.describe()
            );
            self.problem(&node, message, None);
            return None;
        }
        // The shape holds only digits where these are read, so they parse.
        let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().unwrap_or(0);
        let (year, month, day) = (number(0..4), number(5..7), number(8..10));
        let Some(name) = MONTHS.get(month.wrapping_sub(1) as usize) else {
            let message = format!("`{key}` has no month {month:02}: months go from 01 to 12");
            self.problem(&node, message, None);
            return None;
        };
        let days = days_in(year, month);
        if !(1..=days).contains(&day) {
            let year = &text[0..4];
            let message =
                format!("`{key}` is not a day of the calendar: {name} {year} has {days} days");
            let help = format!("the last day of {name} {year} is {year}-{month:02}-{days}");
            self.problem(&node, message, Some(help));
            return None;
        }
        Some(text.to_string())
    }
}

/// The months' names, January first.
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// How many days `month` (1 to 12) of `year` has, in the Gregorian calendar.
fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The problems of a front matter holding `date: {value}`.
    fn date_problems(value: &str) -> Vec<String> {
        let source = format!("---\ndate: {value}\n---\n");
        let yaml = format!("date: {value}\n");
        let mut meta = Meta::parse("content/a.md", &source, &yaml, 2, &["date"], "front matter");
        meta.date("date");
        meta.problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn days_of_the_calendar_pass() {
        for day in [
            "2026-01-31",
            "2024-02-29",
            "2000-02-29",
            "2026-12-31",
            "2026-04-30",
        ] {
            assert_eq!(date_problems(day), Vec::<String>::new(), "{day}");
        }
    }

    #[test]
    fn impossible_days_are_refused_at_their_value() {
        assert_eq!(
            date_problems("2026-02-30"),
            [
                "error: `date` is not a day of the calendar: February 2026 has 28 days\n \
              --> content/a.md:2:7\n  |\n2 | date: 2026-02-30\n  |       ^^^^^^^^^^\n  \
              = help: the last day of February 2026 is 2026-02-28"
            ]
        );
        assert_eq!(
            date_problems("1900-02-29")[0].lines().next(),
            Some("error: `date` is not a day of the calendar: February 1900 has 28 days")
        );
        assert_eq!(
            date_problems("2026-04-31")[0].lines().next(),
            Some("error: `date` is not a day of the calendar: April 2026 has 30 days")
        );
        assert_eq!(
            date_problems("2026-01-00")[0].lines().next(),
            Some("error: `date` is not a day of the calendar: January 2026 has 31 days")
        );
        assert_eq!(
            date_problems("2026-13-01")[0].lines().next(),
            Some("error: `date` has no month 13: months go from 01 to 12")
        );
        assert_eq!(
            date_problems("2026-00-10")[0].lines().next(),
            Some("error: `date` has no month 00: months go from 01 to 12")
        );
    }
}
