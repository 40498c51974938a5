//! Atomic file writes: a temporary file in the target's own directory, renamed into place, so a
//! reader (or a crash) sees either the old content or the new, never a torn file. The
//! temporary file is unnamed while it is written (see [`crate::new_file`]) and named only for
//! the rename, so a writer killed mid-write leaves nothing behind.

use crate::error::Error;
use std::io::Write;
use std::path::Path;

/// Prefix of the temporary files; one left by a killed process is recognisably ours.
pub use crate::new_file::TEMP_PREFIX;

/// Writes `bytes` as a `0644` file: exported files are ordinary, shareable documents.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    write_with_mode(path, bytes, 0o644)
}

/// Writes `bytes` with permission bits `mode` (Unix; ignored elsewhere).
pub fn write_with_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), Error> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    crate::new_file::sweep_stale(dir);
    if let Ok(mut file) = crate::new_file::unnamed_in(dir, mode) {
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io("write", path, e))?;
        set_mode(&file, mode);
        // A fresh name beside the target, then the rename that replaces it atomically.
        let name: [u8; 8] = {
            use rand::RngExt;
            rand::rng().random()
        };
        let staged = dir.join(format!("{TEMP_PREFIX}{}", hex::encode(name)));
        crate::new_file::link_new(&file, &staged).map_err(|e| Error::io("write", path, e))?;
        return std::fs::rename(&staged, path).map_err(|e| {
            let _ = std::fs::remove_file(&staged);
            Error::io("replace", path, e)
        });
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temporary file in", dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io("flush", tmp.path(), e))?;
    set_mode(tmp.as_file(), mode);
    tmp.persist(path)
        .map_err(|e| Error::io("replace", path, e.error))?;
    Ok(())
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    // tempfile creates 0600.
    let _ = file.set_permissions(std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: u32) {}
