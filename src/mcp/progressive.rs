//! Progressive mode: the whole catalogue behind three meta-tools, so a client pays a constant
//! few hundred tokens however many tools are installed. `search` uses the same resolver as
//! `cmpx resolve` over an index built once at start (so `search` writes nothing: it is
//! read-only); `describe` returns one tool's full definition; `run` calls it.

use super::engine::{Engine, call_result};
use crate::resolve::{self, Options};
use serde_json::{Map, Value, json};

pub(super) fn definitions() -> Vec<Value> {
    let read_only = json!({ "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false });
    vec![
        json!({
            "name": "search",
            "title": "Find a tool",
            "description": "Find developer utilities for a task described in plain words (\"pretty print json\", \"decode this JWT\", \"show recent commits\"). Returns ranked tool names; then call describe and run.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": { "type": "string", "description": "What you want to do, in plain words" },
                    "limit": { "type": "integer", "minimum": 1, "maximum": 20, "default": 5, "description": "How many results" },
                },
                "required": ["query"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        }),
        json!({
            "name": "describe",
            "title": "Describe a tool",
            "description": "The full definition of one tool found by search: description, inputSchema, outputSchema and safety annotations.",
            "inputSchema": {
                "type": "object",
                "properties": { "name": { "type": "string", "description": "Tool name from search" } },
                "required": ["name"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        }),
        json!({
            "name": "run",
            "title": "Run a tool",
            "description": "Run one tool with its arguments (see describe). Returns the tool's result; destructive tools ask for confirmation. Name pipe chains tools in one call (describe pipe).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "Tool name from search" },
                    "arguments": { "type": "object", "description": "The tool's arguments, as its inputSchema describes" },
                },
                "required": ["name"],
                "additionalProperties": false,
            },
            "annotations": { "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true },
        }),
    ]
}

fn ok(data: Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": serde_json::to_string(&data).unwrap_or_default() }],
        "structuredContent": data,
        "isError": false,
    })
}

fn bad(message: String) -> Value {
    let result = crate::ctp::ToolResult::from(crate::ctp::ToolError::invalid(message));
    call_result(&result)
}

/// Runs one registered tool by name; `None` once the call was cancelled.
pub(super) type RunTool<'a> = dyn Fn(&str, &Map<String, Value>) -> Option<Value> + 'a;

/// One meta-tool call; `run` goes through `tool` (the engine's consent and cancellation).
/// `None` once the call was cancelled.
pub(super) fn call(
    engine: &Engine,
    name: &str,
    args: &Map<String, Value>,
    tool: &RunTool,
) -> Option<Value> {
    let registry = engine.registry();
    Some(match name {
        "search" => {
            let Some(query) = args.get("query").and_then(Value::as_str) else {
                return Some(bad("search needs a 'query' string".into()));
            };
            let limit = args
                .get("limit")
                .and_then(Value::as_u64)
                .unwrap_or(5)
                .clamp(1, 20) as usize;
            let Some(index) = engine.index() else {
                return Some(bad("search is only available in progressive mode".into()));
            };
            let found = resolve::resolve(
                index,
                query,
                &Options {
                    top: limit,
                    domain: None,
                },
            );
            let results: Vec<Value> = found
                .candidates
                .iter()
                .filter_map(|c| {
                    let name = registry.name_of(c)?;
                    let tool = registry.get(&name)?;
                    let mut s = tool.summary();
                    s["score"] = json!(c.score);
                    Some(s)
                })
                .collect();
            ok(
                json!({ "query": query, "results": results, "ambiguous": found.ambiguous, "confident": found.confident }),
            )
        }
        "describe" => {
            let Some(tool) = args.get("name").and_then(Value::as_str) else {
                return Some(bad("describe needs a 'name' string".into()));
            };
            match registry.get(tool) {
                Some(t) => ok(t.definition.clone()),
                None => bad(format!(
                    "no tool named '{}'; use search to find one",
                    crate::text::preview(tool, 64)
                )),
            }
        }
        "run" => {
            let Some(name) = args.get("name").and_then(Value::as_str) else {
                return Some(bad("run needs a 'name' string".into()));
            };
            let arguments = match args.get("arguments") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Some(bad("'arguments' must be an object".into())),
            };
            return tool(name, &arguments);
        }
        other => bad(format!(
            "unknown tool: {}; this server has search, describe and run",
            crate::text::preview(other, 64)
        )),
    })
}
