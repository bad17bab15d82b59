//! One run: a crowd of clients against the server, tick by tick, with one seeded generator.
//!
//! Each tick owns a bucket of the calls that the server sees in it. A call carries the
//! whole state of its client (16 bytes), so a tick is read front to back and a retry is
//! appended to the bucket of the tick that will see it; no client is looked up by index.
//!
//! Order of random draws, for anyone reproducing a run: first the start of every client
//! in client order (only with `spread`), then per tick the choice of served calls and,
//! for each rejected call in bucket order, its jittered wait.
//!
//! What a rejected client does, in this order:
//! 1. if it has made `max_attempts` calls, it gives up (no wait is drawn);
//! 2. it draws its wait and computes `t_next = t + wait` on its own clock;
//! 3. if `t_next` is after its first call plus `deadline`, it gives up (a retry exactly
//!    at the deadline is still sent);
//! 4. the retry is seen in tick `max(floor(t_next / tick), k + 1)`; if that tick is at or
//!    past the horizon, the call is never made and the client is still retrying.
//!
//! A client that gives up finishes in the tick of its last rejection; `done_at` is the
//! start of the last tick in which a client was served or gave up.
//!
//! A scenario with open-loop arrivals, Retry-After, a budget, a breaker or layers runs in
//! [`super::extended`], which keeps this order and adds no draws of its own; a scenario
//! without them runs here, in the tight loop that the benchmark measures.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

use super::policy::{Policies, Strategy};
use super::scenario::Scenario;
use super::server::ServerState;
use super::units::Micros;

/// What one run adds up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Totals {
    /// Every call the server saw, served or rejected.
    pub calls: u64,
    /// Clients whose call was served.
    pub served: u64,
    /// Clients that gave up (attempt limit or deadline).
    pub gave_up: u64,
    /// Clients neither served nor given up at the horizon.
    pub still_retrying: u64,
    /// The start of the tick in which the last client finished, when all finished.
    pub done_at: Option<Micros>,
    /// Open-loop requests made (each a client, besides the closed crowd).
    pub arrivals: u64,
    /// Calls that failed fast at an open (or full half-open) breaker.
    pub failed_fast: u64,
    /// Clients that gave up because the retry budget refused a retry (counted in
    /// `gave_up` too).
    pub denied: u64,
    /// Served calls per second, in thousandths, from the end of the trigger (or from 0)
    /// to the horizon; with open-loop load only.
    pub goodput_milli: u64,
    /// How long after the trigger goodput was back at the offered load for good; `None`
    /// when it never was, or when the scenario has no trigger (see [`super::extended`]).
    pub recovery: Option<Micros>,
}

/// Per tick: calls served and calls turned away.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lanes {
    /// Served calls per tick.
    pub served: Vec<u32>,
    /// Rejected calls per tick.
    pub rejected: Vec<u32>,
    /// Calls that failed fast per tick; empty unless the scenario has a breaker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_fast: Vec<u32>,
}

/// The outcome of one run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Run {
    /// The seed it ran with.
    pub seed: u64,
    /// Its totals.
    pub totals: Totals,
    /// Its per-tick lanes, when asked for.
    pub lanes: Option<Lanes>,
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

/// Runs one strategy of a scenario with one seed. `with_lanes` records the per-tick
/// lanes; without it the run takes no memory per tick beyond its buckets.
pub fn simulate(scenario: &Scenario, strategy: Strategy, seed: u64, with_lanes: bool) -> Run {
    simulate_with(
        scenario,
        &Policies::new(scenario, strategy),
        seed,
        with_lanes,
    )
}

/// [`simulate`] with the strategy's policies built beforehand, so that many runs of one
/// scenario share their tables of ceilings. `policies` must be those of `scenario`.
pub fn simulate_with(scenario: &Scenario, policies: &Policies, seed: u64, with_lanes: bool) -> Run {
    if scenario.is_extended() {
        return super::extended::simulate_with(scenario, policies, seed, with_lanes);
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
    });
    let mut server = ServerState::new(&scenario.server);
    let mut totals = Totals::default();
    let mut last_finish: Option<usize> = None;

    for k in 0..ticks {
        let mut calls = std::mem::take(&mut buckets[k]);
        let arrivals = calls.len();
        let down = server.is_down(k as u64 * tick);
        let served = server.serve(arrivals as u64, down) as usize;
        choose_served(&mut calls, served, &mut rng);

        totals.calls += arrivals as u64;
        totals.served += served as u64;
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
    }
}

/// Moves a uniformly random choice of `served` calls to the front (a partial
/// Fisher–Yates shuffle over the smaller of the two groups).
pub(super) fn choose_served<T>(calls: &mut [T], served: usize, rng: &mut Pcg64) {
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
