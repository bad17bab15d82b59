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
//! A chart draws at most as many columns as its plot is units wide. When the window
//! holds more ticks than that, ticks are put together in bins of a tidy number of ticks
//! (1, 2 or 5 × a power of ten) and each bar is the mean calls per tick of its bin, so
//! that a horizon of a million ticks still makes a chart of a few hundred bars; the
//! caption and the description say so. A window that fits is drawn tick by tick.

use svg::node::element::{Definitions, Group, Path, Pattern};

use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult, StrategyResult};
use crate::format::{seconds, thousands};

use super::draw::{CHAR, FONT, GRID, Label, WIDTH, line, rect, text};
use super::{capacity_text, coord, decimals_for, duration, seconds_fixed, tidy_ceiling, tidy_step};

/// Right edge of the plots.
const RIGHT: f64 = WIDTH - 16.0;
/// Height of the legend row at the top.
const LEGEND: f64 = 30.0;
/// Height of the label row above each lane.
const LABEL: f64 = 20.0;
/// Height of a lane's plot.
const LANE: f64 = 76.0;
/// Space below a lane.
const GAP: f64 = 10.0;
/// Height of the time axis below the last lane.
const AXIS: f64 = 46.0;

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
    Layout::new(scenario, result, window).bin
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

/// Served and turned-away calls of a lane at tick `k` (zero past its end).
fn calls_at(strategy: &StrategyResult, k: usize) -> (u32, u32) {
    match &strategy.typical.lanes {
        Some(l) => (
            l.served.get(k).copied().unwrap_or(0),
            l.rejected.get(k).copied().unwrap_or(0),
        ),
        None => (0, 0),
    }
}

/// Calls of a lane that failed fast at tick `k` (zero without a breaker).
fn failed_fast_at(strategy: &StrategyResult, k: usize) -> u32 {
    strategy
        .typical
        .lanes
        .as_ref()
        .and_then(|l| l.failed_fast.get(k).copied())
        .unwrap_or(0)
}

/// Every call of a lane at tick `k`: served, turned away and failed fast.
fn all_calls_at(strategy: &StrategyResult, k: usize) -> u64 {
    let (served, rejected) = calls_at(strategy, k);
    u64::from(served) + u64::from(rejected) + u64::from(failed_fast_at(strategy, k))
}

/// Where everything goes: the scales shared by all lanes.
struct Layout {
    /// Ticks shown.
    shown: usize,
    /// Ticks per column: 1, unless the ticks outnumber the plot's columns.
    bin: usize,
    /// Columns drawn: the shown ticks, or their bins.
    columns: usize,
    /// The end of the last tick shown, µs.
    end: Micros,
    /// Left edge of the plots (room for the height labels).
    left: f64,
    /// The top of the height scale, in calls per tick.
    top: u64,
    /// Capacity, in calls per tick.
    capacity: f64,
}

impl Layout {
    fn new(scenario: &Scenario, result: &ScenarioResult, window: Micros) -> Layout {
        let shown = ticks_shown(scenario, result, window);
        let layout = Layout::binned(scenario, result, shown, 1);
        // Binned only when the ticks outnumber the plot's columns; the means are at
        // most the peaks, so the height labels and the plot only get room.
        let room = layout.plot().floor().max(1.0) as usize;
        if shown <= room {
            return layout;
        }
        Layout::binned(
            scenario,
            result,
            shown,
            tidy_step(shown.div_ceil(room) as u64) as usize,
        )
    }

    /// The layout of `shown` ticks in columns of `bin` ticks each.
    fn binned(scenario: &Scenario, result: &ScenarioResult, shown: usize, bin: usize) -> Layout {
        let columns = shown.div_ceil(bin);
        let peak = if bin == 1 {
            (0..shown)
                .flat_map(|k| result.strategies.iter().map(move |s| all_calls_at(s, k)))
                .max()
                .unwrap_or(0)
        } else {
            let span = |c: usize| (c * bin, ((c + 1) * bin).min(shown));
            (0..columns)
                .flat_map(|c| {
                    result.strategies.iter().map(move |s| {
                        let (from, to) = span(c);
                        let sum: u64 = (from..to).map(|k| all_calls_at(s, k)).sum();
                        sum.div_ceil((to - from) as u64)
                    })
                })
                .max()
                .unwrap_or(0)
        };
        let capacity_milli = scenario.server.capacity_milli;
        let top = tidy_ceiling(peak.max(capacity_milli.div_ceil(1000)));
        Layout {
            shown,
            bin,
            columns,
            end: shown as u64 * scenario.server.tick.max(1),
            left: (34.0 + CHAR * thousands(top).len() as f64).max(48.0),
            top,
            capacity: capacity_milli as f64 / 1000.0,
        }
    }

