//! Explorable figures: `figure.explore` and its located mistakes, the page's marks for
//! the browser (`data-scenario`, the controls, `data-ref`), sentences marked with a
//! condition and the build's check of each, and `sim --set`.

use retrylab::directive::read_sim;

use crate::util::{run, run_in};

const CROWD: &str = "id: crowd\nclients: 100\nstrategies: [fixed, full-jitter]\nruns: 5\n";

/// The first mistake of a crowd whose figure says `explore` as given, as
/// `message (help) at line:column`.
#[track_caller]
fn mistake(explore: &str) -> String {
    let yaml = format!("{CROWD}figure:\n  explore: {explore}\n");
    let errors = read_sim(&yaml).expect_err("a mistake");
    let e = &errors[0];
    format!(
        "{} ({}) at {}:{}",
        e.message,
        e.help.clone().unwrap_or_default(),
        e.pos.line,
        e.pos.column
    )
}

#[test]
fn ranges_are_read_in_the_parameters_unit_with_the_built_value() {
    let yaml = format!(
        "{CROWD}server: {{outages: [{{from: 1s, to: 4s}}]}}\nfigure:\n  explore: {{clients: [10, 1000], capacity: [2, 50, 0.5], outage: [0s, 30s]}}\n"
    );
    let sim = read_sim(&yaml).unwrap();
    let knobs: Vec<(&str, u64, u64, u64, u64)> = sim
        .explore
        .knobs
        .iter()
        .map(|k| (k.parameter.name(), k.min, k.max, k.step, k.value))
        .collect();
    assert_eq!(
        knobs,
        [
            ("clients", 10, 1_000, 1, 100),
            ("capacity", 2_000, 50_000, 500, 10_000),
            ("outage", 0, 30_000_000, 100_000, 3_000_000),
        ]
    );
    assert!(read_sim(CROWD).unwrap().explore.is_empty());
}

#[test]
fn every_mistake_in_a_range_is_placed_and_explained() {
    assert_eq!(
        mistake("{clinets: [10, 20]}"),
        "unknown key `figure.explore.clinets` (did you mean `clients`?) at 6:13"
    );
    assert_eq!(
        mistake("{clients: 10}"),
        "`figure.explore.clients` must be a range [lowest, highest], found `10` (write the \
         lowest and highest value, and a step if you like: `clients: [10, 1000] or [10, 1000, 10]`) at 6:22"
    );
    assert_eq!(
        mistake("{clients: [10, 20, 1, 2]}"),
        "`figure.explore.clients` must be a list of two or three values, found 4 (write the \
         lowest and highest value, and a step if you like: `clients: [10, 1000] or [10, 1000, 10]`) at 6:22"
    );
    assert_eq!(
        mistake("{base: [10, 2s]}"),
        "`10` is not a value of `base` (write the lowest and highest value, and a step if you \
         like: `base: [0s, 30s] or [0s, 30s, 500ms]`) at 6:20"
    );
    assert_eq!(
        mistake("{clients: [200, 100]}"),
        "the lowest value of `figure.explore.clients`, 200, must be below the highest, 100 \
         (write the lowest and highest value, and a step if you like: `clients: [10, 1000] or \
         [10, 1000, 10]`) at 6:22"
    );
    assert_eq!(
        mistake("{clients: [10, 1000, 7]}"),
        "1000 is not a whole number of steps of 7 above 10 (choose ends that the step joins, \
         or another step) at 6:22"
    );
    assert_eq!(
        mistake("{clients: [200, 1000]}"),
        "the scenario's `clients`, 100, is outside this range, so the control could not start \
         at it (the range runs from 200 to 1000 in steps of 1) at 6:22"
    );
    assert_eq!(
        mistake("{clients: [10, 970, 40]}"),
        "the scenario's `clients`, 100, is between two of its steps, so the control could not \
         start at it (the range runs from 10 to 970 in steps of 40) at 6:22"
    );
    assert_eq!(
        mistake("{clients: [0, 10000000000]}"),
        "`figure.explore.clients` has 10,000,000,000 steps; the limit is 10,000 (use a larger \
         step, as the range's third value) at 6:22"
    );
    assert_eq!(
        mistake("{max_attempts: [1, 10]}"),
        "`max_attempts` cannot be explored: the scenario sets no `retry.max_attempts` (set it \
         in the scenario, so that the control starts at its value) at 6:27"
    );
    // Every combination of the ends is a scenario: here the base passes the cap.
    assert_eq!(
        mistake("{cap: [1s, 20s, 1s], base: [100ms, 5s]}"),
        "with cap 1s, base 5s the scenario is refused: `retry.cap` (1s) is below `retry.base` \
         (5s) (narrow the range, so that every value a reader can choose is a scenario that \
         runs) at 6:18"
    );
}

