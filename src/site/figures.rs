//! Each directive's figure, drawn from its results or found in what the last build
//! drew.

use std::collections::HashMap;

use super::parts::{Block, PageParts};
use super::{Figures, explore, live, playground};
use crate::chart::{self, Sweep, SweepPoint};
use crate::engine::ScenarioResult;
use crate::engine::schedule::schedule;

impl Block {
    /// Its HTML, taking its results from `results` in the order of [`Block::scenarios`].
    /// A scenario's figure links to the playground at `playground`, when the site has one
    /// and the playground can show the scenario.
    fn figure<'r>(
        &self,
        results: &mut impl Iterator<Item = &'r ScenarioResult>,
        playground: Option<&str>,
        base_path: &str,
    ) -> String {
        match self {
            Block::Sim(sim, source) => {
                let result = results.next().expect("a result per scenario");
                let options = &sim.figure;
                let figure = if sim.explore.is_empty() {
                    chart::figure(&sim.scenario, result, options)
                } else {
                    let controls = explore::controls(
                        &sim.scenario.id,
                        source,
                        &sim.explore,
                        &sim.scenario.strategies,
                        options.window,
                        options.caption.as_deref(),
                    );
                    chart::explorable_figure(&sim.scenario, result, options, &controls)
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
                    .map(|(label, x, _)| SweepPoint {
                        label: label.clone(),
                        x: *x,
                        result: results.next().expect("a result per point").clone(),
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
            Block::Live(block) => {
                let result = results.next().expect("a result per scenario");
                live::figure(block, result)
            }
        }
    }
}

/// Each page's figures, by the place of their blocks: drawn, or found in `memo` by
/// every field of the directive and the playground's address (which fix its
/// scenarios, hence its results). `memo` is left holding this build's figures.
pub(super) fn draw_figures(
    parts: &[PageParts],
    results: &[ScenarioResult],
    playground: Option<&str>,
    base_path: &str,
    memo: &mut HashMap<String, String>,
) -> Vec<Figures> {
    let mut in_order = results.iter();
    let mut drawn = HashMap::new();
    let figures = parts
        .iter()
        .map(|p| {
            p.blocks
                .iter()
                .map(|(at, block)| {
                    let key = format!("{block:?}\n{playground:?}\n{base_path}");
                    let figure = match memo.remove(&key).or_else(|| drawn.get(&key).cloned()) {
                        Some(figure) => {
                            // The figure's results are passed over, as drawing takes them.
                            in_order
                                .by_ref()
                                .take(block.scenarios().len())
                                .for_each(drop);
                            figure
                        }
                        None => block.figure(&mut in_order, playground, base_path),
                    };
                    drawn.insert(key, figure.clone());
                    (*at, figure)
                })
                .collect()
        })
        .collect();
    *memo = drawn;
    figures
}
