//! The queue, timeouts, slowdowns and throttling, against cases computed by hand from the
//! rules of the engine's `queue`, `server` and `guards::throttle` modules.

use retrylab::engine::scenario::{Outage, Queue, QueueOrder, Slowdown, Throttle};
use retrylab::engine::{Run, Scenario, Strategy, simulate};

/// `clients` clients at 0 against 10 calls per tick of 100 ms, with `fixed` waits of
/// 100 ms and a queue of `limit` in `order`.
fn queued(clients: u64, limit: u64, order: QueueOrder) -> Scenario {
    let mut s = Scenario::with_clients("q", clients);
    s.horizon = 5_000_000;
    s.strategies = vec![Strategy::Fixed];
    s.server.queue = Some(Queue {
        limit,
        order,
        drop_expired: false,
    });
    s
}

fn run(s: &Scenario) -> Run {
    simulate(s, Strategy::Fixed, 1, true)
}

fn head(v: &[u32], n: usize) -> Vec<u32> {
    v[..n].to_vec()
}

const MS: u64 = 1_000;

#[test]
fn a_long_queue_serves_everyone_later_and_the_wait_is_latency() {
    let r = run(&queued(30, 100, QueueOrder::Fifo));
    let lanes = r.lanes.as_ref().unwrap();
    assert_eq!(head(&lanes.served, 4), [10, 10, 10, 0]);
    assert_eq!(head(&lanes.queued, 4), [20, 10, 0, 0]);
    assert_eq!(head(&lanes.rejected, 4), [0, 0, 0, 0]);
    let t = r.totals;
    assert_eq!(
        (t.calls, t.served, t.gave_up, t.still_retrying),
        (30, 30, 0, 0)
    );
    assert_eq!(t.done_at, Some(200 * MS));
    // Ten each at 0.1, 0.2 and 0.3 s: rank 15 and rank 30.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(200 * MS), Some(300 * MS))
    );
}

#[test]
fn a_short_fifo_queue_turns_the_rest_away_at_the_rejection_cost() {
    let r = run(&queued(30, 5, QueueOrder::Fifo));
    let lanes = r.lanes.as_ref().unwrap();
    // Tick 0: 10 served, 5 join, 15 rejected (1.5 owed). Tick 1: budget 8, the queue's
    // 5 first, then 3 of the 15 retries; 5 join, 7 rejected (0.7 owed). Tick 2: budget
    // 9, the queue's 5, then 4 of the 7; 3 join. Tick 3: the last 3.
    assert_eq!(head(&lanes.served, 5), [10, 8, 9, 3, 0]);
    assert_eq!(head(&lanes.rejected, 5), [15, 7, 0, 0, 0]);
    assert_eq!(head(&lanes.queued, 5), [5, 5, 3, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted), (52, 30, 0));
    assert_eq!(t.done_at, Some(300 * MS));
    // 17 calls answered after 0.1 s and 13 after 0.2 s.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(200 * MS))
    );
}

#[test]
fn a_lifo_queue_serves_the_new_calls_first_and_the_oldest_last() {
    let r = run(&queued(30, 5, QueueOrder::Lifo));
    let lanes = r.lanes.as_ref().unwrap();
    // Tick 1: budget 8 goes to the 15 retries, the queue is full: 7 rejected. Tick 2:
    // budget 9, the 7 retries, then 2 of the queue. Tick 3: its last 3.
    assert_eq!(head(&lanes.served, 5), [10, 8, 9, 3, 0]);
    assert_eq!(head(&lanes.rejected, 5), [15, 7, 0, 0, 0]);
    assert_eq!(head(&lanes.queued, 5), [5, 5, 3, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served), (52, 30));
    // 25 after 0.1 s, 2 after 0.3 s, 3 after 0.4 s.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(400 * MS))
    );
}

#[test]
fn a_call_served_after_its_timeout_is_wasted_and_its_client_fails() {
    let mut s = queued(30, 100, QueueOrder::Fifo);
    s.retry.timeout = Some(200 * MS);
    s.retry.max_attempts = Some(1);
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    // Sent at 0 with a timeout of 0.2 s: in time until the end of tick 1; the ten served
    // in tick 2 are work for nobody, and their clients give up.
    assert_eq!(head(&lanes.served, 4), [10, 10, 0, 0]);
    assert_eq!(head(&lanes.wasted, 4), [0, 0, 10, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (30, 20, 10, 10));
    assert_eq!((t.gave_up, t.still_retrying), (10, 0));
    assert_eq!(t.done_at, Some(200 * MS));
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(200 * MS))
    );
}

