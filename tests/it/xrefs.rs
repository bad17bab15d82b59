//! Numbered figures and tables, and cross-references to them: `[@fig-ID]` is "Figure N"
//! with a link, `[@tbl-ID]` "Table N"; a wrong one is an error at its place.

use crate::util::{build, failed_alike as errors, run};

/// Two scenarios, an image named as a figure between them, a sweep and a schedule: five
/// figures and two tables, in this order on the page.
const PAGE: &str = "---
title: Figures
---
As [@fig-second] shows, and [@tbl-first] counts, the crowd retries; [@fig-first;
@fig-pic; @fig-waits] are earlier.

```sim
id: first
clients: 20
horizon: 30s
server: {capacity: 5, tick: 1s}
strategies: [fixed]
```

![The site's *icon*, drawn](pic.svg){#fig-pic}

```sweep
id: sizes
clients: 10
horizon: 30s
server: {capacity: 5, tick: 1s}
strategies: [fixed]
sweep: {vary: clients, values: [10, 20], total: calls}
```

```schedule
id: waits
strategies: [exponential]
retry: {base: 100ms, cap: 10s}
waits: 4
```

```sim
id: second
clients: 20
horizon: 30s
server: {capacity: 5, tick: 1s}
strategies: [fixed]
figure:
  explore: {clients: [10, 40]}
```

See [@tbl-second] and [@fig-sizes; @tbl-first]. Code keeps `@fig-first` and `[@fig-x]`,
and so does an escape: \\@fig-first, \\[@fig-first]; so does an address, a@fig-first.org.
";

/// A site with `page` (and the picture it shows) and no `sources.yaml`.
fn site(page: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: T\nsearch: false\n").unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    std::fs::write(root.join("content/figures.md"), page).unwrap();
    std::fs::write(
        root.join("content/pic.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\"/>",
    )
    .unwrap();
    dir
}

/// The text of `html` from `from` to the next `until`.
fn after<'h>(html: &'h str, from: &str, until: &str) -> &'h str {
    let start = html.find(from).unwrap_or_else(|| panic!("no {from}"));
    let rest = &html[start..];
    &rest[..rest.find(until).map_or(rest.len(), |e| e + until.len())]
}

#[test]
fn figures_and_tables_are_numbered_in_page_order_and_referred_to_by_name() {
    let site = site(PAGE);
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&["check", "--root", site.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("figures/index.html")).unwrap();
    let number = |n: &str| format!("<span class=\"caption-number\">{n}:</span> ");
    // Every figure's caption is led by its number, the figures in page order.
    let figures = [
        ("<figure class=\"sim\" id=\"sim-first\"", "Figure 1"),
        ("<figure class=\"image\" id=\"fig-pic\"", "Figure 2"),
        (
            "<figure class=\"sim sim-sweep\" id=\"sweep-sizes\"",
            "Figure 3",
        ),
        (
            "<figure class=\"sim sim-schedule\" id=\"schedule-waits\"",
            "Figure 4",
        ),
        ("<figure class=\"sim\" id=\"sim-second\"", "Figure 5"),
    ];
    let mut last = 0;
    for (open, label) in figures {
        let at = html.find(open).unwrap_or_else(|| panic!("no {open}"));
        assert!(at > last, "{open} out of order");
        last = at;
        let figure = after(&html[at..], open, "</figure>");
        assert!(
            figure.contains(&format!("<figcaption>{}", number(label))),
            "{label}: {figure}"
        );
    }
    // The image's description is its caption, and stays its description; its name is
    // no text of the page.
    let image = after(&html, "<figure class=\"image\"", "</figure>");
    assert!(image.contains("alt=\"The site’s icon, drawn\""), "{image}");
    assert!(
        image.contains(&format!(
            "{}The site’s icon, drawn</figcaption>",
            number("Figure 2")
        )),
        "{image}"
    );
    assert!(!html.contains("{#fig-pic}"));
    // Each scenario's results table, numbered apart from the figures.
    for (id, label) in [("first", "Table 1"), ("second", "Table 2")] {
        let caption = format!("<caption id=\"{id}-results-caption\">{}", number(label));
        assert!(html.contains(&caption), "{caption}");
    }
    // The sweep's and the schedule's tables are part of their figures: not numbered.
    assert_eq!(html.matches("caption-number\">Table").count(), 2);
    // The references: the label, linked to what it names; several share their word.
    let xref = |id: &str, text: &str| format!("<a class=\"xref\" href=\"#{id}\">{text}</a>");
    for expected in [
        format!(
            "As {} shows, and {} counts",
            xref("sim-second", "Figure 5"),
            xref("first-results-caption", "Table 1")
        ),
        format!(
            "Figures {}, {} and {} are earlier",
            xref("sim-first", "1"),
            xref("fig-pic", "2"),
            xref("schedule-waits", "4")
        ),
        format!(
            "See {} and {} and {}.",
            xref("second-results-caption", "Table 2"),
            xref("sweep-sizes", "Figure 3"),
            xref("first-results-caption", "Table 1")
        ),
    ] {
        assert!(html.contains(&expected), "{expected}");
    }
    // Code, escapes and addresses keep their text.
    for kept in [
        "<code>@fig-first</code>",
        "<code>[@fig-x]</code>",
        "an escape: @fig-first, [@fig-first]",
        "a@fig-first.org",
    ] {
        assert!(html.contains(kept), "{kept}");
    }
    // No list of references: a cross-reference cites no source.
    assert!(!html.contains("class=\"references\""));
}

