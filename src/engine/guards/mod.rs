//! The guards: everything a scenario may add to a crowd that backs off — open-loop
//! arrivals, Retry-After, a shared retry [`budget`], a circuit [`breaker`] (and layers of
//! retries, which live in the client state of [`super::client`]).
//!
//! The tick loop of [`super::run`] calls the hooks of [`Guards`] at fixed points; a
//! scenario without guards runs with [`Unguarded`], whose hooks do nothing and compile
//! away, so the plain crowd pays nothing for them. The rules, for anyone reproducing a
//! run:
//!
//! - **Arrivals.** Request `i` of a window of `arrivals` starts at
//!   `from + floor(i * 1e6 / rate)` µs while that is before `to`: evenly spaced, no
//!   randomness. With `process: poisson`, the gaps are exponential, drawn from a
//!   generator of the window's own, seeded from the run's ([`super::poisson`]). Each
//!   request is a new client with its own retry state; it joins the tick of its start
//!   after the retries already due there, window by window in the author's order.
//! - **Retry-After.** A rejection carries the hint when `when` says so: `always`, only
//!   in a tick in which the server is up (`overloaded`), or only during an outage
//!   (`down`). A client that honours it waits `max(policy wait, hint)`; the policy's wait
//!   is drawn as usual (decorrelated jitter remembers the drawn wait, not the hint). A
//!   call that failed fast never reached the server and carries no hint. The server's
//!   pushback comes first: "don't retry" ends the request, and "retry after D" is
//!   waited exactly, with no wait drawn ([`super::run`]).
//! - **Failed fast.** A call refused by the breaker counts as a failure for its client:
//!   it counts as an attempt, the client waits and retries per policy, and its budget
//!   asks as for any failure. It is not a call the server saw (`calls`), and goes into
//!   `failed_fast` instead. With `retry_when_open: false` (the breaker outside the retry
//!   loop), a call that failed fast ends its request: the client gives up at once.
//! - **Throttling** ([`throttle`]): of the calls the breaker admits, each may be refused
//!   locally; a refused call is moved behind the sent ones, both keeping their order.
//! - **Order in a tick.** The breaker admits calls from the front of the tick (all when
//!   closed), throttling refuses some of them, and the server serves a random choice of
//!   the sent ones (with a queue, see [`super::queue`]). Then the breaker records the
//!   tick's calls answered in time and its failures at the server (rejected or timed
//!   out), throttling its accepts, and the budget sees new requests and the calls
//!   answered in time; then each failed call in turn: rejected ones first, then
//!   throttled ones, then failed-fast ones, then the timeouts, each counted as a failure
//!   before its client asks for a retry. A client gives up at its attempt limit (or told
//!   not to retry); else it draws its wait (or waits the server's "retry after"), gives up
//!   past its deadline, gives up (`denied`) when the budget refuses, and otherwise
//!   retries (or is still retrying, if the retry falls past the horizon).
//! - **Layers.** `layers` is a chain, top first; each layer has its attempts and its
//!   policy. The bottom layer's calls reach the server. When a bottom call fails, the
//!   lowest layer with attempts left retries after its own wait; the layers below it
//!   start a fresh sequence (their attempts back to 1, decorrelated jitter back to its
//!   base). When no layer has attempts left, the user request has failed: the client
//!   gives up. Against a server that is always down, a chain of attempts `a1, a2, …`
//!   sends `a1 × a2 × …` calls per request, one at a time.
//!
//! Goodput and the recovery time of open-loop load are defined in [`super::recovery`].

pub mod breaker;
pub mod budget;
pub mod throttle;

use super::buckets::{Bucket, Buckets};
use super::client::{Chain, Client};
use super::outcome::Totals;
use super::poisson::Stream;
use super::recovery::{after_trigger, per_second_milli, recovery_tick};
use super::scenario::{Arrivals, Process, RetryAfter, Scenario};
use super::units::{Micros, SECOND};
use crate::engine::rng::Pcg64;
use breaker::BreakerState;
use budget::BudgetState;
use throttle::ThrottleState;

/// The hooks of the tick loop. Each has the meaning it has without guards as its
/// default, so that [`Unguarded`] is all defaults.
pub trait Guards {
    /// Whether these are no guards at all ([`Unguarded`]): every hook does nothing.
    const NONE: bool = false;

    /// The run starts with `rng`, which has drawn nothing yet: seeds the generators of
    /// the Poisson windows of arrivals from it ([`super::poisson`]).
    #[inline(always)]
    fn begin(&mut self, _rng: &mut Pcg64) {}

