//! Markdown as authors know it from GitHub, Zola and Hugo: the CommonMark and GFM spec
//! examples through the page pipeline, unique ids, custom ids, footnotes, bare
//! addresses, alerts, definition lists and the smart-punctuation setting.

mod spec;

use std::collections::BTreeMap;
use std::path::Path;

use retrylab::site::config::KEYS;
use retrylab::site::render::Rendered;
use spec::{Example, agrees, examples, normalized, page, without_our_markup};

use crate::util::run_in;

const COMMONMARK: &str = include_str!("../spec/commonmark-spec.txt");
const GFM: &str = include_str!("../spec/gfm-spec.txt");
const SMART: &str = include_str!("../spec/smart_punct.txt");

/// Why a bare address in an example is a link here: the GFM autolinks extension, which
/// GitHub renders with and the CommonMark core has not.
const AUTOLINKS: &str = "a bare address is a link (GFM autolinks extension)";

/// The CommonMark examples whose HTML is not the spec's by design, each with ours and
/// why. Every other example gives the spec's HTML.
const COMMONMARK_OURS: &[(usize, &str, &str)] = &[
    (
        602,
        "<p>&lt;<a href=\"https://foo.bar/baz\">https://foo.bar/baz</a> bim&gt;</p>",
        AUTOLINKS,
    ),
    (
        606,
        "<p>&lt;<a href=\"mailto:foo+@bar.example.com\">foo+@bar.example.com</a>&gt;</p>",
        AUTOLINKS,
    ),
    (
        608,
        "<p>&lt; <a href=\"https://foo.bar\">https://foo.bar</a> &gt;</p>",
        AUTOLINKS,
    ),
    (
        611,
        "<p><a href=\"https://example.com\">https://example.com</a></p>",
        AUTOLINKS,
    ),
    (
        612,
        "<p><a href=\"mailto:foo@bar.example.com\">foo@bar.example.com</a></p>",
        AUTOLINKS,
    ),
];

/// The GFM extension examples whose HTML is not the spec's by design, each with ours
/// and why.
const GFM_OURS: &[(usize, &str, &str)] = &[
    (
        199,
        "<table><thead><tr><th style=\"text-align: center\">abc</th><th style=\"text-align: right\">defghi</th></tr></thead>\
         <tbody><tr><td style=\"text-align: center\">bar</td><td style=\"text-align: right\">baz</td></tr></tbody></table>",
        "a column's alignment is a style, not the obsolete `align` attribute, which the \
         stylesheet's `text-align: left` for cells would override",
    ),
    (
        205,
        "<table><thead><tr><th>abc</th><th>def</th></tr></thead><tbody></tbody></table>",
        "a table without rows has an empty body, which shows nothing",
    ),
];

/// The GFM extension examples not run, each with why.
const GFM_SKIPPED: &[(usize, &str)] = &[
    (
        625,
        "linkify ends an address at a `)` that closes no `(`, wherever it stands; GFM keeps \
         such a `)` inside the address and drops only those at its end",
    ),
    (
        631,
        "linkify wants a top-level domain of two letters or more, as every real one has; \
         the example's `a.b` has one",
    ),
    (
        653,
        "raw HTML is the author's, as in Zola and Hugo: a site's own page may hold a \
         `<style>` or `<iframe>`, which GitHub's filter for comments would break",
    ),
];

/// Runs `examples` (all but `skipped`) with smart punctuation `smart`: each gives the
/// spec's HTML, or ours in `ours`. Returns the failures.
fn run(
    examples: &[Example],
    ours: &[(usize, &str, &str)],
    skipped: &[(usize, &str)],
    smart: bool,
) -> Vec<String> {
    let mut failed = Vec::new();
    for e in examples {
        if skipped.iter().any(|(n, _)| *n == e.number) {
            continue;
        }
        let expected = ours
            .iter()
            .find(|(n, ..)| *n == e.number)
            .map_or(e.html.as_str(), |(_, html, _)| html);
        if let Err(why) = agrees(&e.markdown, expected, smart) {
            failed.push(format!(
                "example {} ({}):\n{:?}\n{why}",
                e.number, e.section, e.markdown
            ));
        }
    }
    failed
}

