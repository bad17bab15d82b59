//! A circuit breaker shared by all clients of a run: a small state machine in exact
//! integers, fed by the tick loop of [`super::super::run`].
//!
//! The breaker follows resilience4j's count-based `CircuitBreaker`:
//! - closed: every call goes to the server; the outcomes of a tick enter a sliding window
//!   of the last `window` calls together. When only part of a tick still fits in the
//!   window, its failures count pro rata (rounded up), as if its calls came in random
//!   order. Once the window holds at least `minimum_calls` and its failure rate is at or
//!   above `failure_rate`, the breaker opens at the end of the tick.
//! - open: every call fails fast at the client and never reaches the server; calls that
//!   fail fast are not recorded. From the first tick that starts `open_for` after it
//!   opened, it is half-open.
//! - half-open: the first `half_open_calls` calls (in tick order) go to the server as
//!   trials, the rest fail fast. Once every trial's outcome is in, a failure rate at or
//!   above `failure_rate` opens it again; otherwise it closes with an empty window.

use std::collections::VecDeque;

use crate::engine::scenario::Breaker;
use crate::engine::units::Micros;

/// Where a breaker stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerMode {
    /// Calls go through and are counted.
    Closed,
    /// Calls fail fast until the given time.
    Open {
        /// When it turns half-open.
        until: Micros,
    },
    /// Trial calls go through.
    HalfOpen {
        /// Trials not yet admitted.
        left: u64,
        /// Trials whose outcome is in.
        done: u64,
        /// Of those, failures.
        failed: u64,
    },
}

/// A circuit breaker during one run.
#[derive(Clone, Debug)]
pub struct BreakerState {
    config: Breaker,
    mode: BreakerMode,
    /// The window: per tick (calls, failures), oldest first, with their totals.
    ticks: VecDeque<(u64, u64)>,
    calls: u64,
    failures: u64,
    /// How many times it opened.
    pub opened: u64,
}

impl BreakerState {
    /// A closed breaker with an empty window.
    pub fn new(config: Breaker) -> BreakerState {
        BreakerState {
            config,
            mode: BreakerMode::Closed,
            ticks: VecDeque::new(),
            calls: 0,
            failures: 0,
            opened: 0,
        }
    }

    /// Where it stands.
    pub fn mode(&self) -> BreakerMode {
        self.mode
    }

    /// For the tick that starts at `start` and brings `calls` calls: how many of them,
    /// from the front, go to the server; the rest fail fast.
    pub fn admit(&mut self, start: Micros, calls: u64) -> u64 {
        if matches!(self.mode, BreakerMode::Open { until } if start >= until) {
            self.mode = BreakerMode::HalfOpen {
                left: self.config.half_open_calls,
                done: 0,
                failed: 0,
            };
        }
        match &mut self.mode {
            BreakerMode::Closed => calls,
            BreakerMode::Open { .. } => 0,
            BreakerMode::HalfOpen { left, .. } => {
                let admitted = calls.min(*left);
                *left -= admitted;
                admitted
            }
        }
    }

    /// The outcomes of the admitted calls of the tick that ends at `end`.
    pub fn record(&mut self, end: Micros, served: u64, failed: u64) {
        let threshold = self.config.failure_rate;
        match &mut self.mode {
            BreakerMode::Closed => {
                self.push(served + failed, failed);
                if self.calls >= self.config.minimum_calls
                    && self.calls > 0
                    && self.failures * 100 >= threshold * self.calls
                {
                    self.open(end);
                }
            }
            BreakerMode::HalfOpen {
                left,
                done,
                failed: f,
            } => {
                *done += served + failed;
                *f += failed;
                if *left == 0 && *done >= self.config.half_open_calls {
                    if *f * 100 >= threshold * *done {
                        self.open(end);
                    } else {
                        self.mode = BreakerMode::Closed;
                        self.clear();
                    }
                }
            }
            BreakerMode::Open { .. } => {}
        }
    }

    fn open(&mut self, at: Micros) {
        self.mode = BreakerMode::Open {
            until: at + self.config.open_for,
        };
        self.opened += 1;
        self.clear();
    }

    fn clear(&mut self) {
        self.ticks.clear();
        self.calls = 0;
        self.failures = 0;
    }

