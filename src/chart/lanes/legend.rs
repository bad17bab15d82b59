//! The legend: its entries, each shown only when the chart draws it, wrapped into rows.

use super::bars::capacity_line;
use super::layout::Layout;
use super::overload;
use super::{DOWN, FAST, FAST_TINT, REJECTED, SERVED};
use crate::chart::draw::{rect, text};
use crate::chart::svg::Element;
use crate::engine::Scenario;
use crate::format::milli;

/// One legend entry: what its swatch shows, and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Served,
    Wasted,
    TurnedAway,
    Capacity,
    Queued,
    Down,
    FailedFast,
    Throttled,
    Hedges,
}

/// The legend's entries with their names, each placed at (x, row), and the number of
/// rows they take: served, turned away and capacity (named with its value), the
/// server's outages when the chart shows one, and failed-fast calls when the scenario
/// has a breaker; wasted calls, the queue and throttled attempts when the chart draws
/// them, each beside its kin. Entries wrap onto a new row at the plot's right edge.
pub(super) fn legend_items(
    layout: &Layout,
    scenario: &Scenario,
) -> (Vec<(Key, String, f64, usize)>, usize) {
    let capacity = milli(scenario.server.capacity_milli);
    let overload = layout.overload;
    let mut keys = vec![(Key::Served, "served".to_string())];
    if overload.wasted {
        let name = match overload.hedges {
            true => "served for nobody (wasted)",
            false => "served after timeout (wasted)",
        };
        keys.push((Key::Wasted, name.to_string()));
    }
    keys.push((Key::TurnedAway, "turned away".to_string()));
    keys.push((Key::Capacity, {
        let mut name = match scenario.server.cache {
            Some(cache) => format!(
                "capacity {capacity} cold, {} warm",
                milli(cache.capacity_milli)
            ),
            None => format!("capacity {capacity}"),
        };
        let mut slowed: Vec<String> = Vec::new();
        for s in scenario
            .server
            .slowdowns
            .iter()
            .filter(|s| s.from < layout.end)
        {
            let c = milli(s.capacity_milli);
            if !slowed.contains(&c) {
                slowed.push(c);
            }
        }
        if !slowed.is_empty() {
            name.push_str(&format!(" ({} in a slowdown)", slowed.join(", ")));
        }
        if !layout.capacity_shown {
            name.push_str(", above the scale");
        }
        name
    }));
    if let Some(scale) = overload.queue {
        keys.push((Key::Queued, overload::queue_name(scale)));
    }
    if overload.hedges {
        keys.push((Key::Hedges, "hedges (of the calls)".to_string()));
    }
    let down = scenario
        .server
        .outages
        .iter()
        .any(|o| o.from < layout.end && o.to > o.from);
    if down {
        keys.push((Key::Down, "server down".to_string()));
    }
    if scenario.retry.breaker.is_some() {
        keys.push((Key::FailedFast, "failed fast".to_string()));
    }
    if overload.throttled {
        keys.push((Key::Throttled, "throttled".to_string()));
    }
    let form = layout.form;
    let (mut x, mut row) = (layout.left, 0);
    let mut placed = Vec::new();
    for (key, name) in keys {
        let width = 17.0 + form.text_width(&name, false);
        if x > layout.left && x + width > layout.right() {
            x = layout.left;
            row += 1;
        }
        placed.push((key, name, x, row));
        x += width + 18.0;
    }
    (placed, row + 1)
}

/// The legend: a swatch for each entry, drawn as the chart draws it, and its name.
pub(super) fn legend(layout: &Layout, id: &str, scenario: &Scenario) -> Element {
    let mut group = Element::new("g").set("class", "legend");
    let form = layout.form;
    let font = form.font();
    for (key, name, x, row) in legend_items(layout, scenario).0 {
        let y = 8.0 + row as f64 * layout.row();
        let swatch: Element = match key {
            Key::Served => rect(x, y, 12.0, 12.0)
                .set("class", "served")
                .set("fill", SERVED),
            Key::TurnedAway => rect(x, y, 12.0, 12.0)
                .set("class", "rejected outlined")
                .set("fill", format!("url(#{})", form.id(id, "hatch")))
                .set("stroke", REJECTED),
            Key::Wasted => rect(x, y, 12.0, 12.0)
                .set("class", "wasted edged")
                .set("fill", format!("url(#{})", form.id(id, "waste")))
                .set("stroke", SERVED),
            Key::Queued => overload::queue_swatch(x, y),
            Key::Hedges => overload::hedge_swatch(x, y),
            Key::Throttled => rect(x, y, 12.0, 12.0)
                .set("class", "throttled")
                .set("fill", format!("url(#{})", form.id(id, "throttle")))
                .set("stroke", FAST),
            Key::Capacity => capacity_line(x - 2.0, x + 13.0, y + 6.0),
            Key::Down => rect(x, y, 12.0, 12.0)
                .set("class", "down")
                .set("fill", DOWN),
            Key::FailedFast => rect(x, y, 12.0, 12.0)
                .set("class", "failed-fast")
                .set("fill", FAST_TINT)
                .set("stroke", FAST)
                .set("stroke-dasharray", "1.5 1.5"),
        };
        group = group
            .add(swatch)
            .add(text(x + 17.0, y + 6.0 + font * 0.32, &name).set("class", "label"));
    }
    group
}
