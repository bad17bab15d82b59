//! Simulation results cached on disk, keyed by a hash of the scenario and the engine
//! version, so that an edit to prose reruns nothing.
//!
//! One file per scenario in `.retrylab-cache/` of the site (ignored by git): a first
//! line with a checksum of the entry's key and content, then the result as JSON. An entry
//! is read only if it is a regular file (never a link, a pipe or a device) of a size a
//! result can have, and only if its checksum holds; anything else is discarded with a
//! note and simulated again, so a damaged or planted file can neither put a wrong number
//! on a page nor hang the build. Writes go through a temporary file and a rename, so a
//! crash never leaves half a result behind.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::engine::scenario::MAX_TICKS;
use crate::engine::{ENGINE_VERSION, Scenario, ScenarioResult, Strategy, run_scenario};

/// The cache folder's name, at the site's root.
pub const FOLDER: &str = ".retrylab-cache";

/// What opens an entry's first line, before its checksum. Part of every key too, so
/// that entries of another layout are never looked at.
const HEADER: &str = "retrylab-cache 2 sha256:";

/// The largest entry a result can make: per strategy, three lanes of `MAX_TICKS`
/// numbers of at most ten digits and a comma, and a megabyte for everything else.
/// Anything larger is not a result, and is not read.
const MAX_ENTRY: u64 = Strategy::ALL.len() as u64 * 3 * MAX_TICKS * 11 + (1 << 20);

/// The cache of one site.
pub struct Cache {
    dir: PathBuf,
}

/// What running a set of scenarios did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Scenarios taken from the cache.
    pub cached: usize,
    /// Scenarios simulated now.
    pub simulated: usize,
    /// Runs simulated now (strategies × runs).
    pub runs: u64,
}

/// Why an entry on disk was not used.
#[derive(Debug, PartialEq, Eq)]
enum Discard {
    /// A symbolic link, a folder, a pipe, a device: nothing the cache writes.
    NotAFile,
    /// Larger than any result.
    TooLarge(u64),
    /// The file could not be read.
    Unreadable(String),
    /// The first line is not a checksum line.
    NoChecksum,
    /// The checksum does not match the key and the content.
    Checksum,
    /// The checksum holds but the content is not a result of this scenario.
    NotAResult,
}

impl std::fmt::Display for Discard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Discard::NotAFile => write!(f, "it is not a regular file"),
            Discard::TooLarge(size) => write!(
                f,
                "it holds {size} bytes, more than any result ({MAX_ENTRY} at most)"
            ),
            Discard::Unreadable(e) => write!(f, "it cannot be read: {e}"),
            Discard::NoChecksum => write!(f, "it has no checksum line"),
            Discard::Checksum => write!(f, "its checksum does not match its content"),
            Discard::NotAResult => write!(f, "it does not hold this scenario's result"),
        }
    }
}

/// The checksum of an entry: its key and its content, so that an entry copied under
/// another key fails as surely as an edited one.
fn checksum(key: &str, content: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(key.as_bytes());
    hasher.update(b"\n");
    hasher.update(content);
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The text of an entry: the checksum line, then the content.
fn entry(key: &str, content: &[u8]) -> Vec<u8> {
    let mut text = format!("{HEADER}{}\n", checksum(key, content)).into_bytes();
    text.extend_from_slice(content);
    text
}

/// The content of an entry whose checksum holds for `key`.
fn verified<'a>(key: &str, text: &'a [u8]) -> Result<&'a [u8], Discard> {
    let newline = text
        .iter()
        .position(|&b| b == b'\n')
        .ok_or(Discard::NoChecksum)?;
    let (line, content) = (&text[..newline], &text[newline + 1..]);
    let sum = line
        .strip_prefix(HEADER.as_bytes())
        .ok_or(Discard::NoChecksum)?;
    if sum == checksum(key, content).as_bytes() {
        Ok(content)
    } else {
        Err(Discard::Checksum)
    }
}

