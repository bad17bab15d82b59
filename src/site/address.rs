//! Pages map to addresses, one to one. A page's address is its path below `content/`
//! without `.md` (`index.md` stands for its folder); links, the sitemap and the feed
//! carry it percent-encoded, and the output keeps the real name, which a server finds
//! by decoding the address. No two pages, and no page and another file of the output,
//! may share an address; nor may a page's alias or a file of `content/` copied beside
//! its page (which keeps its path below `content/`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Component, Path};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use unicode_normalization::UnicodeNormalization;

use super::feeds;
use super::output;
use super::page::Page;
use super::playground;
use crate::diag::Diagnostic;

/// What an address escapes: everything but ASCII letters, digits and `-._~`, RFC 3986's
/// unreserved characters, which mean the same wherever they stand in an address.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The files a build writes besides its pages and `static/`, with what each is. A page
/// may not take their place; `static/` may replace those it brings.
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        ".nojekyll",
        "the marker that keeps GitHub Pages from running Jekyll",
    ),
    ("404.html", "the page for a missing address"),
    (feeds::FEED, "the Atom feed"),
    ("favicon.svg", "the site's icon"),
    ("robots.txt", "the rules for crawlers"),
    (feeds::SITEMAP, "the sitemap"),
    ("style.css", "the stylesheet"),
    ("chart.css", "the figures' stylesheet"),
    (super::templates::HIGHLIGHT_CSS, "the code's stylesheet"),
    ("playground.js", "the playground's loader"),
    ("playground-yaml.js", "the playground's reader of scenarios"),
    ("playground-page.js", "the playground's script"),
    ("playground-worker.js", "the playground's workers' script"),
    (playground::DEFAULTS_SCRIPT, "the playground's defaults"),
    (playground::SCENARIOS_SCRIPT, "the playground's presets"),
    (playground::MODULE, "the playground's engine"),
    (super::ticks::FOLDER, "the folder of the figures' data"),
    (super::ticks::SCRIPT.0, "the script of the figures' data"),
    (super::search::FOLDER, "the folder of the search index"),
    (super::search::SCRIPT, "the search box's script"),
    (output::MARKER, "the mark of a folder that retrylab built"),
];

/// The home page the build writes when `content/` has no `index.md`.
pub const HOME: (&str, &str) = ("index.html", "the built-in home page");

