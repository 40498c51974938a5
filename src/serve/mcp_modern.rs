//! The checks a 2026-07-28 request passes over HTTP before the engine sees it (the Streamable
//! HTTP transport of that revision): the `_meta` envelope, the routing headers that mirror the
//! body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), and the HTTP status a JSON-RPC
//! error is sent with. The handshake era keeps its own rules (`super::mcp`).

use crate::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use serde_json::{Map, Value, json};

/// The headers are missing, malformed, or disagree with the body.
pub(super) const HEADER_MISMATCH: i64 = -32020;
/// The client did not declare a capability the request needs.
const MISSING_CLIENT_CAPABILITY: i64 = -32021;
pub(super) use crate::jsonrpc::UNSUPPORTED_PROTOCOL_VERSION;

pub(super) const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// Why a request is refused: its JSON-RPC code and message.
pub(super) struct Refusal {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl Refusal {
    fn new(code: i64, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(super) fn body(&self, id: Value) -> Value {
        let message = self.message.as_str();
        match &self.data {
            Some(data) => crate::jsonrpc::error_data(id, self.code, message, data.clone()),
            None => crate::jsonrpc::error(id, self.code, message),
        }
    }
}

/// Every version cmpx speaks, newest first (what `server/discover` lists).
fn supported() -> Vec<&'static str> {
    std::iter::once(crate::mcp::MODERN)
        .chain(crate::mcp::LEGACY.iter().copied())
        .collect()
}

/// The answer to a version cmpx does not speak, naming those it does.
pub(super) fn unsupported(requested: &str) -> Refusal {
    Refusal {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: "Unsupported protocol version".into(),
        data: Some(json!({ "supported": supported(), "requested": requested })),
    }
}

/// The version a request's `_meta` names, if any.
pub(super) fn meta_version(params: &Map<String, Value>) -> Option<&str> {
    params.get("_meta")?.get(META_VERSION)?.as_str()
}

/// A routing header sent more than once: readers taking the first or the last copy would
/// disagree, so the request is refused.
pub(super) fn duplicated(headers: &HeaderMap) -> Option<Refusal> {
    [VERSION_HEADER, METHOD_HEADER, NAME_HEADER]
        .into_iter()
        .find(|name| headers.get_all(*name).iter().count() > 1)
        .map(|name| {
            Refusal::new(
                HEADER_MISMATCH,
                format!("the {name} header appears more than once"),
            )
        })
}

/// The envelope and header checks of a 2026-07-28 request, first failure first: `_meta` carries
/// the protocol version and client capabilities (-32602); the headers equal the body
/// (-32020), checked before the version so a client that contradicts itself is told so; the
/// version is one cmpx speaks (-32022).
pub(super) fn check(
    headers: &HeaderMap,
    method: &str,
    params: &Map<String, Value>,
) -> Result<(), Refusal> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!(
                "params._meta must be an object holding {META_VERSION} and {META_CAPABILITIES}"
            ),
        ));
    };
    let missing: Vec<&str> = [META_VERSION, META_CAPABILITIES]
        .into_iter()
        .filter(|k| !meta.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!("params._meta lacks {}", missing.join(" and ")),
        ));
    }
    let version = meta.get(META_VERSION);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if header(VERSION_HEADER).is_none() || header(VERSION_HEADER) != version.and_then(Value::as_str)
    {
        return Err(Refusal::new(
            HEADER_MISMATCH,
            format!("the MCP-Protocol-Version header must equal params._meta's {META_VERSION}"),
        ));
    }
    if header(METHOD_HEADER) != Some(method) {
        return Err(Refusal::new(
            HEADER_MISMATCH,
            match header(METHOD_HEADER) {
                None => format!("the Mcp-Method header is required (here: {method})"),
                Some(m) => format!(
                    "the Mcp-Method header says '{}' but the body's method is '{method}'",
                    crate::text::preview(m, 60)
                ),
            },
        ));
    }
    let name_key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(key) = name_key
        && let Some(body_name) = params.get(key).and_then(Value::as_str)
        && header(NAME_HEADER).and_then(decode_header_value).as_deref() != Some(body_name)
    {
        return Err(Refusal::new(
            HEADER_MISMATCH,
            format!(
                "the Mcp-Name header must equal params.{key} ('{}')",
                crate::text::preview(body_name, 60)
            ),
        ));
    }
    match version {
        Some(Value::String(v)) if v == crate::mcp::MODERN => Ok(()),
        Some(Value::String(v)) => Err(unsupported(v)),
        _ => Err(Refusal::new(
            INVALID_PARAMS,
            format!("{META_VERSION} must be a string"),
        )),
    }
}

