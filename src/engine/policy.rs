//! Retry strategies: how long a client waits after its `a`-th failure.
//!
//! `d(a) = min(cap, base * multiplier^a)`, with `a = 0` after the first rejection. The
//! ceilings are computed by repeated multiplication in `f64` (exact for a multiplier of
//! 2, and the same on every machine), then every wait is rounded to the nearest
//! microsecond. A scenario builds its table of ceilings once per strategy
//! ([`Policies`]) and every run shares it: a multiplier just above 1 makes the table as
//! long as the horizon has ticks, and building it again for each of thousands of runs
//! cost more than the runs.
//!
//! `proportional-jitter` is gRPC's connection backoff: the wait after failure `a` is
//! `d(a) · (1 − jitter) + u · 2 · jitter · d(a)`, with `u` one uniform draw in `[0, 1)`
//! and `jitter` the scenario's `retry.jitter` (0.2 by default), so a uniform factor in
//! `[1 − jitter, 1 + jitter)` of the ceiling, rounded to the microsecond. The spread is
//! around the ceiling, the cap included: a wait may be up to `(1 + jitter) · cap`, as
//! in gRPC. Its shortest wait is `d(a) · (1 − jitter)`, rounded.

use crate::engine::rng::Pcg64;
use serde::{Deserialize, Serialize};

use super::library::{self, Library};
use super::scenario::{Retry, Scenario};
use super::units::Micros;

/// A retry strategy, by the name scenarios use: one of the six rules of the model, or
/// a library's defaults ([`super::library`]), which follow one of those rules with the
/// library's own parameters, limits and budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Always `base`.
    Fixed,
    /// `d(a)`, no jitter.
    Exponential,
    /// Uniform in `[0, d(a)]`.
    FullJitter,
    /// `d(a)/2` plus uniform in `[0, d(a)/2]`.
    EqualJitter,
    /// `min(cap, uniform in [base, 3 * prev])`, `prev` starting at `base`.
    DecorrelatedJitter,
    /// `d(a)` times a uniform factor in `[1 - jitter, 1 + jitter]` (gRPC's backoff).
    ProportionalJitter,
    /// botocore's standard retry mode.
    AwsStandard,
    /// botocore's legacy retry mode, its default.
    AwsLegacy,
    /// google-api-core's `Retry()`.
    GoogleCloud,
    /// Python backoff's `on_exception(expo, ...)`.
    PythonBackoff,
    /// urllib3's `Retry.DEFAULT`.
    Urllib3,
    /// tenacity's `Retrying()`.
    Tenacity,
    /// Polly v8's `RetryStrategyOptions`.
    Polly,
    /// resilience4j's `RetryConfig.ofDefaults()`.
    Resilience4j,
    /// spring-retry's `RetryTemplate`.
    SpringRetry,
    /// spring-retry's `@Retryable`.
    SpringRetryable,
    /// cenkalti/backoff v4's `ExponentialBackOff` (and the Rust `backoff` crate's).
    GoBackoff,
}

impl Strategy {
    /// Every strategy: the six of the model, then the libraries.
    pub const ALL: [Strategy; 17] = [
        Strategy::Fixed,
        Strategy::Exponential,
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
        Strategy::ProportionalJitter,
        Strategy::AwsStandard,
        Strategy::AwsLegacy,
        Strategy::GoogleCloud,
        Strategy::PythonBackoff,
        Strategy::Urllib3,
        Strategy::Tenacity,
        Strategy::Polly,
        Strategy::Resilience4j,
        Strategy::SpringRetry,
        Strategy::SpringRetryable,
        Strategy::GoBackoff,
    ];

    /// The six strategies of the model, whose parameters are the scenario's `retry:`.
    pub const GENERIC: [Strategy; 6] = [
        Strategy::Fixed,
        Strategy::Exponential,
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
        Strategy::ProportionalJitter,
    ];

    /// The strategies a scenario compares when it names none: the five of the model.
    pub const CLASSIC: [Strategy; 5] = [
        Strategy::Fixed,
        Strategy::Exponential,
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
    ];

