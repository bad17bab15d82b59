//! Markdown written for GitHub builds as it reads there: heading anchors as GitHub makes
//! them, anchors and addresses in raw HTML, and what stays refused.

use crate::markdown::{built, refused, site};

#[test]
fn heading_anchors_are_githubs() {
    let body = "## The design: os_str\n\n## core::io\n\n## A & B\n\n## Привет мир\n\n\
                ## Foo\n\n## Foo\n\n## a -- b\n\n## Custom {#Own_Id}\n\n\
                [1](#the-design-os_str) [2](#coreio) [3](#a--b) [4](#привет-мир) [5](#foo-1) \
                [6](#a----b) [7](#Own_Id)\n";
    let html = built(site("title: T\n", body).path());
    for id in [
        "the-design-os_str",
        "coreio",
        "a--b",
        "привет-мир",
        "foo",
        "foo-1",
        "a----b",
        "Own_Id",
    ] {
        assert!(html.contains(&format!(" id=\"{id}\"")), "{id} in {html}");
    }
    // The dash smart punctuation shows is still a dash in the text.
    assert!(html.contains(">a – b <a"), "{html}");
}

#[test]
fn an_anchor_in_other_letter_case_is_refused_with_the_one_meant() {
    let dir = site("title: T\n", "## The Design\n\n[x](#The-Design)\n");
    refused(
        dir.path(),
        r#"
error: `/a/` has no heading or figure with the anchor `#The-Design`
 --> content/a.md:7:1
  |
7 | [x](#The-Design)
  | ^^^^^^^^^^^^^^^^
  = help: `#the-design` differs only in letter case: an anchor must be written as the page has it (GitHub's script forgives the case, a browser does not)

error: 1 problem found
"#,
    );
}

#[test]
fn hostile_headings_get_anchors_and_no_panic() {
    let long = "x".repeat(100_000);
    let body = format!(
        "## \u{0}\u{1}\u{7f}\u{feff}\u{200d}\n\n## \u{10ffff}\u{e000}\n\n## {long}\n\n\
         ## 😄\u{fe0f} ½ ² ⅷ\n\n## `a::b` <b>c</b>\n\n## ___\n"
    );
    let html = built(site("title: T\n", &body).path());
    assert!(html.contains(" id=\"section\""), "{html}");
    assert!(html.contains(" id=\"section-1\""), "{html}");
    assert!(html.contains(&format!(" id=\"{long}\"")));
    // The emoji goes and its variation selector, a mark, stays (as on GitHub); `½` and
    // `²` are other numbers, `ⅷ` a letter number that stays; HTML's tags are no text.
    assert!(html.contains(" id=\"\u{fe0f}---ⅷ\""), "{html}");
    assert!(html.contains(" id=\"ab-c\""), "{html}");
    assert!(html.contains(" id=\"___\""), "{html}");
}

#[test]
fn ids_and_names_in_raw_html_are_anchors() {
    let body = "<a id=\"7\"></a>\n\nText <a name='x'></a> and <span id=y>.\n\n\
                <div>\n<p\n  id=\"split\">\n</div>\n\n## Y\n\n\
                [a](#7) [b](#x) [c](#y) [d](#split) [e](#y-1)\n";
    let html = built(site("title: T\n", body).path());
    // `## Y` keeps off the `y` the page's HTML holds.
    assert!(html.contains("<h2 id=\"y-1\">"), "{html}");
}

#[test]
fn addresses_in_raw_html_are_resolved_and_checked() {
    let dir = site(
        "title: T\nbase_url: https://example.org/repo/\n",
        "<a href=\"b.md#there\">b</a> <img src=\"pic.png\" alt=\"\">\n\n\
         <p><a href='/b/'>root</a> <a href=\"https://x.org/a.md\">out</a></p>\n",
    );
    std::fs::write(
        dir.path().join("content/b.md"),
        "---\ntitle: B\n---\n\n## There\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("content/pic.png"), "png").unwrap();
    let html = built(dir.path());
    for written in [
        "<a href=\"/repo/b/#there\">b</a>",
        "<img src=\"/repo/pic.png\" alt=\"\">",
        "<a href='/repo/b/'>root</a>",
        "<a href=\"https://x.org/a.md\">out</a>",
    ] {
        assert!(html.contains(written), "{written} in {html}");
    }
}

#[test]
fn a_raw_html_address_that_leads_nowhere_is_refused_at_its_attribute() {
    let dir = site(
        "title: T\n",
        "<p>\n  <img src=\"missing.png\" alt=\"\">\n</p>\n\n\
         > <a href=\"nope.md\">x</a> and <a href=\"#nowhere\">y</a>\n\n<a href=\"/zzz/\">z</a>\n",
    );
    refused(
        dir.path(),
        r##"
error: the image `missing.png` leads to no file of the site
 --> content/a.md:6:13
  |
6 |   <img src="missing.png" alt="">
  |             ^^^^^^^^^^^
  = help: it would be `/a/missing.png`; no file of content/ or static/ has that name: a picture beside the page's file in content/ is written by its name (`pic.png`), one in static/ from the root (`/pic.png`)

error: the link to `nope.md` does not lead to a page
 --> content/a.md:9:12
  |
9 | > <a href="nope.md">x</a> and <a href="#nowhere">y</a>
  |            ^^^^^^^
  = help: a link to a `.md` file must name a file under content/

error: `/a/` has no heading or figure with the anchor `#nowhere`
 --> content/a.md:9:40
  |
9 | > <a href="nope.md">x</a> and <a href="#nowhere">y</a>
  |                                        ^^^^^^^^

error: no page has the address `/zzz/`
  --> content/a.md:11:10
   |
11 | <a href="/zzz/">z</a>
   |          ^^^^^

error: 4 problems found
"##,
    );
}

#[test]
fn hostile_raw_html_is_read_without_a_panic() {
    let huge = "y".repeat(1 << 20);
    let body = format!(
        "<a id=\"{huge}\" name=\"\" href=\"#{huge}\">x</a>\n\n\
         <div title='<a href=\"nope.md\">' data-x=\"\u{0}\u{7f}\u{fffd}\">\n\n\
         text <a href=\"#\" <b id=\"b\"\n\n\
         <!-- <img src=\"gone.png\"> -->\n\n<a href=\"#b"
    );
    let html = built(site("title: T\n", &body).path());
    assert!(html.contains(&format!("<a id=\"{huge}\"")));
    // No tag, as CommonMark reads it: text, and no anchor.
    assert!(html.contains("text &lt;a href=“#” &lt;b id=“b”"), "{html}");
}

#[test]
fn the_contents_number_only_the_numbered_entries() {
    let html = built(
        site(
            "title: T\n",
            "### Lead\n\n## One\n\n### One a\n\n### One b\n\n## Two\n",
        )
        .path(),
    );
    let start = html.find("<ol>").expect("a table of contents");
    let end = html[start..].find("</ol>").unwrap() + start;
    assert_eq!(
        &html[start..end],
        "<ol>\n      \
         <li class=\"toc-3\"><a href=\"#lead\">Lead</a></li>\n      \
         <li class=\"toc-2\"><a href=\"#one\">One</a>\n      <ul>\n        \
         <li class=\"toc-3\"><a href=\"#one-a\">One a</a></li>\n        \
         <li class=\"toc-3\"><a href=\"#one-b\">One b</a></li>\n      </ul></li>\n      \
         <li class=\"toc-2\"><a href=\"#two\">Two</a></li>\n    "
    );
}

#[test]
fn a_site_without_simulations_says_nothing_of_them() {
    let plain = built(site("title: T\n", "Plain prose, 3 numbers: 1, 2, 3.\n").path());
    assert!(!plain.contains("simulation"), "{plain}");
    assert!(plain.contains("<p>T. <a href="), "{plain}");
    let simulated = built(site("title: T\n", crate::markdown::CROWD).path());
    assert!(
        simulated.contains("<p>T · its charts and tables are simulated when the site is built. <a")
    );
}
