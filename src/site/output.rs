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
//!
//! A file the new site holds with the very bytes of the last site's file at the same
//! place is a second name (a hard link) of that file rather than a new one: making a
//! file costs the file system far more than naming one, and a rebuild after an edit
//! changes few files. The last site is never written to: a name written twice is
//! removed and made anew, and where a link cannot be made the file is written.

mod lock;
pub mod place;

use std::collections::HashMap;
use std::io::{self, Write};
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
    /// The last site's regular files, by their path below its root (`/` between
    /// folders), with their size: the files a write may link rather than write.
    last: HashMap<String, u64>,
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

/// The regular files below `root`, by their path (`/` between folders) and size,
/// found without following a symbolic link; none when `root` is not a folder.
fn files_of(root: &Path) -> HashMap<String, u64> {
    let mut files = HashMap::new();
    if !root.symlink_metadata().is_ok_and(|m| m.is_dir()) {
        return files;
    }
    for entry in walkdir::WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .flatten()
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let (Ok(relative), Ok(metadata)) = (entry.path().strip_prefix(root), entry.metadata())
        else {
            continue;
        };
        let parts: Option<Vec<&str>> = relative.iter().map(|part| part.to_str()).collect();
        if let Some(parts) = parts {
            files.insert(parts.join("/"), metadata.len());
        }
    }
    files
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
            last: files_of(target),
            lock: Some(lock),
        };
        staging.write(MARKER, place::MARKER_TEXT.as_bytes())?;
        Ok(staging)
    }

    /// Writes one file, given by its path below the site root (`/` between folders):
    /// a link to the last site's file where that holds the same bytes.
    pub fn write(&self, relative: &str, bytes: &[u8]) -> Result<(), Failure> {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
        }
        if self.link_unchanged(relative, bytes, &path) {
            return Ok(());
        }
        let create = || {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
        };
        let mut file = match create() {
            // Written before, and perhaps a link: never written through.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(&path).map_err(|e| io("replace", &path, e))?;
                create()
            }
            other => other,
        }
        .map_err(|e| io("write", &path, e))?;
        file.write_all(bytes).map_err(|e| io("write", &path, e))
    }

    /// Links `path` to the last site's file at `relative` when that holds `bytes`.
    fn link_unchanged(&self, relative: &str, bytes: &[u8], path: &Path) -> bool {
        if self.last.get(relative) != Some(&(bytes.len() as u64)) {
            return false;
        }
        let last = self.target.join(relative);
        match std::fs::read(&last) {
            Ok(old) if old == bytes => std::fs::hard_link(&last, path).is_ok(),
            _ => false,
        }
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
            // A copy writes through an existing name, which may be a link to the last
            // site's file: the name goes first.
            match std::fs::remove_file(&to) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(io("replace", &to, e));
                }
                Ok(()) | Err(_) => {}
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

    /// A staging folder for an output `public` in `dir`, as a build makes it.
    #[cfg(unix)]
    fn staging(dir: &Path) -> Staging {
        let place = Place {
            path: dir.join("public"),
            shown: "public".into(),
        };
        Staging::new(&place).unwrap()
    }

    #[cfg(unix)]
    fn inode(path: &Path) -> u64 {
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
    }

    #[cfg(unix)]
    #[test]
    fn an_unchanged_file_is_linked_and_a_changed_one_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let public = dir.path().join("public");
        let first = staging(dir.path());
        first.write("a/index.html", b"same").unwrap();
        first.write("b.html", b"before").unwrap();
        first.write("c.html", b"before").unwrap();
        first.commit().unwrap();
        let (same, changed) = (
            inode(&public.join("a/index.html")),
            inode(&public.join("b.html")),
        );

        let second = staging(dir.path());
        second.write("a/index.html", b"same").unwrap();
        // The same length, other bytes.
        second.write("b.html", b"beFORE").unwrap();
        // Linked, then written again: the name is replaced, the last site's file kept.
        second.write("c.html", b"before").unwrap();
        second.write("c.html", b"after!").unwrap();
        for (name, text) in [
            ("a/index.html", "same"),
            ("b.html", "before"),
            ("c.html", "before"),
        ] {
            assert_eq!(
                std::fs::read_to_string(public.join(name)).unwrap(),
                text,
                "{name}"
            );
        }
        second.commit().unwrap();
        assert_eq!(inode(&public.join("a/index.html")), same);
        assert_ne!(inode(&public.join("b.html")), changed);
        for (name, text) in [
            ("a/index.html", "same"),
            ("b.html", "beFORE"),
            ("c.html", "after!"),
        ] {
            assert_eq!(
                std::fs::read_to_string(public.join(name)).unwrap(),
                text,
                "{name}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_file_behind_a_symbolic_link_in_the_last_site_is_never_linked() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("page.html"), "text").unwrap();
        let first = staging(dir.path());
        first.write("index.html", b"home").unwrap();
        first.commit().unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("public/linked")).unwrap();
        std::os::unix::fs::symlink(
            outside.join("page.html"),
            dir.path().join("public/file.html"),
        )
        .unwrap();

        let second = staging(dir.path());
        second.write("linked/page.html", b"text").unwrap();
        second.write("file.html", b"text").unwrap();
        second.commit().unwrap();
        let public = dir.path().join("public");
        for name in ["linked/page.html", "file.html"] {
            let metadata = std::fs::symlink_metadata(public.join(name)).unwrap();
            assert!(metadata.is_file(), "{name}");
            assert_ne!(
                inode(&public.join(name)),
                inode(&outside.join("page.html")),
                "{name}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(outside.join("page.html")).unwrap(),
            "text"
        );
    }
}
