//! Tests of the overload marks of the lane chart: wasted calls, throttled attempts and
//! the queue, drawn from hand-made lanes, and only where the lanes have some.

use super::super::draw::Form;
use super::super::readable::overloaded;
use super::super::{FigureOptions, figure, thumbnail};
use super::lane_chart;
use crate::engine::units::SECOND;
use crate::engine::{Scenario, ScenarioResult, Strategy, run_scenario};
use crate::format::thousands;

/// Both layouts of the chart of the first 3 s.
fn charts(scenario: &Scenario, result: &ScenarioResult) -> Vec<String> {
    Form::BOTH
        .iter()
        .map(|&form| lane_chart(scenario, result, 3 * SECOND, form))
        .collect()
}

/// The names in a chart's legend.
fn legend(svg: &str) -> Vec<String> {
    let legend = svg.split("<g class=\"legend\">").nth(1).unwrap();
    let legend = &legend[..legend.find("<g class=\"lane\">").unwrap()];
    legend
        .split("class=\"label\"")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string())
        .collect()
}

/// The value of an attribute of the first element with a class, in a chart.
fn attribute_of(svg: &str, class: &str, name: &str) -> String {
    let at = svg.find(&format!("class=\"{class}\"")).expect(class);
    let start = svg[..at].rfind('<').unwrap();
    let tag = &svg[start..start + svg[start..].find('>').unwrap()];
    let value = tag.split(&format!(" {name}=\"")).nth(1).expect(name);
    value[..value.find('"').unwrap()].to_string()
}

