//! `serve`'s memo: a build that reuses what earlier builds left writes exactly the
//! bytes of a build from nothing, whatever was edited between them.

use std::path::Path;

use retrylab::site::memo::Memo;
use retrylab::site::{self, Options};

use crate::util::{files, fixture};

fn options(root: &Path, output: &Path) -> Options {
    Options {
        root: root.to_path_buf(),
        output: Some(output.to_path_buf()),
        base_url: None,
        drafts: false,
        progress: false,
    }
}

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{from} not in {}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_build_with_a_memo_writes_the_bytes_of_a_build_from_nothing() {
    let site = fixture("good");
    let root = site.path();
    let out = tempfile::tempdir().unwrap();
    let (kept, fresh) = (out.path().join("kept"), out.path().join("fresh"));
    let mut memo = Memo::for_server();
    let storm = root.join("content/storm.md");
    let append = |text: &str| {
        let mut page = std::fs::read_to_string(&storm).unwrap();
        page.push_str(text);
        std::fs::write(&storm, page).unwrap();
    };
    let index = root.join("content/index.md");
    let site_yaml = root.join("site.yaml");
    let edits: [&dyn Fn(); 16] = [
        // Nothing.
        &|| {},
        // Prose before the block: the same directive, at another place.
        &|| {
            edit(
                &storm,
                "## The scenario\n",
                "## The scenario\n\nA line before the block.\n",
            )
        },
        // Prose.
        &|| {
            edit(
                &storm,
                "With a fixed delay",
                "With a delay that never changes",
            )
        },
        // A scenario: new results, so a new figure.
        &|| edit(&storm, "clients: 20", "clients: 21"),
        // A figure's window alone: the same results, another figure.
        &|| edit(&storm, "window: 2s", "window: 1s"),
        // A code block, then its code, then its language: highlighted anew each time.
        &|| append("\n```rust\nfn main() {}\n```\n"),
        &|| edit(&storm, "fn main() {}", "fn main() { let x = 1; }"),
        &|| edit(&storm, "```rust\nfn main()", "```python\nfn main()"),
        // A template of the site's own.
        &|| {
            std::fs::create_dir_all(root.join("templates")).unwrap();
            std::fs::write(
                root.join("templates/page.html"),
                "{% extends \"base.html\" %}{% block main %}<main id=\"main\">{{ page.content | safe }}</main>{% endblock main %}",
            )
            .unwrap();
        },
        // Another page quotes the scenario, then the scenario changes: that page's body
        // is the same, its numbers are not.
        &|| {
            let mut page = std::fs::read_to_string(&index).unwrap();
            page.push_str(
                "\nThe storm's fixed delay makes {{ storm.fixed.calls }} calls -- \"many\".\n",
            );
            std::fs::write(&index, page).unwrap();
        },
        &|| edit(&storm, "clients: 21", "clients: 22"),
        // Settings of the whole site, which every page is rendered with.
        &|| {
            let mut config = std::fs::read_to_string(&site_yaml).unwrap();
            config.push_str("smart_punctuation: false\n");
            std::fs::write(&site_yaml, config).unwrap();
        },
        &|| edit(&site_yaml, "example.org/fixture/", "example.org/elsewhere/"),
        // A page added: every page's links are resolved against the site's pages.
        &|| {
            std::fs::write(
                root.join("content/extra.md"),
                "---\ntitle: Extra\n---\n\nMore.\n",
            )
            .unwrap();
        },
        // A static file, then the page removed: their files, and the page's folder, go.
        &|| {
            std::fs::create_dir_all(root.join("static/img")).unwrap();
            std::fs::write(root.join("static/img/dot.svg"), "<svg/>").unwrap();
        },
        &|| {
            std::fs::remove_file(root.join("content/extra.md")).unwrap();
            std::fs::remove_dir_all(root.join("static/img")).unwrap();
        },
    ];
    for (i, change) in edits.iter().enumerate() {
        change();
        site::build_with(&options(root, &kept), &mut memo).unwrap();
        // A build from nothing, results from the disk cache but nothing from a memo.
        site::build(&options(root, &fresh)).unwrap();
        assert!(
            files(&kept) == files(&fresh) && folders(&kept) == folders(&fresh),
            "edit {i}: the outputs differ"
        );
    }
    // A server stopped removes the site its last build replaced; the next build makes
    // a new folder.
    let spare = format!(".kept.building-{}", std::process::id());
    assert_eq!(beside(out.path()), [spare.as_str(), "fresh", "kept"]);
    memo.spare_remover()();
    assert_eq!(
        beside(out.path()),
        ["fresh", "kept"],
        "the replaced site stays"
    );
    edit(&storm, "clients: 22", "clients: 23");
    site::build_with(&options(root, &kept), &mut memo).unwrap();
    site::build(&options(root, &fresh)).unwrap();
    assert!(
        files(&kept) == files(&fresh),
        "after a stop, the outputs differ"
    );
    drop(memo);
    assert_eq!(
        beside(out.path()),
        ["fresh", "kept"],
        "a replaced site was left behind"
    );
}

