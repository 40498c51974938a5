//! Output files written whole or not at all (`--output-file` of `cmpx run` and `cmpx pipe`):
//! the bytes go to an unnamed temporary file in the target's directory (Linux `O_TMPFILE`),
//! which is linked in under the target's name only once complete and synced, and never over a
//! file that exists. A process killed mid-write (Ctrl-C, SIGTERM, `timeout`) leaves nothing
//! behind: the unnamed file vanishes with it. Where the filesystem has no unnamed files, a
//! named `.cmpx-tmp-*` file is used and removed on failure; one a killed process left is
//! swept by the next write into that directory once it is an hour old.

use crate::ctp::{ErrorCode, ToolError};
use std::fs::File;
use std::io;
use std::path::Path;
use std::time::Duration;

/// Prefix of named temporary files; one left by a killed process is recognisably ours.
pub const TEMP_PREFIX: &str = ".cmpx-tmp-";

/// A named temporary file untouched this long belongs to no running writer.
const STALE: Duration = Duration::from_secs(60 * 60);

/// Refuses a path that already exists, before any work is done for it.
pub(crate) fn refuse_existing(path: &Path) -> Result<(), ToolError> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Err(exists(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(cannot_write(path, &e)),
    }
}

/// Lets `write` fill a temporary file in `path`'s directory, syncs it and gives it `path`
/// without replacing anything there. On any failure (or a kill) nothing is left behind.
pub(crate) fn write(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), ToolError> {
    refuse_existing(path)?;
    let dir = dir_of(path);
    sweep_stale(dir);
    match unnamed_in(dir, 0o666) {
        Ok(mut file) => {
            write(&mut file)
                .and_then(|()| file.sync_all())
                .map_err(|e| cannot_write(path, &e))?;
            link_new(&file, path).map_err(|e| {
                if e.kind() == io::ErrorKind::AlreadyExists {
                    exists(path)
                } else {
                    cannot_write(path, &e)
                }
            })
        }
        Err(e) if no_unnamed_files(&e) => write_named(path, dir, write),
        Err(e) => Err(cannot_write(path, &e)),
    }
}

/// The fallback: a named temporary file, moved into place without replacing anything.
fn write_named(
    path: &Path,
    dir: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), ToolError> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    // 0666 before the umask (tempfile's own default is 0600): the permissions a file created
    // in place would get.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| cannot_write(path, &e))?;
    write(tmp.as_file_mut())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| cannot_write(path, &e))?;
    tmp.persist_noclobber(path).map_err(|e| {
        if e.error.kind() == io::ErrorKind::AlreadyExists {
            exists(path)
        } else {
            cannot_write(path, &e.error)
        }
    })?;
    Ok(())
}

fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// An unnamed file in `dir` with permission bits `mode` (before the umask).
#[cfg(target_os = "linux")]
pub(crate) fn unnamed_in(dir: &Path, mode: u32) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(dir, flags, Mode::from_raw_mode(mode))?;
    Ok(File::from(fd))
}

#[cfg(not(target_os = "linux"))]
pub fn unnamed_in(_dir: &Path, _mode: u32) -> io::Result<File> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Gives the unnamed `file` the name `path`; fails with AlreadyExists when the name is taken.
#[cfg(target_os = "linux")]
pub(crate) fn link_new(file: &File, path: &Path) -> io::Result<()> {
    use rustix::fs::{AtFlags, CWD};
    use std::os::fd::AsRawFd;
    let from = format!("/proc/self/fd/{}", file.as_raw_fd());
    // AT_SYMLINK_FOLLOW resolves the /proc link to the unnamed file itself, which needs no
    // privilege (unlike AT_EMPTY_PATH).
    rustix::fs::linkat(CWD, from.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW)?;
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn link_new(_file: &File, _path: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Whether opening an unnamed file failed because the system or filesystem has none (as
/// opposed to a real error such as a missing or unwritable directory). /proc missing counts
/// too: the link step needs it.
fn no_unnamed_files(e: &io::Error) -> bool {
    use rustix::io::Errno;
    matches!(e.kind(), io::ErrorKind::Unsupported)
        || e.raw_os_error()
            .map(Errno::from_raw_os_error)
            .is_some_and(|n| {
                [Errno::OPNOTSUPP, Errno::ISDIR, Errno::INVAL, Errno::NOSYS].contains(&n)
            })
        || !Path::new("/proc/self/fd").exists()
}

/// Removes `.cmpx-tmp-*` files in `dir` that no writer has touched for [`STALE`]: what a
/// killed writer left on a filesystem without unnamed files. Best effort.
pub(crate) fn sweep_stale(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .as_encoded_bytes()
            .starts_with(TEMP_PREFIX.as_bytes())
        {
            continue;
        }
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if meta.is_file() && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn exists(path: &Path) -> ToolError {
    ToolError::new(
        ErrorCode::ExecutionError,
        format!(
            "cannot write the output to {}: it already exists, and cmpx does not overwrite files",
            path.display()
        ),
    )
}

fn cannot_write(path: &Path, e: &io::Error) -> ToolError {
    ToolError::new(
        ErrorCode::ExecutionError,
        format!("cannot write the output to {}: {e}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_new_file_appears_whole_and_never_replaces_one() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        write(&target, |f| f.write_all(b"hello")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"hello");
        let e = write(&target, |f| f.write_all(b"other")).unwrap_err();
        assert!(e.message.contains("already exists"), "{}", e.message);
        assert_eq!(std::fs::read(&target).unwrap(), b"hello");
        // Only the target is there: no temporary file beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        let e = write(&target, |f| {
            f.write_all(b"partial")?;
            Err(io::Error::other("the stream broke"))
        })
        .unwrap_err();
        assert!(e.message.contains("the stream broke"), "{}", e.message);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn while_written_the_file_has_no_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        write(&target, |f| {
            f.write_all(b"half")?;
            // Mid-write, nothing in the directory: a kill now leaves nothing behind.
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
            f.write_all(b" and half")
        })
        .unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"half and half");
    }

    #[test]
    fn stale_temporaries_are_swept_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".cmpx-tmp-stale");
        let fresh = dir.path().join(".cmpx-tmp-fresh");
        let other = dir.path().join("keep.txt");
        for p in [&stale, &fresh, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        let old = std::time::SystemTime::now() - Duration::from_secs(2 * 60 * 60);
        File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(old)
            .unwrap();
        sweep_stale(dir.path());
        assert!(!stale.exists());
        assert!(fresh.exists());
        assert!(other.exists());
    }
}
