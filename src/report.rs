//! Results for people and for machines: the terminal table of `retrylab sim` and the JSON
//! of `--json`, in the shape of the engine spec's "Machine-readable output".

use serde::Serialize;

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

/// The results as an aligned text table, with a heading line.
pub fn table(result: &ScenarioResult) -> String {
    let features = result.features;
    let mut heading = vec![
        "strategy",
        "calls",
        "per client",
        "served",
        "gave up",
        "still retrying",
        "done at",
    ];
    if features.budget {
        heading.push("denied");
    }
    if features.breaker {
        heading.push("failed fast");
    }
    if features.open {
        heading.push("goodput/s");
    }
    if features.recovery {
        heading.push("recovery");
    }
    let mut rows: Vec<Vec<String>> = vec![heading.iter().map(|h| h.to_string()).collect()];
    for s in &result.strategies {
        let mut row = vec![
            s.strategy.name().to_string(),
            cell(&s.calls),
            per_client(s.calls.median, result.requests()),
            cell(&s.served),
            cell(&s.gave_up),
            cell(&s.still_retrying),
            done_cell(s, result.runs),
        ];
        if features.budget {
            row.push(cell(&s.denied));
        }
        if features.breaker {
            row.push(cell(&s.failed_fast));
        }
        if features.open {
            row.push(per_second_milli(s.goodput_milli.median));
        }
        if features.recovery {
            row.push(recovery_cell(s, result.runs));
        }
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

fn json_spread(s: &Spread) -> JsonSpread<u64> {
    JsonSpread {
        median: s.median,
        p5: s.p5,
        p95: s.p95,
    }
}

fn scaled(s: &Spread, by: f64) -> JsonSpread<f64> {
    JsonSpread {
        median: s.median as f64 / by,
        p5: s.p5 as f64 / by,
        p95: s.p95 as f64 / by,
    }
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
