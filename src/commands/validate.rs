//! `cmpx validate`: CTP definitions and CMP folders checked with the same rules the tests use.

use crate::cmp::validate::{check_folder, cmp_dir};
use crate::ctp::{ToolDefinition, rules};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;
use std::path::{Path, PathBuf};

pub fn run(mode: Mode, paths: &[PathBuf]) -> Result<ExitCode, Error> {
    let (checked, problems) = if paths.is_empty() {
        builtin()
    } else {
        given(paths)
    };
    if mode.is_json() {
        output::print_value(
            mode,
            &json!({ "valid": problems.is_empty(), "checked": checked, "problems": problems }),
        );
    } else {
        for p in &problems {
            crate::outln!("{}", crate::text::escape_control(p));
        }
        crate::outln!("{checked} checked, {} problems", problems.len());
    }
    Ok(if problems.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::ToolFailed
    })
}

/// The embedded catalogue: every file parses, follows the CTP rules, and exports valid CMP.
fn builtin() -> (usize, Vec<String>) {
    let defs = crate::catalogue::all();
    let mut problems: Vec<String> = crate::catalogue::load_errors().to_vec();
    problems.extend(rules::check_catalogue(defs));
    for def in defs {
        let cap = crate::cmp::mapping::capability(def);
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
    (defs.len(), problems)
}

fn given(paths: &[PathBuf]) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in paths {
        if path.is_file() {
            checked += 1;
            problems.extend(check_definition_file(path));
        } else if cmp_dir(path).is_some() {
            checked += 1;
            problems.extend(check_folder(path));
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
            for folder in folders.iter().filter(|f| cmp_dir(f).is_some()) {
                checked += 1;
                problems.extend(check_folder(folder));
            }
            if checked == before {
                problems.push(format!("{}: no CMP tool folders found", path.display()));
            }
        } else {
            problems.push(format!("{}: no such file or directory", path.display()));
        }
    }
    (checked, problems)
}

fn check_definition_file(path: &Path) -> Vec<String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return vec![format!("{}: cannot read: {e}", path.display())],
    };
    match serde_json::from_str::<ToolDefinition>(&text) {
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
