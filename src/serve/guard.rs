//! Who may talk to the server: the Host check that defeats DNS rebinding, the Origin check that
//! keeps other sites' pages out, the bearer token, and the rate limit, in that order, before
//! any route runs. Every refusal is a CTP ToolResult with its HTTP status.

use super::routes::State;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use crate::ctp::{ErrorCode, ToolError, ToolResult};

pub(super) async fn check(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    if let Err(refusal) = admit(&state, peer, request.method(), request.headers()) {
        return *refusal;
    }
    next.run(request).await
}

/// A refusal: the response to send instead of running the route (boxed, it is large).
pub(super) type Refusal = Box<Response>;

fn admit(
    state: &State,
    peer: SocketAddr,
    method: &Method,
    headers: &HeaderMap,
) -> Result<(), Refusal> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !state.host_allowed(host) {
        return Err(Box::new(refuse(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            format!(
                "Host '{}' is not this server's name; a loopback server answers only to localhost, 127.0.0.1 and [::1] (this stops DNS rebinding); set --base-url for the name a proxy uses",
                crate::text::preview(host, 60)
            ),
        )));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !state.origin_allowed(origin, host) {
            return Err(Box::new(refuse(
                StatusCode::FORBIDDEN,
                ErrorCode::Unauthorized,
                format!(
                    "requests from pages on '{}' are refused; only this server's own pages and origins given with --allow-origin may call it",
                    crate::text::preview(origin, 60)
                ),
            )));
        }
        // A browser's CORS preflight carries no credentials; the CORS layer answers it.
        if method == Method::OPTIONS {
            return Ok(());
        }
    }
    if let Some(token) = &state.config.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer)
            .unwrap_or("");
        if !crate::secret::same_secret(given.trim().as_bytes(), token.as_bytes()) {
            let mut response = refuse(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "this server needs 'Authorization: Bearer <token>' (the --token or CMPX_TOKEN it was started with)".to_string(),
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Err(Box::new(response));
        }
    }
    if let Some(limiter) = &state.limiter
        && let Err(wait) = limiter.take(peer.ip(), Instant::now())
    {
        let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
        let mut response = refuse(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!(
                "too many requests from {}; try again in {seconds} s",
                peer.ip()
            ),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        return Err(Box::new(response));
    }
    Ok(())
}

/// The credentials of an `Authorization: Bearer …` value; the scheme is case-insensitive
/// (RFC 9110 §11.1).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, credentials) = value.trim_start().split_once([' ', '\t'])?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
}

/// A ToolResult error with `status`.
pub(super) fn refuse(status: StatusCode, code: ErrorCode, message: String) -> Response {
    result_response(status, &ToolResult::from(ToolError::new(code, message)))
}

/// A ToolResult as a JSON response.
pub(super) fn result_response(status: StatusCode, result: &ToolResult) -> Response {
    let redacted;
    let result = match result.error.as_deref().map(crate::paths::redact_home) {
        Some(std::borrow::Cow::Owned(error)) => {
            redacted = ToolResult {
                error: Some(error),
                ..result.clone()
            };
            &redacted
        }
        _ => result,
    };
    let body = serde_json::to_vec(result).unwrap_or_else(|_| {
        br#"{"success":false,"error":"the result could not be serialised","errorCode":"INTERNAL_ERROR"}"#.to_vec()
    });
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer abc"), Some("abc"));
        assert_eq!(bearer("BEARER  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearerabc"), None);
    }
}
