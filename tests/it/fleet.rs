//! Many servers ([`retrylab::engine::fleet`]): replicas behind a balancer, against ticks
//! computed by hand, and the mistakes an author makes with the keys.

use retrylab::engine::read::parse_yaml;
use retrylab::engine::stats::ReplicaResult;
use retrylab::engine::{Strategy, parse_scenario, run_scenario, scenario_from_node, simulate};
use retrylab::yaml::{Node, Value};

use crate::util::{errors, root, scenario};

/// Each replica's (calls, served, rejected) of the one run of `yaml`'s first strategy.
fn replicas(yaml: &str) -> Vec<(u64, u64, u64)> {
    let result = run_scenario(&scenario(yaml));
    let one = |r: &ReplicaResult| (r.calls.median, r.served.median, r.rejected.median);
    result.strategies[0].replicas.iter().map(one).collect()
}

/// The served and rejected lanes of the first ticks of `yaml`'s first strategy.
fn lanes(yaml: &str, ticks: usize) -> (Vec<u32>, Vec<u32>) {
    let s = scenario(yaml);
    let lanes = simulate(&s, s.strategies[0], s.seed, true).lanes.unwrap();
    (
        lanes.served[..ticks].to_vec(),
        lanes.rejected[..ticks].to_vec(),
    )
}

#[test]
fn round_robin_keeps_its_turn_from_tick_to_tick() {
    // Tick 0: 30 calls, ten to each replica; replica 2 serves 5 of its 10 and owes
    // half a call. Tick 1: the turn is back at replica 1 (30 calls, 3 replicas): the 5
    // retries go to replicas 1, 2, 3, 1, 2; replica 2's budget is 4.5, enough for 2.
    let yaml = "id: a\nclients: 30\nhorizon: 1s\n\
                server: {replicas: 3, overrides: [{replica: 2, capacity: 5}]}\n\
                strategies: [fixed]\nruns: 1\n";
    assert_eq!(replicas(yaml), [(12, 12, 0), (12, 7, 5), (11, 11, 0)]);
    assert_eq!(lanes(yaml, 3), (vec![25, 5, 0], vec![5, 0, 0]));
}

#[test]
fn least_loaded_starts_each_tick_at_the_lowest_replica() {
    // 31 calls: 11, 10 and 10. Replica 1 turns one away; its retry in tick 1 finds
    // every replica at no load, and goes to replica 1 again, whose budget is 9.9.
    let least = "id: a\nclients: 31\nhorizon: 1s\nserver: {replicas: 3, balancer: least-loaded}\n\
                 strategies: [fixed]\nruns: 1\n";
    assert_eq!(replicas(least), [(12, 11, 1), (10, 10, 0), (10, 10, 0)]);
    // Round robin sends the retry to replica 2, whose turn it is after 31 calls.
    let robin = least.replace("least-loaded", "round-robin");
    assert_eq!(replicas(&robin), [(11, 10, 1), (11, 11, 0), (10, 10, 0)]);
}

#[test]
fn a_balancer_keeps_sending_to_a_replica_that_is_down() {
    // Replica 1 is down for the first second. Round robin gives it half of every tick:
    // 10 of 20, then 5 of the 10 retries, 3 of 5 (the turn at replica 1 after 30
    // calls), 1 of 3 (at replica 2 after 35), the 1 left (at replica 1 after 38), which
    // replica 2 serves at last in tick 5 (after 39). Replica 1 serves nothing; replica
    // 2 every call it is given.
    let yaml = "id: a\nclients: 20\nhorizon: 2s\n\
                server: {replicas: 2, overrides: [{replica: 1, outages: [{from: 0s, to: 1s}]}]}\n\
                strategies: [fixed]\nruns: 1\n";
    assert_eq!(replicas(yaml), [(20, 0, 20), (20, 20, 0)]);
    assert_eq!(
        lanes(yaml, 7),
        (vec![10, 5, 2, 2, 0, 1, 0], vec![10, 5, 3, 1, 1, 0, 0])
    );
}

#[test]
fn power_of_two_splits_a_tick_evenly_where_random_does_not() {
    // Of two replicas, power-of-two draws both: each call goes to the less loaded,
    // so 20 calls split 10 and 10, which two servers of 10 serve at once, on every
    // seed. A random balancer splits them unevenly on some.
    let p2c = "id: a\nclients: 20\nhorizon: 1s\nserver: {replicas: 2, balancer: power-of-two}\n\
               strategies: [fixed]\nruns: 20\n";
    let result = run_scenario(&scenario(p2c));
    assert_eq!(result.strategies[0].calls.p95, 20);
    let random = run_scenario(&scenario(&p2c.replace("power-of-two", "random")));
    assert!(random.strategies[0].calls.p95 > 20);
}

