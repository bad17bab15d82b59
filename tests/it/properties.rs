//! Property tests over random valid scenarios, and over random text.

use proptest::prelude::*;
use retrylab::engine::{Strategy as Retry, parse_scenario, simulate};

use crate::old_loops;
use crate::util::scenario;

/// A small random scenario in YAML, so that the reader is exercised too.
fn any_scenario() -> impl Strategy<Value = String> {
    (
        (
            1u64..300,
            1u64..40,
            prop_oneof!["capacity", "all-or-nothing"],
            0u64..1000,
        ),
        (1u64..200, 1u64..50, 0u64..3000),
        (
            prop::option::of(1u32..8),
            prop::option::of(1u64..5000),
            1.0f64..4.0,
        ),
        (prop::option::of((0u64..3000, 1u64..3000)), 0u64..1000),
        beyond(),
    )
        .prop_map(|(server, retry, limits, extra, beyond)| {
            let (clients, capacity, model, cost) = server;
            let (tick_ms, base_ms, cap_extra_ms) = retry;
            let (max_attempts, deadline_ms, multiplier) = limits;
            let (outage, spread_ms) = extra;
            let (arrivals, hint, budget, breaker, layers) = beyond;
            let clients = match arrivals {
                Some((_, _, true)) => 0,
                _ => clients,
            };
            let mut yaml = format!(
                "clients: {clients}\nhorizon: {}ms\nspread: {}ms\nserver:\n  \
                 model: {model}\n  capacity: {capacity}\n  tick: {tick_ms}ms\n  \
                 rejection_cost: 0.{cost:03}\n",
                tick_ms * 40,
                spread_ms % (tick_ms * 40 + 1)
            );
            if let Some((from, len)) = outage {
                yaml += &format!("  outages: [{{from: {from}ms, to: {}ms}}]\n", from + len);
            }
            if let Some((hint_ms, when)) = hint {
                yaml += &format!("  retry_after: {{hint: {hint_ms}ms, when: {when}}}\n");
            }
            yaml += &format!(
                "retry:\n  base: {base_ms}ms\n  cap: {}ms\n  multiplier: {multiplier:.3}\n",
                base_ms + cap_extra_ms
            );
            if let (Some(m), None) = (max_attempts, &layers) {
                yaml += &format!("  max_attempts: {m}\n");
            }
            if let Some(d) = deadline_ms {
                yaml += &format!("  deadline: {d}ms\n");
            }
            if let Some(b) = budget {
                yaml += &format!("  budget: {b}\n");
            }
            if let Some((rate, minimum, open_ms, retry_when_open)) = breaker {
                yaml += &format!(
                    "  breaker: {{failure_rate: {rate}, minimum_calls: {minimum}, \
                     open_for: {open_ms}ms, half_open_calls: 3, \
                     retry_when_open: {retry_when_open}}}\n"
                );
            }
            if let Some((rate, from_share, _)) = arrivals {
                let from = tick_ms * 40 * from_share / 100;
                yaml += &format!("arrivals: {{rate: {rate}, from: {from}ms}}\n");
            }
            if let Some(layers) = layers {
                let list: Vec<String> = layers
                    .iter()
                    .map(|a| format!("{{attempts: {a}}}"))
                    .collect();
                yaml += &format!("layers: [{}]\n", list.join(", "));
            }
            yaml
        })
}

