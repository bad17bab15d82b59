//! The totals of the overload model in `retrylab sim`: in the JSON of every preset, with
//! their documented names and shape, and out of the table of a scenario without a
//! queue, a timeout or a throttle.

use serde_json::Value;

use crate::util::retrylab;

#[test]
fn every_presets_json_has_the_overload_totals() {
    for preset in [
        "crowd",
        "half-capacity",
        "outage",
        "beginner",
        "metastable",
        "layers",
    ] {
        let out = retrylab(&["sim", &format!("scenarios/{preset}.yaml"), "--json"]);
        assert!(out.status.success(), "{preset}");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let runs = json["runs"].as_u64().unwrap();
        for s in json["strategies"].as_array().unwrap() {
            for total in ["wasted", "timed_out", "throttled"] {
                let t = &s[total];
                let (p5, median, p95) = (t["p5"].as_u64(), t["median"].as_u64(), t["p95"].as_u64());
                assert!(
                    p5.is_some() && p5 <= median && median <= p95,
                    "{preset} {total}"
                );
            }
            let with_latency = s["latency_runs"].as_u64().unwrap();
            assert!(with_latency <= runs, "{preset}");
            for latency in ["latency_p50_s", "latency_p99_s"] {
                // Always there: null when no run answered a call in time, else seconds.
                let l = s
                    .get(latency)
                    .unwrap_or_else(|| panic!("{preset} {latency}"));
                assert_eq!(l.is_null(), with_latency == 0, "{preset} {latency}");
                if !l.is_null() {
                    let (p5, median, p95) =
                        (l["p5"].as_f64(), l["median"].as_f64(), l["p95"].as_f64());
                    assert!(
                        p5.is_some() && p5 <= median && median <= p95,
                        "{preset} {latency}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_scenario_without_a_queue_timeout_or_throttle_has_no_column_of_them() {
    for preset in ["crowd", "metastable-breaker", "layers"] {
        let out = retrylab(&["sim", &format!("scenarios/{preset}.yaml")]);
        assert!(out.status.success(), "{preset}");
        let text = String::from_utf8(out.stdout).unwrap();
        let heading = text.lines().nth(2).unwrap();
        for column in ["latency", "wasted", "timed out", "throttled"] {
            assert!(!heading.contains(column), "{preset}: {heading}");
        }
    }
}
