//! One page's Markdown to HTML: directives spliced in as figures, references replaced by
//! their values, headings given anchors, footnotes collected at the end, bare addresses
//! linked, GitHub's alerts as callouts, internal links resolved against `base_url`.

mod autolinks;
mod citations;
mod footnotes;
mod ids;
mod math;
mod plan;
pub(super) mod raw_html;
mod slug_table;
mod writer;
mod xrefs;

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, Options, Parser, TagEnd};
use serde::Serialize;

pub use super::links::{External, Link};
use crate::chart::table::escape;
use crate::directive::markdown_options;
pub use citations::BadCitation;
use footnotes::Footnotes;
pub use ids::slug;
pub use math::{BadFormula, typeset};
use plan::{Plan, split_notes};
use writer::Writer;
pub use xrefs::Named;

/// Events of the parser, each with its byte range in the body.
type Events<'s> = Vec<(Event<'s>, Range<usize>)>;

/// An entry of a page's table of contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TocEntry {
    /// 2 for `##`, 3 for `###`, …
    pub level: u8,
    /// The heading's anchor.
    pub id: String,
    /// The heading's text: a formula as its source.
    pub title: String,
    /// The heading's text as HTML, escaped, with its formulas typeset: what the table
    /// of contents shows.
    pub html: String,
    /// Whether it is shown as a bullet below the numbered entry before it (a `###`
    /// after a `##`); a numbered entry takes the next number, a bullet none.
    pub sub: bool,
    /// Whether it is the first bullet of its numbered entry: its list opens here.
    pub first: bool,
    /// Whether it ends its numbered entry's item: the last bullet, or a numbered entry
    /// with none after it.
    pub last: bool,
}

/// Marks which entries of `toc` are bullets of the numbered entry before them, and
/// where each numbered entry's item opens and ends: a `###` with a `##` before it is a
/// bullet; one before any `##` has nothing to be under, and is numbered.
fn nest(toc: &mut [TocEntry]) {
    let mut under = false;
    for k in 0..toc.len() {
        let sub = under && toc[k].level > 2;
        under |= toc[k].level == 2;
        let first = sub && !toc[k - 1].sub;
        let last = toc.get(k + 1).is_none_or(|next| next.level == 2 || !under);
        let entry = &mut toc[k];
        (entry.sub, entry.first, entry.last) = (sub, first, last);
    }
}

/// A custom heading id that the page already uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakenId {
    /// Byte range in the page body of the `{#id}` as written.
    pub range: Range<usize>,
    /// The id.
    pub id: String,
    /// Where in the body the heading that took it first starts, or `None` when a
    /// figure holds it.
    pub first: Option<usize>,
}

/// How a reference is marked for the browser, where it stands in text outside links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A reference the browser may update, with the path it is marked with: one of a
    /// scenario whose figure on the page is explorable, written in a
    /// `<span data-ref="…">` of its own.
    Ref(String),
    /// The start of a sentence marked with a condition (`{{ if … }}`, whose value is
    /// empty), with the condition as the page marks it: a `<span data-if="…">`.
    If(String),
    /// Its end (`{{ end }}`): `</span>`.
    End,
}

/// What rendering one page gives.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    /// The HTML of the body.
    pub html: String,
    /// `##` and `###` headings.
    pub toc: Vec<TocEntry>,
    /// Every id the body gives: headings, footnotes and their references, figures.
    pub ids: HashSet<String>,
    /// Internal links to check.
    pub links: Vec<Link>,
    /// Links, images and bare addresses that leave the site over HTTP, for
    /// `check --external`.
    pub external: Vec<External>,
    /// Every address the page's citations and its list of references link to, with the
    /// key of the source that makes it: (key, address).
    pub sourced: std::collections::BTreeSet<(String, String)>,
    /// Targets that lead nowhere as written (a `.md` file that is no page, an address
    /// above the root): (byte range, target).
    pub broken: Vec<(Range<usize>, String)>,
    /// Custom heading ids that are already used on the page.
    pub taken: Vec<TakenId>,
    /// Formulas that cannot be typeset.
    pub formulas: Vec<BadFormula>,
    /// Citations that cannot be written.
    pub citations: Vec<BadCitation>,
    /// The key of every source the page cites.
    pub cited: std::collections::BTreeSet<String>,
    /// Conditions (by the byte offset of their `{{ if … }}`) whose sentence is not
    /// written as one element: it crosses the end of emphasis or a link, or stands
    /// where no HTML can (a link's text, a title).
    pub unbalanced: Vec<usize>,
}

