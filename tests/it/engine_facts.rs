//! The sanity facts of the engine spec, and the rules of time, as tests.

use retrylab::engine::{Run, Strategy, run_scenario, run_scenario_with, simulate};

use crate::util::scenario;

const CROWD: &str = "
clients: 100
horizon: 2m
server: {model: capacity, capacity: 10, tick: 100ms, rejection_cost: 0.1}
retry: {base: 100ms, cap: 10s, multiplier: 2}
";

fn arrivals(run: &Run) -> Vec<u32> {
    let lanes = run.lanes.as_ref().expect("lanes were asked for");
    lanes
        .served
        .iter()
        .zip(&lanes.rejected)
        .map(|(s, r)| s + r)
        .collect()
}

#[test]
fn exponential_backoff_comes_back_in_spikes_at_doubling_times() {
    let s = scenario(CROWD);
    let run = simulate(&s, Strategy::Exponential, 1, true);
    let lanes = run.lanes.as_ref().unwrap();
    let calls = arrivals(&run);
    // Spikes at 0, 0.1, 0.3, 0.7, 1.5, 3.1, 6.3 and 12.7 s, then every 10 s (the cap).
    let busy: Vec<usize> = (0..calls.len()).filter(|&k| calls[k] > 0).take(9).collect();
    assert_eq!(busy, [0, 1, 3, 7, 15, 31, 63, 127, 227]);
    // Each spike is as tall as the crowd that is left.
    let mut left = 100;
    for &k in &busy {
        assert_eq!(calls[k], left, "tick {k}");
        left -= lanes.served[k];
    }
}

#[test]
fn fixed_delay_at_half_capacity_never_serves_again_after_the_first_tick() {
    let s = scenario(&CROWD.replace("capacity: 10,", "capacity: 5,"));
    let run = simulate(&s, Strategy::Fixed, 1, true);
    let lanes = run.lanes.as_ref().unwrap();
    assert_eq!(lanes.served[0], 5);
    assert!(lanes.served[1..].iter().all(|&s| s == 0));
    assert!(lanes.rejected[1..].iter().all(|&r| r == 95));
    assert_eq!(run.totals.still_retrying, 95);
    assert_eq!(run.totals.calls, 100 + 95 * 1199);
    assert_eq!(run.totals.done_at, None);
}

#[test]
fn clients_and_calls_are_conserved_for_every_strategy() {
    let s = scenario(&format!(
        "{}\nspread: 2s",
        CROWD.replace("multiplier: 2}", "multiplier: 2, max_attempts: 5}")
    ));
    for strategy in Strategy::ALL {
        let run = simulate(&s, strategy, 3, true);
        let t = run.totals;
        assert_eq!(t.served + t.gave_up + t.still_retrying, 100, "{strategy:?}");
        let lanes = run.lanes.as_ref().unwrap();
        let served: u64 = lanes.served.iter().map(|&v| u64::from(v)).sum();
        let rejected: u64 = lanes.rejected.iter().map(|&v| u64::from(v)).sum();
        assert_eq!(t.calls, served + rejected);
        assert_eq!(t.served, served);
    }
}

#[test]
fn a_retry_never_lands_in_the_tick_that_rejected_it() {
    // Waits of 10 ms in 100 ms ticks: every retry moves to the next tick, while the
    // client's own clock keeps counting in steps of 10 ms.
    let s = scenario(
        "clients: 1\nhorizon: 1s\nserver: {outages: [{from: 0s, to: 1s}]}\n\
         retry: {base: 10ms}\nstrategies: [fixed]",
    );
    let run = simulate(&s, Strategy::Fixed, 1, true);
    assert_eq!(arrivals(&run), vec![1; 10]);
    assert_eq!(run.totals.still_retrying, 1);
}

#[test]
fn nothing_is_sent_at_or_after_the_horizon() {
    // Calls at 0, 0.1, 0.3 and 0.7 s; the next would be at 1.5 s, past a 1 s horizon.
    let s = scenario("clients: 1\nhorizon: 1s\nserver: {outages: [{from: 0s, to: 1s}]}");
    let run = simulate(&s, Strategy::Exponential, 1, false);
    assert_eq!(run.totals.calls, 4);
    assert_eq!(run.totals.still_retrying, 1);
    // A retry due exactly at the horizon is not made either.
    let s = scenario("clients: 1\nhorizon: 700ms\nserver: {outages: [{from: 0s, to: 1s}]}");
    assert_eq!(
        simulate(&s, Strategy::Exponential, 1, false).totals.calls,
        3
    );
}

#[test]
fn the_first_tick_after_an_outage_has_the_full_budget() {
    let s = scenario(&CROWD.replace(
        "rejection_cost: 0.1}",
        "rejection_cost: 0.1, outages: [{from: 0s, to: 300ms}]}",
    ));
    let run = simulate(&s, Strategy::Fixed, 1, true);
    let lanes = run.lanes.as_ref().unwrap();
    assert_eq!(&lanes.served[..4], &[0, 0, 0, 10]);
}

