//! The discovery documents, served: the same renderers as `cmpx discover`, with URLs naming the
//! address the request reached (or --base-url), each with its Content-Type.

use super::guard;
use super::routes::State;
use crate::discovery::Options;
use crate::discovery::documents::Format;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

type Shared = axum::extract::State<Arc<State>>;

/// Rendered documents by (format, base URL): the catalogue is fixed for the process, and a
/// client asks by few names. Bounded, since the Host header picks the key.
type Rendered = Mutex<HashMap<(&'static str, String), Arc<str>>>;

fn cache() -> &'static Rendered {
    static CACHE: OnceLock<Rendered> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}
const CACHE_ENTRIES: usize = 64;

fn options(state: &State, headers: &HeaderMap) -> Options {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let mut opts = Options::new(&state.base_url(host)).unwrap_or_default();
    opts.bearer = state.config.token.is_some();
    opts
}

fn render(state: &State, headers: &HeaderMap, format: Format) -> Arc<str> {
    let opts = options(state, headers);
    let key = (format.name(), opts.base_url.clone());
    if let Some(text) = cache().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return text.clone();
    }
    let text: Arc<str> = format.render(crate::catalogue::all(), &opts).into();
    let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(key, text.clone());
    text
}

fn document(content_type: &'static str, text: Arc<str>) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        text.to_string(),
    )
        .into_response()
}

const JSON: &str = "application/json";
const TEXT: &str = "text/plain; charset=utf-8";

pub(super) async fn ctp_manifest(state: Shared, headers: HeaderMap) -> Response {
    document(JSON, render(&state, &headers, Format::CtpManifest))
}

pub(super) async fn ai_plugin(state: Shared, headers: HeaderMap) -> Response {
    document(JSON, render(&state, &headers, Format::AiPlugin))
}

pub(super) async fn openapi(state: Shared, headers: HeaderMap) -> Response {
    document(
        "application/yaml; charset=utf-8",
        render(&state, &headers, Format::OpenApi),
    )
}

pub(super) async fn ai_tools(state: Shared, headers: HeaderMap) -> Response {
    document(JSON, render(&state, &headers, Format::AiTools))
}

pub(super) async fn llms_txt(state: Shared, headers: HeaderMap) -> Response {
    document(TEXT, render(&state, &headers, Format::LlmsTxt))
}

pub(super) async fn llms_full_txt(state: Shared, headers: HeaderMap) -> Response {
    document(TEXT, render(&state, &headers, Format::LlmsFullTxt))
}

/// `/docs/<id>.md`: a tool's specification, as `cmpx doc <id>` prints it.
pub(super) async fn tool_doc(Path(file): Path<String>) -> Response {
    let Some(def) = file.strip_suffix(".md").and_then(crate::catalogue::get) else {
        let id = file.strip_suffix(".md").unwrap_or(&file);
        return guard::result_response(
            StatusCode::NOT_FOUND,
            &crate::ctp::ToolResult::from(crate::exec::not_found(id)),
        );
    };
    document(
        "text/markdown; charset=utf-8",
        crate::discovery::tool_doc::markdown(&def).into(),
    )
}

/// `/`: what this server offers and where.
pub(super) async fn index(state: Shared, headers: HeaderMap) -> Response {
    let opts = options(&state, &headers);
    let body = json!({
        "name": crate::discovery::SERVICE_NAME,
        "version": env!("CARGO_PKG_VERSION"),
        "description": crate::discovery::SERVICE_DESCRIPTION,
        "tools": crate::catalogue::all().len(),
        "endpoints": {
            "tools": opts.url("api/tools"),
            "call": format!("POST {}/api/tools/<id> with a JSON, form or multipart body", opts.base_url),
            "ctpManifest": opts.url(".well-known/ctp-manifest.json"),
            "openapi": opts.url("api/openapi.yaml"),
            "aiTools": opts.url("api/ai-tools.json"),
            "aiPlugin": opts.url(".well-known/ai-plugin.json"),
            "llmsTxt": opts.url("llms.txt"),
            "llmsFullTxt": opts.url("llms-full.txt"),
            "docs": opts.url("docs/<id>.md"),
        },
    });
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(JSON))],
        serde_json::to_string_pretty(&body).unwrap_or_default(),
    )
        .into_response()
}

pub(super) async fn not_found(uri: axum::http::Uri) -> Response {
    guard::refuse(
        StatusCode::NOT_FOUND,
        crate::ctp::ErrorCode::NotFound,
        format!(
            "no such path '{}'; GET / lists what this server offers",
            crate::text::escape_control(&crate::text::preview(uri.path(), 100))
        ),
    )
}