#[test]
fn every_balancer_conserves_calls_and_clients_and_is_the_same_on_every_run() {
    for balancer in ["round-robin", "random", "least-loaded", "power-of-two"] {
        let yaml = format!(
            "id: a\nclients: 500\nhorizon: 30s\nspread: 2s\n\
             server: {{replicas: 5, balancer: {balancer}, capacity: 8,\n  \
             overrides: [{{replica: 4, slowdowns: [{{from: 1s, to: 5s, capacity: 1}}]}}]}}\n\
             retry: {{max_attempts: 8}}\nruns: 7\n"
        );
        let s = scenario(&yaml);
        let result = run_scenario(&s);
        assert_eq!(result, run_scenario(&s), "{balancer}");
        for (strategy, r) in s.strategies.iter().zip(&result.strategies) {
            for seed in s.seed..s.seed + u64::from(s.runs) {
                let run = simulate(&s, *strategy, seed, false);
                let t = run.totals;
                assert_eq!(t.served + t.gave_up + t.still_retrying, 500, "{balancer}");
                let calls: u64 = run.replicas.iter().map(|r| r.calls).sum();
                let served: u64 = run.replicas.iter().map(|r| r.served).sum();
                assert_eq!((calls, served), (t.calls, t.served), "{balancer}");
                for replica in &run.replicas {
                    assert_eq!(replica.calls, replica.served + replica.rejected);
                }
            }
            assert_eq!(r.replicas.len(), 5);
        }
    }
}

/// `yaml` with `server.replicas: 1` written into it.
fn with_one_replica(yaml: &str) -> Node {
    one_replica_in(parse_yaml(yaml).unwrap())
}

/// `root`, a scenario's node, with `server.replicas: 1` written into it.
fn one_replica_in(mut root: Node) -> Node {
    let scalar = |text: &str| Node {
        value: Value::Scalar {
            text: text.to_string(),
            plain: true,
            quoted: false,
        },
        pos: root.pos,
        width: 1,
    };
    let (key, one) = (scalar("replicas"), scalar("1"));
    let Value::Map(entries) = &mut root.value else {
        panic!("a scenario is a map")
    };
    match entries
        .iter_mut()
        .find(|(k, _)| k.as_scalar() == Some("server"))
    {
        Some((_, server)) => match &mut server.value {
            Value::Map(keys) => keys.push((key, one)),
            _ => panic!("a server is a map"),
        },
        None => {
            let server = Node {
                value: Value::Map(vec![(key, one)]),
                pos: root.pos,
                width: 1,
            };
            entries.push((scalar("server"), server));
        }
    }
    root
}

#[test]
fn one_replica_is_the_server_without_the_key_in_every_preset() {
    let mut presets = 0;
    for entry in std::fs::read_dir(root().join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let yaml = std::fs::read_to_string(&path).unwrap();
        let plain = parse_scenario(&yaml, Some("s")).unwrap();
        if plain.server.fleet.is_some() {
            continue;
        }
        let one = scenario_from_node(&with_one_replica(&yaml), Some("s")).unwrap();
        assert_eq!(one, plain, "{path:?}");
        presets += 1;
    }
    assert!(presets >= 10, "{presets}");
}

#[test]
fn one_replica_is_the_server_without_the_key_in_every_articles_block() {
    use retrylab::directive::read_sim_root;
    let mut blocks = 0;
    for (path, node) in crate::util::article_sims() {
        let plain = read_sim_root(&node).unwrap();
        if plain.scenario.server.fleet.is_some() {
            continue;
        }
        let one = read_sim_root(&one_replica_in(node)).unwrap();
        assert_eq!(one.scenario, plain.scenario, "{path:?}");
        blocks += 1;
    }
    assert!(blocks >= 25, "{blocks}");
}

