//! This repository's articles as a reader meets them: the beginner's article first, the
//! authors' reference apart, and every article ending with its sources.

use crate::util::{root, run};

const ARTICLES: [&str; 4] = [
    "why-waiting-longer.md",
    "backoff-and-jitter.md",
    "beyond-backoff.md",
    "timeouts-and-overload.md",
];

/// The works every article cites, by the address of each.
const SOURCES: [&str; 7] = [
    "https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/",
    "https://aws.amazon.com/builders-library/timeouts-retries-and-backoff-with-jitter/",
    "https://sre.google/sre-book/handling-overload/",
    "https://sre.google/sre-book/addressing-cascading-failures/",
    "https://sigops.org/s/conferences/hotos/2021/papers/hotos21-s11-bronson.pdf",
    "https://www.usenix.org/conference/osdi22/presentation/huang-lexiang",
    "https://github.com/grpc/proposal/blob/master/A6-client-retries.md",
];

#[test]
fn every_article_ends_with_its_sources() {
    for name in ARTICLES {
        let text = std::fs::read_to_string(root().join("content").join(name)).unwrap();
        let last = text.rfind("\n## ").unwrap();
        let section = &text[last..];
        assert!(
            section.starts_with("\n## Sources and further reading\n"),
            "{name} ends with {}",
            section.lines().nth(1).unwrap_or("")
        );
        for source in SOURCES {
            assert!(
                section.contains(&format!("]({source})")),
                "{name}: {source}"
            );
        }
    }
}

#[test]
fn the_home_page_puts_the_beginners_article_first_and_the_reference_apart() {
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let (code, _, stderr) = run(&[
        "build",
        "--root",
        root().to_str().unwrap(),
        "-o",
        public.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let home = std::fs::read_to_string(public.join("index.html")).unwrap();
    let main = &home[home.find("<main").unwrap()..];
    let at = |needle: &str| {
        main.find(needle)
            .unwrap_or_else(|| panic!("no {needle} on the home page"))
    };
    let tools = at("id=\"tools-heading\"");
    let order = [
        at("href=\"/why-waiting-longer/\""),
        at("href=\"/backoff-and-jitter/\""),
        at("href=\"/beyond-backoff/\""),
        at("href=\"/timeouts-and-overload/\""),
        tools,
    ];
    assert!(order.is_sorted(), "{order:?}");
    // The reference and the playground are listed apart, after the articles' cards.
    let cards = &main[tools..];
    assert!(cards.contains("href=\"/writing-articles/\""));
    assert!(cards.contains("href=\"/playground/\""));
    let articles = &main[at("id=\"articles-heading\"")..tools];
    assert!(!articles.contains("writing-articles"), "{articles}");
    // The navigation starts with the beginner's article too.
    let nav = &home[home.find("<nav").unwrap()..home.find("</nav>").unwrap()];
    assert!(nav.find("why-waiting-longer").unwrap() < nav.find("backoff-and-jitter").unwrap());
}