/// A path below the site root with each segment percent-encoded, as links carry it:
/// `my page/` → `my%20page/`.
pub fn encode(path: &str) -> String {
    path.split('/')
        .map(|segment| utf8_percent_encode(segment, ESCAPED).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// `%XX` escapes decoded, as a server does: `my%20page.md` → `my page.md`. A `%` that
/// starts no escape stays as it is; `None` when the bytes decoded are not UTF-8.
pub fn decode(text: &str) -> Option<Cow<'_, str>> {
    percent_decode_str(text).decode_utf8().ok()
}

/// An address as the site writes it, whichever way an author escaped it: `/my page/`
/// and `/my%20page/` both give `my%20page/`.
pub fn canonical(address: &str) -> String {
    match decode(address) {
        Some(decoded) => encode(&decoded),
        None => address.to_string(),
    }
}

/// The folder below the output that holds the page `relative` (its path below
/// `content/`), which is its address decoded: `index.md` → ``, `a/b.md` → `a/b/`,
/// `a/index.md` → `a/`. `file` names the page in the diagnostic of a name that cannot be
/// an address (one, in a list like those of [`super::page::read_page`]).
pub fn folder_of(file: &str, relative: &Path) -> Result<String, Vec<Diagnostic>> {
    let mut parts = Vec::new();
    for component in relative.components() {
        let Component::Normal(name) = component else {
            // A walk of content/ yields plain names only; anything else has no address.
            return Err(vec![Diagnostic::in_file(
                file,
                "the page's path has no address".to_string(),
            )]);
        };
        let Some(name) = name.to_str() else {
            return Err(vec![
                Diagnostic::in_file(
                    file,
                    "the page's path is not UTF-8 text, so it cannot be an address".to_string(),
                )
                .with_help(Some("rename the file or its folder".to_string())),
            ]);
        };
        parts.push(name);
    }
    let last = parts.pop().unwrap_or_default();
    let stem = last.strip_suffix(".md").unwrap_or(last);
    let why = match stem {
        ".." => Some("would leave its folder: without `.md` its name is `..`, the folder above"),
        "." => Some("would be its folder's own: without `.md` its name is `.`, the folder itself"),
        _ => None,
    };
    if let Some(why) = why {
        let help = "rename the file: a page's address is its path below content/ without `.md`";
        let problem = Diagnostic::in_file(file, format!("the page's address {why}"));
        return Err(vec![problem.with_help(Some(help.to_string()))]);
    }
    if stem != "index" {
        parts.push(stem);
    }
    Ok(parts.iter().map(|p| format!("{p}/")).collect())
}

/// Who writes a file of the output.
#[derive(Clone, Copy, Debug)]
enum Owner<'a> {
    /// The page at this index.
    Page(usize),
    /// The page at this index sends readers on from its alias at this index.
    Alias(usize, usize),
    /// A file of `content/` copied beside its page, by its path below `content/`.
    File(&'a str),
    /// A file of `static/`, by its path below it.
    Static(&'a str),
    /// A file the build writes, and what it is.
    BuiltIn(&'static str, &'static str),
}

impl Owner<'_> {
    /// How much a problem is the owner's to fix, when two owners clash: an alias or a
    /// copied file gives way to a page, and all three to the files of `static/` and of
    /// the build, which name no file of `content/`.
    fn blame(self) -> u8 {
        match self {
            Owner::Alias(..) => 3,
            Owner::File(_) => 2,
            Owner::Page(_) => 1,
            Owner::Static(_) | Owner::BuiltIn(..) => 0,
        }
    }
}

/// One file of the output and who writes it.
#[derive(Clone, Copy, Debug)]
struct Claim<'a> {
    /// Its path below the output, as written.
    path: &'a str,
    owner: Owner<'a>,
}

/// Lower case and Unicode NFC: what a file system that ignores case (macOS, Windows)
/// or normalizes names (macOS) takes for the same name.
fn fold(path: &str) -> String {
    path.to_lowercase().nfc().collect()
}

/// Why two names that fold alike are different, if they are: said in a help line.
fn alike(a: &str, b: &str) -> Option<&'static str> {
    if a == b {
        None
    } else if a.to_lowercase() == b.to_lowercase() {
        Some("the names differ only in letter case, which macOS and Windows ignore")
    } else if a.nfc().eq(b.nfc()) {
        Some(
            "the names are the same text in two Unicode forms (NFC and NFD), which macOS takes for one",
        )
    } else {
        Some(
            "the names differ only in letter case and Unicode form, which macOS and Windows ignore",
        )
    }
}

/// Every page, alias or copied file of `content/` that would take the place of another
/// such file, of a file of `static/` or of a built-in file, as a diagnostic in the file
/// of `content/` that says so, naming the other, in a stable order. `files` are the
/// paths below `content/` of the files copied beside pages (each is also its path below
/// the output); `statics` are the paths below `static/` of its files.
pub fn conflicts(pages: &[Page], files: &[String], statics: &[String]) -> Vec<Diagnostic> {
    let paths: Vec<String> = pages
        .iter()
        .map(|p| format!("{}index.html", p.folder))
        .collect();
    let mut claims: Vec<Claim> = paths
        .iter()
        .enumerate()
        .map(|(i, path)| Claim {
            path,
            owner: Owner::Page(i),
        })
        .collect();
    for (i, page) in pages.iter().enumerate() {
        claims.extend(page.aliases.iter().enumerate().map(|(j, path)| Claim {
            path,
            owner: Owner::Alias(i, j),
        }));
    }
    claims.extend(files.iter().map(|f| Claim {
        path: f,
        owner: Owner::File(f),
    }));
    claims.extend(statics.iter().map(|s| Claim {
        path: s,
        owner: Owner::Static(s),
    }));
    let home = pages.iter().any(Page::is_home);
    let built_in = BUILT_IN.iter().chain((!home).then_some(&HOME));
    claims.extend(built_in.map(|&(name, what)| Claim {
        path: name,
        owner: Owner::BuiltIn(name, what),
    }));
    let mut by_path: BTreeMap<String, Vec<Claim>> = BTreeMap::new();
    for claim in &claims {
        by_path.entry(fold(claim.path)).or_default().push(*claim);
    }

    let mut found = Vec::new();
    // Two files in one place.
    for same in by_path.values() {
        for (i, a) in same.iter().enumerate() {
            for b in &same[i + 1..] {
                found.extend(same_file(pages, a, b));
            }
        }
    }
    // A file where another needs a folder.
    for claim in &claims {
        let mut ancestor = claim.path;
        while let Some((up, _)) = ancestor.rsplit_once('/') {
            ancestor = up;
            for holder in by_path.get(&fold(ancestor)).into_iter().flatten() {
                found.extend(in_the_way(pages, holder, claim, ancestor));
            }
        }
    }
    found.extend(served_twice(pages, &claims));

    let mut out: Vec<Diagnostic> = found
        .into_iter()
        .map(|(file, message, help)| Diagnostic::in_file(&file, message).with_help(Some(help)))
        .collect();
    out.sort_by(|a, b| (&a.file, &a.message).cmp(&(&b.file, &b.message)));
    out.dedup();
    out
}