#[test]
fn the_fleets_keys_are_refused_at_their_place() {
    assert_eq!(
        errors("id: a\nclients: 1\nserver: {replicas: 0}\n"),
        "error: `server.replicas` must be at least 1, found 0\n --> s.yaml:3:20\n  |\n\
         3 | server: {replicas: 0}\n  |                    ^"
    );
    let balancer = errors("id: a\nclients: 1\nserver: {replicas: 2, balancer: round-robn}\n");
    assert!(
        balancer.starts_with("error: unknown balancer `round-robn`\n --> s.yaml:3:33\n"),
        "{balancer}"
    );
    assert!(
        balancer.contains("did you mean `round-robin`?"),
        "{balancer}"
    );
    let past = errors(
        "id: a\nclients: 1\nserver: {replicas: 3, overrides: [{replica: 4, capacity: 2}]}\n",
    );
    assert!(
        past.starts_with(
            "error: `server.overrides[].replica` is 4, but the server has 3 replicas\n \
             --> s.yaml:3:45\n"
        ),
        "{past}"
    );
    let twice = errors(
        "id: a\nclients: 1\nserver:\n  replicas: 3\n  overrides: [{replica: 2, capacity: 2}, {replica: 2}]\n",
    );
    assert!(
        twice.starts_with("error: replica 2 is overridden twice\n --> s.yaml:5:52\n"),
        "{twice}"
    );
    let alone = errors("id: a\nclients: 1\nserver: {balancer: random}\n");
    assert!(
        alone.starts_with(
            "error: `server.balancer` needs `server.replicas` of 2 or more\n --> s.yaml:3:10\n"
        ),
        "{alone}"
    );
    let key =
        errors("id: a\nclients: 1\nserver: {replicas: 2, overrides: [{replica: 1, tick: 1s}]}\n");
    assert!(
        key.starts_with("error: unknown key `server.overrides[].tick`"),
        "{key}"
    );
}

#[test]
fn a_fleets_result_names_its_strategy_and_the_json_its_replicas() {
    let s = scenario(
        "id: a\nclients: 30\nhorizon: 1s\nserver: {replicas: 3}\nstrategies: [fixed]\nruns: 1\n",
    );
    assert_eq!(s.strategies, [Strategy::Fixed]);
    let json: serde_json::Value =
        serde_json::from_str(&retrylab::report::json(&run_scenario(&s), false)).unwrap();
    let replicas = json["strategies"][0]["replicas"].as_array().unwrap();
    assert_eq!(replicas.len(), 3);
    assert_eq!(replicas[2]["replica"], 3);
    assert_eq!(replicas[2]["calls"]["median"], 10);
    assert_eq!(replicas[2]["rejected"]["p95"], 0);
    // One server has no such field.
    let one = scenario("id: a\nclients: 30\nhorizon: 1s\nstrategies: [fixed]\nruns: 1\n");
    let json = retrylab::report::json(&run_scenario(&one), false);
    assert!(!json.contains("replicas"));
}

#[test]
fn a_sweep_and_a_readers_knob_vary_the_replicas() {
    // From one replica, where the balancer has nothing to choose, to four: each with
    // the capacity of the one, so that 40 clients are served at once from four on.
    let body = "id: s\nclients: 40\nhorizon: 5s\nserver: {replicas: 1, balancer: least-loaded}\n\
                strategies: [fixed]\nruns: 1\nsweep: {vary: replicas, values: [1, 2, 4]}\n";
    let sweep = retrylab::directive::sweep::read_sweep(body).unwrap();
    let labels: Vec<(&str, f64)> = sweep
        .points
        .iter()
        .map(|(l, x, _)| (l.as_str(), *x))
        .collect();
    assert_eq!(labels, [("1", 1.0), ("2", 2.0), ("4", 4.0)]);
    let calls: Vec<u64> = (sweep.points.iter())
        .map(|(_, _, s)| run_scenario(s).strategies[0].calls.median)
        .collect();
    assert!(calls[0] > calls[1] && calls[2] == 40, "{calls:?}");
    // A knob over the replicas reads, and a value past 100 is refused at its range.
    let knob = "id: k\nclients: 40\nserver: {replicas: 2}\nruns: 1\n\
                figure:\n  explore: {replicas: [1, 10]}\n";
    assert!(retrylab::directive::read_sim(knob).is_ok());
    let past = retrylab::directive::read_sim(&knob.replace("[1, 10]", "[1, 200]")).unwrap_err();
    assert!(past[0].message.contains("100"), "{past:?}");
}

