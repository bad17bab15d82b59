//! The ```` ```live ```` directive at build time: its stored run read from the site's
//! folder, held against the scenario it names, and set beside that scenario's
//! simulation.
//!
//! The data file's path is written from the page's own folder, as its links and images
//! are, and stays inside it; the file is published beside the page like any other file
//! of `content/`.
//!
//! A stored run belongs to its scenario: the scenario text it carries must read, and
//! must be the named sim directive's scenario, key for key, except `runs` and `seed`
//! (which only the simulated side uses, and which the page's own values set). Anything
//! else is a located error, at the directive's `data` or `scenario` value, or in the data
//! file itself.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::page::Page;
use crate::chart::live::{LiveRun, live_figure};
use crate::diag::Diagnostic;
use crate::directive::live::LiveDirective;
use crate::engine::units::SECOND;
use crate::engine::{Scenario, ScenarioError, ScenarioResult, parse_scenario};
use crate::live::record::{self, LiveTotals, Record};
use crate::suggest;
use crate::yaml::Pos;

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

/// Reads the stored run of `directive`, found on `page` with its body at `origin`;
/// `root` is the site's folder.
pub fn load(
    root: &Path,
    page: &Page,
    origin: Pos,
    directive: LiveDirective,
) -> Result<LiveBlock, Vec<Diagnostic>> {
    let at_data = |message: String, help: Option<String>| {
        vec![Diagnostic::from_scenario(
            &page.file,
            &page.source,
            origin,
            ScenarioError::at(&directive.data_node, message, help),
        )]
    };
    // The path is the page's, from its own folder, as its links and images are.
    let folder = Path::new(&page.file).parent().unwrap_or(Path::new(""));
    let shown = folder
        .join(&directive.data)
        .to_string_lossy()
        .replace('\\', "/");
    let data = &shown;
    let bytes = match std::fs::read(root.join(data)) {
        Ok(bytes) => bytes,
        Err(e) => {
            let help = match e.kind() {
                std::io::ErrorKind::NotFound => Some(format!(
                    "play the scenario and store the run with `retrylab live SCENARIO.yaml --record {data}`"
                )),
                _ => None,
            };
            return Err(at_data(
                format!("cannot read the live run `{data}`: {e}"),
                help,
            ));
        }
    };
    let text = crate::diag::utf8_or_located(data, bytes)?;
    let record = record::parse(&text)
        .map_err(|(pos, message)| vec![Diagnostic::new(data, &text, pos, 1, message)])?;
    let played = parse_scenario(&record.scenario, Some(&record.id)).map_err(|errors| {
        let first = errors.first().map_or(String::new(), |e| e.message.clone());
        at_data(
            format!("the scenario stored in `{data}` does not read: {first}"),
            Some(
                "play it again with `retrylab live` to store it as this retrylab reads it"
                    .to_string(),
            ),
        )
    })?;
    Ok(LiveBlock {
        file: shown.clone(),
        directive,
        record,
        played,
        scenario: None,
    })
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

/// The figure of a checked block, its simulated side from `result`, the page's.
pub fn figure(block: &LiveBlock, result: &ScenarioResult) -> String {
    let rows: Vec<_> = block
        .record
        .strategies
        .iter()
        .filter_map(|stored| {
            let simulated = record::simulated_of(result, stored.strategy)?;
            let live = LiveTotals {
                calls: stored.calls.live,
                served: stored.served.live,
                gave_up: stored.gave_up.live,
                still_retrying: stored.still_retrying.live,
                done_at: stored
                    .done_at_s
                    .live
                    .map(|s| (s * SECOND as f64).round() as u64),
                // The figure does not show how long the run took.
                elapsed: std::time::Duration::ZERO,
                lanes: Default::default(),
            };
            Some(record::compare(&live, simulated, stored.waits.clone()))
        })
        .collect();
    let server: Vec<String> = block
        .record
        .server
        .iter()
        .map(|s| format!("{} {}", s.name, s.version))
        .collect();
    live_figure(
        &LiveRun {
            id: &block.directive.scenario,
            date: &block.record.date,
            server: &server.join(" on "),
            runs: result.runs,
            caption: block.directive.caption.as_deref(),
        },
        &rows,
    )
}
