//! A recipe call as MCP's `pipe` tool and `POST /api/pipe` take it: the recipe's fields (or
//! `recipe`, a saved or bundled recipe's name) plus `input` (`schema::call`). Servers run
//! built-in steps only, under the policy, and never ask at a terminal.

use super::handoff::Payload;
use super::{Recipe, plan, run};
use crate::ctp::{ToolError, ToolResult};
use base64::Engine;
use serde_json::{Map, Value};
use std::time::Duration;

/// The MCP tool definition of `pipe`.
pub(crate) fn mcp_definition() -> Value {
    serde_json::json!({
        "name": "pipe",
        "title": "Run a recipe",
        "description": "Chain tools in one call: each step's output is the next step's input (bytes stay bytes). Give steps [{tool, params, from?, into?}] or the name of a saved recipe, and the input. Every step is checked before any runs; the result is the last step's data plus steps[] (tool, ms, sizes, warnings).",
        "inputSchema": super::schema::call(),
        "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false },
    })
}

/// Runs one recipe call; `None` once `cancelled()` turned true.
pub(crate) fn call(
    args: &Map<String, Value>,
    timeout: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Option<ToolResult> {
    let prepared = prepare(args);
    let (recipe, input) = match prepared {
        Ok(p) => p,
        Err(e) => return Some(ToolResult::from(e)),
    };
    let options = plan::Options {
        has_input: input.is_some(),
        ..plan::Options::default()
    };
    let plan = match plan::plan(&recipe, &options) {
        Ok(p) => p,
        Err(e) => return Some(ToolResult::from(e)),
    };
    run::run(
        &plan,
        run::Run {
            input,
            output_file: None,
            timeout,
            yes: false,
            interactive: false,
            cancelled,
        },
    )
}

fn prepare(args: &Map<String, Value>) -> Result<(Recipe, Option<Payload>), ToolError> {
    let mut fields = args.clone();
    let input = fields.remove("input");
    let encoding = fields.remove("inputEncoding");
    let recipe = match fields.remove("recipe") {
        Some(Value::String(name)) if fields.get("steps").is_none() => {
            let saved = super::saved::find(&name)?.ok_or_else(|| {
                ToolError::new(
                    crate::ctp::ErrorCode::NotFound,
                    format!(
                        "no saved or bundled recipe named '{}'",
                        crate::text::preview(&name, 60)
                    ),
                )
            })?;
            Recipe {
                description: None,
                steps: vec![super::Step {
                    tool: saved.name,
                    params: Map::new(),
                    from: None,
                    into: None,
                }],
                example: None,
            }
        }
        Some(_) => {
            return Err(ToolError::invalid(
                "give either 'recipe' (a saved recipe's name) or 'steps', not both",
            ));
        }
        None => Recipe::from_value(Value::Object(fields), "the recipe")?,
    };
    let input = match (input, encoding.as_ref().and_then(Value::as_str)) {
        (None | Some(Value::Null), _) => None,
        (Some(Value::String(s)), Some("base64")) => Some(Payload::Bytes(
            base64::engine::general_purpose::STANDARD
                .decode(s.trim())
                .map_err(|e| ToolError::invalid(format!("'input' is not valid Base64: {e}")))?,
        )),
        (Some(Value::String(s)), None | Some("text")) => Some(Payload::Text(s)),
        (Some(Value::String(_)), Some(other)) => {
            return Err(ToolError::invalid(format!(
                "'inputEncoding' is text or base64, not '{}'",
                crate::text::preview(other, 20)
            )));
        }
        (Some(other), _) => Some(Payload::Json(other)),
    };
    Ok((recipe, input))
}
