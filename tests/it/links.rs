//! Every internal link and anchor of a built site resolves: each `href` and `src` in
//! every HTML file leads to a file of the output, and each `#anchor` to an element id
//! on the page it names; with the default base URL and with a GitHub Pages project one
//! (`/REPO/`). This reads the output as a browser would, so it also covers what
//! templates write, which `retrylab check` does not see.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{copy_tree, files, fixture, root, run};

/// A project site's address, as GitHub Pages gives it.
const PROJECT_URL: &str = "https://example.github.io/REPO/";

/// The start tags of an HTML text, each as its name and attributes, values unescaped.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(at) = html[i..].find('<') {
        i += at + 1;
        if html[i..].starts_with("!--") {
            i += html[i..].find("-->").map_or(html.len() - i, |e| e + 3);
            continue;
        }
        if !bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_end = i + html[i..]
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(html.len() - i);
        let name = html[i..name_end].to_ascii_lowercase();
        let mut attributes = Vec::new();
        let mut j = name_end;
        loop {
            while bytes
                .get(j)
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
            {
                j += 1;
            }
            if j >= bytes.len() || bytes[j] == b'>' {
                break;
            }
            let key_end = j + html[j..]
                .find(|c: char| c.is_whitespace() || c == '=' || c == '>')
                .unwrap_or(html.len() - j);
            let key = html[j..key_end].to_ascii_lowercase();
            j = key_end;
            let mut value = String::new();
            if bytes.get(j) == Some(&b'=') {
                j += 1;
                let quote = bytes[j];
                let (start, end) = if quote == b'"' || quote == b'\'' {
                    let end = j + 1 + html[j + 1..].find(quote as char).expect("closed quote");
                    (j + 1, end + 1)
                } else {
                    let end = j + html[j..]
                        .find(|c: char| c.is_whitespace() || c == '>')
                        .unwrap_or(html.len() - j);
                    (j, end)
                };
                value = unescape(html[start..end].trim_end_matches(quote as char));
                j = end;
            }
            attributes.push((key, value));
        }
        out.push((name, attributes));
        i = j;
    }
    out
}

/// An attribute value with the entities the generator writes turned back into text.
fn unescape(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// `%XX` escapes decoded, as a browser does before matching a fragment to an id.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = text
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether an address starts with a scheme (`https:`, `mailto:`, `data:`).
fn has_scheme(address: &str) -> bool {
    address.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// The file an address leads to, relative to the output folder, or why it leads nowhere.
/// `page` is the linking file's path; `base_path` is the site's path on its host.
fn resolve(address: &str, page: &str, base_path: &str, base_url: &str) -> Result<String, String> {
    let address = match address.strip_prefix(base_url) {
        Some(rest) if base_url.contains("://") => format!("{base_path}{rest}"),
        _ => address.to_string(),
    };
    let path = address.split(['?', '#']).next().unwrap_or_default();
    let joined = if path.is_empty() {
        return Ok(page.to_string());
    } else if let Some(absolute) = path.strip_prefix('/') {
        match format!("/{absolute}").strip_prefix(base_path) {
            Some(rest) => rest.to_string(),
            None => return Err(format!("is outside the site's path `{base_path}`")),
        }
    } else {
        let dir = page.rsplit_once('/').map_or("", |(d, _)| d);
        if dir.is_empty() {
            path.to_string()
        } else {
            format!("{dir}/{path}")
        }
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("climbs above the site's root".to_string());
                }
            }
            other => parts.push(other),
        }
    }
    let file = parts.join("/");
    Ok(percent_decode(&file))
}

