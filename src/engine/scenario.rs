//! A scenario: the typed, validated setup of one simulation, and its limits.

use serde::Serialize;

pub use super::fleet::{Balancer, Fleet, Override};
use super::policy::{Strategy, least_waits};
use super::units::{Micros, SECOND};

/// The most clients one scenario may have.
pub const MAX_CLIENTS: u64 = 10_000_000;
/// The most ticks one horizon may hold.
pub const MAX_TICKS: u64 = 1_000_000;
/// The most Monte Carlo runs per strategy.
pub const MAX_RUNS: u64 = 10_000;
/// The longest horizon, cap and spread: times are kept in 32 bits of microseconds.
pub const MAX_TIME: Micros = 3_600 * SECOND;
/// The most work a scenario (or a sweep, over all its values) may do, in steps (see
/// [`Scenario::step_costs`]): one tick of one run, or one call seen in a tick of one
/// run. A run stops when the steps of its scenario pass it ([`super::work`]).
///
/// One core simulates about 100 million steps a second of the plain crowd (`cargo bench
/// --bench engine`) and 40 million of a scenario with guards (arrivals, Retry-After,
/// budgets, breakers or layers), whose steps count twice; so a scenario at the limit
/// takes four to seven seconds on one core (measured), and less on several.
pub const MAX_WORK: u128 = 500_000_000;
/// The largest capacity, in calls per tick.
pub const MAX_CAPACITY: u64 = 1_000_000_000;
/// The most layers of retries in a chain.
pub const MAX_LAYERS: usize = 4;

/// How the server decides which calls of a tick it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerModel {
    /// Serves up to its capacity; each rejection costs part of a call in the next tick.
    Capacity,
    /// Serves everything up to its capacity and nothing above it.
    AllOrNothing,
}

impl ServerModel {
    /// Every model, in documentation order.
    pub const ALL: [ServerModel; 2] = [ServerModel::Capacity, ServerModel::AllOrNothing];

    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            ServerModel::Capacity => "capacity",
            ServerModel::AllOrNothing => "all-or-nothing",
        }
    }
}

/// A window in which the server is down: `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Outage {
    /// When it starts.
    pub from: Micros,
    /// When the server is back.
    pub to: Micros,
}

/// The server's side of a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Server {
    /// Its model.
    pub model: ServerModel,
    /// Calls per tick, in thousandths of a call.
    pub capacity_milli: u64,
    /// The tick length.
    pub tick: Micros,
    /// The cost of one rejection, in thousandths of a served call.
    pub rejection_cost_milli: u64,
    /// Windows in which it is down.
    pub outages: Vec<Outage>,
    /// The Retry-After hint it attaches to rejections, if any.
    pub retry_after: Option<RetryAfter>,
    /// The "don't retry" it attaches to rejections, if any; left out of the
    /// serialisation when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pushback: Option<Pushback>,
    /// Windows in which it serves fewer calls per tick.
    pub slowdowns: Vec<Slowdown>,
    /// The cache in front of it, whose warmth sets its capacity ([`super::server`]);
    /// left out of the serialisation when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
    /// The queue in front of it, if any (a limit of 0 is no queue).
    pub queue: Option<Queue>,
    /// Its replicas and their balancer, when it has more than one
    /// ([`super::fleet`]); left out of the serialisation when it has one, so that a
    /// scenario without the keys is the one it always was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<Fleet>,
}

impl Server {
    /// Whether it holds calls over in a queue: its own, or, of a fleet, some
    /// replica's ([`Fleet::queued`]).
    pub fn queued(&self) -> bool {
        match &self.fleet {
            None => self.queue.is_some_and(|q| q.limit > 0),
            Some(fleet) => fleet.queued(self.queue),
        }
    }
}

/// A window `[from, to)` in which the server's capacity is lower (or higher).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Slowdown {
    /// When it starts.
    pub from: Micros,
    /// When the usual capacity is back.
    pub to: Micros,
    /// Calls per tick in the window, in thousandths of a call.
    pub capacity_milli: u64,
}

