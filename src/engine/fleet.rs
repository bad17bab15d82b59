//! Many servers: replicas behind a balancer.
//!
//! **Replicas.** `server.replicas: N` (1 to [`MAX_REPLICAS`], default 1) runs N copies
//! of the scenario's server, numbered 1 to N. Each is the server of the one-server
//! model ([`super::server`]) with its own budget: the rejections it turned away in the
//! last tick are paid out of its own next tick, its outages and slowdowns are its own.
//! All have the scenario's model, capacity, rejection cost, outages and slowdowns, but
//! where `server.overrides` gives a replica its own: `[{replica: 3, capacity: 2,
//! slowdowns: [...]}]` replaces, for replica 3, each key it names (a list whole, and
//! `queue` whole: `queue: {limit: 5}` is a FIFO queue of 5 that keeps expired calls,
//! whatever the server's, and `{limit: 0}` is none).
//! `replicas: 1` is the one server, with no draw and no step more: every result is the
//! one without the key.
//!
//! **A tick of the fleet.** The calls sent in a tick (past the breaker and throttling,
//! as for one server) are decided in four steps:
//! 1. They are put in order of arrival: by the time each was sent, calls of equal times
//!    in a uniformly random order (the run's RNG, as the queue orders a tick's calls:
//!    [`super::buckets::by_arrival`]).
//! 2. The balancer gives each, in that order, a replica. A replica's *load* is how many
//!    calls it holds: those in its queue at the start of the tick (waiting or abandoned,
//!    what counts against its queue's limit; none without a queue), plus the tick's
//!    calls it has been given so far.
//!    - `round-robin` (the default): replicas 1, 2, …, N, 1, 2, … one call each, the
//!      turn kept from one tick to the next, starting at replica 1; no draw.
//!    - `random`: a uniform draw among the N replicas (`random_range(0..N)`).
//!    - `least-loaded`: the replica with the least load; ties to the lowest number; no
//!      draw.
//!    - `power-of-two`: two distinct replicas drawn uniformly (`i = random_range(0..N)`,
//!      then `j = random_range(0..N-1)`, plus one when `j >= i`), the one with the less
//!      load; ties to the first drawn.
//!
//!    A balancer knows only the loads: it sends calls to a replica that is down, which
//!    turns them away at no cost, as one server does.
//!
//!    **Retry elsewhere.** With `retry.elsewhere: true`, a retry (a client's second
//!    call or later) goes to a replica other than the one that saw the client's last
//!    call that a replica saw (a call that failed fast or was throttled at the client
//!    was seen by none): the balancer chooses among the N − 1 others as it does among
//!    all. `round-robin` passes over that replica when the turn is at it, and the turn
//!    moves on from the replica chosen; `random` draws `random_range(0..N-1)`, plus one
//!    at or above the one left out; `least-loaded` takes the least loaded of the
//!    others; `power-of-two` draws two distinct among the others, numbered as for
//!    `random`, or takes the only other, without a draw, when N is 2. A client keeps
//!    the number of the replica of its last call ([`super::client`]). A hedge goes
//!    elsewhere in the same way, with or without `retry.elsewhere`, from the replica
//!    given its request's latest copy, in this tick or an earlier one, and an
//!    attempt's first copy from the one given a hedge of it earlier in the same tick
//!    ([`super::hedge`]): the fleet keeps that replica, and its tick, for each hedged
//!    request.
//! 3. Each replica, from 1 to N, decides its calls as one server decides a tick's.
//!    Without a queue ([`super::server::ServerState::serve`]): how many it serves, and
//!    which, a uniformly random choice among its calls in order of arrival (the partial
//!    Fisher–Yates shuffle of [`super::buckets::Bucket::choose_in`]). With a queue
//!    (`server.queue`, one of that setting for each replica, or the replica's own
//!    from its override), by the rules of
//!    [`super::queue`] on the replica's own queue, budget and outages, its calls
//!    arriving in the fleet's order of arrival: the first `limit − q` join (none while
//!    it is down), the rest are turned away at its rejection cost; with `drop_expired`
//!    it discards its expired calls; it serves up to its budget, `fifo` or `lifo`; its
//!    unserved calls join its queue; its clients whose calls expire time out. A
//!    replica's queue takes no draw: the fleet's order of arrival is the queue's.
//!    Where some replicas have a queue and others none, the run is one with a queue
//!    (clients time out, latencies are counted), and a replica without one serves as
//!    above and answers the calls it serves at the end of the tick.
//! 4. The tick's served calls, replica 1's first, come before the calls that joined a
//!    queue, replica 1's first, and those before the rejected calls, replica 1's first,
//!    each in the order step 3 left them; from there the tick goes on as for one
//!    server, drawing the waits of the rejected calls in that order, then of the
//!    timeouts, replica 1's first, each replica's in the order of [`super::queue`].
//!
//!
//! **Totals.** Every total is the fleet's, as for one server, its latencies those of
//! every replica's answers together. Each replica also counts the calls it saw, served
//! (answered in time, a queued call when it is served; with hedging, to a client still
//! waiting, a copy answered after another being wasted) and turned away; in a fleet
//! with a queue, its wasted calls, its clients' timeouts, the calls it discarded, the calls still in
//! its queue at the horizon (waiting or abandoned), and the median and 99th percentile
//! of its latencies (nearest rank). For each, `calls = served + wasted + rejected +
//! discarded + queued`.
//!
//! **Retry-After.** With `server.retry_after`, each replica gives the hint on its own:
//! a call it turned away carries the hint when `when` says so of that replica in that
//! tick (`down` while it is down, `overloaded` while it is up, `always`). A client that
//! retries only on a hint gives up on a rejection without one, whichever replica gave
//! it.

