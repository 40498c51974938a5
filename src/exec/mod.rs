//! The executor: the one code path that turns a tool and its arguments into a ToolResult.
//!
//! `cmpx run`, `cmpx do`, the MCP server and the tests all come through here, so
//! normalisation, validation, consent, panic containment and metadata are the same everywhere.

mod builtin;
pub mod confirm;
pub mod external;
pub mod invoke;
pub mod template;

pub use builtin::{not_found, run_builtin, run_definition};

use crate::ctp::{Metadata, ToolError, ToolResult};
use serde_json::{Map, Value};
use std::time::Instant;

/// Wraps an outcome in a ToolResult with timing and sizes.
pub fn envelope(
    outcome: Result<Value, ToolError>,
    started: Instant,
    input: &Map<String, Value>,
    version: &str,
) -> ToolResult {
    let mut metadata = Metadata {
        execution_time: 0.0,
        input_size: serialized_len(&Value::Object(input.clone())),
        output_size: 0,
        warnings: Vec::new(),
        tool_version: version.to_string(),
    };
    let mut result = match outcome {
        Ok(data) => {
            metadata.output_size = serialized_len(&data);
            ToolResult::ok(data, metadata)
        }
        Err(e) => ToolResult::err(e, Some(metadata)),
    };
    if let Some(m) = result.metadata.as_mut() {
        // Rounded to microseconds: more digits would be noise, not precision.
        m.execution_time = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    }
    result
}

fn serialized_len(v: &Value) -> u64 {
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}
