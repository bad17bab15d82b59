//! The strategies named after retry libraries, against cases computed by hand from the
//! rules of the engine's `library` module and the libraries' defaults it cites.

use retrylab::engine::scenario::{HintWhen, Outage, RetryAfter};
use retrylab::engine::schedule::schedule;
use retrylab::engine::{Scenario, Strategy, Totals, parse_scenario, run_scenario, simulate};

const MS: u64 = 1_000;
const S: u64 = 1_000_000;

/// `clients` clients at 0 against a server that is down for the whole horizon.
fn down(clients: u64, horizon: u64) -> Scenario {
    let mut s = Scenario::with_clients("lib", clients);
    s.horizon = horizon;
    s.server.outages = vec![Outage {
        from: 0,
        to: horizon,
    }];
    s
}

fn totals(s: &Scenario, strategy: Strategy) -> Totals {
    simulate(s, strategy, 1, false).totals
}

fn summary(t: &Totals) -> (u64, u64, u64, u64) {
    (t.calls, t.served, t.gave_up, t.still_retrying)
}

#[test]
fn tenacity_retries_every_tick_without_end() {
    // No wait: a retry is seen in the next tick, ten ticks in a second.
    let t = totals(&down(1, S), Strategy::Tenacity);
    assert_eq!(summary(&t), (10, 0, 0, 1));
}

#[test]
fn spring_retry_tries_three_times_at_once() {
    let t = totals(&down(1, S), Strategy::SpringRetry);
    assert_eq!(summary(&t), (3, 0, 1, 0));
    assert_eq!(t.done_at, Some(200 * MS));
}

#[test]
fn fixed_waits_of_resilience4j_spring_retryable_and_polly() {
    // 500 ms, 3 attempts: calls at 0, 0.5 and 1 s.
    let t = totals(&down(1, 10 * S), Strategy::Resilience4j);
    assert_eq!((summary(&t), t.done_at), ((3, 0, 1, 0), Some(S)));
    // 1 s, 3 attempts: 0, 1 and 2 s.
    let t = totals(&down(1, 10 * S), Strategy::SpringRetryable);
    assert_eq!((summary(&t), t.done_at), ((3, 0, 1, 0), Some(2 * S)));
    // 2 s, 4 attempts: 0, 2, 4 and 6 s.
    let t = totals(&down(1, 10 * S), Strategy::Polly);
    assert_eq!((summary(&t), t.done_at), ((4, 0, 1, 0), Some(6 * S)));
}

#[test]
fn urllib3_retries_a_refusal_only_when_it_carries_retry_after() {
    // No hint: the 503 goes back to the caller.
    let t = totals(&down(1, 10 * S), Strategy::Urllib3);
    assert_eq!((summary(&t), t.done_at), ((1, 0, 1, 0), Some(0)));
    // A hint of 2 s on every refusal: 3 retries, each after the hint.
    let mut s = down(1, 10 * S);
    s.server.retry_after = Some(RetryAfter {
        hint: 2 * S,
        when: HintWhen::Always,
    });
    let t = totals(&s, Strategy::Urllib3);
    assert_eq!((summary(&t), t.done_at), ((4, 0, 1, 0), Some(6 * S)));
    // A hint only while the server is down: two clients against one call per tick,
    // the second refused by a server that is up, so with no hint, and not retried.
    let mut s = Scenario::with_clients("lib", 2);
    s.server.capacity_milli = 1_000;
    s.server.rejection_cost_milli = 0;
    s.server.retry_after = Some(RetryAfter {
        hint: 2 * S,
        when: HintWhen::Down,
    });
    let t = totals(&s, Strategy::Urllib3);
    assert_eq!((summary(&t), t.done_at), ((2, 1, 1, 0), Some(0)));
}

#[test]
fn aws_standard_stops_retrying_when_the_quota_of_500_is_spent() {
    // 200 refusals in tick 0: 100 retries at 5 tokens each spend the 500, the other 100
    // clients are denied; the 100 retries are refused again and, the quota empty, denied
    // too. No third attempt is ever made.
    let t = totals(&down(200, 60 * S), Strategy::AwsStandard);
    assert_eq!(summary(&t), (300, 0, 200, 0));
    assert_eq!(t.denied, 200);
}