    /// Served, turned-away and failed-fast calls per tick of column `c` of a lane: a
    /// tick's own counts, or the means over the ticks of its bin.
    fn column(&self, strategy: &StrategyResult, c: usize) -> (f64, f64, f64) {
        if self.bin == 1 {
            let (s, r) = calls_at(strategy, c);
            return (
                f64::from(s),
                f64::from(r),
                f64::from(failed_fast_at(strategy, c)),
            );
        }
        let (from, to) = (c * self.bin, ((c + 1) * self.bin).min(self.shown));
        let (mut s, mut r, mut f) = (0u64, 0u64, 0u64);
        for k in from..to {
            let (served, rejected) = calls_at(strategy, k);
            s += u64::from(served);
            r += u64::from(rejected);
            f += u64::from(failed_fast_at(strategy, k));
        }
        let n = to.saturating_sub(from).max(1) as f64;
        (s as f64 / n, r as f64 / n, f as f64 / n)
    }

    /// The left edge of column `c` (the right edge of column `c - 1`).
    fn x_col(&self, c: usize) -> f64 {
        let x = self.left + c as f64 * self.per_tick();
        // The last bin may hold fewer ticks than the others: it ends with the plot.
        if self.bin == 1 { x } else { x.min(RIGHT) }
    }

    /// Width of the plots.
    fn plot(&self) -> f64 {
        RIGHT - self.left
    }

    /// Height of one call.
    fn per_call(&self) -> f64 {
        LANE / self.top as f64
    }

    /// The width of a bar at `x`: the last bin may hold fewer ticks and end early.
    fn clipped(&self, bar: f64, x: f64) -> f64 {
        if self.bin == 1 {
            bar
        } else {
            bar.min(RIGHT - x)
        }
    }

    /// Width of one column: one tick, or one bin.
    fn per_tick(&self) -> f64 {
        if self.bin == 1 {
            self.plot() / self.shown as f64
        } else {
            self.plot() * self.bin as f64 / self.shown as f64
        }
    }

    /// A time's x.
    fn x_of(&self, t: Micros) -> f64 {
        self.left + self.plot() * t as f64 / self.end as f64
    }

    /// The baseline of lane `i`.
    fn base(&self, i: usize) -> f64 {
        LEGEND + i as f64 * (LABEL + LANE + GAP) + LABEL + LANE
    }

    /// The capacity line's height above a baseline.
    fn capacity_height(&self) -> f64 {
        self.capacity * self.per_call()
    }
}

/// The lane chart of a scenario's typical runs over `[0, window)` µs, as an `<svg>`
/// element whose ids (`{id}-title`, `{id}-desc`, `{id}-hatch`) are prefixed with the
/// scenario's id.
pub fn lane_chart(scenario: &Scenario, result: &ScenarioResult, window: Micros) -> String {
    let id = &result.id;
    let layout = Layout::new(scenario, result, window);
    let lanes = result.strategies.len().max(1);
    let height = layout.base(lanes - 1) + AXIS;
    let down: Vec<(Micros, Micros)> = scenario
        .server
        .outages
        .iter()
        .filter(|o| o.from < layout.end && o.to > o.from)
        .map(|o| (o.from, o.to.min(layout.end)))
        .collect();

    // Time labels: a tidy step giving at most about eight of them.
    let step = tidy_step(layout.end.div_ceil(8)).max(1);
    let times: Vec<Micros> = (0..=layout.end / step).map(|i| i * step).collect();

    let mut doc = super::draw::document(
        id,
        "sim-lanes",
        (WIDTH, height),
        format!("{id}: calls per tick, by strategy"),
        description(scenario, result, &layout),
    )
    .add(hatch(id))
    .add(legend(
        id,
        layout.left,
        !down.is_empty(),
        scenario.retry.breaker.is_some(),
    ));
    for (i, strategy) in result.strategies.iter().enumerate() {
        doc = doc.add(lane(&layout, id, i, strategy, &times, &down));
    }
    let cap = capacity_text(scenario.server.capacity_milli);
    doc.add(capacity_label(&layout, result, &cap))
        .add(time_axis(&layout, lanes, &times, decimals_for(step)))
        .to_string()
}

