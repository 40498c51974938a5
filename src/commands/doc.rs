//! `cmpx doc`: a catalogue tool's specification in Markdown, or every tool's under a directory.

use crate::ctp::ToolDefinition;
use crate::discovery::tool_doc;
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;
use std::path::Path;

pub(super) fn run(
    mode: Mode,
    tool: Option<&str>,
    all: bool,
    out: Option<&Path>,
) -> Result<ExitCode, Error> {
    let defs: Vec<ToolDefinition> = match (tool, all) {
        (Some(_), true) => {
            return Err(Error::Usage("give a tool or --all, not both".into()));
        }
        (Some(id), false) => {
            vec![crate::catalogue::get(id).ok_or_else(|| crate::exec::not_found(id))?]
        }
        (None, true) => crate::catalogue::all().to_vec(),
        (None, false) => {
            return Err(Error::Usage(
                "give a tool id (cmpx doc json-formatter), or --all --out DIR".into(),
            ));
        }
    };
    let Some(dir) = out else {
        if all {
            return Err(Error::Usage(
                "--all writes one file per tool and needs --out DIR".into(),
            ));
        }
        super::discover::print_text(&tool_doc::markdown(&defs[0]));
        return Ok(ExitCode::Success);
    };
    let mut files = Vec::new();
    for def in &defs {
        let path = dir.join(format!("{}.md", def.id));
        let status = super::discover::write_if_changed(&path, tool_doc::markdown(def).as_bytes())?;
        files.push(super::discover::file_entry("tool", &def.id, path, status));
    }
    output::print_value(mode, &json!({ "target": dir, "files": files }));
    Ok(ExitCode::Success)
}
