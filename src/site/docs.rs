//! The authors' reference, generated: a ```` ```reference ```` block names a table, and
//! the table is written from the same constants the readers check against, so the
//! documentation cannot drift from what is accepted.

use crate::chart::table::escape;
use crate::directive::reference::{FIELDS, FORMATS, SETTINGS};
use crate::directive::schedule::SCHEDULE_KEYS;
use crate::directive::sweep::{PARAMETERS, SWEEP_KEYS, TOTALS};
use crate::engine::schema::{KEYS, Section};

use super::config;
use super::page::FRONT_MATTER;

/// The tables a reference block can name, with what each lists.
pub const TABLES: &[(&str, &str)] = &[
    ("scenario", "the top-level keys of a scenario"),
    ("server", "the keys under `server:`"),
    ("outage", "the keys of each entry of `server.outages`"),
    ("retry", "the keys under `retry:`"),
    ("figure", "the keys under `figure:`"),
    ("sweep", "the keys under `sweep:`"),
    ("sweep-parameters", "what a sweep can vary"),
    ("sweep-totals", "what a sweep can chart"),
    ("schedule", "the keys of a schedule directive"),
    ("live", "the keys of a live directive"),
    ("totals", "the totals an inline reference can quote"),
    ("settings", "the settings an inline reference can quote"),
    ("formats", "the formats of an inline reference"),
    ("front-matter", "the keys of a page's front matter"),
    ("site", "the keys of site.yaml"),
];

fn code(text: &str) -> String {
    format!("<code>{}</code>", escape(text))
}

/// Inline Markdown-ish text of the tables: backticks become code.
fn prose(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in escape(text).split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{part}</code>"));
        } else {
            out.push_str(part);
        }
    }
    out
}

fn table(caption: &str, heads: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut out = format!(
        "<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"{}\">\n<table class=\"reference\">\n<caption>{}</caption>\n<thead><tr>",
        escape(caption),
        escape(caption)
    );
    for h in heads {
        out.push_str(&format!("<th scope=\"col\">{h}</th>"));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i == 0 {
                out.push_str(&format!("<th scope=\"row\">{cell}</th>"));
            } else {
                // The label names the cell where a narrow screen stacks a row.
                let label = heads.get(i).copied().unwrap_or_default();
                out.push_str(&format!("<td data-label=\"{label}\">{cell}</td>"));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    out
}

fn keys_of(section: Section, caption: &str) -> String {
    let rows = KEYS
        .iter()
        .filter(|k| k.section == section)
        .map(|k| {
            vec![
                code(k.name),
                prose(k.kind),
                prose(k.default),
                prose(k.meaning),
            ]
        })
        .collect();
    table(caption, &["key", "type", "default", "meaning"], rows)
}

fn pairs(caption: &str, heads: &[&str], items: &[(&str, &str)]) -> String {
    let rows = items.iter().map(|(k, m)| vec![code(k), prose(m)]).collect();
    table(caption, heads, rows)
}

/// The HTML of the table a reference block names, or `None` for an unknown name.
pub fn table_named(name: &str) -> Option<String> {
    Some(match name {
        "scenario" => keys_of(Section::Top, "Keys of a scenario"),
        "server" => keys_of(Section::Server, "Keys under server:"),
        "outage" => keys_of(Section::Outage, "Keys of an outage"),
        "retry" => keys_of(Section::Retry, "Keys under retry:"),
        "figure" => keys_of(Section::Figure, "Keys under figure:"),
        "sweep" => pairs("Keys under sweep:", &["key", "meaning"], SWEEP_KEYS),
        "sweep-parameters" => pairs(
            "What a sweep can vary",
            &["parameter", "values"],
            PARAMETERS,
        ),
        "sweep-totals" => {
            let rows = TOTALS
                .iter()
                .map(|t| {
                    let meaning = FIELDS.iter().find(|(f, _)| f == t).map_or("", |(_, m)| m);
                    vec![code(t), prose(meaning)]
                })
                .collect();
            table("What a sweep can chart", &["total", "meaning"], rows)
        }
        "schedule" => pairs("Keys of a schedule", &["key", "meaning"], SCHEDULE_KEYS),
        "live" => pairs(
            "Keys of a live directive",
            &["key", "meaning"],
            &crate::directive::live::KEYS,
        ),
        "totals" => pairs("Totals of a strategy", &["total", "meaning"], FIELDS),
        "settings" => pairs("Settings of a scenario", &["setting", "meaning"], SETTINGS),
        "formats" => pairs("Formats", &["format", "gives"], FORMATS),
        "front-matter" => pairs("Keys of front matter", &["key", "meaning"], FRONT_MATTER),
        "site" => pairs("Keys of site.yaml", &["key", "meaning"], config::KEYS),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_table_exists_and_lists_its_keys() {
        for (name, _) in TABLES {
            assert!(table_named(name).is_some(), "{name}");
        }
        let retry = table_named("retry").unwrap();
        for key in crate::engine::schema::names(Section::Retry) {
            assert!(retry.contains(&format!("<code>{key}</code>")), "{key}");
        }
        assert!(table_named("nonsense").is_none());
    }
}
