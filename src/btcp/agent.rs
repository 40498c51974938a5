//! What a BTCP agent (a tool consumer that joined a session over `/btcp/a/KEY/…`) may say:
//! `session/join`, `tools/list`, `tools/call` (through the same policy as MCP calls; an agent
//! cannot be asked, so what needs the person's consent is refused with how to grant it) and
//! `ping`. It never registers tools. Whether it may reach the session is decided before.

use super::{Link, Standing, hub::Hub};
use crate::exec::authorize;
use serde_json::{Value, json};
use std::sync::Arc;

/// The answer to one agent message for `session` (the session it joined, or the one
/// `session/join` names); `None` for a notification. Blocks while a call runs in the browser.
pub(crate) fn answer(hub: &Arc<Hub>, session: &str, msg: &Value) -> Option<Value> {
    let id = msg.get("id")?.clone();
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let link = Link::local(hub.clone(), session);
    let result = match method {
        "session/join" | "tools/list" => match hub.tools(session) {
            Some(tools) if method == "tools/list" => Ok(json!({ "tools": tools })),
            Some(tools) => Ok(json!({ "sessionId": session, "tools": tools })),
            None => Err((-32602, "the BTCP session has ended".to_string())),
        },
        "tools/call" => Ok(call(&link, msg.get("params").unwrap_or(&Value::Null))),
        "tools/register" => Err((
            -32600,
            "agents cannot register tools: only the browser that owns the session does".into(),
        )),
        "ping" => Ok(json!({ "pong": true })),
        other => Err((
            -32601,
            format!("Method not found: {}", crate::text::preview(other, 60)),
        )),
    };
    Some(match result {
        Ok(r) => crate::jsonrpc::reply(id, r),
        Err((code, message)) => crate::jsonrpc::error(id, code, message),
    })
}

/// A `tools/call` from an agent: the policy decides, as for MCP; nobody can be asked here.
fn call(link: &Link, params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    if name == super::REQUEST_CAPABILITIES {
        let asked = Link::requested(&arguments);
        let standing: Standing = link.standing(&asked);
        let note = (!standing.pending.is_empty()).then(|| {
            super::pending_note(
                &standing.pending,
                "a BTCP agent cannot ask the person (an MCP client with form elicitation can)",
            )
        });
        return standing.result(note.as_deref());
    }
    let Some(tool) = link.tool(name) else {
        return failure(&format!(
            "no tool '{}' in this BTCP session; tools/list shows what it has",
            crate::text::preview(name, 64)
        ));
    };
    let permit = match authorize::authorize(&link.call_for(name, &tool), CANNOT_ASK) {
        Ok(permit) => permit,
        Err(e) => return failure(&e.message),
    };
    link.call(permit, name, &arguments, &|| false)
        .unwrap_or_else(|| failure("cancelled"))
}

/// A BTCP agent cannot be asked anything: what needs the person's consent is refused.
const CANNOT_ASK: authorize::Ask<'static> = authorize::Ask::Never {
    why: "a BTCP agent cannot ask the person",
    hint: "They can grant it with `cmpx policy grant <capability> --tool <tool>`, or accept it through an MCP client's __btcp_request_capabilities.",
};

fn failure(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}
