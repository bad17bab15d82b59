//! No input takes the tool down: odd bytes in directives, a lying or hanging cache, a
//! hostile client of `serve`, a title or a symbolic link that `new` must not trust.

mod cache;
mod new;
mod pages;
mod serve;

use std::path::Path;

/// A site in a fresh temporary folder with `site.yaml` and the given pages, by path
/// under `content/`.
pub fn site_with(pages: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("site.yaml"), "title: Robust\n").unwrap();
    for (name, text) in pages {
        let path = dir.path().join("content").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The root as an argument.
pub fn arg(root: &Path) -> &str {
    root.to_str().expect("a UTF-8 path")
}
