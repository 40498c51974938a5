//! The declared contract of a catalogue tool beyond its CTP definition, read from
//! `catalogue/<category>/<id>.cmpx.json`: the JSON Schema of its result's `data`, the modes
//! that get an intent of their own, and its worked examples. CTP's schema admits no extra
//! fields, so these live beside the definition; every front end (CMP files, MCP, OpenAPI,
//! docs) takes them from here, and the tests hold the tool to them.
//!
//! The contract also carries the tool's flags ([`Flags`]): whether its output is random,
//! whether it reads the clock, and which parameter it reads in pieces. Policy (the
//! system:random and system:clock capabilities), the tool's documentation and the example
//! tests read them here, so a tool is described in its own files and nowhere else.

use crate::ctp::{Example, ToolDefinition};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// Whether and when the output draws on the system's random numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<Random>,
    /// Whether the tool reads the current time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clock: bool,
    /// The parameter the tool can read in pieces (a `@path` file streamed, not loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<String>,
    /// JSON Schema (2020-12) of `data` in a successful result, for every input.
    pub output: Value,
    /// Modes, directions or targets that get an intent of their own, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Mode>,
    /// Worked examples beyond the definition's own `example`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Example>,
    /// How people ask for this tool in words its patterns do not hold, for the resolver.
    #[serde(default, skip_serializing_if = "Resolve::is_empty")]
    pub resolve: Resolve,
}

/// The tool's own phrasing knowledge, kept with the tool instead of in the resolver's global
/// rules: multi-word expressions its requests use, each read as what the tool calls it
/// ("dots and dashes" is "morse"). The resolver applies them to every request, as it does
/// the general expressions in resolver/lexicon.toml; a test holds each right-hand side to
/// words the tool's own patterns, name or summary use. `reads` names the kinds of pasted
/// sample (a `kind` in resolver/detectors.toml) the tool takes as input, so a detector's link
/// to a tool is declared rather than left to the words they happen to share; a test holds
/// each kind to a detector and each declaration to a concept the tool's own words use.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Resolve {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub phrases: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
}

impl Resolve {
    fn is_empty(&self) -> bool {
        self.phrases.is_empty() && self.reads.is_empty()
    }
}

/// When a tool's output is random.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Random {
    /// Its output is random values (a generator): fresh on every call but one that pins them
    /// (a seed, entropy or a key, where the tool takes one). Its documentation says it is not
    /// deterministic, and an example's output gives only the shape of the real one (same
    /// keys, types, array and string lengths).
    Always,
    /// Only for some arguments: a salt, an IV or a seed left out, or a randomised signature
    /// scheme. The examples avoid them, so they repeat exactly.
    Sometimes,
}

/// A tool's flags alone, read from its contract file without the rest (policy asks for them
/// on every call, and the output schema and examples are most of the file).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Flags {
    #[serde(default)]
    pub random: Option<Random>,
    #[serde(default)]
    pub clock: bool,
    #[serde(default)]
    pub streams: Option<String>,
}

impl Flags {
    /// Whether every call returns fresh values, so outputs are compared by shape.
    pub fn always_random(&self) -> bool {
        self.random == Some(Random::Always)
    }
}

impl Contract {
    pub fn flags(&self) -> Flags {
        Flags {
            random: self.random,
            clock: self.clock,
            streams: self.streams.clone(),
        }
    }
}

/// One mode: parameter values fixed in its command, and the phrases that ask for it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Mode {
    pub set: Map<String, Value>,
    pub patterns: Vec<String>,
}

impl Mode {
    /// Whether an input asks for this mode: it gives every fixed value (or leaves out one
    /// that equals the parameter's default).
    pub fn matches(&self, def: &ToolDefinition, input: &Map<String, Value>) -> bool {
        self.set.iter().all(|(name, value)| {
            let given = input
                .get(name)
                .or_else(|| def.parameter(name)?.default_value.as_ref());
            given.is_some_and(|g| same_value(g, value))
        })
    }
}