    /// The name used in scenarios and output.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Fixed => "fixed",
            Strategy::Exponential => "exponential",
            Strategy::FullJitter => "full-jitter",
            Strategy::EqualJitter => "equal-jitter",
            Strategy::DecorrelatedJitter => "decorrelated-jitter",
            Strategy::ProportionalJitter => "proportional-jitter",
            Strategy::AwsStandard => "aws-standard",
            Strategy::AwsLegacy => "aws-legacy",
            Strategy::GoogleCloud => "google-cloud",
            Strategy::PythonBackoff => "python-backoff",
            Strategy::Urllib3 => "urllib3",
            Strategy::Tenacity => "tenacity",
            Strategy::Polly => "polly",
            Strategy::Resilience4j => "resilience4j",
            Strategy::SpringRetry => "spring-retry",
            Strategy::SpringRetryable => "spring-retryable",
            Strategy::GoBackoff => "go-backoff",
        }
    }

    /// The strategy of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The rule its waits follow.
    pub fn kind(self) -> Kind {
        match self {
            Strategy::Fixed => Kind::Fixed,
            Strategy::Exponential => Kind::Exponential,
            Strategy::FullJitter => Kind::FullJitter,
            Strategy::EqualJitter => Kind::EqualJitter,
            Strategy::DecorrelatedJitter => Kind::DecorrelatedJitter,
            Strategy::ProportionalJitter => Kind::ProportionalJitter,
            library => library::of(library).map_or(Kind::Fixed, |l| l.kind),
        }
    }

    /// The library whose defaults it follows, for a library strategy.
    pub fn library(self) -> Option<&'static Library> {
        library::of(self)
    }

    /// Whether its waits are random.
    pub fn is_jittered(self) -> bool {
        self.kind().is_jittered()
    }

    /// The strategies a reader may choose among in a figure that compares `own`: its
    /// own first, then the rest of their family, the six of the model or, when `own`
    /// names a library, every library.
    pub fn offered(own: &[Strategy]) -> Vec<Strategy> {
        let family: &[Strategy] = if own.iter().any(|s| s.library().is_some()) {
            &Strategy::ALL[Strategy::GENERIC.len()..]
        } else {
            &Strategy::GENERIC
        };
        let others = family.iter().filter(|s| !own.contains(s));
        own.iter().chain(others).copied().collect()
    }
}

/// The rule a strategy's waits follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Always `base`.
    Fixed,
    /// `d(a)`, no jitter.
    Exponential,
    /// Uniform in `[0, d(a)]`.
    FullJitter,
    /// `d(a)/2` plus uniform in `[0, d(a)/2]`.
    EqualJitter,
    /// `min(cap, uniform in [base, 3 * prev])`, `prev` starting at `base`.
    DecorrelatedJitter,
    /// `d(a)` times a uniform factor in `[1 - jitter, 1 + jitter]`.
    ProportionalJitter,
}

impl Kind {
    /// Whether its waits are random.
    pub fn is_jittered(self) -> bool {
        matches!(
            self,
            Kind::FullJitter
                | Kind::EqualJitter
                | Kind::DecorrelatedJitter
                | Kind::ProportionalJitter
        )
    }
}

/// A strategy with its parameters, ready to produce waits.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    kind: Kind,
    base: Micros,
    cap: Micros,
    /// `d(a)` for `a = 0, 1, …` until it reaches the cap; `cap` after that.
    ceilings: Vec<f64>,
    /// Proportional jitter's share of the ceiling.
    jitter: f64,
}

impl RetryPolicy {
    /// Builds the policy. `max_failures` bounds how many ceilings are ever needed.
    pub fn new(kind: Kind, retry: &Retry, max_failures: u64) -> RetryPolicy {
        let cap = retry.cap as f64;
        let mut ceilings = Vec::new();
        let mut d = retry.base as f64;
        while d < cap && (ceilings.len() as u64) <= max_failures {
            ceilings.push(d);
            if !grows(d, retry.multiplier) {
                break;
            }
            d *= retry.multiplier;
        }
        if d >= cap {
            ceilings.push(cap);
        }
        RetryPolicy {
            kind,
            base: retry.base,
            cap: retry.cap,
            ceilings,
            jitter: retry.jitter,
        }
    }

    /// The rule of its waits.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The ceiling `d(a)` after failure `a` (counting from 0), unrounded.
    #[inline(always)]
    pub fn ceiling(&self, failures: u32) -> f64 {
        let i = (failures as usize).min(self.ceilings.len() - 1);
        self.ceilings[i]
    }

    /// The wait after failure `failures` (0 after the first rejection). `prev` is the
    /// client's previous wait, used and updated by decorrelated jitter only; it starts
    /// at `base`. The generator is touched only by jittered strategies.
    // Always inlined: it sits in the engine's hottest loop, and a call per rejected call
    // cost a quarter of the throughput.
    #[inline(always)]
    pub fn wait(&self, failures: u32, prev: &mut u32, rng: &mut Pcg64) -> Micros {
        match self.kind {
            Kind::Fixed => self.base,
            Kind::Exponential => round(self.ceiling(failures)),
            Kind::FullJitter => round(rng.unit() * self.ceiling(failures)),
            Kind::EqualJitter => {
                let half = self.ceiling(failures) / 2.0;
                round(half + rng.unit() * half)
            }
            Kind::DecorrelatedJitter => {
                let low = self.base as f64;
                let high = 3.0 * f64::from(*prev);
                let w = round(low + rng.unit() * (high - low)).min(self.cap);
                // The cap is at most an hour, so it fits the 32-bit field.
                *prev = w as u32;
                w
            }
            Kind::ProportionalJitter => {
                let d = self.ceiling(failures);
                let low = d * (1.0 - self.jitter);
                round(low + rng.unit() * (2.0 * self.jitter * d))
            }
        }
    }
}

