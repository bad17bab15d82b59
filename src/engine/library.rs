//! Strategies named after retry libraries: what each library does by default, for
//! everything it decides, read from its source at the version given.
//!
//! A library strategy is one of the model's wait rules ([`Kind`]) with the library's
//! own parameters, and the library's attempt limit, time limit, retry budget and
//! handling of Retry-After. In a lane of a library strategy these replace the
//! scenario's `retry:` keys `base`, `cap`, `multiplier`, `jitter`, `max_attempts`,
//! `deadline`, `honor_retry_after` and `budget` ([`Scenario::with_library`]); the
//! scenario's `timeout`, `breaker` and `throttle` stay, since they are not the retry
//! library's (a client's timeout, a breaker or a throttle in front of it).
//!
//! The server's refusal is the error each library retries by default: an HTTP 503 (or
//! 429) for the HTTP libraries, a throttling error for botocore, an exception for the
//! generic ones. The rules, beyond the model's:
//!
//! - **No cap.** A library without a longest wait gets a cap of 2⁵⁰ µs (about 36
//!   years): its ceilings double to it from 1 s only at the 32nd retry. To make that
//!   retry within the longest horizon (an hour), a client's full-jitter waits from the
//!   13th to the 31st would each have to fall below an hour, a chance below 10⁻⁴⁶; and
//!   a wait drawn below either ceiling past that is still longer than the horizon but
//!   for a chance below 10⁻⁵.
//! - **A time limit** is the model's `deadline`: a client gives up when its next call
//!   would be sent after its first call plus the limit (google-api-core: "gives up if
//!   `now + next_sleep > deadline`", the deadline set before the first attempt;
//!   cenkalti/backoff: `Stop` when `elapsed + next > MaxElapsedTime`, the clock reset
//!   before the first call). A retry exactly at the limit is still sent.
//! - **Retry-After only** (urllib3): a refusal that carries no Retry-After hint ends
//!   the request, the client giving up in the tick of the refusal; one that carries a
//!   hint is retried after the hint (urllib3 sleeps the header's value and its backoff
//!   is 0). A timeout is retried at once (urllib3 retries read errors of idempotent
//!   methods without a wait).
//! - **Waits to the microsecond**: cenkalti/backoff draws in nanoseconds
//!   (`min + random · (max − min + 1)`), the model in microseconds, rounded; the two
//!   differ by less than a microsecond.
//!
//! Left out, with the reason (see the site's page `content/library-sources.md`):
//! Envoy retries nothing without a `retry_on`, and its always-on limit (three retries in
//! flight per cluster) is not in the model; Finagle requeues only nacks and unsent
//! requests, never a 503, and caps requeues per request by the budget's balance, which
//! the model does not keep; gRPC has no default retry policy.

use super::policy::{Kind, Strategy};
use super::scenario::{Budget, Retry, Scenario};
use super::units::{Micros, SECOND};

const MS: Micros = SECOND / 1000;

/// "No cap": see the module's documentation.
pub const NO_CAP: Micros = 1 << 50;

/// What a library does with the server's Retry-After hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryAfter {
    /// It never reads it.
    Ignored,
    /// It waits at least the hint.
    Honoured,
    /// It retries a refusal only when the refusal carries the hint, and then waits it.
    Required,
}

/// One library's defaults, with where they were read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Library {
    /// The strategy's name.
    pub name: &'static str,
    /// The rule of its waits.
    pub kind: Kind,
    /// The first wait's ceiling.
    pub base: Micros,
    /// The longest ceiling.
    pub cap: Micros,
    /// Growth of the ceiling per failure.
    pub multiplier: f64,
    /// The share of the ceiling of a proportional jitter.
    pub jitter: f64,
    /// Calls per request at most, counting the first.
    pub max_attempts: Option<u32>,
    /// The time limit from the first call.
    pub deadline: Option<Micros>,
    /// The Retry-After hint.
    pub retry_after: RetryAfter,
    /// The retry budget.
    pub budget: Option<Budget>,
}

