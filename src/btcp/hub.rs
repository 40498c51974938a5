//! BTCP sessions: one browser client (the owner) per session, the tools it registered, the
//! calls waiting for its answers, and the agents watching for tool changes. Session ids are
//! the client's own (the reference client picks one) or 128 random bits; a live session has
//! one owner, and only its connection (WebSocket) or requests proving they come from it
//! (HTTP streaming: the owner key of its URL, else its address and Origin) speak for it; a
//! session opened under an owner key takes owners only with that key, for its whole life.
//! Sessions end after [`TTL`], or [`IDLE`] after their owner left. What one client holds and
//! what one registration stores are bounded, and so is the work done under the hub's lock.

use crate::jsonrpc;
use crate::secret::same_secret;
use indexmap::IndexSet;
use registration::{checked_tools, widen};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod registration;

pub(crate) use registration::capabilities;

/// The longest a session lives, owner or not.
pub(crate) const TTL: Duration = Duration::from_secs(60 * 60);
/// How long a session without a connected owner is kept for it to reconnect.
pub(crate) const IDLE: Duration = Duration::from_secs(5 * 60);
/// Sessions kept at once.
pub(crate) const MAX_SESSIONS: usize = 64;
/// Sessions one client (address and page origin) holds at once, so one page or program
/// cannot take all [`MAX_SESSIONS`].
pub(crate) const PER_CLIENT: usize = 16;

/// What goes down an owner's event stream: the SSE event name and the JSON text.
pub(crate) type Frame = (&'static str, String);

struct Owner {
    connection: u64,
    events: tokio::sync::mpsc::UnboundedSender<Frame>,
    /// Where the owner connected from: what its POSTs must match.
    origin: Binding,
    /// A WebSocket owner sends everything over its socket; POSTs never speak for it.
    socket: bool,
}

/// What ties an HTTP request to a session's owner: the owner key in the transport's URL
/// (`/btcp/k/KEY/…`), which only the browser knows, else the address and Origin it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub key: Option<String>,
    pub ip: std::net::IpAddr,
    pub origin: Option<String>,
}

/// Who sent a message: the owner's own connection, or an HTTP request to check.
pub enum From<'a> {
    Connection(u64),
    Post(&'a Binding),
}

impl Owner {
    fn sent(&self, from: &From) -> bool {
        match from {
            From::Connection(c) => *c == self.connection,
            From::Post(_) if self.socket => false,
            From::Post(b) => match (&self.origin.key, &b.key) {
                (Some(k), Some(given)) => same_secret(given.as_bytes(), k.as_bytes()),
                (Some(_), None) | (None, Some(_)) => false,
                (None, None) => self.origin.ip == b.ip && self.origin.origin == b.origin,
            },
        }
    }
}

struct Session {
    created: Instant,
    /// The owner key the session was opened with: every later owner must bring the same one
    /// (none: none may), so a session cannot be taken over while its page reloads.
    key: Option<String>,
    /// Who opened it (address and page origin): what [`PER_CLIENT`] counts.
    client: (std::net::IpAddr, Option<String>),
    /// When the owner left (None while connected).
    left: Option<Instant>,
    owner: Option<Owner>,
    tools: Vec<Value>,
    /// Every capability each tool name was ever registered with in this session: a name's
    /// capabilities never shrink, so re-registering cannot slip a tool past the policy.
    declared: HashMap<String, IndexSet<String>>,
    /// Capabilities the person granted for this session only (through an agent's request).
    grants: Vec<String>,
    /// Where the last owner connected from: grants hold for a browser that comes back from
    /// there, and are dropped when anyone else takes the session over.
    last: Option<Binding>,
    pending: HashMap<String, std::sync::mpsc::Sender<Value>>,
    changes: tokio::sync::broadcast::Sender<()>,
}

#[derive(Default)]
pub struct Hub {
    sessions: Mutex<HashMap<String, Session>>,
    /// Agents' event streams waiting for their `session/join`: by the name the agent gave its
    /// stream, the key it connected under and where its frames go.
    waiting: Mutex<HashMap<String, (String, tokio::sync::mpsc::UnboundedSender<Frame>)>>,
    next: AtomicU64,
    /// Set at shutdown: owners are let go and no new one connects.
    closed: std::sync::atomic::AtomicBool,
}

