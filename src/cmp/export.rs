//! `cmpx export`: writes the catalogue as CMP folders without clobbering anything a user made.
//!
//! Each exported folder carries `.cmpx-export.json`, the SHA-256 of every file cmpx wrote there.
//! A file whose content matches neither that record nor the new content was edited by someone
//! else, and the folder is skipped unless `--force`. A folder without the record that does not
//! already hold exactly what would be written was not made by cmpx and is skipped the same way.

use super::{atomic, mapping};
use crate::ctp::ToolDefinition;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record cmpx keeps in each folder it exports.
pub const STATE_FILE: &str = ".cmpx-export.json";

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub force: bool,
    pub dry_run: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub target: PathBuf,
    pub dry_run: bool,
    pub created: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: Vec<String>,
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub tool: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct State {
    generator: String,
    files: BTreeMap<String, String>,
    /// The previous hashes while an export is replacing files; either version counts as ours,
    /// so an interrupted export never makes its own files look like user edits.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    replacing: BTreeMap<String, String>,
}

impl State {
    fn owns(&self, rel: &str, hash: &str) -> bool {
        self.files.get(rel).is_some_and(|h| h == hash)
            || self.replacing.get(rel).is_some_and(|h| h == hash)
    }
}

/// One folder's files, in write order: the manifest last, so a reader that finds a manifest
/// finds the rest beside it.
pub struct Bundle {
    pub id: String,
    pub files: Vec<(&'static str, Vec<u8>)>,
}

pub fn bundle(def: &ToolDefinition) -> Bundle {
    let files = vec![
        ("cmp/capability.json", to_json(&mapping::capability(def))),
        ("cmp/examples.json", to_json(&mapping::examples(def))),
        ("cmp/manifest.json", to_json(&mapping::manifest(def))),
    ];
    Bundle {
        id: def.id.clone(),
        files,
    }
}

fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

enum Plan {
    Create,
    Update(Vec<usize>),
    Unchanged { refresh_state: bool },
    Skip(String),
}

pub fn export(bundles: &[Bundle], target: &Path, opts: &Options) -> Result<Report, Error> {
    let mut report = Report {
        target: target.to_path_buf(),
        dry_run: opts.dry_run,
        ..Report::default()
    };
    if !opts.dry_run {
        std::fs::create_dir_all(target).map_err(|e| Error::io("create directory", target, e))?;
        remove_leftovers(target);
    }
    for b in bundles {
        let dir = target.join(&b.id);
        match plan(b, &dir, opts.force)? {
            Plan::Create => {
                if !opts.dry_run {
                    create(b, target, &dir)?;
                }
                report.created.push(b.id.clone());
            }
            Plan::Update(indices) => {
                if !opts.dry_run {
                    update(b, target, &dir, &indices)?;
                }
                report.updated.push(b.id.clone());
            }
            Plan::Unchanged { refresh_state } => {
                if refresh_state && !opts.dry_run {
                    write_state(b, &dir)?;
                }
                report.unchanged.push(b.id.clone());
            }
            Plan::Skip(reason) => report.skipped.push(Skipped {
                tool: b.id.clone(),
                reason,
            }),
        }
    }
    Ok(report)
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", path, e)),
    }
}

fn plan(b: &Bundle, dir: &Path, force: bool) -> Result<Plan, Error> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Plan::Create),
        Err(e) => return Err(Error::io("inspect", dir, e)),
        Ok(meta) if !meta.is_dir() => {
            return Ok(Plan::Skip(format!(
                "{} exists and is not a directory",
                dir.display()
            )));
        }
        Ok(_) => {}
    }
    let state: Option<State> =
        read_optional(&dir.join(STATE_FILE))?.and_then(|b| serde_json::from_slice(&b).ok());
    let mut stale = Vec::new();
    let mut foreign = Vec::new();
    for (i, (rel, new)) in b.files.iter().enumerate() {
        let current = read_optional(&dir.join(rel))?;
        if current.as_deref() == Some(new.as_slice()) {
            continue;
        }
        stale.push(i);
        let ours = match (&current, &state) {
            (Some(bytes), Some(state)) => state.owns(rel, &sha256(bytes)),
            // A file cmpx never recorded (new in this version) may be created; one the user
            // deleted counts as an edit.
            (None, Some(state)) => !state.files.contains_key(*rel),
            (_, None) => false,
        };
        if !ours {
            foreign.push(*rel);
        }
    }
    if !foreign.is_empty() && !force {
        let reason = if state.is_none() {
            format!(
                "folder was not created by cmpx ({} differs); use --force to overwrite",
                foreign.join(", ")
            )
        } else {
            format!(
                "edited since the last export: {}; use --force to overwrite",
                foreign.join(", ")
            )
        };
        return Ok(Plan::Skip(reason));
    }
    if stale.is_empty() {
        let expected = state_for(b);
        return Ok(Plan::Unchanged {
            refresh_state: state.as_ref() != Some(&expected),
        });
    }
    Ok(Plan::Update(stale))
}

