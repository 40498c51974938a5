//! `capability.json` (what a tool can do and the command for each intent) and `examples.json`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Capability {
    pub intents: Vec<Intent>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Intent {
    pub patterns: Vec<String>,
    pub command: String,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub params: IndexMap<String, ParamSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<Value>,
    // Defaults (false, false, true) are left out of written files: a reader assumes them, and
    // every intent saying them again cost agents tokens.
    #[serde(default, skip_serializing_if = "is_false")]
    pub confirm: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub destructive: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub idempotent: bool,
    /// cmpx extension for adapters: exit statuses that mean success (default `[0]`), e.g.
    /// `[0, 1]` for search programs that exit 1 when nothing matched.
    #[serde(
        default,
        rename = "successCodes",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub success_codes: Vec<i32>,
    /// cmpx extension (an extra field CMP readers ignore): what running the intent touches,
    /// e.g. `["fs:read", "fs:write"]` (see [`super::effects`]). Absent: not declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
}

impl Intent {
    /// Whether running this intent needs the user's consent first: it says so (`confirm`,
    /// `destructive`), declares a capability that changes files or runs code, or hands a
    /// caller's value to a shell or interpreter as code.
    pub fn needs_consent(&self) -> bool {
        self.effects().consent
    }

    /// Its side effects, derived in one place ([`super::effects::of`]).
    pub fn effects(&self) -> super::effects::Effects {
        super::effects::of(self)
    }

    /// How the command turns a parameter's value into code (`passes {script} to sh -c as
    /// code`), or `None`; see [`super::shell_code`].
    pub fn runs_code(&self) -> Option<String> {
        super::shell_code::finding(self)
    }
}

/// The parameter types CMP v0.2 defines.
pub const PARAM_TYPES: &[&str] = &[
    "string",
    "integer",
    "boolean",
    "array<string>",
    "array<integer>",
];

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ParamSpec {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Examples {
    pub examples: Vec<Example>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Example {
    /// The first pattern of the intent the example exercises.
    pub intent: String,
    pub invocation: Invocation,
    /// cmpx extension: the intent's command with every placeholder filled from `context`
    /// (shell-quoted; `''` where the context gives nothing), exactly as an agent would run it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub result: Value,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Invocation {
    /// What the user asked for, in words.
    pub want: String,
    /// The parameter values that fulfil it.
    pub context: Map<String, Value>,
}

/// The `{placeholder}` names in a command template, in order of appearance.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                // `{name?}` is a switch: the word appears only when the boolean is true.
                let name = after[..close].strip_suffix('?').unwrap_or(&after[..close]);
                if !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                {
                    out.push(name);
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn finds_placeholders_in_order() {
        assert_eq!(
            placeholders("cmpx run x --a {a} --b {b_2}"),
            vec!["a", "b_2"]
        );
        assert_eq!(placeholders("jq '{x: .y}' {file}"), vec!["file"]);
        assert_eq!(placeholders("git diff --staged{staged?}"), vec!["staged"]);
        assert!(placeholders("echo {} {").is_empty());
    }
}
