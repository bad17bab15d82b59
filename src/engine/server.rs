//! The server: how many of a tick's calls it serves.
//!
//! **Slowdowns.** `server.slowdowns: [{from, to, capacity}]`: a tick whose start lies in
//! a slowdown's `[from, to)` has that capacity instead of the server's (the first such
//! slowdown in the author's order, when several hold the tick), in both models; in the
//! `capacity` model the rejections of the previous tick are paid out of it as usual. An
//! outage holds over a slowdown: while down, nothing is served.
//!
//! **A cache** (`server.cache: {capacity, warm_after, ttl, start}`): a server whose
//! capacity depends on its own recent past, as one behind a look-aside cache does. The
//! server's `capacity` (or a slowdown's, in its window) is what it serves per tick
//! when every call misses the cache; `cache.capacity`, more than that, what it serves
//! when every call hits. What the cache holds is what was recently asked for and
//! answered: the *held* answers of tick `k` are the calls answered in time in the
//! `W = ceil(ttl / tick)` ticks before it, `k − W` to `k − 1` (an answer at the end of
//! tick `j` lives `ttl` from then, so it counts for tick `k` while
//! `k·tick < (j + 1)·tick + ttl`). Answered in time: the calls served in their tick
//! and, with a queue, the queued calls served before their client timed out; a call
//! served after its client timed out is wasted, and its answer never reaches the
//! cache. The tick's *warmth* is `f / warm_after` with `f = min(held, warm_after)`,
//! and a share `f / warm_after` of its calls hit, so its capacity is the harmonic
//! mean of the two weighted by the shares of hits and misses (a hit costs `1 / H` of
//! the tick, a miss `1 / M`), in thousandths of a call and floored:
//!
//! `capacity(k) = floor(H · M · A / (f · M + (A − f) · H))`
//!
//! with `H` the cache's capacity, `M` the tick's capacity without it and `A =
//! warm_after` (exactly `H` when `f = A`). It takes the place of the tick's capacity in
//! both models: the `capacity` model pays the previous tick's rejections out of it as
//! usual. `start: warm` (the default) begins with a full cache: `warm_after` answers
//! counted at the end of tick −1, held in ticks 0 to `W − 1`. `start: cold` begins
//! empty. An outage is a restart: a tick in which the server is down empties the
//! cache, so the first tick after an outage has `f = 0`, the capacity `M`. In a fleet
//! each replica has a cache of its own, of the server's setting, with its own
//! capacity as `M`. A run's lanes record each tick's capacity (the replicas' together),
//! 0 while down, for a chart to draw the capacity the run had.
//!
//! A slowdown slows the misses only: a full cache serves `H` whatever the slowdown's
//! capacity, 0 included. `cache.capacity` must be more than `server.capacity`; a
//! slowdown's or a replica's capacity above it is not refused, and then warming
//! lowers the capacity, as the formula says. A run's caches hold at most
//! [`MAX_HELD`] ticks together (the reader refuses more).
//!
//! A server whose cold capacity is below its load can stay cold with no retry at all:
//! with a FIFO queue that keeps expired calls and clients' timeouts, its answers come
//! too late to fill the cache; with the `all-or-nothing` model, it chokes on every tick
//! and answers none. It warms again only once the load falls below what the cold
//! server answers in time.
//!
//! All arithmetic is in integer thousandths of a call, so that ten rejections at a cost of
//! 0.1 cost exactly one call, never 1.0000000000000002.

use super::scenario::{Cache, CacheStart, Server, ServerModel};
use super::units::Micros;

/// The server during one run: its setup and what the last tick's rejections cost.
#[derive(Clone, Debug)]
pub struct ServerState<'a> {
    server: &'a Server,
    /// Rejections of the previous tick that are still to be paid for.
    owed_rejections: u64,
    /// Its cache's answers of the last ticks, when it has a cache.
    cache: Option<Held>,
}

/// What a cache holds: the calls answered in time in each of the last `W` ticks, a
/// ring whose slot `k mod W` holds tick `k − W` while tick `k` is decided. An outage
/// empties it at once: the slots written before it are then read as 0.
#[derive(Clone, Debug)]
struct Held {
    /// The cache's setting.
    setup: Cache,
    ticks: Vec<u32>,
    /// The slot of the next tick.
    at: usize,
    /// How many slots were written since the cache was last emptied, at most all.
    written: usize,
    /// The answers of every slot together.
    sum: u64,
}

