//! How one step's result becomes the next step's argument, defined once.
//!
//! Tools carry binary data as Base64 text with `outputEncoding: "base64"` beside it (a JSON
//! result holds text). Between steps the value is what it really is — text, bytes or a JSON
//! value — and each is given to the next tool in the form it takes, never through a lossy text
//! conversion: bytes go as Base64 where the parameter takes Base64 (a `file` parameter, a tool
//! whose encoding option is set to `base64`, a compressor's decompress input), as text only
//! when they are valid UTF-8, and otherwise the step fails saying so.

use crate::ctp::{ParamType, ToolDefinition, ToolError};
use base64::Engine;
use serde_json::{Map, Value};

/// A value between two steps.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Payload {
    Text(String),
    Bytes(Vec<u8>),
    /// A structured field (`from: "payload"` of jwt-decoder).
    Json(Value),
}

impl Payload {
    /// Its size in bytes as metadata reports it: text and bytes by length, JSON compact.
    pub(crate) fn byte_len(&self) -> u64 {
        match self {
            Payload::Text(t) => t.len() as u64,
            Payload::Bytes(b) => b.len() as u64,
            Payload::Json(v) => serde_json::to_string(v).map_or(0, |s| s.len() as u64),
        }
    }
}

/// The parameters through which a tool takes its main input as Base64 bytes, by option:
/// (tool, parameter, option parameter, option value that makes it Base64).
const BASE64_WHEN: &[(&str, &str, &str, &str)] = &[
    ("gzip-compressor", "input", "mode", "decompress"),
    ("bzip2-compressor", "input", "mode", "decompress"),
    ("lz4-compressor", "input", "mode", "decompress"),
    ("lzma-compressor", "input", "mode", "decompress"),
];

/// Option parameters that say how a tool reads its input, and their Base64 value.
const ENCODING_PARAMS: &[&str] = &["inputEncoding", "inputFormat", "encoding"];

/// The value at `from` (`a.b` for a nested field) in a step's `data`. An installed program's
/// result has no `output`: the default hands on its `stdout`.
pub(crate) fn take(data: &Value, from: &str) -> Result<Payload, ToolError> {
    let from = if from == super::recipe::DEFAULT_FROM
        && data.get("output").is_none()
        && data.get("stdout").is_some()
    {
        "stdout"
    } else {
        from
    };
    let mut at = data;
    for key in from.split('.') {
        at = at.get(key).ok_or_else(|| {
            let fields: Vec<&str> = data
                .as_object()
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            ToolError::invalid(format!(
                "its result has no field '{from}' to hand on (fields: {})",
                fields.join(", ")
            ))
        })?;
    }
    let binary = from == "output" && data.get("outputEncoding") == Some(&Value::from("base64"));
    match at {
        Value::String(s) if binary => decode(s).map(Payload::Bytes),
        Value::String(s) => Ok(Payload::Text(s.clone())),
        other => Ok(Payload::Json(other.clone())),
    }
}

fn decode(text: &str) -> Result<Vec<u8>, ToolError> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| ToolError::execution(format!("its binary output is not valid Base64: {e}")))
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Puts `payload` into parameter `into` of `args` for tool `def`, in the form that parameter
/// takes. `args` holds the step's fixed parameters (an encoding option may be set here).
pub(crate) fn deliver(
    payload: Payload,
    def: &ToolDefinition,
    into: &str,
    args: &mut Map<String, Value>,
) -> Result<(), ToolError> {
    let kind = def.parameter(into).map(|p| p.kind);
    let value = match payload {
        Payload::Json(v) if kind == Some(ParamType::Json) => v,
        Payload::Json(Value::String(s)) => Value::String(s),
        Payload::Json(v) => Value::String(v.to_string()),
        Payload::Text(t) => Value::String(t),
        Payload::Bytes(b) if kind == Some(ParamType::File) => Value::String(encode(&b)),
        Payload::Bytes(b) if takes_base64(def, into, args) => Value::String(encode(&b)),
        Payload::Bytes(b) => match encoding_option(def, into, args) {
            Some(option) => {
                args.insert(option.to_string(), Value::from("base64"));
                Value::String(encode(&b))
            }
            None => Value::String(String::from_utf8(b).map_err(|e| {
                ToolError::invalid(format!(
                    "the previous step produced binary data ({} bytes, not UTF-8 text) and {} takes text in '{into}'; add a step that turns it into text (e.g. base64-encoder), or send it to a tool that takes bytes",
                    e.as_bytes().len(),
                    def.id
                ))
            })?),
        },
    };
    args.insert(into.to_string(), value);
    Ok(())
}

