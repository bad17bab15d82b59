//! Overload as slowness: the queue in front of the server and the clients' timeouts.
//!
//! Without `server.queue` (or with `limit: 0`) every call is answered in the tick that
//! sees it: served or turned away. With a queue, a call that is not served in its tick
//! may wait for a later one, and a client may stop waiting. The server is one with a
//! real queue, served once per tick, and each rule below is chosen to be that server's
//! (held against one on loopback, with real client timers). The rules, for anyone
//! reproducing a run (tick `k` spans `[k·tick, (k+1)·tick)`; `b` is the tick's budget of
//! [`super::server`], 0 while the server is down; a queue needs the `capacity` model):
//!
//! - **Arrival.** The tick's new calls are those it sees, as without a queue. They
//!   arrive in the order of their times on their clients' clocks (calls of equal times
//!   in a uniformly random order, see [`super::buckets::Bucket::sort_by_time`]); a
//!   retry moved to the next tick keeps its time and still arrives in that tick, after
//!   every call of the queue. The queue holds every call the server has taken and not
//!   yet served, those of the tick being served included: a call that arrives when it
//!   holds `limit` calls is refused at once, in its own tick, at the rejection cost, as
//!   without a queue (only these are paid for in the next tick). So the first
//!   `limit − q` of the tick's calls join, `q` being what the queue held at the start of
//!   the tick (expired calls that `drop_expired` will discard included: a real server
//!   discards them when it comes to serve them), and the rest are turned away. So a
//!   tick serves at most `limit` calls.
//! - **Order of service.** The server then serves up to `b` calls of the queue, the
//!   tick's new ones included. `fifo`: oldest first: the calls of earlier ticks in the
//!   order they joined, then the tick's in the order they arrived. `lifo`: newest first:
//!   the tick's calls, last arrival first, then the earlier ones, last joined first.
//!   What is not served stays queued, in the order of arrival.
//! - **Outages.** While the server is down nothing is served and nothing joins: the
//!   tick's calls are rejected at no cost. The queue keeps its calls; they may time out.
//! - **Latency.** A call made at `t` on its client's clock and served in tick `j` is
//!   answered at the end of that tick: its latency is `(j+1)·tick − t`. A rejection is
//!   answered at once. A run reports the median and 99th percentile (nearest rank) of
//!   the latencies of the calls answered in time, with a queue only: without one every
//!   call is answered in the tick that sees it, and its latency would say no more than
//!   where in its tick it was sent (so the plain crowd spends nothing on it).
//! - **Timeouts** (`retry.timeout: T`, at least two ticks). A call made at `t` has its
//!   deadline at `t + T`, and is answered in time only when its answer comes strictly
//!   before the deadline: at the deadline, the client's timer has already fired. A call
//!   seen in tick `s` has the expiry tick `m = max(ceil((t + T) / tick) − 1, s + 1)`,
//!   the first tick whose end is at or after its deadline: it is answered in time when
//!   it is served in a tick before `m` (so a call is never late in the tick that sees
//!   it, as a retry never lands in the tick that rejected it). In tick `m`, a client
//!   whose call has not been answered in time (still queued, or served in tick `m`
//!   itself) times out: the attempt failed (`timed_out`), and the client goes on as
//!   after a rejection, with `t + T` as the time of the failure. It gives up at its
//!   attempt limit; else it draws its wait, `next = t + T + wait`; it gives up past its
//!   deadline or when a retry budget refuses; its retry is seen in tick
//!   `max(floor(next / tick), m + 1)`. A timeout carries no Retry-After hint, and counts
//!   as a failure for the budget and the breaker.
//! - **Wasted work.** A call whose client has timed out stays in the queue; when it is
//!   served, the server has spent a call on it for nobody: it counts in `wasted`, not
//!   in `served`. It still takes its place in the queue and a call of the budget.
//! - **`drop_expired: true`** (deadline propagation). A real server that knows its
//!   callers' deadlines does not start work on a call whose deadline has passed or
//!   would pass before the answer. In tick `k`, after the tick's calls have arrived and
//!   before anything is served, the server discards every queued call whose expiry tick
//!   is `k` (its deadline is at or before the end of the tick: served now, it would be
//!   late), at no cost; those clients time out in tick `k`, in the order their calls
//!   joined the queue. No call it serves is then ever wasted.
//! - **Order in a tick.** (1) The tick's calls: retries and new requests, the breaker's
//!   choice and throttling ([`super::guards`]). (2) The calls put in order of arrival
//!   (the draws for equal times), the first ones join, the rest are turned away.
//!   (3) With `drop_expired`, the expired calls are discarded and their clients time
//!   out (their draws come first). (4) Service. (5) Failures, each client in turn: the
//!   rejected new calls in the order they arrived, the throttled ones, those that failed
//!   fast, then the timeouts of this tick: calls served late in their expiry tick, in
//!   the order served, then the queued calls whose expiry tick this is, in the order
//!   they joined.
//! - **At the horizon**, a client whose call is still queued and has not timed out is
//!   still retrying. A call's way through the server adds up: `calls` = `served` +
//!   `wasted` + rejected + discarded + still queued at the horizon.
//!
//! The queue holds at most `limit` calls (at most [`super::scenario::MAX_CLIENTS`]),
//! each its client's state and a few words. Discarded calls and the timeouts of calls
//! already served are cleared away as they come to an end of the queue or the heap, and
//! all at once whenever they outnumber the calls held: the queue's memory stays within
//! a small multiple of `limit`, whatever the order and however long the overload.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::buckets::{Bucket, last_to_front};
use super::client::Client;
use super::scenario::{Queue as Setup, QueueOrder, Scenario, Server};
use super::server::ServerState;
use super::units::Micros;

