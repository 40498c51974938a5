//! BTCP agents joining a browser's session, under `/btcp/a/KEY/…`, where KEY is the session's
//! owner key or the server's token: the session id alone, which agents are told and may be
//! guessable, never lets one in. HTTP streaming as the reference agent speaks it: an event
//! stream `GET …/events?sessionId=NAME&clientType=agent` (NAME its own, or the session's),
//! POSTs to `…/message` (`session/join` with `X-Session-ID: NAME`, then requests with
//! `X-Session-ID: SESSION`, answered in the POST's body), and `tools/updated` on the stream
//! when the browser's tools change. WebSocket: `GET …/ws?clientType=agent[&sessionId=SESSION]`,
//! everything on the socket. Agent paths never speak for the session's owner.

use super::btcp::{event_stream, plain};
use super::routes::State;
use crate::btcp::hub::{Frame, Hub, acceptable_id};
use crate::jsonrpc;
use crate::secret::same_secret;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

/// The JSON-RPC error of a socket message for a session the agent has not joined or may not
/// reach.
const NOT_ADMITTED: i64 = -32001;

const REFUSED: &str = "this key does not open that BTCP session: an agent joins with the session's owner key (the KEY of its browser's /btcp/k/KEY/ URL) or the server's token, under /btcp/a/KEY/";

/// Whether `key` lets an agent into `session`.
fn admitted(state: &State, key: &str, session: &str) -> bool {
    state.btcp.admits(session, key)
        || (state.btcp.exists(session)
            && state
                .config
                .token
                .as_deref()
                .is_some_and(|t| same_secret(key.as_bytes(), t.as_bytes())))
}

fn not_agent(query: &HashMap<String, String>) -> Option<Response> {
    query.get("clientType").filter(|t| *t != "agent").map(|_| {
        plain(
            StatusCode::BAD_REQUEST,
            "/btcp/a/KEY/ is for agents (clientType=agent); browsers open /btcp or /btcp/k/KEY/",
        )
    })
}

/// Sends `tools/updated` (the session's tools) to `events` whenever they change, until
/// either side ends.
fn follow(
    hub: Arc<Hub>,
    session: String,
    events: UnboundedSender<Frame>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let Some(mut changes) = hub.subscribe(&session) else {
            return;
        };
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(()) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        let tools = hub.tools(&session).unwrap_or_default();
                        let note = jsonrpc::notification("tools/updated", Some(json!({ "tools": tools })));
                        if events.send(("message", note.to_string())).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                },
                _ = events.closed() => return,
            }
        }
    })
}

fn welcome(session: Option<&str>) -> Value {
    jsonrpc::reply(
        json!("welcome"),
        json!({ "message": "Connected to cmpx (BTCP agent)", "sessionId": session }),
    )
}

/// Takes the waiting stream out of the map when it ends.
struct Gone {
    hub: Arc<Hub>,
    name: String,
    key: String,
}

impl Drop for Gone {
    fn drop(&mut self) {
        let _ = self.hub.joining(&self.name, &self.key);
    }
}

pub(super) async fn events(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Path(key): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(r) = not_agent(&query) {
        return r;
    }
    let Some(name) = query.get("sessionId").filter(|n| acceptable_id(n)) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "sessionId must be 16 to 128 letters, digits, - or _: the session to follow, or a name of the agent's own to join with",
        );
    };
    let (tx, rx) = unbounded_channel::<Frame>();
    let joined = admitted(&state, &key, name);
    if joined {
        follow(state.btcp.clone(), name.clone(), tx.clone());
    } else if !state.btcp.wait(name, &key, tx.clone()) {
        return plain(
            StatusCode::CONFLICT,
            "an agent stream with this name is open; give yours another",
        );
    }
    let gone = Gone {
        hub: state.btcp.clone(),
        name: name.clone(),
        key,
    };
    // The stream keeps its own sender, so it lives as long as the agent listens.
    event_stream(&welcome(joined.then_some(name.as_str())), rx, (gone, tx))
}

