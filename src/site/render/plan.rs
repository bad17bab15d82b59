//! What is decided about a page before any of its HTML is written: every id, which
//! figure each directive block is, and which events are footnotes.

use std::collections::BTreeMap;
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Tag, TagEnd};

use super::citations::{Citations, Found};
use super::footnotes::{self, Footnotes};
use super::ids::{self, Ids, slug};
use super::raw_html;
use super::xrefs::{self, Numbered};
use super::{Context, Events, Rendered, TakenId, Tokens};

/// The events of a page outside footnote definitions, and each definition's by key.
type Split<'s> = (Events<'s>, BTreeMap<String, Events<'s>>);

/// The events of the page outside footnote definitions, and each definition's events
/// by its label's key (the first definition of a label counts, as on GitHub).
pub fn split_notes(stream: Events) -> Split {
    let mut page = Vec::new();
    let mut notes = BTreeMap::new();
    let mut open: Vec<(String, Events)> = Vec::new();
    for (event, range) in stream {
        match event {
            Event::Start(Tag::FootnoteDefinition(label)) => {
                open.push((footnotes::key(&label), Vec::new()));
            }
            Event::End(TagEnd::FootnoteDefinition) => {
                if let Some((key, events)) = open.pop() {
                    notes.entry(key).or_insert(events);
                }
            }
            event => match open.last_mut() {
                Some((_, events)) => events.push((event, range)),
                None => page.push((event, range)),
            },
        }
    }
    (page, notes)
}

/// What is decided before any HTML is written: ids, and which figure each block is.
pub struct Plan {
    /// The ids given.
    pub ids: Ids,
    /// Each heading's id, by the heading's start in the body.
    pub headings: BTreeMap<usize, String>,
    /// The footnotes, numbered as their references are written.
    pub footnotes: Footnotes,
    /// The citations of the site's sources, numbered as they are written, and the
    /// cross-references to the page's figures and tables.
    pub citations: Citations,
    /// The page's figures and tables, numbered.
    pub numbered: Vec<Numbered>,
    /// Each image named as a figure (`![…](pic.png){#fig-name}`, alone in its
    /// paragraph), by its paragraph's start in the body, numbered.
    pub image_figures: BTreeMap<usize, Numbered>,
}

