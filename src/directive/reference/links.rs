//! Where a page's links keep an address or a label: the places where a `{{` is part of
//! a link's syntax, not of its text, so that no reference is read or replaced there.
//!
//! pulldown-cmark gives a link's whole source range and the ranges of its text; what
//! follows the text (`(address "title")` or `[label]`) and the link reference
//! definitions (`[label]: address "title"`) are read here. A title is prose: a
//! reference in it is replaced like one in the text.

use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Parser, Tag, TagEnd};

use crate::directive::markdown_options;

/// What a range of link syntax holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A link's or an image's address, or a whole autolink.
    Address,
    /// The label that names a link reference definition or a footnote.
    Label,
}

/// Every address and label of `markdown`, with its byte range, in source order.
pub fn link_parts(markdown: &str) -> Vec<(Range<usize>, Part)> {
    let mut parts = Vec::new();
    let parser = Parser::new_ext(markdown, markdown_options()).into_offset_iter();
    for (_, definition) in parser.reference_definitions().iter() {
        definition_parts(markdown, definition.span.clone(), &mut parts);
    }
    // Open links and images: their range, and the furthest end of their text so far.
    let mut open: Vec<(Range<usize>, usize, bool)> = Vec::new();
    for (event, range) in parser {
        match event {
            Event::Start(Tag::Link { link_type, .. } | Tag::Image { link_type, .. }) => {
                let autolink = matches!(link_type, LinkType::Autolink | LinkType::Email);
                // The text begins after `[` (or `![`).
                let text_start = markdown[range.clone()]
                    .find('[')
                    .map_or(range.start, |at| range.start + at + 1);
                open.push((range, text_start, autolink));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                let Some((range, text_end, autolink)) = open.pop() else {
                    continue;
                };
                if let Some(outer) = open.last_mut() {
                    outer.1 = outer.1.max(range.end);
                }
                if autolink {
                    parts.push((range, Part::Address));
                } else {
                    tail_parts(markdown, text_end, range.end, &mut parts);
                }
            }
            // A footnote's label names it and is never shown.
            Event::FootnoteReference(_) => parts.push((range, Part::Label)),
            Event::Start(Tag::FootnoteDefinition(_)) => {
                if let Some(close) = unescaped(&markdown[range.clone()], ']') {
                    parts.push((range.start..range.start + close + 1, Part::Label));
                }
            }
            _ => {
                if let Some(inner) = open.last_mut() {
                    inner.1 = inner.1.max(range.end);
                }
            }
        }
    }
    parts.sort_by_key(|(range, _)| (range.start, range.end));
    parts
}

/// The syntax after a link's text, from the `]` that closes it (at or after `from`) to
/// `end`: `(address "title")`, `[label]`, `[]` or nothing.
fn tail_parts(markdown: &str, from: usize, end: usize, parts: &mut Vec<(Range<usize>, Part)>) {
    let Some(close) = markdown.get(from..end).and_then(|t| t.find(']')) else {
        return;
    };
    let tail = from + close + 1;
    match markdown[tail..end].chars().next() {
        Some('(') => {
            if let Some(address) = address_at(markdown, tail + 1, end) {
                parts.push((address, Part::Address));
            }
        }
        Some('[') => parts.push((tail..end, Part::Label)),
        _ => {}
    }
}

/// A link reference definition `[label]: address "title"` spanning `span`.
fn definition_parts(markdown: &str, span: Range<usize>, parts: &mut Vec<(Range<usize>, Part)>) {
    let Some(text) = markdown.get(span.clone()) else {
        return;
    };
    let Some(close) = unescaped(text, ']') else {
        return;
    };
    parts.push((span.start..span.start + close + 1, Part::Label));
    let after = span.start + close + 1;
    // `]:`, then the address.
    if markdown[after..].starts_with(':')
        && let Some(address) = address_at(markdown, after + 1, span.end)
    {
        parts.push((address, Part::Address));
    }
}

/// The range of the address that begins after any whitespace at `from`, before `end`:
/// `<…>`, or a run without whitespace whose parentheses are balanced.
fn address_at(markdown: &str, from: usize, end: usize) -> Option<Range<usize>> {
    let text = markdown.get(from..end)?;
    let start = from + (text.len() - text.trim_start().len());
    let rest = &markdown[start..end];
    if rest.starts_with('<') {
        let close = unescaped(rest, '>')?;
        return Some(start..start + close + 1);
    }
    let (mut depth, mut escaped) = (0usize, false);
    for (at, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' if depth == 0 => return Some(start..start + at),
            ')' => depth -= 1,
            c if c.is_whitespace() => return Some(start..start + at),
            _ => {}
        }
    }
    Some(start..end)
}

/// The byte offset of the first `wanted` in `text` that no backslash escapes.
fn unescaped(text: &str, wanted: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == wanted {
            return Some(at);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(markdown: &str) -> Vec<(&str, Part)> {
        link_parts(markdown)
            .into_iter()
            .map(|(range, part)| (&markdown[range], part))
            .collect()
    }

    #[test]
    fn finds_addresses_and_labels_but_not_text_or_titles() {
        assert_eq!(
            parts("[a {{x}}](https://h/{{id}} \"{{t}}\") ![i](<p q.png>)"),
            [
                ("https://h/{{id}}", Part::Address),
                ("<p q.png>", Part::Address)
            ]
        );
        assert_eq!(
            parts("<https://h/{{id}}> [t][{{l}}]\n\n[{{l}}]: /u/{{v}} \"{{t}}\"\n"),
            [
                ("<https://h/{{id}}>", Part::Address),
                ("[{{l}}]", Part::Label),
                ("[{{l}}]", Part::Label),
                ("/u/{{v}}", Part::Address)
            ]
        );
        assert_eq!(
            parts("[![i](/x(1).png) c](/y)"),
            [("/x(1).png", Part::Address), ("/y", Part::Address)]
        );
        assert!(parts("[a](/b").is_empty());
        assert_eq!(
            parts("A[^{{n}}].\n\n[^{{n}}]: Note {{x}}.\n"),
            [("[^{{n}}]", Part::Label), ("[^{{n}}]", Part::Label)]
        );
    }
}
