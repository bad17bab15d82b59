//! Tests that every chart reads at any width: both layouts in each figure, text at
//! 11 CSS px or more where each is shown, no text outside the view box, lanes that say
//! where they end, lane totals named as one run's, and scales that fit their values.

use super::draw::Form;
use super::lanes::lane_chart;
use super::*;
use crate::engine::metric::Metric;
use crate::engine::schedule::schedule as waits;
use crate::engine::units::SECOND;
use crate::engine::{Strategy, parse_scenario, run_scenario};

/// The narrowest column each layout is shown in, in CSS px: the figure switches at
/// 32rem, and a 390 px phone's column is about 332 px.
const NARROWEST: [(Form, f64); 2] = [(Form::Wide, 512.0), (Form::Narrow, 332.0)];

fn run(yaml: &str) -> (Scenario, ScenarioResult) {
    let scenario = parse_scenario(yaml, None).expect("a valid scenario");
    let result = run_scenario(&scenario);
    (scenario, result)
}

/// The crowd of the articles, cut down to the two deterministic strategies.
fn crowd() -> (Scenario, ScenarioResult) {
    run("id: crowd\nclients: 100\nstrategies: [fixed, exponential]\n")
}

/// Three layers of four attempts against a server that is down, with a capacity of
/// 1,000 far above the 100 calls per tick they make.
fn layers() -> (Scenario, ScenarioResult) {
    run("id: layers\nclients: 100\nhorizon: 2m\n\
         server: {capacity: 1000, outages: [{from: 0s, to: 2m}]}\n\
         layers: [{attempts: 4}, {attempts: 4}, {attempts: 4}]\n\
         strategies: [fixed, exponential]\n")
}

/// A crowd of 150 against a queue of 200, with a 1 s timeout and throttling, and its
/// lanes made by hand, since the chart must draw whatever the engine gives: the first
/// wave queues, the clients of the calls still queued at 1 s time out and call again,
/// the server serves those old calls for nobody, and the clients' throttling refuses
/// some of the new ones. Each lane's totals are its series' sums.
pub(super) fn overloaded() -> (Scenario, ScenarioResult) {
    use crate::engine::scenario::{Queue, QueueOrder, Throttle};
    use crate::engine::{Lanes, Totals};
    let mut scenario = Scenario::with_clients("overload", 150);
    scenario.strategies = vec![Strategy::Fixed, Strategy::ProportionalJitter];
    // The engine's run gives the frame (ids, runs, spreads); its lanes are replaced.
    let mut result = run_scenario(&scenario);
    scenario.server.queue = Some(Queue {
        limit: 200,
        order: QueueOrder::Fifo,
        drop_expired: false,
    });
    scenario.retry.timeout = Some(SECOND);
    scenario.retry.throttle = Some(Throttle {
        k_milli: 2_000,
        window: 10 * SECOND,
    });
    // Per tick, from 0; a series may end early (zeros after).
    #[rustfmt::skip]
    let lanes = [
        Lanes {
            served: vec![10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 6, 10, 10, 10, 8, 4],
            wasted: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 8, 4],
            rejected: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 9, 6, 3, 1],
            failed_fast: vec![],
            throttled: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 5, 4, 3, 2, 1],
            queued: vec![140, 130, 120, 110, 100, 90, 80, 70, 60, 50, 90, 86, 82, 76, 70, 62, 54, 46, 38, 30, 20, 14, 6, 2],
            hedges: vec![],
            capacity: vec![],
            replicas: vec![],
        },
        Lanes {
            served: vec![10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 0, 0, 3, 5, 9, 10, 10, 6, 4, 2, 1],
            wasted: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 7, 5, 1],
            rejected: vec![],
            failed_fast: vec![],
            throttled: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 1],
            queued: vec![140, 130, 120, 110, 100, 90, 80, 70, 60, 50, 45, 38, 30, 24, 16, 10, 6, 3, 1],
            hedges: vec![],
            capacity: vec![],
            replicas: vec![],
        },
    ];
    for (strategy, lanes) in result.strategies.iter_mut().zip(lanes) {
        let sum = |series: &[u32]| series.iter().map(|&n| u64::from(n)).sum::<u64>();
        let last = [
            &lanes.served,
            &lanes.wasted,
            &lanes.rejected,
            &lanes.throttled,
        ]
        .iter()
        .filter_map(|series| series.iter().rposition(|&n| n > 0))
        .max()
        .unwrap_or(0) as u64;
        strategy.typical.totals = Totals {
            calls: sum(&lanes.served) + sum(&lanes.wasted) + sum(&lanes.rejected),
            served: sum(&lanes.served),
            done_at: Some(last * scenario.server.tick),
            wasted: sum(&lanes.wasted),
            timed_out: sum(&lanes.wasted),
            throttled: sum(&lanes.throttled),
            ..Totals::default()
        };
        strategy.typical.lanes = Some(lanes);
    }
    (scenario, result)
}

