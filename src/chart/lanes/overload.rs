//! The marks of an overloaded server in the lane chart: calls served for nobody
//! (after their client stopped waiting, or after another copy of a hedged call was
//! answered), attempts refused by the clients' own throttling, the queue in front of
//! the server, and the hedges among the calls. A chart draws each, names it in its legend and
//! describes it only when its lanes have some in the window, so that the chart of a
//! plain crowd is unchanged.
//!
//! Each differs from the other marks by more than hue, in both themes and in grey:
//!
//! - wasted calls are the served green again, as level stripes over a pale green tint,
//!   stacked right on the served bar, so that the two together are all the server's
//!   work and the striped part the share of it that nobody waited for (turned-away
//!   calls are stripes too, but red and on the slant);
//! - throttled attempts are the failed-fast grey, never having reached the server
//!   either, dotted over the pale fill and with a solid outline where failed-fast
//!   calls have a dotted one;
//! - the queue is a level, not a count per tick, so it is a step line rather than a
//!   bar: solid, blue, with a halo of the background that lifts it off the bars. It
//!   shares the bars' height scale unless it would squash them under half the lane, as
//!   the capacity does; then it has a scale of its own, from the baseline to the top of
//!   the bars' scale, which its legend entry names ("queued (scale 0–200)") and whose
//!   top is written in its blue at the right of each lane, across from the bars' own.
//! - hedges are a count of calls already drawn (a hedge is served, wasted, turned away,
//!   queued, failed fast or throttled as any call), so they are a line too, on the bars' scale, which rises to
//!   fit it: purple and dotted, over a halo of the background, where the queue's is
//!   blue and solid.

use super::super::coord;
use super::super::draw::{Label, Rects, line, rect};
use super::super::svg::Element;
use super::super::tidy_ceiling;
use super::column::{Column, HEDGES, QUEUE, SERIES, THROTTLED, WASTED};
use super::layout::Layout;
use super::{FAST, FAST_TINT, SERVED};

use crate::engine::{ScenarioResult, StrategyResult};
use crate::format::thousands;

/// Default colours, for the SVG on its own; the page's stylesheet overrides them.
const QUEUED: &str = "#0969da";
const WASTE_TINT: &str = "#dafbe1";
const HEDGED: &str = "#8250df";

/// The overload marks a chart draws, found over the ticks it shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Overload {
    /// Whether a lane has a call served after its client stopped waiting.
    pub(super) wasted: bool,
    /// Whether a lane has an attempt refused by throttling.
    pub(super) throttled: bool,
    /// The queue's scale, when a lane has a call queued.
    pub(super) queue: Option<QueueScale>,
    /// Whether a lane has a hedge.
    pub(super) hedges: bool,
}

/// The height scale of the queue's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct QueueScale {
    /// Calls queued at the top of a lane's scale.
    pub(super) top: u64,
    /// Whether that is the bars' scale too; if not, the queue has one of its own.
    pub(super) shared: bool,
}

impl Overload {
    /// The marks of `result`'s lanes over their first `shown` ticks, with a queue whose
    /// line has `queue` as its scale, if any.
    pub(super) fn of(result: &ScenarioResult, shown: usize, queue: Option<QueueScale>) -> Overload {
        // Straight from the series, which are empty for a scenario without the feature.
        let any = |series: usize| {
            result.strategies.iter().any(|s| {
                s.typical.lanes.as_ref().is_some_and(|l| {
                    let values = SERIES[series](l);
                    values[..shown.min(values.len())].iter().any(|&n| n > 0)
                })
            })
        };
        Overload {
            wasted: any(WASTED),
            throttled: any(THROTTLED),
            queue,
            hedges: any(HEDGES),
        }
    }
}

impl QueueScale {
    /// The queue's scale, for a longest queue of `queue` calls beside bars of at most
    /// `bars` calls per tick, on a scale that reaches `top` without it: the bars'
    /// scale (raised to hold the queue), unless the queue would squash the bars under
    /// half the lane, as for the capacity.
    pub(super) fn new(queue: u64, bars: u64, top: u64) -> QueueScale {
        if bars > 0 && queue <= 2 * bars {
            QueueScale {
                top: tidy_ceiling(top.max(queue)),
                shared: true,
            }
        } else {
            QueueScale {
                top: tidy_ceiling(queue),
                shared: false,
            }
        }
    }
}

/// The legend's name of the queue's line.
pub(super) fn queue_name(scale: QueueScale) -> String {
    if scale.shared {
        "queued".to_string()
    } else {
        format!("queued (scale 0–{})", thousands(scale.top))
    }
}

