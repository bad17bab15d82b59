//! The playground's engine module, which the binary carries: current against the
//! engine's sources (its manifest's hashes), written into every site with a playground,
//! and never replaced by a stale copy in `static/`.

use std::collections::BTreeSet;
use std::path::Path;

use retrylab::site::playground::{MANIFEST, MODULE_BYTES};
use sha2::{Digest, Sha256};

use crate::util::{fixture, root, run};

/// What the module may weigh as a reader's browser receives it, compressed at gzip's
/// best (`gzip -9`; CI measures it with gzip itself): 180 KB.
const BUDGET_GZIPPED: usize = 180 * 1024;

/// What `scripts/build-wasm.sh` wrote about the module.
#[derive(Debug, Default)]
struct Manifest {
    /// The module's SHA-256 and size.
    module: Option<(String, usize)>,
    /// Each source the build read, with the SHA-256 of its text.
    sources: Vec<(String, String)>,
    /// The other files of the sources' folders.
    unread: BTreeSet<String>,
    /// Each registry crate compiled into the module, with its version.
    crates: Vec<(String, String)>,
}

fn parse(text: &str) -> Manifest {
    let mut manifest = Manifest::default();
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["module", hash, size] => {
                manifest.module = Some((hash.to_string(), size.parse().expect("a size")));
            }
            ["source", hash, path] => manifest.sources.push((path.to_string(), hash.to_string())),
            ["unread", path] => {
                manifest.unread.insert(path.to_string());
            }
            ["crate", name, version] => manifest
                .crates
                .push((name.to_string(), version.to_string())),
            _ if line.starts_with('#')
                || line.starts_with("compiler ")
                || line.starts_with("optimizer ") => {}
            _ => panic!("a manifest line the test does not know: {line:?}"),
        }
    }
    manifest
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A source's text as the manifest hashes it: a CR before a line's end dropped, so a
/// checkout with CRLF line ends reads the same.
fn normalised(bytes: &[u8]) -> Vec<u8> {
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect();
    lines.join(&b'\n')
}

/// The versions `Cargo.lock` holds of each package name.
fn locked_versions(lock: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut name = None;
    for line in lock.lines().map(str::trim) {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            out.insert((n, v.trim_matches('"').to_string()));
        }
    }
    out
}

/// Why the manifest no longer describes the tree at `root`, one sentence per problem.
fn staleness(root: &Path, manifest: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    let listed: BTreeSet<&str> = manifest.sources.iter().map(|(p, _)| p.as_str()).collect();
    for (path, hash) in &manifest.sources {
        match std::fs::read(root.join(path)) {
            Ok(bytes) if sha256(&normalised(&bytes)) == *hash => {}
            Ok(_) => problems.push(format!("{path} changed since the module was built")),
            Err(_) => problems.push(format!("{path}, which the module was built from, is gone")),
        }
    }
    let folders: BTreeSet<&str> = listed
        .iter()
        .map(|p| p.rsplit_once('/').map_or("", |(dir, _)| dir))
        .collect();
    for folder in folders {
        let entries = std::fs::read_dir(root.join(folder)).expect("a listed folder");
        let mut files: Vec<String> = entries
            .map(|e| e.expect("a folder entry"))
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| format!("{folder}/{}", e.file_name().to_string_lossy()))
            .collect();
        files.sort();
        for file in files {
            if !listed.contains(file.as_str()) && !manifest.unread.contains(&file) {
                problems.push(format!(
                    "{file} is new in a folder the module was built from"
                ));
            }
        }
    }
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
    let locked = locked_versions(&lock);
    for (name, version) in &manifest.crates {
        if !locked.contains(&(name.clone(), version.clone())) {
            problems.push(format!(
                "Cargo.lock no longer holds {name} {version}, which the module was built with"
            ));
        }
    }
    problems
}

