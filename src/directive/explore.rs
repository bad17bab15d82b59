//! `figure.explore`: what a reader may vary under a scenario's figure, and over which
//! range. Pure: the directive's YAML in, knobs or located errors out.
//!
//! ```yaml
//! figure:
//!   explore: {clients: [10, 1000], capacity: [2, 50], outage: [0s, 30s, 500ms]}
//! ```
//!
//! Each key is a parameter a sweep can vary ([`Parameter`]), and its value is
//! `[lowest, highest]` or `[lowest, highest, step]`, written as the parameter's values
//! are (whole numbers, numbers with at most three decimals, durations). The default step
//! is one for whole numbers, 0.1 for other numbers and 100 ms for durations. A reader's
//! value takes the place of its key in the scenario exactly as a sweep's does
//! ([`crate::engine::read::vary`]), so the rules are the same:
//!
//! - the built scenario's own value lies in the range, on one of its steps, so that the
//!   controls start at what the article shows;
//! - the highest value is a whole number of steps above the lowest, with at most
//!   [`MAX_STEPS`] steps;
//! - every combination of the ranges' ends is a scenario the reader accepts (a `base`
//!   above the `cap`, a spread beyond the horizon or a scenario past the simulation's
//!   limit is an error at the range that reaches it).
//!
//! `strategies: true` lets the reader choose which strategies the figure compares: a
//! box per strategy, the scenario's own checked. The prose keeps quoting the scenario's
//! own strategies, so the engine runs those and the reader's together and the figure
//! and its tables show the reader's; a strategy's runs do not depend on which others
//! run beside it (each run's seed is the scenario's seed plus the run's number), so the
//! figure is the figure of the scenario with the reader's strategies written in. Every
//! combination of the ranges' ends is then checked with all six strategies, the most
//! work a reader can ask for. A combination is held to the limit of work at its most
//! ([`Scenario::most_work`]), not only at its least as an author's scenario is: a
//! reader's rerun that passed the limit would stop, and the reader cannot change the
//! scenario.

use crate::engine::Strategy;
use crate::engine::read::vary::{Kind, Parameter, placed, scalar, set_strategies};
use crate::engine::scenario::MAX_WORK;
use crate::engine::units::{self, format_duration, format_milli};
use crate::engine::{Scenario, ScenarioError, scenario_from_node};
use crate::yaml::{Map, Naming, Node, Value};

/// The most steps a range may have: a slider finer than this is moved by the keyboard
/// one step at a time to no purpose.
pub const MAX_STEPS: u64 = 10_000;

/// What a reader may vary under a figure: no knobs and no strategies for a printed
/// figure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explore {
    /// The sliders, in the order the directive names them.
    pub knobs: Vec<Knob>,
    /// Whether the reader chooses the strategies compared (`strategies: true`).
    pub strategies: bool,
}

impl Explore {
    /// Whether the figure is a printed one, with nothing to vary.
    pub fn is_empty(&self) -> bool {
        self.knobs.is_empty() && !self.strategies
    }
}

/// The key of `figure.explore` that lets the reader choose the strategies.
pub const STRATEGIES: &str = "strategies";

/// One thing a reader may vary, in the parameter's unit: µs for durations, the number
/// for whole numbers, thousandths for other numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knob {
    /// What it varies.
    pub parameter: Parameter,
    /// The lowest value.
    pub min: u64,
    /// The highest value.
    pub max: u64,
    /// The step between two values.
    pub step: u64,
    /// The built scenario's value, where the control starts.
    pub value: u64,
}

impl Knob {
    /// A value as YAML writes it, for the scenario: `50`, `2.5`, `1.5s`.
    pub fn yaml(&self, value: u64) -> String {
        text_of(self.parameter.kind(), value)
    }
}

/// A value of a parameter of `kind`, in its unit, as YAML writes it.
fn text_of(kind: Kind, value: u64) -> String {
    match kind {
        Kind::Duration => format_duration(value),
        Kind::Whole => value.to_string(),
        Kind::Milli => format_milli(value),
    }
}

/// A value of a parameter of `kind` as written, in its unit.
fn value_of(kind: Kind, text: &str) -> Option<u64> {
    match kind {
        Kind::Duration => units::parse_duration(text).ok(),
        Kind::Whole => text.parse().ok(),
        Kind::Milli => units::parse_milli(text).ok(),
    }
}

/// The default step of a parameter of `kind`, in its unit.
fn default_step(kind: Kind) -> u64 {
    match kind {
        Kind::Duration => 100_000,
        Kind::Whole => 1,
        Kind::Milli => 100,
    }
}

