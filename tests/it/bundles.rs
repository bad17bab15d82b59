//! Pages as folders: the files beside a page in `content/` are published at their own
//! path, its links and images resolve from its file, every broken link, image and
//! anchor is reported by `check` and `build` alike, and a copied file may take no other
//! file's place.

use std::path::Path;

use crate::addresses::hostile;
use crate::util::run;

/// A site made of `files` (path, bytes) beside a `site.yaml` whose base path is `/test/`.
pub fn site(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let config: &[u8] = b"title: Test\nbase_url: https://example.org/test/\n";
    for (name, bytes) in [("site.yaml", config)].iter().chain(files) {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// Runs `command` on the site at `root`, building into `root/public`.
pub fn on(command: &str, root: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = root.join("public");
    let mut args = vec![command, "--root", root.to_str().unwrap()];
    if command == "build" {
        args.extend(["-o", out.to_str().unwrap()]);
    }
    args.extend_from_slice(extra);
    run(&args)
}

/// `check` passes and `build` writes the site at `root/public`.
#[track_caller]
pub fn built(root: &Path) {
    for command in ["check", "build"] {
        let (code, _, stderr) = on(command, root, &[]);
        assert_eq!(code, 0, "{command}: {stderr}");
    }
}

/// `check` and `build` both refuse the site with exactly `expected`, and nothing is
/// written.
#[track_caller]
pub fn refused(root: &Path, expected: &str) {
    for command in ["check", "build"] {
        let (code, stdout, stderr) = on(command, root, &[]);
        assert_eq!(code, 1, "{command}: {stdout}");
        assert_eq!(
            stderr.trim_end(),
            expected.trim_end(),
            "{command}:\n{stderr}"
        );
    }
    assert!(
        !root.join("public").exists(),
        "the failed build wrote files"
    );
}

/// The text of a built file.
pub fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join("public").join(file)).unwrap()
}

#[test]
fn a_picture_beside_a_page_is_published_and_its_image_leads_to_it() {
    let dir = site(&[
        (
            "content/index.md",
            b"---\ntitle: Home\n---\n[probe](sub/probe.md) [bundle](x/index.md)\n",
        ),
        (
            "content/sub/probe.md",
            b"---\ntitle: Probe\n---\n![pic](pic.png) [data](data/points.csv)\n",
        ),
        ("content/sub/pic.png", b"\x89PNG picture"),
        ("content/sub/data/points.csv", b"x,y\n1,2\n"),
        // The folder form: the page and its files in one folder, as Zola and Hugo have it.
        (
            "content/x/index.md",
            b"---\ntitle: X\n---\n![p](p.png) ![again](./p.png)\n",
        ),
        ("content/x/p.png", b"P"),
    ]);
    built(dir.path());
    let out = dir.path().join("public");
    assert_eq!(
        std::fs::read(out.join("sub/pic.png")).unwrap(),
        b"\x89PNG picture"
    );
    assert_eq!(
        std::fs::read(out.join("sub/data/points.csv")).unwrap(),
        b"x,y\n1,2\n"
    );
    assert_eq!(std::fs::read(out.join("x/p.png")).unwrap(), b"P");
    let probe = read(dir.path(), "sub/probe/index.html");
    assert!(
        probe.contains(
            "<p><img src=\"/test/sub/pic.png\" alt=\"pic\" /> \
             <a href=\"/test/sub/data/points.csv\">data</a></p>"
        ),
        "{probe}"
    );
    let bundle = read(dir.path(), "x/index.html");
    assert!(
        bundle.contains(
            "<p><img src=\"/test/x/p.png\" alt=\"p\" /> <img src=\"/test/x/p.png\" alt=\"again\" /></p>"
        ),
        "{bundle}"
    );
}