/// The keys beyond backoff, each optional: arrivals (rate, start as a share of the
/// horizon, no crowd), Retry-After, a budget, a breaker and layers.
#[allow(clippy::type_complexity)]
fn beyond() -> impl Strategy<
    Value = (
        Option<(u64, u64, bool)>,
        Option<(u64, &'static str)>,
        Option<&'static str>,
        Option<(u64, u64, u64, bool)>,
        Option<Vec<u32>>,
    ),
> {
    (
        prop::option::of((1u64..400, 0u64..90, any::<bool>())),
        prop::option::of((
            1u64..2000,
            prop_oneof![Just("always"), Just("overloaded"), Just("down")],
        )),
        prop::option::of(prop_oneof![
            Just("grpc"),
            Just("finagle"),
            Just("aws"),
            Just("{kind: grpc, max_tokens: 3, token_ratio: 0.5}"),
            Just("{kind: finagle, ttl: 1s, min_retries_per_sec: 0, percent_can_retry: 0.5}"),
            Just("{kind: aws, quota: 20, retry_cost: 3, no_retry_increment: 0}"),
        ]),
        prop::option::of((1u64..=100, 1u64..=100, 1u64..3000, any::<bool>())),
        prop::option::of(prop::collection::vec(1u32..5, 1..4)),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn runs_conserve_clients_and_calls(yaml in any_scenario(), seed in 0u64..1000) {
        let s = scenario(&yaml);
        // A library strategy takes no layers (the reader refuses them).
        let strategies = Retry::ALL
            .into_iter()
            .filter(|st| st.library().is_none() || s.layers.is_empty());
        for strategy in strategies {
            let run = simulate(&s, strategy, seed, true);
            // What the lane runs: a library's own retry settings.
            let lane = s.lane(strategy);
            let t = run.totals;
            let requests = s.clients + s.arrivals_total();
            prop_assert_eq!(t.arrivals, s.arrivals_total());
            prop_assert_eq!(t.served + t.gave_up + t.still_retrying, requests);
            let lanes = run.lanes.as_ref().unwrap();
            let sum = |lane: &[u32]| lane.iter().map(|&v| u64::from(v)).sum::<u64>();
            let served = sum(&lanes.served);
            let rejected = sum(&lanes.rejected);
            prop_assert_eq!(t.calls, served + rejected);
            prop_assert_eq!(t.served, served);
            prop_assert_eq!(t.failed_fast, sum(&lanes.failed_fast));
            prop_assert!(t.denied <= t.gave_up);
            if lane.retry.breaker.is_none() {
                prop_assert_eq!(t.failed_fast, 0);
            }
            if lane.retry.budget.is_none() {
                prop_assert_eq!(t.denied, 0);
            }
            let attempts = if s.layers.is_empty() {
                lane.retry.max_attempts.map(u64::from)
            } else {
                Some(s.layers.iter().map(|l| u64::from(l.attempts)).product())
            };
            if let Some(m) = attempts {
                prop_assert!(t.calls + t.failed_fast <= requests * m);
            }
            prop_assert_eq!(t.done_at.is_some(), t.still_retrying == 0);
            // The same seed gives the same run.
            prop_assert_eq!(&simulate(&s, strategy, seed, true), &run);
        }
    }

    #[test]
    fn the_one_loop_gives_the_runs_of_the_old_two(yaml in any_scenario(), seed in 0u64..1000) {
        let s = scenario(&yaml);
        // The old loops knew the model's strategies only.
        for strategy in Retry::GENERIC {
            for with_lanes in [true, false] {
                prop_assert_eq!(
                    simulate(&s, strategy, seed, with_lanes),
                    old_loops::simulate(&s, strategy, seed, with_lanes),
                    "{:?}", strategy
                );
            }
        }
    }

    #[test]
    fn no_text_makes_the_reader_panic(text in "\\PC{0,200}") {
        let _ = parse_scenario(&text, None);
    }

    #[test]
    fn no_scenario_like_text_makes_the_reader_panic(
        key in prop::sample::select(vec!["clients", "horizon", "spread", "runs", "seed",
            "server", "retry", "strategies", "id", "arrivals", "layers", "budget", "breaker",
            "retry_after", "honor_retry_after"]),
        value in "[-0-9a-z.:\\[\\]{}, ]{0,30}",
    ) {
        let _ = parse_scenario(&format!("id: x\nclients: 3\n{key}: {value}\n"), None);
        let _ = parse_scenario(&format!("id: x\nclients: 3\nserver:\n  {key}: {value}\n"), None);
        let _ = parse_scenario(&format!("id: x\nclients: 3\nretry:\n  {key}: {value}\n"), None);
        let _ = parse_scenario(
            &format!("id: x\nclients: 3\nretry:\n  budget: {{kind: {key}, {key}: {value}}}\n"),
            None,
        );
    }
}

proptest! {
    // Crowds of thousands, so that a tick's calls span several blocks of the buckets.
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn large_crowds_give_the_runs_of_the_old_loops(
        yaml in any_scenario(),
        clients in 4_000u64..20_000,
        seed in 0u64..1000,
    ) {
        let yaml = match yaml.split_once('\n') {
            Some((first, rest)) if first != "clients: 0" => format!("clients: {clients}\n{rest}"),
            _ => yaml,
        };
        let s = scenario(&yaml);
        for strategy in Retry::GENERIC {
            prop_assert_eq!(
                simulate(&s, strategy, seed, true),
                old_loops::simulate(&s, strategy, seed, true),
                "{:?}", strategy
            );
        }
    }
}
