//! One run: a crowd of clients against the server, tick by tick, with one seeded generator.
//!
//! Each tick owns a bucket of the calls that the server sees in it ([`super::buckets`]).
//! A call carries the whole state of its client ([`super::client`]), so a tick is read
//! front to back and a retry is appended to the bucket of the tick that will see it; no
//! client is looked up by index.
//!
//! Order of random draws, for anyone reproducing a run: first the start of every client
//! in client order (only with `spread`), then per tick: throttling's draw for each call
//! past the breaker (only while it can refuse, see [`super::guards::throttle`]), the
//! choice of served calls (with a queue instead: the order of calls of equal times, see
//! [`super::queue`]), then the jittered wait of each failed call in the order of
//! [`super::queue`]: rejected, throttled, failed fast, timed out. The other guards
//! add no draws.
//!
//! What a rejected client does, in this order:
//! 1. if it has made `max_attempts` calls (every layer is out of attempts), or it
//!    retries a rejection only when the rejection carries a Retry-After hint (urllib3's
//!    rule, see [`super::library`]) and this one carries none, or the rejection carries
//!    the server's pushback "don't retry" (`server.pushback` without `after`, gRPC A6's
//!    `grpc-retry-pushback-ms` of a negative value; `when` as for Retry-After, read
//!    against the replica that turned the call away in a fleet), it gives up (no wait is
//!    drawn). "Don't retry" ends the request in every layer: a layer told not to retry
//!    passes that on to the layer above instead of failing as usual, so no layer
//!    retries; a client so ended that had attempts left in some layer counts in
//!    `pushed_back`, and in `gave_up` as every client that gives up. Pushback comes
//!    before the Retry-After hint: a rejection that carries both is not retried. It
//!    counts as a failure for a retry budget and a breaker as any rejection does;
//! 2. it draws its wait and computes `t_next = t + wait` on its own clock (at least the
//!    Retry-After hint, when it honours one). A rejection that carries the server's
//!    pushback "retry after D" instead (`server.pushback.after`, A6's
//!    `grpc-retry-pushback-ms` of a value of 0 or more; `when` as for "don't retry")
//!    draws no wait when the layer that retries is the bottom one (the only layer
//!    without `layers`), the retry loop of the client that called the server, which
//!    reads the pushback: `t_next = t + D` exactly, whatever the policy's wait and a
//!    Retry-After hint on the same rejection, and that layer's backoff starts over:
//!    its next wait is drawn as its first was (`a = 0`, decorrelated jitter's
//!    previous wait `base` again), and counts on from there, as A6 resets it to
//!    `initialBackoff`. A layer above it, retrying once the bottom one is out of
//!    attempts, sees a failed call: it draws its own wait, and no Retry-After hint
//!    holds it (pushback comes first). A client that retries only on a hint retries
//!    on a "retry after";
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

use crate::engine::rng::Pcg64;
use rand::{RngExt, SeedableRng};

use super::buckets::Buckets;
use super::client::{Chain, Client, Hedged, Layered, Single};
use super::fleet::FleetState;
use super::guards::{Guarded, Guards, Unguarded};
use super::hedge::{Failed, Hedges};
use super::outcome::{Lanes, Run, Totals};
use super::policy::{Policies, Strategy};
use super::queue::{Answers, Decided, Queue};
use super::scenario::{Pushback, Scenario};
use super::units::Micros;
use super::work::Work;

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
/// A library strategy runs the scenario with the library's `retry:`
/// ([`super::library`]).
pub fn simulate_with(scenario: &Scenario, policies: &Policies, seed: u64, with_lanes: bool) -> Run {
    simulate_within(scenario, policies, seed, with_lanes, None)
        .expect("a run without a limit of work always ends")
}

