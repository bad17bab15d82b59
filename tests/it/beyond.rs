//! Beyond backoff: open-loop load, Retry-After, retry budgets, the circuit breaker and
//! layers, each against its published semantics, and the metastable-failure story.

use retrylab::engine::{Run, Strategy, run_scenario, simulate};

use crate::old_loops;
use crate::util::scenario;

/// One client against a server that is down for the whole horizon.
const DOWN: &str = "clients: 1\nhorizon: 2m\nserver: {outages: [{from: 0s, to: 2m}]}\n\
                    strategies: [fixed]\n";

fn run(yaml: &str) -> Run {
    simulate(&scenario(yaml), Strategy::Fixed, 1, true)
}

fn lane_sum(lane: &[u32]) -> u64 {
    lane.iter().map(|&v| u64::from(v)).sum()
}

#[test]
fn without_guards_the_one_loop_gives_the_runs_of_the_old_plain_one() {
    let s = scenario(
        "clients: 100\nspread: 2s\nserver: {capacity: 10, outages: [{from: 1s, to: 3s}]}\n\
         retry: {max_attempts: 8, deadline: 20s}",
    );
    for strategy in Strategy::GENERIC {
        for seed in [1, 7] {
            assert_eq!(
                old_loops::simulate(&s, strategy, seed, true),
                simulate(&s, strategy, seed, true),
                "{strategy:?}"
            );
        }
    }
}

#[test]
fn arrivals_are_evenly_spaced_and_counted() {
    let s = scenario("clients: 0\narrivals: {rate: 80}\n");
    assert_eq!(s.arrivals_total(), 9_600);
    let a = s.arrivals[0];
    assert_eq!(
        (0..3).map(|i| a.time_of(i)).collect::<Vec<_>>(),
        [0, 12_500, 25_000]
    );
    let thirds = scenario("clients: 0\narrivals: {rate: 3, from: 1s, to: 2s}\n").arrivals[0];
    assert_eq!(thirds.total(), 3);
    assert_eq!(
        (0..3).map(|i| thirds.time_of(i)).collect::<Vec<_>>(),
        [1_000_000, 1_333_333, 1_666_666]
    );
    // Two windows, one slow: every request is served by an idle server.
    let r = run("clients: 0\narrivals: [{rate: 0.5, to: 10s}, {rate: 20, from: 1m}]\n");
    assert_eq!(r.totals.arrivals, 5 + 1_200);
    assert_eq!(r.totals.served, 1_205);
    let lanes = r.lanes.unwrap();
    assert_eq!(
        &lanes.served[..21],
        &[
            1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
        ]
    );
    assert_eq!(lanes.served[600], 2);
}

#[test]
fn clients_and_calls_are_conserved_with_every_feature() {
    let s = scenario(
        "clients: 50\narrivals: {rate: 120, to: 1m}\n\
         server: {outages: [{from: 5s, to: 8s}], retry_after: {hint: 300ms, when: down}}\n\
         retry: {max_attempts: 6, budget: aws, breaker: {minimum_calls: 10}}\nruns: 3",
    );
    for strategy in Strategy::GENERIC {
        let run = simulate(&s, strategy, 3, true);
        let t = run.totals;
        assert_eq!(t.arrivals, 7_200);
        assert_eq!(t.served + t.gave_up + t.still_retrying, 50 + 7_200);
        let lanes = run.lanes.as_ref().unwrap();
        assert_eq!(t.calls, lane_sum(&lanes.served) + lane_sum(&lanes.rejected));
        assert_eq!(t.served, lane_sum(&lanes.served));
        assert_eq!(t.failed_fast, lane_sum(&lanes.failed_fast));
        assert!(
            t.failed_fast > 0 && t.denied <= t.gave_up,
            "{strategy:?} {t:?}"
        );
    }
}

