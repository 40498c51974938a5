//! Progressive mode: the whole catalogue behind three meta-tools, so a client pays a constant
//! few hundred tokens however many tools are installed. `search` uses the same resolver as
//! `cmpx resolve`; `describe` returns one tool's full definition; `run` calls it.

use super::{INVALID_PARAMS, Server, call_result};
use crate::resolve::{self, Options};
use serde_json::{Map, Value, json};
use std::io::{BufRead, Write};

pub fn definitions() -> Vec<Value> {
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
            "description": "Run one tool with its arguments (see describe). Returns the tool's result; destructive tools ask for confirmation.",
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

pub fn call<R: BufRead, W: Write>(
    server: &mut Server<R, W>,
    name: &str,
    args: &Map<String, Value>,
) -> Result<Value, (i64, String)> {
    match name {
        "search" => {
            let Some(query) = args.get("query").and_then(Value::as_str) else {
                return Ok(bad("search needs a 'query' string".into()));
            };
            let limit = args
                .get("limit")
                .and_then(Value::as_u64)
                .unwrap_or(5)
                .clamp(1, 20) as usize;
            let index = resolve::index::load(&crate::paths::all_roots());
            let found = resolve::resolve(
                &index,
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
                    let name = server.registry.name_of(c)?;
                    let tool = server.registry.get(&name)?;
                    let mut s = tool.summary();
                    s["score"] = json!(c.score);
                    Some(s)
                })
                .collect();
            Ok(ok(
                json!({ "query": query, "results": results, "ambiguous": found.ambiguous, "confident": found.confident }),
            ))
        }
        "describe" => {
            let Some(tool) = args.get("name").and_then(Value::as_str) else {
                return Ok(bad("describe needs a 'name' string".into()));
            };
            match server.registry.get(tool) {
                Some(t) => Ok(ok(t.definition.clone())),
                None => Ok(bad(format!(
                    "no tool named '{}'; use search to find one",
                    crate::text::preview(tool, 64)
                ))),
            }
        }
        "run" => {
            let Some(tool) = args.get("name").and_then(Value::as_str) else {
                return Ok(bad("run needs a 'name' string".into()));
            };
            let arguments = match args.get("arguments") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Ok(bad("'arguments' must be an object".into())),
            };
            let tool = tool.to_string();
            match server.call_tool(&tool, &arguments) {
                Ok(r) => Ok(r),
                Err((_, message)) => Ok(bad(message)),
            }
        }
        other => Err((
            INVALID_PARAMS,
            format!(
                "unknown tool: {}; this server has search, describe and run",
                crate::text::preview(other, 64)
            ),
        )),
    }
}