impl Plan {
    /// Decides the ids of the page whose events are `stream`; a custom id already taken
    /// goes to `out.taken`.
    pub fn new(
        stream: &[(Event, Range<usize>)],
        tokens: &Tokens,
        cx: &Context,
        out: &mut Rendered,
    ) -> Plan {
        let mut ids = Ids::default();
        for id in cx
            .reserved
            .iter()
            .map(String::as_str)
            .chain(cx.figures.values().flat_map(|f| ids::written_in(f)))
        {
            ids.take(id);
        }
        let mut headings = BTreeMap::new();
        // Custom ids first: they are the author's, and a generated id makes way for them.
        let mut custom_at: BTreeMap<String, usize> = BTreeMap::new();
        // Names of figures written where they name none, told with the citations.
        let mut misnamed: Vec<Found> = Vec::new();
        for (event, range) in stream {
            if let Event::Start(Tag::Heading { id: Some(id), .. }) = event {
                let id = tokens.restore(id).into_string();
                if xrefs::is_name(&id) {
                    misnamed.push((
                        taken(tokens.body, range, &id, None).range,
                        Err((
                            format!(
                                "`{{#{id}}}` would name a heading as a figure or a table: the \
                                 names `fig-…` and `tbl-…` are theirs"
                            ),
                            "give the heading another id; to name an image as a figure, \
                             write `{#fig-name}` right after the image"
                                .to_string(),
                        )),
                    ));
                }
                if ids.take(&id) {
                    custom_at.insert(id.clone(), range.start);
                } else {
                    out.taken
                        .push(taken(tokens.body, range, &id, custom_at.get(&id)));
                }
                headings.insert(range.start, id);
            }
        }
        // The images named as figures, whose names are ids of the page, taken as the
        // headings' own are; they are numbered with the directives' figures and tables.
        let mut images = image_figures(stream, tokens.body);
        // Where each image's name starts, told here if it is not its own.
        let image_names: std::collections::BTreeSet<usize> =
            images.values().map(|(range, _)| range.start).collect();
        let mut seen = std::collections::BTreeSet::new();
        images.retain(|_, (range, name)| {
            let problem = if cx.named.iter().any(|(_, other, _)| other == name) {
                Some(format!(
                    "`{name}` is the name of a directive's figure on this page: an image \
                     needs a name of its own"
                ))
            } else if !seen.insert(name.clone()) {
                Some(format!(
                    "`{name}` is the name of an image above: each figure needs a name of \
                     its own"
                ))
            } else {
                None
            };
            if let Some(message) = &problem {
                let help = "choose another name, `{#fig-…}`, and refer to it by that name";
                misnamed.push((range.clone(), Err((message.clone(), help.to_string()))));
            }
            problem.is_none()
        });
        for (range, name) in images.values() {
            if !ids.take(name) {
                let first = custom_at.get(name);
                out.taken.push(TakenId {
                    range: range.clone(),
                    id: name.clone(),
                    first: first.copied(),
                });
            }
        }
        let mut defined = Vec::new();
        let mut uses: BTreeMap<String, usize> = BTreeMap::new();
        for (event, _) in stream {
            match event {
                Event::Start(Tag::FootnoteDefinition(label)) => defined.push(footnotes::key(label)),
                Event::FootnoteReference(label) => {
                    *uses.entry(footnotes::key(label)).or_default() += 1;
                }
                _ => {}
            }
        }
        let footnotes = Footnotes::new(&defined, &uses, &mut ids);
        // The anchors the page's own HTML writes (`<a id="x">`, `<a name="x">`), as
        // they are, after the custom and footnote ids: a heading keeps off them too.
        let mut block: Option<String> = None;
        for (event, _) in stream {
            match (event, block.as_mut()) {
                (Event::Start(Tag::HtmlBlock), _) => block = Some(String::new()),
                (Event::Html(text), Some(block)) => block.push_str(&tokens.restore(text)),
                (Event::End(TagEnd::HtmlBlock), Some(_)) => {
                    html_anchors(&block.take().unwrap_or_default(), &mut ids);
                }
                (Event::Html(text) | Event::InlineHtml(text), _) => {
                    html_anchors(&tokens.restore(text), &mut ids);
                }
                _ => {}
            }
        }
        let mut heading: Option<(usize, String)> = None;
        for (event, range) in stream {
            match (event, heading.as_mut()) {
                (Event::Start(Tag::Heading { id: None, .. }), None) => {
                    heading = Some((range.start, String::new()));
                }
                (Event::Text(text), Some((_, title))) => {
                    let text = tokens.restore(text);
                    match tokens.body.get(range.clone()) {
                        Some(written) if cx.smart_punctuation => {
                            title.push_str(&unsmart(&text, written));
                        }
                        _ => title.push_str(&text),
                    }
                }
                (
                    Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text),
                    Some((_, title)),
                ) => {
                    title.push_str(&tokens.restore(text));
                }
                (Event::End(TagEnd::Heading(_)), Some(_)) => {
                    let (start, title) = heading.take().expect("inside a heading");
                    headings.insert(start, ids.unique(&slug(&title)));
                }
                _ => {}
            }
        }
        let named = (cx.named.iter().cloned()).chain(
            images
                .iter()
                .map(|(&at, (_, name))| (at, name.clone(), name.clone())),
        );
        let numbered = xrefs::number(named.collect());
        let image_figures = images
            .iter()
            .filter_map(|(&at, _)| Some((at, numbered_at(&numbered, at).first()?.clone())))
            .collect();
        // The citations, once every other id is given: a page's own anchors (a heading
        // `## References`, an `<a id="ref-x">`) keep their ids, and the list's make way.
        let mut found = citations_in(stream, tokens, cx.smart_punctuation);
        found.extend(stray_names(stream, tokens.body, &image_names));
        found.extend(misnamed);
        found.sort_by_key(|(range, _)| range.start);
        let citations = Citations::new(
            &found,
            cx.sources,
            &numbered,
            &mut ids,
            &mut out.citations,
            &mut out.cited,
        );
        Plan {
            ids,
            headings,
            footnotes,
            citations,
            numbered,
            image_figures,
        }
    }

    /// The figures and tables of the directive whose block starts at `at`.
    pub fn numbered_at(&self, at: usize) -> Vec<&Numbered> {
        numbered_at(&self.numbered, at).iter().collect()
    }
}

