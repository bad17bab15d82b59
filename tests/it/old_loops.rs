//! The two tick loops the engine had before it had one, kept verbatim (but for paths) as
//! the reference that the one generic loop must reproduce to the call: the plain loop
//! for the closed crowd with a single policy, and the extended loop for every scenario
//! with arrivals, Retry-After, a budget, a breaker or layers.

use rand::{RngExt, SeedableRng};
use retrylab::engine::guards::breaker::BreakerState;
use retrylab::engine::guards::budget::BudgetState;
use retrylab::engine::policy::{Policies, RetryPolicy, Strategy};
use retrylab::engine::recovery::{after_trigger, per_second_milli, recovery_tick};
use retrylab::engine::rng::Pcg64;
use retrylab::engine::scenario::{MAX_LAYERS, Scenario};
use retrylab::engine::server::ServerState;
use retrylab::engine::units::{Micros, SECOND};
use retrylab::engine::{Lanes, Run, Totals};

/// Runs one strategy of a scenario with one seed in the old loops.
pub fn simulate(scenario: &Scenario, strategy: Strategy, seed: u64, with_lanes: bool) -> Run {
    simulate_with(
        scenario,
        &Policies::new(scenario, strategy),
        seed,
        with_lanes,
    )
}

/// A client whose next call is pending: everything the engine knows of it.
#[derive(Clone, Copy, Debug)]
struct Call {
    /// The client's clock at this call, in µs (below the horizon, so below an hour).
    t: u32,
    /// When the client made its first call.
    first: u32,
    /// Decorrelated jitter's previous wait.
    prev: u32,
    /// Calls made so far, this one included.
    attempts: u32,
}

/// The old plain loop (and, for a scenario with guards, the old extended loop).
pub fn simulate_with(scenario: &Scenario, policies: &Policies, seed: u64, with_lanes: bool) -> Run {
    if scenario.has_guards() {
        return extended_with(scenario, policies, seed, with_lanes);
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let tick = scenario.server.tick;
    let ticks = scenario.ticks() as usize;
    let policy = &policies.layers[0];
    let max_attempts = scenario.retry.max_attempts.unwrap_or(u32::MAX);
    let deadline = scenario.retry.deadline;
    let base = scenario.retry.base as u32;

    let mut buckets: Vec<Vec<Call>> = vec![Vec::new(); ticks];
    let clients = scenario.clients as usize;
    if scenario.spread == 0 {
        buckets[0] = vec![
            Call {
                t: 0,
                first: 0,
                prev: base,
                attempts: 1,
            };
            clients
        ];
    } else {
        for _ in 0..clients {
            let t = rng.random_range(0..scenario.spread);
            buckets[(t / tick) as usize].push(Call {
                t: t as u32,
                first: t as u32,
                prev: base,
                attempts: 1,
            });
        }
    }

    let mut lanes = with_lanes.then(|| Lanes {
        served: vec![0; ticks],
        rejected: vec![0; ticks],
        failed_fast: Vec::new(),
        ..Lanes::default()
    });
    let mut server = ServerState::new(&scenario.server);
    let mut totals = Totals::default();

    let mut last_finish: Option<usize> = None;

    for k in 0..ticks {
        let mut calls = std::mem::take(&mut buckets[k]);
        let arrivals = calls.len();
        let down = server.is_down(k as u64 * tick);
        let served = server.serve(k as u64 * tick, arrivals as u64, down) as usize;
        choose_served(&mut calls, served, &mut rng);

        totals.calls += arrivals as u64;
        totals.served += served as u64;
        totals.peak_rejected = totals.peak_rejected.max((arrivals - served) as u64);
        if served > 0 {
            last_finish = Some(k);
        }
        if let Some(lanes) = lanes.as_mut() {
            lanes.served[k] = served as u32;
            lanes.rejected[k] = (arrivals - served) as u32;
        }

        for call in &mut calls[served..] {
            if call.attempts >= max_attempts {
                totals.gave_up += 1;
                last_finish = Some(k);
                continue;
            }
            let wait = policy.wait(call.attempts - 1, &mut call.prev, &mut rng);
            let next = u64::from(call.t) + wait;
            if deadline.is_some_and(|d| next > u64::from(call.first) + d) {
                totals.gave_up += 1;
                last_finish = Some(k);
                continue;
            }
            // A retry is never seen in the tick that rejected it.
            let seen = ((next / tick) as usize).max(k + 1);
            if seen >= ticks {
                totals.still_retrying += 1;
                continue;
            }
            call.t = next as u32;
            call.attempts += 1;
            buckets[seen].push(*call);
        }
    }

    if totals.still_retrying == 0 {
        totals.done_at = last_finish.map(|k| k as u64 * tick);
    }

    Run {
        seed,
        totals,
        lanes,
        replicas: Vec::new(),
    }
}

/// Moves a uniformly random choice of `served` calls to the front (a partial
/// Fisher–Yates shuffle over the smaller of the two groups).
fn choose_served<T>(calls: &mut [T], served: usize, rng: &mut Pcg64) {
    let n = calls.len();
    let rejected = n - served;
    if served == 0 || rejected == 0 {
        return;
    }
    if served <= rejected {
        for i in 0..served {
            let j = rng.random_range(i..n);
            calls.swap(i, j);
        }
    } else {
        for i in (served..n).rev() {
            let j = rng.random_range(0..=i);
            calls.swap(i, j);
        }
    }
}

/// A client whose next call is pending, with its state at every layer.
#[derive(Clone, Copy, Debug)]
struct Client {
    /// The client's clock at this call, in µs.
    t: u32,
    /// When the client made its first call.
    first: u32,
    /// Calls made so far, this one included.
    calls: u32,
    /// Attempts so far in the current sequence of each layer, top first.
    attempts: [u32; MAX_LAYERS],
    /// Decorrelated jitter's previous wait, per layer.
    prev: [u32; MAX_LAYERS],
}

/// The retry layers of one lane: a single one without `layers`.
struct Chain<'a> {
    policies: &'a [RetryPolicy],
    max: Vec<u32>,
    bases: [u32; MAX_LAYERS],
}

