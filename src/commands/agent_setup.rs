//! `cmpx agent-setup`: print the agent snippet, or put it into a file between its markers.

use crate::discovery::agent_setup;
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::json;
use std::path::Path;

pub(super) fn run(mode: Mode, write: Option<&Path>) -> Result<ExitCode, Error> {
    let Some(path) = write else {
        super::discover::print_text(agent_setup::block());
        return Ok(ExitCode::Success);
    };
    // A FIFO or device named like the file is refused rather than waited on.
    let existing = match crate::cmp::read::read_optional(
        path,
        crate::cmp::read::MAX_DOCUMENT_BYTES,
        crate::cmp::read::Links::Follow,
    ) {
        Ok(Some(bytes)) => Some(
            String::from_utf8(bytes)
                .map_err(|_| Error::Usage(format!("{} is not UTF-8 text", path.display())))?,
        ),
        Ok(None) => None,
        Err(e) => return Err(e.into_error(path)),
    };
    let text = agent_setup::insert(existing.as_deref(), agent_setup::block())
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    // Write through a symlink (a shared CLAUDE.md) rather than replacing the link itself.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let status = super::discover::write_if_changed(&target, text.as_bytes())?;
    output::print_value(mode, &json!({ "file": path, "status": status }));
    Ok(ExitCode::Success)
}