/// A cache in front of the server: a share of the calls hit it and cost less, as much as
/// it is warm ([`super::server`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Cache {
    /// Calls per tick when every call hits, in thousandths of a call.
    pub capacity_milli: u64,
    /// Calls answered in time within `ttl` that make it fully warm.
    pub warm_after: u64,
    /// How long an answer stays in it.
    pub ttl: Micros,
    /// Whether it starts full.
    pub start: CacheStart,
}

/// How a cache starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheStart {
    /// Full, as if `warm_after` calls had just been answered.
    Warm,
    /// Empty, as after a restart.
    Cold,
}

impl CacheStart {
    /// Every start, in documentation order.
    pub const ALL: [CacheStart; 2] = [CacheStart::Warm, CacheStart::Cold];

    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            CacheStart::Warm => "warm",
            CacheStart::Cold => "cold",
        }
    }
}

/// In which order the queue's calls are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueOrder {
    /// Oldest first.
    Fifo,
    /// Newest first.
    Lifo,
}

impl QueueOrder {
    /// Every order, in documentation order.
    pub const ALL: [QueueOrder; 2] = [QueueOrder::Fifo, QueueOrder::Lifo];

    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            QueueOrder::Fifo => "fifo",
            QueueOrder::Lifo => "lifo",
        }
    }
}

/// The queue in front of the server (see [`super::queue`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Queue {
    /// The most calls it holds.
    pub limit: u64,
    /// Which of its calls are served first.
    pub order: QueueOrder,
    /// Whether the server discards calls whose client has stopped waiting.
    pub drop_expired: bool,
}

/// Adaptive throttling on the client side, shared by all clients (Google SRE book,
/// chapter 21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Throttle {
    /// The multiplier of accepts, in thousandths.
    pub k_milli: u64,
    /// The window over which requests and accepts are counted.
    pub window: Micros,
}

/// Hedged requests (gRFC A6's hedging policy, see [`super::hedge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Hedging {
    /// The time between copies of a call while none is answered.
    pub delay: Micros,
    /// Copies of a call at most, counting the first: 2 to 5.
    pub max_attempts: u8,
}

/// Which rejections carry the Retry-After hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HintWhen {
    /// Every rejection.
    Always,
    /// Rejections of a server that is up but over its capacity.
    Overloaded,
    /// Rejections during an outage.
    Down,
}

impl HintWhen {
    /// Every choice, in documentation order.
    pub const ALL: [HintWhen; 3] = [HintWhen::Always, HintWhen::Overloaded, HintWhen::Down];

    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            HintWhen::Always => "always",
            HintWhen::Overloaded => "overloaded",
            HintWhen::Down => "down",
        }
    }

    /// Whether a rejection in a tick that is `down` (or not) is one it picks.
    pub fn applies(self, down: bool) -> bool {
        match self {
            HintWhen::Always => true,
            HintWhen::Overloaded => !down,
            HintWhen::Down => down,
        }
    }
}

/// The server's Retry-After hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RetryAfter {
    /// The least wait it asks for.
    pub hint: Micros,
    /// Which rejections carry it.
    pub when: HintWhen,
}

impl RetryAfter {
    /// Whether a rejection in a tick that is `down` (or not) carries the hint.
    pub fn applies(&self, down: bool) -> bool {
        self.when.applies(down)
    }
}

/// The server's pushback (gRPC A6, "Pushback"): the rejections it marks tell the client
/// not to retry, and the client's request ends there, in every layer; or, with
/// `after`, to retry after exactly that delay, its backoff started over
/// ([`super::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Pushback {
    /// Which rejections carry it.
    pub when: HintWhen,
    /// The delay it asks for; none for "don't retry". Left out of the serialisation
    /// when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Micros>,
}

impl Pushback {
    /// Whether a rejection in a tick that is `down` (or not) carries it.
    pub fn applies(&self, down: bool) -> bool {
        self.when.applies(down)
    }
}

