//! `serve` after a prose edit: the time from saving a page of this repository's site
//! (every result cached) to the summary line `serve` prints once the new site is in
//! place, for a number of edits in a row.
//!
//! Run with `cargo bench --bench serve`; `RETRYLAB=path/to/retrylab` times another
//! build of the binary (an earlier version, say) on the same edits.

mod common;

use common::copy_tree;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const EDITS: usize = 30;

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let site = tempfile::tempdir().unwrap();
    for dir in [
        "content",
        "scenarios",
        "templates",
        "static",
        ".retrylab-cache",
    ] {
        copy_tree(&repo.join(dir), &site.path().join(dir));
    }
    std::fs::copy(repo.join("site.yaml"), site.path().join("site.yaml")).unwrap();
    let binary = std::env::var_os("RETRYLAB").unwrap_or(env!("CARGO_BIN_EXE_retrylab").into());
    let mut server = Command::new(binary)
        .args(["serve", "--port", "0", "--root"])
        .arg(site.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (lines, read) = mpsc::channel();
    let stdout = server.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |prefix: &str| loop {
        let line = read
            .recv_timeout(Duration::from_secs(60))
            .expect("serve answers");
        if line.starts_with(prefix) {
            return;
        }
    };
    wait_for("serving");
    let page = site.path().join("content/why-waiting-longer.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let mut times = Vec::new();
    for i in 0..EDITS {
        // Far enough apart that each edit is a build of its own.
        std::thread::sleep(Duration::from_millis(200));
        let saved = Instant::now();
        std::fs::write(&page, format!("{text}\nEdit {i}.\n")).unwrap();
        wait_for("built");
        times.push(saved.elapsed());
    }
    let _ = server.kill();
    let _ = server.wait();
    times.sort();
    println!(
        "serve, save to written site, {EDITS} prose edits: fastest {:.1} ms, median {:.1} ms, slowest {:.1} ms",
        ms(times[0]),
        ms(times[EDITS / 2]),
        ms(times[EDITS - 1])
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
