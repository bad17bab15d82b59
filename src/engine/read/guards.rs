//! Reading the guards (see [`crate::engine::guards`]): arrivals, Retry-After, budgets, the
//! breaker and layers, with the same located errors as the rest of the reader.

use super::{Fields, Reader, model_strategies};
use crate::engine::policy::Strategy;
use crate::engine::scenario::{
    Arrivals, Breaker, Budget, Hedging, HintWhen, Layer, MAX_CLIENTS, MAX_LAYERS, MAX_TIME,
    Process, Pushback, Retry, RetryAfter, Scenario,
};
use crate::engine::schema::Section;
use crate::engine::units::{Micros, SECOND, format_duration};
use crate::format::thousands;
use crate::suggest;
use crate::yaml::{Node, Value};

/// The most requests per second of a window of arrivals.
const MAX_RATE: u64 = 10_000_000;
/// The most copies of a hedged call (gRFC A6's client-side limit).
const MAX_HEDGES: u64 = 5;
/// The most attempts of one layer.
const MAX_LAYER_ATTEMPTS: u64 = 1_000;

impl Reader {
    /// Finds a name among `names`, or says which exist.
    pub(super) fn choice<T: Copy>(
        &mut self,
        node: &Node,
        key: &str,
        what: &str,
        options: &[(&'static str, T)],
    ) -> Option<T> {
        let text = self.text(node, key)?;
        if let Some((_, value)) = options.iter().find(|(n, _)| *n == text) {
            return Some(*value);
        }
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let help = suggest::help(text, names.iter().copied(), "choices");
        self.error(node, format!("unknown {what} `{text}`"), Some(help));
        None
    }

    pub(super) fn arrivals(&mut self, node: &Node, horizon: Micros) -> Option<Vec<Arrivals>> {
        let items: Vec<&Node> = match &node.value {
            Value::Seq(items) if !items.is_empty() => items.iter().collect(),
            Value::Map(_) => vec![node],
            _ => {
                self.error(
                    node,
                    format!(
                        "`arrivals` must be a map like {{rate: 80, from: 0s, to: 2m}}, or a \
                         list of them, found {}",
                        node.describe()
                    ),
                    None,
                );
                return None;
            }
        };
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(fields) = self.fields(item, Section::Arrivals, "a window of arrivals") else {
                ok = false;
                continue;
            };
            let rate = match fields.get("rate") {
                Some(n) => match self.milli(n, "arrivals.rate", MAX_RATE * 1000) {
                    Some(0) => {
                        self.error(n, "`arrivals.rate` must be more than 0".to_string(), None);
                        None
                    }
                    other => other,
                },
                None => {
                    self.missing(item, "rate", "new requests per second");
                    None
                }
            };
            let from = self.duration_or(&fields, "from", 0);
            let to = self.duration_or(&fields, "to", horizon);
            let process = match fields.get("process") {
                Some(n) => self.choice(n, "arrivals.process", "process", &Process::ALL),
                None => Some(Process::Even),
            };
            let (Some(rate_milli), Some(from), Some(to), Some(process)) = (rate, from, to, process)
            else {
                ok = false;
                continue;
            };
            let at = fields.get("to").or(fields.get("from")).unwrap_or(item);
            if to <= from {
                self.error(
                    at,
                    format!(
                        "arrivals must end after they start: `to` ({}) is not after `from` ({})",
                        format_duration(to),
                        format_duration(from)
                    ),
                    None,
                );
                ok = false;
                continue;
            }
            if to > horizon {
                self.error(
                    at,
                    format!(
                        "`arrivals.to` ({}) is after the horizon ({})",
                        format_duration(to),
                        format_duration(horizon)
                    ),
                    Some("no request is made after the horizon; end the window there".to_string()),
                );
                ok = false;
                continue;
            }
            out.push(Arrivals {
                rate_milli,
                from,
                to,
                process,
            });
        }
        ok.then_some(out)
    }

    pub(super) fn retry_after(&mut self, node: &Node) -> Option<RetryAfter> {
        let fields = self.fields(node, Section::RetryAfter, "`server.retry_after`")?;
        let hint = match fields.get("hint") {
            Some(n) => self.positive_duration(n, "server.retry_after.hint"),
            None => {
                self.missing(node, "hint", "the least wait the server asks for, like 1s");
                None
            }
        };
        let whens = HintWhen::ALL.map(|w| (w.name(), w));
        let when = match fields.get("when") {
            Some(n) => self.choice(n, "server.retry_after.when", "hint rule", &whens),
            None => Some(HintWhen::Always),
        };
        Some(RetryAfter {
            hint: hint?,
            when: when?,
        })
    }

    /// `server.pushback`: a map whose `when` says which rejections carry it, and whose
    /// `after`, if any, is the delay it asks for.
    pub(super) fn pushback(&mut self, node: &Node) -> Option<Pushback> {
        let fields = self.fields(node, Section::Pushback, "`server.pushback`")?;
        let whens = HintWhen::ALL.map(|w| (w.name(), w));
        let when = match fields.get("when") {
            Some(n) => self.choice(n, "server.pushback.when", "pushback rule", &whens),
            None => Some(HintWhen::Overloaded),
        };
        let after = match fields.get("after") {
            Some(n) => self.hour_at_most(n, "server.pushback.after").map(Some),
            None => Some(None),
        };
        Some(Pushback {
            when: when?,
            after: after?,
        })
    }

    /// `retry.hedging`: a map of `max_attempts` (required) and `delay`.
    pub(super) fn hedging(&mut self, node: &Node) -> Option<Hedging> {
        let fields = self.fields(node, Section::Hedging, "`retry.hedging`")?;
        let delay = match fields.get("delay") {
            Some(n) => self.hour_at_most(n, "retry.hedging.delay"),
            None => Some(0),
        };
        let max_attempts = match fields.get("max_attempts") {
            Some(n) => match self.whole(n, "retry.hedging.max_attempts", 2, u64::MAX) {
                Some(v) if v > MAX_HEDGES => {
                    self.error(
                        n,
                        format!("`retry.hedging.max_attempts` is {v}; the limit is {MAX_HEDGES}"),
                        Some(
                            "gRPC clients treat more than 5 copies of a call as 5 (gRFC A6, \
                             \"Limits on Retries and Hedges\")"
                                .to_string(),
                        ),
                    );
                    None
                }
                v => v,
            },
            None => {
                self.missing(
                    node,
                    "max_attempts",
                    "the copies of a call at most, counting the first, like 2",
                );
                None
            }
        };
        Some(Hedging {
            delay: delay?,
            max_attempts: max_attempts? as u8,
        })
    }

    pub(super) fn budget(&mut self, node: &Node) -> Option<Budget> {
        let names = Budget::NAMES.map(|n| (n, n));
        if let Value::Scalar { .. } = node.value {
            let name = self.choice(node, "retry.budget", "retry budget", &names)?;
            return Budget::named(name);
        }
        let fields = self.fields(node, Section::Budget, "`retry.budget`")?;
        let Some(kind_node) = fields.get("kind") else {
            self.missing(node, "kind", "the budget to follow: grpc, finagle or aws");
            return None;
        };
        let kind = self.choice(kind_node, "retry.budget.kind", "retry budget", &names)?;
        let defaults = Budget::named(kind)?;
        let takes = defaults.settings();
        let mut ok = true;
        for (name, key) in fields.keys() {
            if name != "kind" && !takes.contains(&name) {
                self.error(
                    key,
                    format!("`retry.budget.{name}` is not a setting of the `{kind}` budget"),
                    Some(format!("the {kind} budget takes: {}", takes.join(", "))),
                );
                ok = false;
            }
        }
        let budget = match defaults {
            Budget::Grpc {
                max_tokens,
                token_ratio_milli,
            } => {
                let max = self.whole_or(&fields, "max_tokens", max_tokens, 1, 1000);
                let ratio = match fields.get("token_ratio") {
                    Some(n) => match self.milli(n, "retry.budget.token_ratio", 1_000_000) {
                        Some(0) => {
                            self.error(
                                n,
                                "`retry.budget.token_ratio` must be more than 0".to_string(),
                                None,
                            );
                            None
                        }
                        other => other,
                    },
                    None => Some(token_ratio_milli),
                };
                Budget::Grpc {
                    max_tokens: max?,
                    token_ratio_milli: ratio?,
                }
            }
            Budget::Finagle {
                ttl,
                min_retries_per_sec,
                percent_can_retry_milli,
            } => {
                let ttl = match fields.get("ttl") {
                    Some(n) => match self.duration(n, "retry.budget.ttl") {
                        Some(t) if (SECOND..=60 * SECOND).contains(&t) => Some(t),
                        Some(t) => {
                            self.error(
                                n,
                                format!(
                                    "`retry.budget.ttl` must be from 1s to 1m, found {}",
                                    format_duration(t)
                                ),
                                None,
                            );
                            None
                        }
                        None => None,
                    },
                    None => Some(ttl),
                };
                let min = self.whole_or(
                    &fields,
                    "min_retries_per_sec",
                    min_retries_per_sec,
                    0,
                    1_000_000,
                );
                let percent = match fields.get("percent_can_retry") {
                    Some(n) => self.milli(n, "retry.budget.percent_can_retry", 1_000_000),
                    None => Some(percent_can_retry_milli),
                };
                Budget::Finagle {
                    ttl: ttl?,
                    min_retries_per_sec: min?,
                    percent_can_retry_milli: percent?,
                }
            }
            Budget::Aws {
                quota,
                retry_cost,
                no_retry_increment,
            } => {
                let big = 1_000_000_000;
                let quota = self.whole_or(&fields, "quota", quota, 1, big);
                let cost = self.whole_or(&fields, "retry_cost", retry_cost, 1, big);
                let increment =
                    self.whole_or(&fields, "no_retry_increment", no_retry_increment, 0, big);
                Budget::Aws {
                    quota: quota?,
                    retry_cost: cost?,
                    no_retry_increment: increment?,
                }
            }
        };
        ok.then_some(budget)
    }

    pub(super) fn breaker(&mut self, node: &Node) -> Option<Breaker> {
        let fields = self.fields(node, Section::Breaker, "`retry.breaker`")?;
        let d = Breaker::default();
        let big = 1_000_000;
        let rate = self.whole_or(&fields, "failure_rate", d.failure_rate, 1, 100);
        let window = self.whole_or(&fields, "window", d.window, 1, big);
        let minimum = self.whole_or(&fields, "minimum_calls", d.minimum_calls, 1, big);
        let open_for = match fields.get("open_for") {
            Some(n) => self.positive_duration(n, "retry.breaker.open_for"),
            None => Some(d.open_for),
        };
        let half_open = self.whole_or(&fields, "half_open_calls", d.half_open_calls, 1, big);
        let retry_when_open = match fields.get("retry_when_open") {
            Some(n) => self.boolean(n, "retry.breaker.retry_when_open"),
            None => Some(d.retry_when_open),
        };
        let (window, minimum) = (window?, minimum?);
        if minimum > window {
            let at = fields
                .get("minimum_calls")
                .or(fields.get("window"))
                .unwrap_or(node);
            self.error(
                at,
                format!(
                    "`retry.breaker.minimum_calls` ({}) is more than `retry.breaker.window` ({})",
                    thousands(minimum),
                    thousands(window)
                ),
                Some("the window never holds more calls than its size".to_string()),
            );
            return None;
        }
        Some(Breaker {
            failure_rate: rate?,
            window,
            minimum_calls: minimum,
            open_for: open_for?,
            half_open_calls: half_open?,
            retry_when_open: retry_when_open?,
        })
    }

    pub(super) fn layers(&mut self, node: &Node, retry: &Retry) -> Option<Vec<Layer>> {
        let items = match &node.value {
            Value::Seq(items) if !items.is_empty() => items,
            _ => {
                self.error(
                    node,
                    format!(
                        "`layers` must be a list like [{{attempts: 4}}, {{attempts: 4}}], found {}",
                        node.describe()
                    ),
                    None,
                );
                return None;
            }
        };
        if items.len() > MAX_LAYERS {
            self.error(
                node,
                format!(
                    "`layers` has {} layers; the limit is {MAX_LAYERS}",
                    items.len()
                ),
                None,
            );
            return None;
        }
        let strategies = Strategy::GENERIC.map(|s| (s.name(), s));
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(fields) = self.fields(item, Section::Layer, "a layer") else {
                if item.is_null() {
                    self.error(item, "a layer needs `attempts`".to_string(), None);
                }
                ok = false;
                continue;
            };
            let attempts = match fields.get("attempts") {
                Some(n) => self.whole(n, "layers[].attempts", 1, MAX_LAYER_ATTEMPTS),
                None => {
                    self.missing(item, "attempts", "how many times this layer tries");
                    None
                }
            };
            let strategy = match fields.get("strategy") {
                Some(n) => {
                    let s = self.choice(n, "layers[].strategy", "strategy", &strategies);
                    if s.is_none() {
                        // Name the strategies as the rest of the reader does.
                        if let Some(last) = self.errors.last_mut()
                            && last
                                .help
                                .as_deref()
                                .is_some_and(|h| h.starts_with("the choices"))
                        {
                            last.help = Some(model_strategies());
                        }
                    }
                    s.map(Some)
                }
                None => Some(None),
            };
            let base = self.duration_or(&fields, "base", retry.base);
            let cap = self.duration_or(&fields, "cap", retry.cap);
            let multiplier = match fields.get("multiplier") {
                Some(n) => self.multiplier(n, "layers[].multiplier"),
                None => Some(retry.multiplier),
            };
            let (Some(attempts), Some(strategy), Some(base), Some(cap), Some(multiplier)) =
                (attempts, strategy, base, cap, multiplier)
            else {
                ok = false;
                continue;
            };
            if cap > MAX_TIME || cap < base {
                let at = fields.get("cap").or(fields.get("base")).unwrap_or(item);
                let message = if cap > MAX_TIME {
                    format!(
                        "`layers[].cap` is {}; the limit is 1h",
                        format_duration(cap)
                    )
                } else {
                    format!(
                        "`layers[].cap` ({}) is below `layers[].base` ({})",
                        format_duration(cap),
                        format_duration(base)
                    )
                };
                self.error(at, message, None);
                ok = false;
                continue;
            }
            out.push(Layer {
                attempts: attempts as u32,
                strategy,
                base,
                cap,
                multiplier,
            });
        }
        ok.then_some(out)
    }

    /// What relates the guards to the rest.
    pub(super) fn relations_of_guards(&mut self, s: &Scenario, top: &Fields) {
        if let (Some(node), Some(_)) = (top.get("layers"), s.retry.max_attempts) {
            self.error(
                node,
                "`layers` and `retry.max_attempts` cannot be used together".to_string(),
                Some("with layers, each layer's `attempts` is its limit".to_string()),
            );
        }
        if let Some(node) = top.get("arrivals") {
            let requests = s.clients.saturating_add(s.arrivals_total());
            if requests > MAX_CLIENTS {
                self.error(
                    node,
                    format!(
                        "the crowd and the arrivals make {} clients; the limit is {}",
                        thousands(requests),
                        thousands(MAX_CLIENTS)
                    ),
                    Some("use a lower rate, a shorter window or fewer clients".to_string()),
                );
            }
        }
    }
}