/// Every `<svg …>…</svg>` of an HTML block.
fn svgs(html: &str) -> Vec<&str> {
    html.split("<svg ")
        .skip(1)
        .map(|s| &s[..s.find("</svg>").expect("a closed svg")])
        .collect()
}

/// The value of an attribute in the start of a tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let head = &tag[..tag.find('>').unwrap_or(tag.len())];
    let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&head[at..at + head[at..].find('"')?])
}

/// A chart's layout, view box and font size, from its `<svg>` tag.
fn frame(svg: &str) -> (Form, f64, f64, f64) {
    let form = if attr(svg, "class").unwrap().contains("sim-narrow") {
        Form::Narrow
    } else {
        Form::Wide
    };
    let view: Vec<f64> = attr(svg, "viewBox")
        .unwrap()
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    let font = attr(svg, "font-size").unwrap().parse().unwrap();
    (form, view[2], view[3], font)
}

/// Every text of a chart that is not turned: its x, y, anchor (its own or its
/// group's) and content.
fn texts(svg: &str) -> Vec<(f64, f64, String, String)> {
    let mut anchors: Vec<Option<String>> = Vec::new();
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        if rest.starts_with("<g") {
            anchors.push(attr(rest, "text-anchor").map(str::to_string));
        } else if rest.starts_with("</g") {
            anchors.pop();
        } else if rest.starts_with("<text") && attr(rest, "transform").is_none() {
            let anchor = attr(rest, "text-anchor")
                .map(str::to_string)
                .or_else(|| anchors.iter().rev().flatten().next().cloned())
                .unwrap_or_else(|| "start".to_string());
            let open = rest.find('>').unwrap() + 1;
            let content = rest[open..open + rest[open..].find('<').unwrap()].to_string();
            out.push((
                attr(rest, "x").unwrap().parse().unwrap(),
                attr(rest, "y").unwrap().parse().unwrap(),
                anchor,
                content,
            ));
        }
        rest = &rest[1..];
    }
    out
}