/// Open-loop load: requests at a steady rate over `[from, to)`, each a new client.
///
/// Evenly spaced (the default), request `i` (from 0) starts at
/// `from + floor(i * 1e6 / rate)` µs, exactly: with the rate in thousandths per second,
/// at `from + floor(i * 1e9 / rate_milli)`. As a Poisson process, see
/// [`super::poisson`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Arrivals {
    /// Requests per second, in thousandths.
    pub rate_milli: u64,
    /// The first request.
    pub from: Micros,
    /// No request at or after this.
    pub to: Micros,
    /// How the requests are spaced.
    #[serde(skip_serializing_if = "Process::is_even")]
    pub process: Process,
}

/// How a window's requests are spaced in time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Process {
    /// Evenly, with no randomness.
    #[default]
    Even,
    /// As a Poisson process: exponential gaps, drawn from the run's seed
    /// ([`super::poisson`]).
    Poisson,
}

impl Process {
    /// Every process, by the name a scenario gives it.
    pub const ALL: [(&'static str, Process); 2] =
        [("even", Process::Even), ("poisson", Process::Poisson)];

    fn is_even(&self) -> bool {
        *self == Process::Even
    }
}

impl Arrivals {
    /// The index of the first request at or after `t` (`t >= from`):
    /// `ceil((t - from) * rate / 1e6)`.
    fn first_at(&self, t: Micros) -> u64 {
        // In 64 bits when the product fits, as it does for every rate a run can make
        // (128-bit division is a call into a routine in the browser's module, once per
        // tick); the same quotient either way.
        match (t - self.from).checked_mul(self.rate_milli) {
            Some(elapsed) => elapsed.div_ceil(1_000_000_000),
            None => {
                let elapsed = u128::from(t - self.from) * u128::from(self.rate_milli);
                elapsed.div_ceil(1_000_000_000) as u64
            }
        }
    }

    /// The indices of the requests that start in `[a, b)`.
    pub fn indices_in(&self, a: Micros, b: Micros) -> std::ops::Range<u64> {
        let (lo, hi) = (a.max(self.from), b.min(self.to));
        if hi <= lo {
            return 0..0;
        }
        self.first_at(lo)..self.first_at(hi)
    }

    /// When request `i` starts.
    pub fn time_of(&self, i: u64) -> Micros {
        // In 64 bits when the product fits (below 1.8e10 requests, every run's), as in
        // `first_at`: once per request.
        let offset = match i.checked_mul(1_000_000_000) {
            Some(scaled) => scaled / self.rate_milli,
            None => (u128::from(i) * 1_000_000_000 / u128::from(self.rate_milli)) as u64,
        };
        self.from + offset
    }

    /// When each request of `indices` starts, in order: [`Arrivals::time_of`] of each
    /// index, with a division for the first only. With `i · 1e9 = q · rate + r`
    /// (`0 ≤ r < rate`), the next request's is `q + ⌊1e9 / rate⌋`, and one more when `r`
    /// plus the remainder of `1e9 / rate` reaches the rate (it is then less that).
    pub fn times_of(&self, indices: std::ops::Range<u64>) -> impl Iterator<Item = Micros> + use<> {
        let (from, rate) = (self.from, self.rate_milli);
        let (step, step_rest) = (1_000_000_000 / rate, 1_000_000_000 % rate);
        let (mut q, mut r) = match indices.start.checked_mul(1_000_000_000) {
            Some(scaled) => (scaled / rate, scaled % rate),
            None => {
                let scaled = u128::from(indices.start) * 1_000_000_000;
                let rate = u128::from(rate);
                ((scaled / rate) as u64, (scaled % rate) as u64)
            }
        };
        indices.map(move |_| {
            let t = from + q;
            let (rest, carried) = r.overflowing_add(step_rest);
            (q, r) = match carried || rest >= rate {
                true => (q + step + 1, rest.wrapping_sub(rate)),
                false => (q + step, rest),
            };
            t
        })
    }

    /// How many requests the window makes: evenly spaced, exactly; as a Poisson process,
    /// what even spacing makes, its mean rounded up (a run's count varies about it).
    pub fn total(&self) -> u64 {
        self.indices_in(self.from, self.to).end
    }

    /// The fewest requests the window can make in a run: 0 as a Poisson process.
    pub fn least(&self) -> u64 {
        match self.process {
            Process::Even => self.total(),
            Process::Poisson => 0,
        }
    }

    /// The most requests the window can make in a run: as a Poisson process, its mean
    /// count `n` ([`Arrivals::total`]) plus ten standard deviations and 50,
    /// `n + 10 · ⌈√n⌉ + 50`, where the engine stops it ([`super::poisson`]).
    pub fn most(&self) -> u64 {
        let n = self.total();
        match self.process {
            Process::Even => n,
            Process::Poisson => {
                let root = n.isqrt();
                let root = root + u64::from(root * root < n);
                n.saturating_add(10 * root).saturating_add(50)
            }
        }
    }

    /// The tick after the one of its last request, at most: with even spacing the
    /// last request's, as a Poisson process its end's.
    pub fn done_by(&self, tick: Micros) -> Option<usize> {
        let last = match self.process {
            Process::Even => self.time_of(self.total().checked_sub(1)?),
            Process::Poisson => self.to.checked_sub(1)?,
        };
        Some((last / tick) as usize + 1)
    }
}

/// A retry budget shared by all clients of a run, by the implementation it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Budget {
    /// gRPC retry throttling: a failure takes a token, a success gives `token_ratio`;
    /// no retry while the tokens are at or below half of `max_tokens`.
    Grpc {
        /// The bucket's size, in tokens.
        max_tokens: u64,
        /// Tokens a success gives back, in thousandths.
        token_ratio_milli: u64,
    },
    /// Finagle's RetryBudget: retries stay within a share of the requests of the last
    /// `ttl`, plus a floor of retries per second.
    Finagle {
        /// The window over which requests and retries are counted.
        ttl: Micros,
        /// Retries always allowed per second of the window.
        min_retries_per_sec: u64,
        /// Retries allowed per request, in thousandths.
        percent_can_retry_milli: u64,
    },
    /// The AWS SDKs' standard retry quota: a retry costs tokens, a success refunds.
    Aws {
        /// The quota's size (and start).
        quota: u64,
        /// Tokens a retry costs.
        retry_cost: u64,
        /// Tokens a success of a first call gives back.
        no_retry_increment: u64,
    },
}

impl Budget {
    /// The names used in scenarios, in documentation order.
    pub const NAMES: [&'static str; 3] = ["grpc", "finagle", "aws"];

    /// The budget of a name with its published defaults.
    pub fn named(name: &str) -> Option<Budget> {
        match name {
            "grpc" => Some(Budget::Grpc {
                max_tokens: 10,
                token_ratio_milli: 100,
            }),
            "finagle" => Some(Budget::Finagle {
                ttl: 10 * SECOND,
                min_retries_per_sec: 10,
                percent_can_retry_milli: 200,
            }),
            "aws" => Some(Budget::Aws {
                quota: 500,
                retry_cost: 5,
                no_retry_increment: 1,
            }),
            _ => None,
        }
    }

    /// The name used in scenarios.
    pub fn name(&self) -> &'static str {
        match self {
            Budget::Grpc { .. } => "grpc",
            Budget::Finagle { .. } => "finagle",
            Budget::Aws { .. } => "aws",
        }
    }

