//! One build at a time per output folder: a lock file beside the output, held from
//! the moment a build starts writing until its site is swapped in.
//!
//! The lock is the operating system's (`flock` on Unix), so a build that is killed
//! releases it with its process, and its file left behind stops nobody.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use same_file::Handle;

/// A held lock; released, and its file removed, when dropped.
pub struct Lock {
    path: PathBuf,
    // Closing the file releases the lock, after `drop` has removed the file.
    _file: File,
}

impl Lock {
    /// Takes the lock at `path`, calling `waiting` once if another process holds it and
    /// then waiting for it: like Cargo's build folder, a second build waits its turn.
    pub fn take(path: &Path, waiting: impl FnOnce()) -> io::Result<Lock> {
        let mut waiting = Some(waiting);
        loop {
            if let Some(lock) = Lock::attempt(path, &mut waiting, true)? {
                return Ok(lock);
            }
        }
    }

    /// Takes the lock at `path` if nobody holds it.
    pub fn try_take(path: &Path) -> io::Result<Option<Lock>> {
        Lock::attempt(path, &mut None::<fn()>, false)
    }

    /// One attempt; `None` when the lock is held (and `wait` is false) or when the file
    /// locked was removed meanwhile, so that the caller tries again.
    fn attempt(
        path: &Path,
        waiting: &mut Option<impl FnOnce()>,
        wait: bool,
    ) -> io::Result<Option<Lock>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) if wait => {
                if let Some(say) = waiting.take() {
                    say();
                }
                file.lock()?;
            }
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(e),
        }
        // The holder before us removes the file as it lets go: a lock on a removed file
        // would keep out nobody who opens the path afresh, so it does not count.
        let locked = Handle::from_file(file.try_clone()?)?;
        match Handle::from_path(path) {
            Ok(now) if now == locked => Ok(Some(Lock {
                path: path.to_path_buf(),
                _file: file,
            })),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

impl Drop for Lock {
    /// Removes the file while still holding the lock, so that no stray file stays
    /// beside the output; a file that cannot be removed is harmless.
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
