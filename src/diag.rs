//! Diagnostics a person can act on: file, line and column, the line itself with a caret
//! under the fault, what was expected, and a hint.

mod snippet;

use std::fmt;

use crate::engine::ScenarioError;
use crate::yaml::Pos;

use snippet::{BOM, Snippet, bounded, shown};

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
    /// The text of the offending line, or of the part of a long line around the fault.
    pub line_text: String,
    /// How many characters of the line come before `line_text`.
    pub line_skipped: usize,
    /// Whether the line goes on after `line_text`.
    pub line_cut: bool,
}

impl Diagnostic {
    /// A diagnostic at `pos` of `source`, the whole text of `file`. A byte-order mark
    /// that starts `source` is not a column, as in editors.
    pub fn new(file: &str, source: &str, pos: Pos, width: usize, message: String) -> Diagnostic {
        let start = line_start(source, pos.line);
        let rest = &source[start..];
        let rest = if start == 0 {
            rest.strip_prefix(BOM).unwrap_or(rest)
        } else {
            rest
        };
        Diagnostic::on_line(file, rest, pos, width, message)
    }

    /// A diagnostic at `pos`, whose line starts `rest`.
    fn on_line(file: &str, rest: &str, pos: Pos, width: usize, message: String) -> Diagnostic {
        let snippet = Snippet::of(rest, pos.column.saturating_sub(1));
        Diagnostic {
            file: file.to_string(),
            pos: Some(pos),
            width: width.max(1),
            message: bounded(message),
            help: None,
            line_text: snippet.text,
            line_skipped: snippet.skipped,
            line_cut: snippet.cut,
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
        let line = index.line(source, pos.line);
        let line = if pos.line == 1 {
            line.strip_prefix(BOM).unwrap_or(line)
        } else {
            line
        };
        Diagnostic::on_line(file, line, pos, width, message)
    }

    /// A problem with a whole file, or with no place in it.
    pub fn in_file(file: &str, message: String) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            pos: None,
            width: 1,
            message: bounded(message),
            help: None,
            line_text: String::new(),
            line_skipped: 0,
            line_cut: false,
        }
    }

    /// The diagnostic as a warning, as `build` and `check` print one beside the
    /// site: its text with `warning:` where an error has `error:`.
    pub fn to_warning(&self) -> String {
        let text = self.to_string();
        format!("warning: {}", text.strip_prefix("error: ").unwrap_or(&text))
    }

    /// Adds a hint.
    pub fn with_help(mut self, help: Option<String>) -> Diagnostic {
        self.help = help.map(bounded);
        self
    }

    /// A scenario error placed in its file: `origin` is where the scenario's own line 1,
    /// column 1 stands in the file (its column is the indentation of every line).
    pub fn from_scenario(file: &str, source: &str, origin: Pos, err: ScenarioError) -> Diagnostic {
        let mut pos = Pos {
            line: origin.line + err.pos.line - 1,
            column: origin.column + err.pos.column - 1,
        };
        // The reader skips a byte-order mark that starts a scenario; inside a page the
        // mark is a column of its line, so the scenario's first line starts after it.
        if err.pos.line == 1 && origin != Pos::START && char_at(source, origin) == Some(BOM) {
            pos.column += 1;
        }
        Diagnostic::new(file, source, pos, err.width, err.message).with_help(err.help)
    }
}

/// The byte offset where line `line` (from 1) of `source` starts; the end for a line
/// past the last.
fn line_start(source: &str, line: usize) -> usize {
    match line {
        0 | 1 => 0,
        n => source
            .match_indices('\n')
            .nth(n - 2)
            .map_or(source.len(), |(i, _)| i + 1),
    }
}

/// The character at `pos` of `source`, if its line has one there.
fn char_at(source: &str, pos: Pos) -> Option<char> {
    source[line_start(source, pos.line)..]
        .chars()
        .take_while(|&c| c != '\n')
        .nth(pos.column.checked_sub(1)?)
}

/// The text of a file, or the diagnostic at its first byte that is not UTF-8: its line,
/// and its column in characters of the valid text before it.
pub fn utf8_or_located(file: &str, bytes: Vec<u8>) -> Result<String, Vec<Diagnostic>> {
    let err = match String::from_utf8(bytes) {
        Ok(text) => return Ok(text),
        Err(err) => err,
    };
    let bytes = err.as_bytes();
    let at = err.utf8_error().valid_up_to();
    let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let start = valid.rfind('\n').map_or(0, |i| i + 1);
    let before = &valid[start..];
    let before = if start == 0 {
        before.strip_prefix(BOM).unwrap_or(before)
    } else {
        before
    };
    let pos = Pos {
        line: bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1,
        column: before.chars().count() + 1,
    };
    // The line as far as a snippet can show it, the bad bytes as U+FFFD.
    let tail = &bytes[at..bytes.len().min(at + 4 * snippet::WINDOW)];
    let tail = tail.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = format!("{before}{}", String::from_utf8_lossy(tail));
    let message = match err.utf8_error().error_len() {
        Some(_) => format!(
            "this file is not valid UTF-8: byte 0x{:02X} is not part of a UTF-8 character",
            bytes[at]
        ),
        None => "this file is not valid UTF-8: it ends in the middle of a character".to_string(),
    };
    let help = "retrylab reads text as UTF-8; save the file in that encoding";
    Err(vec![
        Diagnostic::on_line(file, &line, pos, 1, message).with_help(Some(help.to_string())),
    ])
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
        let text: String = self.line_text.chars().map(shown).collect();
        let lead = if self.line_skipped > 0 { "…" } else { "" };
        let tail = if self.line_cut { "…" } else { "" };
        writeln!(f, "{}", format!("{number} | {lead}{text}{tail}").trim_end())?;
        let into = pos
            .column
            .saturating_sub(1)
            .saturating_sub(self.line_skipped);
        let available = text.chars().count().saturating_sub(into);
        let width = self.width.min(available).max(1);
        write!(
            f,
            "{gutter} | {}{}",
            " ".repeat(into + lead.chars().count()),
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

    /// The line and column (in characters) of byte `offset` of `text`. A byte-order
    /// mark that starts `text` is not a column, as in editors.
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let mut start = self.starts[line];
        if start == 0 && text.starts_with(BOM) && offset >= BOM.len_utf8() {
            start = BOM.len_utf8();
        }
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
