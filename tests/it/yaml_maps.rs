//! Every map of YAML read one way: a sweep's values checked as the scenario checks them,
//! and hostile keys (twice, a number, a list, odd bytes, huge numbers) refused in each kind
//! of map, at their place.

use retrylab::directive::read_sim;
use retrylab::directive::schedule::read_schedule;
use retrylab::directive::sweep::read_sweep;
use retrylab::engine::ScenarioError;
use retrylab::site::page::read_page;

/// Each mistake as `line:col message`.
fn placed(errors: &[ScenarioError]) -> Vec<String> {
    errors
        .iter()
        .map(|e| format!("{}:{} {}", e.pos.line, e.pos.column, e.message))
        .collect()
}

fn sweep_errors(body: &str) -> Vec<String> {
    placed(&read_sweep(body).expect_err("the sweep should be refused"))
}

fn sim_errors(body: &str) -> Vec<String> {
    placed(&read_sim(body).expect_err("the block should be refused"))
}

#[test]
fn a_swept_value_above_the_maximum_says_so() {
    // The sweep once said "must be more than 0" of a capacity above the limit.
    assert_eq!(
        sweep_errors("id: s\nclients: 10\nsweep: {vary: capacity, values: [5, 2000000000]}\n"),
        ["3:37 `server.capacity` is 2000000000; the most it can be is 1000000000"]
    );
    // And "at least 1" of a count above the limit.
    assert_eq!(
        sweep_errors("id: s\nclients: 10\nsweep: {vary: max_attempts, values: [99999999999]}\n"),
        ["3:38 `retry.max_attempts` is 99,999,999,999; the limit is 4,294,967,295"]
    );
    // The same value in the scenario gets the same words.
    assert_eq!(
        sim_errors("id: s\nclients: 10\nserver: {capacity: 2000000000}\n"),
        ["3:20 `server.capacity` is 2000000000; the most it can be is 1000000000"]
    );
}

#[test]
fn a_sweep_of_an_open_loop_scenario_may_have_no_crowd() {
    // A scenario with `arrivals` may have `clients: 0`; its sweep once refused 0.
    let body = "id: s\nclients: 0\narrivals: {rate: 20}\nhorizon: 10s\n\
                sweep: {vary: clients, values: [0, 10, 20]}\n";
    let s = read_sweep(body).unwrap();
    let crowds: Vec<u64> = s.points.iter().map(|p| p.2.clients).collect();
    assert_eq!(crowds, [0, 10, 20]);
    assert_eq!(s.points[0].0, "0");
    // Without arrivals, 0 is still refused, with the scenario's own words.
    assert_eq!(
        sweep_errors("id: s\nclients: 5\nsweep: {vary: clients, values: [0, 5]}\n"),
        ["3:33 `clients` must be at least 1, found 0"]
    );
}

#[test]
fn a_swept_value_is_checked_against_the_rest_of_the_scenario() {
    // A base above the written cap: the scenario's own relation, placed at the value.
    assert_eq!(
        sweep_errors(
            "id: s\nclients: 10\nretry: {cap: 1s}\nsweep: {vary: base, values: [100ms, 2s]}\n"
        ),
        ["4:37 `retry.cap` (1s) is below `retry.base` (2s)"]
    );
    // A spread beyond the horizon, and a value too big to simulate on its own.
    assert_eq!(
        sweep_errors("id: s\nclients: 10\nhorizon: 5s\nsweep: {vary: spread, values: [9s]}\n"),
        ["4:32 `spread` (9s) is longer than the horizon (5s)"]
    );
    let errors = sweep_errors(
        "id: s\nclients: 1000\nruns: 200\nstrategies: [fixed]\n\
         sweep: {vary: clients, values: [3000000]}\n",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("5:33 this scenario needs at least 600,240,000 steps"),
        "{errors:?}"
    );
    // Quoted numbers and values of the wrong kind.
    assert_eq!(
        sweep_errors("id: s\nclients: 10\nsweep: {vary: multiplier, values: [\"2\", 0.5]}\n"),
        ["3:41 `retry.multiplier` must be from 1 to 100, found 0.5"]
    );
    assert_eq!(
        sweep_errors("id: s\nclients: 10\nsweep: {vary: cap, values: [10]}\n"),
        ["3:29 `retry.cap` needs a unit, found `10`"]
    );
}

#[test]
fn an_outage_sweep_moves_the_first_outage_or_makes_one() {
    let s = read_sweep("id: s\nclients: 10\nsweep: {vary: outage, values: [0s, 2s]}\n").unwrap();
    assert!(s.points[0].2.server.outages.is_empty());
    assert_eq!(s.points[1].2.server.outages[0].from, 0);
    assert_eq!(s.points[1].2.server.outages[0].to, 2_000_000);
    assert_eq!(
        sweep_errors("id: s\nclients: 10\nsweep: {vary: outage, values: [2]}\n"),
        ["3:32 `2` is not a duration like 3s for `outage`"]
    );
}