#[test]
fn dropping_expired_calls_wastes_nothing() {
    let mut s = queued(30, 100, QueueOrder::Fifo);
    s.retry.timeout = Some(200 * MS);
    s.retry.max_attempts = Some(1);
    s.server.queue.as_mut().unwrap().drop_expired = true;
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    assert_eq!(head(&lanes.served, 4), [10, 10, 0, 0]);
    assert_eq!(head(&lanes.wasted, 4), [0, 0, 0, 0]);
    assert_eq!(head(&lanes.queued, 4), [20, 10, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (30, 20, 0, 10));
    assert_eq!((t.gave_up, t.done_at), (10, Some(200 * MS)));
}

#[test]
fn clients_that_time_out_retry_while_the_server_works_for_nobody() {
    let mut s = queued(20, 100, QueueOrder::Fifo);
    s.server.capacity_milli = 5_000;
    s.retry.timeout = Some(200 * MS);
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    // Tick 2: the five served are late (wasted) and those five clients and the five
    // still queued time out at 0.2 s; they retry at 0.3 s, behind five abandoned calls.
    // Tick 3 serves those (wasted); the retries wait, five in time in tick 4, five late
    // in tick 5, whose clients retry at 0.6 s and are served at once.
    assert_eq!(head(&lanes.served, 8), [5, 5, 0, 0, 5, 0, 5, 0]);
    assert_eq!(head(&lanes.wasted, 8), [0, 0, 5, 5, 0, 5, 0, 0]);
    assert_eq!(head(&lanes.queued, 8), [15, 10, 5, 10, 5, 0, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (35, 20, 15, 15));
    assert_eq!(
        (t.gave_up, t.still_retrying, t.done_at),
        (0, 0, Some(600 * MS))
    );
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(200 * MS))
    );
}

#[test]
fn a_slowdown_lowers_the_capacity_in_its_window() {
    let mut s = queued(40, 100, QueueOrder::Fifo);
    s.server.slowdowns = vec![Slowdown {
        from: 100 * MS,
        to: 300 * MS,
        capacity_milli: 5_000,
    }];
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    assert_eq!(head(&lanes.served, 6), [10, 5, 5, 10, 10, 0]);
    let t = r.totals;
    assert_eq!((t.served, t.done_at), (40, Some(400 * MS)));
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(300 * MS), Some(500 * MS))
    );
}

#[test]
fn a_slowdown_without_a_queue_rejects_the_excess() {
    let mut s = Scenario::with_clients("s", 10);
    s.strategies = vec![Strategy::Fixed];
    s.server.slowdowns = vec![Slowdown {
        from: 0,
        to: 100 * MS,
        capacity_milli: 4_000,
    }];
    let lanes = run(&s).lanes.unwrap();
    // Tick 0 serves 4 of 10; 6 rejections cost 0.6: tick 1 serves 9 of the 6.
    assert_eq!(head(&lanes.served, 3), [4, 6, 0]);
    assert_eq!(head(&lanes.rejected, 3), [6, 0, 0]);
}

#[test]
fn during_an_outage_the_queue_keeps_its_calls_and_takes_no_more() {
    let mut s = queued(20, 100, QueueOrder::Fifo);
    s.server.outages = vec![Outage {
        from: 100 * MS,
        to: 200 * MS,
    }];
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    assert_eq!(head(&lanes.served, 4), [10, 0, 10, 0]);
    assert_eq!(head(&lanes.queued, 4), [10, 10, 0, 0]);
    assert_eq!(r.totals.latency_p99, Some(300 * MS));
}

#[test]
fn a_queue_of_no_places_is_no_queue() {
    for strategy in Strategy::ALL {
        let mut s = Scenario::with_clients("z", 300);
        s.spread = 2_000_000;
        s.server.outages = vec![Outage {
            from: 0,
            to: 1_000_000,
        }];
        let plain = simulate(&s, strategy, 3, true);
        s.server.queue = Some(Queue {
            limit: 0,
            order: QueueOrder::Lifo,
            drop_expired: true,
        });
        s.retry.timeout = Some(300 * MS);
        let mut zero = simulate(&s, strategy, 3, true);
        assert_eq!(zero, plain, "{strategy:?}");
        // And a queue that is never needed changes nothing but its own lanes, and the
        // latency, which only a run with a queue measures.
        s.server.queue.as_mut().unwrap().limit = 1;
        s.clients = 5;
        let mut plain_s = s.clone();
        plain_s.server.queue = None;
        zero = simulate(&s, strategy, 3, true);
        let mut lanes = zero.lanes.take().unwrap();
        assert!(lanes.queued.iter().all(|&q| q == 0));
        lanes.queued.clear();
        lanes.wasted.clear();
        zero.lanes = Some(lanes);
        assert!(zero.totals.latency_p99 <= Some(200 * MS), "{strategy:?}");
        (zero.totals.latency_p50, zero.totals.latency_p99) = (None, None);
        assert_eq!(zero, simulate(&plain_s, strategy, 3, true), "{strategy:?}");
    }
}

