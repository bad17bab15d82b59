//! Hedged requests: `retry.hedging: {delay, max_attempts}`, gRPC's hedging policy
//! (gRFC A6, "Hedging Policy"): copies of a call sent without waiting for its answer,
//! the first answer taken.
//!
//! The rules, for anyone reproducing a run. `d` is `delay`, `n` is `max_attempts`
//! (2 to 5: A6 treats more as 5). Each attempt of a client (its first call, and each
//! retry of its retry policy) is a hedged request:
//!
//! 1. **Copies.** The attempt's first copy is the call itself, made at `t0`. While the
//!    attempt is unanswered, a timer fires at `t0 + d`, `t0 + 2d`, …, and each firing
//!    sends one more copy at that time, until `n` copies in all have been sent. A copy
//!    made at `t` is seen in tick `floor(t / tick)` as any call: with `d` shorter than a
//!    tick, a copy may be seen in the tick of the one before it (with `d = 0`, all `n`
//!    at once), as a real server that looks at each tick's calls together has answered
//!    none of them before the tick's end. A timer fires at the start of its tick, before
//!    the tick's calls are looked at. Every copy after the first is a hedge, counted in
//!    `hedges` and in the hedges of the tick that sees it; a hedge goes through the
//!    breaker and throttling as any call, and those that reach the server are in
//!    `calls`.
//! 2. **A failed copy** (rejected, throttled, failed fast or timed out) of an attempt
//!    still unanswered sends the next copy at once, as A6 does on a non-fatal status:
//!    made at the time of the failure (for a rejection, the failed copy's own time, as
//!    a rejection is answered at once; for a timeout, its deadline) plus the
//!    Retry-After hint when the client honours one, and seen in tick
//!    `max(floor(time / tick), k + 1)`, `k` the tick that failed it, as a retry. The
//!    timer starts over from it: the next firing is `d` after its time.
//! 3. **A hedge not sent.** A hedge is not sent when its time is after the client's
//!    first call plus `retry.deadline`, or when a retry budget refuses it (asked as for
//!    a retry: A6 throttles hedges as retries, and a timer's hedge asks as its tick's);
//!    a refused hedge still uses up its turn among the `n`, and when no copy of the
//!    attempt is in flight, the refusal ends the request, as A6 returns the failure:
//!    the client gives up, counted in `denied`. A copy that fails fast at a breaker
//!    outside the retry loop (`retry_when_open: false`), or a rejection without a hint
//!    for a client that retries only on one, sends no further copy.
//! 4. **The first answer wins.** The first copy answered in time answers the attempt:
//!    the client is served, and its latency runs from `t0` (the attempt's first copy)
//!    to the end of the tick that answered it. The other copies are abandoned: the
//!    server still does with each what it does with any call (serves it, queues it or
//!    turns it away; with `drop_expired`, drops it once past its timeout), but the
//!    client does nothing with its outcome: a copy served after the attempt was
//!    answered, or in the same tick behind the winner, is wasted work (`wasted`, not
//!    `served`); a failure of an abandoned copy is not the client's (not counted in
//!    `timed_out`, no failure for a retry budget) and sends nothing. `timed_out` counts
//!    the copies that time out while their attempt is unanswered.
//! 5. **The attempt fails** when its last copy in flight fails and no copy is left to
//!    send (all `n` sent or refused, or rule 3 stopped them). The client then does what
//!    a client does after a failed call ([`super::run`]), with the last failure's time
//!    and hint: with `retry.max_attempts: 1`, A6's "no additional retry attempts", it
//!    gives up; with more, the retry loop around the hedged call retries it after its
//!    wait, and the retry is a new hedged attempt. A client whose attempt is still open
//!    at the horizon (a copy in a queue, or one due after it) is still retrying.
//! 6. **Replicas.** A hedge goes to a replica other than the one given its request's
//!    latest copy (in an earlier tick, or earlier in this one in order of arrival),
//!    chosen among the others by the balancer, as a retry elsewhere
//!    ([`super::fleet`]); so does an attempt's first copy that arrives in a tick after
//!    a hedge of it (of equal times, in the random order of arrival). With three copies
//!    or more, only the latest copy's replica is avoided. A replica's own totals count
//!    every copy it saw: a copy it answered in time after another had answered the
//!    client is its wasted work, not served, as the fleet's; its timeouts and latencies
//!    are of every copy it held.
//! 7. **Guards.** A retry budget sees a hedge as a retry: it asks before it is sent, and
//!    only a copy that answers its client counts as served (a copy answered for nobody
//!    was cancelled, as A6 cancels the other hedges, and is no success). The breaker
//!    and adaptive throttling look at the server's answers: every copy answered in
//!    time is an accept and every copy turned away or timed out a failure, whether or
//!    not another copy answered its client. A cache holds every answer in time.
//!
//! Hedging adds no random draws: a run's draws are those of its calls, in the order of
//! [`super::run`]. The server's pushback is not modelled with hedging: a scenario with
//! both is refused.
//!
//! The run keeps one record per request (its attempt's state) and carries a copy's
//! request in its client state ([`super::client::Hedged`]); a timer is an entry in the
//! bucket of the tick it fires in, dropped there when its attempt is answered or has
//! started over since.

