//! A time that only some runs have (when the last client finished, the recovery time)
//! is quoted over all runs: "never" when fewer than half the runs have one, with the
//! count beside it, in the prose, the site's table, `sim`'s table and its JSON.

use serde_json::Value;

use crate::util::{retrylab, run};

/// The metastable preset: exponential backoff recovers in one run of fifty.
const PRESET: &str = "scenarios/metastable.yaml";

#[test]
fn sim_json_gives_null_and_the_count_when_fewer_than_half_recover() {
    let out = retrylab(&["sim", PRESET, "--json"]);
    assert!(out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exp = &json["strategies"][1];
    assert_eq!(exp["strategy"], "exponential");
    assert_eq!(exp["recovered_runs"], 1);
    assert!(exp["recovery_s"].is_null(), "{exp}");
    assert_eq!(exp["finished_runs"], 0);
    assert!(exp["done_at_s"].is_null());
}

#[test]
fn sim_table_says_never_with_the_count() {
    let out = retrylab(&["sim", PRESET]);
    let text = String::from_utf8(out.stdout).unwrap();
    let exp = text.lines().find(|l| l.starts_with("exponential")).unwrap();
    assert!(exp.ends_with("never in 49 of 50 runs"), "{exp}");
    let fixed = text.lines().find(|l| l.starts_with("fixed")).unwrap();
    assert!(fixed.ends_with("  never"), "{fixed}");
}

#[test]
fn a_reference_quotes_never_and_the_count_quotes_the_runs() {
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    std::fs::write(root.join("site.yaml"), "title: Quoting\n").unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    let scenario = std::fs::read_to_string(PRESET).unwrap();
    std::fs::write(
        root.join("content/index.md"),
        format!(
            "---\ntitle: Quoting\n---\n\n```sim\n{scenario}```\n\nRecovery: \
             {{{{ metastable.exponential.recovery }}}}, in \
             {{{{ metastable.exponential.recovered_runs }}}} of {{{{ metastable.runs }}}} \
             runs.\n"
        ),
    )
    .unwrap();
    let out = root.join("public");
    let (code, _, stderr) = run(&[
        "build",
        "--root",
        root.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("Recovery: never, in 1 of 50 runs."), "{html}");
    assert!(html.contains(">never in 49 of 50 runs</td>"), "{html}");
}
