//! The recipe document: a list of steps, each a tool with its parameters, read from JSON (the
//! one shape every front end takes) and checked for shape only; `plan` checks the tools.

use crate::ctp::ToolError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The output field a step hands on unless it says otherwise.
pub(crate) const DEFAULT_FROM: &str = "output";

/// At most this many steps after saved recipes are expanded: a recipe is a short chain, and a
/// bound keeps a runaway expansion from building a huge plan.
pub(crate) const MAX_STEPS: usize = 64;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Recipe {
    /// Optional one-line description (saved recipes use it as their summary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub steps: Vec<Step>,
    /// A worked example: this input gives exactly this `output` (bundled recipes have one,
    /// and tests/pipe.rs reproduces it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<Example>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Example {
    pub input: String,
    pub output: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Step {
    /// A catalogue tool id, a saved recipe's name, or (with --allow-adapters) an installed tool.
    pub tool: String,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub params: Map<String, Value>,
    /// The field of the previous step's `data` this step takes (`a.b` for a nested one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The parameter that receives it; default: the tool's main input (`plan::main_input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
}

impl Recipe {
    /// Reads a recipe from JSON text; `what` names where it came from in errors.
    pub(crate) fn from_json(text: &str, what: &str) -> Result<Recipe, ToolError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ToolError::invalid(format!("{what} is not valid JSON: {e}")))?;
        Recipe::from_value(value, what)
    }

    /// A recipe from a JSON value: `{"steps": [...]}`, or a bare array of steps.
    pub(crate) fn from_value(value: Value, what: &str) -> Result<Recipe, ToolError> {
        let value = match value {
            Value::Array(steps) => serde_json::json!({ "steps": steps }),
            other => other,
        };
        let recipe: Recipe = serde_json::from_value(value).map_err(|e| {
            ToolError::invalid(format!(
                "{what} is not a recipe ({e}); a recipe is {{\"steps\": [{{\"tool\": \"<id>\", \"params\": {{…}}, \"from\": \"output\", \"into\": \"input\"}}, …]}}"
            ))
        })?;
        if recipe.steps.is_empty() {
            return Err(ToolError::invalid(format!(
                "{what} has no steps; give at least one"
            )));
        }
        Ok(recipe)
    }

    pub(crate) fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_object_and_the_bare_array() {
        let a = Recipe::from_value(
            json!({"steps": [{"tool": "json-formatter", "params": {"indent": "4"}}]}),
            "r",
        )
        .unwrap();
        let b = Recipe::from_value(
            json!([{"tool": "json-formatter", "params": {"indent": "4"}}]),
            "r",
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.steps[0].from, None);
    }

    #[test]
    fn refuses_unknown_fields_and_empty_recipes() {
        let e =
            Recipe::from_value(json!({"steps": [{"tool": "x", "param": {}}]}), "r").unwrap_err();
        assert!(e.message.contains("unknown field `param`"), "{}", e.message);
        let e = Recipe::from_value(json!({"steps": []}), "r").unwrap_err();
        assert_eq!(e.message, "r has no steps; give at least one");
    }
}
