//! MCP Streamable HTTP at `/mcp`: the stdio server's engine (`crate::mcp::engine`) driven by
//! POSTs. 2026-07-28 requests are stateless and share one engine; `initialize` opens a
//! 2025-era session with its own engine, named by `Mcp-Session-Id`. A `tools/call` whose client
//! accepts `text/event-stream` is answered as an SSE stream (progress, consent questions, then
//! the result); anything else as one JSON body, and then a consent question, which could not
//! reach the client, is refused at once. GET is 405 (no server-initiated stream); DELETE ends
//! a session. Sessions are bounded per client and overall, and one with a call in flight is
//! never ended to make room. The guard in front has already checked Host, Origin and token.

use super::mcp_modern as modern;
use super::routes::State;
use crate::jsonrpc::{self, Message};
use crate::mcp::engine::{Engine, Sink};
use crate::mcp::registry::Registry;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SESSION_HEADER: &str = "mcp-session-id";
/// Sessions kept at once; past it the least recently used one without a call in flight is
/// ended.
const MAX_SESSIONS: usize = 256;
/// Sessions one client (its address, or its bearer token on a server with one) keeps; past
/// it, its own least recently used one without a call in flight is ended.
const PER_CLIENT: usize = 64;
/// A session unused this long is ended.
const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// The longest an answer is waited for: a call's limit plus a consent question's.
const ANSWER_LIMIT: Duration = Duration::from_secs(200);

/// Names the BTCP session whose browser tools a request may see and call.
const BTCP_HEADER: &str = "btcp-session";

pub(super) struct Sessions {
    /// Whether installed tools (adapters, third-party folders) are offered beside the catalogue.
    adapters: bool,
    /// Calls an engine runs at once: the server's bound, which the run slots enforce.
    max_calls: usize,
    shared: Arc<Engine>,
    by_id: Mutex<HashMap<String, Open>>,
    hub: Arc<crate::btcp::Hub>,
    /// Stateless engines for requests naming a BTCP session, one per session.
    browsers: Mutex<HashMap<String, Arc<Engine>>>,
}

/// One 2025-era session: its engine, when it was last used, and whose it is.
struct Open {
    engine: Arc<Engine>,
    used: Instant,
    client: String,
}

/// Why no session was opened.
#[derive(Debug, PartialEq)]
enum Crowded {
    /// The client's [`PER_CLIENT`] sessions all have a call or question in flight.
    Client,
    /// All [`MAX_SESSIONS`] sessions have one.
    Server,
}

/// Which session makes room for one more of `client`: none needed (`Ok(None)`), the least
/// recently used one without a call in flight (its own first; another client's only when the
/// server is full), or a refusal when every candidate is busy. A session with a call or a
/// consent question in flight is never ended for another.
fn victim<'a>(
    sessions: impl Iterator<Item = (&'a str, &'a str, Instant, bool)> + Clone,
    client: &str,
) -> Result<Option<String>, Crowded> {
    let all = sessions.clone().count();
    let mine = sessions.clone().filter(|s| s.1 == client).count();
    if mine < PER_CLIENT && all < MAX_SESSIONS {
        return Ok(None);
    }
    let idle = |only_mine: bool| {
        sessions
            .clone()
            .filter(|s| !s.3 && (!only_mine || s.1 == client))
            .min_by_key(|s| s.2)
            .map(|s| s.0.to_string())
    };
    if mine >= PER_CLIENT {
        return idle(true).map(Some).ok_or(Crowded::Client);
    }
    idle(true)
        .or_else(|| idle(false))
        .map(Some)
        .ok_or(Crowded::Server)
}

fn options(max_calls: usize) -> crate::mcp::Options {
    crate::mcp::Options {
        progressive: false,
        allow_destructive: false,
        page_size: 50,
        max_calls,
    }
}

