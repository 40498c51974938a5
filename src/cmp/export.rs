//! `cmpx export`: writes the catalogue as CMP folders without clobbering anything a user made.
//!
//! Each exported folder carries `.cmpx-export.json`, the SHA-256 of every file cmpx wrote there.
//! A file whose content matches neither that record nor the new content was edited by someone
//! else, and the folder is skipped unless `--force`. A folder without the record that does not
//! already hold exactly what would be written was not made by cmpx and is skipped the same way.
//! Links are never written through: a tool folder, its `cmp/` or a file cmpx manages that is a
//! symbolic link (or a FIFO, device, …) makes the folder skipped even with `--force`.
//!
//! Writers into one target take turns under its lock ([`super::lock`]), so two exports (or an
//! export and an install) at once neither remove each other's staging folders nor mix versions.

use super::read::{self, Links, ReadError};
use super::staging::{self, STAGING_PREFIX};
use super::{atomic, lock, mapping};
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
    let cap = mapping::capability(def);
    let examples = mapping::examples(def);
    let files = vec![
        (
            "cmp/capability.json",
            one_per_line("intents", cap.intents.iter()),
        ),
        (
            "cmp/examples.json",
            one_per_line("examples", examples.examples.iter()),
        ),
        ("cmp/manifest.json", to_json(&mapping::manifest(def))),
    ];
    Bundle {
        id: def.id.clone(),
        files,
    }
}

/// `{"<key>":[` then one compact item per line: an agent pays for every token it reads, and
/// indentation costs about a third of a capability file; a line per item keeps it readable.
pub fn one_per_line<'a, T: Serialize + 'a>(
    key: &str,
    items: impl Iterator<Item = &'a T>,
) -> Vec<u8> {
    let mut out = format!("{{\"{key}\":[").into_bytes();
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'\n');
        let _ = serde_json::to_writer(&mut out, item);
    }
    out.extend_from_slice(b"\n]}\n");
    out
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
    // Held until every folder is written; a dry run writes nothing and needs no turn.
    let _lock = if opts.dry_run {
        None
    } else {
        std::fs::create_dir_all(target).map_err(|e| Error::io("create directory", target, e))?;
        let held = lock::acquire(target)?;
        staging::remove_leftovers(target, &held);
        Some(held)
    };
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

/// Largest file an export compares with what it would write; its own are a few kilobytes.
const MAX_COMPARED: u64 = 16 * 1024 * 1024;

/// A managed file's bytes, or `None` when absent. Links and special files were refused by
/// [`unsafe_entry`] already; meeting one here means it was swapped in since, which fails.
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    match read::read_optional(path, MAX_COMPARED, Links::Refuse) {
        Ok(bytes) => Ok(bytes),
        // Too large to be ours: compared as different, so the folder counts as edited.
        Err(ReadError::TooLarge(_)) => Ok(Some(Vec::new())),
        Err(e) => Err(e.into_error(path)),
    }
}

/// Why cmpx must not write into this existing folder even with `--force`: the folder, a
/// directory on the way to a managed file, or the file itself is a symbolic link (writing
/// would land outside the target) or not a regular file / directory.
fn unsafe_entry(b: &Bundle, dir: &Path) -> Result<Option<String>, Error> {
    // (path, whether it must be a directory), from the folder down to each managed file.
    let mut expected = vec![(dir.to_path_buf(), true), (dir.join(STATE_FILE), false)];
    for (rel, _) in &b.files {
        let file = dir.join(rel);
        for parent in file.ancestors().skip(1).take_while(|p| *p != dir) {
            if !expected.iter().any(|(p, _)| p == parent) {
                expected.push((parent.to_path_buf(), true));
            }
        }
        expected.push((file, false));
    }
    for (path, want_dir) in expected {
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("inspect", &path, e)),
        };
        let t = meta.file_type();
        if (want_dir && t.is_dir()) || (!want_dir && t.is_file()) {
            continue;
        }
        let (needed, real) = if want_dir {
            ("a directory", "folder")
        } else {
            ("a regular file", "file")
        };
        let why = if t.is_symlink() {
            format!(
                "cmpx never writes through links, even with --force; replace the link with a \
                 real {real} or remove it"
            )
        } else {
            "remove it to export here".to_string()
        };
        return Ok(Some(format!(
            "{} is {}, not {needed}; {why}",
            path.display(),
            read::kind(t)
        )));
    }
    Ok(None)
}

fn plan(b: &Bundle, dir: &Path, force: bool) -> Result<Plan, Error> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Plan::Create),
        Err(e) => return Err(Error::io("inspect", dir, e)),
        Ok(_) => {}
    }
    if let Some(reason) = unsafe_entry(b, dir)? {
        return Ok(Plan::Skip(reason));
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

/// Builds the whole folder under a temporary name, then renames it into place: a new folder
/// appears complete or not at all.
fn create(b: &Bundle, target: &Path, dir: &Path) -> Result<(), Error> {
    let staged = stage(b, target)?;
    staging::place(&staged, dir, false)
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
    // The folder is meant to be read by any agent the user runs.
    staging::set_dir_mode(tmp.path(), 0o755);
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
    match staging::exchange(&staged, dir) {
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