/// Where a queued call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Its client is waiting for it.
    Waiting,
    /// Its client timed out: serving it is wasted work.
    Abandoned,
    /// Discarded (`drop_expired`); its place goes when it reaches an end of the queue.
    Dropped,
    /// A free place.
    Free,
}

/// A queued call.
#[derive(Clone, Copy, Debug)]
struct Slot<C> {
    call: C,
    /// Its expiry tick (`u32::MAX` without a timeout).
    expiry: u32,
    /// When it joined, counting every call that joined: tells a slot's present call
    /// from an earlier one of the same place.
    seq: u64,
    state: State,
}

/// The queue of one run.
#[derive(Debug)]
pub struct Queue<C> {
    limit: usize,
    order: QueueOrder,
    drop_expired: bool,
    timeout: Option<Micros>,
    tick: Micros,
    /// Every place, used or free.
    slots: Vec<Slot<C>>,
    /// Free places.
    free: Vec<u32>,
    /// The places in the order their calls joined, dropped ones included.
    line: VecDeque<u32>,
    /// Calls that are waiting or abandoned: what counts against the limit.
    len: usize,
    /// Pending timeouts: (expiry tick, seq, place), earliest first.
    timers: BinaryHeap<Reverse<(u32, u64, u32)>>,
    /// Calls that have joined so far: the next one's `seq`.
    joined: u64,
    /// Calls discarded so far (`drop_expired`).
    dropped: u64,
    /// The tick's calls on their way to their order, kept from tick to tick.
    buffer: Vec<C>,
}

/// What the queued ticks of a run give back besides their calls.
#[derive(Debug)]
pub struct Answers<C> {
    /// The latency of each call answered in time.
    pub latencies: Vec<u32>,
    /// The tick's queued calls answered in time.
    pub answered: Vec<C>,
    /// The tick's clients that time out, each with the time of its failure.
    pub timeouts: Vec<(C, Micros)>,
}

impl<C> Default for Answers<C> {
    fn default() -> Self {
        Answers {
            latencies: Vec::new(),
            answered: Vec::new(),
            timeouts: Vec::new(),
        }
    }
}

/// What a server's tick with a queue came to, of the calls that arrived in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decided {
    /// New calls served in the tick.
    pub served: usize,
    /// New calls served or queued; the others were turned away.
    pub admitted: usize,
    /// Queued calls served after their client had timed out.
    pub wasted: usize,
}

/// A call the queue gives back: served, or timed out.
#[derive(Clone, Copy, Debug)]
pub struct Out<C> {
    /// The client's call.
    pub call: C,
    /// Its expiry tick (`u32::MAX` without a timeout).
    pub expiry: u32,
    /// Whether its client is still waiting for it.
    pub waiting: bool,
}

impl<C: Client> Queue<C> {
    /// The queue of `server` (the scenario's, or one replica's) in `scenario`, if it
    /// has one with room for a call.
    pub fn of(server: &Server, scenario: &Scenario) -> Option<Queue<C>> {
        let Setup {
            limit,
            order,
            drop_expired,
        } = server.queue?;
        (limit > 0).then(|| Queue {
            limit: limit as usize,
            order,
            drop_expired,
            timeout: scenario.retry.timeout,
            tick: server.tick,
            slots: Vec::new(),
            free: Vec::new(),
            line: VecDeque::new(),
            len: 0,
            timers: BinaryHeap::new(),
            joined: 0,
            dropped: 0,
            buffer: Vec::new(),
        })
    }

