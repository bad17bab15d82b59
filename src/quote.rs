//! The value a reference quotes, written exactly as the prose has it: the one place that
//! turns a scenario's results into the text of `{{ crowd.fixed.calls }}`. The site's
//! build quotes with it, and so does the browser's module when a reader reruns an
//! explorable figure, so that a number the page updates reads as the build wrote it.
//!
//! The build checks a reference against the site's scenarios first (with a "did you
//! mean" for every mistake, in `directive::reference`); the module reads a reference
//! the build has already checked ([`parse`]).

use strum::VariantArray;

use crate::engine::metric::{Metric, Stat};
use crate::engine::{Scenario, ScenarioResult, Strategy, StrategyResult, Value};
use crate::format::{
    duration, latency, latency_number, milli, per_client, per_second_milli, percent, seconds,
    seconds_number, thousands,
};

/// A setting of a scenario that a reference can quote, in the order the authors'
/// reference lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, VariantArray)]
pub enum Setting {
    /// Clients in the crowd.
    Clients,
    /// Monte Carlo runs.
    Runs,
    /// The window of first calls.
    Spread,
    /// Calls served per tick.
    Capacity,
    /// The tick length.
    Tick,
    /// How long the simulation runs.
    Horizon,
    /// The cost of a rejection.
    RejectionCost,
    /// The length of the first outage.
    Outage,
    /// The first wait.
    Base,
    /// The longest wait.
    Cap,
    /// The growth of the ceiling.
    Multiplier,
    /// Calls per client at most.
    MaxAttempts,
    /// The per-attempt timeout.
    Timeout,
    /// The most calls the queue holds.
    QueueLimit,
    /// The delay of hedged calls.
    HedgeDelay,
    /// Open-loop requests per run.
    Arrivals,
    /// Open-loop requests per second after the trigger.
    Offered,
}

impl Setting {
    /// Every setting, in the order of the variants.
    pub const ALL: &'static [Setting] = Setting::VARIANTS;

    /// The name a reference uses.
    pub const fn name(self) -> &'static str {
        match self {
            Setting::Clients => "clients",
            Setting::Runs => "runs",
            Setting::Spread => "spread",
            Setting::Capacity => "capacity",
            Setting::Tick => "tick",
            Setting::Horizon => "horizon",
            Setting::RejectionCost => "rejection_cost",
            Setting::Outage => "outage",
            Setting::Base => "base",
            Setting::Cap => "cap",
            Setting::Multiplier => "multiplier",
            Setting::MaxAttempts => "max_attempts",
            Setting::Timeout => "timeout",
            Setting::QueueLimit => "queue_limit",
            Setting::HedgeDelay => "hedge_delay",
            Setting::Arrivals => "arrivals",
            Setting::Offered => "offered",
        }
    }

    /// What it means, for the authors' reference.
    pub const fn meaning(self) -> &'static str {
        match self {
            Setting::Clients => "clients in the crowd",
            Setting::Runs => "Monte Carlo runs",
            Setting::Spread => "the window of first calls",
            Setting::Capacity => {
                "calls the server serves per tick (with a cache, every call a miss)"
            }
            Setting::Tick => "the tick length",
            Setting::Horizon => "how long the simulation runs",
            Setting::RejectionCost => "the cost of a rejection",
            Setting::Outage => "the length of the first outage (\"no outage\" without one)",
            Setting::Base => "the first wait",
            Setting::Cap => "the longest wait",
            Setting::Multiplier => "the growth of the ceiling",
            Setting::MaxAttempts => "calls per client at most",
            Setting::Timeout => "the per-attempt timeout (\"no timeout\" without one)",
            Setting::QueueLimit => {
                "the most calls the server's queue holds (\"no queue\" without one; of a \
                 fleet, `server.queue`'s, not a replica's own from its override)"
            }
            Setting::HedgeDelay => {
                "the delay of hedged calls, `retry.hedging.delay` (\"no hedging\" without it)"
            }
            Setting::Arrivals => {
                "open-loop requests per run (with a Poisson window, its mean, rounded up)"
            }
            Setting::Offered => {
                "open-loop requests per second from the end of the trigger to the horizon"
            }
        }
    }

    /// The setting of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Setting> {
        Setting::ALL.iter().copied().find(|s| s.name() == name)
    }
}

