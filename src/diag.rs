//! Diagnostics a person can act on: file, line and column, the line itself with a caret
//! under the fault, what was expected, and a hint.

use std::fmt;

use crate::engine::ScenarioError;
use crate::yaml::Pos;

/// One problem in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as the user named it.
    pub file: String,
    /// Line and column in the file, when the problem has a place.
    pub pos: Option<Pos>,
    /// How many characters the caret covers.
    pub width: usize,
    /// What is wrong.
    pub message: String,
    /// What to do, if anything can be said.
    pub help: Option<String>,
    /// The text of the offending line.
    pub line_text: String,
}

impl Diagnostic {
    /// A diagnostic at `pos` of `source`, the whole text of `file`.
    pub fn new(file: &str, source: &str, pos: Pos, width: usize, message: String) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            pos: Some(pos),
            width: width.max(1),
            message,
            help: None,
            line_text: source
                .lines()
                .nth(pos.line.saturating_sub(1))
                .unwrap_or("")
                .to_string(),
        }
    }

    /// Like [`Diagnostic::new`], finding the line through an index of `source`: many
    /// diagnostics in one long file then cost no more than the file.
    pub fn indexed(
        file: &str,
        source: &str,
        index: &LineIndex,
        pos: Pos,
        width: usize,
        message: String,
    ) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            pos: Some(pos),
            width: width.max(1),
            message,
            help: None,
            line_text: index.line(source, pos.line).to_string(),
        }
    }

    /// A problem with a whole file, or with no place in it.
    pub fn in_file(file: &str, message: String) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            pos: None,
            width: 1,
            message,
            help: None,
            line_text: String::new(),
        }
    }

    /// Adds a hint.
    pub fn with_help(mut self, help: Option<String>) -> Diagnostic {
        self.help = help;
        self
    }

    /// A scenario error placed in its file: `origin` is where the scenario's own line 1,
    /// column 1 stands in the file (its column is the indentation of every line).
    pub fn from_scenario(file: &str, source: &str, origin: Pos, err: ScenarioError) -> Diagnostic {
        let pos = Pos {
            line: origin.line + err.pos.line - 1,
            column: origin.column + err.pos.column - 1,
        };
        Diagnostic::new(file, source, pos, err.width, err.message).with_help(err.help)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}", self.message)?;
        let Some(pos) = self.pos else {
            write!(f, " --> {}", self.file)?;
            if let Some(help) = &self.help {
                write!(f, "\n  = help: {help}")?;
            }
            return Ok(());
        };
        let number = pos.line.to_string();
        let gutter = " ".repeat(number.len());
        writeln!(f, "{gutter}--> {}:{}:{}", self.file, pos.line, pos.column)?;
        writeln!(f, "{gutter} |")?;
        let line = self.line_text.replace('\t', " ");
        writeln!(f, "{}", format!("{number} | {line}").trim_end())?;
        let available = line.chars().count().saturating_sub(pos.column - 1);
        let width = self.width.min(available).max(1);
        write!(
            f,
            "{gutter} | {}{}",
            " ".repeat(pos.column - 1),
            "^".repeat(width)
        )?;
        if let Some(help) = &self.help {
            write!(f, "\n{gutter} = help: {help}")?;
        }
        Ok(())
    }
}

/// Why a command failed: problems in the input, or something else that stopped it.
#[derive(Debug)]
pub enum Failure {
    /// Mistakes in the user's input, each with its place.
    Input(Vec<Diagnostic>),
    /// Anything else, as a sentence.
    Other(String),
}

impl fmt::Display for Failure {
    /// The failure as the command line prints it: every diagnostic, then a count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Input(diagnostics) => {
                for d in diagnostics {
                    write!(f, "{d}\n\n")?;
                }
                let n = diagnostics.len();
                write!(
                    f,
                    "error: {n} problem{} found",
                    if n == 1 { "" } else { "s" }
                )
            }
            Failure::Other(message) => write!(f, "error: {message}"),
        }
    }
}

impl From<Vec<Diagnostic>> for Failure {
    fn from(diagnostics: Vec<Diagnostic>) -> Failure {
        Failure::Input(diagnostics)
    }
}

/// Turns byte offsets of a text into lines and columns.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// Line `line` (from 1) of `text`, as `text.lines()` gives it; empty past the end.
    pub fn line<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let Some(&start) = line.checked_sub(1).and_then(|i| self.starts.get(i)) else {
            return "";
        };
        match self.starts.get(line) {
            Some(&next) => {
                let line = &text[start.min(next - 1)..next - 1];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => text.get(start..).unwrap_or(""),
        }
    }

    /// The line and column (in characters) of byte `offset` of `text`.
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column = text
            .get(start..offset.min(text.len()))
            .map_or(0, |s| s.chars().count());
        Pos {
            line: line + 1,
            column: column + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_counts_characters() {
        let text = "ab\néx\n";
        let index = LineIndex::new(text);
        assert_eq!(index.pos(text, 0), Pos { line: 1, column: 1 });
        assert_eq!(index.pos(text, 3), Pos { line: 2, column: 1 });
        assert_eq!(index.pos(text, 5), Pos { line: 2, column: 2 });
        assert_eq!(index.pos(text, 7), Pos { line: 3, column: 1 });
    }

    #[test]
    fn indexed_lines_are_the_lines_of_the_text() {
        for text in ["", "a", "a\n", "a\r\nb\n\nc", "x\ny\r", "\n\n"] {
            let index = LineIndex::new(text);
            for line in 1..6 {
                let expected = text.lines().nth(line - 1).unwrap_or("");
                assert_eq!(index.line(text, line), expected, "{text:?} {line}");
            }
            assert_eq!(index.line(text, 0), "");
        }
    }

    #[test]
    fn shows_the_line_with_a_caret() {
        let source = "id: crowd\nclinets: 100\n";
        let d = Diagnostic::new(
            "crowd.yaml",
            source,
            Pos { line: 2, column: 1 },
            7,
            "unknown key `clinets`".to_string(),
        )
        .with_help(Some("did you mean `clients`?".to_string()));
        assert_eq!(
            d.to_string(),
            "error: unknown key `clinets`\n \
             --> crowd.yaml:2:1\n  \
             |\n\
             2 | clinets: 100\n  \
             | ^^^^^^^\n  \
             = help: did you mean `clients`?"
        );
    }
}
