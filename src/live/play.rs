//! One strategy of a scenario played for real: an HTTP server on loopback that decides
//! each tick's calls at the tick's end by the engine's rule ([`super::admission`]), and
//! the crowd's clients, each an async task with a connection of its own, retrying with
//! their strategy's waits ([`super::waits`]).
//!
//! **Time.** The run starts at one instant for server and clients, once every client
//! has connected. A call belongs to the tick in which the server receives it, counted
//! from the start; the server holds it until the tick ends and then answers every call
//! of the tick together: `200 OK` for those served (chosen at random), `429 Too Many
//! Requests` for the rest, `503 Service Unavailable` while down, each rejection with
//! `Retry-After: <seconds>` where the scenario gives a hint.
//!
//! **Clients.** A client makes its first call at the start (at a uniformly random time
//! within `spread`, drawn with the scenario's seed in client order, as the engine
//! draws them). After a rejection it counts the failure and, as in the model, gives up
//! on its last attempt; otherwise it takes its next wait (the longer of it and the
//! hint, when it honours hints) and plans its retry at the time it *sent* the call plus
//! the wait, on its own clock, as the model's clients do. It gives up when that is past
//! its deadline. An answer comes at the end of the call's tick, so a retry planned
//! before the answer arrives is sent as soon as it does, in a later tick, as the model
//! moves such a retry to the next tick. A retry whose tick (at the earliest the one
//! after the rejection) is at or past the horizon is not made: the client is still
//! retrying. Where reality differs is the point: each answer comes a round trip after
//! the tick's end, timers fire late by a little, and what is sent after the answer
//! keeps that delay.
//!
//! **Only the run's clients.** Each run has a token of its own, drawn afresh, which its
//! clients send in every call (`x-retrylab-run`); a request without it, from another
//! program on the machine, is answered `403 Forbidden` at once and counted only as
//! refused, never as a call. A run whose server counts more clients served than its
//! clients saw served is broken, and is an error, never a result.
//!
//! **Totals.** Calls, served and the lanes are the server's count; gave up and still
//! retrying the clients'. `done_at` is the start of the last tick in which a client was
//! served or gave up, when none is still retrying, as in the engine.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{HOST, HeaderValue, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use super::admission::{Admission, Verdict};
use super::record::{LiveLanes, LiveTotals};
use super::waits::Waits;
use crate::engine::units::Micros;
use crate::engine::{Scenario, Strategy};

/// The header that tells a client in which tick its call was decided.
const TICK_HEADER: &str = "x-retrylab-tick";

/// The header in which a client sends its run's token.
const RUN_HEADER: &str = "x-retrylab-run";

/// How long the clients have to connect before the run starts.
const CONNECTING: Duration = Duration::from_millis(500);

/// What the server tells one call.
#[derive(Clone, Copy, Debug)]
struct Answer {
    tick: u64,
    served: bool,
    down: bool,
    hint: Option<Micros>,
}

/// What the server shares with its connections.
struct Server {
    start: Instant,
    tick: Duration,
    /// The calls of each tick not yet decided, each waiting for its answer.
    pending: Mutex<BTreeMap<u64, Vec<oneshot::Sender<Answer>>>>,
    /// The run's token, which its clients send.
    token: HeaderValue,
    /// Requests refused for want of the token.
    refused: AtomicU64,
}

impl Server {
    /// The tick of `now`, counted from the start.
    fn tick_of(&self, now: Instant) -> u64 {
        let since = now.saturating_duration_since(self.start);
        (since.as_micros() / self.tick.as_micros()) as u64
    }
}

