//! A lane's bars, each kind one path, their outlines and fills, and the capacity line
//! drawn over them.

use super::column::Column;
use super::layout::Layout;
use super::overload;
use super::{FAST, FAST_TINT, REJECTED, SERVED, TINT};
use crate::chart::coord;
use crate::chart::draw::{Rects, line, rect};
use crate::chart::svg::Element;
use crate::engine::{Lanes, StrategyResult};

/// A lane's bars: served, wasted above them, turned away above those, and the
/// outlines of the turned-away ones; then the calls that failed fast and the attempts
/// throttled, and the queue's line over them all.
///
/// A bar at least 3 units wide has its own outline. On thinner bars an outline would
/// cover the hatch and leave plain red, so each run of neighbouring turned-away bars
/// gets one outline around the lot instead, which also keeps a lone thin spike visible.
pub(super) fn bars(layout: &Layout, id: &str, strategy: &StrategyResult, base: f64) -> Element {
    let form = layout.form;
    let per_tick = layout.per_tick();
    let wide = per_tick >= 3.0;
    let bar = if wide { per_tick * 0.8 } else { per_tick }.max(0.5);
    let served = Element::new("g").set("class", "served").set("fill", SERVED);
    let wasted = overload::wasted_group(&form.id(id, "waste"), wide, bar);
    let mut rejected = Element::new("g")
        .set("class", "rejected")
        .set("fill", format!("url(#{})", form.id(id, "hatch")));
    rejected = if wide {
        rejected
            .set("class", "rejected outlined")
            .set("stroke", REJECTED)
            .set("stroke-width", if bar >= 6.0 { "1" } else { "0.5" })
    } else {
        rejected.set("stroke", "none")
    };
    let outlines = Element::new("g")
        .set("class", "outlined")
        .set("fill", "none")
        .set("stroke", REJECTED)
        .set("stroke-width", "0.75");
    // The bars of each kind, and the runs' outlines, each one path.
    let (mut served_bars, mut wasted_bars, mut rejected_bars) =
        (Rects::joined(), Rects::joined(), Rects::joined());
    let mut outline = String::new();
    // The (top of the work below, turned-away top) of each bar of the current run of
    // turned-away bars, and the tick it started at.
    let mut run: Vec<(f64, f64)> = Vec::new();
    let mut run_start = 0;
    for k in 0..=layout.columns {
        let c = if k < layout.columns {
            layout.column(strategy, k)
        } else {
            Column::default()
        };
        let s_top = base - c.served * layout.per_call();
        let w_top = s_top - c.wasted * layout.per_call();
        let r_top = w_top - c.rejected * layout.per_call();
        let x = layout.x_col(k) + (per_tick - bar) / 2.0;
        let bar = layout.clipped(bar, x);
        served_bars.slice(x, bar, base, s_top);
        wasted_bars.slice(x, bar, s_top, w_top);
        if rejected_bars.slice(x, bar, w_top, r_top) {
            if run.is_empty() {
                run_start = k;
            }
            run.push((w_top, r_top));
        } else if !run.is_empty() {
            if !wide {
                outline.push_str(&run_outline(layout, run_start, &run));
            }
            run.clear();
        }
    }
    let mut group = Element::new("g")
        .set("class", "bars")
        .add(served_bars.into_group(served));
    if layout.overload.wasted {
        group = group.add(wasted_bars.into_group(wasted));
    }
    group = group.add(rejected_bars.into_group(rejected));
    if !wide {
        group = group.add(if outline.is_empty() {
            outlines
        } else {
            outlines.add(Element::new("path").set("d", outline))
        });
    }
    let above = [
        failed_fast(layout, strategy, base, bar, wide),
        overload::throttled(layout, &form.id(id, "throttle"), strategy, base, bar, wide),
        overload::queue_line(layout, strategy, base),
        overload::hedge_line(layout, strategy, base),
    ];
    above
        .into_iter()
        .flatten()
        .fold(group, |group, mark| group.add(mark))
}

/// The calls that failed fast, on top of each bar; `None` for a lane without a breaker.
fn failed_fast(
    layout: &Layout,
    strategy: &StrategyResult,
    base: f64,
    bar: f64,
    wide: bool,
) -> Option<Element> {
    let lanes = strategy.typical.lanes.as_ref()?;
    if lanes.failed_fast.is_empty() {
        return None;
    }
    let per_tick = layout.per_tick();
    let group = Element::new("g")
        .set("class", "failed-fast")
        .set("fill", FAST_TINT)
        .set("stroke", FAST)
        .set("stroke-width", if wide { "0.75" } else { "0.5" })
        .set("stroke-dasharray", "1.5 1.5");
    let mut rects = Rects::default();
    for k in 0..layout.columns {
        let c = layout.column(strategy, k);
        if c.failed_fast == 0.0 {
            continue;
        }
        let bottom = base - (c.served + c.wasted + c.rejected) * layout.per_call();
        let top = bottom - c.failed_fast * layout.per_call();
        if bottom - top < 0.005 {
            continue;
        }
        let x = layout.x_col(k) + (per_tick - bar) / 2.0;
        rects.push(x, top, layout.clipped(bar, x), bottom - top);
    }
    Some(rects.into_group(group))
}