#[test]
fn an_explorable_figure_keeps_its_number_as_the_reader_reruns_it() {
    let site = site(PAGE);
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("figures/index.html")).unwrap();
    let figure = after(
        &html,
        "<figure class=\"sim\" id=\"sim-second\"",
        "</figure>",
    );
    // The controls hold the caption the rerun redraws, which has no number: the script
    // keeps the figure's own before it.
    let controls = after(figure, "data-caption=\"", "\"");
    assert!(!controls.contains("Figure"), "{controls}");
    let script = std::fs::read_to_string(out.join(explore_script(&html))).unwrap();
    assert!(script.contains(".caption-number"));
}

/// The explorable figures' script of the page, as its address below the output.
fn explore_script(html: &str) -> String {
    let start = html.find("src=\"/explore").expect("the explore script") + "src=\"/".len();
    let end = start + html[start..].find('"').unwrap();
    html[start..end].to_string()
}

#[test]
fn a_reference_to_no_figure_is_an_error_at_its_place_with_the_nearest_name() {
    let page = PAGE
        .replace("[@fig-second] shows", "[@fig-secnd] shows")
        .replace(
            "See [@tbl-second]",
            "See [@tbl-sizes] and [@fig-first, lines 4-5] and [@fig-first; @rfc9110]",
        );
    let site = site(&page);
    let errors = errors(site.path());
    for expected in [
        "error: this page has no figure `fig-secnd`\n --> content/figures.md:4:4\n",
        "= help: did you mean `fig-second`?",
        // A sweep's data is its figure's.
        "error: this page has no table `tbl-sizes`\n",
        "= help: `@fig-sizes` is Figure 3 of this page",
        "error: a cross-reference names a whole figure: `@fig-first` takes nothing after a comma",
        "error: `@rfc9110` is a source, and a citation of sources cannot name a figure or a table",
        "error: 4 problems found",
    ] {
        assert!(errors.contains(expected), "{expected}\n\n{errors}");
    }
}

