//! Tests of the charts and tables: a snapshot of a whole figure, the automatic window,
//! escaping, the SVG's accessibility hooks and determinism.

use super::lanes::lane_chart;
use super::table::escape;
use super::*;
use crate::engine::{Strategy, run_scenario};

/// The crowd of the articles, cut down to the two deterministic strategies.
fn crowd() -> (Scenario, ScenarioResult) {
    let mut scenario = Scenario::with_clients("crowd", 100);
    scenario.strategies = vec![Strategy::Fixed, Strategy::Exponential];
    let result = run_scenario(&scenario);
    (scenario, result)
}

#[test]
fn figure_snapshot() {
    let (scenario, result) = crowd();
    let options = FigureOptions {
        window: Some(3 * SECOND),
        caption: None,
    };
    insta::assert_snapshot!(figure(&scenario, &result, &options));
}

#[test]
fn figure_uses_and_escapes_the_authors_caption() {
    let (scenario, result) = crowd();
    let options = FigureOptions {
        window: Some(SECOND),
        caption: Some("Fixed <waits> & \"storms\"".to_string()),
    };
    let html = figure(&scenario, &result, &options);
    assert!(html.contains("<figcaption>Fixed &lt;waits&gt; &amp; &quot;storms&quot;</figcaption>"));
    assert!(html.starts_with("<figure class=\"sim\" id=\"sim-crowd\">"));
}

#[test]
fn auto_window_ends_after_the_last_client_and_before_the_horizon() {
    let (scenario, result) = crowd();
    let last = result
        .strategies
        .iter()
        .filter_map(|s| s.typical.totals.done_at)
        .max()
        .unwrap();
    let window = auto_window(&scenario, &result);
    assert!(window > last + scenario.server.tick, "{window} vs {last}");
    assert!(window < scenario.horizon);
    assert_eq!(window % scenario.server.tick, 0);
}

#[test]
fn auto_window_of_a_storm_that_never_ends_is_the_horizon() {
    let mut scenario = Scenario::with_clients("storm", 100);
    scenario.server.capacity_milli = 5_000;
    scenario.strategies = vec![Strategy::Fixed];
    let result = run_scenario(&scenario);
    assert!(result.strategies[0].typical.totals.still_retrying > 0);
    assert_eq!(auto_window(&scenario, &result), scenario.horizon);
    let svg = lane_chart(&scenario, &result, scenario.horizon);
    assert!(svg.contains("still retrying at the horizon (2 min)"));
}

#[test]
fn escape_covers_markup_and_quotes() {
    assert_eq!(
        escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
        "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
    );
    assert_eq!(escape("plain"), "plain");
}