#[test]
fn every_commonmark_example_gives_the_specs_html_without_smart_punctuation() {
    let all = examples(COMMONMARK);
    assert_eq!(all.len(), 652);
    let failed = run(&all, COMMONMARK_OURS, &[], false);
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n\n")
    );
    // Each example listed as ours is not the spec's: the list holds no stale entry.
    for (n, ..) in COMMONMARK_OURS {
        let e = &all[n - 1];
        assert!(agrees(&e.markdown, &e.html, false).is_err(), "example {n}");
    }
}

#[test]
fn with_smart_punctuation_only_quotes_dashes_and_ellipses_change() {
    let smart = examples(SMART);
    assert_eq!(smart.len(), 16);
    let failed = run(&smart, &[], &[], true);
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n\n")
    );
    // Every CommonMark example gives the spec's HTML with smart punctuation on too, once
    // its typographic characters are read back as the straight ones they stand for.
    let mut failed = Vec::new();
    let mut changed = 0;
    for e in examples(COMMONMARK) {
        let html = page(&e.markdown, true);
        let plain = [
            ("‘", "'"),
            ("’", "'"),
            ("“", "\""),
            ("”", "\""),
            ("–", "--"),
            ("—", "---"),
            ("…", "..."),
        ]
        .iter()
        .fold(html.clone(), |h, (smart, plain)| h.replace(smart, plain));
        changed += usize::from(plain != html);
        let expected = COMMONMARK_OURS
            .iter()
            .find(|(n, ..)| *n == e.number)
            .map_or(e.html.as_str(), |(_, html, _)| html);
        if normalized(&without_our_markup(&plain)) != normalized(expected) {
            failed.push(format!("example {}: {:?}\n{plain:?}", e.number, e.markdown));
        }
    }
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n\n")
    );
    assert!(changed > 20, "smart punctuation changed {changed} examples");
}

#[test]
fn gfm_extension_examples_give_the_specs_html() {
    let all = examples(GFM);
    let extensions: Vec<Example> = all
        .into_iter()
        .filter(|e| !e.extension.is_empty())
        .collect();
    // tables, strikethrough, autolinks, the raw HTML filter, and the task lists (marked
    // `disabled` in the spec, for its own runner).
    assert_eq!(extensions.len(), 24);
    let failed = run(&extensions, GFM_OURS, GFM_SKIPPED, false);
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n\n")
    );
}

/// A page rendered with the given figures' HTML.
fn with_figures(markdown: &str, figures: &[String]) -> Rendered {
    // Each figure at the place of a directive block, in order.
    let figures: BTreeMap<usize, std::sync::Arc<str>> = retrylab::directive::scan(markdown)
        .directives
        .iter()
        .map(|found| found.block.start)
        .zip(figures.iter().map(|f| f.as_str().into()))
        .collect();
    crate::util::render_alone(markdown, "index.md", &[], &figures)
}

/// Every ` id="…"` of `html`, in order.
fn ids(html: &str) -> Vec<&str> {
    html.split(" id=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect()
}

/// A site in a fresh folder: `site.yaml` holding `yaml`, and `content/a.md` with `body`
/// after its front matter.
pub fn site(yaml: &str, body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("site.yaml"), yaml).unwrap();
    std::fs::create_dir(dir.path().join("content")).unwrap();
    let page = format!("---\ntitle: A\n---\n\n{body}");
    std::fs::write(dir.path().join("content/a.md"), page).unwrap();
    dir
}

