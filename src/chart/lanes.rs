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

use super::svg::Element;

use crate::engine::units::Micros;
use crate::engine::{Lanes, Scenario, ScenarioResult, StrategyResult};
use crate::format::{decimals_for, duration, milli, seconds, seconds_fixed, thousands};

use super::draw::{Form, GRID, Label, Rects, halo, line, rect, text, wrap};
use super::{coord, tidy_ceiling, tidy_step};

mod overload;
#[cfg(all(test, feature = "site"))]
mod tests;

use self::overload::{Overload, QueueScale};

/// Space below a lane.
const GAP: f64 = 10.0;

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

/// What a lane draws at one tick, or on average over the ticks of one column: the
/// kinds of calls in the order they stack up from the baseline, then the queue, which
/// is a level rather than a count of calls and is drawn as a line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Column {
    /// Calls served in time.
    served: f64,
    /// Calls served after their client stopped waiting: the server's work for nobody,
    /// stacked on the served ones so that the two make all its work.
    wasted: f64,
    /// Calls turned away.
    rejected: f64,
    /// Calls that failed fast at a breaker, never reaching the server.
    failed_fast: f64,
    /// Attempts refused by the clients' own throttling, never reaching the server.
    throttled: f64,
    /// Calls waiting in the queue at the end of the tick.
    queued: f64,
}

/// Which series of [`Lanes`] a [`Column`] field comes from, in its order.
const SERIES: [fn(&Lanes) -> &[u32]; 6] = [
    |l| &l.served,
    |l| &l.wasted,
    |l| &l.rejected,
    |l| &l.failed_fast,
    |l| &l.throttled,
    |l| &l.queued,
];

impl Column {
    /// The counts of a lane at tick `k`, in [`SERIES`] order (zero past a series' end,
    /// and for a series the scenario does not have).
    fn counts(strategy: &StrategyResult, k: usize) -> [u64; 6] {
        let lanes = strategy.typical.lanes.as_ref();
        SERIES.map(|series| {
            lanes
                .and_then(|l| series(l).get(k).copied())
                .map_or(0, u64::from)
        })
    }

    /// From counts (or sums over `n` ticks) in [`SERIES`] order.
    fn of(counts: [u64; 6], n: f64) -> Column {
        let [served, wasted, rejected, failed_fast, throttled, queued] =
            counts.map(|c| c as f64 / n);
        Column {
            served,
            wasted,
            rejected,
            failed_fast,
            throttled,
            queued,
        }
    }
}

/// Where the wasted calls, the throttled attempts and the queue are in [`SERIES`].
const WASTED: usize = 1;
const THROTTLED: usize = 4;
const QUEUE: usize = 5;

/// Every call and refused attempt of a lane at tick `k`: the height of its bar.
fn all_calls_at(strategy: &StrategyResult, k: usize) -> u64 {
    Column::counts(strategy, k)[..QUEUE].iter().sum()
}

/// Where everything goes: the scales shared by all lanes, in one of the two layouts.
struct Layout {
    /// The layout drawn.
    form: Form,
    /// Ticks shown.
    shown: usize,
    /// Ticks per column: 1, unless the ticks outnumber the wide plot's columns.
    bin: usize,
    /// Columns drawn: the shown ticks, or their bins.
    columns: usize,
    /// The end of the last tick shown, µs.
    end: Micros,
    /// One tick, µs.
    tick: Micros,
    /// Left edge of the plots (room for the height labels).
    left: f64,
    /// The top of the height scale, in calls per tick.
    top: u64,
    /// Capacity, in calls per tick.
    capacity: f64,
    /// The slowdowns within the window: from, to (clipped to the window) and the
    /// capacity in calls per tick, in time order.
    slowdowns: Vec<(Micros, Micros, f64)>,
    /// Whether the capacity is on the height scale; a capacity far above every bar is
    /// named in the legend instead, so that the bars keep the lane's height.
    capacity_shown: bool,
    /// Height of the legend at the top.
    legend: f64,
    /// Whether every lane's totals go under its name rather than beside it: all do
    /// when one must, so that the lanes read alike.
    stacked: bool,
    /// Lines of the label block above each lane.
    label_lines: usize,
    /// The marks of an overloaded server it draws.
    overload: Overload,
}

