//! What a strategy's results can be quoted by: its totals ([`Metric`]) and which value
//! over the runs ([`Stat`]), by the names the prose uses. Every use matches on them in
//! full, so a new total is one variant here and a compile error wherever it is missing.

use super::stats::{Features, Spread};

/// A total of one strategy over its runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// Served calls per second after the trigger.
    Goodput,
    /// How long after the trigger goodput recovered.
    Recovery,
    /// Runs in which goodput recovered.
    RecoveredRuns,
}

impl Metric {
    /// Every total, in the order the documentation lists them.
    pub const ALL: [Metric; 12] = [
        Metric::Calls,
        Metric::Served,
        Metric::GaveUp,
        Metric::StillRetrying,
        Metric::DoneAt,
        Metric::CallsPerClient,
        Metric::FinishedRuns,
        Metric::FailedFast,
        Metric::Denied,
        Metric::Goodput,
        Metric::Recovery,
        Metric::RecoveredRuns,
    ];

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
            Metric::Goodput => "goodput",
            Metric::Recovery => "recovery",
            Metric::RecoveredRuns => "recovered_runs",
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
            Metric::Goodput => {
                "served calls per second from the end of the trigger to the horizon (with \
                 arrivals)"
            }
            Metric::Recovery => {
                "how long after the trigger goodput was back at the offered load, over all \
                 runs: \"never\" when fewer than half the runs recovered (quote \
                 recovered_runs beside it)"
            }
            Metric::RecoveredRuns => "runs in which goodput recovered",
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
    const COLUMN_ORDER: [Metric; 12] = [
        Metric::Calls,
        Metric::CallsPerClient,
        Metric::Served,
        Metric::GaveUp,
        Metric::StillRetrying,
        Metric::DoneAt,
        Metric::FinishedRuns,
        Metric::Denied,
        Metric::FailedFast,
        Metric::Goodput,
        Metric::Recovery,
        Metric::RecoveredRuns,
    ];

    /// Whether a results table has a column for it: the totals of every scenario, and
    /// those of the features a scenario has. The runs that finished or recovered are
    /// told inside the cell of their time, not in a column of their own.
    pub fn is_column(self, features: Features) -> bool {
        match self {
            Metric::Calls
            | Metric::CallsPerClient
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::DoneAt => true,
            Metric::FinishedRuns | Metric::RecoveredRuns => false,
            Metric::Denied => features.budget,
            Metric::FailedFast => features.breaker,
            Metric::Goodput => features.open,
            Metric::Recovery => features.recovery,
        }
    }

    /// The total of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether it counts clients (or runs), so that a share of them means something.
    pub fn is_share(self) -> bool {
        match self {
            Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::FinishedRuns
            | Metric::Denied
            | Metric::RecoveredRuns => true,
            Metric::Calls
            | Metric::DoneAt
            | Metric::CallsPerClient
            | Metric::FailedFast
            | Metric::Goodput
            | Metric::Recovery => false,
        }
    }

    /// Whether it is a time.
    pub fn is_time(self) -> bool {
        match self {
            Metric::DoneAt | Metric::Recovery => true,
            Metric::Calls
            | Metric::Served
            | Metric::GaveUp
            | Metric::StillRetrying
            | Metric::CallsPerClient
            | Metric::FinishedRuns
            | Metric::FailedFast
            | Metric::Denied
            | Metric::Goodput
            | Metric::RecoveredRuns => false,
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
    fn every_name_reads_back() {
        for metric in Metric::ALL {
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
            layers: true,
        };
        assert_eq!(
            Metric::columns(every)[6..],
            [
                Metric::Denied,
                Metric::FailedFast,
                Metric::Goodput,
                Metric::Recovery,
            ]
        );
    }
}
