//! A live run beside the simulation, as data: what `retrylab live --json` prints, what
//! `--record FILE` stores, and what the site's ```` ```live ```` directive reads back.
//!
//! One format for all three, so that a stored run is exactly what the command printed.
//! Each total of each strategy holds the live value, the simulated median with its 5th
//! and 95th percentile, and the difference, live less median. Times are in seconds; a
//! time that a side does not have (`done_at_s` while clients are still retrying, or
//! when fewer than half the simulated runs finished) is `null`, and so is its difference.
//!
//! The directive uses the live values, the date, the crates and the scenario of a
//! stored run; the simulated side of a page comes from the engine at build time, so that
//! it always equals the page's own figure.

use serde::{Deserialize, Serialize};

use crate::cell::Cell;
use crate::engine::metric::Metric;
use crate::engine::units::{Micros, SECOND};
use crate::engine::{Features, ScenarioResult, Spread, Strategy, StrategyResult, Value};

/// The value of `format` in every record: a later format gets a new name.
pub const FORMAT: &str = "retrylab-live/1";

/// One live run of a scenario, every strategy, beside its simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Always [`FORMAT`].
    pub format: String,
    /// The scenario's id.
    pub id: String,
    /// The day the run was made, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The scenario as it was run: the YAML text of the file.
    pub scenario: String,
    /// The clients of the crowd.
    pub clients: u64,
    /// The open-loop requests of the scenario's `arrivals`, each a client of its own.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub arrivals: u64,
    /// The simulated runs the band is taken over.
    pub runs: u32,
    /// The machine it was played on, as [`machine`] describes it (absent in runs stored
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// The server's software: crate and version of the HTTP server and its runtime.
    pub server: Vec<Software>,
    /// Each strategy, in the scenario's order.
    pub strategies: Vec<LiveStrategy>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A crate and its version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Software {
    /// The crate's name.
    #[serde(rename = "crate")]
    pub name: String,
    /// Its version.
    pub version: String,
}

/// Who computed a strategy's waits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waits {
    /// The crate whose implementation the clients used, or `retrylab` for the engine's
    /// own policy where no crate implements the strategy as the model defines it.
    #[serde(rename = "crate")]
    pub name: String,
    /// Its version.
    pub version: String,
    /// What of it, in its own names (`ExponentialFactorBackoff` with `jitter_with_bounds(0, 1)`).
    pub using: String,
}

/// One strategy, live beside simulated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveStrategy {
    /// Its name.
    pub strategy: Strategy,
    /// Who computed its waits.
    pub waits: Waits,
    /// Calls the server saw.
    pub calls: Count,
    /// Clients served.
    pub served: Count,
    /// Clients that gave up.
    pub gave_up: Count,
    /// Clients still retrying at the horizon.
    pub still_retrying: Count,
    /// The start of the tick in which the last client finished, in seconds.
    pub done_at_s: Time,
    /// Clients that gave up because the retry budget refused a retry (with
    /// `retry.budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied: Option<Count>,
    /// Attempts that ended by the client's timeout (a scenario with `retry.timeout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<Count>,
    /// Calls the server served after their client had timed out (with `retry.timeout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wasted: Option<Count>,
    /// The median latency of the calls answered in time, in seconds (with a queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p50_s: Option<Time>,
    /// Their 99th percentile latency, in seconds (with a queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_s: Option<Time>,
    /// Calls answered in time per second after the trigger (open-loop arrivals): a rate,
    /// not a time, in the same shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goodput_per_s: Option<Time>,
    /// How long after the trigger goodput recovered, in seconds (open-loop arrivals and
    /// an outage or a slowdown); `live: null` when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_s: Option<Time>,
    /// How long the live run took, in seconds of the wall clock.
    pub elapsed_s: f64,
    /// The live run's calls served and turned away, per tick.
    pub lanes: LiveLanes,
}

