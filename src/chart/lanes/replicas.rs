//! Each replica of a fleet as small multiples: under the lane chart, which draws the
//! fleet as one server, a panel per strategy with a strip per replica, its calls served,
//! wasted (with a queue) and turned away per tick stacked as in a lane, every strip on one height scale, so
//! that a replica that turns calls away stands out at a glance.
//!
//! The strips share the lane chart's time axis and columns (a binned chart bins them
//! alike); a replica's outages are shaded in its own strip. A strip is at most 12 units
//! high and at least 3, so that ten replicas take about a lane's height and a hundred
//! still fit a phone's screen; its number is written beside it where it has room, or
//! beside every fifth or tenth. The chart in words, for its `<desc>`, names each
//! strategy's replica that turned away the most and the one that turned away the least.

use super::DOWN;
use super::axes::axis_at;
use super::bars::patterns;
use super::layout::{Layout, time_labels};
use super::overload::wasted_group;
use super::{REJECTED, SERVED};
use crate::chart::coord;
use crate::chart::draw::{Form, Rects, rect, text};
use crate::chart::svg::Element;
use crate::engine::outcome::ReplicaLanes;
use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult};
use crate::format::{seconds_fixed, thousands};

/// Space between panels.
const GAP: f64 = 10.0;

/// The height of a strip of a panel of `n` replicas, and the space under it.
pub(super) fn strip(n: usize) -> (f64, f64) {
    let h = (96.0 / n.max(1) as f64).clamp(3.0, 12.0);
    (h, if h >= 6.0 { 2.0 } else { 1.0 })
}

/// Whether the strip of replica `number` (from 1) of `n` is numbered: each when a strip
/// is as high as a line of text, else the first, the last, and every fifth, tenth or
/// twentieth but where it would come closer to the first or the last than a line.
pub(super) fn numbered(form: Form, n: usize, number: usize) -> bool {
    let (h, gap) = strip(n);
    let apart = (form.font() * 0.85 / (h + gap)).ceil() as usize;
    let every = [1, 5, 10, 20]
        .into_iter()
        .find(|&every| every >= apart)
        .unwrap_or(25);
    number == 1
        || number == n
        || (number.is_multiple_of(every) && number > apart && n - number >= apart)
}

/// A replica's counts over column `c` of `layout`: the means of its served, wasted and
/// turned-away calls over the column's ticks.
fn column(layout: &Layout, lanes: &ReplicaLanes, c: usize) -> (f64, f64, f64) {
    let (from, to) = (c * layout.bin, ((c + 1) * layout.bin).min(layout.shown));
    let sum = |series: &[u32]| -> u64 {
        (from..to)
            .map(|k| u64::from(series.get(k).copied().unwrap_or(0)))
            .sum()
    };
    let n = to.saturating_sub(from).max(1) as f64;
    (
        sum(&lanes.served) as f64 / n,
        sum(&lanes.wasted) as f64 / n,
        sum(&lanes.rejected) as f64 / n,
    )
}

