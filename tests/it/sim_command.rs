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

/// A page of one article with a sim block, a sweep and a schedule, in a folder of its
/// own; and the sim block's scenario as a file beside it.
fn page_with_blocks() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sim = "id: crowd\nclients: 60\nruns: 3\nstrategies: [fixed, full-jitter]\n";
    std::fs::write(dir.path().join("crowd.yaml"), sim).unwrap();
    std::fs::write(
        dir.path().join("page.md"),
        format!(
            "---\ntitle: A\n---\n\nText.\n\n```sim\n{sim}figure:\n  window: 5s\n```\n\n\
             ```sweep\nid: by-clients\nclients: 60\nruns: 3\nstrategies: [fixed, full-jitter]\n\
             sweep:\n  vary: clients\n  values: [20, 40]\n  total: calls\n```\n\n\
             ```schedule\nid: waits\nstrategies: [exponential]\n```\n"
        ),
    )
    .unwrap();
    dir
}

#[test]
fn a_pages_block_runs_as_its_scenario_file_does() {
    let dir = page_with_blocks();
    let page = dir.path().join("page.md");
    let page = page.to_str().unwrap();
    let file = dir.path().join("crowd.yaml");
    for extra in [&[][..], &["--json"][..], &["--json", "--lanes"][..]] {
        let block = retrylab(&[&["sim", &format!("{page}#crowd")][..], extra].concat());
        let alone = retrylab(&[&["sim", file.to_str().unwrap()][..], extra].concat());
        assert!(block.status.success(), "{extra:?}");
        assert_eq!(block.stdout, alone.stdout, "{extra:?}");
    }
    let set = |what: &str| {
        let out = retrylab(&["sim", what, "--set", "clients=30"]);
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(set(&format!("{page}#crowd")), set(file.to_str().unwrap()));
}

#[test]
fn a_pages_sweep_prints_its_table_and_a_page_lists_its_blocks() {
    let dir = page_with_blocks();
    let page = dir.path().join("page.md");
    let page = page.to_str().unwrap();
    let out = retrylab(&["sim", &format!("{page}#by-clients")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("by-clients: calls against clients, median of 3 runs"));
    let words = |line: &str| {
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(words(lines[2]), ["clients", "fixed", "full-jitter"]);
    assert_eq!(words(lines[3])[0], "20");
    assert_eq!(words(lines[4])[0], "40");
    let json = retrylab(&["sim", &format!("{page}#by-clients"), "--json"]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json[1]["value"], "40");
    assert_eq!(json[1]["results"]["clients"], 40);
    // The page alone: its blocks, by kind, id and line.
    let out = retrylab(&["sim", page]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    let listed: Vec<Vec<String>> = text.lines().skip(1).take(3).map(words).collect();
    assert_eq!(listed[0][..2], ["sim", "crowd"]);
    assert_eq!(listed[1][..2], ["sweep", "by-clients"]);
    assert_eq!(listed[2][..2], ["schedule", "waits"]);
    // A wrong id is told the ones there are; a block that runs nothing says so.
    let out = retrylab(&["sim", &format!("{page}#crowds")]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success());
    assert!(
        err.contains("has no block with the id `crowds`; did you mean `crowd`?"),
        "{err}"
    );
    let out = retrylab(&["sim", &format!("{page}#waits")]);
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("```schedule block")
    );
}

#[test]
fn a_mistake_in_a_pages_block_is_placed_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(
        &page,
        "---\ntitle: A\n---\n\n  ```sim\n  id: crowd\n  clients: lots\n  ```\n",
    )
    .unwrap();
    let out = retrylab(&["sim", &format!("{}#crowd", page.display())]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success());
    assert!(
        err.contains("`clients` must be a whole number, found `lots`"),
        "{err}"
    );
    assert!(err.contains("page.md:7:12"), "{err}");
}

#[test]
fn keys_prints_the_reference_tables_and_names_a_misspelt_one() {
    let out = retrylab(&["keys", "budget"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for setting in [
        "max_tokens",
        "token_ratio",
        "percent_can_retry",
        "quota",
        "retry_cost",
    ] {
        assert!(text.contains(&format!("| `{setting}` |")), "{text}");
    }
    let all = String::from_utf8(retrylab(&["keys"]).stdout).unwrap();
    assert!(
        all.contains("## breaker: ") && all.contains("## site: "),
        "{all}"
    );
    let out = retrylab(&["keys", "bugdet"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("there is no table `bugdet`"), "{err}");
    assert!(err.contains("did you mean `budget`?"), "{err}");
}

/// A scenario file comparing three library strategies, in a fresh folder.
fn libraries() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libraries.yaml");
    std::fs::write(
        &path,
        "clients: 10\nseed: 7\nstrategies: [tenacity, polly, aws-standard]\n",
    )
    .unwrap();
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

/// `sim FILE --schedule --json` with `args` after it, parsed.
fn schedule_json(file: &str, args: &[&str]) -> (Value, Vec<u8>) {
    let mut all = vec!["sim", file, "--schedule", "--json"];
    all.extend_from_slice(args);
    let out = retrylab(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&out.stdout).unwrap(), out.stdout)
}

#[test]
fn schedule_json_has_the_documented_shape() {
    let (_dir, file) = libraries();
    let (json, _) = schedule_json(&file, &["--draws", "50"]);
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["strategies"]);
    let strategies = json["strategies"].as_array().unwrap();
    let names: Vec<&str> = strategies
        .iter()
        .map(|s| s["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tenacity", "polly", "aws-standard"]);
    for s in strategies {
        let mut keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["max_attempts", "retries", "strategy"]);
        for (r, retry) in s["retries"].as_array().unwrap().iter().enumerate() {
            assert_eq!(retry["retry"], r as u64 + 1);
            assert_eq!(retry["waits_s"].as_array().unwrap().len(), 50);
            assert_eq!(retry.as_object().unwrap().len(), 2);
        }
    }
}

#[test]
fn schedule_shows_each_librarys_own_waits_and_limit() {
    let (_dir, file) = libraries();
    let (json, _) = schedule_json(&file, &[]);
    let waits = |s: &Value, r: usize| -> Vec<f64> {
        s["retries"][r]["waits_s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_f64().unwrap())
            .collect()
    };
    let [tenacity, polly, aws] = &json["strategies"].as_array().unwrap()[..] else {
        panic!("three strategies");
    };
    // tenacity's Retrying(): no wait, no limit; the schedule shows 10 retries.
    assert!(tenacity["max_attempts"].is_null());
    assert_eq!(tenacity["retries"].as_array().unwrap().len(), 10);
    for r in 0..10 {
        let w = waits(tenacity, r);
        assert_eq!(w.len(), 1_000);
        assert!(w.iter().all(|&w| w == 0.0));
    }
    // Polly v8: 3 retries of a constant 2 s.
    assert_eq!(polly["max_attempts"], 4);
    assert_eq!(polly["retries"].as_array().unwrap().len(), 3);
    for r in 0..3 {
        assert!(waits(polly, r).iter().all(|&w| w == 2.0));
    }
    // botocore standard: 3 attempts, full jitter over 1 s, then 2 s.
    assert_eq!(aws["max_attempts"], 3);
    assert_eq!(aws["retries"].as_array().unwrap().len(), 2);
    for (r, top) in [(0, 1.0), (1, 2.0)] {
        let w = waits(aws, r);
        assert!(
            w.iter().all(|&w| (0.0..top).contains(&w)),
            "retry {}",
            r + 1
        );
        // Jittered: the draws differ.
        assert!(w.iter().any(|&x| x != w[0]));
    }
}

#[test]
fn schedule_is_deterministic_and_its_table_says_when_there_is_no_limit() {
    let (_dir, file) = libraries();
    let (_, first) = schedule_json(&file, &["--draws", "200"]);
    let (_, second) = schedule_json(&file, &["--draws", "200"]);
    assert_eq!(first, second);
    let table = |file: &str| retrylab(&["sim", file, "--schedule", "--draws", "200"]);
    let (a, b) = (table(&file), table(&file));
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    assert!(text.starts_with("libraries: the wait before each retry, 200 draws (seeds 7–206)\n"));
    assert!(
        text.contains("tenacity: no attempt limit; the first 10 retries\n"),
        "{text}"
    );
    assert!(text.contains("polly: 4 attempts, 3 retries\n"), "{text}");
    assert!(
        text.contains("\n1        2.000 s    2.000 s    2.000 s    2.000 s\n"),
        "{text}"
    );
}

#[test]
fn schedule_refuses_no_draws_and_lanes() {
    let (_dir, file) = libraries();
    for (args, says) in [
        (vec!["--schedule", "--draws", "0"], "--draws"),
        (vec!["--schedule", "--draws", "100001"], "--draws"),
        (vec!["--schedule", "--json", "--lanes"], "--lanes"),
        (vec!["--draws", "5"], "--schedule"),
    ] {
        let mut all = vec!["sim", file.as_str()];
        all.extend(args.iter());
        let out = retrylab(&all);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn schedule_applies_set_and_runs_a_pages_sim_block() {
    let (_dir, file) = libraries();
    let (json, _) = schedule_json(&file, &["--draws", "3", "--set", "strategies=fixed"]);
    let fixed = &json["strategies"][0];
    assert_eq!(fixed["strategy"], "fixed");
    assert!(fixed["max_attempts"].is_null());
    assert_eq!(
        fixed["retries"][0]["waits_s"],
        serde_json::json!([0.1, 0.1, 0.1])
    );
    let dir = page_with_blocks();
    let page = dir.path().join("page.md");
    let block = format!("{}#crowd", page.display());
    let (json, _) = schedule_json(&block, &["--draws", "4"]);
    let names: Vec<&Value> = json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["strategy"])
        .collect();
    assert_eq!(names, ["fixed", "full-jitter"]);
    let sweep = format!("{}#by-clients", page.display());
    let out = retrylab(&["sim", &sweep, "--schedule"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--schedule"));
}

#[test]
fn a_crowd_served_at_once_runs_however_large_its_worst_case() {
    // A million clients whose every retry could land in a tick of its own (over
    // 5,000,000,000 steps at most), served in the first tick: 1,200 ticks and a
    // million calls for each of the five strategies.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("crowd.yaml");
    std::fs::write(
        &file,
        "id: crowd\nclients: 1000000\nserver: {capacity: 1000000}\n",
    )
    .unwrap();
    let out = retrylab(&["sim", file.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    for s in json["strategies"].as_array().unwrap() {
        assert_eq!(s["calls"]["median"], 1_000_000);
        assert_eq!(s["served"]["median"], 1_000_000);
    }
}

#[test]
fn a_pages_sweep_past_its_share_of_the_limit_stops_at_its_value() {
    // 40 values share the limit, 12,500,000 steps each; the last, 20,000 clients
    // retrying every 100 ms against ten calls a tick, needs about twice that.
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<String> = (1..40).map(|n| n.to_string()).collect();
    let page = dir.path().join("page.md");
    std::fs::write(
        &page,
        format!(
            "# A storm\n\n```sweep\nid: storm\nclients: 1\nruns: 1\nstrategies: [fixed]\n\
             sweep: {{vary: clients, values: [{}, 20000]}}\n```\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let out = retrylab(&["sim", &format!("{}#storm", page.display())]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let column = "sweep: {vary: clients, values: [".len() + values.join(", ").len() + 3;
    assert!(
        stderr.starts_with(&format!(
            "error: the scenario at this value needs more than the limit of 12,500,000 steps \
             of simulation, its share of 500,000,000 (a step is one tick or one call of one \
             run, over every run of every strategy): it was stopped at the limit\n \
             --> {}:8:{column}\n",
            page.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("= help: one run takes more than 12,500,000 steps with `fixed`; use"),
        "{stderr}"
    );
}
