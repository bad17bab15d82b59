//! Footnotes as GitHub renders them: each reference a number in order over the whole
//! page, the notes collected at its end, each with a way back to every reference.
//!
//! A definition that no reference uses is left out, and a reference to a label that no
//! definition has stays text (`[^label]`), as on GitHub.

use std::collections::BTreeMap;

use super::ids::{Ids, plain_slug};
use crate::chart::table::escape;

/// A footnote label as references match it: case and runs of spaces do not count.
pub fn key(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One footnote's ids.
#[derive(Debug)]
struct Note {
    /// The note's id (`fn-label`).
    id: String,
    /// Each reference's id, in the order the references are read.
    refs: Vec<String>,
    /// Its number, once a reference has been read.
    number: Option<usize>,
    /// How many of its references have been written.
    written: usize,
}

/// The footnotes of one page.
#[derive(Debug, Default)]
pub struct Footnotes {
    notes: BTreeMap<String, Note>,
    /// The labels by number: the order of the list at the page's end.
    order: Vec<String>,
    /// The id of the list's heading, which references name as their description.
    label_id: String,
}

impl Footnotes {
    /// Gives ids to the notes whose labels are `defined` (in the order of the page), each
    /// with `uses[label]` references; the ids avoid those `ids` has.
    pub fn new(defined: &[String], uses: &BTreeMap<String, usize>, ids: &mut Ids) -> Self {
        let mut notes = BTreeMap::new();
        for label in defined {
            let Some(&count) = uses.get(label) else {
                continue;
            };
            if notes.contains_key(label) {
                continue;
            }
            let id = ids.unique(&format!("fn-{}", plain_slug(label)));
            let suffix = &id["fn-".len()..];
            let refs = (1..=count)
                .map(|n| match n {
                    1 => ids.unique(&format!("fnref-{suffix}")),
                    n => ids.unique(&format!("fnref-{suffix}-{n}")),
                })
                .collect();
            notes.insert(
                label.clone(),
                Note {
                    id,
                    refs,
                    number: None,
                    written: 0,
                },
            );
        }
        let label_id = if notes.is_empty() {
            String::new()
        } else {
            ids.unique("footnote-label")
        };
        Footnotes {
            notes,
            order: Vec::new(),
            label_id,
        }
    }

    /// Whether a note has the label `key`.
    pub fn has(&self, key: &str) -> bool {
        self.notes.contains_key(key)
    }

    /// The HTML of a reference to the note `key`, which must exist: its number is the next
    /// one the first time the note is referred to.
    pub fn reference(&mut self, key: &str) -> String {
        let next = self.order.len() + 1;
        let note = self.notes.get_mut(key).expect("a note with this label");
        let number = match note.number {
            Some(n) => n,
            None => {
                note.number = Some(next);
                self.order.push(key.to_string());
                next
            }
        };
        // The plan counted every reference of the page, so each has an id of its own.
        let at = note.written.min(note.refs.len().saturating_sub(1));
        note.written += 1;
        let id = note.refs.get(at).map(String::as_str).unwrap_or_default();
        format!(
            "<sup class=\"footnote-ref\"><a href=\"#{}\" id=\"{}\" data-footnote-ref \
             aria-describedby=\"{}\">{number}</a></sup>",
            escape(&note.id),
            escape(id),
            escape(&self.label_id)
        )
    }

    /// The label of the `n`th note (from 0) in the list, once it has been referred to.
    pub fn nth(&self, n: usize) -> Option<&str> {
        self.order.get(n).map(String::as_str)
    }

    /// The opening of the list at the page's end.
    pub fn open(&self) -> String {
        format!(
            "<section class=\"footnotes\" data-footnotes>\n<h2 id=\"{}\" class=\"visually-hidden\">\
             Footnotes</h2>\n<ol>\n",
            escape(&self.label_id)
        )
    }

    /// The opening of the note `key`'s item.
    pub fn item(&self, key: &str) -> String {
        let note = &self.notes[key];
        format!("<li id=\"{}\">\n", escape(&note.id))
    }

    /// The links back from the note `key` to each of its references.
    pub fn back_links(&self, key: &str) -> String {
        let note = &self.notes[key];
        let number = note.number.unwrap_or_default();
        let written = note.refs.iter().take(note.written.max(1));
        written
            .enumerate()
            .map(|(i, id)| {
                let (idx, more) = match i {
                    0 => (number.to_string(), String::new()),
                    i => (
                        format!("{number}-{}", i + 1),
                        format!("<sup class=\"footnote-ref\">{}</sup>", i + 1),
                    ),
                };
                format!(
                    "<a href=\"#{}\" class=\"footnote-backref\" data-footnote-backref \
                     data-footnote-backref-idx=\"{idx}\" aria-label=\"Back to reference {idx}\">↩{more}</a>",
                    escape(id)
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The end of the list.
    pub fn close() -> &'static str {
        "</ol>\n</section>\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_match_without_case_or_extra_spaces() {
        assert_eq!(key("My  Note"), "my note");
    }

    #[test]
    fn a_note_referred_to_twice_has_two_ways_back() {
        let mut ids = Ids::default();
        ids.take("fn-a");
        let uses = BTreeMap::from([("a".to_string(), 2), ("b".to_string(), 1)]);
        let mut notes = Footnotes::new(&["a".into(), "b".into(), "c".into()], &uses, &mut ids);
        assert!(!notes.has("c"));
        assert!(notes.reference("b").contains(">1</a>"));
        let first = notes.reference("a");
        assert!(
            first.contains("href=\"#fn-a-1\" id=\"fnref-a-1\""),
            "{first}"
        );
        assert!(notes.reference("a").contains("id=\"fnref-a-1-2\""));
        assert_eq!(notes.nth(1), Some("a"));
        let back = notes.back_links("a");
        assert!(back.contains("href=\"#fnref-a-1-2\""), "{back}");
        assert!(
            back.contains("↩<sup class=\"footnote-ref\">2</sup>"),
            "{back}"
        );
    }
}
