//! The queue, timeouts, slowdowns and throttling, against cases computed by hand from the
//! rules of the engine's `queue`, `server` and `guards::throttle` modules.

use retrylab::engine::scenario::{
    Arrivals, Outage, Process, Queue, QueueOrder, Slowdown, Throttle,
};
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
fn a_short_queue_refuses_a_call_when_it_arrives_and_serves_at_most_its_limit() {
    let r = run(&queued(30, 5, QueueOrder::Fifo));
    let lanes = r.lanes.as_ref().unwrap();
    // The limit holds at arrival, and the tick's own calls count against it.
    // Tick 0: the queue is empty, 5 of the 30 find a place, 25 are refused at once
    // (2.5 owed); 5 served. Tick 1: budget 7, the 25 retries: 5 join, 20 refused (2.0
    // owed), 5 served. Then budget 8, 8, 8: 20 → 15 → 10 → 5 retries, 5 served a tick.
    assert_eq!(head(&lanes.served, 7), [5, 5, 5, 5, 5, 5, 0]);
    assert_eq!(head(&lanes.rejected, 7), [25, 20, 15, 10, 5, 0, 0]);
    assert_eq!(head(&lanes.queued, 7), [0, 0, 0, 0, 0, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted), (105, 30, 0));
    assert_eq!(t.done_at, Some(500 * MS));
    // Each answered at the end of the tick it was sent in.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(100 * MS))
    );
}

/// 30 clients at 0 against 10 calls a tick and a queue of 20, in `order`.
fn thirty_and_a_queue_of_twenty(order: QueueOrder) -> Run {
    run(&queued(30, 20, order))
}

#[test]
fn a_lifo_queue_serves_the_newest_calls_first_and_the_oldest_last() {
    let r = thirty_and_a_queue_of_twenty(QueueOrder::Lifo);
    let lanes = r.lanes.as_ref().unwrap();
    // Tick 0: 20 join, 10 refused (1.0 owed); 10 served, 10 (sent at 0) stay. Tick 1:
    // the 10 retries (sent at 0.1 s) find 10 places; budget 9 serves 9 of them, the
    // newest; 1 stays, behind the 10 from tick 0. Tick 2: budget 10, newest first: the
    // retry of 0.1 s, then 9 of tick 0. Tick 3: the last of tick 0.
    assert_eq!(head(&lanes.served, 5), [10, 9, 10, 1, 0]);
    assert_eq!(head(&lanes.rejected, 5), [10, 0, 0, 0, 0]);
    assert_eq!(head(&lanes.queued, 5), [10, 11, 1, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.done_at), (40, 30, Some(300 * MS)));
    // 19 after 0.1 s, 1 after 0.2 s, 9 after 0.3 s, 1 after 0.4 s: rank 15 and 30.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(400 * MS))
    );
}

#[test]
fn a_fifo_queue_serves_the_oldest_calls_first() {
    let r = thirty_and_a_queue_of_twenty(QueueOrder::Fifo);
    let lanes = r.lanes.as_ref().unwrap();
    // As with LIFO to tick 1, where budget 9 serves 9 of tick 0's queue (0.2 s), and the
    // 10 retries join behind the last of them. Tick 2: that one (0.3 s) and 9 retries
    // (0.2 s). Tick 3: the last retry (0.3 s).
    assert_eq!(head(&lanes.served, 5), [10, 9, 10, 1, 0]);
    assert_eq!(head(&lanes.queued, 5), [10, 11, 1, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.done_at), (40, 30, Some(300 * MS)));
    // 10 after 0.1 s, 18 after 0.2 s, 2 after 0.3 s.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(200 * MS), Some(300 * MS))
    );
}

/// Four requests at 0, 25, 50 and 75 ms against 2 calls a tick, with a queue in `order`.
fn four_in_a_tick(order: QueueOrder) -> Run {
    let mut s = queued(0, 100, order);
    s.horizon = 1_000_000;
    s.server.capacity_milli = 2_000;
    s.arrivals = vec![Arrivals {
        rate_milli: 40_000,
        from: 0,
        to: 100 * MS,
        process: Process::Even,
    }];
    run(&s)
}

#[test]
fn lifo_is_newest_first_by_arrival_time_within_a_tick() {
    // Tick 0 serves the calls of 75 and 50 ms (answered at 0.1 s: after 25 and 50 ms);
    // tick 1 those of 25 and 0 ms (answered at 0.2 s: after 175 and 200 ms).
    let r = four_in_a_tick(QueueOrder::Lifo);
    assert_eq!(head(&r.lanes.as_ref().unwrap().served, 3), [2, 2, 0]);
    assert_eq!(
        (r.totals.latency_p50, r.totals.latency_p99),
        (Some(50 * MS), Some(200 * MS))
    );
    // FIFO: 0 and 25 ms in tick 0 (after 100 and 75 ms), 50 and 75 ms in tick 1 (after
    // 150 and 125 ms).
    let r = four_in_a_tick(QueueOrder::Fifo);
    assert_eq!(
        (r.totals.latency_p50, r.totals.latency_p99),
        (Some(100 * MS), Some(150 * MS))
    );
}

