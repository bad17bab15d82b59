//! Each directive's figure, drawn from its results or found in what the last build
//! drew.

use std::collections::HashMap;
use std::sync::Arc;

use super::page::Page;
use super::parts::{Block, PageParts};
use super::{BlockResults, Figures, explore, live, playground, ticks};
use crate::chart::{self, Sweep, SweepPoint};
use crate::directive::Kind;
use crate::engine::ScenarioResult;
use crate::engine::schedule::schedule;

impl Block {
    /// Its HTML, from `results`: its own, one per scenario in the order of
    /// [`Block::scenarios`] (see [`BlockResults`]).
    /// A scenario's figure links to the playground at `playground`, when the site has one
    /// and the playground can show the scenario.
    /// A scenario's figure links to its data's file, which the page in `folder` has.
    /// With `smart`, an author's caption is typeset as the page's prose is
    /// ([`typeset`]).
    fn figure(&self, results: &[ScenarioResult], drawing: &Drawing, folder: &str) -> String {
        let Drawing {
            playground,
            base_path,
            smart,
        } = *drawing;
        let caption = |text: Option<&str>| text.map(|text| typeset(text, smart));
        match self {
            Block::Sim(sim, source) => {
                let result = &results[0];
                let options = &crate::figure::FigureOptions {
                    window: sim.figure.window,
                    caption: caption(sim.figure.caption.as_deref()),
                };
                let csv = ticks::address(base_path, folder, &sim.scenario.id);
                let figure = if sim.explore.is_empty() {
                    chart::explorable_figure(&sim.scenario, result, options, "", &csv)
                        + &ticks::script(base_path)
                } else {
                    let controls = explore::controls(
                        &sim.scenario.id,
                        source,
                        &sim.explore,
                        &sim.scenario.strategies,
                        options.window,
                        options.caption.as_deref(),
                    );
                    chart::explorable_figure(&sim.scenario, result, options, &controls, &csv)
                        + &ticks::script(base_path)
                        + &explore::script(base_path)
                };
                // Every scenario runs there: what the form cannot show stays in its YAML
                // editor, which holds the block as the author wrote it. The link names
                // the figure's window, so the playground's chart shows the same ticks.
                match playground {
                    Some(address) => {
                        let window = options
                            .window
                            .unwrap_or_else(|| chart::auto_window(&sim.scenario, result));
                        figure + &playground::try_it(address, source, window)
                    }
                    None => figure,
                }
            }
            Block::Sweep(sweep) => {
                let points: Vec<SweepPoint> = sweep
                    .points
                    .iter()
                    .zip(results)
                    .map(|((label, x, _), result)| SweepPoint {
                        label: label.clone(),
                        x: *x,
                        result: result.clone(),
                    })
                    .collect();
                chart::sweep_figure(&Sweep {
                    id: &sweep.id,
                    parameter: sweep.parameter.name(),
                    axis: &sweep.parameter.axis(),
                    total: sweep.total,
                    points: &points,
                    caption: caption(sweep.caption.as_deref()).as_deref(),
                })
            }
            Block::Schedule(s) => {
                let rows: Vec<_> = s
                    .strategies
                    .iter()
                    .map(|&strategy| (strategy, schedule(strategy, &s.retry, s.waits, s.seed)))
                    .collect();
                chart::schedule_figure(&s.id, &rows, caption(s.caption.as_deref()).as_deref())
            }
            Block::Table(html) => html.clone(),
            Block::Live(block) => live::figure(
                block,
                &results[0],
                caption(block.directive.caption.as_deref()).as_deref(),
            ),
        }
    }
}

/// What every figure of a build is drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Drawing<'a> {
    /// The playground's address, when the site has one.
    pub playground: Option<&'a str>,
    /// The site's base path.
    pub base_path: &'a str,
    /// Whether the site typesets quotes, dashes and ellipses (`smart_punctuation`).
    pub smart: bool,
}