/// Why an owner cannot open or take a session.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// Another owner holds this live session.
    Taken,
    /// The session was opened under another owner key (or without one, or with one while this
    /// request has none).
    WrongKey,
    /// The id is too short or has characters other than letters, digits, `-` and `_`.
    BadId,
    /// This client already holds [`PER_CLIENT`] sessions with a browser connected.
    Quota,
    /// Too many sessions, or the server is shutting down.
    Full,
}

/// Why a message was not taken.
#[derive(Debug, PartialEq)]
pub enum Rejection {
    /// No such session.
    Unknown,
    /// The session's owner is not connected, or the request does not come from it.
    NotOwner,
}

/// A client-chosen id: 16 to 128 URL-safe characters.
pub(crate) fn acceptable_id(id: &str) -> bool {
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
        origin: Binding,
        socket: bool,
    ) -> Result<(String, u64, tokio::sync::mpsc::UnboundedReceiver<Frame>), Refusal> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Refusal::Full);
        }
        let id = match wanted {
            Some(id) if acceptable_id(id) => id.to_string(),
            Some(_) => return Err(Refusal::BadId),
            None => crate::secret::random_token(),
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let connection = self.next.fetch_add(1, Ordering::SeqCst);
        let mut map = self.lock();
        let client = (origin.ip, origin.origin.clone());
        match map.get(&id) {
            Some(s) => {
                let same = match (&s.key, &origin.key) {
                    (Some(k), Some(given)) => same_secret(given.as_bytes(), k.as_bytes()),
                    (None, None) => true,
                    _ => false,
                };
                if !same {
                    return Err(Refusal::WrongKey);
                }
            }
            None => make_room(&mut map, &client)?,
        }
        let session = map.entry(id.clone()).or_insert_with(|| Session {
            created: Instant::now(),
            key: origin.key.clone(),
            client,
            left: None,
            owner: None,
            tools: Vec::new(),
            declared: HashMap::new(),
            grants: Vec::new(),
            last: None,
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
        if session.last.as_ref() != Some(&origin) {
            session.grants.clear();
        }
        session.last = Some(origin.clone());
        session.owner = Some(Owner {
            connection,
            events: tx,
            origin,
            socket,
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

    /// Whether `key` is the owner key of session `id` (the key its browser opened it under,
    /// also while that browser is briefly away): what an agent presents to join it.
    pub fn admits(&self, id: &str, key: &str) -> bool {
        self.lock()
            .get(id)
            .and_then(|s| s.key.as_deref())
            .is_some_and(|k| same_secret(key.as_bytes(), k.as_bytes()))
    }

    /// An agent's event stream named `name` waits for its join; false when a live one has
    /// that name.
    pub fn wait(
        &self,
        name: &str,
        key: &str,
        events: tokio::sync::mpsc::UnboundedSender<Frame>,
    ) -> bool {
        let mut map = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|_, (_, tx)| !tx.is_closed());
        if map.contains_key(name) {
            return false;
        }
        map.insert(name.to_string(), (key.to_string(), events));
        true
    }

    /// The waiting stream `name` opened under `key`, taken for its join.
    pub fn joining(
        &self,
        name: &str,
        key: &str,
    ) -> Option<tokio::sync::mpsc::UnboundedSender<Frame>> {
        let mut map = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        match map.get(name) {
            Some((k, _)) if same_secret(key.as_bytes(), k.as_bytes()) => {
                map.remove(name).map(|(_, tx)| tx)
            }
            _ => None,
        }
    }

    pub fn exists(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    /// Shutdown: every owner's stream ends (a WebSocket is closed) and none connects again.
    pub fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for s in self.lock().values_mut() {
            s.owner = None;
            s.pending.clear();
        }
    }

    /// A message from the owner; the answer to send back, if any.
    pub fn message(&self, id: &str, msg: &Value, from: From) -> Result<Option<Value>, Rejection> {
        let rid = msg.get("id").cloned().unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str);
        // Checked before the lock is taken: the work is bounded, but the lock is everyone's.
        let registered = (method == Some("tools/register"))
            .then(|| checked_tools(msg.get("params").and_then(|p| p.get("tools"))));
        let mut map = self.lock();
        let s = map.get_mut(id).ok_or(Rejection::Unknown)?;
        if !s.owner.as_ref().is_some_and(|o| o.sent(&from)) {
            return Err(Rejection::NotOwner);
        }
        let Some(method) = method else {
            // A response to a call we forwarded.
            if let Some(key) = msg.get("id").map(Value::to_string)
                && let Some(waiter) = s.pending.remove(&key)
            {
                let _ = waiter.send(msg.clone());
            }
            return Ok(None);
        };
        let answer = match method {
            "tools/register" => match registered
                .unwrap_or_else(|| Err("tools/register needs params.tools".into()))
                .and_then(|tools| widen(tools, &mut s.declared))
            {
                Ok(tools) => {
                    let n = tools.len();
                    s.tools = tools;
                    let _ = s.changes.send(());
                    Ok(json!({ "registered": n }))
                }
                Err(why) => Err((jsonrpc::INVALID_PARAMS, why)),
            },
            "tools/list" => Ok(json!({ "tools": s.tools })),
            "ping" => Ok(json!({ "pong": true })),
            other => Err((
                jsonrpc::METHOD_NOT_FOUND,
                format!("Method not found: {}", crate::text::preview(other, 60)),
            )),
        };
        if msg.get("id").is_none() {
            return Ok(None);
        }
        Ok(Some(match answer {
            Ok(result) => jsonrpc::reply(rid, result),
            Err((code, message)) => jsonrpc::error(rid, code, message),
        }))
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
        let request_id = format!("cmpx-{}", crate::secret::random_token());
        {
            let mut map = self.lock();
            let s = map.get_mut(id).ok_or("the BTCP session has ended")?;
            let owner = s
                .owner
                .as_ref()
                .ok_or("the browser of this BTCP session is not connected")?;
            let request = jsonrpc::request(
                Value::String(request_id.clone()),
                "tools/call",
                json!({ "name": name, "arguments": arguments }),
            );
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

/// Makes room for a new session of `client`: past [`PER_CLIENT`] of its own, or when the hub
/// is full, its own longest-ownerless session goes (a page that reloads under new ids never
/// locks itself out); another client's session never does.
fn make_room(
    map: &mut HashMap<String, Session>,
    client: &(std::net::IpAddr, Option<String>),
) -> Result<(), Refusal> {
    let mine = map.values().filter(|s| &s.client == client).count();
    if mine < PER_CLIENT && map.len() < MAX_SESSIONS {
        return Ok(());
    }
    let idle = map
        .iter()
        .filter(|(_, s)| &s.client == client && s.owner.is_none())
        .filter_map(|(id, s)| s.left.map(|left| (left, id.clone())))
        .min();
    match idle {
        Some((_, id)) => {
            map.remove(&id);
            Ok(())
        }
        None if mine >= PER_CLIENT => Err(Refusal::Quota),
        None => Err(Refusal::Full),
    }
}

#[cfg(test)]
mod tests {
    use super::registration::{
        MAX_CAPABILITY_NAME, MAX_DEFINITION, MAX_DESCRIPTION, MAX_NAMES, MAX_TOOLS,
    };
    use super::*;
    use std::sync::Arc;

    fn at(ip: &str, origin: Option<&str>, key: Option<&str>) -> Binding {
        Binding {
            key: key.map(str::to_string),
            ip: ip.parse().unwrap(),
            origin: origin.map(str::to_string),
        }
    }

    fn local() -> Binding {
        at("127.0.0.1", None, None)
    }

    fn register(tools: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/register", "params": {"tools": tools}})
    }

    #[test]
    fn a_live_session_has_one_owner_and_ids_are_checked() {
        let hub = Hub::default();
        let (id, conn, _rx) = hub
            .connect(Some("session-0123456789"), local(), false)
            .unwrap();
        assert_eq!(id, "session-0123456789");
        assert_eq!(
            hub.connect(Some("session-0123456789"), local(), true).err(),
            Some(Refusal::Taken)
        );
        assert_eq!(
            hub.connect(Some("short"), local(), false).err(),
            Some(Refusal::BadId)
        );
        hub.disconnect(&id, conn);
        assert!(
            hub.connect(Some("session-0123456789"), local(), false)
                .is_ok()
        );
        let (random, _, _rx2) = hub.connect(None, local(), false).unwrap();
        assert_eq!(random.len(), 32);
        hub.shutdown();
        assert_eq!(hub.connect(None, local(), false).err(), Some(Refusal::Full));
    }

    #[test]
    fn only_the_owner_speaks_for_a_session() {
        let hub = Hub::default();
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let page = at("127.0.0.1", Some("http://localhost:3000"), None);
        let (id, conn, _rx) = hub
            .connect(Some("session-0123456789"), page.clone(), false)
            .unwrap();
        assert!(hub.message(&id, &ping, From::Post(&page)).is_ok());
        for other in [
            at("127.0.0.1", None, None),
            at("127.0.0.1", Some("http://localhost:3001"), None),
            at("10.0.0.2", Some("http://localhost:3000"), None),
            at(
                "127.0.0.1",
                Some("http://localhost:3000"),
                Some("k-0123456789abcdef"),
            ),
        ] {
            assert_eq!(
                hub.message(&id, &ping, From::Post(&other)),
                Err(Rejection::NotOwner),
                "{other:?}"
            );
        }
        assert_eq!(
            hub.message("unknown-0123456789", &ping, From::Post(&page)),
            Err(Rejection::Unknown)
        );
        // After the owner left, nobody speaks for the session until it comes back.
        hub.disconnect(&id, conn);
        assert_eq!(
            hub.message(&id, &ping, From::Post(&page)),
            Err(Rejection::NotOwner)
        );
        // An owner key in the URL: only requests carrying it count, from anywhere.
        let keyed = at("127.0.0.1", None, Some("k-0123456789abcdef"));
        let (id, _, _rx) = hub
            .connect(Some("keyed-0123456789ab"), keyed, false)
            .unwrap();
        // The owner key is what admits an agent; the session id or another key is not.
        assert!(hub.admits(&id, "k-0123456789abcdef"));
        assert!(!hub.admits(&id, "k-0123456789abcdeX"));
        assert!(!hub.admits(&id, &id));
        assert!(!hub.admits("socket-0123456789a", "k-0123456789abcdef"));
        let elsewhere = at("10.0.0.9", None, Some("k-0123456789abcdef"));
        assert!(hub.message(&id, &ping, From::Post(&elsewhere)).is_ok());
        assert_eq!(
            hub.message(&id, &ping, From::Post(&local())),
            Err(Rejection::NotOwner)
        );
        let wrong = at("127.0.0.1", None, Some("k-0123456789abcdeX"));
        assert_eq!(
            hub.message(&id, &ping, From::Post(&wrong)),
            Err(Rejection::NotOwner)
        );
        // A WebSocket owner: its socket only, never a POST.
        let (id, ws, _rx) = hub
            .connect(Some("socket-0123456789a"), local(), true)
            .unwrap();
        assert!(hub.message(&id, &ping, From::Connection(ws)).is_ok());
        assert_eq!(
            hub.message(&id, &ping, From::Connection(ws + 1)),
            Err(Rejection::NotOwner)
        );
        assert_eq!(
            hub.message(&id, &ping, From::Post(&local())),
            Err(Rejection::NotOwner)
        );
    }

    #[test]
    fn registration_is_checked_and_announced_and_capabilities_never_shrink() {
        let hub = Hub::default();
        let (id, conn, _rx) = hub
            .connect(Some("session-0123456789"), local(), true)
            .unwrap();
        let me = || From::Connection(conn);
        let mut changes = hub.subscribe(&id).unwrap();
        let bad = hub.message(
            &id,
            &register(json!([{"name": "bad-name", "inputSchema": {}}])),
            me(),
        );
        assert_eq!(bad.unwrap().unwrap()["error"]["code"], -32602);
        let ok = hub.message(&id, &register(json!([{"name": "paint", "description": "Paints", "inputSchema": {"type": "object"}, "capabilities": ["dom:write"]}])), me());
        assert_eq!(ok.unwrap().unwrap()["result"]["registered"], 1);
        assert!(changes.try_recv().is_ok());
        // Registered again declaring less, it keeps what it declared before.
        let again = hub.message(&id, &register(json!([{"name": "paint", "inputSchema": {"type": "object"}, "capabilities": ["dom:read"]}])), me());
        assert_eq!(again.unwrap().unwrap()["result"]["registered"], 1);
        assert_eq!(
            hub.tools(&id).unwrap()[0]["capabilities"],
            json!(["dom:write", "dom:read"])
        );
        hub.disconnect(&id, conn);
        assert!(changes.try_recv().is_ok());
        assert_eq!(hub.tools(&id).unwrap().len(), 0);
    }

    #[test]
    fn grants_stay_with_their_session_and_its_browser() {
        let hub = Hub::default();
        let page = at("127.0.0.1", Some("http://localhost:3000"), None);
        let (a, conn, _rx) = hub
            .connect(Some("session-a-0123456789"), page.clone(), false)
            .unwrap();
        let (b, _, _rx2) = hub
            .connect(Some("session-b-0123456789"), page.clone(), false)
            .unwrap();
        hub.grant(&a, "dom:write");
        hub.grant(&a, "dom:write");
        assert_eq!(hub.grants(&a), vec!["dom:write".to_string()]);
        assert_eq!(hub.grants(&b), Vec::<String>::new());
        // The same page comes back: its grants hold.
        hub.disconnect(&a, conn);
        let (_, conn, _rx) = hub.connect(Some(&a), page, false).unwrap();
        assert_eq!(hub.grants(&a), vec!["dom:write".to_string()]);
        // Someone else takes the session over after the page left: they start with none.
        hub.disconnect(&a, conn);
        let other = at("127.0.0.1", Some("http://localhost:4000"), None);
        hub.connect(Some(&a), other, false).unwrap();
        assert_eq!(hub.grants(&a), Vec::<String>::new());
    }

    #[test]
    fn a_keyed_session_takes_an_owner_only_with_its_key_for_its_whole_life() {
        let hub = Hub::default();
        let key = "k-0123456789abcdef";
        let page = at("127.0.0.1", Some("http://localhost:3000"), Some(key));
        let (id, conn, _rx) = hub
            .connect(Some("keyed-0123456789ab"), page.clone(), false)
            .unwrap();
        // The page reloads: while it is away, neither no key nor another key takes the
        // session, over either transport, from the same page or elsewhere.
        hub.disconnect(&id, conn);
        for (other, socket) in [
            (at("127.0.0.1", Some("http://localhost:3000"), None), false),
            (at("127.0.0.1", None, None), true),
            (at("127.0.0.1", None, Some("k-0123456789abcdeX")), false),
        ] {
            assert_eq!(
                hub.connect(Some(&id), other.clone(), socket).err(),
                Some(Refusal::WrongKey),
                "{other:?}"
            );
        }
        assert!(hub.admits(&id, key));
        // The key's holder comes back, from anywhere.
        let moved = at("10.0.0.7", None, Some(key));
        assert!(hub.connect(Some(&id), moved, true).is_ok());
        // A session opened without a key cannot be taken by adding one.
        let (plain, conn, _rx) = hub
            .connect(Some("plain-0123456789ab"), local(), false)
            .unwrap();
        hub.disconnect(&plain, conn);
        assert_eq!(
            hub.connect(Some(&plain), at("127.0.0.1", None, Some(key)), false)
                .err(),
            Some(Refusal::WrongKey)
        );
        assert!(!hub.admits(&plain, key));
    }

    #[test]
    fn one_client_holds_at_most_its_share_and_reclaims_its_own_left_sessions() {
        let hub = Hub::default();
        let page = at("127.0.0.1", Some("http://localhost:3000"), None);
        let mut held = Vec::new();
        for i in 0..PER_CLIENT {
            held.push(
                hub.connect(
                    Some(&format!("quota-{i:04}-0123456789")),
                    page.clone(),
                    false,
                )
                .unwrap(),
            );
        }
        assert_eq!(
            hub.connect(Some("quota-more-0123456789"), page.clone(), false)
                .err(),
            Some(Refusal::Quota)
        );
        // Another page (or address) has its own share.
        let other = at("127.0.0.1", Some("http://localhost:4000"), None);
        assert!(hub.connect(None, other, false).is_ok());
        // A session whose browser left makes room for the same client's next one.
        let (id, conn, _) = held.remove(3);
        hub.disconnect(&id, conn);
        assert!(
            hub.connect(Some("quota-more-0123456789"), page.clone(), false)
                .is_ok()
        );
        assert!(!hub.exists(&id));
        assert_eq!(
            hub.connect(Some("quota-last-0123456789"), page, false)
                .err(),
            Some(Refusal::Quota)
        );
    }

    /// Distinct lowercase words for distinct `n`: aaaaa, aaaab, …
    fn letters(mut n: usize) -> String {
        let mut word = [b'a'; 5];
        for letter in word.iter_mut().rev() {
            *letter = b'a' + (n % 26) as u8;
            n /= 26;
        }
        String::from_utf8_lossy(&word).into_owned()
    }

    #[test]
    fn tool_definitions_are_bounded_and_refused_with_where_and_why() {
        let hub = Hub::default();
        let (id, conn, _rx) = hub
            .connect(Some("session-0123456789"), local(), true)
            .unwrap();
        let me = || From::Connection(conn);
        let refused = |tools: Value| {
            let answer = hub.message(&id, &register(tools), me()).unwrap().unwrap();
            assert_eq!(answer["error"]["code"], -32602, "{answer}");
            answer["error"]["message"].as_str().unwrap().to_string()
        };
        let schema = json!({"type": "object"});
        let long = "x".repeat(MAX_DESCRIPTION + 1);
        assert_eq!(
            refused(json!([{"name": "a", "description": long, "inputSchema": schema}])),
            format!(
                "tools[0] (a): the description is {} bytes; at most {MAX_DESCRIPTION} (say more in the input schema's property descriptions)",
                MAX_DESCRIPTION + 1
            )
        );
        let many: Vec<String> = (0..1_000_000)
            .map(|i| format!("dom:{}", letters(i)))
            .collect();
        let started = Instant::now();
        assert_eq!(
            refused(json!([{"name": "a", "inputSchema": schema, "capabilities": many}])),
            "tools[0] (a) declares 1000000 capabilities; a tool declares at most 32"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        let name = format!("dom:{}", "a".repeat(MAX_CAPABILITY_NAME));
        assert!(
            refused(json!([{"name": "a", "inputSchema": schema, "capabilities": [name]}]))
                .contains("which is not a capability name")
        );
        let big = json!({"type": "object", "description": "y".repeat(MAX_DEFINITION)});
        assert_eq!(
            refused(json!([{"name": "a", "inputSchema": big}])),
            "tools[0] (a) is larger than 16 KiB as JSON (its input schema, most likely); keep a tool definition small"
        );
        let fifteen = json!({"type": "object", "description": "y".repeat(15 << 10)});
        let heavy: Vec<Value> = (0..20)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": fifteen}))
            .collect();
        assert!(refused(json!(heavy)).contains("together"));
        // Duplicates count once; a name's capabilities grow across registrations only so far.
        let caps = |from: usize| -> Vec<String> {
            (from..from + 20)
                .map(|i| format!("dom:{}", letters(i)))
                .collect()
        };
        let mut first = caps(0);
        first.push(first[0].clone());
        let ok = hub.message(
            &id,
            &register(json!([{"name": "a", "inputSchema": schema, "capabilities": first}])),
            me(),
        );
        assert_eq!(ok.unwrap().unwrap()["result"]["registered"], 1);
        assert_eq!(
            hub.tools(&id).unwrap()[0]["capabilities"]
                .as_array()
                .unwrap()
                .len(),
            20
        );
        assert_eq!(
            refused(json!([{"name": "a", "inputSchema": schema, "capabilities": caps(20)}])),
            "a has now been registered with 40 capabilities in this session; a tool keeps every capability it declared, and at most 32"
        );
        // The refused registration changed nothing.
        assert_eq!(
            hub.tools(&id).unwrap()[0]["capabilities"]
                .as_array()
                .unwrap()
                .len(),
            20
        );
        // Tool names remembered over a session's life are bounded too.
        for round in 0..MAX_NAMES / MAX_TOOLS {
            let tools: Vec<Value> = (0..MAX_TOOLS)
                .map(|i| json!({"name": format!("r{round}t{i}"), "inputSchema": schema}))
                .collect();
            let answer = hub
                .message(&id, &register(json!(tools)), me())
                .unwrap()
                .unwrap();
            let last = round == MAX_NAMES / MAX_TOOLS - 1;
            assert_eq!(answer["error"].is_object(), last, "{answer}");
        }
    }

    #[test]
    fn calls_reach_the_owner_and_come_back() {
        let hub = Arc::new(Hub::default());
        let (id, conn, mut rx) = hub
            .connect(Some("session-0123456789"), local(), true)
            .unwrap();
        let h = hub.clone();
        let sid = id.clone();
        let browser = std::thread::spawn(move || {
            let (event, text) = rx.blocking_recv().unwrap();
            assert_eq!(event, "request");
            let req: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(req["params"]["name"], "greet");
            let answer = json!({"jsonrpc": "2.0", "id": req["id"], "result": {"content": [{"type": "text", "text": "Hello"}]}});
            h.message(&sid, &answer, From::Connection(conn)).unwrap();
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
