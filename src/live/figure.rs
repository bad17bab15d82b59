//! A stored live run beside the page's simulation, as the figure of a
//! ```` ```live ```` directive: a row per strategy and, for each total, the simulated
//! median (with its 5th–95th percentile where runs disagree), the live value and the
//! difference. A total that is zero on both sides for every strategy is left out, and
//! the caption says so. The table itself is drawn by [`crate::chart`].

use super::record::{self, LiveStrategy, LiveTotals, Record, cells};
use crate::chart::live::{LiveTable, live_figure};
use crate::engine::ScenarioResult;
use crate::engine::metric::Metric;
use crate::report::short_heading;

/// What the caption says about the run, besides its rows.
struct LiveRun<'a> {
    /// The scenario's id.
    id: &'a str,
    /// The day it was played.
    date: &'a str,
    /// The server's software, like `hyper 1.12.0 on tokio 1.54.1`.
    server: &'a str,
    /// The machine it was played on, if the run says.
    machine: Option<&'a str>,
    /// The simulated runs beside it.
    runs: u32,
}

/// The figure of the run `record` of the scenario `id`, its simulated side from
/// `result`, the page's; `caption` is the author's, if any.
pub fn figure(id: &str, record: &Record, result: &ScenarioResult, caption: Option<&str>) -> String {
    let rows: Vec<_> = record
        .strategies
        .iter()
        .filter_map(|stored| {
            let simulated = record::simulated_of(result, stored.strategy)?;
            let live = LiveTotals::of_stored(stored);
            Some(record::compare(
                &live,
                simulated,
                result.features,
                stored.waits.clone(),
            ))
        })
        .collect();
    let server: Vec<String> = record
        .server
        .iter()
        .map(|s| format!("{} {}", s.name, s.version))
        .collect();
    let run = LiveRun {
        id,
        date: &record.date,
        server: &server.join(" on "),
        machine: record.machine.as_deref(),
        runs: result.runs,
    };
    table(&run, &rows, caption)
}

/// The figure of `rows`: the totals not zero on both sides for every strategy, each
/// with its three cells, and the caption.
fn table(run: &LiveRun, rows: &[LiveStrategy], caption: Option<&str>) -> String {
    let all = record::totals(rows);
    let totals: Vec<Metric> = all
        .iter()
        .copied()
        .filter(|&t| rows.iter().any(|s| !is_zero(s, t)))
        .collect();
    let left_out: Vec<&str> = all
        .into_iter()
        .filter(|t| !totals.contains(t))
        .map(short_heading)
        .collect();
    let generated;
    let caption = match caption {
        Some(text) => text,
        None => {
            generated = generated_caption(run, rows, &left_out);
            &generated
        }
    };
    live_figure(&LiveTable {
        id: run.id,
        totals: totals.iter().map(|&t| short_heading(t)).collect(),
        rows: rows
            .iter()
            .map(|s| {
                let row = totals.iter().map(|&t| cells(s, t)).collect();
                (s.strategy.name().to_string(), row)
            })
            .collect(),
        caption,
    })
}

/// Whether a total is zero on both sides for strategy `s`.
fn is_zero(s: &LiveStrategy, total: Metric) -> bool {
    // "never" on both sides of a time still says something.
    record::count(s, total).is_some_and(|c| c.live == 0 && c.p5 == 0 && c.p95 == 0)
}

/// The caption the figure gets unless its author writes one: what was played, when,
/// with what, and who computed each strategy's waits.
fn generated_caption(run: &LiveRun, rows: &[LiveStrategy], left_out: &[&str]) -> String {
    // Strategies grouped by who computed their waits, in the rows' order.
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for s in rows {
        let by = if s.waits.name == "retrylab" {
            "the engine's own policy (no maintained crate implements it as the model defines it)"
                .to_string()
        } else {
            format!("{} {}", s.waits.name, s.waits.version)
        };
        match groups.iter_mut().find(|(b, _)| *b == by) {
            Some((_, names)) => names.push(s.strategy.name()),
            None => groups.push((by, vec![s.strategy.name()])),
        }
    }
    let waits: Vec<String> = groups
        .iter()
        .map(|(by, names)| format!("{} by {by}", list(names)))
        .collect();
    let runs = if run.runs == 1 {
        "one simulated run".to_string()
    } else {
        format!(
            "{} simulated runs (the median, with the 5th–95th percentile in brackets)",
            crate::format::thousands(u64::from(run.runs))
        )
    };
    let machine = run.machine.map_or(String::new(), |m| format!(" ({m})"));
    let mut text = format!(
        "The scenario {} played for real on {}: one run of each strategy over HTTP on loopback{machine}, \
         the server {}, beside {runs}. Waits: {}.",
        run.id,
        run.date,
        run.server,
        waits.join("; ")
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            " Left out, as zero on both sides: {}.",
            list(left_out)
        ));
    }
    text
}

/// Names joined as prose: `a`, `a and b`, `a, b and c`.
fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