/// What a page needs from the rest of the site to render.
pub struct Context<'a> {
    /// The page's own address below the root (`crowd/`).
    pub url: &'a str,
    /// The page's file below `content/` (`crowd.md`), to resolve relative `.md` links.
    pub content_path: &'a str,
    /// Every file below `content/` the site publishes → its address (percent-encoded):
    /// a page's (`crowd/`), or the path of a file copied beside it (`sub/pic.png`).
    pub pages: &'a BTreeMap<String, String>,
    /// The site's base path (`/` or `/repo/`).
    pub base_path: &'a str,
    /// The HTML of each directive's figure, by the byte offset in the body at which its
    /// fenced block starts; empty for `check`, which draws none.
    pub figures: &'a BTreeMap<usize, std::sync::Arc<str>>,
    /// Ids the page's figures hold, known without drawing them (`check` has no figures):
    /// no heading or footnote takes them, nor one written in `figures`.
    pub reserved: &'a [String],
    /// Each reference's byte range in the body and its value.
    pub values: &'a [(Range<usize>, String)],
    /// What the browser needs of some references, by the byte offset in the body at
    /// which each starts (see [`Mark`]).
    pub marks: &'a BTreeMap<usize, Mark>,
    /// Whether quotes, dashes and ellipses become typographic (`smart_punctuation`).
    pub smart_punctuation: bool,
    /// Code highlighted by earlier builds, and this one's.
    pub highlights: &'a super::highlight::Kept,
    /// The site's sources, which citations name; `None` when it has none.
    pub sources: Option<&'a super::sources::Sources>,
    /// The page's directives' figures and tables, each with its place, the name a
    /// cross-reference gives it and its anchor, to be numbered with the images named as
    /// figures ([`xrefs`]).
    pub named: &'a [Named],
}

/// A body an earlier build rendered, with everything it was rendered from: `serve`
/// keeps one per page ([`super::memo`]), and a build whose page has the same body and
/// the same [`Context`] takes its rendering rather than rendering it again. [`render`]
/// is a function of these alone (the highlighter's memo in the context only saves
/// work: highlighting is a function of the code and its language), so the bytes are
/// the same.
pub struct Remembered {
    body: String,
    url: String,
    content_path: String,
    pages: BTreeMap<String, String>,
    base_path: String,
    figures: BTreeMap<usize, std::sync::Arc<str>>,
    reserved: Vec<String>,
    values: Vec<(Range<usize>, String)>,
    marks: BTreeMap<usize, Mark>,
    smart_punctuation: bool,
    sources: Option<super::sources::Sources>,
    named: Vec<Named>,
    /// What it rendered to.
    pub rendered: Rendered,
}

impl Remembered {
    /// `rendered`, with the body and context it was rendered from.
    pub fn new(body: &str, cx: &Context, rendered: Rendered) -> Remembered {
        Remembered {
            body: body.to_string(),
            url: cx.url.to_string(),
            content_path: cx.content_path.to_string(),
            pages: cx.pages.clone(),
            base_path: cx.base_path.to_string(),
            figures: cx.figures.clone(),
            reserved: cx.reserved.to_vec(),
            values: cx.values.to_vec(),
            marks: cx.marks.clone(),
            smart_punctuation: cx.smart_punctuation,
            sources: cx.sources.cloned(),
            named: cx.named.to_vec(),
            rendered,
        }
    }

    /// Whether it was rendered from this very body and context.
    pub fn is_for(&self, body: &str, cx: &Context) -> bool {
        // Every field of the context but the highlighter's memo; the cheap ones first.
        let Context {
            url,
            content_path,
            pages,
            base_path,
            figures,
            reserved,
            values,
            marks,
            smart_punctuation,
            highlights: _,
            sources,
            named,
        } = cx;
        self.smart_punctuation == *smart_punctuation
            && self.url == *url
            && self.content_path == *content_path
            && self.base_path == *base_path
            && self.body == body
            && self.values == *values
            && self.marks == **marks
            && self.reserved == *reserved
            && self.pages == **pages
            && self.figures == **figures
            && self.sources.as_ref() == *sources
            && self.named == *named
    }
}