/// The most ticks a run's caches look back over, all replicas together: 4,000,000 (16
/// MB), as [`super::outcome::REPLICA_LANES`] bounds the replicas' lanes.
pub const MAX_HELD: u64 = 4_000_000;

/// The ticks `server`'s cache looks back over in a run of `ticks` ticks:
/// `ceil(ttl / tick)`, at most the run's ticks, at least one; 0 without a cache.
pub fn held_ticks(server: &Server, ticks: u64) -> u64 {
    server.cache.map_or(0, |cache| {
        let window = cache.ttl.div_ceil(server.tick.max(1));
        window.min(ticks).max(1)
    })
}

impl<'a> ServerState<'a> {
    /// A server at rest, nothing owed, for what is said of it rather than run: its
    /// cache, if any, looks back over one tick only ([`ServerState::for_run`] runs).
    pub fn new(server: &'a Server) -> ServerState<'a> {
        ServerState::for_run(server, 1)
    }

    /// A server at rest for a run of `ticks` ticks, its cache as it starts. The cache
    /// looks back over at most the run's ticks: an answer held longer than the run
    /// never expires within it.
    pub fn for_run(server: &'a Server, ticks: usize) -> ServerState<'a> {
        let cache = server.cache.map(|cache| {
            let window = held_ticks(server, ticks as u64) as usize;
            let mut ticks = vec![0; window];
            let sum = match cache.start {
                // Answers at the end of tick −1, in the slot of tick W − 1.
                CacheStart::Warm => cache.warm_after,
                CacheStart::Cold => 0,
            };
            if let Some(last) = ticks.last_mut() {
                // `warm_after` is at most `MAX_CAPACITY`, below `u32::MAX`.
                *last = sum as u32;
            }
            Held {
                setup: cache,
                at: 0,
                written: ticks.len(),
                ticks,
                sum,
            }
        });
        ServerState {
            server,
            owed_rejections: 0,
            cache,
        }
    }

    /// Whether the server is down in the tick that starts at `start`: a tick is down
    /// when its start lies in an outage's `[from, to)`.
    pub fn is_down(&self, start: Micros) -> bool {
        self.server
            .outages
            .iter()
            .any(|o| o.from <= start && start < o.to)
    }

    /// The capacity of the tick that starts at `start` without a cache (every call a
    /// miss), in thousandths of a call: the server's, or a slowdown's.
    #[inline]
    pub fn capacity_at(&self, start: Micros) -> u64 {
        self.server
            .slowdowns
            .iter()
            .find(|s| s.from <= start && start < s.to)
            .map_or(self.server.capacity_milli, |s| s.capacity_milli)
    }

    /// The capacity of the tick that starts at `start`, in thousandths of a call: with a
    /// cache, as warm as it is (see the module docs); 0 while `down`.
    #[inline]
    pub fn capacity(&self, start: Micros, down: bool) -> u64 {
        match (down, &self.cache) {
            (true, _) => 0,
            (false, None) => self.capacity_at(start),
            (false, Some(held)) => self.warm_capacity(start, held),
        }
    }

    /// [`ServerState::capacity`] of an up server with a cache that holds `held`: out
    /// of line, so that a server without a cache decides its ticks with the code it had
    /// before caches.
    #[cold]
    #[inline(never)]
    fn warm_capacity(&self, start: Micros, held: &Held) -> u64 {
        let (miss, cache) = (self.capacity_at(start), held.setup);
        let a = u128::from(cache.warm_after);
        let f = u128::from(held.sum).min(a);
        if f == a {
            return cache.capacity_milli;
        }
        let (h, m) = (u128::from(cache.capacity_milli), u128::from(miss));
        // At most 1e12 · 1e12 · 1e9 < 2^128, over a denominator of at least h > 0.
        (h * m * a / (f * m + (a - f) * h)) as u64
    }

    /// Whether it has a cache, which [`ServerState::answered`] must be told of.
    #[inline]
    pub fn cached(&self) -> bool {
        self.cache.is_some()
    }

    /// Records that `answered` calls were answered in time in the tick, for the cache
    /// (nothing without one): a tick that is `down` empties it. Called once a tick,
    /// after the tick is decided. Constant time, however long the cache's window.
    #[cold]
    #[inline(never)]
    pub fn answered(&mut self, answered: u64, down: bool) {
        let Some(held) = self.cache.as_mut() else {
            return;
        };
        // A tick's answers are at most its calls, which a `u32` holds.
        let answered = answered.min(u64::from(u32::MAX)) as u32;
        let len = held.ticks.len();
        if down {
            // Every slot written before this one now reads as 0.
            held.sum = 0;
            held.written = 1;
            held.ticks[held.at] = 0;
        } else {
            let old = match held.written >= len {
                true => held.ticks[held.at],
                false => 0,
            };
            held.sum = held.sum - u64::from(old) + u64::from(answered);
            held.ticks[held.at] = answered;
            held.written = (held.written + 1).min(len);
        }
        held.at = (held.at + 1) % len;
    }

    /// The calls the `capacity` model can serve in the tick that starts at `start`:
    /// its capacity less what the previous tick's rejections cost; 0 while down.
    pub fn budget(&self, start: Micros, down: bool) -> u64 {
        if down {
            return 0;
        }
        let owed = self
            .server
            .rejection_cost_milli
            .saturating_mul(self.owed_rejections);
        self.capacity(start, down).saturating_sub(owed) / 1000
    }

    /// Records the tick's `rejected` calls, to be paid for in the next tick (nothing
    /// when the server is down: the next tick starts afresh).
    pub fn rejected(&mut self, rejected: u64, down: bool) {
        self.owed_rejections = if down { 0 } else { rejected };
    }

    /// Decides one tick that starts at `start`: given its `arrivals` and whether the
    /// server is down, returns how many are served, and remembers what the rejections
    /// cost the next tick.
    pub fn serve(&mut self, start: Micros, arrivals: u64, down: bool) -> u64 {
        if down {
            // Rejections while down cost nothing, and the next tick starts afresh.
            self.owed_rejections = 0;
            return 0;
        }
        match self.server.model {
            ServerModel::Capacity => {
                let served = arrivals.min(self.budget(start, down));
                self.owed_rejections = arrivals - served;
                served
            }
            ServerModel::AllOrNothing => {
                if arrivals.saturating_mul(1000) <= self.capacity(start, down) {
                    arrivals
                } else {
                    0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scenario::{Outage, Scenario};

    #[test]
    fn thirty_rejections_at_a_tenth_cost_exactly_three_calls() {
        let server = Scenario::with_clients("t", 1).server;
        let mut state = ServerState::new(&server);
        assert_eq!(state.serve(0, 40, false), 10);
        // 30 rejected at 0.1 each: the budget is exactly 10 - 3 = 7, not 6.
        assert_eq!(state.serve(0, 100, false), 7);
        // 93 rejected: 10 - 9.3 = 0.7, floored to 0.
        assert_eq!(state.serve(0, 5, false), 0);
        // 5 rejected: 10 - 0.5 = 9.5, floored to 9.
        assert_eq!(state.serve(0, 20, false), 9);
    }

    #[test]
    fn all_or_nothing_chokes_above_capacity() {
        let mut server = Scenario::with_clients("t", 1).server;
        server.model = ServerModel::AllOrNothing;
        let mut state = ServerState::new(&server);
        assert_eq!(state.serve(0, 10, false), 10);
        assert_eq!(state.serve(0, 11, false), 0);
        assert_eq!(state.serve(0, 3, false), 3);
    }

    #[test]
    fn an_outage_rejects_everything_for_free() {
        let mut server = Scenario::with_clients("t", 1).server;
        server.outages = vec![Outage {
            from: 0,
            to: 300_000,
        }];
        let mut state = ServerState::new(&server);
        assert!(state.is_down(0) && state.is_down(200_000) && !state.is_down(300_000));
        assert_eq!(state.serve(0, 100, true), 0);
        assert_eq!(state.serve(0, 100, false), 10);
    }
}
