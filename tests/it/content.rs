//! This repository's own site: the presets it shows are the preset files, its code
//! examples print what the page says and do what the page says, and it builds and
//! checks clean.

use retrylab::directive::{self, Kind};
use retrylab::engine::parse_scenario;
use retrylab::engine::scenario::{MAX_CLIENTS, MAX_RUNS, MAX_TICKS, MAX_WORK};
use retrylab::format::thousands;

use crate::util::{root, run};

fn page(name: &str) -> String {
    std::fs::read_to_string(root().join("content").join(name)).unwrap()
}

/// The body of the first fenced block of a page whose info string is `info`, and of the
/// block after it.
fn fenced(text: &str, info: &str) -> (String, String) {
    let open = format!("```{info}\n");
    let start = text
        .find(&open)
        .unwrap_or_else(|| panic!("no {info} block"))
        + open.len();
    let end = start + text[start..].find("\n```\n").unwrap() + 1;
    let rest = &text[end + 4..];
    let next = rest.find("```").unwrap();
    let body_start = next + rest[next..].find('\n').unwrap() + 1;
    let body_end = body_start + rest[body_start..].find("```").unwrap();
    (
        text[start..end].to_string(),
        rest[body_start..body_end].to_string(),
    )
}

#[test]
fn every_preset_on_the_site_is_the_preset_file() {
    let mut found = Vec::new();
    for name in [
        "backoff-and-jitter.md",
        "why-waiting-longer.md",
        "beyond-backoff.md",
    ] {
        let text = page(name);
        for d in directive::scan(&text).directives {
            if d.kind != Kind::Sim {
                continue;
            }
            let on_page = directive::read_sim_root(&crate::util::resolved(&d.body))
                .unwrap()
                .scenario;
            let file = root()
                .join("scenarios")
                .join(format!("{}.yaml", on_page.id));
            if let Ok(yaml) = std::fs::read_to_string(&file) {
                assert_eq!(
                    parse_scenario(&yaml, None).unwrap(),
                    on_page,
                    "{}",
                    on_page.id
                );
                found.push(on_page.id);
            }
        }
    }
    found.sort();
    assert_eq!(
        found,
        [
            "beginner",
            "crowd",
            "half-capacity",
            "layers",
            "metastable",
            "metastable-attempts",
            "metastable-aws",
            "metastable-breaker",
            "metastable-breaker-outside",
            "metastable-finagle",
            "metastable-grpc",
            "metastable-retry-after",
            "outage",
        ]
    );
}

#[test]
fn the_python_example_prints_what_the_page_shows() {
    let text = page("why-waiting-longer.md");
    let (code, shown) = fenced(&text, "python");
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(&code)
        .output()
        .expect("python3 runs the example (install Python 3 to run this test)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown);
}

#[test]
fn the_retry_example_does_what_its_article_says() {
    // The harness fakes the clocks, `sleep` and a server, runs the page's code and
    // asserts what each case must do; it prints `ok` only if every case holds.
    let (code, _) = fenced(&page("backoff-and-jitter.md"), "python");
    let harness = include_str!("content/retry_example.py");
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(harness)
        .env("RETRY_EXAMPLE", code)
        .output()
        .expect("python3 runs the example (install Python 3 to run this test)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "ok\n");
}

#[test]
fn the_limits_the_authors_page_states_are_the_engines() {
    let text = page("writing-articles.md");
    for limit in [
        thousands(MAX_CLIENTS),
        thousands(MAX_TICKS),
        thousands(MAX_RUNS),
        thousands(MAX_WORK),
    ] {
        assert!(text.contains(&limit), "{limit}");
    }
}

#[test]
fn the_site_checks_clean() {
    let (code, stdout, stderr) = run(&["check"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(stdout.starts_with("checked "), "{stdout}");
}