use super::buckets::{Bucket, Buckets};
use super::client::Client;
use super::fleet::FleetState;
use super::guards::Guards;
use super::outcome::Totals;
use super::queue::Answers;
use super::scenario::Hedging;
use super::units::Micros;

/// The state of a request's current attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for an answer, or for its retry.
    Open,
    /// Answered in time.
    Answered,
    /// Ended without an answer: the client gave up.
    Closed,
}

/// One request's current attempt.
#[derive(Clone, Copy, Debug)]
struct Record {
    /// When the attempt's first copy was made.
    since: u32,
    /// The timer's generation: a timer of another is stale.
    generation: u32,
    /// Copies sent (or refused) so far, counting the first.
    sent: u8,
    /// Copies in flight: sent and neither answered nor failed.
    outstanding: u8,
    state: State,
}

/// What is left to do after a copy failed ([`Hedges::failed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failed {
    /// Nothing: the copy was abandoned, or the next one went out (or waits).
    Done,
    /// The attempt failed: the client goes on as after a failed call (rule 5).
    Attempt,
    /// A retry budget refused the next copy with none in flight: the client gives up,
    /// counted as `denied`.
    Denied,
}

/// What the hedges of a run keep.
#[derive(Debug)]
pub struct Hedges<C> {
    delay: Micros,
    max: u8,
    tick: Micros,
    ticks: usize,
    deadline: Option<Micros>,
    records: Vec<Record>,
    /// Timers that fire in the tick being read.
    now: Vec<C>,
    /// The calls that won in the tick last decided.
    winners: Vec<C>,
    /// The copies answered for nobody in the tick last decided.
    late: Vec<C>,
}

/// A copy's tag: set on a timer.
const TIMER: u32 = 1 << 31;
/// Set on a hedge (a copy after the first).
pub const HEDGE: u32 = 1 << 30;
/// The generation's bits.
const GENERATION: u32 = HEDGE - 1;

impl<C: Client> Hedges<C> {
    /// The hedges of a run of `ticks` ticks of length `tick`.
    pub fn new(hedging: Hedging, tick: Micros, ticks: usize, deadline: Option<Micros>) -> Self {
        Hedges {
            delay: hedging.delay,
            max: hedging.max_attempts,
            tick,
            ticks,
            deadline,
            records: Vec::new(),
            now: Vec::new(),
            winners: Vec::new(),
            late: Vec::new(),
        }
    }

    fn record(&mut self, call: &C) -> &mut Record {
        &mut self.records[call.request() as usize - 1]
    }

    /// Whether `call`'s attempt is still unanswered.
    fn open(&self, call: &C) -> bool {
        self.records[call.request() as usize - 1].state == State::Open
    }

    /// Sets the timer of `call`'s attempt, of generation `generation`, to fire at `at`,
    /// no earlier than tick `least` (the tick of the copy it follows).
    fn arm(&mut self, mut call: C, at: Micros, least: usize, k: usize, buckets: &mut Buckets<C>) {
        let seen = ((at / self.tick) as usize).max(least);
        if seen >= self.ticks {
            return;
        }
        let generation = self.record(&call).generation;
        call.retime(at);
        call.set_tag(TIMER | generation);
        if seen == k {
            self.now.push(call);
        } else {
            buckets.push(seen, call);
        }
    }

