//! The sweep directive: one parameter varied over values.
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
use crate::engine::scenario::MAX_WORK;
use crate::engine::units::{self, SECOND, format_duration, format_milli};
use crate::engine::{Scenario, ScenarioError, scenario_from_node};
use crate::format::duration as prose_duration;
use crate::format::thousands;
use crate::suggest;
use crate::yaml::{Map, Naming, Node, Value};

use super::figure_spec;

/// The most values one sweep may have.
const MAX_VALUES: usize = 40;

pub use crate::engine::read::vary::Parameter;
use crate::engine::read::vary::{Kind, placed, scalar};

impl Parameter {
    /// What it is, for the authors' reference.
    pub const fn meaning(self) -> &'static str {
        match self {
            Parameter::Clients => "clients in the crowd (whole numbers)",
            Parameter::Capacity => {
                "calls per tick the server serves, every call a miss with a cache (numbers)"
            }
            Parameter::RejectionCost => "the cost of a rejection (numbers from 0 to 1)",
            Parameter::Outage => {
                "the length of the first outage, from its `from` (0s when there is none)"
            }
            Parameter::Base => "the first wait (durations)",
            Parameter::Cap => "the longest wait (durations)",
            Parameter::Multiplier => "the growth of the ceiling (numbers from 1 to 100)",
            Parameter::MaxAttempts => "calls per client at most (whole numbers)",
            Parameter::Spread => "the window of first calls (durations)",
            Parameter::Timeout => "the per-attempt timeout, `retry.timeout` (durations)",
            Parameter::QueueLimit => {
                "the most calls the server's queue holds, `server.queue.limit` (whole \
                 numbers; a scenario without a queue gets one, fifo, that drops nothing; a \
                 replica's own queue, from its override, stays as it is)"
            }
            Parameter::Replicas => {
                "the server's replicas, `server.replicas` (whole numbers from 1 to 100; \
                 each with the server's capacity)"
            }
            Parameter::HedgeDelay => {
                "the delay of hedged calls, `retry.hedging.delay` (durations; a scenario \
                 without hedging gets it, two copies of each call)"
            }
            Parameter::Load => {
                "new requests per second, the `rate` of the first window of `arrivals` \
                 (numbers; a scenario without arrivals gets a window over the whole \
                 horizon)"
            }
        }
    }

    /// The x axis's title: the parameter, with its unit.
    pub fn axis(self) -> String {
        match self {
            Parameter::Outage => "outage length (s)".to_string(),
            Parameter::Base | Parameter::Cap | Parameter::Spread | Parameter::Timeout => {
                format!("{} (s)", self.name())
            }
            Parameter::HedgeDelay => "hedge delay (s)".to_string(),
            Parameter::Load => "load (requests per second)".to_string(),
            Parameter::Capacity => "capacity (calls per tick)".to_string(),
            Parameter::QueueLimit => "queue limit (calls)".to_string(),
            Parameter::Replicas => "replicas".to_string(),
            Parameter::Clients
            | Parameter::RejectionCost
            | Parameter::Multiplier
            | Parameter::MaxAttempts => self.name().replace('_', " "),
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

use crate::engine::metric::Metric;

/// How many totals a sweep can chart.
const CHARTABLE: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < Metric::ALL.len() {
        if Metric::ALL[i].is_chartable() {
            n += 1;
        }
        i += 1;
    }
    n
};

/// The totals a sweep can chart, by the names a directive uses: the
/// [`Metric::is_chartable`] ones of [`Metric::ALL`], in its order, which its chart can
/// draw.
pub const TOTALS: [&str; CHARTABLE] = {
    let mut names = [""; CHARTABLE];
    let (mut i, mut n) = (0, 0);
    while i < Metric::ALL.len() {
        if Metric::ALL[i].is_chartable() {
            names[n] = Metric::ALL[i].name();
            n += 1;
        }
        i += 1;
    }
    names
};

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

/// A sweep, read: one scenario per value.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepDirective {
    /// The directive's id.
    pub id: String,
    /// The parameter varied.
    pub parameter: Parameter,
    /// The total charted.
    pub total: Metric,
    /// For each value: its label, its position on the axis, and the scenario.
    pub points: Vec<(String, f64, Scenario)>,
    /// The author's caption.
    pub caption: Option<String>,
}

pub(super) fn error(node: &Node, message: String, help: Option<String>) -> ScenarioError {
    ScenarioError::at(node, message, help)
}