/// The page `a` as `build` writes it, after `check` passed.
#[track_caller]
pub fn built(dir: &Path) -> String {
    let (code, _, stderr) = run_in(dir, &["check"]);
    assert_eq!(code, 0, "check refused it:\n{stderr}");
    let (code, _, stderr) = run_in(dir, &["build"]);
    assert_eq!(code, 0, "build refused it:\n{stderr}");
    std::fs::read_to_string(dir.join("public/a/index.html")).unwrap()
}

/// Asserts that `check` and `build` both refuse the site in `dir` with exactly `expected`.
#[track_caller]
pub fn refused(dir: &Path, expected: &str) {
    for command in ["check", "build"] {
        let (code, stdout, stderr) = run_in(dir, &[command]);
        assert_eq!(code, 1, "{command}: {stderr}");
        assert_eq!(stdout, "");
        assert_eq!(
            stderr,
            expected.trim_start_matches('\n'),
            "{command}:\n{stderr}"
        );
    }
    assert!(!dir.join("public").exists());
}

/// A small scenario, whose figure holds `sim-crowd`, `crowd-title`, `crowd-desc`, ….
pub const CROWD: &str = "```sim\nid: crowd\nclients: 5\nstrategies: [fixed]\n```\n\n";

#[test]
fn heading_ids_are_unique_as_hugo_makes_them() {
    let html = page("## Foo\n\n## Foo\n\n## Foo 1\n\n# Foo\n", true);
    assert_eq!(ids(&html), ["foo", "foo-1", "foo-1-1", "foo-2"]);
}

#[test]
fn a_heading_and_a_footnote_never_share_an_id() {
    let html = page(
        "## Note\n\nText.[^note]\n\n## fn note\n\n[^note]: The note.\n",
        true,
    );
    assert_eq!(
        ids(&html),
        [
            "note",
            "fnref-note",
            "fn-note-1",
            "footnote-label",
            "fn-note"
        ]
    );
    let unique: std::collections::BTreeSet<&str> = ids(&html).into_iter().collect();
    assert_eq!(unique.len(), ids(&html).len());
}

#[test]
fn a_heading_keeps_off_the_ids_of_a_figure() {
    let figure = "<figure class=\"sim\" id=\"sim-crowd\"><svg aria-labelledby=\"crowd-title\">\
                  <title id=\"crowd-title\">T</title></svg></figure>\n";
    let r = with_figures(
        "## Sim crowd\n\n```sim\nid: crowd\n```\n\n## Crowd title\n",
        &[figure.to_string()],
    );
    assert_eq!(
        ids(&r.html),
        ["sim-crowd-1", "sim-crowd", "crowd-title", "crowd-title-1"]
    );
    assert_eq!(r.toc[1].id, "crowd-title-1");
}

#[test]
fn check_and_build_give_a_heading_next_to_a_figure_the_same_id() {
    let body = format!(
        "## Crowd title\n\n{CROWD}## Sim crowd\n\n[one](#crowd-title-1) [two](#sim-crowd-1) [fig](#sim-crowd)\n"
    );
    let dir = site("title: T\n", &body);
    let html = built(dir.path());
    assert!(
        html.contains("<h2 id=\"crowd-title-1\">Crowd title "),
        "{html}"
    );
    assert!(html.contains("<h2 id=\"sim-crowd-1\">Sim crowd "), "{html}");
    let all = ids(&html);
    let unique: std::collections::BTreeSet<&str> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "{all:?}");
    assert!(all.contains(&"crowd-title"));
}

#[test]
fn a_custom_id_is_the_heading_s_own() {
    let html = page(
        "## Retries {#retries}\n\n## Retries\n\n### Wide {#w .wide}\n",
        true,
    );
    assert!(
        html.starts_with(
            "<h2 id=\"retries\">Retries <a class=\"anchor\" href=\"#retries\" \
             aria-label=\"Link to this section\">#</a></h2>\n<h2 id=\"retries-1\">"
        ),
        "{html}"
    );
    assert!(
        html.contains("<h3 id=\"w\" class=\"wide\">Wide <a"),
        "{html}"
    );
    // Braces that end a heading as text: the first written as a character reference.
    assert!(page("## Set &#123;x}\n", true).starts_with("<h2 id=\"set-x\">Set {x} <a"));
    // An id given later still wins over a generated one.
    assert_eq!(
        ids(&page("## Later\n\n## B {#later}\n", true)),
        ["later-1", "later"]
    );
}

