//! `retrylab live` as a user runs it, and the ```live directive that shows a stored run.
//!
//! The live runs here are short (a few clients, a second or two per strategy), and
//! their totals are held against the simulated band with a generous margin: a real
//! run on a busy machine drifts, and no assertion here times anything.

use std::path::Path;

#[cfg(feature = "live")]
use serde_json::Value;

use crate::util::run;
#[cfg(feature = "live")]
use crate::util::run_in;

/// A short scenario: twelve clients against a server of four calls per tick.
#[cfg(feature = "live")]
const SHORT: &str = "id: short\nclients: 12\nhorizon: 10s\n\
                     server: {capacity: 4, tick: 100ms}\n\
                     retry: {base: 100ms, cap: 1s}\n\
                     strategies: [fixed, exponential, full-jitter]\nruns: 100\n";

#[cfg(feature = "live")]
#[test]
fn a_short_live_run_lands_near_the_simulated_band_and_is_recorded_as_printed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("short.yaml");
    std::fs::write(&file, SHORT).unwrap();
    let record = dir.path().join("short.json");
    let (code, stdout, stderr) = run(&[
        "live",
        file.to_str().unwrap(),
        "--json",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), stdout);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["format"], "retrylab-live/1");
    assert_eq!(json["scenario"], SHORT);
    assert_eq!(json["server"][0]["crate"], "hyper");
    let strategies = json["strategies"].as_array().unwrap();
    assert_eq!(strategies.len(), 3);
    for s in strategies {
        let name = s["strategy"].as_str().unwrap();
        // Every client is served, live as simulated.
        assert_eq!(s["served"]["live"], 12, "{name}");
        assert_eq!(s["still_retrying"]["live"], 0, "{name}");
        let calls = &s["calls"];
        let live = calls["live"].as_f64().unwrap();
        let (p5, p95) = (
            calls["p5"].as_f64().unwrap(),
            calls["p95"].as_f64().unwrap(),
        );
        assert!(
            live >= p5 * 0.6 && live <= p95 * 1.5,
            "{name}: {live} calls live, {p5}–{p95} simulated"
        );
        let done = &s["done_at_s"];
        let live = done["live"].as_f64().unwrap();
        let (p5, p95) = (done["p5"].as_f64().unwrap(), done["p95"].as_f64().unwrap());
        assert!(
            live >= p5 - 1.0 && live <= p95 + 1.0,
            "{name}: done at {live} s live, {p5}–{p95} s simulated"
        );
        assert_eq!(
            calls["difference"].as_i64().unwrap(),
            calls["live"].as_i64().unwrap() - calls["median"].as_i64().unwrap()
        );
    }
    assert_eq!(strategies[0]["waits"]["crate"], "tokio-retry2");
    assert_eq!(strategies[0]["waits"]["using"], "FixedInterval");
}

/// An outage with a Retry-After hint, an all-or-nothing server that chokes on the crowd,
/// and an attempt limit: every client gives up after its fourth call.
#[cfg(feature = "live")]
const GUARDED: &str = "id: guarded\nclients: 12\nhorizon: 10s\n\
                       server: {model: all-or-nothing, capacity: 5, \
                       outages: [{from: 0s, to: 300ms}], retry_after: {hint: 1s, when: down}}\n\
                       retry: {max_attempts: 4, deadline: 5s}\nstrategies: [fixed]\nruns: 1\n";

