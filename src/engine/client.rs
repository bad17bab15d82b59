//! What the run keeps of each client whose next call is pending, in as few bytes as the
//! scenario allows, and how that state moves on after a failed call.
//!
//! Times are 32-bit microseconds: the horizon, cap and spread are at most an hour
//! ([`super::scenario::MAX_TIME`], 3.6e9 µs, below 2³² ≈ 4.29e9), so a clock below the
//! horizon fits, and so does a wait up to the cap. Counts of calls are 32-bit too: a
//! client makes at most one call per tick, and a horizon holds at most
//! [`super::scenario::MAX_TICKS`] ticks.
//!
//! A single policy needs the clock and the count of calls (8 bytes); the start of the
//! client's first call only with a `deadline`, and decorrelated jitter's previous wait
//! only for that strategy, each 4 bytes more. A chain of layers keeps, per layer, its
//! attempts and its previous wait; with any other policy than decorrelated jitter, the
//! field of the previous wait holds instead the count of attempts at which the layer's
//! backoff last started over, 0 until the server's pushback "retry after" starts it
//! over ([`Client::restart`]): the wait after failure `a` is counted from there. Only
//! the layered state restarts: a scenario with "retry after" runs with it, one layer or
//! more. The loop of [`super::run`] is generic over the kind of state, chosen once per
//! scenario and strategy.
//!
//! A count of calls takes 20 bits: a client makes at most one call per tick, and a
//! horizon holds at most [`super::scenario::MAX_TICKS`] ticks, below 2²⁰. The 12 bits
//! above it hold the replica that saw the client's last call, from 1 (0 before any
//! did), for a fleet's retry elsewhere ([`super::fleet`]); one server leaves them 0.

use crate::engine::rng::Pcg64;

use super::policy::{Kind, Policies, RetryPolicy};
use super::scenario::{MAX_LAYERS, Scenario};
use super::units::Micros;

/// The retry layers of one lane: a single one without `layers`.
#[derive(Debug)]
pub struct Chain<'a> {
    /// The policy of each layer, top first.
    policies: &'a [RetryPolicy],
    /// The attempts of each layer, counting the first.
    max: [u32; MAX_LAYERS],
    /// How many layers.
    len: usize,
    /// Each layer's first previous wait: its base with decorrelated jitter; 0 for any
    /// other policy, whose previous wait in the layered state holds instead the count
    /// of attempts at which its backoff last started over (see [`Client::restart`]).
    bases: [u32; MAX_LAYERS],
    /// Per layer, what of the previous wait is that count: all of it (`u32::MAX`), or
    /// nothing (0) with decorrelated jitter.
    counts: [u32; MAX_LAYERS],
}

impl Chain<'_> {
    /// The chain of `scenario` with the policies of one of its strategies.
    pub fn new<'a>(scenario: &Scenario, policies: &'a Policies) -> Chain<'a> {
        let mut max = [0; MAX_LAYERS];
        let mut bases = [0; MAX_LAYERS];
        let mut counts = [0; MAX_LAYERS];
        let mut len = scenario.layers.len();
        if scenario.layers.is_empty() {
            max[0] = scenario.retry.max_attempts.unwrap_or(u32::MAX);
            // The base is at most the cap, at most an hour: it fits.
            bases[0] = scenario.retry.base as u32;
            len = 1;
        }
        for (i, layer) in scenario.layers.iter().enumerate() {
            max[i] = layer.attempts;
            bases[i] = layer.base as u32;
        }
        for (i, policy) in policies.layers.iter().enumerate().take(len) {
            if policy.kind() != Kind::DecorrelatedJitter {
                bases[i] = 0;
                counts[i] = u32::MAX;
            }
        }
        Chain {
            policies: &policies.layers,
            max,
            len,
            bases,
            counts,
        }
    }

    /// The bottom layer: the one whose calls reach the server.
    pub fn bottom(&self) -> usize {
        self.len - 1
    }

    /// Whether any layer's waits depend on the previous wait (decorrelated jitter).
    pub fn remembers_waits(&self) -> bool {
        self.policies
            .iter()
            .any(|p| p.kind() == Kind::DecorrelatedJitter)
    }
}