#[test]
fn the_module_is_built_from_the_engine_of_this_binary() {
    let manifest = parse(MANIFEST);
    assert!(manifest.sources.len() > 10, "{manifest:?}");
    let problems = staleness(&root(), &manifest);
    assert!(
        problems.is_empty(),
        "the playground's engine module is stale: run bash scripts/build-wasm.sh\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_manifest_describes_the_carried_module() {
    let (hash, size) = parse(MANIFEST).module.expect("a module line");
    assert_eq!(
        (sha256(MODULE_BYTES), MODULE_BYTES.len()),
        (hash, size),
        "the committed module is not the one the manifest describes: run bash scripts/build-wasm.sh"
    );
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gzip, MODULE_BYTES).unwrap();
    let gzipped = gzip.finish().unwrap().len();
    assert!(
        gzipped <= BUDGET_GZIPPED,
        "the module is {gzipped} bytes gzipped, over the budget of {BUDGET_GZIPPED}"
    );
    assert_eq!(&MODULE_BYTES[..4], b"\0asm", "a WebAssembly module");
}

/// The listed sources and `Cargo.lock`, copied into a fresh folder.
fn copy_of_the_sources(manifest: &Manifest) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = manifest
        .sources
        .iter()
        .map(|(p, _)| p.as_str())
        .chain(manifest.unread.iter().map(String::as_str))
        .chain(["Cargo.lock"]);
    for file in files {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join(file), to).unwrap();
    }
    dir
}

#[test]
fn a_change_to_the_engine_makes_the_module_stale() {
    let manifest = parse(MANIFEST);
    let copy = copy_of_the_sources(&manifest);
    let at = copy.path();
    assert_eq!(staleness(at, &manifest), Vec::<String>::new());

    // The same text with CRLF line ends, as a Windows checkout has it, is not a change.
    let units = at.join("src/engine/units.rs");
    let text = std::fs::read_to_string(&units).unwrap();
    std::fs::write(&units, text.replace('\n', "\r\n")).unwrap();
    assert_eq!(staleness(at, &manifest), Vec::<String>::new());

    let run_rs = at.join("src/engine/run.rs");
    let mut text = std::fs::read_to_string(&run_rs).unwrap();
    text.push_str("// one more line\n");
    std::fs::write(&run_rs, text).unwrap();
    std::fs::write(
        at.join("src/engine/faster.rs"),
        "//! A new engine module.\n",
    )
    .unwrap();
    std::fs::remove_file(at.join("src/suggest.rs")).unwrap();
    let lock = std::fs::read_to_string(at.join("Cargo.lock")).unwrap();
    std::fs::write(
        at.join("Cargo.lock"),
        lock.replace(
            "name = \"rand_core\"\nversion = \"",
            "name = \"rand_core\"\nversion = \"9.",
        ),
    )
    .unwrap();
    let rand_core = &manifest
        .crates
        .iter()
        .find(|(n, _)| n == "rand_core")
        .unwrap()
        .1;
    assert_eq!(
        staleness(at, &manifest),
        [
            "src/engine/run.rs changed since the module was built".to_string(),
            "src/suggest.rs, which the module was built from, is gone".to_string(),
            "src/engine/faster.rs is new in a folder the module was built from".to_string(),
            format!(
                "Cargo.lock no longer holds rand_core {rand_core}, which the module was built with"
            ),
        ]
    );
}

