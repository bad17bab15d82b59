//! How heavy a page is for a phone: the elements of its content as built. A browser
//! lays out, styles and keeps every element of a page, and past a few thousand a
//! mid-range phone is slow to show it (Lighthouse's mobile run warns from 800 elements
//! and calls 1,400 excessive). A page whose content will have more than [`MOST`]
//! elements gets a warning at `build` and `check`, placed at the figure that holds the
//! most of them, so its author sees what to make lighter.

use super::page::Page;
use super::{Figures, at};
use crate::diag::{Diagnostic, LineIndex};
use crate::format::thousands;

/// The most elements a page's content may have without a warning.
pub const MOST: usize = 5_000;

/// The number of elements in a piece of HTML: its start tags (`<p`, `<svg`, `<br/>`),
/// not its end tags, comments or doctype, nor anything inside a `<script>` or a
/// `<style>`, whose text is no markup. The HTML is the build's, where text and
/// attribute values have their `<` escaped.
pub fn elements(html: &str) -> usize {
    let bytes = html.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while let Some(found) = html[i..].find('<') {
        i += found + 1;
        if html[i..].starts_with("!--") {
            i = html[i..].find("-->").map_or(html.len(), |end| i + end);
            continue;
        }
        if !bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        count += 1;
        for raw in ["script", "style"] {
            let name = html.get(i..i + raw.len());
            let ends_name = bytes
                .get(i + raw.len())
                .is_none_or(|b| !b.is_ascii_alphanumeric());
            if name.is_some_and(|n| n.eq_ignore_ascii_case(raw)) && ends_name {
                let close = format!("</{raw}");
                i = html[i..].find(&close).map_or(html.len(), |end| i + end);
            }
        }
    }
    count
}

/// The warning for each page whose content, `body` (its rendered HTML, figures in
/// place), has more than [`MOST`] elements, naming the figure that has the most of them
/// (by its id) and placed at its block; `figures` are the page's, by the offset of
/// their block in its body. As `build` and `check` print them.
pub(super) fn warnings<'a>(
    pages: &[Page],
    bodies: impl IntoIterator<Item = &'a str>,
    figures: &[Figures],
) -> Vec<String> {
    let mut out = Vec::new();
    for ((page, body), figures) in pages.iter().zip(bodies).zip(figures) {
        let total = elements(body);
        if total <= MOST {
            continue;
        }
        let heaviest = figures
            .iter()
            .map(|(&offset, html)| (elements(html), offset, html))
            .max_by_key(|&(count, offset, _)| (count, std::cmp::Reverse(offset)));
        let message = format!(
            "the page will have {} elements, more than the {} that a phone lays out in \
             good time",
            thousands(total as u64),
            thousands(MOST as u64)
        );
        let in_figures: usize = figures.values().map(|html| elements(html)).sum();
        let diagnostic = match heaviest {
            Some((count, offset, html)) => {
                let name = first_id(html).map_or(String::new(), |id| format!(", `{id}`,"));
                let index = LineIndex::new(&page.source);
                at(
                    page,
                    &index,
                    &(offset..page.body().len()),
                    format!(
                        "{message}; its figures hold {} of them, and this block's{name} the most \
                         of any: {}",
                        thousands(in_figures as u64),
                        thousands(count as u64)
                    ),
                    Some(
                        "make its figure lighter (a shorter window, fewer strategies), or \
                         move some figures to a page of their own"
                            .to_string(),
                    ),
                )
            }
            None => Diagnostic::in_file(&page.file, message).with_help(Some(
                "split the page: its text alone has that many elements".to_string(),
            )),
        };
        out.push(diagnostic.to_warning());
    }
    out
}

/// The value of the first `id` attribute in a piece of HTML: a figure's own
/// (`sim-crowd`).
fn first_id(html: &str) -> Option<&str> {
    let start = html.find(" id=\"")? + " id=\"".len();
    let len = html[start..].find('"')?;
    Some(&html[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_start_tags_outside_scripts_and_styles() {
        assert_eq!(elements("<p>a &lt;b</p>"), 1);
        assert_eq!(
            elements("<!DOCTYPE html><!-- <p> --><br/><svg><path d=\"M0\"/></svg>"),
            3
        );
        assert_eq!(
            elements("<div><script>if (a<b) x = '<p>';</script><style>a<b{}</style></div>"),
            3
        );
        assert_eq!(elements("<scripted>x</scripted><p>"), 2);
        assert_eq!(elements("<p>unclosed <script>a<b"), 2);
    }

    #[test]
    fn the_first_id_names_a_figure() {
        assert_eq!(
            first_id("<figure class=\"sim\" id=\"sim-crowd\">"),
            Some("sim-crowd")
        );
        assert_eq!(first_id("<table>"), None);
    }
}
