//! Reading a scenario from YAML: every mistake found, each with its position and a hint.

use super::policy::Strategy;
use super::scenario::{
    MAX_CAPACITY, MAX_CLIENTS, MAX_RUNS, MAX_TICKS, MAX_TIME, MAX_WORK, Outage, Retry, Scenario,
    Server, ServerModel,
};
use super::schema::{self, Section};
use super::units::{Micros, format_duration};
use crate::format::thousands;
use crate::suggest;
use crate::yaml::{self, Map, Naming, Node, Pos, Problem, Value};

mod fleet;
mod guards;
mod overload;
mod values;
pub mod vary;

/// One mistake in a scenario: a [`Problem`] of its YAML, placed relative to its text.
pub type ScenarioError = Problem;

/// Parses and validates a scenario. `default_id` names a scenario without an `id`.
/// On failure every mistake found is returned, in source order.
pub fn parse_scenario(src: &str, default_id: Option<&str>) -> Result<Scenario, Vec<ScenarioError>> {
    scenario_from_node(&parse_yaml(src)?, default_id)
}

/// Where a scenario that passed its limit of work says so ([`super::work`]), `root`
/// being what it was read from: at its crowd (`clients`, unless 0), or else at its
/// open-loop load (`arrivals`), where the read-time limit places its refusal too.
pub fn load_node(root: &Node) -> &Node {
    let crowd = root.get("clients").filter(|n| n.as_scalar() != Some("0"));
    crowd
        .or_else(|| root.get("arrivals"))
        .or_else(|| root.get("clients"))
        .unwrap_or(root)
}

/// Parses YAML for a scenario or a directive: a syntax error becomes the one error.
pub fn parse_yaml(src: &str) -> Result<Node, Vec<ScenarioError>> {
    yaml::parse(src).map_err(|e| {
        vec![ScenarioError {
            pos: e.pos,
            width: 1,
            message: e.message,
            help: e.help,
        }]
    })
}

/// Reads and validates a scenario from an already parsed YAML tree. The top-level
/// `figure` key is accepted and left to the caller.
pub fn scenario_from_node(
    root: &Node,
    default_id: Option<&str>,
) -> Result<Scenario, Vec<ScenarioError>> {
    let mut reader = Reader::default();
    let scenario = reader.scenario(root, default_id);
    match scenario {
        Some(s) if reader.errors.is_empty() => Ok(s),
        _ => {
            let found = reader.errors.len();
            Err(at_most(
                first_in_order(reader.errors, MAX_ERRORS + 1),
                found,
            ))
        }
    }
}

/// The most mistakes reported for one scenario: a list of a million bad names is one
/// mistake made a million times, and printing each would bury the first.
pub const MAX_ERRORS: usize = 50;

/// The first `keep` of `errors` in source order, those at one place in the order they
/// were found: what a stable sort by place and a cut would give, without sorting a
/// million mistakes to keep fifty (and without the stable sort's code, which is some
/// kilobytes of the browser's module).
fn first_in_order(errors: Vec<ScenarioError>, keep: usize) -> Vec<ScenarioError> {
    let mut kept: Vec<ScenarioError> = Vec::with_capacity(keep + 1);
    for error in errors {
        // After every kept mistake at or before its place.
        let at = kept.partition_point(|k| k.pos <= error.pos);
        if at < keep {
            kept.insert(at, error);
            kept.truncate(keep);
        }
    }
    kept
}

/// The first [`MAX_ERRORS`] of `errors` (of the `found` in all, the first in source
/// order, as [`first_in_order`] keeps them), and a note where the rest begin.
fn at_most(mut errors: Vec<ScenarioError>, found: usize) -> Vec<ScenarioError> {
    if found <= MAX_ERRORS {
        return errors;
    }
    let rest = found - MAX_ERRORS;
    errors.truncate(MAX_ERRORS + 1);
    let first_unshown = errors.pop().map_or(Pos::START, |e| e.pos);
    errors.push(ScenarioError {
        pos: first_unshown,
        width: 1,
        message: format!(
            "{} more mistake{} in this scenario, from here on, not shown",
            thousands(rest as u64),
            if rest == 1 { "" } else { "s" }
        ),
        help: Some("fix the ones above, then check again".to_string()),
    });
    errors
}

