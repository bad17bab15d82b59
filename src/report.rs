//! Results for people and for machines: the terminal table of `retrylab sim` and the JSON
//! of `--json`, in the shape of the engine spec's "Machine-readable output".

use serde::Serialize;

use crate::cell::Cell;
use crate::engine::metric::{Metric, Stat};
use crate::engine::units::SECOND;
use crate::engine::{Features, ScenarioResult, Spread, StrategyResult, Value};
use crate::format::{per_second_milli, thousands};

/// A column's heading in the terminal table: short, for 80 columns (and the name of a
/// total in the table of `retrylab live`).
pub fn short_heading(metric: Metric) -> &'static str {
    match metric {
        Metric::Calls => "calls",
        Metric::CallsPerClient => "per client",
        Metric::Served => "served",
        Metric::GaveUp => "gave up",
        Metric::StillRetrying => "still retrying",
        Metric::DoneAt => "done at",
        Metric::FinishedRuns => "finished",
        Metric::Denied => "denied",
        Metric::PushedBack => "pushed back",
        Metric::Hedges => "hedges",
        Metric::FailedFast => "failed fast",
        Metric::Goodput => "goodput/s",
        Metric::Recovery => "recovery",
        Metric::RecoveredRuns => "recovered",
        Metric::Wasted => "wasted",
        Metric::TimedOut => "timed out",
        Metric::Throttled => "throttled",
        Metric::LatencyP50 => "p50 latency",
        Metric::LatencyP99 => "p99 latency",
        Metric::PeakRejected => "peak rejected",
    }
}

/// A strategy's cell in the column of `metric`. Calls per client and goodput are the
/// medians alone, to keep the table narrow.
fn column_cell(metric: Metric, s: &StrategyResult, result: &ScenarioResult) -> String {
    let value = result.value(s, metric);
    let cell = Cell::of(&value);
    match value {
        Value::PerClient { .. } | Value::RateMilli(_) => cell.median_only().text(),
        Value::Count { .. } | Value::Time { .. } | Value::Runs { .. } => cell.text(),
    }
}

/// The results as an aligned text table, with a heading line.
pub fn table(result: &ScenarioResult) -> String {
    let features = result.features;
    let columns = Metric::columns(features);
    let mut heading = vec!["strategy"];
    heading.extend(columns.iter().map(|&m| short_heading(m)));
    let mut rows: Vec<Vec<String>> = vec![heading.iter().map(|h| h.to_string()).collect()];
    for s in &result.strategies {
        let mut row = vec![s.strategy.name().to_string()];
        row.extend(columns.iter().map(|&m| column_cell(m, s, result)));
        rows.push(row);
    }
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
    out.push_str(&aligned(&rows));
    out.push_str(&replicas_table(result));
    out
}

/// Under a fleet's table, each replica's calls, served and turned away, strategy by
/// strategy; nothing for one server.
fn replicas_table(result: &ScenarioResult) -> String {
    if result.strategies.iter().all(|s| s.replicas.is_empty()) {
        return String::new();
    }
    let cell = |spread: &Spread| {
        let value = Value::Count {
            spread: *spread,
            of: None,
        };
        crate::cell::Cell::of(&value).text()
    };
    let time = |spread: &Option<Spread>, runs_with: u32| {
        let value = Value::Time {
            spread: *spread,
            runs_with,
            runs: result.runs,
            latency: true,
        };
        crate::cell::Cell::of(&value).text()
    };
    // With a queue, what a queue adds: its waste, the calls it discarded and those
    // still in it at the horizon (so that a row adds up: calls are served, turned away,
    // wasted, discarded or still queued), its timeouts, its latencies.
    let queue = result.features.queue;
    let mut heading = vec!["strategy", "replica", "calls", "served", "turned away"];
    if queue {
        heading.extend([
            "wasted",
            "discarded",
            "still queued",
            "timed out",
            "p50 latency",
            "p99 latency",
        ]);
    }
    let mut rows: Vec<Vec<String>> = vec![heading.iter().map(|h| h.to_string()).collect()];
    for s in &result.strategies {
        for (i, r) in s.replicas.iter().enumerate() {
            let mut row = vec![
                s.strategy.name().to_string(),
                thousands((i + 1) as u64),
                cell(&r.calls),
                cell(&r.served),
                cell(&r.rejected),
            ];
            if queue {
                row.extend([
                    cell(&r.wasted),
                    cell(&r.dropped),
                    cell(&r.queued),
                    cell(&r.timed_out),
                    time(&r.latency_p50, r.latency_runs),
                    time(&r.latency_p99, r.latency_runs),
                ]);
            }
            rows.push(row);
        }
    }
    format!("\neach replica:\n\n{}", aligned(&rows))
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
    strategies: Vec<JsonStrategy<'a>>,
}

