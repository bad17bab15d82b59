//! This repository's articles as a reader meets them: the beginner's article first, the
//! authors' reference apart, every article ending with its sources, and every citation
//! leading somewhere: each footnote defined, each definition used and linked, each link
//! out of the site a well-formed absolute address.

use std::collections::BTreeSet;

use pulldown_cmark::{Event, Parser, Tag};
use retrylab::directive::markdown_options;

use crate::util::{root, run};

const ARTICLES: [&str; 4] = [
    "why-waiting-longer.md",
    "backoff-and-jitter.md",
    "beyond-backoff.md",
    "timeouts-and-overload.md",
];

/// The works every article cites, by the address of each.
const SOURCES: [&str; 9] = [
    "https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/",
    "https://aws.amazon.com/builders-library/timeouts-retries-and-backoff-with-jitter/",
    "https://sre.google/sre-book/handling-overload/",
    "https://sre.google/sre-book/addressing-cascading-failures/",
    "https://sigops.org/s/conferences/hotos/2021/papers/hotos21-s11-bronson.pdf",
    "https://www.usenix.org/conference/osdi22/presentation/huang-lexiang",
    "https://github.com/grpc/proposal/blob/master/A6-client-retries.md",
    "https://www.rfc-editor.org/rfc/rfc9110",
    "https://www.rfc-editor.org/rfc/rfc6585",
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

/// A footnote label as references match it: case and runs of spaces do not count.
fn label(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Why `address` is not a well-formed absolute `http(s)` address, if it is not: a
/// scheme, a host name with a dot (no `localhost`, no bare word), an optional port, and
/// a path, query and fragment of the characters RFC 3986 allows, with every `%` escape
/// complete.
fn malformed(address: &str) -> Option<String> {
    let Some((scheme, rest)) = address.split_once("://") else {
        return Some("has no scheme".into());
    };
    if !matches!(scheme, "https" | "http") {
        return Some(format!("has the scheme `{scheme}`"));
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => return Some(format!("has a bad port in `{authority}`")),
        None => authority,
    };
    let labels: Vec<&str> = host.split('.').collect();
    let good_label = |l: &&str| {
        !l.is_empty()
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if labels.len() < 2 || !labels.iter().all(good_label) {
        return Some(format!("has the host `{host}`"));
    }
    let bytes = tail.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let escape = bytes.get(i + 1..i + 3);
            if !escape.is_some_and(|e| e.iter().all(u8::is_ascii_hexdigit)) {
                return Some("has an incomplete `%` escape".into());
            }
            i += 3;
            continue;
        }
        if !(b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?#".contains(&b)) {
            return Some(format!("has the character `{}`", char::from(b)));
        }
        i += 1;
    }
    None
}

#[test]
fn the_address_check_tells_good_from_bad() {
    for good in [
        "https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3",
        "https://github.com/grpc/grpc-go/blob/v1.83.1/stream.go#L776-L779",
        "https://example.org:8443/a%20b?q=1&r=(2)",
        "http://example.org",
    ] {
        assert_eq!(malformed(good), None, "{good}");
    }
    for bad in [
        "www.rfc-editor.org/rfc/rfc9110",
        "https//example.org/",
        "ftp://example.org/",
        "https://localhost/",
        "https://exa mple.org/",
        "https://example.org:port/",
        "https://-example.org/",
        "https://example.org/a b",
        "https://example.org/100%",
        "https://example.org/%zz",
        "https://example.org/\"quoted\"",
    ] {
        assert!(malformed(bad).is_some(), "{bad}");
    }
}

#[test]
fn every_footnote_resolves_and_every_link_out_is_a_well_formed_address() {
    let mut problems = Vec::new();
    for name in ARTICLES {
        let text = std::fs::read_to_string(root().join("content").join(name)).unwrap();
        let mut referenced = BTreeSet::new();
        let mut defined = BTreeSet::new();
        // The footnote definition being read, and whether it has linked anything yet.
        let mut definition: Option<(String, bool)> = None;
        // The prose since the last event that was not text: a reference to no footnote,
        // or a link whose address does not parse, is left there as it was written.
        let mut prose = String::new();
        for event in Parser::new_ext(&text, markdown_options()) {
            if let Event::Text(t) = &event {
                prose.push_str(t);
                // A citation of the site's sources (`[@key, lines 4-5]`) links its
                // source; the build checks its key and `sources.yaml` its address.
                if let Some((_, linked)) = definition.as_mut() {
                    *linked |= prose.contains("[@");
                }
                continue;
            }
            if let Some(at) = prose.find("[^") {
                let rest = &prose[at..];
                let end = rest.find(']').map_or(rest.len(), |e| e + 1);
                problems.push(format!("{name}: {} leads to no footnote", &rest[..end]));
            }
            if let Some(at) = prose.find("](") {
                let rest = &prose[at..];
                let end = rest.find(')').map_or(rest.len(), |e| e + 1);
                problems.push(format!("{name}: {} is not a link", &rest[..end]));
            }
            prose.clear();
            match event {
                Event::FootnoteReference(l) => {
                    referenced.insert(label(&l));
                }
                Event::Start(Tag::FootnoteDefinition(l)) => {
                    if !defined.insert(label(&l)) {
                        problems.push(format!("{name}: [^{l}] is defined twice"));
                    }
                    definition = Some((l.to_string(), false));
                }
                Event::End(pulldown_cmark::TagEnd::FootnoteDefinition) => {
                    if let Some((l, false)) = definition.take() {
                        problems.push(format!("{name}: [^{l}] cites no address"));
                    }
                }
                Event::Start(Tag::Link { dest_url, .. }) => {
                    if let Some((_, linked)) = definition.as_mut() {
                        *linked |= dest_url.contains("://");
                    }
                    // Links within the site are the link test's; anything with a scheme,
                    // or that looks like a host, leaves the site.
                    let out = dest_url.contains(':') || dest_url.starts_with("www.");
                    if let Some(why) = out.then(|| malformed(&dest_url)).flatten() {
                        problems.push(format!("{name}: <{dest_url}> {why}"));
                    }
                }
                _ => {}
            }
        }
        for l in referenced.difference(&defined) {
            problems.push(format!("{name}: [^{l}] is referenced but never defined"));
        }
        for l in defined.difference(&referenced) {
            problems.push(format!("{name}: [^{l}] is defined but never referenced"));
        }
    }
    // Every address of the site's sources, each part cited included, is well formed.
    let text = std::fs::read_to_string(root().join("sources.yaml")).unwrap();
    let sources = retrylab::site::sources::read(&text).unwrap();
    for entry in sources.entries.values() {
        let parts = (entry.chapters.values().chain(entry.sections.values()))
            .filter_map(|part| part.url.clone());
        for address in entry.address().into_iter().chain(parts) {
            if let Some(why) = malformed(&address) {
                problems.push(format!("sources.yaml: {}: <{address}> {why}", entry.key));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