    /// Tick `k` starts with `calls`: a retry budget gets the tick's new requests, then
    /// the timers due fire ([`Hedges::arrive`]), as the tick's, and `slot` gets the
    /// hedges among the calls. Returns the calls the tick sees.
    #[inline(never)]
    pub fn start<G: Guards>(
        &mut self,
        k: usize,
        calls: Bucket<C>,
        buckets: &mut Buckets<C>,
        guards: &mut G,
        totals: &mut Totals,
        slot: Option<&mut u32>,
    ) -> Bucket<C> {
        guards.start(k, self.requests(&calls));
        let (seen, count) = self.arrive(k, calls, buckets, guards, totals);
        if let Some(slot) = slot {
            *slot = count as u32;
        }
        seen
    }

    /// Of tick `k`'s calls, before [`Hedges::arrive`], the first calls of requests.
    fn requests(&self, calls: &Bucket<C>) -> u64 {
        let first = |c: &&C| c.tag() & TIMER == 0 && c.calls() == 1;
        calls.iter().filter(first).count() as u64
    }

    /// Tick `k`'s calls, before anything looks at them: each new request gets its
    /// record and its first timer, and the timers due fire (rule 1). Returns the calls
    /// the tick sees and how many of them are hedges.
    fn arrive<G: Guards>(
        &mut self,
        k: usize,
        calls: Bucket<C>,
        buckets: &mut Buckets<C>,
        guards: &mut G,
        totals: &mut Totals,
    ) -> (Bucket<C>, usize) {
        let mut seen = Bucket::default();
        let mut hedges = 0;
        for (block, len) in calls.into_blocks() {
            for &call in &block[..len] {
                hedges += self.visit(k, call, &mut seen, buckets, guards, totals);
            }
            buckets.recycle(block);
        }
        while let Some(timer) = self.now.pop() {
            hedges += self.visit(k, timer, &mut seen, buckets, guards, totals);
        }
        (seen, hedges)
    }

    /// One entry of tick `k`: a call goes on into `seen`; a timer fires or is dropped.
    /// Returns 1 for a hedge sent.
    fn visit<G: Guards>(
        &mut self,
        k: usize,
        mut call: C,
        seen: &mut Bucket<C>,
        buckets: &mut Buckets<C>,
        guards: &mut G,
        totals: &mut Totals,
    ) -> usize {
        let tag = call.tag();
        if tag & TIMER == 0 {
            if call.request() == 0 {
                // A new request: its record, and the timer of its first hedge.
                let t = call.t();
                self.records.push(Record {
                    since: t as u32,
                    generation: 0,
                    sent: 1,
                    outstanding: 1,
                    state: State::Open,
                });
                call.set_request(self.records.len() as u32);
                call.set_tag(0);
                self.arm(call, t + self.delay, k, k, buckets);
            }
            buckets.push_to(seen, call);
            return usize::from(tag & HEDGE != 0);
        }
        let (max, deadline) = (self.max, self.deadline);
        let record = *self.record(&call);
        if record.state != State::Open
            || record.generation != tag & GENERATION
            || record.sent >= max
        {
            return 0;
        }
        let at = call.t();
        if deadline.is_some_and(|d| at > call.first() + d) {
            return 0;
        }
        self.record(&call).sent += 1;
        let mut sent = 0;
        if guards.try_retry() {
            let mut copy = call;
            copy.set_tag(HEDGE | record.generation);
            let r = self.record(&call);
            r.outstanding += 1;
            totals.hedges += 1;
            buckets.push_to(seen, copy);
            sent = 1;
        }
        if record.sent + 1 < max {
            self.arm(call, at + self.delay, k, k, buckets);
        }
        sent
    }

