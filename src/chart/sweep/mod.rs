//! The sweep figure: one scenario run at several values of one parameter, as a line
//! chart of a total against that value, one line per strategy, and the same numbers as
//! a table (`table`), laid out by `layout`, strategies drawn with their marks
//! (`chart::marks`).

use super::svg::Element;

use crate::engine::metric::Metric;
use crate::engine::units::{Micros, SECOND};
use crate::engine::{ScenarioResult, Spread, Strategy, StrategyResult, Value};
use crate::format::{fixed, latency_number, per_second_milli, seconds_number, thousands};

mod layout;
mod table;
#[cfg(test)]
mod tests;

use self::layout::{Layout, axes};
use self::table::sweep_table;
use super::coord;
use super::draw::Form;
use super::marks::{Mark, legend, mark, marker};
use super::scale::Scale;
use super::table::escape;

/// One point of a sweep: the varied parameter's value and the scenario's results there.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    /// The value as the prose writes it: "100", "3 s", "0.1".
    pub label: String,
    /// The value on the x axis (a count, or seconds for durations).
    pub x: f64,
    /// The results of the scenario with that value.
    pub result: ScenarioResult,
}

/// What a sweep figure shows.
#[derive(Clone, Copy, Debug)]
pub struct Sweep<'a> {
    /// The directive's id: the figure is `sweep-{id}`, and every SVG id starts `{id}-`.
    pub id: &'a str,
    /// The parameter varied: "clients", "capacity", "outage", "base", …
    pub parameter: &'a str,
    /// The x axis's title: "clients", "outage length (s)".
    pub axis: &'a str,
    /// The total shown: one that [`Metric::is_chartable`].
    pub total: Metric,
    /// The points, in order of x.
    pub points: &'a [SweepPoint],
    /// Caption text (plain text, HTML-escaped here); `None` = a generated one.
    pub caption: Option<&'a str>,
}

/// What a sweep writes of the total it charts: its words, its axis, its values in the
/// axis's unit, and why a point has none. For every [`Metric`], so that the compiler
/// keeps it complete; a directive asks only for a [`Metric::is_chartable`] one.
trait Charted: Copy {
    /// What it is, in words, for the caption and the y axis.
    fn words(self) -> &'static str;
    /// The y axis's title.
    fn axis(self) -> &'static str;
    /// Why a point has no value, after "where".
    fn missing(self) -> &'static str;
    /// The unit after a value in prose: ` s` for times, none for counts.
    fn unit(self) -> &'static str;
    /// A value of the axis's unit as a sentence writes it.
    fn cell(self, value: f64) -> String;
}

