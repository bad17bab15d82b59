//! What a strategy's results can be quoted by: its totals ([`Metric`]) and which value
//! over the runs ([`Stat`]), by the names the prose uses. Every use matches on them in
//! full, so a new total is one variant here and a compile error wherever it is missing.

use strum::VariantArray;

use super::stats::{Features, Spread};

/// A total of one strategy over its runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, VariantArray)]
pub enum Metric {
    /// Calls the server saw.
    Calls,
    /// Clients served.
    Served,
    /// Clients that gave up.
    GaveUp,
    /// Clients still retrying at the horizon.
    StillRetrying,
    /// When the last client finished.
    DoneAt,
    /// Calls per client (amplification).
    CallsPerClient,
    /// Runs in which every client finished.
    FinishedRuns,
    /// Calls that failed fast at the breaker.
    FailedFast,
    /// Clients that gave up because the budget refused a retry.
    Denied,
    /// Clients whose request ended because the server said "don't retry".
    PushedBack,
    /// Hedges sent: copies of a call after its first.
    Hedges,
    /// Served calls per second after the trigger.
    Goodput,
    /// How long after the trigger goodput recovered.
    Recovery,
    /// Runs in which goodput recovered.
    RecoveredRuns,
    /// Calls served after their client had stopped waiting.
    Wasted,
    /// Attempts that ended by the client's timeout.
    TimedOut,
    /// Attempts refused locally by adaptive throttling.
    Throttled,
    /// The median latency of the calls answered in time.
    LatencyP50,
    /// The 99th percentile latency of the calls answered in time.
    LatencyP99,
    /// The most calls turned away in one tick.
    PeakRejected,
}

impl Metric {
    /// Every total, in the order the documentation lists them: the order of the
    /// variants, which the compiler keeps complete.
    pub const ALL: &'static [Metric] = Metric::VARIANTS;

