//! HTML tables: a scenario's results, the per-tick data behind its chart, and the
//! escaping every piece of text goes through.

use crate::cell::Cell;
use crate::engine::metric::Metric;
use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult};
use crate::format::{decimals_for, duration, seconds_fixed, thousands};

/// Text made safe for HTML content and for double- or single-quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A column's heading in the results table.
fn heading(metric: Metric) -> &'static str {
    match metric {
        Metric::Calls => "calls",
        Metric::CallsPerClient => "calls per client",
        Metric::Served => "served",
        Metric::GaveUp => "gave up",
        Metric::StillRetrying => "still retrying",
        Metric::DoneAt => "done at",
        Metric::FinishedRuns => "finished runs",
        Metric::Denied => "denied by the budget",
        Metric::PushedBack => "told not to retry",
        Metric::Hedges => "hedges",
        Metric::FailedFast => "failed fast",
        Metric::Goodput => "goodput per second",
        Metric::Recovery => "recovery",
        Metric::RecoveredRuns => "recovered runs",
        Metric::Wasted => "wasted",
        Metric::TimedOut => "timed out",
        Metric::Throttled => "throttled",
        Metric::LatencyP50 => "p50 latency of calls answered in time",
        Metric::LatencyP99 => "p99 latency of calls answered in time",
        Metric::PeakRejected => "most turned away in a tick",
    }
}