impl Layout {
    fn new(scenario: &Scenario, result: &ScenarioResult, window: Micros, form: Form) -> Layout {
        let shown = ticks_shown(scenario, result, window);
        let layout = Layout::binned(scenario, result, shown, 1, Form::Wide);
        // Binned only when the ticks outnumber the wide plot's columns; the means are at
        // most the peaks, so the height labels and the plot only get room. The narrow
        // layout bins as the wide one does, so that the caption and the data table
        // speak of both.
        let room = layout.plot().floor().max(1.0) as usize;
        let bin = if shown <= room {
            1
        } else {
            tidy_step(shown.div_ceil(room) as u64) as usize
        };
        Layout::binned(scenario, result, shown, bin, form)
    }

    /// The layout of `shown` ticks in columns of `bin` ticks each.
    fn binned(
        scenario: &Scenario,
        result: &ScenarioResult,
        shown: usize,
        bin: usize,
        form: Form,
    ) -> Layout {
        let columns = shown.div_ceil(bin);
        // The tallest of a series as the chart draws it: per tick, or as a bin's mean.
        let peak_of = |count: &dyn Fn(&StrategyResult, usize) -> u64| {
            if bin == 1 {
                (0..shown)
                    .flat_map(|k| result.strategies.iter().map(move |s| count(s, k)))
                    .max()
                    .unwrap_or(0)
            } else {
                let span = |c: usize| (c * bin, ((c + 1) * bin).min(shown));
                (0..columns)
                    .flat_map(|c| {
                        result.strategies.iter().map(move |s| {
                            let (from, to) = span(c);
                            let sum: u64 = (from..to).map(|k| count(s, k)).sum();
                            sum.div_ceil((to - from) as u64)
                        })
                    })
                    .max()
                    .unwrap_or(0)
            }
        };
        let peak = peak_of(&all_calls_at);
        // The queue's series is empty unless the scenario has a queue: then no need to
        // look at every tick again.
        let queued = result.strategies.iter().any(|s| {
            s.typical
                .lanes
                .as_ref()
                .is_some_and(|l| !l.queued.is_empty())
        });
        let longest = if queued {
            peak_of(&|s, k| Column::counts(s, k)[QUEUE])
        } else {
            0
        };
        let capacity_milli = scenario.server.capacity_milli;
        let end = shown as u64 * scenario.server.tick.max(1);
        let slowdowns: Vec<(Micros, Micros, f64)> = scenario
            .server
            .slowdowns
            .iter()
            .filter(|s| s.from < end)
            .map(|s| (s.from, s.to.min(end), s.capacity_milli as f64 / 1000.0))
            .collect();
        // The highest capacity in the window, for the scale.
        let highest = scenario
            .server
            .slowdowns
            .iter()
            .filter(|s| s.from < end)
            .map(|s| s.capacity_milli)
            .fold(capacity_milli, u64::max);
        let capacity = highest.div_ceil(1000);
        // The capacity joins the scale unless it would squash the bars under half the
        // lane: then the scale fits the bars.
        let capacity_shown = peak == 0 || capacity <= 2 * peak;
        let top = tidy_ceiling(if capacity_shown {
            peak.max(capacity)
        } else {
            peak
        });
        // A queue on the bars' scale raises it to fit.
        let queue = (longest > 0).then(|| QueueScale::new(longest, peak, top));
        let top = match queue {
            Some(scale) if scale.shared => scale.top,
            _ => top,
        };
        let mut layout = Layout {
            form,
            shown,
            bin,
            columns,
            end: shown as u64 * scenario.server.tick.max(1),
            tick: scenario.server.tick.max(1),
            left: match form {
                Form::Wide => (34.0 + form.char() * thousands(top).len() as f64).max(48.0),
                Form::Narrow => (30.0 + form.char() * thousands(top).len() as f64).max(40.0),
            },
            top,
            capacity: capacity_milli as f64 / 1000.0,
            slowdowns,
            capacity_shown,
            legend: 0.0,
            stacked: false,
            label_lines: 1,
            overload: Overload::of(result, shown, queue),
        };
        let rows = legend_items(&layout, scenario).1;
        layout.legend = 8.0 + rows as f64 * layout.row();
        layout.stacked = result
            .strategies
            .iter()
            .any(|s| label_lines(&layout, s).len() > 1);
        layout.label_lines = result
            .strategies
            .iter()
            .map(|s| label_lines(&layout, s).len())
            .max()
            .unwrap_or(1);
        layout
    }

