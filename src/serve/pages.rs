//! The tool pages over HTTP: the web UI (`/` for browsers, `/tools/{id}`), CTP embeds
//! (`/embed/{id}`, `?format=bundle`), the host script (`/embed.js`), the page assets, and the
//! resolver behind the UI's search (`/api/resolve?q=`). Embeds may be framed by loopback
//! pages, the --base-url origin and --allow-origin origins (`frame-ancestors`); every other
//! response keeps `X-Frame-Options: DENY`.

use super::documents;
use super::routes::State;
use crate::web::{self, Kind, style::Style};
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::Arc;

type Shared = axum::extract::State<Arc<State>>;

/// Marks a response that may be framed; responses without it get `X-Frame-Options: DENY`.
#[derive(Clone, Copy)]
pub(super) struct Framable;

pub(super) async fn frame_options(mut response: Response) -> Response {
    if response.extensions().get::<Framable>().is_none() {
        response
            .headers_mut()
            .entry(header::X_FRAME_OPTIONS)
            .or_insert(HeaderValue::from_static("DENY"));
    }
    response
}

/// Who may frame an embed: this machine's pages on any port, the --base-url origin and
/// the --allow-origin origins. (IPv6 literals have no CSP source syntax.)
fn frame_ancestors(state: &State) -> String {
    let mut sources = vec![
        "'self'".to_string(),
        "http://localhost:*".into(),
        "http://127.0.0.1:*".into(),
        "https://localhost:*".into(),
        "https://127.0.0.1:*".into(),
    ];
    let listed = state
        .config
        .base_url
        .iter()
        .chain(&state.config.allow_origins);
    for o in listed {
        if let Some(origin) = web::style::origin(o.trim_end_matches('/'))
            .or_else(|| {
                url::Url::parse(o)
                    .ok()
                    .map(|u| u.origin().ascii_serialization())
            })
            .filter(|o| o != "null")
        {
            sources.push(origin);
        }
    }
    format!("frame-ancestors {}", sources.join(" "))
}

fn html(page: web::page::Rendered, frame: Option<String>) -> Response {
    let csp = format!(
        "{}; {}",
        page.csp,
        frame.as_deref().unwrap_or("frame-ancestors 'none'")
    );
    let mut response = (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        page.html,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&csp) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, v);
    }
    if frame.is_some() {
        response.extensions_mut().insert(Framable);
    }
    response
}

fn unknown(id: &str) -> Response {
    super::guard::result_response(
        StatusCode::NOT_FOUND,
        &crate::ctp::ToolResult::from(crate::exec::not_found(id)),
    )
}

/// `/`: the web UI for a browser (it asks for text/html), the JSON index for everyone else.
pub(super) async fn root(state: Shared, headers: HeaderMap) -> Response {
    let wants_html = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    if wants_html {
        html(web::index::render(), None)
    } else {
        documents::index(state, headers).await
    }
}

pub(super) async fn tool(Path(id): Path<String>) -> Response {
    match crate::catalogue::get(&id) {
        Some(def) => html(web::render(&def, Kind::Tool), None),
        None => unknown(&id),
    }
}

pub(super) async fn embed(
    state: Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(def) = crate::catalogue::get(&id) else {
        return unknown(&id);
    };
    let style = Style::from_query(&query);
    let page = match query.get("format").map(String::as_str) {
        None | Some("html") => web::render(&def, Kind::Embed(&style)),
        Some("bundle") => {
            let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
            web::render(
                &def,
                Kind::Bundle {
                    style: &style,
                    api: state.base_url(host),
                },
            )
        }
        Some(other) => {
            return super::guard::refuse(
                StatusCode::BAD_REQUEST,
                crate::ctp::ErrorCode::InvalidInput,
                format!(
                    "format '{}' is not one this server writes; leave it out for the embed page, or ask for format=bundle",
                    crate::text::preview(other, 40)
                ),
            );
        }
    };
    html(page, Some(frame_ancestors(&state)))
}

/// `/embed.js`, loaded by pages on other origins.
pub(super) async fn embed_js() -> Response {
    asset_response("embed.js").unwrap_or_else(|| unknown("embed.js"))
}

pub(super) async fn asset(uri: axum::http::Uri, Path(name): Path<String>) -> Response {
    match asset_response(&name) {
        Some(r) => r,
        None => documents::not_found(uri).await,
    }
}

fn asset_response(name: &str) -> Option<Response> {
    let (content_type, text) = web::assets::get(name)?;
    Some(
        (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                (
                    header::HeaderName::from_static("cross-origin-resource-policy"),
                    HeaderValue::from_static("cross-origin"),
                ),
            ],
            text,
        )
            .into_response(),
    )
}

/// `/api/resolve?q=…&top=N`: catalogue tools for a request, best first.
pub(super) async fn resolve(Query(query): Query<HashMap<String, String>>) -> Response {
    let q = query.get("q").cloned().unwrap_or_default();
    let top = query
        .get("top")
        .and_then(|t| t.parse::<usize>().ok())
        .unwrap_or(8);
    match tokio::task::spawn_blocking(move || web::index::search(&q, top)).await {
        Ok(body) => axum::Json(body).into_response(),
        Err(_) => super::guard::refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            crate::ctp::ErrorCode::InternalError,
            "the search failed; this is a bug in cmpx".into(),
        ),
    }
}
