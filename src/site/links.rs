//! A page's links and images as files: where each one leads, written as the output's
//! address, and recorded for the link check.
//!
//! A link to a `.md` file names a page by its file below `content/` (relative to the
//! linking page's file, or to `content/` when it starts with `/`), in any letter case of
//! `.md` and with any query and anchor, which are kept. A relative link or image that
//! names another file of `content/` (a picture beside the page) leads to that file,
//! copied to the same path in the output. Anything else is an address: one starting
//! with `/` from the site's root, a relative one from the page's own address, as a
//! browser reads it. Every internal target is recorded, so that `check` and `build` can
//! say which lead nowhere.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

use super::address::{self, BUILT_IN, HOME};
use super::page::{Content, Page};
use super::render::{Context, Rendered};
use crate::diag::{Diagnostic, LineIndex};

/// An internal link or image found on a page, for the link check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Byte range in the page body.
    pub range: Range<usize>,
    /// What it leads to below the site root, percent-encoded: a page's address (`a/`),
    /// or a file's path (`sub/pic.png`).
    pub page: String,
    /// The anchor after `#`, if any.
    pub anchor: Option<String>,
    /// The target as the author wrote it.
    pub written: String,
    /// Whether it is an image (`![…](…)`) rather than a link.
    pub image: bool,
}

/// A link, image or bare address that leaves the site over HTTP, found on a page, for
/// `check --external`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct External {
    /// Byte range in the page body.
    pub range: Range<usize>,
    /// The address as the author wrote it (`https://…`, `http://…`).
    pub url: String,
}

