//! One run: a crowd of clients against the server, tick by tick, with one seeded generator.
//!
//! Each tick owns a bucket of the calls that the server sees in it ([`super::buckets`]).
//! A call carries the whole state of its client ([`super::client`]), so a tick is read
//! front to back and a retry is appended to the bucket of the tick that will see it; no
//! client is looked up by index.
//!
//! Order of random draws, for anyone reproducing a run: first the start of every client
//! in client order (only with `spread`), then per tick the choice of served calls and,
//! for each rejected call in bucket order, its jittered wait. The guards add no draws.
//!
//! What a rejected client does, in this order:
//! 1. if it has made `max_attempts` calls (every layer is out of attempts), it gives up
//!    (no wait is drawn);
//! 2. it draws its wait and computes `t_next = t + wait` on its own clock (at least the
//!    Retry-After hint, when it honours one);
//! 3. if `t_next` is after its first call plus `deadline`, it gives up (a retry exactly
//!    at the deadline is still sent);
//! 4. if a retry budget refuses the retry, it gives up (`denied`);
//! 5. the retry is seen in tick `max(floor(t_next / tick), k + 1)`; if that tick is at or
//!    past the horizon, the call is never made and the client is still retrying.
//!
//! A client that gives up finishes in the tick of its last rejection; `done_at` is the
//! start of the last tick in which a client was served or gave up.
//!
//! There is one loop, [`simulate_with`], for every scenario. It is generic over the
//! client state and the guards ([`super::guards`]), chosen once per scenario and
//! strategy, so the plain crowd runs with the smallest state and no guard code at all.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use super::buckets::Buckets;
use super::client::{Chain, Client, Layered, Single};
use super::guards::{Guarded, Guards, Unguarded};
use super::outcome::{Lanes, Run, Totals};
use super::policy::{Policies, Strategy};
use super::scenario::Scenario;

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
    let chain = Chain::new(scenario, policies);
    let run = Setup {
        scenario,
        chain: &chain,
        seed,
        with_lanes,
    };
    // The browser's module, which must stay small, carries two copies of the loop: every
    // guard, with the single state of every option or the layered one. With no guard
    // turned on they give the same runs as the plain loop, and with one layer the
    // layered state those of the single one; the single state, a third the size, makes
    // the crowds without layers (the open-loop ones above all) run much faster.
    if cfg!(target_arch = "wasm32") {
        let guards = Guarded::new(scenario);
        if scenario.layers.is_empty() {
            return run.go::<Single<u32, u32>, _>(guards);
        }
        return run.go::<Layered, _>(guards);
    }
    if scenario.has_guards() {
        let guards = Guarded::new(scenario);
        if scenario.layers.is_empty() {
            return run.go::<Single<u32, u32>, _>(guards);
        }
        return run.go::<Layered, _>(guards);
    }
    match (scenario.retry.deadline.is_some(), chain.remembers_waits()) {
        (false, false) => run.go::<Single<(), ()>, _>(Unguarded),
        (true, false) => run.go::<Single<u32, ()>, _>(Unguarded),
        (false, true) => run.go::<Single<(), u32>, _>(Unguarded),
        (true, true) => run.go::<Single<u32, u32>, _>(Unguarded),
    }
}

/// What one run is given.
struct Setup<'a> {
    scenario: &'a Scenario,
    chain: &'a Chain<'a>,
    seed: u64,
    with_lanes: bool,
}