/// [`simulate_with`], counting its steps against `work` when given
/// ([`super::work`]): `None` when the steps of every run sharing `work` passed its
/// limit while this one ran, which then stopped where it was.
pub fn simulate_within(
    scenario: &Scenario,
    policies: &Policies,
    seed: u64,
    with_lanes: bool,
    work: Option<&Work>,
) -> Option<Run> {
    let scenario = policies.lane.as_deref().unwrap_or(scenario);
    let chain = Chain::new(scenario, policies);
    let run = Setup {
        scenario,
        chain: &chain,
        seed,
        with_lanes,
        work,
    };
    // The browser's module, which must stay small, carries two copies of the loop: every
    // guard with the single state of the fewest fields (no deadline, no previous wait),
    // and every guard and the queue with the layered state. With no guard turned on
    // they give the same runs as the plain loop, and with one layer the layered state
    // those of the single one; the single state, 8 bytes a call against the hedged
    // layered state's 52, makes the crowds without layers, a deadline or decorrelated jitter
    // (the open-loop ones above all) run much faster. Measured in Node, with the single
    // state of every option (16 bytes) instead: the playground's metastable preset 151
    // against 139 ms, while a library's lanes with a deadline took 9.7 against 12.7 ms.
    // The layered state is the one that can start a layer's backoff over, as the
    // server's "retry after" does ([`Client::restart`]): the single one's waits take
    // nothing more per call for it.
    // A hedged scenario's calls carry their request ([`Hedged`]): the browser's layered
    // loop is that one, so that the module carries no third copy.
    let queued = scenario.server.queued();
    let hedged = scenario.retry.hedging.is_some();
    let single =
        scenario.layers.is_empty() && scenario.server.pushback.is_none_or(|p| p.after.is_none());
    if cfg!(target_arch = "wasm32") {
        let guards = Guarded::new(scenario);
        let fewest = scenario.retry.deadline.is_none() && !chain.remembers_waits();
        if single && !queued && !hedged && fewest {
            return run.go::<Single<(), ()>, _, false>(guards);
        }
        return run.go::<Hedged, _, true>(guards);
    }
    if hedged {
        return run.go::<Hedged, _, true>(Guarded::new(scenario));
    }
    if queued {
        let guards = Guarded::new(scenario);
        if single {
            return run.go::<Single<u32, u32>, _, true>(guards);
        }
        return run.go::<Layered, _, true>(guards);
    }
    if scenario.has_guards() {
        let guards = Guarded::new(scenario);
        if !single {
            return run.go::<Layered, _, false>(guards);
        }
        // The single state with only the fields the scenario needs, as without guards:
        // the open-loop crowds of the articles (arrivals are a guard's) carry half the
        // bytes per call (the playground's metastable preset ran 14% faster).
        return run.go_single(guards);
    }
    run.go_single(Unguarded)
}

/// What one run is given.
struct Setup<'a> {
    scenario: &'a Scenario,
    chain: &'a Chain<'a>,
    seed: u64,
    with_lanes: bool,
    work: Option<&'a Work>,
}

