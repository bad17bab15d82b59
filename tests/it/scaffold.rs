//! `retrylab new` and `retrylab init`: what they write builds at once.

use std::path::Path;

use crate::util::{fixture, run};

fn build(root: &Path) -> (i32, String, String) {
    run(&["build", "--root", root.to_str().unwrap()])
}

#[test]
fn init_makes_a_site_that_builds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my-site");
    let (code, stdout, stderr) = run(&["init", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("created a site in "), "{stdout}");
    let gitignore = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    assert_eq!(gitignore, "public/\n.retrylab-cache/\n");
    assert!(root.join("content/index.md").is_file());
    let (code, stdout, stderr) = build(&root);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("built 2 pages with 1 scenario (100 runs simulated)"),
        "{stdout}"
    );
    let article = std::fs::read_to_string(root.join("public/a-first-scenario/index.html")).unwrap();
    assert!(article.contains("<figure"));
    assert!(!article.contains("{{"), "every reference was replaced");
    let home = std::fs::read_to_string(root.join("public/index.html")).unwrap();
    assert!(home.contains("<title>my-site</title>"));
    assert_eq!(run(&["check", "--root", root.to_str().unwrap()]).0, 0);
}

#[test]
fn init_refuses_a_folder_that_is_not_empty() {
    let site = fixture("good");
    let (code, _, stderr) = run(&["init", site.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("is not empty"), "{stderr}");
}

#[test]
fn new_writes_an_article_that_builds_and_never_overwrites() {
    let site = fixture("good");
    let root = site.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["new", "Why jitter?", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("wrote content/why-jitter.md"),
        "{stdout}"
    );
    // The scenario's id is the title's first significant words; one that is already a
    // scenario id (guide/notes.md has `jitter`) gets a number.
    let why = std::fs::read_to_string(site.path().join("content/why-jitter.md")).unwrap();
    assert!(why.contains("\nid: jitter-2\n"), "{why}");
    assert_eq!(run(&["new", "Jitter", "--root", root]).0, 0);
    let jitter = std::fs::read_to_string(site.path().join("content/jitter.md")).unwrap();
    assert!(jitter.contains("\nid: jitter-3\n"), "{jitter}");
    assert!(jitter.contains("{{ jitter-3.exponential.calls }}"));
    let (code, _, stderr) = run(&["new", "Why  jitter", "--root", root]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("content/why-jitter.md already exists"),
        "{stderr}"
    );
    let (code, stdout, stderr) = build(site.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("built 5 pages with 6 scenarios"),
        "{stdout}"
    );
    let article =
        std::fs::read_to_string(site.path().join("public/why-jitter/index.html")).unwrap();
    assert!(article.contains("<h1>Why jitter?</h1>"));
    assert!(!article.contains("{{"));
}

/// The steps of the Pages workflow's build job, as YAML nodes.
fn build_steps(workflow: &str) -> Vec<retrylab::yaml::Node> {
    let doc = retrylab::yaml::parse(workflow).expect("the workflow is YAML");
    let steps = doc
        .get("jobs")
        .and_then(|j| j.get("build"))
        .and_then(|b| b.get("steps"))
        .expect("jobs.build.steps");
    match &steps.value {
        retrylab::yaml::Value::Seq(items) => items.clone(),
        _ => panic!("steps is a list"),
    }
}

/// A step's `key` (`run`, `uses`, `name`, `id`), if it has one.
fn step_text<'a>(step: &'a retrylab::yaml::Node, key: &str) -> Option<&'a str> {
    step.get(key).and_then(|n| n.as_scalar())
}

/// The `run:` of the step named `name`.
fn run_of<'a>(steps: &'a [retrylab::yaml::Node], name: &str) -> &'a str {
    steps
        .iter()
        .find(|s| step_text(s, "name") == Some(name))
        .and_then(|s| step_text(s, "run"))
        .unwrap_or_else(|| panic!("no step `{name}` with a run"))
}

