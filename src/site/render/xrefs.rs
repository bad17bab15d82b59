//! Numbered figures and tables, and the cross-references that name them:
//! `[@fig-crowd]` is written "Figure 2", linked to the figure of the scenario `crowd`,
//! and `[@tbl-crowd]` "Table 1", linked to its results table, as Quarto writes
//! `@fig-crowd`.
//!
//! A page numbers its figures and its tables apart, each in the order they stand: every
//! directive's figure (a scenario's, a sweep's, a schedule's, a live run's), and every
//! image an author names as a figure (`![…](pic.png){#fig-name}`, alone in its
//! paragraph); a scenario's results table is a table too. The number leads its caption
//! ("Figure 2: …"), so that the reader finds the figure a sentence names.

use std::collections::BTreeMap;

use crate::chart::table::escape;

/// What a cross-reference names: a figure, or a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `fig-…`: a figure.
    Figure,
    /// `tbl-…`: a table.
    Table,
}

impl Kind {
    /// The kind a name is of, by its prefix: `fig-` or `tbl-`.
    pub fn of(name: &str) -> Option<Kind> {
        if name.starts_with("fig-") {
            Some(Kind::Figure)
        } else if name.starts_with("tbl-") {
            Some(Kind::Table)
        } else {
            None
        }
    }

    /// Its word: "Figure", "Table".
    pub fn word(self) -> &'static str {
        match self {
            Kind::Figure => "Figure",
            Kind::Table => "Table",
        }
    }
}

/// Whether a citation's key is a cross-reference's name rather than a source's.
pub fn is_name(key: &str) -> bool {
    Kind::of(key).is_some()
}

/// A figure or a table of a page, numbered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Numbered {
    /// The byte offset in the body of what it is: a directive's fenced block, or an
    /// image's paragraph.
    pub at: usize,
    /// The name a cross-reference gives it: `fig-crowd`, `tbl-crowd`.
    pub name: String,
    /// The id of the element a cross-reference leads to: a figure's `<figure>`, a
    /// table's `<caption>`.
    pub anchor: String,
    /// Its number among the page's figures, or among its tables, from 1.
    pub number: usize,
}

impl Numbered {
    /// What it is.
    pub fn kind(&self) -> Kind {
        Kind::of(&self.name).unwrap_or(Kind::Figure)
    }

    /// Its label: "Figure 2".
    pub fn label(&self) -> String {
        format!("{} {}", self.kind().word(), self.number)
    }
}

/// A figure or a table before it is numbered: its place (as [`Numbered::at`]), the name
/// a cross-reference gives it and its anchor.
pub type Named = (usize, String, String);

/// Numbers `found` (in any order) in the order of their places: figures and tables
/// apart.
pub fn number(mut found: Vec<Named>) -> Vec<Numbered> {
    found.sort_by_key(|(at, name, _)| (*at, Kind::of(name)));
    let mut counts: BTreeMap<Option<Kind>, usize> = BTreeMap::new();
    found
        .into_iter()
        .map(|(at, name, anchor)| {
            let count = counts.entry(Kind::of(&name)).or_default();
            *count += 1;
            Numbered {
                at,
                name,
                anchor,
                number: *count,
            }
        })
        .collect()
}

/// `html`, a directive's figure as drawn, with the numbers of `numbered` (those of the
/// block) leading the captions they number: a figure's `<figcaption>`, a results
/// table's `<caption id="{anchor}">`.
pub fn label_figure(html: &str, numbered: &[&Numbered]) -> String {
    let mut html = html.to_string();
    for n in numbered {
        let open = match n.kind() {
            Kind::Figure => "<figcaption>".to_string(),
            Kind::Table => format!("<caption id=\"{}\">", escape(&n.anchor)),
        };
        if let Some(at) = html.find(&open) {
            html.insert_str(at + open.len(), &number_html(n));
        }
    }
    html
}

/// The number that leads a caption: `<span class="caption-number">Figure 2:</span> `.
pub fn number_html(n: &Numbered) -> String {
    format!("<span class=\"caption-number\">{}:</span> ", n.label())
}