use crate::engine::rng::Pcg64;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::buckets::{Bucket, by_arrival, choose_in_slice};
use super::client::Client;
use super::outcome::{REPLICA_LANES, ReplicaLanes};
use super::queue::{Answers, Queue};
use super::scenario::{Outage, Queue as QueueSetup, Scenario, Server, Slowdown};
use super::server::ServerState;
use super::units::Micros;

/// The most replicas a server may have.
pub const MAX_REPLICAS: u32 = 100;
// A hedged request's latest replica and its tick share 32 bits ([`FleetState`]).
const _: () = assert!(MAX_REPLICAS < 1 << 8 && super::scenario::MAX_TICKS < 1 << 24);

/// How a fleet chooses the replica of each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Balancer {
    /// Each replica in turn.
    RoundRobin,
    /// A uniform draw.
    Random,
    /// The replica that holds the fewest calls (the tick's given to it so far and those
    /// in its queue), ties to the lowest.
    LeastLoaded,
    /// The less loaded of two distinct random replicas.
    PowerOfTwo,
}

impl Balancer {
    /// Every balancer, in documentation order.
    pub const ALL: [Balancer; 4] = [
        Balancer::RoundRobin,
        Balancer::Random,
        Balancer::LeastLoaded,
        Balancer::PowerOfTwo,
    ];

    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Balancer::RoundRobin => "round-robin",
            Balancer::Random => "random",
            Balancer::LeastLoaded => "least-loaded",
            Balancer::PowerOfTwo => "power-of-two",
        }
    }
}

/// A server of more than one replica.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Fleet {
    /// How many replicas, 2 to [`MAX_REPLICAS`].
    pub replicas: u32,
    /// How each call finds its replica.
    pub balancer: Balancer,
    /// The replicas that differ from the scenario's server, by number.
    pub overrides: Vec<Override>,
}

/// What one replica has of its own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Override {
    /// Its number, from 1.
    pub replica: u32,
    /// Its capacity per tick, in thousandths of a call.
    pub capacity_milli: Option<u64>,
    /// Its outages, in place of the server's.
    pub outages: Option<Vec<Outage>>,
    /// Its slowdowns, in place of the server's.
    pub slowdowns: Option<Vec<Slowdown>>,
    /// Its queue, in place of the server's (a limit of 0 is none).
    pub queue: Option<QueueSetup>,
}

