//! One page's Markdown to HTML: directives spliced in as figures, references replaced by
//! their values, headings given anchors, internal links resolved against `base_url`.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Parser, Tag, TagEnd, html};
use serde::Serialize;

use super::links;
pub use super::links::Link;
use crate::chart::table::escape;
use crate::directive::{Kind, markdown_options};

/// An entry of a page's table of contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TocEntry {
    /// 2 for `##`, 3 for `###`, …
    pub level: u8,
    /// The heading's anchor.
    pub id: String,
    /// The heading's text.
    pub title: String,
}

/// What rendering one page gives.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    /// The HTML of the body.
    pub html: String,
    /// `##` and `###` headings.
    pub toc: Vec<TocEntry>,
    /// Every heading id on the page.
    pub ids: HashSet<String>,
    /// Internal links to check.
    pub links: Vec<Link>,
    /// Targets that lead nowhere as written (a `.md` file that is no page, an address
    /// above the root): (byte range, target).
    pub broken: Vec<(Range<usize>, String)>,
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
    /// The HTML of each directive, in order.
    pub figures: &'a [String],
    /// Each reference's byte range in the body and its value.
    pub values: &'a [(Range<usize>, String)],
}

/// Renders a page body.
///
/// Each reference is resolved at its own place: before the Markdown is read, its source
/// range is replaced by a token that no Markdown rule touches (no punctuation that smart
/// quotes, dashes, emphasis or a table's `|` would act on, and a space, so that it never
/// makes an address of the text around it), and the token becomes the value in the text
/// and titles the parser gives back. So typography never rewrites a reference, a `|` in
/// one does not split a table cell, and text that is not a reference is never touched.
pub fn render(body: &str, cx: &Context) -> Rendered {
    let tokens = Tokens::new(body, cx.values);
    let source = tokens.source.as_str();
    let mut out = Rendered::default();
    let mut events: Vec<Event> = Vec::new();
    let mut figure = 0;
    let mut in_sim = false;
    // A code block being collected (its language, or "" for none), and how many the
    // page has had, which names each block's region.
    let mut code: Option<(String, String)> = None;
    let mut code_blocks = 0;
    let mut heading: Option<(HeadingLevel, Vec<Event>)> = None;
    let mut pending_text: Option<(String, Range<usize>)> = None;
    let mut used_ids: BTreeMap<String, usize> = BTreeMap::new();

    let parser = Parser::new_ext(source, markdown_options()).into_offset_iter();
    let mut stream: Vec<(Event, Range<usize>)> = Vec::new();
    // Merge runs of text, so that a token split by the parser is seen whole.
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

    for (event, range) in stream {
        let event = match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                if Kind::of_info(&info).is_some() =>
            {
                in_sim = true;
                let html = cx.figures.get(figure).cloned().unwrap_or_default();
                figure += 1;
                Event::Html(CowStr::from(html))
            }
            Event::End(TagEnd::CodeBlock) if in_sim => {
                in_sim = false;
                continue;
            }
            _ if in_sim => continue,
            Event::Start(Tag::CodeBlock(kind)) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => super::highlight::language_of(&info).to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((language, String::new()));
                continue;
            }
            Event::Text(text) if code.is_some() => {
                if let Some((_, collected)) = code.as_mut() {
                    collected.push_str(&tokens.restore(&text));
                }
                continue;
            }
            Event::End(TagEnd::CodeBlock) if code.is_some() => {
                let (language, text) = code.take().unwrap_or_default();
                code_blocks += 1;
                Event::Html(CowStr::from(code_block(&language, &text, code_blocks)))
            }
            Event::Text(text) => Event::Text(tokens.fill(text)),
            // Code and HTML are written as they are: should a token land there, it is the
            // reference's own text again.
            Event::Code(text) => Event::Code(tokens.restore(&text)),
            Event::Html(text) => Event::Html(tokens.restore(&text)),
            Event::InlineHtml(text) => Event::InlineHtml(tokens.restore(&text)),
            Event::FootnoteReference(label) => Event::FootnoteReference(tokens.restore(&label)),
            Event::Start(Tag::FootnoteDefinition(label)) => {
                Event::Start(Tag::FootnoteDefinition(tokens.restore(&label)))
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(links::link(
                    &tokens.restore(&dest_url),
                    &range,
                    cx,
                    &mut out,
                )),
                title: tokens.fill(title),
                id,
            }),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Image {
                link_type,
                dest_url: CowStr::from(links::image(
                    &tokens.restore(&dest_url),
                    &range,
                    cx,
                    &mut out,
                )),
                title: tokens.fill(title),
                id,
            }),
            other => other,
        };
        match (&mut heading, event) {
            (None, Event::Start(Tag::Heading { level, .. })) => heading = Some((level, Vec::new())),
            (Some(_), Event::End(TagEnd::Heading(_))) => {
                let (level, inner) = heading.take().expect("inside a heading");
                events.push(Event::Html(CowStr::from(heading_html(
                    level,
                    inner,
                    &mut used_ids,
                    &mut out,
                ))));
            }
            (Some((_, inner)), event) => inner.push(event),
            (None, event) => events.push(event),
        }
    }
    html::push_html(&mut out.html, events.into_iter());
    out
}

/// A page's body with each reference replaced by a token, and the way back.
///
/// A token is `{`, a mark, the reference's number, a space, the mark and `}`: braces at
/// its ends as the reference has, so that the emphasis and quotes around it are read as
/// around the reference. The mark is private-use text that the page does not hold, so
/// no text of the author's is ever taken for a token.
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
            tokens.source.push_str(&format!("{{{mark}{i} {mark}}}"));
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
        let open = format!("{{{mark}");
        let mut out = String::new();
        let mut rest: &str = &text;
        while let Some(at) = rest.find(&open) {
            let after = &rest[at + open.len()..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let close = format!(" {mark}}}");
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
fn code_block(language: &str, text: &str, n: usize) -> String {
    let class = escape(language);
    let label = if language.is_empty() {
        format!("Code example {n}")
    } else {
        format!("Code example {n} ({class})")
    };
    let pre = match super::highlight::highlight(text, language) {
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

fn heading_html(
    level: HeadingLevel,
    inner: Vec<Event>,
    used: &mut BTreeMap<String, usize>,
    out: &mut Rendered,
) -> String {
    let title: String = inner
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect();
    let base = slug(&title);
    let n = used.entry(base.clone()).or_insert(0);
    let id = if *n == 0 {
        base.clone()
    } else {
        format!("{base}-{n}")
    };
    *n += 1;
    let mut inner_html = String::new();
    html::push_html(&mut inner_html, inner.into_iter());
    let level_number = level as u8;
    if (2..=3).contains(&level_number) {
        out.toc.push(TocEntry {
            level: level_number,
            id: id.clone(),
            title: title.clone(),
        });
    }
    out.ids.insert(id.clone());
    format!(
        "<h{level_number} id=\"{id}\">{inner_html} <a class=\"anchor\" href=\"#{id}\" \
         aria-label=\"Link to this section\">#</a></h{level_number}>\n"
    )
}

/// A heading's anchor: lower case, letters and digits, words joined by `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "section".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str, figures: &[String], values: &[(Range<usize>, String)]) -> Rendered {
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
                figures,
                values,
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
                figures: &[],
                values: &[],
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

    #[test]
    fn slugs() {
        assert_eq!(slug("Why backoff needs jitter"), "why-backoff-needs-jitter");
        assert_eq!(slug("Retry-After & deadlines!"), "retry-after-deadlines");
        assert_eq!(slug("???"), "section");
    }
}