    /// Column `c` of a lane: a tick's own counts, or the means over the ticks of its bin.
    fn column(&self, strategy: &StrategyResult, c: usize) -> Column {
        if self.bin == 1 {
            return Column::of(Column::counts(strategy, c), 1.0);
        }
        let (from, to) = (c * self.bin, ((c + 1) * self.bin).min(self.shown));
        let mut sums = [0u64; 6];
        for k in from..to {
            for (sum, count) in sums.iter_mut().zip(Column::counts(strategy, k)) {
                *sum += count;
            }
        }
        Column::of(sums, to.saturating_sub(from).max(1) as f64)
    }

    /// The right edge of the plots; the margin beyond it holds a lane's arrow.
    fn right(&self) -> f64 {
        self.form.width()
            - match self.form {
                Form::Wide => 16.0,
                Form::Narrow => 12.0,
            }
            - overload::scale_margin(self)
    }

    /// Height of a lane: the strip at its top, then its bars' scale.
    fn lane(&self) -> f64 {
        match self.form {
            Form::Wide => 84.0,
            Form::Narrow => 72.0,
        }
    }

    /// Height of the strip at the top of a lane, above its tallest bar, that holds the
    /// mark of where the lane ends: no bar ever reaches it, so the mark never covers one.
    fn strip(&self) -> f64 {
        self.form.font() + 4.0
    }

    /// Height of the bars' scale, from zero to its top.
    fn scale(&self) -> f64 {
        self.lane() - self.strip()
    }

    /// Height of a line of text: a legend row, a line of a lane's label.
    fn row(&self) -> f64 {
        self.form.font() + 8.0
    }

    /// Height of the label block above each lane.
    fn label(&self) -> f64 {
        self.label_lines as f64 * (self.form.font() + 6.0)
    }

    /// Height of the time axis below the last lane.
    fn axis(&self) -> f64 {
        self.form.font() * 3.3
    }

    /// The left edge of column `c` (the right edge of column `c - 1`).
    fn x_col(&self, c: usize) -> f64 {
        let x = self.left + c as f64 * self.per_tick();
        // The last bin may hold fewer ticks than the others: it ends with the plot.
        if self.bin == 1 {
            x
        } else {
            x.min(self.right())
        }
    }

    /// Width of the plots.
    fn plot(&self) -> f64 {
        self.right() - self.left
    }

    /// Height of one call.
    fn per_call(&self) -> f64 {
        self.scale() / self.top as f64
    }

    /// The width of a bar at `x`: the last bin may hold fewer ticks and end early.
    fn clipped(&self, bar: f64, x: f64) -> f64 {
        if self.bin == 1 {
            bar
        } else {
            bar.min(self.right() - x)
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
        self.legend + i as f64 * (self.label() + self.lane() + GAP) + self.label() + self.lane()
    }

    /// The capacity line's height above a baseline.
    fn capacity_height(&self) -> f64 {
        self.capacity * self.per_call()
    }
}

/// How a lane's typical run ends, as its lane marks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The last client was done in the tick that starts at this time, inside the window.
    Done(Micros),
    /// Clients were still calling after the window: past its end, or at the horizon.
    Continues,
    /// No client at all.
    Empty,
}