impl Charted for Metric {
    fn words(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::Served => "clients served",
            Metric::GaveUp => "clients who gave up",
            Metric::StillRetrying => "clients still retrying",
            Metric::DoneAt => "time until the last client is done",
            Metric::CallsPerClient => "calls per client",
            Metric::FinishedRuns => "runs in which every client finished",
            Metric::FailedFast => "calls that failed fast",
            Metric::Denied => "clients denied a retry by the budget",
            Metric::PushedBack => "clients told not to retry by the server",
            Metric::Hedges => "hedges sent",
            Metric::Goodput => "goodput (calls answered in time per second)",
            Metric::Recovery => "time to recover after the outage",
            Metric::RecoveredRuns => "runs that recovered",
            Metric::Wasted => "calls served after their client timed out",
            Metric::TimedOut => "attempts that timed out",
            Metric::Throttled => "attempts refused by throttling",
            Metric::LatencyP50 => "median latency of the calls answered in time",
            Metric::LatencyP99 => "p99 latency of the calls answered in time",
            Metric::PeakRejected => "most calls turned away in one tick",
        }
    }

    fn axis(self) -> &'static str {
        match self {
            Metric::DoneAt => "last client done (s)",
            Metric::Goodput => "goodput per second",
            Metric::Recovery => "recovery (s)",
            Metric::Wasted => "calls wasted",
            Metric::TimedOut => "attempts timed out",
            Metric::Throttled => "attempts throttled",
            Metric::LatencyP50 => "median latency (s)",
            Metric::LatencyP99 => "p99 latency (s)",
            Metric::PeakRejected => "most turned away in a tick",
            Metric::Hedges => "hedges",
            Metric::Calls
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::CallsPerClient
            | Metric::FinishedRuns
            | Metric::FailedFast
            | Metric::Denied
            | Metric::PushedBack
            | Metric::RecoveredRuns => self.words(),
        }
    }

    fn missing(self) -> &'static str {
        match self {
            Metric::Recovery => "fewer than half the runs recovered",
            Metric::LatencyP50 | Metric::LatencyP99 => "no run answered a call in time",
            Metric::DoneAt
            | Metric::Calls
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::CallsPerClient
            | Metric::FinishedRuns
            | Metric::FailedFast
            | Metric::Denied
            | Metric::PushedBack
            | Metric::Hedges
            | Metric::Goodput
            | Metric::RecoveredRuns
            | Metric::Wasted
            | Metric::TimedOut
            | Metric::Throttled
            | Metric::PeakRejected => "fewer than half the runs finished",
        }
    }

    fn unit(self) -> &'static str {
        if self.is_time() { " s" } else { "" }
    }

    /// Times and rates go back to the whole microseconds and thousandths the engine
    /// counts in, and are written by the same functions as the prose's references, so
    /// that a value reads the same in a sweep's description and in a sentence (a float
    /// rounded to three places could make 1.8375 s read 1.837 here and 1.838 there).
    fn cell(self, value: f64) -> String {
        let us = || (value * 1e6).round() as Micros;
        match self {
            Metric::DoneAt | Metric::Recovery => seconds_number(us()),
            Metric::Goodput => per_second_milli((value * 1e3).round() as u64),
            Metric::CallsPerClient => fixed(value, 2),
            // To the millisecond, as latencies are written everywhere.
            Metric::LatencyP50 | Metric::LatencyP99 => latency_number(us()),
            Metric::Calls
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::FinishedRuns
            | Metric::FailedFast
            | Metric::Denied
            | Metric::PushedBack
            | Metric::Hedges
            | Metric::RecoveredRuns
            | Metric::Wasted
            | Metric::TimedOut
            | Metric::Throttled
            | Metric::PeakRejected => thousands(value.round() as u64),
        }
    }
}

/// The spread of `metric` for the strategy `s` of `result`, in the axis's unit; `None`
/// where its [`Value`] has no time ("never").
fn values(result: &ScenarioResult, s: &StrategyResult, metric: Metric) -> Option<Values> {
    let of = |spread: &Spread, scale: f64| Values {
        median: spread.median as f64 / scale,
        p5: spread.p5 as f64 / scale,
        p95: spread.p95 as f64 / scale,
    };
    match result.value(s, metric) {
        Value::Count { spread, .. } => Some(of(&spread, 1.0)),
        Value::PerClient { calls, requests } => Some(of(&calls, requests.max(1) as f64)),
        Value::RateMilli(spread) => Some(of(&spread, 1000.0)),
        Value::Time { spread, .. } => spread.map(|t| of(&t, SECOND as f64)),
        Value::Runs { count, .. } => {
            let n = f64::from(count);
            Some(Values {
                median: n,
                p5: n,
                p95: n,
            })
        }
    }
}

/// Median, 5th and 95th percentile of a total, in the axis's unit.
#[derive(Clone, Copy, Debug)]
struct Values {
    median: f64,
    p5: f64,
    p95: f64,
}

/// The strategies of the points' results, in order of first appearance.
fn strategies(points: &[SweepPoint]) -> Vec<Strategy> {
    let mut out: Vec<Strategy> = Vec::new();
    for p in points {
        for s in &p.result.strategies {
            if !out.contains(&s.strategy) {
                out.push(s.strategy);
            }
        }
    }
    out
}