#[test]
fn strategies_true_lets_the_reader_choose_the_strategies_checked_with_all_six() {
    let yaml = format!("{CROWD}figure:\n  explore: {{clients: [10, 200], strategies: true}}\n");
    let sim = read_sim(&yaml).unwrap();
    assert!(sim.explore.strategies);
    assert_eq!(sim.explore.knobs.len(), 1);
    let alone = format!("{CROWD}figure:\n  explore: {{strategies: true}}\n");
    let sim = read_sim(&alone).unwrap();
    assert!(sim.explore.strategies && sim.explore.knobs.is_empty());
    assert!(!sim.explore.is_empty());
    let off = format!("{CROWD}figure:\n  explore: {{strategies: false}}\n");
    assert!(read_sim(&off).unwrap().explore.is_empty());
    assert_eq!(
        mistake("{strategies: yes}"),
        "`figure.explore.strategies` must be true or false, found `yes` (`strategies: true` \
         lets the reader choose the strategies the figure compares) at 6:25"
    );
    assert_eq!(
        mistake("{stratgies: true}"),
        "unknown key `figure.explore.stratgies` (did you mean `strategies`?) at 6:13"
    );
    // Two strategies fit the simulation's limit; all six, which a reader can choose, do
    // not: the mistake is at the key, with the combination.
    let big =
        "id: crowd\nclients: 100000\nstrategies: [fixed, full-jitter]\nruns: 20\nhorizon: 10s\n";
    assert!(read_sim(big).is_ok());
    let errors = read_sim(&format!("{big}figure:\n  explore: {{strategies: true}}\n")).unwrap_err();
    let e = &errors[0];
    assert!(
        e.message
            .starts_with("with all six strategies the scenario is refused:"),
        "{}",
        e.message
    );
    assert_eq!((e.pos.line, e.pos.column), (7, 13));
    assert!(
        e.help
            .as_deref()
            .unwrap_or_default()
            .starts_with("compare fewer clients or runs")
    );
}

/// A site of one page with `body` after its front matter, built into its `public/`:
/// (exit code, the page's HTML, stderr).
fn site(body: &str) -> (i32, String, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: Explore\n").unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    std::fs::write(
        root.join("content/a.md"),
        format!("---\ntitle: A\n---\n\n{body}"),
    )
    .unwrap();
    let (code, _, err) = run_in(root, &["build"]);
    let html = std::fs::read_to_string(root.join("public/a/index.html")).unwrap_or_default();
    (code, html, err, dir)
}

const FIGURE: &str = "```sim\nid: crowd\nclients: 100\nstrategies: [fixed, full-jitter]\nruns: 5\nfigure:\n  explore: {clients: [10, 200]}\n```\n\n";

#[test]
fn an_explorable_figure_marks_its_references_and_writes_the_engine() {
    let (code, html, err, dir) = site(&format!(
        "{FIGURE}Fixed makes {{{{ crowd.fixed.calls }}}} calls, [{{{{ crowd.clients }}}} clients](#sim-crowd) *{{{{ crowd.fixed.served | percent }}}}*.\n"
    ));
    assert_eq!(code, 0, "{err}");
    assert!(html.contains("<figure class=\"sim\" id=\"sim-crowd\" data-scenario=\"crowd\">"));
    assert!(html.contains("<input type=\"range\" id=\"crowd-explore-clients\" name=\"clients\" min=\"10\" max=\"200\" step=\"1\" value=\"100\""), "{html}");
    assert!(
        html.contains("Fixed makes <span data-ref=\"crowd.fixed.calls\">1,947</span> calls"),
        "{html}"
    );
    assert!(
        html.contains("<em><span data-ref=\"crowd.fixed.served|percent\">100%</span></em>"),
        "{html}"
    );
    // In a link's text a value stays plain.
    assert!(html.contains(">100 clients</a>"), "{html}");
    assert!(html.contains("<script type=\"module\" src=\"/explore.js\"></script>"));
    let public = dir.path().join("public");
    for file in [
        "explore.js",
        "explore-worker.js",
        "playground.js",
        "retrylab.wasm",
    ] {
        assert!(public.join(file).is_file(), "{file}");
    }
    // A page without an explorable figure marks nothing.
    let (code, html, err, dir) =
        site("```sim\nid: plain\nclients: 10\n```\n\n{{ plain.fixed.calls }} calls.\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        !html.contains("data-ref") && !html.contains("data-scenario"),
        "{html}"
    );
    assert!(!dir.path().join("public/explore.js").exists());
}

