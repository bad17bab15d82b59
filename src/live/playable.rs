//! What a live run can play, and its limits: a scenario that asks for more is refused
//! with each key that is out of reach placed and named, never played differently.
//!
//! Played: a closed crowd (with `spread`) and open-loop `arrivals`, both server models,
//! capacity, the cost of rejections, slowdowns, outages, Retry-After, a queue (`fifo` or
//! `lifo`, its `limit`, `drop_expired`), per-attempt timeouts, the attempt limit, the
//! deadline and a retry budget (`retry.budget`, shared by the run's clients), and every
//! strategy of the model (not the libraries' strategies). Not played: `layers`, the
//! shared guards `retry.breaker` and `retry.throttle`, the server's pushback and
//! cache, and a server of several replicas.
//!
//! Limits: at most [`MAX_CLIENTS`] clients in the crowd (each holds a connection, two
//! file descriptors on loopback) and [`MAX_ARRIVALS`] open-loop requests, a horizon of at most [`MAX_HORIZON`] (a strategy plays until
//! its last client is done, or up to the horizon), and ticks of at least [`MIN_TICK`]
//! (the runtime's timers count milliseconds). HTTP's `Retry-After` counts whole seconds,
//! so a hint must be one; and tokio-retry2's exponential backoff counts its base in whole
//! milliseconds, so the strategies whose waits it computes need such a base.

use crate::engine::read::parse_yaml;
use crate::engine::units::{Micros, SECOND, format_duration};
use crate::engine::{Scenario, ScenarioError, Strategy};
use crate::format::thousands;
use crate::yaml::{Node, Value};

/// The most clients a live run plays.
pub const MAX_CLIENTS: u64 = 400;
/// The most open-loop requests a live run plays (each is a task, with a connection while
/// it calls).
pub const MAX_ARRIVALS: u64 = 100_000;
/// The longest horizon a live run plays.
pub const MAX_HORIZON: Micros = 10 * 60 * SECOND;
/// The shortest tick a live run plays.
pub const MIN_TICK: Micros = 10_000;

/// The keys a live run does not play, each with what it is.
const NOT_PLAYED: [(&[&str], &str); 6] = [
    (&["layers"], "layers of retries"),
    (&["server", "pushback"], "the server's pushback"),
    (&["server", "cache"], "a server's cache"),
    (&["retry", "breaker"], "a circuit breaker"),
    (&["retry", "throttle"], "client-side throttling"),
    (&["retry", "hedging"], "hedged requests"),
];

