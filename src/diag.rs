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
    /// Line and column in the file.
    pub pos: Pos,
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
            pos,
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
        let number = self.pos.line.to_string();
        let gutter = " ".repeat(number.len());
        writeln!(f, "error: {}", self.message)?;
        writeln!(
            f,
            "{gutter}--> {}:{}:{}",
            self.file, self.pos.line, self.pos.column
        )?;
        writeln!(f, "{gutter} |")?;
        let line = self.line_text.replace('\t', " ");
        writeln!(f, "{}", format!("{number} | {line}").trim_end())?;
        let available = line.chars().count().saturating_sub(self.pos.column - 1);
        let width = self.width.min(available).max(1);
        write!(
            f,
            "{gutter} | {}{}",
            " ".repeat(self.pos.column - 1),
            "^".repeat(width)
        )?;
        if let Some(help) = &self.help {
            write!(f, "\n{gutter} = help: {help}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