/// The values of one strategy at every point; `None` where it has none.
fn series(points: &[SweepPoint], strategy: Strategy, total: Metric) -> Vec<Option<Values>> {
    points
        .iter()
        .map(|p| {
            p.result
                .strategy(strategy)
                .and_then(|s| values(&p.result, s, total))
        })
        .collect()
}

/// The whole HTML block of a sweep directive: a `<figure class="sim sim-sweep"
/// id="sweep-{id}">` with the line chart in both layouts and a caption, then the
/// numbers as a table.
pub fn sweep_figure(sweep: &Sweep) -> String {
    let id = escape(sweep.id);
    let total = sweep.total;
    let caption = match sweep.caption {
        Some(text) => escape(text),
        None => escape(&generated_caption(sweep, total)),
    };
    let mut out = format!("<figure class=\"sim sim-sweep\" id=\"sweep-{id}\">\n");
    out.push_str(&super::charts(|form| sweep_chart(sweep, total, form)));
    out.push_str(&format!("<figcaption>{caption}</figcaption>\n</figure>\n"));
    // Like a scenario's results, the numbers never scroll: a table where its column is
    // wide enough, a block of labelled values per point where it is not.
    out.push_str(&format!(
        "<div class=\"sim-results-wrap\">\n{}</div>\n",
        sweep_table(sweep, total)
    ));
    out
}

/// The line chart in one layout, as an `<svg>` element whose ids start with the
/// sweep's id.
fn sweep_chart(sweep: &Sweep, total: Metric, form: Form) -> String {
    let id = sweep.id;
    let strategies = strategies(sweep.points);
    let all: Vec<Vec<Option<Values>>> = strategies
        .iter()
        .map(|&s| series(sweep.points, s, total))
        .collect();
    let runs = sweep
        .points
        .iter()
        .map(|p| p.result.runs)
        .max()
        .unwrap_or(1);

    let xs: Vec<f64> = sweep.points.iter().map(|p| p.x).collect();
    // The values drawn: the medians, and the band's ends when runs differ.
    let ys: Vec<f64> = all
        .iter()
        .flatten()
        .flatten()
        .flat_map(|v| {
            if runs > 1 {
                vec![v.median, v.p5, v.p95]
            } else {
                vec![v.median]
            }
        })
        .collect();
    let x = Scale::of(&xs, 6.0, true, 10.0);
    // All zeros (a recovery that is immediate everywhere) still gets a readable axis;
    // a total that spans orders of magnitude gets a log axis, so that its small values
    // do not lie flat along the bottom.
    let y_min = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let y_max = ys.iter().copied().fold(0.0, f64::max);
    let y = if y_max <= 0.0 {
        Scale::linear(0.0, 1.0, 5.0)
    } else if y_min > 0.0 && Scale::of(&ys, 5.0, true, 20.0).log {
        Scale::of(&ys, 5.0, true, 20.0)
    } else {
        Scale::linear(0.0, y_max, 5.0)
    };
    let plot = match form {
        Form::Wide => 240.0,
        Form::Narrow => 200.0,
    };
    let y_labels = y.labelled(plot, |_| form.font() + 4.0);
    let widest = y_labels
        .iter()
        .map(|t| form.text_width(&t.1, false))
        .chain(std::iter::once(form.text_width("never", false)))
        .fold(0.0, f64::max);
    let left = (form.font() + 16.0 + widest).max(form.font() * 3.4);
    let has_never = all.iter().flatten().any(Option::is_none);
    let mut layout = Layout {
        form,
        top: 0.0,
        left,
        plot,
        never: None,
        x,
        y,
    };
    let (legend, rows) = legend(&strategies, layout.form, layout.left, layout.right());
    let row = form.font() + 8.0;
    let below_legend = 8.0 + rows as f64 * row + 12.0;
    if has_never {
        layout.never = Some(below_legend + row / 2.0);
        layout.top = below_legend + row + 6.0;
    } else {
        layout.top = below_legend;
    }
    let height = layout.bottom() + form.font() * 3.3;

    let mut doc = super::draw::document(
        id,
        "sim-sweep",
        form,
        height,
        format!(
            "{id}: {} against {}, by strategy",
            total.words(),
            sweep.parameter
        ),
        description(sweep, total, &strategies, &all),
    )
    .add(legend)
    .add(axes(&layout, &y_labels, sweep.axis, total.axis()));
    let mut bands = Element::new("g").set("class", "bands");
    let mut lines = Element::new("g").set("class", "lines");
    for (strategy, values) in strategies.iter().zip(&all) {
        let m = mark(*strategy);
        let band = if runs > 1 {
            band_path(&layout, &xs, values)
        } else {
            String::new()
        };
        if !band.is_empty() {
            bands = bands.add(
                Element::new("path")
                    .set("d", band)
                    .set("class", format!("band {}", m.class))
                    .set("fill", m.colour)
                    .set("fill-opacity", "0.15"),
            );
        }
        lines = lines.add(strategy_line(&layout, &xs, values, &m));
    }
    doc = doc.add(bands).add(lines);
    doc.to_string()
}

