//! `new` and `init` never write through a symbolic link, and refuse a title that the
//! page could not hold.

use super::{arg, site_with};
use crate::util::run;

const INDEX: &str = "---\ntitle: Home\n---\n\nHello.\n";

#[cfg(unix)]
#[test]
fn new_never_writes_through_a_link_that_leads_out_of_the_site() {
    let site = site_with(&[("index.md", INDEX)]);
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.md");
    let link = site.path().join("content/x.md");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (code, stdout, stderr) = run(&["new", "X", "--root", arg(site.path())]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        stderr,
        "error: content/x.md is a symbolic link, and `new` never writes through one; \
         choose another title or remove the link\n"
    );
    assert!(!target.exists(), "nothing was written outside the site");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    // A link to a file that exists is refused the same way, and the file is untouched.
    std::fs::write(&target, "mine").unwrap();
    assert_eq!(run(&["new", "X", "--root", arg(site.path())]).0, 1);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
}

#[test]
fn new_refuses_a_title_with_a_line_break_or_a_control_character() {
    let site = site_with(&[("index.md", INDEX)]);
    for (title, expected) in [
        (
            "Two\nlines",
            "error: the title holds a control character (U+000A, character 4); a title is \
             one line of text without line breaks, tabs or control characters\n",
        ),
        (
            "Ring\u{7}",
            "error: the title holds a control character (U+0007, character 5); a title is \
             one line of text without line breaks, tabs or control characters\n",
        ),
        (
            "Tab\tstop",
            "error: the title holds a control character (U+0009, character 4); a title is \
             one line of text without line breaks, tabs or control characters\n",
        ),
        ("  ", "error: the title is empty\n"),
    ] {
        let (code, _, stderr) = run(&["new", title, "--root", arg(site.path())]);
        assert_eq!(code, 1, "{title:?}");
        assert_eq!(stderr, expected, "{title:?}");
    }
    let names: Vec<_> = std::fs::read_dir(site.path().join("content"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["index.md"], "nothing was written");
}

#[test]
fn a_title_with_quotes_colons_and_unusual_letters_builds_as_written() {
    let site = site_with(&[("index.md", INDEX)]);
    let title = "Say \"hi\": a \\ b # c \u{2028} ☃ 'q' ---";
    let (code, stdout, stderr) = run(&["new", title, "--root", arg(site.path())]);
    assert_eq!(code, 0, "{stderr}");
    let file = stdout
        .strip_prefix("wrote ")
        .and_then(|s| s.split(':').next())
        .unwrap();
    assert_eq!(file, "content/say-hi-a-b-c-q.md");
    let (code, _, stderr) = run(&["build", "--root", arg(site.path())]);
    assert_eq!(code, 0, "{stderr}");
    let page =
        std::fs::read_to_string(site.path().join("public/say-hi-a-b-c-q/index.html")).unwrap();
    assert!(
        page.contains("<h1>Say &quot;hi&quot;: a \\ b # c \u{2028} ☃ &#39;q&#39; ---</h1>"),
        "{page}"
    );
}

#[test]
fn init_refuses_a_title_with_a_line_break() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    let (code, _, stderr) = run(&["init", arg(&root), "--title", "A\nB"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: the title holds a control character (U+000A, character 2); a title is one \
         line of text without line breaks, tabs or control characters; give the site a \
         title with `--title`\n"
    );
    assert!(!root.exists(), "nothing was created");
}