#[test]
fn a_marked_sentence_becomes_an_element_that_names_its_condition() {
    let (code, html, err, _dir) = site(&format!(
        "{FIGURE}Text. {{{{ if crowd.fixed.calls > crowd.full-jitter.calls and crowd.fixed.still_retrying == 0 }}}}Fixed calls *more*: {{{{ crowd.fixed.calls }}}}.{{{{ end }}}} After.\n"
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        html.contains("<p>Text. <span data-if=\"crowd.fixed.calls &gt; crowd.full-jitter.calls and crowd.fixed.still_retrying == 0\">Fixed calls <em>more</em>: <span data-ref=\"crowd.fixed.calls\">1,947</span>.</span> After.</p>"),
        "{html}"
    );
}

#[test]
fn a_condition_is_checked_against_the_built_numbers_and_placed() {
    let (code, _, err, _dir) = site(&format!(
        "{FIGURE}{{{{ if crowd.fixed.calls < 100 }}}}Few calls.{{{{ end }}}}\n"
    ));
    assert_eq!(code, 1);
    assert!(
        err.contains("error: this condition does not hold for the numbers of `crowd` as built: crowd.fixed.calls < 100\n  --> content/a.md:14:1"),
        "{err}"
    );
    for (text, message) in [
        (
            "{{ if crowd.fixed.calls > 1 }}Open.\n",
            "this condition is never ended",
        ),
        ("Closed.{{ end }}\n", "this `{{ end }}` ends no condition"),
        (
            "{{ if crowd.fixed.calls > 1 }}a {{ if crowd.fixed.calls > 2 }}b{{ end }}\n",
            "this condition is not ended before the next one begins",
        ),
        (
            "{{ if crowd.fixed.calls > 1 }}a\n\nb{{ end }}\n",
            "a condition marks text within one paragraph",
        ),
        (
            "{{ if crowd.fixed.calls > 1 }}*a{{ end }} b*\n",
            "the sentence this condition marks is not one piece of text",
        ),
        (
            "{{ if crowd.fixd.calls > 1 }}a{{ end }}\n",
            "scenario `crowd` has no strategy `fixd`",
        ),
        (
            "{{ if crowd.fixed.calls }}a{{ end }}\n",
            "`crowd.fixed.calls` compares nothing",
        ),
        (
            "{{ if crowd.base > 1 }}a{{ end }}\n",
            "`crowd.base` is no number a condition can compare",
        ),
    ] {
        let (code, _, err, _dir) = site(&format!("{FIGURE}{text}"));
        assert_eq!(code, 1, "{text}");
        assert!(err.contains(&format!("error: {message}")), "{text}: {err}");
        assert!(err.contains("content/a.md:14:"), "{text}: {err}");
    }
}

#[test]
fn sim_sets_a_parameter_as_a_sweep_does() {
    let (code, out, err) = run(&[
        "sim",
        "scenarios/crowd.yaml",
        "--set",
        "clients=50",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["clients"], 50);
    let (code, _, err) = run(&["sim", "scenarios/crowd.yaml", "--set", "clints=5"]);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "--set clints=5: there is no parameter `clints` to set; did you mean `clients`?"
        ),
        "{err}"
    );
    // The strategies compared, as the boxes of an explorable figure choose them.
    let (code, out, err) = run(&[
        "sim",
        "scenarios/crowd.yaml",
        "--set",
        "strategies=full-jitter,fixed",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["full-jitter", "fixed"]);
    for (set, message) in [
        ("strategies=fixed,jitter", "unknown strategy `jitter`"),
        ("strategies=fixed,fixed", "strategy `fixed` is listed twice"),
        ("strategies=", "`strategies` is empty"),
    ] {
        let (code, _, err) = run(&["sim", "scenarios/crowd.yaml", "--set", set]);
        assert_eq!(code, 1, "{set}");
        assert!(
            err.contains(&format!("with --set {set}: {message}")),
            "{err}"
        );
    }
    let (code, _, err) = run(&["sim", "scenarios/crowd.yaml", "--set", "strategis=fixed"]);
    assert_eq!(code, 1);
    assert!(err.contains("did you mean `strategies`?"), "{err}");
    let (code, _, err) = run(&["sim", "scenarios/crowd.yaml", "--set", "base=20s"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("with --set base=20s: `retry.cap` (10s) is below `retry.base` (20s)"),
        "{err}"
    );
}

#[test]
fn hostile_ranges_and_conditions_are_refused_without_a_panic() {
    for explore in [
        "{clients: [0, 99999999999999999999999]}",
        "{clients: [\"\\u0000\", 10]}",
        "{outage: [0s, 99999999h]}",
        "{clients: [10, 20], clients: [1, 2]}",
        "{clients: {from: 1, to: 2}}",
        "[clients]",
        "~",
        "{spread: [0s, 1h]}",
        "{clients: [1, 10000000]}",
        "{strategies: [fixed, exponential]}",
        "{strategies: \"\\u0000\"}",
        "{strategies: true, strategies: false}",
        "{strategies: {true: 1}}",
    ] {
        let yaml = format!("{CROWD}figure:\n  explore: {explore}\n");
        if explore == "~" {
            assert!(read_sim(&yaml).unwrap().explore.is_empty());
            continue;
        }
        assert!(read_sim(&yaml).is_err(), "{explore}");
    }
    for text in [
        "{{ if crowd.fixed.calls > 1e999 }}a{{ end }}\n",
        "{{ if 99999999999999999999999999 > 1 }}a{{ end }}\n",
        "{{ if crowd.fixed.calls > . }}a{{ end }}\n",
        "{{ if crowd.fixed.calls >< 2 }}a{{ end }}\n",
        "{{ if \u{0}\u{feff} }}a{{ end }}\n",
        "{{ if crowd.fixed.calls > 1 and }}a{{ end }}\n",
    ] {
        let (code, _, err, _dir) = site(&format!("{FIGURE}{text}"));
        assert_eq!(code, 1, "{text}");
        assert!(err.contains("content/a.md:14:1"), "{text}: {err}");
        assert!(!err.contains("panicked"), "{text}: {err}");
    }
}
