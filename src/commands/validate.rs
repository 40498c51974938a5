//! `cmpx validate`: CTP definitions and CMP folders checked with the same rules the tests use.
//! Problems make the exit code 1; warnings (an intent that runs a value as code, one that
//! declares no capabilities) go to stderr, as `cmpx install` prints them, and into the report,
//! but leave a folder valid, since such an intent is legitimate and asks for consent to run.

use crate::cmp::read::{self, Links};
use crate::cmp::validate::{Checked, check, cmp_dir};
use crate::ctp::{ToolDefinition, rules};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use crate::versioning::{Bump, lock};
use serde_json::json;
use std::path::{Path, PathBuf};

pub(super) fn run(mode: Mode, paths: &[PathBuf]) -> Result<ExitCode, Error> {
    let (checked, Checked { problems, warnings }) = if paths.is_empty() {
        builtin()
    } else {
        given(paths)
    };
    for w in &warnings {
        eprintln!("warning: {}", crate::text::escape_control(w));
    }
    if mode.is_json() {
        output::print_value(
            mode,
            &json!({ "valid": problems.is_empty(), "checked": checked, "problems": problems,
                     "warnings": warnings }),
        );
    } else {
        for p in &problems {
            crate::outln!("{}", crate::text::escape_control(p));
        }
        crate::outln!(
            "{checked} checked, {} problems, {} warnings",
            problems.len(),
            warnings.len()
        );
    }
    Ok(if problems.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::ToolFailed
    })
}

/// The embedded catalogue: every file parses, follows the CTP rules, and exports valid CMP.
fn builtin() -> (usize, Checked) {
    let defs = crate::catalogue::all();
    let mut problems: Vec<String> = crate::catalogue::load_errors().to_vec();
    let mut warnings = Vec::new();
    problems.extend(rules::check_catalogue(defs));
    for def in defs {
        let cap = crate::cmp::mapping::capability(def);
        warnings.extend(
            crate::cmp::validate::capability_warnings(&cap)
                .into_iter()
                .map(|w| format!("{} (exported capability): {w}", def.id)),
        );
        problems.extend(
            crate::cmp::validate::check_capability(&cap)
                .into_iter()
                .map(|p| format!("{} (exported capability): {p}", def.id)),
        );
        let manifest = crate::cmp::mapping::manifest(def);
        problems.extend(
            manifest
                .problems()
                .into_iter()
                .map(|p| format!("{} (exported manifest): {p}", def.id)),
        );
    }
    (defs.len(), Checked { problems, warnings })
}

fn given(paths: &[PathBuf]) -> (usize, Checked) {
    let mut checked = 0;
    let mut out = Checked::default();
    for path in paths {
        // Anything but a folder is read as a definition file (a FIFO is refused, not waited on).
        if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
            checked += 1;
            out.problems.extend(check_definition_file(path));
        } else if cmp_dir(path).is_some() {
            checked += 1;
            folder(&mut out, path);
        } else if path.is_dir() {
            let mut folders: Vec<PathBuf> = std::fs::read_dir(path)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .map(|e| e.path())
                        .filter(|p| p.is_dir())
                        .collect()
                })
                .unwrap_or_default();
            folders.sort();
            let before = checked;
            for f in folders.iter().filter(|f| cmp_dir(f).is_some()) {
                checked += 1;
                folder(&mut out, f);
            }
            if checked == before {
                out.problems
                    .push(format!("{}: no CMP tool folders found", path.display()));
            }
        } else {
            out.problems
                .push(format!("{}: no such file or directory", path.display()));
        }
    }
    (checked, out)
}

fn folder(out: &mut Checked, path: &Path) {
    let found = check(path);
    out.problems.extend(found.problems);
    out.warnings.extend(found.warnings);
}

/// Largest definition file read; the catalogue's are a few kilobytes.
const MAX_DEFINITION_BYTES: u64 = 4 * 1024 * 1024;

fn check_definition_file(path: &Path) -> Vec<String> {
    let bytes = match read::read(path, MAX_DEFINITION_BYTES, Links::Follow) {
        Ok(b) => b,
        Err(e) => return vec![e.describe(path)],
    };
    match serde_json::from_slice::<ToolDefinition>(&bytes) {
        Ok(def) => rules::check_definition(&def)
            .into_iter()
            .map(|p| format!("{}: {p}", path.display()))
            .collect(),
        Err(e) => vec![format!(
            "{}: not a valid CTP tool definition: {e}",
            path.display()
        )],
    }
}

/// `cmpx validate --lock`: the lock of the given tools (or the catalogue) on stdout.
pub(super) fn lock(paths: &[PathBuf]) -> Result<ExitCode, Error> {
    let lock = current(paths)?;
    crate::outln!("{}", lock::render(&lock).trim_end());
    Ok(ExitCode::Success)
}

/// `cmpx validate --against OLD`: every tool present on both sides, what changed in its
/// surface and whether its version covers that. A version that does not exits 1.
pub(super) fn against(mode: Mode, paths: &[PathBuf], old: &Path) -> Result<ExitCode, Error> {
    let new = current(paths)?;
    let old = lock::load(old).map_err(|e| Error::Invalid(vec![e]))?;
    let lock::Comparison {
        verdicts,
        added,
        missing,
    } = lock::compare(&old, &new);
    let problems: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| v.problem.as_deref())
        .collect();
    if mode.is_json() {
        output::print_value(
            mode,
            &json!({ "valid": problems.is_empty(), "compared": verdicts.len(),
                     "changed": verdicts.iter().filter(|v| !v.changes.is_empty() || v.problem.is_some()).collect::<Vec<_>>(),
                     "added": added, "missing": missing }),
        );
    } else {
        for v in verdicts.iter().filter(|v| !v.changes.is_empty()) {
            crate::outln!("{} {} -> {}:", v.tool, v.from, v.to);
            for c in &v.changes {
                let size = match c.bump {
                    Bump::Major => "breaking",
                    Bump::Minor => "additive",
                    Bump::None => "other",
                };
                crate::outln!("  {size}: {}", crate::text::escape_control(&c.what));
            }
        }
        for p in &problems {
            crate::outln!("{}", crate::text::escape_control(p));
        }
        crate::outln!(
            "{} compared, {} changed, {} problems; {} new, {} not found",
            verdicts.len(),
            verdicts.iter().filter(|v| !v.changes.is_empty()).count(),
            problems.len(),
            added.len(),
            missing.len()
        );
    }
    Ok(if problems.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::ToolFailed
    })
}

/// The surfaces of what the paths name (definition files, folders, roots), or the catalogue's.
fn current(paths: &[PathBuf]) -> Result<lock::Lock, Error> {
    if paths.is_empty() {
        return Ok(lock::of_catalogue());
    }
    let mut out = lock::Lock::new();
    let mut problems = Vec::new();
    for path in paths {
        if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
            match definition(path) {
                Ok(def) => {
                    let cap = crate::cmp::mapping::capability(&def);
                    out.insert(
                        def.id.clone(),
                        crate::versioning::surface::of(def.version(), &cap),
                    );
                }
                Err(e) => problems.push(e),
            }
        } else {
            match lock::load(path) {
                Ok(found) => out.extend(found),
                Err(e) => problems.push(e),
            }
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(Error::Invalid(problems))
    }
}

fn definition(path: &Path) -> Result<ToolDefinition, String> {
    let bytes =
        read::read(path, MAX_DEFINITION_BYTES, Links::Follow).map_err(|e| e.describe(path))?;
    serde_json::from_slice::<ToolDefinition>(&bytes)
        .map_err(|e| format!("{}: not a valid CTP tool definition: {e}", path.display()))
}
