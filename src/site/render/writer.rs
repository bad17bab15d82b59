//! Events to HTML: figures and code blocks in place of their blocks, values in place of
//! references, footnote references numbered, bare addresses linked, alerts as callouts,
//! headings with their ids and anchors.

use std::ops::Range;

use pulldown_cmark::{
    BlockQuoteKind, CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Tag, TagEnd, html,
};

use super::super::links;
use super::autolinks::{self, Piece};
use super::footnotes;
use super::math;
use super::plan::Plan;
use super::raw_html;
use super::xrefs;
use super::{Context, Mark, Rendered, TocEntry, Tokens, code_block};
use crate::chart::table::escape;
use crate::directive::Kind;

/// Where each part of a text of HTML starts in it, and the part's range in the body.
type Pieces = Vec<(usize, Range<usize>)>;

/// Writes events as HTML, with what the page gives them.
pub struct Writer<'w> {
    /// The page's references and the way back to their text.
    pub tokens: &'w Tokens<'w>,
    /// What the page needs from the site.
    pub cx: &'w Context<'w>,
    /// The ids and figures decided before writing.
    pub plan: Plan,
    /// What the page gives besides its HTML: its contents, links, ids.
    pub out: Rendered,
    /// How many code blocks the page has had, which names each block's region.
    pub code_blocks: usize,
    /// How many Markdown tables the page has had, which names each table's region.
    pub tables: usize,
    /// How many display formulas the page has had, which names each one's region.
    pub formulas: usize,
    /// The MathML of the page's formulas, as the check typeset them.
    pub typeset: math::Typeset,
    /// How deep in Markdown links and images the writer is: no address is linked there.
    pub links: usize,
    /// How deep in links written as HTML (`<a …>`).
    pub html_links: usize,
    /// How deep in images: their description is text, where a formula is its source.
    pub images: usize,
    /// How deep in elements the writer is, to check that a condition's sentence is
    /// one element.
    pub level: i64,
    /// The condition begun and not yet ended: its level, the offset of its
    /// `{{ if … }}`, and whether an element it is inside has ended since.
    pub open_if: Option<(i64, usize, bool)>,
    /// The offsets of the conditions written whole.
    pub ended: Vec<usize>,
}

impl<'w> Writer<'w> {
    /// HTML the author wrote, with each `href` and `src` checked and resolved as a
    /// Markdown link's or image's is (`other.md` leads to its page's address, `/x`
    /// goes below the base path): `pieces` say where each part of `html` starts in it
    /// and stands in the body, so that a problem is told at its attribute.
    fn raw_html(&mut self, html: &str, pieces: &[(usize, Range<usize>)]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for attribute in raw_html::attributes(html) {
            if !matches!(attribute.name.as_str(), "href" | "src") {
                continue;
            }
            let range = self.body_range(html, &attribute.range, pieces);
            let url = attribute.value();
            let resolved = if attribute.name == "src" && attribute.tag == "img" {
                links::image(&url, &range, self.cx, &mut self.out)
            } else {
                links::link(&url, &range, self.cx, &mut self.out)
            };
            if resolved != url {
                out.push_str(&html[at..attribute.range.start]);
                out.push_str(&escape(&resolved));
                at = attribute.range.end;
            }
        }
        out.push_str(&html[at..]);
        out
    }

    /// Where `range` of HTML made of `pieces` stands in the body: each piece is its
    /// line as written when the body holds it so, else its whole line is told.
    fn body_range(
        &self,
        html: &str,
        range: &Range<usize>,
        pieces: &[(usize, Range<usize>)],
    ) -> Range<usize> {
        let k = pieces
            .partition_point(|(start, _)| *start <= range.start)
            .saturating_sub(1);
        let Some((start, line)) = pieces.get(k) else {
            return 0..0;
        };
        let end = pieces.get(k + 1).map_or(html.len(), |(next, _)| *next);
        let (offset, length) = (range.start - start, range.end - range.start);
        let as_written =
            range.end <= end && self.tokens.body.get(line.clone()) == html.get(*start..end);
        if as_written {
            line.start + offset..line.start + offset + length
        } else {
            line.clone()
        }
    }

