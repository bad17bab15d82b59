//! The interface of the WebAssembly module behind the browser playground: a scenario's
//! YAML in, JSON out. The module (`wasm/`) is a thin shell around these functions, so
//! what the browser computes is what `retrylab sim FILE --json --lanes` prints, and what
//! it draws is the article's figure, byte for byte.

use serde::Serialize;

use crate::chart::lanes::ticks_shown;
use crate::chart::{FigureParts, coord};
use crate::engine::fleet::Balancer;
use crate::engine::units::{format_duration, format_milli, parse_duration};
use crate::engine::{
    Scenario, ScenarioError, ScenarioResult, Strategy, parse_scenario, run_scenario_within,
};
use crate::figure::FigureOptions;
use crate::report;

/// The id of a scenario that has none.
pub const DEFAULT_ID: &str = "playground";

/// Runs a scenario and returns `report::json` with lanes, without the whitespace between
/// its tokens ([`report::json_compact`]), or the errors JSON of [`errors_json`] (marked
/// `"stopped": true` for a scenario stopped at the limit of work, [`within_limit`]).
pub fn run(source: &str) -> String {
    match parse_scenario(source, Some(DEFAULT_ID)) {
        Ok(scenario) => match within_limit(&scenario, source) {
            Ok(result) => report::json_compact(&result, true),
            Err(stopped) => stopped,
        },
        Err(errors) => errors_json(&errors),
    }
}

/// Runs `scenario`, read from `source`, within the limit of work that a build holds it
/// to ([`crate::engine::work`]): past it, the errors JSON of the error a build gives, at
/// its place in `source`, marked `"stopped": true` (the scenario ran, and was stopped).
fn within_limit(scenario: &Scenario, source: &str) -> Result<ScenarioResult, String> {
    within(scenario, source, crate::engine::work::limit())
}

/// [`within_limit`] with a limit of `limit` steps.
fn within(scenario: &Scenario, source: &str, limit: u64) -> Result<ScenarioResult, String> {
    run_scenario_within(scenario, true, limit).map_err(|over| {
        let tree = crate::engine::read::parse_yaml(source);
        let root = tree.as_ref().ok();
        let at = root.map(crate::engine::read::load_node);
        let fallback = crate::yaml::Node {
            value: crate::yaml::Value::Seq(Vec::new()),
            pos: crate::yaml::Pos::START,
            width: 1,
        };
        errors_of(&[over.error(at.unwrap_or(&fallback), false)], true)
    })
}

/// Runs a scenario for the playground's page, from one simulation:
///
/// ```text
/// {"figure": {"charts", "caption", "ticks", "csv", "replicas_csv", "shown",
///   "plots": [[left, right], …]},
///  "table": …, "report": …, "settings": …}
/// ```
///
/// `figure` holds the parts of the figure an article's ```` ```sim ```` block of the
/// scenario becomes ([`crate::chart::FigureParts`]): the lane chart in both its layouts,
/// the caption and the per-tick data's disclosure, as HTML, byte for byte the article's
/// but for the addresses of its CSV links, and that data as CSV, with a fleet's each
/// replica's data (`null` for one server, or a fleet whose strips are not drawn); then
/// the ticks the chart shows and, for each layout, wide then narrow, the x of the
/// plots' left and right edges, by which the replay shows the bars up to a tick.
/// `table` is the results table, `report` what [`run`] returns and `settings` what
/// [`settings`] does. `window` is the figure's window as YAML writes a duration (empty,
/// or anything else than a duration, for the automatic one) and `caption` its caption
/// (empty for the generated one), as the article's figure has them. Or the errors JSON
/// of [`errors_json`], marked `"stopped": true` past the limit of work as [`run`]'s.
pub fn page(source: &str, window: &str, caption: &str) -> String {
    figure_page(source, window, caption, "", None, None)
}

