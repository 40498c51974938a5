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

/// One general intent whose command carries every parameter as a placeholder, then one
/// intent per declared mode (`contract.modes`) with that mode's values fixed in its command.
/// A literal reader reaches every option by filling placeholders alone.
pub fn capability(def: &ToolDefinition) -> Capability {
    let contract = crate::catalogue::contract(&def.id);
    let modes = contract.as_ref().map_or(&[][..], |c| &c.modes[..]);
    let mode_patterns: Vec<String> = modes
        .iter()
        .flat_map(|m| m.patterns.iter().map(|p| p.trim().to_lowercase()))
        .collect();
    // What the tool touches (randomness, the clock); left out when nothing, to keep the file
    // small: readers derive "nothing" from the `cmpx run <id>` command (cmp::effects).
    let touches: Vec<String> = crate::capability::of_catalogue_tool(&def.id)
        .into_iter()
        .map(str::to_string)
        .collect();
    let touches = (!touches.is_empty()).then_some(touches);
    let general = Intent {
        // A phrase that names a mode belongs to that mode's intent alone.
        patterns: patterns(def)
            .into_iter()
            .filter(|p| !mode_patterns.contains(p))
            .collect(),
        command: command_with(def, &Map::new()),
        program: None,
        params: def
            .parameters
            .iter()
            .map(|p| (p.name.clone(), param_spec(p)))
            .collect(),
        returns: Some(crate::cmp::schema::cli_output_schema(def)),
        confirm: false,
        destructive: false,
        // Built-in tools have no side effects: repeating a call changes nothing outside it.
        idempotent: true,
        success_codes: Vec::new(),
        stdout_format: None,
        capabilities: touches.clone(),
    };
    let mut intents = vec![general];
    intents.extend(modes.iter().map(|mode| {
        Intent {
            patterns: mode.patterns.clone(),
            command: command_with(def, &mode.set),
            program: None,
            // The first intent describes the parameters; these say only what a filler needs.
            params: def
                .parameters
                .iter()
                .filter(|p| !mode.set.contains_key(&p.name))
                .map(|p| (p.name.clone(), brief_param_spec(p)))
                .collect(),
            returns: None,
            confirm: false,
            destructive: false,
            idempotent: true,
            success_codes: Vec::new(),
            stdout_format: None,
            capabilities: touches.clone(),
        }
    }));
    Capability { intents }
}

/// Every worked example (the definition's and the contract's), each with the intent it
/// uses and the exact command an agent would run for it.
pub fn examples(def: &ToolDefinition) -> Examples {
    let contract = crate::catalogue::contract(&def.id);
    let cap = capability(def);
    let modes = contract.as_ref().map_or(&[][..], |c| &c.modes[..]);
    let examples = crate::contract::examples(def, contract.as_ref())
        .into_iter()
        .map(|e| {
            // The first mode the input asks for, else the general intent.
            let index = modes
                .iter()
                .position(|m| m.matches(def, &e.input))
                .map_or(0, |i| i + 1);
            let intent = &cap.intents[index];
            Example {
                intent: intent.patterns.first().cloned().unwrap_or_default(),
                invocation: Invocation {
                    want: e
                        .description
                        .clone()
                        .unwrap_or_else(|| def.summary().to_string()),
                    context: e.input.clone(),
                },
                command: Some(fill(&intent.command, &e.input)),
                result: e.output.clone(),
            }
        })
        .collect();
    Examples { examples }
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

/// `cmpx run <id>` with every parameter as `--<name>={<name>}`, so that filling the
/// placeholders alone (`''` leaves a parameter at its default) reaches every option.
pub fn command(def: &ToolDefinition) -> String {
    command_with(def, &Map::new())
}

/// [`command`] with the parameters in `fixed` written out instead of left as placeholders.
fn command_with(def: &ToolDefinition, fixed: &Map<String, Value>) -> String {
    let mut cmd = format!("{BINARY} run {}", def.id);
    for p in &def.parameters {
        match fixed.get(&p.name) {
            Some(v) => cmd.push_str(&format!(
                " --{}={}",
                p.name,
                shell_words::quote(&as_text(v))
            )),
            None => cmd.push_str(&format!(" --{0}={{{0}}}", p.name)),
        }
    }
    cmd
}

/// A command template with each placeholder replaced by its shell-quoted value from
/// `values`, or by `''` (absent: the default applies) — the rule an agent follows.
pub fn fill(template: &str, values: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..close];
        let value = values.get(name).map(as_text).unwrap_or_default();
        out.push_str(&shell_words::quote(&value));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A parameter value as the command line takes it: strings as they are (a leading `@` doubled,
/// since `@path` reads a file and `@@x` is the literal `@x`), JSON otherwise.
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) if s.starts_with('@') => format!("@{s}"),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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

/// A parameter as a mode's intent lists it: what filling it needs, without the prose the
/// first intent already gives.
fn brief_param_spec(p: &Parameter) -> ParamSpec {
    ParamSpec {
        description: None,
        ..param_spec(p)
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
