//! BTCP over HTTP streaming, as the reference `btcp-client` speaks it: a browser client opens
//! `GET /btcp/events?sessionId=…&clientType=browser` (SSE: a welcome naming its session, then
//! the calls it is to run as `request` events) and POSTs its messages (`tools/register`,
//! `ping`, answers to calls) to `/btcp/message` with `X-Session-ID`. The guard in front keeps
//! cmpx's own rules (loopback or token, Host and Origin checks).

use super::routes::State;
use crate::btcp::hub::Refusal;
use axum::body::{Body, Bytes};
use axum::extract::Query;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Comments on an idle stream, so proxies and clients keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(25);

fn plain(status: StatusCode, text: &str) -> Response {
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

pub async fn events(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if query.get("clientType").is_some_and(|t| t != "browser") {
        return plain(
            StatusCode::BAD_REQUEST,
            "only browser clients open a BTCP event stream here; agents reach a session's tools through MCP at /mcp with the BTCP-Session header",
        );
    }
    let wanted = query
        .get("sessionId")
        .map(String::as_str)
        .filter(|s| !s.is_empty());
    let (id, connection, rx) = match state.btcp.connect(wanted) {
        Ok(c) => c,
        Err(Refusal::Taken) => {
            return plain(
                StatusCode::CONFLICT,
                "this BTCP session already has a connected browser; a session has one owner",
            );
        }
        Err(Refusal::BadId) => {
            return plain(
                StatusCode::BAD_REQUEST,
                "sessionId must be 16 to 128 letters, digits, - or _ (use a random one, e.g. crypto.randomUUID())",
            );
        }
        Err(Refusal::Full) => {
            return plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many BTCP sessions; try again later",
            );
        }
    };
    let welcome = json!({
        "jsonrpc": "2.0",
        "id": "welcome",
        "result": { "sessionId": id, "message": "Connected to cmpx (BTCP)" },
    });
    let leave = Leave {
        state: state.clone(),
        id,
        connection,
    };
    let first = format!(": connected\n\nevent: message\ndata: {welcome}\n\n");
    let stream = futures_util::stream::unfold(
        (Some(first), rx, leave),
        |(first, mut rx, leave)| async move {
            if let Some(f) = first {
                return Some((
                    Ok::<_, std::convert::Infallible>(Bytes::from(f)),
                    (None, rx, leave),
                ));
            }
            let text = match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                Ok(Some((event, data))) => format!("event: {event}\ndata: {data}\n\n"),
                Ok(None) => return None,
                Err(_) => ": ping\n\n".to_string(),
            };
            Some((Ok(Bytes::from(text)), (None, rx, leave)))
        },
    );
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

pub async fn message(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
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
    let msg: Value = match serde_json::from_slice::<Value>(&body) {
        Ok(v) if v.get("jsonrpc") == Some(&json!("2.0")) => v,
        _ => return plain(StatusCode::BAD_REQUEST, "Invalid JSON-RPC message"),
    };
    if !state.btcp.exists(id) {
        return plain(
            StatusCode::NOT_FOUND,
            "no such BTCP session: open /btcp/events first",
        );
    }
    match state.btcp.message(id, &msg) {
        Some(answer) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            answer.to_string(),
        )
            .into_response(),
        None => StatusCode::OK.into_response(),
    }
}
