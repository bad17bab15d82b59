//! The lane chart: for each strategy a lane of bars, one bar per tick, calls served at
//! the bottom and calls turned away stacked above, with the server's capacity dashed
//! across. All lanes share the time axis and the height scale, so they compare at a
//! glance.
//!
//! Served and turned-away bars differ by more than hue, for colour-blind readers: served
//! is a solid dark fill, turned away a light tint under a diagonal hatch, outlined when
//! bars are wide enough for an outline not to hide the hatch. The hatch is laid out in
//! the chart's own coordinates, so neighbouring thin bars join into one striped area.
//! Colours come from CSS classes (see `chart.css`); the presentation attributes are only
//! defaults, so that the SVG also reads standalone.
//!
//! With a circuit breaker, calls that failed fast at the client (and never reached the
//! server) are a third kind, stacked on top: a pale grey fill with a dotted grey outline,
//! with their own legend entry. Charts of scenarios without a breaker are unchanged.
//!
//! An overloaded server adds three more (see `overload`): calls served after their
//! client stopped waiting, stacked right on the served ones in striped green so that
//! the two make all the server's work; attempts refused by the clients' throttling, on
//! top in dotted grey; and the queue's length as a step line over the bars. Each shows,
//! in the bars, the legend and the description, only when the lanes have some.
//!
//! Above each lane, its name and the totals of the run it draws, named as that run's
//! ("this run: 1,947 calls"), since the table beside the chart gives medians. Each lane
//! marks where its run ends, in a strip at its top that no bar reaches: a dashed line
//! and "done at 2.9 s", or "continues →" and an arrowhead past the plot when clients
//! were still calling after the window. The capacity is named in the legend, never over
//! the bars; a capacity more than twice the tallest bar leaves the height scale to the
//! bars and is named as above it.
//!
//! A lane draws each kind of bar as one `<path>`, a rectangle per bar in it, so that a
//! chart of a thousand ticks is still a few dozen elements (see `draw::Rects`).
//!
//! The chart is drawn in two layouts (see `draw::Form`): the narrow one wraps its legend
//! and puts a lane's totals under its name when they do not fit beside it.
//!
//! A chart draws at most as many columns as its wide plot is units wide. When the window
//! holds more ticks than that, ticks are put together in bins of a tidy number of ticks
//! (1, 2 or 5 × a power of ten) and each bar is the mean calls per tick of its bin, so
//! that a horizon of a million ticks still makes a chart of a few hundred bars; the
//! caption and the description say so. A window that fits is drawn tick by tick.
//!
//! The chart is put together from its parts: the `layout` every lane shares (its scales
//! and sizes, from what each `column` draws), each strategy's `lane` and its `bars`, the
//! `legend`, the time `axes`, the marks of an overloaded server (`overload`), and the
//! chart in words for its `<desc>` (`description`).

use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult};
use crate::format::{duration, thousands};

use super::draw::Form;

mod axes;
mod bars;
mod column;
mod description;
mod lane;
mod layout;
mod legend;
mod overload;
pub(super) mod replicas;
#[cfg(all(test, feature = "site"))]
mod tests;

pub(crate) use self::replicas::replica_chart;

use self::axes::time_axis;
use self::bars::patterns;
use self::description::description;
use self::lane::lane;
use self::layout::{Layout, time_labels};
use self::legend::legend;

/// Default colours, for the SVG on its own; the page's stylesheet overrides them.
const SERVED: &str = "#1a7f37";
const REJECTED: &str = "#cf222e";
const TINT: &str = "#ffebe9";
const DOWN: &str = "#e6e9ed";
const FAST: &str = "#59636e";
const FAST_TINT: &str = "#eaeef2";

/// How many ticks each column of the chart of `window` puts together: 1, unless the
/// window holds more ticks than the chart has columns.
pub(crate) fn ticks_per_column(
    scenario: &Scenario,
    result: &ScenarioResult,
    window: Micros,
) -> usize {
    Layout::new(scenario, result, window, Form::Wide).bin
}

/// The left and right edges of the plots of the chart of `window` in `form`, in SVG
/// units: where tick 0 starts and the last tick shown ends, so that the playground's
/// replay can show the bars up to a tick.
pub(crate) fn plot_edges(
    scenario: &Scenario,
    result: &ScenarioResult,
    window: Micros,
    form: Form,
) -> (f64, f64) {
    let layout = Layout::new(scenario, result, window, form);
    (layout.left, layout.right())
}

/// The sentence that tells a reader a chart is binned.
pub(crate) fn binned_note(scenario: &Scenario, bin: usize) -> String {
    format!(
        "The window has more ticks than the chart has columns: each bar is the mean of \
         {} ticks ({}).",
        thousands(bin as u64),
        duration(bin as u64 * scenario.server.tick)
    )
}

/// The number of ticks a window of `window` µs shows: at least one, at most the horizon.
pub(crate) fn ticks_shown(scenario: &Scenario, result: &ScenarioResult, window: Micros) -> usize {
    let tick = scenario.server.tick.max(1);
    let lanes = result
        .strategies
        .iter()
        .filter_map(|s| s.typical.lanes.as_ref().map(|l| l.served.len()))
        .max()
        .unwrap_or(0);
    let all = (scenario.ticks() as usize).max(lanes).max(1);
    (window.div_ceil(tick) as usize).clamp(1, all)
}

/// The lane chart of a scenario's typical runs over `[0, window)` µs in one layout, as
/// an `<svg>` element whose ids (`{id}-title`, `{id}-desc`, `{id}-hatch`, and
/// `{id}-waste` and `{id}-throttle` when it draws wasted calls or throttled attempts,
/// each with `-narrow` after it in the narrow layout) are prefixed with the scenario's
/// id.
pub(crate) fn lane_chart(
    scenario: &Scenario,
    result: &ScenarioResult,
    window: Micros,
    form: Form,
) -> String {
    let id = &result.id;
    let layout = Layout::new(scenario, result, window, form);
    let lanes = result.strategies.len().max(1);
    let height = layout.base(lanes - 1) + layout.axis();
    let down: Vec<(Micros, Micros)> = scenario
        .server
        .outages
        .iter()
        .filter(|o| o.from < layout.end && o.to > o.from)
        .map(|o| (o.from, o.to.min(layout.end)))
        .collect();
    let (times, decimals) = time_labels(&layout);
    let mut doc = super::draw::document(
        id,
        "sim-lanes",
        form,
        height,
        format!("{id}: calls per tick, by strategy"),
        description(scenario, result, &layout),
    )
    .add(patterns(&layout, id))
    .add(legend(&layout, id, scenario));
    for (i, strategy) in result.strategies.iter().enumerate() {
        doc = doc.add(lane(&layout, id, i, strategy, &times, &down));
    }
    doc.add(time_axis(&layout, lanes, &times, decimals))
        .to_string()
}
