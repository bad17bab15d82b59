//! "Timeouts and overload": the claims its prose makes about its own scenarios, run from
//! the very blocks of the article, so that an engine change that breaks one fails here
//! before the page says something its runs no longer show.

use retrylab::directive::sweep::{SweepDirective, read_sweep_root};
use retrylab::directive::{Kind, read_sim_root, scan};
use retrylab::engine::units::{Micros, SECOND};
use retrylab::engine::{Run, Scenario, ScenarioResult, Strategy, run_scenario, simulate};

use crate::util::{resolved, root};

fn article() -> String {
    std::fs::read_to_string(root().join("content/timeouts-and-overload.md")).unwrap()
}

/// The article's `sim` block with this id.
fn block(id: &str) -> Scenario {
    scan(&article())
        .directives
        .into_iter()
        .filter(|d| d.kind == Kind::Sim)
        .map(|d| read_sim_root(&resolved(&d.body)).unwrap().scenario)
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("the article has no scenario `{id}`"))
}

/// The article's `sweep` block with this id.
fn sweep(id: &str) -> SweepDirective {
    scan(&article())
        .directives
        .into_iter()
        .filter(|d| d.kind == Kind::Sweep)
        .map(|d| read_sweep_root(&resolved(&d.body)).unwrap())
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("the article has no sweep `{id}`"))
}

/// The one full-jitter lane of a remedy's results.
fn jitter(result: &ScenarioResult) -> &retrylab::engine::StrategyResult {
    result
        .strategies
        .iter()
        .find(|s| s.strategy == Strategy::FullJitter)
        .unwrap()
}

/// Every run of a scenario's strategy, with its lanes (seeds `seed`, `seed+1`, …).
fn runs(s: &Scenario, strategy: Strategy) -> Vec<Run> {
    (0..u64::from(s.runs))
        .map(|i| simulate(s, strategy, s.seed + i, true))
        .collect()
}

/// The tick that starts at `at`.
fn tick(s: &Scenario, at: Micros) -> usize {
    (at / s.server.tick) as usize
}

/// Goodput as the article quotes it: requests answered in time per second from the end
/// of the slowdown, the trigger, to the end of the run.
#[test]
fn goodput_is_counted_from_the_end_of_the_slowdown() {
    let collapse = block("collapse");
    assert_eq!(collapse.trigger_end(), Some(15 * SECOND));
    let result = run_scenario(&collapse);
    assert_eq!(result.offered_milli, 80_000);
    for s in &result.strategies {
        let run = &s.typical;
        let served = &run.lanes.as_ref().unwrap().served[tick(&collapse, 15 * SECOND)..];
        let answered: u64 = served.iter().map(|&c| u64::from(c)).sum();
        let span = collapse.horizon - 15 * SECOND;
        assert_eq!(run.totals.goodput_milli, answered * 1000 * SECOND / span);
    }
}

#[test]
fn the_healthy_service_never_times_out_and_answers_far_below_the_timeout() {
    let healthy = block("healthy");
    let s = &run_scenario(&healthy).strategies[0];
    assert_eq!((s.timed_out.p95, s.wasted.p95), (0, 0));
    let timeout = healthy.retry.timeout.unwrap();
    let p99 = s.latency_p99.unwrap();
    assert!(p99.p95 * 5 <= timeout, "{p99:?}");
    // Every call is served in the tick that sees it: nothing is ever queued.
    for run in runs(&healthy, Strategy::FullJitter) {
        assert!(run.lanes.unwrap().queued.iter().all(|&q| q == 0));
    }
}

#[test]
fn patient_clients_ride_out_the_slowdown_at_a_p99_above_the_short_timeout() {
    let slowdown = block("slowdown");
    let result = run_scenario(&slowdown);
    let s = jitter(&result);
    assert_eq!(s.served.p5, result.arrivals, "every request served");
    assert_eq!((s.timed_out.p95, s.wasted.p95, s.gave_up.p95), (0, 0, 0));
    // The queue drains after the slowdown: goodput is above the traffic, at once.
    assert!(s.goodput_milli.p5 >= result.offered_milli);
    assert_eq!(s.recovery.map(|r| r.p95), Some(0));
    // Latency crosses the collapse's one-second timeout.
    let short = block("collapse").retry.timeout.unwrap();
    assert!(s.latency_p99.unwrap().p5 > short);
    // The queue fills during the slowdown and is empty again before the horizon.
    for run in runs(&slowdown, Strategy::FullJitter) {
        let queued = run.lanes.unwrap().queued;
        assert!(queued[tick(&slowdown, 14 * SECOND)] > 0);
        assert_eq!(*queued.last().unwrap(), 0);
    }
}

#[test]
fn the_collapse_outlives_the_slowdown_with_the_server_busy_for_nobody() {
    let collapse = block("collapse");
    let result = run_scenario(&collapse);
    let limit = collapse.server.queue.unwrap().limit as u32;
    for s in &result.strategies {
        // Far below the offered load, whatever the backoff.
        assert!(
            s.goodput_milli.p95 * 4 < result.offered_milli,
            "{:?}",
            s.strategy
        );
        assert!(s.wasted.p5 > s.served.p95, "{:?}", s.strategy);
        // More than twice the traffic in calls.
        assert!(s.calls.p5 > 2 * result.arrivals, "{:?}", s.strategy);
        for run in runs(&collapse, s.strategy) {
            let lanes = run.lanes.unwrap();
            // From a few seconds into the slowdown (10 s to 15 s) to the horizon, no
            // call is served in time, and the server works every tick.
            let from = tick(&collapse, 14 * SECOND);
            assert!(
                lanes.served[from..].iter().all(|&c| c == 0),
                "{:?}",
                s.strategy
            );
            assert!(
                lanes.wasted[from..].iter().all(|&c| c > 0),
                "{:?}",
                s.strategy
            );
            // Nothing is turned away until the queue is full: the first tick that turns
            // a call away filled it to its limit (the limit holds at arrival, so what
            // the tick served, in time or not, and what stays add up to it).
            let full = lanes.rejected.iter().position(|&c| c > 0).unwrap();
            assert_eq!(
                lanes.queued[full] + lanes.served[full] + lanes.wasted[full],
                limit
            );
            assert!(
                full > tick(&collapse, 15 * SECOND),
                "full after the slowdown"
            );
        }
    }
}

