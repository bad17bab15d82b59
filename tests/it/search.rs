//! Site search: on by default, an index of each page's headings and prose written into
//! `pagefind/` with the search box's script, the same bytes from build to build; off
//! with `search: false`; the site's own `static/search.js` stands, a `static/pagefind/`
//! is refused, and a template without `<main>` is warned of.

use retrylab::site::search;

use crate::markdown::{CROWD, site};
use crate::util::{build, files, run_in};

#[test]
fn a_site_has_a_search_box_and_its_index_by_default_the_same_every_time() {
    let dir = site(
        "title: T\n",
        &format!("{CROWD}## Thundering herds\n\nA herd.\n"),
    );
    let (first, again) = (dir.path().join("one"), dir.path().join("two"));
    for out in [&first, &again] {
        let (code, _, stderr) = build(dir.path(), out);
        assert_eq!(code, 0, "{stderr}");
    }
    let (one, two) = (files(&first), files(&again));
    assert_eq!(one, two, "two builds differ");
    for file in [
        "search.js",
        "pagefind/pagefind.js",
        "pagefind/pagefind-entry.json",
        "pagefind/wasm.en.pagefind",
    ] {
        assert!(
            one.contains_key(file),
            "no {file}: {:?}",
            one.keys().collect::<Vec<_>>()
        );
    }
    assert!(one.keys().any(|f| f.starts_with("pagefind/index/")));
    assert!(one.keys().any(|f| f.starts_with("pagefind/fragment/")));
    // Pagefind's own interfaces are not the site's.
    assert!(
        !one.keys().any(|f| f.contains("-ui.")),
        "{:?}",
        one.keys().collect::<Vec<_>>()
    );
    let page = String::from_utf8(one["a/index.html"].clone()).unwrap();
    assert!(
        page.contains("<div class=\"site-search\" role=\"search\" data-base=\"/\" hidden>"),
        "{page}"
    );
    assert!(page.contains("<script type=\"module\" src=\"/search.js\"></script>"));
    assert_eq!(one["search.js"], search::SCRIPT_TEXT.as_bytes());
}

#[test]
fn search_false_writes_no_index_and_no_box() {
    let dir = site("title: T\nsearch: false\n", "Text.\n");
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let written = files(&out);
    assert!(
        !written
            .keys()
            .any(|f| f.starts_with("pagefind/") || f == "search.js")
    );
    let page = String::from_utf8(written["a/index.html"].clone()).unwrap();
    assert!(
        !page.contains("class=\"site-search\"") && !page.contains("search.js"),
        "{page}"
    );
}

#[test]
fn search_is_true_or_false() {
    let dir = site("title: T\nsearch: yes please\n", "Text.\n");
    let (code, _, stderr) = run_in(dir.path(), &["check"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("search"), "{stderr}");
}

#[test]
fn the_sites_own_search_script_stands() {
    let dir = site("title: T\n", "Text.\n");
    std::fs::create_dir_all(dir.path().join("static")).unwrap();
    std::fs::write(dir.path().join("static/search.js"), "// mine\n").unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let written = files(&out);
    assert_eq!(written["search.js"], b"// mine\n");
    assert!(written.contains_key("pagefind/pagefind-entry.json"));
}

/// A `static/pagefind/` would mix its files with the index the build writes there
/// (a stale index's chunks read as this one's): refused, by `check` as by `build`, and
/// the last site stays; with `search: false` it is the site's own index, and published.
#[test]
fn a_pagefind_folder_in_static_is_refused_while_the_build_writes_the_index() {
    let dir = site("title: T\n", "Text.\n");
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let before = files(&out);
    std::fs::create_dir_all(dir.path().join("static/pagefind")).unwrap();
    std::fs::write(dir.path().join("static/pagefind/pagefind.js"), "// old\n").unwrap();
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with(
            "error: the build writes the search index into `pagefind/`, and the files of \
             this folder would mix with it\n --> static/pagefind/\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("set `search: false` in site.yaml"),
        "{stderr}"
    );
    assert!(stderr.contains("error: 1 problem found"), "{stderr}");
    assert_eq!(files(&out), before, "the last site stays");
    let (code, _, checked) = run_in(dir.path(), &["check"]);
    assert_eq!(code, 1);
    assert_eq!(checked, stderr);

    std::fs::write(dir.path().join("site.yaml"), "title: T\nsearch: false\n").unwrap();
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let written = files(&out);
    assert_eq!(written["pagefind/pagefind.js"], b"// old\n");
    assert!(!written.contains_key("pagefind/pagefind-entry.json"));
}

/// A template of the site's own with no `<main>`: its pages are in the index with
/// nothing of their text, which `build` and `check` say, once per template.
#[test]
fn a_template_without_main_is_warned_of() {
    let dir = site("title: T\n", "Text.\n");
    std::fs::create_dir_all(dir.path().join("templates")).unwrap();
    std::fs::write(
        dir.path().join("templates/page.html"),
        "<!doctype html><html lang=\"en\"><title>{{ page.title }}</title>\
         <div>{{ page.content | safe }}</div></html>\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let warning = "warning: this template has no `<main>` (nor do the templates it extends \
                   or includes), and the search index reads a page's `<main>` only: the \
                   search finds nothing of the page rendered with it, `/a/`, but its title\n \
                   --> templates/page.html\n";
    assert!(stderr.contains(warning), "{stderr}");
    assert_eq!(stderr.matches("no `<main>`").count(), 1, "{stderr}");
    let (code, _, checked) = run_in(dir.path(), &["check"]);
    assert_eq!(code, 0, "{checked}");
    assert!(checked.contains(warning), "{checked}");
    // Without search, nothing reads `<main>`.
    std::fs::write(dir.path().join("site.yaml"), "title: T\nsearch: false\n").unwrap();
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("<main>"), "{stderr}");
}

#[test]
fn a_page_is_indexed_without_its_figures() {
    let figure: std::sync::Arc<str> = "<figure id=\"f\">ticks</figure>".into();
    let other: std::sync::Arc<str> = "<figure id=\"g\">more</figure>".into();
    let html = format!("<main><p>a</p>{figure}<p>b</p>{other}<p>c</p></main>");
    assert_eq!(
        search::without(&html, [&figure, &other].into_iter()),
        "<main><p>a</p><p>b</p><p>c</p></main>"
    );
}
