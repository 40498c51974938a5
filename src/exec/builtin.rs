//! Runs catalogue tools in-process: prepare parameters, execute with panics contained, measure.

use crate::catalogue;
use crate::ctp::{ErrorCode, ToolDefinition, ToolError, ToolResult, params};
use crate::tools::{self, Args};
use serde_json::{Map, Value, json};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

/// The error for an id that names no catalogue tool, with the closest id as a suggestion.
pub fn not_found(id: &str) -> ToolError {
    let suggestion = crate::suggest::did_you_mean(id, catalogue::ids());
    let hint = suggestion
        .map(|s| format!("; did you mean '{s}'?"))
        .unwrap_or_default();
    let err = ToolError::new(
        ErrorCode::NotFound,
        format!("unknown tool '{}'{hint}", crate::text::preview(id, 60)),
    );
    match suggestion {
        Some(s) => err.with_data(json!({ "didYouMean": s })),
        None => err,
    }
}

/// Runs the catalogue tool `id` with raw (not yet normalised) arguments.
pub fn run_builtin(id: &str, raw: &Map<String, Value>) -> ToolResult {
    match catalogue::get(id) {
        Some(def) => run_definition(&def, raw),
        None => ToolResult::err(not_found(id), None),
    }
}

/// Runs a known definition: normalise → validate → execute → ToolResult with metadata.
pub fn run_definition(def: &ToolDefinition, raw: &Map<String, Value>) -> ToolResult {
    run_definition_owned(def, raw.clone())
}

/// [`run_definition`] taking the arguments by value, so a large input is never copied.
pub fn run_definition_owned(def: &ToolDefinition, raw: Map<String, Value>) -> ToolResult {
    run_definition_to(def, raw, None)
}

/// Runs a tool and applies the output limit (`CMPX_MAX_OUTPUT`): a longer `output` is
/// truncated with a warning, after being written in full to `output_file` when one is given.
pub fn run_definition_to(
    def: &ToolDefinition,
    raw: Map<String, Value>,
    output_file: Option<&Path>,
) -> ToolResult {
    let started = Instant::now();
    let input_size = super::input_bytes(&raw);
    let outcome = params::prepare_owned(def, raw).and_then(|prepared| execute(def, &prepared));
    finish_outcome(def, outcome, started, input_size, output_file)
}

/// The result of an outcome once the output limit is applied (and the full output saved to
/// `output_file`, when given).
pub fn finish_outcome(
    def: &ToolDefinition,
    outcome: Result<Value, ToolError>,
    started: Instant,
    input_size: u64,
    output_file: Option<&Path>,
) -> ToolResult {
    let mut warnings = Vec::new();
    let outcome = outcome.and_then(|mut data| {
        if let (Some(path), Some(Value::String(full))) = (output_file, data.get("output")) {
            save_output(path, full)?;
            warnings.push(format!(
                "the full output ({}) was written to {}",
                crate::limits::human(full.len() as u64),
                path.display()
            ));
        }
        if let Some(w) = cap_output(
            &mut data,
            crate::limits::max_output(),
            output_file.is_some(),
        ) {
            warnings.push(w);
        }
        Ok(data)
    });
    let mut result = super::envelope_sized(outcome, started, input_size, def.version());
    if let Some(m) = result.metadata.as_mut() {
        m.warnings.extend(warnings);
    }
    result
}

/// Truncates `data.output` to at most `limit` bytes (on a character boundary).
fn cap_output(data: &mut Value, limit: u64, saved: bool) -> Option<String> {
    let Some(Value::String(output)) = data.get_mut("output") else {
        return None;
    };
    let full = output.len() as u64;
    if full <= limit {
        return None;
    }
    let mut cut = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .min(output.len());
    while !output.is_char_boundary(cut) {
        cut -= 1;
    }
    output.truncate(cut);
    output.shrink_to_fit();
    let how = if saved {
        String::new()
    } else {
        " pass --output-file <path> to get all of it, or".to_string()
    };
    Some(format!(
        "output truncated to the first {} of {} ({} bytes of {full});{how} set {} to raise the limit",
        crate::limits::human(cut as u64),
        crate::limits::human(full),
        cut,
        crate::limits::MAX_OUTPUT_ENV
    ))
}

/// Writes the full output to a new file; an existing file is never replaced.
fn save_output(path: &Path, output: &str) -> Result<(), ToolError> {
    use std::io::Write;
    let shown = path.display();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| {
            let why = if e.kind() == std::io::ErrorKind::AlreadyExists {
                "it already exists, and cmpx does not overwrite files".to_string()
            } else {
                e.to_string()
            };
            ToolError::new(
                ErrorCode::ExecutionError,
                format!("cannot write the output to {shown}: {why}"),
            )
        })?;
    file.write_all(output.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| {
            // A partial file is worse than none.
            let _ = std::fs::remove_file(path);
            ToolError::new(
                ErrorCode::ExecutionError,
                format!("cannot write the output to {shown}: {e}"),
            )
        })
}

fn execute(def: &ToolDefinition, prepared: &Map<String, Value>) -> Result<Value, ToolError> {
    let Some(f) = tools::implementation(&def.id) else {
        return Err(ToolError::new(
            ErrorCode::InternalError,
            format!(
                "tool '{}' is in the catalogue but has no implementation",
                def.id
            ),
        ));
    };
    contain(def, f, prepared)
}

/// Calls the implementation with panics caught: a bug in one tool becomes an INTERNAL_ERROR
/// result, never a crash of the process (or of the MCP server serving many calls).
fn contain(
    def: &ToolDefinition,
    f: tools::ToolFn,
    prepared: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let args = Args::new(prepared);
    match panic::catch_unwind(AssertUnwindSafe(|| f(&args))) {
        Ok(outcome) => outcome,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(ToolError::new(
                ErrorCode::InternalError,
                format!(
                    "tool '{}' failed unexpectedly (this is a bug in cmpx): {what}",
                    def.id
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explode(_: &Args) -> crate::ctp::ToolOutcome {
        let v: Vec<u8> = Vec::new();
        Ok(Value::from(v[3]))
    }

    #[test]
    fn a_panicking_tool_becomes_an_internal_error() {
        let def = catalogue::get("base64-encoder").unwrap();
        let err = contain(&def, explode, &Map::new()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InternalError);
        assert!(
            err.message.contains("index out of bounds"),
            "{}",
            err.message
        );
    }

    #[test]
    fn unknown_tools_suggest_the_closest_id() {
        let err = not_found("base64");
        assert_eq!(err.code, ErrorCode::NotFound);
        assert_eq!(err.data, Some(json!({"didYouMean": "base64-encoder"})));
        assert!(not_found("zzzzzzzz").data.is_none());
    }
}
