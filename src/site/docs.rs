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
    ("arrivals", "the keys of each window of `arrivals`"),
    ("server", "the keys under `server:`"),
    ("outage", "the keys of each entry of `server.outages`"),
    ("slowdown", "the keys of each entry of `server.slowdowns`"),
    ("override", "the keys of each entry of `server.overrides`"),
    ("queue", "the keys under `server.queue:`"),
    ("cache", "the keys under `server.cache:`"),
    ("retry-after", "the keys under `server.retry_after:`"),
    ("pushback", "the keys under `server.pushback:`"),
    ("retry", "the keys under `retry:`"),
    ("budget", "the keys of a `retry.budget` map, for each kind"),
    ("breaker", "the keys under `retry.breaker:`"),
    ("throttle", "the keys under `retry.throttle:`"),
    ("hedging", "the keys under `retry.hedging:`"),
    ("layer", "the keys of each entry of `layers`"),
    (
        "strategies",
        "every strategy: the six of the model and the libraries' defaults, with their sources",
    ),
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

/// The reference table of a section of the scenario format: every section has one.
pub fn table_of(section: Section) -> &'static str {
    match section {
        Section::Top => "scenario",
        Section::Arrivals => "arrivals",
        Section::Server => "server",
        Section::Outage => "outage",
        Section::Slowdown => "slowdown",
        Section::Override => "override",
        Section::Queue => "queue",
        Section::RetryAfter => "retry-after",
        Section::Pushback => "pushback",
        Section::Cache => "cache",
        Section::Retry => "retry",
        Section::Budget => "budget",
        Section::Breaker => "breaker",
        Section::Throttle => "throttle",
        Section::Hedging => "hedging",
        Section::Layer => "layer",
        Section::Figure => "figure",
    }
}

fn code(text: &str) -> String {
    format!("<code>{}</code>", escape(text))
}

/// Inline Markdown-ish text of the tables: backticks become code, and a library's
/// source written after the last `: ` or in closing parentheses is linked
/// ([`source_links`]).
fn prose(text: &str) -> String {
    if let Some((before, tail)) = text.rsplit_once(": ")
        && let Some(links) = source_links(tail)
    {
        return format!("{}: {links}", plain(before));
    }
    if let Some(open) = text.rfind(" (")
        && let Some(inner) = text[open + 2..].strip_suffix(')')
        && let Some(links) = source_links(inner)
    {
        return format!("{} ({links})", plain(&text[..open]));
    }
    plain(text)
}

/// One file of a library's source, as [`source_files`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile<'a> {
    /// The repository, `owner/name`, when named before this file (`owner/name@tag path`).
    pub named: Option<&'a str>,
    /// The repository on GitHub, `owner/name`.
    pub repository: &'a str,
    /// The tag or commit.
    pub version: &'a str,
    /// The file's path.
    pub path: &'a str,
    /// The lines cited.
    pub lines: Vec<super::sources::Lines>,
}

/// The files of a library's source as [`crate::engine::library::Source::source`] writes
/// them (`owner/name@tag path:lines, lines; path:lines`): a repository named again where
/// the next file is in another. `None` for text not so written.
pub fn source_files(text: &str) -> Option<Vec<SourceFile<'_>>> {
    let mut repository: Option<(&str, &str)> = None;
    let mut files = Vec::new();
    for segment in text.split(';') {
        let mut segment = segment.trim();
        let mut named = None;
        if let Some((head, rest)) = segment.split_once(' ')
            && let Some((name, version)) = head.split_once('@')
        {
            repository = Some((name, version));
            named = Some(head);
            segment = rest;
        }
        let (name, version) = repository?;
        let (path, lines) = segment.rsplit_once(':')?;
        if path.is_empty() || path.contains(char::is_whitespace) || path.starts_with('.') {
            return None;
        }
        files.push(SourceFile {
            named,
            repository: name,
            version,
            path,
            lines: super::sources::parse_lines(lines)?,
        });
    }
    Some(files)
}

/// [`source_files`] as HTML: each file linked at its tag, and each range of lines to its
/// lines.
pub fn source_links(text: &str) -> Option<String> {
    use super::sources::permalink;
    let files = source_files(text)?;
    let html: Vec<String> = files
        .iter()
        .map(|f| {
            let whole = permalink(f.repository, f.version, f.path, None);
            let each: Vec<String> = (f.lines.iter())
                .map(|&l| {
                    let address = permalink(f.repository, f.version, f.path, Some(l));
                    format!("<a href=\"{}\">{}</a>", escape(&address), l.shown())
                })
                .collect();
            format!(
                "{}<a href=\"{}\"><code>{}</code></a>:{}",
                f.named
                    .map(|n| format!("{} ", escape(n)))
                    .unwrap_or_default(),
                escape(&whole),
                escape(f.path),
                each.join(", ")
            )
        })
        .collect();
    Some(html.join("; "))
}

