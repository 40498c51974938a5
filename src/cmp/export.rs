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
                    write_all(b, &dir, &indices)?;
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

/// Builds the whole folder under a temporary name, then renames it into place: a new folder
/// appears complete or not at all.
fn create(b: &Bundle, target: &Path, dir: &Path) -> Result<(), Error> {
    let tmp = tempfile::Builder::new()
        .prefix(".cmpx-new-")
        .tempdir_in(target)
        .map_err(|e| Error::io("create a temporary directory in", target, e))?;
    for (rel, bytes) in &b.files {
        atomic::write(&tmp.path().join(rel), bytes)?;
    }
    write_state(b, tmp.path())?;
    set_dir_readable(tmp.path());
    let staged = tmp.keep();
    std::fs::rename(&staged, dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        Error::io("move into place", dir, e)
    })
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
