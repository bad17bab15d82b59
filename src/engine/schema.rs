//! The scenario format as data: every key, its type, default and meaning.
//!
//! The parser takes its lists of known keys from this table, and the authors' reference
//! is written from it, so the documentation cannot drift from what is accepted.

/// Where in a scenario a key lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The top level of the scenario.
    Top,
    /// Under `server:`.
    Server,
    /// Each entry of `server.outages`.
    Outage,
    /// Under `retry:`.
    Retry,
    /// Each window of `arrivals` (or its one map).
    Arrivals,
    /// Under `server.retry_after:`.
    RetryAfter,
    /// Under `server.pushback:`.
    Pushback,
    /// Under `server.cache:`.
    Cache,
    /// Under `retry.budget:`.
    Budget,
    /// Under `retry.breaker:`.
    Breaker,
    /// Each entry of `layers`.
    Layer,
    /// Under `server.queue:`.
    Queue,
    /// Each entry of `server.slowdowns`.
    Slowdown,
    /// Under `retry.throttle:`.
    Throttle,
    /// Under `retry.hedging:`.
    Hedging,
    /// Each entry of `server.overrides`.
    Override,
    /// Under `figure:`: how an article draws the scenario. The engine ignores it.
    Figure,
}

impl Section {
    /// The dotted prefix used in messages (`server.`), empty at the top.
    pub fn prefix(self) -> &'static str {
        match self {
            Section::Top => "",
            Section::Server => "server.",
            Section::Outage => "server.outages[].",
            Section::Retry => "retry.",
            Section::Arrivals => "arrivals.",
            Section::RetryAfter => "server.retry_after.",
            Section::Pushback => "server.pushback.",
            Section::Cache => "server.cache.",
            Section::Budget => "retry.budget.",
            Section::Breaker => "retry.breaker.",
            Section::Layer => "layers[].",
            Section::Queue => "server.queue.",
            Section::Slowdown => "server.slowdowns[].",
            Section::Throttle => "retry.throttle.",
            Section::Hedging => "retry.hedging.",
            Section::Override => "server.overrides[].",
            Section::Figure => "figure.",
        }
    }
}

/// One documented key.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// Where it lives.
    pub section: Section,
    /// Its name.
    pub name: &'static str,
    /// Its type, as an author writes it.
    pub kind: &'static str,
    /// Its default, or "required".
    pub default: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