impl Setup<'_> {
    /// The tick loop, for clients of kind `C` with guards `G`. Never inlined: each
    /// instantiation is a function of its own, so that adding one does not change how
    /// the others are laid out (with every copy inlined, the plain crowd measured a few
    /// percent slower).
    #[inline(never)]
    fn go<C: Client, G: Guards>(self, mut guards: G) -> Run {
        let Setup {
            scenario,
            chain,
            seed,
            with_lanes,
        } = self;
        let mut rng = Pcg64::seed_from_u64(seed);
        let tick = scenario.server.tick;
        let ticks = scenario.ticks() as usize;
        let deadline = scenario.retry.deadline;

        let mut buckets: Buckets<C> = Buckets::new(ticks);
        let clients = scenario.clients as usize;
        if scenario.spread == 0 {
            if ticks > 0 {
                buckets.fill(0, C::fresh(chain, 0), clients);
            }
        } else {
            for _ in 0..clients {
                let t = rng.random_range(0..scenario.spread);
                buckets.push((t / tick) as usize, C::fresh(chain, t));
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
        let mut server = super::server::ServerState::new(&scenario.server);
        let mut totals = Totals::default();
        let mut last_finish: Option<usize> = None;

        for k in 0..ticks {
            let start = k as u64 * tick;
            let mut calls = buckets.take(k);
            guards.arrive(
                k,
                (start, start + tick),
                chain,
                &mut calls,
                &mut buckets,
                &mut totals,
            );
            let n = calls.len();
            let admitted = guards.admit(start, n);
            let down = server.is_down(start);
            let served = server.serve(admitted as u64, down) as usize;
            calls.choose_served(admitted, served, &mut rng);

            totals.calls += admitted as u64;
            totals.served += served as u64;
            totals.failed_fast += (n - admitted) as u64;
            if served > 0 {
                last_finish = Some(k);
            }
            if let Some(lanes) = lanes.as_mut() {
                lanes.served[k] = served as u32;
                lanes.rejected[k] = (admitted - served) as u32;
                if with_breaker {
                    lanes.failed_fast[k] = (n - admitted) as u32;
                }
            }
            guards.decided(k, start + tick, &calls, admitted, served);
            let hint = guards.hint(down);

            let mut index = 0;
            for block in calls.into_blocks() {
                let from = served.saturating_sub(index).min(block.len());
                let block_start = index;
                index += block.len();
                for (i, call) in block[from..].iter().enumerate() {
                    let mut call = *call;
                    guards.failure();
                    let failed_fast = block_start + from + i >= admitted;
                    let layer = call
                        .layer_to_retry(chain)
                        .filter(|_| !failed_fast || guards.retries_failed_fast());
                    let Some(layer) = layer else {
                        totals.gave_up += 1;
                        last_finish = Some(k);
                        continue;
                    };
                    let mut wait = call.wait(chain, layer, &mut rng);
                    // Only calls that reached the server carry the hint.
                    if !failed_fast {
                        wait = wait.max(hint);
                    }
                    let next = call.t() + wait;
                    if deadline.is_some_and(|d| next > call.first() + d) {
                        totals.gave_up += 1;
                        last_finish = Some(k);
                        continue;
                    }
                    if !guards.try_retry() {
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
                    call.advance(chain, layer, next);
                    buckets.push(seen, call);
                }
                buckets.recycle(block);
            }
        }

        if totals.still_retrying == 0 {
            totals.done_at = last_finish.map(|k| k as u64 * tick);
        }
        guards.finish(scenario, &mut totals);
        Run {
            seed,
            totals,
            lanes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::parse_scenario;

    /// The browser's module runs every scenario in the guarded loop, with the single
    /// state of every option when there are no layers: without guards that must be the
    /// plain loop's run, to the call, and the layered state's with one layer.
    #[test]
    fn the_layered_state_in_the_guarded_loop_gives_every_run() {
        let cases = [
            "clients: 300\nserver: {capacity: 10}\n",
            "clients: 5000\nspread: 3s\nserver: {capacity: 700, outages: [{from: 1s, to: 2s}]}\n\
             retry: {max_attempts: 7, deadline: 20s}\n",
            "clients: 200\nhorizon: 30s\nserver: {model: all-or-nothing, capacity: 30}\n\
             retry: {base: 50ms, cap: 3s, multiplier: 1.5, deadline: 9s}\n",
        ];
        let guarded = [
            "clients: 400\nspread: 1s\narrivals: {rate: 50}\n\
             server: {capacity: 10, retry_after: {hint: 2s, when: always}, \
             outages: [{from: 1s, to: 4s}]}\n\
             retry: {deadline: 30s, budget: finagle, breaker: {retry_when_open: false}}\n",
            "clients: 300\nserver: {capacity: 10}\nretry: {max_attempts: 5, budget: grpc}\n",
        ];
        for yaml in cases.into_iter().chain(guarded) {
            let scenario = parse_scenario(yaml, Some("t")).expect("a valid scenario");
            assert!(scenario.layers.is_empty());
            for strategy in Strategy::ALL {
                let policies = Policies::new(&scenario, strategy);
                let chain = Chain::new(&scenario, &policies);
                for seed in [1, 2] {
                    let setup = || Setup {
                        scenario: &scenario,
                        chain: &chain,
                        seed,
                        with_lanes: true,
                    };
                    assert_eq!(
                        setup().go::<Layered, _>(Guarded::new(&scenario)),
                        simulate_with(&scenario, &policies, seed, true),
                        "{strategy:?}"
                    );
                    assert_eq!(
                        setup().go::<Single<u32, u32>, _>(Guarded::new(&scenario)),
                        simulate_with(&scenario, &policies, seed, true),
                        "{strategy:?}"
                    );
                }
            }
        }
    }
}
