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

/// A run's totals as 64-bit words, and back: how the browser's workers hand the runs
/// of a scenario to the page that summarises them ([`super::stats::run_jobs`]). A time
/// takes two words, 1 and the time or 0 and 0 for none; the lanes are left out (the
/// typical run is run again with them, as for any run of several).
impl Run {
    /// The words of a run's totals.
    const TOTALS: usize = 23;
    /// The words of a replica's totals.
    const REPLICA: usize = 11;

    /// Appends the run without its lanes: its seed and totals field by field, the
    /// number of its replicas, then each replica's totals.
    pub fn put_words(&self, words: &mut Vec<u64>) {
        let time = |t: Option<Micros>| [u64::from(t.is_some()), t.unwrap_or(0)];
        // Destructured, so that a field added to either struct cannot be forgotten here.
        let Totals {
            calls,
            served,
            gave_up,
            still_retrying,
            done_at,
            arrivals,
            failed_fast,
            denied,
            pushed_back,
            goodput_milli,
            recovery,
            wasted,
            timed_out,
            throttled,
            latency_p50,
            latency_p99,
            peak_rejected,
            hedges,
        } = self.totals;
        let [done, done_at] = time(done_at);
        let [recovered, recovery] = time(recovery);
        let [p50s, p50] = time(latency_p50);
        let [p99s, p99] = time(latency_p99);
        let totals: [u64; Self::TOTALS] = [
            self.seed,
            calls,
            served,
            gave_up,
            still_retrying,
            done,
            done_at,
            arrivals,
            failed_fast,
            denied,
            pushed_back,
            goodput_milli,
            recovered,
            recovery,
            wasted,
            timed_out,
            throttled,
            p50s,
            p50,
            p99s,
            p99,
            peak_rejected,
            hedges,
        ];
        words.extend_from_slice(&totals);
        words.push(self.replicas.len() as u64);
        for replica in &self.replicas {
            let super::fleet::ReplicaTotals {
                calls,
                served,
                rejected,
                wasted,
                timed_out,
                dropped,
                queued,
                latency_p50,
                latency_p99,
            } = *replica;
            let [p50s, p50] = time(latency_p50);
            let [p99s, p99] = time(latency_p99);
            let totals: [u64; Self::REPLICA] = [
                calls, served, rejected, wasted, timed_out, dropped, queued, p50s, p50, p99s, p99,
            ];
            words.extend_from_slice(&totals);
        }
    }

    /// Takes a run written by [`Run::put_words`] from the front of `words`, and the
    /// words after it; `None` when they end before it does or hold a time that is
    /// neither 0 nor 1 and its value.
    pub fn take_words(words: &[u64]) -> Option<(Run, &[u64])> {
        let time = |flag: u64, t: u64| match flag {
            0 if t == 0 => Some(None),
            1 => Some(Some(t)),
            _ => None,
        };
        let (t, rest) = words.split_first_chunk::<{ Self::TOTALS }>()?;
        let totals = Totals {
            calls: t[1],
            served: t[2],
            gave_up: t[3],
            still_retrying: t[4],
            done_at: time(t[5], t[6])?,
            arrivals: t[7],
            failed_fast: t[8],
            denied: t[9],
            pushed_back: t[10],
            goodput_milli: t[11],
            recovery: time(t[12], t[13])?,
            wasted: t[14],
            timed_out: t[15],
            throttled: t[16],
            latency_p50: time(t[17], t[18])?,
            latency_p99: time(t[19], t[20])?,
            peak_rejected: t[21],
            hedges: t[22],
        };
        let (&[n], mut rest) = rest.split_first_chunk::<1>()?;
        let mut replicas = Vec::new();
        for _ in 0..n {
            let (r, after) = rest.split_first_chunk::<{ Self::REPLICA }>()?;
            replicas.push(super::fleet::ReplicaTotals {
                calls: r[0],
                served: r[1],
                rejected: r[2],
                wasted: r[3],
                timed_out: r[4],
                dropped: r[5],
                queued: r[6],
                latency_p50: time(r[7], r[8])?,
                latency_p99: time(r[9], r[10])?,
            });
            rest = after;
        }
        let run = Run {
            seed: t[0],
            totals,
            lanes: None,
            replicas,
        };
        Some((run, rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fleet::ReplicaTotals;

    /// Every field goes into the words and comes back, an absent time as absent.
    #[test]
    fn a_run_goes_to_words_and_back() {
        let mut n = 0;
        let mut next = || {
            n += 1;
            n
        };
        let totals = Totals {
            calls: next(),
            served: next(),
            gave_up: next(),
            still_retrying: next(),
            done_at: Some(next()),
            arrivals: next(),
            failed_fast: next(),
            denied: next(),
            pushed_back: next(),
            goodput_milli: next(),
            recovery: None,
            wasted: next(),
            timed_out: next(),
            throttled: next(),
            latency_p50: Some(0),
            latency_p99: Some(u64::MAX),
            peak_rejected: next(),
            hedges: next(),
        };
        let replica = |k: u64| ReplicaTotals {
            calls: k,
            served: k + 1,
            rejected: k + 2,
            wasted: k + 3,
            timed_out: k + 4,
            dropped: k + 5,
            queued: k + 6,
            latency_p50: (k > 50).then_some(k + 7),
            latency_p99: Some(k + 8),
        };
        let runs = [
            Run {
                seed: 9,
                totals,
                lanes: None,
                replicas: vec![],
            },
            Run {
                seed: u64::MAX,
                totals: Totals::default(),
                lanes: None,
                replicas: vec![replica(40), replica(60)],
            },
        ];
        let mut words = Vec::new();
        for run in &runs {
            run.put_words(&mut words);
        }
        let mut rest = &words[..];
        for run in &runs {
            let (taken, after) = Run::take_words(rest).unwrap();
            assert_eq!(&taken, run);
            rest = after;
        }
        assert_eq!(rest, &[] as &[u64]);
        assert_eq!(Run::take_words(&words[..Run::TOTALS]), None);
        // A time's presence is 0 or 1; absent, its value is 0.
        for (at, bad) in [(12, 2), (13, 1)] {
            let mut words = Vec::new();
            runs[0].put_words(&mut words);
            words[at] = bad;
            assert_eq!(Run::take_words(&words), None, "{at}");
        }
    }
}