    /// The settings a budget of its kind takes, by name.
    pub fn settings(&self) -> &'static [&'static str] {
        match self {
            Budget::Grpc { .. } => &["max_tokens", "token_ratio"],
            Budget::Finagle { .. } => &["ttl", "min_retries_per_sec", "percent_can_retry"],
            Budget::Aws { .. } => &["quota", "retry_cost", "no_retry_increment"],
        }
    }
}

/// A circuit breaker shared by all clients of a run, in the sense of resilience4j.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Breaker {
    /// The failure rate, in percent, at or above which it opens.
    pub failure_rate: u64,
    /// The count-based sliding window, in calls.
    pub window: u64,
    /// Calls the window must hold before the rate counts.
    pub minimum_calls: u64,
    /// How long it stays open.
    pub open_for: Micros,
    /// Trial calls it lets through when half-open.
    pub half_open_calls: u64,
    /// Whether a call that failed fast is retried per policy (the retry loop wraps the
    /// breaker) or ends its request (the client gives up at once).
    pub retry_when_open: bool,
}

impl Default for Breaker {
    fn default() -> Breaker {
        Breaker {
            failure_rate: 50,
            window: 100,
            minimum_calls: 20,
            open_for: 5 * SECOND,
            half_open_calls: 10,
            retry_when_open: true,
        }
    }
}