/// Reruns an explorable figure's scenario with a reader's values, for the page it is
/// on, from one simulation:
///
/// ```text
/// {"figure": {"charts", "caption", "ticks", "csv", "replicas_csv"}, "table": …,
///  "values": […]}
/// ```
///
/// `source`, `window` and `caption` are as for [`page`], the scenario as its author
/// wrote it and the figure's window and caption as the author set them; `knobs` holds a
/// line `name=value` per parameter the reader set (`clients=50`, `outage=5s`), each
/// taking the place of its key exactly as a sweep's value does
/// ([`crate::engine::read::vary`]), and `strategies=fixed,full-jitter` for the
/// strategies the figure and its table compare (the scenario's own still run, for the
/// prose); `asks` a line per reference of the page to the
/// scenario, as the page marks it (`crowd.fixed.calls`, see [`crate::quote::parse`]).
/// `values` gives, line by line, the reference's text as the build writes it, or `null`
/// for a line that is no reference of the scenario. Or the errors JSON of
/// [`errors_json`], marked `"stopped": true` past the limit of work as [`run`]'s.
pub fn explore(source: &str, window: &str, caption: &str, knobs: &str, asks: &str) -> String {
    figure_page(source, window, caption, knobs, Some(asks), None)
}

/// How many runs the playground's page may split among its workers, each running a
/// share with [`run_jobs`] for [`page_of_runs`] to draw: every run of the scenario
/// ([`crate::engine::jobs`]) when it reads, runs each strategy more than once (a single
/// run keeps its lanes, which a worker does not hand over) and stays within the limit
/// of work; otherwise 0, and the page runs it with [`page`].
pub fn jobs(source: &str) -> usize {
    match parse_scenario(source, Some(DEFAULT_ID)) {
        Ok(scenario) if splits(&scenario) => crate::engine::jobs(&scenario),
        _ => 0,
    }
}

/// Whether [`jobs`] splits `scenario`'s runs.
fn splits(scenario: &Scenario) -> bool {
    scenario.runs > 1 && scenario.most_work() <= u128::from(crate::engine::work::limit())
}

/// Runs `jobs` of the scenario of `source` (of [`jobs`]'s, in its order), each as
/// [`crate::engine::Run::put_words`] writes it, for [`page_of_runs`]; nothing for a
/// scenario whose runs [`jobs`] does not split.
pub fn run_jobs(source: &str, jobs: std::ops::Range<usize>) -> Vec<u64> {
    let mut words = Vec::new();
    if let Ok(scenario) = parse_scenario(source, Some(DEFAULT_ID))
        && splits(&scenario)
    {
        for run in crate::engine::run_jobs(&scenario, jobs) {
            run.put_words(&mut words);
        }
    }
    words
}

/// [`page`] from the scenario's runs as the page's workers ran them: `words` holds
/// [`run_jobs`] of every job of [`jobs`], in order. The same text as [`page`], to the
/// byte; runs that cannot be the scenario's (too few, out of order, not runs) are
/// passed over, and the scenario is run here as [`page`] runs it.
pub fn page_of_runs(source: &str, window: &str, caption: &str, words: &[u64]) -> String {
    figure_page(source, window, caption, "", None, Some(words))
}

/// The result of `scenario` from `words` of [`page_of_runs`], when they are its runs.
fn of_runs(scenario: &Scenario, words: &[u64]) -> Option<ScenarioResult> {
    if !splits(scenario) {
        return None;
    }
    let mut words = words;
    let mut done = Vec::new();
    while !words.is_empty() {
        let (run, rest) = crate::engine::Run::take_words(words)?;
        done.push(run);
        words = rest;
    }
    crate::engine::summary(scenario, &done, true)
}

