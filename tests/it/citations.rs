//! Sources as data: `sources.yaml`, `[@key]` citations, each page's list of references,
//! and the links to the exact lines, sections and chapters cited.

use crate::util::{build, failed_alike as errors};

/// Three sources of three kinds: a file of code at a tag, an RFC, a book with chapters.
const SOURCES: &str = "\
botocore-standard:
  kind: code
  repository: boto/botocore
  version: 1.43.67
  path: botocore/retries/standard.py
  note: \"`ExponentialBackoff`: full jitter, doubling to 20 s.\"
rfc9110:
  kind: rfc
  number: 9110
  title: HTTP Semantics
  year: 2022
sre-book:
  kind: book
  authors: [Betsy Beyer, Chris Jones]
  title: Site Reliability Engineering
  publisher: O'Reilly
  year: 2016
  url: https://sre.google/sre-book/table-of-contents/
  chapters:
    21: {title: Handling Overload, url: https://sre.google/sre-book/handling-overload/}
";

/// A page citing all three, one source twice at other lines.
const PAGE: &str = "---
title: Cited
---
botocore waits with full jitter [@botocore-standard, lines 425-429]. A server may
send `Retry-After` [@rfc9110, § 10.2.3]; retry at one layer [@sre-book, chapter 21;
@botocore-standard, line 100].

`[@not-a-citation]` in code stays as written.
";

/// A site of one page with `sources` (when given) beside its `site.yaml`.
fn site(page: &str, sources: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: T\nsearch: false\n").unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    std::fs::write(root.join("content/cited.md"), page).unwrap();
    if let Some(sources) = sources {
        std::fs::write(root.join("sources.yaml"), sources).unwrap();
    }
    dir
}

#[test]
fn citations_link_to_their_entries_and_the_entries_to_the_lines() {
    let site = site(PAGE, Some(SOURCES));
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("cited/index.html")).unwrap();
    let permalink = "https://github.com/boto/botocore/blob/1.43.67/botocore/retries/standard.py";
    // Numbered in the order first cited; the number leads to the entry, described by it.
    for (number, key) in [(1, "botocore-standard"), (2, "rfc9110"), (3, "sre-book")] {
        let link = format!("<a href=\"#ref-{key}\" aria-describedby=\"ref-{key}\">{number}</a>");
        assert_eq!(
            html.matches(&link).count(),
            1 + usize::from(number == 1),
            "{link}"
        );
        assert!(html.contains(&format!("<li id=\"ref-{key}\">")), "{key}");
    }
    // Each locator links to the part cited, at the version.
    for address in [
        format!("{permalink}#L425-L429"),
        format!("{permalink}#L100"),
        "https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3".to_string(),
        "https://sre.google/sre-book/handling-overload/".to_string(),
    ] {
        let link = format!("href=\"{address}\"");
        // Once at the citation, once in the list.
        assert_eq!(html.matches(&link).count(), 2, "{address}");
    }
    // The entries, in the order of their numbers, with every part cited.
    let list = &html[html.find("<section class=\"references\">").unwrap()..];
    let list = &list[..list.find("</section>").unwrap()];
    assert_eq!(
        list,
        format!(
            "<section class=\"references\">\n<h2 id=\"references\">References</h2>\n<ol>\n\
             <li id=\"ref-botocore-standard\">botocore 1.43.67, <a href=\"{permalink}\">\
             <code>botocore/retries/standard.py</code></a>, lines \
             <a href=\"{permalink}#L100\">100</a>, <a href=\"{permalink}#L425-L429\">425–429</a>. \
             <code>ExponentialBackoff</code>: full jitter, doubling to 20 s.</li>\n\
             <li id=\"ref-rfc9110\"><a href=\"https://www.rfc-editor.org/rfc/rfc9110\">RFC 9110</a>, \
             “HTTP Semantics”, 2022, § \
             <a href=\"https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3\">10.2.3</a>.</li>\n\
             <li id=\"ref-sre-book\">Betsy Beyer, Chris Jones, \
             <a href=\"https://sre.google/sre-book/table-of-contents/\"><cite>Site Reliability \
             Engineering</cite></a>, O&#39;Reilly, 2016, \
             <a href=\"https://sre.google/sre-book/handling-overload/\">chapter 21, “Handling \
             Overload”</a>.</li>\n</ol>\n"
        )
    );
    // The entry's text shows on hover or focus, hidden from screen readers (which read
    // the entry itself, as the link's description) and from the search index.
    assert!(html.contains(
        "<span class=\"cite-tip\" aria-hidden=\"true\" data-pagefind-ignore>botocore 1.43.67, \
         botocore/retries/standard.py, lines 425–429</span>"
    ));
    assert!(html.contains("<code>[@not-a-citation]</code>"));
    // The same bytes again.
    let first = std::fs::read(out.join("cited/index.html")).unwrap();
    assert_eq!(build(site.path(), &out).0, 0);
    assert_eq!(std::fs::read(out.join("cited/index.html")).unwrap(), first);
}

