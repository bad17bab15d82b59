//! Results for people and for machines: the terminal table of `retrylab sim` and the JSON
//! of `--json`, in the shape of the engine spec's "Machine-readable output".

use serde::Serialize;

use crate::engine::metric::{Metric, Stat};
use crate::engine::units::SECOND;
use crate::engine::{ScenarioResult, Spread, StrategyResult};
use crate::format::{per_client, per_second_milli, seconds, seconds_number, thousands};

/// A total as the table shows it: the median, and the 5th–95th percentile range when
/// runs disagree.
fn cell(spread: &Spread) -> String {
    if spread.is_exact() {
        thousands(spread.median)
    } else {
        format!(
            "{} ({}–{})",
            thousands(spread.median),
            thousands(spread.p5),
            thousands(spread.p95)
        )
    }
}

/// "never" with the count of the runs that have a time, when some do.
fn never(count: u32, runs: u32) -> String {
    if count == 0 {
        "never".to_string()
    } else {
        format!("never, in {count} of {runs} runs")
    }
}

/// When the last client finished, over all runs: "never" when fewer than half did.
fn done_cell(result: &StrategyResult, runs: u32) -> String {
    let Some(done) = &result.done_at else {
        return never(result.finished_runs, runs);
    };
    let mut text = if done.is_exact() {
        seconds(done.median)
    } else {
        format!(
            "{} ({}–{})",
            seconds(done.median),
            seconds_number(done.p5),
            seconds(done.p95)
        )
    };
    if result.finished_runs < runs {
        text.push_str(&format!(", in {} of {runs} runs", result.finished_runs));
    }
    text
}

/// The recovery time over all runs, "never" when fewer than half recovered.
fn recovery_cell(result: &StrategyResult, runs: u32) -> String {
    let Some(rec) = &result.recovery else {
        return never(result.recovered_runs, runs);
    };
    let mut text = if rec.is_exact() {
        seconds(rec.median)
    } else {
        format!(
            "{} ({}–{})",
            seconds(rec.median),
            seconds_number(rec.p5),
            seconds(rec.p95)
        )
    };
    if result.recovered_runs < runs {
        text.push_str(&format!(", in {} of {runs} runs", result.recovered_runs));
    }
    text
}

/// A column's heading in the terminal table: short, for 80 columns.
fn column_heading(metric: Metric) -> &'static str {
    match metric {
        Metric::Calls => "calls",
        Metric::CallsPerClient => "per client",
        Metric::Served => "served",
        Metric::GaveUp => "gave up",
        Metric::StillRetrying => "still retrying",
        Metric::DoneAt => "done at",
        Metric::FinishedRuns => "finished",
        Metric::Denied => "denied",
        Metric::FailedFast => "failed fast",
        Metric::Goodput => "goodput/s",
        Metric::Recovery => "recovery",
        Metric::RecoveredRuns => "recovered",
    }
}

/// A strategy's cell in the column of `metric`. Calls per client and goodput are the
/// medians alone, to keep the table narrow.
fn column_cell(metric: Metric, s: &StrategyResult, result: &ScenarioResult) -> String {
    match metric {
        Metric::Calls => cell(&s.calls),
        Metric::CallsPerClient => per_client(Stat::Median.of(&s.calls), result.requests()),
        Metric::Served => cell(&s.served),
        Metric::GaveUp => cell(&s.gave_up),
        Metric::StillRetrying => cell(&s.still_retrying),
        Metric::DoneAt => done_cell(s, result.runs),
        Metric::FinishedRuns => thousands(s.finished_runs),
        Metric::Denied => cell(&s.denied),
        Metric::FailedFast => cell(&s.failed_fast),
        Metric::Goodput => per_second_milli(Stat::Median.of(&s.goodput_milli)),
        Metric::Recovery => recovery_cell(s, result.runs),
        Metric::RecoveredRuns => thousands(s.recovered_runs),
    }
}