/// The outline of a run of neighbouring turned-away bars from tick `start`, as a
/// subpath of the lane's outlines: along their tops, down the last, back along the tops
/// of the served bars beneath, and up.
fn run_outline(layout: &Layout, start: usize, run: &[(f64, f64)]) -> String {
    let x = |k: usize| coord(layout.x_col(k));
    let mut y = coord(run[0].0);
    let mut d = format!("M{} {y}", x(start));
    let tops = run
        .iter()
        .enumerate()
        .map(|(i, &(_, r_top))| (r_top, start + i + 1));
    let bottoms = run
        .iter()
        .enumerate()
        .rev()
        .map(|(i, &(s_top, _))| (s_top, start + i));
    // A flat stretch is one long H: a horizontal move is written only before a
    // vertical one, or at the end.
    let mut pending: Option<String> = None;
    for (to_y, to_k) in tops.chain(bottoms) {
        let to_y = coord(to_y);
        if to_y != y {
            if let Some(px) = pending.take() {
                d.push_str(&format!("H{px}"));
            }
            d.push_str(&format!("V{to_y}"));
            y = to_y;
        }
        pending = Some(x(to_k));
    }
    if let Some(px) = pending {
        d.push_str(&format!("H{px}"));
    }
    d.push('Z');
    d
}

/// The dashed capacity line, stepping down (or up) to each slowdown's capacity for its
/// window.
pub(super) fn capacity_steps(layout: &Layout, base: f64, right: f64) -> Element {
    let y = |capacity: f64| coord(base - capacity * layout.per_call());
    let usual = y(layout.capacity);
    let mut d = format!("M{} {usual}", coord(layout.left));
    for &(from, to, capacity) in &layout.slowdowns {
        d.push_str(&format!(
            "H{}V{}H{}V{usual}",
            coord(layout.x_of(from)),
            y(capacity),
            coord(layout.x_of(to))
        ));
    }
    d.push_str(&format!("H{}", coord(right)));
    capacity_path(d)
}

/// The dashed capacity line of a run whose capacity moved (a server with a cache):
/// each column at the capacity the run had, `capacity` per tick in thousandths.
pub(super) fn capacity_run(layout: &Layout, base: f64, lanes: &Lanes) -> Element {
    let y = |c: usize| coord(base - layout.capacity_of(lanes, c) * layout.per_call());
    let mut d = format!("M{} {}", coord(layout.left), y(0));
    for c in 1..layout.columns {
        let (before, now) = (y(c - 1), y(c));
        if now != before {
            d.push_str(&format!("H{}V{now}", coord(layout.x_col(c))));
        }
    }
    d.push_str(&format!("H{}", coord(layout.right())));
    capacity_path(d)
}

/// A dashed capacity line that steps, along the path `d`.
fn capacity_path(d: String) -> Element {
    Element::new("path")
        .set("d", d)
        .set("class", "capacity")
        .set("fill", "none")
        .set("stroke", "currentColor")
        .set("stroke-width", "1.5")
        .set("stroke-dasharray", "6 4")
}

/// The dashed capacity line.
pub(super) fn capacity_line(x1: f64, x2: f64, y: f64) -> Element {
    line(x1, y, x2, y)
        .set("class", "capacity")
        .set("stroke", "currentColor")
        .set("stroke-width", "1.5")
        .set("stroke-dasharray", "6 4")
}

/// The patterns of the chart of `id`: the hatch that marks calls turned away, diagonal
/// strokes over a light tint, and those of the overload marks it draws.
pub(super) fn patterns(layout: &Layout, id: &str) -> Element {
    let form = layout.form;
    let defs = Element::new("defs").add(
        Element::new("pattern")
            .set("id", form.id(id, "hatch"))
            .set("patternUnits", "userSpaceOnUse")
            .set("width", "5")
            .set("height", "5")
            .set("patternTransform", "rotate(45)")
            .add(
                rect(0.0, 0.0, 5.0, 5.0)
                    .set("class", "tint")
                    .set("fill", TINT)
                    .set("stroke", "none"),
            )
            .add(
                line(2.5, 0.0, 2.5, 5.0)
                    .set("class", "hatch")
                    .set("stroke", REJECTED)
                    .set("stroke-width", "1.5"),
            ),
    );
    overload::patterns(
        layout.overload,
        &form.id(id, "waste"),
        &form.id(id, "throttle"),
    )
    .into_iter()
    .fold(defs, |defs, pattern| defs.add(pattern))
}
