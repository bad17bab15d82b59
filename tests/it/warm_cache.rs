//! A server behind a cache (`server.cache`, [`retrylab::engine::server`]): its capacity
//! follows the cache's warmth; against ticks computed by hand, and the mistakes an
//! author makes with the key.

use retrylab::engine::{Run, simulate};

use crate::util::{errors, scenario};

/// The one run of `yaml`'s first strategy, with its lanes.
fn one_run(yaml: &str) -> Run {
    let s = scenario(yaml);
    simulate(&s, s.strategies[0], s.seed, true)
}

/// The first `n` ticks of a lane.
fn first<T: Copy>(lane: &[T], n: usize) -> Vec<T> {
    lane[..n].to_vec()
}

/// Three new requests a tick (at 30 per second, one every 33,333 µs), one attempt
/// each, free rejections; a cache of 4 calls a tick in front of a server of 2, warm
/// after 4 answers within 200 ms (two ticks). `{server}` and `{arrivals}` are filled in.
const CROWD: &str = "id: c\nclients: 0\nhorizon: 1s\narrivals: {arrivals}\n\
                     server: {{capacity: 2, rejection_cost: 0{server},\n  \
                     cache: {{capacity: 4, warm_after: 4, ttl: 200ms{start}}}}}\n\
                     retry: {{max_attempts: 1}}\nstrategies: [fixed]\nruns: 1\n";

fn crowd(arrivals: &str, server: &str, start: &str) -> String {
    CROWD
        .replace("{arrivals}", arrivals)
        .replace("{server}", server)
        .replace("{start}", start)
        .replace("{{", "{")
        .replace("}}", "}")
}

#[test]
fn a_cold_cache_warms_with_its_answers() {
    // Tick 0: nothing held, the capacity of a miss, 2: two of three served. Tick 1: two
    // answers held (ticks -1 and 0), half warm: 4·2·4 / (2·2 + 2·4) = 2.666, 2 served.
    // Tick 2: four held (ticks 0 and 1), warm: 4, all three served; and so on, warm.
    let run = one_run(&crowd("{rate: 30}", "", ", start: cold"));
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(first(&lanes.served, 5), [2, 2, 3, 3, 3]);
    assert_eq!(first(&lanes.capacity, 5), [2000, 2666, 4000, 4000, 4000]);
    assert_eq!(lanes.capacity.len(), 10);
    let t = run.totals;
    assert_eq!((t.calls, t.served, t.gave_up), (30, 28, 2));
    // Warm from the start (the default), it serves all thirty.
    let run = one_run(&crowd("{rate: 30}", "", ""));
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(lanes.capacity, [4000; 10]);
    assert_eq!(run.totals.served, 30);
}

#[test]
fn an_outage_empties_the_cache() {
    // Warm, down for ticks 3 and 4: nothing served, the capacity 0. Tick 5: nothing held,
    // 2 served; tick 6: two held (ticks 4 and 5), 2.666, 2 served; tick 7: four held,
    // all three.
    let run = one_run(&crowd(
        "{rate: 30}",
        ", outages: [{from: 300ms, to: 500ms}]",
        "",
    ));
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(lanes.served, [3, 3, 3, 0, 0, 2, 2, 3, 3, 3]);
    assert_eq!(
        lanes.capacity,
        [4000, 4000, 4000, 0, 0, 2000, 2666, 4000, 4000, 4000]
    );
}

#[test]
fn the_answers_held_before_an_outage_are_gone_after_it() {
    // A window of three ticks (300 ms), warm; down in tick 3 only. Ticks 4 and 5 hold
    // only what came after the outage (2, then 2 + 2): 2 and 2.666 served, not the
    // three of tick 2 that the window would still hold without the outage.
    let yaml = crowd("{rate: 30}", ", outages: [{from: 300ms, to: 400ms}]", "")
        .replace("ttl: 200ms", "ttl: 300ms");
    let run = one_run(&yaml);
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(lanes.served, [3, 3, 3, 0, 2, 2, 3, 3, 3, 3]);
    assert_eq!(
        lanes.capacity,
        [4000, 4000, 4000, 0, 2000, 2666, 4000, 4000, 4000, 4000]
    );
}

#[test]
fn a_long_window_over_a_long_outage_costs_a_step_a_tick() {
    // 900,000 ticks, each looking back over all of them, and down throughout: emptying
    // the cache each tick takes no time however long its window.
    let yaml = "id: l\nclients: 5\nhorizon: 1h\n\
                server: {tick: 4ms, capacity: 1, outages: [{from: 0s, to: 1h}],\n  \
                cache: {capacity: 2, warm_after: 1, ttl: 1h}}\n\
                retry: {max_attempts: 2}\nstrategies: [fixed]\nruns: 1\n";
    let s = scenario(yaml);
    let run = simulate(&s, s.strategies[0], s.seed, false);
    assert_eq!((run.totals.calls, run.totals.gave_up), (10, 5));
}