    /// The name prose and directives use.
    pub const fn name(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::Served => "served",
            Metric::GaveUp => "gave_up",
            Metric::StillRetrying => "still_retrying",
            Metric::DoneAt => "done_at",
            Metric::CallsPerClient => "calls_per_client",
            Metric::FinishedRuns => "finished_runs",
            Metric::FailedFast => "failed_fast",
            Metric::Denied => "denied",
            Metric::PushedBack => "pushed_back",
            Metric::Hedges => "hedges",
            Metric::Goodput => "goodput",
            Metric::Recovery => "recovery",
            Metric::RecoveredRuns => "recovered_runs",
            Metric::Wasted => "wasted",
            Metric::TimedOut => "timed_out",
            Metric::Throttled => "throttled",
            Metric::LatencyP50 => "latency_p50",
            Metric::LatencyP99 => "latency_p99",
            Metric::PeakRejected => "peak_rejected",
        }
    }

    /// What it means, for the authors' reference.
    pub const fn meaning(self) -> &'static str {
        match self {
            Metric::Calls => "calls the server saw",
            Metric::Served => "clients served",
            Metric::GaveUp => "clients that gave up",
            Metric::StillRetrying => "clients still retrying at the horizon",
            Metric::DoneAt => {
                "when the last client finished, over all runs: \"never\" when fewer than \
                 half the runs finished (quote finished_runs beside it)"
            }
            Metric::CallsPerClient => "calls per client (amplification)",
            Metric::FinishedRuns => "runs in which every client finished",
            Metric::FailedFast => {
                "calls that failed fast at the circuit breaker, never reaching the server"
            }
            Metric::Denied => "clients that gave up because the retry budget refused a retry",
            Metric::PushedBack => {
                "clients whose request ended, in every layer, because a rejection carried the \
                 server's pushback \"don't retry\" while they had attempts left (with pushback)"
            }
            Metric::Hedges => {
                "hedges sent: copies of a call after its first, in calls too when they reach \
                 the server (with hedging)"
            }
            Metric::Goodput => {
                "calls answered in time per second from the end of the trigger (the last \
                 outage or slowdown) to the horizon (with arrivals)"
            }
            Metric::Recovery => {
                "how long after the trigger goodput was back at the offered load, over all \
                 runs: \"never\" when fewer than half the runs recovered (quote \
                 recovered_runs beside it)"
            }
            Metric::RecoveredRuns => "runs in which goodput recovered",
            Metric::Wasted => {
                "calls the server served after their client had timed out, or after another \
                 copy of a hedged call was answered: work for nobody, not counted in served \
                 (with a timeout or hedging)"
            }
            Metric::TimedOut => "attempts that ended by the client's timeout (with a timeout)",
            Metric::Throttled => {
                "attempts refused by the client's adaptive throttling, never reaching the \
                 server (with a throttle)"
            }
            Metric::LatencyP50 => {
                "the median latency of a run's calls answered in time (from the send to the \
                 end of the tick that served it), over the runs that answered one: \"never\" \
                 when none did"
            }
            Metric::LatencyP99 => {
                "the 99th percentile latency of a run's calls answered in time, over the runs \
                 that answered one: \"never\" when none did"
            }
            Metric::PeakRejected => {
                "the most calls the server turned away in one tick of a run (rejected, not \
                 failed fast or throttled): equal to the clients when, in some tick, every \
                 client was turned away together"
            }
        }
    }

    /// The columns of a results table (the site's and `retrylab sim`'s), in order: the
    /// totals [`Metric::is_column`] keeps for a scenario with `features`.
    pub fn columns(features: Features) -> Vec<Metric> {
        Metric::COLUMN_ORDER
            .into_iter()
            .filter(|m| m.is_column(features))
            .collect()
    }

    /// The order of a results table's columns.
    const COLUMN_ORDER: [Metric; 20] = [
        Metric::Calls,
        Metric::CallsPerClient,
        Metric::Served,
        Metric::GaveUp,
        Metric::StillRetrying,
        Metric::DoneAt,
        Metric::FinishedRuns,
        Metric::Denied,
        Metric::PushedBack,
        Metric::Hedges,
        Metric::FailedFast,
        Metric::Throttled,
        Metric::TimedOut,
        Metric::Wasted,
        Metric::LatencyP50,
        Metric::LatencyP99,
        Metric::Goodput,
        Metric::Recovery,
        Metric::RecoveredRuns,
        Metric::PeakRejected,
    ];

    /// Whether a results table has a column for it: the totals of every scenario, and
    /// those of the features a scenario has. The runs that finished or recovered are
    /// told inside the cell of their time, not in a column of their own. Latency means
    /// something in every scenario, but only a queue makes it more than a tick: it has
    /// columns with a queue only, so that the tables of every other scenario stay as
    /// they are (the JSON of `retrylab sim` always has it).
    pub fn is_column(self, features: Features) -> bool {
        match self {
            Metric::Calls
            | Metric::CallsPerClient
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::DoneAt => true,
            // The per-tick tables under each chart show it tick by tick.
            Metric::FinishedRuns | Metric::RecoveredRuns | Metric::PeakRejected => false,
            Metric::Denied => features.budget,
            Metric::PushedBack => features.pushback,
            Metric::Hedges => features.hedging,
            Metric::FailedFast => features.breaker,
            Metric::Goodput => features.open,
            Metric::Recovery => features.recovery,
            // Only a client that stops waiting leaves a call to be served for nobody, or
            // one whose request another copy answered.
            Metric::TimedOut => features.timeout,
            Metric::Wasted => features.timeout || features.hedging,
            Metric::Throttled => features.throttle,
            Metric::LatencyP50 | Metric::LatencyP99 => features.queue,
        }
    }

    /// The total of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// Whether a sweep can chart it as a line. The runs that finished or recovered are
    /// told beside their time, not drawn; the guards' counts are not charted.
    pub const fn is_chartable(self) -> bool {
        match self {
            Metric::Calls
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::DoneAt
            | Metric::CallsPerClient
            | Metric::Goodput
            | Metric::Recovery
            | Metric::Wasted
            | Metric::TimedOut
            | Metric::Throttled
            | Metric::LatencyP50
            | Metric::LatencyP99
            | Metric::Hedges
            | Metric::PeakRejected => true,
            Metric::FinishedRuns
            | Metric::FailedFast
            | Metric::Denied
            | Metric::PushedBack
            | Metric::RecoveredRuns => false,
        }
    }

    /// Whether it counts clients (or runs), so that a share of them means something.
    pub fn is_share(self) -> bool {
        match self {
            Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::FinishedRuns
            | Metric::Denied
            | Metric::PushedBack
            | Metric::RecoveredRuns => true,
            Metric::Calls
            | Metric::DoneAt
            | Metric::CallsPerClient
            | Metric::FailedFast
            | Metric::Hedges
            | Metric::Goodput
            | Metric::Recovery
            | Metric::Wasted
            | Metric::TimedOut
            | Metric::Throttled
            | Metric::LatencyP50
            | Metric::LatencyP99
            | Metric::PeakRejected => false,
        }
    }

    /// Whether it is a time (in µs, quoted in seconds).
    pub fn is_time(self) -> bool {
        match self {
            Metric::DoneAt | Metric::Recovery | Metric::LatencyP50 | Metric::LatencyP99 => true,
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
            | Metric::Goodput
            | Metric::RecoveredRuns
            | Metric::Wasted
            | Metric::TimedOut
            | Metric::Throttled
            | Metric::PeakRejected => false,
        }
    }

    /// Whether it is a latency, which is written to the millisecond (see
    /// [`crate::format::latency`]): a call's latency is often well under a second.
    pub fn is_latency(self) -> bool {
        match self {
            Metric::LatencyP50 | Metric::LatencyP99 => true,
            Metric::Calls
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::DoneAt
            | Metric::CallsPerClient
            | Metric::FinishedRuns
            | Metric::FailedFast
            | Metric::Denied
            | Metric::PushedBack
            | Metric::Hedges
            | Metric::Goodput
            | Metric::Recovery
            | Metric::RecoveredRuns
            | Metric::Wasted
            | Metric::TimedOut
            | Metric::Throttled
            | Metric::PeakRejected => false,
        }
    }
}