/// The pale green under level stripes of served green that marks wasted calls, and the
/// pale grey under grey dots that marks throttled attempts, both laid out in the
/// chart's own coordinates so that neighbouring thin bars join into one area.
pub(super) fn patterns(overload: Overload, waste_id: &str, throttle_id: &str) -> Vec<Element> {
    let mut out = Vec::new();
    if overload.wasted {
        out.push(
            Element::new("pattern")
                .set("id", waste_id)
                .set("patternUnits", "userSpaceOnUse")
                .set("width", "4")
                .set("height", "3")
                .add(
                    rect(0.0, 0.0, 4.0, 3.0)
                        .set("class", "waste-tint")
                        .set("fill", WASTE_TINT)
                        .set("stroke", "none"),
                )
                .add(
                    line(0.0, 1.5, 4.0, 1.5)
                        .set("class", "waste-stripe")
                        .set("stroke", SERVED)
                        .set("stroke-width", "1.2"),
                ),
        );
    }
    if overload.throttled {
        out.push(
            Element::new("pattern")
                .set("id", throttle_id)
                .set("patternUnits", "userSpaceOnUse")
                .set("width", "3")
                .set("height", "3")
                .add(
                    rect(0.0, 0.0, 3.0, 3.0)
                        .set("class", "throttle-tint")
                        .set("fill", FAST_TINT)
                        .set("stroke", "none"),
                )
                .add(
                    Element::new("circle")
                        .set("class", "throttle-dot")
                        .set("cx", "1.5")
                        .set("cy", "1.5")
                        .set("r", "0.8")
                        .set("fill", FAST),
                ),
        );
    }
    out
}

/// The group that wasted bars go in: outlined in served green when bars are wide
/// enough for an outline not to hide the stripes.
pub(super) fn wasted_group(waste_id: &str, wide: bool, bar: f64) -> Element {
    let group = Element::new("g").set("fill", format!("url(#{waste_id})"));
    if wide {
        group
            .set("class", "wasted edged")
            .set("stroke", SERVED)
            .set("stroke-width", if bar >= 6.0 { "1" } else { "0.5" })
    } else {
        group.set("class", "wasted").set("stroke", "none")
    }
}

/// The attempts refused by throttling, on top of each bar; `None` for a chart without.
pub(super) fn throttled(
    layout: &Layout,
    throttle_id: &str,
    strategy: &StrategyResult,
    base: f64,
    bar: f64,
    wide: bool,
) -> Option<Element> {
    if !layout.overload.throttled {
        return None;
    }
    let per_tick = layout.per_tick();
    let group = Element::new("g")
        .set("class", "throttled")
        .set("fill", format!("url(#{throttle_id})"))
        .set("stroke", FAST)
        .set("stroke-width", if wide { "0.75" } else { "0.5" });
    let mut rects = Rects::default();
    for k in 0..layout.columns {
        let c = layout.column(strategy, k);
        if c.throttled == 0.0 {
            continue;
        }
        let bottom = base - (c.served + c.wasted + c.rejected + c.failed_fast) * layout.per_call();
        let top = bottom - c.throttled * layout.per_call();
        if bottom - top < 0.005 {
            continue;
        }
        let x = layout.x_col(k) + (per_tick - bar) / 2.0;
        rects.push(x, top, layout.clipped(bar, x), bottom - top);
    }
    Some(rects.into_group(group))
}

/// The height of `queued` calls above a baseline, on the queue's scale.
fn queue_height(layout: &Layout, scale: QueueScale, queued: f64) -> f64 {
    queued * layout.scale() / scale.top.max(1) as f64
}

/// The path of a step line across a lane's columns, level across each column at `y`
/// of it, to the plot's right edge.
fn step_path(layout: &Layout, y: impl Fn(usize) -> String) -> String {
    let mut at = y(0);
    let mut d = format!("M{} {at}", coord(layout.x_col(0)));
    for c in 1..layout.columns {
        let next = y(c);
        if next != at {
            d.push_str(&format!("H{}V{next}", coord(layout.x_col(c))));
            at = next;
        }
    }
    d.push_str(&format!("H{}", coord(layout.right())));
    d
}

/// The queue's step line over a lane: level across each column at the calls queued
/// at its end (or their mean over a bin), over a halo of the background. `None` for a
/// chart without a queue.
pub(super) fn queue_line(layout: &Layout, strategy: &StrategyResult, base: f64) -> Option<Element> {
    let scale = layout.overload.queue?;
    let y = |c: usize| coord(base - queue_height(layout, scale, layout.column(strategy, c).queued));
    let d = step_path(layout, y);
    Some(
        Element::new("g")
            .set("class", "queue")
            .set("fill", "none")
            .add(
                Element::new("path")
                    .set("d", d.clone())
                    .set("class", "queued-halo")
                    .set("stroke", "#ffffff")
                    .set("stroke-width", "4"),
            )
            .add(
                Element::new("path")
                    .set("d", d)
                    .set("class", "queued")
                    .set("stroke", QUEUED)
                    .set("stroke-width", "1.75"),
            ),
    )
}

