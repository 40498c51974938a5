//! Runs one catalogue tool in-process, with no policy and no files: prepare the arguments
//! against its definition, call it with panics contained, wrap the outcome in a CTP result.
//!
//! This is the tool library's one entry point for a host that has no policy to apply (its own
//! tests, a browser build). cmpx's front ends never call it directly: they run tools through
//! `cmpx::exec`, which asks for a permit first and adds the output limit and `--output-file`
//! (a test there fails when anything else calls [`execute`]).

use crate::catalogue;
use crate::ctp::{ErrorCode, Metadata, ToolDefinition, ToolError, ToolResult, params};
use crate::tools::{self, Args};
use serde_json::{Map, Value, json};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

/// Runs catalogue tool `id` with raw (not yet normalised) arguments.
pub fn run(id: &str, raw: Map<String, Value>) -> ToolResult {
    match catalogue::get(id) {
        Some(def) => run_definition(&def, raw),
        None => ToolResult::err(not_found(id), None),
    }
}

/// Runs a known definition: normalise → validate → execute → ToolResult with metadata.
pub fn run_definition(def: &ToolDefinition, raw: Map<String, Value>) -> ToolResult {
    let started = Instant::now();
    let input_size = input_bytes(&raw);
    let outcome = params::prepare_owned(def, raw).and_then(|prepared| execute(def, &prepared));
    envelope_sized(outcome, started, input_size, def.version())
}

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

/// Calls the implementation of `def` on arguments already prepared against it.
pub fn execute(def: &ToolDefinition, prepared: &Map<String, Value>) -> Result<Value, ToolError> {
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

/// Wraps an outcome in a ToolResult with timing and sizes.
pub fn envelope(
    outcome: Result<Value, ToolError>,
    started: Instant,
    input: &Map<String, Value>,
    version: &str,
) -> ToolResult {
    envelope_sized(outcome, started, input_bytes(input), version)
}

/// [`envelope`] for a caller that measured its input before giving it away.
pub fn envelope_sized(
    outcome: Result<Value, ToolError>,
    started: Instant,
    input_size: u64,
    version: &str,
) -> ToolResult {
    let mut metadata = Metadata {
        execution_time: 0.0,
        input_size,
        output_size: 0,
        warnings: Vec::new(),
        tool_version: version.to_string(),
    };
    let mut result = match outcome {
        Ok(data) => {
            metadata.output_size = json_len(&data);
            ToolResult::ok(data, metadata)
        }
        Err(e) => ToolResult::err(e, Some(metadata)),
    };
    if let Some(m) = result.metadata.as_mut() {
        m.execution_time = millis(started);
    }
    result
}

/// Milliseconds since `started`, rounded to microseconds: more digits would be noise.
pub fn millis(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// `metadata.inputSize`: the bytes of the argument values as the tool receives them: a
/// string counts its UTF-8 bytes (a 10-byte file given as `@path` is 10, whatever escaping JSON
/// would need), any other value its compact JSON text. Names are not input.
pub fn input_bytes(args: &Map<String, Value>) -> u64 {
    args.values()
        .map(|v| match v {
            Value::String(s) => s.len() as u64,
            other => json_len(other),
        })
        .sum()
}

/// The length of `v` written as compact JSON by serde_json, without writing it.
pub fn json_len(v: &Value) -> u64 {
    match v {
        Value::Null => 4,
        Value::Bool(b) => 4 + u64::from(!*b),
        Value::Number(n) => n.to_string().len() as u64,
        Value::String(s) => crate::jsonstr::len(s),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) as u64 + items.iter().map(json_len).sum::<u64>()
        }
        Value::Object(map) => object_len(map),
    }
}

fn object_len(map: &Map<String, Value>) -> u64 {
    // `{}`, a comma between members, and `"key":value` for each.
    2 + map.len().saturating_sub(1) as u64
        + map
            .iter()
            .map(|(k, v)| crate::jsonstr::len(k) + 1 + json_len(v))
            .sum::<u64>()
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
        let result = run("base64", Map::new());
        assert_eq!(result.error_code(), Some(ErrorCode::NotFound));
    }

    #[test]
    fn a_run_prepares_the_arguments_and_measures_the_result() {
        let Value::Object(args) = json!({"input": "hi"}) else {
            unreachable!()
        };
        let result = run("base64-encoder", args);
        assert!(result.success, "{:?}", result.error);
        let metadata = result.metadata.expect("metadata");
        assert_eq!(metadata.input_size, 2);
        assert_eq!(
            metadata.output_size,
            serde_json::to_string(result.data.as_ref().unwrap())
                .unwrap()
                .len() as u64
        );
        let missing = run("base64-encoder", Map::new());
        assert_eq!(missing.error_code(), Some(ErrorCode::MissingRequired));
    }

    #[test]
    fn input_size_counts_the_bytes_of_each_value() {
        let Value::Object(args) =
            json!({"input": "a\n\"é", "indent": 4, "sort": true, "keys": ["x"]})
        else {
            unreachable!()
        };
        // "a\n\"é" is 5 bytes (é takes two); 4 is 1; true is 4; ["x"] is 5.
        assert_eq!(input_bytes(&args), 5 + 1 + 4 + 5);
        assert_eq!(input_bytes(&Map::new()), 0);
    }

    #[test]
    fn json_len_matches_serde_json_exactly() {
        let samples = [
            json!({}),
            json!({"a": null, "b": true, "c": false, "d": [], "e": {}}),
            json!({"n": [0, -1, 1.5, 1e300, 18446744073709551615u64, -9223372036854775808i64]}),
            json!({"s": "plain", "q": "say \"hi\" \\ back", "ctl": "\u{0}\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f}"}),
            json!({"uni": "café 東京 😀 \u{2028}", "nested": {"k\n": [{"x": "\""}]}}),
            json!({"output": "x".repeat(200_000) + "\n"}),
        ];
        for v in samples {
            let Value::Object(map) = &v else {
                unreachable!()
            };
            assert_eq!(
                object_len(map),
                serde_json::to_string(&v).unwrap().len() as u64,
                "{v}"
            );
        }
    }
}
