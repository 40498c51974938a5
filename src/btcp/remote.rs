//! The stdio side of `cmpx mcp --btcp-server URL --btcp-session ID`: the browser tools of one
//! BTCP session held by a `cmpx serve` elsewhere, reached through that server's `/mcp` with
//! the `BTCP-Session` header (2026-07-28 stateless requests for lists and calls, a 2025-era
//! session only for its stream of `notifications/tools/list_changed`). The server applies the
//! capability policy; a consent question it asks comes back here to be put to the person.

use serde_json::{Value, json};
use std::io::BufRead;
use std::sync::Mutex;
use std::time::Duration;

const MODERN: &str = "2026-07-28";
/// A browser call may take 45 s on the server, plus the consent round trip.
const CALL_LIMIT: Duration = Duration::from_secs(60);
/// The largest answer read from the server.
const ANSWER_MAX: u64 = 64 << 20;

pub struct Remote {
    /// The server's base URL, without a trailing slash.
    base: String,
    pub session: String,
    token: Option<String>,
    agent: ureq::Agent,
    /// The last browser tool definitions the server listed (MCP form).
    listed: Mutex<Vec<Value>>,
}

/// What the server made of a call.
pub enum Outcome {
    /// The MCP CallToolResult.
    Done(Value),
    /// The policy needs the person's consent: the question's text and the state to send back.
    Ask { question: String, state: String },
}