/// One layer of a chain of retries: each of its attempts is a whole retry sequence of
/// the layer below; the bottom layer's calls reach the server.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Layer {
    /// Attempts at this layer, counting the first.
    pub attempts: u32,
    /// Its strategy; `None` takes the lane's.
    pub strategy: Option<Strategy>,
    /// Its first wait.
    pub base: Micros,
    /// Its longest wait.
    pub cap: Micros,
    /// Growth of its ceiling per failure.
    pub multiplier: f64,
}

impl Layer {
    /// The retry parameters of this layer: its own waits, the rest as `shared` says.
    pub fn retry(&self, shared: &Retry) -> Retry {
        Retry {
            base: self.base,
            cap: self.cap,
            multiplier: self.multiplier,
            ..shared.clone()
        }
    }
}

/// The retry parameters that every strategy shares.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Retry {
    /// The first wait.
    pub base: Micros,
    /// The longest wait.
    pub cap: Micros,
    /// Growth of the ceiling per failure.
    pub multiplier: f64,
    /// Calls per client at most, counting the first.
    pub max_attempts: Option<u32>,
    /// Time from the first call after which nothing is sent.
    pub deadline: Option<Micros>,
    /// Whether clients wait at least the server's Retry-After hint.
    pub honor_retry_after: bool,
    /// Whether a rejection is retried only when it carries the Retry-After hint (a
    /// library's rule, urllib3's: see [`super::library`]); not a key of scenarios.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub only_with_hint: bool,
    /// The shared retry budget, if any.
    pub budget: Option<Budget>,
    /// The shared circuit breaker, if any.
    pub breaker: Option<Breaker>,
    /// How long a client waits for the answer to one call, if it stops waiting.
    pub timeout: Option<Micros>,
    /// Adaptive throttling on the client side, if any.
    pub throttle: Option<Throttle>,
    /// The jitter of `proportional-jitter`: each wait is the ceiling times a uniform
    /// factor in `[1 - jitter, 1 + jitter]`; between 0 and 1.
    pub jitter: f64,
    /// Whether a retry goes to a replica other than the one that saw the client's last
    /// call ([`super::fleet`]); left out of the serialisation when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub elsewhere: bool,
    /// Hedged requests, if any ([`super::hedge`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hedging: Option<Hedging>,
}

/// One simulation setup, validated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// Its name.
    pub id: String,
    /// Clients in the closed crowd.
    pub clients: u64,
    /// First calls are spread uniformly over `[0, spread)`.
    pub spread: Micros,
    /// When the run stops.
    pub horizon: Micros,
    /// Open-loop load: windows of steady arrivals, each request a new client.
    pub arrivals: Vec<Arrivals>,
    /// A chain of retry layers, top first; empty for a single layer.
    pub layers: Vec<Layer>,
    /// The server.
    pub server: Server,
    /// Shared retry parameters.
    pub retry: Retry,
    /// The strategies to compare, in the author's order.
    pub strategies: Vec<Strategy>,
    /// Monte Carlo runs per strategy.
    pub runs: u32,
    /// The seed of the first run.
    pub seed: u64,
}

