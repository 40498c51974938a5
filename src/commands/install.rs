//! `cmpx install <dir>`: validate a CMP tool folder and copy it into `$CMP_HOME/tools`.
//!
//! Only the folder's own regular files are copied: a `cmp/` folder or CMP file that is a
//! symbolic link (or a FIFO, a device) is refused, so nothing outside the folder is taken in.
//! A copy never gets wider permissions than its source, and the installed folder appears whole
//! (built under a staging name, then swapped in) while other writers wait for their turn.

use crate::cmp::lock;
use crate::cmp::read::{self, Links};
use crate::cmp::registry::MAX_FILE_BYTES;
use crate::cmp::staging::{self, STAGING_PREFIX};
use crate::cmp::validate::{check, cmp_dir};
use crate::cmp::{Capability, Manifest};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The files install copies, the first two required.
const FILES: [&str; 3] = ["manifest.json", "capability.json", "examples.json"];

/// One file to copy: its name, bytes and permission bits.
struct Source {
    name: &'static str,
    bytes: Vec<u8>,
    mode: u32,
}

pub(super) fn run(mode: Mode, dir: &Path, force: bool) -> Result<ExitCode, Error> {
    let checked = check(dir);
    if !checked.problems.is_empty() {
        return Err(Error::Invalid(checked.problems));
    }
    let source_cmp = cmp_dir(dir).ok_or_else(|| {
        Error::Invalid(vec![format!("{}: no cmp/ or .cmp/ folder", dir.display())])
    })?;
    let (sources, cmp_mode) = sources(&source_cmp)?;
    // The name comes from the bytes being copied, not from a second read of the folder.
    let manifest: Manifest = parse(&sources, "manifest.json", &source_cmp)?;
    let _: Capability = parse(&sources, "capability.json", &source_cmp)?;
    let name = manifest.name.clone();
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', '\0']) {
        return Err(Error::Invalid(vec![format!(
            "{}: name {name:?} cannot be a folder name",
            dir.display()
        )]));
    }
    for w in &checked.warnings {
        eprintln!("warning: {}", crate::text::escape_control(w));
    }
    let root = crate::paths::tools_root()
        .ok_or_else(|| Error::Usage("cannot find the home directory; set CMP_HOME".into()))?;
    std::fs::create_dir_all(&root).map_err(|e| Error::io("create directory", &root, e))?;
    let held = lock::acquire(&root)?;
    staging::remove_leftovers(&root, &held);
    let dest = root.join(&name);
    let existing = match std::fs::symlink_metadata(&dest) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io("inspect", &dest, e)),
    };
    if let Some(meta) = &existing {
        if !meta.is_dir() {
            return Err(Error::Usage(format!(
                "{} is {}, not a tool folder; cmpx does not replace it, even with --force \
                 (remove it first)",
                dest.display(),
                read::kind(meta.file_type())
            )));
        }
        if !force {
            return Err(Error::Usage(format!(
                "{} is already installed at {}; use --force to replace it",
                name,
                dest.display()
            )));
        }
    }
    let sub = source_cmp
        .file_name()
        .map(|f| f.to_os_string())
        .unwrap_or_else(|| "cmp".into());
    let staged = stage(&root, &sub, &sources, cmp_mode, dir_mode(dir))?;
    staging::place(&staged, &dest, existing.is_some())?;
    drop(held);
    let mut doc = json!({ "installed": name, "path": dest });
    if !checked.warnings.is_empty() {
        doc["warnings"] = json!(checked.warnings);
    }
    output::print_value(mode, &doc);
    Ok(ExitCode::Success)
}

/// The CMP files to copy and the `cmp/` folder's mode. Links and special files are refused:
/// copying follows nothing out of the folder.
fn sources(source_cmp: &Path) -> Result<(Vec<Source>, u32), Error> {
    let meta =
        std::fs::symlink_metadata(source_cmp).map_err(|e| Error::io("inspect", source_cmp, e))?;
    if !meta.is_dir() {
        return Err(Error::Invalid(vec![format!(
            "{} is {}; install copies a folder's own files only (replace the link with the folder)",
            source_cmp.display(),
            read::kind(meta.file_type())
        )]));
    }
    let mut out = Vec::new();
    for name in FILES {
        let path = source_cmp.join(name);
        match read::read_with_meta(&path, MAX_FILE_BYTES, Links::Refuse) {
            Ok((bytes, meta)) => out.push(Source {
                name,
                bytes,
                mode: mode_of(&meta),
            }),
            Err(read::ReadError::NotFound) if name == "examples.json" => {}
            Err(read::ReadError::Link) => {
                return Err(Error::Invalid(vec![format!(
                    "{} is a symbolic link; install copies a folder's own files only (copy the \
                     file it points to into the folder)",
                    path.display()
                )]));
            }
            Err(e) => return Err(e.into_error(&path)),
        }
    }
    Ok((out, mode_of(&meta)))
}

fn parse<T: serde::de::DeserializeOwned>(
    sources: &[Source],
    name: &str,
    source_cmp: &Path,
) -> Result<T, Error> {
    let path = source_cmp.join(name);
    let bytes = sources
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.bytes.as_slice())
        .ok_or_else(|| Error::Invalid(vec![format!("{}: missing", path.display())]))?;
    serde_json::from_slice(bytes).map_err(|e| {
        Error::Invalid(vec![format!(
            "{} is not a valid CMP file: {e}",
            path.display()
        )])
    })
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode()
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o755
}

fn dir_mode(dir: &Path) -> u32 {
    std::fs::metadata(dir).map_or(0o755, |m| mode_of(&m))
}

/// The complete folder under a staging name in `root`. Files keep at most their source's
/// permission bits and never gain write or execute bits for others; folders likewise.
fn stage(
    root: &Path,
    sub: &std::ffi::OsStr,
    sources: &[Source],
    cmp_mode: u32,
    tool_mode: u32,
) -> Result<PathBuf, Error> {
    let staged = tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .tempdir_in(root)
        .map_err(|e| Error::io("create a temporary directory in", root, e))?;
    let staged_cmp = staged.path().join(sub);
    std::fs::create_dir_all(&staged_cmp)
        .map_err(|e| Error::io("create directory", &staged_cmp, e))?;
    for s in sources {
        crate::cmp::atomic::write_with_mode(&staged_cmp.join(s.name), &s.bytes, s.mode & 0o644)?;
    }
    staging::set_dir_mode(&staged_cmp, (cmp_mode & 0o755) | 0o700);
    staging::set_dir_mode(staged.path(), (tool_mode & 0o755) | 0o700);
    Ok(staged.keep())
}