impl Setup<'_> {
    /// [`Setup::go`] with the single state of only the fields the scenario needs: the
    /// first call's time with a deadline, the previous wait with decorrelated jitter.
    fn go_single<G: Guards>(self, guards: G) -> Option<Run> {
        match (
            self.scenario.retry.deadline.is_some(),
            self.chain.remembers_waits(),
        ) {
            (false, false) => self.go::<Single<(), ()>, _, false>(guards),
            (true, false) => self.go::<Single<u32, ()>, _, false>(guards),
            (false, true) => self.go::<Single<(), u32>, _, false>(guards),
            (true, true) => self.go::<Single<u32, u32>, _, false>(guards),
        }
    }

    /// The tick loop, for clients of kind `C` with guards `G`, and with the code of the
    /// queue when `QUEUE` (without it, a scenario's queue is not looked at). Never
    /// inlined: each
    /// instantiation is a function of its own, so that adding one does not change how
    /// the others are laid out (with every copy inlined, the plain crowd measured a few
    /// percent slower).
    #[inline(never)]
    fn go<C: Client, G: Guards, const QUEUE: bool>(self, mut guards: G) -> Option<Run> {
        let Setup {
            scenario,
            chain,
            seed,
            with_lanes,
            work,
        } = self;
        let mut rng = Pcg64::seed_from_u64(seed);
        guards.begin(&mut rng);
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
        let with_queue = QUEUE && scenario.server.queued();
        // One server's queue; a fleet's replicas have theirs.
        let mut queue: Option<Queue<C>> = match scenario.server.fleet {
            None if with_queue => Queue::of(&scenario.server, scenario),
            _ => None,
        };
        let with_throttle = scenario.retry.throttle.is_some();
        // With hedging: the run's requests ([`super::hedge`]).
        let mut hedges: Option<Hedges<C>> = match scenario.retry.hedging {
            Some(h) if C::HEDGED => Some(Hedges::new(h, tick, ticks, deadline)),
            _ => None,
        };
        let hedged = hedges.is_some();
        let per_tick = |on: bool| if on { vec![0; ticks] } else { Vec::new() };
        let mut lanes = with_lanes.then(|| Lanes {
            served: vec![0; ticks],
            rejected: vec![0; ticks],
            failed_fast: per_tick(with_breaker),
            wasted: per_tick(with_queue || hedged),
            queued: per_tick(with_queue),
            throttled: per_tick(with_throttle),
            hedges: per_tick(hedged),
            capacity: match scenario.server.cache {
                Some(_) => vec![0; ticks],
                None => Vec::new(),
            },
            replicas: Vec::new(),
        });
        // A fleet's replicas have their servers (and caches) of their own.
        let one = match scenario.server.fleet {
            None => ticks,
            Some(_) => 1,
        };
        let mut server = super::server::ServerState::for_run(&scenario.server, one);
        // A server of several replicas ([`super::fleet`]): each replica's server.
        let replicas =
            (scenario.server.fleet.as_ref()).map_or_else(Vec::new, |f| f.servers(&scenario.server));
        let mut fleet = (scenario.server.fleet.as_ref())
            .map(|f| FleetState::new(f, &replicas, scenario, with_queue, with_lanes));
        let mut totals = Totals::default();
        let mut last_finish: Option<usize> = None;
        // With a queue: the latencies of the run, and per tick the queued calls
        // answered in time and the clients that time out.
        let mut answers: Answers<C> = Answers::default();
        // With a fleet and Retry-After or pushback: each replica's hint in the tick, and
        // whether its rejections say "don't retry".
        let pushback = scenario.server.pushback;
        let per_replica = scenario.server.retry_after.is_some() || pushback.is_some();
        let mut hints: Vec<Micros> = Vec::new();
        let mut pushes: Vec<bool> = Vec::new();
        // With a queue: the tick's calls in order of arrival ([`super::buckets::by_arrival`]).
        let mut order: Vec<u64> = Vec::new();
        let mut scratch: Vec<u64> = Vec::new();
        let env = Env {
            chain,
            tick,
            ticks,
            deadline,
        };

        // Steps done and not yet told to `work`, at what each costs (only when counted).
        let (per_tick, per_call) = work.map_or((0, 0), |_| scenario.step_costs());
        let mut steps = 0u64;
        // The run ends early once it is idle: no call waits in a tick to come, no
        // request arrives any more, and nothing else holds a call (a queue, a fleet's
        // queues, hedges) or records a tick without calls (a cache's capacity). Every
        // tick left would see no call and change no total nor lane (each lane of a tick
        // without calls is 0, as it starts), so the results are those of the whole
        // run; the work counted is too.
        let idle_can_end =
            !with_queue && fleet.is_none() && !hedged && scenario.server.cache.is_none();
        // The first tick after the last arrival.
        let arrivals_done = (scenario.arrivals.iter())
            .filter_map(|a| a.done_by(tick))
            .max()
            .unwrap_or(0);
        // The ticks in `[k, quiet_until)` are known to hold no call: none is pushed
        // there while the ticks before them hold none either.
        let mut quiet_until = 0;
        for k in 0..ticks {
            if idle_can_end && k >= arrivals_done {
                if k >= quiet_until {
                    quiet_until = buckets.next_busy(k);
                }
                if quiet_until == ticks {
                    if let Some(work) = work {
                        steps += per_tick * (ticks - k) as u64;
                        if work.spend(steps) {
                            return None;
                        }
                    }
                    break;
                }
            }
            let start = k as u64 * tick;
            let end = start + tick;
            let mut calls = buckets.take(k);
            guards.arrive(
                k,
                (start, end),
                chain,
                &mut calls,
                &mut buckets,
                &mut totals,
            );
            if C::HEDGED
                && let Some(h) = hedges.as_mut()
            {
                // Each hedging step here is one call out of line: with a few lines more
                // written in place, behind the same constant, the plain crowd measured
                // 6.6% more instructions (cachegrind), though it runs none of them.
                let slot = lanes.as_mut().and_then(|l| l.hedges.get_mut(k));
                calls = h.start(k, calls, &mut buckets, &mut guards, &mut totals, slot);
            }
            let n = calls.len();
            if let Some(work) = work {
                steps += per_tick + per_call * n as u64;
                if steps >= super::work::TOLD_EVERY || k + 1 == ticks {
                    if work.spend(steps) {
                        return None;
                    }
                    steps = 0;
                }
            }
            let admitted = guards.admit(start, n);
            let sent = guards.throttle(&mut calls, admitted, &mut rng);
            let down = server.is_down(start);
            if let Some(lanes) = lanes.as_mut()
                && let Some(slot) = lanes.capacity.get_mut(k)
            {
                *slot = match fleet.as_ref() {
                    Some(fleet) => fleet.capacity(start),
                    None => server.capacity(start, down),
                };
            }

            let heard = answers.latencies.len();
            let (served, joined, mut wasted) = match queue.as_mut() {
                None => match fleet.as_mut() {
                    None => {
                        let served = server.serve(start, sent as u64, down) as usize;
                        calls.choose_served(sent, served, &mut rng);
                        (served, 0, 0)
                    }
                    Some(fleet) => fleet.tick(&mut calls, sent, k, start, &mut rng, &mut answers),
                },
                Some(queue) => {
                    // The tick's calls arrive in the order of their times.
                    order.clear();
                    order.extend((0..sent).map(|i| (calls.get(i).t() << 32) | i as u64));
                    if sent > 1 {
                        super::buckets::by_arrival(&mut order, &mut scratch, &mut rng);
                    }
                    let (all, at) = (&mut order, &mut answers);
                    let Decided {
                        served,
                        admitted,
                        wasted,
                    } = queue.tick(&mut server, &mut calls, all, true, k, ticks, start, at);
                    (served, admitted - served, wasted)
                }
            };
            if QUEUE && with_queue {
                for block in calls.front(served) {
                    (answers.latencies).extend(block.iter().map(|call| (end - call.t()) as u32));
                }
            }
            // Calls answered in time, and the clients they answered: the same but with
            // hedging, whose copies answered after another are for nobody.
            let accepted = served + answers.answered.len();
            let mut useful = accepted;
            let rejected = sent - served - joined;
            if C::HEDGED
                && let Some(h) = hedges.as_mut()
            {
                let latencies = (QUEUE && with_queue).then_some(heard);
                let late;
                let at = (k, end, served);
                (useful, late) = h.decided(&calls, at, &mut answers, latencies, fleet.as_mut());
                wasted += late;
            }
            if fleet.is_none() && server.cached() {
                server.answered(accepted as u64, down);
            }

            totals.calls += sent as u64;
            totals.served += useful as u64;
            totals.wasted += wasted as u64;
            totals.failed_fast += (n - admitted) as u64;
            totals.throttled += (admitted - sent) as u64;
            totals.peak_rejected = totals.peak_rejected.max(rejected as u64);
            if useful > 0 {
                last_finish = Some(k);
            }
            if let Some(lanes) = lanes.as_mut() {
                lanes.record(
                    k,
                    [
                        useful,
                        rejected,
                        n - admitted,
                        wasted,
                        match (&queue, &fleet) {
                            (Some(q), _) => q.len(),
                            (None, Some(f)) => f.queued(),
                            (None, None) => 0,
                        },
                        admitted - sent,
                    ],
                );
            }
            // A retry budget credits the calls that answered a client.
            let (credited, answered) = match hedges.as_ref() {
                Some(h) if C::HEDGED => (0, h.winners()),
                _ => (served, &answers.answered[..]),
            };
            let failed = rejected + answers.timeouts.len();
            guards.decided(k, end, &calls, credited, answered, useful, accepted, failed);
            if QUEUE {
                answers.answered.clear();
            }
            // A rejection that says "don't retry" ends its request; one that says "retry
            // after" carries its delay as an exact hint.
            // Written so that the plain loop, which has neither, compiles as it did
            // before "retry after" (measured: a crowd of fixed waits ran 6% more
            // instructions with the pair computed in one call).
            let mut hint = guards.hint(down);
            let mut pushed = pushback.is_some_and(|p| p.applies(down));
            debug_assert!(!G::NONE || pushback.is_none(), "pushback is a guard's");
            if pushed && !G::NONE {
                (hint, pushed) = hint_of(pushback, hint, down);
            }
            // A client that retries only on a hint gives up on a rejection without one.
            let retried = (hint > 0 || !scenario.retry.only_with_hint) && !pushed;
            // A fleet's replicas give their hints and pushback each on its own.
            hints.clear();
            pushes.clear();
            if let (Some(fleet), true) = (fleet.as_ref(), per_replica) {
                for r in 0..fleet.replicas() {
                    let down = fleet.is_down(r, start);
                    let (hint, pushed) = hint_of(pushback, guards.hint(down), down);
                    hints.push(hint);
                    pushes.push(pushed);
                }
            }

            // The failed calls: rejected (with the hint), throttled, failed fast, each a
            // range of the tick's calls in that order, then the timeouts.
            let parts = [
                (served + joined, sent, hint, retried),
                (sent, admitted, 0, true),
                (admitted, n, 0, guards.retries_failed_fast()),
            ];
            if pushed && hints.is_empty() {
                // The rejected calls told not to retry, counted apart so that the loop
                // below is the one of a server without pushback (a fleet's replicas
                // count theirs each by its own state, in it).
                let rejected = calls
                    .iter()
                    .skip(served + joined)
                    .take(sent - served - joined);
                totals.pushed_back += pushed_back(chain, rejected);
            }
            let mut ctx = Ctx {
                rng: &mut rng,
                guards: &mut guards,
                totals: &mut totals,
                buckets: &mut buckets,
                last_finish: &mut last_finish,
                hedges: hedges.as_mut(),
            };
            let mut index = 0;
            for (whole, len) in calls.drain_blocks() {
                let block = &whole[..len];
                if G::NONE {
                    // Without guards every failed call is a rejection with no hint: the
                    // plain crowd's loop, with nothing to decide per call. It is
                    // [`Env::fail`] without the guards, written out over the run's own
                    // state: through `Ctx`, a crowd of fixed waits ran 2.7% more
                    // instructions (callgrind).
                    let from = parts[0].0.max(index).min(index + len) - index;
                    let Ctx {
                        rng,
                        guards: _,
                        totals,
                        buckets,
                        last_finish,
                        hedges: _,
                    } = &mut ctx;
                    for call in &block[from..] {
                        let mut call = *call;
                        let Some(layer) = call.layer_to_retry(env.chain) else {
                            totals.gave_up += 1;
                            **last_finish = Some(k);
                            continue;
                        };
                        let next = call.t() + call.wait(env.chain, layer, rng);
                        if env.deadline.is_some_and(|d| next > call.first() + d) {
                            totals.gave_up += 1;
                            **last_finish = Some(k);
                            continue;
                        }
                        let seen = ((next / env.tick) as usize).max(k + 1);
                        if seen >= env.ticks {
                            totals.still_retrying += 1;
                            continue;
                        }
                        call.advance(env.chain, layer, next);
                        buckets.push(seen, call);
                    }
                    index += len;
                    ctx.buckets.recycle(whole);
                    continue;
                }
                // Over indices, and `max` and `min` rather than `clamp`: the browser's
                // module, built for size, left an enumerated iterator's step and a clamp
                // as calls, three of each per block.
                #[allow(clippy::needless_range_loop)]
                for part in 0..parts.len() {
                    let (lo, hi, hint, allowed) = parts[part];
                    let a = lo.max(index).min(index + len) - index;
                    let b = hi.max(index).min(index + len) - index;
                    if part == 0 && !hints.is_empty() {
                        // Turned away by a replica: with that replica's hint and pushback.
                        for call in &block[a..b] {
                            let r = call.replica() as usize - 1;
                            let hint = hints[r];
                            let allowed =
                                (hint > 0 || !scenario.retry.only_with_hint) && !pushes[r];
                            if pushes[r] {
                                ctx.totals.pushed_back += pushed_back(chain, [call]);
                            }
                            env.fail(k, *call, call.t(), hint, allowed, &mut ctx);
                        }
                        continue;
                    }
                    for call in &block[a..b] {
                        env.fail(k, *call, call.t(), hint, allowed, &mut ctx);
                    }
                }
                index += len;
                ctx.buckets.recycle(whole);
            }
            ctx.buckets.recycle_list(calls);
            if QUEUE {
                ctx.totals.timed_out += match ctx.hedges.as_deref() {
                    // Abandoned copies' timeouts are no client's.
                    Some(h) if C::HEDGED => h.open_timeouts(&answers.timeouts),
                    _ => answers.timeouts.len() as u64,
                };
                for (call, at) in answers.timeouts.drain(..) {
                    env.fail(k, call, at, 0, true, &mut ctx);
                }
            }
        }

        if let Some(queue) = queue.as_ref() {
            totals.still_retrying += queue.waiting();
        }
        if let Some(fleet) = fleet.as_ref() {
            totals.still_retrying += fleet.waiting();
        }
        if let Some(h) = hedges.as_ref() {
            // A request is still retrying while its attempt is open, whatever its copies.
            totals.still_retrying = h.open_count();
        }
        if totals.still_retrying == 0 {
            totals.done_at = last_finish.map(|k| k as u64 * tick);
        }
        (totals.latency_p50, totals.latency_p99) = percentiles(&answers.latencies);
        guards.finish(scenario, &mut totals);
        let (replicas, replica_lanes) = fleet.map(FleetState::finish).unwrap_or_default();
        if let Some(lanes) = lanes.as_mut() {
            lanes.replicas = replica_lanes;
        }
        Some(Run {
            seed,
            totals,
            lanes,
            replicas,
        })
    }
}