#[test]
fn grpc_throttling_stops_retries_at_half_full() {
    // Tokens 10 → 9 → … → 5: the fifth failure leaves exactly half, and no retry.
    let r = run(&format!("{DOWN}retry: {{budget: grpc}}"));
    assert_eq!(
        (r.totals.calls, r.totals.denied, r.totals.gave_up),
        (5, 1, 1)
    );
    // A bigger bucket allows more: 100 tokens, 50 failures.
    let r = run(&format!(
        "{DOWN}retry: {{budget: {{kind: grpc, max_tokens: 100}}}}"
    ));
    assert_eq!(r.totals.calls, 50);
    // Successes refill by the ratio: with a server that serves one call per tick, the
    // crowd's failures and successes settle, and every client is served in the end.
    let r = run(
        "clients: 30\nserver: {capacity: 1, rejection_cost: 0}\nretry: {budget: grpc}\n\
         strategies: [fixed]",
    );
    assert!(r.totals.denied > 0);
    assert_eq!(r.totals.served + r.totals.denied, 30);
}

#[test]
fn aws_quota_pays_one_hundred_retries_of_five_tokens() {
    let r = run(&format!("{DOWN}retry: {{budget: aws}}"));
    assert_eq!((r.totals.calls, r.totals.denied), (101, 1));
    let r = run(&format!(
        "{DOWN}retry: {{budget: {{kind: aws, quota: 50, retry_cost: 10}}}}"
    ));
    assert_eq!(r.totals.calls, 6);
}

#[test]
fn finagle_allows_a_fifth_of_requests_plus_ten_per_second_of_ttl() {
    // 20 requests and a reserve of 10/s × 10 s: 0.2 × 20 + 100 = 104 retries.
    let r = run(
        "clients: 20\nserver: {outages: [{from: 0s, to: 2m}]}\nretry: {budget: finagle}\n\
         strategies: [fixed]",
    );
    assert_eq!((r.totals.calls, r.totals.denied), (124, 20));
    // One client retrying ten times a second stays within the floor forever.
    let r = run(&format!("{DOWN}retry: {{budget: finagle}}"));
    assert_eq!((r.totals.calls, r.totals.still_retrying), (1_200, 1));
}

#[test]
fn breaker_opens_after_the_minimum_calls_and_probes_after_open_for() {
    // Ten new requests per tick against a dead server: 30 failed calls by the end of
    // tick 1 (10 + 20 with the retries), so it opens at 0.2 s until 5.2 s.
    let r = run(
        "clients: 0\narrivals: {rate: 100}\nserver: {outages: [{from: 0s, to: 2m}]}\n\
         retry: {max_attempts: 3, breaker: {}}\nstrategies: [fixed]",
    );
    let lanes = r.lanes.unwrap();
    assert_eq!(&lanes.rejected[..3], &[10, 20, 0]);
    assert!(lanes.rejected[2..52].iter().all(|&c| c == 0));
    assert!(lanes.failed_fast[2..52].iter().all(|&c| c > 0));
    // Half-open at 5.2 s: ten trials fail, and it opens again until 10.3 s.
    assert_eq!(lanes.rejected[52], 10);
    assert!(lanes.rejected[53..103].iter().all(|&c| c == 0));
    assert_eq!(lanes.rejected[103], 10);
    assert_eq!(r.totals.failed_fast, lane_sum(&lanes.failed_fast));
}

#[test]
fn breaker_closes_when_the_trials_succeed() {
    // Down for 3 s, five requests per tick, two attempts each: 25 failed calls by the
    // end of tick 2, so it opens at 0.3 s; half-open at 5.3 s, the server is back, the
    // ten trials pass and everything after is served.
    let r = run(
        "clients: 0\narrivals: {rate: 50}\nserver: {outages: [{from: 0s, to: 3s}]}\n\
         retry: {max_attempts: 2, breaker: {}}\nstrategies: [fixed]",
    );
    let lanes = r.lanes.unwrap();
    assert_eq!(&lanes.rejected[..4], &[5, 10, 10, 0]);
    assert_eq!(lanes.served[53], 10);
    assert!(lanes.failed_fast[54..].iter().all(|&c| c == 0));
    assert!(lanes.served[54..].iter().all(|&c| c == 5));
}