    /// Adds the new requests of tick `k`, which spans `[start, end)`, to its calls.
    #[inline(always)]
    fn arrive<C: Client>(
        &mut self,
        _k: usize,
        _span: (Micros, Micros),
        _chain: &Chain,
        _calls: &mut Bucket<C>,
        _buckets: &mut Buckets<C>,
        _totals: &mut Totals,
    ) {
    }

    /// How many of the tick's `calls`, from the front, go to the server.
    #[inline(always)]
    fn admit(&mut self, _start: Micros, calls: usize) -> usize {
        calls
    }

    /// Of the first `admitted` of the tick's `calls`, which are sent: moves the ones
    /// refused locally (throttled) to the back of that range and returns how many are
    /// sent.
    #[inline(always)]
    fn throttle<C: Client>(
        &mut self,
        _calls: &mut Bucket<C>,
        admitted: usize,
        _rng: &mut Pcg64,
    ) -> usize {
        admitted
    }

    /// The tick that ends at `end` is decided. `calls` holds its calls, the `served` new
    /// ones that were served first; `answered` holds the queued calls answered in time
    /// in it (a retry budget credits those and the `served`); `useful` counts the
    /// clients answered in time, `accepted` the calls (the same but with hedging, whose
    /// copies answered after another are calls accepted for nobody), and `failed` the
    /// calls that failed at the server (rejected or timed out).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn decided<C: Client>(
        &mut self,
        _k: usize,
        _end: Micros,
        _calls: &Bucket<C>,
        _served: usize,
        _answered: &[C],
        _useful: usize,
        _accepted: usize,
        _failed: usize,
    ) {
    }

    /// Tick `k` starts with `requests` new requests, before its hedges ask a retry
    /// budget ([`super::hedge`]); the tick's [`Guards::decided`] would start it
    /// otherwise.
    #[inline(always)]
    fn start(&mut self, _k: usize, _requests: u64) {}

    /// The Retry-After hint of the tick's rejections (0 for none).
    #[inline(always)]
    fn hint(&self, _down: bool) -> Micros {
        0
    }

    /// A failed call (rejected or failed fast), before its client asks to retry.
    #[inline(always)]
    fn failure(&mut self) {}

    /// Whether a call that failed fast may be retried at all.
    #[inline(always)]
    fn retries_failed_fast(&self) -> bool {
        true
    }

    /// Asks for one retry: takes what it costs and says yes, or says no.
    #[inline(always)]
    fn try_retry(&mut self) -> bool {
        true
    }

    /// Adds what the guards measured over the run to its totals.
    #[inline(always)]
    fn finish(&self, _scenario: &Scenario, _totals: &mut Totals) {}
}

/// No guards: the closed crowd with a single policy.
#[derive(Clone, Copy, Debug)]
pub struct Unguarded;

impl Guards for Unguarded {
    const NONE: bool = true;
}

/// Whichever guards a scenario has, each present or not.
#[derive(Debug)]
pub struct Guarded<'a> {
    arrivals: &'a [Arrivals],
    /// Each window's requests as a Poisson process, in this run; `None` for one of
    /// even spacing (all `None` until [`Guards::begin`]).
    poisson: Vec<Option<Stream>>,
    /// Served calls per tick, with open-loop load.
    goodput: Vec<u32>,
    /// New requests per tick, with open-loop load.
    offered: Vec<u32>,
    budget: Option<BudgetState>,
    breaker: Option<BreakerState>,
    throttle: Option<ThrottleState>,
    retry_fast: bool,
    hint: Option<RetryAfter>,
    tick: Micros,
}

impl Guarded<'_> {
    /// The guards of `scenario`, at the start of a run.
    pub fn new(scenario: &Scenario) -> Guarded<'_> {
        let tick = scenario.server.tick;
        let ticks = scenario.ticks() as usize;
        let open = !scenario.arrivals.is_empty();
        let per_tick = if open { vec![0u32; ticks] } else { Vec::new() };
        Guarded {
            arrivals: &scenario.arrivals,
            poisson: Vec::new(),
            goodput: per_tick.clone(),
            offered: per_tick,
            budget: scenario
                .retry
                .budget
                .as_ref()
                .map(|b| BudgetState::new(b, tick, ticks as u64)),
            breaker: scenario.retry.breaker.map(BreakerState::new),
            throttle: scenario
                .retry
                .throttle
                .as_ref()
                .map(|t| ThrottleState::new(t, tick)),
            retry_fast: scenario.retry.breaker.is_none_or(|b| b.retry_when_open),
            hint: scenario
                .server
                .retry_after
                .filter(|_| scenario.retry.honor_retry_after),
            tick,
        }
    }
}

