//! Runs catalogue tools in-process under a permit: the tool library's prepare and contained
//! execute, then the output limit and `--output-file`.

use crate::catalogue;
use crate::ctp::{ErrorCode, ToolDefinition, ToolError, ToolResult, params};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Runs the catalogue tool `id` with raw (not yet normalised) arguments; like
/// [`run_definition`], only for examples and tests.
pub fn run_builtin(id: &str, raw: &Map<String, Value>) -> ToolResult {
    match catalogue::get(id) {
        Some(def) => run_definition(&def, raw),
        None => ToolResult::err(super::not_found(id), None),
    }
}

/// Runs a known definition: normalise → validate → execute → ToolResult with metadata.
///
/// Only for the tests, which run the catalogue's examples and fixed inputs to check the tools
/// (unit, contract and fuzz tests): it asks no policy. Every front end
/// runs tools through [`super::worker::run`] with a permit from [`super::authorize`]; a test
/// (`exec::authorize::one_way_in`) fails when anything else calls this.
pub fn run_definition(def: &ToolDefinition, raw: &Map<String, Value>) -> ToolResult {
    run_definition_owned(def, raw.clone())
}

/// [`run_definition`] taking the arguments by value, so a large input is never copied.
pub fn run_definition_owned(def: &ToolDefinition, raw: Map<String, Value>) -> ToolResult {
    run_definition_to(super::authorize::Permit::internal(&def.id), def, raw, None)
}

/// Runs a tool and applies the output limit (`CMPX_MAX_OUTPUT`): a longer result is an error
/// that says how to get it (`--output-file`), never a cut one. With `output_file`, `output`
/// goes to that new file and `data` names it instead of carrying it.
pub(super) fn run_definition_to(
    permit: super::authorize::Permit,
    def: &ToolDefinition,
    raw: Map<String, Value>,
    output_file: Option<&Path>,
) -> ToolResult {
    debug_assert_eq!(
        permit.tool(),
        def.id,
        "a permit runs the tool it was given for"
    );
    let started = Instant::now();
    let input_size = super::input_bytes(&raw);
    let outcome = params::prepare_owned(def, raw)
        .and_then(|prepared| cmpx_tools::run::execute(def, &prepared));
    finish_outcome(def, outcome, started, input_size, output_file)
}

/// The result of an outcome once `output` is saved to `output_file` (when given) and the
/// output limit is checked.
pub fn finish_outcome(
    def: &ToolDefinition,
    outcome: Result<Value, ToolError>,
    started: Instant,
    input_size: u64,
    output_file: Option<&Path>,
) -> ToolResult {
    let outcome = outcome.and_then(|mut data| {
        if let Some(path) = output_file {
            let Some(Value::String(full)) = data.get("output") else {
                return Err(ToolError::invalid(format!(
                    "{} has no output text to write to a file; --output-file is for tools whose result carries `output`",
                    def.id
                )));
            };
            let saved = save_output(path, full)?;
            if let Value::Object(map) = &mut data {
                map.remove("output");
                map.insert("outputFile".into(), saved);
            }
        }
        check_output_size(&data, crate::limits::max_output())?;
        Ok(data)
    });
    super::envelope_sized(outcome, started, input_size, def.version())
}

/// A result larger than the output limit is refused whole: an agent must never take a cut
/// result for the real one.
pub(super) fn check_output_size(data: &Value, limit: u64) -> Result<(), ToolError> {
    let size = super::json_len(data);
    if size <= limit {
        return Ok(());
    }
    Err(too_large(size, limit))
}

/// The error for a result of `size` bytes over the output limit.
pub(super) fn too_large(size: u64, limit: u64) -> ToolError {
    ToolError::new(
        ErrorCode::ExecutionError,
        format!(
            "the result ({}) is larger than the output limit ({}); run it with --output-file <path> to have the output written to a file, or raise {}",
            crate::limits::human(size),
            crate::limits::human(limit),
            crate::limits::MAX_OUTPUT_ENV
        ),
    )
    .with_data(json!({ "outputTooLarge": true, "size": size, "limit": limit }))
}

/// Writes the full output to a new file (an existing file is never replaced) and describes
/// it: `{path, bytes, sha256}`.
fn save_output(path: &Path, output: &str) -> Result<Value, ToolError> {
    use sha2::Digest;
    write_new_file(path, |file| file.write_all(output.as_bytes()))?;
    Ok(output_file_record(
        path,
        output.len() as u64,
        &hex::encode(sha2::Sha256::digest(output.as_bytes())),
    ))
}

/// `data.outputFile`: where the output went, its size and its SHA-256.
pub fn output_file_record(path: &Path, bytes: u64, sha256: &str) -> Value {
    json!({ "path": path.display().to_string(), "bytes": bytes, "sha256": sha256 })
}

/// Creates `path` (never replacing a file), lets `write` fill it, and syncs it; a partial
/// file is removed, since a partial file is worse than none.
pub fn write_new_file(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), ToolError> {
    // Whole or not at all, even when the process is killed mid-write.
    crate::new_file::write(path, write)
}
