//! A corpus of real GitHub Markdown (30 Rust RFCs, `tests/corpus/rfcs`): every problem
//! it is refused for is asserted, each a real one, and with those three put right it
//! builds, its links as GitHub has them.

use crate::markdown::refused;
use crate::util::{copy_tree, root, run_in};

/// The corpus in a fresh folder.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("tests/corpus/rfcs"), dir.path());
    dir
}

#[test]
fn the_rfcs_are_refused_for_their_real_problems_only() {
    let dir = corpus();
    // A file the RFC repository never had (RFC 3 is `0003-attribute-usage.md`), an
    // anchor written with a `-` where GitHub drops the `'` (`## The Council's
    // decision-making process` is `#the-councils-decision-making-process`), and one to
    // a section the page does not have (its heading is `## Future possibilities`).
    refused(
        dir.path(),
        r#"
error: the link to `0003-opt-in-builtin-traits.md` does not lead to a page
   --> content/0019-opt-in-builtin-traits.md:267:20
    |
267 | specification from [the original opt-in RFC](0003-opt-in-builtin-traits.md).
    |                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    = help: a link to a `.md` file must name a file under content/

error: `/3392-leadership-council/` has no heading or figure with the anchor `#the-council-s-decision-making-process`
   --> content/3392-leadership-council.md:429:79
    |
429 | … one-off operational decision. (See the [decision-making section][decision-making] for details on po…
    |                                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    = help: did you mean `#the-councils-decision-making-process`?

error: `/3654-return-type-notation/` has no heading or figure with the anchor `#future-directions`
   --> content/3654-return-type-notation.md:284:426
    |
284 | …ld implement `LocalService` always. The [future directions](#future-directions) includes some ways t…
    |                                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

error: 3 problems found
"#,
    );
}

#[test]
fn the_rfcs_put_right_build_with_githubs_anchors() {
    let dir = corpus();
    let content = dir.path().join("content");
    for (file, wrong, right) in [
        (
            "0019-opt-in-builtin-traits.md",
            "(0003-opt-in-builtin-traits.md)",
            "(0123-share-to-threadsafe.md)",
        ),
        (
            "3392-leadership-council.md",
            "#the-council-s-decision-making-process",
            "#the-councils-decision-making-process",
        ),
        (
            "3654-return-type-notation.md",
            "(#future-directions)",
            "(#future-possibilities)",
        ),
    ] {
        let path = content.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(wrong).count(), 1, "{file}");
        std::fs::write(&path, text.replace(wrong, right)).unwrap();
    }
    let (code, _, stderr) = run_in(dir.path(), &["check"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run_in(dir.path(), &["build"]);
    assert_eq!(code, 0, "{stderr}");
    let page = |address: &str| {
        std::fs::read_to_string(dir.path().join("public").join(address).join("index.html")).unwrap()
    };
    let council = page("3392-leadership-council");
    assert!(council.contains("<h2 id=\"the-councils-decision-making-process\">"));
    assert!(council.contains("href=\"#the-councils-decision-making-process\""));
    // Raw HTML's anchors and a picture beside the page, as GitHub shows them.
    let incremental = page("1298-incremental-compilation");
    assert!(incremental.contains("<a id=\"depgraph\">"), "{incremental}");
    let groups = page("2856-project-groups");
    assert!(groups.contains("src=\"/2856-project-groups/project-group-workflow.svg\""));
    assert!(
        dir.path()
            .join("public/2856-project-groups/project-group-workflow.svg")
            .is_file()
    );
    // Headings in other scripts keep their letters.
    let russian = page("3392-leadership-council/Leadership-Council-RFCru-RU");
    assert!(
        russian.contains(" id=\"процедурная-информация\""),
        "{russian}"
    );
}
