//! A stored live run at build time, once the site has read it from its folder: held
//! against the scenario its ```` ```live ```` directive names, and set beside that
//! scenario's simulation ([`super::figure`]).
//!
//! A stored run belongs to its scenario: the scenario it was played with must be the
//! named sim directive's, key for key, except `runs` and `seed` (which only the
//! simulated side uses, and which the page's own values set), and it must hold a run of
//! each of its strategies, in order. Anything else is a located error, at the
//! directive's `data` or `scenario` value.

use std::collections::BTreeMap;

use serde_json::Value;

use super::record::Record;
use crate::directive::live::LiveDirective;
use crate::engine::{Scenario, ScenarioError, ScenarioResult};
use crate::suggest;

/// A live directive with its stored run, read.
#[derive(Clone, Debug)]
pub struct LiveBlock {
    /// The directive.
    pub directive: LiveDirective,
    /// The data file, from the site's folder, as messages name it.
    pub file: String,
    /// The stored run.
    pub record: Record,
    /// The scenario the run was played with.
    pub played: Scenario,
    /// The page's scenario it was found to be, once checked (see [`check`]).
    pub scenario: Option<Scenario>,
}

/// Holds `block`'s stored run against the site's `scenarios` (the sim directives, by
/// id): the scenario the directive names, which the run must have been played with.
pub fn check(
    block: &LiveBlock,
    scenarios: &BTreeMap<String, Scenario>,
) -> Result<Scenario, ScenarioError> {
    let directive = &block.directive;
    let id = &directive.scenario;
    let Some(page) = scenarios.get(id) else {
        let help = suggest::help(id, scenarios.keys().map(String::as_str), "scenario ids");
        return Err(ScenarioError::at(
            &directive.scenario_node,
            format!("no sim directive has the id `{id}`"),
            Some(help),
        ));
    };
    if let Some(key) = first_difference(&block.played, page) {
        return Err(ScenarioError::at(
            &directive.scenario_node,
            format!(
                "the live run in `{}` was played with another scenario than `{id}`: its `{key}` differs",
                block.file
            ),
            Some(format!(
                "play `{id}` as the page has it and store it again: `retrylab live SCENARIO.yaml --record {}`",
                block.file
            )),
        ));
    }
    let strategies: Vec<_> = block.record.strategies.iter().map(|s| s.strategy).collect();
    if strategies != page.strategies {
        return Err(ScenarioError::at(
            &directive.data_node,
            format!(
                "the live run in `{}` does not hold a run of each strategy of `{id}`, in its order",
                block.file
            ),
            Some("store the run again with `retrylab live`".to_string()),
        ));
    }
    Ok(page.clone())
}

/// The first key, as a scenario names it, in which `played` and `page` differ, with
/// `runs` and `seed` set aside; `None` when they are the same scenario.
fn first_difference(played: &Scenario, page: &Scenario) -> Option<String> {
    let mut played = played.clone();
    played.runs = page.runs;
    played.seed = page.seed;
    if played == *page {
        return None;
    }
    let a = serde_json::to_value(&played).ok()?;
    let b = serde_json::to_value(page).ok()?;
    Some(differing_path(&a, &b, "").unwrap_or_else(|| "setup".to_string()))
}

/// The path of the first leaf in which two values differ.
fn differing_path(a: &Value, b: &Value, path: &str) -> Option<String> {
    let join = |key: &str| {
        // The engine keeps thousandths; a scenario names the value.
        let key = key.strip_suffix("_milli").unwrap_or(key);
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                let other = y.get(key).unwrap_or(&Value::Null);
                if value != other {
                    return differing_path(value, other, &join(key));
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(|k| join(k))
        }
        _ if a == b => None,
        _ => Some(path.to_string()),
    }
}

/// The figure of a checked block, its simulated side from `result`, the page's, under
/// `caption` (the author's as the page typesets it; `None` for a generated one).
pub fn figure(block: &LiveBlock, result: &ScenarioResult, caption: Option<&str>) -> String {
    super::figure::figure(&block.directive.scenario, &block.record, result, caption)
}