/// A cross-reference's HTML: each name's label, linked to what it names, the words
/// shared where they can be ("Figures 1 and 2"). Every name is one of `numbered`.
pub fn html(names: &[String], numbered: &BTreeMap<String, Numbered>) -> String {
    let named: Vec<&Numbered> = names.iter().filter_map(|n| numbered.get(n)).collect();
    let link = |n: &Numbered, text: String| {
        format!(
            "<a class=\"xref\" href=\"#{}\">{}</a>",
            escape(&n.anchor),
            text
        )
    };
    let one_kind = named.windows(2).all(|w| w[0].kind() == w[1].kind());
    let parts: Vec<String> = match (named.first(), one_kind && named.len() > 1) {
        (Some(first), true) => {
            let numbers: Vec<String> = named
                .iter()
                .map(|n| link(n, n.number.to_string()))
                .collect();
            return format!("{}s {}", first.kind().word(), and_list(&numbers));
        }
        _ => named.iter().map(|n| link(n, n.label())).collect(),
    };
    and_list(&parts)
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_and_tables_are_numbered_apart_in_page_order() {
        let found = vec![
            (90, "fig-b".to_string(), "sim-b".to_string()),
            (10, "tbl-a".to_string(), "a-results-caption".to_string()),
            (10, "fig-a".to_string(), "sim-a".to_string()),
            (50, "fig-pic".to_string(), "fig-pic".to_string()),
            (90, "tbl-b".to_string(), "b-results-caption".to_string()),
        ];
        let labels: Vec<(String, String)> = number(found)
            .iter()
            .map(|n| (n.name.clone(), n.label()))
            .collect();
        let expected = [
            ("fig-a", "Figure 1"),
            ("tbl-a", "Table 1"),
            ("fig-pic", "Figure 2"),
            ("fig-b", "Figure 3"),
            ("tbl-b", "Table 2"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(labels, expected);
    }

    #[test]
    fn references_share_their_word() {
        let numbered: BTreeMap<String, Numbered> = number(vec![
            (1, "fig-a".into(), "sim-a".into()),
            (2, "fig-b".into(), "sim-b".into()),
            (3, "fig-c".into(), "sim-c".into()),
            (1, "tbl-a".into(), "a-results-caption".into()),
        ])
        .into_iter()
        .map(|n| (n.name.clone(), n))
        .collect();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            html(&names(&["fig-b"]), &numbered),
            "<a class=\"xref\" href=\"#sim-b\">Figure 2</a>"
        );
        assert_eq!(
            html(&names(&["fig-a", "fig-b", "fig-c"]), &numbered),
            "Figures <a class=\"xref\" href=\"#sim-a\">1</a>, \
             <a class=\"xref\" href=\"#sim-b\">2</a> and <a class=\"xref\" href=\"#sim-c\">3</a>"
        );
        assert_eq!(
            html(&names(&["fig-a", "tbl-a"]), &numbered),
            "<a class=\"xref\" href=\"#sim-a\">Figure 1</a> and \
             <a class=\"xref\" href=\"#a-results-caption\">Table 1</a>"
        );
    }

    #[test]
    fn captions_are_led_by_their_numbers() {
        let numbered = number(vec![
            (1, "fig-a".into(), "sim-a".into()),
            (1, "tbl-a".into(), "a-results-caption".into()),
        ]);
        let drawn = "<figure id=\"sim-a\"><svg></svg><figcaption>Waits</figcaption></figure>\
                     <table><caption id=\"a-results-caption\">Results of a</caption></table>";
        let all: Vec<&Numbered> = numbered.iter().collect();
        assert_eq!(
            label_figure(drawn, &all),
            "<figure id=\"sim-a\"><svg></svg><figcaption>\
             <span class=\"caption-number\">Figure 1:</span> Waits</figcaption></figure>\
             <table><caption id=\"a-results-caption\">\
             <span class=\"caption-number\">Table 1:</span> Results of a</caption></table>"
        );
    }
}
