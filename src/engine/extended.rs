//! The tick loop with everything beyond backoff: open-loop arrivals, Retry-After, the
//! shared budget and breaker of [`super::protect`], and layers of retries. It keeps the
//! rules and the order of random draws of [`super::run`] and adds no draws of its own,
//! so a scenario that turns none of these on gives the same run here as there.
//!
//! Definitions, for anyone reproducing a run:
//!
//! - **Arrivals.** Request `i` of a window of `arrivals` starts at
//!   `from + floor(i * 1e6 / rate)` µs while that is before `to`: evenly spaced, no
//!   randomness. Each request is a new client with its own retry state; it joins the
//!   tick of its start after the retries already due there, window by window in the
//!   author's order.
//! - **Retry-After.** A rejection carries the hint when `when` says so: `always`, only
//!   in a tick in which the server is up (`overloaded`), or only during an outage
//!   (`down`). A client that honours it waits `max(policy wait, hint)`; the policy's wait
//!   is drawn as usual (decorrelated jitter remembers the drawn wait, not the hint). A
//!   call that failed fast never reached the server and carries no hint.
//! - **Failed fast.** A call refused by the breaker counts as a failure for its client:
//!   it counts as an attempt, the client waits and retries per policy, and its budget
//!   asks as for any failure. It is not a call the server saw (`calls`), and goes into
//!   `failed_fast` instead. With `retry_when_open: false` (the breaker outside the retry
//!   loop), a call that failed fast ends its request: the client gives up at once.
//! - **Order in a tick.** The breaker admits calls from the front of the tick (all when
//!   closed); the server serves a random choice of the admitted ones. Then the budget
//!   sees new requests and served calls, then each failed call in turn: rejected ones
//!   first, then failed-fast ones, each counted as a failure before its client asks for
//!   a retry. A client gives up at its attempt limit; else it draws its wait, gives up
//!   past its deadline, gives up (`denied`) when the budget refuses, and otherwise
//!   retries (or is still retrying, if the retry falls past the horizon).
//! - **Layers.** `layers` is a chain, top first; each layer has its attempts and its
//!   policy. The bottom layer's calls reach the server. When a bottom call fails, the
//!   lowest layer with attempts left retries after its own wait; the layers below it
//!   start a fresh sequence (their attempts back to 1, decorrelated jitter back to its
//!   base). When no layer has attempts left, the user request has failed: the client
//!   gives up. Against a server that is always down, a chain of attempts `a1, a2, …`
//!   sends `a1 × a2 × …` calls per request, one at a time.
//! - **Goodput** is served calls per second from the first tick that starts at or after
//!   the end of the trigger (the end of the last outage; 0 without one) to the horizon.
//! - **Recovery time.** With open-loop load and an outage: let `W` be the ticks in one
//!   second (at least one). A window of `W` ticks is good when its served calls are at
//!   least 95% of the requests that arrived in it. Recovery is at the first tick `s`, at
//!   or after the end of the trigger, from which every window of `W` ticks that starts at
//!   or after `s` and ends by the horizon is good; the recovery time is the start of `s`
//!   minus the end of the trigger. There is none ("never") when the last window before
//!   the horizon is not good, or when less than one window fits after the trigger.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use super::policy::{Policies, RetryPolicy, Strategy};
use super::protect::{BreakerState, BudgetState};
use super::run::{Lanes, Run, Totals, choose_served};
use super::scenario::{MAX_LAYERS, Scenario};
use super::server::ServerState;
use super::units::{Micros, SECOND};

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

/// Runs one strategy of a scenario that uses any feature beyond the closed crowd and a
/// single policy. Same contract as [`super::run::simulate`].
pub fn simulate(scenario: &Scenario, strategy: Strategy, seed: u64, with_lanes: bool) -> Run {
    simulate_with(
        scenario,
        &Policies::new(scenario, strategy),
        seed,
        with_lanes,
    )
}