#[test]
fn aws_legacy_makes_five_attempts_and_no_more() {
    // Waits below 1, 2, 4 and 8 s: the fifth call is before 15 s.
    let t = totals(&down(1, 20 * S), Strategy::AwsLegacy);
    assert_eq!(summary(&t), (5, 0, 1, 0));
    assert!(t.done_at.unwrap() < 15 * S);
}

#[test]
fn python_backoff_never_gives_up() {
    let t = totals(&down(50, 60 * S), Strategy::PythonBackoff);
    assert_eq!((t.served, t.gave_up, t.still_retrying), (0, 0, 50));
}

#[test]
fn google_cloud_gives_up_when_the_next_call_would_pass_120_seconds() {
    let t = totals(&down(1_000, 300 * S), Strategy::GoogleCloud);
    assert_eq!((t.served, t.gave_up, t.still_retrying), (0, 1_000, 0));
    // Nobody calls after 120 s, and so nobody gives up after it.
    assert!(t.done_at.unwrap() <= 120 * S);
}

#[test]
fn go_backoff_gives_up_after_fifteen_minutes() {
    let t = totals(&down(100, 3_600 * S), Strategy::GoBackoff);
    assert_eq!((t.served, t.gave_up, t.still_retrying), (0, 100, 0));
    assert!(t.done_at.unwrap() <= 900 * S);
    // At least 13 minutes: waits of at most 1.5 × the ceiling, 60 s capped, from 0.75 s.
    assert!(t.done_at.unwrap() > 800 * S, "{:?}", t.done_at);
}

#[test]
fn the_libraries_ceilings_are_their_sources() {
    let retry = Scenario::with_clients("lib", 1).retry;
    let ceilings = |s: Strategy, n: u32| -> Vec<u64> {
        schedule(s, &retry, n, 1)
            .iter()
            .map(|w| w.ceiling)
            .collect()
    };
    // botocore standard: min(1 s × 2^(n−1), 20 s), and 3 attempts, so 2 waits however
    // many are asked for; the cap, which 3 attempts never reach, is in its numbers.
    assert_eq!(ceilings(Strategy::AwsStandard, 7), [1, 2].map(|x| x * S));
    assert_eq!(Strategy::AwsStandard.library().map(|l| l.cap), Some(20 * S));
    // google-api-core: doubling from 1 s to 60 s.
    assert_eq!(
        ceilings(Strategy::GoogleCloud, 8),
        [1, 2, 4, 8, 16, 32, 60, 60].map(|x| x * S)
    );
    // botocore legacy and backoff.expo: no cap.
    assert_eq!(
        ceilings(Strategy::AwsLegacy, 4),
        [1, 2, 4, 8].map(|x| x * S)
    );
    assert_eq!(ceilings(Strategy::PythonBackoff, 13)[12], 4_096 * S);
    // cenkalti/backoff: 500 ms × 1.5^(n−1) to 60 s, each wait in [0.5, 1.5] × it.
    let go = schedule(Strategy::GoBackoff, &retry, 14, 3);
    let go_ceilings: Vec<u64> = go.iter().map(|w| w.ceiling).collect();
    assert_eq!(
        go_ceilings[..5],
        [500_000, 750_000, 1_125_000, 1_687_500, 2_531_250]
    );
    assert_eq!(go_ceilings[12..], [60 * S, 60 * S]);
    assert_eq!((go[12].low, go[12].high), (30 * S, 90 * S));
    for w in &go {
        assert!(w.low <= w.wait && w.wait <= w.high);
    }
    // No waits at all for tenacity, urllib3 and spring-retry, whose 3 attempts have 2.
    for s in [Strategy::Tenacity, Strategy::Urllib3] {
        assert_eq!(ceilings(s, 3), [0, 0, 0], "{s:?}");
    }
    assert_eq!(ceilings(Strategy::SpringRetry, 3), [0, 0]);
}

