//! The addresses found good lately, in `.retrylab-cache/external.json` of the site, so
//! that a second check within a day does not ask again.
//!
//! Only good answers are kept, with when they came and, for a page read for its
//! anchors, the anchors: a failure is asked again by the next check, so that a link
//! fixed at its far end is seen fixed. A file that cannot be read or is not this layout
//! is ignored, as if empty, and replaced: the cache only ever saves requests. It is
//! written through a temporary file and a rename, so that a crash never leaves half of
//! it behind.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The file's name in the cache folder.
pub const FILE: &str = "external.json";

/// The layout's number, which a file must have to be read.
const LAYOUT: u32 = 1;

/// The largest file read: some 10,000 pages of anchors. Anything larger is not one the
/// check wrote.
const MAX_FILE: u64 = 64 << 20;

/// What the check knows of one address.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Known {
    /// When it was found good, in seconds since 1970.
    pub checked: u64,
    /// Its page's anchors, when the page was read for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchors: Option<BTreeSet<String>>,
    /// Whether its page was read and is no HTML (a PDF): a fragment there is the
    /// reader's program's, which no anchor answers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plain: bool,
    /// Where it has moved for good, when it answered through a permanent redirect:
    /// told as a note from the cache as when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Layout {
    layout: u32,
    addresses: BTreeMap<String, Known>,
}

/// The cache of one site.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    /// What is known, by address (without its fragment).
    pub known: BTreeMap<String, Known>,
    /// Whether anything was added since it was read.
    changed: bool,
}

/// Seconds since 1970 at `time`.
pub fn seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Store {
    /// The site's cache at `root`, with what is younger than `max_age` at `now`.
    pub fn open(root: &Path, max_age: Duration, now: SystemTime) -> Store {
        let path = root.join(crate::site::cache::FOLDER).join(FILE);
        let oldest = seconds(now).saturating_sub(max_age.as_secs());
        let known = read(&path)
            .map(|layout| layout.addresses)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, k)| k.checked >= oldest && k.checked <= seconds(now) + 60)
            .collect();
        Store {
            path,
            known,
            changed: false,
        }
    }

    /// What is known of `address` young enough to use: with its anchors when `anchors`.
    pub fn get(&self, address: &str, anchors: bool) -> Option<&Known> {
        self.known
            .get(address)
            .filter(|k| !anchors || k.anchors.is_some() || k.plain)
    }

    /// Keeps `address` as good now.
    pub fn insert(&mut self, address: String, known: Known) {
        self.known.insert(address, known);
        self.changed = true;
    }

    /// Writes the file when anything was added. A failure to write costs only the
    /// next check's requests, so it is said and not an error.
    pub fn save(&self) -> Result<(), String> {
        if !self.changed {
            return Ok(());
        }
        let layout = Layout {
            layout: LAYOUT,
            addresses: self.known.clone(),
        };
        let text = serde_json::to_vec(&layout).map_err(|e| e.to_string())?;
        let write = || {
            let folder = self.path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(folder)?;
            let tmp = folder.join(format!("{FILE}.{}.tmp", std::process::id()));
            // A file made anew, never one planted there (a link would be followed).
            let _ = std::fs::remove_file(&tmp);
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?
                .write_all(&text)?;
            std::fs::rename(&tmp, &self.path).inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        };
        write().map_err(|e: std::io::Error| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// The file, when it is a regular file of this layout.
fn read(path: &Path) -> Option<Layout> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    let layout: Layout = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    (layout.layout == LAYOUT).then_some(layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_is_young_and_ignores_what_is_broken() {
        let dir = std::env::temp_dir().join(format!("retrylab-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let day = Duration::from_secs(86_400);
        let mut store = Store::open(&dir, day, now);
        assert!(store.known.is_empty());
        store.insert(
            "https://a.org/".into(),
            Known {
                checked: 1_000_000,
                anchors: None,
                plain: false,
                moved: None,
            },
        );
        store.insert(
            "https://b.org/".into(),
            Known {
                checked: 1_000_000 - 90_000,
                anchors: Some(["x".to_string()].into()),
                plain: false,
                moved: None,
            },
        );
        store.save().unwrap();
        let again = Store::open(&dir, day, now);
        assert_eq!(again.known.keys().collect::<Vec<_>>(), ["https://a.org/"]);
        assert!(again.get("https://a.org/", false).is_some());
        assert!(again.get("https://a.org/", true).is_none());
        let file = dir.join(crate::site::cache::FOLDER).join(FILE);
        for junk in ["", "{", "[]", "{\"layout\":2,\"addresses\":{}}", "\u{0}"] {
            std::fs::write(&file, junk).unwrap();
            assert!(Store::open(&dir, day, now).known.is_empty(), "{junk:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