#[test]
fn a_retry_elsewhere_leaves_the_replica_that_turned_it_away() {
    // Replica 1 is down. Tick 0: round robin gives it 10 of the 20 calls. Tick 1: the
    // turn is at replica 1, but each of the 10 retries saw replica 1 last: the turn
    // passes over it, to replica 2, which serves them all.
    let down = "id: a\nclients: 20\nhorizon: 2s\n\
                server: {replicas: 2, overrides: [{replica: 1, outages: [{from: 0s, to: 1s}]}]}\n\
                retry: {elsewhere: true}\nstrategies: [fixed]\nruns: 1\n";
    assert_eq!(replicas(down), [(10, 0, 10), (20, 20, 0)]);
    assert_eq!(lanes(down, 3), (vec![10, 10, 0], vec![10, 0, 0]));
    // Least loaded: the retry of the call replica 1 turned away goes to the least
    // loaded of the others, replica 2 (the lowest of two at no load).
    let least = "id: a\nclients: 31\nhorizon: 1s\nserver: {replicas: 3, balancer: least-loaded}\n\
                 retry: {elsewhere: true}\nstrategies: [fixed]\nruns: 1\n";
    assert_eq!(replicas(least), [(11, 10, 1), (11, 11, 0), (10, 10, 0)]);
    // Random and power-of-two never send a retry back to replica 1 while it is down:
    // with room for every call at replica 2, every retry is served at once, on every
    // seed.
    for balancer in ["random", "power-of-two"] {
        let yaml = down
            .replace(
                "replicas: 2,",
                &format!("replicas: 2, capacity: 20, balancer: {balancer},"),
            )
            .replace("runs: 1", "runs: 10");
        let result = run_scenario(&scenario(&yaml));
        let r = &result.strategies[0];
        assert_eq!(r.replicas[1].rejected.p95, 0, "{balancer}");
        assert_eq!(r.calls.p95, 20 + r.replicas[0].calls.p95, "{balancer}");
    }
    // Without a fleet there is nowhere else to go.
    let alone = errors("id: a\nclients: 1\nretry: {elsewhere: true}\n");
    assert!(
        alone.starts_with(
            "error: `retry.elsewhere` needs `server.replicas` of 2 or more\n --> s.yaml:3:9\n"
        ),
        "{alone}"
    );
}

#[test]
fn a_fleets_figure_is_drawn_and_written_of_as_the_replicas_together() {
    use retrylab::chart::{FigureOptions, figure};
    let s = scenario(
        "id: f\nclients: 300\nhorizon: 10s\nserver: {replicas: 3, balancer: least-loaded,\n  \
         overrides: [{replica: 2, outages: [{from: 0s, to: 3s}]}]}\nstrategies: [fixed]\nruns: 1\n",
    );
    let html = figure(&s, &run_scenario(&s), &FigureOptions::default());
    assert!(
        html.contains(
            "300 clients call at once 3 replicas behind a least-loaded balancer, which serve up \
             to 30 calls per 100 ms tick together."
        ),
        "{html}"
    );
    // The dashed capacity is the fleet's, 20 while replica 2 is down.
    assert!(html.contains("capacity 30 (20 in a slowdown)"), "{html}");
    assert!(html.contains("From 0.0 s to 3.0 s the server's capacity is 20 calls per tick."));
}

/// The run of `yaml`'s first strategy with its first seed, with lanes.
fn one_run(yaml: &str) -> retrylab::engine::Run {
    let s = scenario(yaml);
    simulate(&s, s.strategies[0], s.seed, true)
}

