//! Work and output stay proportionate: a long horizon makes a page of bounded size, the
//! work limit counts ticks as well as calls and refuses with its estimate, the estimate
//! bounds what a run really does, ceilings shared by the runs give the same waits, and
//! thousands of problems on one page are all reported.

use retrylab::chart::{FigureOptions, figure, tick_csv};
use retrylab::engine::policy::{Policies, RetryPolicy, least_waits};
use retrylab::engine::run::simulate_with;
use retrylab::engine::scenario::MAX_WORK;
use retrylab::engine::{Strategy, parse_scenario, run_scenario, simulate};

use crate::util::{copy_tree, errors, root, scenario};

/// A copy of a hostile fixture site in a fresh temporary folder.
fn hostile(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    copy_tree(&root().join("tests/hostile").join(name), dir.path());
    dir
}

/// Runs the binary on a site: (exit code, stdout, stderr).
fn run_on(site: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&str> = args.to_vec();
    let root = site.to_str().unwrap();
    all.extend(["--root", root]);
    crate::util::run(&all)
}

#[test]
fn a_million_ticks_make_a_page_of_a_few_hundred_kilobytes_and_say_they_are_binned() {
    let site = hostile("work-long-horizon");
    let out = site.path().join("public");
    let (code, _, stderr) = run_on(site.path(), &["build", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    // Before bins, this page was tens of megabytes: a bar and a table row per tick.
    assert!(page.len() < 1_000_000, "{} bytes", page.len());
    assert!(
        page.contains(
            "The window has more ticks than the chart has columns: each bar is the mean of \
             2,000 ticks (7.2 s).</figcaption>"
        ),
        "the caption says the chart is binned"
    );
    assert!(page.contains(": calls per 7.2 s (2,000 ticks, each a bar of the chart"));
}

#[test]
fn a_long_chart_has_no_more_bars_or_rows_than_columns() {
    let s = scenario(
        "clients: 10\nhorizon: 1h\nserver: {model: all-or-nothing, capacity: 5, tick: 3600us}\n\
         strategies: [fixed]\n",
    );
    let result = run_scenario(&s);
    let html = figure(&s, &result, &FigureOptions::default());
    // A bar is a closed subpath of its lane's path of that kind (or, in the legend and
    // the hatch, a rect); each run's outline and the arrow past a lane close one too.
    let bars = html.matches("<rect").count() + html.matches('Z').count();
    let rows = html.matches("<tr><th scope=\"row\"").count()
        + tick_csv(&s, &result, &FigureOptions::default())
            .lines()
            .skip(1)
            .count();
    // 1,000,000 ticks in bins of 2,000: 500 columns, a served and a turned-away bar each
    // at most, plus the legend, the hatch and the marks of where the lane ends.
    assert!(bars <= 2 * 500 + 10, "{bars} bars");
    // However many bars, a lane draws each kind as one path: a few in all.
    let paths = html.matches("<path").count();
    assert!(paths <= 20, "{paths} paths");
    assert_eq!(rows, 1 + 500, "the results row and a row of data per bin");
    // The author's caption gets the note too.
    let options = FigureOptions {
        window: None,
        caption: Some("A storm.".to_string()),
    };
    let html = figure(&s, &result, &options);
    assert!(html.contains("<figcaption>A storm. The window has more ticks"));
}

#[test]
fn a_window_that_fits_is_drawn_tick_by_tick() {
    let s = scenario("clients: 10\nhorizon: 40s\nstrategies: [fixed]\n");
    let result = run_scenario(&s);
    let options = FigureOptions {
        window: Some(40_000_000),
        caption: None,
    };
    let html = figure(&s, &result, &options);
    assert!(!html.contains("mean of"));
    assert!(html.contains(": calls per tick in the first 40 s"));
}

#[test]
fn ticks_times_runs_count_towards_the_work_limit() {
    // One client and one call, but 10,000 runs of 1,000,000 ticks for each of five
    // strategies: 10,000 × 5 × (1,000,000 + 1) steps at least, refused before it runs.
    assert_eq!(
        errors("id: a\nclients: 1\nhorizon: 1h\nserver: {tick: 3600us}\nruns: 10000\n"),
        "error: this scenario needs at least 50,000,050,000 steps of simulation \
         (each tick, and the first call of each client, in every run of every strategy); the \
         limit is 500,000,000\n --> s.yaml:2:10\n  |\n2 | clients: 1\n  |          ^\n  \
         = help: use fewer clients, runs or strategies, a shorter horizon or a longer tick"
    );
}

#[test]
fn a_sweeps_values_share_the_limit() {
    // Each of two values may do 250,000,000 steps; 2,000,000 clients need 200 runs of
    // 1,200 ticks and 2,000,000 first calls at least: 400,240,000.
    let body = "id: s\nclients: 1000\nruns: 200\nstrategies: [fixed]\n\
                sweep: {vary: clients, values: [1000000, 2000000]}\n";
    let errors = retrylab::directive::sweep::read_sweep(body).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0].message,
        "at this value the scenario needs at least 400,240,000 steps of simulation, more \
         than its share of the limit: 250,000,000 of 500,000,000, shared by 2 values"
    );
    assert_eq!((errors[0].pos.line, errors[0].pos.column), (5, 42));
}