impl Fleet {
    /// Whether some replica has a queue: `queue`, the server's, where no override
    /// gives it its own.
    pub fn queued(&self, queue: Option<QueueSetup>) -> bool {
        let has = |q: Option<QueueSetup>| q.is_some_and(|q| q.limit > 0);
        let own = |r: u32| self.overrides.iter().find(|o| o.replica == r);
        (1..=self.replicas).any(|r| has(own(r).and_then(|o| o.queue).or(queue)))
    }

    /// Each replica's server, replica 1 first: `server` with the replica's overrides.
    pub fn servers(&self, server: &Server) -> Vec<Server> {
        (1..=self.replicas)
            .map(|replica| {
                let mut own = server.clone();
                own.fleet = None;
                for o in self.overrides.iter().filter(|o| o.replica == replica) {
                    if let Some(capacity) = o.capacity_milli {
                        own.capacity_milli = capacity;
                    }
                    if let Some(outages) = &o.outages {
                        own.outages.clone_from(outages);
                    }
                    if let Some(slowdowns) = &o.slowdowns {
                        own.slowdowns.clone_from(slowdowns);
                    }
                    if let Some(queue) = o.queue {
                        own.queue = Some(queue);
                    }
                }
                own
            })
            .collect()
    }
}

impl Fleet {
    /// The fleet seen as one server, for what is drawn and written of it: its
    /// capacity the replicas' together (and its cache's, warm); an outage where every replica is down; a
    /// slowdown, at the fleet's capacity then, where it has another capacity (some
    /// replicas down or slowed, or sped up). Its other settings are `server`'s.
    pub fn as_one(&self, server: &Server, horizon: Micros) -> Server {
        let servers = self.servers(server);
        let states: Vec<ServerState> = servers.iter().map(ServerState::new).collect();
        let capacity_at = |t: Micros| -> u64 {
            (states.iter())
                .map(|s| if s.is_down(t) { 0 } else { s.capacity_at(t) })
                .sum()
        };
        let full: u64 = servers.iter().map(|s| s.capacity_milli).sum();
        // Where the fleet's capacity can change.
        let mut edges: Vec<Micros> = servers
            .iter()
            .flat_map(|s| {
                let outages = s.outages.iter().flat_map(|o| [o.from, o.to]);
                outages.chain(s.slowdowns.iter().flat_map(|w| [w.from, w.to]))
            })
            .chain([0, horizon])
            .filter(|&t| t <= horizon)
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let mut one = server.clone();
        one.fleet = None;
        one.capacity_milli = full;
        one.outages = Vec::new();
        one.slowdowns = Vec::new();
        // Warm, every replica's cache together.
        if let Some(cache) = one.cache.as_mut() {
            cache.capacity_milli *= u64::from(self.replicas);
        }
        for pair in edges.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            match capacity_at(from) {
                c if c == full => {}
                0 => match one.outages.last_mut() {
                    Some(last) if last.to == from => last.to = to,
                    _ => one.outages.push(Outage { from, to }),
                },
                c => match one.slowdowns.last_mut() {
                    Some(last) if last.to == from && last.capacity_milli == c => last.to = to,
                    _ => one.slowdowns.push(Slowdown {
                        from,
                        to,
                        capacity_milli: c,
                    }),
                },
            }
        }
        one
    }
}

/// What one replica adds up to in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReplicaTotals {
    /// Calls it saw.
    pub calls: u64,
    /// Calls it served in time (a queued call when it is served) to a client waiting
    /// for them.
    pub served: u64,
    /// Calls it turned away.
    pub rejected: u64,
    /// Calls it served for nobody: queued ones after their client had timed out, and
    /// with hedging copies after another copy had answered their client.
    pub wasted: u64,
    /// Its clients' timeouts.
    pub timed_out: u64,
    /// Queued calls it discarded (`drop_expired`).
    pub dropped: u64,
    /// Calls in its queue at the horizon, waiting or abandoned.
    pub queued: u64,
    /// The median latency of its calls answered in time; `None` when none was, or
    /// without a queue.
    pub latency_p50: Option<Micros>,
    /// Their 99th percentile.
    pub latency_p99: Option<Micros>,
}

