//! Writing the site: everything goes to a fresh folder beside the output, which is
//! swapped in only when complete, so a failed or killed build never touches the last
//! good site.
//!
//! Beside an output `public/` a build keeps, for a moment: `.public.lock` (one build
//! writes at a time), `.public.building-PID` (the site being written) and, where folders
//! cannot be exchanged in one step, `.public.old` (the last good site, set aside during
//! the swap). Each folder carries the output's marker from its first moment to its
//! last, so that the next build recognises what a killed one left, puts a set-aside
//! site back, and removes the rest; a folder without the marker is never removed.

mod lock;
pub mod place;

use std::io;
use std::path::{Path, PathBuf};

use crate::diag::Failure;
use lock::Lock;
pub use place::{MARKER, Place};

/// A site being written.
pub struct Staging {
    dir: PathBuf,
    target: PathBuf,
    /// Set once the site is in place: nothing is left to remove.
    committed: bool,
    // Dropped last: the staging folder is removed while the lock is still held. Handed
    // to [`Replaced`] by a commit that leaves the replaced site to remove.
    lock: Option<Lock>,
}

/// A site that [`Staging::commit_leaving_replaced`] put out of place, still to remove.
/// It holds the output's lock until it is removed, so that no other build meets it
/// half removed.
pub struct Replaced {
    dir: PathBuf,
    _lock: Option<Lock>,
}

impl Replaced {
    /// Removes it, then lets the next build in.
    pub fn remove(self) {
        let _ = remove_output(&self.dir);
    }
}

fn io(what: &str, path: &Path, e: io::Error) -> Failure {
    Failure::Other(format!("cannot {what} {}: {e}", path.display()))
}

/// The names of the files a build keeps beside its output.
struct Beside {
    parent: PathBuf,
    name: String,
}

impl Beside {
    fn of(target: &Path) -> Beside {
        Beside {
            parent: target.parent().unwrap_or(Path::new("/")).to_path_buf(),
            name: target.file_name().map_or_else(
                || "public".to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        }
    }

    fn lock(&self) -> PathBuf {
        self.parent.join(format!(".{}.lock", self.name))
    }

    fn old(&self) -> PathBuf {
        self.parent.join(format!(".{}.old", self.name))
    }

    fn building(&self, pid: u32) -> PathBuf {
        self.parent.join(format!(".{}.building-{pid}", self.name))
    }

    /// Whether a file name beside the output is a staging folder's or a set-aside site's.
    fn is_leftover(&self, name: &str) -> bool {
        let prefix = format!(".{}.", self.name);
        name.strip_prefix(&prefix).is_some_and(|rest| {
            rest == "old"
                || rest
                    .strip_prefix("building-")
                    .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        })
    }
}

/// Puts back what a killed build left beside `place`, if no build is running there now:
/// a failed build, which never reaches [`Staging::new`], still restores the last good site.
pub fn recover_if_idle(place: &Place) -> Result<(), Failure> {
    let beside = Beside::of(&place.path);
    if !beside.parent.is_dir() {
        return Ok(());
    }
    let lock = beside.lock();
    if let Some(_held) = Lock::try_take(&lock).map_err(|e| io("lock", &lock, e))? {
        recover(&place.path, &beside)?;
    }
    Ok(())
}

/// With the lock held: a set-aside site goes back when the output is missing; every
/// other marked or empty leftover is removed.
fn recover(target: &Path, beside: &Beside) -> Result<(), Failure> {
    let old = beside.old();
    if target.symlink_metadata().is_err() && place::is_marked(&old) {
        std::fs::rename(&old, target).map_err(|e| io("put back", &old, e))?;
    }
    let entries = std::fs::read_dir(&beside.parent).map_err(|e| io("read", &beside.parent, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io("read", &beside.parent, e))?;
        let name = entry.file_name();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && beside.is_leftover(&name.to_string_lossy()) {
            let path = entry.path();
            if place::is_marked(&path) {
                remove_output(&path).map_err(|e| io("remove", &path, e))?;
            } else {
                // Empty when a build was killed before it could mark its folder; a
                // folder of files without the marker is someone else's.
                let _ = std::fs::remove_dir(&path);
            }
        }
    }
    Ok(())
}

/// Removes a folder a build wrote, the marker last: a removal cut short leaves a folder
/// that is still recognised as the build's.
fn remove_output(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == MARKER {
            continue;
        }
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    match std::fs::remove_file(dir.join(MARKER)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        Ok(()) | Err(_) => {}
    }
    std::fs::remove_dir(dir)
}

/// Exchanges two folders in one step, where the system can.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

impl Staging {
    /// Starts writing a site for `place`: waits for any other build writing there,
    /// clears what a killed build left, checks the output again (it may have changed
    /// since the build began) and makes a marked staging folder beside it.
    pub fn new(place: &Place) -> Result<Staging, Failure> {
        let target = &place.path;
        let beside = Beside::of(target);
        std::fs::create_dir_all(&beside.parent).map_err(|e| io("create", &beside.parent, e))?;
        let lock_path = beside.lock();
        let lock = Lock::take(&lock_path, || {
            eprintln!(
                "waiting for another build to finish writing {}…",
                place.shown
            );
        })
        .map_err(|e| io("lock", &lock_path, e))?;
        recover(target, &beside)?;
        place.check_contents()?;
        let dir = beside.building(std::process::id());
        std::fs::create_dir(&dir).map_err(|e| io("create", &dir, e))?;
        let staging = Staging {
            dir,
            target: target.clone(),
            committed: false,
            lock: Some(lock),
        };
        staging.write(MARKER, place::MARKER_TEXT.as_bytes())?;
        Ok(staging)
    }