/// The live run's calls per tick, as the server decided them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveLanes {
    /// Served, per tick from the first.
    pub served: Vec<u64>,
    /// Turned away, per tick from the first.
    pub rejected: Vec<u64>,
    /// Served after their client had timed out, per tick from the first (with
    /// `retry.timeout`; `served` then counts the calls answered in time only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wasted: Vec<u64>,
}

/// A count, live beside its simulated spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    /// The live run's.
    pub live: u64,
    /// The simulated median.
    pub median: u64,
    /// The simulated 5th percentile.
    pub p5: u64,
    /// The simulated 95th percentile.
    pub p95: u64,
    /// Live less the median.
    pub difference: i64,
}

impl Count {
    /// `live` beside `simulated`.
    pub fn new(live: u64, simulated: &Spread) -> Count {
        Count {
            live,
            median: simulated.median,
            p5: simulated.p5,
            p95: simulated.p95,
            difference: live as i64 - simulated.median as i64,
        }
    }
}

/// A time in seconds, live beside its simulated spread; `None` where a side has none.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Time {
    /// The live run's.
    pub live: Option<f64>,
    /// The simulated median.
    pub median: Option<f64>,
    /// The simulated 5th percentile.
    pub p5: Option<f64>,
    /// The simulated 95th percentile.
    pub p95: Option<f64>,
    /// Live less the median.
    pub difference: Option<f64>,
}

impl Time {
    /// `live` beside `simulated`, both in microseconds.
    pub fn new(live: Option<Micros>, simulated: Option<&Spread>) -> Time {
        let s = |us: Micros| us as f64 / SECOND as f64;
        Time {
            live: live.map(s),
            median: simulated.map(|x| s(x.median)),
            p5: simulated.map(|x| s(x.p5)),
            p95: simulated.map(|x| s(x.p95)),
            difference: live
                .zip(simulated)
                .map(|(l, x)| (l as f64 - x.median as f64) / SECOND as f64),
        }
    }
}

/// What one strategy's live run gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveTotals {
    /// Calls the server saw.
    pub calls: u64,
    /// Clients served.
    pub served: u64,
    /// Clients that gave up.
    pub gave_up: u64,
    /// Clients still retrying at the horizon.
    pub still_retrying: u64,
    /// The start of the tick in which the last client finished, when none is still
    /// retrying.
    pub done_at: Option<Micros>,
    /// Clients that gave up because the retry budget refused a retry.
    pub denied: u64,
    /// Attempts that ended by their client's timeout.
    pub timed_out: u64,
    /// Calls served after their client had timed out.
    pub wasted: u64,
    /// The median and 99th percentile latency of the calls answered in time (nearest
    /// rank, as the engine takes them), if any was.
    pub latency: Option<(Micros, Micros)>,
    /// Calls answered in time per second after the trigger, in thousandths.
    pub goodput_milli: u64,
    /// The recovery time after the trigger, if goodput recovered.
    pub recovery: Option<Micros>,
    /// How long it took on the wall clock.
    pub elapsed: std::time::Duration,
    /// Served and rejected per tick.
    pub lanes: LiveLanes,
}

impl LiveTotals {
    /// The live side of a stored strategy, as it was measured (the wall-clock time and
    /// the lanes left out).
    pub fn of_stored(s: &LiveStrategy) -> LiveTotals {
        let us = |x: f64| (x * SECOND as f64).round() as Micros;
        let live = |t: &Option<Time>| t.as_ref().and_then(|t| t.live);
        LiveTotals {
            calls: s.calls.live,
            served: s.served.live,
            gave_up: s.gave_up.live,
            still_retrying: s.still_retrying.live,
            done_at: s.done_at_s.live.map(us),
            denied: s.denied.map_or(0, |c| c.live),
            timed_out: s.timed_out.map_or(0, |c| c.live),
            wasted: s.wasted.map_or(0, |c| c.live),
            latency: live(&s.latency_p50_s)
                .zip(live(&s.latency_p99_s))
                .map(|(a, b)| (us(a), us(b))),
            goodput_milli: live(&s.goodput_per_s).map_or(0, |g| (g * 1000.0).round() as u64),
            recovery: live(&s.recovery_s).map(us),
            elapsed: std::time::Duration::ZERO,
            lanes: LiveLanes::default(),
        }
    }
}

