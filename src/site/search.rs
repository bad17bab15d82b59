//! Site search: an index of every page's headings and prose, written at build time by
//! Pagefind's indexing library into `pagefind/`, and read in the reader's browser by
//! Pagefind's own search script, which loads only the chunks of the index a query needs.
//! The search box (`search.js`, written beside it) loads nothing until a reader opens
//! it.
//!
//! What is indexed is each page's `<main>`, less its figures (their per-tick data, their
//! captions' numbers) and the headings' `#` anchors. A page is indexed at its address
//! below the site's root; the search script finds the base path from its own address,
//! so the same index works at `/` and at `/repo/`, on GitHub Pages and from `serve`.

use pagefind::api::PagefindIndex;
use pagefind::options::PagefindServiceConfig;

/// The index's folder below the site's root.
pub const FOLDER: &str = "pagefind";

/// The search box's script, below the site's root.
pub const SCRIPT: &str = "search.js";

/// The search box's script, which the built-in template loads on every page.
pub const SCRIPT_TEXT: &str = include_str!("defaults/search.js");

/// What of a page is left out of the index: the figures (drawn from the runs, with a
/// number in every caption and cell), the headings' anchors (`#`), the table of
/// contents, and formulas (whose MathML would read as its letters run together).
const LEFT_OUT: [&str; 4] = ["figure", "a.anchor", "nav", "math"];

/// The files Pagefind writes that the search box does not use: its own interfaces and
/// its highlighter. Left out of the site.
const UNUSED: [&str; 4] = [
    "pagefind-ui.",
    "pagefind-modular-ui.",
    "pagefind-component-ui.",
    "pagefind-highlight.",
];

/// The index of `pages` (each page's address below the root, `crowd/`, and its HTML as
/// published), as files below [`FOLDER`], in the order of their names: the same pages
/// give the same bytes.
///
/// Pagefind's library is asynchronous: it runs here on a runtime of its own, which
/// blocks this thread until the index is made. So the caller's thread must not be one
/// that drives another runtime (a `tokio` task's); the build calls it from a thread it
/// starts for the index, which runs while the site's other files are written.
pub fn index(pages: &[(&str, String)], language: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| format!("the search index cannot start: {e}"))?;
    runtime.block_on(build(pages, language))
}

/// A warning for each template of `pages` whose text has no `<main>` (see
/// [`super::templates::Templates::has_main`]): the index reads a page's `<main>` only,
/// so a reader's search finds none of those pages' words. Said by `build` and `check`
/// alike, in the order the templates are first used.
pub(super) fn unsearched(
    pages: &[super::page::Page],
    templates: &super::templates::Templates,
) -> Vec<String> {
    let mut by_template: Vec<(&str, Vec<&str>)> = Vec::new();
    for page in pages {
        let name = super::templates::of_page(page);
        match by_template.iter_mut().find(|(n, _)| *n == name) {
            Some((_, urls)) => urls.push(&page.url),
            None => by_template.push((name, vec![&page.url])),
        }
    }
    (by_template.into_iter())
        .filter(|(name, _)| !templates.has_main(name))
        .map(|(name, urls)| {
            let pages = match urls.len() {
                1 => format!("the page rendered with it, `/{}`,", urls[0]),
                n => format!("the {n} pages rendered with it (the first `/{}`)", urls[0]),
            };
            crate::diag::Diagnostic::in_file(
                &format!("templates/{name}"),
                format!(
                    "this template has no `<main>` (nor do the templates it extends or \
                     includes), and the search index reads a page's `<main>` only: the \
                     search finds nothing of {pages} but its title"
                ),
            )
            .with_help(Some(
                "put the page's content in `<main>…</main>`, or set `search: false` in \
                 site.yaml"
                    .to_string(),
            ))
            .to_warning()
        })
        .collect()
}

/// The problem of a site whose `static/` has a `pagefind/` folder while the build
/// writes the search index there: its files would mix with the index's, and a search
/// would read a stale index's chunks as this one's.
pub(super) fn own_index(root: &std::path::Path) -> Option<crate::diag::Diagnostic> {
    // A file the copy of static/ would publish: one below the folder itself, not
    // behind a symbolic link, which the copy passes over.
    let folder = root.join("static").join(FOLDER);
    let publishes = std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir())
        && walkdir::WalkDir::new(&folder)
            .into_iter()
            .flatten()
            .any(|entry| entry.file_type().is_file());
    publishes.then(|| {
        crate::diag::Diagnostic::in_file(
            &format!("static/{FOLDER}/"),
            format!(
                "the build writes the search index into `{FOLDER}/`, and the files of this \
                 folder would mix with it"
            ),
        )
        .with_help(Some(format!(
            "delete static/{FOLDER}/ (an index an earlier tool wrote?), or set `search: \
             false` in site.yaml to publish an index of your own"
        )))
    })
}

/// `html` with each of `figures` taken out, where it stands.
pub fn without<'f>(html: &str, figures: impl Iterator<Item = &'f std::sync::Arc<str>>) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    // The figures stand in the page in the order of their places, as they are iterated.
    for figure in figures {
        if let Some(at) = rest.find(&**figure) {
            out.push_str(&rest[..at]);
            rest = &rest[at + figure.len()..];
        }
    }
    out.push_str(rest);
    out
}

/// What went wrong in Pagefind's library.
fn failed(e: impl std::fmt::Display) -> String {
    format!("the search index failed: {e}")
}

async fn build(pages: &[(&str, String)], language: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let options = PagefindServiceConfig::builder()
        .root_selector("main".to_string())
        .exclude_selectors(LEFT_OUT.iter().map(|s| s.to_string()).collect())
        .force_language(language.to_string())
        .write_playground(false)
        .build();
    let mut index = PagefindIndex::new(Some(options)).map_err(failed)?;
    for (url, html) in pages {
        index
            .add_html_file(None, Some(format!("/{url}")), html.clone())
            .await
            .map_err(|e| format!("the search index failed on `{url}`: {e}"))?;
    }
    let mut files: Vec<(String, Vec<u8>)> = index
        .get_files()
        .await
        .map_err(failed)?
        .into_iter()
        .filter_map(|file| {
            let name = file.filename.to_string_lossy().replace('\\', "/");
            let unused = UNUSED.iter().any(|prefix| name.starts_with(prefix));
            (!unused).then(|| (format!("{FOLDER}/{name}"), file.contents))
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}
