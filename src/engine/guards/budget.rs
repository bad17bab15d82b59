//! A retry budget shared by all clients of a run: a small state machine in exact
//! integers, fed by the tick loop of [`super::super::run`].
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
//!   costs `retry_cost` (5) and is not sent when the quota cannot pay (the SDKs charge
//!   10 for a retry after a timeout; here every retry costs `retry_cost`, so that a
//!   served retry refunds what it took); a served retry refunds its
//!   cost, a served first call gives `no_retry_increment` (1); never above `quota`.
//!
//! Within a tick, the budget first sees the tick's new requests (Finagle's deposits),
//! then, with hedging, the hedges its timers send ([`super::super::hedge`]), then its
//! served calls, then its failed calls in the order the tick holds them: each failure
//! is counted (gRPC's token) before the client asks to retry.

use crate::engine::scenario::Budget;
use crate::engine::units::{Micros, SECOND};

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
        /// The current tick, once one has started.
        tick: Option<usize>,
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
                    tick: None,
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

    /// Starts tick `k`, which brings `requests` new requests. Once per tick: a tick
    /// started already (before its hedges asked, [`super::super::hedge`]) has its
    /// requests, and nothing changes.
    pub fn begin_tick(&mut self, k: usize, requests: u64) {
        if self.start(k) {
            self.deposit(requests);
        }
    }

    /// Starts tick `k`: what withdraws from here on is tick `k`'s. Returns `false` when
    /// it had started already.
    fn start(&mut self, k: usize) -> bool {
        let BudgetState::Finagle {
            slots,
            sum,
            slot,
            tick,
            ..
        } = self
        else {
            return true;
        };
        if *tick == Some(k) {
            return false;
        }
        // The tick that leaves the window takes its deposits and withdrawals along.
        *tick = Some(k);
        *slot = k % slots.len();
        *sum -= slots[*slot];
        slots[*slot] = 0;
        true
    }

    /// Deposits `requests` new requests into the current tick's slot (Finagle's deposit;
    /// nothing for the others). The run's loop deposits a tick's requests all at once
    /// with [`BudgetState::begin_tick`]; a live run, whose requests come one at a time,
    /// starts each tick with none and deposits each as it is made.
    pub fn deposit(&mut self, requests: u64) {
        if let BudgetState::Finagle {
            deposit,
            slots,
            sum,
            slot,
            ..
        } = self
        {
            let amount = requests as i64 * *deposit;
            slots[*slot] += amount;
            *sum += amount;
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

    #[test]
    fn deposits_one_at_a_time_come_to_the_tick_s_deposit_at_once() {
        // Five requests deposited one by one in tick 1, as a live run makes them, are
        // the five of `begin_tick(1, 5)`: one retry more (20 %), and they leave the
        // window with their tick.
        let (mut at_once, mut one_by_one) = (named("finagle"), named("finagle"));
        at_once.begin_tick(0, 0);
        one_by_one.begin_tick(0, 0);
        at_once.begin_tick(1, 5);
        one_by_one.begin_tick(1, 0);
        for _ in 0..5 {
            one_by_one.deposit(1);
        }
        assert_eq!(one_by_one.level(), at_once.level());
        assert_eq!(one_by_one.level(), 500_000 + 5_000);
        one_by_one.begin_tick(101, 0);
        assert_eq!(one_by_one.level(), 500_000);
        // The other budgets take no deposits.
        let mut grpc = named("grpc");
        grpc.deposit(3);
        assert_eq!(grpc.level(), 10_000);
    }
}