#[test]
fn a_custom_id_used_twice_is_refused_where_it_is_written() {
    let dir = site("title: T\n", "## First {#x}\n\nText.\n\n## Second  {#x}\n");
    refused(
        dir.path(),
        r"
error: the id `x` is already used on this page
 --> content/a.md:9:12
  |
9 | ## Second  {#x}
  |            ^^^^
  = help: the heading on line 5 has it, and ids are unique on a page; choose another id

error: 1 problem found
",
    );
}

#[test]
fn a_custom_id_that_is_a_figure_s_is_refused() {
    let dir = site("title: T\n", &format!("{CROWD}## Lanes {{#crowd-title}}\n"));
    refused(
        dir.path(),
        r"
error: the id `crowd-title` is already used on this page
  --> content/a.md:11:10
   |
11 | ## Lanes {#crowd-title}
   |          ^^^^^^^^^^^^^^
   = help: a figure on this page has it: its directive's id gives it; choose another id

error: 1 problem found
",
    );
}

#[test]
fn a_heading_keeps_off_the_ids_its_template_writes() {
    // The page template's `<main id="main">`: a heading `## Main` makes way for it.
    let dir = site(
        "title: T\n",
        "## Main\n\n[skip](#main) [heading](#main-1)\n",
    );
    let html = built(dir.path());
    assert!(html.contains("<h2 id=\"main-1\">Main "), "{html}");
    let all = ids(&html);
    let unique: std::collections::BTreeSet<&str> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "{all:?}");
}

#[test]
fn a_custom_id_that_its_template_writes_is_refused() {
    let dir = site("title: T\n", "## Content {#main}\n");
    refused(
        dir.path(),
        r"
error: the id `main` is already used on this page
 --> content/a.md:5:12
  |
5 | ## Content {#main}
  |            ^^^^^^^
  = help: the page's template, `page.html`, writes it; choose another id

error: 1 problem found
",
    );
}

#[test]
fn footnotes_are_numbered_over_the_page_and_listed_at_its_end() {
    let html = page(
        "# Title[^h]\n\nOne[^a] and again[^a], undefined[^none].\n\n\
         [^a]: First.\n[^h]: In the heading.\n[^unused]: Never used.\n",
        true,
    );
    assert_eq!(
        html,
        "<h1 id=\"title\">Title<sup class=\"footnote-ref\"><a href=\"#fn-h\" id=\"fnref-h\" data-footnote-ref aria-describedby=\"footnote-label\">1</a></sup> \
         <a class=\"anchor\" href=\"#title\" aria-label=\"Link to this section\">#</a></h1>\n\
         <p>One<sup class=\"footnote-ref\"><a href=\"#fn-a\" id=\"fnref-a\" data-footnote-ref aria-describedby=\"footnote-label\">2</a></sup> \
         and again<sup class=\"footnote-ref\"><a href=\"#fn-a\" id=\"fnref-a-2\" data-footnote-ref aria-describedby=\"footnote-label\">2</a></sup>, \
         undefined[^none].</p>\n\
         <section class=\"footnotes\" data-footnotes>\n\
         <h2 id=\"footnote-label\" class=\"visually-hidden\">Footnotes</h2>\n<ol>\n\
         <li id=\"fn-h\">\n<p>In the heading. <a href=\"#fnref-h\" class=\"footnote-backref\" data-footnote-backref \
         data-footnote-backref-idx=\"1\" aria-label=\"Back to reference 1\">↩</a></p>\n</li>\n\
         <li id=\"fn-a\">\n<p>First. <a href=\"#fnref-a\" class=\"footnote-backref\" data-footnote-backref \
         data-footnote-backref-idx=\"2\" aria-label=\"Back to reference 2\">↩</a> \
         <a href=\"#fnref-a-2\" class=\"footnote-backref\" data-footnote-backref data-footnote-backref-idx=\"2-2\" \
         aria-label=\"Back to reference 2-2\">↩<sup class=\"footnote-ref\">2</sup></a></p>\n</li>\n\
         </ol>\n</section>\n"
    );
}

