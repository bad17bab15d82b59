//! The site's sources: `sources.yaml` beside `site.yaml`, one entry per source (a file
//! of a library's code at a version, an RFC, a book, a paper, a page), which pages cite
//! by key as `[@key]` or `[@key, lines 425-429]` (see `render/citations.rs`).
//!
//! Read once per build, as step 1 of the pipeline: every mistake in the file is placed
//! at its line and column, and after the pages are rendered, an entry that no page
//! cites is one too ([`uncited`]).
//!
//! An entry knows how to link to its source: code at its version and lines (a GitHub
//! permalink, `https://github.com/{repository}/blob/{version}/{path}#L425-L429`), an
//! RFC at its section (`https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3`), a
//! book at its chapter (from the entry's `chapters`), anything else at its `url`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::chart::table::escape;
use crate::diag::{Diagnostic, Failure, LineIndex};
use crate::yaml::{self, Map, Naming, Node, Pos, Problem};

/// The file, below the site's root.
pub const FILE: &str = "sources.yaml";

/// What kind of source an entry is, which decides its keys and its links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file of a repository's code at a version: cited at lines.
    Code,
    /// An IETF RFC: cited at a section.
    Rfc,
    /// A book: cited at a chapter.
    Book,
    /// A paper in a journal or the proceedings of a conference.
    Paper,
    /// Any other page: documentation, an article, a draft.
    Web,
}

impl Kind {
    /// The kinds, by the name `kind:` gives them.
    const NAMES: [(&'static str, Kind); 5] = [
        ("code", Kind::Code),
        ("rfc", Kind::Rfc),
        ("book", Kind::Book),
        ("paper", Kind::Paper),
        ("web", Kind::Web),
    ];

    /// The keys an entry of this kind may have, `kind` and `note` with them.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Code => &[
                "kind",
                "note",
                "repository",
                "version",
                "path",
                "name",
                "lines",
            ],
            Kind::Rfc => &["kind", "note", "number", "title", "year"],
            Kind::Book => &[
                "kind",
                "note",
                "authors",
                "title",
                "publisher",
                "year",
                "url",
                "chapters",
            ],
            Kind::Paper => &["kind", "note", "authors", "title", "venue", "year", "url"],
            Kind::Web => &[
                "kind", "note", "authors", "title", "site", "date", "read", "url", "sections",
            ],
        }
    }
}

/// A range of lines, both ends included (`425-429`, or `100` for one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lines {
    /// The first line, from 1.
    pub first: u32,
    /// The last line, at least `first`.
    pub last: u32,
}

impl Lines {
    /// `425–429`, or `100` for one line.
    pub fn shown(self) -> String {
        match self.first == self.last {
            true => self.first.to_string(),
            false => format!("{}–{}", self.first, self.last),
        }
    }

    /// GitHub's anchor for the lines: `#L425-L429`, or `#L100`.
    pub fn anchor(self) -> String {
        match self.first == self.last {
            true => format!("#L{}", self.first),
            false => format!("#L{}-L{}", self.first, self.last),
        }
    }
}

/// `line` before one line, `lines` before any more.
pub fn lines_word(lines: &[Lines]) -> &'static str {
    match lines {
        [one] if one.first == one.last => "line",
        _ => "lines",
    }
}

/// Reads `425-429, 100` (a hyphen or an en dash between the ends): `None` for anything
/// else, a range that runs backwards, or a line 0.
pub fn parse_lines(text: &str) -> Option<Vec<Lines>> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let (first, last) = match part.split_once(['-', '–']) {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let number = |t: &str| {
            (t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u32>().ok())
                .flatten()
                .filter(|&n| n > 0)
        };
        let (first, last) = (number(first)?, number(last)?);
        if last < first {
            return None;
        }
        out.push(Lines { first, last });
    }
    Some(out)
}

/// The address of a file of a repository on GitHub at `version` (a tag or a commit),
/// at `lines` when given. A file that GitHub shows rendered (Markdown,
/// reStructuredText, AsciiDoc, Org) is linked as its text (`?plain=1`), where alone its
/// lines have anchors.
pub fn permalink(repository: &str, version: &str, path: &str, lines: Option<Lines>) -> String {
    let address = format!("https://github.com/{repository}/blob/{version}/{path}");
    let Some(lines) = lines else {
        return address;
    };
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    let rendered = matches!(
        extension.as_deref(),
        Some("md" | "markdown" | "mdown" | "rst" | "adoc" | "asciidoc" | "org")
    );
    let plain = if rendered { "?plain=1" } else { "" };
    format!("{address}{plain}{}", lines.anchor())
}

