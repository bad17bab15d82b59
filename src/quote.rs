//! The value a reference quotes, written exactly as the prose has it: the one place that
//! turns a scenario's results into the text of `{{ crowd.fixed.calls }}`. The site's
//! build quotes with it, and so does the browser's module when a reader reruns an
//! explorable figure, so that a number the page updates reads as the build wrote it.
//!
//! The build checks a reference against the site's scenarios first (with a "did you
//! mean" for every mistake, in `directive::reference`); the module reads a reference
//! the build has already checked ([`parse`]).

use crate::engine::metric::{Metric, Stat};
use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult, Strategy, StrategyResult};
use crate::format::{
    duration, latency, latency_number, milli, per_client, per_second_milli, percent, seconds,
    seconds_number, thousands,
};

/// The names of the settings a reference can quote, in the order the authors'
/// reference lists them.
pub const SETTING_NAMES: [&str; 16] = [
    "clients",
    "runs",
    "spread",
    "capacity",
    "tick",
    "horizon",
    "rejection_cost",
    "outage",
    "base",
    "cap",
    "multiplier",
    "max_attempts",
    "timeout",
    "queue_limit",
    "arrivals",
    "offered",
];

/// The names of the formats a reference can ask for after `|`.
pub const FORMAT_NAMES: [&str; 4] = ["number", "raw", "percent", "seconds"];

/// What a checked reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A setting of the scenario.
    Setting(&'static str),
    /// A total of one strategy.
    Total {
        /// The lane.
        strategy: Strategy,
        /// The total.
        field: Metric,
        /// Which value over the runs.
        stat: Stat,
    },
}

/// A reference the build has checked, as the page marks it: `crowd.fixed.calls.p95`,
/// `crowd.clients` or `crowd.fixed.served|percent` (the scenario's id first, then the
/// path and the format as the reference names them). The target and the format, or
/// `None` for text that is no such reference of `scenario`.
pub fn parse(text: &str, scenario: &Scenario) -> Option<(Target, Option<&'static str>)> {
    let (path, format) = match text.split_once('|') {
        Some((path, format)) => (path, Some(*FORMAT_NAMES.iter().find(|f| **f == format)?)),
        None => (text, None),
    };
    // The path after the scenario's id.
    let path: Vec<&str> = path.split_once('.')?.1.split('.').collect();
    let target = match path[..] {
        [name] => Target::Setting(SETTING_NAMES.into_iter().find(|s| *s == name)?),
        [lane, field, ref stat @ ..] if stat.len() <= 1 => Target::Total {
            strategy: *scenario.strategies.iter().find(|s| s.name() == lane)?,
            field: Metric::from_name(field)?,
            stat: match stat {
                [name] => Stat::from_name(name)?,
                _ => Stat::Median,
            },
        },
        _ => return None,
    };
    Some((target, format))
}

/// The text `target` quotes in `format`, or `None` when the results have no lane of
/// its strategy.
pub fn value(
    target: &Target,
    format: Option<&str>,
    scenario: &Scenario,
    result: &ScenarioResult,
) -> Option<String> {
    match target {
        Target::Setting(name) => Some(setting(scenario, name, format)),
        Target::Total {
            strategy,
            field,
            stat,
        } => Some(total(
            result.strategy(*strategy)?,
            result,
            *field,
            *stat,
            format,
        )),
    }
}

fn count(n: u64, format: Option<&str>) -> String {
    match format {
        Some("raw") => n.to_string(),
        _ => thousands(n),
    }
}

/// The text of a total of `lane`.
pub(crate) fn total(
    lane: &StrategyResult,
    result: &ScenarioResult,
    field: Metric,
    stat: Stat,
    format: Option<&str>,
) -> String {
    let clients = result.requests();
    let time = |spread: &Option<crate::engine::Spread>| match spread {
        None => "never".to_string(),
        Some(spread) => {
            let us: Micros = stat.of(spread);
            match (format, field.is_latency()) {
                (Some("number" | "raw"), false) => seconds_number(us),
                (Some("number" | "raw"), true) => latency_number(us),
                (_, false) => seconds(us),
                (_, true) => latency(us),
            }
        }
    };
    let runs = |n: u32| match format {
        Some("percent") => percent(u64::from(n), u64::from(result.runs)),
        f => count(u64::from(n), f),
    };
    let clients_or_calls = |spread: &crate::engine::Spread| {
        let n = stat.of(spread);
        match format {
            Some("percent") => percent(n, clients),
            f => count(n, f),
        }
    };
    match field {
        Metric::Recovery => time(&lane.recovery),
        Metric::Goodput => per_second_milli(stat.of(&lane.goodput_milli)),
        Metric::RecoveredRuns => runs(lane.recovered_runs),
        Metric::DoneAt => time(&lane.done_at),
        Metric::CallsPerClient => per_client(stat.of(&lane.calls), clients),
        Metric::FinishedRuns => runs(lane.finished_runs),
        Metric::Calls => clients_or_calls(&lane.calls),
        Metric::Served => clients_or_calls(&lane.served),
        Metric::GaveUp => clients_or_calls(&lane.gave_up),
        Metric::FailedFast => clients_or_calls(&lane.failed_fast),
        Metric::Denied => clients_or_calls(&lane.denied),
        Metric::StillRetrying => clients_or_calls(&lane.still_retrying),
        Metric::Wasted => count(stat.of(&lane.wasted), format),
        Metric::TimedOut => count(stat.of(&lane.timed_out), format),
        Metric::Throttled => count(stat.of(&lane.throttled), format),
        Metric::LatencyP50 => time(&lane.latency_p50),
        Metric::LatencyP99 => time(&lane.latency_p99),
    }
}

/// The text of a setting of `s`.
pub(crate) fn setting(s: &Scenario, name: &str, format: Option<&str>) -> String {
    match name {
        "clients" => count(s.clients, format),
        "runs" => count(u64::from(s.runs), format),
        "capacity" => milli(s.server.capacity_milli),
        "rejection_cost" => milli(s.server.rejection_cost_milli),
        "tick" => duration(s.server.tick),
        "horizon" => duration(s.horizon),
        "spread" => duration(s.spread),
        "outage" => match s.server.outages.first() {
            Some(o) => duration(o.to.saturating_sub(o.from)),
            None => "no outage".to_string(),
        },
        "base" => duration(s.retry.base),
        "cap" => duration(s.retry.cap),
        "multiplier" => format!("{}", s.retry.multiplier),
        "arrivals" => count(s.arrivals_total(), format),
        "offered" => per_second_milli(crate::engine::recovery::offered_milli(s)),
        "timeout" => match s.retry.timeout {
            Some(t) => duration(t),
            None => "no timeout".to_string(),
        },
        "queue_limit" => match s.server.queue.filter(|q| q.limit > 0) {
            Some(q) => count(q.limit, format),
            None => "no queue".to_string(),
        },
        _ => match s.retry.max_attempts {
            Some(m) => count(u64::from(m), format),
            None => "no limit".to_string(),
        },
    }
}
