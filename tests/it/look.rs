//! The site's look: the built-in templates and stylesheets, each replaceable on its own,
//! and `retrylab init --templates`, which copies them into a site to be changed.

use std::path::Path;

use crate::util::{build, files, fixture, root, run};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names of the built-in templates and stylesheets, as `init --templates` copies
/// them: `templates/base.html`, …, `static/style.css`, ….
fn copied_names() -> Vec<String> {
    let templates = retrylab::site::templates::DEFAULTS
        .iter()
        .map(|(name, _)| format!("templates/{name}"));
    let sheets = retrylab::site::templates::SHEETS
        .iter()
        .map(|(name, _)| format!("static/{name}"));
    templates.chain(sheets).collect()
}

#[test]
fn the_built_in_look_is_this_repositorys_templates_and_static_files() {
    // The binary carries these very files, so this site's own copies change nothing.
    let templates = retrylab::site::templates::DEFAULTS;
    for (name, text) in templates {
        assert_eq!(read(&root().join("templates").join(name)), *text, "{name}");
    }
    for (name, text) in retrylab::site::templates::SHEETS {
        assert_eq!(read(&root().join("static").join(name)), *text, "{name}");
    }
    assert_eq!(
        read(&root().join("static/favicon.svg")),
        retrylab::site::templates::FAVICON
    );
    // Nothing else lives there: a file of templates/ or static/ is part of the look.
    let mut names: Vec<String> = files(&root().join("templates"))
        .into_keys()
        .map(|n| format!("templates/{n}"))
        .chain(
            files(&root().join("static"))
                .into_keys()
                .map(|n| format!("static/{n}")),
        )
        .collect();
    names.sort();
    let mut expected = copied_names();
    expected.push("static/favicon.svg".to_string());
    expected.sort();
    assert_eq!(names, expected);
}