/// A book's chapter, as its entry lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chapter {
    /// Its title.
    pub title: String,
    /// Its own address, if it has one.
    pub url: Option<String>,
}

/// One source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its key, which pages cite.
    pub key: String,
    /// Where the key stands in the file.
    pub pos: Pos,
    /// Its kind.
    pub kind: Kind,
    /// What the source says that the site relies on, as HTML from one paragraph of
    /// Markdown (text, code spans, emphasis): shown after the entry in the page's list.
    pub note: Option<String>,
    /// Who wrote it.
    pub authors: Vec<String>,
    /// Its title.
    pub title: Option<String>,
    /// Its publisher, journal or conference, or site.
    pub publisher: Option<String>,
    /// When it was published (a year or a date).
    pub year: Option<String>,
    /// When a page that may change was read.
    pub read: Option<String>,
    /// Its address.
    pub url: Option<String>,
    /// Code: the repository, `owner/name` on GitHub.
    pub repository: Option<String>,
    /// Code: the tag or commit.
    pub version: Option<String>,
    /// Code: the file's path in the repository.
    pub path: Option<String>,
    /// Code: the name shown for the project (the repository's name if none).
    pub name: Option<String>,
    /// Code: the lines a citation without lines of its own cites.
    pub lines: Vec<Lines>,
    /// RFC: its number.
    pub number: Option<u32>,
    /// Book: its chapters, by number as citations write them.
    pub chapters: BTreeMap<String, Chapter>,
    /// Web: its sections, by the name citations write (`section pushback`), each with
    /// its title and address.
    pub sections: BTreeMap<String, Chapter>,
}

impl Entry {
    /// The address of the whole source: code at its version, an RFC, a book's or
    /// page's `url`.
    pub fn address(&self) -> Option<String> {
        match self.kind {
            Kind::Code => Some(permalink(
                self.repository.as_deref()?,
                self.version.as_deref()?,
                self.path.as_deref()?,
                None,
            )),
            Kind::Rfc => Some(format!(
                "https://www.rfc-editor.org/rfc/rfc{}",
                self.number?
            )),
            Kind::Book | Kind::Paper | Kind::Web => self.url.clone(),
        }
    }

    /// The address of the source at `lines`: a permalink to the version and lines. A
    /// file that GitHub shows rendered (Markdown, reStructuredText, AsciiDoc, Org) is
    /// shown as its text (`?plain=1`), where alone its lines have anchors.
    pub fn at_lines(&self, lines: Lines) -> Option<String> {
        match self.kind {
            Kind::Code => Some(permalink(
                self.repository.as_deref()?,
                self.version.as_deref()?,
                self.path.as_deref()?,
                Some(lines),
            )),
            _ => None,
        }
    }

    /// The address of a section: an RFC's (`10.2.3`), or one a page's `sections` list.
    pub fn at_section(&self, section: &str) -> Option<String> {
        match self.kind {
            Kind::Rfc => Some(format!("{}#section-{section}", self.address()?)),
            _ => self.sections.get(section)?.url.clone(),
        }
    }

    /// The address of a book's chapter, when the entry lists one.
    pub fn at_chapter(&self, chapter: &str) -> Option<String> {
        self.chapters.get(chapter)?.url.clone()
    }

    /// Every address [`Entry::html`] and a citation write for what `cited` names: the
    /// source's own, and those of its lines, sections and chapters cited.
    pub fn addresses(&self, cited: &Cited) -> BTreeSet<String> {
        let lines = cited.lines.iter().map(|&l| self.at_lines(l));
        let sections = cited.sections.iter().map(|s| self.at_section(s));
        let chapters = cited.chapters.iter().map(|c| self.at_chapter(c));
        std::iter::once(self.address())
            .chain(lines)
            .chain(sections)
            .chain(chapters)
            .flatten()
            .collect()
    }

    /// The version as shown: a tag as it is, a commit's first seven characters.
    fn version_shown(&self) -> String {
        let version = self.version.as_deref().unwrap_or_default();
        match version.len() == 40 && version.bytes().all(|b| b.is_ascii_hexdigit()) {
            true => format!("commit {}", &version[..7]),
            false => version.to_string(),
        }
    }