#[test]
fn least_loaded_counts_a_replicas_queue_as_its_load() {
    // Replica 1 serves 1 call a tick, replica 2 serves 3, rejections cost nothing;
    // each queue holds 3 calls, the one being served included. Tick 0: 8 calls at 0 s, alternately to replicas 1
    // and 2 (no queue yet); each admits 3 and turns 1 away. Replica 1 serves 1 and
    // queues 2; replica 2 serves its 3. Tick 1: the 2 retries (0.1 s later) both go to
    // replica 2, which holds nothing, while replica 1 holds its 2 queued calls (given
    // only the tick's calls, the first would go to replica 1); replica 1 serves 1 of
    // its queue, replica 2 both retries. Tick 2: replica 1 serves its last.
    let yaml = "id: a\nclients: 8\nhorizon: 1s\n\
                server: {replicas: 2, balancer: least-loaded, capacity: 3, rejection_cost: 0,\n  \
                queue: {limit: 3}, \
                overrides: [{replica: 1, capacity: 1}]}\n\
                retry: {base: 100ms}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let lanes = run.lanes.as_ref().unwrap();
    assert_eq!(lanes.served[..4], [4, 3, 1, 0]);
    assert_eq!(lanes.rejected[..4], [2, 0, 0, 0]);
    assert_eq!(lanes.queued[..4], [2, 1, 0, 0]);
    let (one, two) = (&lanes.replicas[0], &lanes.replicas[1]);
    assert_eq!(
        (&one.served[..4], &one.rejected[..4]),
        (&[1, 1, 1, 0][..], &[1, 0, 0, 0][..])
    );
    assert_eq!(
        (&two.served[..4], &two.rejected[..4]),
        (&[3, 2, 0, 0][..], &[1, 0, 0, 0][..])
    );
    let r = |i: usize| {
        let r = &run.replicas[i];
        (r.calls, r.served, r.rejected, r.queued)
    };
    assert_eq!((r(0), r(1)), ((4, 3, 1, 0), (6, 5, 1, 0)));
    // Replica 1 answered at 0.1, 0.2 and 0.3 s; replica 2 every call within its tick.
    let ms = |us: Option<u64>| us.map(|us| us / 1000);
    let latency = |i: usize| {
        (
            ms(run.replicas[i].latency_p50),
            ms(run.replicas[i].latency_p99),
        )
    };
    assert_eq!(latency(0), (Some(200), Some(300)));
    assert_eq!(latency(1), (Some(100), Some(100)));
    assert_eq!(run.totals.latency_p99, Some(300_000));
}

#[test]
fn each_replica_times_out_wastes_and_discards_its_own_calls() {
    // Round robin gives replicas 1 and 2 three calls each at 0 s; replica 1 serves 1 a
    // tick, replica 2 serves its 3. The timeout of two ticks makes tick 1 the expiry
    // tick of every call: replica 1 serves one of its 2 queued calls in tick 1, late
    // (wasted, a timeout), and the other times out there and is served in tick 2
    // (wasted). With one attempt, both clients give up.
    let yaml = "id: a\nclients: 6\nhorizon: 1s\n\
                server: {replicas: 2, capacity: 10, queue: {limit: 10},\n  \
                overrides: [{replica: 1, capacity: 1}]}\n\
                retry: {timeout: 200ms, max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let r = |run: &retrylab::engine::Run, i: usize| {
        let r = &run.replicas[i];
        (
            r.calls,
            r.served,
            r.rejected,
            r.wasted,
            r.timed_out,
            r.dropped,
            r.queued,
        )
    };
    assert_eq!(r(&run, 0), (3, 1, 0, 2, 2, 0, 0));
    assert_eq!(r(&run, 1), (3, 3, 0, 0, 0, 0, 0));
    let t = run.totals;
    assert_eq!((t.served, t.wasted, t.timed_out, t.gave_up), (4, 2, 2, 2));
    assert_eq!(run.lanes.as_ref().unwrap().wasted[..3], [0, 1, 1]);
    // Discarding expired calls, replica 1 drops both in tick 1 before serving: nothing
    // is wasted.
    let dropped = one_run(&yaml.replace("limit: 10}", "limit: 10, drop_expired: true}"));
    assert_eq!(r(&dropped, 0), (3, 1, 0, 0, 2, 2, 0));
    let t = dropped.totals;
    assert_eq!((t.served, t.wasted, t.timed_out, t.gave_up), (4, 0, 2, 2));
}

