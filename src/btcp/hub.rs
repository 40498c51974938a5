//! BTCP sessions: one browser client (the owner) per session, the tools it registered, the
//! calls waiting for its answers, and the agents watching for tool changes. Session ids are
//! the client's own (the reference client picks one) or 128 random bits; a live session has
//! one owner; sessions end after [`TTL`], or [`IDLE`] after their owner left.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The longest a session lives, owner or not.
pub const TTL: Duration = Duration::from_secs(60 * 60);
/// How long a session without a connected owner is kept for it to reconnect.
pub const IDLE: Duration = Duration::from_secs(5 * 60);
/// Sessions kept at once.
pub const MAX_SESSIONS: usize = 64;
/// Tools one session may register.
pub const MAX_TOOLS: usize = 100;

/// What goes down an owner's event stream: the SSE event name and the JSON text.
pub type Frame = (&'static str, String);

struct Owner {
    connection: u64,
    events: tokio::sync::mpsc::UnboundedSender<Frame>,
}

struct Session {
    created: Instant,
    /// When the owner left (None while connected).
    left: Option<Instant>,
    owner: Option<Owner>,
    tools: Vec<Value>,
    /// Capabilities the person granted for this session only (through an agent's request).
    grants: Vec<String>,
    pending: HashMap<String, std::sync::mpsc::Sender<Value>>,
    changes: tokio::sync::broadcast::Sender<()>,
}

#[derive(Default)]
pub struct Hub {
    sessions: Mutex<HashMap<String, Session>>,
    next: AtomicU64,
}

/// Why an owner cannot open or take a session.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// Another owner holds this live session.
    Taken,
    /// The id is too short or has characters other than letters, digits, `-` and `_`.
    BadId,
    /// Too many sessions.
    Full,
}