/// A fleet during one run.
pub struct FleetState<'a, C> {
    balancer: Balancer,
    /// Whether a retry goes elsewhere (`retry.elsewhere`).
    elsewhere: bool,
    /// Whether calls are hedged: a hedge goes elsewhere ([`super::hedge`]).
    hedged: bool,
    /// With hedging, the replica (from 1) that was given each request's latest copy,
    /// and the tick of it plus one above the low 8 bits, by request from 1; grown as
    /// requests come.
    latest: Vec<u32>,
    servers: Vec<ServerState<'a>>,
    /// Each replica's queue, when it has one; none at all in a fleet without queues.
    queues: Vec<Option<Queue<C>>>,
    /// The run's ticks.
    ticks: usize,
    /// The tick's length.
    tick: Micros,
    /// Whose turn it is, for `round-robin`.
    turn: usize,
    /// What each replica holds at the start of the tick: the calls in its queue.
    held: Vec<u32>,
    /// Each replica's load in this tick, less what it held.
    loads: Vec<u32>,
    /// The replica of each call of the tick, by its place in order of arrival.
    of: Vec<u32>,
    /// The tick's calls, each as its place in the tick, in the order of the steps.
    keys: Vec<u64>,
    /// The places of the tick's calls, grouped by replica.
    grouped: Vec<u64>,
    /// Where each replica's group ends in `grouped`.
    ends: Vec<usize>,
    /// Each replica's new calls served and joined in this tick.
    decided: Vec<(usize, usize)>,
    /// Each replica's latencies, in a fleet with queues.
    latencies: Vec<Vec<u32>>,
    /// Each replica's totals.
    totals: Vec<ReplicaTotals>,
    /// Each replica's lanes, when kept.
    lanes: Vec<ReplicaLanes>,
    /// The sort's buffer, kept from tick to tick.
    scratch: Vec<u64>,
    /// The tick's calls on their way to their order, kept from tick to tick.
    buffer: Vec<C>,
}