/// [`page`], or with `asks`, [`explore`]; from the runs in `done` when they are the
/// scenario's ([`page_of_runs`]).
fn figure_page(
    source: &str,
    window: &str,
    caption: &str,
    knobs: &str,
    asks: Option<&str>,
    done: Option<&[u64]>,
) -> String {
    let (mut scenario, shown) = match explored(source, knobs) {
        Ok(explored) => explored,
        Err(errors) => return errors_json(&errors),
    };
    let ran = done.and_then(|words| of_runs(&scenario, words));
    let mut result = match ran.map_or_else(|| within_limit(&scenario, source), Ok) {
        Ok(result) => result,
        Err(stopped) => return stopped,
    };
    // Here and below, `unreachable!` rather than `expect`, whose message would format
    // serde_json's error and carry its formatting into the browser's module (2.5 KB):
    // strings and the structs written here always serialise.
    let text = |html: String| {
        serde_json::to_string(&html).unwrap_or_else(|_| unreachable!("a string serialises"))
    };
    // The prose quotes every strategy that ran, the scenario's own among them. Written
    // by hand rather than as a tree of values, which costs the module kilobytes.
    let values = asks.map(|asks| {
        let values: Vec<String> = asks
            .lines()
            .map(|ask| {
                crate::quote::parse(ask, &scenario)
                    .and_then(|(target, format)| {
                        crate::quote::value(&target, format, &scenario, &result)
                    })
                    .map_or_else(|| "null".to_string(), text)
            })
            .collect();
        values.join(",")
    });
    // The figure compares the strategies the reader chose: their runs are the runs of
    // the scenario with them written in (see `directive::explore`), in the order they
    // ran, the scenario's own first.
    result.strategies.retain(|r| shown.contains(&r.strategy));
    scenario.strategies.retain(|s| shown.contains(s));
    let options = FigureOptions {
        window: parse_duration(window.trim()).ok(),
        caption: (!caption.is_empty()).then(|| caption.to_string()),
    };
    // The data's links get their addresses in the browser, which holds the CSV: the
    // chart's, and a fleet's each replica's.
    let parts = FigureParts::new(&scenario, &result, &options, "");
    let replicas = (parts.replicas)
        .then(|| crate::chart::replica_csv(&scenario, &result, &options).map(text))
        .flatten();
    let figure = format!(
        "{{\"figure\":{{\"charts\":{},\"caption\":{},\"ticks\":{},\"csv\":{},\"replicas_csv\":{}",
        text(parts.charts),
        text(parts.caption),
        text(parts.ticks),
        text(parts.csv),
        replicas.as_deref().unwrap_or("null"),
    );
    let table = text(parts.results);
    if let Some(values) = values {
        return format!("{figure}}},\"table\":{table},\"values\":[{values}]}}");
    }
    let plots: Vec<String> = (parts.plots.iter())
        .map(|&(left, right)| format!("[{},{}]", coord(left), coord(right)))
        .collect();
    format!(
        "{figure},\"shown\":{},\"plots\":[{}]}},\"table\":{table},\"report\":{},\"settings\":{}}}",
        ticks_shown(&scenario, &result, parts.window),
        plots.join(","),
        report::json_compact(&result, true),
        settings_json(&scenario),
    )
}

/// The scenario of `source` with each `name=value` line of `knobs` in place (values
/// the build checked, see `directive::explore`, set without a sweep's checks of their
/// kind), with the strategies a line `strategies=fixed,full-jitter` names (as the
/// page's boxes name them) added after its own, and the strategies the figure compares:
/// the ones named, or without such a line the scenario's own. A line that names no
/// parameter is passed over.
fn explored(source: &str, knobs: &str) -> Result<(Scenario, Vec<Strategy>), Vec<ScenarioError>> {
    use crate::engine::read::vary::{Parameter, scalar, set};
    let mut tree = crate::engine::read::parse_yaml(source)?;
    let mut shown: Vec<Strategy> = Vec::new();
    for (name, value) in knobs.lines().filter_map(|line| line.split_once('=')) {
        if name == "strategies" {
            for name in value.split(',') {
                if let Some(s) = Strategy::from_name(name)
                    && !shown.contains(&s)
                {
                    shown.push(s);
                }
            }
        } else if let Some(parameter) = Parameter::from_name(name) {
            let node = scalar(value.to_string(), &tree);
            set(&mut tree, parameter, &node);
        }
    }
    let mut scenario = crate::engine::scenario_from_node(&tree, Some(DEFAULT_ID))?;
    if shown.is_empty() {
        shown.clone_from(&scenario.strategies);
    }
    for &s in &shown {
        if !scenario.strategies.contains(&s) {
            scenario.strategies.push(s);
        }
    }
    Ok((scenario, shown))
}

/// Reads a scenario and returns its settings, every default filled in, as the
/// playground's form needs them (durations and decimals as YAML writes them), or the
/// errors JSON of [`errors_json`].
pub fn settings(source: &str) -> String {
    match parse_scenario(source, Some(DEFAULT_ID)) {
        Ok(scenario) => settings_json(&scenario),
        Err(errors) => errors_json(&errors),
    }
}

/// `{"errors": [{"line", "column", "width", "message", "help"}]}`, positions counted
/// from 1 in the scenario's text.
pub fn errors_json(errors: &[ScenarioError]) -> String {
    errors_of(errors, false)
}

