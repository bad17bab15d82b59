//! Sweep and schedule directives: one parameter varied over values, and the waits of a
//! policy attempt by attempt.
//!
//! A sweep is a scenario with a `sweep:` map:
//!
//! ```yaml
//! id: jitter-vs-clients
//! clients: 100
//! strategies: [full-jitter, equal-jitter, decorrelated-jitter]
//! runs: 50
//! sweep:
//!   vary: clients
//!   values: [25, 50, 100, 200, 400]
//!   total: done_at
//! ```

use crate::engine::read::parse_yaml;
use crate::engine::scenario::{MAX_CAPACITY, MAX_CLIENTS, MAX_TIME, MAX_WORK, Outage};
use crate::engine::units::{self, SECOND, format_duration, format_milli};
use crate::engine::{Scenario, ScenarioError, scenario_from_node};
use crate::format::duration as prose_duration;
use crate::suggest::closest;
use crate::yaml::{Node, Value};

use super::schedule::ScheduleDirective;
use super::{figure_spec, key_node};

/// The most values one sweep may have.
const MAX_VALUES: usize = 40;

/// What a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Parameter {
    /// Clients in the crowd.
    Clients,
    /// Calls per tick the server serves.
    Capacity,
    /// The cost of a rejection.
    RejectionCost,
    /// The length of the first outage.
    Outage,
    /// The first wait.
    Base,
    /// The longest wait.
    Cap,
    /// The growth of the ceiling.
    Multiplier,
    /// Calls per client at most.
    MaxAttempts,
    /// The window of first calls.
    Spread,
}

/// How a parameter's values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Durations with a unit, kept in µs.
    Duration,
    /// Whole numbers.
    Whole,
    /// Numbers with at most three decimals, kept in thousandths.
    Milli,
}

impl Parameter {
    /// Every parameter, in the order the documentation lists them.
    pub const ALL: [Parameter; 9] = [
        Parameter::Clients,
        Parameter::Capacity,
        Parameter::RejectionCost,
        Parameter::Outage,
        Parameter::Base,
        Parameter::Cap,
        Parameter::Multiplier,
        Parameter::MaxAttempts,
        Parameter::Spread,
    ];

    /// The name a directive uses.
    pub const fn name(self) -> &'static str {
        match self {
            Parameter::Clients => "clients",
            Parameter::Capacity => "capacity",
            Parameter::RejectionCost => "rejection_cost",
            Parameter::Outage => "outage",
            Parameter::Base => "base",
            Parameter::Cap => "cap",
            Parameter::Multiplier => "multiplier",
            Parameter::MaxAttempts => "max_attempts",
            Parameter::Spread => "spread",
        }
    }

    /// What it is, for the authors' reference.
    pub const fn meaning(self) -> &'static str {
        match self {
            Parameter::Clients => "clients in the crowd (whole numbers)",
            Parameter::Capacity => "calls per tick the server serves (numbers)",
            Parameter::RejectionCost => "the cost of a rejection (numbers from 0 to 1)",
            Parameter::Outage => {
                "the length of the first outage, from its `from` (0s when there is none)"
            }
            Parameter::Base => "the first wait (durations)",
            Parameter::Cap => "the longest wait (durations)",
            Parameter::Multiplier => "the growth of the ceiling (numbers from 1 to 100)",
            Parameter::MaxAttempts => "calls per client at most (whole numbers)",
            Parameter::Spread => "the window of first calls (durations)",
        }
    }

    /// The parameter of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Parameter> {
        Parameter::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The x axis's title: the parameter, with its unit.
    pub fn axis(self) -> String {
        match self {
            Parameter::Outage => "outage length (s)".to_string(),
            Parameter::Base | Parameter::Cap | Parameter::Spread => {
                format!("{} (s)", self.name())
            }
            Parameter::Capacity => "capacity (calls per tick)".to_string(),
            Parameter::Clients
            | Parameter::RejectionCost
            | Parameter::Multiplier
            | Parameter::MaxAttempts => self.name().replace('_', " "),
        }
    }

    /// How its values are written.
    fn kind(self) -> Kind {
        match self {
            Parameter::Outage | Parameter::Base | Parameter::Cap | Parameter::Spread => {
                Kind::Duration
            }
            Parameter::Clients | Parameter::MaxAttempts => Kind::Whole,
            Parameter::Capacity | Parameter::RejectionCost | Parameter::Multiplier => Kind::Milli,
        }
    }
}