/// What every failure needs of the run, and does not change.
struct Env<'a> {
    chain: &'a Chain<'a>,
    tick: Micros,
    ticks: usize,
    deadline: Option<Micros>,
}

/// What a failure changes.
struct Ctx<'a, C, G> {
    rng: &'a mut Pcg64,
    guards: &'a mut G,
    totals: &'a mut Totals,
    buckets: &'a mut Buckets<C>,
    last_finish: &'a mut Option<usize>,
    /// With hedging, the run's requests.
    hedges: Option<&'a mut Hedges<C>>,
}

/// Marks a hint as the server's pushback "retry after": the wait, exactly, and the
/// backoff started over ([`Env::fail`]). No wait is this long: the longest is an hour.
const EXACT: Micros = 1 << 63;

/// The hint a rejection of a tick that is `down` (or not) carries, given the server's
/// `pushback` and its Retry-After `hint` (0 for none), and whether it says "don't
/// retry". Pushback comes first: "retry after D" is the hint `D | EXACT`.
#[inline]
fn hint_of(pushback: Option<Pushback>, hint: Micros, down: bool) -> (Micros, bool) {
    match pushback {
        Some(p) if p.applies(down) => match p.after {
            Some(after) => (after | EXACT, false),
            None => (hint, true),
        },
        _ => (hint, false),
    }
}