#[test]
fn a_window_too_long_for_the_replicas_is_refused_at_the_ttl() {
    let yaml = "id: l\nclients: 5\nhorizon: 1h\n\
                server: {tick: 4ms, replicas: 5,\n  \
                cache: {capacity: 20, warm_after: 1, ttl: 1h}}\n";
    let e = errors(yaml);
    assert!(
        e.starts_with(
            "error: the cache's `ttl` spans 900,000 ticks of the run on each of 5 replicas: \
             4,500,000 together, more than the 4,000,000 a run's caches can hold\n \
             --> s.yaml:5:45\n"
        ),
        "{e}"
    );
}

#[test]
fn a_cold_cache_that_chokes_stays_cold_until_the_load_falls() {
    // All-or-nothing: three calls a tick against a cold capacity of 2 choke the server,
    // which answers none, so the cache never warms, with no retry at all. From 1 s the
    // load falls to two a tick (20 per second), which the cold server serves: tick 10
    // serves 2, tick 11 (2.666) serves 2, and from tick 12 it is warm. At 1.5 s the load
    // is three again, and the warm server serves it.
    let arrivals = "[{rate: 30, from: 0s, to: 1s}, {rate: 20, from: 1s, to: 1.5s}, \
                    {rate: 30, from: 1.5s, to: 2s}]";
    let yaml = crowd(arrivals, ", model: all-or-nothing", ", start: cold")
        .replace("horizon: 1s", "horizon: 2s");
    let run = one_run(&yaml);
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(lanes.served[..10], [0; 10]);
    assert_eq!(lanes.capacity[..10], [2000; 10]);
    assert_eq!(lanes.served[10..], [2, 2, 2, 2, 2, 3, 3, 3, 3, 3]);
    assert_eq!(lanes.capacity[10..13], [2000, 2666, 4000]);
    // Warm at the start, the same load never chokes it.
    let warm = one_run(&yaml.replace(", start: cold", ""));
    assert_eq!(warm.totals.served, warm.totals.calls);
}

#[test]
fn answers_too_late_to_keep_never_warm_the_cache() {
    // A FIFO queue, 200 ms timeouts, two calls a tick (at 0 and 50 ms into it), one
    // attempt each; a server of 1 a tick behind a cache of 4, warm after 4 answers
    // within two ticks, cold. A call sent at the start of tick s expires in tick s + 1,
    // one sent 50 ms in, in tick s + 2.
    // Tick 0: capacity 1, serves a0 at once (in time). Tick 1: one held,
    // 4·1·4 / (1·1 + 3·4) = 1.230: serves b0 (in time). Tick 2: two held, 1.6: serves
    // a1 in its expiry tick, late (wasted). Tick 3: one held (1 + 0), 1.230: serves b1
    // late. From tick 4 nothing held: each tick serves one call, late, and the cache
    // stays cold, with no retry.
    let yaml = "id: q\nclients: 0\nhorizon: 1s\narrivals: {rate: 20}\n\
                server: {capacity: 1, rejection_cost: 0, queue: {limit: 100},\n  \
                cache: {capacity: 4, warm_after: 4, ttl: 200ms, start: cold}}\n\
                retry: {max_attempts: 1, timeout: 200ms}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(lanes.served, [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(lanes.wasted, [0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(
        lanes.capacity,
        [1000, 1230, 1600, 1230, 1000, 1000, 1000, 1000, 1000, 1000]
    );
    assert_eq!(run.totals.served, 2);
    // Warm, its 4 a tick answer both calls of each tick at once.
    let warm = one_run(&yaml.replace(", start: cold", ""));
    assert_eq!(warm.totals.served, 20);
    assert_eq!(warm.lanes.as_ref().expect("lanes").capacity, [4000; 10]);
}

