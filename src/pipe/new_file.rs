//! The streamed output file, written whole or not at all: the bytes go to a temporary file
//! beside the target and are renamed onto its path only once complete, never over a file that
//! exists (the same refusal as the in-memory path's `--output-file`).

use crate::ctp::{ErrorCode, ToolError};
use std::fs::File;
use std::io;
use std::path::Path;

/// Refuses a path that already exists, before any work is done for it.
pub fn refuse_existing(path: &Path) -> Result<(), ToolError> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Err(exists(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(cannot_write(path, &e)),
    }
}

/// Lets `write` fill a temporary file in `path`'s directory, syncs it and moves it to `path`
/// without replacing anything there. On any failure the temporary file is removed, so a
/// mid-stream error leaves neither a partial output nor a stray file behind.
pub fn write(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), ToolError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(crate::cmp::atomic::TEMP_PREFIX);
    // 0666 before the umask (tempfile's own default is 0600): the permissions a file created
    // in place, as the in-memory path does, would get.
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