    /// The HTML of `stream`.
    pub fn write<'s>(&mut self, stream: Vec<(Event<'s>, Range<usize>)>) -> String {
        let mut events: Vec<Event> = Vec::new();
        let mut open = Open::default();
        for (event, range) in stream {
            self.track_level(&event);
            let mut written: Vec<Event> = Vec::new();
            if let Some(other) = self.collect(event, &range, &mut open, &mut written) {
                match other {
                    // A heading's formula is typeset when the heading is written,
                    // which also gives its source to the table of contents.
                    Event::InlineMath(_) | Event::DisplayMath(_) if open.heading.is_some() => {
                        written.push(other)
                    }
                    other => self.rewrite(other, &range, &mut written),
                }
            }
            match open.heading.as_mut() {
                Some((_, _, inner)) => inner.extend(written),
                None => events.extend(written),
            }
        }
        let mut html = String::new();
        html::push_html(&mut html, events.into_iter());
        html
    }

    /// How deep in elements the writer is after `event`, and whether the element that
    /// holds an open condition has ended since.
    fn track_level(&mut self, event: &Event) {
        match event {
            Event::Start(_) => self.level += 1,
            Event::End(_) => {
                self.level -= 1;
                if let Some((level, _, whole)) = self.open_if.as_mut() {
                    *whole &= self.level >= *level;
                }
            }
            _ => {}
        }
    }

    /// The blocks written whole, once collected: a directive's block, which its figure
    /// replaces, code blocks, HTML blocks and headings. Their events are added to
    /// `open`, and what a block's end writes to `written`; any other event is given
    /// back.
    fn collect<'s>(
        &mut self,
        event: Event<'s>,
        range: &Range<usize>,
        open: &mut Open<'s>,
        written: &mut Vec<Event<'s>>,
    ) -> Option<Event<'s>> {
        let tokens = self.tokens;
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                if Kind::of_info(&info).is_some() =>
            {
                open.directive = true;
                // Found by the block's place, where the directive was read; `check`
                // draws no figure.
                let html = match self.cx.figures.get(&range.start) {
                    Some(html) => xrefs::label_figure(html, &self.plan.numbered_at(range.start)),
                    None if self.cx.figures.is_empty() => String::new(),
                    None => panic!("no figure for the directive block at byte {}", range.start),
                };
                written.push(Event::Html(CowStr::from(html)));
            }
            Event::End(TagEnd::CodeBlock) if open.directive => open.directive = false,
            _ if open.directive => {}
            // A citation is written whole, from its text as the body has it.
            Event::Start(Tag::Link {
                link_type: LinkType::ShortcutUnknown,
                ..
            }) if !open.citation => {
                open.citation = true;
                let html = self
                    .plan
                    .citations
                    .cite(range, tokens.body, self.cx.sources);
                written.push(Event::InlineHtml(CowStr::from(html)));
            }
            Event::End(TagEnd::Link) if open.citation => open.citation = false,
            _ if open.citation => {}
            // An image named as a figure: its paragraph is the figure, its description
            // the caption (as text, as the image's description is), and its name is not
            // written.
            Event::Start(Tag::Paragraph) if self.plan.image_figures.contains_key(&range.start) => {
                let numbered = self.plan.image_figures[&range.start].clone();
                written.push(Event::Html(CowStr::from(format!(
                    "<figure class=\"image\" id=\"{}\">\n",
                    escape(&numbered.anchor)
                ))));
                open.image_figure = Some((numbered, false, String::new()));
            }
            Event::End(TagEnd::Paragraph) if open.image_figure.is_some() => {
                let (numbered, _, caption) = open.image_figure.take().unwrap_or_default();
                let caption = caption.split_whitespace().collect::<Vec<_>>().join(" ");
                written.push(Event::Html(CowStr::from(format!(
                    "\n<figcaption>{}{}</figcaption>\n</figure>\n",
                    xrefs::number_html(&numbered),
                    escape(&caption)
                ))));
            }
            // After the image, only its name and a line break are left.
            _ if open
                .image_figure
                .as_ref()
                .is_some_and(|(_, ended, _)| *ended) => {}
            Event::End(TagEnd::Image) if self.images == 1 && open.image_figure.is_some() => {
                if let Some((_, ended, _)) = open.image_figure.as_mut() {
                    *ended = true;
                }
                return Some(event);
            }
            Event::Text(ref text) | Event::Code(ref text) if open.image_figure.is_some() => {
                if let Some((_, _, caption)) = open.image_figure.as_mut() {
                    caption.push_str(&tokens.fill(text.clone()));
                }
                return Some(event);
            }
            Event::InlineMath(ref latex) | Event::DisplayMath(ref latex)
                if open.image_figure.is_some() =>
            {
                if let Some((_, _, caption)) = open.image_figure.as_mut() {
                    caption.push_str(&tokens.restore(latex));
                }
                return Some(event);
            }
            Event::SoftBreak | Event::HardBreak if open.image_figure.is_some() => {
                if let Some((_, _, caption)) = open.image_figure.as_mut() {
                    caption.push(' ');
                }
                return Some(event);
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        crate::site::highlight::language_of(&info).to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                open.code = Some((language, String::new()));
            }
            Event::Text(text) if open.code.is_some() => {
                if let Some((_, collected)) = open.code.as_mut() {
                    collected.push_str(&tokens.restore(&text));
                }
            }
            Event::End(TagEnd::CodeBlock) if open.code.is_some() => {
                let (language, text) = open.code.take().unwrap_or_default();
                self.code_blocks += 1;
                let html = code_block(&language, &text, self.code_blocks, self.cx.highlights);
                written.push(Event::Html(CowStr::from(html)));
            }
            Event::Start(Tag::HtmlBlock) => {
                open.html_block = Some((String::new(), Vec::new()));
                written.push(Event::Start(Tag::HtmlBlock));
            }
            Event::Html(text) if open.html_block.is_some() => {
                if let Some((block, pieces)) = open.html_block.as_mut() {
                    pieces.push((block.len(), range.clone()));
                    block.push_str(&tokens.restore(&text));
                }
            }
            Event::End(TagEnd::HtmlBlock) if open.html_block.is_some() => {
                let (block, pieces) = open.html_block.take().unwrap_or_default();
                let html = self.raw_html(&block, &pieces);
                written.push(Event::Html(CowStr::from(html)));
                written.push(Event::End(TagEnd::HtmlBlock));
            }
            Event::Start(tag @ Tag::Heading { .. }) => {
                let id = self
                    .plan
                    .headings
                    .get(&range.start)
                    .cloned()
                    .unwrap_or_default();
                open.heading = Some((tag, id, Vec::new()));
            }
            Event::End(TagEnd::Heading(_)) if open.heading.is_some() => {
                let (tag, id, inner) = open.heading.take().expect("inside a heading");
                let html = heading_html(tag, &id, inner, &self.typeset, &mut self.out);
                written.push(Event::Html(CowStr::from(html)));
            }
            other => return Some(other),
        }
        None
    }

    /// An event written as it comes, with what the page gives it: text with its values
    /// and its bare addresses linked, the author's HTML with its links resolved,
    /// footnote references numbered, tables in regions of their own, alerts as
    /// callouts, and links and images to their addresses.
    fn rewrite<'s>(
        &mut self,
        event: Event<'s>,
        range: &Range<usize>,
        written: &mut Vec<Event<'s>>,
    ) {
        let tokens = self.tokens;
        match event {
            Event::Text(text) if self.links > 0 || self.html_links > 0 => {
                written.push(Event::Text(tokens.fill(text)));
            }
            Event::Text(text) => self.linked(text, range, written),
            // Code and HTML are written as they are: should a token land there, it is
            // the reference's own text again.
            Event::Code(text) => written.push(Event::Code(tokens.restore(&text))),
            // An image's description is text: a formula there is its source.
            Event::InlineMath(latex) | Event::DisplayMath(latex) if self.images > 0 => {
                written.push(Event::Text(tokens.restore(&latex)));
            }
            Event::InlineMath(latex) => {
                let html = math::html(&self.typeset, &tokens.restore(&latex), false);
                written.push(Event::InlineHtml(CowStr::from(html)));
            }
            // A display formula wider than the column scrolls sideways inside its
            // region, which the keyboard reaches and names, as a code block's.
            // In a link, a formula is part of its text: no region of its own there.
            Event::DisplayMath(latex) if self.links > 0 || self.html_links > 0 => {
                let html = math::html(&self.typeset, &tokens.restore(&latex), true);
                written.push(Event::InlineHtml(CowStr::from(html)));
            }
            Event::DisplayMath(latex) => {
                self.formulas += 1;
                let html = format!(
                    "<span class=\"math-scroll\" role=\"region\" tabindex=\"0\" \
                     aria-label=\"Formula {}\">{}</span>",
                    self.formulas,
                    math::html(&self.typeset, &tokens.restore(&latex), true)
                );
                written.push(Event::InlineHtml(CowStr::from(html)));
            }
            Event::Html(text) => {
                let text = tokens.restore(&text);
                let html = self.raw_html(&text, &[(0, range.clone())]);
                written.push(Event::Html(CowStr::from(html)));
            }
            Event::InlineHtml(text) => {
                let text = tokens.restore(&text);
                let text = CowStr::from(self.raw_html(&text, &[(0, range.clone())]));
                let tag = text.trim_start_matches('<').to_ascii_lowercase();
                if tag.starts_with("/a") && !tag[2..].starts_with(char::is_alphanumeric) {
                    self.html_links = self.html_links.saturating_sub(1);
                } else if tag.starts_with('a') && tag[1..].starts_with([' ', '\t', '\n', '>']) {
                    self.html_links += 1;
                }
                written.push(Event::InlineHtml(text));
            }
            Event::FootnoteReference(label) => {
                let key = footnotes::key(&label);
                let html = if self.plan.footnotes.has(&key) {
                    Event::InlineHtml(CowStr::from(self.plan.footnotes.reference(&key)))
                } else {
                    Event::Text(CowStr::from(format!("[^{}]", tokens.restore(&label))))
                };
                written.push(html);
            }
            // A table wider than the column scrolls sideways in a region of its own,
            // which the keyboard reaches and which says what it holds, so that it
            // never makes the page scroll.
            Event::Start(tag @ Tag::Table(_)) => {
                self.tables += 1;
                written.push(Event::Html(CowStr::from(format!(
                    "<div class=\"table-region\" role=\"region\" tabindex=\"0\" \
                     aria-label=\"Table {}\">\n",
                    self.tables
                ))));
                written.push(Event::Start(tag));
            }
            Event::End(TagEnd::Table) => {
                written.push(Event::End(TagEnd::Table));
                written.push(Event::Html(CowStr::from("</div>\n")));
            }
            Event::Start(Tag::BlockQuote(Some(kind))) => {
                let (class, title) = alert(kind);
                written.push(Event::Html(CowStr::from(format!(
                    "<div class=\"markdown-alert markdown-alert-{class}\" role=\"note\">\n\
                     <p class=\"markdown-alert-title\">{title}</p>\n"
                ))));
            }
            Event::End(TagEnd::BlockQuote(Some(_))) => {
                written.push(Event::Html(CowStr::from("</div>\n")));
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                self.links += 1;
                let dest_url =
                    links::link(&tokens.restore(&dest_url), range, self.cx, &mut self.out);
                written.push(Event::Start(Tag::Link {
                    link_type,
                    dest_url: CowStr::from(dest_url),
                    title: tokens.fill(title),
                    id,
                }));
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                self.links += 1;
                self.images += 1;
                written.push(Event::Start(Tag::Image {
                    link_type,
                    dest_url: CowStr::from(links::image(
                        &tokens.restore(&dest_url),
                        range,
                        self.cx,
                        &mut self.out,
                    )),
                    title: tokens.fill(title),
                    id,
                }));
            }
            Event::End(end @ (TagEnd::Link | TagEnd::Image)) => {
                self.links = self.links.saturating_sub(1);
                if end == TagEnd::Image {
                    self.images = self.images.saturating_sub(1);
                }
                written.push(Event::End(end));
            }
            other => written.push(other),
        }
    }

    /// Text outside links, with each bare address in it linked.
    ///
    /// With smart punctuation, an address is found in the text as written, where that
    /// text is plain (no escape, entity or reference), so that a `--` or `'` in it is
    /// not typeset: `https://x.org/a--b` keeps its two hyphens.
    fn linked<'s>(&mut self, text: CowStr<'s>, range: &Range<usize>, written: &mut Vec<Event<'s>>) {
        let tokens = self.tokens;
        let source = tokens
            .body
            .get(range.clone())
            .filter(|s| self.cx.smart_punctuation && !s.contains(['\\', '&', '{', '\n']));
        let pieces = source
            .and_then(|source| autolinks::pieces_of_source(&text, source))
            .unwrap_or_else(|| autolinks::pieces(&text, tokens.mark.as_deref()));
        let marks = self.cx.marks;
        let level = self.level;
        let (open_if, ended, unbalanced) =
            (&mut self.open_if, &mut self.ended, &mut self.out.unbalanced);
        let mut emitted = |mark: &Mark, at: usize| match mark {
            Mark::If(_) => *open_if = Some((level, at, true)),
            Mark::End => {
                if let Some((opened, at, whole)) = open_if.take() {
                    if whole && opened == level {
                        ended.push(at);
                    } else {
                        unbalanced.push(at);
                    }
                }
            }
            Mark::Ref(_) => {}
        };
        if let [Piece::Text(_)] = pieces.as_slice() {
            tokens.fill_marked(text, marks, &mut emitted, written);
            return;
        }
        let mut found = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(plain) => {
                    tokens.fill_marked(
                        CowStr::from(plain.to_string()),
                        marks,
                        &mut emitted,
                        written,
                    );
                }
                Piece::Link(shown, target) => {
                    if links::is_requested(&target) {
                        let range = shown_range(tokens.body, shown, source, range);
                        found.push(links::External {
                            range,
                            url: target.clone(),
                        });
                    }
                    written.push(Event::Start(Tag::Link {
                        link_type: pulldown_cmark::LinkType::Autolink,
                        dest_url: CowStr::from(target),
                        title: CowStr::from(""),
                        id: CowStr::from(""),
                    }));
                    written.push(Event::Text(CowStr::from(shown.to_string())));
                    written.push(Event::End(TagEnd::Link));
                }
            }
        }
        self.out.external.extend(found);
    }
}

