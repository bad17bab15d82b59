//! `check` is `build` without the writing: for every kind of mistake, the two refuse
//! with the same exit status and the same problems, in the same order, and a refused
//! build writes nothing.

use crate::util::run_in;

const FIGURE: &str =
    "```sim\nid: crowd\nclients: 100\nstrategies: [fixed, full-jitter]\nruns: 5\n```\n\n";

/// A site of one page, `content/a.md` with `body`, and what `check` and `build` say.
fn both(body: &str) -> ((i32, String), (i32, String), bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: Check\n").unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    std::fs::write(
        root.join("content/a.md"),
        format!("---\ntitle: A\n---\n\n{body}"),
    )
    .unwrap();
    let (check, _, check_err) = run_in(root, &["check"]);
    let (build, _, build_err) = run_in(root, &["build"]);
    let written = root.join("public").exists();
    ((check, check_err), (build, build_err), written)
}

#[test]
fn check_refuses_what_build_refuses_with_the_same_problems() {
    for (body, expected) in [
        // A condition is a number of the runs: `check` runs them too.
        (
            format!("{FIGURE}{{{{ if crowd.fixed.calls < 100 }}}}Few calls.{{{{ end }}}}\n"),
            "this condition does not hold for the numbers of `crowd` as built",
        ),
        (
            format!("{FIGURE}{{{{ crowd.fixed.callz }}}}\n"),
            "there is no total `callz`",
        ),
        (
            "```sim\nid: crowd\nclients: ten\n```\n".to_string(),
            "clients",
        ),
        (format!("{FIGURE}[gone](#nowhere)\n"), "#nowhere"),
        // Problems of two steps at once: both are listed, by both commands.
        (
            format!("{FIGURE}{{{{ crowd.fixed.callz }}}} and [gone](missing.md)\n"),
            "missing.md",
        ),
    ] {
        let ((check, check_err), (build, build_err), written) = both(&body);
        assert_eq!(check, 1, "{body}\n{check_err}");
        assert_eq!(build, 1, "{body}\n{build_err}");
        assert!(check_err.contains(expected), "{body}\n{check_err}");
        assert_eq!(check_err, build_err, "{body}");
        assert!(!written, "a refused build wrote its output: {body}");
    }
}

#[test]
fn check_passes_what_build_builds() {
    let body = format!(
        "{FIGURE}{{{{ if crowd.fixed.calls > crowd.full-jitter.calls }}}}Fixed calls more.{{{{ end }}}}\n"
    );
    let ((check, check_err), (build, build_err), written) = both(&body);
    assert_eq!(check, 0, "{check_err}");
    assert_eq!(build, 0, "{build_err}");
    assert!(written);
}

#[test]
fn a_block_that_is_no_yaml_is_one_error_not_one_per_reference() {
    let body = "```sim\nid: crowd\nclients: 100\nretry:\n  base: 1s\n   cap: 2s\n```\n\n\
                {{ crowd.fixed.calls }} and {{ crowd.fixed.served }} and {{ crowd.clients }}.\n";
    let ((check, check_err), (build, build_err), _) = both(body);
    assert_eq!((check, build), (1, 1));
    assert_eq!(check_err, build_err);
    assert!(
        check_err.ends_with("error: 1 problem found\n"),
        "{check_err}"
    );
    assert!(!check_err.contains("no scenario has the id"), "{check_err}");
    assert!(check_err.contains("--> content/a.md:10:"), "{check_err}");
}

#[test]
fn a_reference_table_written_out_in_its_block_is_held_to_the_one_the_build_knows() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylab"))
        .args(["keys", "layer"])
        .output()
        .unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    let table = printed.split_once("\n\n").unwrap().1.trim_end();
    let block = |table: &str| format!("```reference\nlayer\n\n{table}\n```\n");
    // Written as `retrylab keys` prints it: the page builds.
    let ((check, err), (build, _), written) = both(&block(table));
    assert_eq!((check, build), (0, 0), "{err}");
    assert!(written);
    // A key's default changed in the code but not in the page: one error, at the line.
    let stale = table.replace("| required |", "| 1 |");
    let ((check, check_err), (build, build_err), written) = both(&block(&stale));
    assert_eq!((check, build), (1, 1));
    assert_eq!(check_err, build_err);
    assert!(!written);
    assert!(
        check_err.contains("this `layer` table is not the one retrylab checks against: this line should read `| `attempts` | whole number, 1 to 1,000 | required |"),
        "{check_err}"
    );
    // Line 5 of the page is ```reference, 6 the name, 8 the caption, 10 the heads, 11
    // the rule, 12 the first key.
    assert!(check_err.contains("--> content/a.md:12:1"), "{check_err}");
    assert!(check_err.contains("retrylab keys layer"), "{check_err}");
    // A row too many.
    let longer = format!("{table}\n| `extra` | x | y | z |");
    let ((_, err), _, _) = both(&block(&longer));
    assert!(err.contains("the table ends before this line"), "{err}");
    assert!(err.contains("1 problem found"), "{err}");
}

