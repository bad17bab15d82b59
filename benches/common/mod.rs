//! What more than one benchmark needs.

use std::path::Path;

/// Copies a folder's files recursively; a folder that is not there copies nothing.
pub fn copy_tree(from: &Path, to: &Path) {
    if !from.is_dir() {
        return;
    }
    for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
