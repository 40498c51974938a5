//! The JSON Schema (2020-12) of a recipe, and of a recipe call (a recipe plus its input) as
//! MCP's `pipe` tool and `POST /api/pipe` take it. Kept here, once; a test checks it against
//! the serde types and the bundled recipes.

use serde_json::{Value, json};

/// The schema of a recipe document (`--recipe FILE`, `recipe.json` of a saved recipe); the
/// tests hold the serde types and the bundled recipes to it.
#[cfg(test)]
pub(crate) fn recipe() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "cmpx recipe",
        "type": "object",
        "properties": recipe_properties(),
        "required": ["steps"],
        "additionalProperties": false,
    })
}

/// The arguments of a recipe call: the recipe's fields, or `recipe` naming a saved or bundled
/// recipe, plus `input`.
pub(crate) fn call() -> Value {
    let mut properties = recipe_properties();
    properties["recipe"] = json!({
        "type": "string",
        "description": "The name of a saved or bundled recipe (instead of steps), e.g. jwt-claims",
    });
    properties["input"] = json!({
        "type": "string",
        "description": "The first step's input (text; binary data as Base64 with inputEncoding base64)",
    });
    properties["inputEncoding"] = json!({
        "enum": ["text", "base64"],
        "default": "text",
        "description": "base64: input is Base64 of bytes, handed to the first step as bytes",
    });
    json!({
        "type": "object",
        "properties": properties,
        "oneOf": [{"required": ["steps"]}, {"required": ["recipe"]}],
        "additionalProperties": false,
    })
}

fn recipe_properties() -> Value {
    json!({
        "description": {"type": "string"},
        "steps": {
            "type": "array",
            "minItems": 1,
            "maxItems": super::recipe::MAX_STEPS,
            "description": "Tools in order; each takes the previous one's output",
            "items": {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "description": "A tool id or a saved recipe's name"},
                    "params": {"type": "object", "description": "The tool's other parameters"},
                    "from": {"type": "string", "default": "output", "description": "The previous step's result field to take (a.b for nested)"},
                    "into": {"type": "string", "description": "The parameter it goes to (default: the tool's main input)"},
                },
                "required": ["tool"],
                "additionalProperties": false,
            },
        },
        "example": {
            "type": "object",
            "properties": {"input": {"type": "string"}, "output": {"type": "string"}},
            "required": ["input", "output"],
            "additionalProperties": false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_describes_the_serde_types() {
        // Every field the schema names round-trips through `Recipe`, and nothing else does.
        let full = json!({
            "description": "d",
            "steps": [{"tool": "t", "params": {"a": 1}, "from": "f", "into": "i"}],
            "example": {"input": "x", "output": "y"},
        });
        let parsed = super::super::Recipe::from_value(full.clone(), "r").unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), full);
        let props = recipe()["properties"].as_object().unwrap().clone();
        let keys: Vec<&str> = full
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(props.keys().map(String::as_str).collect::<Vec<_>>(), keys);
    }
}
