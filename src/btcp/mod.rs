//! cmpx as a BTCP server: browser clients open sessions and register tools ([`hub`]); an MCP
//! engine linked to one session ([`Link`]) lists those tools beside the catalogue and calls
//! them through the browser, after the capability policy and consent rules; BTCP agents
//! that joined a session with its owner key list and call them the same way ([`agent`]).

pub(crate) mod agent;
pub(crate) mod hub;
pub(crate) mod remote;

use crate::exec::authorize::{Call, Decision, Permit};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

pub(crate) use hub::Hub;

/// The MCP meta-tool through which an agent asks for capabilities (BTCP's MCP bridge).
pub(crate) const REQUEST_CAPABILITIES: &str = "__btcp_request_capabilities";

/// One MCP engine's view of one BTCP session: held by this process's hub (`cmpx serve`), or
/// by a `cmpx serve` elsewhere (`remote`, for `cmpx mcp --btcp-server`; the hub is then empty).
#[derive(Clone)]
pub struct Link {
    pub hub: Arc<Hub>,
    pub session: String,
    pub remote: Option<Arc<remote::Remote>>,
}

impl Link {
    pub fn local(hub: Arc<Hub>, session: &str) -> Link {
        Link {
            hub,
            session: session.to_string(),
            remote: None,
        }
    }

    pub fn remote(remote: remote::Remote) -> Link {
        Link {
            hub: Arc::new(Hub::default()),
            session: remote.session.clone(),
            remote: Some(Arc::new(remote)),
        }
    }

    /// The session's tools as MCP tool definitions, then the capability-request meta-tool.
    pub fn definitions(&self) -> Vec<Value> {
        if let Some(r) = &self.remote {
            return r.definitions();
        }
        let mut out: Vec<Value> = self
            .hub
            .tools(&self.session)
            .unwrap_or_default()
            .iter()
            .map(mcp_tool)
            .collect();
        out.push(json!({
            "name": REQUEST_CAPABILITIES,
            "title": "Request BTCP capabilities",
            "description": "Ask the person for capabilities the browser tools of this BTCP session need (e.g. dom:write); accepted, they are granted to this session until it ends. Answers which are granted, denied (by the person's policy; never asked), or still pending.",
            "inputSchema": {
                "type": "object",
                "properties": { "capabilities": { "type": "array", "items": { "type": "string" } } },
                "required": ["capabilities"],
                "additionalProperties": false,
            },
            "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false },
        }));
        out
    }

    /// The session's tool definition named `name`.
    pub fn tool(&self, name: &str) -> Option<Value> {
        self.hub
            .tools(&self.session)?
            .into_iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }

    pub fn names(&self) -> Vec<String> {
        if let Some(r) = &self.remote {
            return r.names();
        }
        self.definitions()
            .iter()
            .filter_map(|d| d.get("name").and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    /// A call of browser tool `name` (described by `tool`, as registered) for the one
    /// authorization point: grants made in this session count too.
    pub fn call_for<'a>(&self, name: &'a str, tool: &Value) -> Call<'a> {
        Call::Browser {
            name,
            capabilities: hub::capabilities(tool),
            session_grants: self.hub.grants(&self.session),
        }
    }

    /// Calls the browser tool and turns its answer into an MCP CallToolResult.
    pub fn call(
        &self,
        permit: Permit,
        name: &str,
        arguments: &Value,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<Value> {
        debug_assert_eq!(
            permit.tool(),
            name,
            "a permit runs the tool it was given for"
        );
        match self.hub.call(
            &self.session,
            name,
            arguments,
            Duration::from_secs(45),
            cancelled,
        ) {
            Ok(answer) => Some(match (answer.get("result"), answer.get("error")) {
                (Some(r), None) if r.get("content").is_some_and(Value::is_array) => {
                    json!({ "content": r["content"], "isError": r.get("isError").and_then(Value::as_bool).unwrap_or(false) })
                }
                (_, Some(e)) => text_result(
                    &format!(
                        "the browser tool failed: {}",
                        e.get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no message")
                    ),
                    true,
                ),
                (Some(r), None) => text_result(&r.to_string(), false),
                (None, None) => text_result("the browser answered nothing", true),
            }),
            Err(why) if why == "cancelled" => None,
            Err(why) => Some(text_result(&why, true)),
        }
    }

    /// The capabilities a `__btcp_request_capabilities` call names.
    pub fn requested(arguments: &Value) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in arguments
            .get("capabilities")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !out.iter().any(|o| o == c) {
                out.push(c.to_string());
            }
        }
        out
    }

    /// Each capability's standing for this session: granted, denied, pending the person.
    pub fn standing(&self, asked: &[String]) -> Standing {
        let mut s = Standing::default();
        for c in asked {
            let tool = json!({ "capabilities": [c] });
            match crate::exec::authorize::decide(&self.call_for("*", &tool)) {
                Decision::Run(_) => s.granted.push(c.clone()),
                Decision::Refuse(_) => s.denied.push(c.clone()),
                Decision::Ask(_) => s.pending.push(c.clone()),
            }
        }
        s
    }

    /// Grants `capabilities` to this session alone, until it ends (the person accepted).
    pub fn grant(&self, capabilities: &[String]) {
        for c in capabilities {
            self.hub.grant(&self.session, c);
        }
    }
}

/// The answer of `__btcp_request_capabilities`.
#[derive(Default)]
pub struct Standing {
    pub granted: Vec<String>,
    pub denied: Vec<String>,
    pub pending: Vec<String>,
}

impl Standing {
    /// As an MCP CallToolResult; `note` says why something stayed pending and how to grant it.
    pub fn result(&self, note: Option<&str>) -> Value {
        let mut body =
            json!({ "granted": self.granted, "denied": self.denied, "pending": self.pending });
        if let Some(n) = note {
            body["message"] = json!(n);
        }
        json!({ "content": [{ "type": "text", "text": body.to_string() }], "structuredContent": body, "isError": false })
    }
}

/// Why capabilities stayed pending, and what the person can do about it.
pub(crate) fn pending_note(pending: &[String], why: &str) -> String {
    let first = pending.first().map_or("CAPABILITY", String::as_str);
    format!(
        "{} not granted: {why}. The person can grant it for good with `cmpx policy grant {first} --tool <browser tool>` (or without --tool for every tool), or accept when a call asks.",
        pending.join(", ")
    )
}

fn text_result(text: &str, error: bool) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": error })
}

/// A BTCP tool definition as an MCP one: its capabilities in `_meta` and the hints they imply.
fn mcp_tool(tool: &Value) -> Value {
    let caps = hub::capabilities(tool);
    let reads_only = caps
        .iter()
        .all(|c| c.ends_with(":read") || c.ends_with(":observe"));
    json!({
        "name": tool.get("name"),
        "description": tool.get("description").and_then(Value::as_str).unwrap_or("A browser tool"),
        "inputSchema": tool.get("inputSchema"),
        "annotations": {
            "readOnlyHint": reads_only,
            "destructiveHint": !reads_only,
            "idempotentHint": reads_only,
            "openWorldHint": true,
        },
        "_meta": { "cmpx/capabilities": caps, "cmpx/btcp": true },
    })
}