/// Renders a page body.
///
/// Each reference is resolved at its own place: before the Markdown is read, its source
/// range is replaced by a token that no Markdown rule touches (no punctuation that smart
/// quotes, dashes, emphasis or a table's `|` would act on, and a space, so that it never
/// makes an address of the text around it), and the token becomes the value in the text
/// and titles the parser gives back. So typography never rewrites a reference, a `|` in
/// one does not split a table cell, and text that is not a reference is never touched.
///
/// Ids are given before anything is written, so that none is given twice: first those
/// of the figures, then custom heading ids (`{#id}`, a mistake when taken), then the
/// footnotes', then the other headings' from their text as written, a reference counted
/// as its path: a heading's anchor is the same in `check`, which has no values, as in
/// `build`, and does not move when a number does.
pub fn render(body: &str, cx: &Context) -> Rendered {
    let tokens = Tokens::new(body, cx.values);
    let mut options = markdown_options();
    if cx.smart_punctuation {
        options |= Options::ENABLE_SMART_PUNCTUATION;
    }
    let mut stream = read(&tokens, options);
    if cx.smart_punctuation {
        close_quotes(&mut stream, body);
    }
    let mut out = Rendered::default();
    let typeset = math::check(&stream, &tokens, &mut out);
    let plan = Plan::new(&stream, &tokens, cx, &mut out);
    let (page, mut notes) = split_notes(stream);
    let mut writer = Writer {
        tokens: &tokens,
        cx,
        plan,
        out,
        code_blocks: 0,
        tables: 0,
        formulas: 0,
        typeset,
        links: 0,
        html_links: 0,
        images: 0,
        level: 0,
        open_if: None,
        ended: Vec::new(),
    };
    let mut html = writer.write(page);
    // The notes in the order of their numbers; a note may refer to one more.
    let mut n = 0;
    let mut list = String::new();
    while let Some(key) = writer.plan.footnotes.nth(n).map(str::to_string) {
        n += 1;
        let Some(mut events) = notes.remove(&key) else {
            continue;
        };
        list.push_str(&writer.plan.footnotes.item(&key));
        let back = writer.plan.footnotes.back_links(&key);
        // The way back ends the note's last paragraph, as on GitHub; a note that ends
        // otherwise (a list, a code block) gets a paragraph for it.
        let in_paragraph = matches!(events.last(), Some((Event::End(TagEnd::Paragraph), _)));
        if in_paragraph {
            // Written without its end, which follows the way back.
            events.pop();
            list.push_str(&writer.write(events));
            list.push_str(&format!(" {back}</p>\n"));
        } else {
            list.push_str(&writer.write(events));
            list.push_str(&format!("<p>{back}</p>\n"));
        }
        list.push_str("</li>\n");
    }
    if n > 0 {
        html.push_str(&writer.plan.footnotes.open());
        html.push_str(&list);
        html.push_str(Footnotes::close());
    }
    html.push_str(&writer.plan.citations.list(cx.sources));
    let mut out = writer.out;
    out.sourced = writer.plan.citations.addresses(cx.sources);
    // A condition never ended as it began (it crossed a footnote, or stood in a link's
    // text or a title, where its markers are no HTML).
    for (&at, mark) in cx.marks {
        if matches!(mark, Mark::If(_))
            && !writer.ended.contains(&at)
            && !out.unbalanced.contains(&at)
        {
            out.unbalanced.push(at);
        }
    }
    out.unbalanced.sort_unstable();
    out.html = html;
    nest(&mut out.toc);
    out.ids = writer.plan.ids.into_set();
    out
}

/// The keys of the sources `body` cites, read as [`render`] reads a page's citations:
/// for a draft left out of the build, whose sources are still cited.
pub fn cited_in(body: &str) -> std::collections::BTreeSet<String> {
    let tokens = Tokens::new(body, &[]);
    let stream = read(&tokens, markdown_options());
    plan::citations_in(&stream, &tokens, false)
        .into_iter()
        .filter_map(|(_, text)| citations::parse(&text.ok()?).ok())
        .flatten()
        .map(|cite| cite.key)
        .collect()
}

/// The events of a body, each with its range in the body, runs of text merged so that a
/// token split by the parser is seen whole.
///
/// A link written `[@…]` with no definition is a citation: it comes as a link of the
/// type [`pulldown_cmark::LinkType::ShortcutUnknown`], which nothing else gives.
fn read<'s>(tokens: &'s Tokens, options: Options) -> Events<'s> {
    let citation = citations::as_citation(&tokens.source);
    let parser = Parser::new_with_broken_link_callback(&tokens.source, options, Some(citation))
        .into_offset_iter();
    let mut stream: Vec<(Event, Range<usize>)> = Vec::new();
    let mut pending_text: Option<(String, Range<usize>)> = None;
    for (event, range) in parser {
        let range = tokens.original(range);
        match event {
            Event::Text(text) => match pending_text.as_mut() {
                Some((t, r)) => {
                    t.push_str(&text);
                    r.end = range.end;
                }
                None => pending_text = Some((text.into_string(), range)),
            },
            other => {
                if let Some((t, r)) = pending_text.take() {
                    stream.push((Event::Text(CowStr::from(t)), r));
                }
                stream.push((other, range));
            }
        }
    }
    if let Some((t, r)) = pending_text.take() {
        stream.push((Event::Text(CowStr::from(t)), r));
    }
    stream
}