/// The results of every strategy as an HTML `<table>` with a caption, whose id is
/// `{id}-results-caption`.
pub fn results_table(result: &ScenarioResult) -> String {
    let id = escape(&result.id);
    // The scenario's id makes each table's name unique on a page with several.
    let caption = if result.runs == 1 {
        format!("Results of {id}, one run")
    } else {
        format!(
            "Results of {id} over {} runs: median, with the 5th–95th percentile in brackets",
            thousands(result.runs)
        )
    };

    let columns = Metric::columns(result.features);
    let headings: Vec<&str> = columns.iter().map(|&m| heading(m)).collect();
    let rows: Vec<(String, Vec<String>)> = result
        .strategies
        .iter()
        .map(|s| {
            let cells = columns
                .iter()
                .map(|&m| Cell::of(&result.value(s, m)).html());
            (escape(s.strategy.name()), cells.collect())
        })
        .collect();
    let mut out = format!(
        "<table class=\"sim-results sim-fit-{}\">\n<caption id=\"{id}-results-caption\">{caption}</caption>\n<thead>\n<tr>",
        fit_class(&headings, &rows)
    );
    out.push_str("<th scope=\"col\">strategy</th>");
    for heading in &headings {
        out.push_str(&format!("<th scope=\"col\" class=\"num\">{heading}</th>"));
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (name, cells) in rows {
        out.push_str(&format!("<tr><th scope=\"row\">{name}</th>"));
        for (heading, cell) in headings.iter().zip(cells) {
            // Numbers and markup of ours only: nothing here needs escaping. The label
            // names the cell where a narrow screen stacks a strategy's cells.
            out.push_str(&format!(
                "<td class=\"num\" data-label=\"{heading}\">{cell}</td>"
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// The widths, in rem, at which the stylesheet knows to lay a results table out as a
/// table (`sim-fit-N`: its column is at least N rem wide); a table that needs more is
/// always stacked, a strategy to a block (`sim-fit-stack`).
const FIT_STEPS: [u32; 9] = [20, 25, 30, 35, 40, 45, 50, 55, 60];

/// The class that says how wide a results table needs its column to be, from the
/// longest piece of each column that cannot wrap (a heading's longest word, a number,
/// a range). An estimate in characters of the table's font, erring wide: too wide
/// stacks a table that would have fitted, too narrow would hide a column.
pub(crate) fn fit_class(headings: &[&str], rows: &[(String, Vec<String>)]) -> String {
    // A character of the table's 0.9em type, and a cell's padding, in rem.
    const CHAR_REM: f64 = 0.55;
    const PADDING_REM: f64 = 1.0;
    let name = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let mut chars = name.max("strategy".len());
    let mut columns = 1;
    for (i, heading) in headings.iter().enumerate() {
        let words = heading.split(' ').map(|w| w.chars().count());
        let cells = rows.iter().filter_map(|(_, cells)| cells.get(i));
        let pieces = cells.flat_map(|cell| unbreakable_pieces(cell));
        chars += words.chain(pieces).max().unwrap_or(0);
        columns += 1;
    }
    let need = chars as f64 * CHAR_REM + f64::from(columns) * PADDING_REM;
    FIT_STEPS
        .iter()
        .find(|&&step| f64::from(step) >= need)
        .map_or_else(|| "stack".to_string(), |step| step.to_string())
}

/// The lengths, in characters, of the pieces of a cell's HTML that a line cannot break
/// inside: its text split at plain spaces (`&nbsp;` joins, tags take no room).
fn unbreakable_pieces(html: &str) -> Vec<usize> {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.replace("&nbsp;", "\u{a0}").chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split(' ').map(|piece| piece.chars().count()).collect()
}

/// The chart's data, for the table that the page builds when its reader opens it
/// (`ticks.js`) and for a file a reader may download: one row per tick of the window
/// in which any strategy saw a call or held one queued, with each kind of call the
/// chart draws per strategy.
/// With `bin` ticks per column of the chart (more than 1 when the window has more ticks
/// than the chart has columns), a row is a bin and holds the calls of all its ticks, so
/// the table has no more rows than the chart has bars.
pub struct TickData {
    /// The table's caption, as plain text.
    pub caption: String,
    /// The rows as CSV: a heading `time (s)`, then `NAME served`, `NAME turned away`
    /// (and `NAME failed fast` with a breaker, then `NAME wasted`, `NAME throttled` and
    /// `NAME hedges` where a lane has some, `NAME in the queue` where one has a call
    /// queued, `NAME capacity` with a cache) for each strategy, in their order; the
    /// time as the table shows it and whole numbers of calls without separators. The
    /// queue is the calls it held at the end of the tick and the capacity the run's, as
    /// the chart's lines: per tick (the mean over a row's ticks), in thousandths rounded
    /// down, written with up to three decimals.
    pub csv: String,
}

/// The [`TickData`] of `result`'s chart over `window`, in rows of `bin` ticks.
pub fn tick_data(
    scenario: &Scenario,
    result: &ScenarioResult,
    window: Micros,
    bin: usize,
) -> TickData {
    let id = &result.id;
    let tick = scenario.server.tick.max(1);
    let shown = super::lanes::ticks_shown(scenario, result, window);
    let bin = bin.max(1);
    let step = bin as u64 * tick;
    let decimals = decimals_for(step).max(1);
    let first = duration(shown as u64 * tick);
    // Each kind of call a chart draws is a column when some lane has it: the calls
    // served and turned away always, the others with their feature. The queue is a
    // level, kept per tick: a row of several ticks has its mean, as the chart's bar.
    let fast = result.features.breaker;
    // Over the ticks shown, as the chart's marks are found.
    let has = |series: fn(&crate::engine::Lanes) -> &Vec<u32>| {
        (result.strategies.iter()).any(|s| {
            (s.typical.lanes.as_ref()).is_some_and(|l| series(l).iter().take(shown).any(|&n| n > 0))
        })
    };
    type Series = fn(&crate::engine::Lanes) -> &Vec<u32>;
    let queued = has(|l| &l.queued);
    let held = if queued { " or held one queued" } else { "" };
    let caption = if bin == 1 {
        format!(
            "{id}: calls per tick in the first {first}, one run per strategy as in the chart; \
             ticks in which no strategy saw a call{held} are left out"
        )
    } else {
        format!(
            "{id}: calls per {} ({} ticks, each a bar of the chart, which shows their mean \
             per tick) in the first {first}, one run per strategy as in the chart; \
             stretches in which no strategy saw a call{held} are left out",
            duration(step),
            thousands(bin as u64),
        )
    };
    let kinds: Vec<(&str, Series)> = [
        ("served", (|l| &l.served) as Series, true),
        ("turned away", |l| &l.rejected, true),
        ("failed fast", |l| &l.failed_fast, fast),
        ("wasted", |l| &l.wasted, has(|l| &l.wasted)),
        ("throttled", |l| &l.throttled, has(|l| &l.throttled)),
        ("hedges", |l| &l.hedges, has(|l| &l.hedges)),
    ]
    .into_iter()
    .filter(|&(_, _, shown)| shown)
    .map(|(name, series, _)| (name, series))
    .collect();
    // A cache's runs record the capacity they had.
    let moved = (result.strategies.iter())
        .any(|s| (s.typical.lanes.as_ref()).is_some_and(|l| !l.capacity.is_empty()));
    let caption = match (moved, bin) {
        (false, _) => caption,
        (true, 1) => format!("{caption}; with each run's capacity, in calls per tick"),
        (true, _) => format!("{caption}; with each run's capacity, in calls per tick (the mean)"),
    };
    let caption = match (queued, bin) {
        (false, _) => caption,
        (true, 1) => format!("{caption}; the queue as it stood at the end of each tick"),
        (true, _) => format!("{caption}; the queue as it stood at the end of a tick (the mean)"),
    };
    let mut csv = String::from("time (s)");
    for s in &result.strategies {
        let name = s.strategy.name();
        for (kind, _) in &kinds {
            csv.push_str(&format!(",{name} {kind}"));
        }
        if queued {
            csv.push_str(&format!(",{name} in the queue"));
        }
        if moved {
            csv.push_str(&format!(",{name} capacity"));
        }
    }
    csv.push('\n');
    let capacity = |lanes: Option<&crate::engine::Lanes>, ticks: std::ops::Range<usize>| {
        let count = ticks.len().max(1) as u64;
        plain_milli(lanes.map_or(0, |l| l.capacity_over(ticks)) / count)
    };
    let at = |lane: Option<&Vec<u32>>, k: usize| {
        u64::from(lane.and_then(|l| l.get(k)).copied().unwrap_or(0))
    };
    for row_start in (0..shown).step_by(bin) {
        let ticks = row_start..(row_start + bin).min(shown);
        // Per strategy: the sum of each kind over the row's ticks, then the queue's.
        let row: Vec<(Vec<u64>, u64)> = result
            .strategies
            .iter()
            .map(|s| {
                let lanes = s.typical.lanes.as_ref();
                let sums = (kinds.iter())
                    .map(|(_, series)| ticks.clone().map(|k| at(lanes.map(series), k)).sum())
                    .collect();
                let queue = ticks.clone().map(|k| at(lanes.map(|l| &l.queued), k)).sum();
                (sums, queue)
            })
            .collect();
        if row
            .iter()
            .all(|(sums, queue)| *queue == 0 && sums.iter().all(|&n| n == 0))
        {
            continue;
        }
        csv.push_str(&seconds_fixed(row_start as u64 * tick, decimals));
        for (s, (sums, queue)) in result.strategies.iter().zip(row) {
            for count in sums {
                csv.push(',');
                csv.push_str(&count.to_string());
            }
            if queued {
                csv.push(',');
                let count = ticks.len().max(1) as u64;
                csv.push_str(&plain_milli(queue * 1000 / count));
            }
            if moved {
                csv.push(',');
                csv.push_str(&capacity(s.typical.lanes.as_ref(), ticks.clone()));
            }
        }
        csv.push('\n');
    }
    TickData { caption, csv }
}

/// Thousandths as a plain number for a CSV file: `2666` is `2.666`, `40000` is `40`.
fn plain_milli(milli: u64) -> String {
    let (whole, part) = (milli / 1000, milli % 1000);
    match part {
        0 => whole.to_string(),
        _ => format!("{whole}.{part:03}")
            .trim_end_matches('0')
            .to_string(),
    }
}

/// Each replica's calls over `result`'s chart window, as CSV in rows of `bin` ticks as
/// [`tick_data`]'s: a row per stretch, strategy and replica (`time (s),strategy,replica,
/// served,turned away`, and `wasted` before `turned away` where a replica has a queue),
/// the stretches in which no replica of any strategy saw a call left out; `None` unless
/// every strategy kept its replicas' lanes. `scenario` is the fleet as one server, which
/// the chart's columns are binned by.
pub fn replica_data(
    scenario: &Scenario,
    result: &ScenarioResult,
    window: Micros,
    bin: usize,
) -> Option<String> {
    let replicas: Vec<&[crate::engine::outcome::ReplicaLanes]> = (result.strategies.iter())
        .map(|s| s.typical.lanes.as_ref().map(|l| &l.replicas[..]))
        .collect::<Option<_>>()?;
    if replicas.is_empty() || replicas.iter().any(|r| r.is_empty()) {
        return None;
    }
    let tick = scenario.server.tick.max(1);
    let shown = super::lanes::ticks_shown(scenario, result, window);
    let bin = bin.max(1);
    let decimals = decimals_for(bin as u64 * tick).max(1);
    let wasted = (replicas.iter()).any(|r| r.iter().any(|l| !l.wasted.is_empty()));
    let mut csv = String::from("time (s),strategy,replica,served,");
    csv.push_str(if wasted {
        "wasted,turned away\n"
    } else {
        "turned away\n"
    });
    let sum = |lane: &[u32], ticks: std::ops::Range<usize>| -> u64 {
        ticks
            .map(|k| u64::from(lane.get(k).copied().unwrap_or(0)))
            .sum()
    };
    for row_start in (0..shown).step_by(bin) {
        let ticks = row_start..(row_start + bin).min(shown);
        let rows: Vec<Vec<[u64; 3]>> = (replicas.iter())
            .map(|lanes| {
                (lanes.iter())
                    .map(|l| {
                        [
                            sum(&l.served, ticks.clone()),
                            sum(&l.wasted, ticks.clone()),
                            sum(&l.rejected, ticks.clone()),
                        ]
                    })
                    .collect()
            })
            .collect();
        if rows.iter().flatten().all(|counts| counts == &[0, 0, 0]) {
            continue;
        }
        let time = seconds_fixed(row_start as u64 * tick, decimals);
        for (s, counts) in result.strategies.iter().zip(&rows) {
            for (r, [served, lost, rejected]) in counts.iter().enumerate() {
                let name = s.strategy.name();
                csv.push_str(&format!("{time},{name},{},{served},", r + 1));
                if wasted {
                    csv.push_str(&format!("{lost},"));
                }
                csv.push_str(&format!("{rejected}\n"));
            }
        }
    }
    Some(csv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Spread, Strategy, run_scenario};

    fn fit(html: &str) -> &str {
        let start = html.find("sim-fit-").expect("a fit class") + "sim-fit-".len();
        let end = start + html[start..].find('"').expect("the class ends");
        &html[start..end]
    }

    #[test]
    fn every_results_cell_is_labelled_with_its_column_for_a_stacked_layout() {
        let mut scenario = Scenario::with_clients("crowd", 100);
        scenario.strategies = vec![Strategy::Fixed, Strategy::Exponential];
        let mut result = run_scenario(&scenario);
        result.features.budget = true;
        result.features.open = true;
        let html = results_table(&result);
        assert_eq!(html.matches("<td ").count(), 2 * 8, "{html}");
        assert_eq!(html.matches(" data-label=\"").count(), 2 * 8, "{html}");
        for label in [
            "calls per client",
            "denied by the budget",
            "goodput per second",
        ] {
            assert_eq!(
                html.matches(&format!("data-label=\"{label}\"")).count(),
                2,
                "{label}"
            );
        }
    }

    #[test]
    fn a_table_asks_for_a_column_as_wide_as_its_cells_and_the_widest_always_stack() {
        let mut scenario = Scenario::with_clients("crowd", 100);
        scenario.strategies = vec![Strategy::Fixed, Strategy::Exponential];
        let mut result = run_scenario(&scenario);
        // Two strategies and six short columns fit a phone's column; each column more
        // asks for more room.
        let narrow = fit(&results_table(&result)).to_string();
        assert_eq!(narrow, "35");
        result.features.budget = true;
        result.features.breaker = true;
        let wider = fit(&results_table(&result)).to_string();
        assert!(wider.parse::<u32>().unwrap() > 35, "{wider}");
        // Every column with a range of five-digit numbers cannot fit any column of ours.
        result.features.open = true;
        result.features.recovery = true;
        for s in &mut result.strategies {
            s.calls.p5 = 10_000;
            s.calls.median = 20_000;
            s.calls.p95 = 30_000;
            s.served = s.calls;
            s.gave_up = s.calls;
            s.still_retrying = s.calls;
        }
        assert_eq!(fit(&results_table(&result)), "stack");
    }

    #[test]
    fn the_overload_columns_come_with_their_features_only() {
        let mut scenario = Scenario::with_clients("crowd", 100);
        scenario.strategies = vec![Strategy::Fixed, Strategy::Exponential];
        let mut result = run_scenario(&scenario);
        let plain = results_table(&result);
        let s = &mut result.strategies[1];
        s.wasted = Spread {
            median: 2,
            p5: 1,
            p95: 3,
        };
        s.latency_runs = 1;
        s.latency_p50 = Some(Spread {
            median: 250_000,
            p5: 50_000,
            p95: 1_500_000,
        });
        s.latency_p99 = None;
        // Values alone add nothing: a plain crowd's table is as it was.
        assert_eq!(results_table(&result), plain);
        result.features.queue = true;
        let html = results_table(&result);
        assert_eq!(html.matches("<td ").count(), 2 * 8, "{html}");
        assert!(html.contains(
            "data-label=\"p50 latency of calls answered in time\">0.250&nbsp;s <span class=\"range\">(0.050–1.500&nbsp;s)</span></td>"
        ));
        assert!(
            html.contains("data-label=\"p99 latency of calls answered in time\">never</td>"),
            "{html}"
        );
        assert!(!html.contains("wasted"));
        result.features.timeout = true;
        result.features.throttle = true;
        let html = results_table(&result);
        assert_eq!(html.matches("<td ").count(), 2 * 11, "{html}");
        assert!(html.contains("data-label=\"wasted\">2 <span class=\"range\">(1–3)</span></td>"));
        for label in ["timed out", "throttled"] {
            assert_eq!(
                html.matches(&format!("data-label=\"{label}\">0<")).count(),
                2
            );
        }
    }

    #[test]
    fn unbreakable_pieces_ignore_tags_and_keep_no_break_spaces() {
        assert_eq!(
            unbreakable_pieces("2.2&nbsp;s <span class=\"range\">(1.8–2.9&nbsp;s)</span>"),
            vec![5, 11]
        );
    }
}