    /// The tick `k` that starts at `start` (of `ticks`), for `server` with this queue,
    /// steps (2) to (4) of the module's rules and the timeouts of (5): `arrived` are the
    /// calls that reach the server, in order of arrival, each a key whose low 32 bits
    /// are its place in `calls`. Afterwards `arrived` holds the served new calls first,
    /// then those that joined, then those turned away, and when `in_place` (`arrived`
    /// is every call of `calls`) the calls are moved into that order. The latencies of
    /// the queued calls answered in time, those calls and the timeouts are added to
    /// `out`; the caller adds the latencies of the served new calls (read in place, not
    /// through their keys, which scatter them in memory).
    #[allow(clippy::too_many_arguments)]
    pub fn tick(
        &mut self,
        server: &mut ServerState,
        calls: &mut Bucket<C>,
        arrived: &mut [u64],
        in_place: bool,
        k: usize,
        ticks: usize,
        start: Micros,
        out: &mut Answers<C>,
    ) -> Decided {
        let sent = arrived.len();
        let end = start + self.tick;
        let after = self.timeout.unwrap_or(0);
        let timeout = |call: C| (call, call.t() + after);
        let down = server.is_down(start);
        // The first find the places left (expired calls still hold theirs), the rest
        // are turned away. Nothing joins while the server is down.
        let admitted = if down { 0 } else { sent.min(self.room()) };
        if self.drop_expired {
            self.expire(k, |call| out.timeouts.push(timeout(call)));
        }
        let budget = server.budget(start, down) as usize;
        let waiting = self.len;
        let (from_queue, served) = if self.first() {
            let q = waiting.min(budget);
            (q, admitted.min(budget - q))
        } else {
            let s = admitted.min(budget);
            (waiting.min(budget - s), s)
        };
        if !self.first() {
            // Newest first: the last `served` of those that join, to the front; the
            // others keep their order of arrival.
            last_to_front(arrived, admitted, served);
        }
        server.rejected((sent - admitted) as u64, down);
        let mut wasted = 0;
        self.serve(from_queue, |o| {
            if o.waiting && (o.expiry as usize) > k {
                out.latencies.push((end - o.call.t()) as u32);
                out.answered.push(o.call);
            } else {
                wasted += 1;
                if o.waiting {
                    out.timeouts.push(timeout(o.call));
                }
            }
        });
        if in_place && sent > 1 {
            calls.permute(arrived, &mut self.buffer);
        }
        for (i, &key) in arrived.iter().enumerate().take(admitted).skip(served) {
            let call = match in_place {
                true => calls.get(i),
                false => calls.get(key as u32 as usize),
            };
            self.join(call, k, ticks);
        }
        if !self.drop_expired {
            self.expire(k, |call| out.timeouts.push(timeout(call)));
        }
        self.tidy();
        Decided {
            served,
            admitted,
            wasted,
        }
    }

    /// The length of a tick.
    pub fn tick_length(&self) -> Micros {
        self.tick
    }

    /// Calls waiting or abandoned in it.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no call.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether it is served before the tick's new calls.
    pub fn first(&self) -> bool {
        self.order == QueueOrder::Fifo
    }

    /// Places left for the calls that arrive now: the limit less every call it holds.
    pub fn room(&self) -> usize {
        self.limit - self.len
    }

    /// The expiry tick of `call`, seen in tick `k`: the first tick whose end is at or
    /// after its deadline, `ceil((t + T) / tick) - 1`, and at least `k + 1`; `u32::MAX`
    /// without a timeout.
    pub fn expiry(&self, call: &C, k: usize) -> u32 {
        match self.timeout {
            Some(t0) => {
                // A timeout is at least two ticks, so `t + T` is at least 1.
                let m = ((call.t() + t0 - 1) / self.tick).max(k as u64 + 1);
                m.min(u64::from(u32::MAX)) as u32
            }
            None => u32::MAX,
        }
    }