/// The session a message is about: the one `session/join` names, else the given one.
fn target(msg: &Value, given: Option<&str>) -> Option<String> {
    if msg.get("method").and_then(Value::as_str) == Some("session/join") {
        return msg
            .pointer("/params/sessionId")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    given.map(str::to_string)
}

async fn answer(state: &Arc<State>, session: String, msg: Value) -> Option<Value> {
    let hub = state.btcp.clone();
    tokio::task::spawn_blocking(move || crate::btcp::agent::answer(&hub, &session, &msg))
        .await
        .ok()
        .flatten()
}

pub(super) async fn message(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Path(key): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let msg: Value = match serde_json::from_slice::<Value>(&body) {
        Ok(v) if jsonrpc::is_2_0(&v) => v,
        _ => return plain(StatusCode::BAD_REQUEST, "Invalid JSON-RPC message"),
    };
    let given = headers.get("x-session-id").and_then(|v| v.to_str().ok());
    let Some(session) = target(&msg, given) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "which session? session/join names it in params.sessionId, other requests in X-Session-ID",
        );
    };
    if !admitted(&state, &key, &session) {
        return plain(StatusCode::FORBIDDEN, REFUSED);
    }
    if msg.get("method").and_then(Value::as_str) == Some("session/join")
        && let Some(events) = given.and_then(|name| state.btcp.joining(name, &key))
    {
        follow(state.btcp.clone(), session.clone(), events);
    }
    match answer(&state, session, msg).await {
        Some(a) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            a.to_string(),
        )
            .into_response(),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

pub(super) async fn socket(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Path(key): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    upgrade: WebSocketUpgrade,
) -> Response {
    if let Some(r) = not_agent(&query) {
        return r;
    }
    let first = query
        .get("sessionId")
        .filter(|s| admitted(&state, &key, s))
        .cloned();
    upgrade
        .max_message_size(1 << 20)
        .on_upgrade(move |socket| converse(socket, state, key, first))
}

/// One agent's socket: its requests are answered in turn (a call waits for the browser),
/// `tools/updated` comes whenever the joined session's tools change.
async fn converse(mut socket: WebSocket, state: Arc<State>, key: String, first: Option<String>) {
    let mut open = state.sockets.open();
    let (tx, mut rx) = unbounded_channel::<Frame>();
    let mut joined = first;
    let mut following = joined
        .clone()
        .map(|s| follow(state.btcp.clone(), s, tx.clone()));
    let mut out = vec![welcome(joined.as_deref()).to_string()];
    loop {
        for text in out.drain(..) {
            if socket.send(Message::Text(text.into())).await.is_err() {
                return;
            }
        }
        tokio::select! {
            Some((_, data)) = rx.recv() => out.push(data),
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    let Ok(msg) = serde_json::from_str::<Value>(text.as_str()) else {
                        out.push(jsonrpc::error(Value::Null, jsonrpc::PARSE_ERROR, "Invalid JSON-RPC message").to_string());
                        continue;
                    };
                    let id = msg.get("id").cloned().unwrap_or(Value::Null);
                    let refuse = |text: &str| jsonrpc::error(id.clone(), NOT_ADMITTED, text).to_string();
                    let Some(session) = target(&msg, joined.as_deref()) else {
                        out.push(refuse("join a session first: session/join with params.sessionId"));
                        continue;
                    };
                    if !admitted(&state, &key, &session) {
                        out.push(refuse(REFUSED));
                        continue;
                    }
                    if msg.get("method").and_then(Value::as_str) == Some("session/join") {
                        if let Some(old) = following.take() {
                            old.abort();
                        }
                        following = Some(follow(state.btcp.clone(), session.clone(), tx.clone()));
                        joined = Some(session.clone());
                    }
                    if let Some(a) = answer(&state, session, msg).await {
                        out.push(a.to_string());
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            () = open.stopping() => {
                let _ = socket
                    .send(Message::Close(Some(CloseFrame {
                        code: 1001,
                        reason: "the server is stopping".into(),
                    })))
                    .await;
                break;
            }
        }
    }
    if let Some(f) = following {
        f.abort();
    }
}