/// The replica chart of a fleet's `result` over `[0, window)` µs in one layout, as an
/// `<svg>` whose ids start `{id}-replicas`; `None` when no strategy kept its replicas'
/// lanes (one server, or a run too long to keep them, see
/// [`crate::engine::outcome::REPLICA_LANES`]). `fleet` is the scenario as written,
/// whose replicas have their own outages; `one` is the fleet as one server, which the
/// lane chart draws.
pub(crate) fn replica_chart(
    fleet: &Scenario,
    one: &Scenario,
    result: &ScenarioResult,
    window: Micros,
    form: Form,
) -> Option<String> {
    let kept = |s: &crate::engine::StrategyResult| {
        (s.typical.lanes.as_ref()).is_some_and(|l| !l.replicas.is_empty())
    };
    if result.strategies.is_empty() || !result.strategies.iter().all(kept) {
        return None;
    }
    let setup = fleet.server.fleet.as_ref()?;
    let servers = setup.servers(&fleet.server);
    let n = servers.len();
    let id = format!("{}-replicas", result.id);
    let layout = Layout::new(one, result, window, form);
    let (h, gap) = strip(n);
    let row = form.font() + 8.0;
    let panel = row + n as f64 * (h + gap);
    // One height scale: the most calls a replica saw in a column.
    let mut top = 1.0f64;
    let mut any_wasted = false;
    for s in &result.strategies {
        for lanes in &s.typical.lanes.as_ref()?.replicas {
            for c in 0..layout.columns {
                let (served, wasted, rejected) = column(&layout, lanes, c);
                top = top.max(served + wasted + rejected);
                any_wasted |= wasted > 0.0;
            }
        }
    }
    let top = top.ceil();
    let per_call = h / top;
    let any_down = (servers.iter()).any(|s| s.outages.iter().any(|o| o.from < layout.end));
    let (legend_group, legend) = legend_row(&layout, &id, top as u64, any_down, any_wasted);
    let panels = result.strategies.len();
    let bottom = legend + panels as f64 * (panel + GAP) - GAP;
    let height = bottom + form.font() * 3.3;
    let (times, decimals) = time_labels(&layout);

    let mut doc = crate::chart::draw::document(
        &id,
        "sim-lanes sim-replicas",
        form,
        height,
        format!("{}: each replica’s calls per tick, by strategy", result.id),
        description(result, &layout, any_wasted),
    )
    .add(patterns(&layout, &id))
    .add(legend_group);
    for (i, s) in result.strategies.iter().enumerate() {
        let y0 = legend + i as f64 * (panel + GAP);
        let mut group = Element::new("g").set("class", "lane");
        group = group.add(
            text(
                layout.left,
                y0 + form.font(),
                &format!("{}, by replica", s.strategy.name()),
            )
            .set("class", "label")
            .set("font-weight", "bold"),
        );
        let mut served_bars = Rects::joined();
        let mut wasted_bars = Rects::joined();
        let mut rejected_bars = Rects::joined();
        let mut numbers = Element::new("g")
            .set("class", "label")
            .set("fill", "currentColor")
            .set("text-anchor", "end");
        let mut down = Element::new("g").set("class", "down").set("fill", DOWN);
        let mut baselines = String::new();
        let per_tick = layout.per_tick();
        for (r, lanes) in s.typical.lanes.as_ref()?.replicas.iter().enumerate() {
            let base = y0 + row + r as f64 * (h + gap) + h;
            for o in servers[r].outages.iter().filter(|o| o.from < layout.end) {
                let x = layout.x_of(o.from);
                let to = layout.x_of(o.to.min(layout.end));
                down = down.add(rect(x, base - h, to - x, h));
            }
            for c in 0..layout.columns {
                let (served, wasted, rejected) = column(&layout, lanes, c);
                let x = layout.x_col(c);
                let width = layout.clipped(per_tick, x);
                let s_top = base - served * per_call;
                let w_top = s_top - wasted * per_call;
                let r_top = w_top - rejected * per_call;
                served_bars.slice(x, width, base, s_top);
                wasted_bars.slice(x, width, s_top, w_top);
                rejected_bars.slice(x, width, w_top, r_top);
            }
            baselines.push_str(&format!(
                "M{} {}H{}",
                coord(layout.left),
                coord(base),
                coord(layout.right())
            ));
            if numbered(form, n, r + 1) {
                numbers = numbers.add(crate::chart::draw::Label::at(
                    layout.left - 4.0,
                    base - h / 2.0 + form.font() * 0.35,
                    &thousands(r as u64 + 1),
                ));
            }
        }
        let mut bars = Element::new("g").set("class", "bars").add(
            served_bars.into_group(Element::new("g").set("class", "served").set("fill", SERVED)),
        );
        if any_wasted {
            let waste = form.id(&id, "waste");
            bars = bars.add(wasted_bars.into_group(wasted_group(&waste, false, per_tick)));
        }
        let bars = bars.add(
            rejected_bars.into_group(
                Element::new("g")
                    .set("class", "rejected")
                    .set("fill", format!("url(#{})", form.id(&id, "hatch")))
                    .set("stroke", "none"),
            ),
        );
        group = group
            .add(down)
            .add(bars)
            .add(
                Element::new("path")
                    .set("class", "axis")
                    .set("stroke", "currentColor")
                    .set("stroke-width", "0.5")
                    .set("d", baselines),
            )
            .add(numbers);
        doc = doc.add(group);
    }
    // The time axis under the last panel, and the title of the replicas' numbers.
    doc = doc.add(axis_at(
        &layout,
        (legend, bottom),
        &times,
        decimals,
        "replica",
    ));
    Some(doc.to_string())
}