/// The parameters a sweep can vary, with what they are: [`Parameter::ALL`] by name.
pub const PARAMETERS: &[(&str, &str)] = &PARAMETER_TABLE;

const PARAMETER_TABLE: [(&str, &str); Parameter::ALL.len()] = {
    let mut table = [("", ""); Parameter::ALL.len()];
    let mut i = 0;
    while i < table.len() {
        table[i] = (Parameter::ALL[i].name(), Parameter::ALL[i].meaning());
        i += 1;
    }
    table
};

/// The totals a sweep can chart: the ones its chart can draw.
pub use crate::chart::SWEEP_TOTALS as TOTALS;
use crate::chart::Total;

/// The keys of the `sweep:` map, with their meaning.
pub const SWEEP_KEYS: &[(&str, &str)] = &[
    (
        "vary",
        "the parameter to vary: one of the parameters below (required)",
    ),
    (
        "values",
        "its values: a list, or a range `{from, to, step}` (required; at most 40)",
    ),
    ("total", "the total to chart against it (default calls)"),
    (
        "caption",
        "the caption under the chart (default: a generated one)",
    ),
];

/// The keys of a schedule directive, with their meaning.
pub const SCHEDULE_KEYS: &[(&str, &str)] = &[
    ("id", "the schedule's name (required)"),
    ("strategies", "the strategies to show (default all five)"),
    ("retry", "base, cap and multiplier, as in a scenario"),
    ("waits", "how many waits to show (default 8, at most 50)"),
    ("seed", "the seed of the sampled waits (default 1)"),
    ("caption", "the caption (default: a generated one)"),
];

/// A sweep, read: one scenario per value.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepDirective {
    /// The directive's id.
    pub id: String,
    /// The parameter varied.
    pub parameter: Parameter,
    /// The total charted.
    pub total: Total,
    /// For each value: its label, its position on the axis, and the scenario.
    pub points: Vec<(String, f64, Scenario)>,
    /// The author's caption.
    pub caption: Option<String>,
}

fn error(node: &Node, message: String, help: Option<String>) -> ScenarioError {
    ScenarioError {
        pos: node.pos,
        width: node.width,
        message,
        help,
    }
}

fn key<'a>(map: &'a Node, name: &str) -> Option<&'a Node> {
    match &map.value {
        Value::Map(pairs) => pairs
            .iter()
            .find(|(k, v)| k.as_scalar() == Some(name) && !v.is_null())
            .map(|(_, v)| v),
        _ => None,
    }
}

/// Checks a map's keys: each known, none twice; the readers below take the first.
fn check_keys(map: &Node, known: &[&str], prefix: &str, errors: &mut Vec<ScenarioError>) {
    let Value::Map(pairs) = &map.value else {
        errors.push(error(
            map,
            format!("`{prefix}` must be a map of keys, found {}", map.describe()),
            None,
        ));
        return;
    };
    let mut seen = Vec::new();
    for (k, _) in pairs {
        let name = k.as_scalar().unwrap_or("");
        if known.contains(&name) && seen.contains(&name) {
            errors.push(error(k, format!("`{prefix}.{name}` is given twice"), None));
        }
        seen.push(name);
        if !known.contains(&name) {
            let help = match closest(name, known.iter().copied()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("the keys here are: {}", known.join(", ")),
            };
            errors.push(error(
                k,
                format!("unknown key `{prefix}.{name}`"),
                Some(help),
            ));
        }
    }
}