    /// The project's name as shown: `name`, or the repository's own name.
    fn project(&self) -> &str {
        self.name.as_deref().unwrap_or_else(|| {
            let repository = self.repository.as_deref().unwrap_or_default();
            repository.rsplit('/').next().unwrap_or(repository)
        })
    }

    /// The entry as plain text, for a citation's tooltip: `botocore 1.43.67,
    /// botocore/retries/standard.py`, `RFC 9110, "HTTP Semantics"`, ….
    pub fn text(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let authors = self.authors.join(", ");
        let title = self.title.clone().unwrap_or_default();
        match self.kind {
            Kind::Code => {
                parts.push(format!("{} {}", self.project(), self.version_shown()));
                parts.push(self.path.clone().unwrap_or_default());
            }
            Kind::Rfc => {
                parts.push(format!("RFC {}", self.number.unwrap_or_default()));
                parts.push(format!("“{title}”"));
            }
            Kind::Book => {
                parts.push(authors);
                parts.push(title);
            }
            Kind::Paper | Kind::Web => {
                parts.push(authors);
                parts.push(format!("“{title}”"));
            }
        }
        parts.extend(self.publisher.clone());
        if self.kind != Kind::Code {
            parts.extend(self.year.clone());
        }
        parts.retain(|p| !p.is_empty());
        parts.join(", ")
    }

    /// The entry as HTML for the page's list, with every part of the source that the
    /// page cites linked: code's lines, an RFC's sections, a book's chapters.
    pub fn html(&self, cited: &Cited) -> String {
        let link = |address: Option<String>, text: String| match address {
            Some(address) => format!("<a href=\"{}\">{text}</a>", escape(&address)),
            None => text,
        };
        let authors = escape(&self.authors.join(", "));
        let title = escape(self.title.as_deref().unwrap_or_default());
        let mut parts: Vec<String> = Vec::new();
        match self.kind {
            Kind::Code => {
                parts.push(escape(&format!(
                    "{} {}",
                    self.project(),
                    self.version_shown()
                )));
                let path = escape(self.path.as_deref().unwrap_or_default());
                parts.push(link(self.address(), format!("<code>{path}</code>")));
                let lines: BTreeSet<Lines> = cited.lines.iter().copied().collect();
                if !lines.is_empty() {
                    let each: Vec<String> = (lines.iter())
                        .map(|&l| link(self.at_lines(l), l.shown()))
                        .collect();
                    let word = lines_word(&lines.iter().copied().collect::<Vec<_>>());
                    parts.push(format!("{word} {}", each.join(", ")));
                }
            }
            Kind::Rfc => {
                let number = self.number.unwrap_or_default();
                parts.push(link(self.address(), format!("RFC {number}")));
                parts.push(format!("“{title}”"));
            }
            Kind::Book => {
                parts.push(authors);
                parts.push(link(self.address(), format!("<cite>{title}</cite>")));
            }
            Kind::Paper | Kind::Web => {
                parts.push(authors);
                parts.push(format!("“{}”", link(self.address(), title)));
            }
        }
        parts.extend(self.publisher.as_deref().map(escape));
        if self.kind != Kind::Code {
            parts.extend(self.year.as_deref().map(escape));
        }
        if let Some(read) = &self.read {
            parts.push(format!("read {}", escape(read)));
        }
        let numbered: Vec<&String> = (cited.sections.iter())
            .filter(|s| !self.sections.contains_key(*s))
            .collect();
        if !numbered.is_empty() {
            let each: Vec<String> = (numbered.iter())
                .map(|s| link(self.at_section(s), escape(s)))
                .collect();
            parts.push(format!("§ {}", each.join(", ")));
        }
        for section in &cited.sections {
            if let Some(named) = self.sections.get(section) {
                let title = format!("section “{}”", escape(&named.title));
                parts.push(link(self.at_section(section), title));
            }
        }
        for chapter in &cited.chapters {
            let named = match self.chapters.get(chapter) {
                Some(c) => format!("chapter {}, “{}”", escape(chapter), escape(&c.title)),
                None => format!("chapter {}", escape(chapter)),
            };
            parts.push(link(self.at_chapter(chapter), named));
        }
        parts.retain(|p| !p.is_empty());
        let mut html = parts.join(", ");
        html.push('.');
        if let Some(note) = &self.note {
            html.push(' ');
            html.push_str(note);
        }
        html
    }
}

