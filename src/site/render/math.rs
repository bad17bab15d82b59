//! Formulas: `$…$` inline and `$$…$$` on a line of their own, read as LaTeX math and
//! typeset at build time into MathML Core, which every current browser renders with no
//! script and no font to download. A formula that cannot be read is an error at its
//! place; the page is not published with the formula's source in place of its maths.

use std::ops::Range;

use pulldown_cmark::Event;
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{Parser, RenderConfig, Storage, push_mathml};

use super::{Rendered, Tokens};

/// A formula that cannot be typeset: its range in the body, what is wrong, what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadFormula {
    /// The formula with its dollar signs, in the body.
    pub range: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub help: String,
}

/// What to do about a formula that cannot be read, which is often a dollar sign of
/// prose (a price) read as the start of one.
const HELP: &str = "a formula is LaTeX math between `$` signs (`$$` for one on a line of \
                    its own); a dollar sign in prose is written `\\$`";

/// The MathML of each formula [`check`] typeset, by its text and whether it is a
/// display formula: the writer's, which typesets none of them twice.
pub(super) type Typeset = std::collections::HashMap<(String, bool), String>;

/// Checks every formula of the page, in the order they come, into `out.formulas`, and
/// gives the MathML of those that can be typeset.
pub(super) fn check<'s>(
    stream: &[(Event<'s>, Range<usize>)],
    tokens: &Tokens,
    out: &mut Rendered,
) -> Typeset {
    let mut mathml_of = Typeset::new();
    for (event, range) in stream {
        let (Event::InlineMath(latex) | Event::DisplayMath(latex)) = event else {
            continue;
        };
        let display = matches!(event, Event::DisplayMath(_));
        let latex = tokens.restore(latex);
        let bad = match reference_in(&latex) {
            // A `%` begins a comment in LaTeX, which hides the rest of its line.
            None if comment_at(&latex).is_some() => BadFormula {
                range: range.clone(),
                message: "this formula has a `%`, which begins a LaTeX comment: the rest of \
                          its line would not be shown"
                    .to_string(),
                help: "write a percent sign as `\\%`".to_string(),
            },
            // Told at the reference itself, found in the formula as written.
            Some(reference) => BadFormula {
                range: tokens
                    .body
                    .get(range.clone())
                    .and_then(|written| written.find(reference))
                    .map_or(range.clone(), |at| {
                        range.start + at..range.start + at + reference.len()
                    }),
                message: format!(
                    "`{reference}` stands in a formula, where references are not replaced"
                ),
                help: "write the value in the sentence beside the formula".to_string(),
            },
            None => match typeset_at(&latex, display) {
                Ok(mathml) => {
                    mathml_of.insert((latex.to_string(), display), mathml);
                    continue;
                }
                // Told at the character where the reader of LaTeX stopped, when it
                // says where in a formula long enough for that to help; else at the
                // whole formula.
                Err((message, at)) => BadFormula {
                    range: at
                        .and_then(|at| {
                            let written = tokens.body.get(range.clone())?;
                            let start = range.start + written.find(&*latex)? + at;
                            let width = tokens.body[start..].chars().next()?.len_utf8();
                            Some(start..start + width)
                        })
                        .unwrap_or_else(|| range.clone()),
                    message,
                    help: HELP.to_string(),
                },
            },
        };
        out.formulas.push(bad);
    }
    mathml_of
}

/// The formula as MathML: `<math>` inline, `<math display="block">` for a display, as
/// [`check`] typeset it. A formula [`check`] refused is written as its source, in code,
/// for `check`'s sake (the build stops at the error).
pub(super) fn html(mathml_of: &Typeset, latex: &str, display: bool) -> String {
    match mathml_of.get(&(latex.to_string(), display)) {
        Some(mathml) => mathml.clone(),
        None => typeset(latex, display)
            .unwrap_or_else(|_| format!("<code>{}</code>", crate::chart::table::escape(latex))),
    }
}

/// How deep a formula's groups may nest. The reader of LaTeX looks for the end of each
/// group from its start, so its time grows with the formula's length times its depth;
/// no formula a reader can follow nests more than a dozen deep.
pub const MAX_DEPTH: usize = 64;

/// The MathML of `latex`, or what is wrong with it.
pub fn typeset(latex: &str, display: bool) -> Result<String, String> {
    typeset_at(latex, display).map_err(|(message, _)| message)
}

/// [`typeset`], with what is wrong said at its byte in `latex` when the reader of
/// LaTeX says where.
fn typeset_at(latex: &str, display: bool) -> Result<String, (String, Option<usize>)> {
    let depth = depth(latex);
    if depth > MAX_DEPTH {
        return Err((
            format!(
                "this formula cannot be read: its groups nest {depth} deep, more than the \
                 {MAX_DEPTH} that are read"
            ),
            None,
        ));
    }
    let storage = Storage::new();
    let mut events = Vec::new();
    for event in Parser::new(latex, &storage) {
        match event {
            Ok(event) => events.push(Ok::<_, std::io::Error>(event)),
            Err(e) => {
                let e = e.to_string();
                return Err((what(&e), error_at(latex, &e)));
            }
        }
    }
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        ..RenderConfig::default()
    };
    let mut html = String::new();
    push_mathml(&mut html, events.into_iter(), config)
        .map_err(|e| (format!("this formula cannot be typeset: {e}"), None))?;
    // pulldown-latex 0.8 gives `\ `, `~` and `\nobreakspace` as the text `&nbsp;`, which
    // its writer escapes again: the reader would see the entity's name.
    Ok(html.replace("&amp;nbsp;", "&nbsp;"))
}

