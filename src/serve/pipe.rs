//! `POST /api/pipe`: a recipe call over HTTP (the JSON body is `pipe::schema::call`), within
//! the server's body limit, run slots and time limit, answered like `/api/tools/{id}`.

use super::guard::{self, result_response};
use super::routes::State;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::ctp::ErrorCode;

pub async fn post(state: axum::extract::State<Arc<State>>, request: Request) -> Response {
    let max = state.config.max_body;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max) {
        return *super::body::too_large(max);
    }
    let permit = match super::tools::slot(&state).await {
        Ok(p) => p,
        Err(r) => return *r,
    };
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
    let flag = state.register_call();
    let _cancel = CancelOnDrop(flag.clone());
    let timeout = state.config.tool_timeout;
    let call = tokio::task::spawn_blocking(move || {
        crate::pipe::call::call(&args, timeout, &|| flag.load(Ordering::SeqCst))
    });
    let response = match call.await {
        Ok(Some(result)) => result_response(super::tools::status_for(&result), &result),
        Ok(None) => guard::refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ExecutionError,
            "the call was cancelled: the server is shutting down".to_string(),
        ),
        Err(_) => guard::refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::InternalError,
            "the call's thread failed; this is a bug in cmpx".to_string(),
        ),
    };
    drop(permit);
    response
}

fn refuse(message: String) -> Response {
    guard::refuse(StatusCode::BAD_REQUEST, ErrorCode::InvalidInput, message)
}

/// Stops the recipe's current worker when the client goes away.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
