//! The executor: the one code path that turns a tool and its arguments into a ToolResult.
//!
//! Every front end (`cmpx run`, `cmpx do`, recipes, the MCP and HTTP servers, BTCP) asks
//! [`authorize`] first and runs what it permits through [`worker::run`] (a catalogue tool) or
//! [`invoke::invoke`] (an installed intent), which take the [`authorize::Permit`]; so
//! authorization, normalisation, validation, panic containment and metadata are the same
//! everywhere.

pub mod authorize;
mod builtin;
pub mod confirm;
pub mod external;
pub mod invoke;
pub mod stream;
pub mod template;
pub mod worker;

use builtin::run_definition_to;
pub use builtin::{
    finish_outcome, not_found, output_file_record, run_builtin, run_definition,
    run_definition_owned, write_new_file,
};

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
fn millis(started: Instant) -> f64 {
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

fn json_len(v: &Value) -> u64 {
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
    use serde_json::json;

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