/// What a page cites of one entry: the lines, sections and chapters its citations name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cited {
    /// Lines of code.
    pub lines: Vec<Lines>,
    /// An RFC's sections, in the order first cited.
    pub sections: Vec<String>,
    /// A book's chapters, in the order first cited.
    pub chapters: Vec<String>,
}

/// A note's Markdown as HTML without a paragraph around it: one paragraph of text, code
/// spans and emphasis, or what it holds besides (a link, whose address no check would
/// follow; a list, a heading or HTML, which would break the list of references).
fn note_html(text: &str) -> Result<String, String> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let events: Vec<Event> = Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH).collect();
    let inner = match events.as_slice() {
        [
            Event::Start(Tag::Paragraph),
            inner @ ..,
            Event::End(TagEnd::Paragraph),
        ] => inner,
        [] => &[],
        _ => return Err("one paragraph".to_string()),
    };
    for event in inner {
        let fine = match event {
            Event::Text(_) | Event::Code(_) | Event::SoftBreak | Event::HardBreak => true,
            Event::Start(tag) => matches!(tag, Tag::Emphasis | Tag::Strong | Tag::Strikethrough),
            Event::End(tag) => {
                matches!(
                    tag,
                    TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough
                )
            }
            _ => false,
        };
        if !fine {
            return Err(match event {
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => "no link",
                Event::Html(_) | Event::InlineHtml(_) => "no HTML",
                _ => "only text, code and emphasis",
            }
            .to_string());
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, inner.iter().cloned());
    Ok(html)
}

/// Whether `url` is an address a reader's browser opens: `https://` or `http://`.
fn is_address(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

/// The site's sources, by key, and where each stands in the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// The entries, by key.
    pub entries: BTreeMap<String, Entry>,
    /// The file's text, to place a problem found after reading (an entry never cited).
    source: String,
    /// Whether the file could not be read: its problems are told, and citations are
    /// not checked against it, which would tell them again as unknown sources.
    pub unread: bool,
}

impl Sources {
    /// The entry `key`.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// Every key, for a "did you mean".
    pub fn keys(&self) -> impl Iterator<Item = &str> + Clone {
        self.entries.keys().map(String::as_str)
    }
}

impl Sources {
    /// The place of the entry `key` in the file, at its key, as a diagnostic with no
    /// message yet: where what the entry makes (an address) is told.
    pub fn place(&self, key: &str) -> Option<Diagnostic> {
        let entry = self.entries.get(key)?;
        let index = LineIndex::new(&self.source);
        let width = key.chars().count();
        Some(Diagnostic::indexed(
            FILE,
            &self.source,
            &index,
            entry.pos,
            width,
            String::new(),
        ))
    }

    /// Where the source `key` writes the address `url`, as a diagnostic with no message
    /// yet: at the address itself where the entry holds it as written (its `url`, a
    /// chapter's or a section's), else at the entry's key (an address the entry's parts
    /// make, such as a permalink to lines).
    pub fn place_of(&self, key: &str, url: &str) -> Option<Diagnostic> {
        let entry = self.entries.get(key)?;
        let index = LineIndex::new(&self.source);
        // The entry's text: from its key's line to the next key at the top level.
        let start = self
            .source
            .match_indices('\n')
            .nth(entry.pos.line.saturating_sub(2))
            .map_or(0, |(i, _)| i + 1);
        let start = if entry.pos.line <= 1 { 0 } else { start };
        let text = &self.source[start..];
        let first_line = text.find('\n').map_or(text.len(), |n| n + 1);
        let end = text[first_line..]
            .match_indices('\n')
            .map(|(i, _)| first_line + i + 1)
            .find(|&i| text[i..].starts_with(|c: char| !c.is_whitespace() && c != '#'))
            .unwrap_or(text.len());
        let at = (!url.is_empty()).then(|| text[..end].find(url)).flatten();
        match at {
            Some(at) => Some(Diagnostic::indexed(
                FILE,
                &self.source,
                &index,
                index.pos(&self.source, start + at),
                url.chars().count(),
                String::new(),
            )),
            None => self.place(key),
        }
    }
}