    /// Tick `k`, that ends at `end`, is decided: of `calls`, the first `served` were
    /// served, and `answers` has the queued calls answered in time. The first answer of
    /// each attempt wins (rule 4): with `latencies`, the length `answers.latencies` had
    /// before the tick's, those of the tick are the winners'; the winners are kept for
    /// a retry budget to credit ([`Hedges::winners`]); with a `fleet`, each replica
    /// counts the copies it answered for nobody as wasted. Returns how many of each. Out of line, as every hedging step, so that the
    /// loops without hedging are laid out as before.
    #[inline(never)]
    pub fn decided(
        &mut self,
        calls: &Bucket<C>,
        (k, end, served): (usize, Micros, usize),
        answers: &mut Answers<C>,
        latencies: Option<usize>,
        fleet: Option<&mut FleetState<C>>,
    ) -> (usize, usize) {
        if let Some(heard) = latencies {
            answers.latencies.truncate(heard);
        }
        let mut winners = std::mem::take(&mut self.winners);
        let mut late = std::mem::take(&mut self.late);
        winners.clear();
        late.clear();
        for call in calls.front(served).flatten().chain(&answers.answered) {
            let r = self.record(call);
            r.outstanding -= 1;
            if r.state == State::Open {
                r.state = State::Answered;
                winners.push(*call);
                if latencies.is_some() {
                    answers.latencies.push((end - u64::from(r.since)) as u32);
                }
            } else {
                late.push(*call);
            }
        }
        if let Some(fleet) = fleet {
            fleet.served_for_nobody(k, late.iter());
        }
        let counts = (winners.len(), late.len());
        (self.winners, self.late) = (winners, late);
        counts
    }

    /// The calls that won in the tick last decided.
    pub fn winners(&self) -> &[C] {
        &self.winners
    }

    /// Of `timeouts`, those of attempts still open: a client's (rule 4).
    #[inline(never)]
    pub fn open_timeouts(&self, timeouts: &[(C, Micros)]) -> u64 {
        timeouts.iter().filter(|(c, _)| self.open(c)).count() as u64
    }

    /// A copy of tick `k` failed at `at` with the Retry-After `hint`; `allowed` is false
    /// when it sends no further copy (rule 3). Says what is left to do.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub fn failed<G: Guards>(
        &mut self,
        k: usize,
        call: &C,
        at: Micros,
        hint: Micros,
        allowed: bool,
        guards: &mut G,
        totals: &mut Totals,
        buckets: &mut Buckets<C>,
    ) -> Failed {
        let (max, deadline) = (self.max, self.deadline);
        let r = self.record(call);
        r.outstanding -= 1;
        if r.state != State::Open {
            return Failed::Done;
        }
        guards.failure();
        if !allowed {
            r.sent = max;
        }
        if r.sent < max {
            let next = at + hint;
            if deadline.is_some_and(|d| next > call.first() + d) {
                r.sent = max;
            } else {
                r.sent += 1;
                r.generation = (r.generation + 1) & GENERATION;
                let (generation, more) = (r.generation, r.sent < max);
                if guards.try_retry() {
                    let seen = ((next / self.tick) as usize).max(k + 1);
                    if seen < self.ticks {
                        let mut copy = *call;
                        copy.retime(next);
                        copy.set_tag(HEDGE | generation);
                        self.record(call).outstanding += 1;
                        totals.hedges += 1;
                        buckets.push(seen, copy);
                        if more {
                            self.arm(copy, next + self.delay, seen, k, buckets);
                        }
                    }
                    // Past the horizon, the copy is never made: the attempt stays open.
                    return Failed::Done;
                }
                if self.record(call).outstanding == 0 {
                    // Refused with no copy in flight: the failure goes to the client,
                    // which gives up as for a refused retry.
                    return Failed::Denied;
                }
                if more {
                    // The timer goes on from now, as it would have from the copy.
                    self.arm(*call, next + self.delay, k + 1, k, buckets);
                }
                return Failed::Done;
            }
        }
        match self.record(call).outstanding {
            0 => Failed::Attempt,
            _ => Failed::Done,
        }
    }

    /// The attempt of `call` ended without an answer: the client gave up.
    #[inline(never)]
    pub fn close(&mut self, call: &C) {
        self.record(call).state = State::Closed;
    }

    /// `call` retries at `next`, seen in tick `seen`: a new attempt, with its first
    /// timer.
    #[inline(never)]
    pub fn retry(
        &mut self,
        k: usize,
        call: &mut C,
        next: Micros,
        seen: usize,
        buckets: &mut Buckets<C>,
    ) {
        call.set_tag(0);
        let r = self.record(call);
        r.since = next as u32;
        r.generation = (r.generation + 1) & GENERATION;
        r.sent = 1;
        r.outstanding = 1;
        self.arm(*call, next + self.delay, seen, k, buckets);
    }

    /// Requests neither answered nor given up: still retrying at the horizon.
    #[inline(never)]
    pub fn open_count(&self) -> u64 {
        self.records
            .iter()
            .filter(|r| r.state == State::Open)
            .count() as u64
    }
}
