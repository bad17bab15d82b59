//! Writing the site: everything goes to a fresh folder beside the output, which is
//! swapped in only when complete, so a failed build never touches the last good site.

use std::path::{Path, PathBuf};

use crate::diag::Failure;

/// A site being written.
pub struct Staging {
    dir: PathBuf,
    target: PathBuf,
}

fn io(what: &str, path: &Path, e: std::io::Error) -> Failure {
    Failure::Other(format!("cannot {what} {}: {e}", path.display()))
}

impl Staging {
    /// Starts a build for `target` in a sibling folder.
    pub fn new(target: &Path) -> Result<Staging, Failure> {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "public".to_string());
        let parent = target.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
        let dir = parent.join(format!(".{name}.building-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| io("clear", &dir, e))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
        Ok(Staging {
            dir,
            target: target.to_path_buf(),
        })
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

    /// Swaps the finished site in place of the old one.
    pub fn commit(&self) -> Result<(), Failure> {
        let old = self.dir.with_extension("old");
        if self.target.exists() {
            std::fs::rename(&self.target, &old).map_err(|e| io("move aside", &self.target, e))?;
        }
        std::fs::rename(&self.dir, &self.target)
            .map_err(|e| io("move into place", &self.dir, e))?;
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| io("remove", &old, e))?;
        }
        Ok(())
    }
}

impl Drop for Staging {
    /// An unfinished site is thrown away; after `commit` there is nothing left to remove.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
