//! Hedged requests (`retry.hedging`, [`retrylab::engine::hedge`]): copies of a call at
//! the delay, the first answer winning and the others wasted, a failed copy sending the
//! next at once, a budget gating hedges, and a hedge going to another replica; against
//! ticks computed by hand, and the mistakes an author makes with the key.

use retrylab::engine::{Run, Strategy, simulate};

use crate::util::{errors, scenario};

/// The one run of `yaml`'s first strategy, with its lanes.
fn one_run(yaml: &str) -> Run {
    let s = scenario(yaml);
    simulate(&s, s.strategies[0], s.seed, true)
}

const MS: u64 = 1_000;

#[test]
fn copies_go_out_together_when_the_delay_is_shorter_than_the_answer() {
    // Five clients at 0 s, ten calls a tick. With a delay of 0 s or 50 ms the second
    // copy of each call is made in tick 0 too, before any answer (answers come at the
    // end of the tick): ten calls, five served, five answered for nobody. With 100 ms
    // each call was answered at the end of tick 0, before its timer.
    let at = |delay: &str| {
        format!(
            "clients: 5\nhorizon: 1s\nserver: {{capacity: 10}}\n\
             retry: {{max_attempts: 1, hedging: {{delay: {delay}, max_attempts: 2}}}}\n\
             strategies: [fixed]\n"
        )
    };
    for delay in ["0s", "50ms"] {
        let run = one_run(&at(delay));
        let t = run.totals;
        assert_eq!(
            (t.calls, t.hedges, t.served, t.wasted, t.gave_up),
            (10, 5, 5, 5, 0),
            "{delay}"
        );
        let lanes = run.lanes.unwrap();
        assert_eq!(
            (lanes.hedges[0], lanes.served[0], lanes.wasted[0]),
            (5, 5, 5)
        );
        assert_eq!(t.done_at, Some(0));
    }
    let t = one_run(&at("100ms")).totals;
    assert_eq!((t.calls, t.hedges, t.served, t.wasted), (5, 0, 5, 0));
}

#[test]
fn a_hedge_at_the_delay_and_the_first_answer_wins() {
    // One call a tick from a FIFO queue; three clients at 0 s; a hedge 150 ms after a
    // copy. Tick 0 serves one of the three (100 ms). In tick 1 the other two send
    // their hedges at 150 ms, which queue behind them: tick 1 serves the older of the
    // two (200 ms), tick 2 the other (300 ms); ticks 3 and 4 serve the hedges, for
    // nobody. One server gains nothing from a copy.
    let yaml = "clients: 3\nhorizon: 1s\n\
                server: {capacity: 1, rejection_cost: 0, queue: {limit: 100}}\n\
                retry: {max_attempts: 1, hedging: {delay: 150ms, max_attempts: 2}}\n\
                strategies: [fixed]\n";
    let run = one_run(yaml);
    let t = run.totals;
    assert_eq!(
        (
            t.calls,
            t.hedges,
            t.served,
            t.wasted,
            t.gave_up,
            t.still_retrying
        ),
        (5, 2, 3, 2, 0, 0)
    );
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(200 * MS), Some(300 * MS))
    );
    assert_eq!(t.done_at, Some(200 * MS));
    let lanes = run.lanes.unwrap();
    assert_eq!(lanes.hedges[..5], [0, 2, 0, 0, 0]);
    assert_eq!(lanes.served[..5], [1, 1, 1, 0, 0]);
    assert_eq!(lanes.wasted[..5], [0, 0, 0, 1, 1]);
    // Without hedging, the same answers and no copy.
    let plain = one_run(&yaml.replace(", hedging: {delay: 150ms, max_attempts: 2}", "")).totals;
    assert_eq!((plain.calls, plain.served, plain.wasted), (3, 3, 0));
    assert_eq!(
        (plain.latency_p50, plain.latency_p99),
        (Some(200 * MS), Some(300 * MS))
    );
}

