//! What a lane draws at one tick or one column: the counts of its series, read from
//! the typical run's lanes.

use crate::engine::{Lanes, StrategyResult};

/// What a lane draws at one tick, or on average over the ticks of one column: the
/// kinds of calls in the order they stack up from the baseline, then the queue, which
/// is a level rather than a count of calls and is drawn as a line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Column {
    /// Calls served in time.
    pub(super) served: f64,
    /// Calls served after their client stopped waiting: the server's work for nobody,
    /// stacked on the served ones so that the two make all its work.
    pub(super) wasted: f64,
    /// Calls turned away.
    pub(super) rejected: f64,
    /// Calls that failed fast at a breaker, never reaching the server.
    pub(super) failed_fast: f64,
    /// Attempts refused by the clients' own throttling, never reaching the server.
    pub(super) throttled: f64,
    /// Calls waiting in the queue at the end of the tick.
    pub(super) queued: f64,
    /// Hedges among the tick's calls (counted in the kinds above too), drawn as a line.
    pub(super) hedges: f64,
}

/// Which series of [`Lanes`] a [`Column`] field comes from, in its order.
pub(super) const SERIES: [fn(&Lanes) -> &[u32]; 7] = [
    |l| &l.served,
    |l| &l.wasted,
    |l| &l.rejected,
    |l| &l.failed_fast,
    |l| &l.throttled,
    |l| &l.queued,
    |l| &l.hedges,
];

impl Column {
    /// The counts of a lane at tick `k`, in [`SERIES`] order (zero past a series' end,
    /// and for a series the scenario does not have).
    pub(super) fn counts(strategy: &StrategyResult, k: usize) -> [u64; 7] {
        let lanes = strategy.typical.lanes.as_ref();
        SERIES.map(|series| {
            lanes
                .and_then(|l| series(l).get(k).copied())
                .map_or(0, u64::from)
        })
    }

    /// From counts (or sums over `n` ticks) in [`SERIES`] order.
    pub(super) fn of(counts: [u64; 7], n: f64) -> Column {
        let [
            served,
            wasted,
            rejected,
            failed_fast,
            throttled,
            queued,
            hedges,
        ] = counts.map(|c| c as f64 / n);
        Column {
            served,
            wasted,
            rejected,
            failed_fast,
            throttled,
            queued,
            hedges,
        }
    }
}

/// Where the wasted calls, the throttled attempts, the queue and the hedges are in
/// [`SERIES`]; the kinds of calls that make a bar are those before the queue.
pub(super) const WASTED: usize = 1;
pub(super) const THROTTLED: usize = 4;
pub(super) const QUEUE: usize = 5;
pub(super) const HEDGES: usize = 6;

/// Every call and refused attempt of a lane at tick `k`: the height of its bar.
pub(super) fn all_calls_at(strategy: &StrategyResult, k: usize) -> u64 {
    Column::counts(strategy, k)[..QUEUE].iter().sum()
}