#[test]
fn a_total_the_scenario_cannot_have_is_one_error_at_its_reference() {
    // A closed crowd has no goodput, no recovery and no offered load; a lane without a
    // budget denies no one; without a breaker, a timeout or a throttle nothing fails
    // fast, times out or is throttled. Each once would publish a zero or "never".
    for (reference, message, help) in [
        (
            "crowd.full-jitter.goodput",
            "scenario `crowd` cannot have the total `goodput`: it has no open-loop \
             `arrivals`, and the page would say 0 where no run measured anything",
            "add `arrivals:`",
        ),
        (
            "crowd.full-jitter.recovery",
            "cannot have the total `recovery`: it has no open-loop `arrivals`, and the page \
             would say \"never\"",
            "add `arrivals:`",
        ),
        (
            "crowd.offered",
            "cannot have `offered`: it has no open-loop `arrivals`",
            "add `arrivals:` (requests that come at a rate, whoever is retrying), or quote \
             `clients`",
        ),
        (
            "crowd.fixed.denied",
            "cannot have the total `denied`: it has no retry budget for `fixed`",
            "set `retry.budget`",
        ),
        (
            "crowd.fixed.failed_fast",
            "cannot have the total `failed_fast`: it has no circuit breaker",
            "set `retry.breaker`",
        ),
        (
            "crowd.fixed.wasted",
            "cannot have the total `wasted`: it has no per-attempt timeout",
            "set `retry.timeout`",
        ),
        (
            "crowd.fixed.throttled",
            "cannot have the total `throttled`: it has no adaptive throttling",
            "set `retry.throttle`",
        ),
    ] {
        for body in [
            format!("{FIGURE}Said: {{{{ {reference} }}}}.\n"),
            format!("{FIGURE}{{{{ if {reference} == 0 }}}}Held.{{{{ end }}}}\n"),
        ] {
            let ((check, check_err), (build, build_err), written) = both(&body);
            assert_eq!((check, build), (1, 1), "{body}\n{check_err}");
            assert_eq!(check_err, build_err, "{body}");
            assert!(!written);
            assert_eq!(check_err.matches("error: ").count(), 2, "{check_err}");
            assert!(check_err.contains("error: 1 problem found"), "{check_err}");
            assert!(check_err.contains(message), "{body}\n{check_err}");
            assert!(
                check_err.contains(&format!("= help: {help}")),
                "{check_err}"
            );
            assert!(check_err.contains("--> content/a.md:"), "{check_err}");
        }
    }
    // Where the scenario has what the total needs, it is quoted.
    let open = "```sim\nid: open\nclients: 0\narrivals: {rate: 20, from: 0s, to: 10s}\n\
                horizon: 30s\nserver: {capacity: 40, outages: [{from: 2s, to: 4s}]}\n\
                strategies: [fixed]\nruns: 3\n```\n\n\
                Goodput {{ open.fixed.goodput }}, recovery {{ open.fixed.recovery }}, \
                offered {{ open.offered }}.\n";
    let ((check, check_err), (build, build_err), _) = both(open);
    assert_eq!((check, build), (0, 0), "{check_err}\n{build_err}");
}

#[test]
fn a_link_that_leads_nowhere_gets_the_nearest_page_anchor_or_file() {
    for (body, message, help) in [
        (
            "[sizing](sizing-retrie.md)\n\n[self](a.md)\n".to_string(),
            "the link to `sizing-retrie.md` does not lead to a page",
            // Only one page here: nothing is near enough.
            "a link to a `.md` file must name a file under content/",
        ),
        (
            // The page itself is never the suggestion (bundles.rs has one that is).
            "[me](aa.md)\n".to_string(),
            "the link to `aa.md` does not lead to a page",
            "a link to a `.md` file must name a file under content/",
        ),
        (
            "## Capping the attempts\n\nSee [capping](#capping-attempts).\n".to_string(),
            "`/a/` has no heading or figure with the anchor `#capping-attempts`",
            "did you mean `#capping-the-attempts`?",
        ),
        (
            "![a picture](/pic.png)\n".to_string(),
            "the image `/pic.png` leads to no file of the site",
            "no file of content/ or static/ has that name",
        ),
        (
            "[home](/b/)\n".to_string(),
            "no page has the address `/b/`",
            "did you mean `/a/`?",
        ),
    ] {
        let ((check, check_err), (build, build_err), _) = both(&body);
        assert_eq!((check, build), (1, 1), "{body}\n{check_err}");
        assert_eq!(check_err, build_err, "{body}");
        assert!(check_err.contains("error: 1 problem found"), "{check_err}");
        assert!(check_err.contains(message), "{body}\n{check_err}");
        assert!(
            check_err.contains(&format!("= help: {help}")),
            "{check_err}"
        );
        // The help never repeats the author's own path back as the answer.
        assert!(!check_err.contains("it would be `/pic.png`"), "{check_err}");
    }
}