#[test]
fn a_hedge_goes_to_another_replica_and_cuts_the_tail() {
    // Two replicas in turn, each with a queue and one call a tick; replica 1 serves
    // nothing for the first second. Two clients at 0 s: one to each replica. Replica 2
    // answers its call in tick 0 (100 ms). The other call waits on replica 1; its hedge
    // at 100 ms passes over replica 1 and replica 2 answers it in tick 1: 200 ms from
    // the first copy. Replica 1 serves the stale copy at 1 s, for nobody.
    let yaml = "clients: 2\nhorizon: 2s\n\
                server: {capacity: 1, rejection_cost: 0, queue: {limit: 100}, replicas: 2,\n  \
                overrides: [{replica: 1, slowdowns: [{from: 0s, to: 1s, capacity: 0}]}]}\n\
                retry: {max_attempts: 1, hedging: {delay: 100ms, max_attempts: 2}}\n\
                strategies: [fixed]\n";
    let run = one_run(yaml);
    let t = run.totals;
    assert_eq!((t.calls, t.hedges, t.served, t.wasted), (3, 1, 2, 1));
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(200 * MS))
    );
    // Replica 1 served its copy for nobody: wasted, as the fleet counts it.
    let replicas: Vec<(u64, u64, u64)> = (run.replicas.iter())
        .map(|r| (r.calls, r.served, r.wasted))
        .collect();
    assert_eq!(replicas, [(1, 0, 1), (2, 2, 0)]);
    let strips = &run.lanes.as_ref().unwrap().replicas;
    assert_eq!((strips[0].served[10], strips[0].wasted[10]), (0, 1));
    // Without hedging, the call on replica 1 waits out the stall: 1.1 s.
    let plain = one_run(&yaml.replace(", hedging: {delay: 100ms, max_attempts: 2}", "")).totals;
    assert_eq!((plain.calls, plain.served), (2, 2));
    assert_eq!(plain.latency_p99, Some(1_100 * MS));
}

#[test]
fn a_failed_copy_sends_the_next_at_once_and_a_failed_attempt_is_retried_by_policy() {
    // The server is down for the whole horizon. Each rejection sends the next copy at
    // once, seen in the next tick, long before the 1 s delay:
    // three copies in ticks 0, 1 and 2, then the attempt has failed. With one attempt
    // (gRPC's hedging: no retry after) the client gives up in tick 2.
    let yaml = "clients: 1\nhorizon: 3s\n\
                server: {capacity: 1, outages: [{from: 0s, to: 3s}]}\n\
                retry: {base: 1s, max_attempts: 1, hedging: {delay: 1s, max_attempts: 3}}\n\
                strategies: [fixed]\n";
    let run = one_run(yaml);
    let t = run.totals;
    assert_eq!((t.calls, t.hedges, t.gave_up, t.served), (3, 2, 1, 0));
    assert_eq!(t.done_at, Some(200 * MS));
    assert_eq!(run.lanes.unwrap().rejected[..4], [1, 1, 1, 0]);
    // With two attempts the retry loop around the hedged call waits its 1 s after the
    // third copy's rejection, counted from that copy's time, 0 s (a copy sent at once
    // keeps the time of the one that failed, as a retry counts from its call's time):
    // a new hedged attempt at 1 s, three copies in ticks 10 to 12, and the client gives
    // up there.
    let twice = one_run(&yaml.replace("max_attempts: 1,", "max_attempts: 2,"));
    let t = twice.totals;
    assert_eq!((t.calls, t.hedges, t.gave_up), (6, 4, 1));
    assert_eq!(t.done_at, Some(1_200 * MS));
    assert_eq!(twice.lanes.unwrap().hedges[10..13], [0, 1, 1]);
}

