//! The anchors of a page another site serves: every `id` and `name` its HTML gives an
//! element, found by a light scan of its start tags (no script is run), and which
//! fragments no such scan can judge.

use std::collections::BTreeSet;

/// Every value of an `id` or `name` attribute of `html`'s start tags, character
/// references in them undone. Comments are skipped; the text of `<script>` and
/// `<style>` too, where a `<` starts no tag, but for HTML a script holds as a string
/// to write (`id=\"x\"`), as GitHub's pages hold a rendered file.
pub fn scan(html: &str) -> BTreeSet<String> {
    let mut found = in_strings(html);
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'<', &bytes[i..]) {
        i += at + 1;
        if bytes[i..].starts_with(b"!--") {
            i += find(&bytes[i..], b"-->").map_or(bytes.len() - i, |end| end + 3);
            continue;
        }
        if !bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_end = i + bytes[i..]
            .iter()
            .position(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
            .unwrap_or(bytes.len() - i);
        let name = html[i..name_end].to_ascii_lowercase();
        // A browser goes to any element's `id`, and to the `name` of an `<a>` alone.
        i = attributes(html, name_end, name == "a", &mut found);
        if name == "script" || name == "style" {
            let close = format!("</{name}");
            i += find_ignoring_case(&bytes[i..], close.as_bytes()).unwrap_or(bytes.len() - i);
        }
    }
    found
}

/// The values of `id=\"…\"` and `name=\"…\"` in `text`: attributes of HTML written as a
/// string of a script or of JSON, its quotes escaped.
fn in_strings(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for key in ["id=\\\"", "name=\\\""] {
        for at in memchr::memmem::find_iter(text.as_bytes(), key.as_bytes()) {
            let start = at + key.len();
            // The name starts the attribute: `data-id=\"` is another.
            let before = text.as_bytes().get(at.wrapping_sub(1));
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_') {
                continue;
            }
            let Some(end) = text[start..].find("\\\"") else {
                continue;
            };
            let value = &text[start..start + end];
            if value.len() <= 256 && !value.contains('\\') {
                found.insert(unescape(value));
            }
        }
    }
    found
}

/// Reads the attributes of a start tag from `at` to its `>`, adding the values of `id`
/// (and of `name`, for an `<a>`: `anchor`) to `found`; returns where the tag ends.
fn attributes(html: &str, mut at: usize, anchor: bool, found: &mut BTreeSet<String>) -> usize {
    let bytes = html.as_bytes();
    loop {
        while bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
        {
            at += 1;
        }
        if at >= bytes.len() || bytes[at] == b'>' {
            return (at + 1).min(bytes.len());
        }
        let key_end = at
            + bytes[at..]
                .iter()
                .position(|b| b.is_ascii_whitespace() || *b == b'=' || *b == b'>')
                .unwrap_or(bytes.len() - at);
        let key = html[at..key_end].to_ascii_lowercase();
        at = key_end;
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        if bytes.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let (start, end, next) = match bytes.get(at) {
            Some(&quote @ (b'"' | b'\'')) => {
                let end =
                    memchr::memchr(quote, &bytes[at + 1..]).map_or(bytes.len(), |e| at + 1 + e);
                (at + 1, end, (end + 1).min(bytes.len()))
            }
            _ => {
                let end = at
                    + bytes[at..]
                        .iter()
                        .position(|b| b.is_ascii_whitespace() || *b == b'>')
                        .unwrap_or(bytes.len() - at);
                (at, end, end)
            }
        };
        if key == "id" || (anchor && key == "name") {
            // The bounds are ASCII bytes of a `str`, so on characters.
            found.insert(unescape(&html[start..end]));
        }
        at = next;
    }
}

/// Where `needle` first is in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// Where `needle` (lower case) first is in `haystack`, in any letter case.
fn find_ignoring_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// An attribute's value with its character references undone: the named ones an
/// anchor holds in practice, and every numeric one.
fn unescape(value: &str) -> String {
    if !value.contains('&') {
        return value.to_string();
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e <= 12);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#')?.parse().ok())
                    .and_then(char::from_u32),
            }?;
            Some((c, e + 1))
        });
        match decoded {
            Some((c, length)) => {
                out.push(c);
                rest = &rest[length..];
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

/// Whether a fragment of `url` is one no scan of the page can judge, so is not checked:
/// an empty one or `top` (the top of any page), a text fragment (`#:~:text=…`), and
/// GitHub's line anchors on a file (`#L10`, `#L10-L20`), which its script makes.
pub fn unjudged(host: &str, path: &str, fragment: &str) -> bool {
    if fragment.is_empty() || fragment.eq_ignore_ascii_case("top") || fragment.contains(":~:") {
        return true;
    }
    let github = host.eq_ignore_ascii_case("github.com") && path.contains("/blob/");
    github && is_line_anchor(fragment)
}

/// `L10`, `L10-L20`, `L10C2-L20C5`: GitHub's anchors of lines.
fn is_line_anchor(fragment: &str) -> bool {
    let line = |part: &str| {
        let Some(rest) = part.strip_prefix('L') else {
            return false;
        };
        let (number, column) = rest.split_once('C').unwrap_or((rest, "1"));
        [number, column]
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    match fragment.split_once('-') {
        Some((first, last)) => line(first) && line(last),
        None => line(fragment),
    }
}

/// The ids a host's script gives beside those of its HTML: GitHub prefixes the ids of a
/// rendered README's headings with `user-content-`, and its script leads `#x` there.
pub fn also_as(host: &str, fragment: &str) -> Option<String> {
    host.eq_ignore_ascii_case("github.com")
        .then(|| format!("user-content-{fragment}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_of_start_tags() {
        let html = "<!-- <a id=\"no\"> --><h2 id=\"why-jitter\">x</h2><A NAME=old>\
                    <p class='a' id = 'caf&eacute;&#233;&amp;'>\
                    <script>if (a<b) { x = '<p id=\"in-script\">' }</script>\
                    <div data-id=\"no\" id=last><input disabled id=\"end\"";
        let found: Vec<String> = scan(html).into_iter().collect();
        assert_eq!(found, ["caf&eacute;é&", "end", "last", "old", "why-jitter"]);
        // HTML a script holds as a string, as GitHub's pages hold a rendered file.
        let page = "<script type=\"application/json\">{\"html\":\"<h2 id=\\\"user-content-pushback\\\">\
                    <a data-id=\\\"no\\\">\"}</script>";
        assert_eq!(
            scan(page).into_iter().collect::<Vec<_>>(),
            ["user-content-pushback"]
        );
        // Garbage is no panic.
        for junk in [
            "<",
            "<a",
            "<a id",
            "<a id=",
            "<a id='x",
            "&#xffffffff;",
            "<\u{e9}",
        ] {
            let _ = scan(junk);
        }
    }

    #[test]
    fn fragments_a_script_makes_are_not_judged() {
        let blob = "/boto/botocore/blob/1.0/x.py";
        for fragment in ["L10", "L10-L20", "L1C2-L3C4"] {
            assert!(unjudged("github.com", blob, fragment), "{fragment}");
            assert!(!unjudged("example.org", blob, fragment), "{fragment}");
        }
        assert!(!unjudged("github.com", blob, "Lx"));
        assert!(unjudged("a.org", "/", ":~:text=retry"));
        assert!(unjudged("a.org", "/", "top") && unjudged("a.org", "/", ""));
        assert!(!unjudged("a.org", "/", "section-1"));
    }
}
