//! The cache cannot lie or hang: a tampered entry, a named pipe, a link to a device
//! and an oversized file in `.retrylab-cache/` are each discarded with a note, and the
//! site is built with the true numbers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::arg;
use crate::util::{files, fixture};

/// `retrylab build` of `root` into `out`, killed and failed if it has not finished in
/// two minutes (a build of the fixture takes well under a second): a cache that hangs
/// the build must fail the test, not hang the suite. Returns (exit code, stderr).
fn build(root: &Path, out: &Path) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylab"))
        .args(["build", "--root", arg(root), "-o", arg(out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the build did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

/// The cache entry of the scenario `id`, found by its content.
fn entry_of(root: &Path, id: &str) -> PathBuf {
    let needle = format!("\"id\":\"{id}\"");
    std::fs::read_dir(root.join(".retrylab-cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).is_ok_and(|text| text.contains(&needle)))
        .unwrap_or_else(|| panic!("no cache entry holds `{id}`"))
}

/// The note for the entry at `path` of scenario `id`.
fn note(path: &Path, id: &str, why: &str) -> String {
    format!(
        "note: discarded the cache entry .retrylab-cache/{}: {why}; scenario `{id}` is \
         simulated again\n",
        path.file_name().unwrap().to_str().unwrap()
    )
}

/// Builds the fixture once (filling the cache), spoils the `storm` entry with `spoil`,
/// builds again and checks that the second site equals the first and that the note
/// says `why`.
fn spoiled(spoil: impl FnOnce(&Path), why: &str) {
    let site = fixture("good");
    let (first, second) = (site.path().join("first"), site.path().join("second"));
    let (code, stderr) = build(site.path(), &first);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let entry = entry_of(site.path(), "storm");
    spoil(&entry);
    let (code, stderr) = build(site.path(), &second);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, note(&entry, "storm", why));
    assert!(
        files(&first) == files(&second),
        "the true numbers are on the page"
    );
    // The entry was written again, sound: the next build takes it and says nothing.
    assert!(entry.symlink_metadata().unwrap().file_type().is_file());
    let (code, stderr) = build(site.path(), &second);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn a_changed_digit_in_a_cache_entry_never_reaches_the_page() {
    spoiled(
        |entry| {
            let text = std::fs::read_to_string(entry).unwrap();
            let tampered = text.replacen("\"calls\":{\"median\":", "\"calls\":{\"median\":99", 1);
            assert_ne!(text, tampered);
            std::fs::write(entry, tampered).unwrap();
        },
        "its checksum does not match its content",
    );
}

#[test]
fn a_cache_entry_without_its_checksum_line_is_discarded() {
    spoiled(
        |entry| {
            let text = std::fs::read_to_string(entry).unwrap();
            let (_, json) = text.split_once('\n').unwrap();
            std::fs::write(entry, json).unwrap();
        },
        "it has no checksum line",
    );
}

#[test]
fn an_entry_copied_under_another_key_is_discarded() {
    let site = fixture("good");
    let out = site.path().join("out");
    assert_eq!(build(site.path(), &out).0, 0);
    let (storm, jitter) = (
        entry_of(site.path(), "storm"),
        entry_of(site.path(), "jitter"),
    );
    std::fs::copy(&jitter, &storm).unwrap();
    let (code, stderr) = build(site.path(), &out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        note(&storm, "storm", "its checksum does not match its content")
    );
}

#[cfg(unix)]
#[test]
fn a_named_pipe_in_the_cache_does_not_hang_the_build() {
    spoiled(
        |entry| {
            std::fs::remove_file(entry).unwrap();
            let made = Command::new("mkfifo").arg(entry).status().unwrap();
            assert!(made.success());
        },
        "it is not a regular file",
    );
}

#[cfg(unix)]
#[test]
fn a_link_to_an_endless_device_in_the_cache_is_not_followed() {
    spoiled(
        |entry| {
            std::fs::remove_file(entry).unwrap();
            std::os::unix::fs::symlink("/dev/zero", entry).unwrap();
        },
        "it is not a regular file",
    );
}

#[test]
fn an_entry_larger_than_any_result_is_not_read() {
    spoiled(
        |entry| {
            // Sparse: it takes no room on disk, but a reader would take it all in.
            let file = std::fs::OpenOptions::new().write(true).open(entry).unwrap();
            file.set_len(1 << 40).unwrap();
        },
        "it holds 1099511627776 bytes, more than any result (1395048576 at most)",
    );
}

#[test]
fn a_file_in_place_of_the_cache_folder_leaves_the_cache_unused() {
    let site = fixture("good");
    let (first, second) = (site.path().join("first"), site.path().join("second"));
    std::fs::write(site.path().join(".retrylab-cache"), "not a folder").unwrap();
    for out in [&first, &second] {
        let (code, stderr) = build(site.path(), out);
        assert_eq!((code, stderr.as_str()), (0, ""));
    }
    assert!(files(&first) == files(&second));
}