impl<'a, C: Client> FleetState<'a, C> {
    /// The fleet of `fleet` in `scenario` at rest, its replicas' servers in `servers`
    /// ([`Fleet::servers`]), each with its own queue when `queued`, keeping each replica's
    /// lanes when `with_lanes` and they are within [`REPLICA_LANES`].
    pub fn new(
        fleet: &Fleet,
        servers: &'a [Server],
        scenario: &Scenario,
        queued: bool,
        with_lanes: bool,
    ) -> FleetState<'a, C> {
        let n = servers.len();
        let ticks = scenario.ticks() as usize;
        let queues: Vec<Option<Queue<C>>> = match queued {
            true => servers.iter().map(|s| Queue::of(s, scenario)).collect(),
            false => Vec::new(),
        };
        let lanes = match with_lanes && (n as u64).saturating_mul(ticks as u64) <= REPLICA_LANES {
            true => (0..n)
                .map(|r| ReplicaLanes {
                    served: vec![0; ticks],
                    rejected: vec![0; ticks],
                    // A hedged fleet wastes the copies answered for nobody.
                    wasted: match (queues.get(r), scenario.retry.hedging) {
                        (Some(Some(_)), _) | (_, Some(_)) => vec![0; ticks],
                        _ => Vec::new(),
                    },
                })
                .collect(),
            false => Vec::new(),
        };
        FleetState {
            balancer: fleet.balancer,
            elsewhere: scenario.retry.elsewhere,
            hedged: scenario.retry.hedging.is_some(),
            latest: Vec::new(),
            servers: servers
                .iter()
                .map(|s| ServerState::for_run(s, ticks))
                .collect(),
            latencies: vec![Vec::new(); queues.len()],
            queues,
            ticks,
            tick: scenario.server.tick,
            turn: 0,
            held: vec![0; n],
            loads: vec![0; n],
            of: Vec::new(),
            keys: Vec::new(),
            grouped: Vec::new(),
            ends: Vec::with_capacity(n),
            decided: vec![(0, 0); n],
            totals: vec![ReplicaTotals::default(); n],
            lanes,
            scratch: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Whether replica `r` (from 0) is down in the tick that starts at `start`.
    pub fn is_down(&self, r: usize, start: Micros) -> bool {
        self.servers[r].is_down(start)
    }

    /// The replicas' capacity together in the tick that starts at `start`, in
    /// thousandths of a call (0 for a replica that is down), each with its cache as
    /// warm as it is: read before the tick is decided.
    pub fn capacity(&self, start: Micros) -> u64 {
        (self.servers.iter())
            .map(|s| s.capacity(start, s.is_down(start)))
            .sum()
    }

    /// How many replicas.
    pub fn replicas(&self) -> usize {
        self.servers.len()
    }

    /// Calls in the replicas' queues.
    pub fn queued(&self) -> usize {
        self.queues.iter().flatten().map(Queue::len).sum()
    }

    /// Clients still waiting for a queued call.
    pub fn waiting(&self) -> u64 {
        self.queues.iter().flatten().map(Queue::waiting).sum()
    }

    /// Each replica's totals and lanes (when kept) at the end of the run.
    pub fn finish(self) -> (Vec<ReplicaTotals>, Vec<ReplicaLanes>) {
        let mut totals = self.totals;
        for ((t, queue), latencies) in totals.iter_mut().zip(&self.queues).zip(&self.latencies) {
            if let Some(queue) = queue {
                t.dropped = queue.dropped();
                t.queued = queue.len() as u64;
            }
            (t.latency_p50, t.latency_p99) = super::run::percentiles(latencies);
        }
        (totals, self.lanes)
    }

    /// The replica of the next call, given the loads so far: any, or any but `not`
    /// (from 0) for a retry elsewhere.
    fn pick(&mut self, rng: &mut Pcg64, not: Option<usize>) -> usize {
        let n = self.loads.len();
        // The replicas a call may go to, numbered from 0 without `not`, and back.
        let others = n - usize::from(not.is_some());
        let skip = |x: usize| match not {
            Some(p) if x >= p => x + 1,
            _ => x,
        };
        let load = |r: usize| self.held[r] + self.loads[r];
        match self.balancer {
            Balancer::RoundRobin => {
                let mut r = self.turn;
                if not == Some(r) {
                    r = (r + 1) % n;
                }
                self.turn = (r + 1) % n;
                r
            }
            Balancer::Random => skip(rng.random_range(0..others)),
            Balancer::LeastLoaded => (0..n)
                .filter(|&r| not != Some(r))
                .min_by_key(|&r| (load(r), r))
                .unwrap_or(0),
            Balancer::PowerOfTwo if others == 1 => skip(0),
            Balancer::PowerOfTwo => {
                let i = rng.random_range(0..others);
                let mut j = rng.random_range(0..others - 1);
                if j >= i {
                    j += 1;
                }
                let (i, j) = (skip(i), skip(j));
                if load(j) < load(i) { j } else { i }
            }
        }
    }

    /// In tick `k`, the replica (from 1) of each of `late`, copies of hedged calls it
    /// served in time after another copy had answered their client, served them for
    /// nobody: each is wasted, not served ([`super::hedge`]).
    #[inline(never)]
    pub fn served_for_nobody<'c>(&mut self, k: usize, late: impl Iterator<Item = &'c C>)
    where
        C: 'c,
    {
        for call in late {
            let r = call.replica() as usize - 1;
            let totals = &mut self.totals[r];
            totals.served -= 1;
            totals.wasted += 1;
            if let Some(lanes) = self.lanes.get_mut(r) {
                lanes.served[k] -= 1;
                lanes.wasted[k] += 1;
            }
        }
    }