/// Shell words of a simple command line: spaces split, double quotes group.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    assert!(!quoted, "an unclosed quote in {line}");
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[test]
fn init_writes_a_pages_workflow_that_installs_this_version_and_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("retry-notes");
    let (code, stdout, stderr) = run(&["init", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("wrote .github/workflows/pages.yml: pushed to GitHub"),
        "{stdout}"
    );
    let workflow = std::fs::read_to_string(root.join(".github/workflows/pages.yml")).unwrap();
    let doc = retrylab::yaml::parse(&workflow).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        doc.get("env")
            .and_then(|e| e.get("RETRYLAB_VERSION"))
            .and_then(|v| v.as_scalar()),
        Some(version)
    );
    let steps = build_steps(&workflow);
    let uses: Vec<&str> = steps.iter().filter_map(|s| step_text(s, "uses")).collect();
    for action in [
        "actions/checkout@v4",
        "actions/configure-pages@v5",
        "actions/upload-pages-artifact@v3",
    ] {
        assert!(uses.contains(&action), "{action} in {uses:?}");
    }
    assert!(workflow.contains("uses: actions/deploy-pages@v4"));
    // The release's installer, at the project's own address, with `cargo install` of
    // the same version where the release has no binary for the runner.
    let install = run_of(&steps, "Install retrylab");
    let installer = retrylab::site::scaffold::installer_url("${RETRYLAB_VERSION}");
    assert!(
        installer.starts_with(&format!(
            "{}/releases/download/v",
            env!("CARGO_PKG_REPOSITORY")
        )),
        "{installer}"
    );
    assert!(
        install.contains(&format!("installer=\"{installer}\"")),
        "{install}"
    );
    assert!(install.contains("cargo install --locked \"retrylab@${RETRYLAB_VERSION}\""));
    // The workflow's own build command, run on the new site with a project site's
    // address as `actions/configure-pages` gives it (no final slash): every link holds.
    let build = run_of(&steps, "Build the site");
    let line = build.replace(
        "${{ steps.pages.outputs.base_url }}",
        "https://alice.github.io/retry-notes",
    );
    let args = words(&line);
    assert_eq!(args[0], "retrylab", "{line}");
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let (code, _, stderr) = crate::util::run_in(&root, &args);
    assert_eq!(code, 0, "{stderr}");
    let checked = crate::publish::every_internal_address_resolves(
        &root.join("public"),
        "https://alice.github.io/retry-notes/",
    );
    assert!(checked > 15, "only {checked} addresses checked");
    let home = std::fs::read_to_string(root.join("public/index.html")).unwrap();
    assert!(home.contains("href=\"https://alice.github.io/retry-notes/\""));
}

#[test]
fn this_sites_workflow_is_inits_with_the_tool_built_from_source() {
    use retrylab::site::scaffold::{Install, pages_workflow};
    let path = crate::util::root().join(".github/workflows/pages.yml");
    let ours = pages_workflow(Install::Source);
    if std::env::var_os("UPDATE_WORKFLOW").is_some() {
        std::fs::write(&path, &ours).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        ours,
        "the Pages workflow differs from `pages_workflow(Install::Source)`; \
         `UPDATE_WORKFLOW=1 cargo test pages` rewrites it"
    );
    // The two differ only in how the tool is installed: the same build, cache and
    // publishing steps in the same order.
    let theirs = pages_workflow(Install::Release);
    let after_install =
        |w: &str| w[w.find("      # The simulations' cache").unwrap()..].to_string();
    assert_eq!(after_install(&ours), after_install(&theirs));
    assert_eq!(build_steps(&ours).len(), build_steps(&theirs).len() + 1);
}

