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
//!
//! A server goes further: the site a build replaced stays, marked, where it was built
//! (a [`Spare`]), and the next build is written into it rather than into a new folder.
//! Its folders are there already, and a name that is already the last site's very file
//! with the right bytes stays as it is, so an edit costs the file system only the files
//! that changed; every other name is replaced (never written through) or removed, so
//! the folder ends holding exactly what a build into a new one would. Its marker is
//! never removed while it is in use, so a server killed at any moment leaves a folder
//! the next build recognises and removes.

mod lock;
pub mod place;

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

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
    /// The files the folder held before this build wrote any, when it is a [`Spare`]
    /// (none in a new folder): those this build does not write are removed before the
    /// site is swapped in.
    held: HashSet<String>,
    /// Whether the folder is a [`Spare`].
    reused: bool,
    /// The files this build wrote, by their path below the site's root.
    written: Mutex<HashSet<String>>,
    // Dropped last: the staging folder is removed while the lock is still held.
    _lock: Lock,
}

/// The site a server's build replaced, kept marked where it was built for the next
/// build to write into (see the module's documentation). Between builds it is a
/// leftover like any other to a build of another process, which may remove it.
pub struct Spare {
    dir: PathBuf,
    /// Where the output's lock is.
    lock: PathBuf,
}