#[test]
fn throttling_refuses_locally_what_the_server_would_reject() {
    let mut s = Scenario::with_clients("t", 50);
    s.strategies = vec![Strategy::Fixed];
    s.horizon = 20_000_000;
    s.retry.max_attempts = Some(40);
    s.server.outages = vec![Outage {
        from: 0,
        to: 20_000_000,
    }];
    s.retry.throttle = Some(Throttle {
        k_milli: 2_000,
        window: 10_000_000,
    });
    let r = run(&s);
    let t = r.totals;
    let lanes = r.lanes.as_ref().unwrap();
    // Nothing is refused before the window holds a request; then, with no accepts,
    // nearly every attempt is refused locally and costs the server nothing.
    assert_eq!((lanes.throttled[0], lanes.rejected[0]), (0, 50));
    assert_eq!(t.served, 0);
    assert_eq!(t.calls + t.throttled, 50 * 40);
    assert!(t.throttled > 30 * t.calls, "{t:?}");
    let sum = |v: &[u32]| v.iter().map(|&c| u64::from(c)).sum::<u64>();
    assert_eq!(sum(&lanes.throttled), t.throttled);
    assert_eq!(sum(&lanes.rejected), t.calls);
}

#[test]
fn proportional_jitter_spreads_each_wait_around_its_ceiling() {
    let mut s = Scenario::with_clients("p", 1);
    s.strategies = vec![Strategy::ProportionalJitter];
    s.retry.jitter = 0.5;
    let waits = retrylab::engine::schedule::schedule(Strategy::ProportionalJitter, &s.retry, 6, 4);
    for step in &waits {
        let d = step.ceiling as f64;
        assert_eq!(step.low, (d * 0.5).round() as u64);
        assert_eq!(step.high, (d * 1.5).round() as u64);
        assert!(step.low <= step.wait && step.wait <= step.high, "{step:?}");
    }
}

#[test]
fn every_client_and_every_call_is_accounted_for() {
    use retrylab::engine::scenario::{Arrivals, Budget};
    let sum = |v: &[u32]| v.iter().map(|&c| u64::from(c)).sum::<u64>();
    for order in QueueOrder::ALL {
        for drop_expired in [false, true] {
            for (limit, timeout) in [(40, Some(300 * MS)), (500, Some(1_000 * MS)), (7, None)] {
                for strategy in Strategy::ALL {
                    let mut s = queued(200, limit, order);
                    s.spread = 1_000_000;
                    s.horizon = 20_000_000;
                    s.arrivals = vec![Arrivals {
                        rate_milli: 60_000,
                        from: 0,
                        to: 15_000_000,
                    }];
                    s.server.queue.as_mut().unwrap().drop_expired = drop_expired;
                    s.server.slowdowns = vec![Slowdown {
                        from: 2_000_000,
                        to: 6_000_000,
                        capacity_milli: 3_500,
                    }];
                    s.retry.timeout = timeout;
                    s.retry.max_attempts = Some(6);
                    if limit == 500 {
                        s.retry.budget = Budget::named("finagle");
                        s.retry.throttle = Some(Throttle {
                            k_milli: 1_500,
                            window: 2_000_000,
                        });
                    }
                    let r = simulate(&s, strategy, 9, true);
                    let t = r.totals;
                    let lanes = r.lanes.as_ref().unwrap();
                    let case = format!("{order:?} {drop_expired} {limit} {strategy:?}: {t:?}");
                    assert_eq!(
                        t.served + t.gave_up + t.still_retrying,
                        200 + t.arrivals,
                        "{case}"
                    );
                    assert_eq!(sum(&lanes.served), t.served, "{case}");
                    assert_eq!(sum(&lanes.wasted), t.wasted, "{case}");
                    assert_eq!(sum(&lanes.throttled), t.throttled, "{case}");
                    let accounted = t.served + t.wasted + sum(&lanes.rejected);
                    let queued = u64::from(*lanes.queued.last().unwrap());
                    if drop_expired {
                        assert!(accounted + queued <= t.calls, "{case}");
                        assert_eq!(t.wasted, 0, "{case}");
                    } else {
                        assert_eq!(accounted + queued, t.calls, "{case}");
                    }
                    assert!(
                        lanes.queued.iter().all(|&q| u64::from(q) <= limit),
                        "{case}"
                    );
                    if timeout.is_none() {
                        assert_eq!((t.wasted, t.timed_out), (0, 0), "{case}");
                    }
                }
            }
        }
    }
}