/// Every key of the scenario format.
pub const KEYS: &[Key] = &[
    Key {
        section: Section::Top,
        name: "id",
        kind: "name (letters, digits, `-`, `_`)",
        default: "required in an article; the file name for `retrylab sim`",
        meaning: "What the prose and other directives call this scenario.",
    },
    Key {
        section: Section::Top,
        name: "clients",
        kind: "whole number, 1 to 10,000,000 (0 to 10,000,000 with `arrivals`)",
        default: "required, unless the scenario has `arrivals` (then 0)",
        meaning: "How many clients make their first call together (the closed crowd).",
    },
    Key {
        section: Section::Top,
        name: "arrivals",
        kind: "`{rate, from, to, process}`, or a list of them",
        default: "none",
        meaning: "Open-loop load: new requests at a steady rate, each a new client with its \
                  own retry state, alongside or instead of the crowd. Request i of a window \
                  starts at from + floor(i × 1,000,000 / rate) µs, evenly spaced, or with \
                  `process: poisson` after random gaps, as a Poisson process.",
    },
    Key {
        section: Section::Top,
        name: "layers",
        kind: "list of `{attempts, strategy, base, cap, multiplier}`, top first, at most 4",
        default: "none (one layer: the lane's strategy and `retry`)",
        meaning: "A chain of retries: each attempt of a layer is a whole retry sequence of \
                  the layer below; the bottom layer's calls reach the server. Replaces \
                  `retry.max_attempts`.",
    },
    Key {
        section: Section::Top,
        name: "spread",
        kind: "duration",
        default: "0s",
        meaning: "Each client's first call is at a uniformly random time in [0, spread).",
    },
    Key {
        section: Section::Top,
        name: "horizon",
        kind: "duration, a whole number of ticks, at most 1h",
        default: "2m",
        meaning: "How long the simulation runs; no call is made at or after it.",
    },
    Key {
        section: Section::Top,
        name: "server",
        kind: "map",
        default: "the defaults of its keys",
        meaning: "The server the clients call.",
    },
    Key {
        section: Section::Top,
        name: "retry",
        kind: "map",
        default: "the defaults of its keys",
        meaning: "The parameters every strategy shares.",
    },
    Key {
        section: Section::Top,
        name: "figure",
        kind: "map",
        default: "the defaults of its keys",
        meaning: "How an article draws the scenario; `retrylab sim` ignores it.",
    },
    Key {
        section: Section::Top,
        name: "sweep",
        kind: "map",
        default: "none",
        meaning: "In a `sweep` directive: the parameter to vary, its values and the total \
                  to chart; `retrylab sim` ignores it.",
    },
    Key {
        section: Section::Top,
        name: "strategies",
        kind: "list of strategy names",
        default: "the first five (all but proportional-jitter)",
        meaning: "The strategies to compare, each one a lane: the model's fixed, \
                  exponential, full-jitter, equal-jitter, decorrelated-jitter and \
                  proportional-jitter, or a library's defaults (aws-standard, aws-legacy, \
                  google-cloud, python-backoff, urllib3, tenacity, polly, resilience4j, \
                  spring-retry, spring-retryable, go-backoff: see the table of strategies).",
    },
    Key {
        section: Section::Top,
        name: "runs",
        kind: "whole number, 1 to 10,000",
        default: "1",
        meaning: "Monte Carlo runs per strategy, with seeds seed, seed+1, …",
    },
    Key {
        section: Section::Top,
        name: "seed",
        kind: "whole number",
        default: "1",
        meaning: "The seed of the first run.",
    },
    Key {
        section: Section::Server,
        name: "model",
        kind: "`capacity` or `all-or-nothing`",
        default: "capacity",
        meaning: "`capacity` serves up to its capacity and pays for rejections in the next \
                  tick; `all-or-nothing` rejects every call of a tick that brings more than \
                  its capacity.",
    },
    Key {
        section: Section::Server,
        name: "capacity",
        kind: "number, more than 0, at most three decimals",
        default: "10",
        meaning: "Calls the server can serve per tick; with a cache, when every call misses it.",
    },
    Key {
        section: Section::Server,
        name: "tick",
        kind: "duration, more than 0",
        default: "100ms",
        meaning: "The length of a tick: the server looks at each tick's calls together.",
    },
    Key {
        section: Section::Server,
        name: "rejection_cost",
        kind: "number from 0 to 1, at most three decimals",
        default: "0.1",
        meaning: "What turning a call away costs, as a share of serving one; paid out of \
                  the next tick (`capacity` model only).",
    },
    Key {
        section: Section::Server,
        name: "outages",
        kind: "list of `{from, to}`",
        default: "none",
        meaning: "Windows in which the server is down: every call is rejected at no cost.",
    },
    Key {
        section: Section::Server,
        name: "retry_after",
        kind: "`{hint, when}`",
        default: "none",
        meaning: "A Retry-After hint the server attaches to its rejections.",
    },
    Key {
        section: Section::Server,
        name: "pushback",
        kind: "`{when, after}`",
        default: "none",
        meaning: "gRPC's pushback the server attaches to its rejections: \"don't retry\" \
                  (the request ends there, in every layer), or with `after`, \"retry after\" \
                  that delay.",
    },
    Key {
        section: Section::Server,
        name: "cache",
        kind: "`{capacity, warm_after, ttl, start}`",
        default: "none",
        meaning: "A cache in front of the server: its capacity rises from `capacity` \
                  (every call a miss) to the cache's (every call a hit) as it warms.",
    },
    Key {
        section: Section::Server,
        name: "queue",
        kind: "`{limit, order, drop_expired}` (`capacity` model only)",
        default: "none",
        meaning: "Where calls not served in their tick wait for a later one.",
    },
    Key {
        section: Section::Server,
        name: "slowdowns",
        kind: "list of `{from, to, capacity}`, in order of time, none overlapping",
        default: "none",
        meaning: "Windows of another capacity per tick.",
    },
    Key {
        section: Section::Server,
        name: "replicas",
        kind: "whole number, 1 to 100",
        default: "1",
        meaning: "Copies of the server, each with its own budget, outages and slowdowns, \
                  behind a balancer; with a queue, each has its own.",
    },
    Key {
        section: Section::Server,
        name: "balancer",
        kind: "`round-robin`, `random`, `least-loaded` or `power-of-two`",
        default: "round-robin",
        meaning: "How each call of a tick, in order of arrival, finds its replica: in turn, \
                  at random, the one that holds the fewest calls (the tick's given to it so \
                  far and those in its queue), or the less loaded of two drawn at random.",
    },
    Key {
        section: Section::Server,
        name: "overrides",
        kind: "list of `{replica, capacity, outages, slowdowns, queue}`",
        default: "none",
        meaning: "What a replica has of its own, in place of the server's.",
    },
    Key {
        section: Section::Override,
        name: "replica",
        kind: "whole number, 1 to `replicas`",
        default: "required",
        meaning: "The replica, each at most once.",
    },
    Key {
        section: Section::Override,
        name: "capacity",
        kind: "number, more than 0, at most three decimals",
        default: "the server's",
        meaning: "Its calls per tick; with a cache, when every call misses it.",
    },
    Key {
        section: Section::Override,
        name: "outages",
        kind: "list of `{from, to}`",
        default: "the server's",
        meaning: "Its outages, in place of the server's.",
    },
    Key {
        section: Section::Override,
        name: "slowdowns",
        kind: "list of `{from, to, capacity}`",
        default: "the server's",
        meaning: "Its slowdowns, in place of the server's.",
    },
    Key {
        section: Section::Override,
        name: "queue",
        kind: "map, as `server.queue`",
        default: "the server's",
        meaning: "Its queue, in place of the server's; `{limit: 0}` is none.",
    },
    Key {
        section: Section::Outage,
        name: "from",
        kind: "duration",
        default: "required",
        meaning: "When the outage starts.",
    },
    Key {
        section: Section::Outage,
        name: "to",
        kind: "duration, after `from`",
        default: "required",
        meaning: "When the server is back; a tick is down when its start lies in [from, to).",
    },
    Key {
        section: Section::Cache,
        name: "capacity",
        kind: "number, more than `server.capacity`",
        default: "required",
        meaning: "Calls served per tick when every call hits the cache.",
    },
    Key {
        section: Section::Cache,
        name: "warm_after",
        kind: "whole number, 1 to 1,000,000,000",
        default: "required",
        meaning: "Calls answered in time within `ttl` that make the cache fully warm; \
                  with fewer, the share of calls that hit is theirs over this.",
    },
    Key {
        section: Section::Cache,
        name: "ttl",
        kind: "duration",
        default: "required",
        meaning: "How long an answer stays in the cache.",
    },
    Key {
        section: Section::Cache,
        name: "start",
        kind: "`warm` or `cold`",
        default: "warm",
        meaning: "Whether the cache starts full, or empty as after a restart; an outage \
                  empties it.",
    },
    Key {
        section: Section::Queue,
        name: "limit",
        kind: "whole number, 0 to 10,000,000",
        default: "required",
        meaning: "The most calls the queue holds; 0 is no queue.",
    },
    Key {
        section: Section::Queue,
        name: "order",
        kind: "`fifo` or `lifo`",
        default: "fifo",
        meaning: "`fifo`: the queue first, oldest first; `lifo`: new calls first, then the \
                  queue, newest first.",
    },
    Key {
        section: Section::Queue,
        name: "drop_expired",
        kind: "`true` or `false`",
        default: "false",
        meaning: "Whether queued calls past `retry.timeout` are dropped, at no cost.",
    },
    Key {
        section: Section::Slowdown,
        name: "from",
        kind: "duration",
        default: "required",
        meaning: "When the slowdown starts.",
    },
    Key {
        section: Section::Slowdown,
        name: "to",
        kind: "duration, after `from`",
        default: "required",
        meaning: "When the slowdown ends.",
    },
    Key {
        section: Section::Slowdown,
        name: "capacity",
        kind: "number, 0 or more, at most three decimals",
        default: "required",
        meaning: "Calls served per tick in it; with a cache, when every call misses it.",
    },
    Key {
        section: Section::RetryAfter,
        name: "hint",
        kind: "duration, more than 0",
        default: "required",
        meaning: "The least wait the server asks for; a client that honours it waits the \
                  longer of its policy's wait and the hint.",
    },
    Key {
        section: Section::RetryAfter,
        name: "when",
        kind: "`always`, `overloaded` or `down`",
        default: "always",
        meaning: "Which rejections carry the hint: all, those of a server that is up but \
                  full, or those of an outage.",
    },
    Key {
        section: Section::Pushback,
        name: "when",
        kind: "`always`, `overloaded` or `down`",
        default: "overloaded",
        meaning: "Which rejections carry it (\"don't retry\", or \"retry after\" with \
                  `after`): all, those of a server that is up but full (shedding load), or \
                  those of an outage.",
    },
    Key {
        section: Section::Pushback,
        name: "after",
        kind: "duration, at most 1h",
        default: "none: \"don't retry\"",
        meaning: "The rejections say \"retry after\" this delay instead: the client \
                  retries after exactly it, and its backoff starts over.",
    },
    Key {
        section: Section::Arrivals,
        name: "rate",
        kind: "number, more than 0, at most three decimals",
        default: "required",
        meaning: "New requests per second.",
    },
    Key {
        section: Section::Arrivals,
        name: "from",
        kind: "duration",
        default: "0s",
        meaning: "When the first request starts.",
    },
    Key {
        section: Section::Arrivals,
        name: "to",
        kind: "duration, after `from`, at most the horizon",
        default: "the horizon",
        meaning: "No request starts at or after it.",
    },
    Key {
        section: Section::Arrivals,
        name: "process",
        kind: "`even` or `poisson`",
        default: "even",
        meaning: "How the requests are spaced: `even`, at equal gaps; `poisson`, as a \
                  Poisson process, with exponential gaps drawn from the run's seed, so that \
                  each run has its own requests, the same for every strategy.",
    },
    Key {
        section: Section::Retry,
        name: "base",
        kind: "duration",
        default: "100ms",
        meaning: "The first wait, and the wait of `fixed`.",
    },
    Key {
        section: Section::Retry,
        name: "cap",
        kind: "duration, at least `base`, at most 1h",
        default: "10s",
        meaning: "The longest wait.",
    },
    Key {
        section: Section::Retry,
        name: "multiplier",
        kind: "number from 1 to 100",
        default: "2",
        meaning: "How much the ceiling grows after each failure.",
    },
    Key {
        section: Section::Retry,
        name: "max_attempts",
        kind: "whole number, at least 1",
        default: "no limit",
        meaning: "Calls a client makes at most, counting the first; after the last failed \
                  one it gives up.",
    },
    Key {
        section: Section::Retry,
        name: "deadline",
        kind: "duration, more than 0",
        default: "none",
        meaning: "Time from a client's first call after which it sends nothing: it gives up \
                  instead of scheduling a retry that would be sent later.",
    },
    Key {
        section: Section::Retry,
        name: "honor_retry_after",
        kind: "`true` or `false`",
        default: "true",
        meaning: "Whether clients wait at least the server's Retry-After hint.",
    },
    Key {
        section: Section::Retry,
        name: "budget",
        kind: "`grpc`, `finagle` or `aws`, or a map with `kind` and settings",
        default: "none",
        meaning: "A retry budget shared by all clients: a retry it refuses is not sent, \
                  and the client gives up (counted as `denied`).",
    },
    Key {
        section: Section::Retry,
        name: "breaker",
        kind: "map (`{}` for the defaults)",
        default: "none",
        meaning: "A circuit breaker shared by all clients, as resilience4j's: while open, \
                  calls fail fast at the client, never reach the server, and count as \
                  failures for the retry policy.",
    },
    Key {
        section: Section::Retry,
        name: "timeout",
        kind: "duration, at least two ticks, at most 1h",
        default: "none",
        meaning: "How long a client waits for one call's answer before it counts the \
                  attempt as failed.",
    },
    Key {
        section: Section::Retry,
        name: "throttle",
        kind: "`{k, window}` (`{}` for the defaults)",
        default: "none",
        meaning: "Adaptive throttling shared by all clients (Google SRE book).",
    },
    Key {
        section: Section::Retry,
        name: "jitter",
        kind: "number from 0 to 1, at most three decimals",
        default: "0.2",
        meaning: "The jitter of `proportional-jitter`.",
    },
    Key {
        section: Section::Retry,
        name: "elsewhere",
        kind: "`true` or `false`",
        default: "false",
        meaning: "Whether a retry goes to a replica other than the one that saw the \
                  client's last call (a server of several replicas only).",
    },
    Key {
        section: Section::Retry,
        name: "hedging",
        kind: "`{delay, max_attempts}`",
        default: "none",
        meaning: "Hedged requests, as gRPC's hedging policy: while no answer has come, \
                  another copy of the call every `delay`, and at once when a copy fails; \
                  the first answer wins and the others are abandoned.",
    },
    Key {
        section: Section::Hedging,
        name: "delay",
        kind: "duration, at most 1h",
        default: "0s (every copy at once), as gRPC",
        meaning: "The time after a copy at which the next is sent while none is answered.",
    },
    Key {
        section: Section::Hedging,
        name: "max_attempts",
        kind: "whole number, 2 to 5",
        default: "required",
        meaning: "Copies of each attempt at most, counting the first; an attempt whose \
                  copies all failed is retried by the retry policy (`retry.max_attempts: \
                  1` for none, as gRPC).",
    },
    Key {
        section: Section::Throttle,
        name: "k",
        kind: "number, more than 0, at most 1,000, at most three decimals",
        default: "2",
        meaning: "Requests allowed per accepted one (lower throttles sooner).",
    },
    Key {
        section: Section::Throttle,
        name: "window",
        kind: "duration, at least one tick, at most 1h",
        default: "10s",
        meaning: "Over which requests and accepts are counted.",
    },
    Key {
        section: Section::Budget,
        name: "kind",
        kind: "`grpc`, `finagle` or `aws`",
        default: "required in a map",
        meaning: "Which published budget to follow.",
    },
    Key {
        section: Section::Budget,
        name: "max_tokens",
        kind: "whole number, 1 to 1,000",
        default: "10",
        meaning: "grpc: the bucket's size; it starts full, a failed call takes 1, and no \
                  retry is sent while it holds half or less.",
    },
    Key {
        section: Section::Budget,
        name: "token_ratio",
        kind: "number, more than 0, at most three decimals",
        default: "0.1",
        meaning: "grpc: tokens a served call gives back.",
    },
    Key {
        section: Section::Budget,
        name: "ttl",
        kind: "duration, 1s to 1m",
        default: "10s",
        meaning: "finagle: the window over which requests and retries are counted.",
    },
    Key {
        section: Section::Budget,
        name: "min_retries_per_sec",
        kind: "whole number",
        default: "10",
        meaning: "finagle: retries per second always allowed, whatever the requests.",
    },
    Key {
        section: Section::Budget,
        name: "percent_can_retry",
        kind: "number from 0 to 1,000, at most three decimals",
        default: "0.2",
        meaning: "finagle: retries allowed per request in the window (0.2 = 20%).",
    },
    Key {
        section: Section::Budget,
        name: "quota",
        kind: "whole number, at least 1",
        default: "500",
        meaning: "aws: the retry quota's tokens, at the start and at most.",
    },
    Key {
        section: Section::Budget,
        name: "retry_cost",
        kind: "whole number, at least 1",
        default: "5",
        meaning: "aws: tokens a retry costs; a served retry refunds them.",
    },
    Key {
        section: Section::Budget,
        name: "no_retry_increment",
        kind: "whole number",
        default: "1",
        meaning: "aws: tokens a served first call gives back.",
    },
    Key {
        section: Section::Breaker,
        name: "failure_rate",
        kind: "whole number from 1 to 100 (percent)",
        default: "50 (as resilience4j)",
        meaning: "The failure rate over the window at or above which the breaker opens, \
                  and over the trial calls at or above which it opens again.",
    },
    Key {
        section: Section::Breaker,
        name: "window",
        kind: "whole number, at least 1",
        default: "100 (as resilience4j)",
        meaning: "The count-based sliding window: the outcomes of the last this many calls.",
    },
    Key {
        section: Section::Breaker,
        name: "minimum_calls",
        kind: "whole number, at least 1, at most `window`",
        default: "20 (resilience4j: 100)",
        meaning: "Calls the window must hold before the failure rate counts.",
    },
    Key {
        section: Section::Breaker,
        name: "open_for",
        kind: "duration, more than 0",
        default: "5s (resilience4j: 60s, too long for a 2-minute horizon)",
        meaning: "How long the breaker stays open before it lets trial calls through.",
    },
    Key {
        section: Section::Breaker,
        name: "half_open_calls",
        kind: "whole number, at least 1",
        default: "10 (as resilience4j)",
        meaning: "Trial calls let through when half-open; the rest fail fast.",
    },
    Key {
        section: Section::Breaker,
        name: "retry_when_open",
        kind: "`true` or `false`",
        default: "true",
        meaning: "Whether a call that failed fast is retried per policy, like any failure \
                  (the retries wrap the breaker), or ends its request at once: the client \
                  gives up (the breaker wraps the retries).",
    },
    Key {
        section: Section::Layer,
        name: "attempts",
        kind: "whole number, 1 to 1,000",
        default: "required",
        meaning: "Attempts at this layer, counting the first; each is a whole retry \
                  sequence of the layer below.",
    },
    Key {
        section: Section::Layer,
        name: "strategy",
        kind: "strategy name",
        default: "the lane's",
        meaning: "How this layer waits between its attempts.",
    },
    Key {
        section: Section::Layer,
        name: "base",
        kind: "duration",
        default: "`retry.base`",
        meaning: "This layer's first wait.",
    },
    Key {
        section: Section::Layer,
        name: "cap",
        kind: "duration, at least `base`, at most 1h",
        default: "`retry.cap`",
        meaning: "This layer's longest wait.",
    },
    Key {
        section: Section::Layer,
        name: "multiplier",
        kind: "number from 1 to 100",
        default: "`retry.multiplier`",
        meaning: "How much this layer's ceiling grows after each failure.",
    },
    Key {
        section: Section::Figure,
        name: "window",
        kind: "duration, or `auto`",
        default: "auto",
        meaning: "The end of the time axis. `auto` ends shortly after the last lane is done, \
                  or at the horizon when a lane never finishes.",
    },
    Key {
        section: Section::Figure,
        name: "caption",
        kind: "text",
        default: "a generated one",
        meaning: "The caption under the chart.",
    },
    Key {
        section: Section::Figure,
        name: "explore",
        kind: "map of ranges",
        default: "none",
        meaning: "What a reader may vary under the figure, and over which range.",
    },
];

/// The names of the keys of one section, in table order.
pub fn names(section: Section) -> impl Iterator<Item = &'static str> {
    NAMES
        .iter()
        .filter(move |(s, _)| *s == section)
        .map(|&(_, name)| name)
}

/// Each key's section and name, taken from [`KEYS`] when compiled: what the parser
/// reads, without the types, defaults and meanings, which only the authors' reference
/// uses (the browser's module, which reads scenarios, then carries none of that text).
const NAMES: [(Section, &str); KEYS.len()] = {
    let mut names = [(Section::Top, ""); KEYS.len()];
    let mut i = 0;
    while i < KEYS.len() {
        names[i] = (KEYS[i].section, KEYS[i].name);
        i += 1;
    }
    names
};
