//! Where everything goes: the scales and sizes every lane shares, in one layout, and
//! the times its axis labels.

use super::column::{Column, HEDGES, QUEUE, all_calls_at};
use super::lane::label_lines;
use super::legend::legend_items;
use super::overload::{self, Overload, QueueScale};
use super::ticks_shown;
use crate::chart::draw::Form;
use crate::chart::{tidy_ceiling, tidy_step};
use crate::engine::units::Micros;
use crate::engine::{Lanes, Scenario, ScenarioResult, StrategyResult};
use crate::format::{decimals_for, seconds_fixed, thousands};

/// Space below a lane.
const GAP: f64 = 10.0;

/// Where everything goes: the scales shared by all lanes, in one of the two layouts.
pub(super) struct Layout {
    /// The layout drawn.
    pub(super) form: Form,
    /// Ticks shown.
    pub(super) shown: usize,
    /// Ticks per column: 1, unless the ticks outnumber the wide plot's columns.
    pub(super) bin: usize,
    /// Columns drawn: the shown ticks, or their bins.
    pub(super) columns: usize,
    /// The end of the last tick shown, µs.
    pub(super) end: Micros,
    /// One tick, µs.
    pub(super) tick: Micros,
    /// Left edge of the plots (room for the height labels).
    pub(super) left: f64,
    /// The top of the height scale, in calls per tick.
    pub(super) top: u64,
    /// Capacity, in calls per tick.
    pub(super) capacity: f64,
    /// The slowdowns within the window: from, to (clipped to the window) and the
    /// capacity in calls per tick, in time order.
    pub(super) slowdowns: Vec<(Micros, Micros, f64)>,
    /// Whether the capacity is on the height scale; a capacity far above every bar is
    /// named in the legend instead, so that the bars keep the lane's height.
    pub(super) capacity_shown: bool,
    /// Height of the legend at the top.
    pub(super) legend: f64,
    /// Whether every lane's totals go under its name rather than beside it: all do
    /// when one must, so that the lanes read alike.
    pub(super) stacked: bool,
    /// Lines of the label block above each lane.
    pub(super) label_lines: usize,
    /// The marks of an overloaded server it draws.
    pub(super) overload: Overload,
}

impl Layout {
    pub(super) fn new(
        scenario: &Scenario,
        result: &ScenarioResult,
        window: Micros,
        form: Form,
    ) -> Layout {
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
    pub(super) fn binned(
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
        // The hedges' line shares the bars' scale, and may pass the bars: hedges that
        // join a queue are in no bar of their tick.
        let hedged = (result.strategies.iter())
            .any(|s| (s.typical.lanes.as_ref()).is_some_and(|l| !l.hedges.is_empty()));
        let peak = match hedged {
            true => peak_of(&all_calls_at).max(peak_of(&|s, k| Column::counts(s, k)[HEDGES])),
            false => peak_of(&all_calls_at),
        };
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
        // With a cache, the capacity each lane's run had, whose highest may be the
        // cache's.
        let highest = (result.strategies.iter())
            .filter_map(|s| s.typical.lanes.as_ref())
            .flat_map(|l| l.capacity.iter().take(shown))
            .fold(highest, |a, &b| a.max(b));
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
    pub(super) fn column(&self, strategy: &StrategyResult, c: usize) -> Column {
        if self.bin == 1 {
            return Column::of(Column::counts(strategy, c), 1.0);
        }
        let (from, to) = (c * self.bin, ((c + 1) * self.bin).min(self.shown));
        let mut sums = [0u64; 7];
        for k in from..to {
            for (sum, count) in sums.iter_mut().zip(Column::counts(strategy, k)) {
                *sum += count;
            }
        }
        Column::of(sums, to.saturating_sub(from).max(1) as f64)
    }

    /// The right edge of the plots; the margin beyond it holds a lane's arrow.
    pub(super) fn right(&self) -> f64 {
        self.form.width()
            - match self.form {
                Form::Wide => 16.0,
                Form::Narrow => 12.0,
            }
            - overload::scale_margin(self)
    }

    /// Height of a lane: the strip at its top, then its bars' scale.
    pub(super) fn lane(&self) -> f64 {
        match self.form {
            Form::Wide => 84.0,
            Form::Narrow => 72.0,
        }
    }

    /// Height of the strip at the top of a lane, above its tallest bar, that holds the
    /// mark of where the lane ends: no bar ever reaches it, so the mark never covers one.
    pub(super) fn strip(&self) -> f64 {
        self.form.font() + 4.0
    }

    /// Height of the bars' scale, from zero to its top.
    pub(super) fn scale(&self) -> f64 {
        self.lane() - self.strip()
    }

    /// Height of a line of text: a legend row, a line of a lane's label.
    pub(super) fn row(&self) -> f64 {
        self.form.font() + 8.0
    }

    /// Height of the label block above each lane.
    pub(super) fn label(&self) -> f64 {
        self.label_lines as f64 * (self.form.font() + 6.0)
    }

    /// Height of the time axis below the last lane.
    pub(super) fn axis(&self) -> f64 {
        self.form.font() * 3.3
    }

    /// The left edge of column `c` (the right edge of column `c - 1`).
    pub(super) fn x_col(&self, c: usize) -> f64 {
        let x = self.left + c as f64 * self.per_tick();
        // The last bin may hold fewer ticks than the others: it ends with the plot.
        if self.bin == 1 {
            x
        } else {
            x.min(self.right())
        }
    }

    /// Width of the plots.
    pub(super) fn plot(&self) -> f64 {
        self.right() - self.left
    }

    /// Height of one call.
    pub(super) fn per_call(&self) -> f64 {
        self.scale() / self.top as f64
    }

    /// The width of a bar at `x`: the last bin may hold fewer ticks and end early.
    pub(super) fn clipped(&self, bar: f64, x: f64) -> f64 {
        if self.bin == 1 {
            bar
        } else {
            bar.min(self.right() - x)
        }
    }

    /// Width of one column: one tick, or one bin.
    pub(super) fn per_tick(&self) -> f64 {
        if self.bin == 1 {
            self.plot() / self.shown as f64
        } else {
            self.plot() * self.bin as f64 / self.shown as f64
        }
    }

    /// A time's x.
    pub(super) fn x_of(&self, t: Micros) -> f64 {
        self.left + self.plot() * t as f64 / self.end as f64
    }

    /// The baseline of lane `i`.
    pub(super) fn base(&self, i: usize) -> f64 {
        self.legend + i as f64 * (self.label() + self.lane() + GAP) + self.label() + self.lane()
    }

    /// Column `c`'s capacity in calls per tick, from a run's lanes: the tick's, or the
    /// mean over the ticks of its bin.
    pub(super) fn capacity_of(&self, lanes: &Lanes, c: usize) -> f64 {
        let (from, to) = (c * self.bin, ((c + 1) * self.bin).min(self.shown));
        lanes.capacity_over(from..to) as f64 / 1000.0 / to.saturating_sub(from).max(1) as f64
    }

    /// The capacity line's height above a baseline.
    pub(super) fn capacity_height(&self) -> f64 {
        self.capacity * self.per_call()
    }
}

/// The times labelled on the axis, and their decimals: a tidy step, the smallest that
/// keeps the labels apart (about eight of them in the wide layout).
pub(super) fn time_labels(layout: &Layout) -> (Vec<Micros>, u32) {
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
