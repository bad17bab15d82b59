//! `retrylab sim` as a user runs it: on the preset files, as a table and as JSON.

use serde_json::Value;

use crate::util::retrylab;

#[test]
fn prints_a_table_for_a_preset() {
    let out = retrylab(&["sim", "scenarios/half-capacity.yaml"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "half-capacity: 100 clients, 1 run (seed 1)\n\n\
         strategy    calls  per client  served  gave up  still retrying  done at\n\
         fixed     114,005    1,140.05       5        0              95    never\n"
    );
}

#[test]
fn json_has_the_documented_shape_for_every_preset() {
    for preset in ["crowd", "half-capacity", "outage", "beginner"] {
        let out = retrylab(&["sim", &format!("scenarios/{preset}.yaml"), "--json"]);
        assert!(out.status.success(), "{preset}");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["id"], preset);
        let runs = json["runs"].as_u64().unwrap();
        for s in json["strategies"].as_array().unwrap() {
            assert!(s["strategy"].is_string());
            for total in ["calls", "served", "gave_up", "still_retrying"] {
                let t = &s[total];
                let (p5, median, p95) = (t["p5"].as_u64(), t["median"].as_u64(), t["p95"].as_u64());
                assert!(p5 <= median && median <= p95, "{preset} {total}");
            }
            let finished = s["finished_runs"].as_u64().unwrap();
            assert!(finished <= runs);
            // Quoted over all runs: null when fewer than half the runs finished.
            assert_eq!(s["done_at_s"].is_null(), 2 * finished < runs);
        }
    }
}

#[test]
fn json_reports_the_crowd_as_the_engine_computes_it() {
    let out = retrylab(&["sim", "scenarios/crowd.yaml", "--json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exp = &json["strategies"][1];
    assert_eq!(exp["strategy"], "exponential");
    // Without jitter every run is the same run.
    assert_eq!(exp["calls"]["p5"], exp["calls"]["p95"]);
    assert_eq!(exp["finished_runs"], 200);
}

#[test]
fn a_bad_file_fails_with_its_diagnostics_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.yaml");
    std::fs::write(&path, "clients: 10\nstrategies: [fixd]\n").unwrap();
    let out = retrylab(&["sim", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("error: unknown strategy `fixd`"), "{err}");
    assert!(err.contains("typo.yaml:2:14"), "{err}");
    assert!(err.ends_with("error: 1 problem found\n"), "{err}");
}

#[test]
fn a_missing_file_is_one_clear_line() {
    let out = retrylab(&["sim", "no/such.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: cannot read no/such.yaml: "),
        "{err}"
    );
}