/// A site of `files` (path, text), and what `check` and `build` say.
fn both_of(files: &[(&str, &str)]) -> ((i32, String), (i32, String)) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: Check\n").unwrap();
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let (check, _, check_err) = run_in(root, &["check"]);
    let (build, _, build_err) = run_in(root, &["build"]);
    ((check, check_err), (build, build_err))
}

#[test]
fn one_mistake_in_a_block_or_its_base_is_one_error_and_nothing_that_quotes_it() {
    let quoting = |id: &str| {
        format!(
            "---\ntitle: A\ncard: {id}\n---\n\nCalls {{{{ {id}.fixed.calls }}}}.\n\n\
             {{{{ if {id}.fixed.calls > 0 }}}}Some.{{{{ end }}}}\n\n"
        )
    };
    // A misspelt key in a shared base: one error, in the base, where it is written.
    let page = format!(
        "{}```sim\nid: blink-main\nextends: blink\n```\n",
        quoting("blink-main")
    );
    let ((check, check_err), (build, build_err)) = both_of(&[
        (
            "scenarios/blink.yaml",
            "clients: 50\nrusn: 5\nstrategies: [fixed]\n",
        ),
        ("content/a.md", &page),
    ]);
    assert_eq!((check, build), (1, 1), "{check_err}");
    assert_eq!(check_err, build_err);
    assert!(
        check_err.starts_with("error: unknown key `rusn`\n --> scenarios/blink.yaml:2:1\n"),
        "{check_err}"
    );
    assert!(
        check_err.ends_with("error: 1 problem found\n"),
        "{check_err}"
    );
    // A fence never closed: one error, at the fence, however much quotes the block.
    let page = format!(
        "{}```sim\nid: fence-main\nclients: 20\nstrategies: [fixed]\n\nProse swallowed.\n",
        quoting("fence-main")
    );
    let ((check, check_err), (build, build_err)) = both_of(&[("content/a.md", &page)]);
    assert_eq!((check, build), (1, 1), "{check_err}");
    assert_eq!(check_err, build_err);
    assert!(
        check_err
            .starts_with("error: this ```sim block is never closed\n  --> content/a.md:10:1\n"),
        "{check_err}"
    );
    assert!(
        check_err.ends_with("error: 1 problem found\n"),
        "{check_err}"
    );
}

#[test]
fn a_scenario_that_passes_its_limit_of_work_as_it_runs_is_one_error_at_its_place() {
    // 40 values share the limit: 12,500,000 steps each. 20,000 clients retrying every
    // 100 ms against a server of ten calls a tick need about 24,000,000 (a call each per
    // tick for 1,200 ticks), though their least work, a first call each, is 21,200: the
    // sweep is read, runs, and stops at its last value, the only one past its share.
    let values: Vec<String> = (1..40).map(|n| n.to_string()).collect();
    let body = format!(
        "```sweep\nid: storm\nclients: 1\nruns: 1\nstrategies: [fixed]\n\
         sweep: {{vary: clients, values: [{}, 20000]}}\n```\n\nCalls per client in the storm.\n",
        values.join(", ")
    );
    let body = body.as_str();
    let column = "sweep: {vary: clients, values: [".len() + values.join(", ").len() + 3;
    let ((check, check_err), (build, build_err), written) = both(body);
    assert_eq!((check, build, written), (1, 1, false), "{check_err}");
    assert_eq!(check_err, build_err);
    assert!(
        check_err.starts_with(&format!(
            "error: the scenario at this value needs more than the limit of 12,500,000 steps \
             of simulation, its share of 500,000,000 (a step is one tick or one call of one \
             run, over every run of every strategy): it was stopped at the limit\n  \
             --> content/a.md:10:{column}\n"
        )),
        "{check_err}"
    );
    assert!(
        check_err.contains(
            "= help: one run takes more than 12,500,000 steps with `fixed`; use fewer clients"
        ),
        "{check_err}"
    );
    assert!(
        check_err.ends_with("error: 1 problem found\n"),
        "{check_err}"
    );
}