#[test]
fn a_note_that_ends_in_a_list_gets_its_way_back_after_it() {
    let html = page("A[^l]\n\n[^l]: Items:\n\n    - one\n", true);
    assert!(
        html.contains("<li>one</li>\n</ul>\n<p><a href=\"#fnref-l\" class=\"footnote-backref\""),
        "{html}"
    );
}

#[test]
fn bare_addresses_become_links_outside_code_links_and_html() {
    let html = page(
        "See www.example.com/a, https://x.org/b. Or ask me@example.org.\n\n\
         `https://in.code` [https://in.link](/l) <a href=\"/h\">https://in.html</a> \
         <https://angle.org>\n\n    https://indented.code\n",
        true,
    );
    assert_eq!(
        html,
        "<p>See <a href=\"http://www.example.com/a\">www.example.com/a</a>, \
         <a href=\"https://x.org/b\">https://x.org/b</a>. Or ask \
         <a href=\"mailto:me@example.org\">me@example.org</a>.</p>\n\
         <p><code>https://in.code</code> <a href=\"/l\">https://in.link</a> \
         <a href=\"/h\">https://in.html</a> <a href=\"https://angle.org\">https://angle.org</a></p>\n\
         <div class=\"code-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Code example 1\">\
         <pre><code>https://indented.code\n</code></pre></div>\n"
    );
}

#[test]
fn smart_punctuation_never_typesets_an_address() {
    assert_eq!(
        page(
            "\"Read\" https://x.org/a--b...c, it's www.y.org/'q'.\n",
            true
        ),
        "<p>“Read” <a href=\"https://x.org/a--b...c\">https://x.org/a--b...c</a>, it’s \
         <a href=\"http://www.y.org/&#x27;q&#x27;\">www.y.org/'q'</a>.</p>\n"
    );
}

#[test]
fn github_alerts_are_callouts_with_a_title_the_reader_sees() {
    for (kind, class, title) in [
        ("NOTE", "note", "Note"),
        ("TIP", "tip", "Tip"),
        ("IMPORTANT", "important", "Important"),
        ("WARNING", "warning", "Warning"),
        ("CAUTION", "caution", "Caution"),
    ] {
        let html = page(&format!("> [!{kind}]\n> Mind the *gap*.\n"), true);
        assert_eq!(
            html,
            format!(
                "<div class=\"markdown-alert markdown-alert-{class}\" role=\"note\">\n\
                 <p class=\"markdown-alert-title\">{title}</p>\n<p>Mind the <em>gap</em>.</p>\n</div>\n"
            )
        );
        // Both themes colour it: the light one, and the dark one by preference or choice.
        let css = retrylab::site::templates::default_css();
        assert_eq!(
            css.matches(&format!("--alert-{class}:")).count(),
            3,
            "{class}"
        );
        assert!(
            css.contains(&format!(".markdown-alert-{class} {{")),
            "{class}"
        );
    }
    // A plain quote stays a quote.
    assert_eq!(
        page("> [!NOPE]\n> x\n", true),
        "<blockquote>\n<p>[!NOPE]\nx</p>\n</blockquote>\n"
    );
}

