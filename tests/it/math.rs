//! Maths as on GitHub: `$…$` in a sentence and `$$…$$` on its own, typeset at build time
//! into MathML. Where a dollar sign opens and closes a formula is pulldown-cmark's rule
//! (0.13, `Options::ENABLE_MATH`, the rules of its `specs/math.txt`): an opening `$` is
//! followed by a character that is not a space, a closing one follows one.

use std::collections::BTreeMap;

use proptest::prelude::*;
use retrylab::site::render::{Rendered, typeset};

use crate::markdown::{built, refused, site};
use crate::util::render_alone;

/// The page as published, with smart punctuation on as by default.
fn published(markdown: &str) -> Rendered {
    render_alone(markdown, "a.md", &[], &BTreeMap::new())
}

fn inline(latex: &str) -> String {
    typeset(latex, false).unwrap()
}

fn display(latex: &str) -> String {
    typeset(latex, true).unwrap()
}

/// A page's first display formula, `mathml`, in its region.
fn region(mathml: &str) -> String {
    format!(
        "<span class=\"math-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Formula \
         1\">{mathml}</span>"
    )
}

#[test]
fn dollar_signs_make_formulas_where_github_reads_them() {
    for (markdown, html) in [
        ("a $x^2$ b", format!("<p>a {} b</p>\n", inline("x^2"))),
        (
            "Wait $\\min(\\text{cap}, \\text{base} \\times 2^{n-1})$.",
            format!(
                "<p>Wait {}.</p>\n",
                inline("\\min(\\text{cap}, \\text{base} \\times 2^{n-1})")
            ),
        ),
        (
            "$$\nx = 1\n$$",
            format!("<p>{}</p>\n", region(&display("\nx = 1\n"))),
        ),
        (
            "with probability\n$$p = 1$$\nwhere",
            format!(
                "<p>with probability\n{}\nwhere</p>\n",
                region(&display("p = 1"))
            ),
        ),
        // Prices: a `$` before a space never closes, after one never opens.
        (
            "It costs $5 and $10.",
            "<p>It costs $5 and $10.</p>\n".to_string(),
        ),
        ("From \\$5-\\$10.", "<p>From $5-$10.</p>\n".to_string()),
        ("$ x$ and $x $", "<p>$ x$ and $x $</p>\n".to_string()),
        (
            "`$x$` is code",
            "<p><code>$x$</code> is code</p>\n".to_string(),
        ),
        // Smart punctuation and emphasis never reach into a formula.
        (
            "$a--b$ and $a_1 * b_2$",
            format!("<p>{} and {}</p>\n", inline("a--b"), inline("a_1 * b_2")),
        ),
        (
            "[$x$](https://h/)",
            format!("<p><a href=\"https://h/\">{}</a></p>\n", inline("x")),
        ),
    ] {
        let rendered = published(markdown);
        assert_eq!(rendered.html, html, "{markdown:?}");
        assert!(
            rendered.formulas.is_empty(),
            "{markdown:?}: {:?}",
            rendered.formulas
        );
    }
}

#[test]
fn a_formula_is_mathml_inline_or_shown_on_its_own() {
    let x = inline("3^n");
    assert_eq!(
        x,
        "<math display=\"inline\"><msup><mn>3</mn><mi>n</mi></msup></math>"
    );
    assert!(display("3^n").starts_with("<math display=\"block\">"));
    // `\ ` and `~` are spaces, not the name of an entity.
    let spaced = inline("a\\ b~c");
    assert_eq!(
        spaced.matches("<mtext>&nbsp;</mtext>").count(),
        2,
        "{spaced}"
    );
    assert!(!spaced.contains("&amp;"), "{spaced}");
}

/// A display formula wider than the column scrolls sideways: inside a region the
/// keyboard reaches, named by its place among the page's formulas, as a code block's.
#[test]
fn a_display_formula_is_a_region_the_keyboard_reaches() {
    let rendered = published("One:\n\n$$3^n$$\n\nand $x$, then\n$$\\frac{a}{b}$$\n");
    assert_eq!(
        rendered.html,
        format!(
            "<p>One:</p>\n<p><span class=\"math-scroll\" role=\"region\" tabindex=\"0\" \
             aria-label=\"Formula 1\">{}</span></p>\n<p>and {}, then\n<span \
             class=\"math-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Formula \
             2\">{}</span></p>\n",
            display("3^n"),
            inline("x"),
            display("\\frac{a}{b}")
        )
    );
}

