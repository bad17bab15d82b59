//! The server's pushback ([`retrylab::engine::scenario::Pushback`]): a rejection that
//! says "don't retry" ends its request in every layer; against ticks computed by hand,
//! and the mistakes an author makes with the key.

use retrylab::engine::{Run, simulate};

use crate::util::{errors, scenario};

/// The one run of `yaml`'s first strategy, with its lanes.
fn one_run(yaml: &str) -> Run {
    let s = scenario(yaml);
    simulate(&s, s.strategies[0], s.seed, true)
}

#[test]
fn a_rejection_that_says_dont_retry_ends_its_request() {
    // One call a tick, rejections free, three clients at 0 s: tick 0 serves one and
    // turns two away, each with "don't retry", so both give up there with attempts
    // left. Without pushback they retry 100 ms later, one served a tick.
    let plain = "id: p\nclients: 3\nhorizon: 2s\nserver: {capacity: 1, rejection_cost: 0}\n\
                 retry: {base: 100ms, max_attempts: 5}\nstrategies: [fixed]\nruns: 1\n";
    let told = plain.replace("rejection_cost: 0}", "rejection_cost: 0, pushback: {}}");
    let t = one_run(&told).totals;
    assert_eq!((t.calls, t.served, t.gave_up, t.pushed_back), (3, 1, 2, 2));
    assert_eq!(t.done_at, Some(0));
    let t = one_run(plain).totals;
    assert_eq!((t.calls, t.served, t.gave_up, t.pushed_back), (6, 3, 0, 0));
    // With one attempt there is nothing to end: the clients give up as they would.
    let once = told.replace("max_attempts: 5", "max_attempts: 1");
    let t = one_run(&once).totals;
    assert_eq!((t.gave_up, t.pushed_back), (2, 0));
    // Pushback comes before a Retry-After hint on the same rejection.
    let both = told.replace("pushback: {}", "pushback: {}, retry_after: {hint: 1s}");
    assert_eq!(one_run(&both).totals, one_run(&told).totals);
}

#[test]
fn pushback_ends_the_request_in_every_layer() {
    // The server is down for the whole horizon. Three layers of three attempts each,
    // 100 ms apart: 27 calls, then the client gives up. Told "don't retry" while down,
    // it makes one call, and no layer above the one told retries.
    let layered = "id: l\nclients: 1\nhorizon: 60s\n\
                   server: {capacity: 1, outages: [{from: 0s, to: 60s}]}\n\
                   retry: {base: 100ms}\n\
                   layers: [{attempts: 3}, {attempts: 3}, {attempts: 3}]\n\
                   strategies: [fixed]\nruns: 1\n";
    let t = one_run(layered).totals;
    assert_eq!((t.calls, t.gave_up, t.pushed_back), (27, 1, 0));
    let told = layered.replace("to: 60s}]}", "to: 60s}], pushback: {when: down}}");
    let t = one_run(&told).totals;
    assert_eq!((t.calls, t.gave_up, t.pushed_back), (1, 1, 1));
    // `overloaded` does not mark an outage's rejections.
    let overloaded = told.replace("when: down", "when: overloaded");
    let t = one_run(&overloaded).totals;
    assert_eq!((t.calls, t.gave_up, t.pushed_back), (27, 1, 0));
}

#[test]
fn each_replica_pushes_back_by_its_own_state() {
    // Two replicas of one call a tick, round-robin; replica 2 is down for the first
    // 100 ms and says "don't retry" while down. Tick 0: four calls at 0 s, two to each.
    // Replica 1 serves one and turns one away for overload, which retries in tick 1;
    // replica 2 turns both away while down: both clients give up, told. Tick 1: the
    // retry goes to replica 1 (the turn), which serves it.
    let yaml = "id: f\nclients: 4\nhorizon: 2s\n\
                server: {replicas: 2, capacity: 1, rejection_cost: 0, pushback: {when: down},\n  \
                overrides: [{replica: 2, outages: [{from: 0s, to: 100ms}]}]}\n\
                retry: {base: 100ms, max_attempts: 3}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let t = run.totals;
    assert_eq!((t.calls, t.served, t.gave_up, t.pushed_back), (5, 2, 2, 2));
    let r = |i: usize| {
        (
            run.replicas[i].calls,
            run.replicas[i].served,
            run.replicas[i].rejected,
        )
    };
    assert_eq!((r(0), r(1)), ((3, 2, 1), (2, 0, 2)));
}

#[test]
fn the_pushback_keys_are_refused_at_their_place() {
    let when = errors("id: a\nclients: 1\nserver: {pushback: {when: overload}}\n");
    assert!(
        when.starts_with("error: unknown pushback rule `overload`\n --> s.yaml:3:27\n"),
        "{when}"
    );
    assert!(when.contains("did you mean `overloaded`?"), "{when}");
    let key = errors("id: a\nclients: 1\nserver: {pushback: {hint: 1s}}\n");
    assert!(
        key.starts_with("error: unknown key `server.pushback.hint`"),
        "{key}"
    );
}