/// How one client ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Served,
    /// Gave up after the rejection of this tick.
    GaveUp(u64),
    StillRetrying,
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
        pending: Mutex::new(BTreeMap::new()),
        token: HeaderValue::try_from(token()).map_err(|e| format!("no token for the run: {e}"))?,
        refused: AtomicU64::new(0),
    });
    listening(address);
    let lanes = Arc::new(Mutex::new(LiveLanes::default()));
    // Every task of the run ends with it: a JoinSet aborts its tasks when dropped.
    let mut tasks = JoinSet::new();
    tasks.spawn(accept(listener, Arc::clone(&server)));
    tasks.spawn(decide(
        Arc::clone(&scenario),
        Arc::clone(&server),
        Arc::clone(&lanes),
        seed,
    ));

    let mut rng = Pcg64::seed_from_u64(seed);
    let mut clients = JoinSet::new();
    for i in 0..scenario.clients {
        let first = match scenario.spread {
            0 => 0,
            spread => rng.random_range(0..spread),
        };
        let connection = connect(address).await?;
        let waits = Waits::new(strategy, &scenario, seed.wrapping_add(i + 1));
        let client = Client {
            scenario: Arc::clone(&scenario),
            server: Arc::clone(&server),
            connection,
            waits,
        };
        clients.spawn(client.run(server.start + Duration::from_micros(first)));
    }
    if Instant::now() > server.start {
        return Err(format!(
            "the clients took longer than {} ms to connect on loopback; try fewer clients",
            CONNECTING.as_millis()
        ));
    }
    let mut ends = Vec::new();
    while let Some(joined) = clients.join_next().await {
        ends.push(joined.map_err(|e| format!("a client failed: {e}"))??);
    }
    let elapsed = started.elapsed().saturating_sub(CONNECTING);
    drop(tasks);
    let lanes = std::mem::take(&mut *lanes.lock().unwrap_or_else(|e| e.into_inner()));
    let totals = totals(&scenario, &ends, lanes, elapsed);
    conserved(&totals, &ends, scenario.clients)?;
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

/// Whether the totals can be a run of `clients` clients: the server served no more
/// than there are, and exactly those its clients saw served. Anything else means
/// calls came from elsewhere or were lost, and the run is no result.
fn conserved(totals: &LiveTotals, ends: &[End], clients: u64) -> Result<(), String> {
    let seen = ends.iter().filter(|e| **e == End::Served).count() as u64;
    let ended = totals.served.max(seen) + totals.gave_up + totals.still_retrying;
    if totals.served > clients || totals.served != seen || ended != clients {
        return Err(format!(
            "the live run is broken, and no result: the server served {} of {clients} clients, \
             its clients saw {seen} served, {} gave up and {} still retrying",
            totals.served, totals.gave_up, totals.still_retrying
        ));
    }
    Ok(())
}

/// The run's totals from the clients' ends and the server's lanes.
fn totals(
    scenario: &Scenario,
    ends: &[End],
    mut lanes: LiveLanes,
    elapsed: Duration,
) -> LiveTotals {
    // Ticks after the last call carry nothing.
    while lanes.served.last() == Some(&0) && lanes.rejected.last() == Some(&0) {
        lanes.served.pop();
        lanes.rejected.pop();
    }
    let count = |f: fn(&End) -> bool| ends.iter().filter(|e| f(e)).count() as u64;
    let still_retrying = count(|e| *e == End::StillRetrying);
    let last_served = lanes.served.iter().rposition(|&s| s > 0).map(|k| k as u64);
    let last_gave_up = ends
        .iter()
        .filter_map(|e| match e {
            End::GaveUp(k) => Some(*k),
            End::Served | End::StillRetrying => None,
        })
        .max();
    LiveTotals {
        calls: lanes.served.iter().chain(&lanes.rejected).sum(),
        served: lanes.served.iter().sum(),
        gave_up: count(|e| matches!(e, End::GaveUp(_))),
        still_retrying,
        done_at: (still_retrying == 0)
            .then(|| last_served.max(last_gave_up))
            .flatten()
            .map(|k| k * scenario.server.tick),
        elapsed,
        lanes,
    }
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
                    Ok::<_, Infallible>(respond(&server).await)
                }
            });
            // A connection that breaks fails its client, which reports it.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Holds one call until its tick is decided, and answers it.
