//! CTP execution over HTTP: `POST /api/tools/{id}` (and GET for tools whose method is GET)
//! runs the tool in a worker process like every other front end, within the server's
//! concurrency bound, and answers with the ToolResult under the status its error code implies.

use super::body;
use super::guard::{self, result_response};
use super::routes::State;
use axum::extract::{Path, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::ctp::{ErrorCode, ToolDefinition, ToolResult};
use crate::exec::worker;

type Shared = axum::extract::State<Arc<State>>;

/// `GET /api/tools`: every tool with where and how to call it.
pub(super) async fn list(state: Shared, headers: axum::http::HeaderMap) -> Response {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let base = state.base_url(host);
    let tools: Vec<Value> = crate::catalogue::all()
        .iter()
        .map(|d| {
            json!({
                "id": d.id,
                "name": d.name,
                "description": d.description,
                "category": d.category,
                "method": d.method,
                "endpoint": format!("{base}/api/tools/{}", d.id),
                "docs": format!("{base}/docs/{}.md", d.id),
            })
        })
        .collect();
    axum::Json(json!({ "tools": tools })).into_response()
}

pub(super) async fn call_post(state: Shared, Path(id): Path<String>, request: Request) -> Response {
    let def = match lookup(&id) {
        Ok(def) => def,
        Err(r) => return *r,
    };
    // The body is whole already (serve::intake); parse it before taking a run slot.
    let args = match body::from_body(&def, request, state.config.max_body).await {
        Ok(args) => args,
        Err(r) => return *r,
    };
    let permit = match slot(&state).await {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let response = run(&state, def, args).await;
    drop(permit);
    response
}

pub(super) async fn call_get(state: Shared, Path(id): Path<String>, request: Request) -> Response {
    let def = match lookup(&id) {
        Ok(def) => def,
        Err(r) => return *r,
    };
    if !def.method.eq_ignore_ascii_case("GET") {
        let mut response = guard::refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::InvalidInput,
            format!(
                "{} is called with POST and a JSON, form or multipart body of its parameters",
                def.id
            ),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST, OPTIONS"));
        return response;
    }
    let args = match body::from_query(request.uri().query()) {
        Ok(args) => args,
        Err(r) => return *r,
    };
    let permit = match slot(&state).await {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let response = run(&state, def, args).await;
    drop(permit);
    response
}

/// `OPTIONS /api/tools/{id}` without CORS: which methods the path takes.
pub(super) async fn options(Path(id): Path<String>) -> Response {
    let allow = match crate::catalogue::get(&id) {
        Some(d) if d.method.eq_ignore_ascii_case("GET") => "GET, POST, OPTIONS",
        _ => "POST, OPTIONS",
    };
    (
        StatusCode::NO_CONTENT,
        [(header::ALLOW, HeaderValue::from_static(allow))],
    )
        .into_response()
}

fn lookup(id: &str) -> Result<ToolDefinition, guard::Refusal> {
    crate::catalogue::get(id).ok_or_else(|| {
        Box::new(result_response(
            StatusCode::NOT_FOUND,
            &ToolResult::from(crate::exec::not_found(id)),
        ))
    })
}

/// Waits for a free run slot, no longer than the request timeout.
pub(super) async fn slot(
    state: &State,
) -> Result<tokio::sync::SemaphorePermit<'_>, guard::Refusal> {
    match tokio::time::timeout(state.config.request_timeout, state.runs.acquire()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => {
            let mut response = guard::refuse(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!(
                    "all {} tool slots stayed busy for {} s; try again shortly",
                    state.config.max_concurrent,
                    state.config.request_timeout.as_secs()
                ),
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            Err(Box::new(response))
        }
    }
}

/// An HTTP request cannot be asked a question: what needs the person's consent is refused.
const CANNOT_ASK: crate::exec::authorize::Ask<'static> = crate::exec::authorize::Ask::Never {
    why: "an HTTP request cannot ask the person",
    hint: "The person can let it run without asking with `cmpx policy grant <capability> --tool <tool>`, or run it themselves with `cmpx run <tool> … --yes`.",
};

/// Sets the call's cancel flag when the request's future is dropped (the client went away,
/// or the server is stopping), which stops the worker.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

async fn run(state: &State, def: ToolDefinition, args: Map<String, Value>) -> Response {
    let bounds = worker::Bounds {
        time: state.config.tool_timeout,
        memory: crate::limits::max_memory(),
    };
    cancellable(state, move |cancelled| {
        let call = crate::exec::authorize::Call::Builtin {
            id: &def.id,
            reads: &[],
            output: None,
        };
        let permit = match crate::exec::authorize::authorize(&call, CANNOT_ASK) {
            Ok(permit) => permit,
            Err(e) => return Some(crate::ctp::ToolResult::err(e, None)),
        };
        worker::run_cancellable(permit, &def, args, None, bounds, cancelled)
    })
    .await
}

/// Runs a blocking call off the async runtime with a cancel flag that is set when the request
/// goes away, and turns its result into the response: `None` from the call means it was
/// cancelled (the server is stopping).
pub(super) async fn cancellable<F>(state: &State, call: F) -> Response
where
    F: FnOnce(&dyn Fn() -> bool) -> Option<ToolResult> + Send + 'static,
{
    let flag = state.register_call();
    let _cancel = CancelOnDrop(flag.clone());
    let joined = tokio::task::spawn_blocking(move || call(&|| flag.load(Ordering::SeqCst)));
    match joined.await {
        Ok(Some(result)) => result_response(status_for(&result), &result),
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
    }
}

/// HTTP status of a ToolResult: 200 on success; 400 for input and validation errors; 404;
/// 429; 401; 504 when the tool ran out of time; 500 for other failures on the server's side
/// (an output over the limit among them: the client's request was fine).
pub(super) fn status_for(result: &ToolResult) -> StatusCode {
    match result.error_code {
        None if result.success => StatusCode::OK,
        Some(
            ErrorCode::InvalidInput
            | ErrorCode::MissingRequired
            | ErrorCode::TypeError
            | ErrorCode::ConstraintViolation,
        ) => StatusCode::BAD_REQUEST,
        Some(ErrorCode::NotFound) => StatusCode::NOT_FOUND,
        Some(ErrorCode::RateLimited) => StatusCode::TOO_MANY_REQUESTS,
        Some(ErrorCode::Unauthorized) => StatusCode::UNAUTHORIZED,
        Some(ErrorCode::Timeout) => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}
