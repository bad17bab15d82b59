//! Helpers shared by the suite.

use std::path::PathBuf;
use std::process::Command;

use retrylab::diag::Diagnostic;
use retrylab::engine::{Scenario, parse_scenario};
use retrylab::yaml::Pos;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parses a scenario that must be valid.
pub fn scenario(yaml: &str) -> Scenario {
    match parse_scenario(yaml, Some("test")) {
        Ok(s) => s,
        Err(errors) => panic!("invalid scenario: {errors:#?}"),
    }
}

/// The diagnostics of a scenario that must be invalid, rendered as the CLI prints them.
pub fn errors(yaml: &str) -> String {
    let errors = parse_scenario(yaml, None).expect_err("the scenario should be refused");
    errors
        .into_iter()
        .map(|e| Diagnostic::from_scenario("s.yaml", yaml, Pos::START, e).to_string())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The `retrylab` binary, started in the repository root.
pub fn retrylab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_retrylab"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

/// A copy of a fixture site in a fresh temporary folder, so builds never write into
/// the repository (the cache lives beside the site).
pub fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    copy_tree(&root().join("tests/fixtures").join(name), dir.path());
    dir
}

/// Copies a folder's files recursively.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file of a folder, by relative path, with its bytes.
pub fn files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let name = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Runs the binary and returns (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    outcome(retrylab(args))
}

/// `retrylab build` of the site at `root` into `out`: (exit code, stdout, stderr).
pub fn build(root: &std::path::Path, out: &std::path::Path) -> (i32, String, String) {
    run(&[
        "build",
        "--root",
        root.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
}

/// Runs the binary started in `dir`: (exit code, stdout, stderr).
pub fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    outcome(
        std::process::Command::new(env!("CARGO_BIN_EXE_retrylab"))
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the binary runs"),
    )
}

/// A finished run as (exit code, stdout, stderr).
fn outcome(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A block of this site's pages as the build reads it: its YAML with everything it
/// `extends` laid under it.
pub fn resolved(body: &str) -> retrylab::yaml::Node {
    retrylab::site::resolved(&root(), "content", body).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// Every `sim` block of this site's articles, in their files' order of reading, with
/// the file it is in: as the build reads it ([`resolved`]).
pub fn article_sims() -> Vec<(PathBuf, retrylab::yaml::Node)> {
    use retrylab::directive::{Kind, scan};
    let mut all = Vec::new();
    for entry in std::fs::read_dir(root().join("content")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for found in scan(&text).directives {
            if found.kind == Kind::Sim {
                all.push((path.clone(), resolved(&found.body)));
            }
        }
    }
    all
}

/// A page's body rendered as the site publishes it, by itself (no other page, no base
/// path, smart punctuation on as by default): `content_path` is its file below
/// `content/`, `values` the references' texts by their ranges in `body`, and `figures`
/// the figures by the offsets of their directive blocks.
pub fn render_alone(
    body: &str,
    content_path: &str,
    values: &[(std::ops::Range<usize>, String)],
    figures: &std::collections::BTreeMap<usize, std::sync::Arc<str>>,
) -> retrylab::site::render::Rendered {
    retrylab::site::render::render(
        body,
        &retrylab::site::render::Context {
            url: "",
            content_path,
            pages: &std::collections::BTreeMap::new(),
            base_path: "/",
            figures,
            reserved: &[],
            values,
            marks: &std::collections::BTreeMap::new(),
            smart_punctuation: true,
            highlights: &Default::default(),
            sources: None,
            named: &[],
        },
    )
}

/// `check`'s and `build`'s errors on the site at `root`, which must fail alike, with
/// the same messages; the failed build must write no output.
pub fn failed_alike(root: &std::path::Path) -> String {
    let out = root.join("public");
    let (code, _, check) = run(&["check", "--root", root.to_str().unwrap()]);
    assert_eq!(code, 1, "{check}");
    let (code, _, built) = build(root, &out);
    assert_eq!(code, 1, "{built}");
    assert_eq!(check, built);
    assert!(!out.exists(), "a failed build wrote {}", out.display());
    check
}