/// Pages at `/NAME/` where `static/`, `content/` or the build has a file `NAME.html`:
/// GitHub Pages and most hosts serve it at `/NAME` too, and which of the two a reader
/// gets is theirs to choose. Hosts compare addresses byte for byte, so this does too.
fn served_twice(pages: &[Page], claims: &[Claim]) -> Vec<Found> {
    let mut found = Vec::new();
    for claim in claims {
        let Some(stem) = claim.path.strip_suffix(".html") else {
            continue;
        };
        // A folder's `index.html` is its folder's page, at no other address; an alias
        // `NAME.html` only sends readers on to a page.
        let written = matches!(claim.owner, Owner::Page(_) | Owner::Alias(..));
        if written || stem.rsplit('/').next() == Some("index") {
            continue;
        }
        let folder = format!("{stem}/");
        for p in pages.iter().filter(|p| p.folder == folder) {
            let message = format!(
                "the page's address `/{}` is taken by {}, which hosts serve at `/{stem}`",
                p.folder,
                describe(pages, claim.owner)
            );
            let help = format!(
                "rename the page; GitHub Pages and most hosts answer `/{stem}` with `{stem}.html`"
            );
            found.push((p.file.clone(), message, help));
        }
    }
    found
}

/// An owner as a message names it.
fn describe(pages: &[Page], owner: Owner) -> String {
    match owner {
        Owner::Page(i) => format!("the page {}", pages[i].file),
        Owner::Alias(i, j) => format!(
            "the alias `{}` of the page {}",
            pages[i].front.aliases[j], pages[i].file
        ),
        Owner::File(path) => format!("the file content/{path}"),
        Owner::Static(path) => format!("`static/{path}`"),
        Owner::BuiltIn(name, what) => format!("{what}, `{name}`"),
    }
}

/// The file of `content/` that holds an owner: a page's, an alias's page's, or the
/// copied file itself.
fn file_of(pages: &[Page], owner: Owner) -> Option<String> {
    match owner {
        Owner::Page(i) | Owner::Alias(i, _) => Some(pages[i].file.clone()),
        Owner::File(path) => Some(format!("content/{path}")),
        Owner::Static(_) | Owner::BuiltIn(..) => None,
    }
}

/// A problem with a file of `content/` (its name), as message and help.
type Found = (String, String, String);