    /// Writes one file, given by its path below the site root.
    pub fn write(&self, relative: &str, bytes: &[u8]) -> Result<(), Failure> {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| io("write", &path, e))
    }

    /// Whether a file was already written.
    pub fn has(&self, relative: &str) -> bool {
        self.dir.join(relative).exists()
    }

    /// Copies a folder's files (the site's `static/`) into the site, as they are.
    pub fn copy_tree(&self, from: &Path) -> Result<usize, Failure> {
        let mut copied = 0;
        if !from.is_dir() {
            return Ok(0);
        }
        for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
            let entry = entry
                .map_err(|e| Failure::Other(format!("cannot read {}: {e}", from.display())))?;
            if !entry.file_type().is_file() {
                continue;
            }
            let relative = entry.path().strip_prefix(from).unwrap_or(entry.path());
            let to = self.dir.join(relative);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
            }
            std::fs::copy(entry.path(), &to).map_err(|e| io("copy", entry.path(), e))?;
            copied += 1;
        }
        Ok(copied)
    }

    /// Swaps the finished site in place of the old one, which is then removed.
    pub fn commit(self) -> Result<(), Failure> {
        if let Some(replaced) = self.commit_leaving_replaced()? {
            // What cannot be removed now, the next build does.
            replaced.remove();
        }
        Ok(())
    }

    /// [`Staging::commit`], but the site it replaced is left for the caller to remove,
    /// with the output's lock, for a server that publishes first and tidies up after.
    pub fn commit_leaving_replaced(mut self) -> Result<Option<Replaced>, Failure> {
        let replaced = swap(&self.dir, &self.target, exchange)?;
        self.committed = true;
        Ok(replaced.map(|dir| Replaced {
            dir,
            _lock: self.lock.take(),
        }))
    }
}

/// Puts the site in `dir` in place of `target`, and returns where what was there now
/// is, to be removed. At every moment one of the two is complete and findable: in
/// place, or (between two renames, where `exchange` cannot swap folders at once) set
/// aside as `.NAME.old`. On an error `dir` still holds the new site.
fn swap(
    dir: &Path,
    target: &Path,
    exchange: impl Fn(&Path, &Path) -> io::Result<()>,
) -> Result<Option<PathBuf>, Failure> {
    if target.symlink_metadata().is_err() {
        std::fs::rename(dir, target).map_err(|e| io("move into place", dir, e))?;
        return Ok(None);
    }
    if exchange(dir, target).is_ok() {
        // `dir` now holds the last site.
        return Ok(Some(dir.to_path_buf()));
    }
    let old = Beside::of(target).old();
    std::fs::rename(target, &old).map_err(|e| io("move aside", target, e))?;
    if let Err(e) = std::fs::rename(dir, target) {
        let _ = std::fs::rename(&old, target);
        return Err(io("move into place", dir, e));
    }
    Ok(Some(old))
}

impl Drop for Staging {
    /// An unfinished site is thrown away.
    fn drop(&mut self) {
        if !self.committed {
            let _ = remove_output(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_are_recognised_by_name() {
        let beside = Beside::of(Path::new("/site/public"));
        for name in [
            ".public.old",
            ".public.building-1",
            ".public.building-40213",
        ] {
            assert!(beside.is_leftover(name), "{name}");
        }
        for name in [
            "public",
            ".public.lock",
            ".public.building-",
            ".public.building-12x",
            ".public.older",
            ".other.old",
            ".public.building-1/..",
        ] {
            assert!(!beside.is_leftover(name), "{name}");
        }
    }

    /// A marked folder whose page `a/index.html` says `text`.
    fn site(dir: &Path, text: &str) {
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join(MARKER), "").unwrap();
        std::fs::write(dir.join("a/index.html"), text).unwrap();
    }

    #[test]
    fn a_swap_works_with_and_without_an_exchange_of_folders() {
        let unsupported = |_: &Path, _: &Path| Err(io::ErrorKind::Unsupported.into());
        for exchanges in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let (new, target) = (
                dir.path().join(".public.building-1"),
                dir.path().join("public"),
            );
            site(&target, "old");
            site(&new, "new");
            let result = if exchanges {
                swap(&new, &target, exchange)
            } else {
                swap(&new, &target, unsupported)
            };
            let replaced = result.unwrap().expect("a site was replaced");
            let read = std::fs::read_to_string(replaced.join("a/index.html")).unwrap();
            assert_eq!(read, "old");
            remove_output(&replaced).unwrap();
            let read = std::fs::read_to_string(target.join("a/index.html")).unwrap();
            assert_eq!(read, "new");
            let names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["public"], "exchanges: {exchanges}");
        }
    }

    #[test]
    fn a_marked_folder_is_removed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        std::fs::create_dir_all(site.join("a/b")).unwrap();
        std::fs::write(site.join(MARKER), "m").unwrap();
        std::fs::write(site.join("a/b/c.html"), "c").unwrap();
        remove_output(&site).unwrap();
        assert!(!site.exists());
    }
}