/// [`errors_json`], with `"stopped": true` when the scenario was run and stopped at the
/// limit of work rather than refused.
fn errors_of(errors: &[ScenarioError], stopped: bool) -> String {
    #[derive(Serialize)]
    struct Errors<'a> {
        errors: Vec<Error<'a>>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        stopped: bool,
    }
    // The keys in alphabetical order, as a tree of values wrote them.
    #[derive(Serialize)]
    struct Error<'a> {
        column: usize,
        help: &'a Option<String>,
        line: usize,
        message: &'a str,
        width: usize,
    }
    let errors = Errors {
        errors: errors
            .iter()
            .map(|e| Error {
                column: e.pos.column,
                help: &e.help,
                line: e.pos.line,
                message: &e.message,
                width: e.width,
            })
            .collect(),
        stopped,
    };
    serde_json::to_string(&errors).unwrap_or_else(|_| unreachable!("errors serialise"))
}

/// The form's settings of a scenario, as JSON. Written through structs rather than
/// `json!`, whose tree of values cost the browser's module several kilobytes; the keys
/// are in alphabetical order, as the tree wrote them.
fn settings_json(s: &Scenario) -> String {
    #[derive(Serialize)]
    struct Settings<'a> {
        clients: u64,
        gives_up: bool,
        horizon: String,
        id: &'a str,
        open: bool,
        retry: RetrySettings,
        runs: u32,
        seed: u64,
        server: ServerSettings,
        spread: String,
        strategies: Vec<&'static str>,
    }
    #[derive(Serialize)]
    struct RetrySettings {
        base: String,
        cap: String,
        deadline: Option<String>,
        elsewhere: bool,
        max_attempts: Option<u32>,
        multiplier: f64,
    }
    #[derive(Serialize)]
    struct ServerSettings {
        balancer: &'static str,
        capacity: String,
        model: &'static str,
        outages: Vec<OutageSettings>,
        rejection_cost: String,
        replicas: u32,
        tick: String,
    }
    #[derive(Serialize)]
    struct OutageSettings {
        from: String,
        to: String,
    }
    let settings = Settings {
        clients: s.clients,
        gives_up: gives_up(s),
        horizon: format_duration(s.horizon),
        id: &s.id,
        open: !s.arrivals.is_empty(),
        retry: RetrySettings {
            base: format_duration(s.retry.base),
            cap: format_duration(s.retry.cap),
            deadline: s.retry.deadline.map(format_duration),
            elsewhere: s.retry.elsewhere,
            max_attempts: s.retry.max_attempts,
            multiplier: s.retry.multiplier,
        },
        runs: s.runs,
        seed: s.seed,
        server: ServerSettings {
            balancer: (s.server.fleet.as_ref())
                .map_or(Balancer::RoundRobin, |f| f.balancer)
                .name(),
            capacity: format_milli(s.server.capacity_milli),
            model: s.server.model.name(),
            outages: s
                .server
                .outages
                .iter()
                .map(|o| OutageSettings {
                    from: format_duration(o.from),
                    to: format_duration(o.to),
                })
                .collect(),
            rejection_cost: format_milli(s.server.rejection_cost_milli),
            replicas: s.server.fleet.as_ref().map_or(1, |f| f.replicas),
            tick: format_duration(s.server.tick),
        },
        spread: format_duration(s.spread),
        strategies: s.strategies.iter().map(|st| st.name()).collect(),
    };
    // Strings, whole numbers, booleans and a finite float: nothing can fail.
    serde_json::to_string(&settings).unwrap_or_else(|_| unreachable!("settings serialise"))
}

/// Whether a client of the scenario can give up before it is served, in any of its
/// lanes (a library strategy runs the library's own limits, [`Scenario::lane`]): an
/// attempt limit, a deadline, a budget that refuses a retry, a breaker outside the
/// retry loop, or layers, each with its attempts. The replay's "still waiting" counts
/// on there being none, since the lanes say when calls are served but not when a
/// client gives up.
fn gives_up(s: &Scenario) -> bool {
    s.strategies
        .iter()
        .any(|&strategy| lane_gives_up(&s.lane(strategy)))
}

