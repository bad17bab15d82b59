//! The server's pushback ([`retrylab::engine::scenario::Pushback`]): a rejection that
//! says "don't retry" ends its request in every layer, one that says "retry after D" is
//! retried after exactly D, its backoff started over; against ticks computed by hand,
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

/// One client, exponential backoff from 100 ms, against a server that is down for the
/// first tick and then serves nothing until 2 s (a slowdown to 0): `{server}` is its
/// pushback or Retry-After.
fn retry_after_yaml(server: &str) -> String {
    format!(
        "id: r\nclients: 1\nhorizon: 5s\n\
         server: {{capacity: 1, outages: [{{from: 0s, to: 100ms}}],\n  \
         slowdowns: [{{from: 100ms, to: 2s, capacity: 0}}], {server}}}\n\
         retry: {{base: 100ms, multiplier: 2, max_attempts: 10}}\n\
         strategies: [exponential]\nruns: 1\n"
    )
}

/// The ticks in which a run's lane turned a call away.
fn rejected_ticks(run: &Run) -> Vec<usize> {
    let lanes = run.lanes.as_ref().expect("lanes");
    (lanes.rejected.iter().enumerate())
        .filter(|&(_, &n)| n > 0)
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn retry_after_d_is_exact_and_starts_the_backoff_over() {
    // The call at 0 s is turned away while down, told to retry after 250 ms: at 250 ms
    // exactly, no wait drawn. Turned away again (overloaded, no pushback), its backoff
    // starts over: 100 ms (a = 0), then 200, 400, 800, 1,600 ms: calls at 0.35, 0.55,
    // 0.95, 1.75 and 3.35 s, served at 3.35 s (tick 33).
    let run = one_run(&retry_after_yaml("pushback: {when: down, after: 250ms}"));
    assert_eq!(rejected_ticks(&run), [0, 2, 3, 5, 9, 17]);
    let t = run.totals;
    assert_eq!((t.calls, t.served, t.gave_up, t.pushed_back), (7, 1, 0, 0));
    assert_eq!(t.done_at, Some(3_300_000));
    // A Retry-After hint of 250 ms is a least wait and resets nothing: 250 ms, then
    // 200, 400, 800, 1,600 ms (a = 1 on): calls at 0.25, 0.45, 0.85, 1.65, 3.25 s.
    let run = one_run(&retry_after_yaml("retry_after: {hint: 250ms, when: down}"));
    assert_eq!(rejected_ticks(&run), [0, 2, 4, 8, 16]);
    assert_eq!((run.totals.calls, run.totals.done_at), (6, Some(3_200_000)));
}

#[test]
fn retry_after_d_is_the_wait_even_below_the_policys() {
    // Fixed waits of 1 s, down for the first second, told to retry after 300 ms: calls at
    // 0, 0.3, 0.6 and 0.9 s (all down), served at 1.2 s. Out of attempts, the client gives
    // up even when told when to retry (A6), and that is no "don't retry".
    let yaml = "id: e\nclients: 1\nhorizon: 5s\n\
                server: {capacity: 1, outages: [{from: 0s, to: 1s}],\n  \
                pushback: {when: down, after: 300ms}}\n\
                retry: {base: 1s, max_attempts: 10}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    assert_eq!(rejected_ticks(&run), [0, 3, 6, 9]);
    assert_eq!((run.totals.calls, run.totals.done_at), (5, Some(1_200_000)));
    let s = scenario(yaml);
    assert!(s.calls_per_client(s.strategies[0]) >= 5);
    let t = one_run(&yaml.replace("max_attempts: 10", "max_attempts: 2")).totals;
    assert_eq!((t.calls, t.gave_up, t.pushed_back), (2, 1, 0));
    // Retry-After's hint would be the least wait: the policy's 1 s.
    let hinted = yaml.replace(
        "pushback: {when: down, after: 300ms}",
        "retry_after: {hint: 300ms}",
    );
    assert_eq!(one_run(&hinted).totals.calls, 2);
}

#[test]
fn retry_after_d_is_the_bottom_layers_wait() {
    // Down throughout, told to retry after 1 s; two layers of two attempts, fixed waits
    // of 100 ms. 0 s: both layers' first call; 1 s: the bottom layer's retry, after
    // exactly 1 s; then the upper layer retries after its own 100 ms: 1.1 s, the bottom
    // one afresh; 2.1 s: the bottom one's retry; then every layer is out, and the
    // client gives up in tick 21.
    let yaml = "id: l\nclients: 1\nhorizon: 10s\n\
                server: {capacity: 1, outages: [{from: 0s, to: 10s}],\n  \
                pushback: {when: down, after: 1s}}\n\
                retry: {base: 100ms}\nlayers: [{attempts: 2}, {attempts: 2}]\n\
                strategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    assert_eq!(rejected_ticks(&run), [0, 10, 11, 21]);
    let t = run.totals;
    assert_eq!((t.calls, t.gave_up, t.pushed_back), (4, 1, 0));
    assert_eq!(t.done_at, Some(2_100_000));
}

#[test]
fn a_pushback_delay_past_an_hour_is_refused() {
    let e = errors("id: a\nclients: 1\nserver: {pushback: {after: 2h}}\n");
    assert!(
        e.starts_with("error: `server.pushback.after` is 2h; the limit is 1h\n --> s.yaml:3:28\n"),
        "{e}"
    );
}

#[test]
fn a_replica_says_retry_after_by_its_own_state() {
    // Two replicas of one call a tick, round-robin; replica 2 is down in tick 0 and says
    // "retry after 500 ms" while down. Tick 0: one call to each; replica 1 serves its
    // call, replica 2 turns the other away: it is retried at 500 ms exactly (tick 5),
    // where replica 1 serves it. Without pushback it is retried 100 ms later.
    let yaml = "id: f\nclients: 2\nhorizon: 2s\n\
                server: {replicas: 2, capacity: 1, rejection_cost: 0,\n  \
                pushback: {when: down, after: 500ms},\n  \
                overrides: [{replica: 2, outages: [{from: 0s, to: 100ms}]}]}\n\
                retry: {base: 100ms, max_attempts: 3}\nstrategies: [fixed]\nruns: 1\n";
    let t = one_run(yaml).totals;
    assert_eq!(
        (t.calls, t.served, t.gave_up, t.done_at),
        (3, 2, 0, Some(500_000))
    );
    let plain = yaml.replace("  pushback: {when: down, after: 500ms},\n", "");
    let t = one_run(&plain).totals;
    assert_eq!((t.calls, t.served, t.done_at), (3, 2, Some(100_000)));
}
