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
    fn figure(
        &self,
        results: &[ScenarioResult],
        playground: Option<&str>,
        base_path: &str,
        folder: &str,
    ) -> String {
        match self {
            Block::Sim(sim, source) => {
                let result = &results[0];
                let options = &sim.figure;
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
                    caption: sweep.caption.as_deref(),
                })
            }
            Block::Schedule(s) => {
                let rows: Vec<_> = s
                    .strategies
                    .iter()
                    .map(|&strategy| (strategy, schedule(strategy, &s.retry, s.waits, s.seed)))
                    .collect();
                chart::schedule_figure(&s.id, &rows, s.caption.as_deref())
            }
            Block::Table(html) => html.clone(),
            Block::Live(block) => live::figure(block, &results[0]),
        }
    }
}

/// A figure's HTML, shared by the pages and builds that show it.
pub(super) type Figure = Arc<str>;

/// The figures a build drew, kept by `serve` for the next (see [`super::memo`]).
#[derive(Default)]
pub struct Drawn {
    /// The playground's address and the base path they were drawn with.
    with: Option<(Option<String>, String)>,
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
    playground: Option<&str>,
    base_path: &str,
    memo: &mut Drawn,
) -> Vec<Figures> {
    let with = (playground.map(str::to_string), base_path.to_string());
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
                        None => {
                            Figure::from(block.figure(results, playground, base_path, &page.folder))
                        }
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