fn new_engine(adapters: bool, max_calls: usize, link: Option<crate::btcp::Link>) -> Arc<Engine> {
    let roots = if adapters {
        crate::paths::all_roots()
    } else {
        Vec::new()
    };
    let registry = Registry::load(&roots);
    Arc::new(match link {
        Some(link) => Engine::with_browser(options(max_calls), registry, link),
        None => Engine::new(options(max_calls), registry),
    })
}

impl Sessions {
    pub(super) fn new(adapters: bool, max_calls: usize, hub: Arc<crate::btcp::Hub>) -> Sessions {
        Sessions {
            adapters,
            max_calls,
            shared: new_engine(adapters, max_calls, None),
            by_id: Mutex::new(HashMap::new()),
            hub,
            browsers: Mutex::new(HashMap::new()),
        }
    }

    fn link(&self, btcp: &str) -> crate::btcp::Link {
        crate::btcp::Link::local(self.hub.clone(), btcp)
    }

    /// The stateless engine for requests naming BTCP session `btcp`.
    fn for_browser(&self, btcp: &str) -> Arc<Engine> {
        let mut map = self.browsers.lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|id, _| self.hub.exists(id));
        map.entry(btcp.to_string())
            .or_insert_with(|| new_engine(self.adapters, self.max_calls, Some(self.link(btcp))))
            .clone()
    }

    /// A new session for `client`, after [`victim`] made room.
    fn open(&self, btcp: Option<&str>, client: String) -> Result<(String, Arc<Engine>), Crowded> {
        let now = Instant::now();
        {
            let mut map = self.by_id.lock().unwrap_or_else(|p| p.into_inner());
            map.retain(|_, o| {
                let keep = o.engine.busy() || now.duration_since(o.used) < SESSION_IDLE;
                if !keep {
                    end(o.engine.clone());
                }
                keep
            });
            let sessions = map
                .iter()
                .map(|(id, o)| (id.as_str(), o.client.as_str(), o.used, o.engine.busy()));
            if let Some(gone) = victim(sessions, &client)?
                && let Some(o) = map.remove(&gone)
            {
                end(o.engine);
            }
        }
        // Loading the registry reads the disk: not under the lock.
        let engine = new_engine(self.adapters, self.max_calls, btcp.map(|b| self.link(b)));
        let id = crate::secret::random_token();
        let mut map = self.by_id.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(
            id.clone(),
            Open {
                engine: engine.clone(),
                used: now,
                client,
            },
        );
        Ok((id, engine))
    }

    fn find(&self, id: &str) -> Option<Arc<Engine>> {
        let mut map = self.by_id.lock().unwrap_or_else(|p| p.into_inner());
        let entry = map.get_mut(id)?;
        entry.used = Instant::now();
        Some(entry.engine.clone())
    }

    fn close(&self, id: &str) -> bool {
        let removed = self
            .by_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        match removed {
            Some(o) => {
                end(o.engine);
                true
            }
            None => false,
        }
    }
}

/// Withdraws a session's questions and lets its calls finish, off the async threads.
fn end(engine: Arc<Engine>) {
    std::thread::spawn(move || engine.finish());
}

fn rpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    json_response(status, &jsonrpc::error(id, code, message), None)
}