impl Scenario {
    /// A scenario with every default and the given crowd, for tests and examples.
    pub fn with_clients(id: &str, clients: u64) -> Scenario {
        Scenario {
            id: id.to_string(),
            clients,
            spread: 0,
            arrivals: Vec::new(),
            layers: Vec::new(),
            horizon: 120 * SECOND,
            server: Server {
                model: ServerModel::Capacity,
                capacity_milli: 10_000,
                tick: 100_000,
                rejection_cost_milli: 100,
                outages: Vec::new(),
                retry_after: None,
                pushback: None,
                slowdowns: Vec::new(),
                cache: None,
                queue: None,
                fleet: None,
            },
            retry: Retry {
                base: 100_000,
                cap: 10 * SECOND,
                multiplier: 2.0,
                max_attempts: None,
                deadline: None,
                honor_retry_after: true,
                only_with_hint: false,
                budget: None,
                breaker: None,
                timeout: None,
                throttle: None,
                jitter: 0.2,
                elsewhere: false,
                hedging: None,
            },
            strategies: Strategy::CLASSIC.to_vec(),
            runs: 1,
            seed: 1,
        }
    }

    /// The number of ticks in the horizon.
    pub fn ticks(&self) -> u64 {
        self.horizon / self.server.tick
    }

    /// Open-loop requests per run, over all windows of arrivals (as a Poisson process,
    /// a window's mean, rounded up: [`Arrivals::total`]).
    pub fn arrivals_total(&self) -> u64 {
        self.arrivals.iter().map(Arrivals::total).sum()
    }

    /// Whether any window of arrivals is a Poisson process: a run's count then varies.
    pub fn arrivals_vary(&self) -> bool {
        (self.arrivals.iter()).any(|a| a.process == Process::Poisson)
    }

    /// Whether the scenario has any guard (see [`super::guards`]): arrivals,
    /// Retry-After, a budget, a breaker, throttling or layers.
    pub fn has_guards(&self) -> bool {
        !self.arrivals.is_empty()
            || self.retry.throttle.is_some()
            || !self.layers.is_empty()
            || self.server.retry_after.is_some()
            || self.server.pushback.is_some()
            || self.retry.budget.is_some()
            || self.retry.breaker.is_some()
            || self.retry.only_with_hint
            || self.retry.hedging.is_some()
    }

    /// The end of the trigger, for goodput and the recovery time: the end of the last
    /// outage or slowdown (of any replica, in a fleet), when the scenario has open-loop
    /// load and one of them.
    pub fn trigger_end(&self) -> Option<Micros> {
        if self.arrivals.is_empty() {
            return None;
        }
        // A fleet's trigger is any replica's.
        let servers = self.server.fleet.as_ref().map(|f| f.servers(&self.server));
        servers
            .as_deref()
            .unwrap_or(std::slice::from_ref(&self.server))
            .iter()
            .flat_map(|s| {
                s.outages
                    .iter()
                    .map(|o| o.to)
                    .chain(s.slowdowns.iter().map(|s| s.to))
            })
            .max()
    }

    /// The most calls one client can make in a run of `strategy`, counting the first:
    /// each attempt is in a tick of its own, no more than the attempt limit (or the
    /// product of the layers' attempts), and the waits between them, each at least the
    /// shortest the policy can draw, add up to less than the horizon and at most the
    /// deadline; with hedging, each attempt is at most `max_attempts` copies.
    pub fn calls_per_client(&self, strategy: Strategy) -> u64 {
        if let Some(library) = strategy.library() {
            return self.with_library(library).calls_per_client_of(strategy);
        }
        self.calls_per_client_of(strategy)
    }

    /// [`Scenario::calls_per_client`] with this scenario's own `retry:`.
    fn calls_per_client_of(&self, strategy: Strategy) -> u64 {
        let copies = self.retry.hedging.map_or(1, |h| u64::from(h.max_attempts));
        self.attempts_per_client_of(strategy).saturating_mul(copies)
    }