#[test]
fn an_attempt_limit_gives_up_on_the_last_failed_call() {
    let s =
        scenario("clients: 1\nserver: {outages: [{from: 0s, to: 2m}]}\nretry: {max_attempts: 3}");
    let run = simulate(&s, Strategy::Exponential, 1, false);
    assert_eq!(run.totals.calls, 3);
    assert_eq!(run.totals.gave_up, 1);
    // The third call is at 0.3 s; the client gives up in that tick.
    assert_eq!(run.totals.done_at, Some(300_000));
}

#[test]
fn a_deadline_stops_retries_that_would_be_sent_after_it() {
    // Calls at 0, 0.1, 0.3, 0.7; the next (1.5 s) would pass the 1 s deadline.
    let s = scenario("clients: 1\nserver: {outages: [{from: 0s, to: 2m}]}\nretry: {deadline: 1s}");
    let run = simulate(&s, Strategy::Exponential, 1, false);
    assert_eq!(run.totals.calls, 4);
    assert_eq!(run.totals.gave_up, 1);
    assert_eq!(run.totals.done_at, Some(700_000));
    // A retry exactly at the deadline is still sent.
    let s =
        scenario("clients: 1\nserver: {outages: [{from: 0s, to: 2m}]}\nretry: {deadline: 700ms}");
    assert_eq!(
        simulate(&s, Strategy::Exponential, 1, false).totals.calls,
        4
    );
}

#[test]
fn spread_starts_every_client_within_its_window() {
    let s = scenario("clients: 1000\nspread: 1s\nserver: {capacity: 1000}");
    let run = simulate(&s, Strategy::Fixed, 9, true);
    let calls = arrivals(&run);
    assert!(calls[..10].iter().all(|&c| c > 50), "{:?}", &calls[..10]);
    assert_eq!(calls[10..].iter().sum::<u32>(), 0);
    assert_eq!(run.totals.served, 1000);
}

#[test]
fn all_or_nothing_rejects_a_whole_tick_above_capacity() {
    let s = scenario(
        "clients: 30\nserver: {model: all-or-nothing, capacity: 10, tick: 1s}\n\
         retry: {base: 1s, cap: 1m, max_attempts: 6}",
    );
    let fixed = simulate(&s, Strategy::Fixed, 1, true);
    assert_eq!(fixed.totals.calls, 180);
    assert_eq!(fixed.totals.gave_up, 30);
    assert_eq!(fixed.totals.done_at, Some(5_000_000));
    assert_eq!(&arrivals(&fixed)[..7], &[30, 30, 30, 30, 30, 30, 0]);
}

#[test]
fn monte_carlo_is_the_same_on_one_core_as_on_many() {
    let s = scenario(&format!("{CROWD}\nruns: 20\nseed: 5"));
    let many = run_scenario(&s);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let one = pool.install(|| run_scenario(&s));
    assert_eq!(many, one);
    // The typical run is a real run whose calls are the median.
    for r in &many.strategies {
        assert_eq!(r.typical.totals.calls, r.calls.median);
        assert!((5..25).contains(&r.typical.seed));
    }
}

#[test]
fn deterministic_strategies_agree_over_seeds_and_jitter_does_not() {
    let s = scenario(&format!("{CROWD}\nruns: 30"));
    let result = run_scenario(&s);
    let exp = result.strategy(Strategy::Exponential).unwrap();
    assert!(exp.calls.is_exact() && exp.done_at.unwrap().is_exact());
    let full = result.strategy(Strategy::FullJitter).unwrap();
    assert!(!full.calls.is_exact());
    assert_eq!(full.finished_runs, 30);
}

#[test]
fn results_without_lanes_are_those_with_lanes_less_the_lanes() {
    let cases = [
        format!("{CROWD}runs: 1\n"),
        format!("{CROWD}runs: 9\n"),
        "clients: 100\nspread: 2s\nretry: {max_attempts: 6, budget: grpc}\nruns: 5\n".to_string(),
        "clients: 0\narrivals: {rate: 80}\nserver: {outages: [{from: 5s, to: 10s}]}\n\
         retry: {breaker: {}}\nruns: 3\n"
            .to_string(),
    ];
    for yaml in cases {
        let s = scenario(&yaml);
        let with = run_scenario(&s);
        let mut without = run_scenario_with(&s, false);
        for (lane, full) in without.strategies.iter_mut().zip(&with.strategies) {
            assert_eq!(lane.typical.lanes, None);
            // The typical run, lanes and all, is the run of its seed.
            let own = simulate(&s, lane.strategy, lane.typical.seed, true);
            assert_eq!(full.typical, own, "{yaml}");
            lane.typical.lanes = own.lanes;
        }
        assert_eq!(without, with, "{yaml}");
    }
}