/// How many low bits of a client's count of calls hold the count; the bits above hold
/// the replica of its last call.
const CALL_BITS: u32 = 20;
/// The count's bits.
const CALL_MASK: u32 = (1 << CALL_BITS) - 1;
const _: () = assert!(super::scenario::MAX_TICKS < 1 << CALL_BITS);
const _: () = assert!(super::fleet::MAX_REPLICAS < 1 << (32 - CALL_BITS));

/// A field that a kind of client state may or may not keep: `u32` when it does, `()`
/// when it does not (reading it then gives 0, and writing it is a no-op).
pub trait Slot: Copy + std::fmt::Debug {
    /// A slot holding `v` (or nothing).
    fn hold(v: u32) -> Self;
    /// What it holds (0 for nothing).
    fn get(self) -> u32;
}

impl Slot for u32 {
    #[inline(always)]
    fn hold(v: u32) -> u32 {
        v
    }
    #[inline(always)]
    fn get(self) -> u32 {
        self
    }
}

impl Slot for () {
    #[inline(always)]
    fn hold(_: u32) {}
    #[inline(always)]
    fn get(self) -> u32 {
        0
    }
}

/// The state of a client whose next call is pending.
pub trait Client: Copy + std::fmt::Debug {
    /// A new client whose first call is at `t`.
    fn fresh(chain: &Chain, t: Micros) -> Self;
    /// Its clock at this call, in µs.
    fn t(&self) -> Micros;
    /// When it made its first call (0 when the kind does not keep it: no deadline).
    fn first(&self) -> Micros;
    /// Calls made so far, this one included.
    fn calls(&self) -> u32;
    /// The replica that saw its last call, from 1; 0 before any did.
    fn replica(&self) -> u32;
    /// Records that replica `replica` (from 1) saw this call.
    fn set_replica(&mut self, replica: u32);
    /// The layer that retries after this call failed: the lowest with attempts left,
    /// or `None` when every layer is out of attempts.
    fn layer_to_retry(&self, chain: &Chain) -> Option<usize>;
    /// Draws the wait before a retry at `layer`.
    fn wait(&mut self, chain: &Chain, layer: usize, rng: &mut Pcg64) -> Micros;
    /// Counts a retry at `layer`, made at `t`: the layers below start afresh.
    fn advance(&mut self, chain: &Chain, layer: usize, t: Micros);
    /// Starts `layer`'s backoff over, in place of drawing its wait (the server's
    /// pushback "retry after"): the wait after its next failure is drawn as its first
    /// (`a = 0`; decorrelated jitter's previous wait its base). Only the layered state
    /// does: every scenario whose pushback has `after` runs with it.
    fn restart(&mut self, chain: &Chain, layer: usize);

    /// Whether the state carries a hedged request ([`Hedged`]): only then are the
    /// methods below more than no-ops, and the run looks at them only then.
    const HEDGED: bool = false;
    /// Its request, from 1, in the run's records of [`super::hedge`] (0 before it has
    /// one).
    #[inline(always)]
    fn request(&self) -> u32 {
        0
    }
    /// Sets its request.
    #[inline(always)]
    fn set_request(&mut self, _request: u32) {}
    /// Its tag of [`super::hedge`]: whether it is a timer or a hedge, and the timer's
    /// generation.
    #[inline(always)]
    fn tag(&self) -> u32 {
        0
    }
    /// Sets its tag.
    #[inline(always)]
    fn set_tag(&mut self, _tag: u32) {}
    /// Moves its clock to `t`: a copy of a hedged call, made at `t`.
    #[inline(always)]
    fn retime(&mut self, _t: Micros) {}
    /// Whether it is a hedge: a copy of a call after the first.
    #[inline(always)]
    fn is_hedge(&self) -> bool {
        false
    }
}

/// A client with a single policy: its clock and calls, and what the scenario needs
/// besides: `F` keeps the first call's time (with a deadline), `P` decorrelated jitter's
/// previous wait.
#[derive(Clone, Copy, Debug)]
pub struct Single<F, P> {
    t: u32,
    calls: u32,
    first: F,
    prev: P,
}

