//! `retrylab build` and `check` on fixture sites, as a user runs them.

use std::path::Path;

use crate::util::{build, files, fixture, run};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The `<main>` element of a page.
fn main_of(html: &str) -> &str {
    let start = html.find("<main").unwrap();
    let end = html.find("</main>").unwrap() + "</main>".len();
    &html[start..end]
}

#[test]
fn builds_pages_figures_and_references() {
    let site = fixture("good");
    let out = site.path().join("public");
    let (code, stdout, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("built 3 pages with 4 scenarios (42 runs simulated) in "),
        "{stdout}"
    );
    // The search index's files, named by what they hold, are search.rs's to check.
    let names: Vec<String> = files(&out)
        .into_keys()
        .filter(|n| !n.starts_with("pagefind/"))
        .collect();
    assert_eq!(
        names,
        [
            ".nojekyll",
            ".retrylab-output",
            "404.html",
            "atom.xml",
            "chart.css",
            "extra.css",
            "favicon.svg",
            "guide/notes/index.html",
            "highlight.css",
            "index.html",
            "robots.txt",
            "search.js",
            "sitemap.xml",
            "storm/index.html",
            "style.css",
            "ticks.js",
            "ticks/guide/notes/jitter.csv",
            "ticks/storm/storm.csv",
        ]
    );
    let storm = read(&out.join("storm/index.html"));
    insta::assert_snapshot!("storm_main", main_of(&storm));
}

#[test]
fn links_and_assets_respect_the_base_url() {
    let site = fixture("good");
    let out = site.path().join("public");
    assert_eq!(build(site.path(), &out).0, 0);
    let home = read(&out.join("index.html"));
    assert!(home.contains("href=\"/fixture/style.css\""));
    assert!(home.contains("href=\"/fixture/storm/\""));
    assert!(home.contains("href=\"/fixture/guide/notes/#second-part\""));
    let notes = read(&out.join("guide/notes/index.html"));
    assert!(notes.contains("href=\"/fixture/storm/#the-scenario\""));
    assert!(notes.contains("href=\"/fixture/\""));
    // --base-url wins over site.yaml.
    let (code, _, _) = run(&[
        "build",
        "--root",
        site.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--base-url",
        "https://user.github.io/repo/",
    ]);
    assert_eq!(code, 0);
    assert!(read(&out.join("index.html")).contains("href=\"/repo/storm/\""));
}

#[test]
fn two_builds_are_byte_identical_with_and_without_the_cache() {
    let site = fixture("good");
    let (a, b, c) = (
        site.path().join("a"),
        site.path().join("b"),
        site.path().join("c"),
    );
    assert_eq!(build(site.path(), &a).0, 0);
    let (_, stdout, _) = build(site.path(), &b);
    assert!(
        stdout.contains("(0 runs simulated, 4 from the cache)"),
        "{stdout}"
    );
    std::fs::remove_dir_all(site.path().join(".retrylab-cache")).unwrap();
    assert_eq!(build(site.path(), &c).0, 0);
    assert_eq!(files(&a), files(&b));
    assert_eq!(files(&a), files(&c));
}

#[test]
fn a_prose_edit_reruns_no_simulation() {
    let site = fixture("good");
    let out = site.path().join("public");
    assert_eq!(build(site.path(), &out).0, 0);
    let page = site.path().join("content/storm.md");
    let text = read(&page).replace("With a fixed delay", "With a fixed wait");
    std::fs::write(&page, text).unwrap();
    let (code, stdout, _) = build(site.path(), &out);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("(0 runs simulated, 4 from the cache)"),
        "{stdout}"
    );
    assert!(read(&out.join("storm/index.html")).contains("With a fixed wait"));
}

