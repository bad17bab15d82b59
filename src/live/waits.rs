//! The live clients' waits: a retry crate's own implementation of each strategy where
//! one computes it as the model defines it, and the engine's policy where none does.
//!
//! tokio-retry2 (its strategy iterators, which its `Retry` future sleeps through):
//! - `fixed`: `FixedInterval`, the base every time;
//! - `exponential`: `ExponentialFactorBackoff` from the base with the multiplier as its
//!   factor, `max_delay` the cap: `min(cap, base · multiplier^a)`, in whole
//!   milliseconds (it truncates each ceiling to the millisecond, exact for the usual
//!   bases and a multiplier of 2);
//! - `full-jitter`: that, mapped through `jitter_with_bounds(0, 1)`: the ceiling times
//!   a uniform factor in `[0, 1)`;
//! - `equal-jitter`: through `jitter_with_bounds(0.5, 1)`: half the ceiling plus a
//!   uniform share of the other half;
//! - `proportional-jitter`: through `jitter_with_bounds(1 − jitter, 1 + jitter)`.
//!
//! `decorrelated-jitter` (`min(cap, uniform in [base, 3 · previous wait])`) has no such
//! implementation in a maintained crate (backon's jitter adds up to the delay again,
//! tokio-retry2 has none): its waits are the engine's [`RetryPolicy`], each client with
//! its own generator.
//!
//! The loop around the waits is retrylab's, following the engine's rules: the attempt
//! limit, the deadline and `max(wait, Retry-After)` (tokio-retry2's `Retry` would wait
//! the hint instead of the longer of the two).

use std::time::Duration;

use crate::engine::rng::Pcg64;
use rand::SeedableRng;
use tokio_retry2::strategy::{ExponentialFactorBackoff, FixedInterval, jitter_with_bounds};

use super::CRATES;
use super::record;
use crate::engine::RetryPolicy;
use crate::engine::policy::Kind;
use crate::engine::scenario::Retry;
use crate::engine::{Scenario, Strategy};

/// One client's waits, failure after failure.
pub enum Waits {
    /// A crate's iterator of waits.
    Crate(Box<dyn Iterator<Item = Duration> + Send>),
    /// The engine's policy, with the client's own generator and previous wait.
    Engine {
        /// The strategy's policy.
        policy: RetryPolicy,
        /// Failures so far.
        failures: u32,
        /// The previous wait, in microseconds (decorrelated jitter's state).
        prev: u32,
        /// The client's generator.
        rng: Box<Pcg64>,
    },
}

impl Waits {
    /// The waits of `strategy` in `scenario` for one client; `seed` seeds the engine's
    /// generator where it is used.
    pub fn new(strategy: Strategy, scenario: &Scenario, seed: u64) -> Waits {
        let retry = &scenario.retry;
        let exponential = || {
            ExponentialFactorBackoff::from_millis(retry.base / 1000, retry.multiplier)
                .max_delay(Duration::from_micros(retry.cap))
        };
        let jittered = |low: f64, high: f64| {
            Waits::Crate(Box::new(exponential().map(jitter_with_bounds(low, high))))
        };
        match strategy.kind() {
            Kind::Fixed => Waits::Crate(Box::new(FixedInterval::new(Duration::from_micros(
                retry.base,
            )))),
            Kind::Exponential => Waits::Crate(Box::new(exponential())),
            Kind::FullJitter => jittered(0.0, 1.0),
            Kind::EqualJitter => jittered(0.5, 1.0),
            Kind::ProportionalJitter => jittered(1.0 - retry.jitter, 1.0 + retry.jitter),
            Kind::DecorrelatedJitter => Waits::Engine {
                policy: RetryPolicy::new(Kind::DecorrelatedJitter, retry, scenario.ticks()),
                failures: 0,
                prev: retry.base as u32,
                rng: Box::new(Pcg64::seed_from_u64(seed)),
            },
        }
    }

    /// The wait after the next failure.
    pub fn next_wait(&mut self) -> Duration {
        match self {
            // The strategies above never end.
            Waits::Crate(waits) => waits.next().unwrap_or(Duration::MAX),
            Waits::Engine {
                policy,
                failures,
                prev,
                rng,
            } => {
                let wait = policy.wait(*failures, prev, rng);
                *failures = failures.saturating_add(1);
                Duration::from_micros(wait)
            }
        }
    }
}

/// Whether tokio-retry2's exponential backoff computes the waits of `strategy`, which
/// then start from a base in whole milliseconds.
pub fn counts_in_milliseconds(strategy: Strategy) -> bool {
    matches!(
        strategy.kind(),
        Kind::Exponential | Kind::FullJitter | Kind::EqualJitter | Kind::ProportionalJitter
    )
}

/// Who computes the waits of `strategy`, for the record.
pub fn implementation(strategy: Strategy, retry: &Retry) -> record::Waits {
    let exponential = "ExponentialFactorBackoff with max_delay";
    let using = match strategy.kind() {
        Kind::Fixed => "FixedInterval".to_string(),
        Kind::Exponential => exponential.to_string(),
        Kind::FullJitter => format!("{exponential}, mapped by jitter_with_bounds(0, 1)"),
        Kind::EqualJitter => format!("{exponential}, mapped by jitter_with_bounds(0.5, 1)"),
        Kind::ProportionalJitter => format!(
            "{exponential}, mapped by jitter_with_bounds({}, {})",
            1.0 - retry.jitter,
            1.0 + retry.jitter
        ),
        Kind::DecorrelatedJitter => {
            return record::Waits {
                name: "retrylab".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                using: "the engine's policy (no maintained crate implements it as the model defines it)"
                    .to_string(),
            };
        }
    };
    let (name, version) = CRATES.retry;
    record::Waits {
        name: name.to_string(),
        version: version.to_string(),
        using,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::parse_scenario;

    fn waits(strategy: Strategy, n: usize) -> Vec<Duration> {
        let scenario = parse_scenario("clients: 1\n", Some("t")).expect("a valid scenario");
        let mut waits = Waits::new(strategy, &scenario, 1);
        (0..n).map(|_| waits.next_wait()).collect()
    }

    #[test]
    fn the_crate_gives_the_engine_ceilings_of_the_crowd() {
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&m| Duration::from_millis(m))
                .collect::<Vec<_>>()
        };
        assert_eq!(waits(Strategy::Fixed, 3), ms(&[100, 100, 100]));
        assert_eq!(
            waits(Strategy::Exponential, 10),
            ms(&[100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000])
        );
    }

    #[test]
    fn jittered_waits_stay_within_their_ceilings() {
        let ceilings = [100u64, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000];
        for _ in 0..200 {
            let full = waits(Strategy::FullJitter, ceilings.len());
            let equal = waits(Strategy::EqualJitter, ceilings.len());
            for (i, &c) in ceilings.iter().enumerate() {
                let c = Duration::from_millis(c);
                assert!(full[i] <= c, "{full:?}");
                assert!(equal[i] >= c / 2 && equal[i] <= c, "{equal:?}");
            }
        }
        let decorrelated = waits(Strategy::DecorrelatedJitter, 50);
        assert!(
            decorrelated
                .iter()
                .all(|w| *w >= Duration::from_millis(100) && *w <= Duration::from_secs(10))
        );
    }
}
