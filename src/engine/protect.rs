//! The shared protections of a run: a retry budget and a circuit breaker, each a small
//! state machine in exact integers, fed by the tick loop of [`super::extended`].
//!
//! Budgets, as published:
//! - `grpc` (gRPC retry throttling, gRFC A6): tokens start at `max_tokens`; every failed
//!   call takes 1 (never below 0), every served call gives `token_ratio` (never above
//!   `max_tokens`); a retry is allowed only while tokens > `max_tokens / 2`. Kept in
//!   thousandths of a token, as gRPC does.
//! - `finagle` (Finagle's `RetryBudget`): each request (a client's first call) deposits
//!   1,000, each retry withdraws `1000 / percent_can_retry` (truncated), over a window of
//!   `ttl`, on top of a reserve of `min_retries_per_sec * ttl_seconds * withdrawal`; a
//!   retry is allowed when the balance covers its withdrawal. That is: retries in the
//!   window, this one included, at most `percent_can_retry` × requests in the window,
//!   plus `min_retries_per_sec` × `ttl`. Finagle's window is ten slices of `ttl / 10`;
//!   here it slides tick by tick over the last `ceil(ttl / tick)` ticks.
//! - `aws` (the AWS SDKs' standard retry quota): `quota` tokens at the start; a retry
//!   costs `retry_cost` (5: every failure here is a rejection, never a timeout, which
//!   would cost 10) and is not sent when the quota cannot pay; a served retry refunds its
//!   cost, a served first call gives `no_retry_increment` (1); never above `quota`.
//!
//! Within a tick, the budget first sees the tick's new requests (Finagle's deposits),
//! then its served calls, then its failed calls in the order the tick holds them: each
//! failure is counted (gRPC's token) before the client asks to retry.
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

use super::scenario::{Breaker, Budget};
use super::units::{Micros, SECOND};

/// A retry budget during one run.
#[derive(Clone, Debug)]
pub enum BudgetState {
    /// gRPC retry throttling.
    Grpc {
        /// `max_tokens`, in thousandths.
        max_milli: u64,
        /// `token_ratio`, in thousandths.
        ratio_milli: u64,
        /// The tokens now, in thousandths.
        tokens_milli: u64,
    },
    /// Finagle's RetryBudget.
    Finagle {
        /// Per request.
        deposit: i64,
        /// Per retry.
        withdrawal: i64,
        /// The floor of retries, in the same units.
        reserve: i64,
        /// Deposits less withdrawals per tick of the window, as a ring.
        slots: Vec<i64>,
        /// Their sum.
        sum: i64,
        /// The slot of the current tick.
        slot: usize,
    },
    /// The AWS SDKs' standard retry quota.
    Aws {
        /// The quota's size.
        quota: u64,
        /// A retry's cost.
        cost: u64,
        /// What a served first call gives.
        increment: u64,
        /// Tokens available.
        available: u64,
    },
}

impl BudgetState {
    /// A full budget, for ticks of `tick` µs over a horizon of `horizon_ticks`.
    pub fn new(budget: &Budget, tick: Micros, horizon_ticks: u64) -> BudgetState {
        match *budget {
            Budget::Grpc {
                max_tokens,
                token_ratio_milli,
            } => BudgetState::Grpc {
                max_milli: max_tokens * 1000,
                ratio_milli: token_ratio_milli,
                tokens_milli: max_tokens * 1000,
            },
            Budget::Finagle {
                ttl,
                min_retries_per_sec,
                percent_can_retry_milli,
            } => {
                // Finagle: a deposit of 1,000 and a withdrawal of 1000 / percent; with no
                // percent at all, nothing deposited and a withdrawal of 1.
                let (deposit, withdrawal) = match 1_000_000u64.checked_div(percent_can_retry_milli)
                {
                    Some(w) => (1000, w as i64),
                    None => (0, 1),
                };
                let reserve = min_retries_per_sec as i64 * (ttl / SECOND) as i64 * withdrawal;
                // A window longer than the horizon never wraps, and neither does one of
                // exactly the horizon's ticks: the same sums with no more slots than
                // ticks (a one-minute window of 1 µs ticks would be 60,000,000 slots).
                let ticks = ttl.div_ceil(tick.max(1)).min(horizon_ticks).max(1) as usize;
                BudgetState::Finagle {
                    deposit,
                    withdrawal,
                    reserve,
                    slots: vec![0; ticks],
                    sum: 0,
                    slot: 0,
                }
            }
            Budget::Aws {
                quota,
                retry_cost,
                no_retry_increment,
            } => BudgetState::Aws {
                quota,
                cost: retry_cost,
                increment: no_retry_increment,
                available: quota,
            },
        }
    }

    /// Starts tick `k`, which brings `requests` new requests.
    pub fn begin_tick(&mut self, k: usize, requests: u64) {
        if let BudgetState::Finagle {
            deposit,
            slots,
            sum,
            slot,
            ..
        } = self
        {
            // The tick that leaves the window takes its deposits and withdrawals along.
            *slot = k % slots.len();
            *sum -= slots[*slot];
            slots[*slot] = requests as i64 * *deposit;
            *sum += slots[*slot];
        }
    }