/// Whether `url` is an address `check --external` asks for: `http:` or `https:`, in any
/// letter case. Other schemes (`mailto:`, `tel:`, `data:`) are never requested.
pub fn is_requested(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// Whether a target leaves the site: it has a scheme (`https:`, `mailto:`, `data:`) or
/// names a host (`//host/x`).
fn is_external(url: &str) -> bool {
    let scheme = url.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    scheme || url.starts_with("//")
}

/// `/x` → `{base_path}x`; anything else unchanged.
fn rooted(url: &str, base_path: &str) -> String {
    match url.strip_prefix('/') {
        Some(rest) if !url.starts_with("//") => format!("{base_path}{rest}"),
        _ => url.to_string(),
    }
}

/// A target's parts: path, `?query` (with its `?`) and anchor (without its `#`).
fn split(url: &str) -> (&str, &str, Option<&str>) {
    let (rest, anchor) = match url.split_once('#') {
        Some((rest, anchor)) => (rest, Some(anchor)),
        None => (url, None),
    };
    match rest.find('?') {
        Some(at) => (&rest[..at], &rest[at..], anchor),
        None => (rest, "", anchor),
    }
}

/// Whether a path names a Markdown file: `.md` in any letter case.
fn is_markdown(path: &str) -> bool {
    path.len() > 3
        && path
            .get(path.len() - 3..)
            .is_some_and(|end| end.eq_ignore_ascii_case(".md"))
}

/// Rewrites a link's target and records internal links for checking.
pub fn link(url: &str, range: &Range<usize>, cx: &Context, out: &mut Rendered) -> String {
    resolve(url, range, cx, out, false)
}

/// Rewrites an image's source and records it for checking.
pub fn image(url: &str, range: &Range<usize>, cx: &Context, out: &mut Rendered) -> String {
    resolve(url, range, cx, out, true)
}

fn resolve(
    url: &str,
    range: &Range<usize>,
    cx: &Context,
    out: &mut Rendered,
    image: bool,
) -> String {
    if is_external(url) || url.is_empty() {
        if is_requested(url) {
            out.external.push(External {
                range: range.clone(),
                url: url.to_string(),
            });
        }
        return url.to_string();
    }
    let (path, query, anchor) = split(url);
    let mut record = |page: String| {
        out.links.push(Link {
            range: range.clone(),
            page,
            anchor: anchor.map(str::to_string),
            written: url.to_string(),
            image,
        })
    };
    if path.is_empty() {
        record(cx.url.to_string());
        return url.to_string();
    }
    let suffix = match anchor {
        Some(anchor) => format!("{query}#{anchor}"),
        None => query.to_string(),
    };
    // A link names a file as an address does, escaped: `my%20page.md`.
    let in_content = address::decode(path).and_then(|p| match p.strip_prefix('/') {
        Some(rooted) => resolve_relative("", rooted),
        None => resolve_relative(cx.content_path, &p),
    });
    if is_markdown(path) {
        // Pages are the files named `.md`; `x.MD` names `x.md`.
        let page = in_content.and_then(|target| {
            let lower = format!("{}.md", &target[..target.len() - 3]);
            page_of(cx.pages, &target)
                .filter(|p| is_page(p))
                .or_else(|| page_of(cx.pages, &lower).filter(|p| is_page(p)))
        });
        let Some(page) = page else {
            out.broken.push((range.clone(), path.to_string()));
            return url.to_string();
        };
        record(page.clone());
        return format!("{}{page}{suffix}", cx.base_path);
    }
    // A file beside the page in content/, copied to its own path in the output.
    if !path.starts_with('/')
        && let Some(file) = in_content.and_then(|target| page_of(cx.pages, &target))
        && !is_page(file)
    {
        record(file.clone());
        return format!("{}{file}{suffix}", cx.base_path);
    }
    // An address: from the root, or from the page's own address as a browser reads it.
    let target = match path.strip_prefix('/') {
        Some(rest) => Some(rest.to_string()),
        None => resolve_relative(&format!("{}x", cx.url), path).map(|t| {
            // A trailing `/` (or `.`, `..`) names a folder, which the join drops.
            let folder = path.ends_with('/') || path.ends_with("/.") || path.ends_with("/..");
            let folder = folder || path == "." || path == "..";
            if folder && !t.is_empty() {
                format!("{t}/")
            } else {
                t
            }
        }),
    };
    match target {
        // Written escaped or not, an address is checked in the form the site writes.
        Some(target) => record(address::canonical(&target)),
        None => out.broken.push((range.clone(), path.to_string())),
    }
    rooted(url, cx.base_path)
}

/// The page whose file is nearest to the `.md` file `target` names (from `page`), written
/// as the link would name it: the author's own folder part with the file's name changed
/// when the page is in the folder the link leads to, else its path below `content/`
/// from the root (`/guide/notes.md`).
fn nearest_page(content: &Content, page: &Page, target: &str) -> Option<String> {
    // Not the page itself: a link that names a file seldom means the page it is on.
    let files: Vec<&str> = content
        .pages
        .iter()
        .filter(|p| p.file != page.file)
        .filter_map(|p| p.file.strip_prefix("content/"))
        .collect();
    let name = last_part(target);
    let written_folder = &target[..target.len() - name.len()];
    let near = crate::suggest::closest(name, files.iter().map(|f| last_part(f)))?;
    let from = page.file.strip_prefix("content/").unwrap_or(&page.file);
    let beside = match target.strip_prefix('/') {
        Some(rooted) => resolve_relative("", rooted),
        None => resolve_relative(from, target),
    }
    .and_then(|resolved| Some(format!("{}{near}", resolved.strip_suffix(name)?)));
    if beside.is_some_and(|b| files.contains(&b.as_str())) {
        return Some(format!("{written_folder}{near}"));
    }
    files
        .iter()
        .find(|f| last_part(f) == near)
        .map(|f| format!("/{f}"))
}

/// The problem of a target that leads nowhere as written, at `range` of the page's body:
/// a `.md` file that is no page, or an address that climbs above the site's root.
fn broken(
    content: &Content,
    page: &Page,
    index: &LineIndex,
    range: &Range<usize>,
    target: &str,
) -> Diagnostic {
    if is_markdown(target) {
        let help = match nearest_page(content, page, target) {
            Some(near) => format!("did you mean `{near}`?"),
            None => "a link to a `.md` file must name a file under content/".to_string(),
        };
        super::at(
            page,
            index,
            range,
            format!("the link to `{target}` does not lead to a page"),
            Some(help),
        )
    } else {
        super::at(
            page,
            index,
            range,
            format!("`{target}` climbs above the site's root"),
            Some(format!(
                "a relative address starts from the page's own, `/{}`",
                page.url
            )),
        )
    }
}

/// Every link and image of the pages that leads to no page or file of the output, and
/// every anchor that no element of its page has, in the order of each page's text.
/// `anchors` are each page's, by address.
pub fn problems(
    content: &Content,
    anchors: &BTreeMap<&str, HashSet<String>>,
    rendered: &[Rendered],
) -> Vec<Diagnostic> {
    let files = published(content);
    let mut problems = Vec::new();
    for (page, r) in content.pages.iter().zip(rendered) {
        let index = LineIndex::new(&page.source);
        let mut found: Vec<(usize, Diagnostic)> = r
            .broken
            .iter()
            .map(|(range, target)| (range.start, broken(content, page, &index, range, target)))
            .collect();
        for link in &r.links {
            let target = link.page.as_str();
            // A host answers `/a` with the page `/a/`.
            let as_folder = format!("{target}/");
            let page_of = anchors.get_key_value(target).or_else(|| {
                (!target.is_empty() && !target.ends_with('/'))
                    .then(|| anchors.get_key_value(as_folder.as_str()))
                    .flatten()
            });
            let problem = match (page_of, &link.anchor) {
                // `#` and `#top` lead to the top of any page, as browsers read them.
                (Some(_), Some(anchor))
                    if anchor.is_empty() || anchor.eq_ignore_ascii_case("top") =>
                {
                    None
                }
                (Some((address, ids)), Some(anchor)) if !ids.contains(anchor) => Some((
                    format!("`/{address}` has no heading or figure with the anchor `#{anchor}`"),
                    case_only(ids, anchor)
                        .map(|id| {
                            format!(
                                "`#{id}` differs only in letter case: an anchor must be \
                                 written as the page has it (GitHub's script forgives the \
                                 case, a browser does not)"
                            )
                        })
                        .or_else(|| {
                            let mut sorted: Vec<&str> = ids.iter().map(String::as_str).collect();
                            sorted.sort_unstable();
                            crate::suggest::closest(anchor, sorted)
                                .map(|id| format!("did you mean `#{id}`?"))
                        }),
                )),
                (Some(_), _) => None,
                (None, _) if files.contains(target) => None,
                (None, _) if is_page(target) && files.contains(&format!("{target}index.html")) => {
                    None
                }
                (None, _) if link.image => Some((
                    format!("the image `{}` leads to no file of the site", link.written),
                    Some(match nearest_file(&files, target) {
                        Some(near) => format!(
                            "did you mean `/{near}`? A picture beside the page's file in \
                             content/ is written by its name (`pic.png`), one in static/ from \
                             the root (`/pic.png`)"
                        ),
                        None => {
                            let resolved = format!("/{target}");
                            let said = if link.written.split(['?', '#']).next() == Some(&resolved) {
                                String::new()
                            } else {
                                format!("it would be `{resolved}`; ")
                            };
                            format!(
                                "{said}no file of content/ or static/ has that name: a picture \
                                 beside the page's file in content/ is written by its name \
                                 (`pic.png`), one in static/ from the root (`/pic.png`)"
                            )
                        }
                    }),
                )),
                (None, _) if is_page(target) || !last_part(target).contains('.') => Some((
                    format!("no page has the address `/{target}`"),
                    nearest_address(content, target).map(|a| format!("did you mean `/{a}`?")),
                )),
                (None, _) => Some((
                    format!("no file of the site has the address `/{target}`"),
                    nearest_file(&files, target).map(|f| format!("did you mean `/{f}`?")),
                )),
            };
            if let Some((message, help)) = problem {
                let problem = super::at(page, &index, &link.range, message, help);
                found.push((link.range.start, problem));
            }
        }
        found.sort_by_key(|(start, _)| *start);
        problems.extend(found.into_iter().map(|(_, problem)| problem));
    }
    problems
}

/// The file of the site whose name is nearest to the last part of `target`, by its
/// address (`images/pic.png`), if one is close.
fn nearest_file<'f>(files: &'f BTreeSet<String>, target: &str) -> Option<&'f str> {
    let name = last_part(target);
    let near = crate::suggest::closest(name, files.iter().map(|f| last_part(f)))?;
    files
        .iter()
        .find(|f| last_part(f) == near)
        .map(String::as_str)
}