#[test]
fn each_sheet_is_linked_and_written_and_replaced_alone() {
    let site = fixture("good");
    let out = site.path().join("out");
    assert_eq!(build(site.path(), &out).0, 0);
    let home = read(&out.join("index.html"));
    for (name, text) in retrylab::site::templates::SHEETS {
        assert!(
            home.contains(&format!(
                "<link rel=\"stylesheet\" href=\"/fixture/{name}\">"
            )),
            "{name}"
        );
        assert_eq!(read(&out.join(name)), *text, "{name}");
    }

    // A site's own style.css replaces the site's styles, not the figures' or the code's.
    std::fs::write(
        site.path().join("static/style.css"),
        "body { color: red; }\n",
    )
    .unwrap();
    assert_eq!(build(site.path(), &out).0, 0);
    assert_eq!(read(&out.join("style.css")), "body { color: red; }\n");
    assert_eq!(read(&out.join("chart.css")), retrylab::chart::CSS);
    assert!(read(&out.join("highlight.css")).contains(".hl-"));

    // A site's own chart.css replaces only the figures' styles.
    std::fs::remove_file(site.path().join("static/style.css")).unwrap();
    std::fs::write(
        site.path().join("static/chart.css"),
        "svg { color: blue; }\n",
    )
    .unwrap();
    assert_eq!(build(site.path(), &out).0, 0);
    assert_eq!(read(&out.join("chart.css")), "svg { color: blue; }\n");
    assert_eq!(
        read(&out.join("style.css")),
        retrylab::site::templates::default_css()
    );
    assert!(read(&out.join("highlight.css")).contains(".hl-"));
    let (code, _, stderr) = run(&["check", "--root", site.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn init_templates_copies_the_look_into_a_site_and_it_builds_the_same() {
    let site = fixture("good");
    let before = site.path().join("before");
    assert_eq!(build(site.path(), &before).0, 0);

    let (code, stdout, stderr) = run(&["init", "--templates", site.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    // It says what it wrote, one file a line, and every file is the built-in one.
    for name in copied_names() {
        assert!(
            stdout.contains(&format!("wrote {name}\n")),
            "{name}: {stdout}"
        );
    }
    for (name, text) in retrylab::site::templates::DEFAULTS {
        assert_eq!(read(&site.path().join("templates").join(name)), *text);
    }
    for (name, text) in retrylab::site::templates::SHEETS {
        assert_eq!(read(&site.path().join("static").join(name)), *text);
    }
    // The fixture's own static file is still there, untouched.
    assert_eq!(
        read(&site.path().join("static/extra.css")),
        read(&root().join("tests/fixtures/good/static/extra.css"))
    );

    // The copies are the defaults: the site builds byte for byte as before.
    let after = site.path().join("after");
    let (code, _, stderr) = build(site.path(), &after);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(files(&before), files(&after));

    // A change to a copied template or sheet is the site's from then on.
    let base = site.path().join("templates/base.html");
    let text = read(&base).replace("<footer class=\"site-footer\">", "<footer class=\"mine\">");
    std::fs::write(&base, text).unwrap();
    std::fs::write(
        site.path().join("static/chart.css"),
        "svg { color: blue; }\n",
    )
    .unwrap();
    let changed = site.path().join("changed");
    assert_eq!(build(site.path(), &changed).0, 0);
    let home = read(&changed.join("index.html"));
    assert!(home.contains("<footer class=\"mine\">"), "{home}");
    assert!(!home.contains("site-footer"));
    assert!(read(&changed.join("storm/index.html")).contains("<footer class=\"mine\">"));
    assert_eq!(read(&changed.join("chart.css")), "svg { color: blue; }\n");
    assert_eq!(
        read(&changed.join("style.css")),
        read(&after.join("style.css"))
    );
}

#[test]
fn init_templates_keeps_every_file_already_there_and_says_so() {
    let site = fixture("good");
    std::fs::create_dir_all(site.path().join("templates")).unwrap();
    std::fs::write(site.path().join("templates/page.html"), "mine").unwrap();
    std::fs::write(site.path().join("static/style.css"), "mine too").unwrap();
    let (code, stdout, stderr) = run(&["init", "--templates", site.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    // One located message for each file kept, and the rest written.
    for kept in ["templates/page.html", "static/style.css"] {
        assert!(
            stderr.contains(&format!("error: {kept} already exists")),
            "{kept}: {stderr}"
        );
        assert!(!stdout.contains(kept), "{stdout}");
    }
    assert_eq!(stderr.matches(" already exists;").count(), 2, "{stderr}");
    assert_eq!(read(&site.path().join("templates/page.html")), "mine");
    assert_eq!(read(&site.path().join("static/style.css")), "mine too");
    assert!(stdout.contains("wrote templates/base.html\n"), "{stdout}");
    assert!(stdout.contains("wrote static/chart.css\n"), "{stdout}");
    assert_eq!(
        read(&site.path().join("templates/base.html")),
        retrylab::site::templates::DEFAULTS[0].1
    );

    // Run again, everything is there: nothing written, every file named.
    let (code, stdout, stderr) = run(&["init", "--templates", site.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(!stdout.contains("wrote"), "{stdout}");
    assert_eq!(
        stderr.matches(" already exists;").count(),
        copied_names().len(),
        "{stderr}"
    );
}

#[test]
fn init_templates_in_a_new_folder_makes_a_site_with_the_look() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my-site");
    let (code, stdout, stderr) = run(&["init", "--templates", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("created a site in "), "{stdout}");
    assert!(
        stdout.contains("wrote templates/playground.html\n"),
        "{stdout}"
    );
    assert!(root.join("site.yaml").is_file());
    let out = root.join("public");
    let (code, _, stderr) = build(&root, &out);
    assert_eq!(code, 0, "{stderr}");

    // A folder that holds other files and no site.yaml is nobody's site to change.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "x").unwrap();
    let (code, _, stderr) = run(&["init", "--templates", other.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no site.yaml"), "{stderr}");
    assert!(!other.join("templates").exists());
}

#[test]
fn every_list_of_the_templates_names_them_all() {
    let (code, help, _) = run(&["init", "--help"]);
    assert_eq!(code, 0);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let guide = read(&root().join("content/writing-articles.md"));
    for (name, _) in retrylab::site::templates::DEFAULTS {
        assert!(help.contains(name), "{name}: {help}");
        assert!(guide.contains(&format!("`templates/{name}`")), "{name}");
    }
    for (name, _) in retrylab::site::templates::SHEETS {
        assert!(help.contains(name), "{name}: {help}");
        assert!(guide.contains(&format!("`static/{name}`")), "{name}");
    }
}