/// Two claims on files whose names fold alike.
fn same_file(pages: &[Page], a: &Claim, b: &Claim) -> Option<Found> {
    let note = alike(a.path, b.path);
    let with_note = |help: &str| match note {
        Some(note) => format!("{help}; {note}"),
        None => help.to_string(),
    };
    match (a.owner, b.owner) {
        (Owner::Page(first), Owner::Page(second)) => {
            let (first, second) = (first.min(second), first.max(second));
            let (x, y) = (&pages[first], &pages[second]);
            let message = match note {
                None => format!(
                    "two pages have the address `/{}`: {} and {}",
                    y.folder, x.file, y.file
                ),
                Some(_) => format!(
                    "two pages have one address but for the form of their names: `/{}` ({}) and `/{}` ({})",
                    x.folder, x.file, y.folder, y.file
                ),
            };
            let help = match note {
                None => "rename or move one of them: a page's address is its path below content/ \
                         without `.md`, and `index.md` stands for its folder"
                    .to_string(),
                Some(note) => format!("rename one of them; {note}"),
            };
            Some((y.file.clone(), message, help))
        }
        (Owner::Page(page), other @ (Owner::Static(_) | Owner::BuiltIn(..)))
        | (other @ (Owner::Static(_) | Owner::BuiltIn(..)), Owner::Page(page)) => {
            let message = format!(
                "the page's address `/{}` is taken by {}: both would be written to `{}`",
                pages[page].folder,
                describe(pages, other),
                paths_of(a, b, page),
            );
            let help = match other {
                Owner::Static(_) => "rename the page, or move the static file",
                Owner::Page(_) | Owner::Alias(..) | Owner::File(_) | Owner::BuiltIn(..) => {
                    "rename the page"
                }
            };
            Some((pages[page].file.clone(), message, with_note(help)))
        }
        (Owner::Static(_) | Owner::BuiltIn(..), Owner::Static(_) | Owner::BuiltIn(..)) => None,
        // An alias or a copied file clashes with another file: said in its own file.
        (first, second) => {
            let (subject, other, subject_path) = if first.blame() >= second.blame() {
                (first, second, a.path)
            } else {
                (second, first, b.path)
            };
            let message = format!(
                "{} would be written to `{subject_path}`, where {} is written",
                describe(pages, subject),
                describe(pages, other)
            );
            let help = match (subject, other) {
                (Owner::Alias(..), _) => "remove the alias, or choose another address for it",
                (_, Owner::BuiltIn(..)) => {
                    "rename or move the file: a file of static/ replaces a built-in file, one of content/ does not"
                }
                (Owner::Page(_) | Owner::File(_) | Owner::Static(_) | Owner::BuiltIn(..), _) => {
                    "rename or move one of them"
                }
            };
            file_of(pages, subject).map(|file| (file, message, with_note(help)))
        }
    }
}

/// The page's own output file of two claims on one place.
fn paths_of<'a>(a: &Claim<'a>, b: &Claim<'a>, page: usize) -> &'a str {
    match a.owner {
        Owner::Page(i) if i == page => a.path,
        Owner::Page(_)
        | Owner::Alias(..)
        | Owner::File(_)
        | Owner::Static(_)
        | Owner::BuiltIn(..) => b.path,
    }
}