/// Turns each `"` that smart punctuation left unpaired, and so made an opening `“`, into
/// a closing `”` where it follows a letter, a digit or closing punctuation (`5"`,
/// `word"`, `(a)"`, `x"` at the end of a table cell): pulldown-cmark opens every
/// quote it cannot pair, where a reader sees one that ends what comes before it. A `“`
/// after a space or at the start stays open (a quotation that goes on in the next
/// paragraph), and paired quotes are left as they are.
///
/// Quotes are paired as pulldown-cmark pairs them, each `”` with the nearest open `“`,
/// within one block (a paragraph, a heading, a cell): those left open are the unpaired
/// ones. A text whose source holds a curly double quote of its own is left alone.
fn close_quotes(stream: &mut Events, body: &str) {
    // Each open `“`: its event, its byte offset in the text, and whether it follows a
    // letter, digit or closing punctuation.
    let mut open: Vec<(usize, usize, bool)> = Vec::new();
    let mut unpaired: Vec<(usize, usize)> = Vec::new();
    let mut before: Option<char> = None;
    for (i, (event, range)) in stream.iter().enumerate() {
        match event {
            Event::Text(text) => {
                let own = body
                    .get(range.clone())
                    .is_none_or(|source| source.contains(['\u{201c}', '\u{201d}']));
                for (at, c) in text.char_indices() {
                    match c {
                        '\u{201c}' if !own => open.push((i, at, before.is_some_and(ends))),
                        '\u{201d}' if !own => {
                            open.pop();
                        }
                        _ => {}
                    }
                    before = Some(c);
                }
            }
            Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                before = text.chars().last().or(before);
            }
            Event::Start(tag) if is_inline(tag) => {}
            Event::End(tag) if is_inline_end(*tag) => {}
            Event::FootnoteReference(_) => before = Some(']'),
            _ => {
                unpaired.extend(open.drain(..).filter(|o| o.2).map(|(i, at, _)| (i, at)));
                before = None;
            }
        }
    }
    unpaired.extend(open.drain(..).filter(|o| o.2).map(|(i, at, _)| (i, at)));
    // From the last, so that each offset still holds in its text.
    for (i, at) in unpaired.into_iter().rev() {
        if let Event::Text(text) = &mut stream[i].0 {
            let mut changed = text.to_string();
            changed.replace_range(at..at + '\u{201c}'.len_utf8(), "\u{201d}");
            *text = CowStr::from(changed);
        }
    }
}

/// Whether a quote after `c` ends what comes before it: `c` is a letter, a digit, or
/// punctuation that closes (`)`, `]`, `.`, `!`, `’`, `”`, …).
fn ends(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            ')' | ']'
                | '}'
                | '.'
                | ','
                | ';'
                | ':'
                | '!'
                | '?'
                | '%'
                | '\u{2019}'
                | '\u{201d}'
                | '\u{2026}'
        )
}

