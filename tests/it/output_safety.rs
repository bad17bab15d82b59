//! The output folder: a build replaces only a folder of its own (new, empty, or marked
//! as an earlier output), never the site, its inputs or someone's files; a build killed
//! at any moment leaves the last good site and lets the next build run; two builds at
//! once take turns.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::util::run_in;
use crate::util::{copy_tree, files, fixture, root};

/// The binary, started in `dir` and left running.
fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_retrylab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Every folder and file below `dir`, files with their bytes: what a refused build
/// must leave exactly as it was.
fn tree(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .map(|e| {
            let name = e.path().strip_prefix(dir).unwrap().display().to_string();
            let bytes = e
                .file_type()
                .is_file()
                .then(|| std::fs::read(e.path()).unwrap());
            (name, bytes)
        })
        .collect()
}

/// The names beside an output `public` that a build keeps only while it runs.
fn leftovers(parent: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".public."))
        .collect();
    names.sort();
    names
}

/// A folder holding the fixture site `good` as `S`, with room for siblings.
fn parent_of_site() -> (tempfile::TempDir, PathBuf) {
    let dir = fixture("good");
    let parent = tempfile::tempdir().unwrap();
    let site = parent.path().join("S");
    copy_tree(dir.path(), &site);
    (parent, site)
}

const OWN: &str = "a build replaces its output whole, so give it a folder of its own, \
                   such as `public` (the default)";

/// Runs a build that must be refused with `message`, and checks that nothing below
/// `watched` changed.
#[track_caller]
fn refused(cwd: &Path, watched: &Path, args: &[&str], message: &str) {
    let before = tree(watched);
    let (code, stdout, stderr) = run_in(cwd, args);
    assert_eq!(code, 1, "{args:?}: {stdout}");
    assert_eq!(stderr, format!("error: {message}\n"), "{args:?}");
    assert_eq!(tree(watched), before, "{args:?} changed files");
}

#[test]
fn an_output_that_is_or_holds_the_site_is_refused() {
    let (parent, site) = parent_of_site();
    std::fs::write(parent.path().join("sibling.txt"), "mine").unwrap();
    let top = parent.path();
    refused(
        top,
        top,
        &["build", "--root", "S", "-o", "S"],
        &format!("the output folder `S` is the site itself: {OWN}"),
    );
    refused(
        &site,
        top,
        &["build", "-o", "."],
        &format!("the output folder `.` is the site itself: {OWN}"),
    );
    refused(
        &site,
        top,
        &["build", "-o", "content/.."],
        &format!("the output folder `content/..` is the site itself: {OWN}"),
    );
    refused(
        &site,
        top,
        &["build", "-o", ".."],
        &format!("the output folder `..` contains the site: {OWN}"),
    );
    refused(
        top,
        top,
        &["build", "--root", "S", "-o", "."],
        &format!("the output folder `.` contains the site: {OWN}"),
    );
}

#[test]
fn an_output_among_the_inputs_is_refused() {
    let (parent, site) = parent_of_site();
    let top = parent.path();
    for (output, how, input) in [
        ("S/content", "is", "content"),
        ("S/content/guide", "lies inside", "content"),
        ("S/templates", "is", "templates"),
        ("S/static/out", "lies inside", "static"),
        ("S/.retrylab-cache", "is", ".retrylab-cache"),
        ("S/public/../static", "is", "static"),
    ] {
        refused(
            top,
            top,
            &["build", "--root", "S", "-o", output],
            &format!("the output folder `{output}` {how} `{input}/`, which the build reads: {OWN}"),
        );
    }
    #[cfg(unix)]
    {
        // A link leads the output into content/ as surely as a path does.
        std::os::unix::fs::symlink(site.join("content"), top.join("articles")).unwrap();
        refused(
            top,
            top,
            &["build", "--root", "S", "-o", "articles/new"],
            &format!(
                "the output folder `articles/new` lies inside `content/`, which the build \
                 reads: {OWN}"
            ),
        );
    }
}

#[test]
fn an_output_of_site_yaml_is_checked_the_same_way() {
    let (parent, site) = parent_of_site();
    let top = parent.path();
    let yaml = std::fs::read_to_string(site.join("site.yaml")).unwrap();
    std::fs::write(site.join("site.yaml"), format!("{yaml}output: ../S\n")).unwrap();
    refused(
        top,
        top,
        &["build", "--root", "S"],
        &format!("the output folder `../S` (the `output` of site.yaml) is the site itself: {OWN}"),
    );
    std::fs::write(site.join("site.yaml"), format!("{yaml}output: static\n")).unwrap();
    refused(
        &site,
        top,
        &["build"],
        &format!(
            "the output folder `static` (the `output` of site.yaml) is `static/`, which the \
             build reads: {OWN}"
        ),
    );
}

