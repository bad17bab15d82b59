//! The header's links scale: grouped (articles, reference), shown in full up to eight,
//! folded behind "Pages" past eight (a disclosure, no script), and left to the home page
//! and the search past forty.

use crate::markdown::site;
use crate::util::build;

/// The page `a` of a site with `n` pages, one of them tagged `authors`.
fn header_of(n: usize) -> String {
    let dir = site("title: T\n", "Text.\n");
    for i in 1..n {
        let tags = if i == 1 { "\ntags: [authors]" } else { "" };
        std::fs::write(
            dir.path().join(format!("content/p{i}.md")),
            format!("---\ntitle: Page {i}{tags}\n---\nText.\n"),
        )
        .unwrap();
    }
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("a/index.html")).unwrap();
    let start = html.find("<header").unwrap();
    let end = html.find("</header>").unwrap();
    html[start..end].to_string()
}

#[test]
fn up_to_eight_pages_are_shown_in_two_groups() {
    let header = header_of(8);
    assert!(header.contains("<details class=\"site-nav\">"), "{header}");
    assert!(header.contains("<summary>Pages</summary>"));
    let articles = header
        .split("aria-labelledby=\"nav-articles\"")
        .nth(1)
        .unwrap();
    let (articles, reference) = articles
        .split_once("aria-labelledby=\"nav-reference\"")
        .unwrap();
    assert_eq!(articles.matches("<li>").count(), 7, "{header}");
    assert!(articles.contains("aria-current=\"page\">A</a>"));
    assert_eq!(reference.matches("<li>").count(), 1);
    assert!(reference.contains(">Page 1</a>"));
}

#[test]
fn a_group_without_pages_is_left_out_and_so_is_a_header_without_links() {
    let header = header_of(1);
    assert!(!header.contains("nav-articles") || header.contains("aria-current"));
    assert!(!header.contains("nav-reference"), "{header}");
    let dir = site("title: T\n", "Text.\n");
    std::fs::rename(
        dir.path().join("content/a.md"),
        dir.path().join("content/index.md"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = build(dir.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!home.contains("site-nav"), "{home}");
}

#[test]
fn past_eight_pages_they_fold_and_past_forty_the_header_lists_none() {
    let header = header_of(9);
    assert!(
        header.contains("<details class=\"site-nav site-nav-many\">"),
        "{header}"
    );
    assert_eq!(header.matches("<li>").count(), 9);
    let header = header_of(41);
    assert!(!header.contains("site-nav"), "{header}");
    assert!(header.contains("site-search"));
}
