//! Bare addresses in the prose as links, as GitHub's autolinks extension makes them:
//! `https://…`, `http://…` and `ftp://…`, `www.…` (linked with `http://`) and e-mail
//! addresses. The `linkify` crate finds where an address ends (trailing punctuation,
//! brackets); what looks like an entity at the end (`&hl;`) is left out, as GFM says.

use linkify::{LinkFinder, LinkKind};

/// A piece of a text: plain, or an address with the target it links to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'t> {
    /// Text that is no address.
    Text(&'t str),
    /// An address: its text and the link's target.
    Link(&'t str, String),
}

/// `text` cut into plain pieces and addresses. A found address that holds `avoid` (the
/// mark of a reference, whose value is not known to be part of an address) stays text.
pub fn pieces<'t>(text: &'t str, avoid: Option<&str>) -> Vec<Piece<'t>> {
    let mut finder = LinkFinder::new();
    finder
        .url_must_have_scheme(false)
        .kinds(&[LinkKind::Url, LinkKind::Email]);
    let mut out = Vec::new();
    let mut plain = 0;
    for link in finder.links(text) {
        let found = link.as_str();
        let target = match link.kind() {
            LinkKind::Email => Some(format!("mailto:{found}")),
            LinkKind::Url => url_target(found),
            // linkify's kinds are open to more; only the two asked for are found.
            _ => None,
        };
        let Some(target) = target.filter(|_| !avoid.is_some_and(|m| found.contains(m))) else {
            continue;
        };
        let end = link.start() + entity_free(found, &text[link.end()..]);
        let (found, target) = match link.start() + found.len() - end {
            0 => (found, target),
            cut => (
                &text[link.start()..end],
                target[..target.len() - cut].to_string(),
            ),
        };
        if plain < link.start() {
            out.push(Piece::Text(&text[plain..link.start()]));
        }
        out.push(Piece::Link(found, target));
        plain = end;
    }
    if plain < text.len() || out.is_empty() {
        out.push(Piece::Text(&text[plain..]));
    }
    out
}

/// `text`, which smart punctuation made of `source` as written, cut as [`pieces`] cuts
/// `source`: an address keeps the characters its author wrote (`a--b` in an address is
/// no dash), the rest is `text`. `None` when an address does not begin and end where a
/// character of `text` does, or when `text` is not `source` with typography.
pub fn pieces_of_source<'t>(text: &'t str, source: &'t str) -> Option<Vec<Piece<'t>>> {
    let map = offsets(source, text)?;
    let at = |offset: usize| {
        map.binary_search_by_key(&offset, |&(s, _)| s)
            .ok()
            .map(|i| map[i].1)
    };
    let mut out = Vec::new();
    let mut plain = 0;
    for piece in pieces(source, None) {
        let Piece::Link(found, target) = piece else {
            continue;
        };
        // `found` is a slice of `source`: its offsets there.
        let start = found.as_ptr() as usize - source.as_ptr() as usize;
        let (from, to) = (at(start)?, at(start + found.len())?);
        if plain < from {
            out.push(Piece::Text(&text[plain..from]));
        }
        out.push(Piece::Link(found, target));
        plain = to;
    }
    if plain < text.len() || out.is_empty() {
        out.push(Piece::Text(&text[plain..]));
    }
    Some(out)
}

/// Each place in `source` where a character of `typeset` begins, with that place in
/// `typeset`, when `typeset` is `source` with smart punctuation: `---` an em dash, `--`
/// an en dash, `...` an ellipsis, quotes curly.
fn offsets(source: &str, typeset: &str) -> Option<Vec<(usize, usize)>> {
    let mut map = Vec::new();
    let (mut s, mut t) = (0, 0);
    while s < source.len() {
        map.push((s, t));
        let c = typeset[t..].chars().next()?;
        let rest = &source[s..];
        let written = match c {
            '—' if rest.starts_with("---") => 3,
            '–' if rest.starts_with("--") => 2,
            '…' if rest.starts_with("...") => 3,
            '‘' | '’' if rest.starts_with('\'') => 1,
            '“' | '”' if rest.starts_with('"') => 1,
            c if rest.starts_with(c) => c.len_utf8(),
            _ => return None,
        };
        s += written;
        t += c.len_utf8();
    }
    map.push((s, t));
    (t == typeset.len()).then_some(map)
}

/// How much of the address `found`, followed by `after`, is kept: an address followed by
/// `;` that ends in `&` and letters or digits ends before the `&` (it reads as `&hl;`).
fn entity_free(found: &str, after: &str) -> usize {
    if !after.starts_with(';') {
        return found.len();
    }
    let name = found.len()
        - found
            .trim_end_matches(|c: char| c.is_ascii_alphanumeric())
            .len();
    let amp = found.len() - name;
    match amp.checked_sub(1) {
        Some(at) if name > 0 && found[at..].starts_with('&') => at,
        _ => found.len(),
    }
}

/// The target of an address found in prose, or `None` for one GitHub does not link: a
/// scheme other than http(s) and ftp, or a bare domain without `www.`.
fn url_target(found: &str) -> Option<String> {
    let lower = found.to_ascii_lowercase();
    if ["http://", "https://", "ftp://"]
        .iter()
        .any(|s| lower.starts_with(s))
    {
        Some(found.to_string())
    } else if found.starts_with("www.") {
        Some(format!("http://{found}"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_their_targets() {
        assert_eq!(
            pieces("See www.example.com/a, https://x.org. Or a@b.io", None),
            [
                Piece::Text("See "),
                Piece::Link("www.example.com/a", "http://www.example.com/a".into()),
                Piece::Text(", "),
                Piece::Link("https://x.org", "https://x.org".into()),
                Piece::Text(". Or "),
                Piece::Link("a@b.io", "mailto:a@b.io".into()),
            ]
        );
        assert_eq!(
            pieces("example.com file://x.org", None),
            [Piece::Text("example.com file://x.org")]
        );
        assert_eq!(
            pieces("www.a.org/?q=c&hl;", None),
            [
                Piece::Link("www.a.org/?q=c", "http://www.a.org/?q=c".into()),
                Piece::Text("&hl;"),
            ]
        );
        assert_eq!(
            pieces_of_source(
                "“See” https://x.org/a–b, it’s…",
                "\"See\" https://x.org/a--b, it's..."
            ),
            Some(vec![
                Piece::Text("“See” "),
                Piece::Link("https://x.org/a--b", "https://x.org/a--b".into()),
                Piece::Text(", it’s…"),
            ])
        );
        assert_eq!(pieces_of_source("a–b", "a-b"), None);
        assert_eq!(
            pieces("https://x.org/\u{e000}", Some("\u{e000}")),
            [Piece::Text("https://x.org/\u{e000}")]
        );
    }
}
