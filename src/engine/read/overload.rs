//! Reading the overload model: the server's queue and slowdowns, and the clients'
//! timeout, adaptive throttling and proportional jitter, with the same located errors as
//! the rest of the reader.

use super::{Fields, Reader};
use crate::engine::scenario::{
    Cache, CacheStart, MAX_CAPACITY, MAX_CLIENTS, MAX_TIME, Queue, QueueOrder, Scenario,
    ServerModel, Slowdown, Throttle,
};
use crate::engine::schema::Section;
use crate::engine::units::{Micros, SECOND, format_duration, format_milli};
use crate::yaml::{Node, Value};

/// The largest `retry.throttle.k`, in thousandths: far above any k that still throttles.
const MAX_K_MILLI: u64 = 1_000_000;
/// `retry.throttle.k` when it is not written, in thousandths (the SRE book's 2).
const DEFAULT_K_MILLI: u64 = 2_000;
/// `retry.throttle.window` when it is not written.
const DEFAULT_WINDOW: Micros = 10 * SECOND;

impl Reader {
    /// `server.queue` (or a replica's, its keys named with `prefix`, such as
    /// `server.overrides[].queue.`): a map with a required `limit`.
    pub(super) fn queue(&mut self, node: &Node, prefix: &'static str) -> Option<Queue> {
        let at = prefix.trim_end_matches('.');
        if let Some(text) = node.as_scalar()
            && !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit())
        {
            // `queue: 200` is the likeliest slip: say how to write it.
            self.error(
                node,
                format!("`{at}` must be a map of keys, found {}", node.describe()),
                Some(format!("write `queue: {{limit: {text}}}`")),
            );
            return None;
        }
        let fields = self.fields_at(node, Section::Queue, prefix, &format!("`{at}`"))?;
        let limit = match fields.get("limit") {
            Some(n) => self.whole(n, &format!("{at}.limit"), 0, MAX_CLIENTS),
            None => {
                self.missing(node, "limit", "the most calls the queue holds");
                None
            }
        };
        let orders = QueueOrder::ALL.map(|o| (o.name(), o));
        let order = match fields.get("order") {
            Some(n) => self.choice(n, &format!("{at}.order"), "queue order", &orders),
            None => Some(QueueOrder::Fifo),
        };
        let drop_expired = match fields.get("drop_expired") {
            Some(n) => self.boolean(n, &format!("{at}.drop_expired")),
            None => Some(false),
        };
        Some(Queue {
            limit: limit?,
            order: order?,
            drop_expired: drop_expired?,
        })
    }

    /// `server.cache`: a map with a required `capacity` above the server's
    /// (`capacity`, when it was read), `warm_after` and `ttl`.
    pub(super) fn cache(&mut self, node: &Node, capacity: Option<u64>) -> Option<Cache> {
        let fields = self.fields(node, Section::Cache, "`server.cache`")?;
        let hit = match fields.get("capacity") {
            Some(n) => {
                let hit = self.milli(n, "server.cache.capacity", MAX_CAPACITY * 1000);
                match (hit, capacity) {
                    (Some(hit), Some(miss)) if hit <= miss => {
                        self.error(
                            n,
                            format!(
                                "`server.cache.capacity` ({}) must be more than \
                                 `server.capacity` ({})",
                                format_milli(hit),
                                format_milli(miss)
                            ),
                            Some(
                                "`server.capacity` is what the server serves when every \
                                 call misses the cache, `cache.capacity` when every call hits"
                                    .to_string(),
                            ),
                        );
                        None
                    }
                    _ => hit,
                }
            }
            None => {
                self.missing(
                    node,
                    "capacity",
                    "the calls served per tick when every call hits",
                );
                None
            }
        };
        let warm_after = match fields.get("warm_after") {
            Some(n) => self.whole(n, "server.cache.warm_after", 1, MAX_CAPACITY),
            None => {
                self.missing(
                    node,
                    "warm_after",
                    "the calls answered within `ttl` that make the cache warm",
                );
                None
            }
        };
        let ttl = match fields.get("ttl") {
            Some(n) => self.positive_duration(n, "server.cache.ttl"),
            None => {
                self.missing(
                    node,
                    "ttl",
                    "how long an answer stays in the cache, like 10s",
                );
                None
            }
        };
        let starts = CacheStart::ALL.map(|s| (s.name(), s));
        let start = match fields.get("start") {
            Some(n) => self.choice(n, "server.cache.start", "cache start", &starts),
            None => Some(CacheStart::Warm),
        };
        Some(Cache {
            capacity_milli: hit?,
            warm_after: warm_after?,
            ttl: ttl?,
            start: start?,
        })
    }

    /// `server.slowdowns`: windows of another capacity, in order of time.
    pub(super) fn slowdowns(&mut self, node: &Node) -> Option<Vec<Slowdown>> {
        let Value::Seq(items) = &node.value else {
            self.error(
                node,
                format!(
                    "`server.slowdowns` must be a list like [{{from: 10s, to: 15s, capacity: 5}}], \
                     found {}",
                    node.describe()
                ),
                None,
            );
            return None;
        };
        let mut slowdowns = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(fields) = self.fields(item, Section::Slowdown, "a slowdown") else {
                if item.is_null() {
                    self.error(
                        item,
                        "a slowdown needs `from`, `to` and `capacity`".to_string(),
                        None,
                    );
                }
                ok = false;
                continue;
            };
            let window = self.window(item, &fields, "slowdowns", "a slowdown");
            let capacity = match fields.get("capacity") {
                Some(n) => self.milli(n, "server.slowdowns[].capacity", MAX_CAPACITY * 1000),
                None => {
                    self.missing(
                        item,
                        "capacity",
                        "calls the server can serve per tick during the slowdown",
                    );
                    None
                }
            };
            let (Some((from, to)), Some(capacity_milli)) = (window, capacity) else {
                ok = false;
                continue;
            };
            slowdowns.push((
                item,
                Slowdown {
                    from,
                    to,
                    capacity_milli,
                },
            ));
        }
        if !ok {
            return None;
        }
        self.in_order(&slowdowns)
            .then(|| slowdowns.into_iter().map(|(_, s)| s).collect())
    }

    /// Whether the slowdowns are in order of time, none overlapping: in an overlap the
    /// capacity would be two numbers, and a list in order reads as the timeline it is.
    /// Each one that starts before the one above it ends is reported.
    fn in_order(&mut self, slowdowns: &[(&Node, Slowdown)]) -> bool {
        let mut ok = true;
        for pair in slowdowns.windows(2) {
            let [(_, before), (item, s)] = pair else {
                continue;
            };
            if s.from < before.to {
                self.error(
                    item,
                    format!(
                        "this slowdown starts at {}, before the one above it ends ({})",
                        format_duration(s.from),
                        format_duration(before.to)
                    ),
                    Some(
                        "list the slowdowns in order of time, each starting at or after \
                         the end of the one before: they may not overlap"
                            .to_string(),
                    ),
                );
                ok = false;
            }
        }
        ok
    }

    /// `retry.timeout`: a duration of at most 1h (how it relates to the tick is checked
    /// with the whole scenario, see [`Reader::relations_of_overload`]).
    pub(super) fn timeout(&mut self, node: &Node) -> Option<Micros> {
        let timeout = self.duration(node, "retry.timeout")?;
        if timeout > MAX_TIME {
            self.error(
                node,
                format!(
                    "`retry.timeout` is {}; the limit is 1h",
                    format_duration(timeout)
                ),
                None,
            );
            return None;
        }
        Some(timeout)
    }

    /// `retry.throttle`: a map, `{}` for the defaults.
    pub(super) fn throttle(&mut self, node: &Node) -> Option<Throttle> {
        let fields = self.fields(node, Section::Throttle, "`retry.throttle`")?;
        let k = match fields.get("k") {
            Some(n) => match self.milli(n, "retry.throttle.k", MAX_K_MILLI) {
                Some(0) => {
                    self.error(
                        n,
                        "`retry.throttle.k` must be more than 0".to_string(),
                        None,
                    );
                    None
                }
                other => other,
            },
            None => Some(DEFAULT_K_MILLI),
        };
        let window = match fields.get("window") {
            Some(n) => self.positive_duration(n, "retry.throttle.window"),
            None => Some(DEFAULT_WINDOW),
        };
        Some(Throttle {
            k_milli: k?,
            window: window?,
        })
    }

    /// `retry.jitter`: a number from 0 to 1, with at most three decimals.
    pub(super) fn jitter(&mut self, node: &Node) -> Option<f64> {
        // Thousandths divided by 1000 are the nearest double to the decimal written.
        self.milli(node, "retry.jitter", 1000)
            .map(|milli| milli as f64 / 1000.0)
    }

    /// What relates the overload model to the rest: the queue to the server's model,
    /// the timeout and the throttling window to the tick.
    pub(super) fn relations_of_overload(&mut self, s: &Scenario, top: &Fields) {
        let tick = s.server.tick;
        let retry = top.get("retry");
        if let (Some(timeout), Some(node)) = (s.retry.timeout, retry.and_then(|r| r.get("timeout")))
            && timeout < 2 * tick
        {
            self.error(
                node,
                format!(
                    "`retry.timeout` ({}) is shorter than two ticks ({})",
                    format_duration(timeout),
                    format_duration(2 * tick)
                ),
                Some(
                    "a call is answered at the end of its tick and may be seen a tick after \
                     it is sent, so a timeout must be at least two ticks"
                        .to_string(),
                ),
            );
        }
        if let (Some(throttle), Some(node)) =
            (s.retry.throttle, retry.and_then(|r| r.get("throttle")))
            && throttle.window < tick
        {
            let (at, written) = match node.get("window") {
                Some(window) => (window, ""),
                None => (node, ", the default"),
            };
            self.error(
                at,
                format!(
                    "`retry.throttle.window` ({}{written}) is shorter than one tick ({})",
                    format_duration(throttle.window),
                    format_duration(tick)
                ),
                Some(format!(
                    "use a window of at least {}",
                    format_duration(tick)
                )),
            );
        }
    }

    /// Refuses a queue in front of a server that holds nothing over: `all-or-nothing`.
    pub(super) fn queue_needs_capacity(&mut self, model: ServerModel, key: &Node) {
        match model {
            ServerModel::Capacity => {}
            ServerModel::AllOrNothing => self.error(
                key,
                "a queue needs the capacity model".to_string(),
                Some(
                    "`all-or-nothing` serves all of a tick's calls or none, holding none \
                     over: remove `queue` or use `model: capacity`"
                        .to_string(),
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::read::parse_scenario;

    /// The line, column and message of each mistake of `yaml`.
    fn mistakes(yaml: &str) -> Vec<String> {
        parse_scenario(yaml, Some("t"))
            .expect_err("the scenario should be refused")
            .iter()
            .map(|e| format!("{}:{} {}", e.pos.line, e.pos.column, e.message))
            .collect()
    }

    #[test]
    fn each_slowdown_starting_before_the_one_above_ends_is_reported() {
        // The second overlaps the first; the third is before the second (and so out of
        // order); the fourth starts as the third ends, which is fine.
        let yaml = "clients: 1\nserver:\n  slowdowns:\n\
                    \x20   - {from: 0s, to: 10s, capacity: 1}\n\
                    \x20   - {from: 5s, to: 12s, capacity: 1}\n\
                    \x20   - {from: 2s, to: 3s, capacity: 1}\n\
                    \x20   - {from: 3s, to: 4s, capacity: 1}\n";
        assert_eq!(
            mistakes(yaml),
            [
                "5:8 this slowdown starts at 5s, before the one above it ends (10s)",
                "6:8 this slowdown starts at 2s, before the one above it ends (12s)",
            ]
        );
    }

    #[test]
    fn two_slowdowns_of_the_same_window_overlap() {
        let yaml = "clients: 1\nserver: {slowdowns: [{from: 1s, to: 2s, capacity: 1}, \
                    {from: 1s, to: 2s, capacity: 2}]}\n";
        assert_eq!(
            mistakes(yaml),
            ["2:56 this slowdown starts at 1s, before the one above it ends (2s)"]
        );
    }

    #[test]
    fn the_tick_checks_wait_for_a_sound_tick() {
        // A bad tick is its own mistake: the timeout is not also measured against it.
        assert_eq!(
            mistakes("clients: 1\nserver: {tick: 0s}\nretry: {timeout: 1s}\n"),
            ["2:16 `server.tick` must be longer than 0s"]
        );
    }
}