#[test]
fn hidden_files_and_the_files_of_a_draft_left_out_are_not_published() {
    let dir = site(&[
        ("content/index.md", b"---\ntitle: Home\n---\nText.\n"),
        ("content/.DS_Store", b"x"),
        ("content/.retrylab-cache", b"x"),
        ("content/sub/.notes.txt", b"x"),
        ("content/.hidden/p.png", b"x"),
        (
            "content/draft/index.md",
            b"---\ntitle: D\ndraft: true\n---\n![p](p.png)\n",
        ),
        ("content/draft/p.png", b"x"),
        ("content/kept.txt", b"kept"),
    ]);
    built(dir.path());
    let out = dir.path().join("public");
    let mut files: Vec<String> = walkdir::WalkDir::new(&out)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(&out)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        // The search index's files, named by what they hold, are search.rs's to check.
        .filter(|f| !f.starts_with("pagefind/"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ".nojekyll",
            ".retrylab-output",
            "404.html",
            "atom.xml",
            "chart.css",
            "favicon.svg",
            "highlight.css",
            "index.html",
            "kept.txt",
            "robots.txt",
            "search.js",
            "sitemap.xml",
            "style.css"
        ]
    );
    // With drafts, the draft's folder comes with its files.
    let (code, _, stderr) = on("build", dir.path(), &["--drafts"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.join("draft/p.png").is_file());
}

#[test]
fn every_broken_link_image_and_anchor_is_reported_by_check_and_build_at_its_place() {
    let dir = site(&[
        (
            "content/index.md",
            b"---\ntitle: Home\n---\n## Top part\n\n[p](sub/probe.md#top-part)\n",
        ),
        (
            "content/sub/probe.md",
            b"---\ntitle: Probe\n---\n## Here\n\n![gone](nope.png) ![lost](/img/lost.png)\n\n\
              [data](data.csv) [up](../../../x.png) [a](#nope) [b](../index.md#nope)\n\
              [c](/other.md) [d](../index.md#top-part) [e](#here) [f](/missing/)\n",
        ),
    ]);
    refused(
        dir.path(),
        r#"error: `/sub/probe/` has no heading or figure with the anchor `#top-part`
 --> content/index.md:6:1
  |
6 | [p](sub/probe.md#top-part)
  | ^^^^^^^^^^^^^^^^^^^^^^^^^^

error: the image `nope.png` leads to no file of the site
 --> content/sub/probe.md:6:1
  |
6 | ![gone](nope.png) ![lost](/img/lost.png)
  | ^^^^^^^^^^^^^^^^^
  = help: it would be `/sub/probe/nope.png`; no file of content/ or static/ has that name: a picture beside the page's file in content/ is written by its name (`pic.png`), one in static/ from the root (`/pic.png`)

error: the image `/img/lost.png` leads to no file of the site
 --> content/sub/probe.md:6:19
  |
6 | ![gone](nope.png) ![lost](/img/lost.png)
  |                   ^^^^^^^^^^^^^^^^^^^^^^
  = help: no file of content/ or static/ has that name: a picture beside the page's file in content/ is written by its name (`pic.png`), one in static/ from the root (`/pic.png`)

error: no file of the site has the address `/sub/probe/data.csv`
 --> content/sub/probe.md:8:1
  |
8 | [data](data.csv) [up](../../../x.png) [a](#nope) [b](../index.md#nope)
  | ^^^^^^^^^^^^^^^^

error: `../../../x.png` climbs above the site's root
 --> content/sub/probe.md:8:18
  |
8 | [data](data.csv) [up](../../../x.png) [a](#nope) [b](../index.md#nope)
  |                  ^^^^^^^^^^^^^^^^^^^^
  = help: a relative address starts from the page's own, `/sub/probe/`

error: `/sub/probe/` has no heading or figure with the anchor `#nope`
 --> content/sub/probe.md:8:39
  |
8 | [data](data.csv) [up](../../../x.png) [a](#nope) [b](../index.md#nope)
  |                                       ^^^^^^^^^^

error: `/` has no heading or figure with the anchor `#nope`
 --> content/sub/probe.md:8:50
  |
8 | [data](data.csv) [up](../../../x.png) [a](#nope) [b](../index.md#nope)
  |                                                  ^^^^^^^^^^^^^^^^^^^^^

error: the link to `/other.md` does not lead to a page
 --> content/sub/probe.md:9:1
  |
9 | [c](/other.md) [d](../index.md#top-part) [e](#here) [f](/missing/)
  | ^^^^^^^^^^^^^^
  = help: a link to a `.md` file must name a file under content/

error: no page has the address `/missing/`
 --> content/sub/probe.md:9:53
  |
9 | [c](/other.md) [d](../index.md#top-part) [e](#here) [f](/missing/)
  |                                                     ^^^^^^^^^^^^^^

error: 9 problems found"#,
    );
}

#[test]
fn a_copied_file_may_take_no_other_files_place() {
    let dir = hostile("bundles-collide");
    refused(
        dir.path(),
        include_str!("../hostile/bundles-collide/expected.txt"),
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed_inside_content_and_refused_outside() {
    use std::os::unix::fs::symlink;
    let dir = site(&[
        (
            "content/index.md",
            b"---\ntitle: Home\n---\n![a](alias.png)\n",
        ),
        ("content/real.png", b"real"),
        ("secret.txt", b"not for the site"),
    ]);
    let content = dir.path().join("content");
    symlink("real.png", content.join("alias.png")).unwrap();
    built(dir.path());
    assert_eq!(
        std::fs::read(dir.path().join("public/alias.png")).unwrap(),
        b"real"
    );
    std::fs::remove_dir_all(dir.path().join("public")).unwrap();
    symlink("../secret.txt", content.join("leak.txt")).unwrap();
    symlink("nowhere.png", content.join("dangling.png")).unwrap();
    refused(
        dir.path(),
        "error: the symbolic link leads to no file inside content/\n \
         --> content/dangling.png\n  \
         = help: a link in content/ must lead to a file in content/; copy the file here, or put it in static/\n\n\
         error: the symbolic link leads to no file inside content/\n \
         --> content/leak.txt\n  \
         = help: a link in content/ must lead to a file in content/; copy the file here, or put it in static/\n\n\
         error: 2 problems found",
    );
}

#[test]
fn links_to_markdown_files_keep_their_query_and_anchor_in_any_case_and_from_the_root() {
    let dir = site(&[
        ("content/index.md", b"---\ntitle: Home\n---\nText.\n"),
        ("content/other.md", b"---\ntitle: Other\n---\n## Sec\n"),
        (
            "content/sub/a.md",
            b"---\ntitle: A\n---\n[a](/other.md) [b](../other.md?q=1) [c](../other.md#sec) \
              [d](../other.MD) [e](/other.Md?q=1&r=2#sec) [f](/index.md)\n",
        ),
    ]);
    built(dir.path());
    let html = read(dir.path(), "sub/a/index.html");
    assert!(
        html.contains(
            "<p><a href=\"/test/other/\">a</a> <a href=\"/test/other/?q=1\">b</a> \
             <a href=\"/test/other/#sec\">c</a> <a href=\"/test/other/\">d</a> \
             <a href=\"/test/other/?q=1&amp;r=2#sec\">e</a> <a href=\"/test/\">f</a></p>"
        ),
        "{html}"
    );
    // Each form is checked as `other.md` is.
    std::fs::write(
        dir.path().join("content/sub/a.md"),
        "---\ntitle: A\n---\n[a](/gone.md) [b](../other.md?q=1#nope) [c](../OTHER.md)\n",
    )
    .unwrap();
    std::fs::remove_dir_all(dir.path().join("public")).unwrap();
    refused(
        dir.path(),
        r#"error: the link to `/gone.md` does not lead to a page
 --> content/sub/a.md:4:1
  |
4 | [a](/gone.md) [b](../other.md?q=1#nope) [c](../OTHER.md)
  | ^^^^^^^^^^^^^
  = help: a link to a `.md` file must name a file under content/

error: `/other/` has no heading or figure with the anchor `#nope`
 --> content/sub/a.md:4:15
  |
4 | [a](/gone.md) [b](../other.md?q=1#nope) [c](../OTHER.md)
  |               ^^^^^^^^^^^^^^^^^^^^^^^^^

error: the link to `../OTHER.md` does not lead to a page
 --> content/sub/a.md:4:41
  |
4 | [a](/gone.md) [b](../other.md?q=1#nope) [c](../OTHER.md)
  |                                         ^^^^^^^^^^^^^^^^
  = help: did you mean `../other.md`?

error: 3 problems found"#,
    );
}

#[cfg(unix)]
#[test]
fn a_file_whose_name_is_not_utf8_is_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let dir = site(&[("content/index.md", b"---\ntitle: Home\n---\nText.\n")]);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.png");
    std::fs::write(dir.path().join("content").join(name), b"x").unwrap();
    refused(
        dir.path(),
        "error: the file's path is not UTF-8 text, so it cannot be an address\n \
         --> content/caf\u{fffd}.png\n  \
         = help: rename the file or its folder\n\n\
         error: 1 problem found",
    );
}