// The hooks called once per call or tick are always inlined: the browser's module is
// built for size, where each would otherwise stay a call in the engine's hottest loop.
impl Guards for Guarded<'_> {
    fn begin(&mut self, rng: &mut Pcg64) {
        if self.arrivals.iter().any(|a| a.process == Process::Poisson) {
            self.poisson = Stream::of_run(self.arrivals, rng);
        }
    }

    fn arrive<C: Client>(
        &mut self,
        k: usize,
        (start, end): (Micros, Micros),
        chain: &Chain,
        calls: &mut Bucket<C>,
        buckets: &mut Buckets<C>,
        totals: &mut Totals,
    ) {
        for (i, window) in self.arrivals.iter().enumerate() {
            let count = match self.poisson.get_mut(i).and_then(Option::as_mut) {
                Some(stream) => {
                    let mut count = 0;
                    while let Some(t) = stream.next_before(end) {
                        buckets.push_to(calls, C::fresh(chain, t));
                        count += 1;
                    }
                    count
                }
                None => {
                    let new = window.indices_in(start, end);
                    let count = new.end - new.start;
                    for t in window.times_of(new) {
                        buckets.push_to(calls, C::fresh(chain, t));
                    }
                    count
                }
            };
            totals.arrivals += count;
            if let Some(offered) = self.offered.get_mut(k) {
                *offered += count as u32;
            }
        }
    }

    #[inline(always)]
    fn admit(&mut self, start: Micros, calls: usize) -> usize {
        match self.breaker.as_mut() {
            Some(b) => b.admit(start, calls as u64) as usize,
            None => calls,
        }
    }

    fn throttle<C: Client>(
        &mut self,
        calls: &mut Bucket<C>,
        admitted: usize,
        rng: &mut Pcg64,
    ) -> usize {
        match self.throttle.as_mut() {
            Some(t) => calls.partition(admitted, t.decide(admitted, rng)),
            None => admitted,
        }
    }

    fn decided<C: Client>(
        &mut self,
        k: usize,
        end: Micros,
        calls: &Bucket<C>,
        served: usize,
        answered: &[C],
        useful: usize,
        accepted: usize,
        failed: usize,
    ) {
        if let Some(goodput) = self.goodput.get_mut(k) {
            *goodput = useful as u32;
        }
        if let Some(b) = self.breaker.as_mut() {
            b.record(end, accepted as u64, failed as u64);
        }
        if let Some(t) = self.throttle.as_mut() {
            t.end_tick(k, accepted as u64);
        }
        if let Some(b) = self.budget.as_mut() {
            let requests = calls.iter().filter(|c| c.calls() == 1).count();
            b.begin_tick(k, requests as u64);
            for call in calls.front(served).flatten().chain(answered) {
                b.success(call.calls() > 1);
            }
        }
    }

    fn start(&mut self, k: usize, requests: u64) {
        if let Some(b) = self.budget.as_mut() {
            b.begin_tick(k, requests);
        }
    }

    #[inline(always)]
    fn hint(&self, down: bool) -> Micros {
        self.hint.filter(|h| h.applies(down)).map_or(0, |h| h.hint)
    }

    #[inline(always)]
    fn failure(&mut self) {
        if let Some(b) = self.budget.as_mut() {
            b.failure();
        }
    }

    #[inline(always)]
    fn retries_failed_fast(&self) -> bool {
        self.retry_fast
    }

    #[inline(always)]
    fn try_retry(&mut self) -> bool {
        self.budget.as_mut().is_none_or(|b| b.try_retry())
    }

    fn finish(&self, scenario: &Scenario, totals: &mut Totals) {
        if self.arrivals.is_empty() {
            return;
        }
        let from = after_trigger(scenario);
        totals.goodput_milli = per_second_milli(&self.goodput[from..], self.tick);
        let window = SECOND.div_ceil(self.tick).max(1) as usize;
        totals.recovery = scenario.trigger_end().and_then(|end| {
            recovery_tick(&self.goodput, &self.offered, from, window)
                .map(|s| s as u64 * self.tick - end)
        });
    }
}
