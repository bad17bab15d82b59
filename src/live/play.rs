//! One strategy of a scenario played for real: an HTTP server on loopback that decides
//! each tick's calls at the tick's end by the engine's rule ([`super::admission`]), and
//! the scenario's clients, each an async task, retrying with their strategy's waits
//! ([`super::waits`]).
//!
//! **Time.** The run starts at one instant for server and clients, once every client
//! of the crowd has connected. A call belongs to the tick in which the server receives
//! it, counted from the start.
//!
//! **The server without a queue** holds each call until its tick ends and then answers
//! every call of the tick together: `200 OK` for those served (chosen at random),
//! `429 Too Many Requests` for the rest, `503 Service Unavailable` while down, each
//! rejection with `Retry-After: <seconds>` where the scenario gives a hint.
//!
//! **The server with a queue** (`server.queue`) is a real one: a call that arrives while
//! the server is down, or while its queue holds `limit` calls (those whose clients have
//! stopped waiting included), is answered at once, `503` or `429`; any other joins the
//! queue, in the order of arrival. At each tick's end the server serves as many calls
//! as the engine's arithmetic allows (its capacity less what the last tick's rejections
//! cost), oldest first (`fifo`) or newest first (`lifo`), and answers each `200 OK`; the
//! rest stay queued. A call whose client has stopped waiting is served in its turn all
//! the same: the server cannot tell. With `drop_expired`, each call carries its
//! deadline (`x-retrylab-deadline`, microseconds from the start, as a caller propagates
//! an absolute deadline), and at each tick's end, before serving, the server discards
//! every queued call that could no longer be answered before it (its deadline at or
//! before the tick's end), answering `504 Gateway Timeout` to nobody.
//!
//! **Clients.** A client of the crowd makes its first call at the start (at a uniformly
//! random time within `spread`, drawn with the scenario's seed in client order, as the
//! engine draws them), over a connection of its own. An open-loop request (`arrivals`;
//! a Poisson window's drawn as the engine draws them in a run of the same seed)
//! is a client of its own that connects and makes its first call at the request's time
//! in the model. With `retry.timeout`, a client stops waiting for an answer when its
//! timer fires, the timeout after it sent the call: the attempt timed out, and the
//! client drops its connection (a real client cannot take the same connection back
//! mid-call) and opens another for its next call. After a rejection or a timeout it
//! counts the failure and, as in the model, gives up on its last attempt; otherwise it
//! takes its next wait (after a rejection, the longer of it and the hint, when it
//! honours hints) and plans its retry at the time it *sent* the call plus the wait (plus
//! the timeout, after a timeout), on its own clock, as the model's clients do. It gives
//! up when that is past its deadline, or when the run's retry budget refuses the retry
//! (`denied`). The budget is the engine's ([`crate::engine::guards::budget`]), shared by
//! every client and fed at the moment of each event: a request deposits when it is
//! made, an answer read in time is a success, a rejection or a timeout a failure. A retry planned before the answer arrives is sent
//! as soon as it does. A retry whose tick (at the earliest the one after the failure's)
//! is at or past the horizon is not made: the client is still retrying. Where reality
//! differs is the point: each answer comes a round trip after the tick's end, timers
//! fire late by a little, what is sent after the answer keeps that delay, and a retry
//! after a rejection that was answered at once may land in the very tick that refused
//! it, which the model never lets it do.
//!
//! **Only the run's clients.** Each run has a token of its own, drawn afresh, which its
//! clients send in every call (`x-retrylab-run`); a request without it, from another
//! program on the machine, is answered `403 Forbidden` at once and counted only as
//! refused, never as a call. A run whose server counts more calls served than its
//! clients saw served in time and it served late is broken, and is an error, never a
//! result; so is one whose server decided a tick more than half a tick late (a machine
//! too busy to keep the tick would be measured instead of the model).
//!
//! **Totals.** Calls and the lanes' served and turned-away calls are the server's count;
//! served in time, gave up, still retrying, timed out and latencies the clients'. A
//! call served after its client stopped waiting is wasted: the server's served less the
//! clients' served in time, tick by tick. A latency is the time from sending the call to
//! reading its answer, for the calls answered in time; the median and 99th percentile
//! are by nearest rank, as the engine takes them. Goodput and the recovery time come
//! from the calls answered in time per tick by the engine's own definitions
//! ([`crate::engine::recovery`]). `done_at` is the start of the last tick in which a
//! client was served or gave up, when none is still retrying, as in the engine.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::engine::rng::Pcg64;
use hyper::body::Incoming;
use hyper::header::{HOST, HeaderValue, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rand::{RngExt, SeedableRng};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until, timeout_at};