/// [`simulate`] with the strategy's policies built beforehand (see
/// [`super::run::simulate_with`]).
pub fn simulate_with(scenario: &Scenario, policies: &Policies, seed: u64, with_lanes: bool) -> Run {
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
        let served = server.serve(admitted as u64, down) as usize;
        choose_served(&mut calls[..admitted], served, &mut rng);

        totals.calls += admitted as u64;
        totals.served += served as u64;
        totals.failed_fast += (n - admitted) as u64;
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
    }
}

/// The first tick that starts at or after the end of the trigger (0 without one), at
/// most the number of ticks.
pub fn after_trigger(scenario: &Scenario) -> usize {
    let tick = scenario.server.tick.max(1);
    let from = scenario.trigger_end().map_or(0, |end| end.div_ceil(tick));
    from.min(scenario.ticks()) as usize
}

/// The offered load, in thousandths of a request per second, over the same stretch as
/// goodput: from the end of the trigger to the horizon.
pub fn offered_milli(scenario: &Scenario) -> u64 {
    let tick = scenario.server.tick.max(1);
    let from = after_trigger(scenario) as u64 * tick;
    let requests: u64 = scenario
        .arrivals
        .iter()
        .map(|a| {
            let r = a.indices_in(from, scenario.horizon);
            r.end - r.start
        })
        .sum();
    let span = scenario.horizon.saturating_sub(from);
    if span == 0 {
        return 0;
    }
    (u128::from(requests) * 1_000_000_000 / u128::from(span)) as u64
}

/// Calls per second, in thousandths, over ticks of `tick` µs.
fn per_second_milli(per_tick: &[u32], tick: Micros) -> u64 {
    let span = per_tick.len() as u128 * u128::from(tick);
    if span == 0 {
        return 0;
    }
    let calls: u128 = per_tick.iter().map(|&c| u128::from(c)).sum();
    (calls * 1_000_000_000 / span) as u64
}

/// The recovery tick (see the module docs): the first tick `s >= from` from which every
/// window of `window` ticks up to the end is good, or `None`.
pub fn recovery_tick(served: &[u32], offered: &[u32], from: usize, window: usize) -> Option<usize> {
    let n = served.len().min(offered.len());
    if window == 0 || n < window || from > n - window {
        return None;
    }
    let sum = |v: &[u32]| v.iter().map(|&c| u64::from(c)).sum::<u64>();
    let mut s = sum(&served[n - window..n]);
    let mut o = sum(&offered[n - window..n]);
    let mut j = n - window;
    loop {
        if 20 * s < 19 * o {
            return (j < n - window).then_some(j + 1);
        }
        if j == from {
            return Some(from);
        }
        j -= 1;
        s = s + u64::from(served[j]) - u64::from(served[j + window]);
        o = o + u64::from(offered[j]) - u64::from(offered[j + window]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_is_the_first_tick_from_which_every_window_is_good() {
        let offered = [10; 10];
        // Bad windows until tick 4; good from window [5, 7).
        let served = [0, 0, 0, 0, 0, 10, 10, 10, 10, 10];
        assert_eq!(recovery_tick(&served, &offered, 0, 2), Some(5));
        assert_eq!(recovery_tick(&served, &offered, 7, 2), Some(7));
        // 95% exactly is good; below it is not.
        let served = [19, 19, 19, 19];
        assert_eq!(recovery_tick(&served, &[20; 4], 0, 2), Some(0));
        let served = [19, 18, 19, 19];
        assert_eq!(recovery_tick(&served, &[20; 4], 0, 2), Some(2));
        // The last window bad: never.
        assert_eq!(recovery_tick(&[10, 10, 0], &[10; 3], 0, 2), None);
        // Less than a window after the trigger: never.
        assert_eq!(recovery_tick(&[10; 3], &[10; 3], 2, 2), None);
    }

    #[test]
    fn per_second_rates_are_exact() {
        assert_eq!(per_second_milli(&[8, 8, 8], 100_000), 80_000);
        assert_eq!(per_second_milli(&[1, 0, 0], 100_000), 3_333);
        assert_eq!(per_second_milli(&[], 100_000), 0);
    }
}
