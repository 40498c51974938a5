//! The registry: every installed CMP tool found under the configured roots.
//!
//! A folder counts when it holds `cmp/manifest.json` (preferred) or `.cmp/manifest.json`. Broken
//! folders are reported with their path and reason and skipped; they never stop a scan.

use super::read::{self, Links, ReadError};
use super::{Capability, Examples, Manifest};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Largest CMP file cmpx will read; real ones are a few kilobytes.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Clone)]
pub struct Installed {
    /// The tool folder (`<root>/<folder>`).
    pub dir: PathBuf,
    /// The folder holding the CMP files (`cmp/` or `.cmp/`).
    pub cmp_dir: PathBuf,
    pub manifest: Manifest,
}

impl Installed {
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    pub fn capability(&self) -> Result<Capability, String> {
        read_json(&self.cmp_dir.join("capability.json"))
    }

    /// `examples.json` is optional: `None` when absent.
    pub fn examples(&self) -> Option<Result<Examples, String>> {
        read_json_optional(&self.cmp_dir.join("examples.json"))
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

impl Skipped {
    /// The note for a root with more tool folders than `max` (see `limits::max_tools`).
    pub fn too_many_tools(root: &Path, max: usize) -> Skipped {
        Skipped {
            path: root.to_path_buf(),
            reason: format!(
                "more than {max} tool folders; the rest are ignored (set {} to raise the limit)",
                crate::limits::MAX_TOOLS_ENV
            ),
        }
    }
}

#[derive(Debug, Default)]
pub struct Scan {
    pub tools: Vec<Installed>,
    pub skipped: Vec<Skipped>,
}

impl Scan {
    pub fn find(&self, name: &str) -> Option<&Installed> {
        self.tools.iter().find(|t| t.name() == name).or_else(|| {
            self.tools
                .iter()
                .find(|t| t.dir.file_name().is_some_and(|f| f == name))
        })
    }

    /// Tells the person at the terminal about every folder that was skipped.
    pub fn warn_skipped(&self) {
        for s in &self.skipped {
            eprintln!(
                "warning: skipping {}: {}",
                crate::text::escape_control(&s.path.display().to_string()),
                crate::text::escape_control(&s.reason)
            );
        }
    }
}

/// Reads and parses a JSON file of bounded size; the error names the file and the cause. Only a
/// regular file is read: a FIFO or device in its place is an error, not a hang.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    read_json_optional(path).unwrap_or_else(|| Err(ReadError::NotFound.describe(path)))
}

/// [`read_json`] for an optional file: `None` when it does not exist.
pub fn read_json_optional<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> Option<Result<T, String>> {
    let bytes = match read::read(path, MAX_FILE_BYTES, Links::Follow) {
        Ok(bytes) => bytes,
        Err(ReadError::NotFound) => return None,
        Err(e) => return Some(Err(e.describe(path))),
    };
    Some(
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("{} is not a valid CMP file: {e}", path.display())),
    )
}

/// A tool folder's manifest and capability (from `cmp/` or `.cmp/`).
pub fn read_folder(tool_dir: &Path) -> Result<(Manifest, Capability), String> {
    let dir = super::validate::cmp_dir(tool_dir)
        .ok_or_else(|| format!("{} holds no CMP files", tool_dir.display()))?;
    Ok((
        read_json(&dir.join("manifest.json"))?,
        read_json(&dir.join("capability.json"))?,
    ))
}

/// Scans each root in order. A name found in an earlier root shadows the same name later.
pub fn scan(roots: &[PathBuf]) -> Scan {
    let mut scan = Scan::default();
    // Name → index in `scan.tools`, so shadowing checks stay linear in the number of tools.
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for root in roots {
        if !root.is_dir() {
            continue;
        }
        for (dir, cmp_dir) in tool_folders(root, &mut scan.skipped) {
            let manifest_path = cmp_dir.join("manifest.json");
            match read_json::<Manifest>(&manifest_path) {
                Ok(manifest) => {
                    let problems = manifest.problems();
                    if !problems.is_empty() {
                        scan.skipped.push(Skipped {
                            path: manifest_path,
                            reason: problems.join("; "),
                        });
                    } else if let Some(&first) = by_name.get(&manifest.name) {
                        let reason = format!(
                            "'{}' is already installed at {}",
                            manifest.name,
                            scan.tools[first].dir.display()
                        );
                        scan.skipped.push(Skipped { path: dir, reason });
                    } else {
                        by_name.insert(manifest.name.clone(), scan.tools.len());
                        scan.tools.push(Installed {
                            dir,
                            cmp_dir,
                            manifest,
                        });
                    }
                }
                Err(reason) => scan.skipped.push(Skipped {
                    path: manifest_path,
                    reason,
                }),
            }
        }
    }
    scan
}

/// `(tool folder, cmp folder)` for every folder under `root` with a manifest, sorted by path.
/// One glob over `root/*`, then `cmp/manifest.json` (preferred) or `.cmp/manifest.json` in each.
pub fn tool_folders(root: &Path, skipped: &mut Vec<Skipped>) -> Vec<(PathBuf, PathBuf)> {
    let pattern = format!("{}/*", glob::Pattern::escape(&root.to_string_lossy()));
    let options = glob::MatchOptions {
        require_literal_leading_dot: false,
        ..Default::default()
    };
    let Ok(paths) = glob::glob_with(&pattern, options) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let max = crate::limits::max_tools();
    for entry in paths {
        if found.len() >= max {
            skipped.push(Skipped::too_many_tools(root, max));
            break;
        }
        match entry {
            Ok(dir)
                if dir.file_name().is_some_and(|n| {
                    n.to_string_lossy()
                        .starts_with(super::staging::STAGING_PREFIX)
                }) =>
            {
                // A folder an export is building (or a killed one left): not installed.
            }
            Ok(dir) => {
                if let Some(cmp_dir) = super::validate::cmp_dir(&dir) {
                    found.push((dir, cmp_dir));
                }
            }
            Err(e) => skipped.push(Skipped {
                path: e.path().to_path_buf(),
                reason: e.error().to_string(),
            }),
        }
    }
    found.sort();
    found
}