/// How a reference asks for its value to be written, after `|`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, VariantArray)]
pub enum Format {
    /// Thousands separators, or seconds without the unit.
    Number,
    /// Digits only.
    Raw,
    /// A share of the clients and arrivals, or of the runs.
    Percent,
    /// Seconds with the unit.
    Seconds,
}

impl Format {
    /// Every format, in the order of the variants.
    pub const ALL: &'static [Format] = Format::VARIANTS;

    /// The name a reference uses.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Number => "number",
            Format::Raw => "raw",
            Format::Percent => "percent",
            Format::Seconds => "seconds",
        }
    }

    /// What it gives, for the authors' reference.
    pub const fn meaning(self) -> &'static str {
        match self {
            Format::Number => {
                "thousands separators (counts), or seconds without the unit (done_at, \
                 recovery, latency_p50, latency_p99)"
            }
            Format::Raw => "digits only",
            Format::Percent => {
                "a share of the clients and arrivals (or of the runs, for finished_runs and \
                 recovered_runs)"
            }
            Format::Seconds => {
                "seconds with the unit: one decimal for done_at and recovery (42.7 s), three \
                 for latency_p50 and latency_p99 (0.250 s)"
            }
        }
    }

    /// The format of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Whether it can write what `target` quotes: a share only of what counts clients or
    /// runs, seconds only of a time, neither of a setting.
    pub fn fits(self, target: &Target) -> bool {
        match (self, target) {
            (Format::Number | Format::Raw, _) => true,
            (Format::Percent, Target::Total { field, .. }) => field.is_share(),
            (Format::Seconds, Target::Total { field, .. }) => field.is_time(),
            (Format::Percent | Format::Seconds, Target::Setting(_)) => false,
        }
    }
}