impl Chain<'_> {
    fn new<'a>(scenario: &Scenario, policies: &'a Policies) -> Chain<'a> {
        let mut bases = [0; MAX_LAYERS];
        if scenario.layers.is_empty() {
            bases[0] = scenario.retry.base as u32;
            return Chain {
                policies: &policies.layers,
                max: vec![scenario.retry.max_attempts.unwrap_or(u32::MAX)],
                bases,
            };
        }
        let mut max = Vec::new();
        for (i, layer) in scenario.layers.iter().enumerate() {
            max.push(layer.attempts);
            bases[i] = layer.base as u32;
        }
        Chain {
            policies: &policies.layers,
            max,
            bases,
        }
    }

    /// A new client whose first call is at `t`.
    fn fresh(&self, t: Micros) -> Client {
        Client {
            t: t as u32,
            first: t as u32,
            calls: 1,
            attempts: [1; MAX_LAYERS],
            prev: self.bases,
        }
    }

    /// The layer that retries after a failed call: the lowest with attempts left.
    fn layer_to_retry(&self, client: &Client) -> Option<usize> {
        (0..self.max.len())
            .rev()
            .find(|&layer| client.attempts[layer] < self.max[layer])
    }

    /// Counts a retry at `layer`: the layers below start afresh.
    fn advance(&self, client: &mut Client, layer: usize) {
        client.calls += 1;
        client.attempts[layer] += 1;
        for below in layer + 1..self.max.len() {
            client.attempts[below] = 1;
            client.prev[below] = self.bases[below];
        }
    }
}

