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

/// Where the Pages workflow gets `retrylab` from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Install {
    /// The release of this version, as a prebuilt binary (`cargo install` where there is
    /// none for the runner): the workflow `init` writes for an author's site.
    Release,
    /// Built from the repository's own source: this project's workflow, which builds
    /// its explainer with the tool as it is at that commit.
    Source,
}

/// The project's home, from the manifest (`repository` in `Cargo.toml`).
pub const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The address of the shell installer of a release of `retrylab`.
pub fn installer_url(version: &str) -> String {
    format!("{REPOSITORY}/releases/download/v{version}/retrylab-installer.sh")
}

/// The path of the Pages workflow in a site's repository.
pub const WORKFLOW: &str = ".github/workflows/pages.yml";

/// The GitHub Actions workflow that builds a site and publishes it with GitHub Pages:
/// the same file for an author's site and for this project, but for how it gets the
/// tool (`install`). The base URL comes from `actions/configure-pages`, so a project
/// site under `https://USER.github.io/REPO/` gets every address right.
pub fn pages_workflow(install: Install) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let installer = installer_url("${RETRYLAB_VERSION}");
    let (env, steps) = match install {
        Install::Release => (
            format!(
                "env:\n  # The retrylab that made this site: raise it to build with a newer one.\n  \
                 RETRYLAB_VERSION: {version}\n\n"
            ),
            format!(
                r#"      # The release binary, kept between runs; `cargo install` where the release has
      # none for this runner.
      - id: tool
        uses: actions/cache@v4
        with:
          path: ~/.cargo/bin/retrylab
          key: retrylab-${{{{ env.RETRYLAB_VERSION }}}}-${{{{ runner.os }}}}-${{{{ runner.arch }}}}
      - name: Install retrylab
        if: steps.tool.outputs.cache-hit != 'true'
        run: |
          installer="{installer}"
          if curl --proto '=https' --tlsv1.2 -fsSL "$installer" -o "$RUNNER_TEMP/installer.sh"; then
            sh "$RUNNER_TEMP/installer.sh"
          else
            cargo install --locked "retrylab@${{RETRYLAB_VERSION}}"
          fi
"#
            ),
        ),
        Install::Source => (
            String::new(),
            r#"      # This repository is retrylab itself: the tool is built from its own source.
      - uses: dtolnay/rust-toolchain@stable
      - uses: Swatinem/rust-cache@v2
      - name: Install retrylab
        run: |
          cargo build --release --locked
          echo "$PWD/target/release" >> "$GITHUB_PATH"
"#
            .to_string(),
        ),
    };
    format!(
        r#"# Builds the site with retrylab and publishes it with GitHub Pages on every push to
# main. In the repository's settings, choose Pages → Source: GitHub Actions. The base URL
# comes from Pages itself, so a project site under https://USER.github.io/REPO/ gets
# every link, stylesheet and feed entry right.
name: Pages

on:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write

concurrency:
  group: pages
  cancel-in-progress: false

{env}jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
{steps}      # The simulations' cache: a build runs again only the scenarios that changed.
      - uses: actions/cache@v4
        with:
          path: .retrylab-cache
          key: retrylab-simulations-${{{{ github.sha }}}}
          restore-keys: retrylab-simulations-
      - id: pages
        uses: actions/configure-pages@v5
      - name: Build the site
        run: {BUILD}
      - uses: actions/upload-pages-artifact@v3
        with:
          path: public

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
"#
    )
}

/// The Pages workflow's build command line; `${{ steps.pages.outputs.base_url }}` is
/// the site's address without its final slash.
pub const BUILD: &str = r#"retrylab build --base-url "${{ steps.pages.outputs.base_url }}/""#;

/// Whether `name`, an entry of a folder, belongs to a new repository rather than to a
/// site: what GitHub puts in a repository it creates (`.git`, `.github`, `.gitignore`,
/// a README, a licence), so that `init` can fill a fresh clone.
fn belongs_to_a_repository(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    name.starts_with('.')
        || ["README", "LICENSE", "LICENCE", "COPYING"]
            .iter()
            .any(|start| upper.starts_with(start))
}