/// The machine a run is played on, for a reader who wants to know what kept the tick:
/// the operating system and its kernel where it says, the processor's model where the
/// system names it, and the cores the run could use (`Linux 6.1, x86_64, AMD EPYC, 2
/// cores`). Nothing that names the machine itself or its owner.
pub fn machine() -> String {
    let mut parts = vec![];
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok();
    let release = kernel.as_deref().map(|k| {
        // The version's first two numbers: `6.18.44-fc` is `6.18`.
        let numbers: Vec<&str> = k.trim().split(['.', '-']).take(2).collect();
        numbers.join(".")
    });
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "macOS",
        "windows" => "Windows",
        other => other,
    };
    parts.push(match release {
        Some(r) if !r.is_empty() => format!("{os} {r}"),
        _ => os.to_string(),
    });
    parts.push(std::env::consts::ARCH.to_string());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.split_whitespace().collect::<Vec<_>>().join(" "))
        });
    if let Some(cpu) = cpu.filter(|c| !c.is_empty()) {
        parts.push(cpu);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    parts.push(if cores == 1 {
        "1 core".to_string()
    } else {
        format!("{cores} cores")
    });
    parts.join(", ")
}

/// One strategy's live run beside its simulated result; `features` (the scenario's)
/// say which of the overload totals apply.
pub fn compare(
    live: &LiveTotals,
    simulated: &StrategyResult,
    features: Features,
    waits: Waits,
) -> LiveStrategy {
    let latency = |pick: fn((Micros, Micros)) -> Micros, spread: &Option<Spread>| {
        features
            .queue
            .then(|| Time::new(live.latency.map(pick), spread.as_ref()))
    };
    let goodput = Spread {
        median: simulated.goodput_milli.median * 1000,
        p5: simulated.goodput_milli.p5 * 1000,
        p95: simulated.goodput_milli.p95 * 1000,
    };
    LiveStrategy {
        strategy: simulated.strategy,
        waits,
        calls: Count::new(live.calls, &simulated.calls),
        served: Count::new(live.served, &simulated.served),
        gave_up: Count::new(live.gave_up, &simulated.gave_up),
        still_retrying: Count::new(live.still_retrying, &simulated.still_retrying),
        done_at_s: Time::new(live.done_at, simulated.done_at.as_ref()),
        denied: features
            .budget
            .then(|| Count::new(live.denied, &simulated.denied)),
        timed_out: features
            .timeout
            .then(|| Count::new(live.timed_out, &simulated.timed_out)),
        wasted: features
            .timeout
            .then(|| Count::new(live.wasted, &simulated.wasted)),
        latency_p50_s: latency(|l| l.0, &simulated.latency_p50),
        latency_p99_s: latency(|l| l.1, &simulated.latency_p99),
        // Thousandths per second, scaled as microseconds are to seconds.
        goodput_per_s: features
            .open
            .then(|| Time::new(Some(live.goodput_milli * 1000), Some(&goodput))),
        recovery_s: (features.open && features.recovery)
            .then(|| Time::new(live.recovery, simulated.recovery.as_ref())),
        elapsed_s: (live.elapsed.as_millis() as f64) / 1000.0,
        lanes: live.lanes.clone(),
    }
}

