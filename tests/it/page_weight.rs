//! A page too heavy for a phone: `build` and `check` warn, with the same words, when a
//! page's content will have more than 5,000 elements, naming the figure that holds the
//! most of them at its block; a lighter page gets no warning, and the page is built.

use std::fmt::Write as _;

use crate::util::run;

/// A site whose only page is `body`.
fn site(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("site.yaml"),
        "title: T\nbase_url: https://example.org/\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("content")).unwrap();
    std::fs::write(
        dir.path().join("content/heavy.md"),
        format!("---\ntitle: Heavy\n---\n{body}"),
    )
    .unwrap();
    dir
}

/// The warnings of `build` and of `check` on the site at `root`, which both succeed.
fn warnings(root: &std::path::Path) -> (String, String) {
    let out = root.join("public");
    let root_arg = root.to_str().unwrap();
    let (code, _, built) = run(&["build", "--root", root_arg, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{built}");
    assert!(
        out.join("heavy/index.html").is_file(),
        "a heavy page is built"
    );
    let (code, _, checked) = run(&["check", "--root", root_arg]);
    assert_eq!(code, 0, "{checked}");
    (built, checked)
}

/// A sweep of `points` clients' counts, whose figure draws a marker per point and
/// strategy and tabulates each point.
fn sweep(id: &str, points: usize) -> String {
    let values: Vec<String> = (1..=points).map(|n| n.to_string()).collect();
    format!(
        "```sweep\nid: {id}\nclients: 10\nstrategies: [fixed, exponential, full-jitter, \
         equal-jitter, decorrelated-jitter]\nsweep:\n  vary: clients\n  values: [{}]\n  \
         total: calls\n```\n\n",
        values.join(", ")
    )
}

#[test]
fn a_page_with_more_than_five_thousand_elements_is_named_with_its_heaviest_figure() {
    // A figure of a few hundred elements, a heavier sweep, and prose: a table of
    // 1,500 rows that makes the page heavy.
    let mut body =
        String::from("Intro.\n\n```sim\nid: crowd\nclients: 10\nstrategies: [fixed]\n```\n\n");
    body.push_str(&sweep("many", 40));
    body.push_str("| a | b | c |\n|---|---|---|\n");
    for i in 0..1_500 {
        writeln!(body, "| {i} | x | y |").unwrap();
    }
    let dir = site(&body);
    let (built, checked) = warnings(dir.path());
    let sweep_line = body[..body.find("```sweep").unwrap()].lines().count() + 4;
    let warning = built
        .lines()
        .skip_while(|l| !l.starts_with("warning:"))
        .take(7)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        warning.starts_with("warning: the page will have "),
        "{built}"
    );
    assert!(
        warning.contains("elements, more than the 5,000 that a phone lays out in good time"),
        "{warning}"
    );
    assert!(
        warning.contains("of them, and this block's, `sweep-many`, the most of any: "),
        "{warning}"
    );
    assert!(
        warning.contains(&format!("--> content/heavy.md:{sweep_line}:1")),
        "{warning}"
    );
    assert!(warning.contains("= help: "), "{warning}");
    // `check` says the same.
    assert!(checked.contains(&warning), "{checked}");
}

#[test]
fn a_light_page_gets_no_warning() {
    let dir = site("Intro.\n\n```sim\nid: crowd\nclients: 10\n```\n");
    let (built, checked) = warnings(dir.path());
    assert!(!built.contains("warning:"), "{built}");
    assert!(!checked.contains("warning:"), "{checked}");
}