#[test]
fn each_replica_has_a_cache_of_its_own() {
    // Two replicas of 1 a tick behind caches of 2, warm after 2 answers within 200 ms;
    // round-robin, two calls a tick, one to each. Replica 2 is down in tick 0, which
    // empties its cache: tick 1 it has the capacity of a miss, 1, and serves its call
    // (it serves one either way); the capacity lane adds the two: 2 + 0, then 2 + 1,
    // then, with replica 2's answer of tick 1 held, 2 + 1.333, then 2 + 2.
    let yaml = "id: f\nclients: 0\nhorizon: 500ms\narrivals: {rate: 20}\n\
                server: {replicas: 2, capacity: 1, rejection_cost: 0,\n  \
                cache: {capacity: 2, warm_after: 2, ttl: 200ms},\n  \
                overrides: [{replica: 2, outages: [{from: 0s, to: 100ms}]}]}\n\
                retry: {max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let lanes = run.lanes.as_ref().expect("lanes");
    assert_eq!(lanes.capacity, [2000, 3000, 3333, 4000, 4000]);
    assert_eq!(lanes.served, [1, 2, 2, 2, 2]);
}

#[test]
fn a_scenario_without_a_cache_records_no_capacity() {
    let run = one_run("id: p\nclients: 30\nhorizon: 1s\nstrategies: [fixed]\nruns: 1\n");
    assert!(run.lanes.expect("lanes").capacity.is_empty());
}

#[test]
fn the_cache_keys_are_refused_at_their_place() {
    let below = errors(
        "id: a\nclients: 1\nserver: {capacity: 10, cache: {capacity: 5, warm_after: 9, ttl: 1s}}\n",
    );
    assert!(
        below.starts_with(
            "error: `server.cache.capacity` (5) must be more than `server.capacity` (10)\n \
             --> s.yaml:3:42\n"
        ),
        "{below}"
    );
    let missing = errors("id: a\nclients: 1\nserver: {cache: {capacity: 50}}\n");
    assert!(missing.contains("`warm_after`"), "{missing}");
    assert!(missing.contains("`ttl`"), "{missing}");
    let start = errors(
        "id: a\nclients: 1\nserver: {cache: {capacity: 50, warm_after: 9, ttl: 1s, start: cool}}\n",
    );
    assert!(
        start.starts_with("error: unknown cache start `cool`"),
        "{start}"
    );
    assert!(start.contains("did you mean `cold`?"), "{start}");
    let zero =
        errors("id: a\nclients: 1\nserver: {cache: {capacity: 50, warm_after: 0, ttl: 1s}}\n");
    assert!(zero.contains("server.cache.warm_after"), "{zero}");
    let key = errors(
        "id: a\nclients: 1\nserver: {cache: {capacity: 50, warm_after: 9, ttl: 1s, hit: 3}}\n",
    );
    assert!(
        key.starts_with("error: unknown key `server.cache.hit`"),
        "{key}"
    );
}

#[test]
fn hostile_caches_run_or_are_refused_one_error_each() {
    // A hundred replicas of half a call a tick (so none of them ever serves one, and
    // their caches stay cold) but one of a whole call, each with a cache of a billion
    // whose answers last a microsecond, down for half the run, with queues that drop
    // what expires, under twenty thousand requests a second: it runs, replica 1 serves
    // and warms, the others drop what expires, and every call is accounted for.
    let yaml = "id: h\nclients: 1000\nhorizon: 10s\narrivals: {rate: 20000}\n\
                server: {tick: 1ms, capacity: 0.5, replicas: 100,\n  \
                overrides: [{replica: 1, capacity: 1}],\n  \
                cache: {capacity: 1000000000, warm_after: 1, ttl: 1us},\n  \
                outages: [{from: 0s, to: 5s}], queue: {limit: 10000000, drop_expired: true}}\n\
                retry: {timeout: 2ms, max_attempts: 3}\n\
                strategies: [full-jitter]\nruns: 1\n";
    let run = one_run(yaml);
    let t = run.totals;
    assert_eq!(t.served + t.gave_up + t.still_retrying, 1000 + 200_000);
    let served = |r: usize| run.replicas[r].served;
    assert!(served(0) > 0 && (1..100).all(|r| served(r) == 0));
    assert!(run.replicas.iter().skip(1).all(|r| r.dropped > 0));
    let r = run.replicas.iter().fold(0, |n, r| {
        n + r.served + r.wasted + r.rejected + r.dropped + r.queued
    });
    assert_eq!(r, t.calls);
    // Four mistakes, four errors, each at its place.
    let e = errors(
        "id: a\nclients: 100\n\
         server: {pushback: {after: -1s}, cache: {capacity: 1e3, warm_after: 1.5, ttl: 0s}}\n",
    );
    let places: Vec<&str> = e.lines().filter(|l| l.starts_with(" --> ")).collect();
    assert_eq!(
        places,
        [
            " --> s.yaml:3:28",
            " --> s.yaml:3:52",
            " --> s.yaml:3:69",
            " --> s.yaml:3:79"
        ],
        "{e}"
    );
}