impl<F: Slot, P: Slot> Client for Single<F, P> {
    #[inline(always)]
    fn fresh(chain: &Chain, t: Micros) -> Self {
        Single {
            t: t as u32,
            calls: 1,
            first: F::hold(t as u32),
            prev: P::hold(chain.bases[0]),
        }
    }
    #[inline(always)]
    fn t(&self) -> Micros {
        u64::from(self.t)
    }
    #[inline(always)]
    fn first(&self) -> Micros {
        u64::from(self.first.get())
    }
    #[inline(always)]
    fn calls(&self) -> u32 {
        self.calls & CALL_MASK
    }
    #[inline(always)]
    fn replica(&self) -> u32 {
        self.calls >> CALL_BITS
    }
    #[inline(always)]
    fn set_replica(&mut self, replica: u32) {
        self.calls = self.calls & CALL_MASK | replica << CALL_BITS;
    }
    #[inline(always)]
    fn layer_to_retry(&self, chain: &Chain) -> Option<usize> {
        (self.calls() < chain.max[0]).then_some(0)
    }
    #[inline(always)]
    fn wait(&mut self, chain: &Chain, _: usize, rng: &mut Pcg64) -> Micros {
        let mut prev = self.prev.get();
        let wait = chain.policies[0].wait(self.calls() - 1, &mut prev, rng);
        self.prev = P::hold(prev);
        wait
    }
    #[inline(always)]
    fn advance(&mut self, _: &Chain, _: usize, t: Micros) {
        self.t = t as u32;
        self.calls += 1;
    }
    /// Never called: a scenario whose server says "retry after" runs with the layered
    /// state ([`super::run::simulate_within`]), so that this one's waits take nothing
    /// more per call.
    #[inline(always)]
    fn restart(&mut self, _: &Chain, _: usize) {
        debug_assert!(
            false,
            "a scenario with \"retry after\" runs with the layered state"
        );
    }
}

/// A client with a chain of layers: its attempts and previous wait at every layer.
#[derive(Clone, Copy, Debug)]
pub struct Layered {
    t: u32,
    first: u32,
    calls: u32,
    /// Attempts so far in the current sequence of each layer, top first.
    attempts: [u32; MAX_LAYERS],
    /// Per layer, decorrelated jitter's previous wait; with any other policy, the
    /// attempts at which its backoff last started over (0 for never).
    prev: [u32; MAX_LAYERS],
}

impl Client for Layered {
    fn fresh(chain: &Chain, t: Micros) -> Self {
        Layered {
            t: t as u32,
            first: t as u32,
            calls: 1,
            attempts: [1; MAX_LAYERS],
            prev: chain.bases,
        }
    }
    fn t(&self) -> Micros {
        u64::from(self.t)
    }
    fn first(&self) -> Micros {
        u64::from(self.first)
    }
    fn calls(&self) -> u32 {
        self.calls & CALL_MASK
    }
    fn replica(&self) -> u32 {
        self.calls >> CALL_BITS
    }
    fn set_replica(&mut self, replica: u32) {
        self.calls = self.calls & CALL_MASK | replica << CALL_BITS;
    }
    fn layer_to_retry(&self, chain: &Chain) -> Option<usize> {
        (0..chain.len)
            .rev()
            .find(|&layer| self.attempts[layer] < chain.max[layer])
    }
    fn wait(&mut self, chain: &Chain, layer: usize, rng: &mut Pcg64) -> Micros {
        let a = self.attempts[layer] - 1 - (self.prev[layer] & chain.counts[layer]);
        chain.policies[layer].wait(a, &mut self.prev[layer], rng)
    }
    fn advance(&mut self, chain: &Chain, layer: usize, t: Micros) {
        self.t = t as u32;
        self.calls += 1;
        self.attempts[layer] += 1;
        for below in layer + 1..chain.len {
            self.attempts[below] = 1;
            self.prev[below] = chain.bases[below];
        }
    }
    fn restart(&mut self, chain: &Chain, layer: usize) {
        self.prev[layer] = match chain.counts[layer] {
            0 => chain.bases[layer],
            _ => self.attempts[layer],
        };
    }
}

/// The layered state with a hedged request ([`super::hedge`]): the request's record
/// and the copy's tag. A hedge is a call after the first for budgets: it counts one
/// call more than the client has made.
#[derive(Clone, Copy, Debug)]
pub struct Hedged {
    inner: Layered,
    request: u32,
    tag: u32,
}