/// Of `calls`, rejections that said "don't retry", how many were made by a client that
/// had attempts left. Out of the tick loop, which a scenario without pushback runs as
/// it did before pushback existed.
#[inline(never)]
#[cold]
fn pushed_back<'c, C: Client + 'c>(chain: &Chain, calls: impl IntoIterator<Item = &'c C>) -> u64 {
    let left = calls
        .into_iter()
        .filter(|c| c.layer_to_retry(chain).is_some());
    left.count() as u64
}

impl Env<'_> {
    /// A failed call of tick `k`, failed at `at` on its client's clock: the client gives
    /// up, retries, or is still retrying at the horizon (see the module docs). `hint` is
    /// the Retry-After hint it carries (0 for none), or the pushback's "retry after"
    /// marked [`EXACT`]; `allowed` is false when the failure ends the request (a call
    /// that failed fast at a breaker outside the retry loop).
    #[inline(always)]
    fn fail<C: Client, G: Guards>(
        &self,
        k: usize,
        call: C,
        at: Micros,
        hint: Micros,
        allowed: bool,
        ctx: &mut Ctx<'_, C, G>,
    ) {
        if C::HEDGED && ctx.hedges.is_some() {
            self.fail_hedged(k, call, at, hint, allowed, ctx);
            return;
        }
        ctx.guards.failure();
        self.retry_or_give_up(k, call, at, hint, allowed, ctx, |_, _| {}, |_, _, _| {});
    }

    /// [`Env::fail`] of a copy of a hedged call ([`super::hedge`]): the next copy, or
    /// nothing, or the attempt failed and the client goes on as after a failed call.
    /// Out of line, so that the loops without hedging are laid out as before it.
    #[inline(never)]
    fn fail_hedged<C: Client, G: Guards>(
        &self,
        k: usize,
        call: C,
        at: Micros,
        hint: Micros,
        allowed: bool,
        ctx: &mut Ctx<'_, C, G>,
    ) {
        let Ctx {
            guards,
            totals,
            buckets,
            hedges: Some(h),
            ..
        } = ctx
        else {
            return;
        };
        match h.failed(k, &call, at, hint, allowed, *guards, totals, buckets) {
            Failed::Done => {}
            Failed::Denied => {
                h.close(&call);
                ctx.totals.gave_up += 1;
                ctx.totals.denied += 1;
                *ctx.last_finish = Some(k);
            }
            // Counted as a failure already: the client goes on, and its request ends
            // or starts a new attempt.
            Failed::Attempt => self.retry_or_give_up(
                k,
                call,
                at,
                hint,
                allowed,
                ctx,
                |ctx, call| ctx.close(call),
                |ctx, call, seen| {
                    if let Some(h) = ctx.hedges.as_deref_mut() {
                        h.retry(k, call, call.t(), seen, ctx.buckets);
                    }
                },
            ),
        }
    }

    /// What a client does after a failed call, once the failure is counted: gives up,
    /// retries, or is still retrying at the horizon (see the module docs). `gave_up`
    /// is told of a client that gave up, `retries` of a retry about to be pushed to the
    /// tick that sees it: hooks for hedging, which the plain loops pass empty, so that
    /// their code is what it was before hedging (measured: with the hooks written in
    /// and switched off by a constant, a guarded crowd ran 3% more instructions).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn retry_or_give_up<C: Client, G: Guards>(
        &self,
        k: usize,
        mut call: C,
        at: Micros,
        hint: Micros,
        allowed: bool,
        ctx: &mut Ctx<'_, C, G>,
        gave_up: impl FnOnce(&mut Ctx<'_, C, G>, &C),
        retries: impl FnOnce(&mut Ctx<'_, C, G>, &mut C, usize),
    ) {
        let layer = call.layer_to_retry(self.chain).filter(|_| allowed);
        let Some(layer) = layer else {
            gave_up(ctx, &call);
            ctx.totals.gave_up += 1;
            *ctx.last_finish = Some(k);
            return;
        };
        let wait = if hint & EXACT == 0 {
            call.wait(self.chain, layer, ctx.rng).max(hint)
        } else if layer == self.chain.bottom() {
            call.restart(self.chain, layer);
            hint & !EXACT
        } else {
            call.wait(self.chain, layer, ctx.rng)
        };
        let next = at + wait;
        if self.deadline.is_some_and(|d| next > call.first() + d) {
            gave_up(ctx, &call);
            ctx.totals.gave_up += 1;
            *ctx.last_finish = Some(k);
            return;
        }
        if !ctx.guards.try_retry() {
            gave_up(ctx, &call);
            ctx.totals.gave_up += 1;
            ctx.totals.denied += 1;
            *ctx.last_finish = Some(k);
            return;
        }
        // A retry is never seen in the tick that rejected it.
        let seen = ((next / self.tick) as usize).max(k + 1);
        if seen >= self.ticks {
            ctx.totals.still_retrying += 1;
            return;
        }
        call.advance(self.chain, layer, next);
        retries(ctx, &mut call, seen);
        ctx.buckets.push(seen, call);
    }
}