/// A field of a strategy's object in the JSON, in the order the engine spec gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// The strategy's name.
    Strategy,
    /// A total, under [`key`], where the scenario has it ([`in_json`]).
    Total(Metric),
    /// The seed of the typical run.
    TypicalSeed,
    /// The runs with a call answered in time, which the latencies are over.
    LatencyRuns,
    /// Each replica's calls, served and rejected, for a server of several.
    Replicas,
    /// The typical run's per-tick lanes, when asked for.
    Lanes,
}

/// The fields of a strategy's object, in order: every total once (a test holds them to
/// [`Metric::ALL`]).
const FIELDS: [Field; 25] = [
    Field::Strategy,
    Field::Total(Metric::Calls),
    Field::Total(Metric::Served),
    Field::Total(Metric::GaveUp),
    Field::Total(Metric::StillRetrying),
    Field::Total(Metric::FinishedRuns),
    Field::Total(Metric::DoneAt),
    Field::Total(Metric::CallsPerClient),
    Field::TypicalSeed,
    Field::Total(Metric::Denied),
    Field::Total(Metric::PushedBack),
    Field::Total(Metric::Hedges),
    Field::Total(Metric::FailedFast),
    Field::Total(Metric::Goodput),
    Field::Total(Metric::RecoveredRuns),
    Field::Total(Metric::Recovery),
    Field::Total(Metric::Wasted),
    Field::Total(Metric::TimedOut),
    Field::Total(Metric::Throttled),
    Field::LatencyRuns,
    Field::Total(Metric::LatencyP50),
    Field::Total(Metric::LatencyP99),
    Field::Total(Metric::PeakRejected),
    Field::Replicas,
    Field::Lanes,
];

/// A total's key in the JSON: its name, with `_s` or `_per_s` where it has a unit.
fn key(metric: Metric) -> &'static str {
    match metric {
        Metric::DoneAt => "done_at_s",
        Metric::Goodput => "goodput_per_s",
        Metric::Recovery => "recovery_s",
        Metric::LatencyP50 => "latency_p50_s",
        Metric::LatencyP99 => "latency_p99_s",
        Metric::Calls
        | Metric::Served
        | Metric::GaveUp
        | Metric::StillRetrying
        | Metric::CallsPerClient
        | Metric::FinishedRuns
        | Metric::FailedFast
        | Metric::Denied
        | Metric::PushedBack
        | Metric::Hedges
        | Metric::RecoveredRuns
        | Metric::Wasted
        | Metric::TimedOut
        | Metric::Throttled
        | Metric::PeakRejected => metric.name(),
    }
}

/// Whether the JSON of a scenario with `features` has the total: the totals of a
/// guard only with the guard, the overload totals always (0 where nothing can time
/// out or be throttled), and a latency no run has as `null`, never left out.
fn in_json(metric: Metric, features: Features) -> bool {
    match metric {
        Metric::Denied => features.budget,
        Metric::PushedBack => features.pushback,
        Metric::Hedges => features.hedging,
        Metric::FailedFast => features.breaker,
        Metric::Goodput => features.open,
        Metric::Recovery | Metric::RecoveredRuns => features.recovery,
        Metric::Calls
        | Metric::Served
        | Metric::GaveUp
        | Metric::StillRetrying
        | Metric::DoneAt
        | Metric::CallsPerClient
        | Metric::FinishedRuns
        | Metric::Wasted
        | Metric::TimedOut
        | Metric::Throttled
        | Metric::LatencyP50
        | Metric::LatencyP99
        | Metric::PeakRejected => true,
    }
}

