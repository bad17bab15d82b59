//! The attributes of the HTML written in a page (`<a id="x">`, `<img src="pic.png">`):
//! its `id` and `name` are anchors of the page, its `href` and `src` are links, checked
//! and resolved as Markdown's are.
//!
//! The reading is a tolerant one, after the tokenizer of the HTML standard (§ 13.2.5,
//! "Tag open state" to "Attribute value (unquoted) state"): a tag is `<` and a letter,
//! its attributes run to `>` (quotes kept whole), comments are skipped; a tag that never
//! closes ends with the text. It is linear in the length of the text, whatever it holds.

use std::ops::Range;

/// One attribute of a start tag, with a value.
#[derive(Debug, PartialEq, Eq)]
pub struct Attribute<'h> {
    /// The tag's name, in lower case.
    pub tag: String,
    /// The attribute's name, in lower case.
    pub name: String,
    /// The value as written, entities and all.
    pub raw: &'h str,
    /// Where the value stands in the text (inside its quotes).
    pub range: Range<usize>,
}

impl Attribute<'_> {
    /// The value as a browser reads it: its character references replaced.
    pub fn value(&self) -> String {
        unescape(self.raw)
    }
}

/// Every attribute with a value of every start tag in `html`, in order.
pub fn attributes(html: &str) -> Vec<Attribute<'_>> {
    read(html, false)
}

/// [`attributes`] of a whole page as a browser reads it: the text of a `<script>` or a
/// `<style>`, where a `<` starts no tag, is skipped to its end tag.
pub fn outside_raw_text(html: &str) -> Vec<Attribute<'_>> {
    read(html, true)
}

/// Every attribute of `html`, the text of scripts and styles skipped when
/// `skip_raw_text`.
fn read(html: &str, skip_raw_text: bool) -> Vec<Attribute<'_>> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'<', &bytes[i..]) {
        i += at + 1;
        if html[i..].starts_with("!--") {
            i = memchr::memmem::find(&bytes[i + 3..], b"-->")
                .map_or(bytes.len(), |e| i + 3 + e + 3);
            continue;
        }
        if !bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_end = end_of_name(bytes, i);
        let tag = html[i..name_end].to_ascii_lowercase();
        i = name_end;
        loop {
            while bytes
                .get(i)
                .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/')
            {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] == b'>' {
                break;
            }
            // A name runs to a space, `/`, `>` or `=` (an `=` first is part of it).
            let key_start = i;
            i += 1;
            while bytes
                .get(i)
                .is_some_and(|&b| !b.is_ascii_whitespace() && !matches!(b, b'/' | b'>' | b'='))
            {
                i += 1;
            }
            let key = &html[key_start..i];
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            if bytes.get(i) != Some(&b'=') {
                continue;
            }
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            let range = match bytes.get(i) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let start = i + 1;
                    let end =
                        memchr::memchr(quote, &bytes[start..]).map_or(bytes.len(), |e| start + e);
                    i = (end + 1).min(bytes.len());
                    start..end
                }
                Some(_) => {
                    let start = i;
                    while bytes
                        .get(i)
                        .is_some_and(|&b| !b.is_ascii_whitespace() && b != b'>')
                    {
                        i += 1;
                    }
                    start..i
                }
                None => break,
            };
            out.push(Attribute {
                tag: tag.clone(),
                name: key.to_ascii_lowercase(),
                raw: &html[range.clone()],
                range,
            });
        }
        if skip_raw_text && (tag == "script" || tag == "style") {
            let close = format!("</{tag}");
            i += (bytes[i..].windows(close.len()))
                .position(|w| w.eq_ignore_ascii_case(close.as_bytes()))
                .unwrap_or(bytes.len() - i);
        }
    }
    out
}

/// Where a tag's name that starts at `start` ends.
fn end_of_name(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while bytes
        .get(i)
        .is_some_and(|&b| !b.is_ascii_whitespace() && b != b'/' && b != b'>')
    {
        i += 1;
    }
    i
}

/// `text` with its character references replaced: the numeric ones and the few named
/// ones that addresses and ids hold (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`);
/// anything else stays as written.
pub fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(semi) = rest[..rest.len().min(12)].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let number = |digits: &str, radix| {
            u32::from_str_radix(digits, radix)
                .ok()
                .and_then(char::from_u32)
                .filter(|c| *c != '\0')
        };
        let c = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => match name.strip_prefix('#') {
                Some(hex) if hex.starts_with(['x', 'X']) => number(&hex[1..], 16),
                Some(decimal) => number(decimal, 10),
                None => None,
            },
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(html: &str) -> Vec<(String, String, String)> {
        attributes(html)
            .into_iter()
            .map(|a| (a.tag.clone(), a.name.clone(), a.value()))
            .collect()
    }

    fn t(tag: &str, name: &str, value: &str) -> (String, String, String) {
        (tag.into(), name.into(), value.into())
    }

    #[test]
    fn attributes_in_every_quoting() {
        assert_eq!(
            found("<a id=\"x\" name='y z' href=a.md>t</a><IMG SRC = \"p&amp;q.png\"/>"),
            [
                t("a", "id", "x"),
                t("a", "name", "y z"),
                t("a", "href", "a.md"),
                t("img", "src", "p&q.png"),
            ]
        );
        let html = "<p title=\"a > b\" hidden class=c>";
        let a = attributes(html);
        assert_eq!(&html[a[0].range.clone()], "a > b");
        assert_eq!(a[1].name, "class");
    }

    #[test]
    fn comments_text_and_broken_tags_give_nothing_false() {
        assert_eq!(
            found("<!-- <a id=\"no\"> --><a id=yes>"),
            [t("a", "id", "yes")]
        );
        assert_eq!(found("1 < 2 <3 <> </a id=x>"), []);
        assert_eq!(found("<!-- never closed <a id=x>"), []);
        assert_eq!(
            found("<a id=\"never closed"),
            [t("a", "id", "never closed")]
        );
        assert_eq!(found("<a id="), []);
        assert_eq!(found("<a =x id=y"), [t("a", "id", "y")]);
        assert_eq!(
            found("<\u{e9} id=x><a\u{0} id=\u{fffd}>"),
            [t("a\u{0}", "id", "\u{fffd}")]
        );
    }

    #[test]
    fn references_are_replaced_where_they_are_whole() {
        assert_eq!(
            unescape("a&amp;b&#35;c&#x41;&bogus;&#0;&#xFFFFFFFF;&"),
            "a&b#cA&bogus;&#0;&#xFFFFFFFF;&"
        );
    }

    #[test]
    fn a_huge_attribute_is_read_in_linear_time() {
        let html = format!(
            "<a id=\"{}\" href='{}'>",
            "x".repeat(1 << 20),
            "<".repeat(1 << 20)
        );
        let a = attributes(&html);
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].raw.len(), 1 << 20);
        let many = "<a ".repeat(200_000);
        assert!(attributes(&many).is_empty());
    }
}