/// Where a bare address `shown` stands in `body`, for the text at `range`: its own place
/// when it is a part of `source` (the text as written) or found in the body's text
/// there, else the whole text.
fn shown_range(
    body: &str,
    shown: &str,
    source: Option<&str>,
    range: &Range<usize>,
) -> Range<usize> {
    let written = body.get(range.clone()).unwrap_or_default();
    let inside = |within: &str| {
        let (start, at) = (within.as_ptr() as usize, shown.as_ptr() as usize);
        (at >= start && at + shown.len() <= start + within.len()).then(|| at - start)
    };
    match source.and_then(inside).or_else(|| written.find(shown)) {
        Some(at) => range.start + at..range.start + at + shown.len(),
        None => range.clone(),
    }
}

/// The blocks [`Writer::write`] is in the middle of, whose events are collected and
/// written whole.
#[derive(Default)]
struct Open<'s> {
    /// Inside a directive's block, which its figure replaces.
    directive: bool,
    /// Inside a citation, which is written whole at its start.
    citation: bool,
    /// Inside an image named as a figure: its number, whether its image has ended, and
    /// its caption so far, from its description.
    image_figure: Option<(xrefs::Numbered, bool, String)>,
    /// A code block being collected: its language, or "" for none, and its text.
    code: Option<(String, String)>,
    /// A heading being collected: its tag, its id, and the events inside it.
    heading: Option<(Tag<'s>, String, Vec<Event<'s>>)>,
    /// An HTML block being collected (its lines come as events of their own, and a
    /// tag may span them), with where each line starts in it and in the body.
    html_block: Option<(String, Pieces)>,
}