/// A total over runs: one field per [`Stat`], named as prose names it (a test holds
/// them in step).
#[derive(Serialize)]
struct JsonSpread<T> {
    median: T,
    p5: T,
    p95: T,
}

/// A total's value as the JSON writes it: counts as whole numbers, rates and times as
/// numbers of their unit, a time too few runs have as `null`.
#[derive(Serialize)]
#[serde(untagged)]
enum JsonTotal {
    Count(JsonSpread<u64>),
    Scaled(JsonSpread<f64>),
    Time(Option<JsonSpread<f64>>),
    Runs(u32),
}

impl JsonTotal {
    fn of(value: &Value) -> JsonTotal {
        match value {
            Value::Count { spread, .. } => JsonTotal::Count(json_spread(spread)),
            Value::PerClient { calls, requests } => {
                JsonTotal::Scaled(scaled(calls, *requests as f64))
            }
            Value::RateMilli(spread) => JsonTotal::Scaled(scaled(spread, 1000.0)),
            Value::Time { spread, .. } => {
                JsonTotal::Time(spread.as_ref().map(|t| scaled(t, SECOND as f64)))
            }
            Value::Runs { count, .. } => JsonTotal::Runs(*count),
        }
    }
}

/// A strategy's object: [`FIELDS`] in order.
struct JsonStrategy<'a> {
    s: &'a StrategyResult,
    result: &'a ScenarioResult,
    with_lanes: bool,
}

impl Serialize for JsonStrategy<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (s, result) = (self.s, self.result);
        let mut map = serializer.serialize_map(None)?;
        for field in FIELDS {
            match field {
                Field::Strategy => map.serialize_entry("strategy", s.strategy.name())?,
                Field::Total(metric) => {
                    if in_json(metric, result.features) {
                        map.serialize_entry(key(metric), &JsonTotal::of(&result.value(s, metric)))?;
                    }
                }
                Field::TypicalSeed => map.serialize_entry("typical_seed", &s.typical.seed)?,
                Field::LatencyRuns => map.serialize_entry("latency_runs", &s.latency_runs)?,
                Field::Replicas if !s.replicas.is_empty() => {
                    let replicas: Vec<JsonReplica> = (s.replicas.iter().enumerate())
                        .map(|(i, r)| JsonReplica {
                            replica: i + 1,
                            calls: JsonSpread::of(&r.calls, |n| n),
                            served: JsonSpread::of(&r.served, |n| n),
                            rejected: JsonSpread::of(&r.rejected, |n| n),
                            wasted: JsonSpread::of(&r.wasted, |n| n),
                            timed_out: JsonSpread::of(&r.timed_out, |n| n),
                            dropped: JsonSpread::of(&r.dropped, |n| n),
                            queued: JsonSpread::of(&r.queued, |n| n),
                            latency_runs: r.latency_runs,
                            latency_p50_s: r.latency_p50.as_ref().map(seconds),
                            latency_p99_s: r.latency_p99.as_ref().map(seconds),
                        })
                        .collect();
                    map.serialize_entry("replicas", &replicas)?;
                }
                Field::Replicas => {}
                Field::Lanes => {
                    let lanes = self
                        .with_lanes
                        .then_some(s.typical.lanes.as_ref())
                        .flatten();
                    if let Some(l) = lanes {
                        let lanes = JsonLanes {
                            tick_s: result.tick as f64 / SECOND as f64,
                            served: &l.served,
                            rejected: &l.rejected,
                            failed_fast: &l.failed_fast,
                            wasted: &l.wasted,
                            queued: &l.queued,
                            throttled: &l.throttled,
                            hedges: &l.hedges,
                            capacity: l.capacity.iter().map(|&c| c as f64 / 1000.0).collect(),
                        };
                        map.serialize_entry("lanes", &lanes)?;
                    }
                }
            }
        }
        map.end()
    }
}