#[test]
fn a_key_given_twice_is_refused_in_every_kind_of_map() {
    let cases = [
        (
            "id: a\nclients: 1\nclients: 2\n",
            "3:1 `clients` is given twice",
        ),
        (
            "id: a\nclients: 1\nserver: {tick: 1s, tick: 2s}\n",
            "3:20 `server.tick` is given twice",
        ),
        (
            "id: a\nclients: 1\nserver: {outages: [{from: 1s, from: 2s, to: 3s}]}\n",
            "3:31 `server.outages[].from` is given twice",
        ),
        (
            "id: a\nclients: 1\nretry: {base: 1s, base: 2s}\n",
            "3:19 `retry.base` is given twice",
        ),
        (
            "id: a\nclients: 1\nretry: {budget: {kind: aws, kind: grpc}}\n",
            "3:29 `retry.budget.kind` is given twice",
        ),
        (
            "id: a\nclients: 1\nretry: {breaker: {window: 30, window: 40}}\n",
            "3:31 `retry.breaker.window` is given twice",
        ),
        (
            "id: a\nclients: 0\narrivals: {rate: 1, rate: 2}\n",
            "3:21 `arrivals.rate` is given twice",
        ),
        (
            "id: a\nclients: 1\nlayers: [{attempts: 2, attempts: 3}]\n",
            "3:24 `layers[].attempts` is given twice",
        ),
        (
            "id: a\nclients: 1\nfigure: {caption: A, caption: B}\n",
            "3:22 `figure.caption` is given twice",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(sim_errors(body), [expected], "{body}");
    }
    assert_eq!(
        sweep_errors("id: s\nclients: 1\nsweep: {vary: clients, values: [1], values: [2]}\n"),
        ["3:37 `sweep.values` is given twice"]
    );
    assert_eq!(
        sweep_errors(
            "id: s\nclients: 1\nsweep: {vary: clients, values: {from: 1, from: 2, to: 3, step: 1}}\n"
        ),
        ["3:42 `sweep.values.from` is given twice"]
    );
    assert_eq!(
        placed(&read_schedule("id: w\nseed: 1\nseed: 2\n").unwrap_err()),
        ["3:1 `schedule.seed` is given twice"]
    );
    let page = read_page(
        "content/a.md".to_string(),
        "---\ntitle: A\ntitle: B\n---\n".to_string(),
        "/a/".to_string(),
    );
    let problems: Vec<String> = page
        .err()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        ["error: `title` is given twice\n --> content/a.md:3:1\n  |\n3 | title: B\n  | ^^^^^"]
    );
}

#[test]
fn a_key_that_is_a_number_a_list_or_nothing_is_refused_at_its_place() {
    assert_eq!(
        sim_errors("id: a\nclients: 1\n7: x\n"),
        ["3:1 unknown key `7`"]
    );
    assert_eq!(
        sim_errors("id: a\nclients: 1\nserver: {[tick]: 1s}\n"),
        ["3:10 a key must be a plain name, found a list"]
    );
    assert_eq!(
        sim_errors("id: a\nclients: 1\n? {a: 1}\n: 2\n"),
        ["3:4 a key must be a plain name, found a map of keys"]
    );
    assert_eq!(
        sim_errors("id: a\nclients: 1\n~: 2\n"),
        ["3:1 a key must be a plain name, found nothing"]
    );
    assert_eq!(
        sweep_errors("id: s\nclients: 1\nsweep: {vary: clients, values: [1], 1.5: x}\n"),
        ["3:37 unknown key `sweep.1.5`"]
    );
    let page = read_page(
        "content/a.md".to_string(),
        "---\ntitle: A\n[x, y]: 1\n---\n".to_string(),
        "/a/".to_string(),
    );
    let problems: Vec<String> = page
        .err()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "error: a key must be a plain name, found a list\n --> content/a.md:3:1\n  |\n3 | [x, y]: 1\n  | ^"
        ]
    );
}

#[test]
fn huge_numbers_and_odd_bytes_are_refused_not_wrapped() {
    let huge = "9".repeat(400);
    assert_eq!(
        sweep_errors(&format!(
            "id: s\nclients: 1\nsweep: {{vary: clients, values: [{huge}]}}\n"
        )),
        ["3:33 `clients` must be a whole number, found a number too large to hold"]
    );
    assert_eq!(
        sweep_errors(&format!(
            "id: s\nclients: 1\nsweep: {{vary: clients, values: {{from: 1, to: {huge}, step: 1}}}}\n"
        )),
        [format!("3:46 `{huge}` is not a value of `clients`")]
    );
    // A key of control characters and a right-to-left mark: unknown, and suggested nothing.
    let errors = sweep_errors(
        "id: s\nclients: 1\nsweep: {vary: clients, values: [1], \"\u{7}\u{200f}\": 1}\n",
    );
    assert_eq!(errors, ["3:37 unknown key `sweep.\u{7}\u{200f}`"]);
    // A NUL byte written as such stops the parser; written as YAML's escape, it is a key.
    let errors = sim_errors("id: a\nclients: 1\nfigure: {\"\u{0}\": 1}\n");
    assert_eq!(
        errors,
        ["3:10 invalid YAML: while scanning a quoted scalar, found unexpected end of stream"]
    );
    let errors = sim_errors("id: a\nclients: 1\nfigure: {\"\\0\": 1}\n");
    assert_eq!(errors, ["3:10 unknown key `figure.\u{0}`"]);
}