#[test]
fn retry_after_sets_the_least_wait() {
    let calls = |extra: &str| {
        let yaml = format!("clients: 1\nhorizon: 10s\nstrategies: [fixed]\n{extra}");
        run(&yaml).totals.calls
    };
    assert_eq!(calls("server: {outages: [{from: 0s, to: 2m}]}"), 100);
    let hinted = "server: {outages: [{from: 0s, to: 2m}], retry_after: {hint: 1s}}";
    assert_eq!(calls(hinted), 10);
    assert_eq!(
        calls(&format!("{hinted}\nretry: {{honor_retry_after: false}}")),
        100
    );
    // Only overloaded rejections carry it: an outage's do not.
    let overloaded = "server: {outages: [{from: 0s, to: 2m}], \
                      retry_after: {hint: 1s, when: overloaded}}";
    assert_eq!(calls(overloaded), 100);
}

#[test]
fn layers_multiply_four_by_four_by_four() {
    let r = run(&format!(
        "{DOWN}layers: [{{attempts: 4}}, {{attempts: 4}}, {{attempts: 4}}]"
    ));
    assert_eq!((r.totals.calls, r.totals.gave_up), (64, 1));
    // One call at a time: each reaches the server in its own tick.
    let lanes = r.lanes.unwrap();
    assert!(lanes.rejected.iter().all(|&c| c <= 1));
    // A layer's own policy: the upper layer waits a second between its sequences.
    let r = run(&format!(
        "{DOWN}layers: [{{attempts: 3, base: 1s}}, {{attempts: 5}}]"
    ));
    assert_eq!(r.totals.calls, 15);
    // Calls at 0–0.4 s, 1.4–1.8 s and 2.8–3.2 s.
    assert_eq!(r.totals.done_at, Some(3_200_000));
    // A served call ends the request at every layer.
    let r = run("clients: 1\nlayers: [{attempts: 4}, {attempts: 4}]\nstrategies: [fixed]");
    assert_eq!((r.totals.calls, r.totals.served), (1, 1));
}

/// The metastable-failure scenario: 80 requests per second against a server that serves
/// 100, a 2-second outage, and retries of 100 ms, up to 10 attempts.
fn metastable(extra: &str) -> String {
    format!(
        "id: m\nclients: 0\narrivals: {{rate: 80}}\n\
         server: {{capacity: 10, rejection_cost: 0.1, outages: [{{from: 10s, to: 12s}}]}}\n\
         retry: {{max_attempts: 10{extra}}}\nstrategies: [fixed, full-jitter]\nruns: 5"
    )
}

#[test]
fn metastable_failure_does_not_recover_without_protection() {
    let result = run_scenario(&scenario(&metastable("")));
    for s in &result.strategies {
        assert_eq!(s.recovered_runs, 0, "{:?}", s.strategy);
        assert_eq!(s.recovery, None);
        // Far below the 80 per second offered.
        assert!(s.goodput_milli.p95 < 60_000, "{:?}", s.goodput_milli);
    }
    // Before the trigger, it was fine.
    let run = simulate(&scenario(&metastable("")), Strategy::Fixed, 1, true);
    let served = &run.lanes.unwrap().served;
    assert!(served[10..100].iter().all(|&c| c == 8));
}

#[test]
fn metastable_failure_recovers_with_a_budget() {
    for budget in ["grpc", "finagle", "aws"] {
        let result = run_scenario(&scenario(&metastable(&format!(", budget: {budget}"))));
        for s in &result.strategies {
            assert_eq!(s.recovered_runs, 5, "{budget} {:?}", s.strategy);
            assert!(s.recovery.unwrap().p95 <= 2_000_000, "{budget}");
            assert!(s.goodput_milli.median >= 76_000, "{budget}");
            assert!(s.denied.median > 0, "{budget}");
        }
    }
}

#[test]
fn metastable_failure_recovers_with_a_breaker_outside_the_retries() {
    let outside = run_scenario(&scenario(&metastable(
        ", breaker: {retry_when_open: false}",
    )));
    for s in &outside.strategies {
        assert_eq!(s.recovered_runs, 5, "{:?}", s.strategy);
        // Open at the outage, half-open 5 s later: back a few seconds after the trigger.
        assert!(s.recovery.unwrap().p95 <= 5_000_000);
    }
    // Retrying the calls that failed fast brings the storm back each time it closes.
    let inside = run_scenario(&scenario(&metastable(", breaker: {}")));
    for s in &inside.strategies {
        assert_eq!(s.recovered_runs, 0, "{:?}", s.strategy);
        assert!(s.failed_fast.median > 0);
    }
}