/// A total as a live run measures it.
#[derive(Clone, Copy)]
enum Measured {
    /// A count of the strategy's, where the scenario has it.
    Count(fn(&LiveStrategy) -> Option<&Count>),
    /// A time in seconds, where the scenario has it: written to the tenth, or to the
    /// millisecond for a latency.
    Time(fn(&LiveStrategy) -> Option<&Time>, bool),
    /// A rate per second, where the scenario has it.
    Rate(fn(&LiveStrategy) -> Option<&Time>),
}

/// How a live run measures `metric`; `None` for a total it does not measure (the
/// guards', which a live run does not play).
fn measured(metric: Metric) -> Option<Measured> {
    match metric {
        Metric::Calls => Some(Measured::Count(|s| Some(&s.calls))),
        Metric::Served => Some(Measured::Count(|s| Some(&s.served))),
        Metric::GaveUp => Some(Measured::Count(|s| Some(&s.gave_up))),
        Metric::StillRetrying => Some(Measured::Count(|s| Some(&s.still_retrying))),
        Metric::DoneAt => Some(Measured::Time(|s| Some(&s.done_at_s), false)),
        Metric::Wasted => Some(Measured::Count(|s| s.wasted.as_ref())),
        Metric::Denied => Some(Measured::Count(|s| s.denied.as_ref())),
        Metric::TimedOut => Some(Measured::Count(|s| s.timed_out.as_ref())),
        Metric::LatencyP50 => Some(Measured::Time(|s| s.latency_p50_s.as_ref(), true)),
        Metric::LatencyP99 => Some(Measured::Time(|s| s.latency_p99_s.as_ref(), true)),
        Metric::Goodput => Some(Measured::Rate(|s| s.goodput_per_s.as_ref())),
        Metric::Recovery => Some(Measured::Time(|s| s.recovery_s.as_ref(), false)),
        Metric::CallsPerClient
        | Metric::FinishedRuns
        | Metric::FailedFast
        | Metric::PushedBack
        | Metric::Hedges
        | Metric::RecoveredRuns
        | Metric::Throttled
        | Metric::PeakRejected => None,
    }
}

/// Whether `s` has a value for `metric`.
fn has(s: &LiveStrategy, metric: Metric) -> bool {
    match measured(metric) {
        None => false,
        Some(Measured::Count(of)) => of(s).is_some(),
        Some(Measured::Time(of, _) | Measured::Rate(of)) => of(s).is_some(),
    }
}

/// The totals live strategies are compared by, in the order tables show them: those of
/// [`Metric::ALL`] a live run measures and the scenario has.
pub fn totals(strategies: &[LiveStrategy]) -> Vec<Metric> {
    Metric::ALL
        .iter()
        .copied()
        .filter(|&m| strategies.iter().any(|s| has(s, m)))
        .collect()
}

/// The count of `metric` for `s`, when it is a count a live run measures.
pub fn count(s: &LiveStrategy, metric: Metric) -> Option<&Count> {
    match measured(metric)? {
        Measured::Count(of) => of(s),
        Measured::Time(..) | Measured::Rate(_) => None,
    }
}

