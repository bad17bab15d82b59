//! `reference` blocks whose names are not ASCII, or that are empty at the very end of a
//! file: a diagnostic at the right place, never a panic.

use proptest::prelude::*;

use super::{arg, site_with};
use crate::util::{root, run};

const TABLES: &str = "scenario, arrivals, server, outage, slowdown, override, queue, cache, retry-after, pushback, retry, budget, breaker, \
                      throttle, hedging, layer, strategies, figure, sweep, sweep-parameters, \
                      sweep-totals, schedule, live, totals, settings, formats, front-matter, site";

/// `check` and `build` of a site whose only page is `page`: both refuse it with
/// exactly `expected` on stderr.
#[track_caller]
fn refused(page: &str, expected: &str) {
    let site = site_with(&[("a.md", page)]);
    for command in ["check", "build"] {
        let (code, stdout, stderr) = run(&[command, "--root", arg(site.path())]);
        assert_eq!(code, 1, "{command}: {stdout}{stderr}");
        assert_eq!(stderr.trim_end(), expected.trim_matches('\n'), "{command}");
    }
    assert!(!site.path().join("public").exists(), "nothing is written");
}

#[test]
fn a_reference_block_with_a_name_that_is_not_ascii_is_placed_by_characters() {
    refused(
        "---\ntitle: T\n---\n\n```reference\n  naïve\n```\n",
        &format!(
            r"
error: there is no reference table `naïve`
 --> content/a.md:6:3
  |
6 |   naïve
  |   ^^^^^
  = help: the tables are: {TABLES}

error: 1 problem found
"
        ),
    );
    refused(
        "---\ntitle: T\n---\n\n```reference\n é\n```\n",
        &format!(
            r"
error: there is no reference table `é`
 --> content/a.md:6:2
  |
6 |  é
  |  ^
  = help: the tables are: {TABLES}

error: 1 problem found
"
        ),
    );
}

#[test]
fn an_empty_reference_block_at_the_end_of_a_file_says_it_names_no_table() {
    let expected = format!(
        r"
error: this `reference` block names no table
 --> content/a.md:7:1
  |
7 | ```reference
  | ^^^^^^^^^^^^
  = help: write the name of a table inside it: {TABLES}

error: 1 problem found
"
    );
    for page in [
        "---\ntitle: T\n---\n\nText.\n\n```reference\n```",
        "---\ntitle: T\n---\n\nText.\n\n```reference\n   \n```",
    ] {
        refused(page, &expected);
    }
    // Without its closing fence, the block is first of all never closed.
    let unclosed = r"
error: this ```reference block is never closed
 --> content/a.md:7:1
  |
7 | ```reference
  | ^^^^^^^^^^^^
  = help: end it with a line of ``` after its YAML; without one, what follows is read as YAML

error: 1 problem found
";
    for page in [
        "---\ntitle: T\n---\n\nText.\n\n```reference",
        "---\ntitle: T\n---\n\nText.\n\n```reference\n",
    ] {
        refused(page, unclosed);
    }
}

#[test]
fn the_fuzz_seeds_of_these_cases_are_refused_without_a_panic() {
    for seed in [
        "robust-reference-non-ascii",
        "robust-reference-empty-no-newline",
        "robust-reference-indented-non-ascii",
    ] {
        let text = std::fs::read_to_string(root().join("fuzz/seeds/page").join(seed)).unwrap();
        let site = site_with(&[("a.md", &text)]);
        let (code, _, stderr) = run(&["check", "--root", arg(site.path())]);
        assert_eq!(code, 1, "{seed}: {stderr}");
        assert!(stderr.starts_with("error: "), "{seed}: {stderr}");
        assert!(!stderr.contains("panicked"), "{seed}: {stderr}");
    }
}

/// Text that a `reference` block might hold: blank lines, indentation, letters of
/// several widths in UTF-8, and sometimes a real table's name.
fn block_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ \t\n]{0,4}[a-zé☃𝄞ß\u{301} -]{0,6}[ \t\n]{0,3}",
        Just("retry".to_string()),
        Just(" retry ".to_string()),
        Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The page pipeline, in process, over reference blocks anywhere in a page: each is
    /// accepted or refused with diagnostics, never with a panic.
    #[test]
    fn reference_blocks_never_panic(
        before in "[a-zé \n]{0,8}",
        text in block_text(),
        indented in any::<bool>(),
        closed in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let (fence, lead) = if indented { ("- item\n\n  ```reference", "  ") } else { ("```reference", "") };
        let mut page = format!("---\ntitle: T\n---\n\n{before}\n\n{fence}\n");
        for line in text.split('\n') {
            page += &format!("{lead}{line}\n");
        }
        if closed {
            page += &format!("{lead}```");
        }
        if !final_newline {
            page.pop();
        }
        let site = site_with(&[("a.md", &page)]);
        let options = retrylab::site::Options {
            root: site.path().to_path_buf(),
            output: None,
            base_url: None,
            drafts: false,
            progress: false,
        };
        let checked = std::panic::catch_unwind(|| retrylab::site::check(&options).map_err(|f| f.to_string()));
        prop_assert!(checked.is_ok(), "check panicked on {page:?}");
        let built = std::panic::catch_unwind(|| retrylab::site::build(&options).map(|_| ()).map_err(|f| f.to_string()));
        prop_assert!(built.is_ok(), "build panicked on {page:?}");
        prop_assert_eq!(checked.unwrap().is_ok(), built.unwrap().is_ok(), "check and build agree on {:?}", page);
    }
}

#[test]
fn a_template_the_site_lacks_is_refused_by_check_as_by_build() {
    // Found by fuzzing: `check` let the page through, and `build` then failed on it.
    refused(
        "---\ntitle: T\ntemplate: playgroupd.html\n---\n\nText.\n",
        r"
error: there is no template `playgroupd.html`
 --> content/a.md:3:11
  |
3 | template: playgroupd.html
  |           ^^^^^^^^^^^^^^^
  = help: did you mean `playground.html`?

error: 1 problem found
",
    );
    let seed =
        std::fs::read_to_string(root().join("fuzz/seeds/page/check-unknown-template")).unwrap();
    let site = site_with(&[("a.md", &seed)]);
    let (code, _, stderr) = run(&["check", "--root", arg(site.path())]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("there is no template `playgroupd.html`"),
        "{stderr}"
    );
}