/// The band from the 5th to the 95th percentile, one closed shape per stretch of
/// points with values; empty when every value is exact.
fn band_path(layout: &Layout, xs: &[f64], values: &[Option<Values>]) -> String {
    let mut d = String::new();
    for stretch in stretches(values) {
        if stretch
            .iter()
            .all(|&i| values[i].is_some_and(|v| v.p5 == v.p95))
        {
            continue;
        }
        trace(&mut d, layout, xs, stretch.iter().copied(), true, |i| {
            value(values, i).p95
        });
        trace(
            &mut d,
            layout,
            xs,
            stretch.iter().rev().copied(),
            false,
            |i| value(values, i).p5,
        );
        d.push('Z');
    }
    d
}

/// The values at a point of a stretch, which by definition has them.
fn value(values: &[Option<Values>], i: usize) -> Values {
    values[i].expect("a stretch has values")
}

/// Appends a path through the points `indices`, at height `y` of each: starting with a
/// move when `start` is set, continuing the path otherwise.
fn trace(
    d: &mut String,
    layout: &Layout,
    xs: &[f64],
    indices: impl Iterator<Item = usize>,
    start: bool,
    y: impl Fn(usize) -> f64,
) {
    for (n, i) in indices.enumerate() {
        let cmd = if n == 0 && start { 'M' } else { 'L' };
        d.push_str(&format!(
            "{cmd}{} {}",
            coord(layout.x_of(xs[i])),
            coord(layout.y_of(y(i)))
        ));
    }
}