/// The names in `dir` but locks'.
fn beside(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    names.sort();
    names
}

/// The folders below `dir`.
fn folders(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut folders: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.path().strip_prefix(dir).unwrap().to_path_buf())
        .collect();
    folders.sort();
    folders
}

#[test]
fn a_build_that_fails_leaves_the_memo_sound_for_the_next() {
    let site = fixture("good");
    let root = site.path();
    let out = tempfile::tempdir().unwrap();
    let (kept, fresh) = (out.path().join("kept"), out.path().join("fresh"));
    let mut memo = Memo::for_server();
    let storm = root.join("content/storm.md");
    let index = root.join("content/index.md");
    site::build_with(&options(root, &kept), &mut memo).unwrap();
    let steps: [(&dyn Fn(), bool); 6] = [
        // A mistake in the directive, then another value than before it.
        (&|| edit(&storm, "clients: 20", "clients: -1"), false),
        (&|| edit(&storm, "clients: -1", "clients: 19"), true),
        // The same directive on a second page: its id is used twice.
        (
            &|| {
                let text = std::fs::read_to_string(&storm).unwrap();
                let block = &text[text.find("```sim").unwrap()..];
                let block = &block[..block[3..].find("```").unwrap() + 6];
                let mut page = std::fs::read_to_string(&index).unwrap();
                page.push_str(&format!("\n{block}\n"));
                std::fs::write(&index, page).unwrap();
            },
            false,
        ),
        // Its id changed there: two figures of the same scenario.
        (&|| edit(&index, "id: storm", "id: storm-again"), true),
        // An unclosed fence, then closed.
        (
            &|| {
                let mut page = std::fs::read_to_string(&index).unwrap();
                page.push_str("\n```sim\nid: open\n");
                std::fs::write(&index, page).unwrap();
            },
            false,
        ),
        (
            &|| {
                let mut page = std::fs::read_to_string(&index).unwrap();
                page.push_str("clients: 3\nhorizon: 1s\nserver: {capacity: 2, tick: 100ms}\nretry: {base: 100ms}\nstrategies: [fixed]\n```\n");
                std::fs::write(&index, page).unwrap();
            },
            true,
        ),
    ];
    for (i, (change, builds)) in steps.iter().enumerate() {
        change();
        let outcome = site::build_with(&options(root, &kept), &mut memo);
        assert_eq!(outcome.is_ok(), *builds, "step {i}: {:?}", outcome.err());
        if *builds {
            site::build(&options(root, &fresh)).unwrap();
            assert!(
                files(&kept) == files(&fresh),
                "step {i}: the outputs differ"
            );
        } else {
            // The memo's build fails exactly as a build from nothing does.
            let again = site::build(&options(root, &fresh)).unwrap_err().to_string();
            assert_eq!(outcome.unwrap_err().to_string(), again, "step {i}");
        }
    }
}
