//! `retrylab new` and `retrylab init`: what they write builds at once.

use std::path::Path;

use crate::util::{fixture, run};

fn build(root: &Path) -> (i32, String, String) {
    run(&["build", "--root", root.to_str().unwrap()])
}

#[test]
fn init_makes_a_site_that_builds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my-site");
    let (code, stdout, stderr) = run(&["init", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("created a site in "), "{stdout}");
    let gitignore = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    assert_eq!(gitignore, "public/\n.retrylab-cache/\n");
    assert!(root.join("content/index.md").is_file());
    let (code, stdout, stderr) = build(&root);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("built 2 pages with 1 scenario (100 runs simulated)"),
        "{stdout}"
    );
    let article = std::fs::read_to_string(root.join("public/a-first-scenario/index.html")).unwrap();
    assert!(article.contains("<figure"));
    assert!(!article.contains("{{"), "every reference was replaced");
    let home = std::fs::read_to_string(root.join("public/index.html")).unwrap();
    assert!(home.contains("<title>my-site</title>"));
    assert_eq!(run(&["check", "--root", root.to_str().unwrap()]).0, 0);
}

#[test]
fn init_refuses_a_folder_that_is_not_empty() {
    let site = fixture("good");
    let (code, _, stderr) = run(&["init", site.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("is not empty"), "{stderr}");
}

#[test]
fn new_writes_an_article_that_builds_and_never_overwrites() {
    let site = fixture("good");
    let root = site.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["new", "Why jitter?", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("wrote content/why-jitter.md"),
        "{stdout}"
    );
    // The scenario's id is the title's first significant words; one that is already a
    // scenario id (guide/notes.md has `jitter`) gets a number.
    let why = std::fs::read_to_string(site.path().join("content/why-jitter.md")).unwrap();
    assert!(why.contains("\nid: jitter-2\n"), "{why}");
    assert_eq!(run(&["new", "Jitter", "--root", root]).0, 0);
    let jitter = std::fs::read_to_string(site.path().join("content/jitter.md")).unwrap();
    assert!(jitter.contains("\nid: jitter-3\n"), "{jitter}");
    assert!(jitter.contains("{{ jitter-3.exponential.calls }}"));
    let (code, _, stderr) = run(&["new", "Why  jitter", "--root", root]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("content/why-jitter.md already exists"),
        "{stderr}"
    );
    let (code, stdout, stderr) = build(site.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("built 5 pages with 6 scenarios"),
        "{stdout}"
    );
    let article =
        std::fs::read_to_string(site.path().join("public/why-jitter/index.html")).unwrap();
    assert!(article.contains("<h1>Why jitter?</h1>"));
    assert!(!article.contains("{{"));
}
