//! JSON-RPC 2.0 as MCP and BTCP speak it: every envelope either sends (requests,
//! notifications, results, errors) and the error codes; and the line-delimited wire, strictly:
//! one message per line, each line capped while it is read (so a huge line never sits in
//! memory whole), every malformed message sorted into the answer JSON-RPC 2.0 prescribes, with
//! its id whenever the id can be recovered from the bytes.

use serde_json::{Map, Value, json};
use std::io::{BufRead, Read};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// 2026-07-28: the request's protocol version is not one this server speaks.
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Bytes of an over-long line kept to recover its id from.
const HEAD: usize = 64 << 10;

/// The longest line read: the input limit (CMPX_MAX_INPUT) plus room for the envelope.
pub(crate) fn line_cap() -> u64 {
    crate::limits::max_input().saturating_add(1 << 20)
}

pub(crate) enum Line {
    /// A whole line without its newline.
    Message(Vec<u8>),
    /// A line past the cap: its first bytes, the rest read and dropped.
    TooLong(Vec<u8>),
}

/// The next non-blank line, `None` at end of input. A line past `cap` is read to its end
/// but not kept, so memory stays at about `cap` whatever comes in.
pub(crate) fn read_line(input: &mut impl BufRead, cap: u64) -> std::io::Result<Option<Line>> {
    loop {
        let mut line = Vec::new();
        let read = input
            .by_ref()
            .take(cap.saturating_add(1))
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') && line.len() as u64 > cap {
            line.truncate(HEAD);
            line.shrink_to_fit();
            skip_line(input)?;
            return Ok(Some(Line::TooLong(line)));
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(Line::Message(line)));
        }
    }
}

/// Reads and drops the rest of a line.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// The answer to a line past the cap: an error with the id found in its first bytes, or
/// nothing when those bytes read as a notification.
pub(crate) fn too_long(head: &[u8], cap: u64) -> Option<Value> {
    let id = recover_id(head);
    if id.is_null() && mentions_method_without_id(head) {
        return None;
    }
    Some(error(
        id,
        INVALID_REQUEST,
        format!(
            "the message is larger than {} and was not processed (raise {} to allow larger inputs, or pass a file path instead)",
            crate::limits::human(cap),
            crate::limits::MAX_INPUT_ENV
        ),
    ))
}

/// An error answer to request `id` (null when the id could not be read).
pub(crate) fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into() } })
}

/// An error answer carrying `data` (what the client can act on: versions spoken, a URI…).
pub(crate) fn error_data(id: Value, code: i64, message: impl Into<String>, data: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into(), "data": data } })
}

/// The result of request `id`.
pub(crate) fn reply(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// A request of ours, answered under `id`.
pub(crate) fn request(id: Value, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A notification: never answered; `params` left out when there are none.
pub(crate) fn notification(method: &str, params: Option<Value>) -> Value {
    match params {
        Some(params) => json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        None => json!({ "jsonrpc": "2.0", "method": method }),
    }
}

/// Whether a message says it is JSON-RPC 2.0 (`"jsonrpc": "2.0"`).
pub(crate) fn is_2_0(msg: &Value) -> bool {
    msg.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
}

/// A JSON-RPC id MCP accepts: a string or an integer (not null, a fraction, an object…).
pub(crate) fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// One message, sorted.
pub enum Message {
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// An answer to a request of ours.
    Response { id: Value, body: Map<String, Value> },
    /// Malformed: the error to send back (already carrying the id, or null).
    Invalid(Value),
    /// Nothing to do and nothing to answer (a malformed notification or response).
    Ignore,
}

/// Parses and checks one line.
pub(crate) fn classify(line: &[u8]) -> Message {
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(v) => v,
        Err(e) => {
            let id = recover_id(line);
            // serde_json stops at 128 levels; the message may be fine JSON nested deeper.
            return if e.to_string().starts_with("recursion limit exceeded") {
                Message::Invalid(error(
                    id,
                    INVALID_PARAMS,
                    "the message nests more than 127 levels deep; flatten the arguments",
                ))
            } else if id.is_null() && mentions_method_without_id(line) {
                // Broken JSON that reads as a notification: notifications are never answered.
                Message::Ignore
            } else {
                Message::Invalid(error(id, PARSE_ERROR, format!("parse error: {e}")))
            };
        }
    };
    let Value::Object(mut msg) = value else {
        let what = if value.is_array() {
            "batches (JSON arrays) are not accepted; send one message per line"
        } else {
            "a JSON-RPC message must be an object"
        };
        return Message::Invalid(error(Value::Null, INVALID_REQUEST, what));
    };
    let id = msg.get("id").cloned();
    let good_id = id.clone().filter(valid_id);
    let version_ok = msg.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    match msg.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => {
            return Message::Invalid(error(
                good_id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "'method' must be a string",
            ));
        }
        None => {
            if msg.contains_key("result") || msg.contains_key("error") {
                // Responses are never answered, whatever is wrong with them.
                return match good_id {
                    Some(id) if version_ok => Message::Response { id, body: msg },
                    _ => Message::Ignore,
                };
            }
            return Message::Invalid(error(
                good_id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "not a request: 'method' is missing",
            ));
        }
    }
    let method = match msg.remove("method") {
        Some(Value::String(m)) => m,
        _ => String::new(),
    };
    let params = match msg.remove("params") {
        None => Some(Map::new()),
        Some(Value::Object(p)) => Some(p),
        Some(_) => None,
    };
    let Some(id) = id else {
        // A notification: never answered, even when malformed.
        return match (version_ok, params) {
            (true, Some(params)) => Message::Notification { method, params },
            _ => Message::Ignore,
        };
    };
    let Some(id) = good_id else {
        return Message::Invalid(error(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "invalid id {}: an id is a string or an integer",
                preview(&id)
            ),
        ));
    };
    if !version_ok {
        return Message::Invalid(error(id, INVALID_REQUEST, "'jsonrpc' must be \"2.0\""));
    }
    match params {
        Some(params) => Message::Request { id, method, params },
        None => Message::Invalid(error(id, INVALID_PARAMS, "'params' must be an object")),
    }
}