/// The built scenario's value of `parameter`, in its unit, or why it has none a
/// control could start at.
fn built(parameter: Parameter, s: &Scenario) -> Result<u64, &'static str> {
    Ok(match parameter {
        Parameter::Clients => s.clients,
        Parameter::Capacity => s.server.capacity_milli,
        Parameter::RejectionCost => s.server.rejection_cost_milli,
        Parameter::Outage => s.server.outages.first().map_or(0, |o| o.to - o.from),
        Parameter::Base => s.retry.base,
        Parameter::Cap => s.retry.cap,
        // A multiplier is read from at most three decimals, so this is exact.
        Parameter::Multiplier => (s.retry.multiplier * 1000.0).round() as u64,
        Parameter::MaxAttempts => u64::from(
            s.retry
                .max_attempts
                .ok_or("the scenario sets no `retry.max_attempts`")?,
        ),
        Parameter::Spread => s.spread,
        Parameter::Timeout => s
            .retry
            .timeout
            .ok_or("the scenario sets no `retry.timeout`")?,
        Parameter::QueueLimit => s.server.queue.map_or(0, |q| q.limit),
        Parameter::Replicas => u64::from(s.server.fleet.as_ref().map_or(1, |f| f.replicas)),
        Parameter::HedgeDelay => {
            (s.retry.hedging)
                .ok_or("the scenario sets no `retry.hedging`")?
                .delay
        }
        Parameter::Load => {
            (s.arrivals.first())
                .ok_or("the scenario has no `arrivals`")?
                .rate_milli
        }
    })
}