/// What [`init`] wrote and what it found already there and kept.
#[derive(Debug, Default)]
pub struct Created {
    /// The files written, relative to the site.
    pub written: Vec<String>,
    /// A note for each file that was already there and was kept.
    pub kept: Vec<String>,
}

/// Creates a new site in `dir`, which must not exist yet, be empty, or hold only what a
/// new repository holds (see [`belongs_to_a_repository`]): `site.yaml`, a home page, an
/// article, `.gitignore` and (with `workflow`) the Pages workflow. Never replaces a
/// file: one already there is kept and named in [`Created::kept`].
pub fn init(dir: &Path, title: &str, workflow: bool) -> Result<Created, Failure> {
    if let Some(problem) = title_problem(title) {
        // The title may come from the folder's name, which the user never typed as one.
        return Err(Failure::Other(format!(
            "{problem}; give the site a title with `--title`"
        )));
    }
    if dir.exists() {
        let entries = std::fs::read_dir(dir).map_err(|e| io("read", dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io("read", dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !belongs_to_a_repository(&name) {
                return Err(Failure::Other(format!(
                    "{} is not empty (it holds {name}); `retrylab init` only fills an empty \
                     or new folder, or a repository's fresh clone (.git, .github, a README, \
                     a licence)",
                    dir.display()
                )));
            }
        }
    }
    let mut files: Vec<(&str, String)> = vec![
        (
            "site.yaml",
            format!(
                "title: {}\n\
                 description: {PLACEHOLDER_DESCRIPTION}\n\
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
    if workflow {
        files.push((WORKFLOW, pages_workflow(Install::Release)));
    }
    // Every folder a file goes in must be a folder, or not there yet: checked before
    // anything is written, so that a mistake leaves the folder as it was.
    for (name, _) in &files {
        let mut folder = dir.to_path_buf();
        let parts: Vec<&str> = name.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            folder.push(part);
            match folder.symlink_metadata() {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(Failure::Other(format!(
                        "{} is a symbolic link, and `retrylab init` never writes through \
                         one (it would write {name} there); nothing was written",
                        folder.display()
                    )));
                }
                Ok(m) if !m.is_dir() => {
                    return Err(Failure::Other(format!(
                        "{} is a file, where `retrylab init` would make a folder for \
                         {name}; move it aside or use `--no-workflow`; nothing was written",
                        folder.display()
                    )));
                }
                _ => {}
            }
        }
    }
    let mut created = Created::default();
    for (name, text) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
        }
        match write_new(&path, &text) {
            Ok(()) => created.written.push(name.to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                created.kept.push(kept_note(name));
            }
            Err(e) => return Err(io("write", &path, e)),
        }
    }
    created.written.push(
        new_article(dir, "A first scenario")?
            .to_string_lossy()
            .replace('\\', "/"),
    );
    Ok(created)
}

/// What to do about a file `init` found already there and kept.
fn kept_note(name: &str) -> String {
    let what = match name {
        ".gitignore" => "add `public/` and `.retrylab-cache/` to it, the build's output and \
                         its cache"
            .to_string(),
        WORKFLOW => format!(
            "`retrylab init` writes its Pages workflow only where there is none; to use it, \
             move yours aside and run `retrylab init` again, or build with `{BUILD}`"
        ),
        _ => "`retrylab init` never replaces a file".to_string(),
    };
    format!("note: {name} already exists and was kept: {what}")
}

/// The description `init` writes in `site.yaml`, for the author to replace: `build`
/// and `check` say so while it is there.
pub const PLACEHOLDER_DESCRIPTION: &str = "What this site explains, in one sentence.";

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

/// `retrylab init --templates DIR`: the built-in look copied into the site that `dir`
/// holds, or into a new site made as [`init`] makes one.
pub fn init_with_look(
    dir: &Path,
    title: &str,
    workflow: bool,
) -> Result<(Option<Created>, Copied), Failure> {
    let created = if dir.join("site.yaml").is_file() {
        None
    } else {
        Some(init(dir, title, workflow).map_err(|failure| match failure {
            Failure::Other(message) if message.contains("is not empty") => Failure::Other(format!(
                "{message}; it holds no site.yaml either, so it is no site for \
                 `retrylab init --templates` to copy the built-in look into"
            )),
            other => other,
        })?)
    };
    Ok((created, copy_look(dir)?))
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
