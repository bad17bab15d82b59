//! The CommonMark spec's examples (0.31.2), the smart-punctuation examples and the GFM
//! spec's extension examples, each rendered by the page pipeline and compared with the
//! HTML the spec gives (see `tests/spec/README.md` for the files and their licences).
//!
//! What the comparison sets aside is what the issue allows and no more: the id and
//! anchor link a heading gets, the region that wraps a code block and the highlighting
//! inside it; then whitespace between block tags is normalised, as the spec's own
//! runner (`normalize.py`) does.

use std::collections::BTreeMap;
use std::ops::Range;

use retrylab::site::render::{Context, render};

/// One example of a spec file.
pub struct Example {
    /// Its number in its file, from 1, as the spec's runners count.
    pub number: usize,
    /// The section it stands in.
    pub section: String,
    /// The word after `example`: `table`, `autolink`, … or "" for the core's.
    pub extension: String,
    pub markdown: String,
    pub html: String,
}

/// The examples of a spec file: a line of 32 backticks and ` example`, the Markdown, a
/// line `.`, the HTML, a line of 32 backticks; `→` stands for a tab.
pub fn examples(text: &str) -> Vec<Example> {
    let fence = "`".repeat(32);
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(title) = line.strip_prefix("## ").or_else(|| line.strip_prefix("# ")) {
            section = title.to_string();
        }
        let Some(extension) = line.strip_prefix(&format!("{fence} example")) else {
            continue;
        };
        let (mut markdown, mut html, mut in_html) = (String::new(), String::new(), false);
        for line in lines.by_ref() {
            if line == fence {
                break;
            }
            if line == "." && !in_html {
                in_html = true;
                continue;
            }
            let target = if in_html { &mut html } else { &mut markdown };
            target.push_str(&line.replace('→', "\t"));
            target.push('\n');
        }
        out.push(Example {
            number: out.len() + 1,
            section: section.clone(),
            extension: extension.trim().to_string(),
            markdown,
            html,
        });
    }
    out
}

/// A page body rendered as a page of a site at `/` is.
pub fn page(markdown: &str, smart_punctuation: bool) -> String {
    let pages = BTreeMap::new();
    let values: &[(Range<usize>, String)] = &[];
    render(
        markdown,
        &Context {
            url: "",
            content_path: "index.md",
            pages: &pages,
            base_path: "/",
            figures: &BTreeMap::new(),
            reserved: &[],
            values,
            marks: &std::collections::BTreeMap::new(),
            smart_punctuation,
            highlights: &Default::default(),
            sources: None,
            named: &[],
        },
    )
    .html
}

