//! `POST /api/pipe`: a recipe call over HTTP (the JSON body is `pipe::schema::call`), within
//! the server's body limit, run slots and time limit, answered like `/api/tools/{id}`.

use super::guard;
use super::routes::State;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;

use crate::ctp::ErrorCode;

pub(super) async fn post(state: axum::extract::State<Arc<State>>, request: Request) -> Response {
    // serve::intake has read the body whole and refused one over the limit.
    let max = state.config.max_body;
    let bytes = match Bytes::from_request(request, &()).await {
        Ok(b) => b,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return *super::body::too_large(max);
        }
        Err(e) => {
            return refuse(format!(
                "could not read the request body: {}",
                e.body_text()
            ));
        }
    };
    let args = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return refuse("the body must be a JSON object: a recipe and its input".into()),
        Err(e) => return refuse(format!("the body is not valid JSON: {e}")),
    };
    let permit = match super::tools::slot(&state).await {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let timeout = state.config.tool_timeout;
    let response = super::tools::cancellable(&state, move |cancelled| {
        crate::pipe::call::call(&args, timeout, cancelled)
    })
    .await;
    drop(permit);
    response
}

fn refuse(message: String) -> Response {
    guard::refuse(StatusCode::BAD_REQUEST, ErrorCode::InvalidInput, message)
}