/// Whether a ceiling `d` grows when multiplied: a ceiling of zero, or a multiplier of one,
/// never does.
fn grows(d: f64, multiplier: f64) -> bool {
    multiplier != 1.0 && d != 0.0
}

/// The shortest wait `strategy` can draw after each failure `a = 0, 1, …`, without a
/// table: the ceilings by the same repeated multiplication as [`RetryPolicy::new`], so
/// the same values. Used to bound the calls a client can make (see
/// [`Scenario::calls_per_client`]). The iterator ends once the wait cannot change
/// any more; every later wait is its last item.
pub fn least_waits(kind: Kind, retry: &Retry) -> impl Iterator<Item = Micros> {
    let cap = retry.cap as f64;
    let multiplier = retry.multiplier;
    let mut next = Some(retry.base as f64);
    std::iter::from_fn(move || {
        let d = next?;
        let ceiling = d.min(cap);
        next = (d < cap && grows(d, multiplier)).then_some(d * multiplier);
        Some(match kind {
            Kind::Fixed => retry.base,
            Kind::Exponential => round(ceiling),
            Kind::FullJitter => 0,
            Kind::EqualJitter => round(ceiling / 2.0),
            // `min(cap, base + r · (3 · prev − base))` with `prev >= base`: at least base.
            Kind::DecorrelatedJitter => retry.base.min(retry.cap),
            Kind::ProportionalJitter => round(ceiling * (1.0 - retry.jitter)),
        })
    })
}

/// The policies of one strategy of a scenario, built once and shared by all its runs:
/// the lane's policy, or one per layer of a chain, top first.
#[derive(Clone, Debug)]
pub struct Policies {
    /// The strategy of the lane.
    pub strategy: Strategy,
    /// One policy, or one per layer.
    pub layers: Vec<RetryPolicy>,
    /// For a library strategy, the scenario with the library's `retry:` in place of
    /// the scenario's own ([`Scenario::lane`]): what its runs run.
    pub lane: Option<Box<Scenario>>,
}

impl Policies {
    /// The policies of `strategy` in `scenario`, with ceilings for as many failures as
    /// the horizon has ticks.
    pub fn new(scenario: &Scenario, strategy: Strategy) -> Policies {
        let lane = strategy
            .library()
            .map(|library| Box::new(scenario.with_library(library)));
        let scenario = lane.as_deref().unwrap_or(scenario);
        let ticks = scenario.ticks();
        let layers = if scenario.layers.is_empty() {
            vec![RetryPolicy::new(strategy.kind(), &scenario.retry, ticks)]
        } else {
            scenario
                .layers
                .iter()
                .map(|layer| {
                    RetryPolicy::new(
                        layer.strategy.unwrap_or(strategy).kind(),
                        &layer.retry(&scenario.retry),
                        ticks,
                    )
                })
                .collect()
        };
        Policies {
            strategy,
            layers,
            lane,
        }
    }
}