/// Reads `figure.explore` of a directive whose scenario, `scenario`, was read without a
/// mistake: no key gives nothing to vary. Errors are positioned relative to the body.
pub fn read_explore(root: &Node, scenario: &Scenario) -> Result<Explore, Vec<ScenarioError>> {
    let Some(node) = explore_node(root) else {
        return Ok(Explore::default());
    };
    let mut errors = Vec::new();
    let names: Vec<&str> = Parameter::ALL
        .iter()
        .map(|p| p.name())
        .chain([STRATEGIES])
        .collect();
    let naming = Naming::Path("figure.explore.");
    let Some(map) = Map::read(node, &names, naming, "`figure.explore`", &mut errors) else {
        return Err(errors);
    };
    let strategies = match map.boolean(STRATEGIES) {
        Ok(chosen) => chosen.unwrap_or(false),
        Err(mut e) => {
            e.help = Some(
                "`strategies: true` lets the reader choose the strategies the figure compares"
                    .to_string(),
            );
            errors.push(e);
            false
        }
    };
    let mut knobs = Vec::new();
    let mut ranges = Vec::new();
    for (name, _) in map.keys() {
        let Some(parameter) = Parameter::from_name(name) else {
            continue;
        };
        let Some(range) = map.get(name) else {
            continue;
        };
        match knob(parameter, range, scenario) {
            Ok(knob) => {
                knobs.push(knob);
                ranges.push(range);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        let all = strategies.then(|| map.key(STRATEGIES)).flatten();
        errors.extend(corners(root, &knobs, &ranges, all, &scenario.strategies));
    }
    if errors.is_empty() {
        Ok(Explore { knobs, strategies })
    } else {
        errors.sort_by_key(|e| e.pos);
        Err(errors)
    }
}

/// The node of `figure.explore`, if the directive has one.
fn explore_node(root: &Node) -> Option<&Node> {
    root.get("figure")?.get("explore")
}

/// One range, read and checked against the built scenario.
fn knob(parameter: Parameter, range: &Node, scenario: &Scenario) -> Result<Knob, ScenarioError> {
    let name = parameter.name();
    let kind = parameter.kind();
    let example = match kind {
        Kind::Duration => "[0s, 30s] or [0s, 30s, 500ms]",
        Kind::Whole => "[10, 1000] or [10, 1000, 10]",
        Kind::Milli => "[2, 50] or [2, 50, 0.5]",
    };
    let wrong = |node: &Node, message: String| {
        ScenarioError::at(
            node,
            message,
            Some(format!(
                "write the lowest and highest value, and a step if you like: `{name}: {example}`"
            )),
        )
    };
    let Value::Seq(items) = &range.value else {
        return Err(wrong(
            range,
            format!(
                "`figure.explore.{name}` must be a range [lowest, highest], found {}",
                range.describe()
            ),
        ));
    };
    if !(2..=3).contains(&items.len()) {
        return Err(wrong(
            range,
            format!(
                "`figure.explore.{name}` must be a list of two or three values, found {}",
                items.len()
            ),
        ));
    }
    let mut values = Vec::new();
    for item in items {
        let read = item
            .as_scalar()
            .filter(|_| !item.is_null())
            .and_then(|text| value_of(kind, text));
        match read {
            Some(v) => values.push(v),
            None => {
                return Err(wrong(
                    item,
                    format!("{} is not a value of `{name}`", item.describe()),
                ));
            }
        }
    }
    let (min, max) = (values[0], values[1]);
    let step = values.get(2).copied().unwrap_or(default_step(kind));
    let text = |v: u64| text_of(kind, v);
    if step == 0 {
        return Err(wrong(&items[2], "the step must be above zero".to_string()));
    }
    if min >= max {
        return Err(wrong(
            range,
            format!(
                "the lowest value of `figure.explore.{name}`, {}, must be below the highest, {}",
                text(min),
                text(max)
            ),
        ));
    }
    if !(max - min).is_multiple_of(step) {
        return Err(ScenarioError::at(
            range,
            format!(
                "{} is not a whole number of steps of {} above {}",
                text(max),
                text(step),
                text(min)
            ),
            Some("choose ends that the step joins, or another step".to_string()),
        ));
    }
    let steps = (max - min) / step;
    if steps > MAX_STEPS {
        return Err(ScenarioError::at(
            range,
            format!(
                "`figure.explore.{name}` has {} steps; the limit is {}",
                crate::format::thousands(steps),
                crate::format::thousands(MAX_STEPS)
            ),
            Some("use a larger step, as the range's third value".to_string()),
        ));
    }
    let value = built(parameter, scenario).map_err(|why| {
        ScenarioError::at(
            range,
            format!("`{name}` cannot be explored: {why}"),
            Some("set it in the scenario, so that the control starts at its value".to_string()),
        )
    })?;
    if value < min || value > max || !(value - min).is_multiple_of(step) {
        let place = if value < min || value > max {
            "outside this range"
        } else {
            "between two of its steps"
        };
        return Err(ScenarioError::at(
            range,
            format!(
                "the scenario's `{name}`, {}, is {place}, so the control could not start at it",
                text(value)
            ),
            Some(format!(
                "the range runs from {} to {} in steps of {}",
                text(min),
                text(max),
                text(step)
            )),
        ));
    }
    Ok(Knob {
        parameter,
        min,
        max,
        step,
        value,
    })
}

/// Every combination of the ends of the ranges, read as the scenario: each mistake is
/// placed at the first range whose end the combination takes (or at `strategies`, the
/// key of `strategies: true`, when there is no range), with the combination. With
/// `strategies`, every combination compares every strategy a reader may choose
/// ([`Strategy::offered`]).
fn corners(
    root: &Node,
    knobs: &[Knob],
    ranges: &[&Node],
    strategies: Option<&Node>,
    own: &[Strategy],
) -> Option<ScenarioError> {
    let all: Vec<&str> = Strategy::offered(own).iter().map(|s| s.name()).collect();
    // 2^n combinations; a directive has at most one range per parameter.
    for corner in 0u32..1 << knobs.len() {
        let ends: Vec<u64> = knobs
            .iter()
            .enumerate()
            .map(|(i, k)| if corner >> i & 1 == 1 { k.max } else { k.min })
            .collect();
        let mut tree = root.clone();
        if let Some(at) = strategies {
            set_strategies(&mut tree, &all.join(","), at);
        }
        let mut problem = None;
        for ((knob, &end), range) in knobs.iter().zip(&ends).zip(ranges) {
            let node = scalar(knob.yaml(end), range);
            match placed(&tree, knob.parameter, &node, &knob.yaml(end)) {
                Ok((next, _)) => tree = next,
                Err(mut e) => {
                    problem = e.drain(..).next();
                    break;
                }
            }
        }
        // A reader cannot change the scenario: every one they can reach must run to its
        // end, whatever its runs do, so its most work is held to the limit.
        let problem = problem.or_else(|| match scenario_from_node(&tree, None) {
            Ok(s) if s.most_work() > MAX_WORK => Some(ScenarioError::at(
                root,
                format!(
                    "it could need up to {} steps of simulation, more than the limit of {}, \
                     at which a reader's rerun would stop",
                    crate::format::thousands(s.most_work()),
                    crate::format::thousands(MAX_WORK)
                ),
                None,
            )),
            Ok(_) => None,
            Err(mut e) => e.drain(..).next(),
        });
        if let Some(problem) = problem {
            let mut setting: Vec<String> = knobs
                .iter()
                .zip(&ends)
                .map(|(k, &v)| format!("{} {}", k.parameter.name(), k.yaml(v)))
                .collect();
            if strategies.is_some() {
                setting.push("all six strategies".to_string());
            }
            let at = ranges.first().copied().or(strategies)?;
            return Some(ScenarioError::at(
                at,
                format!(
                    "with {} the scenario is refused: {}",
                    setting.join(", "),
                    problem.message
                ),
                Some(if ranges.is_empty() {
                    "compare fewer clients or runs, so that every choice of strategies is a scenario that runs".to_string()
                } else {
                    "narrow the range, so that every value a reader can choose is a scenario that runs".to_string()
                }),
            ));
        }
    }
    None
}
