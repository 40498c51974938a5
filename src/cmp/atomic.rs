//! Atomic file writes: a temporary file in the target's own directory, renamed into place, so a
//! reader (or a crash) sees either the old content or the new, never a torn file.

use crate::error::Error;
use std::io::Write;
use std::path::Path;

/// Prefix of the temporary files; one left by a killed process is recognisably ours.
pub const TEMP_PREFIX: &str = ".cmpx-tmp-";

pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temporary file in", dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io("flush", tmp.path(), e))?;
    set_readable(tmp.as_file());
    tmp.persist(path)
        .map_err(|e| Error::io("replace", path, e.error))?;
    Ok(())
}

#[cfg(unix)]
fn set_readable(file: &std::fs::File) {
    use std::os::unix::fs::PermissionsExt;
    // tempfile creates 0600; exported files are ordinary, shareable documents.
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_readable(_file: &std::fs::File) {}