#[test]
fn a_retry_budget_gates_hedges() {
    // A gRPC budget of 4 tokens sends a retry (or a hedge) only while it holds more
    // than 2. The server is down: the first copy's rejection leaves 3 tokens, so the
    // hedge goes out; its rejection leaves 2, the next hedge is refused, and with no
    // copy in flight the client gives up, denied.
    let yaml = "clients: 1\nhorizon: 3s\n\
                server: {capacity: 1, outages: [{from: 0s, to: 3s}]}\n\
                retry: {max_attempts: 1, budget: {kind: grpc, max_tokens: 4},\n  \
                hedging: {delay: 1s, max_attempts: 5}}\n\
                strategies: [fixed]\n";
    let t = one_run(yaml).totals;
    assert_eq!((t.calls, t.hedges, t.gave_up, t.denied), (2, 1, 1, 1));
    assert_eq!(t.done_at, Some(100 * MS));
    // Without the budget, all five copies go out.
    let free = one_run(&yaml.replace("budget: {kind: grpc, max_tokens: 4},\n  ", "")).totals;
    assert_eq!(
        (free.calls, free.hedges, free.gave_up, free.denied),
        (5, 4, 1, 0)
    );
}

#[test]
fn a_request_is_still_retrying_once_however_many_copies_wait() {
    // A server that serves nothing holds every copy in its queue. Copies at 0, 100 and
    // 200 ms; the one due at 300 ms is after the 250 ms deadline, so it is not sent.
    // One request is still waiting at the horizon, not three.
    let yaml = "clients: 1\nhorizon: 1s\n\
                server: {capacity: 1, queue: {limit: 10}, slowdowns: [{from: 0s, to: 1s, capacity: 0}]}\n\
                retry: {deadline: 250ms, hedging: {delay: 100ms, max_attempts: 5}}\n\
                strategies: [fixed]\n";
    let t = one_run(yaml).totals;
    assert_eq!(
        (t.calls, t.hedges, t.still_retrying, t.gave_up),
        (3, 2, 1, 0)
    );
    assert_eq!(t.done_at, None);
}

#[test]
fn every_strategy_runs_the_hedged_crowd_the_same_way_twice() {
    // A large hedged crowd against a fleet with queues and timeouts: every call is
    // accounted for, and a run repeats to the call.
    let yaml = "clients: 3000\nspread: 2s\nhorizon: 20s\n\
                arrivals: {rate: 200}\n\
                server: {capacity: 30, queue: {limit: 50}, replicas: 3, balancer: power-of-two,\n  \
                overrides: [{replica: 2, slowdowns: [{from: 1s, to: 5s, capacity: 5}]}]}\n\
                retry: {max_attempts: 3, timeout: 400ms, budget: grpc,\n  \
                hedging: {delay: 200ms, max_attempts: 3}}\n";
    let s = scenario(yaml);
    for strategy in Strategy::CLASSIC {
        let a = simulate(&s, strategy, 7, true);
        assert_eq!(a, simulate(&s, strategy, 7, true), "{strategy:?}");
        let t = a.totals;
        let requests = 3000 + t.arrivals;
        assert_eq!(
            t.served + t.gave_up + t.still_retrying,
            requests,
            "{strategy:?}"
        );
        assert!(t.hedges > 0 && t.hedges < t.calls, "{strategy:?}: {t:?}");
        let lanes = a.lanes.unwrap();
        assert_eq!(
            lanes.hedges.iter().map(|&h| u64::from(h)).sum::<u64>(),
            t.hedges
        );
        assert_eq!(
            lanes.served.iter().map(|&h| u64::from(h)).sum::<u64>(),
            t.served
        );
        // The replicas' served and wasted calls add up to the fleet's.
        let served: u64 = a.replicas.iter().map(|r| r.served).sum();
        let wasted: u64 = a.replicas.iter().map(|r| r.wasted).sum();
        assert_eq!((served, wasted), (t.served, t.wasted), "{strategy:?}");
    }
}