use super::admission::{Admission, Verdict};
use super::record::{LiveLanes, LiveTotals};
use super::waits::Waits;
use crate::engine::guards::budget::BudgetState;
use crate::engine::poisson::Stream;
use crate::engine::recovery::{after_trigger, per_second_milli, recovery_tick};
use crate::engine::scenario::{Queue as QueueSetup, QueueOrder};
use crate::engine::stats::nearest_rank;
use crate::engine::units::{Micros, SECOND};
use crate::engine::{Scenario, Strategy};

/// The header that tells a client in which tick its call was decided.
const TICK_HEADER: &str = "x-retrylab-tick";

/// The header in which a client sends its run's token.
const RUN_HEADER: &str = "x-retrylab-run";

/// The header in which a client sends its call's deadline, in µs from the start.
const DEADLINE_HEADER: &str = "x-retrylab-deadline";

/// How long the clients have to connect before the run starts.
const CONNECTING: Duration = Duration::from_millis(500);

/// What the server tells one call.
#[derive(Clone, Copy, Debug)]
struct Answer {
    tick: u64,
    served: bool,
    down: bool,
    /// Discarded unserved, its deadline past (`drop_expired`).
    expired: bool,
    hint: Option<Micros>,
}

/// A call in the queue, waiting for its turn.
struct Queued {
    answer: oneshot::Sender<Answer>,
    /// The first tick whose end is at or after its deadline (`u64::MAX` without one).
    expiry: u64,
}

/// The calls the server holds.
#[derive(Default)]
struct Held {
    /// Without a queue: the calls of each tick not yet decided.
    ticks: BTreeMap<u64, Vec<oneshot::Sender<Answer>>>,
    /// With a queue: the calls taken and not yet served, in the order they arrived.
    queue: VecDeque<Queued>,
    /// With a queue: the calls of each tick turned away at once, not yet decided.
    turned_away: BTreeMap<u64, u64>,
    /// The ticks decided so far.
    decided: u64,
}

/// What the server shares with its connections.
struct Server {
    start: Instant,
    tick: Duration,
    /// The scenario's server, for its outages and hints.
    scenario: Arc<Scenario>,
    /// The queue, if the scenario has one with room for a call.
    queue: Option<QueueSetup>,
    held: Mutex<Held>,
    /// Told each time a tick has been decided.
    decisions: tokio::sync::Notify,
    /// The run's token, which its clients send.
    token: HeaderValue,
    /// Requests refused for want of the token.
    refused: AtomicU64,
    /// Calls of the run received.
    calls: AtomicU64,
}

impl Server {
    /// The tick of `now`, counted from the start.
    fn tick_of(&self, now: Instant) -> u64 {
        let since = now.saturating_duration_since(self.start);
        (since.as_micros() / self.tick.as_micros()) as u64
    }

    /// Microseconds from the start to `t` (0 before it).
    fn micros_of(&self, t: Instant) -> Micros {
        t.saturating_duration_since(self.start).as_micros() as Micros
    }

    /// The tick's length in µs.
    fn tick_us(&self) -> Micros {
        self.tick.as_micros() as Micros
    }

    /// The expiry tick of a call seen in tick `k` with its deadline at `deadline` µs
    /// from the start: the first tick whose end is at or after it, and at least `k + 1`,
    /// as in the engine.
    fn expiry(&self, deadline: Micros, k: u64) -> u64 {
        (deadline.max(1).div_ceil(self.tick_us()) - 1).max(k + 1)
    }
}

/// How one client ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Answered in time, in this tick, this long after it sent the call.
    Served(u64, Micros),
    /// Gave up after the failure (rejection or timeout) of this tick.
    GaveUp(u64),
    /// Gave up after the failure of this tick because the retry budget refused a retry.
    Denied(u64),
    StillRetrying,
}

/// The clients' shared retry budget, the engine's own state machine, fed as a real
/// client's budget is: each event at the time it happens. Each tick starts with no
/// deposit (Finagle's window moves on a tick), and each request deposits when it is
/// made.
struct SharedBudget {
    state: BudgetState,
    /// The next tick to start.
    next: u64,
}

impl SharedBudget {
    /// The budget in tick `k`, every tick up to it started in turn.
    fn at(&mut self, k: u64) -> &mut BudgetState {
        while self.next <= k {
            self.state.begin_tick(self.next as usize, 0);
            self.next += 1;
        }
        &mut self.state
    }
}

/// How one client's run went.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    end: End,
    /// Its attempts that timed out.
    timed_out: u64,
}

/// What one play gave: its totals, and the requests it refused for want of its token.
#[derive(Debug)]
pub struct Played {
    /// The run's totals.
    pub totals: LiveTotals,
    /// Requests refused, not counted: they came from outside the run.
    pub refused: u64,
}