#[test]
fn each_remedy_alone_restores_goodput_as_the_article_says() {
    let offered = run_scenario(&block("collapse")).offered_milli;
    let goodput = |id: &str| {
        let result = run_scenario(&block(id));
        let s = jitter(&result).clone();
        (s.goodput_milli, s)
    };
    // On the server's side: most of the offered load, over the whole minute.
    let (drop, d) = goodput("collapse-drop-expired");
    assert!(drop.p5 * 100 >= offered * 95, "{drop:?}");
    assert_eq!(d.wasted.p95, 0);
    assert!(d.timed_out.p5 > 0 && d.gave_up.median < d.timed_out.median);
    let (lifo, l) = goodput("collapse-lifo");
    assert!(lifo.p5 * 100 >= offered * 95, "{lifo:?}");
    assert!(l.wasted.p5 > 0);
    let (short, q) = goodput("collapse-short-queue");
    // The 99th percentile latency, lowest first: LIFO, the short queue, dropping
    // expired work, the longer timeout.
    let patient = run_scenario(&block("slowdown"));
    let p99 = [&l, &q, &d, jitter(&patient)].map(|s| s.latency_p99.unwrap());
    assert!(p99.windows(2).all(|w| w[0].p95 < w[1].p5), "{p99:?}");
    assert!(short.p5 * 100 >= offered * 90, "{short:?}");
    // Almost every call served is answered in time; the few wasted (the worst ticks of
    // the slowdown, when the rejections' cost leaves a call or two a tick) are below a
    // hundredth of those served, in every run up to the 95th percentile.
    assert!(q.wasted.p95 * 100 < q.served.p5, "{q:?}");
    assert_eq!(q.wasted.median, 0);
    assert!(q.gave_up.p5 > 0);
    // On the clients' side: the budget recovers, the throttle barely.
    let (budget, b) = goodput("collapse-budget");
    assert!(budget.p5 * 100 >= offered * 85, "{budget:?}");
    assert!(b.denied.p5 > 0 && b.wasted.p5 > 0);
    let (throttle, t) = goodput("collapse-throttle");
    assert!(throttle.p95 * 100 <= offered * 35, "{throttle:?}");
    assert!(t.throttled.p5 > 0 && t.wasted.p5 > 0);
    // The order the side-by-side table reads.
    for server_side in [drop, lifo, short] {
        assert!(server_side.median > budget.median);
    }
    assert!(budget.median > throttle.median);
}

#[test]
fn the_throttle_serves_nobody_while_the_queue_drains_and_is_still_refusing_at_the_end() {
    let s = block("collapse-throttle");
    for run in runs(&s, Strategy::FullJitter) {
        let lanes = run.lanes.unwrap();
        // While abandoned calls are served, no call is answered in time.
        let from = tick(&s, 14 * SECOND);
        let empty = from
            + lanes.queued[from..]
                .iter()
                .position(|&q| q == 0)
                .expect("the queue drains");
        assert!(empty > tick(&s, 20 * SECOND));
        assert!(lanes.served[from..empty].iter().all(|&c| c == 0));
        assert!(lanes.wasted[from..empty].iter().sum::<u32>() > 0);
        // The last ten seconds: far from the 800 requests that arrive in them.
        let last: u32 = lanes.served[lanes.served.len() - 100..].iter().sum();
        assert!(last < 400, "{last}");
        assert!(
            lanes.throttled[lanes.throttled.len() - 100..]
                .iter()
                .sum::<u32>()
                > 0
        );
    }
}

#[test]
fn the_timeout_sweep_has_a_cliff_between_the_slowdowns_longest_latencies() {
    let goodput = sweep("timeout-goodput");
    let latency = sweep("timeout-latency");
    assert_eq!(goodput.points.len(), latency.points.len());
    let mut last_p99 = 0;
    for ((label, _, g), (_, _, l)) in goodput.points.iter().zip(&latency.points) {
        let same = Scenario {
            id: g.id.clone(),
            ..l.clone()
        };
        assert_eq!(g, &same, "{label}: both sweeps run the same scenarios");
        let timeout = g.retry.timeout.unwrap();
        let result = run_scenario(g);
        let s = &result.strategies[0];
        let p99 = s.latency_p99.unwrap().median;
        if timeout <= 1_750_000 {
            assert!(s.goodput_milli.p95 * 4 < result.offered_milli, "{label}");
            // Below the cliff, the p99 of the calls answered in time climbs with it.
            assert!(p99 > last_p99 && p99 < timeout, "{label}");
        } else {
            assert!(s.goodput_milli.p5 >= result.offered_milli, "{label}");
            assert_eq!(s.timed_out.p95, 0, "{label}: nothing times out");
            // Above it, the slowdown's own.
            let patient = run_scenario(&block("slowdown"));
            assert_eq!(
                Some(p99),
                patient.strategies[0].latency_p99.map(|l| l.median)
            );
        }
        last_p99 = p99;
    }
    let timeouts: Vec<Micros> = goodput
        .points
        .iter()
        .map(|(_, _, s)| s.retry.timeout.unwrap())
        .collect();
    assert!(timeouts.contains(&1_750_000) && timeouts.contains(&(2 * SECOND)));
}