/// One replica's totals, numbered from 1.
#[derive(Serialize)]
struct JsonReplica {
    replica: usize,
    calls: JsonSpread<u64>,
    served: JsonSpread<u64>,
    rejected: JsonSpread<u64>,
    wasted: JsonSpread<u64>,
    timed_out: JsonSpread<u64>,
    dropped: JsonSpread<u64>,
    queued: JsonSpread<u64>,
    latency_runs: u32,
    latency_p50_s: Option<JsonSpread<f64>>,
    latency_p99_s: Option<JsonSpread<f64>>,
}

/// A time over runs, in seconds.
fn seconds(spread: &Spread) -> JsonSpread<f64> {
    scaled(spread, SECOND as f64)
}

#[derive(Serialize)]
struct JsonLanes<'a> {
    tick_s: f64,
    served: &'a [u32],
    rejected: &'a [u32],
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    failed_fast: &'a [u32],
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    wasted: &'a [u32],
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    queued: &'a [u32],
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    throttled: &'a [u32],
    /// Hedges per tick, with hedging.
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    hedges: &'a [u32],
    /// The server's capacity per tick, in calls, with a cache (which moves it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    capacity: Vec<f64>,
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

/// A sweep's results as an aligned text table: a row per value of the parameter, a
/// column per strategy, each cell `total` as the site's sweep table writes it.
pub fn sweep_table(
    id: &str,
    parameter: &str,
    total: Metric,
    points: &[(String, ScenarioResult)],
) -> String {
    let mut strategies: Vec<&'static str> = Vec::new();
    for (_, result) in points {
        for s in &result.strategies {
            if !strategies.contains(&s.strategy.name()) {
                strategies.push(s.strategy.name());
            }
        }
    }
    let mut rows: Vec<Vec<String>> = vec![
        std::iter::once(parameter.to_string())
            .chain(strategies.iter().map(|s| s.to_string()))
            .collect(),
    ];
    for (label, result) in points {
        let mut row = vec![label.clone()];
        for name in &strategies {
            let cell = result
                .strategies
                .iter()
                .find(|s| s.strategy.name() == *name)
                .map_or("–".to_string(), |s| {
                    Cell::of(&result.value(s, total)).text()
                });
            row.push(cell);
        }
        rows.push(row);
    }
    let runs = points.iter().map(|(_, r)| r.runs).max().unwrap_or(1);
    let how = if runs > 1 {
        format!(
            "median of {} runs, with the 5th–95th percentile in brackets",
            thousands(u64::from(runs))
        )
    } else {
        "one run".to_string()
    };
    let mut out = format!("{id}: {} against {parameter}, {how}\n\n", total.name());
    out.push_str(&aligned(&rows));
    out
}

/// Rows of cells as text, each column as wide as its widest cell: the first left
/// aligned, the others right.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
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

/// A sweep's results as pretty JSON: a list of each value of the parameter with the
/// results there, as [`json`] writes them.
pub fn sweep_json(points: &[(String, ScenarioResult)], with_lanes: bool) -> String {
    #[derive(Serialize)]
    struct Point<'a> {
        value: &'a str,
        results: JsonResult<'a>,
    }
    let points: Vec<Point> = points
        .iter()
        .map(|(label, result)| Point {
            value: label,
            results: json_result(result, with_lanes),
        })
        .collect();
    serde_json::to_string_pretty(&points).expect("results always serialise")
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
                s,
                result,
                with_lanes,
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
    fn the_json_has_every_total_once() {
        let totals: Vec<Metric> = FIELDS
            .iter()
            .filter_map(|f| match f {
                Field::Total(m) => Some(*m),
                _ => None,
            })
            .collect();
        let mut sorted = totals.clone();
        sorted.sort_by_key(|m| m.name());
        let mut all = Metric::ALL.to_vec();
        all.sort_by_key(|m| m.name());
        assert_eq!(sorted, all);
        // Keys are unique, and a total's key starts with its name.
        let mut keys: Vec<&str> = totals.iter().map(|&m| key(m)).collect();
        for (&m, k) in totals.iter().zip(&keys) {
            assert!(k.starts_with(m.name()), "{k}");
        }
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), totals.len());
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
