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
use crate::engine::{ScenarioResult, Spread, Strategy, StrategyResult, Value};

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
    /// The simulated runs the band is taken over.
    pub runs: u32,
    /// The server's software: crate and version of the HTTP server and its runtime.
    pub server: Vec<Software>,
    /// Each strategy, in the scenario's order.
    pub strategies: Vec<LiveStrategy>,
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
    /// How long it took on the wall clock.
    pub elapsed: std::time::Duration,
    /// Served and rejected per tick.
    pub lanes: LiveLanes,
}

/// One strategy's live run beside its simulated result.
pub fn compare(live: &LiveTotals, simulated: &StrategyResult, waits: Waits) -> LiveStrategy {
    LiveStrategy {
        strategy: simulated.strategy,
        waits,
        calls: Count::new(live.calls, &simulated.calls),
        served: Count::new(live.served, &simulated.served),
        gave_up: Count::new(live.gave_up, &simulated.gave_up),
        still_retrying: Count::new(live.still_retrying, &simulated.still_retrying),
        done_at_s: Time::new(live.done_at, simulated.done_at.as_ref()),
        elapsed_s: (live.elapsed.as_millis() as f64) / 1000.0,
        lanes: live.lanes.clone(),
    }
}

/// A total as a live run measures it: a count beside its simulated spread, or the
/// time the last client finished.
#[derive(Clone, Copy)]
enum Measured {
    /// A count of the strategy's.
    Count(fn(&LiveStrategy) -> &Count),
    /// When the last client finished.
    DoneAt,
}

/// How a live run measures `metric`; `None` for a total it does not measure (the
/// guards' and the overload model's, which a live run does not play).
fn measured(metric: Metric) -> Option<Measured> {
    match metric {
        Metric::Calls => Some(Measured::Count(|s| &s.calls)),
        Metric::Served => Some(Measured::Count(|s| &s.served)),
        Metric::GaveUp => Some(Measured::Count(|s| &s.gave_up)),
        Metric::StillRetrying => Some(Measured::Count(|s| &s.still_retrying)),
        Metric::DoneAt => Some(Measured::DoneAt),
        Metric::CallsPerClient
        | Metric::FinishedRuns
        | Metric::FailedFast
        | Metric::Denied
        | Metric::Goodput
        | Metric::Recovery
        | Metric::RecoveredRuns
        | Metric::Wasted
        | Metric::TimedOut
        | Metric::Throttled
        | Metric::LatencyP50
        | Metric::LatencyP99
        | Metric::PeakRejected => None,
    }
}

/// The totals a live strategy is compared by, in the order tables show them: those of
/// [`Metric::ALL`] a live run measures.
pub fn totals() -> Vec<Metric> {
    Metric::ALL
        .iter()
        .copied()
        .filter(|&m| measured(m).is_some())
        .collect()
}

/// The count of `metric` for `s`, when it is a count a live run measures.
pub fn count(s: &LiveStrategy, metric: Metric) -> Option<&Count> {
    match measured(metric)? {
        Measured::Count(of) => Some(of(s)),
        Measured::DoneAt => None,
    }
}

/// A total's three cells for people: simulated (median, with the 5th–95th percentile
/// where runs disagree), live, and the difference, live less median.
/// `metric` is one of [`totals`]; another has a cell of "–" on each side.
pub fn cells(s: &LiveStrategy, metric: Metric) -> [String; 3] {
    use crate::format::{seconds_number, thousands};
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
    match measured(metric) {
        None => ["–", "–", "–"].map(String::from),
        Some(Measured::Count(of)) => count(of(s)),
        Some(Measured::DoneAt) => {
            let t = &s.done_at_s;
            // Seconds as the rest of the site writes them, from whole microseconds.
            let secs = |x: f64| seconds_number((x.abs() * SECOND as f64).round() as Micros);
            let simulated = match (t.median, t.p5, t.p95) {
                (Some(m), Some(lo), Some(hi)) if lo != hi => {
                    format!("{} s ({}–{} s)", secs(m), secs(lo), secs(hi))
                }
                (Some(m), ..) => format!("{} s", secs(m)),
                _ => "never".to_string(),
            };
            let live = t
                .live
                .map_or("never".to_string(), |x| format!("{} s", secs(x)));
            let difference = match t.difference {
                Some(d) => {
                    let text = secs(d);
                    let zero = text.chars().all(|c| c == '0' || c == '.');
                    let sign = match () {
                        _ if zero => "",
                        _ if d < 0.0 => "−",
                        _ => "+",
                    };
                    format!("{sign}{text} s")
                }
                None => "–".to_string(),
            };
            [simulated, live, difference]
        }
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
            runs: 1,
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
}