impl Remote {
    pub fn new(base: &str, session: &str, token: Option<String>) -> Result<Remote, String> {
        let base = base.trim_end_matches('/').to_string();
        let url = url::Url::parse(&base)
            .map_err(|e| format!("--btcp-server '{base}' is not a URL ({e}); give the address cmpx serve printed, e.g. http://127.0.0.1:7878"))?;
        if url.scheme() != "http" {
            return Err(format!(
                "--btcp-server '{base}': only http:// is supported (put TLS in front of both ends, or use the server's loopback address)"
            ));
        }
        if !super::hub::acceptable_id(session) {
            return Err(
                "--btcp-session must be the session id the browser's client uses (16 to 128 letters, digits, - or _)"
                    .into(),
            );
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(CALL_LIMIT))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Remote {
            base,
            session: session.to_string(),
            token,
            agent,
            listed: Mutex::new(Vec::new()),
        })
    }

    /// One 2026-07-28 request to the server's `/mcp`; its JSON-RPC result or why not.
    fn request(&self, method: &str, params: Value, name: Option<&str>) -> Result<Value, String> {
        self.send(method, params, name, true)
    }

    /// `elicit`: whether the server may answer with a consent question.
    fn send(
        &self,
        method: &str,
        mut params: Value,
        name: Option<&str>,
        elicit: bool,
    ) -> Result<Value, String> {
        let capabilities = if elicit {
            json!({ "elicitation": { "form": {} } })
        } else {
            json!({})
        };
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let body = crate::jsonrpc::request(json!(1), method, params);
        let mut req = self
            .agent
            .post(format!("{}/mcp", self.base))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", method)
            .header("BTCP-Session", &self.session);
        if let Some(n) = name {
            req = req.header("Mcp-Name", n);
        }
        if let Some(t) = &self.token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        let mut response = req
            .send(body.to_string())
            .map_err(|e| format!("cannot reach the BTCP server {}: {e}", self.base))?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(ANSWER_MAX)
            .read_to_string()
            .map_err(|e| format!("the BTCP server's answer could not be read: {e}"))?;
        let answer: Value = serde_json::from_str(&text).map_err(|_| {
            format!(
                "the BTCP server answered {status} with something other than JSON-RPC: {}",
                crate::text::preview(&text, 120)
            )
        })?;
        if let Some(e) = answer.get("error") {
            return Err(format!(
                "the BTCP server refused ({status}): {}",
                e.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message")
            ));
        }
        answer
            .get("result")
            .cloned()
            .ok_or_else(|| format!("the BTCP server answered {status} without a result"))
    }

    /// The session's browser tools (and the capability request), fetched now; none while the
    /// browser is not connected.
    pub fn definitions(&self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = match self.request("tools/list", params, None) {
                Ok(p) => p,
                Err(why) => {
                    eprintln!("cmpx mcp: the BTCP session's tools: {why}");
                    break;
                }
            };
            for t in page
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let browser = t.pointer("/_meta/cmpx~1btcp") == Some(&json!(true))
                    || t.get("name").and_then(Value::as_str) == Some(super::REQUEST_CAPABILITIES);
                if browser {
                    out.push(t.clone());
                }
            }
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
        *self.listed.lock().unwrap_or_else(|p| p.into_inner()) = out.clone();
        out
    }

    /// Names of the tools last listed (fetched once if nothing was listed yet).
    pub fn names(&self) -> Vec<String> {
        let listed = self
            .listed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let listed = if listed.is_empty() {
            self.definitions()
        } else {
            listed
        };
        listed
            .iter()
            .filter_map(|d| d.get("name").and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    /// The capabilities the server listed for a browser tool.
    pub fn capabilities(&self, name: &str) -> Vec<String> {
        self.listed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|d| d.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|d| d.pointer("/_meta/cmpx~1capabilities"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Calls a browser tool through the server; `consent` is the state of a question the
    /// person accepted.
    pub fn call(&self, name: &str, arguments: &Value, consent: Option<&str>) -> Outcome {
        let mut params = json!({ "name": name, "arguments": arguments });
        if let Some(state) = consent {
            params["requestState"] = json!(state);
            params["inputResponses"] = json!({
                "cmpx_consent": { "action": "accept", "content": { "confirm": true } },
            });
        }
        match self.request("tools/call", params, Some(name)) {
            Ok(r) if r.get("resultType").and_then(Value::as_str) == Some("input_required") => {
                let state = r
                    .get("requestState")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let question = r
                    .pointer("/inputRequests/cmpx_consent/params/message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                Outcome::Ask { question, state }
            }
            Ok(mut r) => {
                if let Some(o) = r.as_object_mut() {
                    o.remove("resultType");
                    o.remove("_meta");
                }
                Outcome::Done(r)
            }
            Err(why) => Outcome::Done(
                json!({ "content": [{ "type": "text", "text": why }], "isError": true }),
            ),
        }
    }

    /// The server's answer to `__btcp_request_capabilities` without a question (a client
    /// that cannot ask), its note saying `why` the pending ones stayed pending.
    pub fn standing(&self, arguments: &Value, why: &str) -> Value {
        match self.quiet(arguments) {
            Ok(mut r) => {
                let pending = pending_of(&r);
                let mut body = r.get("structuredContent").cloned().unwrap_or(json!({}));
                if !pending.is_empty() {
                    body["message"] = json!(super::pending_note(&pending, why));
                }
                r["structuredContent"] = body.clone();
                r["content"] = json!([{ "type": "text", "text": body.to_string() }]);
                if let Some(o) = r.as_object_mut() {
                    o.remove("resultType");
                    o.remove("_meta");
                }
                r
            }
            Err(why) => json!({ "content": [{ "type": "text", "text": why }], "isError": true }),
        }
    }

    /// The capabilities of a `__btcp_request_capabilities` call that the server leaves to
    /// the person: what the question here is about.
    pub fn pending(&self, arguments: &Value) -> Vec<String> {
        self.quiet(arguments)
            .map(|r| pending_of(&r))
            .unwrap_or_default()
    }

    /// `__btcp_request_capabilities` as a client that cannot ask: the server's standing.
    fn quiet(&self, arguments: &Value) -> Result<Value, String> {
        let params = json!({ "name": super::REQUEST_CAPABILITIES, "arguments": arguments });
        self.send(
            "tools/call",
            params,
            Some(super::REQUEST_CAPABILITIES),
            false,
        )
    }

    /// Follows the server's list changes for the rest of the process, calling `changed` for
    /// each; reconnects every few seconds while the server or the session is away.
    pub fn watch(self: std::sync::Arc<Self>, changed: impl Fn() + Send + 'static) {
        std::thread::spawn(move || {
            let stream_agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into();
            let mut again = false;
            loop {
                if let Err(why) = self.follow(&stream_agent, &changed, &mut again) {
                    eprintln!("cmpx mcp: BTCP changes: {why}; trying again in 3 s");
                }
                std::thread::sleep(Duration::from_secs(3));
            }
        });
    }

    fn follow(
        &self,
        agent: &ureq::Agent,
        changed: &impl Fn(),
        again: &mut bool,
    ) -> Result<(), String> {
        let init = crate::jsonrpc::request(
            json!(0),
            "initialize",
            json!({
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "cmpx-mcp-btcp-bridge", "version": env!("CARGO_PKG_VERSION") },
            }),
        );
        let with_auth = |r: ureq::RequestBuilder<ureq::typestate::WithBody>| match &self.token {
            Some(t) => r.header("Authorization", format!("Bearer {t}")),
            None => r,
        };
        let response = with_auth(
            self.agent
                .post(format!("{}/mcp", self.base))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("BTCP-Session", &self.session),
        )
        .send(init.to_string())
        .map_err(|e| format!("cannot reach {}: {e}", self.base))?;
        if response.status() != 200 {
            return Err(format!(
                "the server answered {} (is the browser connected to session {}?)",
                response.status(),
                self.session
            ));
        }
        let mcp_session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .ok_or("the server opened no MCP session")?
            .to_string();
        let mut get = agent
            .get(format!("{}/mcp", self.base))
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", &mcp_session);
        if let Some(t) = &self.token {
            get = get.header("Authorization", format!("Bearer {t}"));
        }
        let response = get
            .call()
            .map_err(|e| format!("cannot follow {}: {e}", self.base))?;
        if response.status() != 200 {
            return Err(format!("the change stream answered {}", response.status()));
        }
        // Whatever changed while we were away is news too.
        if *again {
            changed();
        }
        *again = true;
        let reader = std::io::BufReader::new(response.into_body().into_reader());
        for line in reader.lines() {
            let line = line.map_err(|e| format!("the change stream broke: {e}"))?;
            if line.starts_with("data:") && line.contains("notifications/tools/list_changed") {
                changed();
            }
        }
        Err("the change stream ended (the browser left or the server stopped)".into())
    }
}

/// The `pending` list of a `__btcp_request_capabilities` result.
fn pending_of(result: &Value) -> Vec<String> {
    result
        .pointer("/structuredContent/pending")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}
