//! BTCP for browser clients, as the reference `btcp-client` speaks it. HTTP streaming: the
//! client opens `GET /btcp/events?sessionId=…&clientType=browser` (SSE: a welcome naming its
//! session, then the calls it is to run as `request` events) and POSTs its messages
//! (`tools/register`, `ping`, answers to calls) to `/btcp/message` with `X-Session-ID`.
//! WebSocket: `GET /btcp/ws?sessionId=…` upgrades, and every message goes both ways as one text
//! frame. Under `/btcp/k/KEY/…` the same paths bind the session to an owner key only the
//! browser knows. The guard in front keeps cmpx's own rules (loopback or token, Host and
//! Origin checks); the event stream opens only for what an EventSource sends, so a page's
//! `<img>` pointed at it (no Origin to check) opens nothing.

use super::routes::State;
use crate::btcp::hub::{Binding, From, Refusal, Rejection};
use crate::jsonrpc;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, Query};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Comments on an idle stream (pings on a socket), so proxies and clients keep it open.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(25);
/// A socket whose browser sent nothing (not even a pong) this long is closed; the reference
/// client pings every 30 s and browsers answer pings.
const SOCKET_IDLE: Duration = Duration::from_secs(90);
/// The largest WebSocket message taken (a tool's answer may carry an image).
const SOCKET_MAX: usize = 16 << 20;

pub(super) fn plain(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        json!({ "error": text }).to_string(),
    )
        .into_response()
}

/// Ends the session's ownership when the stream is dropped (the browser went away).
struct Leave {
    state: Arc<State>,
    id: String,
    connection: u64,
}

impl Drop for Leave {
    fn drop(&mut self) {
        self.state.btcp.disconnect(&self.id, self.connection);
    }
}

/// The owner key of a `/btcp/k/KEY/…` path, checked like a session id.
/// A refusal to send instead (boxed: a response is large).
type Refused = Box<Response>;

fn key_of(key: Option<Path<String>>) -> Result<Option<String>, Refused> {
    match key {
        None => Ok(None),
        Some(Path(k)) if crate::btcp::hub::acceptable_id(&k) => Ok(Some(k)),
        Some(_) => Err(Box::new(plain(
            StatusCode::BAD_REQUEST,
            "the owner key in /btcp/k/KEY/ must be 16 to 128 letters, digits, - or _ (a random one the page keeps to itself)",
        ))),
    }
}

fn binding(key: Option<String>, peer: std::net::SocketAddr, headers: &HeaderMap) -> Binding {
    Binding {
        key,
        ip: peer.ip(),
        origin: headers
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    }
}

/// A refusal for an agent on the browsers' paths.
fn not_browser(query: &HashMap<String, String>) -> Option<Response> {
    query.get("clientType").filter(|t| *t != "browser").map(|_| {
        plain(
            StatusCode::BAD_REQUEST,
            "only browser clients connect here; a BTCP agent joins a session under /btcp/a/KEY/ (KEY: the session's owner key or the server's token), an MCP agent through /mcp with the BTCP-Session header",
        )
    })
}

/// Opens the session an owner asks for: its id, connection and the frames meant for it.
fn open(
    state: &State,
    query: &HashMap<String, String>,
    origin: Binding,
    socket: bool,
) -> Result<
    (
        String,
        u64,
        tokio::sync::mpsc::UnboundedReceiver<crate::btcp::hub::Frame>,
    ),
    Refused,
> {
    if let Some(refusal) = not_browser(query) {
        return Err(Box::new(refusal));
    }
    let wanted = query
        .get("sessionId")
        .map(String::as_str)
        .filter(|s| !s.is_empty());
    match state.btcp.connect(wanted, origin, socket) {
        Ok(c) => Ok(c),
        Err(Refusal::Taken) => Err(Box::new(plain(
            StatusCode::CONFLICT,
            "this BTCP session already has a connected browser; a session has one owner",
        ))),
        Err(Refusal::WrongKey) => Err(Box::new(plain(
            StatusCode::FORBIDDEN,
            "this BTCP session is bound to how it was opened: one opened under /btcp/k/KEY/ takes a browser only under that KEY, one opened without a key only without one; open your own session with a new sessionId",
        ))),
        Err(Refusal::BadId) => Err(Box::new(plain(
            StatusCode::BAD_REQUEST,
            "sessionId must be 16 to 128 letters, digits, - or _ (use a random one, e.g. crypto.randomUUID())",
        ))),
        Err(Refusal::Quota) => Err(Box::new(plain(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "this client (address and page origin) already holds {} BTCP sessions with a browser connected; close one first",
                crate::btcp::hub::PER_CLIENT
            ),
        ))),
        Err(Refusal::Full) => Err(Box::new(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many BTCP sessions, or the server is stopping; try again later",
        ))),
    }
}