/// The page address nearest to `target` (`crowd/` for `crwd/`), if one is close.
fn nearest_address<'c>(content: &'c Content, target: &str) -> Option<&'c str> {
    let wanted = target.trim_end_matches('/');
    let near = crate::suggest::closest(
        wanted,
        content.pages.iter().map(|p| p.url.trim_end_matches('/')),
    )?;
    content
        .pages
        .iter()
        .map(|p| p.url.as_str())
        .find(|u| u.trim_end_matches('/') == near)
}

/// The one id of `ids` that is `anchor` in other letter case, the first in order when
/// there are several.
fn case_only<'i>(ids: &'i HashSet<String>, anchor: &str) -> Option<&'i String> {
    let lower = anchor.to_lowercase();
    ids.iter().filter(|id| id.to_lowercase() == lower).min()
}

/// The last part of an address: `b.png` of `a/b.png`.
fn last_part(address: &str) -> &str {
    address.rsplit('/').next().unwrap_or(address)
}

/// Every file of the output, percent-encoded as links carry it: the pages' and their
/// aliases', the files copied from `content/` and `static/`, and the built-in ones.
fn published(content: &Content) -> BTreeSet<String> {
    let mut files: BTreeSet<String> = BTreeSet::new();
    for page in &content.pages {
        files.insert(format!("{}index.html", page.url));
        files.extend(page.aliases.iter().map(|a| address::encode(a)));
    }
    files.extend(content.files.iter().map(|f| address::encode(&f.path)));
    files.extend(content.statics.iter().map(|s| address::encode(s)));
    let home = content.pages.iter().any(Page::is_home);
    let built_in = BUILT_IN.iter().chain((!home).then_some(&HOME));
    files.extend(built_in.map(|(name, _)| address::encode(name)));
    files
}