/// Plays `strategy` of `scenario` once and returns its totals. `seed` seeds the spread
/// of first calls, the server's choice of whom to serve, and the engine's waits where
/// they are used.
pub async fn play(
    scenario: Arc<Scenario>,
    strategy: Strategy,
    seed: u64,
) -> Result<Played, String> {
    play_beside(scenario, strategy, seed, |_| {}).await
}

/// [`play`], telling `listening` the server's address once it listens (for a test to
/// send requests of its own).
pub async fn play_beside(
    scenario: Arc<Scenario>,
    strategy: Strategy,
    seed: u64,
    listening: impl FnOnce(SocketAddr),
) -> Result<Played, String> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .await
        .map_err(|e| format!("cannot listen on loopback: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on loopback: {e}"))?;
    let started = std::time::Instant::now();
    let server = Arc::new(Server {
        start: Instant::now() + CONNECTING,
        tick: Duration::from_micros(scenario.server.tick),
        scenario: Arc::clone(&scenario),
        queue: scenario.server.queue.filter(|q| q.limit > 0),
        held: Mutex::new(Held::default()),
        decisions: tokio::sync::Notify::new(),
        token: HeaderValue::try_from(token()).map_err(|e| format!("no token for the run: {e}"))?,
        refused: AtomicU64::new(0),
        calls: AtomicU64::new(0),
    });
    listening(address);
    let decided = Arc::new(Mutex::new(Decided::default()));
    // Every task of the run ends with it: a JoinSet aborts its tasks when dropped.
    let mut tasks = JoinSet::new();
    tasks.spawn(accept(listener, Arc::clone(&server)));
    tasks.spawn(decide(
        Arc::clone(&scenario),
        Arc::clone(&server),
        Arc::clone(&decided),
        seed,
    ));

    let budget = scenario.retry.budget.map(|b| {
        Arc::new(Mutex::new(SharedBudget {
            state: BudgetState::new(&b, scenario.server.tick, scenario.ticks()),
            next: 0,
        }))
    });
    // Client `id` (from 1) draws the engine's waits, where they are used, from its own
    // seed.
    let client = |id: u64| {
        Client::new(
            &scenario,
            &server,
            strategy,
            seed.wrapping_add(id),
            address,
            &budget,
        )
    };
    let mut rng = Pcg64::seed_from_u64(seed);
    // The open-loop requests' times, each window's in turn; a Poisson window's from a
    // generator seeded first, as the engine seeds it in a run of this seed.
    let streams = Stream::of_run(&scenario.arrivals, &mut rng);
    let mut starts: Vec<Micros> = Vec::new();
    for (window, stream) in scenario.arrivals.iter().zip(streams) {
        match stream {
            Some(stream) => starts.extend(stream),
            None => {
                starts.extend((window.indices_in(0, scenario.horizon)).map(|i| window.time_of(i)))
            }
        }
    }
    let mut clients = JoinSet::new();
    let mut id = 0u64;
    for _ in 0..scenario.clients {
        let first = match scenario.spread {
            0 => 0,
            spread => rng.random_range(0..spread),
        };
        let connection = connect(address).await?;
        id += 1;
        clients.spawn(client(id).run(
            Some(connection),
            server.start + Duration::from_micros(first),
        ));
    }
    if Instant::now() > server.start {
        return Err(format!(
            "the clients took longer than {} ms to connect on loopback; try fewer clients",
            CONNECTING.as_millis()
        ));
    }
    // Each open-loop request is a client of its own, which connects at its time.
    for &start in &starts {
        id += 1;
        let at = server.start + Duration::from_micros(start);
        clients.spawn(client(id).run(None, at));
    }
    let mut outcomes = Vec::new();
    while let Some(joined) = clients.join_next().await {
        outcomes.push(joined.map_err(|e| format!("a client failed: {e}"))??);
    }
    let elapsed = started.elapsed().saturating_sub(CONNECTING);
    drop(tasks);
    let decided = std::mem::take(&mut *decided.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some((k, late)) = decided.late {
        return Err(format!(
            "the machine could not keep the tick: the server decided tick {k} {} ms late, \
             more than half a tick of {} ms, so the run would measure the machine, not the \
             model; play it again on a quieter machine, or with a longer tick",
            late.as_millis(),
            server.tick.as_millis()
        ));
    }
    let calls = server.calls.load(Ordering::SeqCst);
    let totals = totals(&scenario, &starts, &outcomes, decided, calls, elapsed)?;
    Ok(Played {
        totals,
        refused: server.refused.load(Ordering::SeqCst),
    })
}