/// How deep the groups of `latex` nest: braces, brackets (an optional argument,
/// `\sqrt[3]{x}`, is read as a group), `\left` … `\right` and `\begin` … `\end`; an
/// escaped brace (`\{`) is a character.
fn depth(latex: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0);
    let mut chars = latex.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            '\\' => {
                let mut name = String::new();
                while let Some(&c) = chars.peek().filter(|c| c.is_ascii_alphabetic()) {
                    name.push(c);
                    chars.next();
                }
                match name.as_str() {
                    // A character after the backslash (`\{`, `\\`) is escaped.
                    "" => {
                        chars.next();
                    }
                    "left" | "begin" => depth += 1,
                    "right" | "end" => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            _ => {}
        }
        deepest = deepest.max(depth);
    }
    deepest
}

/// The first line of the parser's message, which says what is wrong (the lines after
/// it quote the formula, which the error already shows at its place).
fn what(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default();
    let first = first.strip_prefix("parsing error: ").unwrap_or(first);
    format!("this formula cannot be read: {first}")
}

/// How many bytes of a formula pulldown-latex 0.8 shows on each side of the place where
/// it stopped (its `CONTEXT_SIZE`).
const CONTEXT: usize = 12;

/// The byte of `latex` at which the reader of LaTeX stopped, from the context its
/// error `message` shows: the formula's text from [`CONTEXT`] bytes before that place
/// (`…` when that is not the formula's start) to [`CONTEXT`] bytes after it. The place
/// is known when the context begins after the formula's start or ends before its end
/// at a one-byte character, and is found in the formula once only; otherwise (a short
/// formula, a macro's expansion) `None`, and the error is told at the whole formula.
fn error_at(latex: &str, message: &str) -> Option<usize> {
    // After a macro of the formula's own is expanded, the reader's places are the
    // expansion's, not the formula's.
    let defines = ["\\def", "\\newcommand", "\\renewcommand", "\\let"];
    if message.contains("which was expanded from") || defines.iter().any(|d| latex.contains(d)) {
        return None;
    }
    // The formula's own text is the last part of the context: lines after `│…` or
    // `│ ` up to the line of carets.
    let context = message.rsplit("│\n").next()?;
    let mut lines = context.lines();
    let first = lines.next()?.strip_prefix('│')?;
    let (after_start, first) = match first.strip_prefix('…') {
        Some(rest) => (true, rest),
        None => (false, first.strip_prefix(' ')?),
    };
    let mut shown = first.to_string();
    for line in lines {
        let line = line.strip_prefix("│ ")?;
        if !line.is_empty() && line.chars().all(|c| c == '^') {
            break;
        }
        shown.push('\n');
        shown.push_str(line);
    }
    let from = latex.find(&shown)?;
    let next = from + latex[from..].chars().next().map_or(1, char::len_utf8);
    if latex.get(next..).is_none_or(|rest| rest.contains(&shown)) {
        return None;
    }
    // The context's edges are the place less and plus CONTEXT bytes, each moved back
    // to the start of its character: exact where that character is a byte (ASCII). Its
    // lines lose a last line break, which the formula may still have after it.
    let end = from + shown.len();
    let one_byte = |c: Option<char>| c.is_some_and(|c| c.is_ascii() && c != '\n' && c != '\r');
    let at = if after_start && one_byte(latex[from..].chars().next()) {
        from + CONTEXT
    } else if one_byte(latex[end..].chars().next()) {
        end.checked_sub(CONTEXT)?
    } else {
        return None;
    };
    // On a character's first byte, and within the formula.
    (0..=at.min(latex.len().saturating_sub(1)))
        .rev()
        .find(|&i| latex.is_char_boundary(i))
}

/// Where `latex` has a `%` that is not escaped (`\%`), which begins a comment.
fn comment_at(latex: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in latex.char_indices() {
        match c {
            '%' if !escaped => return Some(at),
            '\\' => escaped = !escaped,
            _ => escaped = false,
        }
    }
    None
}