fn preview(v: &Value) -> String {
    crate::text::preview(&v.to_string(), 40)
}

/// The top-level `"id"` of a message that does not parse (too deep, too long, broken
/// later on): a string or integer value found at depth one, else null.
pub(crate) fn recover_id(bytes: &[u8]) -> Value {
    top_level_value(bytes, "id")
        .filter(valid_id)
        .unwrap_or(Value::Null)
}

/// Whether the top level has a `"method"` key and no `"id"`: a notification.
fn mentions_method_without_id(bytes: &[u8]) -> bool {
    top_level_key(bytes, "method").is_some() && top_level_key(bytes, "id").is_none()
}

fn top_level_value(bytes: &[u8], key: &str) -> Option<Value> {
    let at = top_level_key(bytes, key)?;
    let mut values = serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<Value>();
    values.next()?.ok()
}

/// The offset just past `"key":` (and blanks) at depth one of an object, scanning tokens
/// without building anything, so depth and size do not matter.
fn top_level_key(bytes: &[u8], key: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    // Whether the string that starts next is in key position at depth one.
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
                i += 1;
            }
            b'[' => {
                depth += 1;
                expect_key = false;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' => {
                expect_key = depth == 1;
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let is_key = expect_key && bytes.get(start..j) == Some(key.as_bytes());
                expect_key = false;
                i = j + 1;
                if is_key {
                    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if bytes.get(i) == Some(&b':') {
                        i += 1;
                        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                            i += 1;
                        }
                        return Some(i);
                    }
                }
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Option<Value> {
        match classify(line.as_bytes()) {
            Message::Invalid(e) => Some(e),
            _ => None,
        }
    }

    #[test]
    fn ids_are_recovered_from_what_does_not_parse() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"arguments":{{"x":{}1{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let e = answer(&deep).unwrap();
        assert_eq!(e["id"], 7);
        assert_eq!(e["error"]["code"], INVALID_PARAMS);
        let e = answer(r#"{"jsonrpc":"2.0","id":"a\"b","method":"x","params":{"#).unwrap();
        assert_eq!(e["id"], "a\"b");
        assert_eq!(e["error"]["code"], PARSE_ERROR);
        // An "id" inside the params is not the message's.
        let e = answer(r#"{"jsonrpc":"2.0","params":{"id":3} oops"#).unwrap();
        assert_eq!(e["id"], Value::Null);
        assert_eq!(recover_id(br#"{"jsonrpc":"2.0","id":1.5,"#), Value::Null);
    }

    #[test]
    fn each_malformed_message_gets_the_prescribed_answer() {
        let e = answer("{}").unwrap();
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (Value::Null, json!(INVALID_REQUEST))
        );
        let e = answer(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#).unwrap();
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (json!(3), json!(INVALID_REQUEST))
        );
        for id in ["1.5", "{}", "null", "true", "[1]"] {
            let e = answer(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).unwrap();
            assert_eq!(e["id"], Value::Null, "{id}");
            assert_eq!(e["error"]["code"], INVALID_REQUEST, "{id}");
        }
        let e = answer(r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}"#).unwrap();
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (json!(4), json!(INVALID_PARAMS))
        );
        let e = answer(r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#).unwrap();
        assert_eq!(e["error"]["code"], INVALID_REQUEST);
        assert_eq!(answer("5").unwrap()["error"]["code"], INVALID_REQUEST);
        // Notifications and responses are never answered, even malformed ones.
        for quiet in [
            r#"{"jsonrpc":"1.0","method":"notifications/x"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#,
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"#,
        ] {
            assert!(answer(quiet).is_none(), "{quiet}");
        }
    }

    #[test]
    fn long_lines_are_cut_and_skipped() {
        let mut input: &[u8] = b"{\"id\":1,\"x\":\"0123456789\"}\n{\"id\":2}\n\n  \nlast";
        match read_line(&mut input, 10).unwrap() {
            Some(Line::TooLong(head)) => assert_eq!(recover_id(&head), json!(1)),
            _ => panic!("not cut"),
        }
        assert!(
            matches!(read_line(&mut input, 10).unwrap(), Some(Line::Message(m)) if m == b"{\"id\":2}")
        );
        assert!(
            matches!(read_line(&mut input, 10).unwrap(), Some(Line::Message(m)) if m == b"last")
        );
        assert!(read_line(&mut input, 10).unwrap().is_none());
    }
}