/// A token no other program can guess: 128 bits from the standard library's randomly
/// keyed hasher (its keys come from the operating system's random source).
fn token() -> String {
    use std::hash::{BuildHasher, Hasher};
    (0..2u64)
        .map(|i| {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(i);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

/// What the server decided, tick by tick.
#[derive(Debug, Default)]
struct Decided {
    /// Calls served per tick, answered in time or not.
    served: Vec<u64>,
    /// Calls turned away per tick.
    rejected: Vec<u64>,
    /// The first tick decided more than half a tick late, and how late.
    late: Option<(u64, Duration)>,
}

/// The run's totals from the clients' outcomes and the server's decisions; an error
/// when they cannot be one run: the clients saw served in time what the server never
/// served, or clients went missing.
fn totals(
    scenario: &Scenario,
    starts: &[Micros],
    outcomes: &[Outcome],
    decided: Decided,
    calls: u64,
    elapsed: Duration,
) -> Result<LiveTotals, String> {
    let ticks = scenario.ticks() as usize;
    let mut in_time = vec![0u64; ticks];
    let mut latencies = Vec::new();
    for o in outcomes {
        if let End::Served(k, latency) = o.end {
            if let Some(slot) = in_time.get_mut(k as usize) {
                *slot += 1;
            }
            latencies.push(latency);
        }
    }
    let mut all = decided.served.clone();
    all.resize(ticks, 0);
    let mut rejected = decided.rejected;
    rejected.resize(ticks, 0);
    let served: u64 = in_time.iter().sum();
    let count = |f: fn(&End) -> bool| outcomes.iter().filter(|o| f(&o.end)).count() as u64;
    let denied = count(|e| matches!(e, End::Denied(_)));
    let gave_up = count(|e| matches!(e, End::GaveUp(_))) + denied;
    let still_retrying = count(|e| *e == End::StillRetrying);
    let broken = in_time.iter().zip(&all).position(|(t, a)| t > a);
    if broken.is_some() || served + gave_up + still_retrying != outcomes.len() as u64 {
        return Err(format!(
            "the live run is broken, and no result: the server served {} calls, its {} \
             clients saw {served} served in time{}, {gave_up} gave up and {still_retrying} \
             are still retrying",
            all.iter().sum::<u64>(),
            outcomes.len(),
            broken.map_or(String::new(), |k| format!(
                " ({} in tick {k}, where the server served {})",
                in_time[k], all[k]
            )),
        ));
    }
    let timeout = scenario.retry.timeout.is_some();
    let wasted: Vec<u64> = in_time.iter().zip(&all).map(|(t, a)| a - t).collect();
    latencies.sort_unstable();
    let latency = (!latencies.is_empty())
        .then(|| (nearest_rank(&latencies, 50), nearest_rank(&latencies, 99)));
    // Goodput and recovery by the engine's definitions, over the calls answered in time.
    let tick = scenario.server.tick;
    let from = after_trigger(scenario);
    let as_u32 =
        |v: &[u64]| -> Vec<u32> { v.iter().map(|&c| c.min(u32::MAX.into()) as u32).collect() };
    let good = as_u32(&in_time);
    let mut offered = vec![0u32; ticks];
    for &start in starts {
        if let Some(n) = offered.get_mut((start / tick) as usize) {
            *n = n.saturating_add(1);
        }
    }
    let goodput_milli = per_second_milli(&good[from..], tick);
    let window = SECOND.div_ceil(tick).max(1) as usize;
    let recovery = scenario.trigger_end().and_then(|end| {
        recovery_tick(&good, &offered, from, window).map(|s| s as u64 * tick - end)
    });
    let last_served = in_time.iter().rposition(|&s| s > 0).map(|k| k as u64);
    let last_gave_up = outcomes
        .iter()
        .filter_map(|o| match o.end {
            End::GaveUp(k) | End::Denied(k) => Some(k),
            End::Served(..) | End::StillRetrying => None,
        })
        .max();
    let mut lanes = LiveLanes {
        served: in_time,
        rejected,
        wasted: if timeout { wasted.clone() } else { Vec::new() },
    };
    // Ticks after the last call carry nothing.
    while lanes.served.last() == Some(&0)
        && lanes.rejected.last() == Some(&0)
        && lanes.wasted.last().is_none_or(|&w| w == 0)
    {
        lanes.served.pop();
        lanes.rejected.pop();
        lanes.wasted.pop();
    }
    Ok(LiveTotals {
        calls,
        served,
        gave_up,
        still_retrying,
        done_at: (still_retrying == 0)
            .then(|| last_served.max(last_gave_up))
            .flatten()
            .map(|k| k * tick),
        timed_out: outcomes.iter().map(|o| o.timed_out).sum(),
        denied,
        wasted: wasted.iter().sum(),
        latency,
        goodput_milli,
        recovery,
        elapsed,
        lanes,
    })
}

/// Accepts connections and serves each with hyper until the run ends.
async fn accept(listener: TcpListener, server: Arc<Server>) {
    let mut connections = JoinSet::new();
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let server = Arc::clone(&server);
                async move {
                    // Not this run's: refused at once, and not a call.
                    if request.headers().get(RUN_HEADER) != Some(&server.token) {
                        server.refused.fetch_add(1, Ordering::SeqCst);
                        return Ok::<_, Infallible>(status(StatusCode::FORBIDDEN));
                    }
                    server.calls.fetch_add(1, Ordering::SeqCst);
                    let deadline = request
                        .headers()
                        .get(DEADLINE_HEADER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.parse::<Micros>().ok());
                    Ok::<_, Infallible>(respond(&server, deadline).await)
                }
            });
            // A connection that breaks fails its client, which reports it; one its
            // client dropped on a timeout ends here.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Takes one call: answers it at once, or holds it until it is decided, and answers it.
async fn respond(server: &Server, deadline: Option<Micros>) -> Response<String> {
    let (answer, answered) = oneshot::channel();
    let mut answer = Some(answer);
    /// What the call's arrival comes to.
    enum Arrival {
        /// Held for its tick's decision.
        Held,
        /// Answered at once.
        AtOnce(Answer),
        /// Come before the last tick was served: it waits until it is.
        Early,
    }
    let at_once = loop {
        // Registered before the lock is let go, so that no decision is missed.
        let decision = server.decisions.notified();
        let arrival = {
            let mut held = server.held.lock().unwrap_or_else(|e| e.into_inner());
            // The tick is read under the lock, so that a tick already decided is never
            // given another call (see [`decide`]).
            let k = server.tick_of(Instant::now());
            match server.queue {
                None => {
                    if let Some(answer) = answer.take() {
                        held.ticks.entry(k).or_default().push(answer);
                    }
                    Arrival::Held
                }
                // A queued call meets the queue as the last tick's service left it: one
                // that comes in a moment before the server has served that tick waits
                // until it has, as it would for a server busy serving.
                // (No tick past the horizon is ever decided.)
                Some(_) if held.decided < k && k < server.scenario.ticks() => Arrival::Early,
                Some(setup) => {
                    let admission = Admission::new(&server.scenario.server);
                    let down = admission.is_down(k);
                    if down || held.queue.len() >= setup.limit as usize {
                        *held.turned_away.entry(k).or_default() += 1;
                        Arrival::AtOnce(Answer {
                            tick: k,
                            served: false,
                            down,
                            expired: false,
                            hint: admission.hint(down),
                        })
                    } else {
                        let expiry = deadline.map_or(u64::MAX, |d| server.expiry(d, k));
                        if let Some(answer) = answer.take() {
                            held.queue.push_back(Queued { answer, expiry });
                        }
                        Arrival::Held
                    }
                }
            }
        };
        match arrival {
            Arrival::Held => break None,
            Arrival::AtOnce(a) => break Some(a),
            Arrival::Early => decision.await,
        }
    };
    let answer = match at_once {
        Some(answer) => answer,
        None => match answered.await {
            Ok(answer) => answer,
            Err(_) => return status(StatusCode::SERVICE_UNAVAILABLE),
        },
    };
    let code = match answer {
        Answer { served: true, .. } => StatusCode::OK,
        Answer { expired: true, .. } => StatusCode::GATEWAY_TIMEOUT,
        Answer { down: true, .. } => StatusCode::SERVICE_UNAVAILABLE,
        Answer { .. } => StatusCode::TOO_MANY_REQUESTS,
    };
    let mut response = status(code);
    let headers = response.headers_mut();
    headers.insert(TICK_HEADER, HeaderValue::from(answer.tick));
    if let Some(hint) = answer.hint.filter(|_| !answer.served && !answer.expired) {
        headers.insert(RETRY_AFTER, HeaderValue::from(hint / 1_000_000));
    }
    response
}

fn status(code: StatusCode) -> Response<String> {
    let mut response = Response::new(String::new());
    *response.status_mut() = code;
    response
}

/// Decides the ticks in order, each at its end, until the horizon.
async fn decide(
    scenario: Arc<Scenario>,
    server: Arc<Server>,
    decided: Arc<Mutex<Decided>>,
    seed: u64,
) {
    let mut admission = Admission::new(&scenario.server);
    let mut rng = Pcg64::seed_from_u64(seed ^ 0x5eed);
    for k in 0..scenario.ticks() {
        let end = server.start + server.tick * (k as u32 + 1);
        sleep_until(end).await;
        let late = Instant::now().saturating_duration_since(end);
        let (answers, served, rejected) = match server.queue {
            None => decide_tick(&server, &mut admission, &mut rng, k),
            Some(setup) => decide_queue(&server, &mut admission, setup, k),
        };
        server.decisions.notify_waiters();
        {
            let mut decided = decided.lock().unwrap_or_else(|e| e.into_inner());
            decided.served.push(served);
            decided.rejected.push(rejected);
            if late > server.tick / 2 && decided.late.is_none() {
                decided.late = Some((k, late));
            }
        }
        for (call, answer) in answers {
            // A client that is gone (timed out, or the run stopped) reads no answer.
            let _ = call.send(answer);
        }
    }
}

/// The answers of tick `k` without a queue, with the calls served and turned away:
/// the engine's verdict on the tick's calls, those served chosen uniformly at random.
fn decide_tick(
    server: &Server,
    admission: &mut Admission,
    rng: &mut Pcg64,
    k: u64,
) -> (Vec<(oneshot::Sender<Answer>, Answer)>, u64, u64) {
    let mut calls = {
        let mut held = server.held.lock().unwrap_or_else(|e| e.into_inner());
        held.decided = k + 1;
        held.ticks.remove(&k).unwrap_or_default()
    };
    let Verdict { served, down, hint } = admission.decide(k, calls.len() as u64);
    for i in 0..served as usize {
        let j = rng.random_range(i..calls.len());
        calls.swap(i, j);
    }
    let rejected = calls.len() as u64 - served;
    let answers = calls
        .into_iter()
        .enumerate()
        .map(|(i, call)| {
            let answer = Answer {
                tick: k,
                served: (i as u64) < served,
                down,
                expired: false,
                hint,
            };
            (call, answer)
        })
        .collect();
    (answers, served, rejected)
}

/// The answers of tick `k` with a queue, with the calls served and turned away: the
/// expired calls discarded (with `drop_expired`), then the queue served in its order.
fn decide_queue(
    server: &Server,
    admission: &mut Admission,
    setup: QueueSetup,
    k: u64,
) -> (Vec<(oneshot::Sender<Answer>, Answer)>, u64, u64) {
    let answer = |served, expired| Answer {
        tick: k,
        served,
        down: false,
        expired,
        hint: None,
    };
    let mut held = server.held.lock().unwrap_or_else(|e| e.into_inner());
    let mut answers = Vec::new();
    if setup.drop_expired {
        let queue = std::mem::take(&mut held.queue);
        for call in queue {
            if call.expiry <= k {
                answers.push((call.answer, answer(false, true)));
            } else {
                held.queue.push_back(call);
            }
        }
    }
    let turned_away = held.turned_away.remove(&k).unwrap_or(0);
    let budget = admission.serve_queue(k, turned_away);
    let n = (budget.min(held.queue.len() as u64)) as usize;
    let len = held.queue.len();
    let served: Vec<Queued> = match setup.order {
        QueueOrder::Fifo => held.queue.drain(..n).collect(),
        QueueOrder::Lifo => held.queue.drain(len - n..).rev().collect(),
    };
    answers.extend(served.into_iter().map(|c| (c.answer, answer(true, false))));
    held.decided = k + 1;
    (answers, n as u64, turned_away)
}

/// A client's connection: hyper's HTTP/1 sender, with the task that drives it.
struct Connection {
    sender: hyper::client::conn::http1::SendRequest<String>,
    _driver: JoinSet<()>,
}

async fn connect(address: SocketAddr) -> Result<Connection, String> {
    let failed = |e: &dyn std::fmt::Display| format!("a client cannot connect on loopback: {e}");
    let stream = TcpStream::connect(address).await.map_err(|e| failed(&e))?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| failed(&e))?;
    let mut driver = JoinSet::new();
    driver.spawn(async move {
        let _ = connection.await;
    });
    Ok(Connection {
        sender,
        _driver: driver,
    })
}

/// One client: of the crowd, or an open-loop request.
struct Client {
    scenario: Arc<Scenario>,
    server: Arc<Server>,
    address: SocketAddr,
    waits: Waits,
    /// The run's retry budget, shared by every client, if the scenario has one.
    budget: Option<Arc<Mutex<SharedBudget>>>,
}

/// How one call ended, on the client's side.
enum Called {
    /// Answered before its timer fired.
    Answered(Answer),
    /// Its timer fired first (or the server discarded it as expired).
    TimedOut,
}

impl Client {
    fn new(
        scenario: &Arc<Scenario>,
        server: &Arc<Server>,
        strategy: Strategy,
        seed: u64,
        address: SocketAddr,
        budget: &Option<Arc<Mutex<SharedBudget>>>,
    ) -> Client {
        Client {
            scenario: Arc::clone(scenario),
            server: Arc::clone(server),
            address,
            waits: Waits::new(strategy, scenario, seed),
            budget: budget.clone(),
        }
    }

    /// Does `what` to the budget in the tick of `now`, if there is one; `None` without.
    fn budget<T>(&self, now: Instant, what: impl FnOnce(&mut BudgetState) -> T) -> Option<T> {
        let k = self.server.tick_of(now);
        self.budget
            .as_ref()
            .map(|b| what(b.lock().unwrap_or_else(|e| e.into_inner()).at(k)))
    }

    /// Calls from `first` on until served, given up, or out of time, over `connection`
    /// or one of its own.
    async fn run(
        mut self,
        mut connection: Option<Connection>,
        first: Instant,
    ) -> Result<Outcome, String> {
        let scenario = Arc::clone(&self.scenario);
        let retry = &scenario.retry;
        let ticks = scenario.ticks();
        let mut calls = 0u32;
        let mut timed_out = 0;
        sleep_until(first).await;
        let first = Instant::now();
        loop {
            let sent = Instant::now();
            let seen = self.server.tick_of(sent);
            if seen >= ticks {
                return Ok(Outcome {
                    end: End::StillRetrying,
                    timed_out,
                });
            }
            if calls == 0 {
                self.budget(sent, |b| b.deposit(1));
            }
            let mut live = match connection.take() {
                Some(c) => c,
                None => connect(self.address).await?,
            };
            let deadline = retry.timeout.map(|t| sent + Duration::from_micros(t));
            // The server decides no tick past the horizon: a call still queued then is
            // never answered, and its client is still retrying. The last answers get
            // half a tick to arrive.
            let horizon = self.server.start + self.server.tick * ticks as u32;
            let give_up_waiting = horizon + self.server.tick / 2;
            let until = deadline.map_or(give_up_waiting, |d| d.min(give_up_waiting));
            let at = deadline.map(|d| self.server.micros_of(d));
            let called = match timeout_at(until, call(&self.server, &mut live, at)).await {
                Ok(answer) => match answer? {
                    a if a.expired => Called::TimedOut,
                    a => Called::Answered(a),
                },
                // The call is abandoned mid-way, and its connection with it.
                Err(_) if deadline.is_some_and(|d| d <= until) => Called::TimedOut,
                Err(_) => {
                    return Ok(Outcome {
                        end: End::StillRetrying,
                        timed_out,
                    });
                }
            };
            calls = calls.saturating_add(1);
            // When it failed, in which tick, and the hint it carried.
            let (failed, tick, hint) = match called {
                Called::Answered(answer) if answer.served => {
                    let now = Instant::now();
                    self.budget(now, |b| b.success(calls > 1));
                    let latency = now.saturating_duration_since(sent);
                    return Ok(Outcome {
                        end: End::Served(answer.tick, latency.as_micros() as Micros),
                        timed_out,
                    });
                }
                Called::Answered(answer) => {
                    connection = Some(live);
                    (sent, answer.tick, answer.hint)
                }
                Called::TimedOut => {
                    let d = deadline.expect("only a call with a deadline times out");
                    let m = self.server.expiry(self.server.micros_of(d), seen);
                    // A timeout past the last tick is not the run's: still retrying.
                    if m >= ticks {
                        return Ok(Outcome {
                            end: End::StillRetrying,
                            timed_out,
                        });
                    }
                    timed_out += 1;
                    (d, m, None)
                }
            };
            self.budget(Instant::now(), BudgetState::failure);
            if retry.max_attempts.is_some_and(|m| calls >= m) {
                return Ok(Outcome {
                    end: End::GaveUp(tick),
                    timed_out,
                });
            }
            let mut wait = self.waits.next_wait();
            if retry.honor_retry_after
                && let Some(hint) = hint
            {
                wait = wait.max(Duration::from_micros(hint));
            }
            // The model's clock: the wait counts from the call (from its timeout, after
            // one). Sleeping until a planned time that has passed returns at once.
            let planned = failed + wait;
            if retry
                .deadline
                .is_some_and(|d| planned > first + Duration::from_micros(d))
            {
                return Ok(Outcome {
                    end: End::GaveUp(tick),
                    timed_out,
                });
            }
            if self.budget(Instant::now(), BudgetState::try_retry) == Some(false) {
                return Ok(Outcome {
                    end: End::Denied(tick),
                    timed_out,
                });
            }
            if self.server.tick_of(planned).max(tick + 1) >= ticks {
                return Ok(Outcome {
                    end: End::StillRetrying,
                    timed_out,
                });
            }
            sleep_until(planned).await;
        }
    }
}

/// One call over `connection`: its answer, with the tick and hint the server gave;
/// `deadline`, in µs from the start, goes with it.
async fn call(
    server: &Server,
    connection: &mut Connection,
    deadline: Option<Micros>,
) -> Result<Answer, String> {
    let failed = |e: &dyn std::fmt::Display| format!("a call failed on loopback: {e}");
    let mut request = Request::get("/")
        .header(HOST, "127.0.0.1")
        .header(RUN_HEADER, server.token.clone());
    if let Some(d) = deadline {
        request = request.header(DEADLINE_HEADER, d);
    }
    let request = request.body(String::new()).map_err(|e| failed(&e))?;
    let sender = &mut connection.sender;
    sender.ready().await.map_err(|e| failed(&e))?;
    let response = sender.send_request(request).await.map_err(|e| failed(&e))?;
    let headers = response.headers();
    let number = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
    };
    let tick = number(TICK_HEADER).ok_or_else(|| failed(&"an answer without its tick"))?;
    let status = response.status();
    Ok(Answer {
        tick,
        served: status == StatusCode::OK,
        down: status == StatusCode::SERVICE_UNAVAILABLE,
        expired: status == StatusCode::GATEWAY_TIMEOUT,
        hint: number(RETRY_AFTER.as_str()).map(|s| s * 1_000_000),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(yaml: &str) -> Scenario {
        crate::engine::parse_scenario(yaml, Some("t")).expect("a valid scenario")
    }

    fn outcome(end: End) -> Outcome {
        Outcome { end, timed_out: 0 }
    }

    #[test]
    fn a_run_whose_clients_saw_more_served_than_the_server_served_is_broken() {
        let s = scenario("clients: 3\nhorizon: 1s\n");
        let decided = |served: Vec<u64>| Decided {
            rejected: vec![0; served.len()],
            served,
            late: None,
        };
        let ends = [
            outcome(End::Served(0, 50_000)),
            outcome(End::Served(2, 50_000)),
            outcome(End::GaveUp(3)),
        ];
        let ok = totals(&s, &[], &ends, decided(vec![1, 0, 1]), 5, Duration::ZERO).unwrap();
        assert_eq!((ok.served, ok.gave_up, ok.wasted), (2, 1, 0));
        // Served late by the server: wasted, in the tick it was served.
        let late = totals(&s, &[], &ends, decided(vec![1, 1, 1]), 5, Duration::ZERO).unwrap();
        assert_eq!(late.wasted, 1);
        let broken = totals(&s, &[], &ends, decided(vec![1, 0, 0]), 5, Duration::ZERO).unwrap_err();
        assert!(broken.starts_with("the live run is broken"), "{broken}");
        assert!(
            broken.contains("1 in tick 2, where the server served 0"),
            "{broken}"
        );
    }

    #[test]
    fn latencies_goodput_and_recovery_follow_the_engine_s_definitions() {
        // Ten requests a second, a slowdown to 1 s: goodput from 1 s on.
        let s = scenario(
            "clients: 0\narrivals: {rate: 10}\nhorizon: 3s\nserver: {tick: 100ms, \
             slowdowns: [{from: 0s, to: 1s, capacity: 0}], queue: {limit: 100}}\n",
        );
        // One call answered in each tick from 1 s on, 20 calls in 2 s: 10 a second.
        let ends: Vec<Outcome> = (10..30)
            .map(|k| outcome(End::Served(k, 1_000 * (k - 9))))
            .collect();
        let decided = Decided {
            served: vec![1; 30],
            rejected: vec![0; 30],
            late: None,
        };
        let starts: Vec<Micros> = (0..30).map(|i| i * 100_000).collect();
        let t = totals(&s, &starts, &ends, decided, 20, Duration::ZERO).unwrap();
        assert_eq!(t.goodput_milli, 10_000);
        // Every window from 1 s on is good: recovered at once.
        assert_eq!(t.recovery, Some(0));
        // Latencies 1..=20 ms: the 10th and the 20th by nearest rank.
        assert_eq!(t.latency, Some((10_000, 20_000)));
        // Ten served before 1 s to nobody: wasted is 0 without a timeout in the scenario,
        // but the lanes count only the calls answered in time.
        assert_eq!(t.lanes.served.iter().sum::<u64>(), 20);
    }

    #[test]
    fn a_call_expires_in_the_first_tick_whose_end_is_at_or_after_its_deadline() {
        let s = Arc::new(scenario("clients: 1\n"));
        let server = Server {
            start: Instant::now(),
            tick: Duration::from_millis(100),
            scenario: Arc::clone(&s),
            queue: None,
            held: Mutex::new(Held::default()),
            decisions: tokio::sync::Notify::new(),
            token: HeaderValue::from_static("t"),
            refused: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        };
        // A deadline on a tick's end: that tick; a microsecond past it: the next.
        assert_eq!(server.expiry(1_000_000, 0), 9);
        assert_eq!(server.expiry(1_000_001, 0), 10);
        // Never the tick that sees the call.
        assert_eq!(server.expiry(150_000, 1), 2);
    }

    #[test]
    fn each_run_has_a_token_of_its_own() {
        let (a, b) = (token(), token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