impl End {
    fn of(strategy: &StrategyResult, end: Micros) -> End {
        let totals = &strategy.typical.totals;
        match totals.done_at {
            _ if totals.still_retrying > 0 => End::Continues,
            Some(done) if done >= end => End::Continues,
            Some(done) => End::Done(done),
            None => End::Empty,
        }
    }
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

/// The times labelled on the axis, and their decimals: a tidy step, the smallest that
/// keeps the labels apart (about eight of them in the wide layout).
fn time_labels(layout: &Layout) -> (Vec<Micros>, u32) {
    let most = match layout.form {
        Form::Wide => 8,
        Form::Narrow => 5,
    };
    let mut step = tidy_step(layout.end.div_ceil(most)).max(1);
    loop {
        let decimals = decimals_for(step);
        let widest = layout
            .form
            .text_width(&seconds_fixed(layout.end / step * step, decimals), false);
        let apart = layout.plot() * step as f64 / layout.end as f64;
        if apart >= widest + 2.0 * layout.form.char() || step >= layout.end {
            let times = (0..=layout.end / step).map(|i| i * step).collect();
            return (times, decimals);
        }
        step = tidy_step(step + 1);
    }
}

/// The lines of the label block above a lane: its name, and the typical run's totals
/// beside it when both fit on one line for every lane of the chart, else under it.
fn label_lines(layout: &Layout, strategy: &StrategyResult) -> Vec<String> {
    let name = strategy.strategy.name();
    let summary = lane_summary(strategy);
    let form = layout.form;
    let room = layout.right() - layout.left;
    if !layout.stacked
        && form.text_width(name, true) + 2.0 * form.char() + form.text_width(&summary, false)
            <= room
    {
        return vec![name.to_string()];
    }
    let mut lines = vec![name.to_string()];
    lines.extend(wrap(form, &summary, room));
    lines
}

/// One strategy's lane: its label block, grid, bars, capacity line, height labels, and
/// the mark of where it ends.
fn lane(
    layout: &Layout,
    id: &str,
    i: usize,
    strategy: &StrategyResult,
    times: &[Micros],
    down: &[(Micros, Micros)],
) -> Element {
    let form = layout.form;
    let right = layout.right();
    let base = layout.base(i);
    let plot_top = base - layout.lane();
    let scale_top = base - layout.scale();
    let mut lane = Element::new("g").set("class", "lane");

    for &(from, to) in down {
        let x = layout.x_of(from);
        lane = lane.add(
            rect(x, scale_top, layout.x_of(to) - x, layout.scale())
                .set("class", "down")
                .set("fill", DOWN),
        );
    }
    let mut grid = Element::new("g")
        .set("class", "grid")
        .set("stroke", GRID)
        .set("stroke-width", "0.5")
        .add(line(layout.left, scale_top, right, scale_top));
    for &t in times {
        grid = grid.add(line(layout.x_of(t), scale_top, layout.x_of(t), base));
    }
    lane = lane.add(grid);
    let end = End::of(strategy, layout.end);
    if let End::Done(done) = end {
        lane = lane.add(done_line(layout, done, plot_top, base));
    }
    lane = lane.add(bars(layout, id, strategy, base));
    if layout.capacity_shown {
        let cap_y = base - layout.capacity_height();
        lane = lane.add(if layout.slowdowns.is_empty() {
            capacity_line(layout.left, right, cap_y)
        } else {
            capacity_steps(layout, base, right)
        });
    }
    lane = lane
        .add(
            line(layout.left, base, right, base)
                .set("class", "axis")
                .set("stroke", "currentColor"),
        )
        .add(
            text(layout.left - 6.0, base + form.font() * 0.32, "0")
                .set("class", "label")
                .set("text-anchor", "end"),
        )
        .add(
            text(
                layout.left - 6.0,
                scale_top + form.font() * 0.32,
                &thousands(layout.top),
            )
            .set("class", "label")
            .set("text-anchor", "end"),
        );
    if let Some(top) = overload::scale_label(layout, scale_top) {
        lane = lane.add(top);
    }

    // The label block: the name, and the run's totals at the right of it or under it.
    let line_height = form.font() + 6.0;
    let block_top = plot_top - layout.label();
    let baseline = |j: usize| block_top + (j + 1) as f64 * line_height - 6.0;
    let lines = label_lines(layout, strategy);
    lane = lane.add(
        text(layout.left, baseline(0), strategy.strategy.name())
            .set("class", "label name")
            .set("font-weight", "600"),
    );
    if lines.len() == 1 {
        lane = lane.add(
            text(right, baseline(0), &lane_summary(strategy))
                .set("class", "label")
                .set("text-anchor", "end"),
        );
    } else {
        for (j, content) in lines.iter().enumerate().skip(1) {
            lane = lane.add(text(layout.left, baseline(j), content).set("class", "label"));
        }
    }
    match end {
        End::Done(done) => lane.add(done_label(layout, done, plot_top)),
        End::Continues => lane.add(continues(layout, plot_top, base)),
        End::Empty => lane,
    }
}

/// The x of the middle of the column that holds the tick starting at `t`.
fn column_middle(layout: &Layout, t: Micros) -> f64 {
    let column = (t / layout.tick) as usize / layout.bin;
    let from = layout.x_col(column);
    let to = layout.x_col(column + 1).min(layout.right());
    (from + to) / 2.0
}

/// A dashed line down the middle of the column in which the last client was done.
fn done_line(layout: &Layout, done: Micros, plot_top: f64, base: f64) -> Element {
    let x = column_middle(layout, done);
    line(x, plot_top + 2.0, x, base)
        .set("class", "end")
        .set("stroke", "currentColor")
        .set("stroke-width", "1")
        .set("stroke-dasharray", "2 2")
}

/// "done at 2.9 s" at the top of the done line, in the lane's strip: after the line, or
/// before it when the plot ends too soon.
fn done_label(layout: &Layout, done: Micros, plot_top: f64) -> Label {
    let form = layout.form;
    let content = format!("done at {}", seconds(done));
    let x = column_middle(layout, done);
    let y = plot_top + form.font() + 1.0;
    let label = if x + 4.0 + form.text_width(&content, false) <= layout.right() {
        text(x + 4.0, y, &content)
    } else {
        text(x - 4.0, y, &content).set("text-anchor", "end")
    };
    halo(label)
}

/// "continues →" in the strip at the top right of a lane whose clients were still
/// calling after the window, and an arrowhead that carries its baseline on past the plot.
fn continues(layout: &Layout, plot_top: f64, base: f64) -> Element {
    let right = layout.right();
    let form = layout.form;
    let arrow = Element::new("path")
        .set(
            "d",
            format!(
                "M{} {}L{} {}L{} {}Z",
                coord(right),
                coord(base - 4.0),
                coord(right + 8.0),
                coord(base),
                coord(right),
                coord(base + 4.0)
            ),
        )
        .set("fill", "currentColor");
    Element::new("g")
        .set("class", "continues")
        .add(arrow)
        .add(halo(
            text(right - 4.0, plot_top + form.font() + 1.0, "continues →")
                .set("text-anchor", "end"),
        ))
}

/// A lane's bars: served, wasted above them, turned away above those, and the
/// outlines of the turned-away ones; then the calls that failed fast and the attempts
/// throttled, and the queue's line over them all.
///
/// A bar at least 3 units wide has its own outline. On thinner bars an outline would
/// cover the hatch and leave plain red, so each run of neighbouring turned-away bars
/// gets one outline around the lot instead, which also keeps a lone thin spike visible.
fn bars(layout: &Layout, id: &str, strategy: &StrategyResult, base: f64) -> Element {
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
        (Rects::default(), Rects::default(), Rects::default());
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
        // A bar too short to survive rounding would print as height 0: skipped.
        if base - s_top >= 0.005 {
            served_bars.push(x, s_top, bar, base - s_top);
        }
        if s_top - w_top >= 0.005 {
            wasted_bars.push(x, w_top, bar, s_top - w_top);
        }
        if w_top - r_top >= 0.005 {
            rejected_bars.push(x, r_top, bar, w_top - r_top);
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
fn capacity_steps(layout: &Layout, base: f64, right: f64) -> Element {
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
    Element::new("path")
        .set("d", d)
        .set("class", "capacity")
        .set("fill", "none")
        .set("stroke", "currentColor")
        .set("stroke-width", "1.5")
        .set("stroke-dasharray", "6 4")
}

/// The dashed capacity line.
fn capacity_line(x1: f64, x2: f64, y: f64) -> Element {
    line(x1, y, x2, y)
        .set("class", "capacity")
        .set("stroke", "currentColor")
        .set("stroke-width", "1.5")
        .set("stroke-dasharray", "6 4")
}

/// The shared time axis under the last lane, with its labels and title, and the title
/// of the height scale along the left.
fn time_axis(layout: &Layout, lanes: usize, times: &[Micros], decimals: u32) -> Element {
    let form = layout.form;
    let last_base = layout.base(lanes - 1);
    let mut ticks = Element::new("g")
        .set("class", "axis")
        .set("stroke", "currentColor");
    let mut labels = Element::new("g")
        .set("class", "label")
        .set("fill", "currentColor")
        .set("text-anchor", "middle");
    for &t in times {
        let x = layout.x_of(t);
        ticks = ticks.add(line(x, last_base, x, last_base + 4.0));
        labels = labels.add(Label::at(
            x,
            last_base + 5.0 + form.font(),
            &seconds_fixed(t, decimals),
        ));
    }
    let middle = (layout.legend + last_base) / 2.0;
    let title_x = form.font() + 4.0;
    Element::new("g")
        .add(ticks)
        .add(labels)
        .add(
            text(
                layout.left + layout.plot() / 2.0,
                last_base + 5.0 + 2.4 * form.font(),
                "time (s)",
            )
            .set("class", "label")
            .set("text-anchor", "middle"),
        )
        .add(
            text(title_x, middle, "calls per tick")
                .set("class", "label")
                .set("text-anchor", "middle")
                .set(
                    "transform",
                    format!("rotate(-90 {} {})", coord(title_x), coord(middle)),
                ),
        )
}

/// The patterns of the chart of `id`: the hatch that marks calls turned away, diagonal
/// strokes over a light tint, and those of the overload marks it draws.
fn patterns(layout: &Layout, id: &str) -> Element {
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

/// One legend entry: what its swatch shows, and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Served,
    Wasted,
    TurnedAway,
    Capacity,
    Queued,
    Down,
    FailedFast,
    Throttled,
}

/// The legend's entries with their names, each placed at (x, row), and the number of
/// rows they take: served, turned away and capacity (named with its value), the
/// server's outages when the chart shows one, and failed-fast calls when the scenario
/// has a breaker; wasted calls, the queue and throttled attempts when the chart draws
/// them, each beside its kin. Entries wrap onto a new row at the plot's right edge.
fn legend_items(layout: &Layout, scenario: &Scenario) -> (Vec<(Key, String, f64, usize)>, usize) {
    let capacity = milli(scenario.server.capacity_milli);
    let overload = layout.overload;
    let mut keys = vec![(Key::Served, "served".to_string())];
    if overload.wasted {
        keys.push((Key::Wasted, "served after timeout (wasted)".to_string()));
    }
    keys.push((Key::TurnedAway, "turned away".to_string()));
    keys.push((Key::Capacity, {
        let mut name = format!("capacity {capacity}");
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
fn legend(layout: &Layout, id: &str, scenario: &Scenario) -> Element {
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

/// The line above a lane: the typical run's own totals, named as one run's, since the
/// table beside the chart gives medians over every run.
fn lane_summary(strategy: &StrategyResult) -> String {
    let totals = &strategy.typical.totals;
    let mut text = format!("this run: {} calls", thousands(totals.calls));
    if totals.wasted > 0 {
        text.push_str(&format!(", {} wasted", thousands(totals.wasted)));
    }
    if totals.failed_fast > 0 {
        text.push_str(&format!(", {} failed fast", thousands(totals.failed_fast)));
    }
    if totals.throttled > 0 {
        text.push_str(&format!(", {} throttled", thousands(totals.throttled)));
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
/// its run's calls and when it was done or that it never was.
fn description(scenario: &Scenario, result: &ScenarioResult, layout: &Layout) -> String {
    let end = layout.end;
    let mut out = format!(
        "Calls per {} tick over the first {}, one lane per strategy: calls served, and \
         calls turned away above them; the server's capacity is {} calls per tick.",
        duration(scenario.server.tick),
        duration(end),
        milli(scenario.server.capacity_milli)
    );
    if !layout.capacity_shown {
        out.push_str(" The height scale ends below the capacity, to fit the bars.");
    }
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
    out.push_str(&overload::description(layout));
    for o in scenario.server.outages.iter().filter(|o| o.from < end) {
        out.push_str(&format!(
            " The server is down from {} to {}.",
            seconds(o.from),
            seconds(o.to)
        ));
    }
    for s in scenario.server.slowdowns.iter().filter(|s| s.from < end) {
        out.push_str(&format!(
            " From {} to {} the server's capacity is {} calls per tick.",
            seconds(s.from),
            seconds(s.to),
            milli(s.capacity_milli)
        ));
    }
    for s in &result.strategies {
        let t = &s.typical.totals;
        out.push_str(&format!(
            " {}, in the run drawn: {} calls, {} clients served",
            s.strategy.name(),
            thousands(t.calls),
            thousands(t.served)
        ));
        if t.failed_fast > 0 {
            out.push_str(&format!(", {} failed fast", thousands(t.failed_fast)));
        }
        out.push_str(&overload::lane_description(layout, s));
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
