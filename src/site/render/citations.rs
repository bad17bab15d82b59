//! Citations of the site's sources ([`crate::site::sources`]): `[@key]`,
//! `[@key, lines 425-429]`, `[@rfc9110, § 10.2.3]`, `[@sre-book, chapter 21]`, several
//! in one pair of brackets as `[@a; @b, lines 4-5]`.
//!
//! The Markdown parser reads `[@…]` as a link without a definition; each becomes a
//! number in brackets, `[3, lines 425–429]`, in order over the page as footnotes are:
//! the number links to the source's entry in the list at the page's end, and shows the
//! entry on hover or focus; a locator links to the cited part itself (code's lines at
//! the version, an RFC's section, a book's chapter). A citation that cannot be read, or
//! names no source, is a problem at its place.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use super::ids::{Ids, plain_slug};
use super::xrefs::{self, Numbered};
use crate::chart::table::escape;
use crate::site::sources::{Cited, Entry, Kind, Lines, Sources, is_key, parse_lines};

/// Where a citation points inside its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Locator {
    /// The whole source (code: the entry's own lines).
    Whole,
    /// Lines of code.
    Lines(Vec<Lines>),
    /// A section (`§ 10.2.3`, `section 10.2.3`).
    Section(String),
    /// A chapter (`chapter 21`).
    Chapter(String),
    /// Anything else, shown as written (`p. 33`, `table 2`).
    Text(String),
}

/// One source cited, with where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cite {
    /// The source's key.
    pub key: String,
    /// Where in it.
    pub locator: Locator,
}

/// What the citation syntax is, for help.
const SYNTAX: &str = "a citation is `[@key]`, `[@key, lines 425-429]`, `[@key, § 10.2.3]` or \
                      `[@key, chapter 21]`; several are `[@a; @b]`";

/// Reads a citation as written, brackets and all: each source's key and locator, or what
/// is wrong.
pub fn parse(written: &str) -> Result<Vec<Cite>, String> {
    let inner = written
        .strip_prefix('[')
        .and_then(|w| w.strip_suffix(']'))
        .unwrap_or(written);
    let mut cites = Vec::new();
    for part in inner.split(';') {
        let part = part.trim();
        if part.is_empty() {
            return Err(
                "a citation has an empty part: each part between `;` cites a source".to_string(),
            );
        }
        let Some(rest) = part.strip_prefix('@') else {
            return Err(format!(
                "`{part}` in a citation is no source: each part begins with `@` and its key"
            ));
        };
        let end = rest.find([',', ' ', '\t', '\n']).unwrap_or(rest.len());
        let (key, after) = rest.split_at(end);
        if !is_key(key) && !xrefs::is_name(key) {
            return Err(format!("`@{key}` is no key a source can have"));
        }
        let after = after.trim();
        let locator = match after.strip_prefix(',') {
            None if after.is_empty() => Locator::Whole,
            None => {
                return Err(format!(
                    "after `@{key}`, a comma goes before where in the source: `[@{key}, lines 4-5]`"
                ));
            }
            Some(at) => locator(at.trim())?,
        };
        cites.push(Cite {
            key: key.to_string(),
            locator,
        });
    }
    Ok(cites)
}

/// Reads where in a source a citation points.
fn locator(text: &str) -> Result<Locator, String> {
    let words = |prefixes: &[&str]| {
        prefixes
            .iter()
            .find_map(|p| text.strip_prefix(p))
            .map(str::trim)
    };
    if let Some(lines) = words(&["lines ", "line ", "l. ", "ll. "]) {
        return parse_lines(lines).map(Locator::Lines).ok_or_else(|| {
            format!("`{text}` is no lines: write them as `lines 425-429` or `lines 44-48, 100`")
        });
    }
    if let Some(section) = words(&["§", "section "]) {
        if section.is_empty() {
            return Err("say which section: `§ 10.2.3`".to_string());
        }
        return Ok(Locator::Section(section.to_string()));
    }
    if let Some(chapter) = words(&["chapter "]) {
        return Ok(Locator::Chapter(chapter.to_string()));
    }
    if text.is_empty() {
        return Err("after the comma, say where in the source: `lines 4-5`, `§ 2`".to_string());
    }
    Ok(Locator::Text(text.to_string()))
}

