//! The crate as published: what `cargo package` puts in it, and the metadata a reader
//! of the registry and every installer rely on.

use std::process::Command;

use crate::util::root;

/// Cargo itself, run in the repository.
fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The files of the packaged crate, as `cargo package --list` names them.
fn packaged() -> Vec<String> {
    cargo(&[
        "package",
        "-p",
        "retrylab",
        "--list",
        "--allow-dirty",
        "--offline",
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

/// The files under `folder` that git keeps, relative to the repository.
fn kept_under(folder: &str) -> Vec<String> {
    let dir = root().join(folder);
    walkdir::WalkDir::new(&dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect()
}

#[test]
fn the_package_holds_what_the_binary_needs_and_nothing_of_this_site() {
    let files = packaged();
    for refused in [
        "tests/",
        "content/",
        "scenarios/",
        "benches/",
        "fuzz/",
        "wasm/",
        "docs/",
        "scripts/",
        ".github/",
        ".ci/",
        "node_modules/",
    ] {
        let found: Vec<&String> = files.iter().filter(|f| f.starts_with(refused)).collect();
        assert!(found.is_empty(), "{refused} is packaged: {found:?}");
    }
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE",
        "README.md",
        "src/main.rs",
    ] {
        assert!(
            files.iter().any(|f| f == needed),
            "{needed} is not packaged"
        );
    }
    // What the binary embeds: the built-in look and the playground's scripts and engine.
    for folder in ["templates", "static", "src/site/defaults"] {
        for file in kept_under(folder) {
            assert!(files.contains(&file), "{file} is not packaged");
        }
    }
    // The snapshots of unit tests are not sources.
    assert!(files.iter().all(|f| !f.ends_with(".snap")), "{files:?}");
}

#[test]
fn the_manifest_says_what_a_registry_and_an_installer_need() {
    let metadata: serde_json::Value = serde_json::from_str(&cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]))
    .unwrap();
    let package = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "retrylab")
        .unwrap();
    for key in ["description", "license", "repository", "homepage", "readme"] {
        let value = package[key].as_str().unwrap_or("");
        assert!(!value.is_empty(), "Cargo.toml has no {key}");
    }
    for key in ["keywords", "categories"] {
        assert!(
            !package[key].as_array().unwrap().is_empty(),
            "Cargo.toml has no {key}"
        );
    }
    // The project's home is written once; the site's address is GitHub Pages' for it.
    let repository = package["repository"].as_str().unwrap();
    let (owner, name) = repository
        .strip_prefix("https://github.com/")
        .and_then(|rest| rest.split_once('/'))
        .expect("the repository is on GitHub");
    assert_eq!(
        package["homepage"].as_str().unwrap(),
        format!("https://{owner}.github.io/{name}/")
    );
    assert_eq!(repository, env!("CARGO_PKG_REPOSITORY"));
    // The licence the manifest declares is the file the package holds.
    assert_eq!(package["license"], "MIT");
    let licence = std::fs::read_to_string(root().join("LICENSE")).unwrap();
    assert!(licence.starts_with("MIT License\n"), "{licence}");
}

#[test]
fn every_page_that_names_the_project_names_the_manifests_repository() {
    // The project's home is written once, in Cargo.toml; the README, the guides and the
    // site's pages that point at it must point at that very repository.
    let repository = env!("CARGO_PKG_REPOSITORY");
    let name = repository.rsplit('/').next().unwrap();
    let mut files: Vec<String> = vec!["README.md".into(), "CONTRIBUTING.md".into()];
    files.extend(
        kept_under("content")
            .into_iter()
            .filter(|f| f.ends_with(".md")),
    );
    let mut seen = 0;
    for file in files {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        for (at, _) in text.match_indices("https://github.com/") {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| c.is_whitespace() || "()<>\"'`".contains(c))
                .unwrap_or(rest.len());
            let address = &rest[..end];
            let mut parts = address["https://github.com/".len()..].split('/');
            let (_, repo) = (parts.next(), parts.next());
            if repo == Some(name) {
                seen += 1;
                assert!(
                    address.starts_with(repository)
                        && matches!(address.as_bytes().get(repository.len()), None | Some(b'/')),
                    "{file}: {address} is not under {repository}"
                );
            }
        }
    }
    assert!(seen >= 4, "only {seen} addresses of the project found");
}