#[test]
fn a_map_where_a_value_belongs_is_refused_once() {
    assert_eq!(
        sweep_errors("id: s\nclients: 1\nsweep: [clients]\n"),
        ["3:8 `sweep` must be a map of keys, found a list"]
    );
    assert_eq!(
        sweep_errors("id: s\nclients: 1\nsweep: {vary: [clients], values: [1]}\n"),
        ["3:15 `sweep.vary` must be a single value, found a list"]
    );
    assert_eq!(
        placed(&read_schedule("[1, 2]\n").unwrap_err()),
        ["1:1 `schedule` must be a map of keys, found a list"]
    );
}

#[test]
fn site_yaml_refuses_a_key_twice_and_a_key_that_is_a_list() {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(
        site.path().join("site.yaml"),
        "title: A\ntitle: B\n[x]: 1\ntitel: C\n",
    )
    .unwrap();
    let Err(retrylab::diag::Failure::Input(problems)) =
        retrylab::site::config::load(site.path(), None, None)
    else {
        panic!("site.yaml should be refused")
    };
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "error: `title` is given twice\n --> site.yaml:2:1\n  |\n2 | title: B\n  | ^^^^^",
            "error: a key must be a plain name, found a list\n --> site.yaml:3:1\n  |\n3 | [x]: 1\n  | ^",
            "error: unknown key `titel` in site.yaml\n --> site.yaml:4:1\n  |\n4 | titel: C\n  | ^^^^^\n  = help: did you mean `title`?",
        ]
    );
}

#[test]
fn extra_keys_are_free_but_each_given_once() {
    let page = read_page(
        "content/a.md".to_string(),
        "---\ntitle: A\nextra:\n  video: a.mp4\n  video: b.mp4\n  list: [{k: 1, k: 2}]\n---\n"
            .to_string(),
        "/a/".to_string(),
    );
    let problems: Vec<String> = page
        .err()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "error: `extra.video` is given twice\n --> content/a.md:5:3\n  |\n5 |   video: b.mp4\n  |   ^^^^^",
            "error: `extra.list[].k` is given twice\n --> content/a.md:6:17\n  |\n6 |   list: [{k: 1, k: 2}]\n  |                 ^",
        ]
    );
    let page = read_page(
        "content/a.md".to_string(),
        "---\ntitle: A\nextra: {video: a.mp4, any_name: 3}\n---\n".to_string(),
        "/a/".to_string(),
    );
    assert!(page.is_ok());
}

#[test]
fn the_map_seeds_are_refused_with_places_and_nothing_written() {
    use crate::robust::{arg, site_with};
    use crate::util::{root, run};
    for (target, seed) in [
        ("directives", "maps-sweep-points"),
        ("page", "maps-front-matter-twice"),
    ] {
        let path = root().join("fuzz/seeds").join(target).join(seed);
        let text = std::fs::read_to_string(path).unwrap();
        let site = site_with(&[("a.md", &text)]);
        let (code, _, stderr) = run(&["check", "--root", arg(site.path())]);
        assert_eq!(code, 1, "{seed}: {stderr}");
        assert!(stderr.starts_with("error: "), "{seed}: {stderr}");
        assert!(stderr.contains(" --> content/a.md:"), "{seed}: {stderr}");
        assert!(!stderr.contains("panicked"), "{seed}: {stderr}");
        assert!(!site.path().join("public").exists(), "{seed}");
    }
    let text = std::fs::read_to_string(root().join("fuzz/seeds/scenario/maps-keys-twice-and-odd"))
        .unwrap();
    let errors = placed(&retrylab::engine::parse_scenario(&text, None).unwrap_err());
    assert_eq!(
        errors,
        [
            "3:1 `clients` is given twice",
            "4:1 unknown key `7`",
            "5:1 a key must be a plain name, found a list",
            "6:1 a key must be a plain name, found nothing",
            "7:20 `server.tick` is given twice",
            "7:51 `server.outages[].from` is given twice",
            "8:29 `retry.budget.kind` is given twice",
            "8:64 `retry.breaker.window` is given twice",
        ]
    );
}