impl<C: Client, G> Ctx<'_, C, G> {
    /// The request of `call` ended unanswered (with hedging; a no-op without).
    #[inline(always)]
    fn close(&mut self, call: &C) {
        if C::HEDGED
            && let Some(h) = self.hedges.as_deref_mut()
        {
            h.close(call);
        }
    }
}

/// The median and 99th percentile of `latencies`, nearest rank (the value at rank
/// `ceil(p/100 · n)` in ascending order); `None` for none.
///
/// A run's latencies are many (one per call answered in time), so they are not sorted:
/// they are counted into at most 4,096 ranges of equal width, and each percentile is
/// then chosen among the values of the one range that holds its rank.
pub(super) fn percentiles(latencies: &[u32]) -> (Option<Micros>, Option<Micros>) {
    let n = latencies.len();
    let Some(&max) = latencies.iter().max() else {
        return (None, None);
    };
    let shift = (u32::BITS - max.leading_zeros()).saturating_sub(12);
    let mut counts = vec![0u32; (max >> shift) as usize + 1];
    for &v in latencies {
        counts[(v >> shift) as usize] += 1;
    }
    // The range of each rank, and the rank within it.
    let find = |p: usize| {
        let mut rank = (p * n).div_ceil(100).max(1) - 1;
        let mut range = 0;
        while rank >= counts[range] as usize {
            rank -= counts[range] as usize;
            range += 1;
        }
        (range as u32, rank)
    };
    let ((r50, i50), (r99, i99)) = (find(50), find(99));
    // One pass gathers the values of both ranges.
    let (mut at50, mut at99) = (Vec::new(), Vec::new());
    for &v in latencies {
        let range = v >> shift;
        if range == r50 {
            at50.push(v);
        } else if range == r99 {
            at99.push(v);
        }
    }
    let p50 = select(&mut at50, i50);
    let p99 = if r99 == r50 {
        select(&mut at50, i99)
    } else {
        select(&mut at99, i99)
    };
    (Some(u64::from(p50)), Some(u64::from(p99)))
}

