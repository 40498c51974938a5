//! A request's parameters as one JSON object: a JSON body, a form body (CTP's URLSearchParams),
//! multipart/form-data (FormData; a file part for a `file` parameter becomes its Base64), or the
//! query string of a GET. Values stay raw here: the executor normalises them (CTP §7.2) with
//! the same code the command line uses.

use super::guard;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::{StatusCode, header};
use base64::Engine;
use serde_json::{Map, Value};

use crate::ctp::{ErrorCode, ParamType, ToolDefinition};

use super::guard::Refusal;

fn invalid(message: String) -> Refusal {
    Box::new(guard::refuse(
        StatusCode::BAD_REQUEST,
        ErrorCode::InvalidInput,
        message,
    ))
}

pub(super) fn too_large(max: u64) -> Refusal {
    Box::new(guard::refuse(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::InvalidInput,
        format!(
            "the request body is larger than {}, the input limit (CMPX_MAX_INPUT on the server)",
            crate::limits::human(max)
        ),
    ))
}

/// The parameters of a POST, by its Content-Type.
pub(super) async fn from_body(
    def: &ToolDefinition,
    request: Request,
    max: u64,
) -> Result<Map<String, Value>, Refusal> {
    // serve::intake has read the body whole and refused one over the limit.
    let media = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    match media.as_deref() {
        Some("multipart/form-data") => from_multipart(def, request, max).await,
        Some("application/json") | Some("application/x-www-form-urlencoded") | None => {
            let is_form = media.as_deref() == Some("application/x-www-form-urlencoded");
            let bytes = Bytes::from_request(request, &()).await.map_err(|e| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    too_large(max)
                } else {
                    invalid(format!(
                        "could not read the request body: {}",
                        e.body_text()
                    ))
                }
            })?;
            if bytes.is_empty() {
                return Ok(Map::new());
            }
            if is_form {
                from_pairs(&bytes)
            } else if media.is_none() {
                Err(Box::new(guard::refuse(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    ErrorCode::InvalidInput,
                    "the body has no Content-Type; send application/json, application/x-www-form-urlencoded or multipart/form-data".to_string(),
                )))
            } else {
                from_json(&bytes)
            }
        }
        Some(other) => Err(Box::new(guard::refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::InvalidInput,
            format!(
                "Content-Type '{}' is not accepted; send application/json, application/x-www-form-urlencoded or multipart/form-data",
                crate::text::escape_control(&crate::text::preview(other, 60))
            ),
        ))),
    }
}

/// The parameters of a GET, from its query string.
pub(super) fn from_query(query: Option<&str>) -> Result<Map<String, Value>, Refusal> {
    from_pairs(query.unwrap_or("").as_bytes())
}

fn from_json(bytes: &[u8]) -> Result<Map<String, Value>, Refusal> {
    // A body may nest deeply; the depth check keeps serde_json's recursion bounded (it stops
    // at 128 levels on its own) and names where it stopped.
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(invalid(format!(
            "the JSON body must be an object of parameters such as {{\"input\": \"…\"}}, not {}",
            kind(&other)
        ))),
        Err(e) => Err(invalid(format!("the body is not valid JSON: {e}"))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn from_pairs(bytes: &[u8]) -> Result<Map<String, Value>, Refusal> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes)
        .map_err(|e| invalid(format!("the form data does not decode: {e}")))?;
    let mut map = Map::new();
    for (name, value) in pairs {
        insert_once(&mut map, name, Value::String(value))?;
    }
    Ok(map)
}

fn insert_once(map: &mut Map<String, Value>, name: String, value: Value) -> Result<(), Refusal> {
    if map.contains_key(&name) {
        return Err(invalid(format!(
            "parameter '{}' is given twice; give each parameter once",
            crate::text::escape_control(&crate::text::preview(&name, 60))
        )));
    }
    map.insert(name, value);
    Ok(())
}

async fn from_multipart(
    def: &ToolDefinition,
    request: Request,
    max: u64,
) -> Result<Map<String, Value>, Refusal> {
    let mut form = Multipart::from_request(request, &()).await.map_err(|e| {
        invalid(format!(
            "the multipart body does not parse: {}",
            e.body_text()
        ))
    })?;
    let mut map = Map::new();
    loop {
        let field = match form.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large(max)),
            Err(e) => {
                return Err(invalid(format!(
                    "the multipart body does not parse: {}",
                    e.body_text()
                )));
            }
        };
        let Some(name) = field.name().map(String::from) else {
            return Err(invalid("a multipart part has no name".to_string()));
        };
        let bytes = field.bytes().await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large(max)
            } else {
                invalid(format!("could not read part '{name}': {}", e.body_text()))
            }
        })?;
        let is_file = def
            .parameters
            .iter()
            .any(|p| p.name == name && p.kind == ParamType::File);
        let value = if is_file {
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        } else {
            String::from_utf8(bytes.to_vec()).map_err(|e| {
                invalid(format!(
                    "part '{}' is not UTF-8 text (byte {}); binary data goes in a `file` parameter",
                    crate::text::escape_control(&crate::text::preview(&name, 60)),
                    e.utf8_error().valid_up_to()
                ))
            })?
        };
        insert_once(&mut map, name, Value::String(value))?;
    }
    Ok(map)
}