/// The figures of every kind, over the scenarios whose charts crowd the most.
fn figures() -> Vec<String> {
    let mut out = Vec::new();
    for (scenario, result) in [
        crowd(),
        layers(),
        run("id: storm\nclients: 100\nserver: {capacity: 5}\n\
             strategies: [fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter]\n"),
        run(
            "id: fast\nclients: 0\narrivals: {rate: 100}\nhorizon: 20s\n\
             server: {outages: [{from: 1s, to: 4s}]}\n\
             retry: {max_attempts: 3, breaker: {}}\nstrategies: [decorrelated-jitter]\n",
        ),
    ] {
        out.push(figure(&scenario, &result, &FigureOptions::default()));
    }
    let (scenario, result) = overloaded();
    out.push(figure(&scenario, &result, &FigureOptions::default()));
    let mut points: Vec<SweepPoint> = [25, 200, 1600]
        .into_iter()
        .map(|clients| {
            let mut s = Scenario::with_clients("s", clients);
            s.strategies = vec![Strategy::DecorrelatedJitter, Strategy::EqualJitter];
            s.runs = 5;
            SweepPoint {
                label: thousands(clients),
                x: clients as f64,
                result: run_scenario(&s),
            }
        })
        .collect();
    // One point where no run finished, drawn in the "never" row.
    points[2].result.strategies[0].done_at = None;
    points[2].result.strategies[0].finished_runs = 0;
    out.push(sweep_figure(&Sweep {
        id: "crowd-size",
        parameter: "clients",
        axis: "clients",
        total: Metric::DoneAt,
        points: &points,
        caption: None,
    }));
    let retry = Scenario::with_clients("s", 1).retry;
    let rows: Vec<_> = [
        Strategy::Exponential,
        Strategy::FullJitter,
        Strategy::DecorrelatedJitter,
    ]
    .into_iter()
    .map(|s| (s, waits(s, &retry, 12, 1)))
    .collect();
    out.push(schedule_figure("waits", &rows, None));
    out
}