    /// Adds `call`, seen in tick `k`, at the back. The caller keeps within the limit.
    pub fn join(&mut self, call: C, k: usize, ticks: usize) {
        let expiry = self.expiry(&call, k);
        let seq = self.joined;
        self.joined += 1;
        let slot = Slot {
            call,
            expiry,
            seq,
            state: State::Waiting,
        };
        let place = match self.free.pop() {
            Some(p) => {
                self.slots[p as usize] = slot;
                p
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.line.push_back(place);
        self.len += 1;
        if (expiry as usize) < ticks {
            self.timers.push(Reverse((expiry, seq, place)));
        }
    }

    /// Serves `n` calls (at most its length) in its order, giving each to `out`.
    pub fn serve(&mut self, mut n: usize, mut out: impl FnMut(Out<C>)) {
        while n > 0 {
            let place = match self.order {
                QueueOrder::Fifo => self.line.pop_front(),
                QueueOrder::Lifo => self.line.pop_back(),
            };
            let Some(place) = place else { return };
            let slot = self.slots[place as usize];
            self.release(place);
            if slot.state == State::Dropped {
                continue;
            }
            self.len -= 1;
            n -= 1;
            out(Out {
                call: slot.call,
                expiry: slot.expiry,
                waiting: slot.state == State::Waiting,
            });
        }
    }

    /// The calls whose expiry tick is `k` and that are still queued, in the order they
    /// joined: their clients time out. With `drop_expired` they leave the queue.
    pub fn expire(&mut self, k: usize, mut out: impl FnMut(C)) {
        while let Some(&Reverse((expiry, seq, place))) = self.timers.peek() {
            if expiry as usize > k {
                return;
            }
            self.timers.pop();
            let slot = &mut self.slots[place as usize];
            // A place whose call was served (and perhaps taken by a later one) is
            // not this timer's any more.
            if slot.seq != seq || slot.state != State::Waiting {
                continue;
            }
            if self.drop_expired {
                slot.state = State::Dropped;
                self.len -= 1;
                self.dropped += 1;
            } else {
                slot.state = State::Abandoned;
            }
            out(slot.call);
        }
    }

    /// Clears away discarded calls at the ends of the line, and every discarded call and
    /// stale timeout once they outnumber the calls held, so that memory stays within a
    /// small multiple of the limit (see the module docs).
    pub fn tidy(&mut self) {
        let bound = 2 * self.len + 64;
        let dropped = |q: &Self, place: Option<&u32>| {
            place.is_some_and(|&p| q.slots[p as usize].state == State::Dropped)
        };
        while dropped(self, self.line.front()) {
            let place = self.line.pop_front().expect("a place");
            self.release(place);
        }
        while dropped(self, self.line.back()) {
            let place = self.line.pop_back().expect("a place");
            self.release(place);
        }
        if self.line.len() > bound {
            let mut line = std::mem::take(&mut self.line);
            line.retain(|&p| {
                let keep = self.slots[p as usize].state != State::Dropped;
                if !keep {
                    self.release(p);
                }
                keep
            });
            self.line = line;
        }
        if self.timers.len() > bound {
            let slots = &self.slots;
            self.timers.retain(|&Reverse((_, seq, place))| {
                let slot = &slots[place as usize];
                slot.seq == seq && slot.state == State::Waiting
            });
        }
    }

    /// Frees a place whose call has left.
    fn release(&mut self, place: u32) {
        self.slots[place as usize].state = State::Free;
        self.free.push(place);
    }

    /// Places in use and pending timeouts: what the queue holds in memory.
    pub fn held(&self) -> (usize, usize) {
        (self.line.len(), self.timers.len())
    }

    /// Whether it discards expired calls before the tick is served.
    pub fn drops_expired(&self) -> bool {
        self.drop_expired
    }

    /// Calls discarded so far (`drop_expired`).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Clients still waiting for a queued call at the horizon.
    pub fn waiting(&self) -> u64 {
        self.line
            .iter()
            .filter(|&&p| self.slots[p as usize].state == State::Waiting)
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::client::{Chain, Single};
    use crate::engine::policy::{Policies, Strategy};

    /// Under an overload that never ends, newest first and discarding expired calls: the
    /// oldest calls are discarded at the front while the back is served, and neither
    /// they nor the timeouts of served calls pile up.
    #[test]
    fn memory_stays_within_a_multiple_of_the_limit() {
        for order in QueueOrder::ALL {
            for drop_expired in [true, false] {
                let mut scenario = Scenario::with_clients("q", 1);
                scenario.server.queue = Some(Setup {
                    limit: 50,
                    order,
                    drop_expired,
                });
                scenario.retry.timeout = Some(300_000);
                let policies = Policies::new(&scenario, Strategy::Fixed);
                let chain = Chain::new(&scenario, &policies);
                let mut queue =
                    Queue::<Single<(), ()>>::of(&scenario.server, &scenario).expect("a queue");
                let ticks = 100_000;
                for k in 0..ticks {
                    let t = k as u64 * 100_000;
                    queue.expire(k, |_| {});
                    queue.serve(10, |_| {});
                    for _ in 0..queue.room().min(30) {
                        queue.join(Single::fresh(&chain, t), k, ticks);
                    }
                    queue.tidy();
                    let (line, timers) = queue.held();
                    assert!(
                        line <= 2 * 50 + 64 && timers <= 2 * 50 + 64,
                        "{k} {line} {timers}"
                    );
                }
            }
        }
    }
}
