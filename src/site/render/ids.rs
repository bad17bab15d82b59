//! The ids of one page: every heading, footnote and figure id is given once, so that an
//! anchor leads to one place and an `aria-labelledby` to one label.

use std::collections::{HashMap, HashSet};

/// The ids a page has given so far.
#[derive(Debug, Default)]
pub struct Ids {
    taken: HashSet<String>,
    /// For each base that was taken, the number to try next: a page of a hundred
    /// thousand `## Foo` stays linear.
    next: HashMap<String, usize>,
}

impl Ids {
    /// Whether `id` is taken.
    pub fn has(&self, id: &str) -> bool {
        self.taken.contains(id)
    }

    /// Takes `id` as it is; `false` when it was already taken.
    pub fn take(&mut self, id: &str) -> bool {
        self.taken.insert(id.to_string())
    }

    /// `base`, or when it is taken the first of `base-1`, `base-2`, … that is not (Hugo's
    /// rule: `## Foo`, `## Foo`, `## Foo 1` give `foo`, `foo-1`, `foo-1-1`), taken.
    pub fn unique(&mut self, base: &str) -> String {
        let id = if self.has(base) {
            let from = self.next.get(base).copied().unwrap_or(1);
            let (n, id) = (from..)
                .map(|n| (n, format!("{base}-{n}")))
                .find(|(_, id)| !self.has(id))
                .expect("a free number");
            self.next.insert(base.to_string(), n + 1);
            id
        } else {
            base.to_string()
        };
        self.taken.insert(id.clone());
        id
    }

    /// Every id given, to check anchors against.
    pub fn into_set(self) -> HashSet<String> {
        self.taken
    }
}

/// The ids written in `html` (` id="…"`, as the figures write them), to be taken before
/// any heading's.
/// A figure's SVG runs to hundreds of kilobytes, and every build looks through each
/// page's figures: the attributes are found with `memchr`'s vectorised search.
pub fn written_in(html: &str) -> impl Iterator<Item = &str> {
    const ID: &str = " id=\"";
    let mut at = memchr::memmem::find_iter(html.as_bytes(), ID).peekable();
    std::iter::from_fn(move || {
        let start = at.next()? + ID.len();
        Some(&html[start..at.peek().copied().unwrap_or(html.len())])
    })
    .filter_map(|rest| rest.split_once('"').map(|(id, _)| id))
}

/// A heading's anchor as GitHub gives it, by github-slugger 2.0.0's `slug`
/// (<https://github.com/Flet/github-slugger>, `index.js` and `regex.js`, commit 3461c43):
/// the text in lower case (JavaScript's `toLowerCase`), without every code point its
/// `regex.js` removes, each space `-`. What stays: letters, marks, decimal and letter
/// numbers, connector punctuation (`_`), anything Alphabetic, the space and `-`; what
/// goes: every other punctuation (`:`, `/`, `.`, `’`, `–`), symbols (`♥`, emoji), other
/// numbers (`²`), controls, separators other than the space (U+00A0), format and
/// private-use characters, and what Unicode 13.0 left unassigned (the table is that
/// regex's answer for each code point, [`super::slug_table`]). So `## The design:
/// os_str` is `the-design-os_str`, `## core::io` is `coreio` and `## a & b` is `a--b`.
/// A heading that keeps nothing is `section`, where GitHub gives an empty anchor.
pub fn slug(text: &str) -> String {
    let out: String = text
        .to_lowercase()
        .chars()
        .filter(|&c| !removed(c))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect();
    if out.is_empty() {
        "section".to_string()
    } else {
        out
    }
}

/// A footnote's anchor from its label: lower case, letters and digits, words joined by
/// `-` (`fn-` goes before it). Labels are no headings: GitHub writes a label's own
/// text, and a page's footnote anchors stay as they were.
pub fn plain_slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "section".to_string()
    } else {
        out
    }
}