fn json_response(status: StatusCode, body: &Value, session: Option<&str>) -> Response {
    let mut response = (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        // Remote clients are told where the policy lives without the server's layout.
        crate::paths::redact_home(&serde_json::to_string(body).unwrap_or_default()).into_owned(),
    )
        .into_response();
    if let Some(id) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// `Mcp-Method` and `Mcp-Name` mirror the body for intermediaries; one that disagrees with the
/// body is refused, so a proxy's routing cannot be steered by a forged header.
fn headers_disagree(
    headers: &HeaderMap,
    method: &str,
    params: &serde_json::Map<String, Value>,
) -> Option<String> {
    if let Some(m) = header_str(headers, "mcp-method")
        && m != method
    {
        return Some(format!(
            "the Mcp-Method header says '{}' but the body's method is '{method}'",
            crate::text::preview(m, 60)
        ));
    }
    if let Some(n) = header_str(headers, "mcp-name") {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        if n != name {
            return Some(format!(
                "the Mcp-Name header says '{}' but params.name is '{}'",
                crate::text::preview(n, 60),
                crate::text::preview(name, 60)
            ));
        }
    }
    None
}

/// Whose sessions a request counts toward: its bearer token on a server that has one (the
/// guard checked it; kept as a digest), else its address.
fn client_of(state: &State, peer: std::net::SocketAddr, headers: &HeaderMap) -> String {
    use sha2::Digest;
    match header_str(headers, "authorization") {
        Some(token) if state.config.token.is_some() => {
            let digest = sha2::Sha256::digest(token.trim().as_bytes());
            format!("token:{}", hex::encode(&digest[..16]))
        }
        _ => format!("ip:{}", peer.ip()),
    }
}

pub(super) async fn post(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let message = jsonrpc::classify(&body);
    let request_id = match &message {
        Message::Request { id, .. } => id.clone(),
        _ => Value::Null,
    };
    if let Some(refusal) = modern::duplicated(&headers) {
        return refuse(&refusal, request_id);
    }
    let header_version = header_str(&headers, modern::VERSION_HEADER);
    if let Some(v) = header_version
        && v != crate::mcp::MODERN
        && !crate::mcp::LEGACY.contains(&v)
    {
        return refuse(&modern::unsupported(v), request_id);
    }
    let accept = header_str(&headers, "accept")
        .unwrap_or("*/*")
        .to_ascii_lowercase();
    let streams = accept.contains("text/event-stream");
    if let Message::Request { method, params, .. } = &message {
        let is_modern = header_version == Some(crate::mcp::MODERN)
            || modern::meta_version(params) == Some(crate::mcp::MODERN);
        if is_modern {
            if let Err(refusal) = modern::check(&headers, method, params) {
                return refuse(&refusal, request_id);
            }
            if method == "initialize" {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    request_id,
                    jsonrpc::METHOD_NOT_FOUND,
                    "initialize does not exist in 2026-07-28: send requests with params._meta (server/discover lists what the server speaks)",
                );
            }
            let exchange = Exchange {
                id: request_id,
                method: method.clone(),
                params: params.clone(),
                accepts_sse: streams,
                session: None,
                modern: true,
            };
            // A request naming a BTCP session is served by that session's stateless engine.
            let engine = match header_str(&headers, BTCP_HEADER) {
                Some(b) if !state.btcp.exists(b) => {
                    return rpc_error(
                        StatusCode::NOT_FOUND,
                        exchange.id,
                        jsonrpc::INVALID_REQUEST,
                        "no such BTCP session (its browser never connected, or it ended): check the BTCP-Session header",
                    );
                }
                Some(b) => state.mcp.for_browser(b),
                None => state.mcp.shared.clone(),
            };
            return answer(&state, engine, exchange).await;
        }
    }
    let session = header_str(&headers, SESSION_HEADER).map(str::to_string);
    let sessions = &state.mcp;
    let btcp = header_str(&headers, BTCP_HEADER);
    if let Some(b) = btcp
        && !state.btcp.exists(b)
    {
        return rpc_error(
            StatusCode::NOT_FOUND,
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            "no such BTCP session (its browser never connected, or it ended): check the BTCP-Session header",
        );
    }
    let (engine, opened) = match (&message, &session) {
        (Message::Request { method, .. }, None) if method == "initialize" => {
            match sessions.open(btcp, client_of(&state, peer, &headers)) {
                Ok((id, engine)) => (engine, Some(id)),
                Err(crowded) => return too_many(crowded, request_id),
            }
        }
        (_, Some(id)) => match sessions.find(id) {
            Some(engine)
                if btcp.is_some() && engine.browser().map(|l| l.session.as_str()) != btcp =>
            {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    Value::Null,
                    jsonrpc::INVALID_REQUEST,
                    "the BTCP-Session header differs from the one this MCP session was opened with",
                );
            }
            Some(engine) => (engine, None),
            None => {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    request_id,
                    jsonrpc::INVALID_REQUEST,
                    "no such session (it ended or expired): send initialize again",
                );
            }
        },
        (_, None) => match btcp {
            Some(b) => (sessions.for_browser(b), None),
            None => (sessions.shared.clone(), None),
        },
    };
    match message {
        Message::Request { id, method, params } => {
            if let Some(why) = headers_disagree(&headers, &method, &params) {
                return rpc_error(StatusCode::BAD_REQUEST, id, modern::HEADER_MISMATCH, &why);
            }
            let exchange = Exchange {
                id,
                method,
                params,
                accepts_sse: streams,
                session: opened,
                modern: false,
            };
            answer(&state, engine, exchange).await
        }
        other => {
            // Notifications and responses (consent answers) get 202; a malformed message its
            // error with 400.
            let (tx, rx) = std::sync::mpsc::channel();
            let sink: Sink = Arc::new(move |v: Value| {
                let _ = tx.send(v);
            });
            engine.receive(other, &sink);
            match rx.try_recv() {
                Ok(error) => json_response(StatusCode::BAD_REQUEST, &error, None),
                Err(_) => StatusCode::ACCEPTED.into_response(),
            }
        }
    }
}