/// What a checked reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A setting of the scenario.
    Setting(Setting),
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
pub fn parse(text: &str, scenario: &Scenario) -> Option<(Target, Option<Format>)> {
    let (path, format) = match text.split_once('|') {
        Some((path, format)) => (path, Some(Format::from_name(format)?)),
        None => (text, None),
    };
    // The path after the scenario's id.
    let path: Vec<&str> = path.split_once('.')?.1.split('.').collect();
    let target = match path[..] {
        [name] => Target::Setting(Setting::from_name(name)?),
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

/// What a scenario lacks for a total or setting to mean anything: without it, the
/// quote would be a zero (or "never") that no run measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lack {
    /// Open-loop arrivals: goodput, offered, arrivals.
    Arrivals,
    /// An outage or slowdown to recover from, with arrivals: recovery.
    Trigger,
    /// A retry budget for the lane: denied.
    Budget,
    /// A circuit breaker: failed fast.
    Breaker,
    /// A per-attempt timeout: timed out, wasted.
    Timeout,
    /// Adaptive throttling: throttled.
    Throttle,
    /// The server's pushback: pushed back.
    Pushback,
    /// Hedging: hedges.
    Hedging,
}

/// What `scenario` lacks for `target` to mean anything, if it lacks something (see
/// [`Lack`]). The build refuses such a reference; a rerun in the browser quotes none.
pub fn lacks(scenario: &Scenario, target: &Target) -> Option<Lack> {
    let no_arrivals = scenario.arrivals.is_empty();
    let retry = &scenario.retry;
    let lack = match *target {
        Target::Setting(Setting::Offered | Setting::Arrivals) => Lack::Arrivals,
        Target::Setting(_) => return None,
        Target::Total {
            strategy, field, ..
        } => match field {
            Metric::Goodput => Lack::Arrivals,
            Metric::Recovery | Metric::RecoveredRuns if no_arrivals => Lack::Arrivals,
            Metric::Recovery | Metric::RecoveredRuns => Lack::Trigger,
            Metric::Denied if scenario.lane(strategy).retry.budget.is_none() => Lack::Budget,
            Metric::FailedFast if retry.breaker.is_none() => Lack::Breaker,
            Metric::TimedOut if retry.timeout.is_none() => Lack::Timeout,
            // Hedging wastes the answers of the copies that lost.
            Metric::Wasted if retry.timeout.is_none() && retry.hedging.is_none() => Lack::Timeout,
            Metric::Hedges if retry.hedging.is_none() => Lack::Hedging,
            Metric::Throttled if retry.throttle.is_none() => Lack::Throttle,
            Metric::PushedBack if scenario.server.pushback.is_none_or(|p| p.after.is_some()) => {
                Lack::Pushback
            }
            _ => return None,
        },
    };
    let has = match lack {
        Lack::Arrivals => !no_arrivals,
        Lack::Trigger => scenario.trigger_end().is_some(),
        _ => false,
    };
    (!has).then_some(lack)
}

/// The text `target` quotes in `format`, or `None` when the results have no lane of
/// its strategy or the scenario lacks what the total needs ([`lacks`]).
pub fn value(
    target: &Target,
    format: Option<Format>,
    scenario: &Scenario,
    result: &ScenarioResult,
) -> Option<String> {
    if lacks(scenario, target).is_some() {
        return None;
    }
    match target {
        Target::Setting(name) => Some(setting(scenario, *name, format)),
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

fn count(n: u64, format: Option<Format>) -> String {
    match format {
        Some(Format::Raw) => n.to_string(),
        _ => thousands(n),
    }
}

/// The text of a total of `lane`: its [`Value`] as `format` writes it.
pub(crate) fn total(
    lane: &StrategyResult,
    result: &ScenarioResult,
    field: Metric,
    stat: Stat,
    format: Option<Format>,
) -> String {
    match result.value(lane, field) {
        Value::Count { spread, of } => match (format, of) {
            (Some(Format::Percent), Some(whole)) => percent(stat.of(&spread), whole),
            _ => count(stat.of(&spread), format),
        },
        Value::PerClient { calls, requests } => per_client(stat.of(&calls), requests),
        Value::RateMilli(spread) => per_second_milli(stat.of(&spread)),
        Value::Runs { count: n, runs } => match format {
            Some(Format::Percent) => percent(u64::from(n), u64::from(runs)),
            f => count(u64::from(n), f),
        },
        Value::Time { spread: None, .. } => "never".to_string(),
        Value::Time {
            spread: Some(spread),
            latency: is_latency,
            ..
        } => {
            let us = stat.of(&spread);
            match (format, is_latency) {
                (Some(Format::Number | Format::Raw), false) => seconds_number(us),
                (Some(Format::Number | Format::Raw), true) => latency_number(us),
                (_, false) => seconds(us),
                (_, true) => latency(us),
            }
        }
    }
}

/// The text of a setting of `s`.
pub(crate) fn setting(s: &Scenario, name: Setting, format: Option<Format>) -> String {
    match name {
        Setting::Clients => count(s.clients, format),
        Setting::Runs => count(u64::from(s.runs), format),
        Setting::Capacity => milli(s.server.capacity_milli),
        Setting::RejectionCost => milli(s.server.rejection_cost_milli),
        Setting::Tick => duration(s.server.tick),
        Setting::Horizon => duration(s.horizon),
        Setting::Spread => duration(s.spread),
        Setting::Outage => match s.server.outages.first() {
            Some(o) => duration(o.to.saturating_sub(o.from)),
            None => "no outage".to_string(),
        },
        Setting::Base => duration(s.retry.base),
        Setting::Cap => duration(s.retry.cap),
        Setting::Multiplier => format!("{}", s.retry.multiplier),
        Setting::Arrivals => count(s.arrivals_total(), format),
        Setting::Offered => per_second_milli(crate::engine::recovery::offered_milli(s)),
        Setting::Timeout => match s.retry.timeout {
            Some(t) => duration(t),
            None => "no timeout".to_string(),
        },
        Setting::QueueLimit => match s.server.queue.filter(|q| q.limit > 0) {
            Some(q) => count(q.limit, format),
            None => "no queue".to_string(),
        },
        Setting::HedgeDelay => match s.retry.hedging {
            Some(h) => duration(h.delay),
            None => "no hedging".to_string(),
        },
        Setting::MaxAttempts => match s.retry.max_attempts {
            Some(m) => count(u64::from(m), format),
            None => "no limit".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{parse_scenario, run_scenario};

    fn scenario(yaml: &str) -> Scenario {
        parse_scenario(yaml, Some("s")).unwrap()
    }

    fn total(strategy: Strategy, field: Metric) -> Target {
        Target::Total {
            strategy,
            field,
            stat: Stat::Median,
        }
    }

    #[test]
    fn a_total_needs_what_measures_it() {
        let closed = scenario("clients: 10\nstrategies: [fixed, aws-standard]\nruns: 2\n");
        let lacks = |field| lacks(&closed, &total(Strategy::Fixed, field));
        assert_eq!(lacks(Metric::Goodput), Some(Lack::Arrivals));
        assert_eq!(lacks(Metric::Recovery), Some(Lack::Arrivals));
        assert_eq!(lacks(Metric::RecoveredRuns), Some(Lack::Arrivals));
        assert_eq!(lacks(Metric::Denied), Some(Lack::Budget));
        assert_eq!(lacks(Metric::FailedFast), Some(Lack::Breaker));
        assert_eq!(lacks(Metric::TimedOut), Some(Lack::Timeout));
        assert_eq!(lacks(Metric::Wasted), Some(Lack::Timeout));
        assert_eq!(lacks(Metric::Throttled), Some(Lack::Throttle));
        assert_eq!(lacks(Metric::PushedBack), Some(Lack::Pushback));
        // "Retry after" ends no request: there is nothing to count.
        let after = scenario(
            "clients: 10\nserver: {pushback: {after: 1s}}\nstrategies: [fixed]\nruns: 2\n",
        );
        let pushed = total(Strategy::Fixed, Metric::PushedBack);
        assert_eq!(super::lacks(&after, &pushed), Some(Lack::Pushback));
        let dont = scenario("clients: 10\nserver: {pushback: {}}\nstrategies: [fixed]\nruns: 2\n");
        assert_eq!(super::lacks(&dont, &pushed), None);
        for field in [Metric::Calls, Metric::DoneAt, Metric::LatencyP99] {
            assert_eq!(lacks(field), None, "{field:?}");
        }
        // botocore's lane brings its own budget.
        let aws = total(Strategy::AwsStandard, Metric::Denied);
        assert_eq!(super::lacks(&closed, &aws), None);
        let offered = Target::Setting(Setting::Offered);
        assert_eq!(super::lacks(&closed, &offered), Some(Lack::Arrivals));
        // The browser's rerun quotes nothing where the build would refuse.
        let result = run_scenario(&closed);
        let goodput = total(Strategy::Fixed, Metric::Goodput);
        assert_eq!(value(&goodput, None, &closed, &result), None);
        let calls = total(Strategy::Fixed, Metric::Calls);
        assert!(value(&calls, None, &closed, &result).is_some());

        // Arrivals without a trigger: goodput, but no recovery.
        let open = scenario(
            "clients: 0\narrivals: {rate: 5, from: 0s, to: 5s}\nhorizon: 20s\n\
             strategies: [fixed]\nruns: 2\n",
        );
        let lacks = |field| super::lacks(&open, &total(Strategy::Fixed, field));
        assert_eq!(lacks(Metric::Goodput), None);
        assert_eq!(lacks(Metric::Recovery), Some(Lack::Trigger));
        assert_eq!(super::lacks(&open, &offered), None);
    }
}