/// Whether `tag` is inline: its text belongs to the block around it.
fn is_inline(tag: &pulldown_cmark::Tag) -> bool {
    use pulldown_cmark::Tag;
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

/// Whether `end` closes an inline tag.
fn is_inline_end(end: TagEnd) -> bool {
    matches!(
        end,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// A page's body with each reference replaced by a token, and the way back.
///
/// A token is `{{`, a mark, the reference's number, a space, the mark and `}}`: braces
/// at its ends as the reference has, so that the emphasis and quotes around it are read
/// as around the reference, and two of them, so that a heading that ends in one does not
/// read it as its attributes (`{.class}`), as it does not read a reference. The mark is
/// private-use text that the page does not hold, so no text of the author's is ever
/// taken for a token.
struct Tokens<'a> {
    /// The body as the Markdown parser reads it.
    source: String,
    /// The body as written.
    body: &'a str,
    /// The mark, or `None` when the page has no reference.
    mark: Option<String>,
    /// Each reference's range in the body, with its value.
    values: &'a [(Range<usize>, String)],
    /// Each token's range in `source`, in order, with the number of its reference.
    spans: Vec<(Range<usize>, usize)>,
}

impl<'a> Tokens<'a> {
    fn new(body: &'a str, values: &'a [(Range<usize>, String)]) -> Self {
        let mark = (!values.is_empty()).then(|| unused_mark(body));
        let mut tokens = Tokens {
            source: String::new(),
            body,
            mark,
            values,
            spans: Vec::new(),
        };
        let Some(mark) = tokens.mark.clone() else {
            tokens.source = body.to_string();
            return tokens;
        };
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by_key(|&i| values[i].0.start);
        let mut at = 0;
        for i in order {
            let range = &values[i].0;
            if range.start < at || body.get(range.clone()).is_none() {
                continue;
            }
            tokens.source.push_str(&body[at..range.start]);
            let start = tokens.source.len();
            tokens.source.push_str(&format!("{{{{{mark}{i} {mark}}}}}"));
            tokens.spans.push((start..tokens.source.len(), i));
            at = range.end;
        }
        tokens.source.push_str(&body[at..]);
        tokens
    }

    /// The offset in the body of `offset` in the source: a place inside a token is the
    /// start of its reference.
    fn offset(&self, offset: usize) -> usize {
        let before = self.spans.partition_point(|(span, _)| span.start <= offset);
        let Some((span, i)) = before.checked_sub(1).map(|k| &self.spans[k]) else {
            return offset;
        };
        let reference = &self.values[*i].0;
        if offset < span.end {
            reference.start
        } else {
            offset - span.end + reference.end
        }
    }

    /// A range of the source as a range of the body.
    fn original(&self, range: Range<usize>) -> Range<usize> {
        self.offset(range.start)..self.offset(range.end)
    }

    /// `text` with each token replaced by what `with` gives for its reference.
    fn replace<'t>(&self, text: CowStr<'t>, with: impl Fn(usize) -> &'a str) -> CowStr<'t> {
        let Some(mark) = self.mark.as_deref().filter(|m| text.contains(m)) else {
            return text;
        };
        let open = format!("{{{{{mark}");
        let mut out = String::new();
        let mut rest: &str = &text;
        while let Some(at) = rest.find(&open) {
            let after = &rest[at + open.len()..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let close = format!(" {mark}}}}}");
            let number = after[..digits]
                .parse::<usize>()
                .ok()
                .filter(|i| *i < self.values.len());
            match number {
                Some(i) if after[digits..].starts_with(&close) => {
                    out.push_str(&rest[..at]);
                    out.push_str(with(i));
                    rest = &after[digits + close.len()..];
                }
                _ => {
                    out.push_str(&rest[..at + open.len()]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        CowStr::from(out)
    }

    /// `text` with each token replaced by its reference's value.
    fn fill<'t>(&self, text: CowStr<'t>) -> CowStr<'t> {
        self.replace(text, |i| self.values[i].1.as_str())
    }

    /// `text` with each token replaced by its reference's value, as events: a value
    /// with a mark in `marks` is wrapped in a `<span data-ref="…">`, so that the page
    /// can find it.
    fn fill_marked<'t>(
        &self,
        text: CowStr<'t>,
        marks: &BTreeMap<usize, Mark>,
        mut emitted: impl FnMut(&Mark, usize),
        written: &mut Vec<Event<'t>>,
    ) {
        let marked = |i: usize| marks.get(&self.values[i].0.start);
        let Some(mark) = self
            .mark
            .as_deref()
            .filter(|m| text.contains(m) && (0..self.values.len()).any(|i| marked(i).is_some()))
        else {
            written.push(Event::Text(self.fill(text)));
            return;
        };
        // Split the text at each marked token; the rest is filled as ever.
        let (open, close) = (format!("{{{{{mark}"), format!(" {mark}}}}}"));
        let mut rest: &str = &text;
        let mut plain = String::new();
        while let Some(at) = rest.find(&open) {
            let after = &rest[at + open.len()..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let token = after[..digits]
                .parse::<usize>()
                .ok()
                .filter(|i| *i < self.values.len() && after[digits..].starts_with(&close));
            let Some(i) = token else {
                plain.push_str(&rest[..at + open.len()]);
                rest = after;
                continue;
            };
            plain.push_str(&rest[..at]);
            rest = &after[digits + close.len()..];
            let Some(how) = marked(i) else {
                plain.push_str(&self.values[i].1);
                continue;
            };
            if !plain.is_empty() {
                written.push(Event::Text(CowStr::from(std::mem::take(&mut plain))));
            }
            emitted(how, self.values[i].0.start);
            match how {
                Mark::Ref(path) => {
                    written.push(Event::InlineHtml(CowStr::from(format!(
                        "<span data-ref=\"{}\">",
                        escape(path)
                    ))));
                    written.push(Event::Text(CowStr::from(self.values[i].1.clone())));
                    written.push(Event::InlineHtml(CowStr::from("</span>")));
                }
                Mark::If(condition) => written.push(Event::InlineHtml(CowStr::from(format!(
                    "<span data-if=\"{}\">",
                    escape(condition)
                )))),
                Mark::End => written.push(Event::InlineHtml(CowStr::from("</span>"))),
            }
        }
        plain.push_str(rest);
        if !plain.is_empty() {
            written.push(Event::Text(CowStr::from(plain)));
        }
    }

    /// `text` with each token replaced by its reference as written.
    fn restore<'t>(&self, text: &CowStr<'t>) -> CowStr<'t> {
        self.replace(text.clone(), |i| &self.body[self.values[i].0.clone()])
    }
}

/// The shortest run of private-use characters that `body` does not hold: one character
/// for any page but one written to defeat it, two for that page (a page holds fewer
/// runs than it has characters, so the first that is missing is found quickly).
fn unused_mark(body: &str) -> String {
    let private = || {
        ('\u{e000}'..='\u{f8ff}')
            .chain('\u{f0000}'..='\u{ffffd}')
            .chain('\u{100000}'..='\u{10fffd}')
    };
    let chars: HashSet<char> = body.chars().collect();
    if let Some(c) = private().find(|c| !chars.contains(c)) {
        return c.to_string();
    }
    let text: Vec<char> = body.chars().collect();
    let pairs: HashSet<(char, char)> = text.windows(2).map(|w| (w[0], w[1])).collect();
    private()
        .flat_map(|a| private().map(move |b| (a, b)))
        .find(|pair| !pairs.contains(pair))
        .map(|(a, b)| format!("{a}{b}"))
        .expect("a page holds fewer pairs of characters than there are")
}

/// A code block, the `n`th of its page: highlighted when its language is known, plain
/// otherwise. Its lines never wrap (a wrapped line breaks Python's indentation and a
/// shell command's meaning): a block wider than the column scrolls sideways inside a
/// region that the keyboard can reach and that says what it holds.
fn code_block(language: &str, text: &str, n: usize, highlights: &super::highlight::Kept) -> String {
    let class = escape(language);
    let label = if language.is_empty() {
        format!("Code example {n}")
    } else {
        format!("Code example {n} ({class})")
    };
    let pre = match highlights.highlight(text, language) {
        Some(html) => {
            format!("<pre class=\"hl-code\"><code class=\"language-{class}\">{html}</code></pre>")
        }
        None if language.is_empty() => format!("<pre><code>{}</code></pre>", escape(text)),
        None => format!(
            "<pre><code class=\"language-{class}\">{}</code></pre>",
            escape(text)
        ),
    };
    format!(
        "<div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"{label}\">{pre}</div>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str, figures: &[String], values: &[(Range<usize>, String)]) -> Rendered {
        let figures = crate::directive::scan(body)
            .directives
            .iter()
            .map(|found| found.block.start)
            .zip(figures.iter().map(|f| f.as_str().into()))
            .collect();
        let pages = BTreeMap::from([
            ("a.md".to_string(), "a/".to_string()),
            ("guide/b.md".to_string(), "guide/b/".to_string()),
        ]);
        render(
            body,
            &Context {
                url: "guide/b/",
                content_path: "guide/b.md",
                pages: &pages,
                base_path: "/repo/",
                figures: &figures,
                reserved: &[],
                values,
                marks: &BTreeMap::new(),
                smart_punctuation: true,
                highlights: &Default::default(),
                sources: None,
                named: &[],
            },
        )
    }

    #[test]
    fn sim_blocks_become_figures_and_other_code_stays() {
        let body = "Intro\n\n```sim\nid: a\n```\n\n```nolang\nx < 1\n```\n\n```yaml\nx: 1\n```\n";
        let r = page(body, &["<figure>F</figure>\n".to_string()], &[]);
        assert!(
            r.html.starts_with(
                "<p>Intro</p>\n<figure>F</figure>\n\
                 <div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Code example 1 (nolang)\">\
                 <pre><code class=\"language-nolang\">x &lt; 1\n</code></pre></div>\n\
                 <div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Code example 2 (yaml)\">\
                 <pre class=\"hl-code\"><code class=\"language-yaml\"><span class=\"hl-source hl-yaml\">"
            ),
            "{}",
            r.html
        );
        assert!(r.html.contains("hl-entity"), "{}", r.html);
    }

    #[test]
    fn every_code_block_scrolls_in_a_focusable_region_named_by_its_place() {
        let body = "```\nplain <b>\n```\n\n    indented\n\n```python\nif x:\n    y()\n```\n";
        let r = page(body, &[], &[]);
        assert_eq!(r.html.matches("<div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Code example ").count(), 3, "{}", r.html);
        assert!(
            r.html.starts_with(
                "<div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Code example 1\">\
                 <pre><code>plain &lt;b&gt;\n</code></pre></div>\n\
                 <div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Code example 2\">\
                 <pre><code>indented\n</code></pre></div>\n"
            ),
            "{}",
            r.html
        );
        assert!(
            r.html
                .contains("aria-label=\"Code example 3 (python)\"><pre class=\"hl-code\">")
        );
        // The indentation is the text's own: nothing joins or re-wraps its lines.
        assert!(r.html.contains("\n    "), "{}", r.html);
    }

    #[test]
    fn every_markdown_table_scrolls_in_a_focusable_region_named_by_its_place() {
        let body = "| a | b |\n|---|---|\n| 1 | 2 |\n\nBetween.\n\n| c |\n|---|\n| 3 |\n";
        let r = page(body, &[], &[]);
        assert!(
            r.html.starts_with(
                "<div class=\"table-region\" role=\"region\" tabindex=\"0\" aria-label=\"Table 1\">\n\
                 <table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n\
                 <tr><td>1</td><td>2</td></tr>\n</tbody></table>\n</div>\n<p>Between.</p>\n"
            ),
            "{}",
            r.html
        );
        assert!(
            r.html.ends_with(
                "<div class=\"table-region\" role=\"region\" tabindex=\"0\" aria-label=\"Table 2\">\n\
                 <table><thead><tr><th>c</th></tr></thead><tbody>\n\
                 <tr><td>3</td></tr>\n</tbody></table>\n</div>\n"
            ),
            "{}",
            r.html
        );
    }

    #[test]
    fn references_are_replaced_even_when_the_parser_splits_them() {
        let body = "It made {{ s.fixed.gave_up }} calls.";
        let start = body.find("{{").unwrap();
        let end = body.find("}}").unwrap() + 2;
        let r = page(body, &[], &[(start..end, "1,947".to_string())]);
        assert_eq!(r.html, "<p>It made 1,947 calls.</p>\n");
    }

    #[test]
    fn a_page_that_holds_every_private_use_character_still_gets_its_values() {
        let every: String = ('\u{e000}'..='\u{f8ff}')
            .chain('\u{f0000}'..='\u{ffffd}')
            .chain('\u{100000}'..='\u{10fffd}')
            .collect();
        assert_eq!(unused_mark("a\u{e000}b").chars().count(), 1);
        assert!(!"a\u{e000}b".contains(&unused_mark("a\u{e000}b")));
        let mark = unused_mark(&every);
        assert_eq!(mark.chars().count(), 2);
        assert!(!every.contains(&mark));
        let body = format!("{every} {{{{ s.clients }}}} ");
        let start = every.len() + 1;
        let r = page(&body, &[], &[(start..start + 15, "100".to_string())]);
        assert_eq!(r.html, format!("<p>{every} 100</p>\n"));
    }

    #[test]
    fn headings_get_unique_anchors_and_a_toc() {
        let r = page("## Why jitter?\n\n### Why jitter?\n\n# Top\n", &[], &[]);
        assert!(r.html.starts_with(
            "<h2 id=\"why-jitter\">Why jitter? <a class=\"anchor\" href=\"#why-jitter\""
        ));
        assert!(r.html.contains("<h3 id=\"why-jitter-1\">"));
        assert_eq!(r.toc.len(), 2);
        assert!(r.ids.contains("top"));
    }

    #[test]
    fn only_entries_shown_numbered_are_numbered() {
        let r = page(
            "### Lead\n\n## A\n\n### A1\n\n### A2\n\n## B\n\n## C\n\n### C1\n",
            &[],
            &[],
        );
        let marks: Vec<(&str, bool, bool, bool)> = r
            .toc
            .iter()
            .map(|e| (e.id.as_str(), e.sub, e.first, e.last))
            .collect();
        assert_eq!(
            marks,
            [
                ("lead", false, false, true),
                ("a", false, false, false),
                ("a1", true, true, false),
                ("a2", true, false, true),
                ("b", false, false, true),
                ("c", false, false, false),
                ("c1", true, true, true),
            ]
        );
    }

    #[test]
    fn an_unpaired_quote_after_a_word_closes() {
        let r = page(
            "A 5\" screen, a \"quote\" and \"open\n\n| a | b |\n|---|---|\n| 3\" | x\" |\n\n\
             Word\"s (a)\" *em*\" `c`\" \"a\" \"b\n\n\"*x*\" (\"y\")\n",
            &[],
            &[],
        );
        assert!(
            r.html.starts_with(
                "<p>A 5\u{201d} screen, a \u{201c}quote\u{201d} and \u{201c}open</p>\n"
            ),
            "{}",
            r.html
        );
        assert!(
            r.html.contains("<td>3\u{201d}</td><td>x\u{201d}</td>"),
            "{}",
            r.html
        );
        assert!(
            r.html.contains(
                "<p>Word\u{201d}s (a)\u{201d} <em>em</em>\u{201d} <code>c</code>\u{201d} \
                 \u{201c}a\u{201d} \u{201c}b</p>"
            ),
            "{}",
            r.html
        );
        assert!(
            r.html
                .contains("<p>\u{201c}<em>x</em>\u{201d} (\u{201c}y\u{201d})</p>"),
            "{}",
            r.html
        );
        // The author's own curly quotes, and odd bytes around quotes, as they are.
        let r = page("a \u{201c}b\" c\"\n\n\"\u{0}\"\u{fffd}\"\n", &[], &[]);
        assert!(
            r.html.starts_with("<p>a \u{201c}b\u{201c} c\u{201c}</p>"),
            "{}",
            r.html
        );
    }

    #[test]
    fn internal_links_respect_the_base_path() {
        let r = page(
            "[a](../a.md#x) [b](/a/) [c](https://x.org/) [d](#here) [e](missing.md)",
            &[],
            &[],
        );
        assert!(r.html.contains("href=\"/repo/a/#x\""));
        assert!(r.html.contains("href=\"/repo/a/\""));
        assert!(r.html.contains("href=\"https://x.org/\""));
        assert_eq!(r.links.len(), 3);
        assert_eq!(r.links[0].page, "a/");
        assert_eq!(r.links[0].anchor.as_deref(), Some("x"));
        assert_eq!(r.broken.len(), 1);
    }

    #[test]
    fn links_to_files_with_odd_names_resolve_to_escaped_addresses() {
        let pages = BTreeMap::from([
            ("my page.md".to_string(), "my%20page/".to_string()),
            ("c#.md".to_string(), "c%23/".to_string()),
            ("100%.md".to_string(), "100%25/".to_string()),
            ("caf\u{e9}.md".to_string(), "caf%C3%A9/".to_string()),
        ]);
        let r = render(
            "[a](my%20page.md#x) [b](<my page.md>) [c](c%23.md) [d](100%25.md) \
             [e](100%.md) [f](caf%C3%A9.md) [g](cafe\u{301}.md) [h](</my page/>) \
             [i](/caf%c3%a9/) [j](%FF.md) [k](../my%20page.md)",
            &Context {
                url: "",
                content_path: "index.md",
                pages: &pages,
                base_path: "/",
                figures: &BTreeMap::new(),
                reserved: &[],
                values: &[],
                marks: &BTreeMap::new(),
                smart_punctuation: true,
                highlights: &Default::default(),
                sources: None,
                named: &[],
            },
        );
        for href in [
            "href=\"/my%20page/#x\"",
            "href=\"/my%20page/\"",
            "href=\"/c%23/\"",
            "href=\"/100%25/\"",
            "href=\"/caf%C3%A9/\"",
        ] {
            assert!(r.html.contains(href), "{href} in {}", r.html);
        }
        let targets: Vec<&str> = r.links.iter().map(|l| l.page.as_str()).collect();
        assert_eq!(
            targets,
            [
                "my%20page/",
                "my%20page/",
                "c%23/",
                "100%25/",
                "100%25/",
                "caf%C3%A9/",
                "caf%C3%A9/",
                "my%20page/",
                "caf%C3%A9/"
            ]
        );
        let broken: Vec<&str> = r.broken.iter().map(|(_, target)| target.as_str()).collect();
        assert_eq!(broken, ["%FF.md", "../my%20page.md"]);
    }
}