/// One strategy's lane: its label row, grid, bars, capacity line and height labels.
fn lane(
    layout: &Layout,
    id: &str,
    i: usize,
    strategy: &StrategyResult,
    times: &[Micros],
    down: &[(Micros, Micros)],
) -> Group {
    let base = layout.base(i);
    let plot_top = base - LANE;
    let mut lane = Group::new().set("class", "lane");

    for &(from, to) in down {
        let x = layout.x_of(from);
        lane = lane.add(
            rect(x, plot_top, layout.x_of(to) - x, LANE)
                .set("class", "down")
                .set("fill", DOWN),
        );
    }
    let mut grid = Group::new()
        .set("class", "grid")
        .set("stroke", GRID)
        .set("stroke-width", "0.5")
        .add(line(layout.left, plot_top, RIGHT, plot_top));
    for &t in times {
        grid = grid.add(line(layout.x_of(t), plot_top, layout.x_of(t), base));
    }
    lane = lane.add(grid);

    let cap_y = base - layout.capacity_height();
    lane.add(bars(layout, id, strategy, base))
        .add(capacity_line(layout.left, RIGHT, cap_y))
        .add(
            line(layout.left, base, RIGHT, base)
                .set("class", "axis")
                .set("stroke", "currentColor"),
        )
        .add(
            text(layout.left - 6.0, base + 4.5, "0")
                .set("class", "label")
                .set("text-anchor", "end"),
        )
        .add(
            text(layout.left - 6.0, plot_top + 4.5, &thousands(layout.top))
                .set("class", "label")
                .set("text-anchor", "end"),
        )
        .add(
            text(layout.left, plot_top - 6.0, strategy.strategy.name())
                .set("class", "label name")
                .set("font-weight", "600"),
        )
        .add(
            text(RIGHT, plot_top - 6.0, &lane_summary(strategy))
                .set("class", "label")
                .set("text-anchor", "end"),
        )
}

/// A lane's bars: served, turned away above, and the outlines of the turned-away ones.
///
/// A bar at least 3 units wide has its own outline. On thinner bars an outline would
/// cover the hatch and leave plain red, so each run of neighbouring turned-away bars
/// gets one outline around the lot instead, which also keeps a lone thin spike visible.
fn bars(layout: &Layout, id: &str, strategy: &StrategyResult, base: f64) -> Group {
    let per_tick = layout.per_tick();
    let wide = per_tick >= 3.0;
    let bar = if wide { per_tick * 0.8 } else { per_tick }.max(0.5);
    let mut served = Group::new().set("class", "served").set("fill", SERVED);
    let mut rejected = Group::new()
        .set("class", "rejected")
        .set("fill", format!("url(#{id}-hatch)"));
    rejected = if wide {
        rejected
            .set("class", "rejected outlined")
            .set("stroke", REJECTED)
            .set("stroke-width", if bar >= 6.0 { "1" } else { "0.5" })
    } else {
        rejected.set("stroke", "none")
    };
    let mut outlines = Group::new()
        .set("class", "outlined")
        .set("fill", "none")
        .set("stroke", REJECTED)
        .set("stroke-width", "0.75");
    // The (served top, turned-away top) of each bar of the current run of turned-away
    // bars, and the tick it started at.
    let mut run: Vec<(f64, f64)> = Vec::new();
    let mut run_start = 0;
    for k in 0..=layout.columns {
        let (s, r, _) = if k < layout.columns {
            layout.column(strategy, k)
        } else {
            (0.0, 0.0, 0.0)
        };
        let s_top = base - s * layout.per_call();
        let r_top = s_top - r * layout.per_call();
        let x = layout.x_col(k) + (per_tick - bar) / 2.0;
        let bar = layout.clipped(bar, x);
        // A bar too short to survive rounding would print as height 0: skipped.
        if base - s_top >= 0.005 {
            served = served.add(rect(x, s_top, bar, base - s_top));
        }
        if s_top - r_top >= 0.005 {
            rejected = rejected.add(rect(x, r_top, bar, s_top - r_top));
            if run.is_empty() {
                run_start = k;
            }
            run.push((s_top, r_top));
        } else if !run.is_empty() {
            if !wide {
                outlines = outlines.add(run_outline(layout, run_start, &run));
            }
            run.clear();
        }
    }
    let group = Group::new().set("class", "bars").add(served).add(rejected);
    let group = if wide { group } else { group.add(outlines) };
    match failed_fast(layout, strategy, base, bar, wide) {
        Some(fast) => group.add(fast),
        None => group,
    }
}

