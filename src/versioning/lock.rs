//! Locks: the surfaces of a set of tools by name, as JSON. `catalogue/versions.lock.json` is
//! the catalogue's, committed; `cmpx validate --lock` prints one for any tools, and
//! `cmpx validate --against OLD` compares tools with an older lock or folder.

use super::diff::{self, Verdict};
use super::surface::{self, Surface};
use crate::cmp::registry::{read_folder, tool_folders};
use crate::cmp::validate::cmp_dir;
use std::collections::BTreeMap;
use std::path::Path;

/// Tool name → surface, sorted by name.
pub(crate) type Lock = BTreeMap<String, Surface>;

/// Where the catalogue's lock lives in the source tree (read by the tests).
#[cfg(test)]
pub(crate) const CATALOGUE_LOCK: &str = "catalogue/versions.lock.json";

/// The built-in catalogue's surfaces, as exported.
pub(crate) fn of_catalogue() -> Lock {
    crate::catalogue::all()
        .iter()
        .map(|def| {
            let cap = crate::cmp::mapping::capability(def);
            (def.id.clone(), surface::of(def.version(), &cap))
        })
        .collect()
}

/// The lock as written: pretty JSON and a final newline, so diffs of it read well.
pub(crate) fn render(lock: &Lock) -> String {
    let mut text = serde_json::to_string_pretty(lock).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}

/// Reads a lock file, or the surfaces of a CMP tool folder or of a root holding tool folders.
pub(crate) fn load(path: &Path) -> Result<Lock, String> {
    if path.is_file() {
        let bytes = crate::cmp::read::read(path, 16 * 1024 * 1024, crate::cmp::read::Links::Follow)
            .map_err(|e| e.describe(path))?;
        return serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not a cmpx lock file: {e}", path.display()));
    }
    let mut lock = Lock::new();
    if cmp_dir(path).is_some() {
        add_folder(&mut lock, path)?;
        return Ok(lock);
    }
    if !path.is_dir() {
        return Err(format!("{}: no such file or directory", path.display()));
    }
    let mut skipped = Vec::new();
    for (dir, _) in tool_folders(path, &mut skipped) {
        add_folder(&mut lock, &dir)?;
    }
    if lock.is_empty() {
        return Err(format!("{}: no CMP tool folders found", path.display()));
    }
    Ok(lock)
}

fn add_folder(lock: &mut Lock, dir: &Path) -> Result<(), String> {
    let (manifest, cap) = read_folder(dir)?;
    lock.insert(manifest.name.clone(), surface::of(&manifest.version, &cap));
    Ok(())
}

/// Every tool present in both, compared; tools only in one side are listed, not judged.
pub(crate) struct Comparison {
    pub verdicts: Vec<Verdict>,
    pub added: Vec<String>,
    pub missing: Vec<String>,
}

pub(crate) fn compare(old: &Lock, new: &Lock) -> Comparison {
    Comparison {
        verdicts: new
            .iter()
            .filter_map(|(name, now)| old.get(name).map(|was| diff::compare(name, was, now)))
            .collect(),
        added: new
            .keys()
            .filter(|n| !old.contains_key(*n))
            .cloned()
            .collect(),
        missing: old
            .keys()
            .filter(|n| !new.contains_key(*n))
            .cloned()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The version test: every catalogue tool's surface against the committed lock. A change
    /// without the version bump it needs fails here naming the tool, the change and the
    /// version; a right bump then asks for the lock to be written again.
    #[test]
    fn catalogue_versions_follow_its_changes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CATALOGUE_LOCK);
        let old = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let new = of_catalogue();
        let comparison = compare(&old, &new);
        let problems: Vec<String> = comparison
            .verdicts
            .iter()
            .filter_map(|v| v.problem.clone())
            .collect();
        assert!(
            problems.is_empty(),
            "tool versions do not follow their changes:\n{}",
            problems.join("\n")
        );
        assert!(
            comparison.missing.is_empty(),
            "tools removed from the catalogue: {:?}",
            comparison.missing
        );
        assert!(
            render(&new) == std::fs::read_to_string(&path).unwrap_or_default(),
            "{CATALOGUE_LOCK} is out of date (new tools {:?}, or versions bumped); write it again with\n  cargo run -q -- validate --lock > {CATALOGUE_LOCK}",
            comparison.added
        );
    }

    #[test]
    fn the_lock_reads_back() {
        let lock = of_catalogue();
        let text = render(&lock);
        let back: Lock = serde_json::from_str(&text).unwrap();
        assert_eq!(back, lock);
        assert!(lock["base64-encoder"].params["mode"].options.is_some());
    }
}