/// A header value as sent: verbatim, or the UTF-8 inside a `=?base64?…?=` sentinel (how
/// clients send names that are not plain ASCII). A malformed sentinel matches nothing.
fn decode_header_value(raw: &str) -> Option<String> {
    let Some(payload) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Some(raw.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// The HTTP status a 2026-07-28 JSON-RPC error is sent with: 404 for a method the server does
/// not have, 400 for a request it will not take, 200 otherwise (an error from a method that ran).
pub(super) fn status_for(error_code: i64) -> StatusCode {
    match error_code {
        METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        PARSE_ERROR
        | INVALID_REQUEST
        | INVALID_PARAMS
        | HEADER_MISMATCH
        | MISSING_CLIENT_CAPABILITY
        | UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn params(meta: Value, name: Option<&str>) -> Map<String, Value> {
        let mut p = json!({ "_meta": meta });
        if let Some(n) = name {
            p["name"] = json!(n);
        }
        p.as_object().cloned().unwrap()
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn full_meta() -> Value {
        json!({ META_VERSION: "2026-07-28", META_CAPABILITIES: {} })
    }

    fn code(r: Result<(), Refusal>) -> i64 {
        r.err().map_or(0, |e| e.code)
    }

    #[test]
    fn the_ladder_refuses_in_order() {
        let good = headers(&[
            (VERSION_HEADER, "2026-07-28"),
            (METHOD_HEADER, "tools/call"),
            (NAME_HEADER, "base64-encoder"),
        ]);
        let call = |meta: Value, h: &HeaderMap, name: &str| {
            code(check(h, "tools/call", &params(meta, Some(name))))
        };
        assert_eq!(call(full_meta(), &good, "base64-encoder"), 0);
        assert_eq!(call(json!(null), &good, "base64-encoder"), INVALID_PARAMS);
        assert_eq!(
            call(
                json!({ META_VERSION: "2026-07-28" }),
                &good,
                "base64-encoder"
            ),
            INVALID_PARAMS
        );
        assert_eq!(call(full_meta(), &good, "hash-generator"), HEADER_MISMATCH);
        let no_name = headers(&[
            (VERSION_HEADER, "2026-07-28"),
            (METHOD_HEADER, "tools/call"),
        ]);
        assert_eq!(
            call(full_meta(), &no_name, "base64-encoder"),
            HEADER_MISMATCH
        );
        let upper = headers(&[
            (VERSION_HEADER, "2026-07-28"),
            (METHOD_HEADER, "TOOLS/CALL"),
            (NAME_HEADER, "base64-encoder"),
        ]);
        assert_eq!(call(full_meta(), &upper, "base64-encoder"), HEADER_MISMATCH);
        // The header and the body disagree on the version: a mismatch, not "unsupported".
        let v999 = json!({ META_VERSION: "v999", META_CAPABILITIES: {} });
        assert_eq!(call(v999.clone(), &good, "base64-encoder"), HEADER_MISMATCH);
        let both = headers(&[
            (VERSION_HEADER, "v999"),
            (METHOD_HEADER, "tools/call"),
            (NAME_HEADER, "base64-encoder"),
        ]);
        let refusal = check(&both, "tools/call", &params(v999, Some("base64-encoder")))
            .err()
            .unwrap();
        assert_eq!(refusal.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(refusal.body(json!(7))["error"]["data"]["requested"], "v999");
        assert_eq!(refusal.body(json!(7))["id"], 7);
    }

    #[test]
    fn names_may_come_base64_encoded_and_headers_only_once() {
        let h = headers(&[
            (VERSION_HEADER, "2026-07-28"),
            (METHOD_HEADER, "tools/call"),
            (NAME_HEADER, "=?base64?w6ljaG8=?="),
        ]);
        assert_eq!(
            code(check(&h, "tools/call", &params(full_meta(), Some("écho")))),
            0
        );
        assert_eq!(decode_header_value("=?base64?***?="), None);
        let twice = headers(&[(METHOD_HEADER, "tools/list"), (METHOD_HEADER, "tools/list")]);
        assert_eq!(duplicated(&twice).map(|r| r.code), Some(HEADER_MISMATCH));
        assert!(duplicated(&h).is_none());
    }

    #[test]
    fn statuses_follow_the_error_code() {
        assert_eq!(status_for(METHOD_NOT_FOUND), StatusCode::NOT_FOUND);
        assert_eq!(status_for(HEADER_MISMATCH), StatusCode::BAD_REQUEST);
        assert_eq!(status_for(INVALID_PARAMS), StatusCode::BAD_REQUEST);
        assert_eq!(status_for(-32603), StatusCode::OK);
    }
}
