//! A site published as a GitHub Pages project site, under `/REPO/`: every internal
//! address of every page, the sitemap and the feed leads to a file of the output.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{files, fixture, run};

const BASE: &str = "https://user.github.io/repo/";

fn build_under_repo(root: &Path, out: &Path) {
    let (code, _, stderr) = run(&[
        "build",
        "--root",
        root.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--base-url",
        BASE,
    ]);
    assert_eq!(code, 0, "{stderr}");
}

/// The values of `name="…"` attributes in a text.
fn attributes<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let pattern = format!(" {name}=\"");
    text.match_indices(&pattern)
        .map(|(i, _)| {
            let rest = &text[i + pattern.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// The contents of `<tag>…</tag>` elements.
fn elements<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    text.match_indices(&open)
        .map(|(i, _)| {
            let rest = &text[i + open.len()..];
            &rest[..rest.find(&close).unwrap()]
        })
        .collect()
}

/// The path part of a base URL (`/repo/` of `https://user.github.io/repo/`).
fn base_path(base: &str) -> &str {
    let after_scheme = base.split_once("://").map_or(base, |(_, rest)| rest);
    &after_scheme[after_scheme.find('/').unwrap()..]
}

/// The file an internal address leads to, or an explanation of why it leads nowhere.
fn target(address: &str, base: &str, site: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    let under = base_path(base);
    let path = address
        .strip_prefix(base)
        .or_else(|| address.strip_prefix(under))
        .ok_or_else(|| format!("`{address}` is not under {under}"))?;
    let path = path.split(['#', '?']).next().unwrap();
    let file = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    if site.contains_key(&file) {
        Ok(())
    } else {
        Err(format!("`{address}` leads to no file ({file})"))
    }
}

fn is_internal(address: &str, base: &str) -> bool {
    !(address.starts_with('#')
        || address.starts_with("mailto:")
        || (address.contains("://") && !address.starts_with(base)))
}

#[test]
fn every_internal_address_under_a_project_base_url_resolves() {
    let site = fixture("good");
    let out = site.path().join("public");
    build_under_repo(site.path(), &out);
    let checked = every_internal_address_resolves(&out, BASE);
    assert!(checked > 40, "only {checked} addresses checked");
}

/// Checks that every internal address of every page, the sitemap and the feed of a site
/// built under `base` leads to a file of the output; returns how many were checked.
pub fn every_internal_address_resolves(out: &Path, base: &str) -> usize {
    let built = files(out);
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, bytes) in &built {
        let text = String::from_utf8_lossy(bytes);
        let addresses: Vec<&str> = if name.ends_with(".html") {
            let mut a = attributes(&text, "href");
            a.extend(attributes(&text, "src"));
            a.extend(
                text.split("<meta property=\"og:url\" content=\"")
                    .skip(1)
                    .map(|rest| &rest[..rest.find('"').unwrap()]),
            );
            a
        } else if name == "sitemap.xml" {
            elements(&text, "loc")
        } else if name == "atom.xml" {
            let mut a = attributes(&text, "href");
            a.extend(elements(&text, "id"));
            a
        } else {
            continue;
        };
        for address in addresses.into_iter().filter(|a| is_internal(a, base)) {
            checked += 1;
            if let Err(problem) = target(address, base, &built) {
                problems.push(format!("{name}: {problem}"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    checked
}

#[test]
fn the_site_files_a_host_and_a_reader_look_for() {
    let site = fixture("good");
    let out = site.path().join("public");
    build_under_repo(site.path(), &out);
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(read(".nojekyll"), "");
    assert_eq!(
        read("robots.txt"),
        format!("User-agent: *\nAllow: /\nSitemap: {BASE}sitemap.xml\n")
    );
    let feed = read("atom.xml");
    assert!(feed.starts_with(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\""
    ));
    assert!(feed.contains(&format!("<id>{BASE}</id>")));
    // Dated by the newest page, not by the clock.
    assert!(
        feed.contains("  <updated>2026-01-02T00:00:00Z</updated>\n"),
        "{feed}"
    );
    assert!(feed.contains(&format!("<id>{BASE}storm/</id>")));
    assert!(feed.contains("<summary>Half the capacity, and a fixed delay.</summary>"));
    let storm = read("storm/index.html");
    assert!(storm.contains(&format!("<link rel=\"canonical\" href=\"{BASE}storm/\">")));
    assert!(storm.contains(&format!(
        "<meta property=\"og:url\" content=\"{BASE}storm/\">"
    )));
    assert!(storm.contains("<meta property=\"og:type\" content=\"article\">"));
    assert!(storm.contains("<meta name=\"twitter:card\" content=\"summary\">"));
    assert!(storm.contains(&format!(
        "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Fixture site\" href=\"{BASE}atom.xml\">"
    )));
    assert!(storm.contains("<link rel=\"icon\" href=\"/repo/favicon.svg\""));
    // The theme toggle is hidden until the script shows it.
    assert!(storm.contains("<button class=\"theme-toggle\" type=\"button\" hidden"));
    let missing = read("404.html");
    assert!(missing.contains("href=\"/repo/style.css\""));
    assert!(missing.contains("href=\"/repo/storm/\""));
    assert!(read("favicon.svg").starts_with("<svg"));
    // Nothing a server adds for live reload is ever written.
    for (name, bytes) in files(&out) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("__retrylab"),
            "{name}"
        );
    }
}

#[test]
fn a_static_favicon_replaces_the_default() {
    let site = fixture("good");
    std::fs::write(site.path().join("static/favicon.svg"), "<svg>mine</svg>").unwrap();
    let out = site.path().join("public");
    build_under_repo(site.path(), &out);
    assert_eq!(
        std::fs::read_to_string(out.join("favicon.svg")).unwrap(),
        "<svg>mine</svg>"
    );
}