/// Reads a sweep directive. Errors are positioned relative to the body.
pub fn read_sweep(body: &str) -> Result<SweepDirective, Vec<ScenarioError>> {
    let root = parse_yaml(body)?;
    let base = scenario_from_node(&root, None);
    let Some(sweep) = key(&root, "sweep") else {
        let mut errors = base.err().unwrap_or_default();
        errors.push(error(
            &root,
            "missing key `sweep`".to_string(),
            Some("add `sweep: {vary: clients, values: [10, 100, 1000]}`".to_string()),
        ));
        return Err(errors);
    };
    let mut errors = base.as_ref().err().cloned().unwrap_or_default();
    let known: Vec<&str> = SWEEP_KEYS.iter().map(|(k, _)| *k).collect();
    check_keys(sweep, &known, "sweep", &mut errors);

    let parameter = match key(sweep, "vary") {
        None => {
            errors.push(error(
                sweep,
                "missing key `sweep.vary`".to_string(),
                Some(parameter_list()),
            ));
            None
        }
        Some(node) => {
            let name = node.as_scalar().unwrap_or("");
            match Parameter::from_name(name) {
                Some(p) => Some(p),
                None => {
                    let help = match closest(name, PARAMETERS.iter().map(|(p, _)| *p)) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => parameter_list(),
                    };
                    errors.push(error(
                        node,
                        format!("a sweep cannot vary `{name}`"),
                        Some(help),
                    ));
                    None
                }
            }
        }
    };
    let total = match key(sweep, "total") {
        None => Some(Total::Calls),
        Some(node) => {
            let name = node.as_scalar().unwrap_or("");
            match Total::from_name(name) {
                Some(t) => Some(t),
                None => {
                    let help = match closest(name, TOTALS.iter().copied()) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => format!("the totals are: {}", TOTALS.join(", ")),
                    };
                    errors.push(error(
                        node,
                        format!("a sweep cannot chart `{name}`"),
                        Some(help),
                    ));
                    None
                }
            }
        }
    };
    let mut caption = single(sweep, "caption", "sweep.caption", &mut errors);
    let keys = key(&root, "figure");
    // A sweep's axis is the varied parameter: there is no time window to set.
    if let Some(window) = keys.and_then(|f| key_node(f, "window")) {
        errors.push(error(
            window,
            "a sweep's chart has no time axis, so `figure.window` does not apply".to_string(),
            Some("remove `figure.window`; the chart spans the values swept".to_string()),
        ));
    }
    match figure_spec(&root) {
        Ok(figure) => {
            match (
                &caption,
                figure.caption,
                keys.and_then(|f| key_node(f, "caption")),
            ) {
                (Some(_), Some(_), Some(second)) => errors.push(error(
                    second,
                    "the caption is given twice, as `sweep.caption` and as `figure.caption`"
                        .to_string(),
                    Some("keep one of them".to_string()),
                )),
                (_, Some(text), _) => caption = Some(text),
                (_, None, _) => {}
            }
        }
        Err(e) => errors.extend(e),
    }
    let values: Vec<Node> = match key(sweep, "values") {
        Some(Node {
            value: Value::Seq(items),
            ..
        }) if !items.is_empty() && items.len() <= MAX_VALUES => items.clone(),
        Some(
            node @ Node {
                value: Value::Map(_),
                ..
            },
        ) => {
            check_keys(node, &["from", "to", "step"], "sweep.values", &mut errors);
            match parameter.map(|p| range(node, p)) {
                Some(Ok(values)) => values,
                Some(Err(e)) => {
                    errors.push(e);
                    Vec::new()
                }
                None => Vec::new(),
            }
        }
        Some(node) => {
            errors.push(error(
                node,
                format!("`sweep.values` must be a list of 1 to {MAX_VALUES} values, or a range"),
                Some("for example `values: [10, 100, 1000]` or `values: {from: 1s, to: 5s, step: 1s}`".to_string()),
            ));
            Vec::new()
        }
        None => {
            errors.push(error(sweep, "missing key `sweep.values`".to_string(), None));
            Vec::new()
        }
    };
    let (Ok(base), Some(parameter), Some(total)) = (base, parameter, total) else {
        errors.sort_by_key(|e| e.pos);
        return Err(errors);
    };
    let mut points = Vec::new();
    let mut work: u128 = 0;
    for node in &values {
        match apply(&base, parameter, node) {
            Ok((label, x, scenario)) => {
                work += scenario.work();
                points.push((label, x, scenario));
            }
            Err(e) => errors.push(e),
        }
    }
    if work > MAX_WORK {
        errors.push(error(
            sweep,
            format!(
                "this sweep could need up to {} steps of simulation over all its values; the limit is {}",
                crate::format::thousands(work),
                crate::format::thousands(MAX_WORK)
            ),
            Some("use fewer values, runs or clients".to_string()),
        ));
    }
    if !errors.is_empty() {
        errors.sort_by_key(|e| e.pos);
        return Err(errors);
    }
    Ok(SweepDirective {
        id: base.id.clone(),
        parameter,
        total,
        points,
        caption,
    })
}

