//! One parameter of a scenario set to a value, in the scenario's YAML: what a sweep
//! varies from point to point, and what a reader moves under an explorable figure.
//!
//! The value takes the place of its key in the scenario's tree, which the scenario
//! reader then reads again, so a value is checked exactly as the same value written in
//! the scenario would be (its range, and how it relates to the rest: a `base` above the
//! `cap`, a spread beyond the horizon). The site's sweeps and the browser's module share
//! this code, so a figure rerun in the browser is the scenario the build would read.

use crate::engine::ScenarioError;
use crate::engine::units::{self, UnitError, format_duration};
use crate::yaml::{Node, Value};

/// What a sweep varies, or a reader of an explorable figure.
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
    /// The per-attempt timeout.
    Timeout,
    /// The most calls the server's queue holds.
    QueueLimit,
    /// The replicas of the server.
    Replicas,
    /// The delay of hedged calls.
    HedgeDelay,
    /// The rate of open-loop arrivals.
    Load,
}

/// How a parameter's values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Durations with a unit, kept in µs.
    Duration,
    /// Whole numbers.
    Whole,
    /// Numbers with at most three decimals, kept in thousandths.
    Milli,
}

impl Parameter {
    /// Every parameter, in the order the documentation lists them.
    pub const ALL: [Parameter; 14] = [
        Parameter::Clients,
        Parameter::Capacity,
        Parameter::RejectionCost,
        Parameter::Outage,
        Parameter::Base,
        Parameter::Cap,
        Parameter::Multiplier,
        Parameter::MaxAttempts,
        Parameter::Spread,
        Parameter::Timeout,
        Parameter::QueueLimit,
        Parameter::Replicas,
        Parameter::HedgeDelay,
        Parameter::Load,
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
            Parameter::Timeout => "timeout",
            Parameter::QueueLimit => "queue_limit",
            Parameter::Replicas => "replicas",
            Parameter::HedgeDelay => "hedge_delay",
            Parameter::Load => "load",
        }
    }

    /// The parameter of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Parameter> {
        Parameter::ALL.into_iter().find(|p| p.name() == name)
    }

    /// How its values are written.
    pub fn kind(self) -> Kind {
        match self {
            Parameter::Outage
            | Parameter::Base
            | Parameter::Cap
            | Parameter::Spread
            | Parameter::Timeout
            | Parameter::HedgeDelay => Kind::Duration,
            Parameter::Clients
            | Parameter::MaxAttempts
            | Parameter::QueueLimit
            | Parameter::Replicas => Kind::Whole,
            Parameter::Capacity
            | Parameter::RejectionCost
            | Parameter::Multiplier
            | Parameter::Load => Kind::Milli,
        }
    }
}

/// A plain scalar standing where `at` stands, so that its mistakes are placed there.
pub(crate) fn scalar(text: String, at: &Node) -> Node {
    Node {
        value: Value::Scalar {
            text,
            plain: true,
            quoted: false,
        },
        pos: at.pos,
        width: at.width,
    }
}

/// Where a parameter stands in a scenario: the keys from the top down to it.
pub(crate) fn path(parameter: Parameter) -> &'static [&'static str] {
    match parameter {
        Parameter::Clients => &["clients"],
        Parameter::Capacity => &["server", "capacity"],
        Parameter::RejectionCost => &["server", "rejection_cost"],
        Parameter::Outage => &["server", "outages"],
        Parameter::Base => &["retry", "base"],
        Parameter::Cap => &["retry", "cap"],
        Parameter::Multiplier => &["retry", "multiplier"],
        Parameter::MaxAttempts => &["retry", "max_attempts"],
        Parameter::Spread => &["spread"],
        Parameter::Timeout => &["retry", "timeout"],
        Parameter::QueueLimit => &["server", "queue"],
        Parameter::Replicas => &["server", "replicas"],
        Parameter::HedgeDelay => &["retry", "hedging"],
        Parameter::Load => &["arrivals"],
    }
}

/// The node at `path` below `map`, made (as an empty map or null) where it is missing; a
/// null or absent map on the way becomes an empty map. `at` places what is made.
pub(crate) fn place<'a>(map: &'a mut Node, path: &[&str], at: &Node) -> &'a mut Node {
    let Some((first, rest)) = path.split_first() else {
        return map;
    };
    if !matches!(map.value, Value::Map(_)) {
        map.value = Value::Map(Vec::new());
    }
    let found = map.position(first);
    let Value::Map(pairs) = &mut map.value else {
        unreachable!("made a map just above")
    };
    let index = match found {
        Some(index) => index,
        None => {
            pairs.push((scalar((*first).to_string(), at), scalar(String::new(), at)));
            pairs.len() - 1
        }
    };
    place(&mut pairs[index].1, rest, at)
}