/// The calls that failed fast, on top of each bar; `None` for a lane without a breaker.
fn failed_fast(
    layout: &Layout,
    strategy: &StrategyResult,
    base: f64,
    bar: f64,
    wide: bool,
) -> Option<Group> {
    let lanes = strategy.typical.lanes.as_ref()?;
    if lanes.failed_fast.is_empty() {
        return None;
    }
    let per_tick = layout.per_tick();
    let mut group = Group::new()
        .set("class", "failed-fast")
        .set("fill", FAST_TINT)
        .set("stroke", FAST)
        .set("stroke-width", if wide { "0.75" } else { "0.5" })
        .set("stroke-dasharray", "1.5 1.5");
    for k in 0..layout.columns {
        let (s, r, f) = layout.column(strategy, k);
        if f == 0.0 {
            continue;
        }
        let bottom = base - (s + r) * layout.per_call();
        let top = bottom - f * layout.per_call();
        if bottom - top < 0.005 {
            continue;
        }
        let x = layout.x_col(k) + (per_tick - bar) / 2.0;
        group = group.add(rect(x, top, layout.clipped(bar, x), bottom - top));
    }
    Some(group)
}

/// The outline of a run of neighbouring turned-away bars from tick `start`: along
/// their tops, down the last, back along the tops of the served bars beneath, and up.
fn run_outline(layout: &Layout, start: usize, run: &[(f64, f64)]) -> Path {
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
    Path::new().set("d", d)
}

/// The dashed capacity line.
fn capacity_line(x1: f64, x2: f64, y: f64) -> svg::node::element::Line {
    line(x1, y, x2, y)
        .set("class", "capacity")
        .set("stroke", "currentColor")
        .set("stroke-width", "1.5")
        .set("stroke-dasharray", "6 4")
}

/// "capacity 10", once, at the right end of a lane's capacity line: the first lane
/// whose bars there stay clear of the label, else the lane whose bars reach least into
/// it. A halo of the background keeps it legible over bars all the same.
fn capacity_label(layout: &Layout, result: &ScenarioResult, capacity: &str) -> Label {
    let content = format!("capacity {capacity}");
    let width = CHAR * content.chars().count() as f64;
    let x = RIGHT - 4.0;
    // Above the line when there is room under the top of the lane, else below it.
    let above = LANE - layout.capacity_height() >= FONT + 6.0;
    let (baseline, bottom) = if above {
        (
            -layout.capacity_height() - 5.0,
            -layout.capacity_height() - 2.0,
        )
    } else {
        (
            -layout.capacity_height() + FONT + 2.0,
            -layout.capacity_height() + FONT + 5.0,
        )
    };
    let per_tick = layout.per_tick();
    let first = (((x - width - layout.left) / per_tick).floor().max(0.0)) as usize;
    let last = (((x - layout.left) / per_tick).ceil() as usize).min(layout.columns);
    let reach = |s: &StrategyResult| {
        (first..last)
            .map(|k| {
                let (served, rejected, fast) = layout.column(s, k);
                (served + rejected + fast) * layout.per_call()
            })
            .fold(0.0, f64::max)
    };
    let clear = -bottom;
    let reaches: Vec<f64> = result.strategies.iter().map(reach).collect();
    let lane = reaches
        .iter()
        .position(|&r| r <= clear)
        .or_else(|| {
            (0..reaches.len()).reduce(|best, i| if reaches[i] < reaches[best] { i } else { best })
        })
        .unwrap_or(0);
    text(x, layout.base(lane) + baseline, &content)
        .set("class", "label halo")
        .set("text-anchor", "end")
        .set("stroke", "#ffffff")
        .set("stroke-width", "3")
        .set("stroke-linejoin", "round")
        .set("style", "paint-order: stroke")
}

/// The shared time axis under the last lane, with its labels and title, and the title
/// of the height scale along the left.
fn time_axis(layout: &Layout, lanes: usize, times: &[Micros], decimals: u32) -> Group {
    let last_base = layout.base(lanes - 1);
    let mut ticks = Group::new()
        .set("class", "axis")
        .set("stroke", "currentColor");
    let mut labels = Group::new()
        .set("class", "label")
        .set("fill", "currentColor")
        .set("text-anchor", "middle");
    for &t in times {
        let x = layout.x_of(t);
        ticks = ticks.add(line(x, last_base, x, last_base + 4.0));
        labels = labels.add(Label::at(x, last_base + 19.0, &seconds_fixed(t, decimals)));
    }
    let middle = (LEGEND + LABEL + last_base) / 2.0;
    Group::new()
        .add(ticks)
        .add(labels)
        .add(
            text(
                layout.left + layout.plot() / 2.0,
                last_base + 39.0,
                "time (s)",
            )
            .set("class", "label")
            .set("text-anchor", "middle"),
        )
        .add(
            text(18.0, middle, "calls per tick")
                .set("class", "label")
                .set("text-anchor", "middle")
                .set("transform", format!("rotate(-90 18 {})", coord(middle))),
        )
}