/// No room for another session: 429 when the client's own are all busy, 503 when the server's.
fn too_many(crowded: Crowded, id: Value) -> Response {
    let (status, message) = match crowded {
        Crowded::Client => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "this client already has {PER_CLIENT} MCP sessions, each with a call or consent question in flight; end one (DELETE /mcp with its Mcp-Session-Id) or wait for a call to finish"
            ),
        ),
        Crowded::Server => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "all {MAX_SESSIONS} MCP sessions have a call or consent question in flight; try again when one has finished"
            ),
        ),
    };
    let mut response = rpc_error(status, id, jsonrpc::INTERNAL_ERROR, &message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// A request refused before the engine saw it, with its id and the status its code implies.
fn refuse(refusal: &modern::Refusal, id: Value) -> Response {
    json_response(modern::status_for(refusal.code), &refusal.body(id), None)
}

/// Sends `notifications/cancelled` for a request whose HTTP exchange ended before its answer.
struct CancelIfUnanswered {
    engine: Arc<Engine>,
    id: Value,
    answered: bool,
}

impl Drop for CancelIfUnanswered {
    fn drop(&mut self) {
        if !self.answered {
            let cancel = Message::Notification {
                method: "notifications/cancelled".into(),
                params: json!({ "requestId": self.id, "reason": "the HTTP request ended" })
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            };
            let sink: Sink = Arc::new(|_| {});
            self.engine.receive(cancel, &sink);
        }
    }
}

fn is_final(msg: &Value, id: &Value) -> bool {
    msg.get("id") == Some(id) && (msg.get("result").is_some() || msg.get("error").is_some())
}

/// One request to answer, as the client sent it.
struct Exchange {
    id: Value,
    method: String,
    params: serde_json::Map<String, Value>,
    accepts_sse: bool,
    /// A session opened by this request (`initialize`), named in the response.
    session: Option<String>,
    /// 2026-07-28: errors carry the status their code implies.
    modern: bool,
}

/// Ids given to stateless requests inside the shared engine.
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Waits for one of the server's run slots (shared with `/api/tools`), no longer than the
/// request timeout.
async fn run_slot(state: &State) -> Option<tokio::sync::OwnedSemaphorePermit> {
    tokio::time::timeout(
        state.config.request_timeout,
        state.runs.clone().acquire_owned(),
    )
    .await
    .ok()?
    .ok()
}

/// Hands a request to the engine and answers it: one JSON body, or (a `tools/call` from a
/// client that accepts SSE) an event stream. An answer ready at once is sent as JSON either
/// way; in the 2026-07-28 era an error is sent with the status its code implies.
async fn answer(state: &State, engine: Arc<Engine>, ex: Exchange) -> Response {
    let stream = ex.accepts_sse && ex.method == "tools/call";
    // A call takes a run slot first, so calls over /mcp and /api/tools together stay within
    // --max-concurrent, and more wait instead of being turned away.
    let slot = if ex.method == "tools/call" {
        match run_slot(state).await {
            Some(permit) => Some(permit),
            None => {
                let mut response = rpc_error(
                    StatusCode::TOO_MANY_REQUESTS,
                    ex.id,
                    jsonrpc::INTERNAL_ERROR,
                    &format!(
                        "all {} tool slots stayed busy for {} s; try again shortly",
                        state.config.max_concurrent,
                        state.config.request_timeout.as_secs()
                    ),
                );
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return response;
            }
        }
    } else {
        None
    };
    // Stateless requests of every client share one engine, but an id is unique only within
    // one client: the engine sees an id of its own, the client gets its id back.
    let inner = if ex.modern {
        json!(format!(
            "http-{}",
            NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ))
    } else {
        ex.id.clone()
    };
    let outer = ex.id.clone();
    let restore = {
        let inner = inner.clone();
        move |mut m: Value| {
            if m.get("id") == Some(&inner) {
                m["id"] = outer.clone();
            }
            m
        }
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let sink: Sink = Arc::new(move |v: Value| {
        let _ = tx.send(v);
    });
    let request = Message::Request {
        id: inner.clone(),
        method: ex.method,
        params: ex.params,
    };
    let receiving = engine.clone();
    // A question can reach the client only on the call's event stream.
    let receive = move || match stream {
        true => receiving.receive(request, &sink),
        false => receiving.receive_without_questions(request, &sink),
    };
    if tokio::task::spawn_blocking(receive).await.is_err() {
        return rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ex.id,
            jsonrpc::INTERNAL_ERROR,
            "the request failed inside cmpx",
        );
    }
    let mut guard = CancelIfUnanswered {
        engine,
        id: inner.clone(),
        answered: false,
    };
    let modern = ex.modern;
    let session = ex.session;
    let final_response = |m: Value| {
        let status = match m.pointer("/error/code").and_then(Value::as_i64) {
            Some(code) if modern => modern::status_for(code),
            _ => StatusCode::OK,
        };
        json_response(status, &restore(m), session.as_deref())
    };
    // What the engine said before returning: a quick answer (or a refusal) goes out as JSON.
    let mut early = None;
    if let Ok(m) = rx.try_recv() {
        if is_final(&m, &inner) {
            guard.answered = true;
            return final_response(m);
        }
        early = Some(m);
    }
    if !stream {
        let deadline = tokio::time::sleep(ANSWER_LIMIT);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    Some(m) if is_final(&m, &inner) => {
                        guard.answered = true;
                        drop(slot);
                        return final_response(m);
                    }
                    Some(_) => continue,
                    None => break,
                },
                _ = &mut deadline => break,
            }
        }
        return rpc_error(
            StatusCode::GATEWAY_TIMEOUT,
            ex.id,
            jsonrpc::INTERNAL_ERROR,
            "no answer in time",
        );
    }
    // SSE: every message for this request as it comes, ending with its answer; the run slot
    // is held until then.
    let events = futures_util::stream::unfold(
        (rx, guard, false, early, slot),
        move |(mut rx, mut guard, done, early, slot)| {
            let restore = restore.clone();
            async move {
                if done {
                    return None;
                }
                let msg = match early {
                    Some(m) => m,
                    None => tokio::time::timeout(ANSWER_LIMIT, rx.recv())
                        .await
                        .ok()
                        .flatten()?,
                };
                let last = is_final(&msg, &guard.id);
                if last {
                    guard.answered = true;
                }
                let text = serde_json::to_string(&restore(msg)).unwrap_or_default();
                let event = Event::default()
                    .event("message")
                    .data(crate::paths::redact_home(&text));
                let slot = if last { None } else { slot };
                Some((
                    Ok::<_, std::convert::Infallible>(event),
                    (rx, guard, last, None, slot),
                ))
            }
        },
    );
    let mut response = Sse::new(events).into_response();
    if let Some(s) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
        response.headers_mut().insert(SESSION_HEADER, s);
    }
    response
}

