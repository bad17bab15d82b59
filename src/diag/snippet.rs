//! The part of a line a diagnostic shows, and messages that stay short: a line of 50 MB
//! prints as a hundred characters around the fault, found in time proportional to the
//! fault's place, never to the line's length.

/// The most characters of a line a snippet shows.
pub const WINDOW: usize = 100;
/// How many characters before the fault a cut line keeps.
const LEAD: usize = 40;
/// The most characters of one quoted value, or one word, in a message.
const QUOTE: usize = 80;
/// The most characters of a whole message.
const MESSAGE: usize = 1_000;
/// The byte-order mark, which some editors write at the start of a file.
pub const BOM: char = '\u{feff}';

/// The part of one line a diagnostic shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The text shown, without the line's end.
    pub text: String,
    /// How many characters of the line come before `text`.
    pub skipped: usize,
    /// Whether the line goes on after `text`.
    pub cut: bool,
}

impl Snippet {
    /// The snippet of the line that starts `rest` (the line ends at the first `\n`) for a
    /// fault `before` characters into it. Reads at most `before` plus [`WINDOW`]
    /// characters of the line.
    pub fn of(rest: &str, before: usize) -> Snippet {
        let (whole_end, _) = advance(rest, 0, WINDOW);
        let mut start = 0;
        let mut skipped = 0;
        let end = if at_line_end(rest, whole_end) {
            whole_end
        } else {
            skipped = before.saturating_sub(LEAD);
            let (from, got) = advance(rest, 0, skipped);
            start = from;
            if got < skipped {
                // The fault lies past the line's end: show the line's last characters.
                skipped = got;
            }
            let (end, shown) = advance(rest, start, WINDOW);
            let back = (WINDOW - shown).min(skipped);
            if back > 0 {
                // Near the line's end: fill the window with what comes before.
                start = rest[..start]
                    .char_indices()
                    .rev()
                    .nth(back - 1)
                    .map_or(start, |(i, _)| i);
                skipped -= back;
            }
            end
        };
        let cut = !at_line_end(rest, end);
        let mut text = &rest[start..end];
        if !cut {
            text = text.strip_suffix('\r').unwrap_or(text);
        }
        Snippet {
            text: text.to_string(),
            skipped,
            cut,
        }
    }
}

/// The byte offset `n` characters after `from` in `rest`, stopping at the line's end,
/// with how many characters were passed.
fn advance(rest: &str, from: usize, n: usize) -> (usize, usize) {
    let mut passed = 0;
    for (i, c) in rest[from..].char_indices() {
        if passed == n || c == '\n' {
            return (from + i, passed);
        }
        passed += 1;
    }
    (rest.len(), passed)
}

/// Whether nothing but the line's end (`\n`, `\r\n` or the text's end) follows `at`.
fn at_line_end(rest: &str, at: usize) -> bool {
    let tail = &rest[at..];
    tail.is_empty() || tail.starts_with('\n') || tail == "\r" || tail.starts_with("\r\n")
}

/// How a character of the author's line is printed: one visible column each, so that the
/// caret stays under the fault and nothing invisible hides in the snippet.
pub fn shown(c: char) -> char {
    match c {
        '\t' => ' ',
        c if c.is_control() || is_invisible(c) => '\u{fffd}',
        c => c,
    }
}

/// Characters that take no room on a terminal yet change what a key is.
fn is_invisible(c: char) -> bool {
    matches!(c, BOM | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}')
}

/// A message with every quoted value and every word cut to [`QUOTE`] characters and the
/// whole to [`MESSAGE`], so that a 50 MB value in the input does not print 50 MB.
pub fn bounded(message: String) -> String {
    if message.chars().count() <= QUOTE {
        return message;
    }
    let mut out = String::new();
    let mut quoted = false;
    let mut run = 0;
    let mut total = 0;
    for c in message.chars() {
        if total == MESSAGE {
            out.push('…');
            break;
        }
        if c == '`' || (!quoted && c.is_whitespace()) {
            quoted ^= c == '`';
            run = 0;
        } else {
            run += 1;
            if run > QUOTE {
                if run == QUOTE + 1 {
                    out.push('…');
                    total += 1;
                }
                continue;
            }
        }
        out.push(c);
        total += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_line_is_shown_whole() {
        let s = Snippet::of("id: a\r\nnext", 3);
        assert_eq!(
            s,
            Snippet {
                text: "id: a".to_string(),
                skipped: 0,
                cut: false
            }
        );
    }

    #[test]
    fn a_long_line_is_cut_around_the_fault() {
        let line = format!("{}X{}\nnext", "a".repeat(1000), "b".repeat(1000));
        let s = Snippet::of(&line, 1000);
        assert_eq!(s.skipped, 960);
        assert_eq!(s.text.chars().count(), WINDOW);
        assert_eq!(s.text.chars().nth(40), Some('X'));
        assert!(s.cut);
    }

    #[test]
    fn near_the_end_the_window_is_filled_from_before() {
        let line = format!("{}X", "é".repeat(500));
        let s = Snippet::of(&line, 500);
        assert_eq!(s.skipped, 401);
        assert_eq!(s.text.chars().count(), WINDOW);
        assert!(s.text.ends_with('X'));
        assert!(!s.cut);
        let past = Snippet::of(&line, 10_000);
        assert_eq!(past, s);
    }

    #[test]
    fn long_values_in_messages_are_cut() {
        let long = "x".repeat(10_000);
        let message = bounded(format!("unknown key `{long}` here"));
        assert_eq!(
            message,
            format!("unknown key `{}…` here", "x".repeat(QUOTE))
        );
        let spaced = bounded(format!("found `{}`", "a ".repeat(5_000)));
        assert!(spaced.chars().count() <= QUOTE + 10);
        let words = bounded("ab ".repeat(5_000));
        assert_eq!(words.chars().count(), MESSAGE + 1);
        let short =
            "the keys here are: model, capacity, tick, rejection_cost, outages, retry_after";
        assert_eq!(bounded(short.to_string()), short);
    }
}