/// A refusal for a request that is not an EventSource's: a page's `<img>`, `<script>` or
/// frame can point at `/btcp/events`, and such no-cors requests carry no Origin for the guard
/// to check, but they cannot ask for `text/event-stream` (EventSource, in browsers and in the
/// reference client's node polyfill, always does), and a browser marks them with
/// `Sec-Fetch-Mode`/`Sec-Fetch-Dest` (a fetch in no-cors mode may set Accept, not those).
fn not_event_source(headers: &HeaderMap) -> Option<Response> {
    let value = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
    };
    let accepts = value("accept").is_some_and(|a| a.contains("text/event-stream"));
    let mode_ok = value("sec-fetch-mode").is_none_or(|m| m == "cors" || m == "same-origin");
    let dest_ok = value("sec-fetch-dest").is_none_or(|d| d == "empty");
    (!(accepts && mode_ok && dest_ok)).then(|| {
        plain(
            StatusCode::FORBIDDEN,
            "a BTCP event stream is opened by an EventSource (Accept: text/event-stream, Sec-Fetch-Mode: cors when a browser sends it); an image, script, frame or no-cors fetch opens no session",
        )
    })
}

fn welcome(id: &str) -> Value {
    jsonrpc::reply(
        json!("welcome"),
        json!({ "sessionId": id, "message": "Connected to cmpx (BTCP)" }),
    )
}

pub(super) async fn events(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    key: Option<Path<String>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(refusal) = not_browser(&query).or_else(|| not_event_source(&headers)) {
        return refusal;
    }
    let key = match key_of(key) {
        Ok(k) => k,
        Err(r) => return *r,
    };
    let (id, connection, rx) = match open(&state, &query, binding(key, peer, &headers), false) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let welcome = welcome(&id);
    let leave = Leave {
        state: state.clone(),
        id,
        connection,
    };
    event_stream(&welcome, rx, leave)
}

/// A `text/event-stream` response: a `connected` comment and `welcome` as a message, then
/// each frame from `rx` as an event, with a `ping` comment as keep-alive when nothing comes
/// for [`KEEP_ALIVE`]. `keep` lives as long as the stream (what it drops when the client goes:
/// a leave or a sender of its own).
pub(super) fn event_stream<K: Send + 'static>(
    welcome: &Value,
    rx: tokio::sync::mpsc::UnboundedReceiver<crate::btcp::hub::Frame>,
    keep: K,
) -> Response {
    let first = [
        Event::default().comment("connected"),
        Event::default().event("message").data(welcome.to_string()),
    ];
    let frames = futures_util::stream::unfold((rx, keep), |(mut rx, keep)| async move {
        let (event, data) = rx.recv().await?;
        Some((Event::default().event(event).data(data), (rx, keep)))
    });
    let events = futures_util::stream::iter(first)
        .chain(frames)
        .map(Ok::<_, std::convert::Infallible>);
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("ping"))
        .into_response()
}

pub(super) async fn message(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    key: Option<Path<String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let key = match key_of(key) {
        Ok(k) => k,
        Err(r) => return *r,
    };
    let from = binding(key, peer, &headers);
    let Some(id) = headers
        .get("x-session-id")
        .and_then(|v| v.to_str().ok())
        .filter(|s| !s.is_empty())
    else {
        return plain(
            StatusCode::BAD_REQUEST,
            "X-Session-ID is missing: give the transport the sessionId its event stream uses",
        );
    };
    // Parsing and checking a body of up to the input limit takes a while: off the async
    // threads, so other requests go on meanwhile.
    let hub = state.btcp.clone();
    let id = id.to_string();
    let handled =
        tokio::task::spawn_blocking(move || match serde_json::from_slice::<Value>(&body) {
            Ok(msg) if jsonrpc::is_2_0(&msg) => Some(hub.message(&id, &msg, From::Post(&from))),
            _ => None,
        })
        .await;
    let Ok(handled) = handled else {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the message failed inside cmpx",
        );
    };
    let Some(handled) = handled else {
        return plain(StatusCode::BAD_REQUEST, "Invalid JSON-RPC message");
    };
    match handled {
        Err(Rejection::Unknown) => plain(
            StatusCode::NOT_FOUND,
            "no such BTCP session: open /btcp/events first",
        ),
        Err(Rejection::NotOwner) => plain(
            StatusCode::FORBIDDEN,
            "this request does not come from the browser that holds the BTCP session (its event stream, from the same address and page, or with its owner key in the URL); a WebSocket session takes messages only over its socket",
        ),
        Ok(Some(answer)) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            answer.to_string(),
        )
            .into_response(),
        Ok(None) => StatusCode::OK.into_response(),
    }
}