#[test]
fn the_mistakes_an_author_makes_with_hedging() {
    let with = |hedging: &str| {
        format!("id: s\nclients: 5\nserver: {{capacity: 10}}\nretry: {{hedging: {hedging}}}\n")
    };
    let e = errors(&with("{delay: 100ms}"));
    assert!(e.contains("max_attempts"), "{e}");
    let e = errors(&with("{delay: 100ms, max_attempts: 6}"));
    assert!(
        e.contains("`retry.hedging.max_attempts` is 6; the limit is 5"),
        "{e}"
    );
    assert!(e.contains("s.yaml:4:"), "{e}");
    let e = errors(&with("{delay: 100ms, max_attempts: 1}"));
    assert!(e.contains("retry.hedging.max_attempts"), "{e}");
    let e = errors(&with("{delay: 2h, max_attempts: 2}"));
    assert!(e.contains("`retry.hedging.delay` is 2h"), "{e}");
    let e = errors(&with("{dealy: 100ms, max_attempts: 2}"));
    assert!(e.contains("delay"), "{e}");
    let e = errors(
        "id: s\nclients: 5\nserver: {capacity: 10, pushback: {}}\n\
         retry: {hedging: {max_attempts: 2}}\n",
    );
    assert!(e.contains("`retry.hedging` with `server.pushback`"), "{e}");
    assert!(e.contains("s.yaml:4:"), "{e}");
}

#[test]
fn the_most_work_of_a_hedged_scenario_counts_every_copy() {
    // Three attempts of four copies each: twelve calls at most, so that a hedged
    // scenario is never let run uncounted on a bound that leaves its copies out.
    let plain = scenario("clients: 10\nretry: {max_attempts: 3}\nstrategies: [fixed]\n");
    let hedged = scenario(
        "clients: 10\nretry: {max_attempts: 3, hedging: {delay: 1s, max_attempts: 4}}\n\
         strategies: [fixed]\n",
    );
    assert_eq!(plain.calls_per_client(Strategy::Fixed), 3);
    assert_eq!(hedged.calls_per_client(Strategy::Fixed), 12);
    assert!(hedged.most_work() > plain.most_work());
}

#[test]
fn a_breaker_sees_every_copy_the_server_answers_and_closes_again() {
    // Two requests a tick, each sent twice at once; the server is down for the second
    // second, so the breaker opens and lets two trial calls through a second later.
    // Each trial's sibling answers its client in the same tick: the trials are still
    // answers of the server, so the breaker closes and the clients are served again.
    let yaml = "clients: 0\nhorizon: 10s\narrivals: {rate: 20}\n\
                server: {capacity: 10, outages: [{from: 1s, to: 2s}]}\n\
                retry: {max_attempts: 1, hedging: {delay: 0s, max_attempts: 2},\n  \
                breaker: {half_open_calls: 2, open_for: 1s, minimum_calls: 4, window: 10}}\n\
                strategies: [fixed]\n";
    let run = one_run(yaml);
    let lanes = run.lanes.unwrap();
    assert!(run.totals.recovery.is_some(), "{:?}", run.totals);
    assert!(lanes.failed_fast[30..].iter().all(|&f| f == 0), "{lanes:?}");
    assert!(lanes.served[30..].iter().all(|&s| s == 2), "{lanes:?}");
}

#[test]
fn a_budget_counts_a_timers_hedge_in_its_own_tick() {
    // Finagle's budget with nothing deposited per request allows 5 retries a second.
    // Every call is sent twice at once: the hedges of the first second are 5, as
    // plain retries would be, then 5 again once the first tick's leave the window.
    let yaml = "clients: 10\nhorizon: 3s\narrivals: {rate: 100}\nserver: {capacity: 1000}\n\
                retry: {max_attempts: 1, hedging: {delay: 0s, max_attempts: 2},\n  \
                budget: {kind: finagle, ttl: 1s, min_retries_per_sec: 5, percent_can_retry: 0}}\n\
                strategies: [fixed]\n";
    let lanes = one_run(yaml).lanes.unwrap();
    assert_eq!(
        lanes.hedges[..10].iter().sum::<u32>(),
        5,
        "{:?}",
        lanes.hedges
    );
    assert_eq!(
        lanes.hedges[10..20].iter().sum::<u32>(),
        5,
        "{:?}",
        lanes.hedges
    );
    // An AWS quota of 10 pays for two hedges of 5; a hedge answered for nobody was
    // cancelled and gets nothing back, so no third is sent.
    let aws = "clients: 0\nhorizon: 5s\narrivals: {rate: 10}\nserver: {capacity: 1000}\n\
               retry: {max_attempts: 1, hedging: {delay: 0s, max_attempts: 2},\n  \
               budget: {kind: aws, quota: 10, no_retry_increment: 0}}\n\
               strategies: [fixed]\n";
    let t = one_run(aws).totals;
    assert_eq!((t.hedges, t.wasted, t.served, t.denied), (2, 2, 50, 0));
}