#[test]
fn definition_lists_work_and_are_styled() {
    let html = page("Backoff\n: Waiting longer after each failure.\n", true);
    assert_eq!(
        html,
        "<dl>\n<dt>Backoff</dt>\n<dd>Waiting longer after each failure.</dd>\n</dl>\n"
    );
    let css = retrylab::site::templates::default_css();
    assert!(css.contains("\ndt {") && css.contains("\ndd {"), "{css}");
}

#[test]
fn smart_punctuation_is_a_setting_of_the_site_on_by_default() {
    assert!(KEYS.iter().any(|(key, _)| *key == "smart_punctuation"));
    let body = "\"Quoted\" -- and 'so' on...\n";
    let on = built(site("title: T\n", body).path());
    assert!(on.contains("<p>“Quoted” – and ‘so’ on…</p>"), "{on}");
    let off = built(site("title: T\nsmart_punctuation: false\n", body).path());
    assert!(off.contains("<p>\"Quoted\" -- and 'so' on...</p>"), "{off}");
    let dir = site("title: T\nsmart_punctuation: yes please\n", body);
    refused(
        dir.path(),
        r#"
error: `smart_punctuation` must be true or false, found `yes please`
 --> site.yaml:2:20
  |
2 | smart_punctuation: yes please
  |                    ^^^^^^^^^^

error: 1 problem found
"#,
    );
}

#[test]
fn a_heading_with_a_reference_has_the_same_id_in_check_and_build() {
    let body = format!(
        "{CROWD}## {{{{ crowd.fixed.calls }}}} calls\n\n[there](#-crowdfixedcalls--calls)\n"
    );
    let html = built(site("title: T\n", &body).path());
    assert!(
        html.contains("<h2 id=\"-crowdfixedcalls--calls\">5 calls <a"),
        "{html}"
    );
    // An anchor made from the value is not the heading's: `check` says so, as `build`
    // would publish a link that leads nowhere.
    let body = format!("{CROWD}## {{{{ crowd.fixed.calls }}}} calls\n\n[there](#5-calls)\n");
    let dir = site("title: T\n", &body);
    let (code, _, stderr) = run_in(dir.path(), &["check"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`/a/` has no heading or figure with the anchor `#5-calls`"),
        "{stderr}"
    );
}

#[test]
fn a_reference_in_a_footnote_gets_its_value_at_the_page_s_end() {
    let body = format!("{CROWD}Text.[^n]\n\n[^n]: {{{{ crowd.fixed.calls }}}} calls.\n");
    let html = built(site("title: T\n", &body).path());
    assert!(
        html.contains(
            "<li id=\"fn-n\">\n<p>5 calls. <a href=\"#fnref-n\" class=\"footnote-backref\""
        ),
        "{html}"
    );
}

#[test]
fn a_figure_goes_to_the_place_of_its_block_wherever_the_block_stands() {
    // Blocks inside a list item and a quote, and one with a reference before it: each
    // figure is found by its block's place, never by counting blocks.
    let body = "Served: {{ a.fixed.served }}.\n\n\
                - In a list:\n\n  ```sim\n  id: a\n  clients: 5\n  strategies: [fixed]\n  ```\n\n\
                > In a quote:\n>\n> ```sim\n> id: b\n> clients: 6\n> strategies: [fixed]\n> ```\n\n\
                ```sim\nid: c\nclients: 7\nstrategies: [fixed]\n```\n";
    let dir = site("title: T\n", body);
    let html = built(dir.path());
    let at = |id: &str| {
        html.find(&format!("<figure class=\"sim\" id=\"sim-{id}\">"))
            .unwrap_or_else(|| panic!("no figure {id} in {html}"))
    };
    let (a, b, c) = (at("a"), at("b"), at("c"));
    let (list, quote) = (
        html.find("<li>").unwrap(),
        html.find("<blockquote>").unwrap(),
    );
    assert!(list < a && a < quote && quote < b && b < c, "{html}");
    assert!(!html.contains("```sim"), "{html}");
}