/// `holder` writes a file where `inner` needs the folder `folder`.
fn in_the_way(pages: &[Page], holder: &Claim, inner: &Claim, folder: &str) -> Option<Found> {
    let note = alike(holder.path, folder);
    let help = |base: &str| match note {
        Some(note) => format!("{base}; {note}"),
        None => base.to_string(),
    };
    let other = describe(pages, holder.owner);
    let page_file = |page: usize| pages[page].file.clone();
    match (inner.owner, holder.owner) {
        (Owner::Page(page), Owner::BuiltIn(..)) => Some((
            page_file(page),
            format!(
                "the page's address `/{}` is taken by {other}",
                pages[page].folder
            ),
            help(
                "rename or move the page: its folder would have the name of a file the build writes",
            ),
        )),
        (Owner::Page(page), Owner::Static(_)) => Some((
            page_file(page),
            format!(
                "the page's address `/{}` needs a folder `{folder}`, but {other} is a file",
                pages[page].folder
            ),
            help("rename or move the page or the static file"),
        )),
        (Owner::Page(page), Owner::Page(_)) => Some((
            page_file(page),
            format!(
                "the page's address `/{}` needs a folder `{folder}`, but {other} is written there",
                pages[page].folder
            ),
            help("rename or move the page"),
        )),
        (other @ (Owner::Static(_) | Owner::BuiltIn(..)), Owner::Page(page)) => Some((
            page_file(page),
            format!(
                "{} needs a folder `{folder}`, but this page is written there",
                describe(pages, other)
            ),
            help("rename or move the page"),
        )),
        (Owner::Static(_) | Owner::BuiltIn(..), Owner::Static(_) | Owner::BuiltIn(..)) => None,
        // An alias or a copied file is in the way, or needs a folder where a file is.
        (needs, holds) => {
            let subject = if needs.blame() >= holds.blame() {
                needs
            } else {
                holds
            };
            let message = format!(
                "{} needs a folder `{folder}`, but {other} is written there",
                describe(pages, needs)
            );
            let help = help(match subject {
                Owner::Alias(..) => "remove the alias, or choose another address for it",
                Owner::Page(_) | Owner::File(_) | Owner::Static(_) | Owner::BuiltIn(..) => {
                    "rename or move one of them"
                }
            });
            file_of(pages, subject).map(|file| (file, message, help))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::page::read_page;

    fn page(file: &str, folder: &str) -> Page {
        let text = "---\ntitle: T\n---\n".to_string();
        read_page(format!("content/{file}"), text, encode(folder)).unwrap()
    }

    /// The conflicts of `pages` (file, folder) and `statics`, as messages.
    fn messages(pages: &[(&str, &str)], statics: &[&str]) -> Vec<String> {
        let pages: Vec<Page> = pages.iter().map(|(f, d)| page(f, d)).collect();
        let statics: Vec<String> = statics.iter().map(|s| s.to_string()).collect();
        conflicts(&pages, &[], &statics)
            .iter()
            .map(|d| format!("{}: {}", d.file, d.message))
            .collect()
    }

    #[test]
    fn addresses_escape_all_but_unreserved_characters() {
        assert_eq!(encode("a-b_c.d~e/"), "a-b_c.d~e/");
        assert_eq!(encode("a b/(c)+d&e'f/"), "a%20b/%28c%29%2Bd%26e%27f/");
        assert_eq!(decode("a%20b/%28c%29").as_deref(), Some("a b/(c)"));
        assert_eq!(decode("100%.md").as_deref(), Some("100%.md"));
        assert_eq!(decode("%FF.md"), None);
        assert_eq!(canonical("my page/"), "my%20page/");
        assert_eq!(canonical("caf%c3%a9/"), "caf%C3%A9/");
        assert_eq!(canonical("%FF/"), "%FF/");
    }

    #[test]
    fn distinct_addresses_and_overridden_built_ins_are_fine() {
        let pages = [("index.md", ""), ("a.md", "a/"), ("a/b.md", "a/b/")];
        let statics = ["style.css", "a/picture.png", "favicon.svg", "retrylab.wasm"];
        assert_eq!(messages(&pages, &statics), Vec::<String>::new());
    }

    #[test]
    fn a_page_where_another_file_needs_a_folder_is_refused() {
        assert_eq!(
            messages(
                &[("index.md", ""), ("index.html/a.md", "index.html/a/")],
                &[]
            ),
            [
                "content/index.html/a.md: the page's address `/index.html/a/` needs a folder \
              `index.html`, but the page content/index.md is written there"
            ]
        );
        assert_eq!(
            messages(&[("x.md", "x/")], &["x/index.html/y.png"]),
            [
                "content/x.md: `static/x/index.html/y.png` needs a folder `x/index.html`, \
              but this page is written there"
            ]
        );
        assert_eq!(
            messages(
                &[("index.md", ""), ("robots.txt/a.md", "robots.txt/a/")],
                &[]
            ),
            [
                "content/robots.txt/a.md: the page's address `/robots.txt/a/` is taken by the \
              rules for crawlers, `robots.txt`"
            ]
        );
    }

    #[test]
    fn a_file_named_like_a_page_and_html_is_served_at_its_address() {
        assert_eq!(
            messages(
                &[("index.md", ""), ("guide/x.md", "guide/x/")],
                &["guide/x.html"]
            ),
            [
                "content/guide/x.md: the page's address `/guide/x/` is taken by \
              `static/guide/x.html`, which hosts serve at `/guide/x`"
            ]
        );
        // Hosts compare addresses byte for byte; a folder's own index.html is its page.
        let pages = [("index.md", ""), ("x.md", "x/"), ("y.md", "y/")];
        assert_eq!(
            messages(&pages, &["X.html", "y/z/index.html"]),
            Vec::<String>::new()
        );
    }
}
