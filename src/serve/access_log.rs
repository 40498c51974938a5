//! The access log on stderr: client, method, path, status and time; never the query string or
//! the body, which carry parameter values.

use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::Response;
use std::net::SocketAddr;
use std::time::Instant;

pub(super) async fn log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = crate::text::escape_control(&crate::text::preview(
        &without_keys(request.uri().path()),
        200,
    ));
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "-".to_string());
    let response = next.run(request).await;
    // Through the non-blocking sink: a stderr nobody reads must not stall the runtime.
    crate::log_line!(
        "{peer} {method} {path} {} {:.1} ms",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1e3
    );
    response
}

/// BTCP owner keys and tokens travel in paths (`/btcp/k/KEY/…`, `/btcp/a/KEY/…`): never logged.
fn without_keys(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        ["", "btcp", kind @ ("k" | "a"), _, rest @ ..] => {
            format!("/btcp/{kind}/…/{}", rest.join("/"))
        }
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn btcp_keys_stay_out_of_the_log() {
        assert_eq!(
            super::without_keys("/btcp/k/owner-key-0123456789/events"),
            "/btcp/k/…/events"
        );
        assert_eq!(
            super::without_keys("/btcp/a/secret-token-0123456789/message"),
            "/btcp/a/…/message"
        );
        assert_eq!(super::without_keys("/btcp/events"), "/btcp/events");
        assert_eq!(super::without_keys("/api/tools/k"), "/api/tools/k");
    }
}
