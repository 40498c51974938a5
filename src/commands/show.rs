//! `cmpx show <tool>`: an installed tool's CMP files (each command as cmpx presents it), or
//! what `export` would write for it.

use crate::ctp::{ErrorCode, ToolError};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;

pub(super) fn run(mode: Mode, name: &str) -> Result<ExitCode, Error> {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    if let Some(tool) = scan.find(name) {
        // Every command as an agent runs it (`cmpx run <tool> --intent <n> …`), the program's
        // own line in `program`.
        let capability = tool
            .capability()
            .map_err(ToolError::invalid)?
            .presented(tool.name());
        let examples = tool.examples().transpose().map_err(ToolError::invalid)?;
        let doc = json!({
            "name": tool.name(),
            "installed": true,
            "path": tool.dir,
            "manifest": tool.manifest,
            "capability": capability,
            "examples": examples,
        });
        output::print_value(mode, &doc);
        return Ok(ExitCode::Success);
    }
    if let Some(def) = crate::catalogue::get(name) {
        let doc = json!({
            "name": def.id,
            "installed": false,
            "hint": "part of the built-in catalogue but not installed; run `cmpx export`",
            "manifest": crate::cmp::mapping::manifest(&def),
            "capability": crate::cmp::mapping::capability(&def),
            "examples": crate::cmp::mapping::examples(&def),
        });
        output::print_value(mode, &doc);
        return Ok(ExitCode::Success);
    }
    let mut names: Vec<String> = scan.tools.iter().map(|t| t.name().to_string()).collect();
    names.extend(crate::catalogue::ids().map(str::to_string));
    let suggestion = crate::suggest::did_you_mean(name, names.iter().map(String::as_str));
    let hint = suggestion
        .map(|s| format!("; did you mean '{s}'?"))
        .unwrap_or_default();
    let err = ToolError::new(
        ErrorCode::NotFound,
        format!("no tool named '{}'{hint}", crate::text::preview(name, 60)),
    );
    Err(match suggestion {
        Some(s) => err.with_data(json!({ "didYouMean": s })),
        None => err,
    }
    .into())
}
