//! A tool's public surface: what callers depend on (parameters, their types, required-ness and
//! options; the output fields), read from a CMP capability so that catalogue tools and
//! third-party folders are compared by the same rules.

use crate::cmp::Capability;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Surface {
    pub version: String,
    pub params: BTreeMap<String, Param>,
    /// Output fields by path (`a.b`, `items[].c`), from the intents' `returns` schemas.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub output: BTreeMap<String, Field>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Param {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// The values it accepts, when it is a choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Field {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The surface of a capability. A parameter several intents share counts once: required if
/// any intent requires it, its type and options from the first intent that gives them.
pub(crate) fn of(version: &str, cap: &Capability) -> Surface {
    let mut params: BTreeMap<String, Param> = BTreeMap::new();
    let mut output = BTreeMap::new();
    for intent in &cap.intents {
        for (name, spec) in &intent.params {
            let entry = params.entry(name.clone()).or_insert_with(|| Param {
                kind: spec.kind.clone(),
                required: false,
                options: None,
            });
            entry.required |= spec.required;
            if entry.options.is_none() {
                entry.options = spec
                    .enum_values
                    .as_ref()
                    .map(|values| values.iter().map(value_text).collect());
            }
        }
        if let Some(schema) = &intent.returns {
            fields(schema, "", true, &mut output);
        }
    }
    Surface {
        version: version.to_string(),
        params,
        output,
    }
}

/// Walks a JSON Schema's properties (through `oneOf`/`anyOf`/`allOf` branches and array
/// `items`); the first description of a path wins, so top-level properties beat a branch's
/// narrowing (`{"const": "encode"}`).
fn fields(schema: &Value, prefix: &str, parent_required: bool, out: &mut BTreeMap<String, Field>) {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            let is_required = parent_required && required.contains(&name.as_str());
            match out.get_mut(&path) {
                Some(field) => field.required |= is_required,
                None => {
                    out.insert(
                        path.clone(),
                        Field {
                            kind: kind_of(sub),
                            required: is_required,
                        },
                    );
                }
            }
            fields(sub, &path, is_required, out);
        }
    }
    if let Some(items) = schema.get("items") {
        fields(items, &format!("{prefix}[]"), parent_required, out);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            // A field a branch requires is not required of every result.
            fields(branch, prefix, parent_required && key == "allOf", out);
        }
    }
}

fn kind_of(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            let mut names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            names.sort_unstable();
            names.join("|")
        }
        _ if schema.get("enum").is_some() || schema.get("const").is_some() => "enum".into(),
        _ => "any".into(),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_params_and_output_fields() {
        let cap: Capability = serde_json::from_value(json!({"intents": [
            {"patterns": ["x"], "command": "t {a} {b}",
             "params": {"a": {"type": "string", "required": true},
                        "b": {"type": "string", "enum": ["one", "two"]}},
             "returns": {"type": "object", "required": ["out"],
                         "properties": {"out": {"type": "string"},
                                        "list": {"type": "array", "items": {"type": "object",
                                                 "properties": {"n": {"type": "integer"}}}}},
                         "oneOf": [{"properties": {"extra": {"type": "boolean"}},
                                    "required": ["extra"]}]}},
            {"patterns": ["y"], "command": "t {a}", "params": {"a": {"type": "string"}}}
        ]}))
        .unwrap();
        let s = of("1.2.3", &cap);
        assert!(s.params["a"].required);
        assert_eq!(
            s.params["b"].options,
            Some(vec!["one".into(), "two".into()])
        );
        assert_eq!(
            s.output["out"],
            Field {
                kind: "string".into(),
                required: true
            }
        );
        assert_eq!(s.output["list[].n"].kind, "integer");
        assert_eq!(
            s.output["extra"],
            Field {
                kind: "boolean".into(),
                required: false
            }
        );
    }
}