impl Spare {
    /// Removes it, unless a build holds the output's lock (it is then a leftover that
    /// the next build removes).
    pub fn remove(self) {
        if let Ok(Some(_held)) = Lock::try_take(&self.lock)
            && place::is_marked(&self.dir)
        {
            let _ = remove_output(&self.dir);
        }
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
/// a failed build, which never reaches [`Staging::new`], still restores the last good
/// site. `spare` is kept.
pub fn recover_if_idle(place: &Place, spare: Option<&Spare>) -> Result<(), Failure> {
    let beside = Beside::of(&place.path);
    if !beside.parent.is_dir() {
        return Ok(());
    }
    let lock = beside.lock();
    if let Some(_held) = Lock::try_take(&lock).map_err(|e| io("lock", &lock, e))? {
        recover(&place.path, &beside, spare)?;
    }
    Ok(())
}

/// With the lock held: a set-aside site goes back when the output is missing; every
/// other marked or empty leftover but `spare` is removed.
fn recover(target: &Path, beside: &Beside, spare: Option<&Spare>) -> Result<(), Failure> {
    let old = beside.old();
    if target.symlink_metadata().is_err() && place::is_marked(&old) {
        std::fs::rename(&old, target).map_err(|e| io("put back", &old, e))?;
    }
    let entries = std::fs::read_dir(&beside.parent).map_err(|e| io("read", &beside.parent, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io("read", &beside.parent, e))?;
        let name = entry.file_name();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let path = entry.path();
        if is_dir
            && beside.is_leftover(&name.to_string_lossy())
            && spare.is_none_or(|s| s.dir != path)
        {
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

/// The files below `dir`, a spare site, by their path (`/` between folders); `None`
/// when it holds anything but folders and regular files with names of UTF-8, which no
/// build writes.
fn held_files(dir: &Path) -> Option<HashSet<String>> {
    let mut files = HashSet::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.ok()?;
        let kind = entry.file_type();
        let relative = entry.path().strip_prefix(dir).ok()?;
        let parts: Vec<&str> = relative
            .iter()
            .map(|part| part.to_str())
            .collect::<Option<_>>()?;
        if kind.is_file() {
            files.insert(parts.join("/"));
        } else if !kind.is_dir() {
            return None;
        }
    }
    Some(files)
}

/// Whether `a` and `b` are regular files and the same file (two names of it, not a
/// symbolic link to it), where the system can tell.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (a.symlink_metadata(), b.symlink_metadata()) {
            (Ok(a), Ok(b)) => {
                a.is_file() && b.is_file() && a.dev() == b.dev() && a.ino() == b.ino()
            }
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

impl Staging {
    /// Starts writing a site for `place`: waits for any other build writing there,
    /// clears what a killed build left, checks the output again (it may have changed
    /// since the build began) and makes a marked staging folder beside it, or takes
    /// `spare` for one when it is still there, marked and holding only what a build
    /// writes (otherwise it is removed, as any leftover).
    pub fn new(place: &Place, spare: Option<Spare>) -> Result<Staging, Failure> {
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
        let dir = beside.building(std::process::id());
        let spare = match spare {
            Some(spare) if spare.dir == dir && place::is_marked(&dir) => Some(spare),
            // Beside another output, which the site's settings named before.
            Some(spare) if spare.dir != dir => {
                spare.remove();
                None
            }
            Some(_) | None => None,
        };
        recover(target, &beside, spare.as_ref())?;
        place.check_contents()?;
        let held = spare.and_then(|s| held_files(&s.dir));
        let reused = held.is_some();
        if !reused {
            if place::is_marked(&dir) {
                remove_output(&dir).map_err(|e| io("remove", &dir, e))?;
            }
            std::fs::create_dir(&dir).map_err(|e| io("create", &dir, e))?;
        }
        let staging = Staging {
            dir,
            target: target.clone(),
            committed: false,
            last: files_of(target),
            held: held.unwrap_or_default(),
            reused,
            written: Mutex::new(HashSet::new()),
            _lock: lock,
        };
        staging.write(MARKER, place::MARKER_TEXT.as_bytes())?;
        Ok(staging)
    }

    /// Writes one file, given by its path below the site root (`/` between folders):
    /// a link to the last site's file where that holds the same bytes.
    pub fn write(&self, relative: &str, bytes: &[u8]) -> Result<(), Failure> {
        let path = self.dir.join(relative);
        self.note_written(relative);
        if relative == MARKER && self.reused {
            // A spare's marker stays from its first moment to its last: replaced, if
            // ever, in one step.
            if std::fs::read(&path).is_ok_and(|held| held == bytes) {
                return Ok(());
            }
            let new = self.dir.join(format!("{MARKER}.new"));
            return std::fs::write(&new, bytes)
                .and_then(|()| std::fs::rename(&new, &path))
                .map_err(|e| io("write", &path, e));
        }
        self.make_folder_for(&path)?;
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
            // Written before, and perhaps a link, or a spare's: never written through.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                self.clear(&path)?;
                create()
            }
            other => other,
        }
        .map_err(|e| io("write", &path, e))?;
        file.write_all(bytes).map_err(|e| io("write", &path, e))
    }

    /// Records that this build writes `relative`.
    fn note_written(&self, relative: &str) {
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        written.insert(relative.to_string());
    }

    /// Makes the folders that hold `path`. In a spare, a file where one of them must
    /// go is a file of the site it held, and is removed.
    fn make_folder_for(&self, path: &Path) -> Result<(), Failure> {
        let Some(parent) = path.parent() else {
            return Ok(());
        };
        let made = std::fs::create_dir_all(parent);
        if made.is_ok() || !self.reused {
            return made.map_err(|e| io("create", parent, e));
        }
        let mut folder = self.dir.clone();
        for part in parent.strip_prefix(&self.dir).unwrap_or(parent) {
            folder.push(part);
            if folder.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
                self.clear(&folder)?;
            }
        }
        std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))
    }

    /// Removes the name `path`: a file, or in a spare a folder of the site it held
    /// (never one holding a file this build wrote).
    fn clear(&self, path: &Path) -> Result<(), Failure> {
        let is_dir = path.symlink_metadata().is_ok_and(|m| m.is_dir());
        let removed = if is_dir && self.reused && !self.wrote_below(path) {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        match removed {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io("replace", path, e)),
            Ok(()) | Err(_) => Ok(()),
        }
    }

    /// Whether this build wrote a file inside the folder `path`.
    fn wrote_below(&self, path: &Path) -> bool {
        let written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        written.iter().any(|relative| {
            let file = self.dir.join(relative);
            file != path && file.starts_with(path)
        })
    }

    /// Makes `path` the last site's file at `relative` when that holds `bytes`: a name
    /// that is already that file stays, another is replaced by a link to it.
    fn link_unchanged(&self, relative: &str, bytes: &[u8], path: &Path) -> bool {
        if self.last.get(relative) != Some(&(bytes.len() as u64)) {
            return false;
        }
        let last = self.target.join(relative);
        match std::fs::read(&last) {
            Ok(old) if old == bytes => {}
            _ => return false,
        }
        if self.held.contains(relative) {
            if same_file(&last, path) {
                return true;
            }
            if self.clear(path).is_err() {
                return false;
            }
        }
        std::fs::hard_link(&last, path).is_ok()
    }

    /// Whether this build already wrote a file.
    pub fn has(&self, relative: &str) -> bool {
        let written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        written.contains(relative)
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
            if let Some(relative) = relative.to_str() {
                self.note_written(&relative.replace(std::path::MAIN_SEPARATOR, "/"));
            }
            self.make_folder_for(&to)?;
            // A copy writes through an existing name, which may be a link to the last
            // site's file: the name goes first.
            self.clear(&to)?;
            std::fs::copy(entry.path(), &to).map_err(|e| io("copy", entry.path(), e))?;
            copied += 1;
        }
        Ok(copied)
    }

    /// Removes the spare's files this build did not write, and the folders that leaves
    /// empty (a build into a new folder makes none).
    fn remove_unwritten(&self) -> Result<(), Failure> {
        let written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        for relative in self.held.iter().filter(|r| !written.contains(*r)) {
            let path = self.dir.join(relative);
            if !path.symlink_metadata().is_ok_and(|m| m.is_file()) {
                // Replaced by a folder of this build's files, or gone with its folder.
                continue;
            }
            std::fs::remove_file(&path).map_err(|e| io("remove", &path, e))?;
            let mut folder = path.parent();
            while let Some(f) = folder.filter(|f| *f != self.dir) {
                if std::fs::remove_dir(f).is_err() {
                    break;
                }
                folder = f.parent();
            }
        }
        Ok(())
    }

    /// Swaps the finished site in place of the old one, which is then removed.
    pub fn commit(mut self) -> Result<(), Failure> {
        if let Some(replaced) = self.swap_in()? {
            // Removed with the lock still held; what cannot be, the next build removes.
            let _ = remove_output(&replaced);
        }
        Ok(())
    }

    /// [`Staging::commit`], but the site it replaced is kept as a [`Spare`] for the next
    /// build, where it took the staging folder's place in one step (otherwise it is
    /// removed).
    pub fn commit_keeping_replaced(mut self) -> Result<Option<Spare>, Failure> {
        match self.swap_in()? {
            Some(dir) if dir == self.dir => Ok(Some(Spare {
                dir,
                lock: Beside::of(&self.target).lock(),
            })),
            Some(dir) => {
                let _ = remove_output(&dir);
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// Puts the finished site in place; where the replaced one now is.
    fn swap_in(&mut self) -> Result<Option<PathBuf>, Failure> {
        if self.reused {
            self.remove_unwritten()?;
        }
        let replaced = swap(&self.dir, &self.target, exchange)?;
        self.committed = true;
        Ok(replaced)
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

    /// An output `public` in `dir`.
    #[cfg(unix)]
    fn public_in(dir: &Path) -> Place {
        Place {
            path: dir.join("public"),
            shown: "public".into(),
        }
    }

    /// A staging folder for an output `public` in `dir`, as a build makes it.
    #[cfg(unix)]
    fn staging(dir: &Path) -> Staging {
        Staging::new(&public_in(dir), None).unwrap()
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

    /// Every file and folder below `dir`, by its path, with a file's text.
    #[cfg(unix)]
    fn tree(dir: &Path) -> Vec<(String, Option<String>)> {
        let mut tree: Vec<_> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(Result::unwrap)
            .map(|e| {
                let name = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let text = e
                    .file_type()
                    .is_file()
                    .then(|| std::fs::read_to_string(e.path()).unwrap());
                (name, text)
            })
            .collect();
        tree.sort();
        tree
    }

    #[cfg(unix)]
    #[test]
    fn a_spare_is_written_into_and_ends_holding_what_a_new_folder_would() {
        let dir = tempfile::tempdir().unwrap();
        let public = dir.path().join("public");
        let place = public_in(dir.path());
        let first_site = |staging: &Staging| {
            for (name, text) in [
                ("a/index.html", "same"),
                ("b.html", "one"),
                ("gone/deeper/page.html", "gone"),
                ("c", "a file"),
                ("d/index.html", "a folder"),
            ] {
                staging.write(name, text.as_bytes()).unwrap();
            }
        };
        let first = Staging::new(&place, None).unwrap();
        first_site(&first);
        assert!(
            first.commit_keeping_replaced().unwrap().is_none(),
            "nothing replaced"
        );
        let second = Staging::new(&place, None).unwrap();
        first_site(&second);
        let spare = second.commit_keeping_replaced().unwrap().expect("a spare");
        let same = inode(&public.join("a/index.html"));
        let last = tree(&public);

        let third = Staging::new(&place, Some(spare)).unwrap();
        for (name, text) in [
            ("a/index.html", "same"),
            ("b.html", "two"),
            ("c/index.html", "now a folder"),
            ("d", "now a file"),
            ("new.html", "new"),
        ] {
            third.write(name, text.as_bytes()).unwrap();
        }
        assert!(third.has("d") && !third.has("b.html.old") && !third.has("gone/deeper/page.html"));
        assert_eq!(tree(&public), last, "the last site is never written to");
        let spare = third.commit_keeping_replaced().unwrap().expect("a spare");
        assert_eq!(tree(&spare.dir), last, "the replaced site is kept whole");
        let marker = Some(place::MARKER_TEXT.to_string());
        assert_eq!(
            tree(&public),
            [
                (MARKER.to_string(), marker),
                ("a".to_string(), None),
                ("a/index.html".to_string(), Some("same".to_string())),
                ("b.html".to_string(), Some("two".to_string())),
                ("c".to_string(), None),
                ("c/index.html".to_string(), Some("now a folder".to_string())),
                ("d".to_string(), Some("now a file".to_string())),
                ("new.html".to_string(), Some("new".to_string())),
            ]
        );
        assert_eq!(inode(&public.join("a/index.html")), same);
        spare.remove();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["public"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_spare_holding_a_symbolic_link_is_not_written_into() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("page.html"), "theirs").unwrap();
        let place = public_in(dir.path());
        for _ in 0..2 {
            let staging = Staging::new(&place, None).unwrap();
            staging.write("linked/page.html", b"ours").unwrap();
            staging.commit_keeping_replaced().unwrap();
        }
        let staging = Staging::new(&place, None).unwrap();
        staging.write("linked/page.html", b"ours").unwrap();
        let spare = staging.commit_keeping_replaced().unwrap().expect("a spare");
        std::fs::remove_dir_all(spare.dir.join("linked")).unwrap();
        std::os::unix::fs::symlink(&outside, spare.dir.join("linked")).unwrap();

        let staging = Staging::new(&place, Some(spare)).unwrap();
        staging.write("linked/page.html", b"new!").unwrap();
        staging.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.join("page.html")).unwrap(),
            "theirs"
        );
        let public = dir.path().join("public");
        assert!(
            std::fs::symlink_metadata(public.join("linked"))
                .unwrap()
                .is_dir()
        );
        assert_eq!(
            std::fs::read_to_string(public.join("linked/page.html")).unwrap(),
            "new!"
        );
    }
}