/// The hatch that marks calls turned away: diagonal strokes over a light tint.
fn hatch(id: &str) -> Definitions {
    Definitions::new().add(
        Pattern::new()
            .set("id", format!("{id}-hatch"))
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
    )
}

/// The legend row: a swatch for served, turned away and capacity, each as drawn, for
/// the server's outages when the chart shows one, and for failed-fast calls when the
/// scenario has a breaker.
fn legend(id: &str, left: f64, down: bool, breaker: bool) -> Group {
    let y = 8.0;
    let mut group = Group::new().set("class", "legend");
    let mut x = left;
    let item = |group: Group, swatch: Box<dyn svg::Node>, name: &str, x: &mut f64| {
        let at = *x;
        *x += 17.0 + CHAR * name.chars().count() as f64 + 18.0;
        group
            .add(swatch)
            .add(text(at + 17.0, y + 10.5, name).set("class", "label"))
    };
    let served = rect(x, y, 12.0, 12.0)
        .set("class", "served")
        .set("fill", SERVED);
    group = item(group, Box::new(served), "served", &mut x);
    let rejected = rect(x, y, 12.0, 12.0)
        .set("class", "rejected outlined")
        .set("fill", format!("url(#{id}-hatch)"))
        .set("stroke", REJECTED);
    group = item(group, Box::new(rejected), "turned away", &mut x);
    let capacity = capacity_line(x - 4.0, x + 12.0, y + 6.0);
    group = item(group, Box::new(capacity), "capacity", &mut x);
    if down {
        let swatch = rect(x, y, 12.0, 12.0)
            .set("class", "down")
            .set("fill", DOWN);
        group = item(group, Box::new(swatch), "server down", &mut x);
    }
    if breaker {
        let swatch = rect(x, y, 12.0, 12.0)
            .set("class", "failed-fast")
            .set("fill", FAST_TINT)
            .set("stroke", FAST)
            .set("stroke-dasharray", "1.5 1.5");
        group = item(group, Box::new(swatch), "failed fast", &mut x);
    }
    group
}

/// The line above a lane, at its right: the typical run's calls, and whoever is left.
fn lane_summary(strategy: &StrategyResult) -> String {
    let totals = &strategy.typical.totals;
    let mut text = format!("{} calls", thousands(totals.calls));
    if totals.failed_fast > 0 {
        text.push_str(&format!(", {} failed fast", thousands(totals.failed_fast)));
    }
    if totals.still_retrying > 0 {
        text.push_str(&format!(
            ", {} still retrying",
            thousands(totals.still_retrying)
        ));
    }
    text
}

/// The chart in words, for the SVG's `<desc>`: what the lanes show, and per strategy
/// its calls and when it was done or that it never was.
fn description(scenario: &Scenario, result: &ScenarioResult, layout: &Layout) -> String {
    let end = layout.end;
    let mut out = format!(
        "Calls per {} tick over the first {}, one lane per strategy: calls served, and \
         calls turned away above them; the server's capacity is {} calls per tick.",
        duration(scenario.server.tick),
        duration(end),
        capacity_text(scenario.server.capacity_milli)
    );
    if layout.bin > 1 {
        out.push(' ');
        out.push_str(&binned_note(scenario, layout.bin));
    }
    if scenario.retry.breaker.is_some() {
        out.push_str(
            " Calls that failed fast at the clients' circuit breaker, never reaching the \
             server, are stacked on top.",
        );
    }
    for o in scenario.server.outages.iter().filter(|o| o.from < end) {
        out.push_str(&format!(
            " The server is down from {} to {}.",
            seconds(o.from),
            seconds(o.to)
        ));
    }
    for s in &result.strategies {
        let t = &s.typical.totals;
        out.push_str(&format!(
            " {}: {} calls, {} clients served",
            s.strategy.name(),
            thousands(t.calls),
            thousands(t.served)
        ));
        if t.failed_fast > 0 {
            out.push_str(&format!(", {} failed fast", thousands(t.failed_fast)));
        }
        if t.gave_up > 0 {
            out.push_str(&format!(", {} gave up", thousands(t.gave_up)));
        }
        match t.done_at {
            _ if t.still_retrying > 0 => out.push_str(&format!(
                ", {} still retrying at the horizon ({})",
                thousands(t.still_retrying),
                duration(scenario.horizon)
            )),
            Some(done) if done >= end => out.push_str(&format!(
                ", the last done at {}, after the end of the chart",
                seconds(done)
            )),
            Some(done) => out.push_str(&format!(", the last done at {}", seconds(done))),
            None => {}
        }
        out.push('.');
    }
    out
}
