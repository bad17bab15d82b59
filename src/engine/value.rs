//! A total's value for one strategy: [`ScenarioResult::value`] is the one place that
//! maps a [`Metric`] to the numbers behind it. The terminal table, the site's tables,
//! the JSON, the prose's references and the sweeps all read a total through it, and
//! write it by the kind of [`Value`] it is, so a new total is one arm here.

use super::metric::Metric;
use super::stats::{ScenarioResult, Spread, StrategyResult};

/// A total of one strategy over its runs, with what it takes to write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Clients, calls or attempts. `of`: the requests a share of it is out of, for a
    /// total that counts clients (see [`Metric::is_share`]); `None` for calls and
    /// attempts, of which a share of the clients means nothing.
    Count {
        /// Over the runs.
        spread: Spread,
        /// The whole of a share.
        of: Option<u64>,
    },
    /// Calls per client: the calls over the runs, over the requests they served.
    PerClient {
        /// Calls over the runs.
        calls: Spread,
        /// Clients and arrivals of a run.
        requests: u64,
    },
    /// A rate, in thousandths per second.
    RateMilli(Spread),
    /// A time in µs, which only some runs may have: `None` ("never") when the engine
    /// gives no spread (see [`super::stats`] for when), `runs_with` of `runs` have one.
    Time {
        /// Over the runs, if any.
        spread: Option<Spread>,
        /// The runs that have a time.
        runs_with: u32,
        /// All runs.
        runs: u32,
        /// A call's latency, written to the millisecond; otherwise to the tenth.
        latency: bool,
    },
    /// A number of runs, out of all.
    Runs {
        /// The runs counted.
        count: u32,
        /// All runs.
        runs: u32,
    },
}

impl ScenarioResult {
    /// The value of `metric` for the strategy `s` of these results.
    pub fn value(&self, s: &StrategyResult, metric: Metric) -> Value {
        let requests = self.requests();
        let runs = self.runs;
        let count = |spread: Spread| Value::Count {
            spread,
            of: metric.is_share().then_some(requests),
        };
        let time = |spread: Option<Spread>, runs_with: u32| Value::Time {
            spread,
            runs_with,
            runs,
            latency: metric.is_latency(),
        };
        let of_runs = |count: u32| Value::Runs { count, runs };
        match metric {
            Metric::Calls => count(s.calls),
            Metric::Served => count(s.served),
            Metric::GaveUp => count(s.gave_up),
            Metric::StillRetrying => count(s.still_retrying),
            Metric::DoneAt => time(s.done_at, s.finished_runs),
            Metric::CallsPerClient => Value::PerClient {
                calls: s.calls,
                requests,
            },
            Metric::FinishedRuns => of_runs(s.finished_runs),
            Metric::FailedFast => count(s.failed_fast),
            Metric::Denied => count(s.denied),
            Metric::PushedBack => count(s.pushed_back),
            Metric::Hedges => count(s.hedges),
            Metric::Goodput => Value::RateMilli(s.goodput_milli),
            Metric::Recovery => time(s.recovery, s.recovered_runs),
            Metric::RecoveredRuns => of_runs(s.recovered_runs),
            Metric::Wasted => count(s.wasted),
            Metric::TimedOut => count(s.timed_out),
            Metric::Throttled => count(s.throttled),
            Metric::LatencyP50 => time(s.latency_p50, s.latency_runs),
            Metric::LatencyP99 => time(s.latency_p99, s.latency_runs),
            Metric::PeakRejected => count(s.peak_rejected),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Scenario, Strategy, run_scenario};

    #[test]
    fn every_total_reads_the_field_of_its_name() {
        let mut scenario = Scenario::with_clients("crowd", 40);
        scenario.strategies = vec![Strategy::Exponential];
        scenario.runs = 3;
        let mut result = run_scenario(&scenario);
        // Tell every field apart, so that a total read from the wrong one shows.
        let s = &mut result.strategies[0];
        let spread = |n: u64| Spread {
            median: n,
            p5: n - 1,
            p95: n + 1,
        };
        s.calls = spread(101);
        s.served = spread(102);
        s.gave_up = spread(103);
        s.still_retrying = spread(104);
        s.done_at = Some(spread(105));
        s.finished_runs = 1;
        s.failed_fast = spread(106);
        s.denied = spread(107);
        s.pushed_back = spread(116);
        s.hedges = spread(117);
        s.goodput_milli = spread(108);
        s.recovered_runs = 2;
        s.recovery = Some(spread(109));
        s.wasted = spread(110);
        s.timed_out = spread(111);
        s.throttled = spread(112);
        s.latency_runs = 3;
        s.latency_p50 = Some(spread(113));
        s.latency_p99 = Some(spread(114));
        s.peak_rejected = spread(115);
        let s = &result.strategies[0];
        let median = |m: Metric| match result.value(s, m) {
            Value::Count { spread, .. } | Value::RateMilli(spread) => spread.median,
            Value::PerClient { calls, .. } => calls.median + 1000,
            Value::Time { spread, .. } => spread.unwrap().median,
            Value::Runs { count, .. } => u64::from(count),
        };
        let medians: Vec<u64> = Metric::ALL.iter().map(|&m| median(m)).collect();
        assert_eq!(
            medians,
            [
                101, 102, 103, 104, 105, 1101, 1, 106, 107, 116, 117, 108, 109, 2, 110, 111, 112,
                113, 114, 115
            ]
        );
        // A share of the clients only of what counts clients; the runs beside a time.
        assert_eq!(
            result.value(s, Metric::Served),
            Value::Count {
                spread: spread(102),
                of: Some(40)
            }
        );
        assert_eq!(
            result.value(s, Metric::Calls),
            Value::Count {
                spread: spread(101),
                of: None
            }
        );
        assert_eq!(
            result.value(s, Metric::LatencyP99),
            Value::Time {
                spread: Some(spread(114)),
                runs_with: 3,
                runs: 3,
                latency: true
            }
        );
        assert_eq!(
            result.value(s, Metric::Recovery),
            Value::Time {
                spread: Some(spread(109)),
                runs_with: 2,
                runs: 3,
                latency: false
            }
        );
    }
}