/// Checks that `scenario`, read from `source`, can be played live; every problem is
/// placed in `source`.
pub fn check(source: &str, scenario: &Scenario) -> Result<(), Vec<ScenarioError>> {
    let root = parse_yaml(source)?;
    let mut errors = Vec::new();
    for (path, what) in NOT_PLAYED {
        if let Some((key, _)) = entry_at(&root, path) {
            errors.push(ScenarioError::at(
                key,
                format!("`retrylab live` does not play {what} (`{}`)", path.join(".")),
                Some(
                    "remove the key to play the rest for real, or see it simulated with `retrylab sim`"
                        .to_string(),
                ),
            ));
        }
    }
    // The live server is one server.
    if scenario.server.fleet.is_some()
        && let Some((key, _)) = entry_at(&root, &["server", "replicas"])
    {
        errors.push(ScenarioError::at(
            key,
            "`retrylab live` does not play a server of several replicas (`server.replicas`)"
                .to_string(),
            Some(
                "remove the key to play one server for real, or see the fleet simulated with \
                 `retrylab sim`"
                    .to_string(),
            ),
        ));
    }
    // A limit is placed at the value that passes it.
    let place = |path: &[&str]| entry_at(&root, path).map_or(&root, |(_, value)| value);
    if scenario.clients > MAX_CLIENTS {
        errors.push(ScenarioError::at(
            place(&["clients"]),
            format!(
                "`retrylab live` plays at most {} clients, this scenario has {}",
                thousands(MAX_CLIENTS),
                thousands(scenario.clients)
            ),
            Some("each client holds a connection of its own; simulate larger crowds with `retrylab sim`".to_string()),
        ));
    }
    let arrivals: u64 = scenario
        .arrivals
        .iter()
        .map(|a| {
            let r = a.indices_in(0, scenario.horizon);
            r.end - r.start
        })
        .sum();
    if arrivals > MAX_ARRIVALS {
        // At the rate, where a single window gives one.
        let at =
            entry_at(&root, &["arrivals", "rate"]).map_or_else(|| place(&["arrivals"]), |(_, v)| v);
        errors.push(ScenarioError::at(
            at,
            format!(
                "`retrylab live` plays at most {} open-loop requests, these arrivals make {}",
                thousands(MAX_ARRIVALS),
                thousands(arrivals)
            ),
            Some("a lower rate or a shorter horizon plays live; simulate the rest with `retrylab sim`".to_string()),
        ));
    }
    if scenario.horizon > MAX_HORIZON {
        errors.push(ScenarioError::at(
            place(&["horizon"]),
            format!(
                "`retrylab live` plays a horizon of at most {}, this one is {}",
                format_duration(MAX_HORIZON),
                format_duration(scenario.horizon)
            ),
            Some("a live run takes up to its horizon for each strategy".to_string()),
        ));
    }
    if scenario.server.tick < MIN_TICK {
        errors.push(ScenarioError::at(
            place(&["server", "tick"]),
            format!(
                "`retrylab live` plays ticks of at least {}, this one is {}",
                format_duration(MIN_TICK),
                format_duration(scenario.server.tick)
            ),
            Some("the clocks of a real server and its clients are not finer than that".to_string()),
        ));
    }
    if let Some(hint) = scenario.server.retry_after.map(|r| r.hint)
        && !hint.is_multiple_of(SECOND)
    {
        errors.push(ScenarioError::at(
            place(&["server", "retry_after", "hint"]),
            format!(
                "`retrylab live` sends the hint as HTTP's Retry-After, in whole seconds: {} is not",
                format_duration(hint)
            ),
            None,
        ));
    }
    if let Some(library) = scenario.strategies.iter().find_map(|s| s.library()) {
        errors.push(ScenarioError::at(
            place(&["strategies"]),
            format!(
                "`retrylab live` plays the model's strategies with retry crates; `{}` is {}'s defaults, which it does not run",
                library.name,
                library.source().library
            ),
            Some("see it simulated with `retrylab sim`".to_string()),
        ));
    }
    let counted = scenario
        .strategies
        .iter()
        .find(|s| super::waits::counts_in_milliseconds(**s));
    if let Some(strategy) = counted
        && !scenario.retry.base.is_multiple_of(1000)
    {
        errors.push(ScenarioError::at(
            place(&["retry", "base"]),
            format!(
                "the waits of `{}` come from tokio-retry2, whose exponential backoff starts from whole milliseconds: {} is not",
                strategy.name(),
                format_duration(scenario.retry.base)
            ),
            Some(format!(
                "a base in whole milliseconds plays live; {} and {} take any",
                Strategy::Fixed.name(),
                Strategy::DecorrelatedJitter.name()
            )),
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.sort_by_key(|e| e.pos);
        Err(errors)
    }
}

/// The key at `path` from the top of a scenario and its value, as written, unless the
/// value is null.
fn entry_at<'a>(root: &'a Node, path: &[&str]) -> Option<(&'a Node, &'a Node)> {
    let (first, rest) = path.split_first()?;
    let Value::Map(pairs) = &root.value else {
        return None;
    };
    let (key, value) = pairs.iter().find(|(k, _)| k.as_scalar() == Some(first))?;
    if value.is_null() {
        return None;
    }
    if rest.is_empty() {
        Some((key, value))
    } else {
        entry_at(value, rest)
    }
}