#[test]
fn a_library_strategy_ignores_the_scenarios_retry_settings() {
    // The scenario's own base, cap, attempts and budget do not reach the library's lane.
    let yaml = "id: mixed\nclients: 1\nhorizon: 10s\nserver: {outages: [{from: 0s, to: 10s}]}\n\
                retry: {base: 1s, max_attempts: 2}\nstrategies: [fixed, polly]\n";
    let s = parse_scenario(yaml, None).unwrap();
    let r = run_scenario(&s);
    let calls = |name: &str| {
        r.strategies
            .iter()
            .find(|x| x.strategy.name() == name)
            .unwrap()
            .calls
            .median
    };
    assert_eq!((calls("fixed"), calls("polly")), (2, 4));
}

#[test]
fn settings_that_change_no_strategy_are_refused_where_they_are_written() {
    let yaml = "id: libs\nclients: 10\nretry:\n  base: 1s\n  timeout: 2s\n  max_attempts: 3\n\
                strategies: [aws-standard, tenacity]\n";
    let errors = parse_scenario(yaml, None).unwrap_err();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!((errors[0].pos.line, errors[0].pos.column), (4, 3));
    assert!(
        errors[0].message.starts_with(
            "`retry.base` changes no strategy of this scenario: `aws-standard`, `tenacity` wait"
        ),
        "{}",
        errors[0].message
    );
    assert_eq!((errors[1].pos.line, errors[1].pos.column), (6, 3));
    // The timeout is the client's, not the library's: it stays.
    let ok = "id: libs\nclients: 10\nretry: {timeout: 2s}\nstrategies: [aws-standard]\n";
    assert!(parse_scenario(ok, None).is_ok());
}

#[test]
fn a_library_strategy_cannot_run_layers() {
    let yaml = "id: libs\nclients: 10\nlayers: [{attempts: 2}, {attempts: 3}]\n\
                strategies: [fixed, go-backoff]\n";
    let errors = parse_scenario(yaml, None).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!((errors[0].pos.line, errors[0].pos.column), (4, 21));
    assert!(
        errors[0]
            .message
            .contains("`go-backoff` retries as its library does")
    );
    // Nor may a layer name one.
    let yaml = "id: libs\nclients: 10\nlayers: [{attempts: 2, strategy: polly}]\n";
    let errors = parse_scenario(yaml, None).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn the_existing_strategies_keep_their_key() {
    // A library strategy adds nothing to the serialised scenario of the others.
    let s = Scenario::with_clients("k", 1);
    let json = serde_json::to_string(&s).unwrap();
    assert!(!json.contains("only_with_hint"), "{json}");
}

/// The two-sample Kolmogorov–Smirnov statistic: the largest gap between the two
/// samples' empirical distribution functions.
fn ks_statistic(a: &mut [f64], b: &mut [f64]) -> f64 {
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (n, m) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] == x {
            i += 1;
        }
        while j < b.len() && b[j] == x {
            j += 1;
        }
        d = d.max((i as f64 / n - j as f64 / m).abs());
    }
    d
}