/// The indices of each run of neighbouring points that have values.
fn stretches(values: &[Option<Values>]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut current = Vec::new();
    for (i, v) in values.iter().enumerate() {
        if v.is_some() {
            current.push(i);
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A strategy's line through its medians, broken where a point has none, and its
/// markers; a point with none ("never") is a hollow marker in the row above the plot,
/// tied to its neighbours by dotted lines, so the line visibly leaves the scale.
fn strategy_line(layout: &Layout, xs: &[f64], values: &[Option<Values>], m: &Mark) -> Element {
    let mut d = String::new();
    for stretch in stretches(values) {
        trace(&mut d, layout, xs, stretch.into_iter(), true, |i| {
            value(values, i).median
        });
    }
    let mut path = Element::new("path")
        .set("d", d)
        .set("class", "line")
        .set("fill", "none")
        .set("stroke", m.colour)
        .set("stroke-width", "2")
        .set("stroke-linejoin", "round");
    if let Some(dash) = m.dash {
        path = path.set("stroke-dasharray", dash);
    }
    let mut markers = Element::new("g")
        .set("class", "marker")
        .set("fill", m.colour)
        .set("stroke", "#ffffff")
        .set("stroke-width", "1");
    let mut never = Element::new("g")
        .set("class", "never")
        .set("fill", "#ffffff")
        .set("stroke", m.colour)
        .set("stroke-width", "1.5");
    let mut links = String::new();
    for (i, v) in values.iter().enumerate() {
        match (v, layout.never) {
            (Some(v), _) => {
                markers = markers.add(marker(
                    m.shape,
                    layout.x_of(xs[i]),
                    layout.y_of(v.median),
                    9.0,
                ));
            }
            (None, Some(y)) => {
                let x = layout.x_of(xs[i]);
                for n in [i.checked_sub(1), Some(i + 1)].into_iter().flatten() {
                    if let Some(Some(v)) = values.get(n) {
                        links.push_str(&format!(
                            "M{} {}L{} {}",
                            coord(layout.x_of(xs[n])),
                            coord(layout.y_of(v.median)),
                            coord(x),
                            coord(y)
                        ));
                    }
                }
                never = never.add(marker(m.shape, x, y, 9.0));
            }
            (None, None) => {}
        }
    }
    let mut group = Element::new("g")
        .set("class", format!("strategy {}", m.class))
        .add(path)
        .add(markers);
    if !links.is_empty() {
        group = group.add(
            Element::new("path")
                .set("d", links)
                .set("class", "line link")
                .set("fill", "none")
                .set("stroke", m.colour)
                .set("stroke-width", "1.5")
                .set("stroke-dasharray", "1 3"),
        );
    }
    if layout.never.is_some() && values.iter().any(Option::is_none) {
        group = group.add(never);
    }
    group
}

/// The chart in words, for the SVG's `<desc>`: what it plots, and per strategy its
/// median at the first and the last value.
fn description(
    sweep: &Sweep,
    total: Metric,
    strategies: &[Strategy],
    all: &[Vec<Option<Values>>],
) -> String {
    let points = sweep.points;
    let mut out = format!(
        "The median of {} against {}, one line per strategy",
        total.words(),
        sweep.parameter
    );
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        out.push_str(&format!(
            ", for {} from {} to {}",
            sweep.parameter, first.label, last.label
        ));
    }
    out.push('.');
    for (s, values) in strategies.iter().zip(all) {
        let say = |i: usize| match values[i] {
            Some(v) => format!(
                "{}{} at {}",
                total.cell(v.median),
                total.unit(),
                points[i].label
            ),
            None => format!("never at {}", points[i].label),
        };
        if points.is_empty() {
            continue;
        }
        let last = points.len() - 1;
        if last == 0 {
            out.push_str(&format!(" {}: {}", s.name(), say(0)));
        } else {
            out.push_str(&format!(" {}: {}, {}", s.name(), say(0), say(last)));
        }
        let never: Vec<&str> = (1..last)
            .filter(|&i| values[i].is_none())
            .map(|i| points[i].label.as_str())
            .collect();
        if !never.is_empty() {
            out.push_str(&format!("; {} at {}", total.missing(), never.join(", ")));
        }
        out.push('.');
    }
    out.push_str(" The table after the chart gives every value.");
    out
}

/// The caption written when the author gives none.
fn generated_caption(sweep: &Sweep, total: Metric) -> String {
    let runs = sweep
        .points
        .iter()
        .map(|p| p.result.runs)
        .max()
        .unwrap_or(1);
    let words = total.words();
    let mut text = format!("{}{}", words[..1].to_uppercase(), &words[1..]);
    text.push_str(&format!(" against {}", sweep.parameter));
    if runs > 1 {
        text.push_str(&format!(
            ", median of {} runs with the 5th–95th percentile band",
            thousands(runs)
        ));
    } else {
        text.push_str(", one run");
    }
    text.push('.');
    let never = strategies(sweep.points)
        .into_iter()
        .any(|s| series(sweep.points, s, total).iter().any(Option::is_none));
    if never {
        text.push_str(&format!(
            " Where {}, the point is a hollow marker in the row marked “never”.",
            total.missing()
        ));
    }
    text
}