/// The results as an aligned text table, with a heading line.
pub fn table(result: &ScenarioResult) -> String {
    let features = result.features;
    let columns = Metric::columns(features);
    let mut heading = vec!["strategy"];
    heading.extend(columns.iter().map(|&m| column_heading(m)));
    let mut rows: Vec<Vec<String>> = vec![heading.iter().map(|h| h.to_string()).collect()];
    for s in &result.strategies {
        let mut row = vec![s.strategy.name().to_string()];
        row.extend(columns.iter().map(|&m| column_cell(m, s, result)));
        rows.push(row);
    }
    let widths: Vec<usize> = (0..heading.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let runs = if result.runs == 1 {
        format!("1 run (seed {})", result.seed)
    } else {
        format!(
            "{} runs (seeds {}–{}); median, with the 5th–95th percentile in brackets",
            thousands(u64::from(result.runs)),
            result.seed,
            result.seed.wrapping_add(u64::from(result.runs) - 1)
        )
    };
    let arrivals = if features.open {
        format!(
            " and {} arrivals ({}/s offered after the trigger)",
            thousands(result.arrivals),
            per_second_milli(result.offered_milli)
        )
    } else {
        String::new()
    };
    let mut out = format!(
        "{}: {} clients{arrivals}, {runs}\n\n",
        result.id,
        thousands(result.clients)
    );
    for row in &rows {
        let mut line = String::new();
        for (c, text) in row.iter().enumerate() {
            let pad = widths[c] - text.chars().count();
            if c == 0 {
                line.push_str(text);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(text);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
struct JsonResult<'a> {
    id: &'a str,
    runs: u32,
    seed: u64,
    clients: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    arrivals: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offered_per_s: Option<f64>,
    strategies: Vec<JsonStrategy>,
}

/// A total over runs: one field per [`Stat`], named as prose names it (a test holds
/// them in step).
#[derive(Serialize)]
struct JsonSpread<T> {
    median: T,
    p5: T,
    p95: T,
}

#[derive(Serialize)]
struct JsonStrategy {
    strategy: &'static str,
    calls: JsonSpread<u64>,
    served: JsonSpread<u64>,
    gave_up: JsonSpread<u64>,
    still_retrying: JsonSpread<u64>,
    finished_runs: u32,
    done_at_s: Option<JsonSpread<f64>>,
    calls_per_client: JsonSpread<f64>,
    typical_seed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    denied: Option<JsonSpread<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failed_fast: Option<JsonSpread<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    goodput_per_s: Option<JsonSpread<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recovered_runs: Option<u32>,
    /// Present (possibly null) only with a trigger and open-loop load.
    #[serde(skip_serializing_if = "Option::is_none")]
    recovery_s: Option<Option<JsonSpread<f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lanes: Option<JsonLanes>,
}

#[derive(Serialize)]
struct JsonLanes {
    tick_s: f64,
    served: Vec<u32>,
    rejected: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed_fast: Vec<u32>,
}

impl<T> JsonSpread<T> {
    /// Each [`Stat`] of `spread`, through `value`.
    fn of(spread: &Spread, value: impl Fn(u64) -> T) -> JsonSpread<T> {
        JsonSpread {
            median: value(Stat::Median.of(spread)),
            p5: value(Stat::P5.of(spread)),
            p95: value(Stat::P95.of(spread)),
        }
    }
}

fn json_spread(s: &Spread) -> JsonSpread<u64> {
    JsonSpread::of(s, |n| n)
}

fn scaled(s: &Spread, by: f64) -> JsonSpread<f64> {
    JsonSpread::of(s, |n| n as f64 / by)
}

/// The results as pretty JSON; `with_lanes` adds each typical run's per-tick lanes.
pub fn json(result: &ScenarioResult, with_lanes: bool) -> String {
    let f = result.features;
    let out = JsonResult {
        id: &result.id,
        runs: result.runs,
        seed: result.seed,
        clients: result.clients,
        arrivals: f.open.then_some(result.arrivals),
        offered_per_s: f.open.then_some(result.offered_milli as f64 / 1000.0),
        strategies: result
            .strategies
            .iter()
            .map(|s| JsonStrategy {
                strategy: s.strategy.name(),
                calls: json_spread(&s.calls),
                served: json_spread(&s.served),
                gave_up: json_spread(&s.gave_up),
                still_retrying: json_spread(&s.still_retrying),
                finished_runs: s.finished_runs,
                done_at_s: s.done_at.as_ref().map(|d| scaled(d, SECOND as f64)),
                calls_per_client: scaled(&s.calls, result.requests() as f64),
                typical_seed: s.typical.seed,
                denied: f.budget.then(|| json_spread(&s.denied)),
                failed_fast: f.breaker.then(|| json_spread(&s.failed_fast)),
                goodput_per_s: f.open.then(|| scaled(&s.goodput_milli, 1000.0)),
                recovered_runs: f.recovery.then_some(s.recovered_runs),
                recovery_s: f
                    .recovery
                    .then(|| s.recovery.as_ref().map(|r| scaled(r, SECOND as f64))),
                lanes: with_lanes
                    .then_some(s.typical.lanes.as_ref())
                    .flatten()
                    .map(|l| JsonLanes {
                        tick_s: result.tick as f64 / SECOND as f64,
                        served: l.served.clone(),
                        rejected: l.rejected.clone(),
                        failed_fast: l.failed_fast.clone(),
                    }),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&out).expect("results always serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_spread_has_a_field_per_stat_by_its_name() {
        let spread = Spread {
            median: 2,
            p5: 1,
            p95: 3,
        };
        let json = serde_json::to_value(json_spread(&spread)).unwrap();
        let map = json.as_object().unwrap();
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        let mut names: Vec<&str> = Stat::ALL.iter().map(|s| s.name()).collect();
        names.sort();
        assert_eq!(keys, names);
        for stat in Stat::ALL {
            assert_eq!(map[stat.name()], stat.of(&spread));
        }
    }
}