/// The legend: served, wasted (where a strip has some), turned away, a replica down
/// (where one is, in the window), and the strips' scale, wrapped at the plot's right
/// edge; with its height.
fn legend_row(layout: &Layout, id: &str, top: u64, down: bool, wasted: bool) -> (Element, f64) {
    let form = layout.form;
    let size = form.font() * 0.8;
    let y = 4.0;
    let mut group = Element::new("g").set("class", "legend");
    let mut x = layout.left;
    let scale = format!("a strip’s height: {} calls per tick", thousands(top));
    let wasted_name = match layout.overload.hedges {
        true => "served for nobody (wasted)",
        false => "served after timeout (wasted)",
    };
    let items = [
        ("served", Some(("served", SERVED.to_string()))),
        (
            wasted_name,
            Some(("wasted", format!("url(#{})", form.id(id, "waste")))),
        ),
        (
            "turned away",
            Some(("rejected", format!("url(#{})", form.id(id, "hatch")))),
        ),
        ("down", Some(("down", DOWN.to_string()))),
        (scale.as_str(), None),
    ];
    let mut row = 0.0;
    for (name, swatch) in items
        .into_iter()
        .filter(|(name, _)| down || *name != "down")
        .filter(|(name, _)| wasted || !name.ends_with("(wasted)"))
    {
        let width = form.text_width(name, false) + swatch.as_ref().map_or(0.0, |_| size + 4.0);
        if x > layout.left && x + width > layout.right() {
            x = layout.left;
            row += form.font() + 6.0;
        }
        if let Some((class, fill)) = swatch {
            let mut mark = rect(x, y + row, size, size)
                .set("class", class)
                .set("fill", fill);
            match class {
                "rejected" => mark = mark.set("stroke", REJECTED).set("stroke-width", "0.75"),
                "wasted" => mark = mark.set("stroke", SERVED).set("stroke-width", "0.75"),
                _ => {}
            }
            group = group.add(mark);
            x += size + 4.0;
        }
        group = group.add(text(x, y + row + size * 0.9, name).set("class", "label"));
        x += form.text_width(name, false) + 2.0 * form.char();
    }
    (group, y + row + form.font() + 10.0)
}

/// The chart in words: for each strategy, the replica that turned away the most calls
/// in the window (the first of equals) and the one that turned away the fewest, each
/// with the calls it served there; with `wasted` drawn, the replica that wasted the most.
fn description(result: &ScenarioResult, layout: &Layout, wasted: bool) -> String {
    let stack = match wasted {
        true => "served, wasted above them, and turned away above those",
        false => "served, and turned away above them",
    };
    let mut out = format!(
        "Each replica’s calls per tick in the first {} s, a panel per strategy, a strip per \
         replica: {stack}.",
        seconds_fixed(layout.end, 1)
    );
    for s in &result.strategies {
        let Some(lanes) = s.typical.lanes.as_ref() else {
            continue;
        };
        let sum = |series: &[u32]| -> u64 {
            series
                .iter()
                .take(layout.shown)
                .map(|&n| u64::from(n))
                .sum()
        };
        let totals: Vec<(u64, u64)> = (lanes.replicas.iter())
            .map(|r| (sum(&r.rejected), sum(&r.served)))
            .collect();
        let wastes: Vec<u64> = lanes.replicas.iter().map(|r| sum(&r.wasted)).collect();
        let most = (0..totals.len()).max_by_key(|&r| (totals[r].0, std::cmp::Reverse(r)));
        let least = (0..totals.len()).min_by_key(|&r| (totals[r].0, r));
        let name = s.strategy.name();
        match (most, least) {
            (Some(most), _) if totals[most].0 == 0 => {
                out.push_str(&format!(" {name}: no replica turned a call away."));
            }
            (Some(most), Some(least)) => {
                let of = |r: usize| {
                    format!(
                        "replica {}, {} (it served {})",
                        r + 1,
                        thousands(totals[r].0),
                        thousands(totals[r].1)
                    )
                };
                out.push_str(&format!(
                    " {name}: the most turned away by {}; the fewest by {}.",
                    of(most),
                    of(least)
                ));
            }
            _ => {}
        }
        let most = (0..wastes.len()).max_by_key(|&r| (wastes[r], std::cmp::Reverse(r)));
        if let Some(most) = most.filter(|&r| wastes[r] > 0) {
            out.push_str(&format!(
                " {name}: the most wasted by replica {}, {}.",
                most + 1,
                thousands(wastes[most])
            ));
        }
    }
    out
}