/// `html` with what the issue sets aside removed: each heading's id, classes and anchor
/// link, the region around a code block, and the highlighting inside it.
pub fn without_our_markup(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        let heading = tag.len() > 3
            && tag.as_bytes()[1] == b'h'
            && (b'1'..=b'6').contains(&tag.as_bytes()[2])
            && tag.as_bytes()[3] == b' ';
        if heading {
            out.push_str(&tag[..3]);
            out.push('>');
        } else if tag.starts_with("<div class=\"code-scroll\"") {
            // Its end follows the block's `</pre>`.
            let close = rest.find("</pre></div>").map_or(rest.len(), |c| c + 6);
            out.push_str(&code_without_highlighting(&rest[end..close]));
            rest = &rest[(close + 6).min(rest.len())..];
            continue;
        } else if tag.starts_with("<div class=\"table-region\"") {
            // A Markdown table's region: its end follows the table's `</table>`.
            let close = rest
                .find("</table>\n</div>")
                .map_or(rest.len(), |c| c + "</table>\n".len());
            out.push_str(&without_our_markup(
                rest[end..close].trim_start_matches('\n'),
            ));
            rest = rest[(close + "</div>".len()).min(rest.len())..].trim_start_matches('\n');
            continue;
        } else if tag.starts_with("<a class=\"anchor\"") {
            let close = rest.find("</a>").map_or(rest.len(), |c| c + 4);
            if out.ends_with(' ') {
                out.pop();
            }
            rest = &rest[close..];
            continue;
        } else {
            out.push_str(tag);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A `<pre>` block without the highlighter's class and spans.
fn code_without_highlighting(pre: &str) -> String {
    let Some(inside) = pre.strip_prefix("<pre class=\"hl-code\">") else {
        return pre.to_string();
    };
    let mut out = String::from("<pre>");
    let mut rest = inside;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        if !(tag.starts_with("<span") || tag == "</span>") {
            out.push_str(tag);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Block-level tags, around which whitespace does not count (as in `normalize.py`).
const BLOCK_TAGS: &[&str] = &[
    "article",
    "header",
    "aside",
    "hgroup",
    "blockquote",
    "hr",
    "iframe",
    "body",
    "li",
    "map",
    "button",
    "object",
    "canvas",
    "ol",
    "output",
    "div",
    "dl",
    "dt",
    "dd",
    "fieldset",
    "footer",
    "figcaption",
    "figure",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "noscript",
    "pre",
    "progress",
    "section",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "video",
    "address",
    "center",
    "dir",
    "menu",
    "p",
];

/// `html` as the spec's runner compares it: outside `<pre>`, runs of whitespace as one
/// space and none before and after a block tag; `<br />` written `<br>` (the runner's
/// HTML parser drops the `/`); a tag's attributes in order of name; and `&quot;` in
/// text written `"`.
pub fn normalized(html: &str) -> String {
    let html = html.replace(" />", ">").replace("/>", ">");
    let mut out = String::new();
    let mut rest = html.as_str();
    let mut in_pre = 0usize;
    let mut after_block = false;
    while let Some(at) = rest.find('<') {
        let text = &rest[..at];
        rest = &rest[at..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        let name: String = tag
            .trim_start_matches(['<', '/'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let block = BLOCK_TAGS.contains(&name.as_str());
        let collapsed = collapse(text);
        let text = match (in_pre > 0, after_block, block) {
            (true, _, _) => text.to_string(),
            (false, true, true) => collapsed.trim().to_string(),
            (false, true, false) => collapsed.trim_start().to_string(),
            (false, false, true) => collapsed.trim_end().to_string(),
            (false, false, false) => collapsed,
        };
        // `"` in text is `&quot;` written plainly: the spec escapes it, pulldown-cmark
        // does not, and a browser reads both as the same character.
        out.push_str(&text.replace("&quot;", "\""));
        out.push_str(&sorted_attributes(tag));
        if name == "pre" {
            if tag.starts_with("</") {
                in_pre = in_pre.saturating_sub(1);
            } else {
                in_pre += 1;
            }
        }
        after_block = block;
        rest = &rest[end..];
    }
    let rest = match in_pre {
        0 => collapse(rest),
        _ => rest.to_string(),
    }
    .replace("&quot;", "\"");
    if in_pre > 0 || !after_block {
        out.push_str(&rest);
    } else {
        out.push_str(rest.trim());
    }
    out.trim().to_string()
}

/// Whether our page of `markdown` gives the spec's `html`, after the normalisation.
pub fn agrees(markdown: &str, html: &str, smart_punctuation: bool) -> Result<(), String> {
    let ours = normalized(&without_our_markup(&page(markdown, smart_punctuation)));
    let theirs = normalized(html);
    if ours == theirs {
        Ok(())
    } else {
        Err(format!("expected {theirs:?}\n     got {ours:?}"))
    }
}

/// Runs of whitespace as one space.
fn collapse(text: &str) -> String {
    let mut out = String::new();
    for (i, word) in text.split([' ', '\t', '\n']).enumerate() {
        if i > 0 && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A start tag with its attributes sorted by name, when each is a plain `name` or
/// `name="value"`; any other tag as it is.
fn sorted_attributes(tag: &str) -> String {
    let Some(inner) = tag.strip_prefix('<').and_then(|t| t.strip_suffix('>')) else {
        return tag.to_string();
    };
    if inner.starts_with(['/', '!', '?']) {
        return tag.to_string();
    }
    let Some((name, mut rest)) = inner.split_once(' ') else {
        return tag.to_string();
    };
    let mut attributes = Vec::new();
    while !rest.is_empty() {
        let end = rest.find([' ', '=']).unwrap_or(rest.len());
        let (attribute, after) = rest.split_at(end);
        if attribute.is_empty()
            || !attribute
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return tag.to_string();
        }
        if let Some(value) = after.strip_prefix("=\"") {
            let Some(close) = value.find('"') else {
                return tag.to_string();
            };
            attributes.push(format!("{attribute}=\"{}\"", &value[..close]));
            rest = value[close + 1..]
                .strip_prefix(' ')
                .unwrap_or(&value[close + 1..]);
        } else if after.starts_with('=') {
            return tag.to_string();
        } else {
            attributes.push(attribute.to_string());
            rest = after.strip_prefix(' ').unwrap_or(after);
        }
    }
    attributes.sort();
    format!("<{name} {}>", attributes.join(" "))
}