async fn respond(server: &Server) -> Response<String> {
    let (answer, answered) = oneshot::channel();
    {
        let mut pending = server.pending.lock().unwrap_or_else(|e| e.into_inner());
        // The tick is read under the lock, so that a tick already decided is never
        // given another call (see [`decide`]).
        let k = server.tick_of(Instant::now());
        pending.entry(k).or_default().push(answer);
    }
    let Ok(answer) = answered.await else {
        return status(StatusCode::SERVICE_UNAVAILABLE);
    };
    let code = if answer.served {
        StatusCode::OK
    } else if answer.down {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::TOO_MANY_REQUESTS
    };
    let mut response = status(code);
    let headers = response.headers_mut();
    headers.insert(TICK_HEADER, HeaderValue::from(answer.tick));
    if let Some(hint) = answer.hint.filter(|_| !answer.served) {
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
    lanes: Arc<Mutex<LiveLanes>>,
    seed: u64,
) {
    let mut admission = Admission::new(&scenario.server);
    let mut rng = Pcg64::seed_from_u64(seed ^ 0x5eed);
    for k in 0..scenario.ticks() {
        let end = server.start + server.tick * (k as u32 + 1);
        sleep_until(end).await;
        let mut calls = {
            let mut pending = server.pending.lock().unwrap_or_else(|e| e.into_inner());
            pending.remove(&k).unwrap_or_default()
        };
        let Verdict { served, down, hint } = admission.decide(k, calls.len() as u64);
        // Whom to serve: a uniformly random choice among the tick's calls.
        for i in 0..served as usize {
            let j = rng.random_range(i..calls.len());
            calls.swap(i, j);
        }
        {
            let mut lanes = lanes.lock().unwrap_or_else(|e| e.into_inner());
            lanes.served.push(served);
            lanes.rejected.push(calls.len() as u64 - served);
        }
        for (i, call) in calls.into_iter().enumerate() {
            let served = (i as u64) < served;
            // A client that is gone (the run stopped) needs no answer.
            let _ = call.send(Answer {
                tick: k,
                served,
                down,
                hint,
            });
        }
    }
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

/// One client of the crowd.
struct Client {
    scenario: Arc<Scenario>,
    server: Arc<Server>,
    connection: Connection,
    waits: Waits,
}

impl Client {
    /// Calls from `first` on until served, given up, or out of time.
    async fn run(mut self, first: Instant) -> Result<End, String> {
        let scenario = Arc::clone(&self.scenario);
        let retry = &scenario.retry;
        let ticks = scenario.ticks();
        let mut calls = 0u32;
        sleep_until(first).await;
        let first = Instant::now();
        loop {
            let sent = Instant::now();
            if self.server.tick_of(sent) >= ticks {
                return Ok(End::StillRetrying);
            }
            let answer = self.call().await?;
            calls = calls.saturating_add(1);
            if answer.served {
                return Ok(End::Served);
            }
            if retry.max_attempts.is_some_and(|m| calls >= m) {
                return Ok(End::GaveUp(answer.tick));
            }
            let mut wait = self.waits.next_wait();
            if retry.honor_retry_after
                && let Some(hint) = answer.hint
            {
                wait = wait.max(Duration::from_micros(hint));
            }
            // The model's clock: the wait counts from the call. Sleeping until a
            // planned time that has passed returns at once.
            let planned = sent + wait;
            if retry
                .deadline
                .is_some_and(|d| planned > first + Duration::from_micros(d))
            {
                return Ok(End::GaveUp(answer.tick));
            }
            if self.server.tick_of(planned).max(answer.tick + 1) >= ticks {
                return Ok(End::StillRetrying);
            }
            sleep_until(planned).await;
        }
    }

    /// One call: its answer, with the tick and hint the server gave.
    async fn call(&mut self) -> Result<Answer, String> {
        let failed = |e: &dyn std::fmt::Display| format!("a call failed on loopback: {e}");
        let request = Request::get("/")
            .header(HOST, "127.0.0.1")
            .header(RUN_HEADER, self.server.token.clone())
            .body(String::new())
            .map_err(|e| failed(&e))?;
        let sender = &mut self.connection.sender;
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
            hint: number(RETRY_AFTER.as_str()).map(|s| s * 1_000_000),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_serves_more_than_its_clients_saw_is_broken() {
        let totals = |served, gave_up| LiveTotals {
            calls: 20,
            served,
            gave_up,
            ..LiveTotals::default()
        };
        let ends = [End::Served, End::Served, End::GaveUp(3)];
        assert_eq!(conserved(&totals(2, 1), &ends, 3), Ok(()));
        for (served, gave_up) in [(3, 1), (4, 0), (1, 1)] {
            let broken = conserved(&totals(served, gave_up), &ends, 3).unwrap_err();
            assert!(broken.starts_with("the live run is broken"), "{broken}");
        }
    }

    #[test]
    fn each_run_has_a_token_of_its_own() {
        let (a, b) = (token(), token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
