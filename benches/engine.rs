//! The engine's speed and memory on a large crowd: 1,000,000 clients against a server
//! that serves 100,000 per 100 ms tick, one run per strategy; then the same crowd with a
//! guard (a Retry-After hint of one second), which runs the loop with the state of
//! guarded scenarios; then the same crowd with a queue of 200,000 calls in front of the
//! server and a timeout of one second, whose calls wait, time out and are wasted; then
//! the crowd against ten replicas of a tenth of the capacity each, round-robin; then
//! open-loop load (500,000 requests a second for 20 s, with a one-second outage, at
//! most five attempts each) against the one server, the same with its requests as a
//! Poisson process, and against the ten replicas.
//!
//! Then what a user waits for: the crowd with at most 20 attempts (the unlimited crowd
//! passes the work limit of `retrylab sim`); the playground's crowd and metastable
//! presets, all their runs, as `scenarios/` has them; and the whole `retrylab sim`
//! process on the limited crowd with the five strategies of the model, start to exit.
//!
//! Run with `cargo bench --bench engine`. Criterion reports simulated calls per second
//! (its "elements"); before that, a line per strategy gives the peak heap of one run,
//! per client, measured by a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use retrylab::engine::scenario::{
    Arrivals, Balancer, Fleet, HintWhen, Outage, Process, Queue, QueueOrder, RetryAfter,
};
use retrylab::engine::{Scenario, Strategy, parse_scenario, run_scenario_with, simulate};

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
        process: Process::Even,
    }];
    scenario.server.outages = vec![Outage {
        from: 5_000_000,
        to: 6_000_000,
    }];
    scenario.retry.max_attempts = Some(5);
    scenario
}

/// `scenario` with its arrivals as a Poisson process.
fn poisson(mut scenario: Scenario) -> Scenario {
    for window in &mut scenario.arrivals {
        window.process = Process::Poisson;
    }
    scenario
}

/// The crowd with at most `attempts` attempts per client.
fn limited(attempts: u32) -> Scenario {
    let mut scenario = crowd();
    scenario.retry.max_attempts = Some(attempts);
    scenario
}

/// The limited crowd as a scenario file, for `retrylab sim`: the five strategies of
/// the model, one run each.
const LIMITED_CROWD_YAML: &str = "\
id: limited-crowd
clients: 1000000
horizon: 2m
server: {model: capacity, capacity: 100000, tick: 100ms, rejection_cost: 0.1}
retry: {base: 100ms, cap: 10s, multiplier: 2, max_attempts: 20}
strategies: [fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter]
runs: 1
";

fn engine(c: &mut Criterion) {
    bench(c, "crowd of 1,000,000, at most 20 attempts", &limited(20));
    presets(c);
    sim_process(c);
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
    bench(c, "open loop, Poisson arrivals", &poisson(open_loop()));
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

/// The playground's presets as the site runs them: every run of every strategy, the
/// typical runs' lanes and the statistics included.
fn presets(c: &mut Criterion) {
    let mut group = c.benchmark_group("playground presets");
    group.sample_size(10);
    for name in ["crowd", "metastable", "metastable, Poisson arrivals"] {
        let file = name.split(',').next().unwrap_or(name);
        let path = format!("{}/scenarios/{file}.yaml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut scenario = parse_scenario(&text, None).unwrap();
        if name.ends_with("Poisson arrivals") {
            scenario = poisson(scenario);
        }
        // Every run's calls: run `r` of each strategy has the seed `seed + r`.
        let calls: u64 = (scenario.strategies.iter())
            .flat_map(|&s| (0..scenario.runs).map(move |r| (s, r)))
            .map(|(s, r)| simulate(&scenario, s, scenario.seed + u64::from(r), false))
            .map(|run| run.totals.calls)
            .sum();
        group.throughput(Throughput::Elements(calls));
        group.bench_function(name, |b| {
            b.iter(|| run_scenario_with(black_box(&scenario), true))
        });
    }
    group.finish();
}

/// The whole `retrylab sim` process on the limited crowd, five strategies: reading,
/// every run, and printing the JSON, as a user runs it.
fn sim_process(c: &mut Criterion) {
    let Some(binary) = option_env!("CARGO_BIN_EXE_retrylab") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("retrylab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("limited-crowd.yaml");
    std::fs::write(&file, LIMITED_CROWD_YAML).unwrap();
    let scenario = parse_scenario(LIMITED_CROWD_YAML, None).unwrap();
    let calls: u64 = Strategy::CLASSIC
        .iter()
        .map(|&s| simulate(&scenario, s, 1, false).totals.calls)
        .sum();
    let mut group = c.benchmark_group("retrylab sim, the limited crowd");
    group.sample_size(10);
    group.throughput(Throughput::Elements(calls));
    group.bench_function("five strategies", |b| {
        b.iter(|| {
            let out = std::process::Command::new(binary)
                .args(["sim", "--json"])
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        })
    });
    group.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

criterion_group!(benches, engine);
criterion_main!(benches);
