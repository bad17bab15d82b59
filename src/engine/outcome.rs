//! What a run gives back: its totals, its per-tick lanes, and the run that holds both.

use serde::{Deserialize, Serialize};

use super::units::Micros;

/// What one run adds up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Totals {
    /// Every call the server saw, served or rejected.
    pub calls: u64,
    /// Clients whose call was served.
    pub served: u64,
    /// Clients that gave up (attempt limit or deadline).
    pub gave_up: u64,
    /// Clients neither served nor given up at the horizon.
    pub still_retrying: u64,
    /// The start of the tick in which the last client finished, when all finished.
    pub done_at: Option<Micros>,
    /// Open-loop requests made (each a client, besides the closed crowd).
    pub arrivals: u64,
    /// Calls that failed fast at an open (or full half-open) breaker.
    pub failed_fast: u64,
    /// Clients that gave up because the retry budget refused a retry (counted in
    /// `gave_up` too).
    pub denied: u64,
    /// Clients whose request ended because a rejection said "don't retry" (the server's
    /// pushback) while they had attempts left (counted in `gave_up` too).
    pub pushed_back: u64,
    /// Served calls per second, in thousandths, from the end of the trigger (or from 0)
    /// to the horizon; with open-loop load only.
    pub goodput_milli: u64,
    /// How long after the trigger goodput was back at the offered load for good; `None`
    /// when it never was, or when the scenario has no trigger (see [`super::recovery`]).
    pub recovery: Option<Micros>,
    /// Calls the server served after their client had stopped waiting (timed out):
    /// work for nobody. Not counted in `served`.
    pub wasted: u64,
    /// Attempts that ended by the client's timeout.
    pub timed_out: u64,
    /// Attempts refused locally by adaptive throttling.
    pub throttled: u64,
    /// The median latency of the calls answered in time, nearest rank; `None` when none
    /// was, or without a queue (see [`super::queue`]).
    pub latency_p50: Option<Micros>,
    /// Their 99th percentile, nearest rank.
    pub latency_p99: Option<Micros>,
    /// The most calls the server turned away in one tick (rejected, not failed fast,
    /// throttled or timed out).
    pub peak_rejected: u64,
    /// Hedges sent: copies of a call after its first (`retry.hedging`, see
    /// [`super::hedge`]), in `calls` too when they reach the server.
    pub hedges: u64,
}

/// Per tick: calls served and calls turned away.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lanes {
    /// Served calls per tick.
    pub served: Vec<u32>,
    /// Rejected calls per tick.
    pub rejected: Vec<u32>,
    /// Calls that failed fast per tick; empty unless the scenario has a breaker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_fast: Vec<u32>,
    /// Calls served after their client stopped waiting, per tick; empty unless the
    /// scenario has a queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wasted: Vec<u32>,
    /// Calls in the queue at the end of each tick; empty unless the scenario has a queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<u32>,
    /// Attempts refused locally by throttling, per tick; empty unless the scenario
    /// throttles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttled: Vec<u32>,
    /// Hedges per tick, among the tick's calls (counted in its served, rejected, failed
    /// fast and other lanes too); empty unless the scenario hedges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hedges: Vec<u32>,
    /// The server's capacity per tick, in thousandths of a call, the replicas' together
    /// (0 while down); empty unless it has a cache, whose warmth moves it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity: Vec<u64>,
    /// Each replica's calls served, wasted and turned away per tick, replica 1 first, for a
    /// server of several; empty for one, or when the replicas' ticks together pass
    /// [`REPLICA_LANES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaLanes>,
}

/// The most ticks of all replicas together that a run keeps each replica's lanes for:
/// 4,000,000 (32 MB, 48 MB with queues), so that 100 replicas keep theirs for 40,000
/// ticks.
pub const REPLICA_LANES: u64 = 4_000_000;

/// One replica's lanes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReplicaLanes {
    /// Calls it served per tick: new ones, and queued ones answered in time.
    pub served: Vec<u32>,
    /// Calls it turned away per tick.
    pub rejected: Vec<u32>,
    /// Queued calls it served after their client had timed out, per tick; empty for a
    /// replica without a queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wasted: Vec<u32>,
}

impl Lanes {
    /// The server's capacity over `ticks` added up, in thousandths of a call (the ticks
    /// past those recorded, and every tick without a cache, count 0): what a chart's
    /// column and a row of its data divide by their ticks.
    pub fn capacity_over(&self, ticks: std::ops::Range<usize>) -> u64 {
        let end = ticks.end.min(self.capacity.len());
        self.capacity
            .get(ticks.start.min(end)..end)
            .unwrap_or(&[])
            .iter()
            .sum()
    }

    /// Records tick `k`: its served, rejected, failed-fast, wasted, queued and throttled
    /// calls, each into its lane when the lane is kept. Not inlined: one copy serves
    /// every kind of run.
    #[inline(never)]
    pub fn record(
        &mut self,
        k: usize,
        [served, rejected, failed_fast, wasted, queued, throttled]: [usize; 6],
    ) {
        self.served[k] = served as u32;
        self.rejected[k] = rejected as u32;
        for (lane, value) in [
            (&mut self.failed_fast, failed_fast),
            (&mut self.wasted, wasted),
            (&mut self.queued, queued),
            (&mut self.throttled, throttled),
        ] {
            if let Some(slot) = lane.get_mut(k) {
                *slot = value as u32;
            }
        }
    }
}

/// The outcome of one run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Run {
    /// The seed it ran with.
    pub seed: u64,
    /// Its totals.
    pub totals: Totals,
    /// Its per-tick lanes, when asked for.
    pub lanes: Option<Lanes>,
    /// Each replica's totals, replica 1 first, for a server of several
    /// ([`super::fleet`]); empty for one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<super::fleet::ReplicaTotals>,
}
