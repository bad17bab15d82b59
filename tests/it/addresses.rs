//! Pages map to addresses, one to one: a page whose address would leave its folder, or
//! that another page, a `static/` file or a built-in file takes too, stops the build
//! with a diagnostic naming both; odd file names get escaped addresses that lead to the
//! real files. Also the front matter's first line and its dates.

use std::path::Path;

use retrylab::site::address::{BUILT_IN, HOME};

use crate::util::{copy_tree, files, root, run};

/// A copy of a hostile fixture site (`tests/hostile/NAME`) in a fresh temporary folder.
pub fn hostile(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    copy_tree(&root().join("tests/hostile").join(name), dir.path());
    dir
}

/// A site made of `files` (path, text) beside a `site.yaml`.
fn site(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut all = vec![(
        "site.yaml",
        "title: Test\nbase_url: https://example.org/test/\n",
    )];
    all.extend_from_slice(files);
    for (name, text) in all {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A page with front matter and a body.
fn page(title: &str, body: &str) -> String {
    format!("---\ntitle: {title}\n---\n{body}\n")
}

/// Runs `command` (`check` or `build`) on the site at `root`, building into `out`.
fn on(command: &str, root: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![command, "--root", root.to_str().unwrap()];
    if command == "build" {
        args.extend(["-o", out.to_str().unwrap()]);
    }
    args.extend_from_slice(extra);
    run(&args)
}

/// `check` and `build` both refuse the site at `root` with exactly `expected`, and the
/// build writes nothing, in the output folder or beside it.
#[track_caller]
fn refused(root: &Path, expected: &str) {
    let out = root.join("out").join("public");
    for command in ["check", "build"] {
        let (code, stdout, stderr) = on(command, root, &out, &[]);
        assert_eq!(code, 1, "{command}: {stdout}");
        assert_eq!(
            stderr.trim_end(),
            expected.trim_end(),
            "{command}:\n{stderr}"
        );
    }
    assert!(!root.join("out").exists(), "the failed build wrote files");
    assert!(
        !root.join("index.html").exists(),
        "a page was written outside"
    );
}

#[test]
fn a_page_whose_address_leaves_its_folder_is_refused() {
    let dir = hostile("pages-dots");
    refused(
        dir.path(),
        include_str!("../hostile/pages-dots/expected.txt"),
    );
}

#[test]
fn two_pages_with_one_address_are_refused_naming_both() {
    let dir = hostile("pages-twice");
    refused(
        dir.path(),
        include_str!("../hostile/pages-twice/expected.txt"),
    );
    // Leaving one out as a draft leaves one page at the address.
    let a = dir.path().join("content/a.md");
    std::fs::write(&a, "---\ntitle: A as a file\ndraft: true\n---\nText.\n").unwrap();
    let home = dir.path().join("content/index.md");
    std::fs::write(&home, page("Home", "See [a](a/index.md).")).unwrap();
    let out = dir.path().join("public");
    let (code, _, stderr) = on("build", dir.path(), &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("a/index.html")).unwrap();
    assert!(html.contains("<title>A as a folder"), "{html}");
    let (code, _, stderr) = on("build", dir.path(), &out, &["--drafts"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with(
            "error: two pages have the address `/a/`: content/a/index.md and content/a.md\n"
        ),
        "{stderr}"
    );
}

#[test]
fn a_page_may_not_take_the_place_of_a_built_in_file() {
    let dir = hostile("pages-built-in");
    refused(
        dir.path(),
        include_str!("../hostile/pages-built-in/expected.txt"),
    );
}

#[test]
fn a_page_may_not_take_the_place_of_a_static_file() {
    let dir = hostile("pages-static");
    refused(
        dir.path(),
        include_str!("../hostile/pages-static/expected.txt"),
    );
}

#[test]
fn addresses_that_differ_only_in_case_or_unicode_form_are_refused() {
    let dir = site(&[
        ("content/About.md", &page("About", "Text.")),
        ("content/about.md", &page("about", "Text.")),
        ("content/caf\u{e9}.md", &page("Composed", "Text.")),
        ("content/cafe\u{301}.md", &page("Decomposed", "Text.")),
        ("content/Style.CSS.md", &page("Style", "Text.")),
    ]);
    refused(
        dir.path(),
        "error: the page's address `/Style.CSS/` is taken by the stylesheet, `style.css`
 --> content/Style.CSS.md
  = help: rename or move the page: its folder would have the name of a file the build writes; the names differ only in letter case, which macOS and Windows ignore

error: two pages have one address but for the form of their names: `/About/` \
         (content/About.md) and `/about/` (content/about.md)
 --> content/about.md
  = help: rename one of them; the names differ only in letter case, which macOS and Windows ignore

error: two pages have one address but for the form of their names: `/cafe\u{301}/` \
         (content/cafe\u{301}.md) and `/caf\u{e9}/` (content/caf\u{e9}.md)
 --> content/caf\u{e9}.md
  = help: rename one of them; the names are the same text in two Unicode forms (NFC and NFD), which macOS takes for one

error: 3 problems found",
    );
}

/// Every `<loc>` of the sitemap and every HTML `href` of the feed (the site's, then its
/// entries'), below `base_url`.
fn published(out: &Path, base_url: &str) -> Vec<String> {
    let mut addresses = Vec::new();
    for (file, open, close) in [
        ("sitemap.xml", "<loc>", "</loc>"),
        (
            "atom.xml",
            "<link rel=\"alternate\" type=\"text/html\" href=\"",
            "\"",
        ),
    ] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        for part in text.split(open).skip(1) {
            let address = &part[..part.find(close).unwrap()];
            addresses.push(address.strip_prefix(base_url).unwrap().to_string());
        }
    }
    addresses
}

/// `%XX` escapes decoded, as a server does.
fn decode(address: &str) -> String {
    let bytes = address.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match address.get(i + 1..i + 3).map(|h| u8::from_str_radix(h, 16)) {
            Some(Ok(byte)) if bytes[i] == b'%' => {
                out.push(byte);
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn odd_file_names_get_escaped_addresses_that_lead_to_their_files() {
    let dir = hostile("pages-names");
    // Not in the fixture: Windows cannot check out a name with `?`.
    std::fs::write(
        dir.path().join("content/what?.md"),
        page(
            "What?",
            "Linked [from a question](what%3F.md), and [home](index.md).",
        ),
    )
    .unwrap();
    let out = dir.path().join("public");
    let (code, stdout, stderr) = on("check", dir.path(), &out, &[]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "checked 7 pages: no problems\n"),
        "{stderr}"
    );
    let (code, _, stderr) = on("build", dir.path(), &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let names: Vec<String> = files(&out)
        .into_keys()
        .filter(|n| n.ends_with("/index.html"))
        .collect();
    assert_eq!(
        names,
        [
            "100%/index.html",
            "c#/index.html",
            "café/index.html",
            "my page/index.html",
            "naïve/über/index.html",
            "what?/index.html"
        ]
    );
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    for href in [
        "href=\"/odd/my%20page/\"",
        "href=\"/odd/c%23/#the-section\"",
        "href=\"/odd/100%25/\"",
        "href=\"/odd/caf%C3%A9/\"",
        "href=\"/odd/na%C3%AFve/%C3%BCber/\"",
        "href=\"/odd/what%3F/\"",
    ] {
        assert!(home.contains(href), "{href}");
    }
    let addresses = published(&out, "https://example.org/odd/");
    assert_eq!(
        addresses,
        [
            "",
            "100%25/",
            "c%23/",
            "caf%C3%A9/",
            "my%20page/",
            "na%C3%AFve/%C3%BCber/",
            "what%3F/",
            "",
            "caf%C3%A9/",
            "c%23/",
            "my%20page/"
        ]
    );
    for address in addresses {
        let file = out.join(decode(&address)).join("index.html");
        assert!(file.is_file(), "{address} leads to no file");
    }
}

#[test]
fn the_built_in_files_are_all_that_a_build_writes_beside_pages_and_static() {
    // A playground and no home page: the build writes every file it can.
    let dir = site(&[
        (
            "content/play.md",
            "---\ntitle: Playground\ntemplate: playground.html\n---\nPlay.\n",
        ),
        (
            "content/a.md",
            &page("A", "Text.\n\n```sim\nid: x\nclients: 5\n```"),
        ),
        ("static/extra.txt", "extra"),
    ]);
    let out = dir.path().join("public");
    let (code, _, stderr) = on("build", dir.path(), &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let listed: Vec<&str> = BUILT_IN.iter().chain([&HOME]).map(|(n, _)| *n).collect();
    // The figures' data is in a folder of the build's own.
    let mut written: Vec<String> = files(&out)
        .into_keys()
        .filter(|n| !matches!(n.as_str(), "a/index.html" | "play/index.html" | "extra.txt"))
        .map(|n| match n.split_once('/') {
            Some(("ticks", _)) => "ticks".to_string(),
            Some(("pagefind", _)) => "pagefind".to_string(),
            _ => n,
        })
        .collect();
    written.dedup();
    for name in &written {
        assert!(
            listed.contains(&name.as_str()),
            "`{name}` is not in BUILT_IN"
        );
    }
    // A playground brings every built-in file, its engine module too.
    assert_eq!(written.len(), listed.len(), "{written:?}");
}

#[test]
fn a_byte_order_mark_before_the_front_matter_is_skipped() {
    let good = format!("\u{feff}{}", page("Marked", "Text."));
    let bad = "\u{feff}---\ntitle: Marked\nwieght: 2\n---\n\n```sim\nid: x\nclients: lots\n```\n";
    let dir = site(&[("content/good.md", &good), ("content/bad.md", bad)]);
    refused(
        dir.path(),
        "error: unknown key `wieght` in front matter
 --> content/bad.md:3:1
  |
3 | wieght: 2
  | ^^^^^^
  = help: did you mean `weight`?

error: 1 problem found",
    );
    let fixed = "\u{feff}---\ntitle: Marked\n---\n\n```sim\nid: x\nclients: lots\n```\n";
    std::fs::write(dir.path().join("content/bad.md"), fixed).unwrap();
    let (code, _, stderr) = on("check", dir.path(), Path::new(""), &[]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with(
            "error: `clients` must be a whole number, found `lots`\n --> content/bad.md:7:10\n"
        ),
        "{stderr}"
    );
    std::fs::remove_file(dir.path().join("content/bad.md")).unwrap();
    let out = dir.path().join("public");
    let (code, _, stderr) = on("build", dir.path(), &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("good/index.html")).unwrap();
    assert!(html.contains("<title>Marked"), "{html}");
    assert!(!html.contains('\u{feff}'));
}

#[test]
fn an_impossible_date_is_refused_at_its_value() {
    let dir = site(&[
        (
            "content/a.md",
            "---\ntitle: A\ndate: 2026-02-30\n---\nText.\n",
        ),
        (
            "content/b.md",
            "---\ntitle: B\ndate: '2025-13-01'\n---\nText.\n",
        ),
        (
            "content/c.md",
            "---\ntitle: C\ndate: 2100-02-29\n---\nText.\n",
        ),
        (
            "content/leap.md",
            "---\ntitle: Leap\ndate: 2028-02-29\n---\nText.\n",
        ),
    ]);
    refused(
        dir.path(),
        "error: `date` is not a day of the calendar: February 2026 has 28 days
 --> content/a.md:3:7
  |
3 | date: 2026-02-30
  |       ^^^^^^^^^^
  = help: the last day of February 2026 is 2026-02-28

error: `date` has no month 13: months go from 01 to 12
 --> content/b.md:3:7
  |
3 | date: '2025-13-01'
  |       ^^^^^^^^^^^^

error: `date` is not a day of the calendar: February 2100 has 28 days
 --> content/c.md:3:7
  |
3 | date: 2100-02-29
  |       ^^^^^^^^^^
  = help: the last day of February 2100 is 2100-02-28

error: 3 problems found",
    );
}

#[test]
fn no_file_of_content_takes_the_place_of_the_figures_data() {
    // The figures' data is written in `ticks/`, a folder of the build's own: a file of
    // content/ there, or a page at its address, is refused before anything is written,
    // so that no file an author wrote is overwritten by a figure's data.
    let dir = site(&[
        ("content/a.md", &page("A", "```sim\nid: x\nclients: 5\n```")),
        ("content/ticks/a/x.csv", "time (s)\n"),
        ("content/ticks.md", &page("T", "Text.")),
    ]);
    refused(
        dir.path(),
        "error: the page's address `/ticks/` is taken by the folder of the figures' data, `ticks`
 --> content/ticks.md
  = help: rename or move the page: its folder would have the name of a file the build writes

error: the file content/ticks/a/x.csv needs a folder `ticks`, but the folder of the figures' data, `ticks` is written there
 --> content/ticks/a/x.csv
  = help: rename or move one of them

error: 2 problems found",
    );
}