/// Which value over the runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stat {
    /// The 50th percentile.
    Median,
    /// The 5th percentile.
    P5,
    /// The 95th percentile.
    P95,
}

impl Stat {
    /// Every statistic, the default first.
    pub const ALL: [Stat; 3] = [Stat::Median, Stat::P5, Stat::P95];

    /// The name prose uses.
    pub const fn name(self) -> &'static str {
        match self {
            Stat::Median => "median",
            Stat::P5 => "p5",
            Stat::P95 => "p95",
        }
    }

    /// The statistic of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Stat> {
        Stat::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Its value in `spread`.
    pub fn of(self, spread: &Spread) -> u64 {
        match self {
            Stat::Median => spread.median,
            Stat::P5 => spread.p5,
            Stat::P95 => spread.p95,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overload_totals_have_their_names_and_units() {
        let names: Vec<&str> = Metric::ALL[14..19].iter().map(|m| m.name()).collect();
        assert_eq!(
            names,
            [
                "wasted",
                "timed_out",
                "throttled",
                "latency_p50",
                "latency_p99"
            ]
        );
        for &metric in Metric::ALL {
            assert!(!metric.meaning().is_empty(), "{metric:?}");
            // A latency is a time; only a latency is written to the millisecond.
            assert!(!metric.is_latency() || metric.is_time(), "{metric:?}");
        }
        assert!(Metric::LatencyP99.is_latency() && !Metric::DoneAt.is_latency());
        for counted in [
            Metric::Wasted,
            Metric::TimedOut,
            Metric::Throttled,
            Metric::PeakRejected,
        ] {
            // Calls and attempts, not clients: a share of the clients means nothing.
            assert!(!counted.is_share() && !counted.is_time(), "{counted:?}");
        }
    }

    #[test]
    fn every_name_reads_back() {
        for &metric in Metric::ALL {
            assert_eq!(Metric::from_name(metric.name()), Some(metric));
        }
        for stat in Stat::ALL {
            assert_eq!(Stat::from_name(stat.name()), Some(stat));
        }
        assert_eq!(Metric::from_name("calls "), None);
        assert_eq!(Stat::from_name("p50"), None);
    }

    #[test]
    fn a_results_table_has_a_column_per_total_of_its_features() {
        let mut sorted = Metric::COLUMN_ORDER.to_vec();
        sorted.sort_by_key(|m| m.name());
        let mut all = Metric::ALL.to_vec();
        all.sort_by_key(|m| m.name());
        assert_eq!(sorted, all, "every total has its place in the column order");
        let plain = Features::default();
        assert_eq!(
            Metric::columns(plain),
            [
                Metric::Calls,
                Metric::CallsPerClient,
                Metric::Served,
                Metric::GaveUp,
                Metric::StillRetrying,
                Metric::DoneAt,
            ]
        );
        let every = Features {
            open: true,
            recovery: true,
            budget: true,
            breaker: true,
            pushback: true,
            hedging: true,
            layers: true,
            queue: true,
            timeout: true,
            throttle: true,
        };
        assert_eq!(
            Metric::columns(every)[6..],
            [
                Metric::Denied,
                Metric::PushedBack,
                Metric::Hedges,
                Metric::FailedFast,
                Metric::Throttled,
                Metric::TimedOut,
                Metric::Wasted,
                Metric::LatencyP50,
                Metric::LatencyP99,
                Metric::Goodput,
                Metric::Recovery,
            ]
        );
        // Each feature of the overload model brings its own columns, and only those.
        let only = |f: fn(&mut Features)| {
            let mut features = Features::default();
            f(&mut features);
            Metric::columns(features)[6..].to_vec()
        };
        assert_eq!(
            only(|f| f.queue = true),
            [Metric::LatencyP50, Metric::LatencyP99]
        );
        assert_eq!(
            only(|f| f.timeout = true),
            [Metric::TimedOut, Metric::Wasted]
        );
        assert_eq!(only(|f| f.throttle = true), [Metric::Throttled]);
    }
}
