//! The writers' lock of a folder cmpx writes into (a tools root, a `discover --out` folder):
//! exports and installs into one root take turns, so neither removes or half-replaces what the
//! other is building. The lock is an advisory `flock` on the directory itself, so no lock file
//! sits among the tool folders and a read-only root still locks. Readers never lock: every
//! folder appears and changes by atomic renames.

use crate::error::Error;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a writer waits quietly before saying what it is waiting for.
const NOTE_AFTER: Duration = Duration::from_millis(1000);

/// Held while writing; dropping it releases the lock.
#[derive(Debug)]
pub struct WriteLock {
    _dir: Option<std::fs::File>,
}

/// Takes the lock on `root` (which must exist), waiting as long as another writer holds it.
/// A filesystem that cannot lock (some network mounts) gets a warning and no lock.
pub fn acquire(root: &Path) -> Result<WriteLock, Error> {
    let dir = match open_dir(root) {
        Ok(dir) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => return Ok(unlocked(root, &e)),
        Err(e) => return Err(Error::io("open for locking", root, e)),
    };
    let started = Instant::now();
    while started.elapsed() < NOTE_AFTER {
        match dir.try_lock() {
            Ok(()) => return Ok(WriteLock { _dir: Some(dir) }),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Ok(unlocked(root, &e)),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!(
        "cmpx: waiting for another cmpx that is writing to {} to finish…",
        crate::text::escape_control(&root.display().to_string())
    );
    dir.lock().map_err(|e| Error::io("lock", root, e))?;
    Ok(WriteLock { _dir: Some(dir) })
}

fn unlocked(root: &Path, e: &std::io::Error) -> WriteLock {
    eprintln!(
        "warning: cannot lock {} ({e}); going ahead without the lock, so another cmpx writing \
         there at the same time may fail",
        crate::text::escape_control(&root.display().to_string())
    );
    WriteLock { _dir: None }
}

#[cfg(unix)]
fn open_dir(root: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    Ok(rustix::fs::open(root, flags, Mode::empty())?.into())
}

#[cfg(not(unix))]
fn open_dir(_root: &Path) -> std::io::Result<std::fs::File> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire(dir.path()).unwrap();
        let path = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let second = acquire(&path).unwrap();
            tx.send(()).unwrap();
            drop(second);
        });
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        drop(first);
        rx.recv_timeout(Duration::from_secs(60)).unwrap();
        waiter.join().unwrap();
    }
}