/// A client-chosen id: 16 to 128 URL-safe characters.
pub fn acceptable_id(id: &str) -> bool {
    (16..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Hub {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        let mut map = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        map.retain(|_, s| {
            now.duration_since(s.created) < TTL
                && s.left.is_none_or(|left| now.duration_since(left) < IDLE)
        });
        map
    }

    /// An owner's event stream connects: to its own session id, or to a new random one.
    pub fn connect(
        &self,
        wanted: Option<&str>,
    ) -> Result<(String, u64, tokio::sync::mpsc::UnboundedReceiver<Frame>), Refusal> {
        let id = match wanted {
            Some(id) if acceptable_id(id) => id.to_string(),
            Some(_) => return Err(Refusal::BadId),
            None => crate::mcp::random_token(),
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let connection = self.next.fetch_add(1, Ordering::SeqCst);
        let mut map = self.lock();
        if !map.contains_key(&id) && map.len() >= MAX_SESSIONS {
            return Err(Refusal::Full);
        }
        let session = map.entry(id.clone()).or_insert_with(|| Session {
            created: Instant::now(),
            left: None,
            owner: None,
            tools: Vec::new(),
            grants: Vec::new(),
            pending: HashMap::new(),
            changes: tokio::sync::broadcast::channel(16).0,
        });
        if session
            .owner
            .as_ref()
            .is_some_and(|o| !o.events.is_closed())
        {
            return Err(Refusal::Taken);
        }
        session.owner = Some(Owner {
            connection,
            events: tx,
        });
        session.left = None;
        Ok((id, connection, rx))
    }

    /// The owner's stream ended: its tools go (agents are told), calls waiting on it fail, the
    /// session waits [`IDLE`] for it to come back.
    pub fn disconnect(&self, id: &str, connection: u64) {
        let mut map = self.lock();
        let Some(s) = map.get_mut(id) else { return };
        if s.owner.as_ref().is_none_or(|o| o.connection != connection) {
            return;
        }
        s.owner = None;
        s.left = Some(Instant::now());
        s.pending.clear();
        if !s.tools.is_empty() {
            s.tools.clear();
            let _ = s.changes.send(());
        }
    }

    pub fn exists(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    /// A message the owner POSTed; the answer to send back in the POST's body, if any.
    pub fn message(&self, id: &str, msg: &Value) -> Option<Value> {
        let rid = msg.get("id").cloned().unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str);
        let mut map = self.lock();
        let Some(s) = map.get_mut(id) else {
            return Some(error(
                rid,
                -32600,
                "Session not found: open the event stream first",
            ));
        };
        let Some(method) = method else {
            // A response to a call we forwarded.
            if let Some(key) = msg.get("id").map(Value::to_string)
                && let Some(waiter) = s.pending.remove(&key)
            {
                let _ = waiter.send(msg.clone());
            }
            return None;
        };
        let answer = match method {
            "tools/register" => match checked_tools(msg.get("params").and_then(|p| p.get("tools")))
            {
                Ok(tools) => {
                    let n = tools.len();
                    s.tools = tools;
                    let _ = s.changes.send(());
                    Ok(json!({ "registered": n }))
                }
                Err(why) => Err((-32602, why)),
            },
            "tools/list" => Ok(json!({ "tools": s.tools })),
            "ping" => Ok(json!({ "pong": true })),
            other => Err((
                -32601,
                format!("Method not found: {}", crate::text::preview(other, 60)),
            )),
        };
        msg.get("id")?;
        Some(match answer {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": rid, "result": result }),
            Err((code, message)) => error(rid, code, &message),
        })
    }

    /// The session's registered tools (BTCP definitions), or `None` when it does not exist.
    pub fn tools(&self, id: &str) -> Option<Vec<Value>> {
        self.lock().get(id).map(|s| s.tools.clone())
    }

    /// Told whenever the session's tools change.
    pub fn subscribe(&self, id: &str) -> Option<tokio::sync::broadcast::Receiver<()>> {
        self.lock().get(id).map(|s| s.changes.subscribe())
    }

    pub fn grants(&self, id: &str) -> Vec<String> {
        self.lock()
            .get(id)
            .map(|s| s.grants.clone())
            .unwrap_or_default()
    }

    pub fn grant(&self, id: &str, capability: &str) {
        if let Some(s) = self.lock().get_mut(id)
            && !s.grants.iter().any(|g| g == capability)
        {
            s.grants.push(capability.to_string());
        }
    }

    /// Forwards a call to the session's browser and waits for its answer (the JSON-RPC
    /// response), polling `cancelled`; an error message when it cannot be had.
    pub fn call(
        &self,
        id: &str,
        name: &str,
        arguments: &Value,
        limit: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Value, String> {
        let (tx, rx) = std::sync::mpsc::channel();
        let request_id = format!("cmpx-{}", crate::mcp::random_token());
        {
            let mut map = self.lock();
            let s = map.get_mut(id).ok_or("the BTCP session has ended")?;
            let owner = s
                .owner
                .as_ref()
                .ok_or("the browser of this BTCP session is not connected")?;
            let request = json!({
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": { "name": name, "arguments": arguments },
            });
            owner
                .events
                .send(("request", request.to_string()))
                .map_err(|_| "the browser of this BTCP session went away")?;
            s.pending
                .insert(Value::String(request_id.clone()).to_string(), tx);
        }
        let started = Instant::now();
        let outcome = loop {
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(answer) => break Ok(answer),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    break Err("the browser went away before answering".to_string());
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if cancelled() {
                        break Err("cancelled".to_string());
                    }
                    if started.elapsed() >= limit {
                        break Err(format!(
                            "the browser did not answer within {} s",
                            limit.as_secs()
                        ));
                    }
                }
            }
        };
        if outcome.is_err()
            && let Some(s) = self.lock().get_mut(id)
        {
            s.pending.remove(&Value::String(request_id).to_string());
        }
        outcome
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// The tools of a `tools/register`, checked: BTCP names (`^[a-zA-Z][a-zA-Z0-9_]*$`, at most
/// 64), unique, an object input schema, capability names of BTCP's shape.
fn checked_tools(tools: Option<&Value>) -> Result<Vec<Value>, String> {
    let tools = tools
        .and_then(Value::as_array)
        .ok_or("tools/register needs params.tools, an array of tool definitions")?;
    if tools.len() > MAX_TOOLS {
        return Err(format!("at most {MAX_TOOLS} tools per session"));
    }
    let mut names: Vec<&str> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let name = t.get("name").and_then(Value::as_str).unwrap_or("");
        let good = name.len() <= 64
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !good {
            return Err(format!(
                "tools[{i}].name '{}' is not a BTCP tool name (a letter, then letters, digits or _; at most 64)",
                crate::text::preview(name, 70)
            ));
        }
        if names.contains(&name) {
            return Err(format!("tools[{i}].name '{name}' is registered twice"));
        }
        names.push(name);
        if !t.get("inputSchema").is_some_and(Value::is_object) {
            return Err(format!("tools[{i}] ({name}) needs an inputSchema object"));
        }
        for c in capabilities(t) {
            if !crate::policy::capability::well_formed(&c) {
                return Err(format!(
                    "tools[{i}] ({name}) declares '{}', which is not a capability name (category:action)",
                    crate::text::preview(&c, 60)
                ));
            }
        }
    }
    Ok(tools.clone())
}

/// A BTCP tool definition's declared capabilities.
pub fn capabilities(tool: &Value) -> Vec<String> {
    tool.get("capabilities")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_live_session_has_one_owner_and_ids_are_checked() {
        let hub = Hub::default();
        let (id, conn, _rx) = hub.connect(Some("session-0123456789")).unwrap();
        assert_eq!(id, "session-0123456789");
        assert_eq!(
            hub.connect(Some("session-0123456789")).err(),
            Some(Refusal::Taken)
        );
        assert_eq!(hub.connect(Some("short")).err(), Some(Refusal::BadId));
        hub.disconnect(&id, conn);
        assert!(hub.connect(Some("session-0123456789")).is_ok());
        let (random, _, _rx2) = hub.connect(None).unwrap();
        assert_eq!(random.len(), 32);
    }

    #[test]
    fn registration_is_checked_and_announced() {
        let hub = Hub::default();
        let (id, conn, _rx) = hub.connect(Some("session-0123456789")).unwrap();
        let mut changes = hub.subscribe(&id).unwrap();
        let bad = hub.message(&id, &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/register", "params": {"tools": [{"name": "bad-name", "inputSchema": {}}]}}));
        assert_eq!(bad.unwrap()["error"]["code"], -32602);
        let ok = hub.message(&id, &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/register", "params": {"tools": [{"name": "greet", "description": "Greets someone", "inputSchema": {"type": "object"}, "capabilities": ["dom:read"]}]}}));
        assert_eq!(ok.unwrap()["result"]["registered"], 1);
        assert!(changes.try_recv().is_ok());
        assert_eq!(hub.tools(&id).unwrap().len(), 1);
        hub.disconnect(&id, conn);
        assert!(changes.try_recv().is_ok());
        assert_eq!(hub.tools(&id).unwrap().len(), 0);
    }

    #[test]
    fn calls_reach_the_owner_and_come_back() {
        let hub = Arc::new(Hub::default());
        let (id, _conn, mut rx) = hub.connect(Some("session-0123456789")).unwrap();
        let h = hub.clone();
        let sid = id.clone();
        let browser = std::thread::spawn(move || {
            let (event, text) = rx.blocking_recv().unwrap();
            assert_eq!(event, "request");
            let req: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(req["params"]["name"], "greet");
            h.message(&sid, &json!({"jsonrpc": "2.0", "id": req["id"], "result": {"content": [{"type": "text", "text": "Hello"}]}}));
        });
        let answer = hub
            .call(&id, "greet", &json!({}), Duration::from_secs(10), &|| false)
            .unwrap();
        browser.join().unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "Hello");
        assert_eq!(
            hub.call(
                "nope-0123456789abc",
                "greet",
                &json!({}),
                Duration::from_secs(1),
                &|| false
            ),
            Err("the BTCP session has ended".to_string())
        );
    }
}
