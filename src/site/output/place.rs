//! Where a site may be written: the output folder, resolved to its real path and
//! refused when replacing it could destroy a file the build did not write.
//!
//! A build replaces its output folder whole. That is safe only for a folder of its own:
//! not the site, not a folder holding the site, not one of the inputs the build reads,
//! and not an existing folder of other files. Every output carries a marker file, so an
//! earlier output is told apart from a folder that merely exists.

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::diag::Failure;
use crate::site::cache;
use crate::site::config::{Config, OutputFrom};

/// The file every output holds, which says that a build wrote the folder and that the
/// next build may replace it. A dot file, out of the way of the pages; a host that
/// publishes it shows a sentence of text.
pub const MARKER: &str = ".retrylab-output";

/// What the marker says to whoever opens it.
pub const MARKER_TEXT: &str = "This folder was written by `retrylab build`; the next build \
                               replaces it whole. Keep no other files here.\n";

/// The folders a build reads, which an output may neither be nor lie inside.
const INPUTS: [&str; 4] = ["content", "templates", "static", cache::FOLDER];

/// An output folder that a build may replace.
#[derive(Clone, Debug)]
pub struct Place {
    /// Its real path: absolute, without `..`, through every symbolic link.
    pub path: PathBuf,
    /// How the user wrote it, with where it was set, for messages.
    pub shown: String,
}

impl Place {
    /// Resolves the output folder of `config` and checks that a build may replace it:
    /// it must not be the site at `root`, contain it, or lie in one of its inputs, and
    /// it must be new, empty, or an earlier output.
    pub fn check(root: &Path, config: &Config) -> Result<Place, Failure> {
        // `-o` as typed; site.yaml's `output` (or the default) as written there.
        let written = match config.output_from {
            OutputFrom::Flag => config.output.as_path(),
            OutputFrom::SiteYaml | OutputFrom::Default => {
                config.output.strip_prefix(root).unwrap_or(&config.output)
            }
        };
        let written = if written.as_os_str().is_empty() {
            Path::new(".")
        } else {
            written
        };
        let mut shown = format!("`{}`", written.display());
        if config.output_from == OutputFrom::SiteYaml {
            shown.push_str(" (the `output` of site.yaml)");
        }
        let refuse = |why: String| Failure::Other(format!("the output folder {shown} {why}"));
        let cannot = |path: &Path, e: io::Error| {
            Failure::Other(format!("cannot resolve the folder {}: {e}", path.display()))
        };
        let site = real_path(root).map_err(|e| cannot(root, e))?;
        let path = real_path(&config.output).map_err(|e| cannot(&config.output, e))?;
        let own = "a build replaces its output whole, so give it a folder of its own, \
                   such as `public` (the default)";
        if path == site {
            return Err(refuse(format!("is the site itself: {own}")));
        }
        if site.starts_with(&path) {
            return Err(refuse(format!("contains the site: {own}")));
        }
        for input in INPUTS {
            let folder = real_path(&root.join(input)).map_err(|e| cannot(root, e))?;
            if path.starts_with(&folder) {
                let how = if path == folder { "is" } else { "lies inside" };
                return Err(refuse(format!(
                    "{how} `{input}/`, which the build reads: {own}"
                )));
            }
        }
        let place = Place { path, shown };
        place.check_contents()?;
        Ok(place)
    }

    /// Refuses a file, and a folder that holds files but no marker.
    pub fn check_contents(&self) -> Result<(), Failure> {
        let refuse =
            |why: String| Failure::Other(format!("the output folder {} {why}", self.shown));
        let Some(existing) = self.path.ancestors().find(|a| a.symlink_metadata().is_ok()) else {
            return Ok(());
        };
        if !existing.is_dir() {
            return Err(if existing == self.path {
                refuse("is a file; give the build a folder".to_string())
            } else {
                refuse(format!("cannot be made: {} is a file", existing.display()))
            });
        }
        if existing != self.path || is_marked(&self.path) {
            return Ok(());
        }
        let io = |e: io::Error| Failure::Other(format!("cannot read {}: {e}", self.path.display()));
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .map_err(io)?
            .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()
            .map_err(io)?;
        names.sort();
        match names.first() {
            None => Ok(()),
            Some(first) => Err(refuse(format!(
                "holds files (such as `{first}`) and is no earlier output of retrylab (it \
                 has no `{MARKER}`): a build replaces its output whole, so choose a new or \
                 empty folder, or move those files away"
            ))),
        }
    }
}

/// Whether `dir` is a folder that a build wrote (it holds the marker).
pub fn is_marked(dir: &Path) -> bool {
    dir.join(MARKER)
        .symlink_metadata()
        .is_ok_and(|m| m.is_file())
}

/// The real path `path` has, or would have once created: the part that exists is
/// resolved by the file system (symbolic links, `..` after a link), and the rest is
/// appended with `..` taken lexically, since a folder that does not exist holds no link.
fn real_path(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut real = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => real.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                real.pop();
            }
            Component::Normal(name) => {
                real.push(name);
                if real.symlink_metadata().is_ok() {
                    real = real.canonicalize().map_err(|e| {
                        io::Error::new(e.kind(), format!("{} leads nowhere ({e})", real.display()))
                    })?;
                }
            }
        }
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_paths_follow_links_and_parents() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        assert_eq!(
            real_path(&base.join("a/b/../c/d")).unwrap(),
            base.join("a/c/d")
        );
        assert_eq!(
            real_path(&base.join("x/../a/./b")).unwrap(),
            base.join("a/b")
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("a/b"), base.join("link")).unwrap();
            // `..` after a link leaves the folder the link points to.
            assert_eq!(
                real_path(&base.join("link/../new")).unwrap(),
                base.join("a/new")
            );
            assert_eq!(
                real_path(&base.join("link/new")).unwrap(),
                base.join("a/b/new")
            );
        }
    }
}
