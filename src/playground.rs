//! The engine behind the browser playground: a scenario's YAML in, JSON out. The
//! WebAssembly module (`wasm/`) is a thin shell around these two functions, so what the
//! browser computes is what `retrylab sim FILE --json --lanes` prints, byte for byte.

use serde_json::{Value, json};

use crate::engine::units::format_duration;
use crate::engine::units::format_milli;
use crate::engine::{Scenario, ScenarioError, parse_scenario, run_scenario};
use crate::report;

/// The id of a scenario that has none.
pub const DEFAULT_ID: &str = "playground";

/// Runs a scenario and returns `report::json` with lanes, or the errors JSON of
/// [`errors_json`].
pub fn run(source: &str) -> String {
    match parse_scenario(source, Some(DEFAULT_ID)) {
        Ok(scenario) => report::json(&run_scenario(&scenario), true),
        Err(errors) => errors_json(&errors),
    }
}

/// Runs a scenario for the playground's page: `{"table": …, "report": …}`, the results
/// table as the site's figures have it ([`crate::chart::table::results_table`], HTML)
/// and what [`run`] returns, from one simulation; or the errors JSON of [`errors_json`].
pub fn page(source: &str) -> String {
    match parse_scenario(source, Some(DEFAULT_ID)) {
        Ok(scenario) => {
            let result = run_scenario(&scenario);
            let table = Value::String(crate::chart::table::results_table(&result));
            format!(
                "{{\"table\":{table},\"report\":{}}}",
                report::json(&result, true)
            )
        }
        Err(errors) => errors_json(&errors),
    }
}

/// Reads a scenario and returns its settings, every default filled in, as the
/// playground's form needs them (durations and decimals as YAML writes them), or the
/// errors JSON of [`errors_json`].
pub fn settings(source: &str) -> String {
    match parse_scenario(source, Some(DEFAULT_ID)) {
        Ok(scenario) => settings_json(&scenario).to_string(),
        Err(errors) => errors_json(&errors),
    }
}

/// `{"errors": [{"line", "column", "width", "message", "help"}]}`, positions counted
/// from 1 in the scenario's text.
pub fn errors_json(errors: &[ScenarioError]) -> String {
    let list: Vec<Value> = errors
        .iter()
        .map(|e| {
            json!({
                "line": e.pos.line,
                "column": e.pos.column,
                "width": e.width,
                "message": e.message,
                "help": e.help,
            })
        })
        .collect();
    json!({ "errors": list }).to_string()
}

fn settings_json(s: &Scenario) -> Value {
    let outages: Vec<Value> = s
        .server
        .outages
        .iter()
        .map(|o| json!({"from": format_duration(o.from), "to": format_duration(o.to)}))
        .collect();
    json!({
        "id": s.id,
        "clients": s.clients,
        "spread": format_duration(s.spread),
        "horizon": format_duration(s.horizon),
        "server": {
            "model": s.server.model.name(),
            "capacity": format_milli(s.server.capacity_milli),
            "tick": format_duration(s.server.tick),
            "rejection_cost": format_milli(s.server.rejection_cost_milli),
            "outages": outages,
        },
        "retry": {
            "base": format_duration(s.retry.base),
            "cap": format_duration(s.retry.cap),
            "multiplier": s.retry.multiplier,
            "max_attempts": s.retry.max_attempts,
            "deadline": s.retry.deadline.map(format_duration),
        },
        "strategies": s.strategies.iter().map(|st| st.name()).collect::<Vec<_>>(),
        "runs": s.runs,
        "seed": s.seed,
        "open": !s.arrivals.is_empty(),
        "gives_up": gives_up(s),
    })
}

/// Whether a client of the scenario can give up before it is served: an attempt limit,
/// a deadline, a budget that refuses a retry, a breaker outside the retry loop, or
/// layers, each with its attempts. The replay's "still waiting" counts on there being
/// none, since the lanes say when calls are served but not when a client gives up.
fn gives_up(s: &Scenario) -> bool {
    s.retry.max_attempts.is_some()
        || s.retry.deadline.is_some()
        || s.retry.budget.is_some()
        || s.retry.breaker.as_ref().is_some_and(|b| !b.retry_when_open)
        || !s.layers.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CROWD: &str = "id: crowd\nclients: 100\nstrategies: [fixed, full-jitter]\nruns: 3\n";

    #[test]
    fn run_gives_the_report_with_lanes() {
        let scenario = parse_scenario(CROWD, None).unwrap();
        assert_eq!(run(CROWD), report::json(&run_scenario(&scenario), true));
    }

    #[test]
    fn the_page_gets_the_report_and_the_sites_table_from_one_run() {
        let scenario = parse_scenario(CROWD, None).unwrap();
        let result = run_scenario(&scenario);
        let out: Value = serde_json::from_str(&page(CROWD)).unwrap();
        assert_eq!(
            out["table"],
            Value::String(crate::chart::table::results_table(&result))
        );
        let report: Value = serde_json::from_str(&run(CROWD)).unwrap();
        assert_eq!(out["report"], report);
        assert_eq!(
            page("clients: 100\nrunz: 3\n"),
            run("clients: 100\nrunz: 3\n")
        );
    }

    #[test]
    fn errors_carry_their_place() {
        let out: Value = serde_json::from_str(&run("clients: 100\nrunz: 3\n")).unwrap();
        let first = &out["errors"][0];
        assert_eq!(
            (first["line"].as_u64(), first["column"].as_u64()),
            (Some(2), Some(1))
        );
        assert!(first["message"].as_str().unwrap().contains("runz"));
    }

    #[test]
    fn settings_fill_in_the_defaults() {
        let out: Value = serde_json::from_str(&settings(CROWD)).unwrap();
        assert_eq!(out["server"]["tick"], "100ms");
        assert_eq!(out["server"]["rejection_cost"], "0.1");
        assert_eq!(out["retry"]["cap"], "10s");
        assert_eq!(out["retry"]["max_attempts"], Value::Null);
        assert_eq!(out["strategies"], json!(["fixed", "full-jitter"]));
        assert_eq!(
            (&out["open"], &out["gives_up"]),
            (&json!(false), &json!(false))
        );
    }

    #[test]
    fn settings_say_whether_a_client_can_give_up() {
        let gives_up = |extra: &str| {
            let out: Value = serde_json::from_str(&settings(&format!("{CROWD}{extra}"))).unwrap();
            out["gives_up"].as_bool().unwrap()
        };
        assert!(gives_up("retry: {max_attempts: 3}\n"));
        assert!(gives_up("retry: {deadline: 2s}\n"));
        assert!(gives_up("retry: {budget: aws}\n"));
        assert!(gives_up("retry: {breaker: {retry_when_open: false}}\n"));
        assert!(!gives_up("retry: {breaker: {}}\n"));
    }
}
