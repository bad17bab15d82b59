//! Mistakes a person can only fix if told where they are: a fence left open, bytes that
//! are not UTF-8, a line of megabytes, a byte-order mark, keys a directive would drop.
//! Each with the exact text printed.

use crate::util::run_in;
use std::path::Path;

use retrylab::diag::Diagnostic;
use retrylab::yaml::Pos;

/// A site in a fresh folder: `site.yaml` and the given files, each a path and its bytes.
fn site(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "site.yaml", b"title: T\n");
    for (path, bytes) in files {
        write(dir.path(), path, bytes);
    }
    dir
}

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Asserts that `retrylab ARGS` fails in `dir` and prints exactly `expected`.
#[track_caller]
fn fails_with(dir: &Path, args: &[&str], expected: &str) {
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(stderr, expected.trim_start_matches('\n'), "\n{stderr}\n");
}

const FRONT: &str = "---\ntitle: A\n---\n\n";

#[test]
fn an_unclosed_fence_is_reported_where_it_opens() {
    let page = format!(
        "{FRONT}Some prose.\n\n```sim\nid: crowd\nclients: 10\n\nThe crowd made {{{{crowd.full-jitter.calls}}}} calls.\n"
    );
    let dir = site(&[("content/a.md", page.as_bytes())]);
    fails_with(
        dir.path(),
        &["check"],
        r"
error: this ```sim block is never closed
 --> content/a.md:7:1
  |
7 | ```sim
  | ^^^^^^
  = help: end it with a line of ``` after its YAML; without one, what follows is read as YAML

error: 1 problem found
",
    );
}

#[test]
fn a_fence_left_open_before_the_next_block_is_named() {
    let page = format!(
        "{FRONT}- A list:\n\n  ~~~~sweep\n  id: s\n\nProse.\n\n```schedule\nid: w\n```\n\n\
         ```sim\nid: a\nclients: 1\n\nProse.\n\n```yaml\nk: v\n```\n"
    );
    let dir = site(&[("content/a.md", page.as_bytes())]);
    fails_with(
        dir.path(),
        &["check"],
        r"
error: this ~~~~sweep block is never closed
 --> content/a.md:7:3
  |
7 |   ~~~~sweep
  |   ^^^^^^^^^
  = help: end it with a line of ~~~~ after its YAML; without one, what follows is read as YAML

error: this ```sim block is never closed, so the ```yaml block after it is read as part of it
  --> content/a.md:16:1
   |
16 | ```sim
   | ^^^^^^
   = help: end it with a line of ``` after its YAML; without one, what follows is read as YAML

error: 2 problems found
",
    );
}

#[test]
fn a_page_that_is_not_utf8_names_the_first_bad_byte() {
    let mut page = format!("{FRONT}Un caf").into_bytes();
    page.extend_from_slice(b"\xe9 cr\xe8me, d\xe9j\xe0.\n");
    let good = format!("{FRONT}```sim\nid: a\nclients: x\n```\n");
    let dir = site(&[("content/a.md", &page), ("content/b.md", good.as_bytes())]);
    fails_with(
        dir.path(),
        &["check"],
        r"
error: this file is not valid UTF-8: byte 0xE9 is not part of a UTF-8 character
 --> content/a.md:5:7
  |
5 | Un caf� cr�me, d�j�.
  |       ^
  = help: retrylab reads text as UTF-8; save the file in that encoding

error: `clients` must be a whole number, found `x`
 --> content/b.md:7:10
  |
7 | clients: x
  |          ^

error: 2 problems found
",
    );
}