/// In a link or a heading, a display formula is part of their text: no region (a
/// focusable element in a link, a name in the heading's) and no number of its own.
#[test]
fn a_display_formula_in_a_link_or_a_heading_has_no_region() {
    let rendered = published("## Mass $$m$$\n\n[see $$x$$](#a) and $$y$$\n");
    assert_eq!(
        rendered.html,
        format!(
            "<h2 id=\"mass-m\">Mass {} <a class=\"anchor\" href=\"#mass-m\" \
             aria-label=\"Link to this section\">#</a></h2>\n<p><a href=\"#a\">see {}</a> \
             and {}</p>\n",
            display("m"),
            display("x"),
            region(&display("y"))
        )
    );
    assert_eq!(rendered.toc[0].title, "Mass m");
    assert_eq!(rendered.toc[0].html, format!("Mass {}", inline("m")));
}

#[test]
fn a_formula_in_a_heading_is_typeset_and_its_source_makes_the_anchor() {
    let rendered = published("## The $3^n$ of layers\n\n## Two\n");
    assert!(
        rendered.html.starts_with(&format!(
            "<h2 id=\"the-3n-of-layers\">The {} of layers <a class=\"anchor\"",
            inline("3^n")
        )),
        "{}",
        rendered.html
    );
    assert_eq!(rendered.toc[0].title, "The 3^n of layers");
    // The table of contents shows the formula typeset, and its text escaped.
    assert_eq!(
        rendered.toc[0].html,
        format!("The {} of layers", inline("3^n"))
    );
    let dir = site("title: T\n", "## The $3^n$ of `<layers>`\n\n## Two\n");
    let page = built(dir.path());
    let toc = &page[page.find("<nav class=\"toc\"").unwrap()..];
    let toc = &toc[..toc.find("</nav>").unwrap()];
    assert!(
        toc.contains(&format!(
            "<a href=\"#the-3n-of-layers\">The {} of &lt;layers&gt;</a>",
            inline("3^n")
        )),
        "{toc}"
    );
}

#[test]
fn formulas_in_tables_lists_and_notes_are_typeset() {
    let html =
        published("| a | b |\n|---|---|\n| $x$ | $$y$$ |\n\n- $z$\n\nText.[^n]\n\n[^n]: $w$\n")
            .html;
    for formula in [inline("x"), display("y"), inline("z"), inline("w")] {
        assert!(html.contains(&formula), "{formula} not in {html}");
    }
}

#[test]
fn a_formula_that_cannot_be_read_stops_check_and_build_at_its_place() {
    let dir = site("title: T\n", "Text $a^b^c$ and $\\frac{1}$ there.\n");
    refused(
        dir.path(),
        r"
error: this formula cannot be read: trying to add a superscript twice to the same element
 --> content/a.md:5:6
  |
5 | Text $a^b^c$ and $\frac{1}$ there.
  |      ^^^^^^^
  = help: a formula is LaTeX math between `$` signs (`$$` for one on a line of its own); a dollar sign in prose is written `\$`

error: this formula cannot be read: expected a token
 --> content/a.md:5:18
  |
5 | Text $a^b^c$ and $\frac{1}$ there.
  |                  ^^^^^^^^^^
  = help: a formula is LaTeX math between `$` signs (`$$` for one on a line of its own); a dollar sign in prose is written `\$`

error: 2 problems found
",
    );
}

/// In a formula longer than the context pulldown-latex shows, the error is told at
/// the character where its reader stopped, by `check` as by `build`.
#[test]
fn a_long_formula_that_cannot_be_read_is_told_where_it_stops() {
    let dir = site(
        "title: T\n",
        "The wait $\\alpha + \\beta + \\gamma + x^a^b + \\zeta + \\eta + \\theta$ grows.\n",
    );
    refused(
        dir.path(),
        r"
error: this formula cannot be read: trying to add a superscript twice to the same element
 --> content/a.md:5:40
  |
5 | The wait $\alpha + \beta + \gamma + x^a^b + \zeta + \eta + \theta$ grows.
  |                                        ^
  = help: a formula is LaTeX math between `$` signs (`$$` for one on a line of its own); a dollar sign in prose is written `\$`

error: 1 problem found
",
    );
}