/// A value, or the problem with it added to `errors`.
pub(super) fn noted<T>(
    read: Result<T, ScenarioError>,
    errors: &mut Vec<ScenarioError>,
) -> Option<T> {
    read.map_err(|e| errors.push(e)).ok()
}

/// Reads a sweep directive. Errors are positioned relative to the body.
pub fn read_sweep(body: &str) -> Result<SweepDirective, Vec<ScenarioError>> {
    read_sweep_root(&parse_yaml(body)?)
}

/// Reads a sweep directive from its parsed YAML (an `extends` already resolved): the
/// scenario, the keys of its `sweep:` map, then one scenario per value.
pub fn read_sweep_root(root: &Node) -> Result<SweepDirective, Vec<ScenarioError>> {
    let base = scenario_from_node(root, None);
    let Some(sweep_node) = root.get("sweep") else {
        let mut errors = base.err().unwrap_or_default();
        errors.push(error(
            root,
            "missing key `sweep`".to_string(),
            Some("add `sweep: {vary: clients, values: [10, 100, 1000]}`".to_string()),
        ));
        return Err(errors);
    };
    let mut errors = base.as_ref().err().cloned().unwrap_or_default();
    let known: Vec<&str> = SWEEP_KEYS.iter().map(|(k, _)| *k).collect();
    let Some(sweep) = Map::read(
        sweep_node,
        &known,
        Naming::Path("sweep."),
        "`sweep`",
        &mut errors,
    ) else {
        errors.sort_by_key(|e| e.pos);
        return Err(errors);
    };
    let parameter = read_parameter(&sweep, &mut errors);
    let total = read_total(&sweep, &mut errors);
    let caption = read_caption(root, &sweep, &mut errors);
    let values = read_values(&sweep, parameter, &mut errors);
    let (Ok(base), Some(parameter), Some(total)) = (base, parameter, total) else {
        errors.sort_by_key(|e| e.pos);
        return Err(errors);
    };
    let points = read_points(root, parameter, &values, &mut errors);
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

/// `sweep.vary`: the parameter varied, one of [`PARAMETERS`].
fn read_parameter(sweep: &Map, errors: &mut Vec<ScenarioError>) -> Option<Parameter> {
    match noted(sweep.text("vary"), errors).flatten() {
        None if sweep.get("vary").is_none() => {
            errors.push(error(
                sweep.node,
                "missing key `sweep.vary`".to_string(),
                Some(parameter_list()),
            ));
            None
        }
        None => None,
        Some(name) => match Parameter::from_name(name) {
            Some(p) => Some(p),
            None => {
                let node = sweep.get("vary").unwrap_or(sweep.node);
                errors.push(error(
                    node,
                    format!("a sweep cannot vary `{name}`"),
                    Some(suggest::help(
                        name,
                        PARAMETERS.iter().map(|(p, _)| *p),
                        "parameters",
                    )),
                ));
                None
            }
        },
    }
}

/// `sweep.total`: the total charted, one of [`TOTALS`] (calls when none is named).
fn read_total(sweep: &Map, errors: &mut Vec<ScenarioError>) -> Option<Metric> {
    match noted(sweep.text("total"), errors) {
        None => None,
        Some(None) => Some(Metric::Calls),
        Some(Some(name)) => match Metric::from_name(name).filter(|m| m.is_chartable()) {
            Some(t) => Some(t),
            None => {
                let node = sweep.get("total").unwrap_or(sweep.node);
                errors.push(error(
                    node,
                    format!("a sweep cannot chart `{name}`"),
                    Some(suggest::help(name, TOTALS.iter().copied(), "totals")),
                ));
                None
            }
        },
    }
}

/// The caption, as `sweep.caption` or as `figure.caption` (not both); the rest of
/// `figure:` is checked, and a `figure.window` refused.
fn read_caption(root: &Node, sweep: &Map, errors: &mut Vec<ScenarioError>) -> Option<String> {
    let mut caption = noted(sweep.text("caption"), errors)
        .flatten()
        .map(str::to_string);
    let keys = root.get("figure");
    // A sweep's axis is the varied parameter: there is no time window to set.
    if let Some(window) = keys.and_then(|f| f.entry("window")).map(|(key, _)| key) {
        errors.push(error(
            window,
            "a sweep's chart has no time axis, so `figure.window` does not apply".to_string(),
            Some("remove `figure.window`; the chart spans the values swept".to_string()),
        ));
    }
    match figure_spec(root) {
        Ok(figure) => {
            match (
                &caption,
                figure.caption,
                keys.and_then(|f| f.entry("caption")).map(|(key, _)| key),
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
    caption
}

/// `sweep.values`: a list of 1 to [`MAX_VALUES`] values, or a range `{from, to, step}`
/// written out as the parameter's values (once the parameter is known).
fn read_values(
    sweep: &Map,
    parameter: Option<Parameter>,
    errors: &mut Vec<ScenarioError>,
) -> Vec<Node> {
    match sweep.get("values") {
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
            let naming = Naming::Path("sweep.values.");
            let range_map = Map::read(node, &["from", "to", "step"], naming, "a range", errors);
            match (range_map, parameter) {
                (Some(map), Some(p)) => noted(range(&map, p), errors).unwrap_or_default(),
                (None, _) | (_, None) => Vec::new(),
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
            errors.push(error(
                sweep.node,
                "missing key `sweep.values`".to_string(),
                None,
            ));
            Vec::new()
        }
    }
}

/// Where the scenario at value `i` of the sweep read from `root` says that it passed
/// its share of the limit of work: at the value, or at `values` when it is a range.
pub fn value_node(root: &Node, i: usize) -> &Node {
    let values = root.get("sweep").and_then(|s| s.get("values"));
    match values.map(|v| &v.value) {
        Some(Value::Seq(items)) => items.get(i).or(values),
        _ => values,
    }
    .unwrap_or(root)
}

/// The scenario at each value (see [`point`]), each within its share of the limit of
/// work ([`crate::engine::work::share`]): the first value whose scenario needs more
/// than its share at least is refused.
fn read_points(
    root: &Node,
    parameter: Parameter,
    values: &[Node],
    errors: &mut Vec<ScenarioError>,
) -> Vec<(String, f64, Scenario)> {
    let mut points = Vec::new();
    let share = crate::engine::work::share(values.len());
    let mut refused = false;
    for node in values {
        match point(root, parameter, node) {
            Ok((label, x, scenario)) => {
                let least = scenario.least_work();
                if !refused && least > u128::from(share) {
                    refused = true;
                    errors.push(error(
                        node,
                        format!(
                            "at this value the scenario needs at least {} steps of \
                             simulation, more than its share of the limit: {} of {}, \
                             shared by {} values",
                            thousands(least),
                            thousands(share),
                            thousands(MAX_WORK),
                            thousands(values.len() as u64)
                        ),
                        Some("use fewer values, runs or clients".to_string()),
                    ));
                }
                points.push((label, x, scenario));
            }
            Err(e) => errors.extend(e),
        }
    }
    points
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
fn range(map: &Map, parameter: Parameter) -> Result<Vec<Node>, ScenarioError> {
    let kind = parameter.kind();
    let node = map.node;
    // Durations in µs, whole numbers as they are, other numbers in thousandths.
    let read = |name: &str| -> Result<u64, ScenarioError> {
        let Some(text) = map.text(name)? else {
            return Err(error(
                node,
                format!("a range needs `{name}`"),
                Some("write `{from: …, to: …, step: …}`".to_string()),
            ));
        };
        let parsed = match kind {
            Kind::Duration => units::parse_duration(text).ok(),
            Kind::Whole => text.parse::<u64>().ok(),
            Kind::Milli => units::parse_milli(text).ok(),
        };
        parsed.ok_or_else(|| {
            let at = map.get(name).unwrap_or(node);
            let parameter = parameter.name();
            error(
                at,
                format!("`{text}` is not a value of `{parameter}`"),
                None,
            )
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
            scalar(text, node)
        })
        .collect())
}

/// The scenario with `parameter` set to the value in `node`, with the value's label and
/// its place on the axis. The value replaces the parameter's node in the scenario's YAML,
/// which the scenario reader then reads again: a sweep's value is checked exactly as the
/// same value written in the scenario. Each mistake is placed at the value.
fn point(
    root: &Node,
    parameter: Parameter,
    node: &Node,
) -> Result<(String, f64, Scenario), Vec<ScenarioError>> {
    let text = match node.as_scalar() {
        Some(text) if !node.is_null() => text,
        Some(_) | None => {
            return Err(vec![error(
                node,
                format!(
                    "each of `sweep.values` must be a single value, found {}",
                    node.describe()
                ),
                None,
            )]);
        }
    };
    let (tree, outage) = placed(root, parameter, node, text)?;
    let s = scenario_from_node(&tree, None).map_err(|errors| {
        // The scenario without the value was read without a mistake: each one now is the
        // value's, wherever the reader found it.
        errors
            .into_iter()
            .map(|e| ScenarioError {
                pos: node.pos,
                width: node.width,
                ..e
            })
            .collect::<Vec<_>>()
    })?;
    let (label, x) = match parameter {
        Parameter::Clients => (crate::format::thousands(s.clients), s.clients as f64),
        // Written as the prose's references write them: `1,000`, `2.5`.
        Parameter::Capacity => {
            let m = s.server.capacity_milli;
            (crate::format::milli(m), m as f64 / 1000.0)
        }
        Parameter::RejectionCost => {
            let m = s.server.rejection_cost_milli;
            (crate::format::milli(m), m as f64 / 1000.0)
        }
        Parameter::Outage => (prose_duration(outage), outage as f64 / SECOND as f64),
        Parameter::Base => seconds(s.retry.base),
        Parameter::Cap => seconds(s.retry.cap),
        Parameter::Spread => seconds(s.spread),
        Parameter::Timeout => match s.retry.timeout {
            Some(t) => seconds(t),
            None => ("no timeout".to_string(), 0.0),
        },
        Parameter::QueueLimit => {
            // A limit of 0 is no queue: its place on the axis is 0.
            let limit = s.server.queue.map_or(0, |q| q.limit);
            (crate::format::thousands(limit), limit as f64)
        }
        Parameter::Replicas => {
            let n = s.server.fleet.as_ref().map_or(1, |f| f.replicas);
            (crate::format::thousands(u64::from(n)), f64::from(n))
        }
        // Set by the point, so never none.
        Parameter::HedgeDelay => seconds(s.retry.hedging.map_or(0, |h| h.delay)),
        // Set by the point, so never none.
        Parameter::Load => {
            let m = s.arrivals.first().map_or(0, |a| a.rate_milli);
            (crate::format::milli(m), m as f64 / 1000.0)
        }
        Parameter::Multiplier => (text.to_string(), s.retry.multiplier),
        Parameter::MaxAttempts => {
            let n = s.retry.max_attempts.unwrap_or(0);
            (crate::format::thousands(u64::from(n)), f64::from(n))
        }
    };
    Ok((label, x, s))
}

/// A duration's label and its place on an axis in seconds.
fn seconds(us: u64) -> (String, f64) {
    (prose_duration(us), us as f64 / SECOND as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scenario::Outage;

    #[test]
    fn a_capacity_is_labelled_as_the_prose_writes_it() {
        let s = read_sweep(
            "id: s\nclients: 10\nsweep: {vary: capacity, values: [2.5, 1000, 12500.5]}\n",
        )
        .unwrap();
        let labels: Vec<&str> = s
            .points
            .iter()
            .map(|(label, _, _)| label.as_str())
            .collect();
        assert_eq!(labels, ["2.5", "1,000", "12,500.5"]);
    }

    #[test]
    fn a_sweep_makes_one_scenario_per_value() {
        let s = read_sweep(
            "id: s\nclients: 10\nserver: {outages: [{from: 1s, to: 2s}]}\n\
             sweep: {vary: outage, values: [0s, 500ms, 3s], total: done_at}\n",
        )
        .unwrap();
        assert_eq!(s.parameter, Parameter::Outage);
        assert_eq!(s.total, Metric::DoneAt);
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
            "`retry.cap` (10ms) is below `retry.base` (100ms)"
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
    }

    /// The scalar at `path` below `node`, if there is one.
    fn at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
        match path.split_first() {
            None => node.as_scalar(),
            Some((first, rest)) => at(node.get(first)?, rest),
        }
    }

    /// The scenario's YAML with `parameter` set to `value`, as a sweep sets it.
    fn with(yaml: &str, parameter: Parameter, value: &str) -> Result<Node, String> {
        let root = parse_yaml(yaml).unwrap();
        let node = scalar(value.to_string(), &root);
        placed(&root, parameter, &node, value)
            .map(|(tree, _)| tree)
            .map_err(|e| e[0].message.clone())
    }

    #[test]
    fn a_sweep_of_the_timeout_sets_retry_timeout() {
        assert_eq!(Parameter::from_name("timeout"), Some(Parameter::Timeout));
        assert_eq!(Parameter::Timeout.axis(), "timeout (s)");
        let tree = with("id: s\nclients: 10\n", Parameter::Timeout, "250ms").unwrap();
        assert_eq!(at(&tree, &["retry", "timeout"]), Some("250ms"));
        // The rest of `retry` stays as the author wrote it.
        let tree = with(
            "id: s\nretry: {base: 1s, timeout: 3s}\n",
            Parameter::Timeout,
            "2s",
        )
        .unwrap();
        assert_eq!(at(&tree, &["retry", "timeout"]), Some("2s"));
        assert_eq!(at(&tree, &["retry", "base"]), Some("1s"));
    }

    #[test]
    fn a_sweep_of_the_queue_limit_makes_a_queue_where_there_is_none() {
        assert_eq!(
            Parameter::from_name("queue_limit"),
            Some(Parameter::QueueLimit)
        );
        assert_eq!(Parameter::QueueLimit.axis(), "queue limit (calls)");
        for yaml in [
            "id: s\n",
            "id: s\nserver: {capacity: 5}\n",
            "id: s\nserver: {queue: ~}\n",
        ] {
            let tree = with(yaml, Parameter::QueueLimit, "50").unwrap();
            let queue = |k: &str| at(&tree, &["server", "queue", k]);
            assert_eq!(queue("limit"), Some("50"), "{yaml}");
            assert_eq!(queue("order"), Some("fifo"), "{yaml}");
            assert_eq!(queue("drop_expired"), Some("false"), "{yaml}");
        }
        // The scenario's own queue keeps its order and whether it drops expired calls.
        let tree = with(
            "id: s\nserver: {capacity: 5, queue: {limit: 10, order: lifo, drop_expired: true}}\n",
            Parameter::QueueLimit,
            "0",
        )
        .unwrap();
        let queue = |k: &str| at(&tree, &["server", "queue", k]);
        assert_eq!(
            (queue("limit"), queue("order"), queue("drop_expired")),
            (Some("0"), Some("lifo"), Some("true"))
        );
        assert_eq!(at(&tree, &["server", "capacity"]), Some("5"));
    }

    #[test]
    fn a_sweep_of_the_hedge_delay_hedges_a_scenario_that_does_not() {
        assert_eq!(
            Parameter::from_name("hedge_delay"),
            Some(Parameter::HedgeDelay)
        );
        assert_eq!(Parameter::HedgeDelay.axis(), "hedge delay (s)");
        // Without hedging: two copies of each call, at the delay.
        let tree = with("id: s\n", Parameter::HedgeDelay, "300ms").unwrap();
        let hedging = |tree: &Node, k: &str| at(tree, &["retry", "hedging", k]).map(String::from);
        assert_eq!(hedging(&tree, "delay").as_deref(), Some("300ms"));
        assert_eq!(hedging(&tree, "max_attempts").as_deref(), Some("2"));
        // With it, its copies stay.
        let tree = with(
            "id: s\nretry: {hedging: {delay: 1s, max_attempts: 4}}\n",
            Parameter::HedgeDelay,
            "50ms",
        )
        .unwrap();
        assert_eq!(hedging(&tree, "delay").as_deref(), Some("50ms"));
        assert_eq!(hedging(&tree, "max_attempts").as_deref(), Some("4"));
        // A number without a unit is named as the sweep's mistake.
        let e = with("id: s\n", Parameter::HedgeDelay, "300").unwrap_err();
        assert_eq!(e, "`300` is not a duration like 1s for `hedge_delay`");
    }

    #[test]
    fn a_sweep_of_the_load_sets_the_first_windows_rate() {
        assert_eq!(Parameter::from_name("load"), Some(Parameter::Load));
        assert_eq!(Parameter::Load.axis(), "load (requests per second)");
        let rate = |tree: &Node, path: &[&str]| at(tree, path).map(String::from);
        // Without arrivals: one window, over the whole horizon.
        let tree = with("id: s\nclients: 0\n", Parameter::Load, "250").unwrap();
        assert_eq!(rate(&tree, &["arrivals", "rate"]).as_deref(), Some("250"));
        // One window: its rate, and its window stays.
        let tree = with(
            "id: s\nclients: 0\narrivals: {rate: 10, from: 1s, to: 5s}\n",
            Parameter::Load,
            "12.5",
        )
        .unwrap();
        assert_eq!(rate(&tree, &["arrivals", "rate"]).as_deref(), Some("12.5"));
        assert_eq!(rate(&tree, &["arrivals", "from"]).as_deref(), Some("1s"));
        // Several: the first.
        let root =
            parse_yaml("id: s\nclients: 0\narrivals: [{rate: 10, to: 5s}, {rate: 20, from: 5s}]\n")
                .unwrap();
        let node = scalar("40".to_string(), &root);
        let (tree, _) = placed(&root, Parameter::Load, &node, "40").unwrap();
        let s = crate::engine::scenario_from_node(&tree, Some("s")).unwrap();
        let rates: Vec<u64> = s.arrivals.iter().map(|a| a.rate_milli).collect();
        assert_eq!(rates, [40_000, 20_000]);
    }

    #[test]
    fn a_sweep_of_the_overload_model_names_a_value_of_the_wrong_kind() {
        let first = |body: &str| {
            let e = read_sweep(body).unwrap_err().remove(0);
            (e.message, e.pos.line, e.pos.column)
        };
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: timeout, values: [soon]}\n"),
            (
                "`soon` is not a duration like 1s for `timeout`".to_string(),
                3,
                33
            )
        );
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: timeout, values: [10]}\n"),
            (
                "`10` is not a duration like 1s for `timeout`".to_string(),
                3,
                33
            )
        );
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: queue_limit, values: [-1]}\n"),
            (
                "`-1` is not a whole number like 100 for `queue_limit`".to_string(),
                3,
                37
            )
        );
        assert_eq!(
            first("id: s\nclients: 10\nsweep: {vary: queue_limit, values: [1.5]}\n").0,
            "`1.5` is not a whole number like 100 for `queue_limit`"
        );
        assert_eq!(
            first(
                "id: s\nclients: 10\nsweep: {vary: timeout, values: {from: 1s, to: 3s, step: x}}\n"
            )
            .0,
            "`x` is not a value of `timeout`"
        );
        assert_eq!(
            first(
                "id: s\nclients: 10\nsweep: {vary: timeout, values: {from: 3s, to: 1s, step: 1s}}\n"
            )
            .0,
            "a range needs `from` ≤ `to` and a `step` above zero"
        );
        let errors =
            read_sweep("id: s\nclients: 10\nsweep: {vary: timout, values: [1s]}\n").unwrap_err();
        assert_eq!(errors[0].message, "a sweep cannot vary `timout`");
        assert_eq!(errors[0].help.as_deref(), Some("did you mean `timeout`?"));
        let errors =
            read_sweep("id: s\nclients: 10\nsweep: {vary: queue, values: [1]}\n").unwrap_err();
        assert_eq!(errors[0].message, "a sweep cannot vary `queue`");
    }

    #[test]
    fn a_value_of_the_right_kind_is_left_to_the_scenario_reader() {
        // Too long, too fine, negative, too large to hold: the reader says which, at the
        // value, as it would of the same value written in the scenario.
        let timeout: &[&str] = &["retry", "timeout"];
        let limit: &[&str] = &["server", "queue", "limit"];
        for (parameter, value, path) in [
            (Parameter::Timeout, "99999999999999999999h", timeout),
            (Parameter::Timeout, "0.5us", timeout),
            (Parameter::Timeout, "-1s", timeout),
            (Parameter::QueueLimit, "99999999999999999999999", limit),
        ] {
            let tree = with("id: s\n", parameter, value).unwrap();
            assert_eq!(at(&tree, path), Some(value));
            let body = format!(
                "id: s\nclients: 10\nsweep: {{vary: {}, values: [{value}]}}\n",
                parameter.name()
            );
            let errors = read_sweep(&body).unwrap_err();
            assert_eq!(errors.len(), 1, "{errors:?}");
            let column = body.lines().nth(2).unwrap().find(value).unwrap() + 1;
            assert_eq!((errors[0].pos.line, errors[0].pos.column), (3, column));
            assert!(!errors[0].message.contains("is not a"), "{errors:?}");
        }
    }

    #[test]
    fn a_sweep_charts_the_overload_totals() {
        for (name, total) in [
            ("latency_p99", Metric::LatencyP99),
            ("latency_p50", Metric::LatencyP50),
            ("goodput", Metric::Goodput),
            ("wasted", Metric::Wasted),
            ("timed_out", Metric::TimedOut),
            ("throttled", Metric::Throttled),
        ] {
            let s = read_sweep(&format!(
                "id: s\nclients: 10\nsweep: {{vary: clients, values: [5, 10], total: {name}}}\n"
            ))
            .unwrap();
            assert_eq!(s.total, total, "{name}");
        }
        let errors = read_sweep(
            "id: s\nclients: 10\nsweep: {vary: clients, values: [5], total: latency_p90}\n",
        )
        .unwrap_err();
        assert_eq!(errors[0].message, "a sweep cannot chart `latency_p90`");
        assert_eq!(
            errors[0].help.as_deref(),
            Some("did you mean `latency_p50`?")
        );
    }
}