/// The old extended loop: every scenario with guards.
fn extended_with(scenario: &Scenario, policies: &Policies, seed: u64, with_lanes: bool) -> Run {
    let mut rng = Pcg64::seed_from_u64(seed);
    let tick = scenario.server.tick;
    let ticks = scenario.ticks() as usize;
    let chain = Chain::new(scenario, policies);
    let deadline = scenario.retry.deadline;

    let mut buckets: Vec<Vec<Client>> = vec![Vec::new(); ticks];
    let clients = scenario.clients as usize;
    if scenario.spread == 0 {
        buckets[0] = vec![chain.fresh(0); clients];
    } else {
        for _ in 0..clients {
            let t = rng.random_range(0..scenario.spread);
            buckets[(t / tick) as usize].push(chain.fresh(t));
        }
    }

    let with_breaker = scenario.retry.breaker.is_some();
    let mut lanes = with_lanes.then(|| Lanes {
        served: vec![0; ticks],
        rejected: vec![0; ticks],
        failed_fast: if with_breaker {
            vec![0; ticks]
        } else {
            Vec::new()
        },
        ..Lanes::default()
    });
    let open = !scenario.arrivals.is_empty();
    let mut goodput = if open { vec![0u32; ticks] } else { Vec::new() };
    let mut offered = goodput.clone();
    let mut server = ServerState::new(&scenario.server);
    let mut budget = scenario
        .retry
        .budget
        .as_ref()
        .map(|b| BudgetState::new(b, tick, ticks as u64));
    let mut breaker = scenario.retry.breaker.map(BreakerState::new);
    let retry_fast = scenario.retry.breaker.is_none_or(|b| b.retry_when_open);
    let hint = scenario
        .server
        .retry_after
        .filter(|_| scenario.retry.honor_retry_after);
    let mut totals = Totals::default();

    let mut last_finish: Option<usize> = None;

    for k in 0..ticks {
        let start = k as u64 * tick;
        let mut calls = std::mem::take(&mut buckets[k]);
        for window in &scenario.arrivals {
            let new = window.indices_in(start, start + tick);
            let count = new.end - new.start;
            totals.arrivals += count;
            if open {
                offered[k] += count as u32;
            }
            calls.extend(new.map(|i| chain.fresh(window.time_of(i))));
        }
        let n = calls.len();
        let admitted = match breaker.as_mut() {
            Some(b) => b.admit(start, n as u64) as usize,
            None => n,
        };
        let down = server.is_down(start);
        let served = server.serve(k as u64 * tick, admitted as u64, down) as usize;
        choose_served(&mut calls[..admitted], served, &mut rng);

        totals.calls += admitted as u64;
        totals.served += served as u64;
        totals.failed_fast += (n - admitted) as u64;
        totals.peak_rejected = totals.peak_rejected.max((admitted - served) as u64);
        if served > 0 {
            last_finish = Some(k);
        }
        if open {
            goodput[k] = served as u32;
        }
        if let Some(lanes) = lanes.as_mut() {
            lanes.served[k] = served as u32;
            lanes.rejected[k] = (admitted - served) as u32;
            if with_breaker {
                lanes.failed_fast[k] = (n - admitted) as u32;
            }
        }
        if let Some(b) = breaker.as_mut() {
            b.record(start + tick, served as u64, (admitted - served) as u64);
        }
        if let Some(b) = budget.as_mut() {
            let requests = calls.iter().filter(|c| c.calls == 1).count();
            b.begin_tick(k, requests as u64);
            for call in &calls[..served] {
                b.success(call.calls > 1);
            }
        }
        let tick_hint = hint.filter(|h| h.applies(down)).map(|h| h.hint);

        for (i, call) in calls[served..].iter_mut().enumerate() {
            if let Some(b) = budget.as_mut() {
                b.failure();
            }
            let failed_fast = served + i >= admitted;
            let layer = chain
                .layer_to_retry(call)
                .filter(|_| retry_fast || !failed_fast);
            let Some(layer) = layer else {
                totals.gave_up += 1;
                last_finish = Some(k);
                continue;
            };
            let attempts = call.attempts[layer];
            let mut wait =
                chain.policies[layer].wait(attempts - 1, &mut call.prev[layer], &mut rng);
            // Only calls that reached the server carry the hint.
            if !failed_fast {
                wait = wait.max(tick_hint.unwrap_or(0));
            }
            let next = u64::from(call.t) + wait;
            if deadline.is_some_and(|d| next > u64::from(call.first) + d) {
                totals.gave_up += 1;
                last_finish = Some(k);
                continue;
            }
            if budget.as_mut().is_some_and(|b| !b.try_retry()) {
                totals.gave_up += 1;
                totals.denied += 1;
                last_finish = Some(k);
                continue;
            }
            // A retry is never seen in the tick that rejected it.
            let seen = ((next / tick) as usize).max(k + 1);
            if seen >= ticks {
                totals.still_retrying += 1;
                continue;
            }
            call.t = next as u32;
            chain.advance(call, layer);
            buckets[seen].push(*call);
        }
    }

    if totals.still_retrying == 0 {
        totals.done_at = last_finish.map(|k| k as u64 * tick);
    }

    if open {
        let from = after_trigger(scenario);
        totals.goodput_milli = per_second_milli(&goodput[from..], tick);
        let window = SECOND.div_ceil(tick).max(1) as usize;
        totals.recovery = scenario.trigger_end().and_then(|end| {
            recovery_tick(&goodput, &offered, from, window).map(|s| s as u64 * tick - end)
        });
    }
    Run {
        seed,
        totals,
        lanes,
        replicas: Vec::new(),
    }
}