#[test]
fn a_reference_in_a_formula_stops_the_build_at_the_reference() {
    let dir = site(
        "title: T\n",
        &format!(
            "{}The $p = {{{{ crowd.fixed.calls }}}}$ calls.\n",
            crate::markdown::CROWD
        ),
    );
    refused(
        dir.path(),
        r"
error: `{{ crowd.fixed.calls }}` stands in a formula, where references are not replaced
  --> content/a.md:11:10
   |
11 | The $p = {{ crowd.fixed.calls }}$ calls.
   |          ^^^^^^^^^^^^^^^^^^^^^^^
   = help: write the value in the sentence beside the formula

error: 1 problem found
",
    );
}

#[test]
fn a_dollar_in_prose_and_an_escaped_one_are_published_as_written() {
    let dir = site(
        "title: T\n",
        "A ticket is $5 and a pass $10; a range is \\$5-\\$10.\n",
    );
    let html = built(dir.path());
    assert!(
        html.contains("<p>A ticket is $5 and a pass $10; a range is $5-$10.</p>"),
        "{html}"
    );
    assert!(!html.contains("<math"), "{html}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Whatever an author writes between dollar signs is typeset or refused with a
    /// message; the reader of LaTeX never panics.
    #[test]
    fn any_formula_is_typeset_or_refused(
        parts in proptest::collection::vec(prop_oneof![
            Just("\\"), Just("{"), Just("}"), Just("^"), Just("_"), Just("&"), Just("#"),
            Just("%"), Just("~"), Just("["), Just("]"), Just("("), Just(")"), Just(" "),
            Just("\n"), Just("a"), Just("1"), Just("\\frac"), Just("\\left"),
            Just("\\right"), Just("\\begin{cases}"), Just("\\end{cases}"), Just("\\\\"),
            Just("\\text"), Just("\\def"), Just("\\sqrt"), Just("\\operatorname"),
            Just("\u{e000}"), Just("\u{6eb}"), Just("é"), Just("<"), Just("'"),
        ], 0..30)
    ) {
        let latex: String = parts.concat();
        for shown in [false, true] {
            match typeset(&latex, shown) {
                Ok(html) => prop_assert!(html.starts_with("<math"), "{latex:?}: {html}"),
                Err(message) => prop_assert!(
                    message.starts_with("this formula cannot be ") && !message.contains('\n'),
                    "{latex:?}: {message}"
                ),
            }
        }
    }
}

/// Formulas written to be slow: groups nested 100,000 deep (the reader of LaTeX would
/// take minutes, looking for each group's end from its start), and 50,000 `{{` before
/// one name. Refused at once.
#[test]
fn formulas_written_to_be_slow_are_refused_at_once() {
    let deep = format!("{}x{}", "{".repeat(100_000), "}".repeat(100_000));
    let named = format!("{}a.b{}", "{{".repeat(50_000), "}}".repeat(50_000));
    let rendered = published(&format!("Deep ${deep}$ and ${named}$."));
    let messages: Vec<&str> = rendered
        .formulas
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "this formula cannot be read: its groups nest 100000 deep, more than the 64 that are read",
            "`{{a.b}}` stands in a formula, where references are not replaced",
        ]
    );
}

#[test]
fn a_percent_sign_would_hide_the_rest_of_a_formula_and_is_refused() {
    let rendered = published("Half: $p = 50%$, or $p = 50\\%$.");
    let messages: Vec<&str> = rendered
        .formulas
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "this formula has a `%`, which begins a LaTeX comment: the rest of its line would not be shown"
        ]
    );
    assert_eq!(rendered.formulas[0].help, "write a percent sign as `\\%`");
}

#[test]
fn a_formula_in_an_image_s_description_is_its_source() {
    let html = published("![rate $p^2$ a second](x.png)").html;
    assert_eq!(
        html,
        "<p><img src=\"x.png\" alt=\"rate p^2 a second\" /></p>\n"
    );
}