/// The rectangles (x, y, width, height) of the first group with a class in `svg`: the
/// subpaths of its path, each traced as a `<rect>` is, from its top left corner.
fn rects_of(svg: &str, class: &str) -> Vec<(f64, f64, f64, f64)> {
    let group = svg
        .split(&format!("<g class=\"{class}\""))
        .nth(1)
        .expect(class);
    let group = &group[..group.find("</g>").unwrap()];
    let Some(d) = group.split("<path d=\"").nth(1) else {
        return Vec::new();
    };
    let d = &d[..d.find('"').unwrap()];
    let n = |v: &str| -> f64 { v.parse().unwrap() };
    let mut rects = Vec::new();
    for sub in d.split('M').skip(1) {
        let (x, rest) = sub.split_once(' ').unwrap();
        if let Some((y, rest)) = rest.split_once('h')
            && !y.contains('V')
        {
            // A rectangle: `M x y h width v height H x Z`.
            let (width, rest) = rest.split_once('v').unwrap();
            let (height, rest) = rest.split_once('H').unwrap();
            assert_eq!(rest, format!("{x}Z"), "a rectangle's subpath: {sub}");
            rects.push((n(x), n(y), n(width), n(height)));
            continue;
        }
        // A joined run, `M x bottom V top h dx V top … h dx V bottom Z`: a rectangle
        // for each stretch of one top.
        let (bottom, rest) = rest.split_once('V').unwrap();
        let (mut at, bottom) = (n(x), n(bottom));
        let mut top = None;
        let rest = rest.strip_suffix('Z').expect("a closed subpath");
        let mut tokens = Vec::new();
        let mut word = String::new();
        for c in format!("V{rest}").chars() {
            if (c == 'h' || c == 'V') && !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        tokens.push(word);
        for token in tokens {
            let (command, value) = token.split_at(1);
            match command {
                "V" => top = Some(n(value)),
                "h" => {
                    let top = top.expect("a top before a step");
                    assert!(n(value) > 0.0 && bottom - top > 0.0, "a stretch: {sub}");
                    rects.push((at, top, n(value), bottom - top));
                    at += n(value);
                }
                _ => unreachable!("{sub}"),
            }
        }
        assert_eq!(top, Some(bottom), "a run ends at its bottom: {sub}");
    }
    rects
}

#[test]
fn overloaded_lanes_snapshot() {
    let (scenario, result) = overloaded();
    insta::assert_snapshot!(charts(&scenario, &result).join("\n"));
}

#[test]
fn the_legend_names_each_overload_mark_present_and_only_those() {
    let (scenario, result) = overloaded();
    for svg in charts(&scenario, &result) {
        assert_eq!(
            legend(&svg),
            [
                "served",
                "served after timeout (wasted)",
                "turned away",
                "capacity 10",
                "queued (scale 0–150)",
                "throttled",
            ],
            "{svg}"
        );
        // Each pattern a bar refers to is in the chart.
        for target in svg.split("url(#").skip(1) {
            let target = &target[..target.find(')').unwrap()];
            assert!(svg.contains(&format!(" id=\"{target}\"")), "{target}");
        }
    }
    // Without throttled attempts, nor an empty queue's line: neither is named.
    let (scenario, mut result) = overloaded();
    for s in &mut result.strategies {
        let lanes = s.typical.lanes.as_mut().unwrap();
        lanes.throttled.fill(0);
        lanes.queued.fill(0);
        s.typical.totals.throttled = 0;
    }
    for svg in charts(&scenario, &result) {
        let names = legend(&svg);
        assert!(names.contains(&"served after timeout (wasted)".to_string()));
        assert!(
            !names
                .iter()
                .any(|n| n.contains("queued") || n == "throttled")
        );
        for absent in ["class=\"throttled\"", "class=\"queued\"", "-throttle"] {
            assert!(!svg.contains(absent), "{absent}");
        }
    }
}

#[test]
fn a_plain_crowd_draws_no_overload_mark() {
    let mut scenario = Scenario::with_clients("crowd", 100);
    scenario.strategies = vec![Strategy::Fixed, Strategy::Exponential];
    let result = run_scenario(&scenario);
    let html = figure(&scenario, &result, &FigureOptions::default());
    for word in ["wasted", "queue", "throttl", "-waste", "edged"] {
        assert!(!html.contains(word), "{word}");
    }
    assert!(!thumbnail(&scenario, &result, None).contains("wasted"));
}

#[test]
fn wasted_work_stacks_on_the_served_and_under_the_turned_away() {
    let (scenario, result) = overloaded();
    let svg = lane_chart(&scenario, &result, 3 * SECOND, Form::Wide);
    let fixed = svg.split("<g class=\"lane\">").nth(1).unwrap();
    // Tick 20 of fixed: 2 served, 8 wasted, 6 turned away, each bar on the one below.
    let bars = |class: &str| -> Vec<(f64, f64, f64)> {
        rects_of(fixed, class)
            .into_iter()
            .map(|(x, y, _, height)| (x, y, height))
            .collect()
    };
    let at = |list: Vec<(f64, f64, f64)>, x: f64| {
        list.into_iter()
            .find(|b| (b.0 - x).abs() < 0.01)
            .expect("a bar at that tick")
    };
    // Ticks 10 to 19 serve none in time: tick 20 has the eleventh served bar.
    let x = bars("served")[10].0;
    let served = at(bars("served"), x);
    let wasted = at(bars("wasted edged"), x);
    let rejected = at(bars("rejected outlined"), x);
    assert!(
        (wasted.1 + wasted.2 - served.1).abs() < 0.02,
        "{wasted:?} on {served:?}"
    );
    assert!((rejected.1 + rejected.2 - wasted.1).abs() < 0.02);
    assert!(
        (wasted.2 / served.2 - 4.0).abs() < 0.02,
        "8 wasted over 2 served"
    );
    assert!(
        (rejected.2 / served.2 - 3.0).abs() < 0.02,
        "6 turned away over 2 served"
    );
}

#[test]
fn the_lanes_words_name_the_overload_marks() {
    let (scenario, result) = overloaded();
    for svg in charts(&scenario, &result) {
        let desc = svg.split("<desc").nth(1).unwrap();
        for said in [
            "Calls served after their client had stopped waiting, work for nobody, are \
             stacked on the calls served in time, striped",
            "Attempts refused by the clients' own throttling, never reaching the server, \
             are stacked on top, dotted.",
            "the calls waiting in the server's queue at the end of each tick, on a scale \
             of its own: from 0 at a lane's baseline to 150 at the top of its scale, \
             written at the right.",
            "fixed, in the run drawn: 285 calls, 150 clients served, 112 served after \
             their client stopped waiting (wasted), 20 attempts throttled, at most 140 \
             calls queued at once, the last done at 2.6 s.",
            "proportional-jitter, in the run drawn: 183 calls, 150 clients served, 33 \
             served after their client stopped waiting (wasted), 6 attempts throttled, at \
             most 140 calls queued at once",
        ] {
            assert!(desc.contains(said), "{said}\n{desc}");
        }
    }
    for svg in charts(&scenario, &result) {
        // The top of the queue's own scale, once a lane, at the right.
        assert_eq!(svg.matches("class=\"queue-scale\"").count(), 2, "{svg}");
        assert!(svg.contains(">150</text>"));
    }
    let wide = lane_chart(&scenario, &result, 3 * SECOND, Form::Wide);
    assert!(wide.contains(">this run: 285 calls, 112 wasted, 20 throttled</text>"));
}

#[test]
fn a_short_queue_shares_the_bars_scale() {
    let (scenario, mut result) = overloaded();
    // The fixed lane's bars reach 19 calls: a queue of at most 30 joins their scale,
    // which grows to hold it.
    for s in &mut result.strategies {
        let lanes = s.typical.lanes.as_mut().unwrap();
        lanes.queued = vec![30, 20, 10, 5, 0, 0, 0, 0, 0, 0, 12];
    }
    for svg in charts(&scenario, &result) {
        assert!(legend(&svg).contains(&"queued".to_string()), "{svg}");
        assert!(svg.contains(">30</text>"), "the scale's top");
        assert!(svg.contains("on the same scale."));
        assert!(!svg.contains("queue-scale"), "no scale of its own");
        // The line starts at 30 calls: the top of the scale, under its grid line.
        let lane = svg.split("<g class=\"lane\">").nth(1).unwrap();
        let d = attribute_of(lane, "queued", "d");
        let grid = lane.split("<g class=\"grid\"").nth(1).unwrap();
        let top = grid.split(" y1=\"").nth(1).unwrap();
        let top = &top[..top.find('"').unwrap()];
        let start = d[1..].split(['H', 'V']).next().unwrap();
        assert_eq!(start.split(' ').nth(1).unwrap(), top, "{d}");
    }
}

#[test]
fn a_card_shows_wasted_work_above_the_served() {
    let (scenario, result) = overloaded();
    let svg = thumbnail(&scenario, &result, Some(3 * SECOND));
    let lane = svg.split("<g class=\"lane\">").nth(1).unwrap();
    let served = lane.find("class=\"served\"").unwrap();
    let wasted = lane.find("class=\"wasted\"").expect("wasted work drawn");
    let rejected = lane.find("class=\"rejected\"").unwrap();
    assert!(served < wasted && wasted < rejected);
}

#[test]
fn extreme_series_draw_finite_charts() {
    let (mut scenario, mut result) = overloaded();
    // Series of every length, at the counters' largest values, over more ticks than the
    // chart has columns: binned, and still nothing but finite numbers.
    scenario.horizon = 100_000 * SECOND;
    for s in &mut result.strategies {
        let lanes = s.typical.lanes.as_mut().unwrap();
        lanes.wasted = vec![u32::MAX; 7_000];
        lanes.queued = vec![u32::MAX; 9_001];
        lanes.throttled = vec![1; 3];
        lanes.failed_fast = vec![u32::MAX; 2];
        s.typical.totals.done_at = None;
        s.typical.totals.still_retrying = 1;
    }
    for form in Form::BOTH {
        let svg = lane_chart(&scenario, &result, 1_000 * SECOND, form);
        for bad in ["NaN", "inf", "height=\"0\"", "height=\"-"] {
            assert!(!svg.contains(bad), "{bad}");
        }
        assert!(svg.contains("each bar is the mean of"), "binned");
        assert!(
            svg.contains(">queued</text>"),
            "the queue's peak is the bars' own"
        );
    }
}

#[test]
fn throttled_attempts_stack_above_failed_fast_calls() {
    let (mut scenario, mut result) = overloaded();
    scenario.retry.breaker = Some(Default::default());
    for s in &mut result.strategies {
        let lanes = s.typical.lanes.as_mut().unwrap();
        lanes.failed_fast = vec![0; 12];
        lanes.failed_fast.push(4);
    }
    let svg = lane_chart(&scenario, &result, 3 * SECOND, Form::Wide);
    let fixed = svg.split("<g class=\"lane\">").nth(1).unwrap();
    let top_of = |class: &str| {
        let (x, y, _, height) = rects_of(fixed, class)[0];
        (x, y, height)
    };
    // Tick 12: 10 wasted, 4 failed fast, then 2 throttled on top.
    let (fast_x, fast_y, _) = top_of("failed-fast");
    let (throttled_x, throttled_y, throttled_height) = top_of("throttled");
    assert_eq!(fast_x, throttled_x);
    assert!((throttled_y + throttled_height - fast_y).abs() < 0.02);
    assert!(legend(&svg).ends_with(&["failed fast".to_string(), "throttled".to_string()]));
}

/// A slowdown steps the capacity line down for its window, and the legend and the
/// chart's words say so.
#[test]
fn a_slowdown_steps_the_capacity_line_down_in_its_window() {
    use crate::engine::scenario::Slowdown;
    let mut scenario = Scenario::with_clients("slow", 40);
    scenario.strategies = vec![Strategy::Fixed];
    scenario.server.slowdowns = vec![Slowdown {
        from: SECOND,
        to: 2 * SECOND,
        capacity_milli: 5_000,
    }];
    let result = run_scenario(&scenario);
    for svg in charts(&scenario, &result) {
        assert!(legend(&svg).contains(&"capacity 10 (5 in a slowdown)".to_string()));
        let path = &svg[svg
            .find("<path class=\"capacity\"")
            .expect("a stepped line")..];
        let path = &path[..path.find('>').unwrap()];
        let d = path.split(" d=\"").nth(1).unwrap();
        let d = &d[..d.find('"').unwrap()];
        // Along the usual capacity, down to half of it for the second second, back.
        let steps: Vec<&str> = d.split(['H', 'V']).collect();
        assert_eq!(steps.len(), 6, "{d}");
        let (usual, slowed): (f64, f64) = (
            d[1..]
                .split(' ')
                .nth(1)
                .unwrap()
                .split('H')
                .next()
                .unwrap()
                .parse()
                .unwrap(),
            steps[2].parse().unwrap(),
        );
        assert_eq!(steps[4].parse::<f64>().unwrap(), usual);
        assert!(slowed > usual, "lower on the page: {d}");
        assert!(svg.contains("From 1.0 s to 2.0 s the server's capacity is 5 calls per tick."));
    }
    // Without a slowdown the line is the plain one.
    scenario.server.slowdowns.clear();
    let result = run_scenario(&scenario);
    assert!(charts(&scenario, &result)[0].contains("<line class=\"capacity\""));
}

/// The fleet of ten replicas of `extra`'s server, replica 3 at a tenth of the others'
/// capacity, and its results.
fn fleet(extra: &str) -> (Scenario, ScenarioResult) {
    let yaml = format!(
        "id: f\nclients: 200\nhorizon: 20s\nspread: 1s\n\
         server: {{capacity: 4, replicas: 10, overrides: [{{replica: 3, capacity: 0.4}}]{extra}}}\n\
         retry: {{max_attempts: 10}}\nstrategies: [fixed, full-jitter]\nruns: 3\n"
    );
    let scenario = crate::engine::parse_scenario(&yaml, None).unwrap();
    let result = run_scenario(&scenario);
    (scenario, result)
}

/// The names in the legend of the replicas' chart, wide.
fn numbers_legend(html: &str) -> Vec<String> {
    let svg = html
        .split("<svg")
        .find(|s| s.contains("sim-replicas sim-wide"))
        .unwrap();
    let legend = svg.split("<g class=\"legend\">").nth(1).unwrap();
    let legend = &legend[..legend.find("</g>").unwrap()];
    legend
        .split("class=\"label\"")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string())
        .collect()
}