#[test]
fn a_name_written_where_it_names_nothing_is_an_error_not_text() {
    let page = "---
title: Stray
---
As @fig-pic shows (@tbl-pic too).

![An icon](pic.svg){#fig-pic} beside text.

A table {#tbl-mine}.

## A heading [@fig-pic]

```text
@fig-pic {#fig-pic} stays in code
```
";
    let site = site(page);
    let errors = errors(site.path());
    for expected in [
        "error: `@fig-pic` is written as text: a cross-reference stands in brackets\n --> content/figures.md:4:4\n",
        "= help: write `[@fig-pic]` for its number with a link, or `\\@fig-pic` for the text",
        "error: `@tbl-pic` is written as text",
        "error: `{#fig-pic}` names no figure here\n --> content/figures.md:6:20\n",
        "error: `{#tbl-mine}` names no table: a Markdown table is not numbered\n --> content/figures.md:8:9\n",
        "error: a cross-reference cannot stand in a heading\n  --> content/figures.md:10:14\n",
        "error: 5 problems found",
    ] {
        assert!(errors.contains(expected), "{expected}\n\n{errors}");
    }
}

#[test]
fn an_image_figure_takes_its_name_as_an_id_that_no_other_may_have() {
    let page = "---
title: Taken
---
## Pic {#fig-pic}

![An icon](pic.svg){#fig-pic}

See [@fig-pic].
";
    let site = site(page);
    let errors = errors(site.path());
    assert!(errors.contains("fig-pic"), "{errors}");
    assert!(errors.contains("content/figures.md:6:20"), "{errors}");
}

#[test]
fn a_source_cannot_take_a_name_of_figures() {
    let site = site("---\ntitle: S\n---\nText [@tbl-x].\n");
    std::fs::write(
        site.path().join("sources.yaml"),
        "tbl-x:\n  kind: web\n  title: A page\n  url: https://example.com/\n",
    )
    .unwrap();
    let errors = errors(site.path());
    assert!(
        errors.contains(
            "error: `tbl-x` would name a figure or a table: `[@tbl-x]` is a cross-reference\n --> sources.yaml:1:1\n"
        ),
        "{errors}"
    );
}

#[test]
fn quarto_habits_names_in_notes_and_captions_and_names_taken_twice_are_errors() {
    let page = "---
title: Habits
---
In *@fig-pic*, and [-@fig-pic] too[^n]; see [@fig-pic; @fig-pic].

[^n]: A note.

    ![In a note](pic.svg){#fig-note}

![An icon](pic.svg){#fig-pic}

![The same icon](pic.svg){#fig-pic}

![Classes](pic.svg){.wide #fig-wide}

![Scenario's](pic.svg){#fig-first}

## A heading {#fig-heading}

```sim
id: first
clients: 20
horizon: 30s
server: {capacity: 5, tick: 1s}
strategies: [fixed]
figure:
  caption: As [@fig-pic] shows.
```
";
    let site = site(page);
    let errors = errors(site.path());
    for expected in [
        "error: `@fig-pic` is written as text: a cross-reference stands in brackets\n --> content/figures.md:4:5\n",
        "error: `[-@fig-pic]`, a number without its word, is not written here\n --> content/figures.md:4:20\n",
        "error: the cross-reference names `fig-pic` twice\n",
        "error: `{#fig-note}` names no figure: a figure cannot stand in a footnote\n --> content/figures.md:8:26\n",
        "error: `fig-pic` is the name of an image above: each figure needs a name of its own\n  --> content/figures.md:12:26\n",
        "error: `{.wide #fig-wide}` names no figure: an image's name is written alone in its braces\n",
        "error: `fig-first` is the name of a directive's figure on this page: an image needs a name of its own\n  --> content/figures.md:16:23\n",
        "error: `{#fig-heading}` would name a heading as a figure or a table",
        "error: a caption is text: a figure or a table it names is written as it stands\n  --> content/figures.md:27:16\n",
        "error: 9 problems found",
    ] {
        assert!(errors.contains(expected), "{expected}\n\n{errors}");
    }
}

#[test]
fn an_image_figure_s_caption_is_its_description_as_text() {
    let page = "---
title: Caption
---
See [@fig-pic].

![A *pic* with `code` and
two lines, $x^2$](pic.svg)  
{#fig-pic}
";
    let site = site(page);
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("figures/index.html")).unwrap();
    let figure = after(
        &html,
        "<figure class=\"image\" id=\"fig-pic\">",
        "</figure>",
    );
    assert!(
        figure.contains(
            "<figcaption><span class=\"caption-number\">Figure 1:</span> A pic with code and two lines, x^2</figcaption>"
        ),
        "{figure}"
    );
    // Nothing after the image but its caption: no break, no name.
    assert!(!figure.contains("<br"), "{figure}");
    assert!(!figure.contains("{#"), "{figure}");
    assert!(!html.contains("<p><figure"), "{html}");
}