#[test]
fn svg_has_prefixed_ids_lane_labels_and_finite_numbers() {
    let (scenario, result) = crowd();
    let svg = lane_chart(&scenario, &result, auto_window(&scenario, &result));
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains(r#"aria-labelledby="crowd-title""#));
    assert!(svg.contains(r#"aria-describedby="crowd-desc""#));
    assert!(svg.contains(r#"<title id="crowd-title">"#));
    assert!(svg.contains(r#"<desc id="crowd-desc">"#));
    assert!(svg.contains(r#"<pattern height="5" id="crowd-hatch""#));
    assert!(svg.contains("url(#crowd-hatch)"));
    assert!(!svg.contains("url(#hatch)"));
    for name in ["fixed", "exponential"] {
        let label = format!(">{name}</text>");
        assert_eq!(svg.matches(&label).count(), 1, "{name}");
    }
    assert_eq!(svg.matches(">capacity 10</text>").count(), 1);
    for bad in ["NaN", "inf"] {
        assert!(!svg.contains(bad), "{bad}");
    }
    assert!(
        !svg.contains(r#"height="0""#),
        "a zero-height bar was drawn"
    );
}

#[test]
fn output_is_deterministic() {
    let (scenario, result) = crowd();
    let options = FigureOptions::default();
    assert_eq!(
        figure(&scenario, &result, &options),
        figure(&scenario, &result, &options)
    );
    let (scenario, again) = crowd();
    assert_eq!(
        figure(&scenario, &result, &options),
        figure(&scenario, &again, &options)
    );
}

#[test]
fn results_table_shows_spreads_and_partial_finishes() {
    let mut scenario = Scenario::with_clients("jitter", 100);
    scenario.strategies = vec![Strategy::Fixed, Strategy::FullJitter];
    scenario.runs = 20;
    let mut result = run_scenario(&scenario);
    result.strategies[1].finished_runs = 15;
    let html = table::results_table(&result);
    assert!(html.contains("Results over 20 runs: median, with the 5th–95th percentile"));
    assert!(html.contains("<th scope=\"row\">full-jitter</th>"));
    assert!(html.contains(", in 15 of 20 runs</td>"));
    assert!(html.contains("–"), "no spread shown");
    result.strategies[0].done_at = None;
    assert!(table::results_table(&result).contains(">never</td>"));
}

#[test]
fn tick_table_lists_only_busy_ticks_in_the_window() {
    let (scenario, result) = crowd();
    let html = table::tick_table(&scenario, &result, 3 * SECOND);
    let rows = html.matches("<tr><th scope=\"row\"").count();
    assert!(rows > 0 && rows <= 30, "{rows}");
    assert!(html.contains("<th scope=\"row\" class=\"num\">0.0</th>"));
    assert!(!html.contains(">3.0</th>"), "a tick past the window");
}

#[test]
fn numbers_print_compactly() {
    assert_eq!(coord(1.0), "1");
    assert_eq!(coord(1.5), "1.5");
    assert_eq!(coord(2.0 / 3.0), "0.67");
    assert_eq!(coord(-0.001), "0");
    assert_eq!(tidy_step(0), 1);
    assert_eq!(tidy_step(330_000), 500_000);
    assert_eq!(tidy_ceiling(100), 100);
    assert_eq!(tidy_ceiling(101), 120);
    assert_eq!(tidy_ceiling(7), 7);
    assert_eq!(seconds_fixed(2_950_000, 1), "3.0");
    assert_eq!(seconds_fixed(20_000_000, 0), "20");
    assert_eq!(duration(120 * SECOND), "2 min");
    assert_eq!(duration(100_000), "100 ms");
    assert_eq!(duration(1_500_000), "1.5 s");
    assert_eq!(capacity_text(2_500), "2.5");
    assert_eq!(capacity_text(10_000), "10");
}

#[test]
fn failed_fast_calls_are_a_third_kind_only_with_a_breaker() {
    let (scenario, result) = crowd();
    let svg = lane_chart(&scenario, &result, 3 * SECOND);
    assert!(!svg.contains("failed-fast") && !svg.contains("failed fast"));

    let yaml = "id: fast\nclients: 0\narrivals: {rate: 100}\nhorizon: 20s\n\
                server: {outages: [{from: 1s, to: 4s}]}\n\
                retry: {max_attempts: 3, breaker: {}}\nstrategies: [fixed]\n";
    let scenario = crate::engine::parse_scenario(yaml, None).unwrap();
    let result = run_scenario(&scenario);
    let svg = lane_chart(&scenario, &result, 10 * SECOND);
    assert!(svg.contains(">failed fast</text>"), "a legend entry");
    assert!(svg.contains("<g class=\"failed-fast\""), "a group of bars");
    assert!(svg.contains("failed fast at the clients' circuit breaker"));
    // The same input gives the same bytes.
    assert_eq!(svg, lane_chart(&scenario, &result, 10 * SECOND));
    let html = figure(&scenario, &result, &FigureOptions::default());
    assert!(html.contains("<th scope=\"col\" class=\"num\">failed fast</th>"));
    assert!(html.contains("New requests at 100 per second call a server"));
}