/// Whether an address is a page's (a folder, or the root) rather than a file's.
fn is_page(address: &str) -> bool {
    address.is_empty() || address.ends_with('/')
}

/// The address of the file below `content/` that is `target`: a page's, or the path of
/// a file the build copies. The file's name may be in another Unicode form than the
/// link's (macOS once wrote names decomposed), which a reader cannot see: such names
/// match too.
fn page_of<'p>(pages: &'p BTreeMap<String, String>, target: &str) -> Option<&'p String> {
    pages.get(target).or_else(|| {
        pages
            .iter()
            .find(|(file, _)| file.nfc().eq(target.nfc()))
            .map(|(_, address)| address)
    })
}

/// Resolves `../b.md` against `a/x.md` → `b.md`; `None` when the link climbs above
/// `content/`, where no page is.
fn resolve_relative(from: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_into_path_query_and_anchor() {
        assert_eq!(split("a.md?q=1#x"), ("a.md", "?q=1", Some("x")));
        assert_eq!(split("a.md#x?y"), ("a.md", "", Some("x?y")));
        assert_eq!(split("?q"), ("", "?q", None));
        assert!(is_markdown("a.MD") && is_markdown("a.Md") && !is_markdown(".md"));
        for url in [
            "https://x",
            "mailto:a@b",
            "tel:1",
            "data:image/png,x",
            "//h/x",
        ] {
            assert!(is_external(url), "{url}");
        }
        for url in ["a.md", "/a/", "pic.png", "./a:b.png", "1a:b"] {
            assert!(!is_external(url), "{url}");
        }
    }

    #[test]
    fn relative_paths_resolve_inside_content() {
        assert_eq!(
            resolve_relative("a/x.md", "../b.md").as_deref(),
            Some("b.md")
        );
        assert_eq!(resolve_relative("x.md", "../b.md"), None);
        assert_eq!(
            resolve_relative("a/b/x", "./c.png").as_deref(),
            Some("a/b/c.png")
        );
    }
}
