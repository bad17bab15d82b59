//! The schedule directive, read: the waits of a policy, attempt by attempt, for a few
//! strategies, which the chart's schedule figure draws.

use super::sweep::{error, noted};
use crate::engine::read::parse_yaml;
use crate::engine::scenario::Retry;
use crate::engine::{ScenarioError, Strategy, scenario_from_node};
use crate::yaml::{Map, Naming, Node, Value};

/// The keys of a schedule directive, with their meaning.
pub const SCHEDULE_KEYS: &[(&str, &str)] = &[
    ("id", "the schedule's name (required)"),
    (
        "strategies",
        "the strategies to show (default the first five, all but proportional-jitter, as in a scenario)",
    ),
    ("retry", "base, cap and multiplier, as in a scenario"),
    ("waits", "how many waits to show (default 8, at most 50)"),
    ("seed", "the seed of the sampled waits (default 1)"),
    ("caption", "the caption (default: a generated one)"),
];

/// A schedule, read.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleDirective {
    /// Its id.
    pub id: String,
    /// The strategies.
    pub strategies: Vec<Strategy>,
    /// The parameters, as a scenario's `retry`.
    pub retry: Retry,
    /// How many waits.
    pub waits: u32,
    /// The seed.
    pub seed: u64,
    /// The author's caption.
    pub caption: Option<String>,
}

/// Reads a schedule directive. Errors are positioned relative to the body.
pub fn read_schedule(body: &str) -> Result<ScheduleDirective, Vec<ScenarioError>> {
    let root = parse_yaml(body)?;
    let mut errors = Vec::new();
    let known: Vec<&str> = SCHEDULE_KEYS.iter().map(|(k, _)| *k).collect();
    let naming = Naming::Path("schedule.");
    let Some(schedule) = Map::read(&root, &known, naming, "`schedule`", &mut errors) else {
        return Err(errors);
    };
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
    let waits = match schedule.get("waits") {
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
    let caption = noted(schedule.text("caption"), &mut errors)
        .flatten()
        .map(str::to_string);
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
    use crate::engine::units::SECOND;

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

    #[test]
    fn a_key_given_twice_or_of_the_wrong_kind_is_placed() {
        let errors = read_schedule("id: w\nid: v\n").unwrap_err();
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["`schedule.id` is given twice"]);
        let errors = read_schedule("id: w\nwaits: 6\nwaits: 7\ncaption: {a: 1}\n").unwrap_err();
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "`schedule.waits` is given twice",
                "`schedule.caption` must be a single value, found a map of keys"
            ]
        );
    }
}