/// Whether `key` can be cited as `[@key]`: a letter, digit or `_` first, then letters,
/// digits and `_ - . : /`, not ending in punctuation.
pub fn is_key(key: &str) -> bool {
    let mut chars = key.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    first_ok
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
        && key
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Reads the site's `sources.yaml`: `None` when the site has none.
pub fn load(root: &Path) -> Result<Option<Sources>, Failure> {
    let bytes = match std::fs::read(root.join(FILE)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Failure::Other(format!("cannot read {FILE}: {e}"))),
    };
    let source = crate::diag::utf8_or_located(FILE, bytes).map_err(Failure::Input)?;
    read(&source).map(Some).map_err(Failure::Input)
}

/// Reads the text of a `sources.yaml`.
pub fn read(source: &str) -> Result<Sources, Vec<Diagnostic>> {
    let index = LineIndex::new(source);
    let located = |p: Problem| {
        Diagnostic::indexed(FILE, source, &index, p.pos, p.width, p.message).with_help(p.help)
    };
    let root = yaml::parse(source).map_err(|e| {
        vec![Diagnostic::indexed(FILE, source, &index, e.pos, 1, e.message).with_help(e.help)]
    })?;
    let mut problems = Vec::new();
    let mut entries = BTreeMap::new();
    if let Some(map) = Map::read_free(&root, Naming::In(FILE), FILE, &mut problems) {
        for (key, key_node) in map.keys() {
            if !is_key(key) {
                problems.push(Problem::at(
                    key_node,
                    format!("`{key}` cannot be cited as `[@{key}]`"),
                    Some(
                        "a key is letters, digits and `_ - . : /`, beginning and ending \
                         with a letter or digit"
                            .to_string(),
                    ),
                ));
                continue;
            }
            if key.starts_with("fig-") || key.starts_with("tbl-") {
                problems.push(Problem::at(
                    key_node,
                    format!(
                        "`{key}` would name a figure or a table: `[@{key}]` is a cross-reference"
                    ),
                    Some(
                        "a source's key cannot begin with `fig-` or `tbl-`, which name the \
                         page's figures and tables; choose another"
                            .to_string(),
                    ),
                ));
                continue;
            }
            let Some(node) = map.get(key) else {
                problems.push(Problem::at(
                    key_node,
                    format!("the source `{key}` is empty"),
                    Some("give it a `kind:` and the keys of its kind".to_string()),
                ));
                continue;
            };
            if let Some(entry) = entry(key, key_node, node, &mut problems) {
                entries.insert(key.to_string(), entry);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.into_iter().map(located).collect());
    }
    Ok(Sources {
        entries,
        source: source.to_string(),
        unread: false,
    })
}

/// One entry, or `None` with its problems added.
fn entry(key: &str, key_node: &Node, node: &Node, problems: &mut Vec<Problem>) -> Option<Entry> {
    let before = problems.len();
    let kind_of = |node: &Node| -> Result<Kind, Problem> {
        let names = Kind::NAMES.iter().map(|(n, _)| *n);
        let name = node.as_scalar().unwrap_or_default();
        Kind::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| *k)
            .ok_or_else(|| {
                Problem::at(
                    node,
                    format!("`{key}.kind` is {}, not a kind of source", node.describe()),
                    Some(crate::suggest::help(name, names, "kinds")),
                )
            })
    };
    let kind = match node.get("kind") {
        Some(kind) => match kind_of(kind) {
            Ok(kind) => kind,
            Err(p) => {
                problems.push(p);
                return None;
            }
        },
        None => {
            problems.push(Problem::at(
                key_node,
                format!("the source `{key}` has no `kind:`"),
                Some("say what it is: `kind:` code, rfc, book, paper or web".to_string()),
            ));
            return None;
        }
    };
    let prefix = format!("{key}.");
    let map = Map::read(node, kind.keys(), Naming::Path(&prefix), FILE, problems)?;
    let mut text = |name: &str| match map.text(name) {
        Ok(t) => t.map(str::to_string),
        Err(p) => {
            problems.push(p);
            None
        }
    };
    let note_text = text("note");
    let title = text("title");
    let publisher = text("publisher")
        .or_else(|| text("venue"))
        .or_else(|| text("site"));
    let year = text("year").or_else(|| text("date"));
    let read = text("read");
    let url = text("url");
    let repository = text("repository");
    let version = text("version");
    let path = text("path");
    let name = text("name");
    let lines_text = text("lines");
    let number_text = text("number");
    let note = match (note_text, map.get("note")) {
        (Some(note), Some(node)) => match note_html(&note) {
            Ok(html) => Some(html),
            Err(what) => {
                problems.push(Problem::at(
                    node,
                    format!("`{key}.note` must be {what}"),
                    Some(
                        "a note is one paragraph of text, `code` and *emphasis*; a source it \
                         names is an entry of its own"
                            .to_string(),
                    ),
                ));
                None
            }
        },
        _ => None,
    };
    let mut needs = |name: &str, meaning: &str| {
        if let Err(p) = map.required(name, meaning) {
            problems.push(p);
        }
    };
    match kind {
        Kind::Code => {
            needs("repository", "the repository on GitHub, as `owner/name`");
            needs("version", "the tag or commit the lines are read at");
            needs("path", "the file's path in the repository");
        }
        Kind::Rfc => {
            needs("number", "the RFC's number");
            needs("title", "the RFC's title");
        }
        Kind::Book => needs("title", "the book's title"),
        Kind::Paper | Kind::Web => {
            needs("title", "its title");
            needs("url", "its address");
        }
    }
    if let (Some(repository), Some(node)) = (&repository, map.get("repository")) {
        let parts: Vec<&str> = repository.split('/').collect();
        let fine = |p: &str| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        if parts.len() != 2 || !parts.iter().all(|p| fine(p)) {
            problems.push(Problem::at(
                node,
                format!("`{key}.repository` must be `owner/name` on GitHub, found `{repository}`"),
                Some("for example `repository: boto/botocore`".to_string()),
            ));
        }
    }
    // Each is a part of an address as it is written: a `#`, `?` or `%` would end it or
    // change it.
    for (name, value) in [("version", &version), ("path", &path)] {
        if let (Some(value), Some(node)) = (value, map.get(name))
            && (value.contains(|c: char| c.is_whitespace() || "#?%\"<>\\".contains(c))
                || value.starts_with('/')
                || value
                    .split('/')
                    .any(|part| part.is_empty() || part == "." || part == ".."))
        {
            problems.push(Problem::at(
                node,
                format!(
                    "`{key}.{name}` must be a {} as GitHub writes it, found `{value}`",
                    if name == "path" {
                        "path of a file"
                    } else {
                        "tag or commit"
                    }
                ),
                Some(
                    "no space, `#`, `?`, `%`, `\"`, `<`, `>` or `\\`, no `/` at its start or \
                     end, no `.` or `..` as a part"
                        .to_string(),
                ),
            ));
        }
    }
    let mut lines = Vec::new();
    if let (Some(text), Some(node)) = (&lines_text, map.get("lines")) {
        match parse_lines(text) {
            Some(read) => lines = read,
            None => problems.push(Problem::at(
                node,
                format!("`{key}.lines` must be lines such as `425-429` or `44-48, 100`"),
                None,
            )),
        }
    }
    let mut number = None;
    if let (Some(text), Some(node)) = (&number_text, map.get("number")) {
        match text.parse::<u32>() {
            Ok(n) if n > 0 => number = Some(n),
            _ => problems.push(Problem::at(
                node,
                format!(
                    "`{key}.number` must be the RFC's number, found {}",
                    node.describe()
                ),
                None,
            )),
        }
    }
    if let Some(node) = map.get("url")
        && let Some(url) = &url
        && !is_address(url)
    {
        problems.push(Problem::at(
            node,
            format!("`{key}.url` must be an address beginning with https://"),
            None,
        ));
    }
    let authors = match map.get("authors") {
        None => Vec::new(),
        Some(node) => match &node.value {
            yaml::Value::Seq(items) => items
                .iter()
                .filter_map(|item| match item.as_scalar() {
                    Some(name) => Some(name.to_string()),
                    None => {
                        problems.push(Problem::at(
                            item,
                            format!("`{key}.authors` must list names, found {}", item.describe()),
                            None,
                        ));
                        None
                    }
                })
                .collect(),
            yaml::Value::Scalar { text, .. } => vec![text.clone()],
            yaml::Value::Map(_) => {
                problems.push(Problem::at(
                    node,
                    format!("`{key}.authors` must be a name or a list of names"),
                    None,
                ));
                Vec::new()
            }
        },
    };
    let chapters = map
        .get("chapters")
        .map(|node| parts_of(key, "chapters", node, problems))
        .unwrap_or_default();
    let sections = map
        .get("sections")
        .map(|node| parts_of(key, "sections", node, problems))
        .unwrap_or_default();
    if problems.len() > before {
        return None;
    }
    Some(Entry {
        key: key.to_string(),
        pos: key_node.pos,
        kind,
        note,
        authors,
        title,
        publisher,
        year,
        read,
        url,
        repository,
        version,
        path,
        name,
        lines,
        number,
        chapters,
        sections,
    })
}