impl Library {
    /// Its `retry:` in a scenario whose own is `scenario`: the library's settings, the
    /// scenario's timeout, breaker, throttle and hedging, and where a retry goes in a
    /// fleet.
    pub fn retry(&self, scenario: &Retry) -> Retry {
        Retry {
            base: self.base,
            cap: self.cap,
            multiplier: self.multiplier,
            max_attempts: self.max_attempts,
            deadline: self.deadline,
            honor_retry_after: self.retry_after != RetryAfter::Ignored,
            only_with_hint: self.retry_after == RetryAfter::Required,
            budget: self.budget,
            breaker: scenario.breaker,
            timeout: scenario.timeout,
            throttle: scenario.throttle,
            jitter: self.jitter,
            elsewhere: scenario.elsewhere,
            hedging: scenario.hedging,
        }
    }

    /// Where its defaults were read.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn source(&self) -> &'static Source {
        let i = LIBRARIES.iter().position(|l| l.name == self.name);
        &SOURCES[i.unwrap_or(0)]
    }

    /// Its waits in words, for the reference.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn waits(&self) -> String {
        let s = |us: Micros| crate::format::duration(us);
        let growth = if self.multiplier == 2.0 {
            "doubling".to_string()
        } else {
            format!("×{}", self.multiplier)
        };
        let to = if self.cap == NO_CAP {
            ", no cap".to_string()
        } else {
            format!(" to {}", s(self.cap))
        };
        match self.kind {
            Kind::Fixed if self.base == 0 => "none".to_string(),
            Kind::Fixed => format!("{} each", s(self.base)),
            Kind::FullJitter => format!("full jitter over {} {growth}{to}", s(self.base)),
            Kind::ProportionalJitter => format!(
                "{} {growth}{to}, ±{}%",
                s(self.base),
                (self.jitter * 100.0).round()
            ),
            Kind::Exponential => format!("{} {growth}{to}", s(self.base)),
            Kind::EqualJitter => format!("equal jitter over {} {growth}{to}", s(self.base)),
            Kind::DecorrelatedJitter => format!("decorrelated jitter from {}", s(self.base)),
        }
    }
}

/// A budget's settings in words, for the reference.
#[cfg(not(target_arch = "wasm32"))]
pub fn settings(budget: &Budget) -> String {
    match *budget {
        Budget::Aws {
            quota,
            retry_cost,
            no_retry_increment,
        } => format!(
            "{quota} tokens, {retry_cost} a retry; a request served on a retry gets that \
             retry's {retry_cost} back, one served at its first call {no_retry_increment}"
        ),
        Budget::Grpc {
            max_tokens,
            token_ratio_milli,
        } => format!(
            "{max_tokens} tokens, {} back a success",
            token_ratio_milli as f64 / 1000.0
        ),
        Budget::Finagle {
            ttl,
            min_retries_per_sec,
            percent_can_retry_milli,
        } => format!(
            "{}% of requests over {}, plus {min_retries_per_sec} a second",
            percent_can_retry_milli / 10,
            crate::format::duration(ttl)
        ),
    }
}

/// The library of a library strategy; `None` for the six of the model.
pub fn of(strategy: Strategy) -> Option<&'static Library> {
    let i = match strategy {
        Strategy::Fixed
        | Strategy::Exponential
        | Strategy::FullJitter
        | Strategy::EqualJitter
        | Strategy::DecorrelatedJitter
        | Strategy::ProportionalJitter => return None,
        Strategy::AwsStandard => 0,
        Strategy::AwsLegacy => 1,
        Strategy::GoogleCloud => 2,
        Strategy::PythonBackoff => 3,
        Strategy::Urllib3 => 4,
        Strategy::Tenacity => 5,
        Strategy::Polly => 6,
        Strategy::Resilience4j => 7,
        Strategy::SpringRetry => 8,
        Strategy::SpringRetryable => 9,
        Strategy::GoBackoff => 10,
    };
    Some(&LIBRARIES[i])
}