#[test]
fn a_fleet_of_queues_conserves_every_call_on_each_replica() {
    for balancer in ["round-robin", "random", "least-loaded", "power-of-two"] {
        for (order, drop) in [("fifo", false), ("lifo", true), ("lifo", false)] {
            let yaml = format!(
                "id: a\nclients: 400\nhorizon: 20s\nspread: 2s\n\
                 server: {{replicas: 4, balancer: {balancer}, capacity: 6,\n  \
                 queue: {{limit: 15, order: {order}, drop_expired: {drop}}},\n  \
                 overrides: [{{replica: 3, slowdowns: [{{from: 1s, to: 6s, capacity: 1}}]}}]}}\n\
                 retry: {{max_attempts: 6, timeout: 500ms, elsewhere: true}}\nruns: 3\n"
            );
            let s = scenario(&yaml);
            let result = run_scenario(&s);
            assert_eq!(result, run_scenario(&s), "{balancer} {order}");
            for strategy in &s.strategies {
                let run = simulate(&s, *strategy, s.seed, true);
                let lanes = run.lanes.as_ref().unwrap();
                for k in 0..lanes.served.len() {
                    let sum = |f: fn(&retrylab::engine::outcome::ReplicaLanes) -> &Vec<u32>| {
                        lanes.replicas.iter().map(|r| f(r)[k]).sum::<u32>()
                    };
                    assert_eq!(sum(|r| &r.served), lanes.served[k], "{balancer} {k}");
                    assert_eq!(sum(|r| &r.rejected), lanes.rejected[k], "{balancer} {k}");
                }
                let t = run.totals;
                assert_eq!(t.served + t.gave_up + t.still_retrying, 400, "{balancer}");
                let sum = |f: fn(&retrylab::engine::fleet::ReplicaTotals) -> u64| {
                    run.replicas.iter().map(f).sum::<u64>()
                };
                assert_eq!(sum(|r| r.calls), t.calls);
                assert_eq!(sum(|r| r.served), t.served);
                assert_eq!(sum(|r| r.wasted), t.wasted);
                assert_eq!(sum(|r| r.timed_out), t.timed_out);
                for r in &run.replicas {
                    let out = r.served + r.wasted + r.rejected + r.dropped + r.queued;
                    assert_eq!(r.calls, out, "{balancer} {order} {drop}");
                    assert!(drop || r.dropped == 0);
                }
            }
        }
    }
}