/// Checks a citation's sources against the site's: `Err` with the message and help.
fn check(cites: &[Cite], sources: Option<&Sources>) -> Result<(), (String, String)> {
    let Some(sources) = sources else {
        return Err((
            format!("`@{}` is cited, but the site has no sources", cites[0].key),
            format!(
                "list the site's sources in `sources.yaml` beside `site.yaml` (see the authors' \
                 reference, \"Sources and citations\"); for the text itself, write `\\[@{}`",
                &cites[0].key
            ),
        ));
    };
    if sources.unread {
        return Ok(());
    }
    for cite in cites {
        let Some(entry) = sources.get(&cite.key) else {
            let help = match sources.entries.is_empty() {
                true => "sources.yaml lists no source yet: add one under this key".to_string(),
                false => crate::suggest::help(&cite.key, sources.keys(), "sources in sources.yaml"),
            };
            return Err((format!("there is no source `{}`", cite.key), help));
        };
        match (&cite.locator, entry.kind) {
            (Locator::Lines(_), Kind::Code) => {}
            (Locator::Section(section), Kind::Rfc)
                if !section
                    .split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric())) =>
            {
                return Err((
                    format!("`§ {section}` is no section number of an RFC"),
                    "write the section's number as the RFC's contents give it, `§ 10.2.3`; \
                     cite two sections as `[@a, § 1; @a, § 2]`"
                        .to_string(),
                ));
            }
            (Locator::Lines(_), _) => {
                return Err((
                    format!("`{}` is no code: it has no lines to cite", cite.key),
                    "cite a section as `§ 4` or a chapter as `chapter 21`".to_string(),
                ));
            }
            (_, Kind::Code) if entry.lines.is_empty() => {
                return Err((
                    format!(
                        "`{}` is code: say which lines the sentence relies on",
                        cite.key
                    ),
                    format!("`[@{}, lines 425-429]`, or `lines:` in its entry", cite.key),
                ));
            }
            (Locator::Section(part), Kind::Web) | (Locator::Chapter(part), Kind::Book) => {
                // A chapter is a number, a section a name.
                let (parts, what, shown) = match entry.kind {
                    Kind::Book => (&entry.chapters, "chapter", part.to_string()),
                    _ => (&entry.sections, "section", format!("`{part}`")),
                };
                if !parts.is_empty() && !parts.contains_key(part) {
                    return Err((
                        format!("`{}` lists no {what} {shown}", cite.key),
                        crate::suggest::help(
                            part,
                            parts.keys().map(String::as_str),
                            &format!("{what}s it lists"),
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks a cross-reference's names (`[@fig-crowd; @tbl-crowd]`) against the page's
/// figures and tables: the names, or what is wrong, with what to do.
fn cross_reference(
    cites: &[Cite],
    numbered: &BTreeMap<String, Numbered>,
) -> Result<Vec<String>, (String, String)> {
    let mut names = Vec::new();
    for cite in cites {
        let Some(kind) = xrefs::Kind::of(&cite.key) else {
            return Err((
                format!(
                    "`@{}` is a source, and a citation of sources cannot name a figure or a table",
                    cite.key
                ),
                "cite the sources and refer to the figure apart: `[@fig-crowd] shows it [@a]`"
                    .to_string(),
            ));
        };
        if cite.locator != Locator::Whole {
            return Err((
                format!(
                    "a cross-reference names a whole {}: `@{}` takes nothing after a comma",
                    kind.word().to_lowercase(),
                    cite.key
                ),
                format!(
                    "write `[@{}]`; say in the sentence which part of it you mean",
                    cite.key
                ),
            ));
        }
        if !numbered.contains_key(&cite.key) {
            let word = kind.word().to_lowercase();
            let same: Vec<&str> = numbered
                .keys()
                .filter(|n| xrefs::Kind::of(n) == Some(kind))
                .map(String::as_str)
                .collect();
            let help = match same.is_empty() {
                true => format!(
                    "this page has no {word} to refer to: a {word} of this page is named by its \
                     directive's id, `@{}-ID`{}",
                    &cite.key[..3],
                    match kind {
                        xrefs::Kind::Figure =>
                            ", or by `{#fig-name}` after an image alone in its paragraph",
                        xrefs::Kind::Table => " (a scenario's results table)",
                    }
                ),
                false => crate::suggest::help(&cite.key, same, &format!("{word}s of this page")),
            };
            // `@tbl-x` of a figure with no table of its own, or `@fig-x` of a table.
            let other = match kind {
                xrefs::Kind::Figure => format!("tbl-{}", &cite.key[4..]),
                xrefs::Kind::Table => format!("fig-{}", &cite.key[4..]),
            };
            let help = match numbered.get(&other) {
                Some(n) => format!("`@{other}` is {} of this page", n.label()),
                None => help,
            };
            return Err((format!("this page has no {word} `{}`", cite.key), help));
        }
        if names.contains(&cite.key) {
            return Err((
                format!("the cross-reference names `{}` twice", cite.key),
                "name each figure or table once in a pair of brackets".to_string(),
            ));
        }
        names.push(cite.key.clone());
    }
    Ok(names)
}

/// The parser's answer to a link without a definition in `source`, the text it reads:
/// one written `[@…]` is a citation, which comes as a link of the type
/// [`pulldown_cmark::LinkType::ShortcutUnknown`] (nothing else gives one); any other
/// stays text, as in CommonMark. An image (`![@…]`) is no citation: it stays text too.
pub fn as_citation<'s>(
    source: &'s str,
) -> impl FnMut(
    pulldown_cmark::BrokenLink<'s>,
) -> Option<(pulldown_cmark::CowStr<'s>, pulldown_cmark::CowStr<'s>)> {
    use pulldown_cmark::{CowStr, LinkType};
    move |link| {
        // The span of an image's link starts at its `!` or just after it.
        let image = source
            .get(link.span.start..)
            .is_some_and(|s| s.starts_with('!'))
            || source
                .get(..link.span.start)
                .is_some_and(|b| b.ends_with('!'));
        let cites = link.link_type == LinkType::Shortcut
            && link.reference.trim_start().starts_with('@')
            && !image;
        cites.then_some((CowStr::Borrowed(""), CowStr::Borrowed("")))
    }
}

/// A citation as the page reads it: its range in the body, and its text, or what is
/// wrong with it where it stands, with what to do.
pub type Found = (Range<usize>, Result<String, (String, String)>);

/// A citation that cannot be written: placed at its brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadCitation {
    /// The citation, brackets and all, in the body.
    pub range: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub help: String,
}

/// One page's citations: read and checked before writing, numbered as written.
#[derive(Debug, Default)]
pub struct Citations {
    /// Each citation that can be written, by its start in the body.
    at: BTreeMap<usize, Vec<Cite>>,
    /// Each cross-reference (`[@fig-crowd]`), by its start in the body: the names of
    /// what it refers to.
    xrefs: BTreeMap<usize, Vec<String>>,
    /// The page's figures and tables, by name.
    numbered: BTreeMap<String, Numbered>,
    /// The id of each cited source's entry in the list.
    ids: BTreeMap<String, String>,
    /// The sources in the order of their numbers.
    order: Vec<String>,
    /// Each source's number, once cited.
    numbers: BTreeMap<String, usize>,
    /// What the page cites of each source, as written.
    cited: BTreeMap<String, Cited>,
    /// The id of the list's heading.
    heading_id: String,
}

impl Citations {
    /// Reads the citations at `found` (each one's range in `body`), checks them against
    /// `sources`, and gives each source cited an id that avoids those of `ids`; a
    /// cross-reference is checked against the page's figures and tables, `numbered`. A
    /// citation that cannot be written goes to `bad`; every key cited to `keys`.
    pub fn new(
        found: &[Found],
        sources: Option<&Sources>,
        numbered: &[Numbered],
        ids: &mut Ids,
        bad: &mut Vec<BadCitation>,
        keys: &mut BTreeSet<String>,
    ) -> Citations {
        let mut citations = Citations {
            numbered: numbered
                .iter()
                .map(|n| (n.name.clone(), n.clone()))
                .collect(),
            ..Citations::default()
        };
        for (range, read) in found {
            let written = match read {
                Ok(written) => written,
                Err((message, help)) => {
                    bad.push(BadCitation {
                        range: range.clone(),
                        message: message.clone(),
                        help: help.clone(),
                    });
                    continue;
                }
            };
            let cites = parse(written).map_err(|message| (message, SYNTAX.to_string()));
            if let Ok(cites) = &cites
                && cites.iter().any(|c| xrefs::is_name(&c.key))
            {
                match cross_reference(cites, &citations.numbered) {
                    Ok(names) => {
                        citations.xrefs.insert(range.start, names);
                    }
                    Err((message, help)) => bad.push(BadCitation {
                        range: range.clone(),
                        message,
                        help,
                    }),
                }
                continue;
            }
            let checked = cites.and_then(|cites| check(&cites, sources).map(|()| cites));
            match checked {
                Ok(cites) => {
                    for cite in &cites {
                        keys.insert(cite.key.clone());
                        if !citations.ids.contains_key(&cite.key) {
                            let id = ids.unique(&format!("ref-{}", plain_slug(&cite.key)));
                            citations.ids.insert(cite.key.clone(), id);
                        }
                    }
                    citations.at.insert(range.start, cites);
                }
                Err((message, help)) => bad.push(BadCitation {
                    range: range.clone(),
                    message,
                    help,
                }),
            }
        }
        if !citations.ids.is_empty() {
            citations.heading_id = ids.unique("references");
        }
        citations
    }

    /// The HTML of the citation at `range` of `body`: each source's number, linked to its
    /// entry, with the entry shown on hover or focus, and its locator linked to the part
    /// cited. A citation that cannot be written is its text as written.
    pub fn cite(&mut self, range: &Range<usize>, body: &str, sources: Option<&Sources>) -> String {
        if let Some(names) = self.xrefs.get(&range.start) {
            return xrefs::html(names, &self.numbered);
        }
        let (Some(cites), Some(sources)) = (self.at.get(&range.start), sources) else {
            return escape(body.get(range.clone()).unwrap_or_default());
        };
        let mut parts = Vec::new();
        for cite in cites.clone() {
            let (Some(entry), Some(id)) = (sources.get(&cite.key), self.ids.get(&cite.key)) else {
                continue;
            };
            let next = self.order.len() + 1;
            let number = *self.numbers.entry(cite.key.clone()).or_insert_with(|| {
                self.order.push(cite.key.clone());
                next
            });
            let cited = self.cited.entry(cite.key.clone()).or_default();
            let (shown, tip) = locator_html(entry, &cite.locator, cited);
            let id = escape(id);
            let tip = match tip.is_empty() {
                true => entry.text(),
                false => format!("{}, {tip}", entry.text()),
            };
            parts.push(format!(
                "<span class=\"cite\"><a href=\"#{id}\" aria-describedby=\"{id}\">{number}</a>\
                 <span class=\"cite-tip\" aria-hidden=\"true\" data-pagefind-ignore>{}</span>\
                 </span>{shown}",
                escape(&tip)
            ));
        }
        format!("<span class=\"citation\">[{}]</span>", parts.join("; "))
    }

    /// The list of the sources cited, in the order of their numbers, for the page's end;
    /// empty when the page cites none.
    pub fn list(&self, sources: Option<&Sources>) -> String {
        let Some(sources) = sources.filter(|_| !self.order.is_empty()) else {
            return String::new();
        };
        let mut html = format!(
            "<section class=\"references\">\n<h2 id=\"{}\">References</h2>\n<ol>\n",
            escape(&self.heading_id)
        );
        for key in &self.order {
            let (Some(entry), Some(id)) = (sources.get(key), self.ids.get(key)) else {
                continue;
            };
            let cited = self.cited.get(key).cloned().unwrap_or_default();
            html.push_str(&format!(
                "<li id=\"{}\">{}</li>\n",
                escape(id),
                entry.html(&cited)
            ));
        }
        html.push_str("</ol>\n</section>\n");
        html
    }
}

impl Citations {
    /// Every address the page links to for its sources, with the key of each: what
    /// [`Citations::cite`] and [`Citations::list`] write (an entry's own address, and
    /// those of the lines, sections and chapters cited).
    pub fn addresses(&self, sources: Option<&Sources>) -> BTreeSet<(String, String)> {
        let Some(sources) = sources else {
            return BTreeSet::new();
        };
        (self.cited.iter())
            .filter_map(|(key, cited)| Some((key, sources.get(key)?.addresses(cited))))
            .flat_map(|(key, all)| all.into_iter().map(move |a| (key.clone(), a)))
            .collect()
    }
}

/// A citation's locator as HTML after its number (`, lines <a>425–429</a>`), and as text
/// for its tooltip; what it cites is added to `cited`.
fn locator_html(entry: &Entry, locator: &Locator, cited: &mut Cited) -> (String, String) {
    let link = |address: Option<String>, text: &str| match address {
        Some(address) => format!("<a href=\"{}\">{}</a>", escape(&address), escape(text)),
        None => escape(text),
    };
    match locator {
        Locator::Whole => {
            cited.lines.extend(&entry.lines);
            (String::new(), String::new())
        }
        Locator::Lines(lines) => {
            cited.lines.extend(lines);
            let shown: Vec<String> = lines.iter().map(|l| l.shown()).collect();
            let each: Vec<String> = lines
                .iter()
                .zip(&shown)
                .map(|(&l, s)| link(entry.at_lines(l), s))
                .collect();
            let word = crate::site::sources::lines_word(lines);
            (
                format!(", {word} {}", each.join(", ")),
                format!("{word} {}", shown.join(", ")),
            )
        }
        Locator::Section(section) => {
            if !cited.sections.contains(section) {
                cited.sections.push(section.clone());
            }
            match entry.sections.get(section) {
                Some(named) => (
                    format!(
                        ", {}",
                        link(entry.at_section(section), &format!("§ “{}”", named.title))
                    ),
                    format!("section “{}”", named.title),
                ),
                None => (
                    format!(", § {}", link(entry.at_section(section), section)),
                    format!("§ {section}"),
                ),
            }
        }
        Locator::Chapter(chapter) => {
            if !cited.chapters.contains(chapter) {
                cited.chapters.push(chapter.clone());
            }
            (
                format!(", chapter {}", link(entry.at_chapter(chapter), chapter)),
                match entry.chapters.get(chapter) {
                    Some(c) => format!("chapter {chapter}, “{}”", c.title),
                    None => format!("chapter {chapter}"),
                },
            )
        }
        Locator::Text(text) => (format!(", {}", escape(text)), text.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cite(key: &str, locator: Locator) -> Cite {
        Cite {
            key: key.to_string(),
            locator,
        }
    }

    #[test]
    fn citations_read_as_written() {
        let lines = |first, last| Lines { first, last };
        assert_eq!(parse("[@a]"), Ok(vec![cite("a", Locator::Whole)]));
        assert_eq!(
            parse("[@botocore-standard, lines 425-429]"),
            Ok(vec![cite(
                "botocore-standard",
                Locator::Lines(vec![lines(425, 429)])
            )])
        );
        assert_eq!(
            parse("[@rfc9110, § 10.2.3; @sre, chapter 21; @p, p. 33]"),
            Ok(vec![
                cite("rfc9110", Locator::Section("10.2.3".into())),
                cite("sre", Locator::Chapter("21".into())),
                cite("p", Locator::Text("p. 33".into())),
            ])
        );
        assert_eq!(
            parse("[@x, line 100]"),
            Ok(vec![cite("x", Locator::Lines(vec![lines(100, 100)]))])
        );
        for bad in [
            "[see @a]",
            "[@]",
            "[@a b]",
            "[@a,]",
            "[@a, lines 9-4]",
            "[@a, lines x]",
            "[@a; b]",
            "[@a, §]",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