/// [`gives_up`] for one lane's scenario.
fn lane_gives_up(s: &Scenario) -> bool {
    s.retry.max_attempts.is_some()
        || s.retry.deadline.is_some()
        || s.retry.budget.is_some()
        || s.retry.breaker.as_ref().is_some_and(|b| !b.retry_when_open)
        || !s.layers.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run_scenario;
    use serde_json::{Value, json};

    const CROWD: &str = "id: crowd\nclients: 100\nstrategies: [fixed, full-jitter]\nruns: 3\n";

    #[test]
    fn run_gives_the_report_with_lanes() {
        let scenario = parse_scenario(CROWD, None).unwrap();
        assert_eq!(
            run(CROWD),
            report::json_compact(&run_scenario(&scenario), true)
        );
        let pretty: Value =
            serde_json::from_str(&report::json(&run_scenario(&scenario), true)).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&run(CROWD)).unwrap(), pretty);
    }

    #[test]
    fn the_page_gets_the_figure_table_report_and_settings_from_one_run() {
        let scenario = parse_scenario(CROWD, None).unwrap();
        let result = run_scenario(&scenario);
        let out: Value = serde_json::from_str(&page(CROWD, "", "")).unwrap();
        assert_eq!(
            out["table"],
            Value::String(crate::chart::table::results_table(&result))
        );
        let report: Value = serde_json::from_str(&run(CROWD)).unwrap();
        assert_eq!(out["report"], report);
        let settings: Value = serde_json::from_str(&settings(CROWD)).unwrap();
        assert_eq!(out["settings"], settings);
        assert_eq!(
            page("clients: 100\nrunz: 3\n", "", ""),
            run("clients: 100\nrunz: 3\n")
        );
    }

    #[test]
    fn the_pages_figure_is_the_articles() {
        let scenario = parse_scenario(CROWD, None).unwrap();
        let result = run_scenario(&scenario);
        for (window, caption, options) in [
            ("", "", FigureOptions::default()),
            (
                "2s",
                "A <crowd>",
                FigureOptions {
                    window: Some(2 * crate::engine::units::SECOND),
                    caption: Some("A <crowd>".to_string()),
                },
            ),
            ("auto", "", FigureOptions::default()),
        ] {
            let out: Value = serde_json::from_str(&page(CROWD, window, caption)).unwrap();
            let figure = crate::chart::figure(&scenario, &result, &options);
            let charts = out["figure"]["charts"].as_str().unwrap();
            let caption = out["figure"]["caption"].as_str().unwrap();
            let ticks = out["figure"]["ticks"].as_str().unwrap();
            assert!(
                charts.starts_with("<svg") && figure.contains(charts),
                "{window}"
            );
            assert!(figure.contains(&format!("<figcaption>{caption}</figcaption>")));
            assert!(figure.contains(ticks));
        }
        let out: Value = serde_json::from_str(&page(CROWD, "2s", "")).unwrap();
        assert_eq!(out["figure"]["shown"], json!(20));
        let plots = &out["figure"]["plots"];
        for (i, width) in [(0, 640.0), (1, 320.0)] {
            let (left, right) = (plots[i][0].as_f64().unwrap(), plots[i][1].as_f64().unwrap());
            assert!(0.0 < left && left < right && right < width, "{plots}");
        }
    }

    #[test]
    fn the_readers_strategies_are_the_figure_and_the_scenarios_own_are_quoted() {
        let own = "id: crowd\nclients: 40\nstrategies: [fixed, full-jitter]\nruns: 3\n";
        // The reader's strategies in the order the page's boxes give them: the
        // scenario's own first.
        let chosen =
            "id: crowd\nclients: 40\nstrategies: [full-jitter, decorrelated-jitter]\nruns: 3\n";
        let asks = "crowd.fixed.calls\ncrowd.decorrelated-jitter.calls\ncrowd.full-jitter.done_at";
        let explored: Value = serde_json::from_str(&explore(
            own,
            "",
            "",
            "strategies=full-jitter,decorrelated-jitter",
            asks,
        ))
        .unwrap();
        // The figure and table of the scenario with the reader's strategies written in:
        // a strategy's runs do not depend on the others beside it.
        let alone: Value = serde_json::from_str(&page(chosen, "", "")).unwrap();
        for part in ["charts", "caption", "ticks"] {
            assert_eq!(explored["figure"][part], alone["figure"][part], "{part}");
        }
        assert_eq!(explored["table"], alone["table"]);
        // The prose quotes the scenario's own strategies, and the reader's.
        let quoted = |source: &str, ask: &str| {
            let scenario = parse_scenario(source, None).unwrap();
            let result = run_scenario(&scenario);
            let (target, format) = crate::quote::parse(ask, &scenario).unwrap();
            Value::String(crate::quote::value(&target, format, &scenario, &result).unwrap())
        };
        let values = explored["values"].as_array().unwrap();
        assert_eq!(values[0], quoted(own, "crowd.fixed.calls"));
        assert_eq!(values[1], quoted(chosen, "crowd.decorrelated-jitter.calls"));
        assert_eq!(values[2], quoted(own, "crowd.full-jitter.done_at"));
        // No strategy the engine knows chosen: the scenario's own.
        let none: Value =
            serde_json::from_str(&explore(own, "", "", "strategies=nothing", "")).unwrap();
        let built: Value = serde_json::from_str(&page(own, "", "")).unwrap();
        assert_eq!(none["table"], built["table"]);
    }

    #[test]
    fn an_explored_figure_is_the_figure_of_the_scenario_with_the_readers_values() {
        // The knobs set as a sweep sets them: the same as the values written in.
        let set = "id: crowd\nclients: 40\nstrategies: [fixed, full-jitter]\nruns: 3\n\
                   server: {outages: [{from: 0s, to: 2s}]}\n";
        let asks = "crowd.fixed.calls\ncrowd.clients\ncrowd.full-jitter.done_at.p95|number\n\
                    crowd.fixed.served|percent\ncrowd.nothing\nother";
        let explored: Value = serde_json::from_str(&explore(
            "id: crowd\nclients: 100\nstrategies: [fixed, full-jitter]\nruns: 3\n",
            "",
            "",
            "clients=40\noutage=2s\nunknown=1",
            asks,
        ))
        .unwrap();
        let page: Value = serde_json::from_str(&page(set, "", "")).unwrap();
        for part in ["charts", "caption", "ticks"] {
            assert_eq!(explored["figure"][part], page["figure"][part], "{part}");
        }
        assert_eq!(explored["table"], page["table"]);
        // Each reference as the build quotes it.
        let scenario = parse_scenario(set, None).unwrap();
        let result = run_scenario(&scenario);
        let quoted = |ask: &str| {
            let (target, format) = crate::quote::parse(ask, &scenario).unwrap();
            Value::String(crate::quote::value(&target, format, &scenario, &result).unwrap())
        };
        let values = explored["values"].as_array().unwrap();
        for (i, ask) in asks.lines().take(4).enumerate() {
            assert_eq!(values[i], quoted(ask), "{ask}");
        }
        assert_eq!(values[1], "40");
        assert_eq!((&values[4], &values[5]), (&Value::Null, &Value::Null));
        // A setting the engine refuses gives its error.
        let refused: Value = serde_json::from_str(&explore(CROWD, "", "", "base=20s", "")).unwrap();
        assert!(
            refused["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("retry.base")
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
    fn a_scenario_stopped_at_the_limit_of_work_says_it_ran() {
        let scenario = parse_scenario(CROWD, None).unwrap();
        let out = within(&scenario, CROWD, 10).expect_err("past ten steps");
        let out: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(out["stopped"], true);
        let message = out["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.ends_with("it was stopped at the limit"),
            "{message}"
        );
        // A mistake is no run: nothing says it was stopped.
        let out: Value = serde_json::from_str(&run("clients: 100\nrunz: 3\n")).unwrap();
        assert!(out.get("stopped").is_none());
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
            (&out["server"]["replicas"], &out["server"]["balancer"]),
            (&json!(1), &json!("round-robin"))
        );
        assert_eq!(out["retry"]["elsewhere"], json!(false));
        let fleet = format!(
            "{CROWD}server: {{replicas: 3, balancer: random}}\nretry: {{elsewhere: true}}\n"
        );
        let out: Value = serde_json::from_str(&settings(&fleet)).unwrap();
        assert_eq!(
            (&out["server"]["replicas"], &out["server"]["balancer"]),
            (&json!(3), &json!("random"))
        );
        assert_eq!(out["retry"]["elsewhere"], json!(true));
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
        // A library strategy gives up by the library's own limits.
        let library = "id: crowd\nclients: 100\nstrategies: [fixed, aws-legacy]\nruns: 3\n";
        let out: Value = serde_json::from_str(&settings(library)).unwrap();
        assert_eq!(out["gives_up"], json!(true));
        // tenacity's default never stops.
        let forever = library.replace("aws-legacy", "tenacity");
        let out: Value = serde_json::from_str(&settings(&forever)).unwrap();
        assert_eq!(out["gives_up"], json!(false));
    }

    /// The JSON the form reads, key by key, as the tree of `json!` values wrote it
    /// before (with the fleet's keys since): sorted keys, `null` for what is not set.
    #[test]
    fn settings_and_errors_are_written_as_before() {
        let yaml =
            "clients: 7\nserver: {outages: [{from: 1s, to: 2s}]}\nretry: {multiplier: 1.5}\n";
        let tree = |s: &str| serde_json::from_str::<Value>(s).unwrap().to_string();
        let written = settings(yaml);
        assert_eq!(written, tree(&written));
        assert_eq!(
            written,
            "{\"clients\":7,\"gives_up\":false,\"horizon\":\"2m\",\"id\":\"playground\",\"open\":false,\
             \"retry\":{\"base\":\"100ms\",\"cap\":\"10s\",\"deadline\":null,\"elsewhere\":false,\
             \"max_attempts\":null,\"multiplier\":1.5},\"runs\":1,\"seed\":1,\"server\":{\"balancer\":\
             \"round-robin\",\"capacity\":\"10\",\"model\":\"capacity\",\"outages\":[{\"from\":\"1s\",\
             \"to\":\"2s\"}],\"rejection_cost\":\"0.1\",\"replicas\":1,\"tick\":\"100ms\"},\"spread\":\"0s\",\"strategies\":[\"fixed\",\"exponential\",\
             \"full-jitter\",\"equal-jitter\",\"decorrelated-jitter\"]}"
        );
        let errors = settings("clients: x\n");
        assert_eq!(errors, tree(&errors));
        assert!(
            errors.starts_with("{\"errors\":[{\"column\":10,\"help\":"),
            "{errors}"
        );
    }

    /// The page drawn from runs split among workers is the page, to the byte, for
    /// every scenario of the site's `scenarios/` whose runs split, in one share, two,
    /// three and uneven ones.
    #[test]
    fn a_page_from_split_runs_is_the_page() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios");
        let mut split = 0;
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let yaml = std::fs::read_to_string(&file).unwrap();
            let all = jobs(&yaml);
            if all == 0 {
                assert_eq!(
                    run_jobs(&yaml, 0..usize::MAX),
                    Vec::<u64>::new(),
                    "{file:?}"
                );
                continue;
            }
            split += 1;
            let whole = page(&yaml, "30s", "");
            for cuts in [
                vec![],
                vec![all / 2],
                vec![all / 3, 2 * all / 3],
                vec![1, all - 1],
            ] {
                let mut words = Vec::new();
                let mut from = 0;
                for to in cuts.into_iter().chain([all]) {
                    words.extend(run_jobs(&yaml, from..to));
                    from = to;
                }
                assert!(page_of_runs(&yaml, "30s", "", &words) == whole, "{file:?}");
            }
        }
        assert!(split >= 10, "only {split} scenarios split");
    }

    /// Runs that cannot be the scenario's are passed over, and the page runs it itself:
    /// the page is the same, whatever the workers handed back.
    #[test]
    fn runs_that_are_not_the_scenarios_are_passed_over() {
        let all = jobs(CROWD);
        assert_eq!(all, 6);
        let whole = page(CROWD, "", "");
        let words = run_jobs(CROWD, 0..all);
        let per_run = words.len() / all;
        let mut swapped = words.clone();
        swapped[..per_run].copy_from_slice(&words[per_run..2 * per_run]);
        swapped[per_run..2 * per_run].copy_from_slice(&words[..per_run]);
        let mut bad_tag = words.clone();
        bad_tag[5] = 7; // `done_at`'s presence
        for wrong in [
            Vec::new(),
            words[..per_run * (all - 1)].to_vec(),
            words[..words.len() - 1].to_vec(),
            [&words[..], &words[..per_run]].concat(),
            swapped,
            bad_tag,
            vec![u64::MAX; 1000],
        ] {
            assert!(page_of_runs(CROWD, "", "", &wrong) == whole);
        }
        // Past the limit of work, or of one run, nothing is split or run for a worker.
        let single = "clients: 100\nruns: 1\n";
        assert_eq!((jobs(single), run_jobs(single, 0..5)), (0, Vec::new()));
        assert_eq!(jobs("clients: [\n"), 0);
        assert_eq!(run_jobs(CROWD, 4..100).len(), 2 * per_run);
        // A worker's range from the host may run backwards.
        let (from, to) = (5, 2);
        assert_eq!(run_jobs(CROWD, from..to), Vec::<u64>::new());
    }
}
