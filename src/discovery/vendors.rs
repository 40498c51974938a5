//! The catalogue as OpenAI function-calling tools and as Anthropic Messages API tools. Both take
//! the same JSON Schema for inputs as MCP; tool ids already match their name rule
//! `^[a-zA-Z0-9_-]{1,64}$`.

use super::{description_for_agents, json_schema};
use crate::ctp::ToolDefinition;
use serde_json::{Value, json};

/// `[{"type": "function", "function": {name, description, parameters, strict}}]`. `strict` is
/// false because strict mode demands every property be required, and most of ours are optional.
pub fn openai(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|def| {
            json!({
                "type": "function",
                "function": {
                    "name": def.id,
                    "description": description_for_agents(def),
                    "parameters": json_schema::input_schema(def),
                    "strict": false,
                },
            })
        })
        .collect()
}

/// `[{name, description, input_schema}]`.
pub fn anthropic(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|def| {
            json!({
                "name": def.id,
                "description": description_for_agents(def),
                "input_schema": json_schema::input_schema(def),
            })
        })
        .collect()
}
