//! The waits one policy produces for one client, attempt by attempt: the ceiling
//! `d(a)`, the range a wait may fall in, and one seeded sample.

use crate::engine::rng::Pcg64;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::policy::{Kind, RetryPolicy, Strategy};
use super::scenario::Retry;
use super::units::Micros;

/// One wait of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Failures so far (0 after the first rejection).
    pub failures: u32,
    /// The ceiling `d(a) = min(cap, base · multiplier^a)`, rounded.
    pub ceiling: Micros,
    /// The shortest wait the policy could draw here.
    pub low: Micros,
    /// The longest wait the policy could draw here.
    pub high: Micros,
    /// The wait drawn with the seed.
    pub wait: Micros,
}

/// The first `waits` waits of `strategy` with `retry`'s parameters (a library
/// strategy's own, [`super::library`]), drawn with `seed`; fewer when the attempt limit
/// allows fewer retries (`max_attempts` calls have `max_attempts − 1` waits between
/// them). For decorrelated jitter the range depends on the previous sampled wait, as it
/// does for a real client.
pub fn schedule(strategy: Strategy, retry: &Retry, waits: u32, seed: u64) -> Vec<Step> {
    let own;
    let retry = match strategy.library() {
        Some(library) => {
            own = library.retry(retry);
            &own
        }
        None => retry,
    };
    let waits = retry
        .max_attempts
        .map_or(waits, |n| waits.min(n.saturating_sub(1)));
    let policy = RetryPolicy::new(strategy.kind(), retry, u64::from(waits));
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut prev = retry.base as u32;
    (0..waits)
        .map(|a| {
            let d = policy.ceiling(a);
            let ceiling = d.round() as Micros;
            let (low, high) = match strategy.kind() {
                Kind::Fixed => (retry.base, retry.base),
                Kind::Exponential => (ceiling, ceiling),
                Kind::FullJitter => (0, ceiling),
                Kind::EqualJitter => ((d / 2.0).round() as Micros, ceiling),
                Kind::DecorrelatedJitter => (retry.base, (3 * Micros::from(prev)).min(retry.cap)),
                Kind::ProportionalJitter => (
                    (d * (1.0 - retry.jitter)).round() as Micros,
                    (d * (1.0 + retry.jitter)).round() as Micros,
                ),
            };
            let wait = policy.wait(a, &mut prev, &mut rng);
            Step {
                failures: a,
                ceiling,
                low,
                high,
                wait,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Scenario;

    #[test]
    fn a_schedule_stops_at_the_attempt_limit() {
        // botocore's standard mode makes 3 attempts: 2 waits, whatever is asked; urllib3
        // 4 (3 retries); google-api-core has no attempt limit.
        let retry = Scenario::with_clients("s", 1).retry;
        assert_eq!(schedule(Strategy::AwsStandard, &retry, 8, 1).len(), 2);
        assert_eq!(schedule(Strategy::Urllib3, &retry, 8, 1).len(), 3);
        assert_eq!(schedule(Strategy::GoogleCloud, &retry, 8, 1).len(), 8);
        let limited = Retry {
            max_attempts: Some(1),
            ..retry
        };
        assert!(schedule(Strategy::Exponential, &limited, 8, 1).is_empty());
    }

    #[test]
    fn exponential_doubles_to_the_cap_and_jitter_stays_in_range() {
        let retry = Scenario::with_clients("s", 1).retry;
        let exp = schedule(Strategy::Exponential, &retry, 9, 1);
        let waits: Vec<Micros> = exp.iter().map(|s| s.wait).collect();
        assert_eq!(
            waits,
            [
                100_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000, 6_400_000, 10_000_000,
                10_000_000
            ]
        );
        for strategy in Strategy::GENERIC {
            for step in schedule(strategy, &retry, 12, 7) {
                assert!(
                    step.low <= step.wait && step.wait <= step.high,
                    "{strategy:?} {step:?}"
                );
                // Proportional jitter spreads around the ceiling, the cap included, as
                // gRPC's backoff does.
                let most = if strategy == Strategy::ProportionalJitter {
                    (retry.cap as f64 * (1.0 + retry.jitter)).round() as Micros
                } else {
                    retry.cap
                };
                assert!(step.high <= most);
            }
        }
    }
}