#[test]
fn init_without_a_workflow_and_in_a_fresh_clone_that_has_one() {
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare");
    let (code, stdout, stderr) = run(&["init", bare.to_str().unwrap(), "--no-workflow"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("pages.yml"), "{stdout}");
    assert!(!bare.join(".github").exists());
    // A repository's fresh clone: its own workflow, .gitignore and README are kept.
    let clone = dir.path().join("clone");
    std::fs::create_dir_all(clone.join(".git")).unwrap();
    std::fs::create_dir_all(clone.join(".github/workflows")).unwrap();
    std::fs::write(clone.join(".github/workflows/pages.yml"), "name: mine\n").unwrap();
    std::fs::write(clone.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(clone.join("README.md"), "# notes\n").unwrap();
    let (code, stdout, stderr) = run(&["init", clone.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("created a site in "), "{stdout}");
    assert!(
        stderr.contains("note: .github/workflows/pages.yml already exists and was kept"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: .gitignore already exists and was kept: add `public/`"),
        "{stderr}"
    );
    let read = |name: &str| std::fs::read_to_string(clone.join(name)).unwrap();
    assert_eq!(read(".github/workflows/pages.yml"), "name: mine\n");
    assert_eq!(read(".gitignore"), "*.log\n");
    assert_eq!(read("README.md"), "# notes\n");
    assert!(clone.join("site.yaml").is_file());
    // Anything else in the folder is still refused, and nothing is written.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "x").unwrap();
    let (code, _, stderr) = run(&["init", other.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("is not empty (it holds notes.txt)"),
        "{stderr}"
    );
    assert!(!other.join("site.yaml").exists());
}

#[test]
fn init_where_a_folder_it_needs_is_a_file_or_a_link_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // `.github` belongs to a fresh clone, but as a file it cannot hold the workflow.
    let clone = dir.path().join("clone");
    std::fs::create_dir_all(&clone).unwrap();
    std::fs::write(clone.join(".github"), "x").unwrap();
    let (code, _, stderr) = run(&["init", clone.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            ".github is a file, where `retrylab init` would make a folder for \
                         .github/workflows/pages.yml; move it aside or use `--no-workflow`; \
                         nothing was written"
        ),
        "{stderr}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&clone)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, [".github"]);
    // Without the workflow, the file is no folder it needs.
    let (code, _, stderr) = run(&["init", clone.to_str().unwrap(), "--no-workflow"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(clone.join("site.yaml").is_file());
    // A link could lead out of the site: never written through.
    #[cfg(unix)]
    {
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let linked = dir.path().join("linked");
        std::fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(&outside, linked.join(".github")).unwrap();
        let (code, _, stderr) = run(&["init", linked.to_str().unwrap()]);
        assert_eq!(code, 1);
        assert!(stderr.contains("is a symbolic link"), "{stderr}");
        assert!(!linked.join("site.yaml").exists());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }
}

#[test]
fn the_placeholder_description_is_noted_and_the_footer_is_the_sites() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    assert_eq!(run(&["init", root.to_str().unwrap(), "--no-workflow"]).0, 0);
    let r = root.to_str().unwrap();
    for command in ["check", "build"] {
        let (code, _, stderr) = run(&[command, "--root", r]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stderr.contains("note: site.yaml: description is still `What this site explains"),
            "{command}: {stderr}"
        );
    }
    let home = || std::fs::read_to_string(root.join("public/index.html")).unwrap();
    assert!(home().contains(" · its charts and tables are simulated when the site is built."));
    let yaml = std::fs::read_to_string(root.join("site.yaml")).unwrap();
    let yaml = yaml.replace(
        "What this site explains, in one sentence.",
        "Notes on retries & backoff.",
    );
    std::fs::write(
        root.join("site.yaml"),
        format!("{yaml}footer: Written by <Alice>\n"),
    )
    .unwrap();
    for command in ["check", "build"] {
        let (code, _, stderr) = run(&[command, "--root", r]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            !stderr.contains("description is still"),
            "{command}: {stderr}"
        );
    }
    assert!(
        home().contains(" · Written by &lt;Alice&gt;."),
        "{}",
        home()
    );
    assert!(!home().contains("simulated when the site is built"));
    std::fs::write(root.join("site.yaml"), format!("{yaml}footer: \"\"\n")).unwrap();
    assert_eq!(run(&["build", "--root", r]).0, 0);
    assert!(home().contains("<p>site. <a href="), "{}", home());
}