/// Inline Markdown-ish text: backticks become code.
fn plain(text: &str) -> String {
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

/// A reference table as text: its caption, its column heads, and its rows, each a
/// name (the first cell) and cells of Markdown-ish text, where backticks mark code.
pub struct Table {
    /// What the table lists, as its caption says.
    pub caption: &'static str,
    /// The heads of its columns.
    pub heads: &'static [&'static str],
    /// Its rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as the site shows it.
    pub fn html(&self) -> String {
        let (caption, heads) = (self.caption, self.heads);
        let mut out = format!(
            "<div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"{}\">\n<table class=\"reference\">\n<caption>{}</caption>\n<thead><tr>",
            escape(caption),
            escape(caption)
        );
        for h in heads {
            out.push_str(&format!("<th scope=\"col\">{h}</th>"));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                if i == 0 {
                    out.push_str(&format!("<th scope=\"row\">{}</th>", code(cell)));
                } else {
                    // The label names the cell where a narrow screen stacks a row.
                    let label = heads.get(i).copied().unwrap_or_default();
                    out.push_str(&format!("<td data-label=\"{label}\">{}</td>", prose(cell)));
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n</div>\n");
        out
    }

    /// The table as Markdown (GitHub's tables), as `retrylab keys` prints it.
    pub fn markdown(&self) -> String {
        let cell = |text: &str| text.replace('|', "\\|");
        let mut out = format!("{}\n\n| {} |\n|", self.caption, self.heads.join(" | "));
        out.push_str(&"---|".repeat(self.heads.len()));
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for (i, text) in row.iter().enumerate() {
                match i {
                    0 => out.push_str(&format!(" `{}` |", cell(text))),
                    _ => out.push_str(&format!(" {} |", cell(text))),
                }
            }
            out.push('\n');
        }
        out
    }
}

fn keys_of(section: Section, caption: &'static str) -> Table {
    let rows = KEYS
        .iter()
        .filter(|k| k.section == section)
        .map(|k| {
            vec![
                k.name.to_string(),
                k.kind.to_string(),
                k.default.to_string(),
                k.meaning.to_string(),
            ]
        })
        .collect();
    Table {
        caption,
        heads: &["key", "type", "default", "meaning"],
        rows,
    }
}

fn pairs(caption: &'static str, heads: &'static [&'static str], items: &[(&str, &str)]) -> Table {
    let rows = items
        .iter()
        .map(|(k, m)| vec![k.to_string(), m.to_string()])
        .collect();
    Table {
        caption,
        heads,
        rows,
    }
}

/// Every strategy: the model's six take their settings from `retry:`; each library's
/// are its defaults, with where they were read.
fn strategies() -> Table {
    use crate::engine::Strategy;
    use crate::engine::library::RetryAfter;
    let own = |key: &str| format!("`retry.{key}`");
    let rows = Strategy::ALL
        .iter()
        .map(|&s| match s.library() {
            None => vec![
                s.name().to_string(),
                GENERIC_WAITS
                    .iter()
                    .find(|(n, _)| *n == s.name())
                    .map_or("", |(_, w)| w)
                    .to_string(),
                own("max_attempts"),
                own("deadline"),
                own("budget"),
                own("honor_retry_after"),
                "the model".to_string(),
            ],
            Some(l) => {
                let duration = crate::format::duration;
                vec![
                    s.name().to_string(),
                    l.waits(),
                    l.max_attempts
                        .map_or("no limit".to_string(), |n| n.to_string()),
                    l.deadline.map_or("none".to_string(), duration),
                    l.budget.map_or("none".to_string(), |b| {
                        format!("`{}` ({})", b.name(), crate::engine::library::settings(&b))
                    }),
                    match l.retry_after {
                        RetryAfter::Ignored => l.source().retry_after.unwrap_or("ignored"),
                        RetryAfter::Honoured => "waited for",
                        RetryAfter::Required => "only a refusal with it is retried, after it",
                    }
                    .to_string(),
                    {
                        let source = l.source();
                        format!(
                            "{} {}, {}: {}",
                            source.library, source.version, source.default, source.source
                        )
                    },
                ]
            }
        })
        .collect();
    Table {
        caption: "Strategies",
        heads: &[
            "strategy",
            "waits",
            "attempts",
            "time limit",
            "budget",
            "Retry-After",
            "defaults of",
        ],
        rows,
    }
}

/// The waits of the model's six strategies, after failure `a` (from 0).
const GENERIC_WAITS: [(&str, &str); 6] = [
    ("fixed", "always `base`"),
    ("exponential", "`min(cap, base × multiplier^a)`"),
    ("full-jitter", "uniform between 0 and the exponential wait"),
    (
        "equal-jitter",
        "half the exponential wait plus a uniform draw up to the other half",
    ),
    (
        "decorrelated-jitter",
        "uniform between `base` and three times the previous wait, capped",
    ),
    (
        "proportional-jitter",
        "the exponential wait times a uniform factor in [1 − `jitter`, 1 + `jitter`]",
    ),
];

/// The table a reference block names, or `None` for an unknown name.
pub fn table(name: &str) -> Option<Table> {
    Some(match name {
        "scenario" => keys_of(Section::Top, "Keys of a scenario"),
        "arrivals" => keys_of(Section::Arrivals, "Keys of a window of arrivals"),
        "server" => keys_of(Section::Server, "Keys under server:"),
        "outage" => keys_of(Section::Outage, "Keys of an outage"),
        "slowdown" => keys_of(Section::Slowdown, "Keys of a slowdown"),
        "override" => keys_of(Section::Override, "Keys of a replica's override"),
        "queue" => keys_of(Section::Queue, "Keys under server.queue:"),
        "retry-after" => keys_of(Section::RetryAfter, "Keys under server.retry_after:"),
        "pushback" => keys_of(Section::Pushback, "Keys under server.pushback:"),
        "cache" => keys_of(Section::Cache, "Keys under server.cache:"),
        "retry" => keys_of(Section::Retry, "Keys under retry:"),
        "budget" => keys_of(Section::Budget, "Keys of a retry.budget map"),
        "breaker" => keys_of(Section::Breaker, "Keys under retry.breaker:"),
        "throttle" => keys_of(Section::Throttle, "Keys under retry.throttle:"),
        "hedging" => keys_of(Section::Hedging, "Keys under retry.hedging:"),
        "layer" => keys_of(Section::Layer, "Keys of a layer"),
        "strategies" => strategies(),
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
                    vec![t.to_string(), meaning.to_string()]
                })
                .collect();
            Table {
                caption: "What a sweep can chart",
                heads: &["total", "meaning"],
                rows,
            }
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

/// The HTML of the table a reference block names, or `None` for an unknown name.
pub fn table_named(name: &str) -> Option<String> {
    table(name).map(|t| t.html())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_librarys_source_is_linked_at_its_tag_and_lines() {
        use crate::engine::library::SOURCES;
        for source in SOURCES {
            let links = source_links(source.source);
            assert!(links.is_some(), "{}", source.source);
            // As many links to lines as ranges written.
            let ranges = source.source.matches(['-', ',']).count();
            let links = links.unwrap_or_default();
            assert!(links.matches("#L").count() >= ranges.min(1), "{links}");
        }
        assert_eq!(
            source_links("a/b@v1 x/y.py:4-5, 9; z.md:1").as_deref(),
            Some(
                "a/b@v1 <a href=\"https://github.com/a/b/blob/v1/x/y.py\"><code>x/y.py</code></a>:\
                 <a href=\"https://github.com/a/b/blob/v1/x/y.py#L4-L5\">4–5</a>, \
                 <a href=\"https://github.com/a/b/blob/v1/x/y.py#L9\">9</a>; \
                 <a href=\"https://github.com/a/b/blob/v1/z.md\"><code>z.md</code></a>:\
                 <a href=\"https://github.com/a/b/blob/v1/z.md?plain=1#L1\">1</a>"
            )
        );
        for not in [
            "",
            "x.py:4",
            "a/b@v1 x.py",
            "a/b@v1 .../x.py:4",
            "a/b@v1 x.py:0",
        ] {
            assert_eq!(source_links(not), None, "{not}");
        }
        // The go-backoff row's Retry-After, in parentheses, is linked too.
        let table = strategies().html();
        assert!(table.contains("(ihrwein/backoff@v0.4.0 <a href=\"https://github.com/ihrwein/backoff/blob/v0.4.0/src/retry.rs\">"));
        assert!(!table.contains("..."), "an abbreviated path is no link");
    }

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

    #[test]
    fn every_key_of_the_scenario_format_is_in_the_table_of_its_section() {
        for key in KEYS {
            let name = table_of(key.section);
            assert!(TABLES.iter().any(|(t, _)| *t == name), "{name}");
            let table = table(name).unwrap();
            assert!(
                table.rows.iter().any(|row| row[0] == key.name),
                "{} in {name}",
                key.name
            );
            assert!(table.markdown().contains(&format!("| `{}` |", key.name)));
        }
    }

    #[test]
    fn the_authors_guide_names_every_table() {
        let guide = include_str!("../../content/writing-articles.md");
        let at = guide.find("## The `reference` directive").unwrap();
        let section = &guide[at..];
        for (name, _) in TABLES {
            assert!(section.contains(&format!("`{name}`")), "{name}");
        }
    }

    #[test]
    fn a_table_as_markdown_escapes_its_pipes() {
        let table = pairs("Pipes", &["key", "meaning"], &[("a", "x | y")]);
        assert_eq!(
            table.markdown(),
            "Pipes\n\n| key | meaning |\n|---|---|\n| `a` | x \\| y |\n"
        );
    }
}
