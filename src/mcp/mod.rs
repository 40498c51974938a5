//! `cmpx mcp`: an MCP server over stdio (JSON-RPC 2.0, one message per line). Only protocol
//! goes to stdout; diagnostics go to stderr; end of input ends the server cleanly.

mod progressive;
pub mod registry;

use crate::ctp::{ErrorCode, ToolError, ToolResult};
use crate::exec::invoke::{self, Flags};
use registry::{Kind, McpTool, Registry};
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, Write};

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

#[derive(Debug, Clone)]
pub struct Options {
    /// Expose three meta-tools (search, describe, run) instead of every tool.
    pub progressive: bool,
    /// Run confirm/destructive intents without asking.
    pub allow_destructive: bool,
    /// Tools per `tools/list` page.
    pub page_size: usize,
}

pub struct Server<R, W> {
    input: R,
    out: W,
    opts: Options,
    registry: Registry,
    /// The client answers `elicitation/create`, so consent can be asked for.
    elicitation: bool,
    /// Messages that arrived while we waited for a reply to our own request.
    queued: VecDeque<Vec<u8>>,
    next_request: u64,
}

/// Serves stdin/stdout until end of input.
pub fn serve(opts: Options) -> i32 {
    let roots = crate::paths::all_roots();
    let stdin = std::io::stdin();
    let mut server = Server::new(
        stdin.lock(),
        std::io::stdout().lock(),
        opts,
        Registry::load(&roots),
    );
    match server.run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cmpx mcp: {e}");
            1
        }
    }
}

/// A line with nothing but whitespace (ignored between messages).
fn is_blank(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_ok_and(|s| s.trim().is_empty())
}

fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into() } })
}