/// A reference written in a formula (`{{ id.path }}`), which LaTeX would read as two
/// groups and show as its path: a name with a dot, between double braces.
fn reference_in(latex: &str) -> Option<&str> {
    let name =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '|' | '\\' | ' ');
    let mut from = 0;
    // The first `}}` after the last `{{` looked at: many `{{` share it, and it is looked
    // for again only when passed, so that a formula of many braces is read once.
    let mut close: Option<usize> = None;
    while let Some(found) = latex[from..].find("{{") {
        let start = from + found;
        from = start + 2;
        if close.is_none_or(|at| at < from) {
            match latex[from..].find("}}") {
                Some(len) => close = Some(from + len),
                None => break,
            }
        }
        let end = close.unwrap_or(from);
        let inner = latex[from..end].trim();
        // The characters first: a look that stops at any other stays short.
        let reference = inner.chars().all(name) && inner.contains('.') && !inner.starts_with('.');
        if reference || crate::directive::condition::is_marker(inner) {
            return Some(&latex[start..end + 2]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formula_is_mathml() {
        let inline = typeset("x^2", false).unwrap();
        assert!(inline.starts_with("<math"), "{inline}");
        assert!(!inline.contains("display=\"block\""), "{inline}");
        assert!(inline.contains("<msup>"), "{inline}");
        let spaced = typeset("a\\ b~c", false).unwrap();
        assert_eq!(
            spaced.matches("<mtext>&nbsp;</mtext>").count(),
            2,
            "{spaced}"
        );
        assert!(!spaced.contains("&amp;"), "{spaced}");
        let block = typeset("x^2", true).unwrap();
        assert!(block.starts_with("<math display=\"block\""), "{block}");
    }

    /// Where the reader of LaTeX stopped, from the context of its message: found for a
    /// formula longer than the context, on either side; not for a short one.
    #[test]
    fn an_error_is_placed_where_the_reader_stopped() {
        let at = |latex: &str| typeset_at(latex, false).unwrap_err().1;
        let long = "\\alpha + \\beta + \\gamma + \\delta + x^a^b + \\zeta + \\eta + \\theta";
        let placed = at(long).unwrap();
        assert!(
            long[placed..].starts_with('^'),
            "{placed}: {}",
            &long[placed..]
        );
        assert!(placed >= long.find("x^a").unwrap(), "{placed}");
        // Near the start, and near the end.
        let early = "x^a^b + \\zeta + \\eta + \\theta + \\iota + \\kappa";
        let placed = at(early).unwrap();
        assert!(early[placed..].starts_with("^b"), "{placed}");
        let late = "\\alpha + \\beta + \\gamma + \\delta + x^a^b";
        let placed = at(late).unwrap();
        assert!(late[placed..].starts_with("^b"), "{placed}");
        assert_eq!(at("a^b^c"), None);
        assert_eq!(at("\\frac{1}"), None);
        // After a macro, the context's places are its expansion's.
        assert_eq!(
            at("\\def\\R{\\mathbb{R}}\\R + \\alpha + \\beta + x^a^b + \\gamma + \\delta"),
            None
        );
        // A context that begins inside a character of several bytes is not exact at its
        // start; its end still is.
        let wide = "\\text{éééé}ax^a^b + \\alpha + \\beta + \\gamma";
        let placed = at(wide).unwrap();
        assert!(
            wide[placed..].starts_with("^b"),
            "{placed}: {}",
            &wide[placed..]
        );
    }

    #[test]
    fn a_formula_that_cannot_be_read_says_why() {
        let e = typeset("a^b^c", false).unwrap_err();
        assert!(e.starts_with("this formula cannot be read: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
        assert!(typeset("\\frac{1}{", false).is_err());
    }

    #[test]
    fn groups_nest_within_a_depth() {
        assert_eq!(depth("a"), 0);
        assert_eq!(depth("\\frac{1}{x^{2}}"), 2);
        assert_eq!(depth("\\{ \\} \\\\{x}"), 1);
        assert_eq!(depth("\\left( \\begin{cases} x \\end{cases} \\right)"), 3);
        assert_eq!(depth("\\sqrt[\\sqrt[3]{2}]{2}"), 2);
        let roots = format!("{}2{}", "\\sqrt[".repeat(65), "]{2}".repeat(65));
        assert!(typeset(&roots, false).unwrap_err().contains("nest 65 deep"));
        let deep = format!("{}x{}", "{".repeat(65), "}".repeat(65));
        let e = typeset(&deep, false).unwrap_err();
        assert_eq!(
            e,
            "this formula cannot be read: its groups nest 65 deep, more than the 64 that are read"
        );
        let fine = format!("{}x{}", "{".repeat(64), "}".repeat(64));
        assert!(typeset(&fine, false).is_ok());
    }

    #[test]
    fn references_are_found_but_groups_are_not() {
        assert_eq!(
            reference_in("p = {{ s.fixed.calls }}"),
            Some("{{ s.fixed.calls }}")
        );
        assert_eq!(reference_in("x^{{2}}"), None);
        assert_eq!(reference_in("{{a}} + {{b.c}}"), Some("{{b.c}}"));
        assert_eq!(reference_in("{{ .5 }}"), None);
        assert_eq!(reference_in("{{"), None);
        assert_eq!(
            reference_in("{{ a.b \\| percent }}"),
            Some("{{ a.b \\| percent }}")
        );
        assert_eq!(reference_in("x {{ end }}"), Some("{{ end }}"));
        assert_eq!(comment_at("50\\%"), None);
        assert_eq!(comment_at("50%"), Some(2));
        assert_eq!(comment_at("a\\\\%"), Some(3));
    }
}