/// Every broken internal link and anchor of the site in `dir`, one line each.
fn broken_links(dir: &Path, base_path: &str, base_url: &str) -> Vec<String> {
    let all = files(dir);
    let html: BTreeMap<&str, String> = all
        .iter()
        .filter(|(name, _)| name.ends_with(".html"))
        .map(|(name, bytes)| (name.as_str(), String::from_utf8_lossy(bytes).into_owned()))
        .collect();
    let ids: BTreeMap<&str, BTreeSet<String>> = html
        .iter()
        .map(|(name, text)| {
            let ids = tags(text)
                .into_iter()
                .flat_map(|(_, attributes)| attributes)
                .filter(|(key, _)| key == "id")
                .map(|(_, value)| value)
                .collect();
            (*name, ids)
        })
        .collect();
    let mut problems = Vec::new();
    for (page, text) in &html {
        for (tag, attributes) in tags(text) {
            for (key, value) in attributes {
                if !matches!(key.as_str(), "href" | "src" | "xlink:href") {
                    continue;
                }
                if value.starts_with("//") || (has_scheme(&value) && !value.starts_with(base_url)) {
                    continue;
                }
                let mut target = match resolve(&value, page, base_path, base_url) {
                    Ok(target) => target,
                    Err(why) => {
                        problems.push(format!("{page}: <{tag} {key}=\"{value}\"> {why}"));
                        continue;
                    }
                };
                if !all.contains_key(&target) {
                    let index = if target.is_empty() {
                        "index.html".to_string()
                    } else {
                        format!("{}/index.html", target.trim_end_matches('/'))
                    };
                    if all.contains_key(&index) {
                        target = index;
                    } else {
                        problems.push(format!(
                            "{page}: <{tag} {key}=\"{value}\"> leads to no file (`{target}`)"
                        ));
                        continue;
                    }
                }
                if let Some((_, fragment)) = value.split_once('#') {
                    let fragment = percent_decode(fragment);
                    let found = ids
                        .get(target.as_str())
                        .is_some_and(|i| i.contains(&fragment));
                    // `#` alone and `#top` lead to the top of a page in every browser.
                    if !found && !fragment.is_empty() && fragment != "top" {
                        problems.push(format!(
                            "{page}: <{tag} {key}=\"{value}\"> names no id on `{target}`"
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// Builds the site at `site` into `out` with an optional base URL; panics on failure.
fn build(site: &Path, out: &Path, base_url: Option<&str>) {
    let mut args = vec![
        "build",
        "--root",
        site.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(
        base_url
            .map(|url| ["--base-url", url])
            .into_iter()
            .flatten(),
    );
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
}

/// Builds the site at `site` with its own base URL and with a project one, and asserts
/// that every internal link and anchor resolves in both.
fn assert_links_resolve(site: &Path, default_base_path: &str) {
    let out = tempfile::tempdir().unwrap();
    let (own, project) = (out.path().join("own"), out.path().join("project"));
    build(site, &own, None);
    build(site, &project, Some(PROJECT_URL));
    let broken = broken_links(&own, default_base_path, default_base_path);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    let broken = broken_links(&project, "/REPO/", PROJECT_URL);
    assert!(
        broken.is_empty(),
        "broken links under /REPO/:\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_link_and_anchor_of_this_site_resolves() {
    // A copy, so that the build's cache stays out of the working tree; the simulations
    // of this site take a few seconds even in a debug build.
    let site = tempfile::tempdir().unwrap();
    for part in [
        "site.yaml",
        "sources.yaml",
        "content",
        "scenarios",
        "templates",
        "static",
    ] {
        let from = root().join(part);
        if from.is_dir() {
            copy_tree(&from, &site.path().join(part));
        } else if from.is_file() {
            std::fs::copy(&from, site.path().join(part)).unwrap();
        }
    }
    assert_links_resolve(site.path(), "/");
}

#[test]
fn every_link_and_anchor_of_a_nested_fixture_resolves() {
    let site = fixture("good");
    assert_links_resolve(site.path(), "/fixture/");
}

#[test]
fn every_link_of_a_site_with_odd_file_names_resolves() {
    // Spaces, `#`, `%`, `?` and letters beyond ASCII in file names: the links carry
    // them escaped, and decoded they lead to the files.
    let site = crate::addresses::hostile("pages-names");
    std::fs::write(
        site.path().join("content/what?.md"),
        "---\ntitle: What?\n---\n[Back](my%20page.md#top).\n",
    )
    .unwrap();
    assert_links_resolve(site.path(), "/odd/");
}

#[test]
fn a_broken_link_or_anchor_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "index.html",
        r##"<!-- <a href="/commented/"> --><link rel="stylesheet" href="/REPO/style.css">
<a href="/REPO/a/#here">ok</a> <a href='a/#gone'>x</a> <a href="/REPO/b/">x</a>
<a href="https://example.github.io/REPO/a/">ok</a> <a href="https://example.org/">ok</a>
<img src="../up.png" alt=""> <a href="/elsewhere/">x</a> <a href="#top">ok</a>"##,
    );
    write("style.css", "");
    write("a/index.html", r#"<h2 id="here">Here</h2>"#);
    assert_eq!(
        broken_links(dir.path(), "/REPO/", PROJECT_URL),
        [
            "index.html: <a href=\"a/#gone\"> names no id on `a/index.html`",
            "index.html: <a href=\"/REPO/b/\"> leads to no file (`b`)",
            "index.html: <img src=\"../up.png\"> climbs above the site's root",
            "index.html: <a href=\"/elsewhere/\"> is outside the site's path `/REPO/`",
        ]
    );
}

/// A heading's anchor as GitHub writes it, for the repository's own Markdown (whose
/// headings are ASCII): lowercase, spaces to `-`, other punctuation but `-` and `_`
/// dropped.
fn github_anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The lines of a Markdown text outside its fenced code blocks, fences left out, as
/// CommonMark reads them: a fence opens with three or more backticks and an info string
/// without one (so a line that starts with a code span, ```` ```rust ````, is prose),
/// and closes with at least as many and nothing after them.
fn outside_fences(text: &str) -> Vec<&str> {
    let mut open: Option<usize> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match open {
            Some(n) if ticks >= n && line[ticks..].trim().is_empty() => open = None,
            Some(_) => {}
            None if ticks >= 3 && !line[ticks..].contains('`') => open = Some(ticks),
            None => out.push(line),
        }
    }
    out
}

#[test]
fn the_readme_and_contributing_link_to_what_exists() {
    let root = crate::util::root();
    let anchors = |text: &str| -> Vec<String> {
        outside_fences(text)
            .into_iter()
            .filter(|line| line.starts_with('#'))
            .map(|line| github_anchor(line.trim_start_matches('#')))
            .collect()
    };
    for doc in ["README.md", "CONTRIBUTING.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        // Links in code are examples, not links: leave out fenced blocks and code spans.
        let prose: String = outside_fences(&text)
            .into_iter()
            .map(|line| {
                let mut out = String::new();
                for (i, piece) in line.split('`').enumerate() {
                    if i % 2 == 0 {
                        out.push_str(piece);
                    }
                }
                out + "\n"
            })
            .collect();
        let mut rest = prose.as_str();
        let mut seen = 0;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            seen += 1;
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() { doc } else { file };
            let path = root.join(file);
            assert!(
                path.exists(),
                "{doc}: the link to {target} leads to no file"
            );
            if !anchor.is_empty() {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    anchors(&text).iter().any(|a| a == anchor),
                    "{doc}: the link to {target} leads to no heading"
                );
            }
        }
        assert!(seen > 0, "{doc} has no link to check");
    }
}

/// The README is a front door: the two commands, a picture of a built page, and a way on
/// for readers, authors and contributors; the reference lives in the site's own pages
/// and CONTRIBUTING.md, whose code map names every part of `src/`.
#[test]
fn the_readme_is_a_front_door() {
    let root = crate::util::root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for command in [
        "cargo run --release -- build   # build the site into public/",
        "cargo test                     # run the test suite",
    ] {
        assert!(
            readme.lines().any(|line| line == command),
            "the README has no line `{command}`"
        );
    }
    assert!(
        readme.lines().count() <= 80,
        "the README is {} lines: it is a front door, and the reference belongs in the \
         site's pages or CONTRIBUTING.md",
        readme.lines().count()
    );
    for page in [
        "](content/why-waiting-longer.md)",
        "](content/writing-articles.md)",
        "](content/commands.md)",
        "](content/model.md)",
        "](CONTRIBUTING.md)",
    ] {
        assert!(readme.contains(page), "the README does not link {page}");
    }
    // The picture: alt text, and small enough for a README.
    let at = readme.find("![").expect("the README has no picture");
    let end = at + readme[at..].find("](").unwrap();
    assert!(end - at > 40, "the README's picture needs alt text");
    let file = &readme[end + 2..end + 2 + readme[end + 2..].find(')').unwrap()];
    assert!(file.ends_with(".png"), "{file}");
    let bytes = std::fs::metadata(root.join(file)).unwrap().len();
    assert!(bytes < 150_000, "{file} is {bytes} bytes");

    let contributing = std::fs::read_to_string(root.join("CONTRIBUTING.md")).unwrap();
    let map = &contributing[contributing
        .find("\n## Code map\n")
        .expect("CONTRIBUTING.md has no section `Code map`")..];
    let map = &map[..map[1..].find("\n## ").map_or(map.len(), |end| end + 1)];
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let stem = name.strip_suffix(".rs").unwrap_or(&name);
        assert!(
            map.contains(&format!("src/{stem}")),
            "the code map of CONTRIBUTING.md does not name src/{name}"
        );
    }
}