/// Whether github-slugger removes `c` from an anchor.
fn removed(c: char) -> bool {
    use super::slug_table::REMOVED;
    // Most headings are ASCII: letters, digits, `_`, `-` and the space stay.
    if c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_') {
        return false;
    }
    let after = REMOVED.partition_point(|&(start, _)| start <= c);
    after > 0 && c <= REMOVED[after - 1].1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_id_gets_the_first_free_number() {
        let mut ids = Ids::default();
        let given: Vec<String> = ["foo", "foo", "foo-1", "foo"]
            .iter()
            .map(|b| ids.unique(b))
            .collect();
        assert_eq!(given, ["foo", "foo-1", "foo-1-1", "foo-2"]);
        assert!(!ids.take("foo-2"));
        assert!(ids.take("bar"));
        ids.take("foo-4");
        assert_eq!(ids.unique("foo"), "foo-3");
        assert_eq!(ids.unique("foo"), "foo-5");
    }

    #[test]
    fn many_equal_headings_take_linear_time() {
        let mut ids = Ids::default();
        for _ in 0..100_000 {
            ids.unique("foo");
        }
        assert_eq!(ids.unique("foo"), "foo-100000");
    }

    #[test]
    fn ids_written_in_html() {
        let html = "<figure id=\"sim-a\"><svg aria-labelledby=\"a-t\"><title id=\"a-t\">";
        assert_eq!(written_in(html).collect::<Vec<_>>(), ["sim-a", "a-t"]);
    }

    proptest::proptest! {
        /// The same ids as splitting the text at each ` id="`, on text made of the
        /// pieces of the attribute (so that near misses and overlaps are frequent).
        #[test]
        fn ids_are_those_between_the_attributes(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![" ", "i", "d", "=", "\"", "a", " id=\"", "é"]),
                0..40,
            )
        ) {
            let html = parts.concat();
            let split: Vec<&str> = html
                .split(" id=\"")
                .skip(1)
                .filter_map(|rest| rest.split_once('"').map(|(id, _)| id))
                .collect();
            proptest::prop_assert_eq!(written_in(&html).collect::<Vec<_>>(), split);
        }
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Why backoff needs jitter"), "why-backoff-needs-jitter");
        assert_eq!(slug("Retry-After & deadlines!"), "retry-after--deadlines");
        assert_eq!(slug("The design: os_str"), "the-design-os_str");
        assert_eq!(slug("core::io"), "coreio");
        assert_eq!(slug("Ünïcode Ⓐ²"), "ünïcode-ⓐ");
        assert_eq!(slug("ΟΔΟΣ"), "οδος");
        assert_eq!(slug("a\u{a0}b\tc\u{e000}d\u{200b}e"), "abcde");
        assert_eq!(slug("???"), "section");
        assert_eq!(
            plain_slug("Retry-After & deadlines!"),
            "retry-after-deadlines"
        );
        assert_eq!(plain_slug("???"), "section");
    }

    /// github-slugger's own cases, given to one page in order, as its tests give them
    /// to one slugger: every anchor is the one it expects.
    #[test]
    fn github_sluggers_fixtures() {
        let text = include_str!("../../../tests/fixtures/github-slugger/fixtures.json");
        let cases: Vec<serde_json::Value> = serde_json::from_str(text).expect("fixtures");
        assert!(cases.len() > 70);
        let mut ids = Ids::default();
        for case in cases {
            let (input, expected) = (case["input"].as_str(), case["expected"].as_str());
            let (Some(input), Some(expected)) = (input, expected) else {
                panic!("a case without input or expected: {case}");
            };
            assert_eq!(ids.unique(&slug(input)), expected, "{}", case["name"]);
        }
    }

    #[test]
    fn the_table_is_sorted_and_disjoint() {
        use super::super::slug_table::REMOVED;
        assert!(REMOVED.iter().all(|(a, b)| a <= b));
        assert!(REMOVED.windows(2).all(|w| w[0].1 < w[1].0));
        for c in [
            '!',
            '/',
            ':',
            '.',
            '\u{2019}',
            '\u{2013}',
            '\u{1F604}',
            '\u{10FFFF}',
        ] {
            assert!(removed(c), "{c:?}");
        }
        for c in [
            'a',
            '_',
            '-',
            ' ',
            'é',
            '\u{0301}',
            '\u{4F60}',
            '\u{24B6}',
            '\u{10400}',
        ] {
            assert!(!removed(c), "{c:?}");
        }
    }
}
