//! Site search: on by default, an index of each page's headings and prose written into
//! `pagefind/` with the search box's script, the same bytes from build to build; off
//! with `search: false`; a file of the site's own `static/` stands.

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
fn the_sites_own_search_script_and_index_files_stand() {
    let dir = site("title: T\n", "Text.\n");
    std::fs::create_dir_all(dir.path().join("static/pagefind")).unwrap();
    std::fs::write(dir.path().join("static/search.js"), "// mine\n").unwrap();
    std::fs::write(
        dir.path().join("static/pagefind/pagefind.js"),
        "// mine too\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let written = files(&out);
    assert_eq!(written["search.js"], b"// mine\n");
    assert_eq!(written["pagefind/pagefind.js"], b"// mine too\n");
    assert!(written.contains_key("pagefind/pagefind-entry.json"));
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