/// The bytes of the regular file at `path`, if it is one of at most `limit` bytes.
/// `Ok(None)` when there is nothing there.
fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, Discard> {
    // Looked at before opening: opening a named pipe waits for a writer forever, and a
    // link could lead to `/dev/zero`, which never ends.
    let meta = match path.symlink_metadata() {
        Ok(meta) => meta,
        // No entry, or no cache folder (a file in its place leaves the cache unused).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(Discard::Unreadable(e.to_string())),
    };
    if !meta.file_type().is_file() {
        return Err(Discard::NotAFile);
    }
    if meta.len() > limit {
        return Err(Discard::TooLarge(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| Discard::Unreadable(e.to_string()))?;
    // The file may have been swapped since: what was opened must still be a regular file,
    // and no more than the limit is read from it.
    let opened = file
        .metadata()
        .map_err(|e| Discard::Unreadable(e.to_string()))?;
    if !opened.file_type().is_file() {
        return Err(Discard::NotAFile);
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Discard::Unreadable(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(Discard::TooLarge(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// Says on stderr that an entry was discarded. A closed terminal is no reason to stop.
fn note(file: &str, id: &str, why: &Discard) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "note: discarded the cache entry {file}: {why}; scenario `{id}` is simulated again"
    );
}

impl Cache {
    /// The cache of the site at `root`.
    pub fn new(root: &Path) -> Cache {
        Cache {
            dir: root.join(FOLDER),
        }
    }

    /// The key of a scenario: a hash of the engine version, the cache's layout and
    /// every field that could change its results.
    pub fn key(scenario: &Scenario) -> String {
        let mut hasher = Sha256::new();
        hasher.update(ENGINE_VERSION.as_bytes());
        hasher.update(b"\n");
        hasher.update(HEADER.as_bytes());
        hasher.update(b"\n");
        hasher.update(format!("{scenario:?}").as_bytes());
        hex(&hasher.finalize())
    }

    fn name(key: &str) -> String {
        format!("{key}.json")
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(Cache::name(key))
    }

    /// The cached result of `scenario`: `Ok(None)` when there is none, `Err` when an
    /// entry is there but cannot be trusted.
    fn get(&self, key: &str, scenario: &Scenario) -> Result<Option<ScenarioResult>, Discard> {
        let Some(text) = read_regular(&self.path(key), MAX_ENTRY)? else {
            return Ok(None);
        };
        let content = verified(key, &text)?;
        match serde_json::from_slice::<ScenarioResult>(content) {
            Ok(result) if result.id == scenario.id => Ok(Some(result)),
            Ok(_) | Err(_) => Err(Discard::NotAResult),
        }
    }

    fn put(&self, key: &str, result: &ScenarioResult) {
        // The cache only saves time: if it cannot be written, the build goes on.
        let _ = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let tmp = self.dir.join(format!("{key}.{}.tmp", std::process::id()));
            let content = serde_json::to_vec(result).map_err(std::io::Error::other)?;
            // A leftover of a killed build is replaced; `create_new` never follows a
            // link planted under the temporary name.
            let _ = std::fs::remove_file(&tmp);
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?
                .write_all(&entry(key, &content))?;
            // The rename replaces whatever was there, a link or a pipe included, without
            // following it.
            std::fs::rename(&tmp, self.path(key))
        });
    }

    /// How many of the scenarios have no result in the cache yet (a count for the
    /// progress line: an entry is looked at, not yet verified).
    pub fn missing(&self, scenarios: &[&Scenario]) -> usize {
        scenarios
            .iter()
            .filter(|s| {
                !self
                    .path(&Cache::key(s))
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_file())
            })
            .count()
    }

    /// Results for every scenario, in order: from the cache where present and sound,
    /// simulated (in parallel) where not. A discarded entry is noted on stderr, in the
    /// scenarios' order.
    ///
    /// `memo` holds results of earlier builds of this process by key (see
    /// [`super::memo`]); it is consulted first and left holding this build's results.
    pub fn run_all(
        &self,
        scenarios: &[&Scenario],
        memo: &mut HashMap<String, ScenarioResult>,
    ) -> (Vec<ScenarioResult>, RunStats) {
        let keys: Vec<String> = scenarios.par_iter().map(|s| Cache::key(s)).collect();
        // Taken, not copied: a scenario that a page holds twice finds the second on disk.
        let known: Vec<Option<ScenarioResult>> = keys.iter().map(|k| memo.remove(k)).collect();
        let outcomes: Vec<(ScenarioResult, bool, Option<Discard>)> = scenarios
            .par_iter()
            .zip(&keys)
            .zip(known)
            .map(|((scenario, key), known)| {
                if let Some(known) = known {
                    return (known, true, None);
                }
                let key = key.clone();
                let discarded = match self.get(&key, scenario) {
                    Ok(Some(hit)) => return (hit, true, None),
                    Ok(None) => None,
                    Err(why) => Some(why),
                };
                let result = run_scenario(scenario);
                self.put(&key, &result);
                (result, false, discarded)
            })
            .collect();
        let mut stats = RunStats::default();
        for (scenario, (_, cached, discarded)) in scenarios.iter().zip(&outcomes) {
            if let Some(why) = discarded {
                let file = format!("{FOLDER}/{}", Cache::name(&Cache::key(scenario)));
                note(&file, &scenario.id, why);
            }
            if *cached {
                stats.cached += 1;
            } else {
                stats.simulated += 1;
                stats.runs += u64::from(scenario.runs) * scenario.strategies.len() as u64;
            }
        }
        let results: Vec<ScenarioResult> = outcomes.into_iter().map(|(r, ..)| r).collect();
        *memo = keys.into_iter().zip(results.iter().cloned()).collect();
        (results, stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_holds_only_for_its_own_key_and_content() {
        let text = entry("k", b"{\"a\":1}");
        assert_eq!(verified("k", &text), Ok(&b"{\"a\":1}"[..]));
        assert_eq!(verified("other", &text), Err(Discard::Checksum));
        let mut edited = text.clone();
        let last = edited.len() - 2;
        edited[last] = b'2';
        assert_eq!(verified("k", &edited), Err(Discard::Checksum));
        assert_eq!(verified("k", b"{\"a\":1}"), Err(Discard::NoChecksum));
        assert_eq!(verified("k", b""), Err(Discard::NoChecksum));
    }

    #[test]
    fn only_regular_files_of_a_bounded_size_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_regular(&file, 5), Ok(Some(b"12345".to_vec())));
        assert_eq!(read_regular(&file, 4), Err(Discard::TooLarge(5)));
        assert_eq!(read_regular(&dir.path().join("none"), 5), Ok(None));
        assert_eq!(read_regular(dir.path(), 5), Err(Discard::NotAFile));
        assert_eq!(read_regular(&file.join("below"), 5), Ok(None));
    }
}
