//! Results for people and for machines: the terminal table of `retrylab sim` and the JSON
//! of `--json`, in the shape of the engine spec's "Machine-readable output".

use serde::Serialize;

use crate::engine::metric::{Metric, Stat};
use crate::engine::units::SECOND;
use crate::engine::{ScenarioResult, Spread, StrategyResult};
use crate::format::{
    latency, latency_number, per_client, per_second_milli, seconds, seconds_number, thousands,
};

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

/// A latency over the runs that have one, to the millisecond: "never" when no run
/// answered a call in time, and how many did when only some did.
fn latency_cell(spread: Option<&Spread>, latency_runs: u32, runs: u32) -> String {
    let Some(l) = spread else {
        return "never".to_string();
    };
    let mut text = if l.is_exact() {
        latency(l.median)
    } else {
        format!(
            "{} ({}–{})",
            latency(l.median),
            latency_number(l.p5),
            latency(l.p95)
        )
    };
    if latency_runs < runs {
        text.push_str(&format!(", in {latency_runs} of {runs} runs"));
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
        Metric::Wasted => "wasted",
        Metric::TimedOut => "timed out",
        Metric::Throttled => "throttled",
        Metric::LatencyP50 => "p50 latency",
        Metric::LatencyP99 => "p99 latency",
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
        Metric::Wasted => cell(&s.wasted),
        Metric::TimedOut => cell(&s.timed_out),
        Metric::Throttled => cell(&s.throttled),
        Metric::LatencyP50 => latency_cell(s.latency_p50.as_ref(), s.latency_runs, result.runs),
        Metric::LatencyP99 => latency_cell(s.latency_p99.as_ref(), s.latency_runs, result.runs),
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
    /// Present in every scenario: 0 where nothing can time out or be throttled.
    wasted: JsonSpread<u64>,
    timed_out: JsonSpread<u64>,
    throttled: JsonSpread<u64>,
    /// Runs with a call answered in time; the latencies are over those runs.
    latency_runs: u32,
    /// Null when no run answered a call in time.
    latency_p50_s: Option<JsonSpread<f64>>,
    latency_p99_s: Option<JsonSpread<f64>>,
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    wasted: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    queued: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    throttled: Vec<u32>,
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
    let out = json_result(result, with_lanes);
    serde_json::to_string_pretty(&out).expect("results always serialise")
}

/// [`json`] without the whitespace between its tokens, as the playground reads it: the
/// lanes a number a line are some three times the size, and the browser's module does
/// without the pretty printer.
pub fn json_compact(result: &ScenarioResult, with_lanes: bool) -> String {
    let out = json_result(result, with_lanes);
    // Not `expect`, which would carry serde_json's error formatting into the browser's
    // module.
    serde_json::to_string(&out).unwrap_or_else(|_| unreachable!("results always serialise"))
}

/// The results as the JSON writes them.
fn json_result(result: &ScenarioResult, with_lanes: bool) -> JsonResult<'_> {
    let f = result.features;
    JsonResult {
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
                wasted: json_spread(&s.wasted),
                timed_out: json_spread(&s.timed_out),
                throttled: json_spread(&s.throttled),
                latency_runs: s.latency_runs,
                latency_p50_s: s.latency_p50.as_ref().map(|l| scaled(l, SECOND as f64)),
                latency_p99_s: s.latency_p99.as_ref().map(|l| scaled(l, SECOND as f64)),
                lanes: with_lanes
                    .then_some(s.typical.lanes.as_ref())
                    .flatten()
                    .map(|l| JsonLanes {
                        tick_s: result.tick as f64 / SECOND as f64,
                        served: l.served.clone(),
                        rejected: l.rejected.clone(),
                        failed_fast: l.failed_fast.clone(),
                        wasted: l.wasted.clone(),
                        queued: l.queued.clone(),
                        throttled: l.throttled.clone(),
                    }),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Scenario, Strategy, run_scenario};

    /// A crowd's results, one run per strategy.
    fn crowd() -> ScenarioResult {
        let mut scenario = Scenario::with_clients("crowd", 100);
        scenario.strategies = vec![Strategy::Fixed, Strategy::Exponential];
        scenario.runs = 4;
        run_scenario(&scenario)
    }

    fn spread(p5: u64, median: u64, p95: u64) -> Spread {
        Spread { median, p5, p95 }
    }

    #[test]
    fn the_json_has_the_overload_totals_for_every_scenario() {
        let mut result = crowd();
        let s = &mut result.strategies[0];
        s.wasted = spread(1, 2, 3);
        s.timed_out = spread(10, 20, 30);
        s.throttled = spread(0, 0, 7);
        s.latency_runs = 3;
        s.latency_p50 = Some(spread(50_000, 250_000, 1_500_000));
        s.latency_p99 = Some(spread(900_000, 2_000_000, 2_000_000));
        let json: serde_json::Value = serde_json::from_str(&json(&result, false)).unwrap();
        let s = &json["strategies"][0];
        let triple =
            |v: &serde_json::Value| (v["p5"].clone(), v["median"].clone(), v["p95"].clone());
        let ints = |a: u64, b: u64, c: u64| (a.into(), b.into(), c.into());
        let secs = |a: f64, b: f64, c: f64| (a.into(), b.into(), c.into());
        assert_eq!(triple(&s["wasted"]), ints(1, 2, 3));
        assert_eq!(triple(&s["timed_out"]), ints(10, 20, 30));
        assert_eq!(triple(&s["throttled"]), ints(0, 0, 7));
        assert_eq!(s["latency_runs"], 3);
        assert_eq!(triple(&s["latency_p50_s"]), secs(0.05, 0.25, 1.5));
        assert_eq!(triple(&s["latency_p99_s"]), secs(0.9, 2.0, 2.0));
        // The other strategy, as the crowd ran it: nothing timed out or throttled, and
        // every run of a crowd that is served has a latency.
        let other = &json["strategies"][1];
        assert_eq!(triple(&other["wasted"]), ints(0, 0, 0));
        // Every field a crowd had is still there, with its meaning.
        for field in [
            "strategy",
            "calls",
            "served",
            "gave_up",
            "still_retrying",
            "finished_runs",
            "done_at_s",
            "calls_per_client",
            "typical_seed",
        ] {
            assert!(s.get(field).is_some(), "{field}");
        }
    }

    #[test]
    fn a_latency_no_run_has_is_null_and_the_other_totals_stay() {
        let mut result = crowd();
        for s in &mut result.strategies {
            s.latency_runs = 0;
            s.latency_p50 = None;
            s.latency_p99 = None;
        }
        let json: serde_json::Value = serde_json::from_str(&json(&result, false)).unwrap();
        for s in json["strategies"].as_array().unwrap() {
            let map = s.as_object().unwrap();
            // Present and null, never left out: a reader can tell "none" from "not asked".
            assert!(map["latency_p50_s"].is_null() && map["latency_p99_s"].is_null());
            assert_eq!(map["latency_runs"], 0);
            for total in ["wasted", "timed_out", "throttled"] {
                assert_eq!(map[total]["median"], 0, "{total}");
            }
        }
    }

    #[test]
    fn the_table_shows_the_overload_totals_only_where_they_apply() {
        let mut result = crowd();
        // A line's words, as the table aligns them apart.
        let line = |text: &str, n: usize| {
            text.lines()
                .nth(n)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        let plain = table(&result);
        assert!(
            !plain.contains("latency") && !plain.contains("wasted"),
            "{plain}"
        );
        let s = &mut result.strategies[1];
        s.wasted = spread(1, 2, 3);
        s.timed_out = spread(40, 40, 40);
        s.throttled = spread(5, 6, 7);
        s.latency_runs = 3;
        s.latency_p50 = Some(spread(50_000, 250_000, 1_500_000));
        s.latency_p99 = Some(spread(2_000_000, 2_000_000, 2_000_000));
        // Values alone add no column: the scenario's features do.
        assert_eq!(table(&result), plain);
        result.features.queue = true;
        let queued = table(&result);
        let heading = line(&queued, 2);
        assert!(
            heading.ends_with("done at p50 latency p99 latency"),
            "{heading}"
        );
        assert!(!queued.contains("timed out") && !queued.contains("throttled"));
        let exponential = line(&queued, 4);
        assert!(
            exponential
                .ends_with("0.250 s (0.050–1.500 s), in 3 of 4 runs 2.000 s, in 3 of 4 runs"),
            "{exponential}"
        );
        result.features.timeout = true;
        result.features.throttle = true;
        let every = table(&result);
        let heading = line(&every, 2);
        assert!(
            heading.ends_with("done at throttled timed out wasted p50 latency p99 latency"),
            "{heading}"
        );
        let exponential = line(&every, 4);
        assert!(
            exponential.contains(" 6 (5–7) 40 2 (1–3) 0.250 s"),
            "{exponential}"
        );
        // No run answered a call in time: "never".
        result.strategies[1].latency_runs = 0;
        result.strategies[1].latency_p50 = None;
        result.strategies[1].latency_p99 = None;
        let never = table(&result);
        assert!(line(&never, 4).ends_with("2 (1–3) never never"), "{never}");
    }

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