#[test]
fn each_replica_gives_its_own_retry_after_hint() {
    // Round robin, replica 2 down for the first second, a hint of 0.5 s while down.
    // Tick 0: replica 1 serves 2 calls; replica 2, down, turns 2 away with the hint:
    // their retries wait 0.5 s, not 0.1 s, and are seen in tick 5, one to each replica
    // (the turn is at replica 1 after 4 calls). Replica 2, still down, turns its call
    // away with the hint again: seen in tick 10, at replica 1 (after 6 calls).
    let yaml = "id: a\nclients: 4\nhorizon: 2s\n\
                server: {replicas: 2, retry_after: {hint: 500ms, when: down},\n  \
                overrides: [{replica: 2, outages: [{from: 0s, to: 1s}]}]}\n\
                retry: {base: 100ms}\nstrategies: [fixed]\nruns: 1\n";
    let (served, rejected) = lanes(yaml, 11);
    assert_eq!(served, [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    assert_eq!(rejected, [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
    // A hint only while a replica is up: replica 2's rejections carry none, and the
    // retries come 0.1 s later.
    let up = yaml.replace("when: down", "when: overloaded");
    let (served, rejected) = lanes(&up, 4);
    assert_eq!((served, rejected), (vec![2, 1, 1, 0], vec![2, 1, 0, 0]));
    // A client that retries only on a hint gives up on replica 2's rejections then.
    let only = up.replace("strategies: [fixed]", "strategies: [fixed, urllib3]");
    let s = scenario(&only);
    let run = simulate(&s, s.strategies[1], s.seed, false);
    assert_eq!((run.totals.served, run.totals.gave_up), (2, 2));
}

#[test]
fn a_retry_after_a_timeout_in_a_queue_goes_elsewhere() {
    // Tick 0: one call to each replica; replica 1, at a thousandth of a call a tick,
    // queues its call, which times out in tick 1 (a timeout of two ticks). The retry,
    // 0.1 s after the timeout, is seen in tick 3, when round robin's turn is at replica
    // 1 again: retry elsewhere sends it to replica 2, which serves it.
    let yaml = "id: a\nclients: 2\nhorizon: 1s\n\
                server: {replicas: 2, queue: {limit: 10}, overrides: [{replica: 1, capacity: 0.001}]}\n\
                retry: {base: 100ms, timeout: 200ms, max_attempts: 2, elsewhere: true}\n\
                strategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let r = |i: usize| (run.replicas[i].calls, run.replicas[i].served);
    assert_eq!((r(0), r(1)), ((1, 0), (2, 2)));
    assert_eq!((run.totals.served, run.totals.timed_out), (2, 1));
    // Without it, the retry goes to replica 1 in its turn, and times out again.
    let run = one_run(&yaml.replace(", elsewhere: true", ""));
    let r = |i: usize| (run.replicas[i].calls, run.replicas[i].served);
    assert_eq!((r(0), r(1)), ((2, 0), (1, 1)));
}

#[test]
fn each_replicas_row_in_sims_table_adds_up_with_a_queue() {
    // The hand-computed run of `each_replica_times_out_wastes_and_discards_its_own_calls`
    // with discards: replica 1 saw 3 calls, served 1 and discarded 2.
    let yaml = "id: a\nclients: 6\nhorizon: 1s\n\
                server: {replicas: 2, capacity: 10, queue: {limit: 10, drop_expired: true},\n  \
                overrides: [{replica: 1, capacity: 1}]}\n\
                retry: {timeout: 200ms, max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n";
    let table = retrylab::report::table(&run_scenario(&scenario(yaml)));
    let rows: Vec<Vec<&str>> = table
        .split("each replica:")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "strategy",
            "replica",
            "calls",
            "served",
            "turned",
            "away",
            "wasted",
            "discarded",
            "still",
            "queued",
            "timed",
            "out",
            "p50",
            "latency",
            "p99",
            "latency"
        ]
    );
    assert_eq!(
        rows[1][..10],
        ["fixed", "1", "3", "1", "0", "0", "2", "0", "2", "0.100"]
    );
}

#[test]
fn a_replicas_own_queue_holds_its_calls_while_one_without_turns_them_away() {
    // Two replicas of 1 call a tick, rejections free; replica 1 alone has a queue of 3.
    // Tick 0: six calls at 0 s, three to each. Replica 1 admits its three, serves one
    // and queues two; replica 2 serves one and turns two away, whose clients (one
    // attempt) give up. Ticks 1 and 2: replica 1 serves its queue, one a tick.
    let yaml = "id: a\nclients: 6\nhorizon: 1s\n\
                server: {replicas: 2, capacity: 1, rejection_cost: 0,\n  \
                overrides: [{replica: 1, queue: {limit: 3}}]}\n\
                retry: {max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n";
    let run = one_run(yaml);
    let lanes = run.lanes.as_ref().unwrap();
    assert_eq!(lanes.served[..4], [2, 1, 1, 0]);
    assert_eq!(lanes.rejected[..4], [2, 0, 0, 0]);
    assert_eq!(lanes.queued[..4], [2, 1, 0, 0]);
    let r = |i: usize| {
        let r = &run.replicas[i];
        let ms = |us: Option<u64>| us.map(|us| us / 1000);
        (
            r.calls,
            r.served,
            r.rejected,
            r.queued,
            ms(r.latency_p50),
            ms(r.latency_p99),
        )
    };
    // Replica 1 answered at 0.1, 0.2 and 0.3 s; replica 2, without a queue, in its tick.
    assert_eq!(r(0), (3, 3, 0, 0, Some(200), Some(300)));
    assert_eq!(r(1), (3, 1, 2, 0, Some(100), Some(100)));
    let t = run.totals;
    assert_eq!((t.served, t.gave_up, t.latency_p99), (4, 2, Some(300_000)));

    // The server's queue on every replica, but replica 2's override of none, is the
    // same fleet.
    let same = one_run(&yaml.replace(
        "overrides: [{replica: 1, queue: {limit: 3}}]",
        "queue: {limit: 3}, overrides: [{replica: 2, queue: {limit: 0}}]",
    ));
    assert_eq!((same.totals, &same.replicas), (run.totals, &run.replicas));
    assert_eq!(same.lanes, run.lanes);

    // With no queue anywhere, an override's `{limit: 0}` changes nothing.
    let plain = "id: a\nclients: 6\nhorizon: 1s\nserver: {replicas: 2, capacity: 1}\n\
                 retry: {max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n";
    let none = plain.replace(
        "capacity: 1}",
        "capacity: 1, overrides: [{replica: 2, queue: {limit: 0}}]}",
    );
    assert_eq!(one_run(&none), one_run(plain));
}

#[test]
fn a_replicas_queue_is_refused_at_its_place() {
    let yaml = |queue: &str| {
        format!(
            "id: a\nclients: 1\nserver:\n  replicas: 2\n  overrides: [{{replica: 2, queue: {queue}}}]\n"
        )
    };
    let bare = errors(&yaml("3"));
    assert!(
        bare.starts_with(
            "error: `server.overrides[].queue` must be a map of keys, found `3`\n \
             --> s.yaml:5:35\n"
        ),
        "{bare}"
    );
    assert!(bare.contains("write `queue: {limit: 3}`"), "{bare}");
    let order = errors(&yaml("{limit: 2, order: lifoo}"));
    assert!(
        order.starts_with("error: unknown queue order `lifoo`\n --> s.yaml:5:53\n"),
        "{order}"
    );
    let limit = errors(&yaml("{order: lifo}"));
    assert!(limit.contains("limit"), "{limit}");
    let model = errors(
        "id: a\nclients: 1\nserver:\n  replicas: 2\n  model: all-or-nothing\n  \
         overrides: [{replica: 2, queue: {limit: 2}}]\n",
    );
    assert!(
        model.starts_with("error: a queue needs the capacity model\n --> s.yaml:6:28\n"),
        "{model}"
    );
}

#[test]
fn a_fleets_figure_links_each_replicas_data_as_its_strips_draw_it() {
    // The fleet of `a_replicas_wasted_calls_are_drawn_in_its_own_strip_and_named`:
    // replica 1 serves one call at once and two late, one a tick; replica 2 its three.
    let site = crate::util::fixture("good");
    let page = "---\ntitle: A fleet\n---\n\n```sim\nid: w\nclients: 6\nhorizon: 1s\n\
                server: {replicas: 2, capacity: 10, queue: {limit: 10},\n  \
                overrides: [{replica: 1, capacity: 1}]}\n\
                retry: {timeout: 200ms, max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n```\n";
    std::fs::write(site.path().join("content/fleet.md"), page).unwrap();
    let out = site.path().join("out");
    let (code, _, stderr) = crate::util::build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let csv = std::fs::read_to_string(out.join("ticks/fleet/w-replicas.csv")).unwrap();
    assert_eq!(
        csv,
        "time (s),strategy,replica,served,wasted,turned away\n\
         0.0,fixed,1,1,0,0\n0.0,fixed,2,3,0,0\n\
         0.1,fixed,1,0,1,0\n0.1,fixed,2,0,0,0\n\
         0.2,fixed,1,0,1,0\n0.2,fixed,2,0,0,0\n"
    );
    let html = std::fs::read_to_string(out.join("fleet/index.html")).unwrap();
    assert!(
        html.contains(
            "CSV</a> of the calls per tick, and <a href=\"/fixture/ticks/fleet/w-replicas.csv\" \
             download=\"w-replicas.csv\" type=\"text/csv\">CSV</a> of each replica’s</p>"
        ),
        "{}",
        &html[html.find("sim-data-csv").unwrap()..][..400]
    );
    // One server has no such file.
    assert!(!out.join("ticks/storm").read_dir().unwrap().any(|e| {
        let name = e.unwrap().file_name().into_string().unwrap();
        name.ends_with("-replicas.csv")
    }));
}

#[test]
fn a_fleets_replicas_name_is_no_other_directives_id() {
    let fleet = "```sim\nid: w\nclients: 10\nserver: {replicas: 2}\nstrategies: [fixed]\n```\n";
    let other = "```sim\nid: w-replicas\nclients: 10\nstrategies: [fixed]\n```\n";
    for (body, line, message) in [
        (
            format!("{fleet}\n{other}"),
            13,
            "error: the id `w-replicas` is the name of the fleet `w`'s replicas' chart and data",
        ),
        (
            format!("{other}\n{fleet}"),
            12,
            "error: the fleet `w` names its replicas' chart and data `w-replicas`, which is \
             another directive's id",
        ),
    ] {
        let site = crate::util::fixture("good");
        let page = format!("---\ntitle: Two\n---\n\n{body}");
        std::fs::write(site.path().join("content/two.md"), page).unwrap();
        let out = site.path().join("out");
        let root = site.path().to_str().unwrap();
        for (code, _, stderr) in [
            crate::util::run(&["check", "--root", root]),
            crate::util::build(site.path(), &out),
        ] {
            assert_eq!(code, 1, "{stderr}");
            assert!(
                stderr.contains(&format!("{message}\n  --> content/two.md:{line}:1\n")),
                "{stderr}"
            );
            assert!(stderr.ends_with("error: 1 problem found\n"), "{stderr}");
        }
    }
}

#[test]
fn a_mistake_in_a_replicas_queue_names_the_replicas_key() {
    let unknown = errors(
        "id: a\nclients: 1\nserver:\n  replicas: 2\n  overrides: [{replica: 2, queue: {limit: 2, ordr: fifo}}]\n",
    );
    assert!(
        unknown
            .starts_with("error: unknown key `server.overrides[].queue.ordr`\n --> s.yaml:5:46\n"),
        "{unknown}"
    );
}
