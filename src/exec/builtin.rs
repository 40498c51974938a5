//! Runs catalogue tools in-process: prepare parameters, execute with panics contained, measure.

use crate::catalogue;
use crate::ctp::{ErrorCode, ToolDefinition, ToolError, ToolResult, params};
use crate::tools::{self, Args};
use serde_json::{Map, Value, json};
use std::panic::{self, AssertUnwindSafe};
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
    let started = Instant::now();
    let input_size = super::serialized_len(&raw);
    let outcome = params::prepare_owned(def, raw).and_then(|prepared| execute(def, &prepared));
    super::envelope_sized(outcome, started, input_size, def.version())
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