/// A site with a playground page, in a fresh folder.
fn site_with_playground() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let (code, _, stderr) = run(&["init", site.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(
        site.join("content/playground.md"),
        "---\ntitle: Playground\ntemplate: playground.html\n---\n\nChange the scenario and run it.\n",
    )
    .unwrap();
    dir
}

#[test]
fn an_init_site_with_a_playground_gets_the_module() {
    let dir = site_with_playground();
    let site = dir.path().join("site");
    let (code, _, stderr) = run(&["build", "--root", site.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let public = site.join("public");
    assert_eq!(
        std::fs::read(public.join("retrylab.wasm")).unwrap(),
        MODULE_BYTES
    );
    for script in [
        "playground.js",
        "playground-yaml.js",
        "playground-page.js",
        "playground-worker.js",
    ] {
        assert!(public.join(script).is_file(), "{script}");
    }
    let defaults = std::fs::read_to_string(public.join("playground-defaults.js")).unwrap();
    assert!(
        defaults.contains("export const DEFAULTS = {") && defaults.contains("\"tick\":\"100ms\""),
        "{defaults}"
    );
    let page = std::fs::read_to_string(public.join("playground/index.html")).unwrap();
    assert!(
        page.contains("<link rel=\"preload\" href=\"/retrylab.wasm\" as=\"fetch\""),
        "the page preloads the module"
    );
    assert!(page.contains("data-module=\"/retrylab.wasm\""));
    let article = std::fs::read_to_string(public.join("a-first-scenario/index.html")).unwrap();
    assert!(article.contains("<p class=\"sim-try\"><a href=\"/playground/?s="));
}

#[test]
fn a_site_without_a_playground_gets_no_module() {
    let site = fixture("good");
    let (code, _, stderr) = run(&["build", "--root", site.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let public = site.path().join("public");
    assert!(public.join("index.html").is_file());
    assert!(!public.join("retrylab.wasm").exists());
    assert!(!public.join("playground.js").exists());
}

#[test]
fn a_different_module_in_static_is_refused_and_the_same_one_is_accepted() {
    let dir = site_with_playground();
    let site = dir.path().join("site");
    let root = site.to_str().unwrap();
    std::fs::create_dir_all(site.join("static")).unwrap();
    std::fs::write(site.join("static/retrylab.wasm"), MODULE_BYTES).unwrap();
    let (code, _, stderr) = run(&["build", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    let before = std::fs::read(site.join("public/index.html")).unwrap();

    // A module left there by an earlier version of scripts/build-wasm.sh: stale.
    std::fs::write(site.join("static/retrylab.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let (code, stdout, stderr) = run(&["build", "--root", root]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(
        stderr,
        "error: this file would replace the playground's engine, which retrylab carries and writes into every site\n \
         --> static/retrylab.wasm\n  \
         = help: delete static/retrylab.wasm: the playground must run the engine that computed the articles \
         (earlier versions of scripts/build-wasm.sh put a copy there)\n\n\
         error: 1 problem found\n"
    );
    assert_eq!(
        std::fs::read(site.join("public/index.html")).unwrap(),
        before,
        "the last good site stays"
    );
    assert_eq!(
        std::fs::read(site.join("public/retrylab.wasm")).unwrap(),
        MODULE_BYTES
    );
}

#[test]
fn every_scenario_gets_a_try_it_link_with_its_yaml_as_written() {
    let dir = site_with_playground();
    let site = dir.path().join("site");
    // Open-loop arrivals and a retry budget: beyond the form, still the playground's.
    let block = "id: open\nclients: 0\narrivals: {rate: 20}\nhorizon: 10s\nserver: {capacity: 10}\n\
                 retry: {base: 100ms, cap: 1s, budget: grpc}   # as written\nstrategies: [exponential]\nruns: 2\n";
    std::fs::write(
        site.join("content/open.md"),
        format!("---\ntitle: Open\n---\n\n```sim\n{block}```\n"),
    )
    .unwrap();
    let (code, _, stderr) = run(&["build", "--root", site.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let page = std::fs::read_to_string(site.join("public/open/index.html")).unwrap();
    // The figure's automatic window goes with it.
    let link = retrylab::site::playground::try_it("/playground/", block, 10_000_000);
    assert!(page.contains(&link), "{page}");
}

/// The names listed between the brackets that follow `marker` in `text`.
fn listed_after<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    let from = text.find(marker).unwrap_or_else(|| panic!("no `{marker}`")) + marker.len();
    let list = &text[from..from + text[from..].find(']').unwrap()];
    list.split(',')
        .map(|name| name.trim().trim_matches('"'))
        .collect()
}

#[test]
fn the_form_has_a_box_for_every_strategy() {
    // The template's boxes and the form's reader know every strategy of the model, in
    // order: the generic ones, then the libraries'.
    use retrylab::engine::Strategy;
    let names = |of: &[Strategy]| -> Vec<&'static str> { of.iter().map(|s| s.name()).collect() };
    let libraries: Vec<Strategy> = Strategy::ALL
        .into_iter()
        .filter(|s| s.library().is_some())
        .collect();
    assert_eq!(
        Strategy::GENERIC.len() + libraries.len(),
        Strategy::ALL.len()
    );
    let template = std::fs::read_to_string(root().join("templates/playground.html")).unwrap();
    let at = template.find("<legend>Libraries").unwrap();
    assert_eq!(
        listed_after(&template, "{%- for s in ["),
        names(&Strategy::GENERIC)
    );
    assert_eq!(
        listed_after(&template[at..], "{%- for s in ["),
        names(&libraries)
    );
    let reader =
        std::fs::read_to_string(root().join("src/site/defaults/playground-yaml.js")).unwrap();
    assert_eq!(
        listed_after(&reader, "export const STRATEGIES = ["),
        names(&Strategy::GENERIC)
    );
    assert_eq!(
        listed_after(&reader, "export const LIBRARY_STRATEGIES = ["),
        names(&libraries)
    );
}

#[test]
fn the_overload_fixture_of_the_browser_test_builds_with_every_key() {
    // tests/wasm/browser.mjs follows this site's try-it links and presets; here it is
    // kept buildable as the scenario reader changes, with every key of the overload model.
    let dir = tempfile::tempdir().unwrap();
    crate::util::copy_tree(&root().join("tests/wasm/overload-site"), dir.path());
    let (code, _, stderr) = run(&["build", "--root", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let public = dir.path().join("public");
    let article = std::fs::read_to_string(public.join("queue-and-timeouts/index.html")).unwrap();
    assert_eq!(article.matches("<p class=\"sim-try\">").count(), 3);
    let scenarios = std::fs::read_to_string(public.join("playground-scenarios.js")).unwrap();
    for key in [
        "queue: {limit: 50, order: fifo}",
        "order: lifo, drop_expired: true",
        "slowdowns:",
        "timeout:",
        "throttle:",
        "jitter: 0.5",
        "proportional-jitter",
        "arrivals:",
    ] {
        assert!(
            scenarios.contains(key),
            "no preset with `{key}`: {scenarios}"
        );
    }
    let playground = std::fs::read_to_string(public.join("playground/index.html")).unwrap();
    assert_eq!(playground.matches("#sim-").count(), 3, "{playground}");
}

#[test]
fn the_form_offers_every_balancer_and_writes_what_the_engine_accepts() {
    // The template's balancer select and the form's reader name every balancer of the
    // engine, the default first.
    use retrylab::engine::fleet::Balancer;
    let names: Vec<&str> = Balancer::ALL.iter().map(|b| b.name()).collect();
    let template = std::fs::read_to_string(root().join("templates/playground.html")).unwrap();
    assert_eq!(listed_after(&template, "{%- for b in ["), names);
    let reader =
        std::fs::read_to_string(root().join("src/site/defaults/playground-yaml.js")).unwrap();
    assert_eq!(listed_after(&reader, "export const BALANCERS = ["), names);
    // What the form writes for a fleet (tests/wasm/browser.mjs holds the form to it) is
    // accepted; its balancer and retry elsewhere would be refused without the replicas,
    // and a one-server form writes none of the three keys.
    let fleet = "id: playground\nclients: 60\nhorizon: 60s\nserver:\n  model: capacity\n  capacity: 10\n  \
                 tick: 100ms\n  rejection_cost: 0.1\n  replicas: 3\n  balancer: least-loaded\nretry:\n  \
                 base: 100ms\n  cap: 10s\n  multiplier: 2\n  elsewhere: true\nstrategies: [fixed]\nruns: 2\nseed: 1\n";
    let scenario = retrylab::engine::parse_scenario(fleet, None).expect("the form's fleet");
    let f = scenario.server.fleet.as_ref().expect("a fleet");
    assert_eq!((f.replicas, f.balancer), (3, Balancer::LeastLoaded));
    assert!(scenario.retry.elsewhere);
    let without_replicas = fleet.replace("  replicas: 3\n", "");
    let errors = retrylab::engine::parse_scenario(&without_replicas, None).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("needs `server.replicas`")),
        "{errors:?}"
    );
}