#[test]
fn a_folder_of_other_files_or_a_file_is_refused() {
    let (parent, site) = parent_of_site();
    let top = parent.path();
    std::fs::create_dir(top.join("mydocs")).unwrap();
    std::fs::write(top.join("mydocs/notes.txt"), "mine").unwrap();
    std::fs::write(top.join("mydocs/zebra.txt"), "mine too").unwrap();
    refused(
        top,
        top,
        &["build", "--root", "S", "-o", "mydocs"],
        "the output folder `mydocs` holds files (such as `notes.txt`) and is no earlier \
         output of retrylab (it has no `.retrylab-output`): a build replaces its output \
         whole, so choose a new or empty folder, or move those files away",
    );
    refused(
        &site,
        top,
        &["build", "-o", "site.yaml"],
        "the output folder `site.yaml` is a file; give the build a folder",
    );
    let yaml = site.join("site.yaml").canonicalize().unwrap();
    refused(
        &site,
        top,
        &["build", "-o", "site.yaml/out"],
        &format!(
            "the output folder `site.yaml/out` cannot be made: {} is a file",
            yaml.display()
        ),
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(top.join("nowhere"), top.join("dangling")).unwrap();
        refused(
            top,
            top,
            &["build", "--root", "S", "-o", "dangling/out"],
            &format!(
                "cannot resolve the folder dangling/out: {} leads nowhere (No such file or \
                 directory (os error 2))",
                top.canonicalize().unwrap().join("dangling").display()
            ),
        );
    }
}

#[test]
fn a_new_empty_or_earlier_output_folder_is_replaced() {
    let (parent, site) = parent_of_site();
    let top = parent.path();
    std::fs::create_dir(top.join("empty")).unwrap();
    let (code, stdout, stderr) = run_in(top, &["build", "--root", "S", "-o", "empty"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(" into empty"), "{stdout}");
    let built = files(&top.join("empty"));
    assert_eq!(
        String::from_utf8_lossy(&built[".retrylab-output"]),
        "This folder was written by `retrylab build`; the next build replaces it whole. \
         Keep no other files here.\n"
    );
    // A marked folder is an earlier output: a file added there does not survive.
    std::fs::write(top.join("empty/stray.txt"), "x").unwrap();
    assert_eq!(run_in(top, &["build", "--root", "S", "-o", "empty"]).0, 0);
    assert_eq!(files(&top.join("empty")), built);
    // A new folder, its parents made on the way.
    assert_eq!(run_in(&site, &["build", "-o", "../deep/er/site"]).0, 0);
    assert_eq!(files(&top.join("deep/er/site")), built);
    assert!(leftovers(&top.join("deep/er")).is_empty());
}

#[test]
fn serve_refuses_an_output_among_the_inputs_instead_of_rebuilding_in_a_loop() {
    let (parent, site) = parent_of_site();
    let before = tree(parent.path());
    let mut child = spawn_in(&site, &["serve", "--port", "0", "-o", "static/out"]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve kept running with its output inside static/");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(
        stderr,
        format!(
            "error: the output folder `static/out` lies inside `static/`, which the build \
             reads: {OWN}\n"
        )
    );
    assert_eq!(tree(parent.path()), before);
}

/// A copy of the hostile site `output-kill`: a scenario of 2,000 runs, and enough
/// static files that writing and swapping take a while too.
fn heavy_site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("tests/hostile/output-kill"), dir.path());
    for i in 0..400 {
        let folder = dir.path().join(format!("static/files/{}", i % 30));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("{i}.txt")), format!("file {i}\n")).unwrap();
    }
    dir
}

