//! `cmpx export`: the catalogue as CMP folders under the target directory.

use crate::cmp::export::{self, Options};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use std::path::PathBuf;

pub fn run(mode: Mode, to: Option<PathBuf>, force: bool, dry_run: bool) -> Result<ExitCode, Error> {
    let target = match to {
        Some(t) => t,
        None => crate::paths::tools_root().ok_or_else(|| {
            Error::Usage("cannot find the home directory; set CMP_HOME or pass --to DIR".into())
        })?,
    };
    let bundles: Vec<_> = crate::catalogue::all().iter().map(export::bundle).collect();
    let report = export::export(&bundles, &target, &Options { force, dry_run })?;
    if mode.is_json() {
        output::print_value(mode, &serde_json::to_value(&report).unwrap_or_default());
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
        for s in &report.skipped {
            crate::outln!("  skipped {}: {}", s.tool, s.reason);
        }
    }
    Ok(ExitCode::Success)
}