fn reply(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

impl<R: BufRead, W: Write> Server<R, W> {
    pub fn new(input: R, out: W, opts: Options, registry: Registry) -> Self {
        Server {
            input,
            out,
            opts,
            registry,
            elicitation: false,
            queued: VecDeque::new(),
            next_request: 1,
        }
    }

    /// The next non-blank line as bytes. Bytes, not a `String`: a line that is not UTF-8 is
    /// a parse error for that message (answered with -32700), not an I/O error that ends the
    /// server.
    fn read_line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        if let Some(line) = self.queued.pop_front() {
            return Ok(Some(line));
        }
        let mut line = Vec::new();
        loop {
            line.clear();
            if self.input.read_until(b'\n', &mut line)? == 0 {
                return Ok(None);
            }
            if !is_blank(&line) {
                return Ok(Some(line));
            }
        }
    }

    fn send(&mut self, msg: &Value) -> std::io::Result<()> {
        let mut text = serde_json::to_string(msg).unwrap_or_default();
        text.push('\n');
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }

    pub fn run(&mut self) -> std::io::Result<()> {
        while let Some(line) = self.read_line()? {
            let response = match serde_json::from_slice::<Value>(&line) {
                Err(e) => Some(error(Value::Null, PARSE_ERROR, format!("parse error: {e}"))),
                Ok(Value::Array(batch)) if !batch.is_empty() => {
                    let replies: Vec<Value> =
                        batch.into_iter().filter_map(|m| self.handle(m)).collect();
                    (!replies.is_empty()).then_some(Value::Array(replies))
                }
                Ok(msg) => self.handle(msg),
            };
            if let Some(r) = response {
                self.send(&r)?;
            }
        }
        Ok(())
    }

    /// One message: a request gets a response, a notification (no id) gets none.
    fn handle(&mut self, msg: Value) -> Option<Value> {
        let Value::Object(msg) = msg else {
            return Some(error(
                Value::Null,
                INVALID_REQUEST,
                "a JSON-RPC message must be an object",
            ));
        };
        let id = msg.get("id").cloned();
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response to a request we did not make, or garbage: answer only if it has an id.
            return id
                .filter(|_| !msg.contains_key("result") && !msg.contains_key("error"))
                .map(|id| error(id, INVALID_REQUEST, "missing method"));
        };
        let params = msg
            .get("params")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        let Some(id) = id else {
            // Notifications: initialized, cancelled, progress… nothing to answer.
            return None;
        };
        let result = match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => self.list(&params),
            "tools/call" => self.call(&params),
            other => Err((METHOD_NOT_FOUND, format!("method not found: {other}"))),
        };
        Some(match result {
            Ok(r) => reply(id, r),
            Err((code, message)) => error(id, code, message),
        })
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let version = PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == asked)
            .unwrap_or(&PROTOCOL_VERSIONS[0]);
        self.elicitation = params.pointer("/capabilities/elicitation").is_some();
        let mode = if self.opts.progressive {
            "progressive"
        } else {
            "full"
        };
        json!({
            "protocolVersion": version,
            "capabilities": {
                "tools": { "listChanged": false },
                "experimental": {
                    "ctp": {
                        "version": "1.0.0",
                        "features": ["tools", "validation", "structured-results", "cmp-adapters", "progressive-discovery"],
                        "mode": mode,
                    }
                }
            },
            "serverInfo": { "name": "cmpx", "title": "cmpx developer utilities", "version": env!("CARGO_PKG_VERSION") },
            "instructions": if self.opts.progressive {
                "Developer utilities (JSON, Base64, hashes, JWT, UUID, cron, diff, git, ripgrep, …). Call `search` with what you want, `describe` a result for its input schema, then `run` it."
            } else {
                "Developer utilities (JSON, Base64, hashes, JWT, UUID, cron, diff, …) and adapters for installed CLIs. Each result is a CTP ToolResult's data."
            },
        })
    }

    fn definitions(&self) -> Vec<Value> {
        if self.opts.progressive {
            progressive::definitions()
        } else {
            self.registry
                .tools
                .iter()
                .map(|t| t.definition.clone())
                .collect()
        }
    }

    fn list(&self, params: &Value) -> Result<Value, (i64, String)> {
        let all = self.definitions();
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= all.len())
                .ok_or((INVALID_PARAMS, format!("invalid cursor: {c}")))?,
            Some(_) => return Err((INVALID_PARAMS, "cursor must be a string".into())),
        };
        let size = self.opts.page_size.max(1);
        let end = (start + size).min(all.len());
        let mut result = json!({ "tools": all[start..end] });
        if end < all.len() {
            result["nextCursor"] = json!(end.to_string());
        }
        Ok(result)
    }

    fn call(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or((INVALID_PARAMS, "tools/call needs a tool name".to_string()))?
            .to_string();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err((INVALID_PARAMS, "arguments must be an object".into())),
        };
        if self.opts.progressive {
            return progressive::call(self, &name, &args);
        }
        self.call_tool(&name, &args)
    }

    /// Runs one registered tool; an unknown name is a protocol error (-32602).
    fn call_tool(&mut self, name: &str, args: &Map<String, Value>) -> Result<Value, (i64, String)> {
        let Some(tool) = self.registry.get(name) else {
            let hint = crate::suggest::did_you_mean(
                name,
                self.registry.tools.iter().map(|t| t.name.as_str()),
            )
            .map(|s| format!("; did you mean '{s}'?"))
            .unwrap_or_default();
            return Err((
                INVALID_PARAMS,
                format!("unknown tool: {}{hint}", crate::text::preview(name, 64)),
            ));
        };
        let result = match &tool.kind {
            Kind::Builtin(def) => crate::exec::worker::run(
                def,
                args.clone(),
                None,
                crate::exec::worker::Bounds::new(None),
            ),
            Kind::Intent(target) => {
                let target = target.as_ref().clone();
                self.call_intent(&target, args)
            }
        };
        Ok(call_result(&result))
    }

    fn call_intent(&mut self, target: &invoke::Target, args: &Map<String, Value>) -> ToolResult {
        let mut flags = Flags {
            interactive: false,
            ..Flags::default()
        };
        if target.intent.needs_consent() {
            if self.opts.allow_destructive {
                flags.yes = true;
            } else if self.elicitation {
                let command = match invoke::plan(target, args) {
                    Ok((argv, _)) => shell_words::join(&argv),
                    Err(e) => return ToolResult::err(e, None),
                };
                match self.ask_consent(&command, target.intent.destructive) {
                    Ok(true) => flags.yes = true,
                    Ok(false) => {
                        return ToolResult::err(
                            ToolError::new(ErrorCode::Unauthorized, "confirmation declined by the user; nothing was run")
                                .with_data(json!({ "confirmationRequired": true, "declined": true, "command": command })),
                            None,
                        );
                    }
                    Err(e) => eprintln!("cmpx mcp: asking for consent failed: {e}"),
                }
            }
        }
        invoke::invoke(target, args, &flags)
    }

    /// Asks the user through the client (`elicitation/create`); true only for an explicit yes.
    fn ask_consent(&mut self, command: &str, destructive: bool) -> std::io::Result<bool> {
        let id = format!("cmpx-consent-{}", self.next_request);
        self.next_request += 1;
        let warning = if destructive {
            " This cannot be undone."
        } else {
            ""
        };
        self.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "elicitation/create",
            "params": {
                "message": format!("cmpx will run: {command}.{warning} Proceed?"),
                "requestedSchema": {
                    "type": "object",
                    "properties": { "confirm": { "type": "boolean", "title": "Run it", "description": "Run this command" } },
                    "required": ["confirm"],
                },
            },
        }))?;
        let mut line = Vec::new();
        loop {
            line.clear();
            if self.input.read_until(b'\n', &mut line)? == 0 {
                return Ok(false);
            }
            let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                let accepted = msg.pointer("/result/action") == Some(&json!("accept"))
                    && msg.pointer("/result/content/confirm") == Some(&json!(true));
                return Ok(accepted);
            }
            self.queued.push_back(line.clone());
        }
    }
}

