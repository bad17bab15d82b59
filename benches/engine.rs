//! The engine's speed and memory on a large crowd: 1,000,000 clients against a server
//! that serves 100,000 per 100 ms tick, one run per strategy; then the same crowd with a
//! guard (a Retry-After hint of one second), which runs the loop with the state of
//! guarded scenarios; then the same crowd with a queue of 200,000 calls in front of the
//! server and a timeout of one second, whose calls wait, time out and are wasted; then
//! the crowd against ten replicas of a tenth of the capacity each, round-robin; then
//! open-loop load (500,000 requests a second for 20 s, with a one-second outage, at
//! most five attempts each) against the one server, and against the ten replicas.
//!
//! Run with `cargo bench --bench engine`. Criterion reports simulated calls per second
//! (its "elements"); before that, a line per strategy gives the peak heap of one run,
//! per client, measured by a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use retrylab::engine::scenario::{
    Arrivals, Balancer, Fleet, HintWhen, Outage, Queue, QueueOrder, RetryAfter,
};
use retrylab::engine::{Scenario, Strategy, simulate};

/// The system allocator, counting live and peak bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are
// added around it.
#[allow(unsafe_code)] // a global allocator cannot be written without it
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const CLIENTS: u64 = 1_000_000;

fn crowd() -> Scenario {
    let mut scenario = Scenario::with_clients("bench", CLIENTS);
    scenario.server.capacity_milli = 100_000 * 1000;
    scenario
}

fn guarded() -> Scenario {
    let mut scenario = crowd();
    scenario.server.retry_after = Some(RetryAfter {
        hint: 1_000_000,
        when: HintWhen::Always,
    });
    scenario
}

fn queued() -> Scenario {
    let mut scenario = crowd();
    scenario.server.queue = Some(Queue {
        limit: 200_000,
        order: QueueOrder::Fifo,
        drop_expired: false,
    });
    scenario.retry.timeout = Some(1_000_000);
    scenario
}

/// `scenario` on ten replicas, each with a tenth of its capacity and of its queue.
fn on_ten(mut scenario: Scenario) -> Scenario {
    scenario.server.capacity_milli /= 10;
    if let Some(queue) = scenario.server.queue.as_mut() {
        queue.limit /= 10;
    }
    scenario.server.fleet = Some(Fleet {
        replicas: 10,
        balancer: Balancer::RoundRobin,
        overrides: Vec::new(),
    });
    scenario
}

fn open_loop() -> Scenario {
    let mut scenario = crowd();
    scenario.clients = 0;
    scenario.horizon = 20_000_000;
    scenario.arrivals = vec![Arrivals {
        rate_milli: 500_000 * 1000,
        from: 0,
        to: 20_000_000,
    }];
    scenario.server.outages = vec![Outage {
        from: 5_000_000,
        to: 6_000_000,
    }];
    scenario.retry.max_attempts = Some(5);
    scenario
}

fn engine(c: &mut Criterion) {
    bench(c, "crowd of 1,000,000", &crowd());
    bench(c, "guarded crowd of 1,000,000", &guarded());
    bench(c, "queued crowd of 1,000,000", &queued());
    bench(c, "crowd of 1,000,000 on ten replicas", &on_ten(crowd()));
    bench(
        c,
        "queued crowd of 1,000,000 on ten replicas",
        &on_ten(queued()),
    );
    bench(c, "open loop", &open_loop());
    bench(c, "open loop on ten replicas", &on_ten(open_loop()));
}

fn bench(c: &mut Criterion, name: &str, scenario: &Scenario) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for strategy in Strategy::GENERIC {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let run = simulate(scenario, strategy, 1, false);
        let peak = PEAK.load(Ordering::Relaxed) - before;
        println!(
            "{:<20} {:>12} calls, peak heap {:>6.1} bytes per client",
            strategy.name(),
            run.totals.calls,
            peak as f64 / CLIENTS as f64
        );
        group.throughput(Throughput::Elements(run.totals.calls));
        group.bench_function(strategy.name(), |b| {
            b.iter(|| simulate(black_box(scenario), strategy, 1, false))
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