/// The scenario's YAML with `parameter` set to `text`, the value in `node`, and the
/// length of the first outage when that is the parameter (0 otherwise). Every node made
/// stands where the value does, so that a mistake the reader finds in it is placed there.
///
/// A value of the overload model that is not of the parameter's kind at all is named as
/// the sweep's, as an outage's is; one of the right kind is left to the reader, which
/// checks it as the same value written in the scenario (too long, too fine, negative,
/// over a limit) and says so more precisely than a sweep could.
pub fn placed(
    root: &Node,
    parameter: Parameter,
    node: &Node,
    text: &str,
) -> Result<(Node, u64), Vec<ScenarioError>> {
    let wrong = |like: &str, help: Option<String>| {
        vec![error(
            node,
            format!("`{text}` is not {like} for `{}`", parameter.name()),
            help,
        )]
    };
    let mut outage = 0;
    match parameter {
        Parameter::Outage => {
            outage = units::parse_duration(text).map_err(|_| {
                vec![error(
                    node,
                    format!("`{text}` is not a duration like 3s for `outage`"),
                    None,
                )]
            })?;
        }
        Parameter::QueueLimit if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(wrong("a whole number like 100", None));
        }
        Parameter::Timeout | Parameter::HedgeDelay => match units::parse_duration(text) {
            Ok(_) | Err(UnitError::TooFine | UnitError::TooLarge | UnitError::Negative) => {}
            Err(UnitError::NoUnit) => {
                return Err(wrong(
                    "a duration like 1s",
                    Some(format!("write `{text}ms` or `{text}s`")),
                ));
            }
            Err(UnitError::Malformed | UnitError::TooManyDecimals) => {
                return Err(wrong("a duration like 1s", None));
            }
        },
        _ => {}
    }
    let mut tree = root.clone();
    set(&mut tree, parameter, node);
    Ok((tree, outage))
}

/// Sets `parameter` in the scenario's YAML `tree` to the value in `node`, which
/// [`placed`] has checked (the browser's module sets only values the build checked).
///
/// An outage's value is a length, not a node of the scenario: it moves the first
/// outage's `to`, from its `from`, and a length of 0s removes that outage. A scenario
/// without a queue gets one, of the documented defaults written out, so that a queue
/// limit alone decides; a queue of the scenario keeps its order and whether it drops
/// expired calls. Likewise a scenario without hedging gets it with two copies of each
/// call, and one with hedging keeps its `max_attempts`. A load is the rate of the
/// first window of `arrivals`; a scenario without arrivals gets one.
pub fn set(tree: &mut Node, parameter: Parameter, node: &Node) {
    let text = node.as_scalar().unwrap_or_default();
    let at = place(tree, path(parameter), node);
    match parameter {
        Parameter::Outage => {
            let length = units::parse_duration(text).unwrap_or(0);
            if !matches!(at.value, Value::Seq(_)) {
                at.value = Value::Seq(Vec::new());
            }
            let Value::Seq(items) = &mut at.value else {
                unreachable!("made a list just above")
            };
            let from = items
                .first()
                .and_then(|first| first.get("from"))
                .and_then(Node::as_scalar)
                .and_then(|t| units::parse_duration(t).ok())
                .unwrap_or(0);
            match (length, items.is_empty()) {
                (0, true) => {}
                (0, false) => {
                    items.remove(0);
                }
                (length, true) => {
                    let mut first = scalar(String::new(), node);
                    *place(&mut first, &["from"], node) = scalar("0s".to_string(), node);
                    *place(&mut first, &["to"], node) = scalar(format_duration(length), node);
                    items.push(first);
                }
                (length, false) => {
                    let to = format_duration(from.saturating_add(length));
                    *place(&mut items[0], &["to"], node) = scalar(to, node);
                }
            }
        }
        Parameter::QueueLimit => {
            if at.is_null() || matches!(at.value, Value::Scalar { .. }) {
                *place(at, &["order"], node) = scalar("fifo".to_string(), node);
                *place(at, &["drop_expired"], node) = scalar("false".to_string(), node);
            }
            *place(at, &["limit"], node) = node.clone();
        }
        Parameter::HedgeDelay => {
            if at.is_null() || matches!(at.value, Value::Scalar { .. }) {
                *place(at, &["max_attempts"], node) = scalar("2".to_string(), node);
            }
            *place(at, &["delay"], node) = node.clone();
        }
        // The first window's rate; a scenario without arrivals gets one window, over
        // the whole horizon.
        Parameter::Load => match &mut at.value {
            Value::Seq(items) if !items.is_empty() => {
                *place(&mut items[0], &["rate"], node) = node.clone();
            }
            _ => *place(at, &["rate"], node) = node.clone(),
        },
        _ => *at = node.clone(),
    }
}

/// Sets the scenario's `strategies` in its YAML `tree` to the names in `names`,
/// separated by commas (`fixed,full-jitter`), each a scalar standing where `at` does,
/// so that the reader checks them as the same list written in the scenario (an unknown
/// name, one listed twice, none at all).
pub fn set_strategies(tree: &mut Node, names: &str, at: &Node) {
    let items = names
        .split(',')
        .filter(|name| !name.is_empty())
        .map(|name| scalar(name.to_string(), at))
        .collect();
    place(tree, &["strategies"], at).value = Value::Seq(items);
}

fn error(node: &Node, message: String, help: Option<String>) -> ScenarioError {
    ScenarioError::at(node, message, help)
}