/// A book's `chapters:` or a page's `sections:`, `what`: a map of each part's name,
/// as citations write it, to its title and address.
fn parts_of(
    key: &str,
    what: &str,
    node: &Node,
    problems: &mut Vec<Problem>,
) -> BTreeMap<String, Chapter> {
    let mut out = BTreeMap::new();
    let naming = format!("{key}.{what}.");
    let Some(map) = Map::read_free(node, Naming::Path(&naming), what, problems) else {
        return out;
    };
    for (name, name_node) in map.keys() {
        let prefix = format!("{key}.{what}.{name}.");
        let Some(part) = map.get(name) else {
            problems.push(Problem::at(
                name_node,
                format!("`{key}.{what}.{name}` is empty"),
                Some("give it a `title:` and a `url:`".to_string()),
            ));
            continue;
        };
        let Some(fields) = Map::read(
            part,
            &["title", "url"],
            Naming::Path(&prefix),
            "a part",
            problems,
        ) else {
            continue;
        };
        let title = fields
            .required("title", "its title")
            .and_then(|_| fields.text("title"));
        let url = fields.text("url");
        match (title, url) {
            (Err(p), _) | (_, Err(p)) => problems.push(p),
            (Ok(_), Ok(Some(url))) if !is_address(url) => {
                problems.push(Problem::at(
                    fields.get("url").unwrap_or(part),
                    format!("`{prefix}url` must be an address beginning with https://"),
                    None,
                ));
            }
            (Ok(title), Ok(url)) => {
                let chapter = Chapter {
                    title: title.unwrap_or_default().to_string(),
                    url: url.map(str::to_string),
                };
                out.insert(name.to_string(), chapter);
            }
        }
    }
    out
}