#[test]
fn a_fleets_figure_draws_a_strip_per_replica_in_both_layouts() {
    let (scenario, result) = fleet("");
    let html = figure(&scenario, &result, &FigureOptions::default());
    assert_eq!(html.matches("class=\"sim-lanes sim-replicas").count(), 2);
    for id in [
        "f-replicas-title",
        "f-replicas-title-narrow",
        "f-replicas-hatch",
    ] {
        assert_eq!(html.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
    }
    // Strips of 9.6 units: numbered each in the narrow layout, whose font is 12 units;
    // the first, the fifth and the last in the wide one, whose font is 14.
    let numbers = |form: &str| {
        let svg = html
            .split("<svg")
            .find(|s| s.contains(&format!("sim-replicas {form}")))
            .unwrap();
        let panel = svg.split("<g class=\"lane\">").nth(1).unwrap();
        (1..=10)
            .filter(|n| panel.contains(&format!(">{n}</text>")))
            .collect::<Vec<_>>()
    };
    assert_eq!(numbers("sim-narrow"), (1..=10).collect::<Vec<_>>());
    // Sixteen strips of 6 units: every fifth, but not 15 beside 16.
    for n in [11, 16, 21, 100] {
        for form in Form::BOTH {
            let shown: Vec<usize> = (1..=n)
                .filter(|&r| super::replicas::numbered(form, n, r))
                .collect();
            let (h, gap) = super::replicas::strip(n);
            for pair in shown.windows(2) {
                let apart = (pair[1] - pair[0]) as f64 * (h + gap);
                assert!(apart >= form.font() * 0.85, "{n} {form:?} {shown:?}");
            }
            assert_eq!((shown[0], *shown.last().unwrap()), (1, n));
        }
    }
    assert_eq!(numbers("sim-wide"), [1, 5, 10]);
    // No replica is down: the legend names no outage.
    assert!(!numbers_legend(&html).contains(&"down".to_string()));
    let (down, result) = fleet(", outages: [{from: 0s, to: 1s}]");
    let html = figure(&down, &result, &FigureOptions::default());
    assert!(numbers_legend(&html).contains(&"down".to_string()));
    // One server draws none.
    let mut one = scenario.clone();
    one.server.fleet = None;
    let result = run_scenario(&one);
    let html = figure(&one, &result, &FigureOptions::default());
    assert!(!html.contains("sim-replicas"));
}

#[test]
fn the_slow_replica_turns_away_the_most_in_its_strip_and_in_words() {
    let (scenario, result) = fleet("");
    let lanes = result.strategies[0].typical.lanes.as_ref().unwrap();
    let rejected: Vec<u64> = (lanes.replicas.iter())
        .map(|r| r.rejected.iter().map(|&n| u64::from(n)).sum())
        .collect();
    let most = (0..10)
        .max_by_key(|&r| (rejected[r], std::cmp::Reverse(r)))
        .unwrap();
    assert_eq!(most, 2, "{rejected:?}");
    let window = crate::chart::auto_window(&scenario, &result);
    let one = Scenario {
        server: scenario
            .server
            .fleet
            .as_ref()
            .unwrap()
            .as_one(&scenario.server, scenario.horizon),
        ..scenario.clone()
    };
    let svg = super::replica_chart(&scenario, &one, &result, window, Form::Narrow).unwrap();
    let panel = svg.split("<g class=\"lane\">").nth(1).unwrap();
    // The turned-away bars of replica 3's strip cover the most: each strip's band is
    // found from its number, written at its middle (strips of 9.6 units, fonts of 12).
    let bars = rects_of(panel, "rejected");
    let area = |n: usize| -> f64 {
        let at = panel.find(&format!(">{n}</text>")).unwrap();
        let y: f64 = panel[..at]
            .rsplit("y=\"")
            .next()
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let middle = y - 12.0 * 0.35;
        (bars.iter())
            .filter(|r| (r.1 + r.3 / 2.0 - middle).abs() < 4.8)
            .map(|r| r.2 * r.3)
            .sum()
    };
    let areas: Vec<f64> = (1..=10).map(area).collect();
    let widest = (0..10)
        .max_by(|&a, &b| areas[a].total_cmp(&areas[b]))
        .unwrap();
    assert_eq!(widest, 2, "{areas:?}");
    let sum_of = |r: u64| rejected[r as usize];
    let desc = svg.split("<desc").nth(1).unwrap();
    assert!(
        desc.contains(&format!(
            "fixed: the most turned away by replica 3, {} (it served",
            thousands(sum_of(2))
        )),
        "{desc}"
    );
}

#[test]
fn a_fleet_too_long_to_keep_each_replicas_lanes_draws_no_strips() {
    // 100 replicas for 50,000 ticks pass the 4,000,000 kept.
    let yaml = "id: f\nclients: 10\nhorizon: 500s\nserver: {replicas: 100, tick: 10ms}\nruns: 1\n\
                strategies: [fixed]\n";
    let scenario = crate::engine::parse_scenario(yaml, None).unwrap();
    let result = run_scenario(&scenario);
    let lanes = result.strategies[0].typical.lanes.as_ref().unwrap();
    assert!(lanes.replicas.is_empty());
    let html = figure(&scenario, &result, &FigureOptions::default());
    assert!(!html.contains("sim-replicas"));
    assert!(html.contains(
        "Each replica’s strip is not drawn: a run keeps them for 4,000,000 ticks of all \
         replicas together, and 100 replicas over 50,000 ticks are more."
    ));
}

#[test]
fn a_fleets_plots_and_data_are_those_of_the_fleet_drawn_as_one_server() {
    // Five replicas of 200 and 600 calls at once: the chart's scale runs to the
    // fleet's 1,000 calls a tick, not to the 600 of the tallest bar above one replica's
    // 200, and its plots start after wider labels.
    let yaml = "id: f\nclients: 600\nhorizon: 10s\nserver: {capacity: 200, replicas: 5}\n\
                strategies: [fixed]\nruns: 1\n";
    let scenario = crate::engine::parse_scenario(yaml, None).unwrap();
    let result = run_scenario(&scenario);
    let options = FigureOptions::default();
    let parts = super::super::FigureParts::new(&scenario, &result, &options, "");
    let one = super::super::as_one(&scenario).unwrap();
    let edges: Vec<(f64, f64)> = Form::BOTH
        .iter()
        .cycle()
        .take(4)
        .map(|&form| super::plot_edges(&one, &result, parts.window, form))
        .collect();
    assert_eq!(parts.plots, edges);
    let written = super::plot_edges(&scenario, &result, parts.window, Form::Wide);
    assert_ne!(written, edges[0]);
    assert_eq!(parts.charts.matches("<svg").count(), 4);
    assert_eq!(
        super::super::tick_csv(&scenario, &result, &options),
        parts.csv
    );
}

#[test]
fn a_replicas_wasted_calls_are_drawn_in_its_own_strip_and_named() {
    // Replica 1 serves 1 call a tick; the timeout of two ticks makes both calls left in
    // its queue after tick 0 late: one wasted in tick 1, one in tick 2. Replica 2
    // serves its three in tick 0.
    let scenario = crate::engine::parse_scenario(
        "id: w\nclients: 6\nhorizon: 1s\n\
         server: {replicas: 2, capacity: 10, queue: {limit: 10},\n  \
         overrides: [{replica: 1, capacity: 1}]}\n\
         retry: {timeout: 200ms, max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n",
        None,
    )
    .unwrap();
    let result = run_scenario(&scenario);
    let lanes = result.strategies[0].typical.lanes.as_ref().unwrap();
    assert_eq!(lanes.replicas[0].wasted[..4], [0, 1, 1, 0]);
    assert_eq!(lanes.replicas[1].wasted[..4], [0, 0, 0, 0]);
    let html = figure(&scenario, &result, &FigureOptions::default());
    assert!(numbers_legend(&html).contains(&"served after timeout (wasted)".to_string()));
    let svg = html
        .split("<svg")
        .find(|s| s.contains("sim-replicas sim-wide"))
        .unwrap();
    let panel = svg.split("<g class=\"lane\">").nth(1).unwrap();
    // Two columns of one wasted call each, in the upper strip, replica 1's: side by
    // side and of one height, so one rectangle two columns wide.
    let wasted = rects_of(panel, "wasted");
    let served = rects_of(panel, "served");
    assert_eq!(wasted.len(), 1, "{wasted:?}");
    let column = served.iter().map(|r| r.2).fold(f64::MAX, f64::min);
    assert!(
        (wasted[0].2 - 2.0 * column).abs() < 0.02,
        "{wasted:?} {served:?}"
    );
    let strip_of = |r: &(f64, f64, f64, f64)| r.1 + r.3;
    let first = served.iter().map(strip_of).fold(f64::MAX, f64::min);
    assert!(
        wasted.iter().all(|w| strip_of(w) <= first + 0.01),
        "{wasted:?} {served:?}"
    );
    let desc = svg.split("<desc").nth(1).unwrap();
    assert!(
        desc.contains("served, wasted above them, and turned away above those"),
        "{desc}"
    );
    assert!(
        desc.contains("fixed: the most wasted by replica 1, 2."),
        "{desc}"
    );
}

#[test]
fn a_cache_draws_each_lane_at_the_capacity_its_run_had() {
    // A cold cache of 4 in front of a server of 2, three calls a tick: ticks 0, 1 and
    // 2 have 2, 2.666 and 4, and then 4 (tests/it/warm_cache.rs has them by hand).
    let scenario = crate::engine::parse_scenario(
        "id: c\nclients: 0\nhorizon: 3s\narrivals: {rate: 30}\n\
         server: {capacity: 2, rejection_cost: 0,\n  \
         cache: {capacity: 4, warm_after: 4, ttl: 200ms, start: cold}}\n\
         retry: {max_attempts: 1}\nstrategies: [fixed]\nruns: 1\n",
        None,
    )
    .unwrap();
    let result = run_scenario(&scenario);
    for svg in charts(&scenario, &result) {
        // The lane's path (the legend's swatch is a line).
        let from = svg
            .find("<path class=\"capacity\" d=\"")
            .expect("a stepped line")
            + 27;
        let d = &svg[from..from + svg[from..].find('"').unwrap()];
        // Three levels, rising: one step up per change, then flat to the end.
        assert_eq!(d.matches('V').count(), 2, "{d}");
        let ys: Vec<f64> = d
            .split('V')
            .skip(1)
            .map(|v| v[..v.find('H').unwrap()].parse().unwrap())
            .collect();
        assert!(ys[0] > ys[1], "{d}");
        assert!(legend(&svg).contains(&"capacity 2 cold, 4 warm".to_string()));
        assert!(svg.contains("raises its capacity up to 4 calls per tick as it warms; each lane"));
        assert!(
            svg.contains("its capacity from 2 to 4 calls per tick"),
            "{svg}"
        );
    }
    // The chart's data has each run's capacity beside its calls, as the line draws it.
    let data = super::super::table::tick_data(&scenario, &result, 3 * SECOND, 1);
    let rows: Vec<&str> = data.csv.lines().take(4).collect();
    assert_eq!(
        rows,
        [
            "time (s),fixed served,fixed turned away,fixed capacity",
            "0.0,2,1,2",
            "0.1,2,1,2.666",
            "0.2,3,0,4"
        ]
    );
    assert!(
        data.caption
            .ends_with("with each run's capacity, in calls per tick")
    );
    let binned = super::super::table::tick_data(&scenario, &result, 3 * SECOND, 2);
    // Ticks 0 and 1: 2 + 2.666 over two, 2.333; ticks 2 and 3: 4.
    assert_eq!(
        binned.csv.lines().nth(1),
        Some("0.0,4,2,2.333"),
        "{}",
        binned.csv
    );
}

#[test]
fn hedges_are_a_dotted_line_among_the_calls_named_in_the_legend() {
    // Five clients at 0 s, ten calls a tick, a copy of each call at once: tick 0 has
    // ten calls, five of them hedges, and five served for nobody
    // (tests/it/hedging.rs has them by hand).
    let yaml = "id: h\nclients: 5\nhorizon: 3s\nserver: {capacity: 10}\n\
                retry: {max_attempts: 1, hedging: {delay: 0s, max_attempts: 2}}\n\
                strategies: [fixed]\nruns: 1\n";
    let scenario = crate::engine::parse_scenario(yaml, None).unwrap();
    let result = run_scenario(&scenario);
    for svg in charts(&scenario, &result) {
        let names = legend(&svg);
        assert!(
            names.contains(&"hedges (of the calls)".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"served for nobody (wasted)".to_string()),
            "{names:?}"
        );
        assert_eq!(attribute_of(&svg, "hedges", "stroke-dasharray"), "2 2");
        // The lane's line rises to the five hedges of tick 0 and falls back to 0: it
        // is drawn on the bars' scale, half the height of tick 0's ten calls.
        let line = svg.split("<g class=\"hedge\"").nth(1).expect("a line");
        let d = line.split("class=\"hedges\"").next().unwrap();
        assert!(d.contains('V'), "{d}");
        assert!(svg.contains("A dotted line steps with the hedges"), "{svg}");
        assert!(svg.contains("5 hedges sent"), "{svg}");
        assert!(svg.contains("5 served for nobody (wasted)"), "{svg}");
    }
    // The chart's data has the wasted calls and the hedges beside the others.
    let data = super::super::table::tick_data(&scenario, &result, 3 * SECOND, 1);
    let rows: Vec<&str> = data.csv.lines().collect();
    assert_eq!(
        rows,
        [
            "time (s),fixed served,fixed turned away,fixed wasted,fixed hedges",
            "0.0,5,0,5,5"
        ]
    );
    // Without hedging, no line and no name.
    let plain = crate::engine::parse_scenario(
        &yaml.replace(", hedging: {delay: 0s, max_attempts: 2}", ""),
        None,
    )
    .unwrap();
    for svg in charts(&plain, &run_scenario(&plain)) {
        assert!(!svg.contains("hedge"), "{svg}");
    }
}
