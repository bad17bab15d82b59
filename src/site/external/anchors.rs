//! The anchors of a page another site serves: every `id` and `name` its HTML gives an
//! element, found by a light scan of its start tags (no script is run), and which
//! fragments no such scan can judge.

use std::collections::BTreeSet;

use crate::site::render::raw_html::{self, unescape};

/// Every value of an `id` or `name` attribute of `html`'s start tags, character
/// references in them undone. Comments are skipped; the text of `<script>` and
/// `<style>` too, where a `<` starts no tag, but for HTML a script holds as a string
/// to write (`id=\"x\"`), as GitHub's pages hold a rendered file.
pub fn scan(html: &str) -> BTreeSet<String> {
    let mut found = in_strings(html);
    // A browser goes to any element's `id`, and to the `name` of an `<a>` alone.
    let anchors = raw_html::outside_raw_text(html)
        .into_iter()
        .filter(|a| a.name == "id" || (a.tag == "a" && a.name == "name"));
    found.extend(anchors.map(|a| a.value()));
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
