//! Folders built under a temporary name and moved into place whole (export, install, saved
//! recipes): the staging prefix, the move or atomic swap into place, and the cleanup of what a
//! killed writer left behind. Only a holder of the root's writers' lock ([`super::lock`]) may
//! clean up, since another writer's staging folder looks exactly like a leftover.

use crate::error::Error;
use std::path::Path;

/// Prefix of the folders a writer builds before moving them into place. The registry ignores
/// them, and the next writer removes any that a killed run left behind.
pub const STAGING_PREFIX: &str = ".cmpx-new-";

/// Swaps two directories atomically (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
pub fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags};
    rustix::fs::renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)?;
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Moves the folder built at `staged` to `dest`: a rename when nothing is there (`existing`
/// false), else [`replace`]. When that fails the staged folder is removed.
pub fn place(staged: &Path, dest: &Path, existing: bool) -> Result<(), Error> {
    let placed = if existing {
        replace(staged, dest)
    } else {
        std::fs::rename(staged, dest).map_err(|e| Error::io("move into place", dest, e))
    };
    if placed.is_err() {
        let _ = std::fs::remove_dir_all(staged);
    }
    placed
}

/// Puts the staged folder where the existing one is: one atomic exchange where the system
/// has it, else two renames (the old folder under a staging name in between, so a crash leaves
/// it for the next writer to clean up and the folder is missing rather than half-replaced).
fn replace(staged: &Path, dest: &Path) -> Result<(), Error> {
    if exchange(staged, dest).is_ok() {
        // `staged` now holds the old version.
        let _ = std::fs::remove_dir_all(staged);
        return Ok(());
    }
    let old = dest.with_file_name(format!(
        "{STAGING_PREFIX}old-{}",
        dest.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    ));
    let _ = std::fs::remove_dir_all(&old);
    std::fs::rename(dest, &old).map_err(|e| Error::io("move aside", dest, e))?;
    if let Err(e) = std::fs::rename(staged, dest) {
        let _ = std::fs::rename(&old, dest);
        return Err(Error::io("move into place", dest, e));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// Removes staging folders a killed writer left in `root`. Only names with our prefix are
/// touched; the caller holds the root's lock, so none of them belongs to a running writer.
pub fn remove_leftovers(root: &Path, _lock: &super::lock::WriteLock) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(STAGING_PREFIX)
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Gives a staged directory its final mode (tempdir creates 0700).
#[cfg(unix)]
pub fn set_dir_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
pub fn set_dir_mode(_dir: &Path, _mode: u32) {}
