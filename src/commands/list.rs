//! `cmpx list`: installed tools, read from their manifests.

use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;

pub(super) fn run(mode: Mode, domain: Option<&str>) -> Result<ExitCode, Error> {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    scan.warn_skipped();
    let tools: Vec<_> = scan
        .tools
        .iter()
        .filter(|t| domain.is_none_or(|d| t.manifest.domain.eq_ignore_ascii_case(d)))
        .collect();
    if mode.is_json() {
        let listed: Vec<_> = tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.manifest.name,
                    "domain": t.manifest.domain,
                    "summary": t.manifest.summary,
                    "version": t.manifest.version,
                    "path": t.dir,
                })
            })
            .collect();
        output::print_value(
            mode,
            &json!({ "count": listed.len(), "tools": listed, "skipped": scan.skipped }),
        );
    } else {
        let width = tools
            .iter()
            .map(|t| t.name().chars().count())
            .max()
            .unwrap_or(0);
        for t in &tools {
            crate::outln!(
                "{:width$}  {:11} {}",
                crate::text::escape_control(t.name()),
                crate::text::escape_control(&t.manifest.domain),
                crate::text::escape_control(&t.manifest.summary)
            );
        }
        if tools.is_empty() {
            eprintln!("no tools installed; run `cmpx export` to install the catalogue");
        }
    }
    Ok(ExitCode::Success)
}