#[test]
fn every_figure_holds_a_wide_and_a_narrow_chart_with_text_of_11_px_or_more() {
    for html in figures() {
        let charts = svgs(&html);
        assert_eq!(charts.len(), 2, "{html}");
        for (svg, (form, narrowest)) in charts.iter().zip(NARROWEST) {
            let (drawn, width, _, font) = frame(svg);
            assert_eq!(drawn, form);
            assert!(
                font * narrowest / width >= 11.0,
                "{font} in {width} at {narrowest}"
            );
            // No text is set smaller than the chart's font.
            let inside = &svg[svg.find('>').unwrap()..];
            assert!(!inside.contains("font-size"), "{inside}");
        }
        // The chart is drawn for the width, not put in a box that scrolls.
        let chart_part = &html[..html.find("<figcaption>").unwrap()];
        assert!(!chart_part.contains("sim-scroll"), "{chart_part}");
        // Each id once on the page, and every label's target there.
        let ids: Vec<&str> = html
            .split(" id=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap())
            .collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        for attribute in ["aria-labelledby", "aria-describedby"] {
            for target in html.split(&format!("{attribute}=\"")).skip(1) {
                let target = target.split('"').next().unwrap();
                assert!(ids.contains(&target), "{target}");
            }
        }
        assert!(html.contains("-title-narrow\""), "{html}");
    }
}

#[test]
fn no_text_leaves_the_view_box() {
    for html in figures() {
        for svg in svgs(&html) {
            let (form, width, height, font) = frame(svg);
            for (x, y, anchor, content) in texts(svg) {
                let w = form.text_width(&content, false);
                let (from, to) = match anchor.as_str() {
                    "end" => (x - w, x),
                    "middle" => (x - w / 2.0, x + w / 2.0),
                    _ => (x, x + w),
                };
                assert!(
                    from >= 0.0 && to <= width,
                    "{content:?} spans {from}–{to} of {width}"
                );
                assert!(y - font >= 0.0 && y <= height, "{content:?} at y {y}");
            }
        }
    }
}

#[test]
fn lanes_mark_where_they_end() {
    let (scenario, result) = crowd();
    let fixed = &result.strategies[0].typical.totals;
    let exponential = &result.strategies[1].typical.totals;
    let done = fixed.done_at.unwrap();
    let window = 3 * SECOND;
    assert!(done < window && exponential.done_at.unwrap() >= window);
    for form in Form::BOTH {
        let svg = lane_chart(&scenario, &result, window, form);
        let lanes: Vec<&str> = svg.split("<g class=\"lane\">").skip(1).collect();
        let label = format!(">done at {}</text>", crate::format::seconds(done));
        assert!(lanes[0].contains(&label), "{}", lanes[0]);
        assert!(lanes[0].contains("class=\"end\""));
        assert!(!lanes[0].contains("continues"));
        // Exponential's later waves fall after the window: its lane says so.
        assert!(lanes[1].contains(">continues →</text>"), "{}", lanes[1]);
        assert!(!lanes[1].contains("done at"));
    }
    // A lane still retrying at the horizon continues too.
    let (scenario, result) =
        run("id: storm\nclients: 100\nserver: {capacity: 5}\nstrategies: [fixed]\n");
    let svg = lane_chart(&scenario, &result, scenario.horizon, Form::Narrow);
    assert!(svg.contains(">continues →</text>"));
}

#[test]
fn lane_totals_are_named_as_one_runs() {
    let (scenario, result) = run("id: storm\nclients: 100\nserver: {capacity: 5}\nruns: 9\n\
         strategies: [fixed, full-jitter]\n");
    for form in Form::BOTH {
        let svg = lane_chart(&scenario, &result, 5 * SECOND, form);
        for s in &result.strategies {
            let t = &s.typical.totals;
            let summary = format!("this run: {} calls", thousands(t.calls));
            assert!(svg.contains(&summary), "{summary}");
        }
        assert!(svg.contains("still retrying"));
        for (_, _, _, content) in texts(&svg) {
            if content.contains(" calls") {
                assert!(content.starts_with("this run: "), "{content}");
            }
        }
    }
}

#[test]
fn a_capacity_far_above_the_bars_leaves_the_scale_to_them() {
    let (scenario, result) = layers();
    for form in Form::BOTH {
        let svg = lane_chart(&scenario, &result, 20 * SECOND, form);
        assert!(svg.contains(">100</text>"), "{svg}");
        assert!(!svg.contains(">1,000</text>"));
        assert!(svg.contains(">capacity 1,000, above the scale</text>"));
        // Only the legend's swatch: no capacity line or label in the lanes.
        assert_eq!(svg.matches("class=\"capacity\"").count(), 1);
    }
    // Near the bars, the capacity stays on the scale, named in the legend only.
    let (scenario, result) = crowd();
    let svg = lane_chart(&scenario, &result, 3 * SECOND, Form::Wide);
    assert_eq!(svg.matches("class=\"capacity\"").count(), 3);
    let legend = svg.split("<g class=\"legend\">").nth(1).unwrap();
    let (legend, after) = legend.split_once("</g>").unwrap();
    assert!(legend.contains(">capacity 10</text>"));
    // No label over the bars.
    assert!(!after.contains(">capacity"), "{after}");
}

#[test]
fn a_sweep_draws_never_in_a_row_of_its_own() {
    let points: Vec<SweepPoint> = [20, 50, 100]
        .into_iter()
        .map(|clients| {
            let mut s = Scenario::with_clients("s", clients);
            s.strategies = vec![Strategy::Exponential];
            let mut result = run_scenario(&s);
            if clients == 100 {
                result.strategies[0].done_at = None;
                result.strategies[0].finished_runs = 0;
            }
            SweepPoint {
                label: clients.to_string(),
                x: clients as f64,
                result,
            }
        })
        .collect();
    let html = sweep_figure(&Sweep {
        id: "never",
        parameter: "clients",
        axis: "clients",
        total: Metric::DoneAt,
        points: &points,
        caption: None,
    });
    for svg in svgs(&html) {
        assert!(svg.contains(">never</text>"), "{svg}");
        let never = svg
            .split("<g class=\"never\"")
            .nth(1)
            .expect("a never mark");
        assert_eq!(
            never.split("</g>").next().unwrap().matches("<path").count(),
            1
        );
        assert!(
            svg.contains("class=\"line link\""),
            "a dotted tie to the last value"
        );
    }
    // Without a missing value, no such row.
    let mut all = points.clone();
    all.truncate(2);
    let html = sweep_figure(&Sweep {
        id: "never",
        parameter: "clients",
        axis: "clients",
        total: Metric::DoneAt,
        points: &all,
        caption: None,
    });
    assert!(!html.contains(">never</text>"));
}

#[test]
fn a_crowd_from_25_to_2000_is_swept_on_a_log_axis() {
    let points: Vec<SweepPoint> = [25, 200, 2000]
        .into_iter()
        .map(|clients| {
            let mut s = Scenario::with_clients("s", clients);
            s.strategies = vec![Strategy::FullJitter];
            s.horizon = 10 * SECOND;
            SweepPoint {
                label: thousands(clients),
                x: clients as f64,
                result: run_scenario(&s),
            }
        })
        .collect();
    let html = sweep_figure(&Sweep {
        id: "c",
        parameter: "clients",
        axis: "clients",
        total: Metric::Calls,
        points: &points,
        caption: None,
    });
    let wide = svgs(&html)[0];
    for tick in [">20</text>", ">50</text>", ">200</text>", ">2,000</text>"] {
        assert!(wide.contains(tick), "{tick}");
    }
    assert!(!wide.contains(">1,500</text>"), "a linear axis");
}

#[test]
fn waits_are_drawn_on_a_log_scale_with_a_place_for_zero() {
    let retry = Scenario::with_clients("s", 1).retry;
    let rows: Vec<_> = [Strategy::Exponential, Strategy::FullJitter]
        .into_iter()
        .map(|s| (s, waits(s, &retry, 10, 1)))
        .collect();
    let html = schedule_figure("waits", &rows, None);
    for svg in svgs(&html) {
        assert!(svg.contains(">wait (s, log scale)</text>"));
        for tick in [">0</text>", ">0.1</text>", ">1</text>", ">10</text>"] {
            assert!(svg.contains(tick), "{tick}");
        }
        // Exponential's first waits, 0.1, 0.2 and 0.4 s, are steps of one height, as
        // each later doubling is: not flat along the bottom.
        let markers = svg.split("<g class=\"marker\"").nth(1).unwrap();
        let ys: Vec<f64> = markers
            .split("d=\"M")
            .skip(1)
            .take(3)
            .map(|d| {
                d.split(['L', '"'])
                    .next()
                    .unwrap()
                    .split(' ')
                    .nth(1)
                    .unwrap()
            })
            .map(|y| y.parse().unwrap())
            .collect();
        let (first, second) = (ys[0] - ys[1], ys[1] - ys[2]);
        assert!(first > 5.0 && (first - second).abs() < 0.1, "{ys:?}");
    }
}

#[test]
fn a_card_shows_its_figures_window() {
    let (scenario, result) = crowd();
    let auto = auto_window(&scenario, &result);
    assert_eq!(
        thumbnail(&scenario, &result, None),
        thumbnail(&scenario, &result, Some(auto))
    );
    let short = thumbnail(&scenario, &result, Some(SECOND));
    assert_ne!(short, thumbnail(&scenario, &result, None));
    // Ten ticks of 100 ms: at most ten bars a lane.
    let lane = short.split("<g class=\"lane\">").nth(1).unwrap();
    let served = lane.split("class=\"served\"").next().unwrap();
    assert!(served.matches('M').count() <= 10, "{served}");
}

#[test]
fn every_white_default_follows_the_theme() {
    // A fill or stroke of white reads only on a light page: the stylesheet must give
    // each such element the theme's background, by one of its classes.
    for html in figures() {
        for svg in svgs(&html) {
            let kind = attr(svg, "class").unwrap().split(' ').next().unwrap();
            for tag in svg.split('<').skip(1) {
                let head = &tag[..tag.find('>').unwrap_or(tag.len())];
                if !head.contains("=\"#ffffff\"") {
                    continue;
                }
                let classes = attr(tag, "class").unwrap_or("");
                assert!(
                    classes
                        .split(' ')
                        .any(|c| CSS.contains(&format!("svg.{kind} .{c} {{"))
                            || CSS.contains(&format!("svg.{kind} .{c},"))),
                    "<{head}> in {kind} has no themed rule"
                );
            }
        }
    }
}