/// Every library strategy, in the order of [`Strategy::ALL`].
pub const LIBRARIES: [Library; 11] = [
    Library {
        name: "aws-standard",
        kind: Kind::FullJitter,
        base: SECOND,
        cap: 20 * SECOND,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(3),
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: Some(Budget::Aws {
            quota: 500,
            retry_cost: 5,
            no_retry_increment: 1,
        }),
    },
    Library {
        name: "aws-legacy",
        kind: Kind::FullJitter,
        base: SECOND,
        cap: NO_CAP,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(5),
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "google-cloud",
        kind: Kind::FullJitter,
        base: SECOND,
        cap: 60 * SECOND,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: None,
        deadline: Some(120 * SECOND),
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "python-backoff",
        kind: Kind::FullJitter,
        base: SECOND,
        cap: NO_CAP,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: None,
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "urllib3",
        kind: Kind::Fixed,
        base: 0,
        cap: 0,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(4),
        deadline: None,
        retry_after: RetryAfter::Required,
        budget: None,
    },
    Library {
        name: "tenacity",
        kind: Kind::Fixed,
        base: 0,
        cap: 0,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: None,
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "polly",
        kind: Kind::Fixed,
        base: 2 * SECOND,
        cap: 2 * SECOND,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(4),
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "resilience4j",
        kind: Kind::Fixed,
        base: 500 * MS,
        cap: 500 * MS,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(3),
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "spring-retry",
        kind: Kind::Fixed,
        base: 0,
        cap: 0,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(3),
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "spring-retryable",
        kind: Kind::Fixed,
        base: SECOND,
        cap: SECOND,
        multiplier: 2.0,
        jitter: 0.0,
        max_attempts: Some(3),
        deadline: None,
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
    Library {
        name: "go-backoff",
        kind: Kind::ProportionalJitter,
        base: 500 * MS,
        cap: 60 * SECOND,
        multiplier: 1.5,
        jitter: 0.5,
        max_attempts: None,
        deadline: Some(15 * 60 * SECOND),
        retry_after: RetryAfter::Ignored,
        budget: None,
    },
];

/// Where a library strategy's defaults come from, for the reference (not in the
/// browser's module, which needs only the numbers).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Source {
    /// The library, as its users install it.
    pub library: &'static str,
    /// The version its defaults were read from.
    pub version: &'static str,
    /// What "by default" means: the call with no retry settings.
    pub default: &'static str,
    /// Where the defaults are written: `owner/name@tag path:lines, lines; path:lines`,
    /// a repository on GitHub named again where the next file is in another. The
    /// reference links each file at its tag and lines (`site::docs`).
    pub source: &'static str,
    /// What the library does with a server's Retry-After, where "ignored" would say
    /// less than the truth.
    pub retry_after: Option<&'static str>,
}