#[test]
fn a_call_served_after_its_timeout_is_wasted_and_its_client_fails() {
    let mut s = queued(30, 100, QueueOrder::Fifo);
    s.retry.timeout = Some(250 * MS);
    s.retry.max_attempts = Some(1);
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    // Sent at 0 with a timeout of 0.25 s: in time until the end of tick 1; the ten served
    // in tick 2 (at 0.3 s) are work for nobody, and their clients give up.
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
    s.retry.timeout = Some(250 * MS);
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
fn an_answer_at_the_deadline_is_late() {
    let mut s = queued(30, 100, QueueOrder::Fifo);
    s.retry.timeout = Some(200 * MS);
    s.retry.max_attempts = Some(1);
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    // Sent at 0 with a timeout of 0.2 s. Tick 0's ten are answered at 0.1 s, in time;
    // tick 1's ten at 0.2 s, the deadline itself: the clients' timers have fired, the
    // work is wasted, and those ten and the ten still queued time out in tick 1. Tick 2
    // serves the last ten for nobody.
    assert_eq!(head(&lanes.served, 4), [10, 0, 0, 0]);
    assert_eq!(head(&lanes.wasted, 4), [0, 10, 10, 0]);
    assert_eq!(head(&lanes.queued, 4), [20, 10, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (30, 10, 20, 20));
    assert_eq!((t.gave_up, t.still_retrying), (20, 0));
    assert_eq!(t.done_at, Some(100 * MS));
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(100 * MS))
    );
    // Discarding expired calls: tick 1 would answer at the deadline, so it discards all
    // twenty before serving; nothing is wasted.
    s.server.queue.as_mut().unwrap().drop_expired = true;
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    assert_eq!(head(&lanes.served, 3), [10, 0, 0]);
    assert_eq!(head(&lanes.wasted, 3), [0, 0, 0]);
    assert_eq!(head(&lanes.queued, 3), [20, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (30, 10, 0, 20));
    assert_eq!((t.gave_up, t.done_at), (20, Some(100 * MS)));
}

#[test]
fn expired_calls_hold_their_places_until_the_server_discards_them() {
    // 20 clients at 0, then 10 requests at 100, 110, …, 190 ms, against 5 calls a tick
    // and a queue of 15 that discards expired calls; a timeout of 0.2 s, one attempt.
    let mut s = queued(20, 15, QueueOrder::Fifo);
    s.server.capacity_milli = 5_000;
    s.server.queue.as_mut().unwrap().drop_expired = true;
    s.retry.timeout = Some(200 * MS);
    s.retry.max_attempts = Some(1);
    s.arrivals = vec![Arrivals {
        rate_milli: 100_000,
        from: 100 * MS,
        to: 200 * MS,
        process: Process::Even,
    }];
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    // Tick 0: 15 join, 5 refused (0.5 owed, they give up); 5 served, 10 stay, expiring
    // in tick 1. Tick 1: those 10 still hold their places when the requests arrive: 5
    // join (100 to 140 ms), 5 are refused (150 to 190 ms). Then the 10 expired calls
    // are discarded (timed out), and budget 4 serves 100 to 130 ms (after 100, 90, 80,
    // 70 ms). Tick 2: the call of 140 ms, in time (its deadline is at 340 ms), after
    // 160 ms.
    assert_eq!(head(&lanes.served, 4), [5, 4, 1, 0]);
    assert_eq!(head(&lanes.rejected, 4), [5, 5, 0, 0]);
    assert_eq!(head(&lanes.queued, 4), [10, 1, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (30, 10, 0, 10));
    assert_eq!((t.gave_up, t.still_retrying), (20, 0));
    // 70, 80, 90, 100 (six), 160 ms: rank 5 and rank 10.
    assert_eq!(
        (t.latency_p50, t.latency_p99),
        (Some(100 * MS), Some(160 * MS))
    );
}

#[test]
fn clients_that_time_out_retry_while_the_server_works_for_nobody() {
    let mut s = queued(20, 100, QueueOrder::Fifo);
    s.server.capacity_milli = 5_000;
    s.retry.timeout = Some(250 * MS);
    let r = run(&s);
    let lanes = r.lanes.as_ref().unwrap();
    // Tick 2: the five served are late (answered at 0.3 s, after the deadline of
    // 0.25 s: wasted) and those five clients and the five still queued time out at
    // 0.25 s; they retry at 0.35 s, behind five abandoned calls. Tick 3 serves those
    // (wasted); the retries wait, five in time in tick 4, five late in tick 5 (0.6 s,
    // the deadline itself), whose clients retry at 0.7 s and are served at once.
    assert_eq!(head(&lanes.served, 9), [5, 5, 0, 0, 5, 0, 0, 5, 0]);
    assert_eq!(head(&lanes.wasted, 9), [0, 0, 5, 5, 0, 5, 0, 0, 0]);
    assert_eq!(head(&lanes.queued, 9), [15, 10, 5, 10, 5, 0, 0, 0, 0]);
    let t = r.totals;
    assert_eq!((t.calls, t.served, t.wasted, t.timed_out), (35, 20, 15, 15));
    assert_eq!(
        (t.gave_up, t.still_retrying, t.done_at),
        (0, 0, Some(700 * MS))
    );
    // 100 ms (ten), 150 ms (five), 200 ms (five): rank 10 and rank 20.
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
        // (One client: with more, the queue puts a tick's calls in order of arrival, and
        // their jittered waits are drawn in that order, not the order without a queue.)
        s.server.queue.as_mut().unwrap().limit = 1;
        s.clients = 1;
        let mut plain_s = s.clone();
        plain_s.server.queue = None;
        zero = simulate(&s, strategy, 3, true);
        let mut lanes = zero.lanes.take().unwrap();
        assert!(lanes.queued.iter().all(|&q| q == 0));
        lanes.queued.clear();
        lanes.wasted.clear();
        zero.lanes = Some(lanes);
        // Answered in the tick that sees it: within a tick of its time, or two for a
        // retry moved to the next tick (it keeps its time).
        assert!(zero.totals.latency_p99 <= Some(300 * MS), "{strategy:?}");
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
    use retrylab::engine::scenario::{Arrivals, Budget, Process};
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
                        process: Process::Even,
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