/// A total's three cells for people: simulated (median, with the 5th–95th percentile
/// where runs disagree), live, and the difference, live less median.
/// A total `s` does not have has a cell of "–" on each side.
pub fn cells(s: &LiveStrategy, metric: Metric) -> [String; 3] {
    use crate::format::{per_second_milli, seconds_fixed, thousands};
    let dashes = || ["–", "–", "–"].map(String::from);
    let count = |c: &Count| {
        let spread = Spread {
            median: c.median,
            p5: c.p5,
            p95: c.p95,
        };
        let simulated = Cell::of(&Value::Count { spread, of: None }).text();
        let sign = if c.difference > 0 { "+" } else { "" };
        let difference = if c.difference < 0 {
            format!("−{}", thousands(c.difference.unsigned_abs()))
        } else {
            format!("{sign}{}", thousands(c.difference as u64))
        };
        [simulated, thousands(c.live), difference]
    };
    // A number as the rest of the site writes it, from whole millionths, with its unit.
    let numbers = |t: &Time, write: &dyn Fn(f64) -> String, unit: &str| {
        let simulated = match (t.median, t.p5, t.p95) {
            (Some(m), Some(lo), Some(hi)) if write(lo) != write(hi) => {
                format!("{}{unit} ({}–{}{unit})", write(m), write(lo), write(hi))
            }
            (Some(m), ..) => format!("{}{unit}", write(m)),
            _ => "never".to_string(),
        };
        let live = t
            .live
            .map_or("never".to_string(), |x| format!("{}{unit}", write(x)));
        let difference = match t.difference {
            Some(d) => {
                let text = write(d.abs());
                let zero = text.chars().all(|c| c == '0' || c == '.');
                let sign = match () {
                    _ if zero => "",
                    _ if d < 0.0 => "−",
                    _ => "+",
                };
                format!("{sign}{text}{unit}")
            }
            None => "–".to_string(),
        };
        [simulated, live, difference]
    };
    let millionths = |x: f64| (x.abs() * SECOND as f64).round() as Micros;
    match measured(metric) {
        None => dashes(),
        Some(Measured::Count(of)) => of(s).map_or_else(dashes, count),
        Some(Measured::Time(of, latency)) => of(s).map_or_else(dashes, |t| {
            let decimals = if latency { 3 } else { 1 };
            numbers(t, &|x| seconds_fixed(millionths(x), decimals), " s")
        }),
        // A rate kept per second: its thousandths are its millionths' thousandths.
        Some(Measured::Rate(of)) => of(s).map_or_else(dashes, |t| {
            numbers(t, &|x| per_second_milli(millionths(x) / 1000), "/s")
        }),
    }
}

/// The simulated result of `strategy` in `result`.
pub fn simulated_of(result: &ScenarioResult, strategy: Strategy) -> Option<&StrategyResult> {
    result.strategies.iter().find(|s| s.strategy == strategy)
}

/// The record as JSON, pretty-printed, with a final newline.
pub fn to_json(record: &Record) -> String {
    serde_json::to_string_pretty(record).expect("a record is plain data") + "\n"
}

/// Whether a new record may be written at `path`: its folder exists, and the file does
/// not, or holds a live run (its `format` says so). Anything else is never overwritten.
pub fn check_replaceable(path: &std::path::Path) -> Result<(), String> {
    let name = path.display();
    // Found out before the run, not after a minute of it.
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder.filter(|f| !f.is_dir()) {
        return Err(format!(
            "cannot store the run in {name}: there is no folder {}",
            folder.display()
        ));
    }
    match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot read {name}: {e}")),
        Ok(bytes) => {
            #[derive(Deserialize)]
            struct Format {
                format: String,
            }
            match serde_json::from_slice::<Format>(&bytes) {
                Ok(f) if f.format == FORMAT => Ok(()),
                _ => Err(format!(
                    "{name} exists and holds no live run of retrylab: choose another file for --record, or move it away"
                )),
            }
        }
    }
}

/// Writes `json` to `path` whole: to a file beside it first, then renamed over it, so
/// that an interrupted write never leaves half a record.
pub fn write(path: &std::path::Path, json: &str) -> Result<(), String> {
    let name = path.display();
    let file_name = path
        .file_name()
        .ok_or_else(|| format!("{name} names no file"))?;
    let temporary = path.with_file_name(format!(
        ".{}.writing-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&temporary, json)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("cannot write {name}: {e}")
        })
}