    /// The most attempts one client can make in a run of `strategy` (each a call, or
    /// a hedged call's copies).
    fn attempts_per_client_of(&self, strategy: Strategy) -> u64 {
        let mut most = self.ticks();
        let attempts = if self.layers.is_empty() {
            self.retry.max_attempts.map(u64::from)
        } else {
            Some(
                self.layers
                    .iter()
                    .fold(1u64, |p, l| p.saturating_mul(u64::from(l.attempts))),
            )
        };
        if let Some(attempts) = attempts {
            most = most.min(attempts);
        }
        let span = self.horizon.saturating_sub(1);
        let span = self.retry.deadline.map_or(span, |d| d.min(span));
        // The server's "retry after" starts the backoff over, with a wait of its own.
        let after = self.server.pushback.and_then(|p| p.after);
        if !self.layers.is_empty() || after.is_some() {
            // Each layer's waits start over when a layer above retries (or the server
            // says when): any wait is at least the shortest first wait of any layer, or
            // the server's.
            let firsts: Vec<Micros> = match self.layers.is_empty() {
                true => vec![
                    least_waits(strategy.kind(), &self.retry)
                        .next()
                        .unwrap_or(0),
                ],
                false => (self.layers.iter())
                    .map(|l| {
                        let retry = l.retry(&self.retry);
                        let kind = l.strategy.unwrap_or(strategy).kind();
                        least_waits(kind, &retry).next().unwrap_or(0)
                    })
                    .collect(),
            };
            let least = firsts.into_iter().chain(after).min().unwrap_or(0);
            return match span.checked_div(least) {
                Some(more) => most.min(more.saturating_add(1)),
                None => most,
            };
        }
        let (mut calls, mut spent, mut last) = (1u64, 0u64, 0);
        for wait in least_waits(strategy.kind(), &self.retry) {
            if calls >= most {
                return most;
            }
            if spent + wait > span {
                return calls;
            }
            spent += wait;
            calls += 1;
            last = wait;
        }
        // Every later wait is the last one.
        match (span - spent).checked_div(last) {
            Some(more) => most.min(calls.saturating_add(more)),
            None => most,
        }
    }

    /// What one run of this scenario costs in steps ([`MAX_WORK`]): each tick costs one,
    /// plus one for each outage, slowdown and window of arrivals it looks at, and each
    /// call seen in a tick costs one. With guards or a queue the loop does about twice
    /// as much per step (measured; a queued call is joined, served or timed out once
    /// each), so both count twice, and so do a fleet's ([`super::fleet`]), whose
    /// replicas each cost one more a tick and look at their own outages and slowdowns.
    /// Returns (steps per tick, steps per call); a library strategy's run costs what its
    /// own lane ([`Scenario::lane`]) does.
    pub fn step_costs(&self) -> (u64, u64) {
        let queued = self.server.queued();
        let fleet = self.server.fleet.as_ref();
        let weight = if self.has_guards() || queued || fleet.is_some() {
            2
        } else {
            1
        };
        // Each replica of a fleet looks at its own outages and slowdowns.
        let windows = |s: &Server| (s.outages.len() + s.slowdowns.len()) as u64;
        let servers = fleet.map_or_else(
            || windows(&self.server),
            |f| f.servers(&self.server).iter().map(windows).sum(),
        );
        let replicas = fleet.map_or(0, |f| u64::from(f.replicas));
        let per_tick = 1 + replicas + servers + self.arrivals.len() as u64;
        (weight * per_tick, weight)
    }

    /// The work of every run of every strategy, in steps ([`Scenario::step_costs`]),
    /// when each client makes `calls(lane, strategy)` calls.
    fn work_with(
        &self,
        arrivals: fn(&Arrivals) -> u64,
        calls: impl Fn(&Scenario, Strategy) -> u64,
    ) -> u128 {
        let arrivals: u128 = self.arrivals.iter().map(|a| u128::from(arrivals(a))).sum();
        let requests = u128::from(self.clients) + arrivals;
        let runs = u128::from(self.runs);
        self.strategies
            .iter()
            .map(|&s| {
                let lane = self.lane(s);
                let (per_tick, per_call) = lane.step_costs();
                let ticks = u128::from(self.ticks()) * u128::from(per_tick);
                let calls = requests * u128::from(per_call) * u128::from(calls(&lane, s));
                runs * (ticks + calls)
            })
            .sum()
    }

