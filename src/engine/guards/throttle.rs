//! Adaptive throttling on the client side, shared by all clients of a run, as Google's
//! SRE book (chapter 21, "Handling Overload") describes it.
//!
//! The rule, for anyone reproducing a run: the ticks of the window are the last
//! `W = ceil(window / tick)` ticks before the current one (fewer at the start of the
//! run). `requests` counts the attempts the clients made in them (every call that got
//! past the breaker, refused here or not), `accepts` the calls answered in time, each in
//! the tick that served it. In tick `k`, each call that got past the breaker is refused
//! locally with probability `max(0, requests − k · accepts) / (requests + 1)`, exactly:
//! one uniform integer draw in `[0, 1000 · (requests + 1))` per call, in the tick's
//! order, refuses the call when it is below `max(0, 1000 · requests − k_milli ·
//! accepts)`; when that is 0 nothing is drawn. A refused attempt never reaches the
//! server: it costs nothing and is not one of `calls`; it counts in `throttled` and fails
//! for its client as a call that failed fast at a breaker does (with no hint), except
//! that it is always retried per policy.

use crate::engine::rng::Pcg64;
use rand::RngExt;

use crate::engine::scenario::Throttle;
use crate::engine::units::Micros;

/// The throttle of one run.
#[derive(Clone, Debug)]
pub struct ThrottleState {
    k_milli: u64,
    /// Requests and accepts per tick of the window, as a ring.
    slots: Vec<(u64, u64)>,
    /// Their sums.
    requests: u64,
    accepts: u64,
    /// The current tick's requests, counted when the tick's calls are decided.
    now: u64,
}

impl ThrottleState {
    /// An empty window, for ticks of `tick` µs.
    pub fn new(throttle: &Throttle, tick: Micros) -> ThrottleState {
        let ticks = throttle.window.div_ceil(tick).max(1) as usize;
        ThrottleState {
            k_milli: throttle.k_milli,
            slots: vec![(0, 0); ticks],
            requests: 0,
            accepts: 0,
            now: 0,
        }
    }

    /// The chance of a refusal now, as (numerator, denominator).
    pub fn odds(&self) -> (u64, u64) {
        let num = (1000 * self.requests).saturating_sub(self.k_milli * self.accepts);
        (num, 1000 * (self.requests + 1))
    }

    /// Decides each of `calls` attempts in turn: `true` for one that is sent.
    pub fn decide<'r>(
        &mut self,
        calls: usize,
        rng: &'r mut Pcg64,
    ) -> impl FnMut(usize) -> bool + use<'r> {
        self.now = calls as u64;
        let (num, den) = self.odds();
        move |_| num == 0 || rng.random_range(0..den) >= num
    }

    /// Ends tick `k` with its `accepts`.
    pub fn end_tick(&mut self, k: usize, accepts: u64) {
        let slot = k % self.slots.len();
        let (r, a) = self.slots[slot];
        self.requests = self.requests - r + self.now;
        self.accepts = self.accepts - a + accepts;
        self.slots[slot] = (self.now, accepts);
        self.now = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn refusals_follow_the_window() {
        let mut t = ThrottleState::new(
            &Throttle {
                k_milli: 2_000,
                window: 300_000,
            },
            100_000,
        );
        // Nothing in the window: nothing refused, nothing drawn.
        assert_eq!(t.odds(), (0, 1000));
        let mut rng = Pcg64::seed_from_u64(1);
        let mut keep = t.decide(10, &mut rng);
        assert!((0..10).all(&mut keep));
        drop(keep);
        t.end_tick(0, 2);
        // 10 requests, 2 accepts: (10 - 4) / 11.
        assert_eq!(t.odds(), (6_000, 11_000));
        drop(t.decide(20, &mut rng));
        t.end_tick(1, 0);
        drop(t.decide(0, &mut rng));
        t.end_tick(2, 0);
        // 30 requests, 2 accepts over ticks 0-2.
        assert_eq!(t.odds(), (26_000, 31_000));
        drop(t.decide(0, &mut rng));
        t.end_tick(3, 0);
        // Tick 0 has left the window of three ticks: 20 requests, no accepts.
        assert_eq!(t.odds(), (20_000, 21_000));
        // As many accepts as half the requests (ticks 2-4): never refused.
        drop(t.decide(20, &mut rng));
        t.end_tick(4, 10);
        assert_eq!(t.odds(), (0, 21_000));
    }
}