#[test]
fn a_failed_build_leaves_the_last_good_site_untouched() {
    let site = fixture("good");
    let out = site.path().join("public");
    assert_eq!(build(site.path(), &out).0, 0);
    let before = files(&out);
    let page = site.path().join("content/storm.md");
    std::fs::write(&page, read(&page).replace("clients: 20", "clients: twenty")).unwrap();
    let (code, stdout, stderr) = build(site.path(), &out);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("`clients` must be a whole number, found `twenty`"),
        "{stderr}"
    );
    assert_eq!(files(&out), before);
    let leftovers: Vec<_> = std::fs::read_dir(site.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("building"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn drafts_are_left_out_unless_asked_for() {
    let site = fixture("good");
    let out = site.path().join("public");
    let root = site.path().to_str().unwrap();
    let (code, stdout, _) = run(&[
        "build",
        "--root",
        root,
        "-o",
        out.to_str().unwrap(),
        "--drafts",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("built 4 pages"), "{stdout}");
    assert!(out.join("draft/index.html").exists());
}

#[test]
fn check_lists_every_problem_with_its_place() {
    let site = fixture("bad");
    let (code, stdout, stderr) = run(&["check", "--root", site.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert_eq!(stderr, include_str!("../fixtures/bad/expected-check.txt"));
}

#[test]
fn check_knows_a_scenario_figure_by_its_anchor() {
    let site = fixture("good");
    let notes = site.path().join("content/guide/notes.md");
    let text = read(&notes).replace("#the-scenario", "#sim-storm");
    std::fs::write(&notes, &text).unwrap();
    let root = site.path().to_str().unwrap();
    let (code, _, stderr) = run(&["check", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(&notes, text.replace("#sim-storm", "#sim-storms")).unwrap();
    let (code, _, stderr) = run(&["check", "--root", root]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("error: `/storm/` has no heading or figure with the anchor `#sim-storms`"),
        "{stderr}"
    );
}

#[test]
fn check_finds_broken_anchors_and_addresses() {
    let site = fixture("good");
    let notes = site.path().join("content/guide/notes.md");
    let text = read(&notes)
        .replace("#the-scenario", "#the-scenari")
        .replace("[home](/)", "[home](/nowhere/)");
    std::fs::write(&notes, text).unwrap();
    let (code, _, stderr) = run(&["check", "--root", site.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("error: `/storm/` has no heading or figure with the anchor `#the-scenari`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: no page has the address `/nowhere/`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--> content/guide/notes.md:8:9"),
        "{stderr}"
    );
}

#[test]
fn check_passes_a_good_site_and_writes_nothing() {
    let site = fixture("good");
    let (code, stdout, stderr) = run(&["check", "--root", site.path().to_str().unwrap()]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, "checked 3 pages: no problems\n");
    assert!(!site.path().join("public").exists());
}

#[test]
fn a_folder_that_is_not_a_site_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&["build", "--root", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error: cannot read "), "{stderr}");
    assert!(stderr.contains("a retrylab site?)"), "{stderr}");
}

#[test]
fn a_site_without_an_absolute_address_gets_a_note_naming_the_flag() {
    let site = fixture("good");
    let out = site.path().join("public");
    // The fixture's own address is absolute: nothing to say.
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("note:"), "{stderr}");
    let config = site.path().join("site.yaml");
    let yaml = read(&config).replace("base_url: https://example.org/fixture/", "base_url: /");
    std::fs::write(&config, yaml).unwrap();
    let (code, stdout, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("built 3 pages"), "{stdout}");
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    for words in [
        "base_url is `/`, not an absolute address",
        "robots.txt",
        "canonical",
        "`--base-url https://HOST/PATH/`",
    ] {
        assert!(notes[0].contains(words), "{words}: {}", notes[0]);
    }
    // What the note says is so: the sitemap it names is not an address.
    assert!(read(&out.join("robots.txt")).contains("Sitemap: /sitemap.xml"));
    // Given on the command line, the address silences it.
    let (code, _, stderr) = run(&[
        "build",
        "--root",
        site.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--base-url",
        "https://u.github.io/repo/",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("note:"), "{stderr}");
}
