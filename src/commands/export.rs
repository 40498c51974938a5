//! `cmpx export`: the catalogue as CMP folders under the target directory.

use crate::cmp::export::{self, Options};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::{Value, json};
use std::path::PathBuf;

pub(super) fn run(
    mode: Mode,
    to: Option<PathBuf>,
    force: bool,
    dry_run: bool,
) -> Result<ExitCode, Error> {
    let target = match to {
        Some(t) => t,
        None => crate::paths::tools_root().ok_or_else(|| {
            Error::Usage("cannot find the home directory; set CMP_HOME or pass --to DIR".into())
        })?,
    };
    let mut bundles: Vec<_> = crate::catalogue::all().iter().map(export::bundle).collect();
    // Adapters are installed only where the program they wrap is on PATH.
    let mut not_installed = Vec::new();
    for adapter in crate::adapters::all() {
        let missing = adapter.missing_programs();
        if missing.is_empty() {
            bundles.push(adapter.bundle());
        } else {
            not_installed.push(json!({
                "tool": adapter.name,
                "reason": format!("not on PATH: {}", missing.join(", ")),
            }));
        }
    }
    let report = export::export(&bundles, &target, &Options { force, dry_run })?;
    if mode.is_json() {
        let mut doc = serde_json::to_value(&report).unwrap_or_default();
        doc["adaptersNotInstalled"] = Value::Array(not_installed);
        output::print_value(mode, &doc);
    } else {
        let verb = if dry_run { "would export" } else { "exported" };
        crate::outln!(
            "{verb} {} tools to {}: {} created, {} updated, {} unchanged, {} skipped",
            bundles.len(),
            target.display(),
            report.created.len(),
            report.updated.len(),
            report.unchanged.len(),
            report.skipped.len()
        );
        for n in &not_installed {
            crate::outln!(
                "  adapter {} not installed: {}",
                n["tool"].as_str().unwrap_or(""),
                n["reason"].as_str().unwrap_or("")
            );
        }
        for s in &report.skipped {
            crate::outln!("  skipped {}: {}", s.tool, s.reason);
        }
    }
    Ok(ExitCode::Success)
}
