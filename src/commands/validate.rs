//! `cmpx validate`: CTP definitions and CMP folders checked with the same rules the tests use.
//! Problems make the exit code 1; warnings (an intent that runs a value as code) are reported
//! but leave a folder valid, since such an intent is legitimate and asks for consent to run.

use crate::cmp::read::{self, Links};
use crate::cmp::validate::{Checked, check, cmp_dir};
use crate::ctp::{ToolDefinition, rules};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;
use std::path::{Path, PathBuf};

pub fn run(mode: Mode, paths: &[PathBuf]) -> Result<ExitCode, Error> {
    let (checked, Checked { problems, warnings }) = if paths.is_empty() {
        builtin()
    } else {
        given(paths)
    };
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
        for w in &warnings {
            crate::outln!("warning: {}", crate::text::escape_control(w));
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