/// Equal as parameter values: `4` and `"4"`, `true` and `"true"` are the same choice.
fn same_value(a: &Value, b: &Value) -> bool {
    a == b || text(a) == text(b)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_lowercase(),
        other => other.to_string(),
    }
}

/// Every worked example of a tool: the definition's own first, then the contract's.
pub fn examples<'a>(def: &'a ToolDefinition, contract: Option<&'a Contract>) -> Vec<&'a Example> {
    let mut all = vec![&def.example];
    for e in contract.into_iter().flat_map(|c| &c.examples) {
        if !all.iter().any(|seen| seen.input == e.input) {
            all.push(e);
        }
    }
    all
}

/// The problems with one tool's contract: modes that name unknown parameters or options,
/// patterns that are empty or repeated, and examples whose input the tool would refuse.
pub fn check(def: &ToolDefinition, contract: &Contract) -> Vec<String> {
    let mut problems = Vec::new();
    let id = &def.id;
    if contract.output.get("type") != Some(&Value::String("object".into())) {
        problems.push(format!("{id}: output schema must be of type object"));
    }
    if let Some(name) = &contract.streams {
        match def.parameter(name) {
            None => problems.push(format!("{id}: streams unknown parameter '{name}'")),
            // The streaming path validates the other arguments with this one left empty, so a
            // constraint on it would be skipped there.
            Some(p)
                if p.validation.is_some()
                    || !matches!(
                        p.kind,
                        crate::ctp::ParamType::Text | crate::ctp::ParamType::Textarea
                    ) =>
            {
                problems.push(format!(
                    "{id}: streams '{name}', which is not plain text without validation rules"
                ));
            }
            Some(_) => {}
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for (i, mode) in contract.modes.iter().enumerate() {
        if mode.set.is_empty() {
            problems.push(format!("{id}: mode {i} sets no parameter"));
        }
        if mode.patterns.is_empty() {
            problems.push(format!("{id}: mode {i} has no patterns"));
        }
        for (name, value) in &mode.set {
            match def.parameter(name) {
                None => problems.push(format!("{id}: mode {i} sets unknown parameter '{name}'")),
                Some(p)
                    if !p.options.is_empty()
                        && !p
                            .option_values()
                            .any(|o| same_value(&Value::String(o.into()), value)) =>
                {
                    problems.push(format!("{id}: mode {i} sets {name}={value}, not an option"));
                }
                Some(_) => {}
            }
        }
        for pattern in &mode.patterns {
            let p = pattern.trim().to_lowercase();
            if p.is_empty() || seen.contains(&p) {
                problems.push(format!(
                    "{id}: mode {i} pattern '{pattern}' is empty or repeated"
                ));
            }
            seen.push(p);
        }
    }
    for (i, e) in contract.examples.iter().enumerate() {
        if let Err(err) = crate::ctp::params::prepare(def, &e.input) {
            problems.push(format!(
                "{id}: example {i} input is invalid: {}",
                err.message
            ));
        }
        if e.description.as_deref().is_none_or(str::is_empty) {
            problems.push(format!("{id}: example {i} has no description"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modes_match_given_values_and_defaults() {
        let def = crate::catalogue::get("base64-encoder").unwrap();
        let mode = Mode {
            set: json!({"mode": "encode"}).as_object().unwrap().clone(),
            patterns: vec!["encode".into()],
        };
        let given = |v: Value| v.as_object().unwrap().clone();
        assert!(mode.matches(&def, &given(json!({"input": "x", "mode": "encode"}))));
        assert!(mode.matches(&def, &given(json!({"input": "x", "mode": "ENCODE"}))));
        // Left out, the mode is the default.
        assert!(mode.matches(&def, &given(json!({"input": "x"}))));
        assert!(!mode.matches(&def, &given(json!({"input": "x", "mode": "decode"}))));
    }
}