    /// A served call; `was_retry` when it was not the client's first.
    pub fn success(&mut self, was_retry: bool) {
        match self {
            BudgetState::Grpc {
                max_milli,
                ratio_milli,
                tokens_milli,
            } => *tokens_milli = (*tokens_milli + *ratio_milli).min(*max_milli),
            BudgetState::Aws {
                quota,
                cost,
                increment,
                available,
            } => {
                let back = if was_retry { *cost } else { *increment };
                *available = (*available + back).min(*quota);
            }
            BudgetState::Finagle { .. } => {}
        }
    }

    /// A failed call (rejected or failed fast).
    pub fn failure(&mut self) {
        if let BudgetState::Grpc { tokens_milli, .. } = self {
            *tokens_milli = tokens_milli.saturating_sub(1000);
        }
    }

    /// Asks for one retry: takes what it costs and says yes, or says no.
    pub fn try_retry(&mut self) -> bool {
        match self {
            BudgetState::Grpc {
                max_milli,
                tokens_milli,
                ..
            } => 2 * *tokens_milli > *max_milli,
            BudgetState::Finagle {
                withdrawal,
                reserve,
                slots,
                sum,
                slot,
                ..
            } => {
                let ok = *sum + *reserve >= *withdrawal;
                if ok {
                    slots[*slot] -= *withdrawal;
                    *sum -= *withdrawal;
                }
                ok
            }
            BudgetState::Aws {
                cost, available, ..
            } => {
                let ok = *available >= *cost;
                if ok {
                    *available -= *cost;
                }
                ok
            }
        }
    }

    /// gRPC's tokens, in thousandths; Finagle's balance; AWS's available tokens. For
    /// tests and for anyone checking a run by hand.
    pub fn level(&self) -> i64 {
        match self {
            BudgetState::Grpc { tokens_milli, .. } => *tokens_milli as i64,
            BudgetState::Finagle { reserve, sum, .. } => *sum + *reserve,
            BudgetState::Aws { available, .. } => *available as i64,
        }
    }
}

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

    fn named(name: &str) -> BudgetState {
        BudgetState::new(&Budget::named(name).unwrap(), 100_000, 1_200)
    }

    #[test]
    fn grpc_throttles_at_half_and_refills_by_the_ratio() {
        let mut b = named("grpc");
        assert_eq!(b.level(), 10_000);
        // 10 → 9 → 8 → 7 → 6: retries still allowed (6 > 5).
        for _ in 0..4 {
            b.failure();
            assert!(b.try_retry());
        }
        // 5 is not above half: throttled.
        b.failure();
        assert_eq!(b.level(), 5_000);
        assert!(!b.try_retry());
        // One success gives 0.1: 5.1 > 5 allows a retry again.
        b.success(false);
        assert_eq!(b.level(), 5_100);
        assert!(b.try_retry());
        // Never below zero, never above the maximum.
        for _ in 0..20 {
            b.failure();
        }
        assert_eq!(b.level(), 0);
        for _ in 0..200 {
            b.success(true);
        }
        assert_eq!(b.level(), 10_000);
        // Exact thousandths: 51 successes from 4.9 is 10.0 capped, 1 success is 5.0.
        let mut b = named("grpc");
        for _ in 0..6 {
            b.failure();
        }
        for _ in 0..10 {
            b.success(false);
        }
        assert_eq!(b.level(), 5_000);
        assert!(!b.try_retry());
    }

    #[test]
    fn aws_costs_five_refunds_on_success_and_gives_one_for_a_first_call() {
        let mut b = named("aws");
        assert_eq!(b.level(), 500);
        // A hundred retries empty the quota; the next is refused.
        for _ in 0..100 {
            assert!(b.try_retry());
        }
        assert_eq!(b.level(), 0);
        assert!(!b.try_retry());
        // A served retry refunds its 5; a served first call gives 1.
        b.success(true);
        assert_eq!(b.level(), 5);
        b.success(false);
        assert_eq!(b.level(), 6);
        assert!(b.try_retry());
        assert_eq!(b.level(), 1);
        // Failures alone cost nothing; the quota never passes 500.
        b.failure();
        assert_eq!(b.level(), 1);
        for _ in 0..1000 {
            b.success(true);
        }
        assert_eq!(b.level(), 500);
    }

    #[test]
    fn finagle_allows_a_share_of_requests_plus_a_floor_over_the_window() {
        // Defaults: 10 s ttl, 10 retries/s floor, 20 %: withdrawal 5,000, reserve
        // 10 × 10 × 5,000 = 500,000, i.e. 100 retries with no requests at all.
        let mut b = named("finagle");
        b.begin_tick(0, 0);
        assert_eq!(b.level(), 500_000);
        let allowed = (0..1000).take_while(|_| b.try_retry()).count();
        assert_eq!(allowed, 100);
        // 50 requests allow 10 more retries (20 %).
        b.begin_tick(1, 50);
        let allowed = (0..1000).take_while(|_| b.try_retry()).count();
        assert_eq!(allowed, 10);
        // The window is 100 ticks of 100 ms: at tick 100, tick 0's hundred withdrawals
        // leave it, and 100 retries are allowed again.
        b.begin_tick(99, 0);
        assert!(!b.try_retry());
        b.begin_tick(100, 0);
        let allowed = (0..1000).take_while(|_| b.try_retry()).count();
        assert_eq!(allowed, 100);
        // When tick 1 leaves too, its deposits and withdrawals cancel out (50 × 1,000
        // − 10 × 5,000 = 0): nothing changes.
        b.begin_tick(101, 0);
        assert!(!b.try_retry());
    }

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