/// Reads a stored record from its JSON `text`; a mistake is described with its line and
/// column in the text.
pub fn parse(text: &str) -> Result<Record, (crate::yaml::Pos, String)> {
    let record: Record = serde_json::from_str(text).map_err(|e| {
        let pos = crate::yaml::Pos {
            line: e.line().max(1),
            column: e.column().max(1),
        };
        // The position is the diagnostic's; serde_json's message repeats it.
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        (pos, format!("this is no live run of retrylab: {message}"))
    })?;
    if record.format != FORMAT {
        return Err((
            crate::yaml::Pos::START,
            format!(
                "this live run is in the format `{}`, which this retrylab does not read (it reads `{FORMAT}`)",
                record.format
            ),
        ));
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strategy(calls: Count, done_at_s: Time) -> LiveStrategy {
        LiveStrategy {
            strategy: Strategy::FullJitter,
            waits: Waits {
                name: "tokio-retry2".to_string(),
                version: "0.9.1".to_string(),
                using: "x".to_string(),
            },
            calls,
            served: calls,
            gave_up: calls,
            still_retrying: calls,
            done_at_s,
            denied: None,
            timed_out: None,
            wasted: None,
            latency_p50_s: None,
            latency_p99_s: None,
            goodput_per_s: None,
            recovery_s: None,
            elapsed_s: 1.0,
            lanes: LiveLanes::default(),
        }
    }

    #[test]
    fn cells_write_counts_and_seconds_as_the_site_does() {
        let band = Spread {
            median: 1_486,
            p5: 1_478,
            p95: 1_495,
        };
        let times = Spread {
            median: 2_250_000,
            p5: 2_200_000,
            p95: 5_400_000,
        };
        let s = strategy(
            Count::new(1_470, &band),
            Time::new(Some(2_600_000), Some(&times)),
        );
        assert_eq!(
            cells(&s, Metric::Calls),
            ["1,486 (1,478–1,495)", "1,470", "−16"].map(String::from)
        );
        // Halves round up, as everywhere on the site: 2.25 s is 2.3 s.
        assert_eq!(
            cells(&s, Metric::DoneAt),
            ["2.3 s (2.2–5.4 s)", "2.6 s", "+0.4 s"].map(String::from)
        );
        let same = strategy(
            Count::new(1_486, &band),
            Time::new(Some(2_240_000), Some(&times)),
        );
        assert_eq!(cells(&same, Metric::Calls)[2], "0");
        assert_eq!(cells(&same, Metric::DoneAt)[2], "0.0 s");
        let never = strategy(Count::new(5, &band), Time::new(None, None));
        assert_eq!(
            cells(&never, Metric::DoneAt),
            ["never", "never", "–"].map(String::from)
        );
    }

    #[test]
    fn a_stored_record_reads_back_as_written_and_a_broken_one_is_placed() {
        let band = Spread {
            median: 3,
            p5: 3,
            p95: 3,
        };
        let record = Record {
            format: FORMAT.to_string(),
            id: "a".to_string(),
            date: "2026-12-01".to_string(),
            scenario: "id: a\nclients: 3\n".to_string(),
            clients: 3,
            arrivals: 0,
            runs: 1,
            machine: Some(machine()),
            server: vec![],
            strategies: vec![strategy(Count::new(3, &band), Time::new(Some(0), None))],
        };
        assert_eq!(parse(&to_json(&record)), Ok(record.clone()));
        let record_json_in_format = |format: &str| {
            to_json(&Record {
                format: format.to_string(),
                ..record.clone()
            })
        };
        let (pos, message) = parse("{\n  \"format\": 1\n}").unwrap_err();
        assert_eq!((pos.line, pos.column), (2, 13));
        assert_eq!(
            message,
            "this is no live run of retrylab: invalid type: integer `1`, expected a string"
        );
        let later = record_json_in_format("retrylab-live/9");
        let (_, message) = parse(&later).unwrap_err();
        assert!(message.contains("`retrylab-live/9`"), "{message}");
    }

    #[test]
    fn the_machine_is_named_by_its_system_processor_and_cores_only() {
        let m = machine();
        assert!(m.ends_with(" cores") || m.ends_with(" core"), "{m}");
        assert!(m.contains(std::env::consts::ARCH), "{m}");
        assert!(!m.contains('/') && !m.contains('\n'), "{m}");
    }
}
