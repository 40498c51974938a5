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
    /// cmpx extension, written by `cmpx export` for adapters: the program's own command
    /// template, which is what runs; `command` then holds the `cmpx run <tool> --intent <n> …`
    /// line an agent runs (see [`presented_command`]). Absent: `command` is what runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
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
    /// cmpx extension for adapters: `"text"` keeps the program's stdout as text even when it is
    /// JSON (a pretty-printer's indentation is its answer); absent (or `"auto"`): stdout that
    /// is JSON or JSON Lines comes back parsed.
    #[serde(
        default,
        rename = "stdoutFormat",
        skip_serializing_if = "Option::is_none"
    )]
    pub stdout_format: Option<String>,
    /// cmpx extension (an extra field CMP readers ignore): what running the intent touches,
    /// e.g. `["fs:read", "fs:write"]` (see [`super::effects`]). Absent: not declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
}

impl Intent {
    /// Whether the program's stdout stays text whatever it holds (`"stdoutFormat": "text"`).
    pub fn stdout_as_text(&self) -> bool {
        self.stdout_format.as_deref() == Some("text")
    }

    /// The command template that runs: the program's own (`program`), else `command`.
    pub fn template(&self) -> &str {
        self.program.as_deref().unwrap_or(&self.command)
    }

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

impl Capability {
    /// The capability as cmpx presents it for tool `name`: every intent's `command` is the
    /// `cmpx run …` line of [`presented_command`], and an intent that runs another program keeps
    /// that program's template in `program`. What `cmpx export` writes for an adapter and what
    /// `cmpx show` prints for any installed folder.
    pub fn presented(&self, name: &str) -> Capability {
        let intents = self
            .intents
            .iter()
            .enumerate()
            .map(|(i, intent)| {
                let command = presented_command(name, i, intent);
                if command == intent.command {
                    return intent.clone();
                }
                Intent {
                    program: Some(intent.template().to_string()),
                    command,
                    ..intent.clone()
                }
            })
            .collect();
        Capability { intents }
    }
}

/// The one command cmpx shows an agent for intent `index` of tool `name`, whatever runs
/// underneath: a command that already runs a catalogue tool (`cmpx run <id> …`) stays as
/// written; any other program's (an adapter's, a third-party folder's) becomes
/// `cmpx run <name> --intent <index>` with `--<p>={<p>}` for every parameter, in declaration
/// order. So one rule holds for every command: fill each placeholder with a shell-quoted value,
/// `''` for one left at its default, and the result is the `{success, data|error}` envelope.
pub fn presented_command(name: &str, index: usize, intent: &Intent) -> String {
    if intent.program.is_none() && runs_cmpx(&intent.command) {
        return intent.command.clone();
    }
    let mut cmd = format!(
        "{} run {} --intent {index}",
        super::mapping::BINARY,
        shell_words::quote(name)
    );
    for p in intent.params.keys() {
        // A name that cannot be a placeholder cannot be filled either; it is still accepted
        // as `--<name>=<value>` by `cmpx run`.
        if is_placeholder_name(p) {
            cmd.push_str(&format!(" --{p}={{{p}}}"));
        }
    }
    cmd
}

/// Whether a command template runs cmpx's own `run` (a catalogue tool, or an intent of another
/// installed tool).
fn runs_cmpx(command: &str) -> bool {
    shell_words::split(command)
        .ok()
        .is_some_and(|w| w.len() >= 3 && w[0] == super::mapping::BINARY && w[1] == "run")
}

fn is_placeholder_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
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
                if is_placeholder_name(name) {
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
    use super::{Capability, placeholders, presented_command};
    use serde_json::json;

    #[test]
    fn every_command_is_presented_as_a_cmpx_run_line() {
        let cap: Capability = serde_json::from_value(json!({"intents": [
            {"patterns": ["a"], "command": "cmpx run json-formatter --input={input}",
             "params": {"input": {"type": "string", "required": true}}},
            {"patterns": ["b"], "command": "jq --indent {indent} . -- {file}",
             "params": {"file": {"type": "string", "required": true},
                        "indent": {"type": "integer", "default": 2}}},
        ]}))
        .unwrap();
        assert_eq!(
            presented_command("jq", 0, &cap.intents[0]),
            "cmpx run json-formatter --input={input}"
        );
        assert_eq!(
            presented_command("jq", 1, &cap.intents[1]),
            "cmpx run jq --intent 1 --file={file} --indent={indent}"
        );
        let shown = cap.presented("jq");
        assert_eq!(shown.intents[0], cap.intents[0]);
        assert_eq!(
            shown.intents[1].command,
            "cmpx run jq --intent 1 --file={file} --indent={indent}"
        );
        assert_eq!(
            shown.intents[1].program.as_deref(),
            Some("jq --indent {indent} . -- {file}")
        );
        assert_eq!(shown.intents[1].template(), cap.intents[1].template());
        // Presenting twice changes nothing: an exported folder read back shows the same.
        assert_eq!(shown.presented("jq"), shown);
    }

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