/// `GET /mcp`: 405, except for an MCP session linked to a BTCP session, which gets a stream of
/// `notifications/tools/list_changed` as its browser tools come and go.
pub(super) async fn get(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    headers: HeaderMap,
) -> Response {
    let changes = header_str(&headers, SESSION_HEADER)
        .and_then(|id| state.mcp.find(id))
        .and_then(|engine| engine.browser().cloned())
        .and_then(|link| link.hub.subscribe(&link.session));
    let Some(changes) = changes else {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, HeaderValue::from_static("POST, DELETE"))],
        )
            .into_response();
    };
    let note = jsonrpc::notification("notifications/tools/list_changed", None).to_string();
    let events = futures_util::stream::unfold(changes, move |mut changes| {
        let note = note.clone();
        async move {
            match changes.recv().await {
                Ok(()) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => Some((
                    Ok::<_, std::convert::Infallible>(Event::default().event("message").data(note)),
                    changes,
                )),
                Err(tokio::sync::broadcast::error::RecvError::Closed) => None,
            }
        }
    });
    Sse::new(events)
        .keep_alive(
            KeepAlive::new()
                .interval(super::btcp::KEEP_ALIVE)
                .text("ping"),
        )
        .into_response()
}

pub(super) async fn delete(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    headers: HeaderMap,
) -> Response {
    match header_str(&headers, SESSION_HEADER) {
        Some(id) if state.mcp.close(id) => StatusCode::NO_CONTENT.into_response(),
        Some(_) => StatusCode::NOT_FOUND.into_response(),
        None => (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, HeaderValue::from_static("POST"))],
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_session_is_never_ended_to_make_room() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let names: Vec<String> = (0..MAX_SESSIONS).map(|i| format!("s{i}")).collect();
        // Below both bounds: nothing to end.
        let few = [("a", "ip:1", at(0), false)];
        assert_eq!(victim(few.iter().copied(), "ip:1"), Ok(None));
        // A client at its share: its own least recently used idle session goes, not a busy
        // one, however old.
        let mut mine: Vec<(&str, &str, Instant, bool)> = (0..PER_CLIENT)
            .map(|i| (names[i].as_str(), "ip:1", at(i as u64), i < 2))
            .collect();
        mine.push(("other", "ip:2", at(0), false));
        assert_eq!(
            victim(mine.iter().copied(), "ip:1"),
            Ok(Some("s2".to_string()))
        );
        // All its sessions busy: refused, and no other client's session ends for it.
        for s in &mut mine {
            s.3 = s.1 == "ip:1";
        }
        assert_eq!(victim(mine.iter().copied(), "ip:1"), Err(Crowded::Client));
        // A full server: the newcomer's own idle session first, else the oldest idle one.
        let full: Vec<(&str, &str, Instant, bool)> = (0..MAX_SESSIONS)
            .map(|i| {
                let client = if i % 8 == 0 { "ip:3" } else { "ip:4" };
                (names[i].as_str(), client, at(i as u64), i < 10)
            })
            .collect();
        assert_eq!(
            victim(full.iter().copied(), "ip:3"),
            Ok(Some("s16".to_string()))
        );
        assert_eq!(
            victim(full.iter().copied(), "ip:5"),
            Ok(Some("s10".to_string()))
        );
        let busy: Vec<_> = full.iter().map(|s| (s.0, s.1, s.2, true)).collect();
        assert_eq!(victim(busy.iter().copied(), "ip:5"), Err(Crowded::Server));
    }
}