fn state_for(b: &Bundle) -> State {
    State {
        generator: format!("cmpx {}", env!("CARGO_PKG_VERSION")),
        files: b
            .files
            .iter()
            .map(|(rel, bytes)| (rel.to_string(), sha256(bytes)))
            .collect(),
        replacing: BTreeMap::new(),
    }
}

fn write_state(b: &Bundle, dir: &Path) -> Result<(), Error> {
    atomic::write(&dir.join(STATE_FILE), &to_json(&state_for(b)))
}

/// Prefix of the folders an export builds before moving them into place. The registry ignores
/// them, and the next export removes any that a killed run left behind.
pub const STAGING_PREFIX: &str = ".cmpx-new-";

/// Builds the whole folder under a temporary name, then renames it into place: a new folder
/// appears complete or not at all.
fn create(b: &Bundle, target: &Path, dir: &Path) -> Result<(), Error> {
    let staged = stage(b, target)?;
    std::fs::rename(&staged, dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        Error::io("move into place", dir, e)
    })
}

/// The complete new folder under a staging name in `target`.
fn stage(b: &Bundle, target: &Path) -> Result<std::path::PathBuf, Error> {
    let tmp = tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .tempdir_in(target)
        .map_err(|e| Error::io("create a temporary directory in", target, e))?;
    for (rel, bytes) in &b.files {
        atomic::write(&tmp.path().join(rel), bytes)?;
    }
    write_state(b, tmp.path())?;
    set_dir_readable(tmp.path());
    Ok(tmp.keep())
}

/// Replaces an existing folder. When it holds only what cmpx wrote, the new folder is staged
/// and swapped in with one atomic exchange, so a crash leaves the old version or the new one,
/// never a mix. A folder holding anything else (a user's notes) is updated file by file
/// instead, so nothing of theirs is removed.
fn update(b: &Bundle, target: &Path, dir: &Path, indices: &[usize]) -> Result<(), Error> {
    if !only_ours(b, dir) {
        return write_all(b, dir, indices);
    }
    let staged = stage(b, target)?;
    match exchange(&staged, dir) {
        Ok(()) => {
            // `staged` now holds the old version; losing it to a crash here is harmless.
            let _ = std::fs::remove_dir_all(&staged);
            Ok(())
        }
        Err(_) => {
            let _ = std::fs::remove_dir_all(&staged);
            write_all(b, dir, indices)
        }
    }
}

/// True when every entry in the folder is one cmpx writes (its files, their directories, the
/// state file, or a temporary file of ours).
fn only_ours(b: &Bundle, dir: &Path) -> bool {
    let ours: std::collections::BTreeSet<&str> = b
        .files
        .iter()
        .flat_map(|(rel, _)| {
            let parent = Path::new(rel).parent().and_then(Path::to_str);
            [Some(*rel), parent.filter(|p| !p.is_empty())]
        })
        .flatten()
        .chain([STATE_FILE])
        .collect();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            return false;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(rel) = path.strip_prefix(dir).ok().and_then(Path::to_str) else {
                return false;
            };
            let name = entry.file_name();
            let temporary = name.to_string_lossy().starts_with(atomic::TEMP_PREFIX);
            if !ours.contains(rel) && !temporary {
                return false;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    true
}

/// Swaps two directories atomically (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Removes staging folders a killed export left in `target`. Only names with our prefix are
/// touched.
fn remove_leftovers(target: &Path) {
    let Ok(entries) = std::fs::read_dir(target) else {
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

#[cfg(unix)]
fn set_dir_readable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // tempdir creates 0700; the folder is meant to be read by any agent the user runs.
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
}

#[cfg(not(unix))]
fn set_dir_readable(_dir: &Path) {}

fn write_all(b: &Bundle, dir: &Path, indices: &[usize]) -> Result<(), Error> {
    let state_path = dir.join(STATE_FILE);
    let old: Option<State> =
        read_optional(&state_path)?.and_then(|b| serde_json::from_slice(&b).ok());
    let mut during = state_for(b);
    during.replacing = old.map(|s| s.files).unwrap_or_default();
    std::fs::create_dir_all(dir.join("cmp"))
        .map_err(|e| Error::io("create directory", dir.join("cmp"), e))?;
    atomic::write(&state_path, &to_json(&during))?;
    for &i in indices {
        let (rel, bytes) = &b.files[i];
        atomic::write(&dir.join(rel), bytes)?;
    }
    write_state(b, dir)
}