/// Changes the page, so that each build writes a site different from the last one.
fn edit(site: &Path, edition: usize) {
    let page = site.join("content/index.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let body = text.split("\nEdition ").next().unwrap();
    std::fs::write(&page, format!("{body}\nEdition {edition}.\n")).unwrap();
}

#[test]
fn a_build_killed_at_any_moment_leaves_the_last_good_site() {
    let site = heavy_site();
    let root = site.path();
    let out = root.join("public");
    let cache = root.join(".retrylab-cache");
    edit(root, 0);
    let started = Instant::now();
    let (code, _, stderr) = run_in(root, &["build"]);
    assert_eq!(code, 0, "{stderr}");
    // The moments to kill at: first at once, then ever closer to the moment a build
    // completes (halving the gap between the latest kill that stopped a build and the
    // earliest that came too late), where it writes and swaps. They only choose the
    // moments; every outcome is checked the same way.
    let (mut stopped, mut too_late) = (Duration::ZERO, started.elapsed() * 3 / 2);
    let mut last_good = files(&out);
    let mut killed = 0;
    for step in 0..10u32 {
        edit(root, step as usize + 1);
        let _ = std::fs::remove_dir_all(&cache);
        let delay = if step == 0 {
            Duration::ZERO
        } else {
            (stopped + too_late) / 2
        };
        let mut child = spawn_in(root, &["build"]);
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.success() {
            too_late = delay;
        } else {
            killed += 1;
            stopped = delay;
        }
        let after_kill = files(&out);
        let (code, _, stderr) = run_in(root, &["build"]);
        assert_eq!(
            code, 0,
            "the build after a kill at step {step} failed: {stderr}"
        );
        let next = files(&out);
        assert!(
            String::from_utf8_lossy(&next["index.html"])
                .contains(&format!("Edition {}.", step + 1)),
            "step {step}"
        );
        // Killed or not, the output was always one whole site: the last good one, or
        // the new one complete.
        assert!(
            after_kill == last_good || after_kill == next,
            "step {step}: the output was neither the last good site nor the new one"
        );
        assert!(
            leftovers(root).is_empty(),
            "step {step}: {:?}",
            leftovers(root)
        );
        last_good = next;
    }
    assert!(killed > 0, "no build was killed");
}

#[test]
fn what_a_killed_build_left_is_put_back_or_removed() {
    let site = fixture("good");
    let root = site.path();
    let out = root.join("public");
    assert_eq!(run_in(root, &["build"]).0, 0);
    let good = files(&out);
    // Killed between setting the last site aside and moving the new one in, while its
    // staging folder was half written; and an earlier one killed before marking its own.
    std::fs::rename(&out, root.join(".public.old")).unwrap();
    std::fs::create_dir_all(root.join(".public.building-4242/storm")).unwrap();
    std::fs::write(root.join(".public.building-4242/.retrylab-output"), "").unwrap();
    std::fs::write(root.join(".public.building-4242/storm/index.html"), "half").unwrap();
    std::fs::create_dir(root.join(".public.building-77")).unwrap();
    std::fs::write(root.join(".public.lock"), "").unwrap();
    // Not a retrylab folder, though named like one: left alone.
    std::fs::create_dir(root.join(".public.building-5")).unwrap();
    std::fs::write(root.join(".public.building-5/mine.txt"), "mine").unwrap();
    // Even a build that fails puts the last good site back.
    let page = root.join("content/storm.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, text.replace("clients: 20", "clients: twenty")).unwrap();
    let (code, _, stderr) = run_in(root, &["build"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`clients` must be a whole number"),
        "{stderr}"
    );
    assert_eq!(files(&out), good);
    assert_eq!(
        leftovers(root),
        [".public.building-5"],
        "the marked and empty leftovers are removed"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".public.building-5/mine.txt")).unwrap(),
        "mine"
    );
    std::fs::write(&page, text).unwrap();
    assert_eq!(run_in(root, &["build"]).0, 0);
    assert_eq!(files(&out), good);
    assert_eq!(leftovers(root), [".public.building-5"]);
}

#[test]
fn a_second_build_waits_for_the_one_writing() {
    let site = fixture("good");
    let root = site.path();
    let out = root.join("public");
    assert_eq!(run_in(root, &["build"]).0, 0);
    let before = files(&out);
    // Another build is writing: it holds the lock beside the output.
    let lock = std::fs::File::create(root.join(".public.lock")).unwrap();
    lock.try_lock().unwrap();
    let page = root.join("content/storm.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &page,
        text.replace("With a fixed delay", "With a fixed wait"),
    )
    .unwrap();
    let mut child = spawn_in(root, &["build"]);
    let (lines, stderr) = mpsc::channel();
    let reader = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let said = stderr.recv_timeout(Duration::from_secs(60));
    if said.is_err() {
        let _ = child.kill();
    }
    assert_eq!(
        said.unwrap(),
        "waiting for another build to finish writing `public`…"
    );
    assert_eq!(files(&out), before, "the waiting build wrote meanwhile");
    drop(lock);
    let status = child.wait().unwrap();
    assert!(status.success());
    let storm = String::from_utf8(files(&out).remove("storm/index.html").unwrap()).unwrap();
    assert!(storm.contains("With a fixed wait"));
    assert!(leftovers(root).is_empty(), "{:?}", leftovers(root));
}

#[test]
fn builds_at_once_take_turns() {
    let site = heavy_site();
    let root = site.path();
    edit(root, 1);
    let children: Vec<Child> = (0..3).map(|_| spawn_in(root, &["build"])).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(!stderr.contains("error"), "{stderr}");
    }
    let built = files(&root.join("public"));
    assert!(leftovers(root).is_empty(), "{:?}", leftovers(root));
    assert_eq!(run_in(root, &["build"]).0, 0);
    assert_eq!(files(&root.join("public")), built);
}