/// The hedges' step line over a lane, on the bars' scale: level across each column at
/// the hedges among its calls (or their mean over a bin), dotted over a halo of the
/// background. `None` for a chart without hedges.
pub(super) fn hedge_line(layout: &Layout, strategy: &StrategyResult, base: f64) -> Option<Element> {
    if !layout.overload.hedges {
        return None;
    }
    let y = |c: usize| coord(base - layout.column(strategy, c).hedges * layout.per_call());
    let d = step_path(layout, y);
    Some(
        Element::new("g")
            .set("class", "hedge")
            .set("fill", "none")
            .add(
                Element::new("path")
                    .set("d", d.clone())
                    .set("class", "halo")
                    .set("stroke", "#ffffff")
                    .set("stroke-width", "4"),
            )
            .add(
                Element::new("path")
                    .set("d", d)
                    .set("class", "hedges")
                    .set("stroke", HEDGED)
                    .set("stroke-width", "2")
                    .set("stroke-dasharray", "2 2"),
            ),
    )
}

/// The hedges' swatch in the legend: a dotted step up, in a box of 12 from (x, y).
pub(super) fn hedge_swatch(x: f64, y: f64) -> Element {
    queue_swatch(x, y)
        .set("class", "hedges")
        .set("stroke", HEDGED)
        .set("stroke-width", "2")
        .set("stroke-dasharray", "2 2")
}

/// The room at the right of the plots for the top of the queue's own scale, in SVG
/// units: none when it has none.
pub(super) fn scale_margin(layout: &Layout) -> f64 {
    match layout.overload.queue {
        Some(scale) if !scale.shared => layout.form.text_width(&thousands(scale.top), false) + 6.0,
        Some(_) | None => 0.0,
    }
}

/// The top of the queue's own scale, in its blue at the right of a lane's scale top,
/// across from the bars' own top at the left; `None` when it shares the bars' scale.
pub(super) fn scale_label(layout: &Layout, scale_top: f64) -> Option<Label> {
    let scale = layout.overload.queue.filter(|scale| !scale.shared)?;
    Some(
        Label::at(
            layout.right() + 5.0,
            scale_top + layout.form.font() * 0.32,
            &thousands(scale.top),
        )
        .set("class", "queue-scale")
        .set("fill", QUEUED),
    )
}

/// The queue's swatch in the legend: a step up, in a box of 12 from (x, y).
pub(super) fn queue_swatch(x: f64, y: f64) -> Element {
    Element::new("path")
        .set(
            "d",
            format!(
                "M{} {}H{}V{}H{}",
                coord(x - 2.0),
                coord(y + 10.0),
                coord(x + 5.0),
                coord(y + 2.0),
                coord(x + 13.0)
            ),
        )
        .set("class", "queued")
        .set("fill", "none")
        .set("stroke", QUEUED)
        .set("stroke-width", "1.75")
}

/// The description's sentences on the overload marks the chart draws.
pub(super) fn description(layout: &Layout) -> String {
    let overload = layout.overload;
    let mut out = String::new();
    if overload.wasted {
        out.push_str(if overload.hedges {
            " Calls served for nobody (after their client had stopped waiting, or after \
             another copy of the call was answered) are stacked on the calls served in \
             time, striped, so that together they are all the server's work."
        } else {
            " Calls served after their client had stopped waiting, work for nobody, are \
             stacked on the calls served in time, striped, so that together they are all \
             the server's work."
        });
    }
    if overload.throttled {
        out.push_str(
            " Attempts refused by the clients' own throttling, never reaching the server, \
             are stacked on top, dotted.",
        );
    }
    if overload.hedges {
        out.push_str(
            " A dotted line steps with the hedges among each tick's calls (copies of a \
             call sent before its answer came, each also served, turned away, queued, \
             failed fast or throttled), on the same scale.",
        );
    }
    if let Some(scale) = overload.queue {
        out.push_str(
            " A line steps with the calls waiting in the server's queue at the end of \
             each tick,",
        );
        if scale.shared {
            out.push_str(" on the same scale.");
        } else {
            out.push_str(&format!(
                " on a scale of its own: from 0 at a lane's baseline to {} at the top of \
                 its scale, written at the right.",
                thousands(scale.top)
            ));
        }
    }
    out
}

/// What the description adds about one lane: its wasted calls, throttled attempts and
/// longest queue in the window.
pub(super) fn lane_description(layout: &Layout, strategy: &StrategyResult) -> String {
    let totals = &strategy.typical.totals;
    let mut out = String::new();
    if totals.hedges > 0 {
        out.push_str(&format!(", {} hedges sent", thousands(totals.hedges)));
    }
    if totals.wasted > 0 {
        out.push_str(&format!(
            ", {} served {} (wasted)",
            thousands(totals.wasted),
            match layout.overload.hedges {
                true => "for nobody",
                false => "after their client stopped waiting",
            }
        ));
    }
    if totals.throttled > 0 {
        out.push_str(&format!(
            ", {} attempts throttled",
            thousands(totals.throttled)
        ));
    }
    if layout.overload.queue.is_some() {
        let longest = (0..layout.shown)
            .map(|k| Column::counts(strategy, k)[QUEUE])
            .max()
            .unwrap_or(0);
        out.push_str(&format!(
            ", at most {} calls queued at once",
            thousands(longest)
        ));
    }
    out
}