/// The site's sources, read for the pipeline: `None` when the site has none; when the
/// file has problems, they go to `problems` and the sources are [`Sources::unread`].
pub fn read_for_site(
    root: &Path,
    problems: &mut Vec<Diagnostic>,
) -> Result<Option<Sources>, Failure> {
    match load(root) {
        Ok(sources) => Ok(sources),
        Err(Failure::Input(more)) => {
            problems.extend(more);
            Ok(Some(Sources {
                unread: true,
                ..Sources::default()
            }))
        }
        Err(other) => Err(other),
    }
}

/// Each entry that no page cites, placed at its key: a source the site lists but no
/// sentence relies on.
pub fn uncited(sources: &Sources, cited: &BTreeSet<&str>) -> Vec<Diagnostic> {
    let index = LineIndex::new(&sources.source);
    sources
        .entries
        .values()
        .filter(|e| !cited.contains(e.key.as_str()))
        .map(|e| {
            Diagnostic::indexed(
                FILE,
                &sources.source,
                &index,
                e.pos,
                e.key.chars().count(),
                format!("the source `{}` is never cited", e.key),
            )
            .with_help(Some(format!(
                "cite it where a page relies on it, as `[@{}]`, or remove it",
                e.key
            )))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_written() {
        let l = |first, last| Lines { first, last };
        assert_eq!(parse_lines("425-429"), Some(vec![l(425, 429)]));
        assert_eq!(
            parse_lines("44–48, 100"),
            Some(vec![l(44, 48), l(100, 100)])
        );
        for bad in ["", "0", "5-4", "a-b", "1-", "4 2", "+3", "99999999999"] {
            assert_eq!(parse_lines(bad), None, "{bad:?}");
        }
        assert_eq!(l(425, 429).anchor(), "#L425-L429");
        assert_eq!(l(100, 100).anchor(), "#L100");
        assert_eq!(l(425, 429).shown(), "425–429");
    }

    #[test]
    fn keys_that_can_be_cited() {
        for key in [
            "botocore-standard",
            "rfc9110",
            "a6_pushback",
            "x.y:z/w",
            "2015",
        ] {
            assert!(is_key(key), "{key}");
        }
        for key in ["", "-x", "x-", "a b", "a,b", "a;b", "a]"] {
            assert!(!is_key(key), "{key}");
        }
    }
}