#[cfg(feature = "live")]
#[test]
fn live_clients_honour_retry_after_and_give_up_as_the_model_says() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.yaml"), GUARDED).unwrap();
    let (code, stdout, stderr) = run_in(dir.path(), &["live", "g.yaml", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let fixed = &json["strategies"][0];
    // Simulated: all twelve give up after four calls, in the tick that starts at 1.2 s.
    assert_eq!(fixed["gave_up"]["median"], 12);
    assert_eq!(fixed["done_at_s"]["median"], 1.2);
    let (served, gave_up) = (&fixed["served"]["live"], &fixed["gave_up"]["live"]);
    assert_eq!(
        served.as_u64().unwrap() + gave_up.as_u64().unwrap(),
        12,
        "{fixed}"
    );
    assert!(gave_up.as_u64().unwrap() >= 6, "{fixed}");
    // Without the hint the crowd's calls would all be over by 0.7 s: the server's ticks,
    // not the wall clock, say when.
    let done = fixed["done_at_s"]["live"].as_f64().unwrap();
    assert!((1.0..=2.5).contains(&done), "{fixed}");
}

/// Open-loop traffic into a FIFO queue, a slowdown that fills it, and clients that time
/// out and retry: every overload total of the model, played for real.
#[cfg(feature = "live")]
const QUEUED: &str = "id: queued\nclients: 0\narrivals: {rate: 20}\nhorizon: 10s\n\
                      server: {capacity: 4, tick: 200ms, rejection_cost: 0.1, \
                      slowdowns: [{from: 2s, to: 5s, capacity: 1}], queue: {limit: 60}}\n\
                      retry: {base: 200ms, cap: 2s, max_attempts: 3, timeout: 2s}\n\
                      strategies: [full-jitter]\nruns: 20\n";

#[cfg(feature = "live")]
#[test]
fn a_queued_scenario_with_timeouts_plays_live_with_every_overload_total() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("q.yaml"), QUEUED).unwrap();
    let (code, stdout, stderr) = run_in(dir.path(), &["live", "q.yaml", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["arrivals"], 200);
    let s = &json["strategies"][0];
    for total in [
        "calls",
        "served",
        "gave_up",
        "still_retrying",
        "done_at_s",
        "timed_out",
        "wasted",
        "latency_p50_s",
        "latency_p99_s",
        "goodput_per_s",
        "recovery_s",
    ] {
        assert!(s[total].is_object(), "{total} missing: {s}");
        assert!(
            !s[total]["median"].is_null() || total.ends_with("_s"),
            "{total}: {s}"
        );
    }
    let live = |total: &str| s[total]["live"].as_u64().unwrap();
    let calls_of = |k: &str| s["calls"][k].as_u64().unwrap();
    let (median, p5, p95) = (calls_of("median"), calls_of("p5"), calls_of("p95"));
    // The slowdown makes calls time out and retry, on both sides.
    assert!(
        live("timed_out") > 0 && s["timed_out"]["median"].as_u64().unwrap() > 0,
        "{s}"
    );
    // Every request ends one way, live as simulated.
    assert_eq!(
        live("served") + live("gave_up") + live("still_retrying"),
        200,
        "{s}"
    );
    let calls = live("calls") as f64;
    assert!(
        calls >= p5 as f64 * 0.8 && calls <= p95 as f64 * 1.2,
        "{calls} calls live, {median} ({p5}–{p95}) simulated"
    );
    // A call is served in time or wasted, never both: the server's count is their sum.
    let lanes = &s["lanes"];
    let sum = |name: &str| -> u64 {
        lanes[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("served"), live("served"));
    assert_eq!(sum("wasted"), live("wasted"));
    let text = run_in(dir.path(), &["live", "q.yaml"]);
    assert_eq!(text.0, 0, "{}", text.2);
    assert!(
        text.1
            .starts_with("queued: 200 open-loop requests, 20 simulated runs"),
        "{}",
        text.1
    );
    for heading in [
        "timed out",
        "wasted",
        "p50 latency",
        "p99 latency",
        "goodput/s",
        "recovery",
    ] {
        assert!(text.1.contains(heading), "{heading}: {}", text.1);
    }
}

/// Open-loop requests as a Poisson process, against a server that serves them all.
#[cfg(feature = "live")]
const POISSON: &str = "id: poisson\nclients: 0\nhorizon: 3s\n\
                       arrivals: {rate: 20, process: poisson}\n\
                       server: {capacity: 4, tick: 100ms}\n\
                       strategies: [fixed, full-jitter]\nruns: 10\nseed: 3\n";

#[cfg(feature = "live")]
#[test]
fn poisson_arrivals_play_live_as_the_engine_draws_them_for_the_seed() {
    use retrylab::engine::{Strategy, parse_scenario, simulate};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.yaml"), POISSON).unwrap();
    let (code, stdout, stderr) = run_in(dir.path(), &["live", "p.yaml", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    // The live run plays the first seed's requests: as many as the engine's run of it,
    // for every strategy, and not the even window's 60.
    let scenario = parse_scenario(POISSON, None).unwrap();
    let drawn = simulate(&scenario, Strategy::Fixed, 3, false)
        .totals
        .arrivals;
    let again = simulate(&scenario, Strategy::FullJitter, 3, false)
        .totals
        .arrivals;
    assert_eq!(drawn, again);
    assert_ne!(drawn, 60);
    for s in json["strategies"].as_array().unwrap() {
        let live = |total: &str| s[total]["live"].as_u64().unwrap();
        assert_eq!(
            live("served") + live("gave_up") + live("still_retrying"),
            drawn,
            "{s}"
        );
    }
}

/// A crowd whose AWS-style retry quota pays for two retries: the others are denied.
#[cfg(feature = "live")]
const BUDGETED: &str = "id: budgeted\nclients: 12\nhorizon: 5s\n\
                        server: {capacity: 2, tick: 100ms}\n\
                        retry: {base: 100ms, cap: 1s, max_attempts: 10, \
                        budget: {kind: aws, quota: 10}}\nstrategies: [fixed]\nruns: 20\n";

#[cfg(feature = "live")]
#[test]
fn live_clients_share_the_retry_budget_and_are_denied_as_the_model_says() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.yaml"), BUDGETED).unwrap();
    let (code, stdout, stderr) = run_in(dir.path(), &["live", "b.yaml", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let fixed = &json["strategies"][0];
    // Simulated: two served at first, two retries paid for, eight denied.
    assert_eq!(fixed["denied"]["median"], 8, "{fixed}");
    let live = |total: &str| fixed[total]["live"].as_u64().unwrap();
    // The quota pays for two retries, however the calls fall into ticks: at least the
    // clients served at first and at most two more are served; the rest are denied.
    assert!((2..=6).contains(&live("served")), "{fixed}");
    assert_eq!(live("denied"), live("gave_up"), "{fixed}");
    assert_eq!(live("served") + live("gave_up"), 12, "{fixed}");
}

#[cfg(feature = "live")]
#[track_caller]
fn refused(yaml: &str, expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.yaml");
    std::fs::write(&file, yaml).unwrap();
    let (code, stdout, stderr) = run_in(dir.path(), &["live", "s.yaml"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert_eq!(stderr, expected);
}

#[cfg(feature = "live")]
#[test]
fn hostile_scenarios_get_the_diagnostics_of_sim_and_run_nothing() {
    refused(
        "clients: [1\n",
        "error: invalid YAML: flow sequence, expected ',' or ']'\n --> s.yaml:2:1\n  |\n2 |\n  \
         | ^\n\nerror: 1 problem found\n",
    );
    refused(
        "clients: 10\nstrategies: [fixd]\n",
        "error: unknown strategy `fixd`\n --> s.yaml:2:14\n  |\n2 | strategies: [fixd]\n  \
         |              ^^^^\n  = help: did you mean `fixed`?\n\nerror: 1 problem found\n",
    );
    // The engine's own limits come first, as for `sim`.
    // The live server is one server.
    refused(
        "clients: 10\nserver: {replicas: 2}\n",
        "error: `retrylab live` does not play a server of several replicas (`server.replicas`)\n \
         --> s.yaml:2:10\n  |\n2 | server: {replicas: 2}\n  |          ^^^^^^^^\n  = help: \
         remove the key to play one server for real, or see the fleet simulated with \
         `retrylab sim`\n\nerror: 1 problem found\n",
    );
    // 10,000 runs of 5 strategies, each of 36,000 ticks and 300 first calls.
    refused(
        "clients: 300\nhorizon: 1h\nruns: 10000\n",
        "error: this scenario needs at least 1,815,000,000 steps of simulation (each tick, \
         and the first call of each client, in every run of every strategy); the limit is \
         500,000,000\n --> s.yaml:1:10\n  |\n1 | clients: 300\n  |          ^^^\n  \
         = help: use fewer clients, runs or strategies, a shorter horizon or a longer tick\n\n\
         error: 1 problem found\n",
    );
}

#[cfg(feature = "live")]
#[test]
fn what_a_live_run_cannot_play_is_named_where_it_is_written() {
    let help = "  = help: remove the key to play the rest for real, or see it simulated with \
                `retrylab sim`\n";
    refused(
        "clients: 10\nlayers: [{attempts: 2}, {attempts: 3}]\n\
         retry: {breaker: {}, throttle: {}}\n",
        &format!(
            "error: `retrylab live` does not play layers of retries (`layers`)\n --> s.yaml:2:1\n  \
             |\n2 | layers: [{{attempts: 2}}, {{attempts: 3}}]\n  | ^^^^^^\n{help}\n\
             error: `retrylab live` does not play a circuit breaker (`retry.breaker`)\n \
             --> s.yaml:3:9\n  |\n3 | retry: {{breaker: {{}}, throttle: {{}}}}\n  |         ^^^^^^^\n{help}\n\
             error: `retrylab live` does not play client-side throttling (`retry.throttle`)\n \
             --> s.yaml:3:22\n  |\n3 | retry: {{breaker: {{}}, throttle: {{}}}}\n  |                      ^^^^^^^^\n{help}\n\
             error: 3 problems found\n"
        ),
    );
    refused(
        "clients: 10\nserver: {pushback: {when: down}}\n",
        &format!(
            "error: `retrylab live` does not play the server's pushback (`server.pushback`)\n \
             --> s.yaml:2:10\n  |\n2 | server: {{pushback: {{when: down}}}}\n  |          ^^^^^^^^\n{help}\n\
             error: 1 problem found\n"
        ),
    );
    refused(
        "clients: 10\nserver: {cache: {capacity: 20, warm_after: 9, ttl: 1s}}\n",
        &format!(
            "error: `retrylab live` does not play a server's cache (`server.cache`)\n \
             --> s.yaml:2:10\n  |\n2 | server: {{cache: {{capacity: 20, warm_after: 9, ttl: 1s}}}}\n  |          ^^^^^\n{help}\n\
             error: 1 problem found\n"
        ),
    );
    refused(
        "clients: 0\narrivals: {rate: 1000}\nhorizon: 2m\nretry: {max_attempts: 1}\n\
         strategies: [fixed]\nruns: 1\n",
        "error: `retrylab live` plays at most 100,000 open-loop requests, these arrivals make \
         120,000\n --> s.yaml:2:18\n  |\n2 | arrivals: {rate: 1000}\n  |                  ^^^^\n  \
         = help: a lower rate or a shorter horizon plays live; simulate the rest with `retrylab sim`\n\n\
         error: 1 problem found\n",
    );
    refused(
        "clients: 1000\nhorizon: 10s\n",
        "error: `retrylab live` plays at most 400 clients, this scenario has 1,000\n \
         --> s.yaml:1:10\n  |\n1 | clients: 1000\n  |          ^^^^\n  = help: each client \
         holds a connection of its own; simulate larger crowds with `retrylab sim`\n\n\
         error: 1 problem found\n",
    );
    refused(
        "clients: 10\nhorizon: 1h\n",
        "error: `retrylab live` plays a horizon of at most 10m, this one is 1h\n --> s.yaml:2:10\n  \
         |\n2 | horizon: 1h\n  |          ^^\n  = help: a live run takes up to its horizon for \
         each strategy\n\nerror: 1 problem found\n",
    );
    refused(
        "clients: 10\nserver: {tick: 1ms}\n",
        "error: `retrylab live` plays ticks of at least 10ms, this one is 1ms\n --> s.yaml:2:16\n  \
         |\n2 | server: {tick: 1ms}\n  |                ^^^\n  = help: the clocks of a real \
         server and its clients are not finer than that\n\nerror: 1 problem found\n",
    );
    refused(
        "clients: 10\nserver: {retry_after: {hint: 1500ms}}\n",
        "error: `retrylab live` sends the hint as HTTP's Retry-After, in whole seconds: 1.5s is \
         not\n --> s.yaml:2:30\n  |\n2 | server: {retry_after: {hint: 1500ms}}\n  \
         |                              ^^^^^^\n\nerror: 1 problem found\n",
    );
    refused(
        "clients: 10\nretry: {base: 250us}\nstrategies: [fixed, full-jitter]\n",
        "error: the waits of `full-jitter` come from tokio-retry2, whose exponential backoff \
         starts from whole milliseconds: 250us is not\n --> s.yaml:2:15\n  |\n2 | retry: \
         {base: 250us}\n  |               ^^^^^\n  = help: a base in whole milliseconds plays \
         live; fixed and decorrelated-jitter take any\n\nerror: 1 problem found\n",
    );
}

#[cfg(feature = "live")]
#[test]
fn a_record_never_replaces_a_file_that_is_no_live_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), "clients: 1\nhorizon: 1s\n").unwrap();
    std::fs::write(dir.path().join("notes.json"), "{\"mine\": true}\n").unwrap();
    let (code, _, stderr) = run_in(dir.path(), &["live", "s.yaml", "--record", "notes.json"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: notes.json exists and holds no live run of retrylab: choose another file for \
         --record, or move it away\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.json")).unwrap(),
        "{\"mine\": true}\n"
    );
    let (code, _, stderr) = run_in(dir.path(), &["live", "s.yaml", "--record", "no/run.json"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: cannot store the run in no/run.json: there is no folder no\n"
    );
}

/// The crowd of the page below, as `retrylab live` stores it.
const CROWD: &str = "id: small\nclients: 20\nhorizon: 30s\nserver: {capacity: 4}\n\
                     strategies: [fixed, exponential]\nruns: 20\n";

/// A stored run of [`CROWD`], written by hand in the stored format.
fn stored(scenario: &str) -> String {
    let strategy = |name: &str, calls: u64, done: f64| {
        serde_json::json!({
            "strategy": name,
            "waits": {"crate": "tokio-retry2", "version": "0.9.1", "using": "FixedInterval"},
            "calls": {"live": calls, "median": 1, "p5": 1, "p95": 1, "difference": 0},
            "served": {"live": 20, "median": 20, "p5": 20, "p95": 20, "difference": 0},
            "gave_up": {"live": 0, "median": 0, "p5": 0, "p95": 0, "difference": 0},
            "still_retrying": {"live": 0, "median": 0, "p5": 0, "p95": 0, "difference": 0},
            "done_at_s": {"live": done, "median": null, "p5": null, "p95": null, "difference": null},
            "elapsed_s": 1.0,
            "lanes": {"served": [4], "rejected": [16]}
        })
    };
    let record = serde_json::json!({
        "format": "retrylab-live/1",
        "id": "small",
        "date": "2026-12-01",
        "scenario": scenario,
        "clients": 20,
        "runs": 20,
        "server": [{"crate": "hyper", "version": "1.12.0"}, {"crate": "tokio", "version": "1.54.1"}],
        "strategies": [strategy("fixed", 123_456, 1.2), strategy("exponential", 98_765, 7.7)]
    });
    serde_json::to_string_pretty(&record).unwrap()
}

/// A site with one page holding `sim` (a sim block's body) and `live` (a live block's),
/// and `data` stored as live/small.json beside the page.
fn site(sim: &str, live: &str, data: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (code, _, stderr) = run(&["init", root.join("s").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let root = root.join("s");
    std::fs::create_dir_all(root.join("content/live")).unwrap();
    std::fs::write(root.join("content/live/small.json"), data).unwrap();
    std::fs::write(
        root.join("content/small.md"),
        format!(
            "---\ntitle: Small\ndate: 2026-12-01\n---\n\n```sim\n{sim}```\n\nLive:\n\n```live\n{live}```\n"
        ),
    )
    .unwrap();
    dir
}

fn check(dir: &Path) -> (i32, String, String) {
    run(&["check", "--root", dir.join("s").to_str().unwrap()])
}

#[test]
fn a_stored_run_is_shown_beside_its_scenario() {
    let dir = site(
        CROWD,
        "scenario: small\ndata: live/small.json\n",
        &stored(CROWD),
    );
    let (code, _, stderr) = check(dir.path());
    assert_eq!(code, 0, "{stderr}");
    let root = dir.path().join("s");
    let out = root.join("public");
    let (code, _, stderr) = run(&["build", "--root", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("small/index.html")).unwrap();
    let figure = &html[html.find("<figure class=\"sim sim-live\"").unwrap()..];
    let figure = &figure[..figure.find("</figure>").unwrap()];
    // The live values come from the file, the simulated ones from the engine.
    assert!(figure.contains("123,456"), "{figure}");
    assert!(figure.contains("98,765"), "{figure}");
    assert!(figure.contains("played for real on 2026-12-01"), "{figure}");
    assert!(figure.contains("Left out, as zero on both sides: gave up and still retrying."));
}

#[test]
fn a_stored_run_of_another_scenario_is_refused_where_the_page_names_it() {
    let other = CROWD.replace("capacity: 4", "capacity: 5");
    let dir = site(
        &other,
        "scenario: small\ndata: live/small.json\n",
        &stored(CROWD),
    );
    let (code, _, stderr) = check(dir.path());
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: the live run in `content/live/small.json` was played with another scenario than \
         `small`: its `server.capacity` differs\n  --> content/small.md:18:11\n   |\n18 | \
         scenario: small\n   |           ^^^^^\n   = help: play `small` as the page has it and \
         store it again: `retrylab live SCENARIO.yaml --record content/live/small.json`\n\n\
         error: 1 problem found\n"
    );
    let swapped = CROWD.replace("[fixed, exponential]", "[exponential, fixed]");
    let dir = site(
        CROWD,
        "scenario: small\ndata: live/small.json\n",
        &stored(&swapped),
    );
    let (code, _, stderr) = check(dir.path());
    assert_eq!(code, 1);
    assert!(stderr.contains("its `strategies` differs"), "{stderr}");
    // Runs and seed are the simulation's alone.
    let more_runs = CROWD.replace("runs: 20", "runs: 50\nseed: 9");
    let dir = site(
        &more_runs,
        "scenario: small\ndata: live/small.json\n",
        &stored(CROWD),
    );
    let (code, _, stderr) = check(dir.path());
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_live_directive_s_mistakes_are_located() {
    let cases = [
        (
            "scenario: smal\ndata: live/small.json\n",
            stored(CROWD),
            "error: no sim directive has the id `smal`\n  --> content/small.md:18:11\n   |\n\
             18 | scenario: smal\n   |           ^^^^\n   = help: did you mean `small`?\n",
        ),
        (
            "scenario: small\ndata: live/none.json\n",
            stored(CROWD),
            "error: cannot read the live run `content/live/none.json`: ",
        ),
        (
            "scenario: small\ndata: live/small.json\n",
            "{\"format\": \"retrylab-live/1\",\n  \"id\": 3}".to_string(),
            "error: this is no live run of retrylab: invalid type: integer `3`, expected a \
             string\n --> content/live/small.json:2:9\n  |\n2 |   \"id\": 3}\n  |         ^\n",
        ),
        (
            "scenario: small\ndata: live/small.json\n",
            "\u{0}\u{ff}".to_string(),
            "error: this is no live run of retrylab: expected value\n --> content/live/small.json:1:1\n",
        ),
        (
            "scenario: small\ndata: live/small.json\n",
            stored("id: small\nclients: -1\n"),
            "error: the scenario stored in `content/live/small.json` does not read: `clients` must be a \
             whole number, found `-1`\n  --> content/small.md:19:7\n",
        ),
        (
            "scenario: small\ndata: ../small.json\nextra: 1\n",
            stored(CROWD),
            "error: `data` must stay inside the page's folder, found `../small.json`\n  --> \
             content/small.md:19:7\n   |\n19 | data: ../small.json\n   |       ^^^^^^^^^^^^^\n   \
             = help: give a path from the page's folder, like live/crowd.json\n\n\
             error: unknown key `extra`\n  --> content/small.md:20:1\n",
        ),
    ];
    // A scenario with a mistake is reported once, not again at its live block.
    let dir = site(
        &CROWD.replace("clients: 20", "clients: -20"),
        "scenario: small\ndata: live/small.json\n",
        &stored(CROWD),
    );
    let (code, _, stderr) = check(dir.path());
    assert_eq!(code, 1);
    assert!(stderr.ends_with("error: 1 problem found\n"), "{stderr}");
    assert!(
        stderr.contains("`clients` must be a whole number"),
        "{stderr}"
    );
    for (live, data, expected) in cases {
        let dir = site(CROWD, live, &data);
        let (code, _, stderr) = check(dir.path());
        assert_eq!(code, 1, "{live}");
        assert!(stderr.starts_with(expected), "{stderr}");
        assert!(stderr.ends_with("found\n"), "{stderr}");
    }
}

/// Another program on the machine calls the live server during a run: each of its
/// requests is refused, none is counted, and the run's totals stay its clients' own.
#[cfg(feature = "live")]
#[test]
fn a_request_from_outside_a_live_run_is_refused_and_not_counted() {
    use std::io::{Read, Write};
    use std::sync::Arc;
    use std::time::Duration;

    let scenario = Arc::new(retrylab::engine::parse_scenario(SHORT, None).unwrap());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (listening, address) = std::sync::mpsc::channel();
    let foreign = std::thread::spawn(move || {
        let address: std::net::SocketAddr = address.recv().unwrap();
        (0..40)
            .map(|_| {
                let mut stream = std::net::TcpStream::connect(address).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(10)))
                    .unwrap();
                stream
                    .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .unwrap();
                let mut response = String::new();
                let _ = stream.read_to_string(&mut response);
                response
            })
            .collect::<Vec<_>>()
    });
    let played = runtime
        .block_on(retrylab::live::play::play_beside(
            Arc::clone(&scenario),
            retrylab::engine::Strategy::Fixed,
            scenario.seed,
            move |at| listening.send(at).unwrap(),
        ))
        .unwrap();
    for response in foreign.join().unwrap() {
        assert!(
            response.starts_with("HTTP/1.1 403 Forbidden\r\n"),
            "{response}"
        );
    }
    assert_eq!(played.refused, 40);
    let totals = &played.totals;
    assert_eq!(totals.served, 12, "every client served, and no one else");
    assert_eq!(totals.served + totals.gave_up + totals.still_retrying, 12);
    let decided: u64 =
        totals.lanes.served.iter().sum::<u64>() + totals.lanes.rejected.iter().sum::<u64>();
    assert_eq!(totals.calls, decided);
}