/// An alert's class and the title the reader sees.
fn alert(kind: BlockQuoteKind) -> (&'static str, &'static str) {
    match kind {
        BlockQuoteKind::Note => ("note", "Note"),
        BlockQuoteKind::Tip => ("tip", "Tip"),
        BlockQuoteKind::Important => ("important", "Important"),
        BlockQuoteKind::Warning => ("warning", "Warning"),
        BlockQuoteKind::Caution => ("caution", "Caution"),
    }
}

/// A heading with its id and anchor link; `##` and `###` go in the table of contents.
/// Classes and attributes written after the heading (`{.wide data-x=1}`) are kept.
fn heading_html(
    tag: Tag,
    id: &str,
    inner: Vec<Event>,
    typeset: &math::Typeset,
    out: &mut Rendered,
) -> String {
    let Tag::Heading {
        level,
        classes,
        attrs,
        ..
    } = tag
    else {
        return String::new();
    };
    let title: String = inner
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                Some(t.as_ref())
            }
            _ => None,
        })
        .collect();
    // The table of contents shows the heading's text with its formulas typeset (and
    // no link, emphasis or code of its own: it is a link).
    let toc_html: String = inner
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(escape(t)),
            Event::InlineMath(latex) | Event::DisplayMath(latex) => {
                Some(math::html(typeset, latex, false))
            }
            _ => None,
        })
        .collect();
    let inner = inner.into_iter().map(|e| match e {
        Event::InlineMath(latex) => {
            Event::InlineHtml(CowStr::from(math::html(typeset, &latex, false)))
        }
        // A display formula in a heading is the heading's text: no region of its own.
        Event::DisplayMath(latex) => {
            Event::InlineHtml(CowStr::from(math::html(typeset, &latex, true)))
        }
        other => other,
    });
    let mut inner_html = String::new();
    html::push_html(&mut inner_html, inner);
    let level_number = heading_level(level);
    if (2..=3).contains(&level_number) {
        out.toc.push(TocEntry {
            level: level_number,
            id: id.to_string(),
            title,
            html: toc_html,
            sub: false,
            first: false,
            last: false,
        });
    }
    let mut attributes = String::new();
    if !classes.is_empty() {
        let classes: Vec<&str> = classes.iter().map(|c| c.as_ref()).collect();
        attributes.push_str(&format!(" class=\"{}\"", escape(&classes.join(" "))));
    }
    for (name, value) in &attrs {
        attributes.push_str(&format!(" {}", escape(name)));
        if let Some(value) = value {
            attributes.push_str(&format!("=\"{}\"", escape(value)));
        }
    }
    let id = escape(id);
    format!(
        "<h{level_number} id=\"{id}\"{attributes}>{inner_html} <a class=\"anchor\" href=\"#{id}\" \
         aria-label=\"Link to this section\">#</a></h{level_number}>\n"
    )
}

/// A heading's level as a number, 1 to 6.
fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}
