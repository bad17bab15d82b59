//! Property tests over random valid scenarios, and over random text.

use proptest::prelude::*;
use retrylab::engine::{Strategy as Retry, parse_scenario, simulate};

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
    )
        .prop_map(|(server, retry, limits, extra)| {
            let (clients, capacity, model, cost) = server;
            let (tick_ms, base_ms, cap_extra_ms) = retry;
            let (max_attempts, deadline_ms, multiplier) = limits;
            let (outage, spread_ms) = extra;
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
            yaml += &format!(
                "retry:\n  base: {base_ms}ms\n  cap: {}ms\n  multiplier: {multiplier:.3}\n",
                base_ms + cap_extra_ms
            );
            if let Some(m) = max_attempts {
                yaml += &format!("  max_attempts: {m}\n");
            }
            if let Some(d) = deadline_ms {
                yaml += &format!("  deadline: {d}ms\n");
            }
            yaml
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn runs_conserve_clients_and_calls(yaml in any_scenario(), seed in 0u64..1000) {
        let s = scenario(&yaml);
        for strategy in Retry::ALL {
            let run = simulate(&s, strategy, seed, true);
            let t = run.totals;
            prop_assert_eq!(t.served + t.gave_up + t.still_retrying, s.clients);
            let lanes = run.lanes.as_ref().unwrap();
            let served: u64 = lanes.served.iter().map(|&v| u64::from(v)).sum();
            let rejected: u64 = lanes.rejected.iter().map(|&v| u64::from(v)).sum();
            prop_assert_eq!(t.calls, served + rejected);
            prop_assert_eq!(t.served, served);
            prop_assert!(t.calls >= s.clients.min(t.calls));
            if let Some(m) = s.retry.max_attempts {
                prop_assert!(t.calls <= s.clients * u64::from(m));
            }
            prop_assert_eq!(t.done_at.is_some(), t.still_retrying == 0);
            // The same seed gives the same run.
            prop_assert_eq!(&simulate(&s, strategy, seed, true), &run);
        }
    }

    #[test]
    fn no_text_makes_the_reader_panic(text in "\\PC{0,200}") {
        let _ = parse_scenario(&text, None);
    }

    #[test]
    fn no_scenario_like_text_makes_the_reader_panic(
        key in prop::sample::select(vec!["clients", "horizon", "spread", "runs", "seed",
            "server", "retry", "strategies", "id"]),
        value in "[-0-9a-z.:\\[\\]{}, ]{0,30}",
    ) {
        let _ = parse_scenario(&format!("id: x\nclients: 3\n{key}: {value}\n"), None);
        let _ = parse_scenario(&format!("id: x\nclients: 3\nserver:\n  {key}: {value}\n"), None);
    }
}