/// Names of figures and tables written where they are no cross-reference and name no
/// figure, which would be published as text: `@fig-x` out of brackets (Quarto's way,
/// which here is `[@fig-x]`, also in emphasis), Quarto's `[-@fig-x]`, and a name in
/// braces (`{#fig-x}`, `{.wide #fig-x}`) anywhere but right after an image that is a
/// paragraph of its own (`named` holds where each such name starts). Code, HTML and escapes (`\@fig-x`, `\{#fig-x}`)
/// are left alone, as are `[@…]` and a name inside a word or an address
/// (`a@fig-x.org`).
fn stray_names(
    stream: &[(Event, Range<usize>)],
    body: &str,
    named: &std::collections::BTreeSet<usize>,
) -> Vec<Found> {
    let mut found = Vec::new();
    let (mut in_code, mut in_citation, mut in_note) = (false, false, 0usize);
    for (event, range) in stream {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::FootnoteDefinition(_)) => in_note += 1,
            Event::End(TagEnd::FootnoteDefinition) => in_note = in_note.saturating_sub(1),
            Event::Start(Tag::Link {
                link_type: LinkType::ShortcutUnknown,
                ..
            }) => in_citation = true,
            Event::End(TagEnd::Link) => in_citation = false,
            Event::Text(_) if !in_code && !in_citation => {
                let Some(written) = body.get(range.clone()) else {
                    continue;
                };
                for prefix in ["@fig-", "@tbl-", "#fig-", "#tbl-"] {
                    for (i, _) in written.match_indices(prefix) {
                        let at = range.start + i;
                        let stray = match prefix.starts_with('@') {
                            true => stray_at(body, at),
                            false => stray_in_braces(body, at, named, in_note > 0),
                        };
                        found.extend(stray);
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The name that starts at `at` of `body` (after its `@` or `#`): letters, digits, `-`
/// and `_`, without a last `-`.
fn name_at(body: &str, at: usize) -> &str {
    let rest = &body[at..];
    let length = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_')))
        .unwrap_or(rest.len());
    let name = &rest[..length];
    match name.trim_end_matches(['-', '_']) {
        "fig" | "tbl" => name,
        trimmed => trimmed,
    }
}

/// What is wrong with a name of a figure written `@fig-x` at `at` of `body`, out of a
/// citation's brackets: text, unless it is part of a word or an address, or escaped.
fn stray_at(body: &str, at: usize) -> Option<Found> {
    let mut before = body[..at].chars().rev();
    let (one, two) = (before.next(), before.next());
    let name = name_at(body, at + 1);
    let end = at + 1 + name.len();
    if one == Some('-') && two == Some('[') {
        return Some((
            at - 2..end + usize::from(body[end..].starts_with(']')),
            Err((
                format!("`[-@{name}]`, a number without its word, is not written here"),
                format!("write `[@{name}]`, which is \"Figure 2\" (or \"Table 1\") with a link"),
            )),
        ));
    }
    let in_word = one.is_some_and(|c| c.is_alphanumeric() || "\\[-./:+%=&?#@!".contains(c));
    if in_word {
        return None;
    }
    let help = match name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
    {
        true => {
            format!("write `[@{name}]` for its number with a link, or `\\@{name}` for the text")
        }
        false => {
            "a figure's name is ASCII letters, digits, `-` and `_`: `[@fig-crowd]`".to_string()
        }
    };
    Some((
        at..end,
        Err((
            format!("`@{name}` is written as text: a cross-reference stands in brackets"),
            help,
        )),
    ))
}

/// What is wrong with a name of a figure or a table written `#fig-x` at `at` of `body`
/// in braces (`{#fig-x}`, `{.wide #fig-x}`), unless it is the name of an image figure
/// (`named` holds where each starts), or escaped. `in_note`: it stands in a footnote.
fn stray_in_braces(
    body: &str,
    at: usize,
    named: &std::collections::BTreeSet<usize>,
    in_note: bool,
) -> Option<Found> {
    // The brace that opens it, on its line, with no brace closed between.
    let line_start = body[..at].rfind('\n').map_or(0, |n| n + 1);
    let open = body[line_start..at]
        .rfind(['{', '}'])
        .map(|o| line_start + o)?;
    if !body[open..].starts_with('{') || named.contains(&open) {
        return None;
    }
    if body[..open].ends_with('\\') {
        return None;
    }
    let close = body[at..].find(['}', '\n']).map_or(body.len(), |c| at + c);
    let end = close + usize::from(body[close..].starts_with('}'));
    let written = &body[open..end];
    let name = name_at(body, at + 1);
    let alone = written == format!("{{#{name}}}");
    let ascii = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    let (message, help) = match xrefs::Kind::of(name) {
        Some(xrefs::Kind::Table) => (
            format!("`{written}` names no table: a Markdown table is not numbered"),
            "a scenario's results table is numbered, and named by the scenario's id: \
             `[@tbl-ID]`"
                .to_string(),
        ),
        _ if !ascii => (
            format!(
                "`{written}` names no figure: a figure's name is ASCII letters, digits, `-` and `_`"
            ),
            "write it as `{#fig-crowd-chart}`".to_string(),
        ),
        _ if !alone => (
            format!("`{written}` names no figure: an image's name is written alone in its braces"),
            format!(
                "write `{{#{name}}}` right after the image; classes and attributes are not read"
            ),
        ),
        _ if in_note => (
            format!("`{written}` names no figure: a figure cannot stand in a footnote"),
            "a note is written at the page's end, and only when referred to: put the figure \
             in the text"
                .to_string(),
        ),
        _ => (
            format!("`{written}` names no figure here"),
            "an image is a figure when it is a paragraph of its own (a blank line before and \
             after it; not in a list item or a table cell) with its name right after it: \
             `![A description](pic.png){#fig-name}`; a directive's figure is named by its id, \
             `[@fig-ID]`"
                .to_string(),
        ),
    };
    Some((open..end, Err((message, help))))
}

/// The figures and tables of `numbered` (in the order of their places, as
/// [`xrefs::number`] gives them) whose place is `at`.
fn numbered_at(numbered: &[Numbered], at: usize) -> &[Numbered] {
    let start = numbered.partition_point(|n| n.at < at);
    let end = numbered.partition_point(|n| n.at <= at);
    &numbered[start..end]
}

/// Each paragraph that is an image named as a figure, by the paragraph's start: an
/// image alone but for a name written after it, `{#fig-name}`, whose range and name
/// are given.
fn image_figures(
    stream: &[(Event, Range<usize>)],
    body: &str,
) -> BTreeMap<usize, (Range<usize>, String)> {
    let mut found = BTreeMap::new();
    // A note is written at the page's end, in the order of its references, and only
    // when referred to: no figure stands in one.
    let mut in_note = 0usize;
    for (i, (event, range)) in stream.iter().enumerate() {
        match event {
            Event::Start(Tag::FootnoteDefinition(_)) => in_note += 1,
            Event::End(TagEnd::FootnoteDefinition) => in_note = in_note.saturating_sub(1),
            _ => {}
        }
        if in_note > 0 || !matches!(event, Event::Start(Tag::Paragraph)) {
            continue;
        }
        let Some((Event::Start(Tag::Image { .. }), _)) = stream.get(i + 1) else {
            continue;
        };
        // The image's end, at its own depth: a description may hold an image.
        let mut depth = 0usize;
        let mut end = None;
        for (event, image) in &stream[i + 1..] {
            match event {
                Event::Start(Tag::Image { .. }) => depth += 1,
                Event::End(TagEnd::Image) => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(image.end);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(rest) = end.and_then(|end| Some((end, body.get(end..range.end)?))) else {
            continue;
        };
        let (end, text) = rest;
        let trimmed = text.trim();
        let name = trimmed
            .strip_prefix("{#")
            .and_then(|t| t.strip_suffix('}'))
            .filter(|name| xrefs::Kind::of(name) == Some(xrefs::Kind::Figure))
            .filter(|name| {
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            });
        if let Some(name) = name {
            let start = end + (text.len() - text.trim_start().len());
            found.insert(
                range.start,
                (start..start + trimmed.len(), name.to_string()),
            );
        }
    }
    found
}

/// Each citation of a page (a link of the type [`LinkType::ShortcutUnknown`], which only
/// `[@…]` gives) with its text as the Markdown reads it (escapes undone, its lines joined,
/// a quote's markers left out, as written where smart punctuation made dashes), or what
/// is wrong with its place: a heading (whose text is a link in the table of contents),
/// an image's description (which is text), a link's text (which a citation would end:
/// `[see [@a] here](url)`), or a reference inside it.
pub(super) fn citations_in(
    stream: &[(Event, Range<usize>)],
    tokens: &Tokens,
    smart_punctuation: bool,
) -> Vec<Found> {
    let mut found = Vec::new();
    let (mut in_heading, mut in_image) = (false, 0usize);
    // The citation being read: its range, its text, and a reference met inside it.
    let mut open: Option<(Range<usize>, String, bool)> = None;
    for (event, range) in stream {
        if let Some((_, text, reference)) = open.as_mut() {
            match event {
                Event::End(TagEnd::Link) => {
                    let (at, text, reference) = open.take().expect("a citation is open");
                    let misplaced = if in_heading {
                        Some("a heading")
                    } else if in_image > 0 {
                        Some("an image's description")
                    } else if in_link_text(tokens.body, at.end) {
                        Some("a link's text")
                    } else {
                        None
                    };
                    let help = "a citation or a cross-reference stands in the text of a \
                                sentence: write it after the heading, image or link, and write \
                                a number there as it is";
                    let what =
                        match super::xrefs::is_name(text.trim_start().trim_start_matches('@')) {
                            true => "a cross-reference",
                            false => "a citation",
                        };
                    let read = match (misplaced, reference) {
                        (Some(place), _) => {
                            Err((format!("{what} cannot stand in {place}"), help.to_string()))
                        }
                        (None, true) => Err((
                            "a reference cannot stand in a citation".to_string(),
                            help.to_string(),
                        )),
                        (None, false) => Ok(text.split_whitespace().collect::<Vec<_>>().join(" ")),
                    };
                    found.push((at, read));
                }
                Event::Text(t) | Event::Code(t) => {
                    *reference |= tokens.mark.as_deref().is_some_and(|m| t.contains(m));
                    match tokens.body.get(range.clone()) {
                        Some(written) if smart_punctuation => text.push_str(&unsmart(t, written)),
                        _ => text.push_str(t),
                    }
                }
                Event::SoftBreak | Event::HardBreak => text.push(' '),
                Event::InlineHtml(t) | Event::InlineMath(t) => text.push_str(t),
                _ => {}
            }
            continue;
        }
        match event {
            // `Wow![@a]` reads as an image's syntax, and stays text: say so.
            Event::Text(t) if t.contains("![@") => {
                let written = tokens.body.get(range.clone()).unwrap_or_default();
                let at = written.find("![@").map_or(range.start, |i| range.start + i);
                let end = written[at - range.start..]
                    .find(']')
                    .map_or(at + 3, |e| at + e + 1);
                found.push((
                    at..end,
                    Err((
                        "`![@…]` is how an image is written, not a citation".to_string(),
                        "write a space between `!` and `[@…]`, or `!\\[@…]` for the text"
                            .to_string(),
                    )),
                ));
            }
            Event::Start(Tag::Heading { .. }) => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::Image { .. }) => in_image += 1,
            Event::End(TagEnd::Image) => in_image = in_image.saturating_sub(1),
            Event::Start(Tag::Link {
                link_type: LinkType::ShortcutUnknown,
                ..
            }) => open = Some((range.clone(), String::new(), false)),
            _ => {}
        }
    }
    found
}

/// Whether the text after `at` in `body` closes a bracket opened before it as a link's
/// text (`](` or `][`), within its paragraph: a citation at `at` would then stand in
/// the text of a link, which it ends.
fn in_link_text(body: &str, at: usize) -> bool {
    let rest = body.get(at..).unwrap_or_default();
    let rest = rest.split("\n\n").next().unwrap_or_default();
    let mut depth = 0usize;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            ']' => return rest[i + 1..].starts_with(['(', '[']),
            _ => {}
        }
    }
    false
}

/// Takes every `id` and `name` that `html` gives an element.
fn html_anchors(html: &str, ids: &mut Ids) {
    for attribute in raw_html::attributes(html) {
        if matches!(attribute.name.as_str(), "id" | "name") && !attribute.raw.is_empty() {
            ids.take(&attribute.value());
        }
    }
}

/// A heading's text as written, where smart punctuation made dashes of its hyphens:
/// GitHub's anchors are made from the text it shows, which keeps `--` as written (and
/// keeps `-`), while an en or em dash is removed. Quotes and ellipses need nothing: a
/// straight quote, a curly one, `...` and `…` are all removed alike. Only a text whose
/// source holds no dash (nor an entity, which could write one) is undone, so that a
/// dash the author wrote is removed as on GitHub.
fn unsmart(text: &str, written: &str) -> String {
    let dashed = text.contains(['\u{2013}', '\u{2014}']);
    if !dashed || written.contains(['\u{2013}', '\u{2014}', '&']) {
        return text.to_string();
    }
    text.replace('\u{2013}', "--").replace('\u{2014}', "---")
}

/// A custom heading id at `range` of `body` that is already taken: by the custom id of
/// the heading at `first`, or else by a figure.
fn taken(body: &str, range: &Range<usize>, id: &str, first: Option<&usize>) -> TakenId {
    let heading = body.get(range.clone()).unwrap_or_default();
    // The `{#id}` the author wrote, at the end of the heading's first line.
    let line = heading.lines().next().unwrap_or_default();
    let at = line.rfind("{#").unwrap_or_default();
    let close = line[at..].find('}').map_or(line.len(), |c| at + c + 1);
    TakenId {
        range: range.start + at..range.start + close,
        id: id.to_string(),
        first: first.copied(),
    }
}
