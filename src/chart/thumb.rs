//! The thumbnail: a small lane chart for a card on the home page, bars only. It is a
//! picture of the scenario's shape, not a chart to read values from, so it has no
//! text; its `<title>` names it for screen readers, and the scenario's page has the
//! full figure and tables.
//!
//! Long windows are drawn in at most [`COLUMNS`] columns, each the mean of the ticks
//! it covers, so a card stays a few kilobytes whatever the horizon.

use super::svg::Element;

use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult, StrategyResult};

use super::draw::GRID;
use super::lanes::ticks_shown;
use super::table::escape;
use super::{auto_window, coord};

/// Width of the view box.
const WIDTH: f64 = 240.0;
/// Height of the view box.
const HEIGHT: f64 = 120.0;
/// Margin around the lanes.
const MARGIN: f64 = 4.0;
/// Space between lanes.
const GAP: f64 = 4.0;
/// The most columns drawn.
const COLUMNS: usize = 116;
/// Default colours, for the SVG on its own.
const SERVED: &str = "#1a7f37";
const REJECTED: &str = "#cf222e";

/// Served, wasted and turned-away calls of a lane at tick `k` (zero past its end).
fn calls_at(strategy: &StrategyResult, k: usize) -> (f64, f64, f64) {
    let at = |series: &[u32]| f64::from(series.get(k).copied().unwrap_or(0));
    match &strategy.typical.lanes {
        Some(l) => (at(&l.served), at(&l.wasted), at(&l.rejected)),
        None => (0.0, 0.0, 0.0),
    }
}

/// A small `<svg class="sim-thumb">` of a scenario's typical runs over the window of
/// the scenario's figure (`None`: the automatic window, as the figure's), so that a
/// card shows what the figure shows: one thin lane per strategy, calls served solid,
/// calls served after their client stopped waiting (wasted) in a lighter green above
/// them, calls turned away lighter red above those, all lanes on one height scale. Its
/// only id is `{id}-thumb-title`.
pub fn thumbnail(scenario: &Scenario, result: &ScenarioResult, window: Option<Micros>) -> String {
    let id = escape(&result.id);
    let window = window.unwrap_or_else(|| auto_window(scenario, result));
    let shown = ticks_shown(scenario, result, window);
    let columns = shown.clamp(1, COLUMNS);
    // Column c covers ticks [c·shown/columns, (c+1)·shown/columns).
    let span = |c: usize| (c * shown / columns, (c + 1) * shown / columns);
    let mean = |s: &StrategyResult, c: usize| {
        let (from, to) = span(c);
        let (mut served, mut wasted, mut rejected) = (0.0, 0.0, 0.0);
        for k in from..to {
            let (a, w, b) = calls_at(s, k);
            served += a;
            wasted += w;
            rejected += b;
        }
        let n = (to - from).max(1) as f64;
        (served / n, wasted / n, rejected / n)
    };
    let peak = result
        .strategies
        .iter()
        .flat_map(|s| (0..columns).map(move |c| mean(s, c)))
        .map(|(a, w, b)| a + w + b)
        .fold(0.0, f64::max)
        .max(1.0);

    let lanes = result.strategies.len().max(1);
    let lane = (HEIGHT - 2.0 * MARGIN - GAP * (lanes - 1) as f64) / lanes as f64;
    let width = (WIDTH - 2.0 * MARGIN) / columns as f64;
    let bar = if width >= 3.0 { width * 0.8 } else { width };

    let mut doc = Element::document()
        .set("viewBox", format!("0 0 {} {}", coord(WIDTH), coord(HEIGHT)))
        .set("width", "100%")
        .set("class", "sim-thumb")
        .set("role", "img")
        .set("aria-labelledby", format!("{id}-thumb-title"))
        .add(
            Element::new("title")
                .set("id", format!("{id}-thumb-title"))
                .text(format!("{id}: calls per tick, by strategy")),
        );
    for (i, s) in result.strategies.iter().enumerate() {
        let base = MARGIN + (i + 1) as f64 * lane + i as f64 * GAP;
        let (mut served, mut wasted, mut rejected) = (String::new(), String::new(), String::new());
        for c in 0..columns {
            let (a, w, b) = mean(s, c);
            let x = MARGIN + c as f64 * width + (width - bar) / 2.0;
            let s_top = base - lane * a / peak;
            let w_top = s_top - lane * w / peak;
            let r_top = w_top - lane * b / peak;
            // A bar too short to survive rounding is left out.
            if base - s_top >= 0.005 {
                served.push_str(&bar_path(x, s_top, bar, base - s_top));
            }
            if s_top - w_top >= 0.005 {
                wasted.push_str(&bar_path(x, w_top, bar, s_top - w_top));
            }
            if w_top - r_top >= 0.005 {
                rejected.push_str(&bar_path(x, r_top, bar, w_top - r_top));
            }
        }
        let mut group = Element::new("g").set("class", "lane").add(
            super::draw::line(MARGIN, base, WIDTH - MARGIN, base)
                .set("class", "grid")
                .set("stroke", GRID)
                .set("stroke-width", "0.5"),
        );
        if !served.is_empty() {
            group = group.add(
                Element::new("path")
                    .set("d", served)
                    .set("class", "served")
                    .set("fill", SERVED),
            );
        }
        if !wasted.is_empty() {
            group = group.add(
                Element::new("path")
                    .set("d", wasted)
                    .set("class", "wasted")
                    .set("fill", SERVED)
                    .set("fill-opacity", "0.4"),
            );
        }
        if !rejected.is_empty() {
            group = group.add(
                Element::new("path")
                    .set("d", rejected)
                    .set("class", "rejected")
                    .set("fill", REJECTED)
                    .set("fill-opacity", "0.4"),
            );
        }
        doc = doc.add(group);
    }
    doc.to_string()
}

/// A rectangle as a subpath.
fn bar_path(x: f64, y: f64, width: f64, height: f64) -> String {
    format!(
        "M{} {}h{}v{}h-{}Z",
        coord(x),
        coord(y),
        coord(width),
        coord(height),
        coord(width)
    )
}