    /// Decides the tick `k` that starts at `start` for the first `sent` of `calls`
    /// (steps 1 to 4 of the module's rules): afterwards the served calls are the first
    /// ones, those that joined a queue follow, and the rejected ones follow those up to
    /// `sent`, each holding its replica. With queues, the latencies, the queued calls
    /// answered in time and the timeouts are added to `out`. Returns how many new calls
    /// are served, how many joined and how many queued calls were wasted.
    ///
    /// The calls are moved once: the steps work on their places in the tick (grouped
    /// by replica with a counting sort, each group's choice made on its places with the
    /// draws of [`super::buckets::Bucket::choose_in`]), and the calls follow at the end.
    pub fn tick(
        &mut self,
        calls: &mut Bucket<C>,
        sent: usize,
        k: usize,
        start: Micros,
        rng: &mut Pcg64,
        out: &mut Answers<C>,
    ) -> (usize, usize, usize) {
        let n = self.servers.len();
        // 1. In order of arrival.
        self.keys.clear();
        self.keys
            .extend((0..sent).map(|i| (calls.get(i).t() << 32) | i as u64));
        by_arrival(&mut self.keys, &mut self.scratch, rng);
        // 2. Each call's replica, in that order.
        for (held, queue) in self.held.iter_mut().zip(&self.queues) {
            *held = queue.as_ref().map_or(0, |q| q.len() as u32);
        }
        self.loads.fill(0);
        self.of.clear();
        for i in 0..sent {
            // Only a retry elsewhere or a hedged call looks at the call itself.
            let call =
                (self.elsewhere || self.hedged).then(|| calls.get(self.keys[i] as u32 as usize));
            // A copy of a hedged call goes away from the replica of its request's latest
            // copy: a hedge always, a first copy when a hedge of it came first in this
            // tick (calls of equal times arrive in a random order).
            let sibling = call.filter(|c| c.request() > 0).and_then(|c| {
                let latest = self.latest.get(c.request() as usize - 1).copied();
                let (tick, replica) = latest.map_or((0, 0), |l| (l >> 8, l & 0xff));
                let now = tick == k as u32 + 1;
                (replica > 0 && (c.is_hedge() || now)).then(|| replica as usize - 1)
            });
            let not = match call {
                Some(call) if call.request() > 0 && sibling.is_some() => sibling,
                Some(call) if call.is_hedge() => None,
                Some(call) if self.elsewhere => {
                    let last = call.replica();
                    (call.calls() > 1 && last > 0).then(|| last as usize - 1)
                }
                _ => None,
            };
            let r = self.pick(rng, not);
            if let Some(call) = call.filter(|c| c.request() > 0) {
                let request = call.request() as usize;
                if self.latest.len() < request {
                    self.latest.resize(request, 0);
                }
                self.latest[request - 1] = (k as u32 + 1) << 8 | (r as u32 + 1);
            }
            self.loads[r] += 1;
            self.of.push(r as u32);
        }
        // 3. The places grouped by replica, each group in order of arrival (a counting
        // sort), and each replica's choice of whom it serves.
        self.ends.clear();
        let mut at = 0;
        for &load in &self.loads {
            self.ends.push(at);
            at += load as usize;
        }
        self.grouped.clear();
        self.grouped.resize(sent, 0);
        for (&key, &r) in self.keys.iter().zip(&self.of) {
            let place = &mut self.ends[r as usize];
            self.grouped[*place] = u64::from(key as u32);
            *place += 1;
        }
        let (mut lo, mut served_total, mut joined_total, mut wasted_total) = (0, 0, 0, 0);
        for (r, server) in self.servers.iter_mut().enumerate() {
            let count = self.loads[r] as usize;
            let group = &mut self.grouped[lo..lo + count];
            let totals = &mut self.totals[r];
            let useful = totals.served;
            let mut wasted = 0;
            let (served, admitted) = match self.queues.get_mut(r).and_then(Option::as_mut) {
                None => {
                    let down = server.is_down(start);
                    let served = server.serve(start, count as u64, down) as usize;
                    choose_in_slice(group, served, rng);
                    totals.served += served as u64;
                    // In a fleet with queues, a replica without one answers its served
                    // calls at the end of the tick.
                    if let Some(latencies) = self.latencies.get_mut(r) {
                        let end = start + self.tick;
                        let of = |&key: &u64| (end - calls.get(key as usize).t()) as u32;
                        latencies.extend(group[..served].iter().map(of));
                    }
                    (served, served)
                }
                Some(queue) => {
                    // The calls that join its queue hold their replica there: a retry
                    // after a timeout goes elsewhere from it.
                    for &place in group.iter() {
                        let mut call = calls.get(place as usize);
                        call.set_replica(r as u32 + 1);
                        calls.set(place as usize, call);
                    }
                    let (latencies, timeouts) = (out.latencies.len(), out.timeouts.len());
                    let answered = out.answered.len();
                    let d = queue.tick(server, calls, group, false, k, self.ticks, start, out);
                    let end = start + queue.tick_length();
                    let served_new = (group[..d.served].iter())
                        .map(|&key| (end - calls.get(key as usize).t()) as u32);
                    self.latencies[r].extend_from_slice(&out.latencies[latencies..]);
                    self.latencies[r].extend(served_new);
                    totals.served += (d.served + out.answered.len() - answered) as u64;
                    totals.wasted += d.wasted as u64;
                    wasted = d.wasted as u32;
                    totals.timed_out += (out.timeouts.len() - timeouts) as u64;
                    joined_total += d.admitted - d.served;
                    wasted_total += d.wasted;
                    (d.served, d.admitted)
                }
            };
            if server.cached() {
                server.answered(totals.served - useful, server.is_down(start));
            }
            totals.calls += count as u64;
            totals.rejected += (count - admitted) as u64;
            if let Some(lanes) = self.lanes.get_mut(r) {
                lanes.served[k] = (totals.served - useful) as u32;
                lanes.rejected[k] = (count - admitted) as u32;
                if let Some(lane) = lanes.wasted.get_mut(k) {
                    *lane = wasted;
                }
            }
            self.decided[r] = (served, admitted);
            served_total += served;
            lo += count;
        }
        // 4. The served of every replica, then those that joined, then the rejected,
        // each with its replica.
        self.keys.clear();
        for part in 0..3 {
            let mut lo = 0;
            for r in 0..n {
                let (end, (served, admitted)) = (self.ends[r], self.decided[r]);
                let replica = (r as u64 + 1) << 32;
                let group = match part {
                    0 => &self.grouped[lo..lo + served],
                    1 => &self.grouped[lo + served..lo + admitted],
                    _ => &self.grouped[lo + admitted..end],
                };
                self.keys.extend(group.iter().map(|&i| replica | i));
                lo = end;
            }
        }
        let set = |call: &mut C, key: u64| call.set_replica((key >> 32) as u32);
        calls.permute_with(&self.keys, &mut self.buffer, set);
        (served_total, joined_total, wasted_total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::parse_scenario;

    fn one(yaml: &str) -> Server {
        let s = parse_scenario(yaml, None).unwrap();
        s.server
            .fleet
            .as_ref()
            .unwrap()
            .as_one(&s.server, s.horizon)
    }

    #[test]
    fn a_fleet_as_one_server_has_the_capacity_of_its_replicas_together() {
        // Three replicas of 10: replica 2 down until 3 s, replica 3 at 2 from 2 s to
        // 6 s, and the server's outage from 8 s to 9 s, which replica 2's own outages
        // replace.
        let server = one(
            "id: a\nclients: 1\nhorizon: 20s\nserver:\n  replicas: 3\n  outages: [{from: 8s, to: 9s}]\n  \
             overrides: [{replica: 2, outages: [{from: 0s, to: 3s}]},\n    \
             {replica: 3, slowdowns: [{from: 2s, to: 6s, capacity: 2}]}]\n",
        );
        assert_eq!(server.capacity_milli, 30_000);
        assert!(server.outages.is_empty());
        let s = |from: u64, to: u64, capacity: u64| Slowdown {
            from: from * 1_000_000,
            to: to * 1_000_000,
            capacity_milli: capacity * 1000,
        };
        assert_eq!(
            server.slowdowns,
            [s(0, 2, 20), s(2, 3, 12), s(3, 6, 22), s(8, 9, 10)]
        );
        assert!(server.fleet.is_none());
    }

    #[test]
    fn a_fleet_is_down_as_one_server_only_where_every_replica_is() {
        let server = one(
            "id: a\nclients: 1\nhorizon: 10s\nserver:\n  replicas: 2\n  outages: [{from: 1s, to: 2s}]\n  \
             overrides: [{replica: 2, outages: [{from: 1s, to: 3s}]}]\n",
        );
        assert_eq!(
            server.outages,
            [Outage {
                from: 1_000_000,
                to: 2_000_000
            }]
        );
        assert_eq!(
            server.slowdowns,
            [Slowdown {
                from: 2_000_000,
                to: 3_000_000,
                capacity_milli: 10_000
            }]
        );
    }
}