/// Rounds a non-negative wait to the nearest microsecond, halves away from zero: what
/// `f64::round` gives, without its call into the maths library (the default x86-64
/// target has no rounding instruction), which cost a tenth of the engine's time. Exact
/// for every wait: below 2⁵² the integer part converts back exactly, and the fraction
/// `us - t` is then computed exactly.
#[inline(always)]
fn round(us: f64) -> Micros {
    let t = us as Micros;
    if us - t as f64 >= 0.5 { t + 1 } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scenario::Scenario;
    use rand::{RngExt, SeedableRng};

    fn policy(strategy: Strategy) -> RetryPolicy {
        RetryPolicy::new(
            strategy.kind(),
            &Scenario::with_clients("t", 1).retry,
            1_000,
        )
    }

    #[test]
    fn deterministic_policies_are_exact() {
        let mut rng = Pcg64::seed_from_u64(1);
        let mut prev = 100_000;
        let fixed = policy(Strategy::Fixed);
        let exp = policy(Strategy::Exponential);
        let waits: Vec<Micros> = (0..10).map(|a| exp.wait(a, &mut prev, &mut rng)).collect();
        assert_eq!(
            waits,
            [
                100_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000, 6_400_000, 10_000_000,
                10_000_000, 10_000_000
            ]
        );
        assert_eq!(exp.wait(u32::MAX, &mut prev, &mut rng), 10_000_000);
        assert!((0..10).all(|a| fixed.wait(a, &mut prev, &mut rng) == 100_000));
    }

    #[test]
    fn a_fractional_multiplier_rounds_each_wait() {
        let mut retry = Scenario::with_clients("t", 1).retry;
        retry.base = 1;
        retry.multiplier = 1.5;
        let p = RetryPolicy::new(Kind::Exponential, &retry, 100);
        let mut rng = Pcg64::seed_from_u64(1);
        let mut prev = 1;
        let waits: Vec<Micros> = (0..5).map(|a| p.wait(a, &mut prev, &mut rng)).collect();
        // 1, 1.5, 2.25, 3.375, 5.0625
        assert_eq!(waits, [1, 2, 2, 3, 5]);
    }

    #[test]
    fn rounding_is_that_of_the_standard_library() {
        let mut rng = Pcg64::seed_from_u64(9);
        let edges = [
            0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            4_503_599_627_370_495.5,
            3.6e9 + 0.5,
            1e-300,
        ];
        let random = (0..100_000).map(|_| rng.random::<f64>() * 7.2e9);
        for us in edges.into_iter().chain(random) {
            assert_eq!(round(us), us.round() as Micros, "{us}");
        }
    }

    #[test]
    fn a_multiplier_of_one_is_fixed_at_the_base() {
        let mut retry = Scenario::with_clients("t", 1).retry;
        retry.multiplier = 1.0;
        let p = RetryPolicy::new(Kind::Exponential, &retry, 1_000_000);
        assert_eq!(p.ceilings.len(), 1);
        assert_eq!(p.ceiling(500), 100_000.0);
    }

    /// Draws many waits after failure `a` and returns (min, max, mean).
    fn draws(strategy: Strategy, a: u32) -> (Micros, Micros, f64) {
        let p = policy(strategy);
        let mut rng = Pcg64::seed_from_u64(7);
        let n = 200_000;
        let (mut lo, mut hi, mut sum) = (Micros::MAX, 0, 0.0);
        for _ in 0..n {
            let mut prev = 100_000;
            let w = p.wait(a, &mut prev, &mut rng);
            lo = lo.min(w);
            hi = hi.max(w);
            sum += w as f64;
        }
        (lo, hi, sum / f64::from(n))
    }

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < expected * 0.01
    }

    #[test]
    fn full_jitter_is_uniform_below_the_ceiling() {
        let (lo, hi, mean) = draws(Strategy::FullJitter, 3);
        assert!(lo < 1_000 && hi <= 800_000 && hi > 799_000);
        assert!(close(mean, 400_000.0), "mean {mean}");
    }

    #[test]
    fn equal_jitter_keeps_half_the_ceiling() {
        let (lo, hi, mean) = draws(Strategy::EqualJitter, 3);
        assert!((400_000..401_000).contains(&lo) && hi <= 800_000 && hi > 799_000);
        assert!(close(mean, 600_000.0), "mean {mean}");
    }

    #[test]
    fn proportional_jitter_spreads_a_fifth_around_the_ceiling() {
        let (lo, hi, mean) = draws(Strategy::ProportionalJitter, 3);
        assert!((640_000..641_000).contains(&lo) && hi <= 960_000 && hi > 959_000);
        assert!(close(mean, 800_000.0), "mean {mean}");
        // At the cap it spreads around the cap too.
        let (lo, hi, _) = draws(Strategy::ProportionalJitter, 40);
        assert!((8_000_000..8_010_000).contains(&lo) && hi <= 12_000_000 && hi > 11_990_000);
    }

    #[test]
    fn decorrelated_jitter_draws_between_base_and_three_times_prev() {
        let (lo, hi, mean) = draws(Strategy::DecorrelatedJitter, 0);
        assert!((100_000..101_000).contains(&lo) && hi <= 300_000 && hi > 299_000);
        assert!(close(mean, 200_000.0), "mean {mean}");
        // It never passes the cap, and it remembers its last wait.
        let p = policy(Strategy::DecorrelatedJitter);
        let mut rng = Pcg64::seed_from_u64(3);
        let mut prev = 9_000_000;
        for _ in 0..1000 {
            let w = p.wait(0, &mut prev, &mut rng);
            assert!((100_000..=10_000_000).contains(&w));
            assert_eq!(u64::from(prev), w);
        }
    }
}
