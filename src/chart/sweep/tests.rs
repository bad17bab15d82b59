//! Sweeps of the overload totals: latency, wasted calls, timed-out and throttled
//! attempts, charted and tabled from hand-made results.

use super::*;
use crate::engine::{Scenario, run_scenario};

/// Three points of a crowd's results with the overload totals set by hand: the
/// latencies rise with the value, and at the last no run answered a call in time.
fn points() -> Vec<SweepPoint> {
    let mut scenario = Scenario::with_clients("s", 20);
    scenario.strategies = vec![Strategy::Exponential];
    scenario.runs = 4;
    let base = run_scenario(&scenario);
    [(1, 3), (2, 4), (3, 0)]
        .into_iter()
        .map(|(n, latency_runs)| {
            let mut result = base.clone();
            let s = &mut result.strategies[0];
            s.wasted = Spread {
                median: 10 * n,
                p5: 10 * n,
                p95: 10 * n,
            };
            s.latency_runs = latency_runs;
            let latency = (latency_runs > 0).then_some(Spread {
                median: n * 250_000,
                p5: n * 100_000,
                p95: n * 400_000,
            });
            s.latency_p50 = latency;
            s.latency_p99 = latency;
            SweepPoint {
                label: format!("{n} s"),
                x: n as f64,
                result,
            }
        })
        .collect()
}

fn sweep(points: &[SweepPoint], total: Metric) -> String {
    sweep_figure(&Sweep {
        id: "timeouts",
        parameter: "timeout",
        axis: "timeout (s)",
        total,
        points,
        caption: None,
    })
}

#[test]
fn a_sweep_of_latency_is_to_the_millisecond_and_never_where_nothing_was_answered() {
    let html = sweep(&points(), Metric::LatencyP99);
    // Three runs of four answered a call in time at the first value: the count is told.
    assert!(
        html.contains(">0.250 <span class=\"range\">(0.100–0.400)</span>, in 3 of 4 runs</td>"),
        "{html}"
    );
    assert!(html.contains(">0.500 <span class=\"range\">(0.200–0.800)</span></td>"));
    assert!(html.contains(">never</td>"), "{html}");
    assert!(html.contains(
        "Where no run answered a call in time, the point is a hollow marker in the row marked “never”."
    ));
    assert!(html.contains("P99 latency (s) by timeout"));
    // The values carry their unit ("1 s"), so the column's heading does not.
    assert!(
        html.contains("<th scope=\"col\" class=\"num\">timeout</th>"),
        "{html}"
    );
    assert!(html.contains("data-label=\"timeout\">1 s</th>"), "{html}");
    assert!(
        html.contains("exponential: 0.250 s at 1 s, never at 3 s."),
        "{html}"
    );
}

#[test]
fn a_sweep_of_wasted_calls_counts_them() {
    let html = sweep(&points(), Metric::Wasted);
    for n in ["10", "20", "30"] {
        assert!(html.contains(&format!(">{n}</td>")), "{n}");
    }
    assert!(!html.contains("never"));
    assert!(html.contains("Calls wasted by timeout"));
}

/// A value reads the same in a sweep's table as in the prose's reference: latencies and
/// times half up from whole microseconds, goodput from thousandths.
#[test]
fn a_cell_is_written_as_the_reference_writes_the_value() {
    let latency = 1_837_500;
    assert_eq!(
        Metric::LatencyP99.cell(latency as f64 / 1e6),
        crate::format::latency_number(latency)
    );
    assert_eq!(Metric::LatencyP99.cell(1.8375), "1.838");
    assert_eq!(Metric::DoneAt.cell(2.25), "2.3");
    assert_eq!(Metric::Goodput.cell(80.05), "80.1");
}