/// The value at `index` of `values` once sorted: a quickselect with a three-way
/// partition, so that the many equal latencies of a run cost one pass each. Written out
/// rather than the standard library's `select_nth_unstable`, whose code is ten times
/// the size in the browser's module; the pivot is the middle of the median of three,
/// and the order of a run's latencies does not come from an adversary.
fn select(values: &mut [u32], index: usize) -> u32 {
    let (mut lo, mut hi) = (0, values.len());
    loop {
        if hi - lo <= 1 {
            return values[lo];
        }
        let mid = lo + (hi - lo) / 2;
        let (a, b, c) = (values[lo], values[mid], values[hi - 1]);
        let pivot = a.max(b).min(a.min(b).max(c));
        // values[lo..lt] < pivot, values[lt..i] == pivot, values[gt..hi] > pivot.
        let (mut lt, mut i, mut gt) = (lo, lo, hi);
        while i < gt {
            match values[i].cmp(&pivot) {
                std::cmp::Ordering::Less => {
                    values.swap(lt, i);
                    lt += 1;
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    gt -= 1;
                    values.swap(i, gt);
                }
                std::cmp::Ordering::Equal => i += 1,
            }
        }
        if index < lt {
            hi = lt;
        } else if index < gt {
            return pivot;
        } else {
            lo = gt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_finds_what_sorting_would() {
        let mut rng = Pcg64::seed_from_u64(11);
        for n in [1usize, 2, 3, 7, 100, 1001] {
            for spread in [1u32, 3, 1_000_000] {
                let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..spread)).collect();
                let mut sorted = values.clone();
                sorted.sort_unstable();
                for index in [0, n / 2, n - 1, (99 * n).div_ceil(100) - 1] {
                    let mut v = values.clone();
                    assert_eq!(select(&mut v, index), sorted[index], "{n} {spread} {index}");
                }
            }
        }
        assert_eq!(percentiles(&[5, 1, 4]), (Some(4), Some(5)));
        assert_eq!(percentiles(&[]), (None, None));
        for n in [1usize, 2, 99, 100, 101, 5000] {
            for spread in [1u32, 7, 100_000, u32::MAX] {
                let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..spread)).collect();
                let mut sorted = values.clone();
                sorted.sort_unstable();
                let rank = |p: usize| u64::from(sorted[(p * n).div_ceil(100).max(1) - 1]);
                assert_eq!(
                    percentiles(&values),
                    (Some(rank(50)), Some(rank(99))),
                    "{n} {spread}"
                );
            }
        }
    }
    use crate::engine::parse_scenario;

    /// The browser's module runs every scenario in the guarded loop, with the single
    /// state of the fewest fields when there are no layers, deadline or decorrelated
    /// jitter (and the hedged state, which is the layered one, otherwise); natively the
    /// guarded crowds run with the single state of the fields they need: without guards
    /// each must be the plain loop's run, to the call, and the layered state's with one
    /// layer, a fleet's included.
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
            "clients: 600\narrivals: {rate: 40}\nserver: {capacity: 20, replicas: 3,\n  \
             overrides: [{replica: 2, outages: [{from: 1s, to: 5s}]}]}\n\
             retry: {max_attempts: 6, deadline: 25s}\n",
        ];
        for yaml in cases.into_iter().chain(guarded) {
            let scenario = parse_scenario(yaml, Some("t")).expect("a valid scenario");
            assert!(scenario.layers.is_empty());
            for strategy in Strategy::ALL {
                let policies = Policies::new(&scenario, strategy);
                let lane = scenario.lane(strategy);
                let scenario = lane.as_ref();
                let chain = Chain::new(scenario, &policies);
                for seed in [1, 2] {
                    let setup = || Setup {
                        scenario,
                        chain: &chain,
                        seed,
                        with_lanes: true,
                        work: None,
                    };
                    assert_eq!(
                        setup().go::<Layered, _, true>(Guarded::new(scenario)),
                        Some(simulate_with(scenario, &policies, seed, true)),
                        "{strategy:?}"
                    );
                    assert_eq!(
                        setup().go::<Hedged, _, true>(Guarded::new(scenario)),
                        Some(simulate_with(scenario, &policies, seed, true)),
                        "{strategy:?}"
                    );
                    assert_eq!(
                        setup().go::<Single<u32, u32>, _, false>(Guarded::new(scenario)),
                        Some(simulate_with(scenario, &policies, seed, true)),
                        "{strategy:?}"
                    );
                    if scenario.retry.deadline.is_none() && !chain.remembers_waits() {
                        assert_eq!(
                            setup().go::<Single<(), ()>, _, false>(Guarded::new(scenario)),
                            Some(simulate_with(scenario, &policies, seed, true)),
                            "{strategy:?}"
                        );
                    }
                }
            }
        }
    }

    /// The browser's module runs a queued scenario, and every layered one, with the
    /// hedged state: without hedging, the runs of the layered state, to the call.
    #[test]
    fn the_hedged_state_without_hedging_gives_the_layered_runs() {
        let cases = [
            "clients: 400\nspread: 1s\nserver: {capacity: 10, queue: {limit: 30}}\n\
             retry: {timeout: 500ms, max_attempts: 6}\n",
            "clients: 400\nspread: 1s\narrivals: {rate: 50}\n\
             server: {capacity: 10, queue: {limit: 30, order: lifo, drop_expired: true}, \
             replicas: 3, balancer: power-of-two}\n\
             retry: {timeout: 500ms, budget: grpc, elsewhere: true}\n",
            "clients: 100\nserver: {capacity: 3, pushback: {after: 1s}}\n\
             layers: [{attempts: 2}, {attempts: 3}]\n",
        ];
        for yaml in cases {
            let scenario = parse_scenario(yaml, Some("t")).expect("a valid scenario");
            for strategy in Strategy::ALL {
                let policies = Policies::new(&scenario, strategy);
                let lane = scenario.lane(strategy);
                let scenario = lane.as_ref();
                let chain = Chain::new(scenario, &policies);
                let setup = || Setup {
                    scenario,
                    chain: &chain,
                    seed: 3,
                    with_lanes: true,
                    work: None,
                };
                assert_eq!(
                    setup().go::<Hedged, _, true>(Guarded::new(scenario)),
                    setup().go::<Layered, _, true>(Guarded::new(scenario)),
                    "{strategy:?}"
                );
            }
        }
    }
}