    /// The least work this scenario can need, in steps, for [`MAX_WORK`]: every run of
    /// every strategy steps through each tick, and each client and arrival makes at
    /// least its first call (a Poisson window may make none: [`Arrivals::least`]). A
    /// scenario whose least work passes the limit is refused before it runs.
    pub fn least_work(&self) -> u128 {
        self.work_with(Arrivals::least, |_, _| 1)
    }

    /// The most work this scenario can need, in steps: as [`Scenario::least_work`], with
    /// every client making every call it can ([`Scenario::calls_per_client`]) and each
    /// window of arrivals its most requests ([`Arrivals::most`]). A scenario within the
    /// limit at its most runs without counting its steps.
    pub fn most_work(&self) -> u128 {
        self.work_with(Arrivals::most, |lane, s| lane.calls_per_client_of(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::Pcg64;
    use rand::{RngExt, SeedableRng};

    /// The arrivals' times and indices in 64 bits are those of the 128-bit formulas,
    /// where the products fit and where they do not.
    #[test]
    fn arrivals_in_64_bits_are_the_exact_formulas() {
        let mut rng = Pcg64::seed_from_u64(3);
        let rates = [1, 999, 1_000_000, 80_000, u64::MAX / 1_000, u64::MAX];
        for _ in 0..20_000 {
            let rate_milli = match rng.random_range(0..3) {
                0 => rates[rng.random_range(0..rates.len())],
                1 => rng.random_range(1..10_000_000_000),
                _ => rng.random_range(1..=u64::MAX),
            };
            let window = Arrivals {
                rate_milli,
                from: rng.random_range(0..1_000_000),
                to: MAX_TIME,
                process: Process::Even,
            };
            let t = window.from + rng.random_range(0..=MAX_TIME - window.from);
            let elapsed = u128::from(t - window.from) * u128::from(rate_milli);
            assert_eq!(window.first_at(t), elapsed.div_ceil(1_000_000_000) as u64);
            let i = match rng.random_range(0..3) {
                0 => rng.random_range(0..1_000_000),
                1 => u64::MAX / 1_000_000_000 + rng.random_range(0..3),
                _ => rng.random_range(0..=u64::MAX),
            };
            let exact = u128::from(i) * 1_000_000_000 / u128::from(rate_milli);
            if let Ok(offset) = u64::try_from(exact)
                && let Some(at) = window.from.checked_add(offset)
            {
                assert_eq!(window.time_of(i), at, "{i} at {rate_milli}");
            }
        }
    }

    /// The times of a span's requests, stepped from the first, are each request's own.
    #[test]
    fn arrival_times_step_exactly() {
        let mut rng = Pcg64::seed_from_u64(4);
        for _ in 0..2_000 {
            let rate_milli = match rng.random_range(0..4) {
                0 => rng.random_range(1..2_000),
                1 => rng.random_range(1..10_000_000_000),
                2 => [1_000_000_000, 3, 7_000, 999_999_999, 1_000_000_001][rng.random_range(0..5)],
                _ => rng.random_range(u64::MAX / 2..=u64::MAX),
            };
            let from = rng.random_range(0..10_000_000);
            let window = Arrivals {
                rate_milli,
                from,
                to: from + rng.random_range(1..100_000_000),
                process: Process::Even,
            };
            let a = rng.random_range(0..window.to + 1_000);
            let b = a + rng.random_range(0..2_000_000);
            let stepped: Vec<Micros> = (window.times_of(window.indices_in(a, b)))
                .take(5_000)
                .collect();
            let each: Vec<Micros> = (window.indices_in(a, b).take(5_000))
                .map(|i| window.time_of(i))
                .collect();
            assert_eq!(stepped, each, "{window:?} in [{a}, {b})");
        }
    }
}