/// `GET /btcp/ws`: the session opens before the upgrade, so a refusal is a plain HTTP status.
pub(super) async fn socket(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    key: Option<Path<String>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let key = match key_of(key) {
        Ok(k) => k,
        Err(r) => return *r,
    };
    let (id, connection, rx) = match open(&state, &query, binding(key, peer, &headers), true) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    // Dropped with the closure if the upgrade never happens, which ends the ownership too.
    let leave = Leave {
        state: state.clone(),
        id,
        connection,
    };
    upgrade
        .max_message_size(SOCKET_MAX)
        .max_frame_size(SOCKET_MAX)
        .on_upgrade(move |socket| converse(socket, rx, leave))
}

/// One owner's socket: the hub's frames go out, the browser's messages go to the hub and
/// their answers come back, until either side closes, the browser idles past
/// [`SOCKET_IDLE`], or the server stops (the hub lets the owner go: a 1001 close).
async fn converse(
    mut socket: WebSocket,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<crate::btcp::hub::Frame>,
    leave: Leave,
) {
    let hub = leave.state.btcp.clone();
    let mut open = leave.state.sockets.open();
    let mut out = vec![welcome(&leave.id).to_string()];
    let mut heard = tokio::time::Instant::now();
    let mut ping = tokio::time::interval(KEEP_ALIVE);
    ping.tick().await;
    let close = loop {
        for text in out.drain(..) {
            if socket.send(Message::Text(text.into())).await.is_err() {
                return;
            }
        }
        tokio::select! {
            frame = rx.recv() => match frame {
                Some((_, data)) => out.push(data),
                None => break (1001, "the server is stopping or the session ended"),
            },
            () = open.stopping() => break (1001, "the server is stopping"),
            incoming = socket.recv() => {
                heard = tokio::time::Instant::now();
                match incoming {
                    Some(Ok(Message::Text(text))) => {
                        // A message of up to SOCKET_MAX: parsed and checked off the async threads.
                        let (hub, id, connection) = (hub.clone(), leave.id.clone(), leave.connection);
                        let handled = tokio::task::spawn_blocking(move || {
                            match serde_json::from_str::<Value>(text.as_str()) {
                                Ok(msg) if jsonrpc::is_2_0(&msg) => {
                                    Some(hub.message(&id, &msg, From::Connection(connection)))
                                }
                                _ => None,
                            }
                        })
                        .await
                        .ok()
                        .flatten();
                        match handled {
                            Some(Ok(Some(answer))) => out.push(answer.to_string()),
                            Some(Ok(None)) => {}
                            Some(Err(_)) => break (1008, "this socket no longer holds the session"),
                            None => out.push(jsonrpc::error(Value::Null, jsonrpc::PARSE_ERROR, "Invalid JSON-RPC message: send one JSON-RPC 2.0 object per text frame").to_string()),
                        }
                    }
                    Some(Ok(Message::Binary(_))) => break (1003, "BTCP messages are JSON text frames"),
                    Some(Ok(Message::Close(_))) | None => return,
                    Some(Ok(_)) => {}
                    // Too large, or not WebSocket: tungstenite has already failed the socket.
                    Some(Err(_)) => break (1009, "message too large or malformed"),
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() >= SOCKET_IDLE {
                    break (1001, "idle: nothing received for 90 s");
                }
                if socket.send(Message::Ping(Bytes::new())).await.is_err() {
                    return;
                }
            }
        }
    };
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: close.0,
            reason: close.1.into(),
        })))
        .await;
    drop(leave);
    drop(open);
}