#[test]
fn a_wrong_citation_is_told_at_its_place_with_a_did_you_mean() {
    let page = PAGE.replace("[@rfc9110, § 10.2.3]", "[@rfc9101, § 10.2.3]");
    let site = site(&page, Some(SOURCES));
    let errors = errors(site.path());
    assert_eq!(
        errors,
        "\
error: there is no source `rfc9101`
 --> content/cited.md:5:20
  |
5 | send `Retry-After` [@rfc9101, § 10.2.3]; retry at one layer [@sre-book, chapter 21;
  |                    ^^^^^^^^^^^^^^^^^^^^
  = help: did you mean `rfc9110`?

error: 1 problem found
"
    );
}

#[test]
fn code_cited_without_lines_and_other_slips_are_each_one_error() {
    let page = "---\ntitle: Cited\n---\nA [@botocore-standard]. B [@rfc9110, lines 4-5]. \
                C [@sre-book, chapter 99]. D [@sre-book chapter 21]. E [@rfc9110, lines 1-99999999999]. \
                F [see @rfc9110].\n";
    let site = site(page, Some(SOURCES));
    let errors = errors(site.path());
    for said in [
        "error: `botocore-standard` is code: say which lines the sentence relies on\n --> content/cited.md:4:3",
        "error: `rfc9110` is no code: it has no lines to cite\n --> content/cited.md:4:27",
        "error: `sre-book` lists no chapter 99\n --> content/cited.md:4:52",
        "= help: the chapters it lists are: 21",
        "error: after `@sre-book`, a comma goes before where in the source",
        "error: `lines 1-99999999999` is no lines",
        // Text in brackets that is no citation stays text: `[see @x]` is not one.
        "error: 5 problems found",
    ] {
        assert!(errors.contains(said), "{said}\n{errors}");
    }
    // The source cited only wrongly is not also told as never cited.
    assert!(!errors.contains("never cited"), "{errors}");
}

#[test]
fn a_source_never_cited_and_a_code_source_without_its_version_are_located() {
    let sources =
        format!("{SOURCES}unused:\n  kind: paper\n  title: X\n  url: https://example.org/x\n");
    let site = site(PAGE, Some(&sources));
    assert_eq!(
        errors(site.path()),
        "\
error: the source `unused` is never cited
  --> sources.yaml:21:1
   |
21 | unused:
   | ^^^^^^
   = help: cite it where a page relies on it, as `[@unused]`, or remove it

error: 1 problem found
"
    );
    let sources = SOURCES.replace("  version: 1.43.67\n", "");
    let site = self::site(PAGE, Some(&sources));
    let errors = errors(site.path());
    // One error, at the entry; the citations of it are not told again as unknown.
    assert_eq!(
        errors,
        "\
error: missing key `botocore-standard.version`
 --> sources.yaml:2:3
  |
2 |   kind: code
  |   ^
  = help: add `version:`, the tag or commit the lines are read at

error: 1 problem found
"
    );
}

#[test]
fn a_citation_without_sources_says_where_they_go() {
    let site = site(PAGE, None);
    let errors = errors(site.path());
    assert!(
        errors.starts_with(
            "error: `@botocore-standard` is cited, but the site has no sources\n \
             --> content/cited.md:4:33"
        ),
        "{errors}"
    );
    assert!(errors.contains("sources.yaml"), "{errors}");
}

#[test]
fn a_broken_sources_file_is_one_error_at_its_place() {
    for (sources, said) in [
        (
            "a:\n\tkind: web\n",
            "error: a tab cannot indent YAML\n --> sources.yaml:2:1",
        ),
        (
            "- a\n- b\n",
            "error: sources.yaml must be a map of keys, found a list\n --> sources.yaml:1:1",
        ),
        (
            "x y:\n  kind: web\n",
            "error: `x y` cannot be cited as `[@x y]`\n --> sources.yaml:1:1",
        ),
        (
            "a:\n  kind: cod\n",
            "error: `a.kind` is `cod`, not a kind of source\n --> sources.yaml:2:9",
        ),
        (
            "a:\n  kind: rfc\n  number: -3\n  title: T\n",
            "error: `a.number` must be the RFC's number",
        ),
        (
            "a:\n  kind: web\n  title: T\n  url: javascript:alert(1)\n",
            "error: `a.url` must be an address beginning with https://",
        ),
    ] {
        let site = site(PAGE, Some(sources));
        let errors = errors(site.path());
        assert!(errors.contains(said), "{sources:?}: {said}\n{errors}");
        assert!(
            errors.ends_with("error: 1 problem found\n"),
            "{sources:?}\n{errors}"
        );
    }
    // Bytes that are no UTF-8.
    let site = site(PAGE, None);
    std::fs::write(site.path().join("sources.yaml"), b"a:\n  kind: \xff\n").unwrap();
    let errors = errors(site.path());
    assert!(errors.starts_with("error: "), "{errors}");
    assert!(errors.contains("sources.yaml:2"), "{errors}");
    assert!(errors.ends_with("error: 1 problem found\n"), "{errors}");
}

/// Every source the articles cited before their sources became data, each still a link
/// on its page: the retry-libraries article's code spans (`owner/name@version
/// path:lines`), as permalinks, and every footnote's links.
#[test]
fn this_sites_articles_keep_every_source_they_cited() {
    let before = [
        (
            "boto/botocore",
            "1.43.67",
            "botocore/configprovider.py",
            &["L33-L41", "L171"][..],
        ),
        (
            "boto/botocore",
            "1.43.67",
            "botocore/retries/standard.py",
            &[
                "L409-L413",
                "L425-L429",
                "L669-L699",
                "L44-L48",
                "L100",
                "L415-L422",
                "L445-L465",
                "L669-L718",
                "L96",
                "L78-L80",
            ],
        ),
        (
            "boto/botocore",
            "1.43.67",
            "botocore/retries/quota.py",
            &["L6-L50"],
        ),
        (
            "urllib3/urllib3",
            "2.7.0",
            "src/urllib3/util/retry.py",
            &["L411-L431", "L143-L166", "L320-L321", "L323-L326"],
        ),
        (
            "googleapis/python-api-core",
            "v2.29.0",
            "google/api_core/retry/retry_base.py",
            &["L43-L46"],
        ),
        (
            "cenkalti/backoff",
            "v4.3.0",
            "exponential.go",
            &["L78-L101"],
        ),
        (
            "jd/tenacity",
            "9.1.4",
            "tenacity/__init__.py",
            &["L215-L239"],
        ),
        ("jd/tenacity", "9.1.4", "tenacity/wait.py", &["L59-L63"]),
        (
            "litl/backoff",
            "v2.2.1",
            "backoff/_wait_gen.py",
            &["L7-L31"],
        ),
        (
            "litl/backoff",
            "v2.2.1",
            "backoff/_decorator.py",
            &["L126-L127"],
        ),
        (
            "resilience4j/resilience4j",
            "v2.4.0",
            "resilience4j-retry/src/main/java/io/github/resilience4j/retry/RetryConfig.java",
            &["L39-L43"],
        ),
        (
            "resilience4j/resilience4j",
            "v2.4.0",
            "resilience4j-core/src/main/java/io/github/resilience4j/core/IntervalFunction.java",
            &["L71-L94", "L130-L229"],
        ),
        (
            "App-vNext/Polly",
            "8.7.0",
            "src/Polly.Core/Retry/RetryConstants.cs",
            &["L9-L15"],
        ),
        (
            "App-vNext/Polly",
            "8.7.0",
            "src/Polly.Core/Retry/RetryHelper.cs",
            &["L49-L56"],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    let (code, _, stderr) = build(&crate::util::root(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("library-defaults/index.html")).unwrap();
    for (repository, version, path, lines) in before {
        for at in lines {
            let link =
                format!("href=\"https://github.com/{repository}/blob/{version}/{path}#{at}\"");
            // At the sentence, and in the list at the page's end.
            assert!(html.matches(&link).count() >= 2, "{link}");
        }
    }
    // Every source a footnote of the articles linked before the sources became data,
    // still linked from its page (at the lines read, where the link gave none).
    let moved = std::fs::read_to_string("tests/fixtures/footnote-sources.txt").unwrap();
    let mut pages = std::collections::BTreeMap::new();
    for line in moved.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (page, address) = (fields[0], *fields.last().unwrap());
        let html = pages
            .entry(page)
            .or_insert_with(|| std::fs::read_to_string(out.join(page).join("index.html")).unwrap());
        let link = format!("href=\"{}\"", address.replace('&', "&amp;"));
        assert!(
            html.contains(&link),
            "{page}: {address} is no longer linked"
        );
    }
    assert_eq!(pages.len(), 5, "{:?}", pages.keys());
    // Every line the notes on the libraries' defaults cited, before they became the
    // page `library-sources/`, a permalink there.
    let notes = std::fs::read_to_string("tests/fixtures/library-notes-sources.txt").unwrap();
    let record = std::fs::read_to_string(out.join("library-sources/index.html")).unwrap();
    let cited: Vec<&str> = notes.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(cited.len(), 157);
    for address in cited {
        assert!(record.contains(&format!("href=\"{address}\"")), "{address}");
    }
    // The table of every default links each file its defaults were read from, at its
    // tag and lines.
    for source in retrylab::engine::library::SOURCES {
        let links = retrylab::site::docs::source_links(source.source).unwrap();
        assert!(html.contains(&links), "{}", source.source);
    }
    // No source is left as text to copy: none in a code span, none pointing at a file
    // of the project that a reader of the site cannot reach.
    let text = std::fs::read_to_string("content/library-defaults.md").unwrap();
    let prose: String = text.split("```reference").next().unwrap().to_string();
    for line in prose.lines() {
        assert!(!(line.contains('@') && line.contains(".py:")), "{line}");
        assert!(!line.contains("docs/library-defaults.md"), "{line}");
    }
}

#[test]
fn a_documents_sections_and_a_rendered_files_lines_have_their_own_links() {
    let sources = "\
grfc-a6:
  kind: web
  authors: gRPC
  title: gRPC Retry Design (gRFC A6)
  url: https://github.com/grpc/proposal/blob/dc9fd4fe5b94b90b82fe2833ad1d80938e6a49c1/A6-client-retries.md
  sections:
    pushback:
      title: Pushback
      url: https://github.com/grpc/proposal/blob/dc9fd4fe5b94b90b82fe2833ad1d80938e6a49c1/A6-client-retries.md#pushback
a6-text:
  kind: code
  repository: grpc/proposal
  version: dc9fd4fe5b94b90b82fe2833ad1d80938e6a49c1
  path: A6-client-retries.md
";
    let page = "---\ntitle: Cited\n---\nPushback [@grfc-a6, section pushback], as written \
                [@a6-text, lines 10-12].\n";
    let site = site(page, Some(sources));
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("cited/index.html")).unwrap();
    let blob = "https://github.com/grpc/proposal/blob/dc9fd4fe5b94b90b82fe2833ad1d80938e6a49c1/\
                A6-client-retries.md";
    assert!(
        html.contains(&format!(", <a href=\"{blob}#pushback\">§ “Pushback”</a>]")),
        "{html}"
    );
    assert!(html.contains(&format!(
        "<a href=\"{blob}#pushback\">section “Pushback”</a>.</li>"
    )));
    // GitHub gives a Markdown file's lines anchors only in its text.
    assert!(html.contains(&format!("<a href=\"{blob}?plain=1#L10-L12\">10–12</a>")));
    assert!(
        html.contains("grpc/proposal commit dc9fd4f") || html.contains("proposal commit dc9fd4f")
    );
    // A section the entry does not list.
    let wrong = page.replace("section pushback", "section pushbak");
    let site = self::site(&wrong, Some(sources));
    let errors = errors(site.path());
    assert!(
        errors.contains("error: `grfc-a6` lists no section `pushbak`"),
        "{errors}"
    );
    assert!(errors.contains("did you mean `pushback`?"), "{errors}");
}

#[test]
fn a_source_only_a_draft_cites_is_cited() {
    // The page cites two of the three sources; a draft left out of the build cites the
    // third, which is no source "never cited".
    let page = "---\ntitle: Cited\n---\nA [@rfc9110, § 10.2.3] and [@sre-book, chapter 21].\n";
    let site = site(page, Some(SOURCES));
    let draft = "---\ntitle: Later\ndraft: true\n---\nSoon [@botocore-standard, lines 1-2].\n";
    std::fs::write(site.path().join("content/later.md"), draft).unwrap();
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    assert!(!out.join("later").exists());
    // Without the draft, the source is cited nowhere.
    std::fs::remove_file(site.path().join("content/later.md")).unwrap();
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("error: the source `botocore-standard` is never cited"),
        "{stderr}"
    );
}

#[test]
fn a_citation_where_none_can_stand_is_told_there() {
    let page = "---\ntitle: Cited\n---\n## Why [@rfc9110, § 1]\n\n[see [@rfc9110, § 2]](https://example.org)\n\n\
                ![a [@rfc9110, § 3]](/x.svg)\n\n[@rfc9110, § 4; @sre-book, chapter 21; @botocore-standard, lines 1-2]\n";
    let site = site(page, Some(SOURCES));
    std::fs::create_dir(site.path().join("static")).unwrap();
    std::fs::write(site.path().join("static/x.svg"), "<svg/>").unwrap();
    let errors = errors(site.path());
    for (place, at) in [
        ("a heading", "content/cited.md:4:8"),
        ("a link's text", "content/cited.md:6:6"),
        ("an image's description", "content/cited.md:8:5"),
    ] {
        assert!(
            errors.contains(&format!(
                "error: a citation cannot stand in {place}\n --> {at}"
            )),
            "{place}\n{errors}"
        );
    }
    assert!(errors.ends_with("error: 3 problems found\n"), "{errors}");
}

#[test]
fn a_citation_over_two_lines_or_in_a_quote_reads_as_on_one() {
    let page = "---\ntitle: Cited\n---\n## References\n\n<a id=\"ref-rfc9110\"></a>\n\n\
                Wrapped [@sre-book, chapter\n21] and [@botocore-standard, lines\n4-5].\n\n\
                > Quoted [@rfc9110,\n> § 10.2.3].\n";
    let site = site(page, Some(SOURCES));
    let out = site.path().join("public");
    let (code, _, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    let html = std::fs::read_to_string(out.join("cited/index.html")).unwrap();
    assert!(
        html.contains(
            ", chapter <a href=\"https://sre.google/sre-book/handling-overload/\">21</a>]"
        )
    );
    assert!(html.contains("#L4-L5\">4–5</a>]"));
    assert!(html.contains(
        ", § <a href=\"https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3\">10.2.3</a>]"
    ));
    // The page's own anchors keep their ids; the list's make way.
    assert!(
        html.contains("<h2 id=\"references\">References <a"),
        "{html}"
    );
    assert!(
        html.contains("<h2 id=\"references-1\">References</h2>"),
        "{html}"
    );
    assert!(html.contains("<li id=\"ref-rfc9110-1\">"), "{html}");
    assert_eq!(html.matches("id=\"ref-rfc9110\"").count(), 1);
}

#[test]
fn what_a_citation_or_an_entry_cannot_hold_is_told_at_its_place() {
    let page = "---\ntitle: Cited\n---\n[see [@rfc9110, § 5] here](https://example.org)\n\n\
                A [@rfc9110, § Retry-After]. B [@rfc9110;]. C [@sre-book, chapter 21]. \
                D![@rfc9110]. E [@rfc9110, § {{ tiny.clients }}].\n\n\
                ```sim\nid: tiny\nclients: 5\nhorizon: 10s\nserver: {capacity: 5}\n\
                strategies: [fixed]\nruns: 2\n```\n";
    let site = site(page, Some(SOURCES));
    let errors = errors(site.path());
    for said in [
        "error: a citation cannot stand in a link's text\n --> content/cited.md:4:6",
        "error: `§ Retry-After` is no section number of an RFC\n --> content/cited.md:6:3",
        "error: a citation has an empty part",
        "error: `![@…]` is how an image is written, not a citation\n --> content/cited.md:6:73",
        "error: a reference cannot stand in a citation\n --> content/cited.md:6:88",
        "error: 5 problems found",
    ] {
        assert!(errors.contains(said), "{said}\n{errors}");
    }
    // An entry's note is one paragraph of text; its path and version are an address's.
    for (field, said) in [
        (
            "  note: see [the docs](https://example.org)\n",
            "error: `botocore-standard.note` must be no link\n --> sources.yaml:3:9",
        ),
        (
            "  note: \"# Heading\"\n",
            "error: `botocore-standard.note` must be one paragraph",
        ),
        (
            "  path: a/b#c.py\n",
            "error: `botocore-standard.path` must be a path of a file as GitHub writes it",
        ),
        (
            "  version: v1?x\n",
            "error: `botocore-standard.version` must be a tag or commit",
        ),
    ] {
        let name = field.trim().split(':').next().unwrap();
        let sources: String = SOURCES
            .lines()
            .filter(|l| !l.starts_with(&format!("  {name}:")) || l.contains("kind"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .replacen("  kind: code\n", &format!("  kind: code\n{field}"), 1);
        let site = self::site(PAGE, Some(&sources));
        let told = self::errors(site.path());
        assert!(told.contains(said), "{said}\n{told}");
        assert!(told.ends_with("error: 1 problem found\n"), "{told}");
    }
}

/// The table of library defaults and the articles cite the same files: where both name a
/// file of a repository, the articles cite it at the table's version (besides any older
/// one a page compares), so a version moved in one is not left behind in the other.
#[test]
fn the_library_table_and_the_sources_agree_on_every_version() {
    let text = std::fs::read_to_string("sources.yaml").unwrap();
    let sources = retrylab::site::sources::read(&text).unwrap();
    let mut shared = 0;
    for source in retrylab::engine::library::SOURCES {
        for file in retrylab::site::docs::source_files(source.source).unwrap() {
            let versions: Vec<&str> = (sources.entries.values())
                .filter(|e| {
                    e.repository.as_deref() == Some(file.repository)
                        && e.path.as_deref() == Some(file.path)
                })
                .filter_map(|e| e.version.as_deref())
                .collect();
            if !versions.is_empty() {
                shared += 1;
                assert!(
                    versions.contains(&file.version),
                    "the table reads {} at {}, sources.yaml at {versions:?}",
                    file.path,
                    file.version
                );
            }
        }
    }
    // The articles cite most of the table's files.
    assert!(shared >= 15, "{shared}");
}

#[test]
fn a_drafts_citation_is_read_as_a_pages_over_two_lines_of_a_quote() {
    let page = "---\ntitle: Cited\n---\nA [@rfc9110, § 10.2.3] and [@sre-book, chapter 21].\n";
    let site = site(page, Some(SOURCES));
    let draft = "---\ntitle: Later\ndraft: true\n---\n> Soon [@rfc9110, § 1;\n> @botocore-standard, lines 1-2].\n";
    std::fs::write(site.path().join("content/later.md"), draft).unwrap();
    let (code, _, stderr) = build(site.path(), &site.path().join("public"));
    assert_eq!(code, 0, "{stderr}");
}