    /// Adds a tick's outcomes to the window and drops what no longer fits.
    fn push(&mut self, calls: u64, failures: u64) {
        if calls == 0 {
            return;
        }
        self.ticks.push_back((calls, failures));
        self.calls += calls;
        self.failures += failures;
        while self.calls > self.config.window {
            let excess = self.calls - self.config.window;
            let Some(front) = self.ticks.front_mut() else {
                break;
            };
            if front.0 <= excess {
                self.calls -= front.0;
                self.failures -= front.1;
                self.ticks.pop_front();
            } else {
                // Part of the oldest tick leaves: its failures pro rata, rounded down,
                // so the part that stays keeps its share rounded up.
                let dropped = front.1 * excess / front.0;
                front.0 -= excess;
                front.1 -= dropped;
                self.calls -= excess;
                self.failures -= dropped;
            }
        }
    }

    /// The window's (calls, failures).
    pub fn window(&self) -> (u64, u64) {
        (self.calls, self.failures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::units::SECOND;

    fn breaker() -> BreakerState {
        BreakerState::new(Breaker {
            failure_rate: 50,
            window: 100,
            minimum_calls: 20,
            open_for: 5 * SECOND,
            half_open_calls: 10,
            retry_when_open: true,
        })
    }

    #[test]
    fn breaker_waits_for_the_minimum_calls_then_opens_at_the_threshold() {
        let mut b = breaker();
        assert_eq!(b.admit(0, 19), 19);
        b.record(100_000, 0, 19);
        assert_eq!(
            b.mode(),
            BreakerMode::Closed,
            "19 calls are below the minimum"
        );
        // 20 calls, 10 failed: 50 % opens it.
        let mut b = breaker();
        b.record(100_000, 10, 10);
        assert_eq!(b.mode(), BreakerMode::Open { until: 5_100_000 });
        // 20 calls, 9 failed: 45 % stays closed.
        let mut b = breaker();
        b.record(100_000, 11, 9);
        assert_eq!(b.mode(), BreakerMode::Closed);
    }

    #[test]
    fn breaker_window_keeps_the_last_calls_pro_rata() {
        let mut b = breaker();
        b.record(100_000, 80, 0);
        b.record(200_000, 40, 0);
        // 120 calls: 20 of the oldest tick leave.
        assert_eq!(b.window(), (100, 0));
        // 60 calls with 30 failures: 60 of the old 100 leave; 45 % of the window.
        b.record(300_000, 30, 30);
        assert_eq!(b.window(), (100, 30));
        assert_eq!(b.mode(), BreakerMode::Closed);
        // A tick bigger than the window: its own share, rounded up (97 × 100 / 200 =
        // 48.5 failures stay as 49).
        b.record(400_000, 103, 97);
        assert_eq!(b.window(), (100, 49));
        assert_eq!(b.mode(), BreakerMode::Closed);
        b.record(500_000, 0, 2);
        assert!(matches!(b.mode(), BreakerMode::Open { .. }));
    }

    #[test]
    fn breaker_goes_half_open_after_open_for_and_closes_or_reopens() {
        let mut b = breaker();
        b.record(100_000, 0, 20);
        assert_eq!(b.mode(), BreakerMode::Open { until: 5_100_000 });
        // Open: everything fails fast until 5.1 s.
        assert_eq!(b.admit(5_000_000, 50), 0);
        // Half-open: ten trials, over two ticks.
        assert_eq!(b.admit(5_100_000, 6), 6);
        b.record(5_200_000, 6, 0);
        assert!(matches!(b.mode(), BreakerMode::HalfOpen { left: 4, .. }));
        assert_eq!(b.admit(5_200_000, 50), 4);
        assert_eq!(b.admit(5_200_000, 50), 0);
        b.record(5_300_000, 4, 0);
        assert_eq!(b.mode(), BreakerMode::Closed);
        assert_eq!(b.window(), (0, 0));
        assert_eq!(b.admit(5_300_000, 50), 50);
        // Half of the trials failing opens it again, from the end of that tick.
        let mut b = breaker();
        b.record(100_000, 0, 20);
        assert_eq!(b.admit(5_100_000, 30), 10);
        b.record(5_200_000, 5, 5);
        assert_eq!(b.mode(), BreakerMode::Open { until: 10_200_000 });
        assert_eq!(b.opened, 2);
    }
}