#[test]
fn a_hedge_in_the_tick_of_its_first_copy_goes_elsewhere_too() {
    // One client, two replicas at random, a hedge 50 ms after the call: both copies are
    // seen in tick 0, and the hedge goes to the replica the first copy did not, for
    // every seed.
    for seed in 1..=20 {
        let yaml = format!(
            "clients: 1\nhorizon: 1s\nseed: {seed}\n\
             server: {{capacity: 5, replicas: 2, balancer: random}}\n\
             retry: {{max_attempts: 1, hedging: {{delay: 50ms, max_attempts: 2}}}}\n\
             strategies: [fixed]\n"
        );
        let run = one_run(&yaml);
        let calls: Vec<u64> = run.replicas.iter().map(|r| r.calls).collect();
        assert_eq!(calls, [1, 1], "seed {seed}");
    }
}

#[test]
fn throttling_counts_a_copy_answered_for_nobody_as_accepted() {
    // A server ten times the load, every call sent three times at once: each copy is
    // answered, so adaptive throttling, which compares requests with accepts, refuses
    // nothing.
    let yaml = "clients: 0\nhorizon: 10s\narrivals: {rate: 100}\nserver: {capacity: 1000}\n\
                retry: {max_attempts: 1, throttle: {}, hedging: {delay: 0s, max_attempts: 3}}\n\
                strategies: [fixed]\n";
    let t = one_run(yaml).totals;
    assert_eq!(
        (t.throttled, t.gave_up, t.served, t.hedges),
        (0, 0, 1000, 2000)
    );
}

#[test]
fn copies_sent_together_go_to_different_replicas_whichever_arrives_first() {
    // Two copies at once, in a random order of arrival: whichever is given a replica
    // first, the other goes to the other one. Replica 1 is down, so a client whose
    // copies both went there would give up.
    for seed in 1..=40 {
        let yaml = format!(
            "clients: 1\nhorizon: 1s\nseed: {seed}\n\
             server: {{capacity: 5, replicas: 2, balancer: random,\n  \
             overrides: [{{replica: 1, outages: [{{from: 0s, to: 1s}}]}}]}}\n\
             retry: {{max_attempts: 1, hedging: {{delay: 0s, max_attempts: 2}}}}\n\
             strategies: [fixed]\n"
        );
        let run = one_run(&yaml);
        let calls: Vec<u64> = run.replicas.iter().map(|r| r.calls).collect();
        assert_eq!(calls, [1, 1], "seed {seed}");
        assert_eq!(run.totals.served, 1, "seed {seed}");
    }
}

#[test]
fn a_finagle_budget_has_the_ticks_requests_before_its_hedges_ask() {
    // Finagle's defaults: 10 retries a second always, and 20% of the requests. A
    // thousand requests at once, each sent twice at once: 100 + 200 hedges, as many
    // as the budget would let retry in that tick.
    let yaml = "clients: 1000\nhorizon: 2s\nserver: {capacity: 10000}\n\
                retry: {max_attempts: 1, budget: finagle, hedging: {delay: 0s, max_attempts: 2}}\n\
                strategies: [fixed]\n";
    let t = one_run(yaml).totals;
    assert_eq!((t.hedges, t.served, t.wasted), (300, 1000, 300));
}