#[test]
fn every_preset_and_page_of_the_site_stays_within_the_limit() {
    for entry in std::fs::read_dir(root().join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let yaml = std::fs::read_to_string(&path).unwrap();
        let s = parse_scenario(&yaml, None).unwrap_or_else(|e| panic!("{path:?}: {e:?}"));
        assert!(s.most_work() <= MAX_WORK, "{path:?}");
    }
    let (code, _, stderr) = crate::util::run(&["check"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn no_run_makes_more_calls_than_the_estimate_allows() {
    let cases = [
        // A storm that never ends: every client is turned away to the horizon.
        "clients: 50\nhorizon: 20s\nserver: {model: all-or-nothing, capacity: 1}\nruns: 3\n",
        "clients: 50\nhorizon: 20s\nserver: {model: all-or-nothing, capacity: 1}\n\
         retry: {cap: 100ms}\nruns: 3\n",
        "clients: 50\nhorizon: 20s\nserver: {model: all-or-nothing, capacity: 1}\n\
         retry: {base: 1ms, cap: 250ms, multiplier: 1.5}\nruns: 3\n",
        "clients: 50\nhorizon: 20s\nserver: {model: all-or-nothing, capacity: 1}\n\
         retry: {base: 50ms, cap: 2s, deadline: 7s}\nruns: 3\n",
        "clients: 30\nhorizon: 20s\nspread: 5s\nserver: {model: all-or-nothing, capacity: 1}\n\
         retry: {base: 10ms, cap: 1s, max_attempts: 40}\nruns: 3\n",
        "clients: 30\nhorizon: 20s\nserver: {model: all-or-nothing, capacity: 1}\n\
         retry: {breaker: {}}\nruns: 3\n",
        "clients: 20\nhorizon: 20s\nserver: {model: all-or-nothing, capacity: 1}\n\
         layers: [{attempts: 3, base: 300ms}, {attempts: 50, strategy: equal-jitter, base: 40ms}]\n\
         runs: 3\n",
        "clients: 0\narrivals: {rate: 20, to: 5s}\nhorizon: 20s\n\
         server: {model: all-or-nothing, capacity: 1}\nretry: {base: 20ms}\nruns: 3\n",
    ];
    for yaml in cases {
        let s = scenario(yaml);
        let requests = s.clients + s.arrivals_total();
        for &strategy in &s.strategies {
            let most = requests * s.calls_per_client(strategy);
            for seed in 1..=3 {
                let t = simulate(&s, strategy, seed, false).totals;
                let made = t.calls + t.failed_fast;
                assert!(
                    made <= most,
                    "{yaml}{strategy:?}: {made} calls, at most {most} estimated"
                );
            }
        }
    }
}

#[test]
fn shared_ceilings_give_the_waits_of_the_runs_own() {
    let yaml = "clients: 40\nhorizon: 30s\nserver: {capacity: 3}\n\
                retry: {base: 1us, cap: 2s, multiplier: 1.000001}\nruns: 4\n";
    let s = scenario(yaml);
    let result = run_scenario(&s);
    for lane in &result.strategies {
        // The typical run, from ceilings shared by every run, is the run built alone.
        let own = simulate(&s, lane.strategy, lane.typical.seed, true);
        assert_eq!(lane.typical, own, "{:?}", lane.strategy);
        let shared = Policies::new(&s, lane.strategy);
        assert_eq!(
            simulate_with(&s, &shared, 9, true),
            simulate(&s, lane.strategy, 9, true)
        );
    }
    // The shortest waits of the estimate are the policy's own ceilings, rounded.
    let policy = RetryPolicy::new(Strategy::Exponential.kind(), &s.retry, 5_000);
    for (a, least) in least_waits(Strategy::Exponential.kind(), &s.retry)
        .take(5_000)
        .enumerate()
    {
        assert_eq!(least, policy.ceiling(a as u32).round() as u64, "{a}");
    }
}

#[test]
fn twenty_thousand_malformed_references_are_all_reported() {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("site.yaml"), "title: Many\n").unwrap();
    std::fs::create_dir(site.path().join("content")).unwrap();
    let mut page = String::from("---\ntitle: Many\n---\n\n");
    for i in 0..20_000 {
        // Code spans between them: references in code are left alone, and finding them
        // must not look through every code span again for every pair of braces.
        page.push_str(&format!(
            "Line {i} has `{{{{ code }}}}` and {{{{ nope }}}} in it.\n\n"
        ));
    }
    std::fs::write(site.path().join("content/index.md"), page).unwrap();
    let (code, _, stderr) = run_on(site.path(), &["check"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr
            .matches("error: `{{ nope }}` is not a reference")
            .count(),
        20_000
    );
    assert!(!stderr.contains("code }}` is not"));
    assert!(
        stderr.contains(" --> content/index.md:5:29\n"),
        "the first one, placed"
    );
    assert!(
        stderr.contains(" --> content/index.md:40003:33\n"),
        "the last one, placed"
    );
    assert!(stderr.ends_with("error: 20000 problems found\n"));
}

#[test]
fn a_cached_result_without_a_quoted_strategy_never_panics() {
    let site = hostile("work-cache-without-strategy");
    let out = site.path().join("public");
    let out = out.to_str().unwrap();
    let (code, _, stderr) = run_on(site.path(), &["build", "-o", out]);
    assert_eq!(code, 0, "{stderr}");
    // Valid JSON that lost a strategy, as a damaged or hand-edited cache entry reads,
    // under the checksum line it had.
    let cache = site.path().join(".retrylab-cache");
    for entry in std::fs::read_dir(&cache).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let (checksum, content) = text.split_once('\n').unwrap();
        let mut json: serde_json::Value = serde_json::from_str(content).unwrap();
        let lanes = json["strategies"].as_array_mut().unwrap();
        lanes.retain(|lane| lane["strategy"] != "fixed");
        std::fs::write(&path, format!("{checksum}\n{json}")).unwrap();
    }
    let (code, _, stderr) = run_on(site.path(), &["build", "-o", out]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Either the entry is found out and simulated again, or the reference says what is
    // wrong, where.
    if code != 0 {
        assert_eq!(code, 1);
        assert!(
            stderr.starts_with(
                "error: the results of scenario `quoted` have no strategy `fixed`\n  \
                 --> content/index.md:11:12\n"
            ),
            "{stderr}"
        );
    }
}

#[test]
fn open_loop_load_past_the_limit_is_refused_at_its_arrivals() {
    // 10 runs of 5 strategies, each of 36,000 ticks that look at a window of arrivals
    // and 7,200,000 first calls, all counted twice: 50 × (4 × 36,000 + 2 × 7,200,000).
    assert_eq!(
        errors("id: a\narrivals: {rate: 2000}\nhorizon: 1h\nruns: 10\n"),
        "error: this scenario needs at least 727,200,000 steps of simulation \
         (each tick, and the first call of each client, in every run of every strategy); the \
         limit is 500,000,000\n --> s.yaml:2:12\n  |\n2 | arrivals: {rate: 2000}\n  | \
         \x20          ^\n  = help: use fewer clients, runs or strategies, a shorter \
         horizon or a longer tick"
    );
    // `clients: 0`, as open-loop scenarios say, is no crowd to blame.
    let with_no_crowd =
        errors("id: a\nclients: 0\narrivals: {rate: 2000}\nhorizon: 1h\nruns: 10\n");
    assert!(
        with_no_crowd.contains(" --> s.yaml:3:12\n  |\n3 | arrivals: {rate: 2000}\n"),
        "{with_no_crowd}"
    );
}
