//! `retrylab new` and `retrylab init`: a new article with a working scenario, a new
//! site that builds at once with the built-in templates, and (`init --templates`) the
//! built-in look copied into a site to be changed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::page;
use crate::diag::{Diagnostic, Failure};
use crate::directive;

fn io(what: &str, path: &Path, e: std::io::Error) -> Failure {
    Failure::Other(format!("cannot {what} {}: {e}", path.display()))
}

/// A file name and scenario id from a title: ASCII letters and digits, words joined by
/// `-` (`"Why jitter?"` → `why-jitter`).
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "article".to_string()
    } else {
        out.to_string()
    }
}

/// The longest scenario id [`short_id`] makes.
const SHORT_ID: usize = 20;

/// A scenario id from a slug: its first significant words (not "a", "the", "why" and
/// the like, unless there are no others), as many as fit in 20 characters, so that a
/// long title does not make every reference long (`retry-budgets-versus-capped-…` →
/// `retry-budgets-capped`).
fn short_id(slug: &str) -> String {
    const SMALL: [&str; 24] = [
        "a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "by", "at", "from",
        "why", "how", "what", "when", "is", "are", "do", "does", "versus", "vs",
    ];
    let words: Vec<&str> = slug.split('-').filter(|w| !w.is_empty()).collect();
    let significant: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !SMALL.contains(w))
        .collect();
    let words = if significant.is_empty() {
        words
    } else {
        significant
    };
    let mut id = String::new();
    for word in words {
        let joined = if id.is_empty() { 0 } else { 1 };
        if id.len() + joined + word.len() > SHORT_ID {
            break;
        }
        if joined == 1 {
            id.push('-');
        }
        id.push_str(word);
    }
    if id.is_empty() {
        // A first word longer than the limit: its start (ASCII, so any cut is whole).
        id = slug.chars().take(SHORT_ID).collect();
        id = id.trim_end_matches('-').to_string();
    }
    if id.is_empty() {
        "article".to_string()
    } else {
        id
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`, for a new article's front matter and a live
/// run's record.
pub fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((seconds / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a (year, month, day) of the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Why a title cannot be written as it is, if it cannot: it is empty, or holds a line
/// break, a tab or another control character (front matter could not keep it on one
/// line, and HTML forbids most of them).
fn title_problem(title: &str) -> Option<String> {
    if title.trim().is_empty() {
        return Some("the title is empty".to_string());
    }
    let (at, c) = title.chars().enumerate().find(|(_, c)| c.is_control())?;
    Some(format!(
        "the title holds a control character (U+{:04X}, character {}); a title is one line \
         of text without line breaks, tabs or control characters",
        u32::from(c),
        at + 1
    ))
}

/// Writes a new file, never through an entry already at `path`: `create_new` fails on
/// a file and on a symbolic link, even one that leads nowhere, where `write` would
/// follow the link out of the site.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// Why `relative` (under `root`) cannot be a new article, if something is there.
fn taken(root: &Path, relative: &Path) -> Option<Failure> {
    // `symlink_metadata` sees a link that leads nowhere, which `exists` does not.
    let meta = root.join(relative).symlink_metadata().ok()?;
    Some(Failure::Other(if meta.file_type().is_symlink() {
        format!(
            "{} is a symbolic link, and `new` never writes through one; choose another \
             title or remove the link",
            relative.display()
        )
    } else {
        format!(
            "{} already exists; choose another title or edit that file",
            relative.display()
        )
    }))
}

/// A YAML double-quoted string.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The text of a new article: front matter, a scenario with the id `id`, and prose
/// that quotes its results.
fn article(title: &str, id: &str, date: &str) -> String {
    format!(
        r#"---
title: {title}
description: One sentence on what this article shows, for the index, the feed and search engines.
date: {date}
weight: 10
draft: false
---

Write the article here. The scenario below runs when the site is built, and the prose
quotes its results, so no number on the page is typed by hand.

## The scenario

```sim
id: {id}
clients: 50
horizon: 1m
server: {{capacity: 10, tick: 100ms}}
retry: {{base: 100ms, cap: 5s}}
strategies: [exponential, full-jitter]
runs: 50
figure:
  caption: Fifty clients retry against a server that serves ten calls per tick.
```

## What it shows

With exponential backoff, the {{{{ {id}.clients }}}} clients make
{{{{ {id}.exponential.calls }}}} calls and the last one is done at
{{{{ {id}.exponential.done_at }}}}. With full jitter they make
{{{{ {id}.full-jitter.calls }}}} calls ({{{{ {id}.full-jitter.calls_per_client }}}} per
client) and are done at {{{{ {id}.full-jitter.done_at }}}}.
"#,
        title = quoted(title),
    )
}

/// The scenario ids already used by the site's pages, drafts included.
fn scenario_ids(root: &Path) -> HashSet<String> {
    let Ok((pages, _)) = page::load_all(root, true) else {
        return HashSet::new();
    };
    pages
        .iter()
        .flat_map(|p| directive::scan(p.body()).directives)
        .filter_map(|found| directive::id_of(&found.body))
        .collect()
}

/// Writes `content/<slug>.md` for `title`, with a scenario whose id no other page uses.
/// Refuses to replace a file. Returns the file written, relative to `root`.
pub fn new_article(root: &Path, title: &str) -> Result<PathBuf, Failure> {
    if let Some(problem) = title_problem(title) {
        return Err(Failure::Other(problem));
    }
    if !root.join("site.yaml").is_file() {
        return Err(Failure::Other(format!(
            "there is no site.yaml in {} (is it a retrylab site? `retrylab init DIR` makes one)",
            root.display()
        )));
    }
    let name = slug(title);
    let relative = PathBuf::from("content").join(format!("{name}.md"));
    let path = root.join(&relative);
    if let Some(failure) = taken(root, &relative) {
        return Err(failure);
    }
    let used = scenario_ids(root);
    let short = short_id(&name);
    let id = (1..)
        .map(|n| {
            if n == 1 {
                short.clone()
            } else {
                format!("{short}-{n}")
            }
        })
        .find(|id| !used.contains(id))
        .unwrap_or(short);
    let dir = root.join("content");
    std::fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
    write_new(&path, &article(title, &id, &today())).map_err(|e| {
        // Something appeared there since the check above.
        taken(root, &relative).unwrap_or_else(|| io("write", &path, e))
    })?;
    Ok(relative)
}

/// Creates a new site in `dir`, which must be empty or not exist yet.
pub fn init(dir: &Path, title: &str) -> Result<(), Failure> {
    if let Some(problem) = title_problem(title) {
        // The title may come from the folder's name, which the user never typed as one.
        return Err(Failure::Other(format!(
            "{problem}; give the site a title with `--title`"
        )));
    }
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(|e| io("read", dir, e))?;
        if entries.next().is_some() {
            return Err(Failure::Other(format!(
                "{} is not empty; `retrylab init` only fills an empty or new folder",
                dir.display()
            )));
        }
    }
    let files: [(&str, String); 3] = [
        (
            "site.yaml",
            format!(
                "title: {}\n\
                 description: What this site explains, in one sentence.\n\
                 # Where the site is published; `build --base-url` overrides it.\n\
                 base_url: /\n\
                 language: en\n\
                 author: \"\"\n\
                 output: public\n",
                quoted(title)
            ),
        ),
        (
            "content/index.md",
            format!(
                "---\ntitle: {}\n---\n\nWelcome. The articles below quote simulations that run \
                 when the site is built.\n",
                quoted(title)
            ),
        ),
        (".gitignore", "public/\n.retrylab-cache/\n".to_string()),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
        }
        write_new(&path, &text).map_err(|e| io("write", &path, e))?;
    }
    new_article(dir, "A first scenario")?;
    Ok(())
}

/// What [`copy_look`] did: the files it wrote, and one problem for each file it found
/// already there and kept.
pub struct Copied {
    /// The files written, relative to the site (`templates/base.html`).
    pub written: Vec<String>,
    /// The files kept, each named by a diagnostic.
    pub kept: Vec<Diagnostic>,
}

/// Copies the built-in templates into `dir/templates/` and the built-in stylesheets
/// into `dir/static/` (as mdBook's `init --theme` does), to be changed there. Never
/// replaces a file, nor writes through a symbolic link: each one already there is kept
/// and named in [`Copied::kept`].
pub fn copy_look(dir: &Path) -> Result<Copied, Failure> {
    let files = super::templates::DEFAULTS
        .iter()
        .map(|(name, text)| ("templates", *name, *text))
        .chain(
            super::templates::SHEETS
                .iter()
                .map(|(name, text)| ("static", *name, *text)),
        );
    let mut copied = Copied {
        written: Vec::new(),
        kept: Vec::new(),
    };
    for (folder, name, text) in files {
        let relative = format!("{folder}/{name}");
        let path = dir.join(folder).join(name);
        let place = path.display().to_string();
        // A folder that is a link could lead out of the site.
        let folder_path = dir.join(folder);
        if folder_path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(Failure::Other(format!(
                "{} is a symbolic link, and `init --templates` never writes through one",
                folder_path.display()
            )));
        }
        std::fs::create_dir_all(&folder_path).map_err(|e| io("create", &folder_path, e))?;
        match write_new(&path, text) {
            Ok(()) => copied.written.push(relative),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let what = match path.symlink_metadata() {
                    Ok(m) if m.file_type().is_symlink() => "is a symbolic link",
                    Ok(m) if m.is_dir() => "is a folder",
                    _ => "already exists",
                };
                let mut kept = Diagnostic::in_file(
                    &place,
                    format!(
                        "{relative} {what}; `init --templates` never replaces a file, so it is kept as it is"
                    ),
                );
                kept.help = Some(format!(
                    "to have the built-in {name} instead, remove it and run `retrylab init --templates` again"
                ));
                copied.kept.push(kept);
            }
            Err(e) => return Err(io("write", &path, e)),
        }
    }
    Ok(copied)
}

/// `retrylab init --templates DIR`: a new site with the built-in look copied into it,
/// in a folder that is empty or new, else the look copied into the site that `dir`
/// holds.
pub fn init_with_look(dir: &Path, title: &str) -> Result<(bool, Copied), Failure> {
    let empty = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => return Err(io("read", dir, e)),
    };
    if empty {
        init(dir, title)?;
    } else if !dir.join("site.yaml").is_file() {
        return Err(Failure::Other(format!(
            "{} is not empty and holds no site.yaml; `retrylab init --templates` copies the \
             built-in look into a site, or makes a new site in an empty or new folder",
            dir.display()
        )));
    }
    Ok((empty, copy_look(dir)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_id_is_the_titles_first_significant_words() {
        let id = |title| short_id(&slug(title));
        assert_eq!(
            id("Retry budgets versus capped exponential backoff under a retry storm"),
            "retry-budgets-capped"
        );
        assert_eq!(id("Why jitter?"), "jitter");
        assert_eq!(id("The crowd"), "crowd");
        assert_eq!(id("How to"), "how-to");
        assert_eq!(id("???"), "article");
        assert_eq!(
            id("Supercalifragilisticexpialidocious retries"),
            "supercalifragilistic"
        );
        for title in ["A", "Metastable failures in distributed systems", "x y z"] {
            let id = id(title);
            assert!(
                id.len() <= SHORT_ID && !id.ends_with('-') && !id.is_empty(),
                "{id}"
            );
        }
    }

    #[test]
    fn slugs_and_dates() {
        assert_eq!(slug("Why jitter? A 2nd look"), "why-jitter-a-2nd-look");
        assert_eq!(slug("Ünïcode"), "n-code");
        assert_eq!(slug("???"), "article");
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn the_article_reads_as_a_page() {
        let text = article("Say \"hi\"", "hi", "2026-01-01");
        let page = page::read_page("content/hi.md".into(), text, "hi/".into()).unwrap();
        assert_eq!(page.front.title, "Say \"hi\"");
        assert!(page.body().contains("{{ hi.exponential.calls }}"));
    }
}