/// Where each library's defaults were read, in the order of [`LIBRARIES`].
#[cfg(not(target_arch = "wasm32"))]
pub const SOURCES: [Source; 11] = [
    // aws-standard
    Source {
        library: "botocore (AWS SDK for Python)",
        version: "1.43.67",
        default: "`Config(retries={'mode': 'standard'})`, the refusal a throttling error",
        source: "boto/botocore@1.43.67 botocore/retries/standard.py:44-48, 425-429, \
                 468-482, 669-738; botocore/retries/quota.py:6-50",
        retry_after: None,
    },
    // aws-legacy
    Source {
        library: "botocore (AWS SDK for Python)",
        version: "1.43.67",
        default: "a client with no retry configuration (legacy mode)",
        source: "boto/botocore@1.43.67 botocore/configprovider.py:24-41; \
                 botocore/data/_retry.json:91-113; botocore/retryhandler.py:43-63, 260-300",
        retry_after: None,
    },
    // google-cloud
    Source {
        library: "google-api-core",
        version: "2.29.0",
        default: "`Retry()`",
        source: "googleapis/python-api-core@v2.29.0 google/api_core/retry/retry_base.py:43-46, \
                 100-122, 207-233; google/api_core/retry/retry_unary.py:110-112, 137-167",
        retry_after: None,
    },
    // python-backoff
    Source {
        library: "backoff (Python)",
        version: "2.2.1",
        default: "`@backoff.on_exception(backoff.expo, E)`",
        source: "litl/backoff@v2.2.1 backoff/_wait_gen.py:7-31; backoff/_decorator.py:123-137; \
                 backoff/_jitter.py:18-28",
        retry_after: None,
    },
    // urllib3
    Source {
        library: "urllib3",
        version: "2.7.0",
        default: "`Retry.DEFAULT` (`Retry(3)`), a GET",
        source: "urllib3/urllib3@2.7.0 src/urllib3/util/retry.py:219-253, 309-326, 349-387, \
                 411-431, 556-557",
        retry_after: None,
    },
    // tenacity
    Source {
        library: "tenacity",
        version: "9.1.4",
        default: "`Retrying()`",
        source: "jd/tenacity@9.1.4 tenacity/__init__.py:215-239; tenacity/stop.py:64-71; \
                 tenacity/wait.py:49-63",
        retry_after: None,
    },
    // polly
    Source {
        library: "Polly (.NET)",
        version: "8.7.0",
        default: "`new RetryStrategyOptions()`",
        source: "App-vNext/Polly@8.7.0 src/Polly.Core/Retry/RetryConstants.cs:9-15; \
                 src/Polly.Core/Retry/RetryHelper.cs:113-140; \
                 src/Polly.Core/Retry/RetryResilienceStrategy.cs:46-86",
        retry_after: None,
    },
    // resilience4j
    Source {
        library: "resilience4j",
        version: "2.4.0",
        default: "`RetryConfig.ofDefaults()`",
        source: "resilience4j/resilience4j@v2.4.0 resilience4j-retry/src/main/java/io/github/\
                 resilience4j/retry/RetryConfig.java:39-43; resilience4j-core/src/main/java/io/\
                 github/resilience4j/core/IntervalFunction.java:18-29",
        retry_after: None,
    },
    // spring-retry
    Source {
        library: "spring-retry",
        version: "2.0.12",
        default: "`new RetryTemplate()`",
        source: "spring-projects/spring-retry@v2.0.12 src/main/java/org/springframework/retry/\
                 support/RetryTemplate.java:93-95; src/main/java/org/springframework/retry/\
                 policy/SimpleRetryPolicy.java:69, 213-224",
        retry_after: None,
    },
    // spring-retryable
    Source {
        library: "spring-retry",
        version: "2.0.12",
        default: "`@Retryable`",
        source: "spring-projects/spring-retry@v2.0.12 src/main/java/org/springframework/retry/\
                 annotation/Retryable.java:131-133, 150; src/main/java/org/springframework/\
                 retry/annotation/Backoff.java:59, 69; src/main/java/org/springframework/retry/\
                 backoff/BackOffPolicyBuilder.java:218-281",
        retry_after: None,
    },
    // go-backoff
    Source {
        library: "cenkalti/backoff (Go) and the backoff crate (Rust), alike",
        version: "4.3.0 and 0.4.0",
        default: "`backoff.Retry(op, backoff.NewExponentialBackOff())`",
        source: "cenkalti/backoff@v4.3.0 exponential.go:78-101, 171-180, 193-216; \
                 retry.go:37-39, 70-118; ihrwein/backoff@v0.4.0 src/default.rs:1-13",
        retry_after: Some(
            "not read from the response; the backoff crate waits a `retry_after` its \
             caller passes in the error instead of its own next wait \
             (ihrwein/backoff@v0.4.0 src/retry.rs:93-101; src/error.rs:19-22, 42)",
        ),
    },
];

impl Scenario {
    /// The scenario as a lane of `library` runs it: its `retry:` replaced by the
    /// library's ([`Library::retry`]).
    pub fn with_library(&self, library: &Library) -> Scenario {
        Scenario {
            retry: library.retry(&self.retry),
            ..self.clone()
        }
    }

    /// The scenario a lane of `strategy` runs: itself, or for a library strategy
    /// [`Scenario::with_library`].
    pub fn lane(&self, strategy: Strategy) -> std::borrow::Cow<'_, Scenario> {
        match strategy.library() {
            Some(library) => std::borrow::Cow::Owned(self.with_library(library)),
            None => std::borrow::Cow::Borrowed(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_strategy_has_its_library_and_no_other_does() {
        let libraries: Vec<Strategy> = Strategy::ALL
            .into_iter()
            .filter(|s| s.library().is_some())
            .collect();
        assert_eq!(libraries.len(), LIBRARIES.len());
        assert_eq!(SOURCES.len(), LIBRARIES.len());
        for s in libraries {
            assert_eq!(s.library().map(|l| l.name), Some(s.name()));
            assert!(!Strategy::GENERIC.contains(&s));
        }
        for s in Strategy::GENERIC {
            assert!(s.library().is_none());
        }
    }

    #[test]
    fn no_cap_is_never_reached_within_an_hour() {
        // Doubling from 1 s, the ceiling reaches 2^50 µs only at the 32nd retry.
        let mut d = SECOND as f64;
        let mut n = 1;
        while d < NO_CAP as f64 {
            d *= 2.0;
            n += 1;
        }
        assert_eq!(n, 32);
        // And the cap fits every sum of a clock below an hour and a wait.
        assert!(
            super::super::scenario::MAX_TIME
                .checked_add(NO_CAP)
                .is_some()
        );
    }
}