/// A CTP ToolResult as an MCP CallToolResult: the data as text and as structured content, or
/// the CTP error with `isError`.
pub fn call_result(result: &ToolResult) -> Value {
    if result.success {
        let data = result.data.clone().unwrap_or(json!({}));
        let text = serde_json::to_string(&data).unwrap_or_default();
        json!({ "content": [{ "type": "text", "text": text }], "structuredContent": data, "isError": false })
    } else {
        let text = serde_json::to_string(&result.to_value()).unwrap_or_default();
        json!({ "content": [{ "type": "text", "text": text }], "isError": true })
    }
}

impl McpTool {
    pub fn summary(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.definition.get("title"),
            "description": self.definition.get("description"),
            "annotations": self.definition.get("annotations"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(input: &[u8]) -> Vec<Value> {
        let opts = Options {
            progressive: false,
            allow_destructive: false,
            page_size: 10,
        };
        let mut out = Vec::new();
        let registry = Registry { tools: Vec::new() };
        let mut server = Server::new(input, &mut out, opts, registry);
        server.run().expect("in-memory session");
        String::from_utf8(out)
            .expect("responses are UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON value per line"))
            .collect()
    }

    /// Found by fuzzing (mcp_loop): a line that is not UTF-8 ended the whole server with an
    /// I/O error; it is a parse error for that line only.
    #[test]
    fn invalid_utf8_line_is_a_parse_error_and_the_server_goes_on() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initia\x89ize\"}\n\
                      \n\
                      {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        let replies = session(input);
        assert_eq!(replies.len(), 2, "{replies:?}");
        assert_eq!(replies[0]["error"]["code"], json!(PARSE_ERROR));
        assert_eq!(replies[0]["id"], Value::Null);
        assert_eq!(
            replies[1],
            json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
        );
    }
}
