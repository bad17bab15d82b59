//! `extends`: a block or a scenario file built on another scenario, the file in
//! `scenarios/` or a block on any page; the runs are those of the merged scenario,
//! errors stand where their key was written, and `check` says what `build` says.

use std::path::Path;

use serde_json::Value;

use crate::util::run_in;

const BASE: &str = "\
id: base
clients: 100
server:
  capacity: 50
strategies: [fixed, full-jitter]
retry:
  base: 100ms
  max_attempts: 5
runs: 3
";

/// A site with `scenarios/base.yaml` and the given pages (name, body after the front
/// matter).
fn site(pages: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: Extends\n").unwrap();
    std::fs::create_dir_all(root.join("content")).unwrap();
    std::fs::create_dir_all(root.join("scenarios")).unwrap();
    std::fs::write(root.join("scenarios/base.yaml"), BASE).unwrap();
    for (name, body) in pages {
        std::fs::write(
            root.join("content").join(name),
            format!("---\ntitle: {name}\n---\n\n{body}"),
        )
        .unwrap();
    }
    dir
}

fn json(root: &Path, target: &str) -> Value {
    let (code, out, err) = run_in(root, &["sim", target, "--json"]);
    assert_eq!(code, 0, "{target}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The JSON of a scenario written out in full, in a file of its own.
fn json_of_written(root: &Path, yaml: &str) -> Value {
    std::fs::write(root.join("written.yaml"), yaml).unwrap();
    json(root, "written.yaml")
}

const MORE: &str = "```sim\nid: more\nextends: base\nclients: 200\nretry:\n  max_attempts: 8\n```\n\n\
                    {{ more.fixed.calls }} calls.\n";

#[test]
fn a_block_runs_the_file_it_extends_with_its_own_keys_laid_over() {
    let dir = site(&[("a.md", MORE)]);
    let root = dir.path();
    // Maps merged key by key (retry.base stays, retry.max_attempts changes); the
    // base's id is not inherited.
    let written = "id: more\nclients: 200\nserver:\n  capacity: 50\n\
                   strategies: [fixed, full-jitter]\nretry:\n  base: 100ms\n  max_attempts: 8\nruns: 3\n";
    assert_eq!(
        json(root, "content/a.md#more"),
        json_of_written(root, written)
    );
    let (code, _, err) = run_in(root, &["build"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(root.join("public/a/index.html")).unwrap();
    let calls = json(root, "content/a.md#more")["strategies"][0]["calls"]["median"]
        .as_u64()
        .unwrap();
    let shown = grouped(calls);
    assert!(page.contains(&format!("{shown} calls.")), "{shown}");
}

/// A count as the site prints it: 12,345.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_chain_reaches_across_pages_and_lists_are_replaced() {
    let most = "```sim\nid: most\nextends: more\nstrategies: [exponential]\n```\n";
    let dir = site(&[("a.md", MORE), ("b.md", most)]);
    let root = dir.path();
    let written = "id: most\nclients: 200\nserver:\n  capacity: 50\n\
                   strategies: [exponential]\nretry:\n  base: 100ms\n  max_attempts: 8\nruns: 3\n";
    let got = json(root, "content/b.md#most");
    assert_eq!(got["strategies"].as_array().unwrap().len(), 1);
    assert_eq!(got, json_of_written(root, written));
    let (code, _, err) = run_in(root, &["build"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_null_removes_what_the_base_set() {
    let free = "```sim\nid: free\nextends: base\nretry:\n  max_attempts: ~\n```\n";
    let dir = site(&[("a.md", free)]);
    let root = dir.path();
    let written = "id: free\nclients: 100\nserver:\n  capacity: 50\n\
                   strategies: [fixed, full-jitter]\nretry:\n  base: 100ms\nruns: 3\n";
    assert_eq!(
        json(root, "content/a.md#free"),
        json_of_written(root, written)
    );
}

#[test]
fn a_scenario_file_extends_another_and_a_sweep_extends_a_block() {
    let sweep = "```sweep\nid: wide\nextends: more\nsweep:\n  vary: clients\n  values: [100, 200]\n  total: calls\n```\n";
    let dir = site(&[("a.md", MORE), ("c.md", sweep)]);
    let root = dir.path();
    std::fs::write(
        root.join("scenarios/child.yaml"),
        "id: child\nextends: base\nruns: 1\n",
    )
    .unwrap();
    let written = "id: child\nclients: 100\nserver:\n  capacity: 50\n\
                   strategies: [fixed, full-jitter]\nretry:\n  base: 100ms\n  max_attempts: 5\nruns: 1\n";
    assert_eq!(
        json(root, "scenarios/child.yaml"),
        json_of_written(root, written)
    );
    let (code, out, err) = run_in(root, &["sim", "content/c.md#wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("clients"), "{out}");
    let (code, _, err) = run_in(root, &["build"]);
    assert_eq!(code, 0, "{err}");
}

/// `check` and `build` on the site: both refuse, with the same words.
fn refused(root: &Path) -> String {
    let (check, _, check_err) = run_in(root, &["check"]);
    let (build, _, build_err) = run_in(root, &["build"]);
    assert_eq!((check, build), (1, 1), "{check_err}\n{build_err}");
    assert_eq!(check_err, build_err);
    assert!(!root.join("public").exists(), "a refused build wrote");
    check_err
}

#[test]
fn a_misspelt_name_is_one_error_at_the_name_with_a_suggestion() {
    let typo = "```sim\nid: more\nextends: bse\n```\n\n\
                {{ more.fixed.calls }} and {{ more.fixed.served }}\n";
    let dir = site(&[("a.md", typo)]);
    let err = refused(dir.path());
    assert!(
        err.contains("there is no scenario `bse` to extend"),
        "{err}"
    );
    assert!(err.contains("content/a.md:7:10"), "{err}");
    assert!(err.contains("`base`"), "{err}");
    // The references to the block are not reported again.
    assert!(err.contains("1 problem found"), "{err}");
}

#[test]
fn a_circle_is_refused_with_the_chain_shown() {
    let a = "```sim\nid: one\nextends: two\n```\n";
    let b = "```sim\nid: two\nextends: one\n```\n";
    let dir = site(&[("a.md", a), ("b.md", b)]);
    let err = refused(dir.path());
    assert!(err.contains("`extends` goes round in a circle"), "{err}");
    assert!(err.contains("`two`, which extends `one`"), "{err}");
    let selfish = "```sim\nid: me\nextends: me\n```\n";
    let dir = site(&[("a.md", selfish)]);
    let err = refused(dir.path());
    assert!(
        err.contains("this scenario extends `me`, which is this scenario"),
        "{err}"
    );
}

#[test]
fn an_error_in_the_extended_file_stands_in_that_file_once() {
    let twice = "```sim\nid: one\nextends: base\n```\n\n```sim\nid: two\nextends: base\n```\n";
    let dir = site(&[("a.md", twice)]);
    let root = dir.path();
    std::fs::write(
        root.join("scenarios/base.yaml"),
        BASE.replace("clients: 100", "clients: lots"),
    )
    .unwrap();
    let err = refused(root);
    assert!(err.contains("--> scenarios/base.yaml:2:10"), "{err}");
    assert_eq!(err.matches("scenarios/base.yaml:2:10").count(), 1, "{err}");
    assert!(err.contains("1 problem found"), "{err}");
}

#[test]
fn a_page_alone_lists_its_blocks() {
    let dir = site(&[("a.md", MORE)]);
    let (code, out, _) = run_in(dir.path(), &["sim", "content/a.md"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("content/a.md: 1 block\n"), "{out}");
}
