//! CTP parameters and CMP params as JSON Schema (draft 2020-12), the shape MCP, OpenAI and
//! Anthropic tool formats and OpenAPI all take for inputs.

use crate::cmp::ParamSpec;
use crate::ctp::{ParamType, Parameter, ToolDefinition};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// The input schema of a catalogue tool: one property per parameter, required ones listed,
/// nothing else accepted.
pub fn input_schema(def: &ToolDefinition) -> Value {
    let mut props = Map::new();
    for p in &def.parameters {
        props.insert(p.name.clone(), parameter(p));
    }
    let required: Vec<&str> = def
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_str())
        .collect();
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

/// One CTP parameter as a JSON Schema property.
pub fn parameter(p: &Parameter) -> Value {
    let mut s = Map::new();
    match p.kind {
        ParamType::Boolean => {
            s.insert("type".into(), json!("boolean"));
        }
        ParamType::Number => {
            s.insert(
                "type".into(),
                json!(if p.is_integer() { "integer" } else { "number" }),
            );
        }
        // Any JSON value; text is parsed as JSON by the executor.
        ParamType::Json => {}
        ParamType::Select => {
            s.insert("type".into(), json!("string"));
            s.insert("enum".into(), p.option_values().collect::<Vec<_>>().into());
        }
        ParamType::File => {
            s.insert("type".into(), json!("string"));
            s.insert("contentEncoding".into(), json!("base64"));
        }
        ParamType::Date => {
            s.insert("type".into(), json!("string"));
            s.insert("format".into(), json!("date"));
        }
        ParamType::Datetime => {
            s.insert("type".into(), json!("string"));
            s.insert("format".into(), json!("date-time"));
        }
        ParamType::Url => {
            s.insert("type".into(), json!("string"));
            s.insert("format".into(), json!("uri"));
        }
        ParamType::Email => {
            s.insert("type".into(), json!("string"));
            s.insert("format".into(), json!("email"));
        }
        ParamType::Text | ParamType::Textarea | ParamType::Color => {
            s.insert("type".into(), json!("string"));
        }
    }
    s.insert("title".into(), json!(p.label));
    let mut description = p.description.clone();
    if let Some(hint) = &p.ai_hint {
        description = format!("{description}. {hint}");
    }
    if p.kind == ParamType::Json {
        description.push_str(" (any JSON value)");
    }
    s.insert("description".into(), json!(description));
    if let Some(d) = &p.default_value {
        s.insert("default".into(), d.clone());
    }
    if let Some(v) = &p.validation {
        let numeric = p.kind == ParamType::Number;
        let put = |s: &mut Map<String, Value>, k: &str, v: Option<Value>| {
            if let Some(v) = v {
                s.insert(k.into(), v);
            }
        };
        if numeric {
            let num = |x: f64| {
                if p.is_integer() {
                    json!(x as i64)
                } else {
                    json!(x)
                }
            };
            put(&mut s, "minimum", v.min.map(num));
            put(&mut s, "maximum", v.max.map(num));
        } else {
            put(&mut s, "minLength", v.min_length.map(Value::from));
            put(&mut s, "maxLength", v.max_length.map(Value::from));
            put(&mut s, "pattern", v.pattern.clone().map(Value::from));
        }
    }
    Value::Object(s)
}

/// The input schema of a CMP intent's params.
pub fn intent_schema(params: &IndexMap<String, ParamSpec>) -> Value {
    let mut props = Map::new();
    for (name, spec) in params {
        let mut s = match spec.kind.as_str() {
            "integer" => json!({ "type": "integer" }),
            "boolean" => json!({ "type": "boolean" }),
            "array<string>" => json!({ "type": "array", "items": { "type": "string" } }),
            "array<integer>" => json!({ "type": "array", "items": { "type": "integer" } }),
            _ => json!({ "type": "string" }),
        };
        if let Some(d) = &spec.description {
            s["description"] = json!(d);
        }
        if let Some(d) = &spec.default {
            s["default"] = d.clone();
        }
        if let Some(e) = &spec.enum_values {
            s["enum"] = json!(e);
        }
        props.insert(name.clone(), s);
    }
    let required: Vec<&str> = params
        .iter()
        .filter(|(_, s)| s.required)
        .map(|(n, _)| n.as_str())
        .collect();
    json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false })
}

/// The schema of a catalogue tool's `data`, as its contract declares it.
pub fn output_schema(def: &ToolDefinition) -> Value {
    match crate::catalogue::contract(&def.id) {
        Some(c) => c.output,
        // Only while a tool's contract is being written; the catalogue tests demand one.
        None => {
            let schema = crate::cmp::mapping::returns_schema(&def.example.output);
            if schema.get("type") == Some(&json!("object")) {
                schema
            } else {
                json!({ "type": "object" })
            }
        }
    }
}

/// [`output_schema`] as the command line returns it: with `--output-file`, `output` is
/// replaced by `outputFile` (`{path, bytes, sha256}` of the file written).
pub fn cli_output_schema(def: &ToolDefinition) -> Value {
    let mut schema = output_schema(def);
    let has_output = schema.pointer("/properties/output").is_some();
    if !has_output {
        return schema;
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| r != "output");
        if required.is_empty() {
            schema.as_object_mut().map(|s| s.remove("required"));
        }
    }
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.insert("outputFile".into(), output_file_brief());
    }
    schema
}

/// What `data.outputFile` holds with `--output-file`, as capability files carry it: one line an agent reads once, since
/// every tool with `output` repeats it.
fn output_file_brief() -> Value {
    json!({
        "type": "object",
        "description": "with --output-file, instead of output: {path, bytes, sha256} of the file written",
    })
}