/// The keys of one map, checked against the schema.
type Fields<'a> = Map<'a>;

/// Collects errors while turning nodes into values.
#[derive(Default)]
struct Reader {
    errors: Vec<ScenarioError>,
}

impl Reader {
    fn error(&mut self, node: &Node, message: String, help: Option<String>) {
        self.errors.push(ScenarioError {
            pos: node.pos,
            width: node.width,
            message,
            help,
        });
    }

    /// Checks a map's keys: each known, none twice. A null node is no map, and no error.
    fn fields<'a>(&mut self, node: &'a Node, section: Section, what: &str) -> Option<Fields<'a>> {
        self.fields_at(node, section, section.prefix(), what)
    }

    /// [`Reader::fields`] of a section met at another path than its own, named by
    /// `prefix` (`server.overrides[].queue.`).
    fn fields_at<'a>(
        &mut self,
        node: &'a Node,
        section: Section,
        prefix: &'a str,
        what: &str,
    ) -> Option<Fields<'a>> {
        if node.is_null() {
            return None;
        }
        let known: Vec<&str> = schema::names(section).collect();
        Map::read(node, &known, Naming::Path(prefix), what, &mut self.errors)
    }

    fn scenario(&mut self, root: &Node, default_id: Option<&str>) -> Option<Scenario> {
        if root.is_null() {
            self.error(
                root,
                "the scenario is empty".to_string(),
                Some("a scenario needs at least `id` and `clients`".to_string()),
            );
            return None;
        }
        let top = self.fields(root, Section::Top, "a scenario")?;
        let defaults = Scenario::with_clients("", 0);

        let id = match top.get("id") {
            Some(node) => self.id(node),
            None => match default_id {
                Some(id) => Some(id.to_string()),
                None => {
                    self.missing(root, "id", "the name the prose uses for this scenario");
                    None
                }
            },
        };
        let horizon = self.duration_or(&top, "horizon", defaults.horizon);
        let arrivals = match top.get("arrivals") {
            Some(node) => self.arrivals(node, horizon.unwrap_or(defaults.horizon)),
            None => Some(Vec::new()),
        };
        // With open-loop load the closed crowd may be empty or left out.
        let open = top.get("arrivals").is_some();
        let clients = match top.get("clients") {
            Some(node) => self.whole(node, "clients", u64::from(!open), MAX_CLIENTS),
            None if open => Some(0),
            None => {
                self.missing(root, "clients", "how many clients call at once");
                None
            }
        };
        let spread = self.duration_or(&top, "spread", 0);
        let server = self.server(top.get("server"), &defaults.server);
        let retry = self.retry(top.get("retry"), &defaults.retry);
        let layers = match (top.get("layers"), &retry) {
            (Some(node), Some(retry)) => self.layers(node, retry),
            (Some(_), None) => None,
            (None, _) => Some(Vec::new()),
        };
        let strategies = match top.get("strategies") {
            Some(node) => self.strategies(node),
            None => Some(Strategy::CLASSIC.to_vec()),
        };
        let runs = self.whole_or(&top, "runs", 1, 1, MAX_RUNS);
        let seed = self.whole_or(&top, "seed", 1, 0, u64::MAX);

        let scenario = Scenario {
            id: id?,
            clients: clients?,
            spread: spread?,
            arrivals: arrivals?,
            layers: layers?,
            horizon: horizon?,
            server: server?,
            retry: retry?,
            strategies: strategies?,
            runs: u32::try_from(runs?).ok()?,
            seed: seed?,
        };
        self.relations(&scenario, &top);
        Some(scenario)
    }

    fn missing(&mut self, map: &Node, name: &str, meaning: &str) {
        // A misspelt key (`client:`) is already an unknown key with this one suggested:
        // one mistake, one error.
        if let Value::Map(pairs) = &map.value {
            let misspelt = pairs.iter().any(|(key, _)| {
                key.as_scalar()
                    .is_some_and(|k| suggest::closest(k, [name]).is_some())
                    && self
                        .errors
                        .iter()
                        .any(|e| e.pos == key.pos && e.message.starts_with("unknown key"))
            });
            if misspelt {
                return;
            }
        }
        self.error(
            &Node {
                width: 1,
                ..map.clone()
            },
            format!("missing key `{name}`"),
            Some(format!("add `{name}:`, {meaning}")),
        );
    }

    fn id(&mut self, node: &Node) -> Option<String> {
        let text = self.text(node, "id")?;
        let ok = !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            self.error(
                node,
                format!("`id` may hold only letters, digits, `-` and `_`, found `{text}`"),
                None,
            );
            return None;
        }
        Some(text.to_string())
    }

    fn server(&mut self, node: Option<&Node>, defaults: &Server) -> Option<Server> {
        let Some(node) = node else {
            return Some(defaults.clone());
        };
        let Some(fields) = self.fields(node, Section::Server, "`server`") else {
            return if node.is_null() {
                Some(defaults.clone())
            } else {
                None
            };
        };
        let model = match fields.get("model") {
            Some(node) => self.model(node),
            None => Some(defaults.model),
        };
        let capacity = match fields.get("capacity") {
            Some(node) => self.milli(node, "server.capacity", MAX_CAPACITY * 1000),
            None => Some(defaults.capacity_milli),
        };
        if let (Some(0), Some(node)) = (capacity, fields.get("capacity")) {
            self.error(
                node,
                "`server.capacity` must be more than 0".to_string(),
                None,
            );
        }
        let tick = self.duration_or(&fields, "tick", defaults.tick);
        if let (Some(0), Some(node)) = (tick, fields.get("tick")) {
            self.error(
                node,
                "`server.tick` must be longer than 0s".to_string(),
                None,
            );
        }
        let cost = match fields.get("rejection_cost") {
            Some(node) => self.milli(node, "server.rejection_cost", 1000),
            None => Some(defaults.rejection_cost_milli),
        };
        let outages = match fields.get("outages") {
            Some(node) => self.outages(node),
            None => Some(Vec::new()),
        };
        let retry_after = match fields.get("retry_after") {
            Some(node) => self.retry_after(node).map(Some),
            None => Some(None),
        };
        let slowdowns = match fields.get("slowdowns") {
            Some(node) => self.slowdowns(node),
            None => Some(Vec::new()),
        };
        let pushback = match fields.get("pushback") {
            Some(node) => self.pushback(node).map(Some),
            None => Some(None),
        };
        let cache = match fields.get("cache") {
            Some(node) => self.cache(node, capacity).map(Some),
            None => Some(None),
        };
        let queue = match fields.get("queue") {
            Some(node) => self.queue(node, "server.queue.").map(Some),
            None => Some(None),
        };
        if let (Some(model), Some(key), Some(_)) = (model, fields.key("queue"), fields.get("queue"))
        {
            self.queue_needs_capacity(model, key);
        }
        let fleet = self.fleet(&fields, model);
        Some(Server {
            model: model?,
            capacity_milli: capacity.filter(|c| *c > 0)?,
            tick: tick.filter(|t| *t > 0)?,
            rejection_cost_milli: cost?,
            outages: outages?,
            retry_after: retry_after?,
            pushback: pushback?,
            slowdowns: slowdowns?,
            cache: cache?,
            queue: queue?,
            fleet: fleet.ok()?,
        })
    }

    fn model(&mut self, node: &Node) -> Option<ServerModel> {
        let text = self.text(node, "server.model")?;
        if let Some(model) = ServerModel::ALL.into_iter().find(|m| m.name() == text) {
            return Some(model);
        }
        let help = suggest::help(text, ServerModel::ALL.map(|m| m.name()), "models");
        self.error(node, format!("unknown server model `{text}`"), Some(help));
        None
    }

    fn outages(&mut self, node: &Node) -> Option<Vec<Outage>> {
        let Value::Seq(items) = &node.value else {
            self.error(
                node,
                format!(
                    "`server.outages` must be a list like [{{from: 0s, to: 3s}}], found {}",
                    node.describe()
                ),
                None,
            );
            return None;
        };
        let mut outages = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(fields) = self.fields(item, Section::Outage, "an outage") else {
                if item.is_null() {
                    self.error(item, "an outage needs `from` and `to`".to_string(), None);
                }
                ok = false;
                continue;
            };
            let Some((from, to)) = self.window(item, &fields, "outages", "an outage") else {
                ok = false;
                continue;
            };
            outages.push(Outage { from, to });
        }
        ok.then_some(outages)
    }

    /// The `[from, to)` of an entry of `server.{list}` (an outage or a slowdown): both
    /// required, and `to` after `from`.
    fn window(
        &mut self,
        item: &Node,
        fields: &Fields,
        list: &str,
        what: &str,
    ) -> Option<(Micros, Micros)> {
        let mut bound = |name: &str| match fields.get(name) {
            Some(n) => self.duration(n, &format!("server.{list}[].{name}")),
            None => {
                self.missing(item, name, "a duration");
                None
            }
        };
        let (from, to) = (bound("from"), bound("to"));
        let (from, to) = (from?, to?);
        if to <= from {
            let node = fields.get("to").unwrap_or(item);
            self.error(
                node,
                format!(
                    "{what} must end after it starts: `to` ({}) is not after `from` ({})",
                    format_duration(to),
                    format_duration(from)
                ),
                None,
            );
            return None;
        }
        Some((from, to))
    }

    fn retry(&mut self, node: Option<&Node>, defaults: &Retry) -> Option<Retry> {
        let Some(node) = node else {
            return Some(defaults.clone());
        };
        let Some(fields) = self.fields(node, Section::Retry, "`retry`") else {
            return if node.is_null() {
                Some(defaults.clone())
            } else {
                None
            };
        };
        let base = self.duration_or(&fields, "base", defaults.base);
        let cap = self.duration_or(&fields, "cap", defaults.cap);
        let multiplier = match fields.get("multiplier") {
            Some(node) => self.multiplier(node, "retry.multiplier"),
            None => Some(defaults.multiplier),
        };
        let honor_retry_after = match fields.get("honor_retry_after") {
            Some(node) => self.boolean(node, "retry.honor_retry_after"),
            None => Some(defaults.honor_retry_after),
        };
        let budget = match fields.get("budget") {
            Some(node) => self.budget(node).map(Some),
            None => Some(None),
        };
        let breaker = match fields.get("breaker") {
            Some(node) => self.breaker(node).map(Some),
            None => Some(None),
        };
        let max_attempts = match fields.get("max_attempts") {
            Some(node) => self
                .whole(node, "retry.max_attempts", 1, u64::from(u32::MAX))
                .map(|v| Some(v as u32)),
            None => Some(None),
        };
        let deadline = match fields.get("deadline") {
            Some(node) => match self.duration(node, "retry.deadline") {
                Some(0) => {
                    self.error(
                        node,
                        "`retry.deadline` must be longer than 0s".to_string(),
                        None,
                    );
                    None
                }
                other => other.map(Some),
            },
            None => Some(None),
        };
        let timeout = match fields.get("timeout") {
            Some(node) => self.timeout(node).map(Some),
            None => Some(None),
        };
        let throttle = match fields.get("throttle") {
            Some(node) => self.throttle(node).map(Some),
            None => Some(None),
        };
        let jitter = match fields.get("jitter") {
            Some(node) => self.jitter(node),
            None => Some(defaults.jitter),
        };
        let elsewhere = match fields.get("elsewhere") {
            Some(node) => self.boolean(node, "retry.elsewhere"),
            None => Some(defaults.elsewhere),
        };
        let hedging = match fields.get("hedging") {
            Some(node) => self.hedging(node).map(Some),
            None => Some(defaults.hedging),
        };
        let (base, cap) = (base?, cap?);
        if cap > MAX_TIME {
            let node = fields.get("cap").unwrap_or(node);
            self.error(
                node,
                format!("`retry.cap` is {}; the limit is 1h", format_duration(cap)),
                None,
            );
            return None;
        }
        if cap < base {
            let node = fields.get("cap").or(fields.get("base")).unwrap_or(node);
            self.error(
                node,
                format!(
                    "`retry.cap` ({}) is below `retry.base` ({})",
                    format_duration(cap),
                    format_duration(base)
                ),
                Some("the cap is the longest wait, so it must be at least the base".to_string()),
            );
            return None;
        }
        Some(Retry {
            base,
            cap,
            multiplier: multiplier?,
            max_attempts: max_attempts?,
            deadline: deadline?,
            honor_retry_after: honor_retry_after?,
            only_with_hint: false,
            budget: budget?,
            breaker: breaker?,
            timeout: timeout?,
            throttle: throttle?,
            jitter: jitter?,
            elsewhere: elsewhere?,
            hedging: hedging?,
        })
    }

    fn strategies(&mut self, node: &Node) -> Option<Vec<Strategy>> {
        let items: Vec<&Node> = match &node.value {
            Value::Seq(items) => items.iter().collect(),
            Value::Scalar { .. } => vec![node],
            Value::Map(_) => {
                self.error(
                    node,
                    "`strategies` must be a list of names, found a map of keys".to_string(),
                    None,
                );
                return None;
            }
        };
        if items.is_empty() {
            self.error(
                node,
                "`strategies` is empty".to_string(),
                Some(all_strategies()),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(text) = self.text(item, "strategies") else {
                ok = false;
                continue;
            };
            match Strategy::from_name(text) {
                Some(s) if out.contains(&s) => {
                    self.error(item, format!("strategy `{text}` is listed twice"), None);
                    ok = false;
                }
                Some(s) => out.push(s),
                None => {
                    let help = suggest::help(text, Strategy::ALL.map(|s| s.name()), "strategies");
                    self.error(item, format!("unknown strategy `{text}`"), Some(help));
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// The library strategies decide their own retry settings: a scenario that sets one
    /// of them while only library strategies would run it, or that gives them layers,
    /// asks for what cannot happen.
    fn relations_of_libraries(&mut self, s: &Scenario, top: &Fields) {
        let libraries: Vec<&str> = s
            .strategies
            .iter()
            .filter_map(|st| st.library().map(|l| l.name))
            .collect();
        let Some(&first) = libraries.first() else {
            return;
        };
        let item = |name: &str| match top.get("strategies").map(|n| &n.value) {
            Some(Value::Seq(items)) => items.iter().find(|i| i.as_scalar() == Some(name)),
            _ => None,
        };
        if let Some(layers) = top.get("layers") {
            let at = item(first).unwrap_or(layers).clone();
            self.error(
                &at,
                format!(
                    "`{first}` retries as its library does, in one layer: it cannot run a scenario with `layers`"
                ),
                Some(
                    "compare the libraries in a scenario of their own, without `layers`"
                        .to_string(),
                ),
            );
        }
        if libraries.len() < s.strategies.len() {
            // The keys still set the strategies of the model beside them.
            return;
        }
        let Some(Value::Map(pairs)) = top.get("retry").map(|n| &n.value) else {
            return;
        };
        const DECIDED: [&str; 8] = [
            "base",
            "cap",
            "multiplier",
            "jitter",
            "max_attempts",
            "deadline",
            "honor_retry_after",
            "budget",
        ];
        let named = match libraries.as_slice() {
            [one] => format!("`{one}` waits, limits and budgets as its library does"),
            _ => format!(
                "{} wait, limit and budget as their libraries do",
                libraries
                    .iter()
                    .map(|l| format!("`{l}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        for (key, _) in pairs {
            let Some(name) = key.as_scalar().filter(|k| DECIDED.contains(k)) else {
                continue;
            };
            self.error(
                key,
                format!("`retry.{name}` changes no strategy of this scenario: {named} by default"),
                Some(format!(
                    "remove `{name}`, or compare a strategy of the model beside them ({}), which it sets",
                    Strategy::GENERIC.map(|s| s.name()).join(", ")
                )),
            );
        }
    }

    /// Checks what no single key can: how keys relate, and the limits of the whole.
    fn relations(&mut self, s: &Scenario, top: &Fields) {
        let server = top.get("server");
        let server_key = |name: &str| server.and_then(|n| n.entry(name)).map(|(_, v)| v.clone());
        self.relations_of_overload(s, top);
        self.relations_of_fleet(s, top);
        if let (Some(_), Some(_), Some(node)) = (
            s.retry.hedging,
            s.server.pushback,
            top.get("retry").and_then(|r| r.get("hedging")),
        ) {
            self.error(
                node,
                "`retry.hedging` with `server.pushback` is not modelled".to_string(),
                Some(
                    "take one of them out: the model does not say how a hedged call \
                     obeys the server's pushback"
                        .to_string(),
                ),
            );
        }
        self.relations_of_libraries(s, top);
        let horizon_node = top.get("horizon").cloned().or_else(|| server_key("tick"));
        let at = |fallback: Option<Node>| {
            fallback.unwrap_or(Node {
                value: Value::Seq(Vec::new()),
                pos: top.node.pos,
                width: 1,
            })
        };
        if s.horizon > MAX_TIME {
            self.error(
                &at(horizon_node),
                format!(
                    "`horizon` is {}; the limit is 1h",
                    format_duration(s.horizon)
                ),
                None,
            );
            return;
        }
        if s.horizon < s.server.tick {
            self.error(
                &at(horizon_node),
                format!(
                    "`horizon` ({}) is shorter than one tick ({})",
                    format_duration(s.horizon),
                    format_duration(s.server.tick)
                ),
                None,
            );
            return;
        }
        if !s.horizon.is_multiple_of(s.server.tick) {
            let ticks = s.horizon / s.server.tick;
            self.error(
                &at(horizon_node),
                format!(
                    "`horizon` ({}) is not a whole number of ticks ({} each)",
                    format_duration(s.horizon),
                    format_duration(s.server.tick)
                ),
                Some(format!(
                    "try {} or {}",
                    format_duration(ticks * s.server.tick),
                    format_duration((ticks + 1) * s.server.tick)
                )),
            );
            return;
        }
        if s.ticks() > MAX_TICKS {
            self.error(
                &at(horizon_node),
                format!(
                    "the horizon holds {} ticks; the limit is {}",
                    thousands(s.ticks()),
                    thousands(MAX_TICKS)
                ),
                Some("use a longer tick or a shorter horizon".to_string()),
            );
            return;
        }
        if s.spread > s.horizon {
            self.error(
                &at(top.get("spread").cloned()),
                format!(
                    "`spread` ({}) is longer than the horizon ({})",
                    format_duration(s.spread),
                    format_duration(s.horizon)
                ),
                None,
            );
        }
        self.relations_of_guards(s, top);
        // What the caches hold, one slot a tick of their window, replica by replica.
        let replicas = s.server.fleet.as_ref().map_or(1, |f| u64::from(f.replicas));
        let held = super::server::held_ticks(&s.server, s.ticks()).saturating_mul(replicas);
        if held > super::server::MAX_HELD {
            let cache = server.and_then(|n| n.entry("cache")).map(|(_, v)| v);
            let ttl = cache.and_then(|n| n.entry("ttl")).map(|(_, v)| v.clone());
            self.error(
                &at(ttl),
                format!(
                    "the cache's `ttl` spans {} ticks of the run{}: {} together, more \
                     than the {} a run's caches can hold",
                    thousands(held / replicas),
                    match replicas {
                        1 => String::new(),
                        n => format!(" on each of {n} replicas"),
                    },
                    thousands(held),
                    thousands(super::server::MAX_HELD)
                ),
                Some("use a shorter `ttl`, a longer tick or a shorter horizon".to_string()),
            );
        }
        let work = s.least_work();
        if work > MAX_WORK {
            // At the crowd, or at the open-loop load of a scenario without one (or
            // with `clients: 0`, as open-loop scenarios often say).
            let crowd = top.get("clients").filter(|_| s.clients > 0);
            let load = crowd
                .or_else(|| top.get("arrivals"))
                .or_else(|| top.get("clients"));
            self.error(
                &at(load.cloned()),
                format!(
                    "this scenario needs at least {} steps of simulation (each tick, and \
                     the first call of each client, in every run of every strategy); the \
                     limit is {}",
                    thousands(work),
                    thousands(MAX_WORK)
                ),
                Some(
                    "use fewer clients, runs or strategies, a shorter horizon or a longer \
                     tick"
                        .to_string(),
                ),
            );
        }
    }
}

fn all_strategies() -> String {
    let libraries: Vec<&str> = Strategy::ALL[Strategy::GENERIC.len()..]
        .iter()
        .map(|s| s.name())
        .collect();
    format!(
        "{}, and the libraries' {}",
        model_strategies(),
        libraries.join(", ")
    )
}

/// The strategies of the model, which layers may name.
pub(crate) fn model_strategies() -> String {
    format!(
        "the strategies are: {}",
        Strategy::GENERIC.map(|s| s.name()).join(", ")
    )
}
