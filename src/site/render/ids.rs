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

/// A heading's anchor: lower case, letters and digits, words joined by `-`.
pub fn slug(text: &str) -> String {
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
        assert_eq!(slug("Retry-After & deadlines!"), "retry-after-deadlines");
        assert_eq!(slug("???"), "section");
    }
}