/// Whether `into` takes Base64 with the options as given (a decompressor's input).
fn takes_base64(def: &ToolDefinition, into: &str, args: &Map<String, Value>) -> bool {
    BASE64_WHEN.iter().any(|&(tool, param, option, value)| {
        tool == def.id && param == into && option_value(def, args, option) == Some(value)
    })
}

/// The tool's encoding option that can say "Base64", when the step left it free (an option
/// the step set to something else is the author's decision, and the bytes go as text then).
fn encoding_option<'a>(
    def: &'a ToolDefinition,
    into: &str,
    args: &Map<String, Value>,
) -> Option<&'a str> {
    if into != super::plan::main_input(def)? {
        return None;
    }
    def.parameters
        .iter()
        .filter(|p| ENCODING_PARAMS.contains(&p.name.as_str()))
        .find(|p| {
            p.option_values().any(|v| v == "base64")
                && args
                    .get(&p.name)
                    .is_none_or(|v| v.as_str().is_some_and(|s| s.eq_ignore_ascii_case("base64")))
        })
        .map(|p| p.name.as_str())
}

/// An option's value as the step gives it, else its default (lower case).
fn option_value<'a>(
    def: &'a ToolDefinition,
    args: &'a Map<String, Value>,
    name: &str,
) -> Option<&'a str> {
    args.get(name)
        .and_then(Value::as_str)
        .or_else(|| def.parameter(name)?.default_value.as_ref()?.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(id: &str) -> ToolDefinition {
        crate::catalogue::get(id).unwrap()
    }

    #[test]
    fn binary_output_is_taken_as_bytes() {
        let data = json!({"output": "H4sI", "outputEncoding": "base64"});
        assert_eq!(
            take(&data, "output").unwrap(),
            Payload::Bytes(vec![0x1f, 0x8b, 0x08])
        );
        let data = json!({"output": "H4sI"});
        assert_eq!(take(&data, "output").unwrap(), Payload::Text("H4sI".into()));
        let data = json!({"payload": {"sub": "1"}});
        assert_eq!(
            take(&data, "payload").unwrap(),
            Payload::Json(json!({"sub": "1"}))
        );
        assert_eq!(
            take(&data, "payload.sub").unwrap(),
            Payload::Text("1".into())
        );
        assert_eq!(
            take(&data, "claims").unwrap_err().message,
            "its result has no field 'claims' to hand on (fields: payload)"
        );
    }

    #[test]
    fn bytes_go_as_base64_where_the_parameter_takes_it() {
        let bytes = Payload::Bytes(vec![0x1f, 0x8b, 0xff]);
        let mut args = Map::from_iter([("mode".to_string(), json!("decompress"))]);
        deliver(bytes.clone(), &def("gzip-compressor"), "input", &mut args).unwrap();
        assert_eq!(args["input"], "H4v/");
        // An encoding option the step left free is set to Base64.
        let mut args = Map::new();
        deliver(bytes.clone(), &def("hash-generator"), "input", &mut args).unwrap();
        assert_eq!(args["input"], "H4v/");
        assert_eq!(args["inputEncoding"], "base64");
        // Text tools take bytes only when they are UTF-8.
        let mut args = Map::new();
        let e = deliver(bytes, &def("json-formatter"), "input", &mut args).unwrap_err();
        assert!(
            e.message
                .starts_with("the previous step produced binary data (3 bytes"),
            "{}",
            e.message
        );
        deliver(
            Payload::Bytes(b"{}".to_vec()),
            &def("json-formatter"),
            "input",
            &mut args,
        )
        .unwrap();
        assert_eq!(args["input"], "{}");
    }

    #[test]
    fn json_values_go_as_json_or_compact_text() {
        let mut args = Map::new();
        deliver(
            Payload::Json(json!({"a": 1})),
            &def("json-formatter"),
            "input",
            &mut args,
        )
        .unwrap();
        assert_eq!(args["input"], "{\"a\":1}");
        let mut args = Map::new();
        deliver(
            Payload::Json(json!({"a": 1})),
            &def("jwt-encoder"),
            "payload",
            &mut args,
        )
        .unwrap();
        assert_eq!(args["payload"], json!({"a": 1}));
    }
}
