//! The CTP → CMP mapping: one catalogue definition becomes a manifest, a capability and examples.
//! SPEC.md states the same mapping in prose; keep the two in step.

use super::capability::{Capability, Example, Examples, Intent, Invocation, ParamSpec};
use super::manifest::{MAX_SUMMARY_CHARS, Manifest};
use crate::ctp::{ParamType, Parameter, ToolDefinition};
use serde_json::{Map, Value, json};

/// The program every exported command runs.
pub const BINARY: &str = "cmpx";

pub fn manifest(def: &ToolDefinition) -> Manifest {
    Manifest {
        domain: def.category.clone(),
        name: def.id.clone(),
        summary: truncate_words(def.summary(), MAX_SUMMARY_CHARS),
        version: def.version().to_string(),
        binary: Some(BINARY.to_string()),
        requires: None,
        tags: Vec::new(),
        adapter: false,
        wraps: None,
        aliases: Vec::new(),
    }
}

pub fn capability(def: &ToolDefinition) -> Capability {
    Capability {
        intents: vec![Intent {
            patterns: patterns(def),
            command: command(def),
            params: def
                .parameters
                .iter()
                .map(|p| (p.name.clone(), param_spec(p)))
                .collect(),
            returns: Some(returns_schema(&def.example.output)),
            confirm: false,
            destructive: false,
            // Built-in tools have no side effects: repeating a call changes nothing outside it.
            idempotent: true,
            success_codes: Vec::new(),
        }],
    }
}

pub fn examples(def: &ToolDefinition) -> Examples {
    let want = def
        .example
        .description
        .clone()
        .unwrap_or_else(|| def.summary().to_string());
    Examples {
        examples: vec![Example {
            intent: patterns(def).into_iter().next().unwrap_or_default(),
            invocation: Invocation {
                want,
                context: def.example.input.clone(),
            },
            result: def.example.output.clone(),
        }],
    }
}

/// The natural-language patterns: the tool's name, then its keywords, without repeats.
pub fn patterns(def: &ToolDefinition) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in std::iter::once(&def.name).chain(&def.keywords) {
        let p = p.trim().to_lowercase();
        if !p.is_empty() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// `cmpx run <id>` followed by `--<name> {<name>}` for each required parameter, so that filling
/// in the required values alone gives a working command. Optional ones are appended by the caller.
pub fn command(def: &ToolDefinition) -> String {
    let mut cmd = format!("{BINARY} run {}", def.id);
    for p in def.parameters.iter().filter(|p| p.required) {
        cmd.push_str(&format!(" --{0} {{{0}}}", p.name));
    }
    cmd
}

/// The CMP type a CTP parameter type maps to.
pub fn cmp_type(p: &Parameter) -> &'static str {
    match p.kind {
        ParamType::Boolean => "boolean",
        ParamType::Number if p.is_integer() => "integer",
        // CMP has no fractional number type; decimals travel as strings and are parsed by cmpx.
        _ => "string",
    }
}

fn param_spec(p: &Parameter) -> ParamSpec {
    let mut description = p.description.clone();
    match p.kind {
        ParamType::File => description.push_str(" (Base64, or @path to read a file)"),
        ParamType::Json => description.push_str(" (JSON text)"),
        ParamType::Number if !p.is_integer() => description.push_str(" (a decimal number)"),
        _ => {}
    }
    ParamSpec {
        kind: cmp_type(p).to_string(),
        required: p.required,
        default: p.default_value.clone(),
        description: Some(description),
        enum_values: (!p.options.is_empty()).then(|| {
            p.option_values()
                .map(|v| Value::String(v.to_string()))
                .collect()
        }),
    }
}

/// A JSON Schema for the result data, inferred from the example output. Properties are typed but
/// not required, since optional fields may be absent for other inputs.
pub fn returns_schema(example: &Value) -> Value {
    match example {
        Value::Null => json!({}),
        Value::Bool(_) => json!({ "type": "boolean" }),
        Value::Number(_) => json!({ "type": "number" }),
        Value::String(_) => json!({ "type": "string" }),
        Value::Array(items) => match items.first() {
            Some(first) if items.iter().all(|i| same_type(i, first)) => {
                json!({ "type": "array", "items": returns_schema(first) })
            }
            _ => json!({ "type": "array" }),
        },
        Value::Object(map) => {
            let props: Map<String, Value> = map
                .iter()
                .map(|(k, v)| (k.clone(), returns_schema(v)))
                .collect();
            json!({ "type": "object", "properties": props })
        }
    }
}

fn same_type(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Cuts `s` to at most `max` characters at a word boundary, marking the cut with an ellipsis.
fn truncate_words(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max - 1).collect();
    let at_word = cut.rfind(' ').map_or(cut.as_str(), |i| &cut[..i]);
    format!("{}…", at_word.trim_end_matches([',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_at_word_boundaries() {
        assert_eq!(truncate_words("short", 10), "short");
        assert_eq!(truncate_words("one two three four", 12), "one two…");
    }

    #[test]
    fn schema_is_inferred_from_the_example() {
        let schema = returns_schema(&json!({"output": "x", "n": 2, "list": [1, 2]}));
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {
                "output": {"type": "string"}, "n": {"type": "number"},
                "list": {"type": "array", "items": {"type": "number"}}}})
        );
    }
}