impl Client for Hedged {
    const HEDGED: bool = true;
    fn fresh(chain: &Chain, t: Micros) -> Self {
        Hedged {
            inner: Layered::fresh(chain, t),
            request: 0,
            tag: 0,
        }
    }
    fn t(&self) -> Micros {
        self.inner.t()
    }
    fn first(&self) -> Micros {
        self.inner.first()
    }
    fn calls(&self) -> u32 {
        self.inner.calls() + u32::from(self.is_hedge())
    }
    fn replica(&self) -> u32 {
        self.inner.replica()
    }
    fn set_replica(&mut self, replica: u32) {
        self.inner.set_replica(replica);
    }
    fn layer_to_retry(&self, chain: &Chain) -> Option<usize> {
        self.inner.layer_to_retry(chain)
    }
    fn wait(&mut self, chain: &Chain, layer: usize, rng: &mut Pcg64) -> Micros {
        self.inner.wait(chain, layer, rng)
    }
    fn advance(&mut self, chain: &Chain, layer: usize, t: Micros) {
        self.inner.advance(chain, layer, t);
    }
    fn restart(&mut self, chain: &Chain, layer: usize) {
        self.inner.restart(chain, layer);
    }
    fn request(&self) -> u32 {
        self.request
    }
    fn set_request(&mut self, request: u32) {
        self.request = request;
    }
    fn tag(&self) -> u32 {
        self.tag
    }
    fn set_tag(&mut self, tag: u32) {
        self.tag = tag;
    }
    fn retime(&mut self, t: Micros) {
        self.inner.t = t as u32;
    }
    fn is_hedge(&self) -> bool {
        self.tag & super::hedge::HEDGE != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::parse_scenario;
    use crate::engine::policy::Strategy;
    use rand::SeedableRng;

    /// A client's waits after three failures; the fourth starts its backoff over in
    /// place of a wait (as the server's "retry after" does); then two more.
    fn waits_around_a_restart<C: Client>(strategy: Strategy, yaml: &str) -> (Vec<Micros>, C) {
        let scenario = parse_scenario(yaml, Some("t")).unwrap();
        let policies = Policies::new(&scenario, strategy);
        let chain = Chain::new(&scenario, &policies);
        let mut rng = Pcg64::seed_from_u64(1);
        let mut client = C::fresh(&chain, 0);
        let mut waits = Vec::new();
        for i in 0..6 {
            let layer = client.layer_to_retry(&chain).unwrap();
            match i {
                3 => client.restart(&chain, layer),
                _ => waits.push(client.wait(&chain, layer, &mut rng)),
            }
            client.advance(&chain, layer, 0);
        }
        (waits, client)
    }

    #[test]
    fn a_restart_draws_the_next_wait_as_the_first() {
        // One layer or two: the layered state restarts the layer that retries.
        for yaml in [
            "clients: 1\nretry: {base: 100ms, cap: 10s}\nlayers: [{attempts: 9}]\n",
            "clients: 1\nretry: {base: 100ms, cap: 10s}\nlayers: [{attempts: 1}, {attempts: 9}]\n",
        ] {
            // Exponential: 100, 200, 400 ms, then 100 and 200 ms again.
            let (waits, _) = waits_around_a_restart::<Layered>(Strategy::Exponential, yaml);
            assert_eq!(waits, [100_000, 200_000, 400_000, 100_000, 200_000]);
            // Decorrelated jitter: after the restart, its previous wait is the base
            // again, so its next wait is drawn in [base, 3 · base].
            let (waits, _) = waits_around_a_restart::<Layered>(Strategy::DecorrelatedJitter, yaml);
            assert!((100_000..=300_000).contains(&waits[3]), "{waits:?}");
        }
    }

    #[test]
    fn a_plain_client_takes_eight_bytes() {
        assert_eq!(size_of::<Single<(), ()>>(), 8);
        assert_eq!(size_of::<Single<u32, ()>>(), 12);
        assert_eq!(size_of::<Single<u32, u32>>(), 16);
        assert_eq!(size_of::<Hedged>(), 52);
    }
}