#[test]
fn go_backoff_is_the_backoff_crates_default() {
    use backoff::backoff::Backoff;
    use std::time::Duration;

    // The numbers: ihrwein/backoff@v0.4.0 src/default.rs:1-13 and
    // src/exponential.rs:35-53, which are cenkalti/backoff's (exponential.go:78-101).
    let library = Strategy::GoBackoff.library().unwrap();
    let crate_default = backoff::ExponentialBackoff::default();
    assert_eq!(
        crate_default.initial_interval,
        Duration::from_micros(library.base)
    );
    assert_eq!(
        crate_default.max_interval,
        Duration::from_micros(library.cap)
    );
    assert_eq!(crate_default.multiplier, library.multiplier);
    assert_eq!(crate_default.randomization_factor, library.jitter);
    assert_eq!(
        crate_default.max_elapsed_time,
        library.deadline.map(Duration::from_micros)
    );
    assert_eq!(library.max_attempts, None);

    // The waits: the first 6 `next_backoff()` of 2,000 fresh instances against 2,000
    // seeded draws of the engine, retry by retry. The crate draws with `rand::random`
    // (src/exponential.rs:111-133), a thread RNG that cannot be seeded, so its side
    // differs from run to run. The fixed threshold at alpha 10^-6 is what keeps this
    // from being flaky: were the model right, each of the 6 comparisons would refuse
    // wrongly once in a million runs, the test at most 6 times in a million. It still
    // refuses a wrong model: first waits a tenth longer (uniform over 275–825 ms, not
    // 250–750 ms) are 0.136 apart in distribution at 750 ms, and the threshold is 0.085.
    const DRAWS: usize = 2_000;
    const RETRIES: usize = 6;
    let retry = Scenario::with_clients("go", 1).retry;
    let mut crate_waits = vec![Vec::new(); RETRIES];
    let mut engine_waits = vec![Vec::new(); RETRIES];
    for d in 0..DRAWS {
        let mut b = backoff::ExponentialBackoff::default();
        for waits in crate_waits.iter_mut() {
            waits.push(b.next_backoff().unwrap().as_secs_f64());
        }
        let steps = schedule(Strategy::GoBackoff, &retry, RETRIES as u32, d as u64);
        for (waits, step) in engine_waits.iter_mut().zip(steps) {
            waits.push(step.wait as f64 / S as f64);
        }
    }
    let n = DRAWS as f64;
    // c(alpha) = sqrt(-ln(alpha / 2) / 2) = 2.693 at alpha 10^-6.
    let threshold = 2.693 * ((n + n) / (n * n)).sqrt();
    for (r, (a, b)) in crate_waits.iter_mut().zip(&mut engine_waits).enumerate() {
        let d = ks_statistic(a, b);
        println!(
            "go-backoff retry {}: KS D = {d:.4}, threshold {threshold:.4}",
            r + 1
        );
        assert!(
            d <= threshold,
            "go-backoff retry {}: KS D = {d:.4} > {threshold:.4} against the backoff crate",
            r + 1
        );
    }
}

/// The prose of the retry-libraries article: its paragraphs, without the generated
/// reference table and the scenario blocks.
fn article_paragraphs() -> Vec<String> {
    let text = std::fs::read_to_string("content/library-defaults.md").unwrap();
    let mut paragraphs = Vec::new();
    let mut fenced = false;
    let mut current = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.starts_with('|') {
            continue;
        }
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            current.push_str(line);
            current.push(' ');
        }
    }
    paragraphs.push(current);
    paragraphs
}

#[test]
fn the_article_cites_resilience4js_randomized_functions_at_their_lines() {
    // IntervalFunction.java:18-29 at v2.4.0 holds the default constants and
    // ofDefaults(), a fixed 500 ms: right for the defaults' row, wrong for the advice
    // to turn on jitter, which is ofRandomized (:71-94) and ofExponentialRandomBackoff
    // (:130-229).
    let advice: Vec<String> = article_paragraphs()
        .into_iter()
        .filter(|p| p.contains("randomized interval functions"))
        .collect();
    assert_eq!(advice.len(), 1, "{advice:#?}");
    assert!(
        advice[0].contains("[@r4j-interval-function, lines 71-94, 130-229]"),
        "{}",
        advice[0]
    );
    let text = std::fs::read_to_string("sources.yaml").unwrap();
    let sources = retrylab::site::sources::read(&text).unwrap();
    let entry = sources.get("r4j-interval-function").unwrap();
    assert_eq!(
        entry.address().as_deref(),
        Some(
            "https://github.com/resilience4j/resilience4j/blob/v2.4.0/resilience4j-core/src/\
             main/java/io/github/resilience4j/core/IntervalFunction.java"
        )
    );
    for p in article_paragraphs() {
        assert!(!p.contains("lines 18-29"), "{p}");
    }
}

#[test]
fn the_article_never_says_tenacity_waits_a_second() {
    // tenacity's wait_none() retries at once (tenacity/wait.py:59-63); a second is the
    // scenario's tick, which the article must name as the model's bound.
    let paragraphs = article_paragraphs();
    for p in paragraphs.iter().filter(|p| p.contains("tenacity")) {
        for said in [
            "next second",
            "every second",
            "a second later",
            "once a second",
        ] {
            assert!(!p.contains(said), "`{said}` in: {p}");
        }
    }
    assert!(
        paragraphs
            .iter()
            .any(|p| p.contains("tenacity") && p.contains("rounds that up to the next tick")),
        "the article no longer says that the tick bounds tenacity's storm"
    );
}