/// An author's caption as the page's prose would read it: with `smart`, its straight
/// quotes curled, `--` and `---` made dashes and `...` an ellipsis, as in a paragraph
/// (pulldown-cmark's smart punctuation). A caption is plain text, so nothing else of it
/// changes: one that Markdown would read as more than text (a backslash escape, an
/// entity, a code span) is kept as written.
fn typeset(text: &str, smart: bool) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let words = |options: Options| -> Option<String> {
        let mut out = String::new();
        for event in Parser::new_ext(text, options) {
            match event {
                Event::Text(piece) => out.push_str(&piece),
                Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph) => {}
                _ => return None,
            }
        }
        Some(out)
    };
    let plain = words(Options::empty());
    match (smart, plain.as_deref() == Some(text)) {
        (true, true) => {
            words(Options::ENABLE_SMART_PUNCTUATION).unwrap_or_else(|| text.to_string())
        }
        _ => text.to_string(),
    }
}

/// A figure's HTML, shared by the pages and builds that show it.
pub(super) type Figure = Arc<str>;

/// The figures a build drew, kept by `serve` for the next (see [`super::memo`]).
#[derive(Default)]
pub struct Drawn {
    /// The playground's address, the base path and the smart punctuation they were
    /// drawn with.
    with: Option<(Option<String>, String, bool)>,
    /// Each figure, by its directive's kind and text, which fix its scenarios, hence
    /// its results; a live block's by every field of it as read.
    by_source: HashMap<(Kind, String), Figure>,
}

/// Each page's figures, by the place of their blocks: drawn, or found in `memo`.
/// `memo` is left holding this build's figures.
pub(super) fn draw_figures(
    pages: &[Page],
    parts: &[PageParts],
    results: &BlockResults,
    drawing: &Drawing,
    memo: &mut Drawn,
) -> Vec<Figures> {
    let with = (
        drawing.playground.map(str::to_string),
        drawing.base_path.to_string(),
        drawing.smart,
    );
    let mut last = std::mem::take(memo);
    if last.with.as_ref() != Some(&with) {
        last.by_source.clear();
    }
    let figures = parts
        .iter()
        .zip(pages)
        .zip(results)
        .map(|((p, page), results)| {
            p.blocks
                .iter()
                .zip(results)
                .map(|(placed, results)| {
                    let block = &placed.block;
                    let key = match block {
                        Block::Live(_) => (Kind::Live, format!("{block:?}")),
                        // A scenario's figure links to its page's data file.
                        Block::Sim(..) => {
                            (block.kind(), format!("{}\n{}", page.folder, placed.text))
                        }
                        Block::Sweep(_) | Block::Schedule(_) | Block::Table(_) => {
                            (block.kind(), placed.text.clone())
                        }
                    };
                    let known = last.by_source.remove(&key);
                    let figure = match known.or_else(|| memo.by_source.get(&key).cloned()) {
                        Some(figure) => figure,
                        None => Figure::from(block.figure(results, drawing, &page.folder)),
                    };
                    memo.by_source.insert(key, Figure::clone(&figure));
                    (placed.at, figure)
                })
                .collect()
        })
        .collect();
    memo.with = Some(with);
    figures
}

#[cfg(test)]
mod tests {
    use super::typeset;

    #[test]
    fn a_caption_is_typeset_as_the_prose_is() {
        assert_eq!(
            typeset("The clients' timeout -- \"the\" window...", true),
            "The clients’ timeout – “the” window…"
        );
        assert_eq!(
            typeset("The clients' timeout", false),
            "The clients' timeout"
        );
    }

    #[test]
    fn a_caption_markdown_would_read_as_more_than_text_is_kept() {
        for text in [
            "a \\*b's",
            "it's `x`",
            "a &amp; b's",
            "*it's*",
            "<b>it's</b>",
        ] {
            assert_eq!(typeset(text, true), text);
        }
    }
}