#[test]
fn site_yaml_and_templates_that_are_not_utf8_are_located() {
    let dir = site(&[("content/index.md", FRONT.as_bytes())]);
    write(dir.path(), "site.yaml", b"title: \xe9t\xe9\n");
    fails_with(
        dir.path(),
        &["check"],
        r"
error: this file is not valid UTF-8: byte 0xE9 is not part of a UTF-8 character
 --> site.yaml:1:8
  |
1 | title: �t�
  |        ^
  = help: retrylab reads text as UTF-8; save the file in that encoding

error: 1 problem found
",
    );
    write(dir.path(), "site.yaml", b"title: T\n");
    write(dir.path(), "templates/page.html", b"<p>\n  \xc3\n");
    fails_with(
        dir.path(),
        &["build", "-o", "out"],
        r"
error: this file is not valid UTF-8: byte 0xC3 is not part of a UTF-8 character
 --> templates/page.html:2:3
  |
2 |   �
  |   ^
  = help: retrylab reads text as UTF-8; save the file in that encoding

error: 1 problem found
",
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_scenario_file_that_is_not_utf8_counts_its_column_in_characters() {
    let dir = site(&[(
        "s.yaml",
        b"id: a\nclients: 1 # \xc3\xa9t\xc3\xa9 \xff\xfe\n",
    )]);
    fails_with(
        dir.path(),
        &["sim", "s.yaml"],
        r"
error: this file is not valid UTF-8: byte 0xFF is not part of a UTF-8 character
 --> s.yaml:2:18
  |
2 | clients: 1 # été ��
  |                  ^
  = help: retrylab reads text as UTF-8; save the file in that encoding

error: 1 problem found
",
    );
    write(dir.path(), "s.yaml", b"id: a\nclients: 1 # \xe2\x82");
    fails_with(
        dir.path(),
        &["sim", "s.yaml"],
        r"
error: this file is not valid UTF-8: it ends in the middle of a character
 --> s.yaml:2:14
  |
2 | clients: 1 # �
  |              ^
  = help: retrylab reads text as UTF-8; save the file in that encoding

error: 1 problem found
",
    );
}

#[test]
fn a_long_line_shows_a_window_around_the_fault() {
    let value = format!("{}ZZ{}", "y".repeat(1_000_000), "y".repeat(1_000_000));
    let file = format!("id: a\nclients: 1\nstrategies: [fixed, {value}]\n");
    let dir = site(&[("s.yaml", file.as_bytes())]);
    let x = "y".repeat(80);
    let shown = "y".repeat(80);
    fails_with(
        dir.path(),
        &["sim", "s.yaml"],
        &format!(
            r"
error: unknown strategy `{x}…`
 --> s.yaml:3:21
  |
3 | strategies: [fixed, {shown}…
  |                     {caret}
  = help: the strategies are: fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter, proportional-jitter, aws-standard, aws-legacy, google-cloud, python-backoff, urllib3, tenacity, polly, resilience4j, spring-retry, spring-retryable, go-backoff

error: 1 problem found
",
            caret = "^".repeat(80)
        ),
    );
}

/// A 50 MB line, with the fault in its middle: a hundred characters around it, the caret
/// under the fault, `…` where the line is cut.
#[test]
fn a_fifty_megabyte_line_prints_a_hundred_characters() {
    let half = "a".repeat(25_000_000);
    let source = format!("id: a\nmodel: {half}é{half}\nnext: 1\n");
    let column = "model: ".len() + half.len() + 1;
    let d = Diagnostic::new(
        "s.yaml",
        &source,
        Pos { line: 2, column },
        50_000_000,
        format!("unknown model `{half}é{half}`"),
    );
    let expected = [
        format!("error: unknown model `{}…`", "a".repeat(80)),
        " --> s.yaml:2:25000008".to_string(),
        "  |".to_string(),
        format!("2 | …{}é{}…", "a".repeat(40), "a".repeat(59)),
        format!("  | {}{}", " ".repeat(41), "^".repeat(60)),
    ];
    assert_eq!(d.to_string(), expected.join("\n"));
}

/// A line long in bytes but not in characters is shown whole; one long in characters of
/// several bytes is cut by characters, and the caret stays under its fault.
#[test]
fn lines_are_cut_by_characters_not_bytes() {
    let crabs = "🦀".repeat(90);
    let source = format!("id: {crabs}x\n");
    let d = Diagnostic::new(
        "s.yaml",
        &source,
        Pos {
            line: 1,
            column: 95,
        },
        1,
        "x".into(),
    );
    assert_eq!(
        d.to_string(),
        format!(
            "error: x\n --> s.yaml:1:95\n  |\n1 | id: {crabs}x\n  | {}^",
            " ".repeat(94)
        )
    );
    let accents = "é".repeat(300);
    let source = format!("id: {accents}x{accents}\n");
    let d = Diagnostic::new(
        "s.yaml",
        &source,
        Pos {
            line: 1,
            column: 305,
        },
        1,
        "x".into(),
    );
    assert_eq!(
        d.to_string(),
        format!(
            "error: x\n --> s.yaml:1:305\n  |\n1 | …{}x{}…\n  | {}^",
            "é".repeat(40),
            "é".repeat(59),
            " ".repeat(41)
        )
    );
}

#[test]
fn a_byte_order_mark_before_a_scenario_is_skipped() {
    let dir = site(&[("crowd.yaml", "\u{feff}clients: 3\nruns: 1\n".as_bytes())]);
    let (code, stdout, stderr) = run_in(dir.path(), &["sim", "crowd.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("full-jitter"), "{stdout}");
    write(dir.path(), "crowd.yaml", "\u{feff}clients: x\n".as_bytes());
    fails_with(
        dir.path(),
        &["sim", "crowd.yaml"],
        r"
error: `clients` must be a whole number, found `x`
 --> crowd.yaml:1:10
  |
1 | clients: x
  |          ^

error: 1 problem found
",
    );
    // Inside a page, the mark is a character of its line: the caret stays in place.
    let page = format!("{FRONT}```sim\n\u{feff}id: a b\nclients: 1\n```\n");
    let dir = site(&[("content/a.md", page.as_bytes())]);
    fails_with(
        dir.path(),
        &["check"],
        r"
error: `id` may hold only letters, digits, `-` and `_`, found `a b`
 --> content/a.md:6:6
  |
6 | �id: a b
  |      ^^^

error: 1 problem found
",
    );
}

#[test]
fn a_sweep_shows_its_figure_caption() {
    let page = format!(
        "{FRONT}```sweep\nid: s\nclients: 10\nstrategies: [fixed]\n\
         sweep: {{vary: clients, values: [5, 10]}}\nfigure: {{caption: Calls & the crowd}}\n```\n"
    );
    let dir = site(&[("content/index.md", page.as_bytes())]);
    let (code, _, stderr) = run_in(dir.path(), &["build", "-o", "out"]);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(dir.path().join("out/index.html")).unwrap();
    assert!(
        html.contains(
            "<figcaption><span class=\"caption-number\">Figure 1:</span> Calls &amp; the crowd</figcaption>"
        ),
        "{html}"
    );
}

#[test]
fn keys_a_directive_would_ignore_are_refused() {
    let page = format!(
        "{FRONT}```sweep\nid: s\nclients: 10\nsweep: {{vary: clients, values: [5, 10]}}\n\
         figure: {{window: 5s}}\n```\n\n```sim\nid: a\nclients: 1\nsweep: {{vary: clients}}\n```\n"
    );
    let dir = site(&[("content/index.md", page.as_bytes())]);
    fails_with(
        dir.path(),
        &["check"],
        r"
error: a sweep's chart has no time axis, so `figure.window` does not apply
 --> content/index.md:9:10
  |
9 | figure: {window: 5s}
  |          ^^^^^^
  = help: remove `figure.window`; the chart spans the values swept

error: a ```sim block has no `sweep`
  --> content/index.md:15:1
   |
15 | sweep: {vary: clients}
   | ^^^^^
   = help: to chart a total against a varied parameter, open the block with ```sweep

error: 2 problems found
",
    );
}
