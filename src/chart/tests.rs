//! Tests of the charts and tables: a snapshot of a whole figure, the automatic window,
//! escaping, the SVG's accessibility hooks and determinism.

use super::draw::Form;
use super::lanes::lane_chart;
use super::table::escape;
use super::*;
use crate::engine::metric::Metric;
use crate::engine::units::SECOND;
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
    let svg = lane_chart(&scenario, &result, scenario.horizon, Form::Wide);
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
    let svg = lane_chart(
        &scenario,
        &result,
        auto_window(&scenario, &result),
        Form::Wide,
    );
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
    assert!(html.contains("Results of jitter over 20 runs: median, with the 5th–95th percentile"));
    assert!(html.contains("<th scope=\"row\">full-jitter</th>"));
    assert!(html.contains(", in 15 of 20 runs</td>"));
    assert!(html.contains("–"), "no spread shown");
    result.strategies[0].done_at = None;
    result.strategies[0].finished_runs = 0;
    assert!(table::results_table(&result).contains(">never</td>"));
    // Fewer than half the runs finished: "never", with how many did.
    result.strategies[0].finished_runs = 3;
    assert!(table::results_table(&result).contains(">never in 17 of 20 runs</td>"));
}

#[test]
fn tick_data_lists_only_busy_ticks_in_the_window() {
    let (scenario, result) = crowd();
    let data = table::tick_data(&scenario, &result, 3 * SECOND, 1);
    let mut lines = data.csv.lines();
    let names: Vec<&str> = result
        .strategies
        .iter()
        .map(|s| s.strategy.name())
        .collect();
    let head: String = names
        .iter()
        .map(|n| format!(",{n} served,{n} turned away"))
        .collect();
    assert_eq!(lines.next(), Some(format!("time (s){head}").as_str()));
    let rows: Vec<&str> = lines.collect();
    assert!(!rows.is_empty() && rows.len() <= 30, "{}", rows.len());
    assert!(rows[0].starts_with("0.0,"), "{}", rows[0]);
    assert!(
        rows.iter()
            .all(|r| r.split(',').count() == 1 + 2 * names.len())
    );
    assert!(
        !rows.iter().any(|r| r.starts_with("3.0,")),
        "a tick past the window"
    );
    assert!(!rows.iter().any(|r| r.split(',').skip(1).all(|c| c == "0")));
    assert!(
        data.caption
            .starts_with("crowd: calls per tick in the first 3 s")
    );
}

/// What `coord` printed by the float formatter, which it must go on giving.
fn coord_by_float_formatter(x: f64) -> String {
    let rounded = (x * 100.0).round() / 100.0;
    let mut text = format!("{rounded:.2}");
    while text.ends_with('0') {
        text.pop();
    }
    if text.ends_with('.') {
        text.pop();
    }
    if text == "-0" { "0".to_string() } else { text }
}

proptest::proptest! {
    #[test]
    fn coordinates_print_as_the_float_formatter_did(x in -1e9f64..1e9, y in -1000.0f64..1000.0) {
        proptest::prop_assert_eq!(coord(x), coord_by_float_formatter(x));
        proptest::prop_assert_eq!(coord(y), coord_by_float_formatter(y));
    }
}

#[test]
fn numbers_print_compactly() {
    for x in [
        0.005,
        -0.005,
        0.015,
        0.125,
        99.995,
        -12.34,
        1e12 + 0.5,
        640.0,
        0.1 + 0.2,
    ] {
        assert_eq!(coord(x), coord_by_float_formatter(x), "{x}");
    }
    assert_eq!(coord(1.0), "1");
    assert_eq!(coord(1.5), "1.5");
    assert_eq!(coord(2.0 / 3.0), "0.67");
    assert_eq!(coord(-0.001), "0");
    assert_eq!(tidy_step(0), 1);
    assert_eq!(tidy_step(330_000), 500_000);
    assert_eq!(tidy_ceiling(100), 100);
    assert_eq!(tidy_ceiling(101), 120);
    assert_eq!(tidy_ceiling(7), 7);
}

/// A small sweep: the crowd of 50 with and without jitter, at 20, 50 and 100 clients.
fn small_sweep() -> Vec<SweepPoint> {
    let mut scenario = Scenario::with_clients("s", 50);
    scenario.strategies = vec![Strategy::Exponential, Strategy::FullJitter];
    scenario.runs = 20;
    [20, 50, 100]
        .into_iter()
        .map(|clients| {
            let mut s = scenario.clone();
            s.clients = clients;
            SweepPoint {
                label: clients.to_string(),
                x: clients as f64,
                result: run_scenario(&s),
            }
        })
        .collect()
}

fn sweep_of<'a>(points: &'a [SweepPoint], total: &'a str) -> Sweep<'a> {
    Sweep {
        id: "crowd-size",
        parameter: "clients",
        axis: "clients",
        total: Metric::from_name(total)
            .filter(|m| m.is_chartable())
            .expect("a total a sweep charts"),
        points,
        caption: None,
    }
}