/// The text of the key `name` of `map`, if written; a list or map there is an error.
fn single(map: &Node, name: &str, label: &str, errors: &mut Vec<ScenarioError>) -> Option<String> {
    let node = key(map, name)?;
    match node.as_scalar() {
        Some(text) => Some(text.to_string()),
        None => {
            errors.push(error(
                node,
                format!(
                    "`{label}` must be a single value, found {}",
                    node.describe()
                ),
                None,
            ));
            None
        }
    }
}

fn parameter_list() -> String {
    format!(
        "the parameters are: {}",
        PARAMETERS
            .iter()
            .map(|(p, _)| *p)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The values of a range `{from, to, step}`, written as the parameter's values are, each
/// placed where the range is.
fn range(node: &Node, parameter: Parameter) -> Result<Vec<Node>, ScenarioError> {
    let kind = parameter.kind();
    // Durations in µs, whole numbers as they are, other numbers in thousandths.
    let read = |name: &str| -> Result<u64, ScenarioError> {
        let Some(n) = key(node, name) else {
            return Err(error(
                node,
                format!("a range needs `{name}`"),
                Some("write `{from: …, to: …, step: …}`".to_string()),
            ));
        };
        let text = n.as_scalar().unwrap_or("");
        let parsed = match kind {
            Kind::Duration => units::parse_duration(text).ok(),
            Kind::Whole => text.parse::<u64>().ok(),
            Kind::Milli => units::parse_milli(text).ok(),
        };
        parsed.ok_or_else(|| {
            let name = parameter.name();
            error(n, format!("`{text}` is not a value of `{name}`"), None)
        })
    };
    let (from, to, step) = (read("from")?, read("to")?, read("step")?);
    if step == 0 || to < from {
        return Err(error(
            node,
            "a range needs `from` ≤ `to` and a `step` above zero".to_string(),
            None,
        ));
    }
    let count = (to - from) / step + 1;
    if count > MAX_VALUES as u64 {
        return Err(error(
            node,
            format!("this range has {count} values; the limit is {MAX_VALUES}"),
            None,
        ));
    }
    Ok((0..count)
        .map(|i| {
            let v = from + i * step;
            let text = match kind {
                Kind::Duration => format_duration(v),
                Kind::Whole => v.to_string(),
                Kind::Milli => format_milli(v),
            };
            Node {
                value: Value::Scalar {
                    text,
                    plain: true,
                    quoted: false,
                },
                pos: node.pos,
                width: node.width,
            }
        })
        .collect())
}

/// The scenario with `parameter` set to the value in `node`, with the value's label and
/// its place on the axis.
fn apply(
    base: &Scenario,
    parameter: Parameter,
    node: &Node,
) -> Result<(String, f64, Scenario), ScenarioError> {
    let name = parameter.name();
    let Some(text) = node.as_scalar() else {
        return Err(error(
            node,
            format!(
                "each of `sweep.values` must be a single value, found {}",
                node.describe()
            ),
            None,
        ));
    };
    let mut s = base.clone();
    let bad = |what: &str| error(node, format!("`{text}` is not {what} for `{name}`"), None);
    let duration = || units::parse_duration(text).map_err(|_| bad("a duration like 3s"));
    let milli =
        || units::parse_milli(text).map_err(|_| bad("a number with at most three decimals"));
    let whole = || text.parse::<u64>().map_err(|_| bad("a whole number"));
    let out_of_range = |range: &str| {
        error(
            node,
            format!("`{name}` must be {range}, found {text}"),
            None,
        )
    };
    let (label, x) = match parameter {
        Parameter::Clients => {
            let n = whole()?;
            if !(1..=MAX_CLIENTS).contains(&n) {
                return Err(out_of_range("from 1 to 10,000,000"));
            }
            s.clients = n;
            (crate::format::thousands(n), n as f64)
        }
        Parameter::Capacity => {
            let m = milli()?;
            if m == 0 || m > MAX_CAPACITY * 1000 {
                return Err(out_of_range("more than 0"));
            }
            s.server.capacity_milli = m;
            (format_milli(m), m as f64 / 1000.0)
        }
        Parameter::RejectionCost => {
            let m = milli()?;
            if m > 1000 {
                return Err(out_of_range("from 0 to 1"));
            }
            s.server.rejection_cost_milli = m;
            (format_milli(m), m as f64 / 1000.0)
        }
        Parameter::Outage => {
            let length = duration()?;
            let from = s.server.outages.first().map_or(0, |o| o.from);
            if length == 0 {
                s.server.outages.retain(|o| o.from != from);
            } else {
                let outage = Outage {
                    from,
                    to: from + length,
                };
                match s.server.outages.first_mut() {
                    Some(first) => *first = outage,
                    None => s.server.outages.push(outage),
                }
            }
            (prose_duration(length), length as f64 / SECOND as f64)
        }
        Parameter::Base => {
            let us = duration()?;
            if us > s.retry.cap {
                return Err(out_of_range(&format!(
                    "at most the cap ({})",
                    format_duration(s.retry.cap)
                )));
            }
            s.retry.base = us;
            (prose_duration(us), us as f64 / SECOND as f64)
        }
        Parameter::Cap => {
            let us = duration()?;
            if us < s.retry.base || us > MAX_TIME {
                return Err(out_of_range(&format!(
                    "from the base ({}) to 1h",
                    format_duration(s.retry.base)
                )));
            }
            s.retry.cap = us;
            (prose_duration(us), us as f64 / SECOND as f64)
        }
        Parameter::Spread => {
            let us = duration()?;
            if us > s.horizon {
                return Err(out_of_range("at most the horizon"));
            }
            s.spread = us;
            (prose_duration(us), us as f64 / SECOND as f64)
        }
        Parameter::Multiplier => {
            let m: f64 = text.parse().map_err(|_| bad("a number"))?;
            if !(1.0..=100.0).contains(&m) {
                return Err(out_of_range("from 1 to 100"));
            }
            s.retry.multiplier = m;
            (text.to_string(), m)
        }
        Parameter::MaxAttempts => {
            let n = whole()?;
            if n == 0 || n > u64::from(u32::MAX) {
                return Err(out_of_range("at least 1"));
            }
            s.retry.max_attempts = Some(n as u32);
            (crate::format::thousands(n), n as f64)
        }
    };
    Ok((label, x, s))
}

/// Reads a schedule directive. Errors are positioned relative to the body.
pub fn read_schedule(body: &str) -> Result<ScheduleDirective, Vec<ScenarioError>> {
    let root = parse_yaml(body)?;
    let mut errors = Vec::new();
    let known: Vec<&str> = SCHEDULE_KEYS.iter().map(|(k, _)| *k).collect();
    check_keys(&root, &known, "schedule", &mut errors);
    // The engine reads the shared keys, so that retry and strategies mean the same.
    let mut shared = root.clone();
    if let Value::Map(pairs) = &mut shared.value {
        // A key given twice is reported above, once.
        let mut seen = Vec::new();
        pairs.retain(|(k, _)| {
            let name = k.as_scalar().map(str::to_string);
            let shared = matches!(
                name.as_deref(),
                Some("id" | "strategies" | "retry" | "seed")
            );
            let first = !seen.contains(&name);
            seen.push(name);
            shared && first
        });
        pairs.push((
            Node {
                value: Value::Scalar {
                    text: "clients".into(),
                    plain: true,
                    quoted: false,
                },
                pos: root.pos,
                width: 1,
            },
            Node {
                value: Value::Scalar {
                    text: "1".into(),
                    plain: true,
                    quoted: false,
                },
                pos: root.pos,
                width: 1,
            },
        ));
    }
    let scenario = scenario_from_node(&shared, None)
        .map_err(|e| errors.extend(e))
        .ok();
    let waits = match key(&root, "waits") {
        None => Some(8),
        Some(node) => match node.as_scalar().and_then(|t| t.parse::<u32>().ok()) {
            Some(n) if (1..=50).contains(&n) => Some(n),
            _ => {
                errors.push(error(
                    node,
                    format!(
                        "`waits` must be a whole number from 1 to 50, found {}",
                        node.describe()
                    ),
                    None,
                ));
                None
            }
        },
    };
    let caption = single(&root, "caption", "caption", &mut errors);
    match (scenario, waits) {
        (Some(s), Some(waits)) if errors.is_empty() => Ok(ScheduleDirective {
            id: s.id,
            strategies: s.strategies,
            retry: s.retry,
            waits,
            seed: s.seed,
            caption,
        }),
        _ => {
            errors.sort_by_key(|e| e.pos);
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Strategy;

    #[test]
    fn a_sweep_makes_one_scenario_per_value() {
        let s = read_sweep(
            "id: s\nclients: 10\nserver: {outages: [{from: 1s, to: 2s}]}\n\
             sweep: {vary: outage, values: [0s, 500ms, 3s], total: done_at}\n",
        )
        .unwrap();
        assert_eq!(s.parameter, Parameter::Outage);
        assert_eq!(s.total, Total::DoneAt);
        let labels: Vec<&str> = s.points.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(labels, ["0 s", "500 ms", "3 s"]);
        assert!(s.points[0].2.server.outages.is_empty());
        assert_eq!(
            s.points[2].2.server.outages[0],
            Outage {
                from: 1_000_000,
                to: 4_000_000
            }
        );
    }

    #[test]
    fn a_range_gives_evenly_spaced_values() {
        let s = read_sweep(
            "id: s\nclients: 10\nsweep: {vary: base, values: {from: 100ms, to: 1s, step: 300ms}}\n",
        )
        .unwrap();
        let labels: Vec<&str> = s.points.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(labels, ["100 ms", "400 ms", "700 ms", "1 s"]);
        let s = read_sweep(
            "id: s\nclients: 10\nsweep: {vary: capacity, values: {from: 2.5, to: 4, step: 0.5}}\n",
        )
        .unwrap();
        let labels: Vec<&str> = s.points.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(labels, ["2.5", "3", "3.5", "4"]);
        let errors = read_sweep(
            "id: s\nclients: 10\nsweep: {vary: clients, values: {from: 1, to: 1000, step: 1}}\n",
        )
        .unwrap_err();
        assert_eq!(
            errors[0].message,
            "this range has 1000 values; the limit is 40"
        );
    }

    #[test]
    fn sweep_mistakes_are_located() {
        let errors =
            read_sweep("id: s\nclients: 10\nsweep: {vary: client, values: [1]}\n").unwrap_err();
        assert_eq!(errors[0].message, "a sweep cannot vary `client`");
        assert_eq!(errors[0].help.as_deref(), Some("did you mean `clients`?"));
        let errors =
            read_sweep("id: s\nclients: 10\nsweep: {vary: cap, values: [1s, 10ms]}\n").unwrap_err();
        assert_eq!(
            errors[0].message,
            "`cap` must be from the base (100ms) to 1h, found 10ms"
        );
        assert_eq!(errors[0].pos.column, 33);
    }

    #[test]
    fn a_sweep_takes_its_caption_from_figure_and_refuses_a_window() {
        let base = "id: s\nclients: 10\nsweep: {vary: clients, values: [1, 2]}\n";
        let s = read_sweep(&format!(
            "{base}figure: {{caption: Calls as the crowd grows}}\n"
        ))
        .unwrap();
        assert_eq!(s.caption.as_deref(), Some("Calls as the crowd grows"));
        let errors = read_sweep(&format!("{base}figure: {{window: 5s}}\n")).unwrap_err();
        assert_eq!(
            errors[0].message,
            "a sweep's chart has no time axis, so `figure.window` does not apply"
        );
        assert_eq!((errors[0].pos.line, errors[0].pos.column), (4, 10));
        let errors = read_sweep(&format!("{base}figure: {{captoin: Hi}}\n")).unwrap_err();
        assert_eq!(errors[0].message, "unknown key `figure.captoin`");
        assert_eq!(errors[0].help.as_deref(), Some("did you mean `caption`?"));
        let errors = read_sweep(
            "id: s\nclients: 10\nsweep: {vary: clients, values: [1], caption: A}\n\
             figure: {caption: B}\n",
        )
        .unwrap_err();
        assert_eq!(
            errors[0].message,
            "the caption is given twice, as `sweep.caption` and as `figure.caption`"
        );
        assert_eq!(errors[0].pos.line, 4);
    }

    #[test]
    fn no_key_of_a_sweep_or_schedule_is_ignored() {
        let first = |body: &str| read_sweep(body).unwrap_err().remove(0).message;
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: clients, vary: base, values: [1]}\n"),
            "`sweep.vary` is given twice"
        );
        assert_eq!(
            first(
                "id: s\nclients: 10\nsweep: {vary: clients, values: {from: 1, to: 5, step: 1, by: 2}}\n"
            ),
            "unknown key `sweep.values.by`"
        );
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: clients, values: [1], caption: [a]}\n"),
            "`sweep.caption` must be a single value, found a list"
        );
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: clients, values: [1, {a: 2}]}\n"),
            "each of `sweep.values` must be a single value, found a map of keys"
        );
        assert_eq!(
            first(
                "id: s\nclients: 10\nfigure: {caption: A, caption: B}\nsweep: {vary: clients, values: [1]}\n"
            ),
            "`figure.caption` is given twice"
        );
        let errors = read_schedule("id: w\nid: v\n").unwrap_err();
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["`schedule.id` is given twice"]);
        let errors = read_schedule("id: w\nwaits: 6\nwaits: 7\ncaption: {a: 1}\n").unwrap_err();
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "`schedule.waits` is given twice",
                "`caption` must be a single value, found a map of keys"
            ]
        );
    }

    #[test]
    fn a_schedule_reads_the_shared_retry_keys() {
        let s = read_schedule(
            "id: w\nstrategies: [full-jitter]\nretry: {base: 1s, cap: 1m}\nwaits: 6\n",
        )
        .unwrap();
        assert_eq!(s.strategies, [Strategy::FullJitter]);
        assert_eq!(s.retry.base, SECOND);
        assert_eq!(s.waits, 6);
        let errors = read_schedule("id: w\nwait: 6\n").unwrap_err();
        assert_eq!(errors[0].message, "unknown key `schedule.wait`");
    }
}