#[test]
fn sweep_snapshot() {
    let points = small_sweep();
    insta::assert_snapshot!(sweep_figure(&sweep_of(&points, "calls")));
}

#[test]
fn sweep_of_done_at_snapshot() {
    let points = small_sweep();
    insta::assert_snapshot!(sweep_figure(&sweep_of(&points, "done_at")));
}

#[test]
fn sweep_breaks_the_line_where_no_run_finished() {
    let mut points = small_sweep();
    for s in &mut points[1].result.strategies {
        s.done_at = None;
        s.finished_runs = 0;
    }
    let html = sweep_figure(&sweep_of(&points, "done_at"));
    assert_eq!(html.matches(">never</td>").count(), 2, "{html}");
    assert!(html.contains(
        "Where fewer than half the runs finished, the point is a hollow marker in the row marked “never”."
    ));
    assert!(html.contains("; fewer than half the runs finished at 50."));
    // Each strategy's line is two stretches, one point each: two moves, no line-to.
    for class in ["st-exponential", "st-full-jitter"] {
        let group = html
            .split(&format!("<g class=\"strategy {class}\">"))
            .nth(2)
            .expect("the strategy's line after its legend entry");
        let d = group
            .split("d=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 0, "{d}");
    }
    for bad in ["NaN", "inf"] {
        assert!(!html.contains(bad), "{bad}");
    } // Some runs finished, but fewer than half: "never", with how many did.
    points[1].result.strategies[0].finished_runs = 3;
    let html = sweep_figure(&sweep_of(&points, "done_at"));
    let runs = points[1].result.runs;
    assert!(
        html.contains(&format!(">never in {} of {runs} runs</td>", runs - 3)),
        "{html}"
    );
}

#[test]
fn sweep_ids_are_prefixed_and_the_caption_escaped() {
    let points = small_sweep();
    let mut sweep = sweep_of(&points, "calls_per_client");
    sweep.caption = Some("More <clients> & more calls");
    let html = sweep_figure(&sweep);
    assert!(html.starts_with("<figure class=\"sim sim-sweep\" id=\"sweep-crowd-size\">"));
    assert!(html.contains("<figcaption>More &lt;clients&gt; &amp; more calls</figcaption>"));
    for id in html
        .split(" id=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
    {
        assert!(
            id.starts_with("crowd-size-") || id == "sweep-crowd-size",
            "{id}"
        );
    }
    for labelled in html.split("aria-labelledby=\"").skip(1) {
        let target = labelled.split('"').next().unwrap();
        assert!(html.contains(&format!(" id=\"{target}\"")), "{target}");
    }
}

#[test]
fn sweep_of_a_wide_range_uses_a_log_axis() {
    let mut points = small_sweep();
    points[0].x = 10.0;
    points[0].label = "10".into();
    points[2].x = 10_000.0;
    points[2].label = "10,000".into();
    let html = sweep_figure(&sweep_of(&points, "calls"));
    for tick in [
        ">10</text>",
        ">100</text>",
        ">1,000</text>",
        ">10,000</text>",
    ] {
        assert!(html.contains(tick), "{tick}");
    }
}

fn small_schedule() -> Vec<(Strategy, Vec<crate::engine::schedule::Step>)> {
    let retry = Scenario::with_clients("s", 1).retry;
    [Strategy::Exponential, Strategy::FullJitter]
        .into_iter()
        .map(|s| (s, crate::engine::schedule::schedule(s, &retry, 8, 1)))
        .collect()
}

#[test]
fn schedule_snapshot() {
    insta::assert_snapshot!(schedule_figure("waits", &small_schedule(), None));
}

#[test]
fn schedule_ids_are_prefixed_and_waits_read_as_seconds() {
    let html = schedule_figure("waits", &small_schedule(), Some("Waits & <jitter>"));
    assert!(html.starts_with("<figure class=\"sim sim-schedule\" id=\"schedule-waits\">"));
    assert!(html.contains("<figcaption>Waits &amp; &lt;jitter&gt;</figcaption>"));
    for id in html
        .split(" id=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
    {
        assert!(id.starts_with("waits-") || id == "schedule-waits", "{id}");
    }
    assert!(html.contains("<td class=\"num\" data-label=\"exponential ceiling\">0.1&nbsp;s</td>"));
    assert!(html.contains("<td class=\"num\" data-label=\"full-jitter range\">0–1.6&nbsp;s</td>"));
    assert!(html.contains("<td class=\"num\" data-label=\"exponential wait\">10&nbsp;s</td>"));
}

#[test]
fn thumbnail_snapshot() {
    let (scenario, result) = crowd();
    insta::assert_snapshot!(thumbnail(&scenario, &result, None));
}

#[test]
fn thumbnail_of_a_long_storm_stays_small() {
    let mut scenario = Scenario::with_clients("storm", 100);
    scenario.server.capacity_milli = 5_000;
    scenario.strategies = vec![Strategy::Fixed, Strategy::FullJitter];
    let result = run_scenario(&scenario);
    let svg = thumbnail(&scenario, &result, None);
    assert!(svg.len() < 12_000, "{}", svg.len());
    assert!(
        svg.contains("<title id=\"storm-thumb-title\">storm: calls per tick, by strategy</title>")
    );
    assert!(!svg.contains("<text"));
}

#[test]
fn new_figures_are_deterministic() {
    let points = small_sweep();
    let again = small_sweep();
    assert_eq!(
        sweep_figure(&sweep_of(&points, "calls")),
        sweep_figure(&sweep_of(&again, "calls"))
    );
    assert_eq!(
        schedule_figure("w", &small_schedule(), None),
        schedule_figure("w", &small_schedule(), None)
    );
    let (scenario, result) = crowd();
    let (_, again) = crowd();
    assert_eq!(
        thumbnail(&scenario, &result, None),
        thumbnail(&scenario, &again, None)
    );
}

#[test]
fn failed_fast_calls_are_a_third_kind_only_with_a_breaker() {
    let (scenario, result) = crowd();
    let svg = lane_chart(&scenario, &result, 3 * SECOND, Form::Wide);
    assert!(!svg.contains("failed-fast") && !svg.contains("failed fast"));

    let yaml = "id: fast\nclients: 0\narrivals: {rate: 100}\nhorizon: 20s\n\
                server: {outages: [{from: 1s, to: 4s}]}\n\
                retry: {max_attempts: 3, breaker: {}}\nstrategies: [fixed]\n";
    let scenario = crate::engine::parse_scenario(yaml, None).unwrap();
    let result = run_scenario(&scenario);
    let svg = lane_chart(&scenario, &result, 10 * SECOND, Form::Wide);
    assert!(svg.contains(">failed fast</text>"), "a legend entry");
    assert!(svg.contains("<g class=\"failed-fast\""), "a group of bars");
    assert!(svg.contains("failed fast at the clients' circuit breaker"));
    // The same input gives the same bytes.
    assert_eq!(svg, lane_chart(&scenario, &result, 10 * SECOND, Form::Wide));
    let html = figure(&scenario, &result, &FigureOptions::default());
    assert!(html.contains("<th scope=\"col\" class=\"num\">failed fast</th>"));
    assert!(html.contains("New requests at 100 per second call a server"));
}

#[test]
fn a_sweep_of_zeros_has_a_readable_axis() {
    let mut points = small_sweep();
    for p in &mut points {
        for s in &mut p.result.strategies {
            s.gave_up = crate::engine::Spread {
                median: 0,
                p5: 0,
                p95: 0,
            };
        }
    }
    let html = sweep_figure(&sweep_of(&points, "gave_up"));
    assert!(!html.contains("0.0000"), "{html}");
    assert!(html.contains(">1.0</text>"), "{html}");
}

#[test]
fn ticks_are_binned_only_when_they_outnumber_the_columns() {
    let mut scenario = Scenario::with_clients("storm", 100);
    scenario.server.capacity_milli = 5_000;
    scenario.strategies = vec![Strategy::Fixed];
    let result = run_scenario(&scenario);
    let tick = scenario.server.tick;
    let bins: Vec<usize> = (1..=1200)
        .map(|ticks| lanes::ticks_per_column(&scenario, &result, ticks * tick))
        .collect();
    // Tick by tick up to the plot's width (at most 576 units), then in tidy bins.
    let first_binned = bins.iter().position(|&b| b > 1).unwrap() + 1;
    assert!((500..=577).contains(&first_binned), "{first_binned}");
    assert!(bins[..first_binned - 1].iter().all(|&b| b == 1));
    assert_eq!(bins[first_binned - 1], 2);
    assert_eq!(bins[1199], 5);
    let html = figure(
        &scenario,
        &result,
        &FigureOptions {
            window: Some(1200 * tick),
            caption: None,
        },
    );
    assert!(html.contains("each bar is the mean of 5 ticks (500 ms).</figcaption>"));
    // 240 bins, each a row of the data.
    let csv = tick_csv(
        &scenario,
        &result,
        &FigureOptions {
            window: Some(1200 * tick),
            caption: None,
        },
    );
    assert_eq!(csv.lines().count(), 1 + 240);
}

/// A caption writes an hour as prose and tables do, `1 h`: it used to say `60 min`
/// where a reference to the same horizon said `1 h`.
#[test]
fn a_caption_writes_an_hour_as_prose_does() {
    let mut scenario = Scenario::with_clients("hour", 1);
    scenario.horizon = 3_600 * SECOND;
    scenario.server.tick = SECOND;
    scenario.server.outages = vec![crate::engine::scenario::Outage {
        from: 0,
        to: 60 * SECOND,
    }];
    scenario.strategies = vec![Strategy::Fixed];
    let result = run_scenario(&scenario);
    let caption = generated_caption(&scenario, &scenario.server, &result, scenario.horizon);
    assert!(caption.contains("all 1 h"), "{caption}");
    assert!(caption.contains("from 0 s to 1 min"), "{caption}");
    assert!(!caption.contains("60 min"), "{caption}");
    assert_eq!(crate::format::duration(scenario.horizon), "1 h");
}
