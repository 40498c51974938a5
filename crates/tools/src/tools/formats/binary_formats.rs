//! Binary data formats ⇄ JSON: MessagePack (rmp-serde), CBOR (RFC 8949, ciborium) and Apple
//! property lists (plist, XML or binary).
//!
//! MessagePack and CBOR are decoded into one intermediate value, [`Item`], which keeps what JSON
//! cannot say directly (byte strings, non-string map keys, CBOR tags, MessagePack extension
//! types); its JSON rendering shows those in a documented way and lists what it did in `notes`.

use crate::tools::json;
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::budget::{self, MAX_VALUES};
use crate::tools::kit::depth::{self, JSON_DEPTH};
use crate::tools::kit::tool::Tool;

mod census;
use crate::ctp::{ToolError, ToolOutcome};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value, json};
use std::cell::Cell;
use std::fmt::{self, Write as _};
use std::io::Cursor;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("messagepack-converter", messagepack_converter),
    Tool::new("cbor-converter", cbor_converter),
    Tool::new("plist-converter", plist_converter),
];

// ---- binary text (hex or Base64) ------------------------------------------------------------

/// Reads binary data written as hex (whitespace, `0x` prefixes and `:`/`,` separators allowed)
/// or Base64, as the `encoding` option says.
pub(crate) fn read_binary(text: &str, encoding: &str) -> Result<Vec<u8>, ToolError> {
    if encoding == "base64" {
        return decode_base64_param("input", text);
    }
    crate::tools::encoding::encoders::parse_hex(text).map_err(|e| {
        ToolError::invalid(format!(
            "input is not hex: {} (choose encoding 'base64' for Base64 input)",
            e.message
        ))
    })
}

/// Binary output as lowercase hex or standard Base64.
fn write_binary(bytes: &[u8], encoding: &str) -> String {
    if encoding == "base64" {
        STANDARD.encode(bytes)
    } else {
        hex::encode(bytes)
    }
}

/// The JSON input of an encoder.
fn parse_json_input(args: &Args) -> Result<Value, ToolError> {
    json::parse_value(args.str("input")?)
}

// ---- the intermediate value -----------------------------------------------------------------

/// A decoded MessagePack or CBOR data item.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
    Array(Vec<Item>),
    Map(Vec<(Item, Item)>),
    /// A CBOR tag (RFC 8949 §3.4).
    Tag(u64, Box<Item>),
    /// A MessagePack extension type.
    Ext(i8, Vec<u8>),
}

impl From<ciborium::Value> for Item {
    fn from(v: ciborium::Value) -> Self {
        use ciborium::Value as V;
        match v {
            V::Null => Item::Null,
            V::Bool(b) => Item::Bool(b),
            V::Integer(i) => Item::Int(i128::from(i)),
            V::Float(f) => Item::Float(f),
            V::Text(s) => Item::Text(s),
            V::Bytes(b) => Item::Bytes(b),
            V::Array(a) => Item::Array(a.into_iter().map(Item::from).collect()),
            V::Map(m) => Item::Map(
                m.into_iter()
                    .map(|(k, v)| (Item::from(k), Item::from(v)))
                    .collect(),
            ),
            V::Tag(t, v) => Item::Tag(t, Box::new(Item::from(*v))),
            // `Value` is non-exhaustive; every current variant is handled above.
            _ => Item::Null,
        }
    }
}

thread_local! {
    /// MessagePack items decoded so far in this call: the visitor has no state of its own.
    static ITEMS: Cell<usize> = const { Cell::new(0) };
}

fn too_many_items(what: &str) -> ToolError {
    budget::too_many(
        what,
        "values",
        "every value becomes a node of about a hundred bytes: decode a smaller piece",
    )
}

/// rmp-serde hands MessagePack values to a self-describing visitor; extension types arrive as a
/// newtype struct holding `(type, bytes)`. Stops after [`MAX_VALUES`] items.
impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = ITEMS.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        if n > MAX_VALUES {
            return Err(de::Error::custom("too many values"));
        }
        d.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a MessagePack value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Item, E> {
        Ok(Item::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Item, E> {
        Ok(Item::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Item, E> {
        Ok(Item::Int(v.into()))
    }
    fn visit_f32<E>(self, v: f32) -> Result<Item, E> {
        Ok(Item::Float(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Item, E> {
        Ok(Item::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Item, E> {
        Ok(Item::Text(v.to_string()))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Item, E> {
        Ok(Item::Bytes(v.to_vec()))
    }
    fn visit_unit<E>(self) -> Result<Item, E> {
        Ok(Item::Null)
    }
    fn visit_none<E>(self) -> Result<Item, E> {
        Ok(Item::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Item, D::Error> {
        Item::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Item, D::Error> {
        match Item::deserialize(d)? {
            Item::Array(parts) => match parts.as_slice() {
                [Item::Int(t), Item::Bytes(b)] => i8::try_from(*t)
                    .map(|t| Item::Ext(t, b.clone()))
                    .map_err(|_| de::Error::custom("extension type out of range")),
                _ => Ok(Item::Array(parts)),
            },
            other => Ok(other),
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Item::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Item::Map(entries))
    }
}

/// Converts decoded items to JSON, recording each liberty taken once.
#[derive(Default)]
struct ToJson {
    notes: Vec<String>,
}

impl ToJson {
    fn note(&mut self, text: &str) {
        if !self.notes.iter().any(|n| n == text) {
            self.notes.push(text.to_string());
        }
    }

    fn value(&mut self, item: &Item) -> Value {
        match item {
            Item::Null => Value::Null,
            Item::Bool(b) => Value::Bool(*b),
            Item::Int(i) => {
                if let Ok(v) = i64::try_from(*i) {
                    v.into()
                } else if let Ok(v) = u64::try_from(*i) {
                    v.into()
                } else {
                    self.note("integers beyond the 64-bit range are shown as decimal strings");
                    Value::String(i.to_string())
                }
            }
            Item::Float(f) => match Number::from_f64(*f) {
                Some(n) => Value::Number(n),
                None => {
                    self.note("NaN and infinities, which JSON lacks, are shown as strings");
                    Value::String(float_name(*f).to_string())
                }
            },
            Item::Text(s) => Value::String(s.clone()),
            Item::Bytes(b) => {
                self.note("byte strings are shown as Base64 text");
                Value::String(STANDARD.encode(b))
            }
            Item::Array(a) => Value::Array(a.iter().map(|i| self.value(i)).collect()),
            Item::Map(m) => {
                let mut out = Map::new();
                for (k, v) in m {
                    let key = match k {
                        Item::Text(s) => s.clone(),
                        other => {
                            self.note("non-string map keys are shown as their JSON text");
                            let key = self.value(other);
                            serde_json::to_string(&key).unwrap_or_default()
                        }
                    };
                    let value = self.value(v);
                    out.insert(key, value);
                }
                Value::Object(out)
            }
            Item::Tag(tag, inner) => {
                self.note("CBOR tags are shown as {\"tag\": number, \"value\": content}");
                json!({ "tag": tag, "value": self.value(inner) })
            }
            Item::Ext(kind, data) => {
                self.note(
                    "MessagePack extension types are shown as {\"extType\": type, \"data\": Base64}",
                );
                let mut out = json!({ "extType": kind, "data": STANDARD.encode(data) });
                if let Some(time) = (*kind == -1).then(|| msgpack_timestamp(data)).flatten() {
                    out["timestamp"] = Value::String(time);
                }
                out
            }
        }
    }
}

fn float_name(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// The MessagePack timestamp extension (type -1) in its 32, 64 and 96-bit layouts.
fn msgpack_timestamp(data: &[u8]) -> Option<String> {
    let (secs, nanos): (i64, u32) = match data.len() {
        4 => (i64::from(u32::from_be_bytes(data.try_into().ok()?)), 0),
        8 => {
            let v = u64::from_be_bytes(data.try_into().ok()?);
            ((v & 0x3_ffff_ffff) as i64, (v >> 34) as u32)
        }
        12 => (
            i64::from_be_bytes(data[4..].try_into().ok()?),
            u32::from_be_bytes(data[..4].try_into().ok()?),
        ),
        _ => return None,
    };
    let t = chrono::DateTime::from_timestamp(secs, nanos)?;
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// The decoder's answer: the JSON text, the value itself and any notes.
fn decoded(item: &Item, args: &Args, extra: Map<String, Value>) -> ToolOutcome {
    let mut conv = ToJson::default();
    let value = conv.value(item);
    let output = json::write_indented(&value, args.str("indent")?)?;
    let mut out = Map::new();
    out.insert("output".into(), Value::String(output));
    out.insert("value".into(), value);
    out.extend(extra);
    out.insert("notes".into(), json!(conv.notes));
    Ok(Value::Object(out))
}

fn trailing_error(format: &str, used: usize, total: usize) -> ToolError {
    ToolError::invalid(format!(
        "{format} value ends at byte {used} but the input has {total} bytes: {} trailing bytes after the first value",
        total - used
    ))
}

// ---- MessagePack ----------------------------------------------------------------------------

fn messagepack_converter(args: &Args) -> ToolOutcome {
    let mode = args.str("mode")?;
    let encoding = args.str("encoding")?;
    if mode == "encode" {
        let value = parse_json_input(args)?;
        let bytes = rmp_serde::to_vec(&value)
            .map_err(|e| ToolError::execution(format!("MessagePack encoding failed: {e}")))?;
        return Ok(json!({
            "output": write_binary(&bytes, encoding),
            "encoding": encoding,
            "size": bytes.len(),
        }));
    }
    let bytes = read_binary(args.str("input")?, encoding)?;
    if bytes.is_empty() {
        return Err(ToolError::invalid(
            "input is empty: no MessagePack bytes to decode",
        ));
    }
    let mut de = rmp_serde::Deserializer::new(Cursor::new(bytes.as_slice()));
    de.set_max_depth(JSON_DEPTH);
    ITEMS.with(|n| n.set(0));
    let item = Item::deserialize(&mut de).map_err(|e| {
        let at = usize::try_from(de.position()).unwrap_or(usize::MAX);
        match e {
            rmp_serde::decode::Error::DepthLimitExceeded => {
                depth::too_deep("input", JSON_DEPTH, depth::Place::Byte(at))
            }
            _ if ITEMS.with(Cell::get) > MAX_VALUES => too_many_items("the MessagePack"),
            e => ToolError::invalid(format!(
                "invalid MessagePack near byte {at}: {}",
                msgpack_error(&e)
            )),
        }
    })?;
    let used = usize::try_from(de.position()).unwrap_or(usize::MAX);
    if used < bytes.len() {
        return Err(trailing_error("the MessagePack", used, bytes.len()));
    }
    decoded(
        &item,
        args,
        Map::from_iter([("size".into(), json!(bytes.len()))]),
    )
}

fn msgpack_error(e: &rmp_serde::decode::Error) -> String {
    use rmp_serde::decode::Error as E;
    match e {
        E::InvalidMarkerRead(io) | E::InvalidDataRead(io)
            if io.kind() == std::io::ErrorKind::UnexpectedEof =>
        {
            "the data is truncated (unexpected end of input)".into()
        }
        other => other.to_string(),
    }
}

// ---- CBOR -----------------------------------------------------------------------------------

fn cbor_converter(args: &Args) -> ToolOutcome {
    let mode = args.str("mode")?;
    let encoding = args.str("encoding")?;
    if mode == "encode" {
        let value = parse_json_input(args)?;
        let mut bytes = Vec::new();
        ciborium::into_writer(&value, &mut bytes)
            .map_err(|e| ToolError::execution(format!("CBOR encoding failed: {e}")))?;
        return Ok(json!({
            "output": write_binary(&bytes, encoding),
            "encoding": encoding,
            "size": bytes.len(),
        }));
    }
    let bytes = read_binary(args.str("input")?, encoding)?;
    if bytes.is_empty() {
        return Err(ToolError::invalid(
            "input is empty: no CBOR bytes to decode",
        ));
    }
    count_cbor_items(&bytes)?;
    let mut cursor = Cursor::new(bytes.as_slice());
    let value: ciborium::Value =
        ciborium::de::from_reader_with_recursion_limit(&mut cursor, JSON_DEPTH).map_err(|e| {
            use ciborium::de::Error as E;
            match e {
                E::Io(_) => ToolError::invalid(
                    "invalid CBOR: the data is truncated (unexpected end of input)",
                ),
                E::Syntax(at) => {
                    ToolError::invalid(format!("invalid CBOR: malformed data item at byte {at}"))
                }
                E::Semantic(Some(at), m) => {
                    ToolError::invalid(format!("invalid CBOR at byte {at}: {m}"))
                }
                E::Semantic(None, m) => ToolError::invalid(format!("invalid CBOR: {m}")),
                E::RecursionLimitExceeded => {
                    depth::too_deep("input", JSON_DEPTH, depth::Place::Unknown)
                }
            }
        })?;
    let used = usize::try_from(cursor.position()).unwrap_or(usize::MAX);
    if used < bytes.len() {
        return Err(trailing_error("the CBOR", used, bytes.len()));
    }
    let item = Item::from(value);
    let diagnostic = diagnostic(&item);
    decoded(
        &item,
        args,
        Map::from_iter([
            ("diagnostic".into(), Value::String(diagnostic)),
            ("size".into(), json!(bytes.len())),
        ]),
    )
}

/// Refuses CBOR with more than [`MAX_VALUES`] data items before ciborium builds a tree of them,
/// by walking the item heads with ciborium's low-level decoder. Malformed data ends the walk
/// quietly: the real decode reports it.
fn count_cbor_items(bytes: &[u8]) -> Result<(), ToolError> {
    use ciborium_ll::{Decoder, Header};
    let mut decoder = Decoder::from(bytes);
    let mut scratch = vec![0u8; 64 << 10];
    let mut items = 0usize;
    loop {
        let header = match decoder.pull() {
            Ok(h) => h,
            Err(_) => return Ok(()),
        };
        if !matches!(header, Header::Break) {
            items += 1;
            if items > MAX_VALUES {
                return Err(too_many_items("the CBOR"));
            }
        }
        // Strings: skip the payload, every chunk of it (ciborium's segment types are not
        // nameable, hence a macro rather than a function).
        macro_rules! skip {
            ($segments:expr) => {{
                let mut segments = $segments;
                loop {
                    match segments.pull() {
                        Ok(Some(mut segment)) => loop {
                            match segment.pull(&mut scratch) {
                                Ok(Some(_)) => {}
                                Ok(None) => break,
                                Err(_) => return Ok(()),
                            }
                        },
                        Ok(None) => break,
                        Err(_) => return Ok(()),
                    }
                }
            }};
        }
        match header {
            Header::Bytes(len) => skip!(decoder.bytes(len)),
            Header::Text(len) => skip!(decoder.text(len)),
            _ => {}
        }
    }
}

/// RFC 8949 §8 diagnostic notation.
fn diagnostic(item: &Item) -> String {
    let mut out = String::new();
    write_diag(item, &mut out);
    out
}

fn write_diag(item: &Item, out: &mut String) {
    match item {
        Item::Null => out.push_str("null"),
        Item::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Item::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Item::Float(f) if !f.is_finite() => out.push_str(float_name(*f)),
        Item::Float(f) => {
            let text = format!("{f:?}");
            out.push_str(&text);
        }
        Item::Text(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Item::Bytes(b) => {
            let _ = write!(out, "h'{}'", hex::encode(b));
        }
        Item::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_diag(v, out);
            }
            out.push(']');
        }
        Item::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_diag(k, out);
                out.push_str(": ");
                write_diag(v, out);
            }
            out.push('}');
        }
        Item::Tag(t, v) => {
            let _ = write!(out, "{t}(");
            write_diag(v, out);
            out.push(')');
        }
        Item::Ext(t, b) => {
            let _ = write!(out, "ext({t}, h'{}')", hex::encode(b));
        }
    }
}

// ---- property lists -------------------------------------------------------------------------

fn plist_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "to-json" {
        return plist_to_json(input, args);
    }
    let value = parse_json_input(args)?;
    let plist = json_to_plist(&value, &mut String::new())?;
    let format = args.str("format")?;
    let mut bytes = Vec::new();
    let written = if format == "binary" {
        plist.to_writer_binary(&mut bytes)
    } else {
        plist.to_writer_xml(&mut bytes)
    };
    written.map_err(|e| ToolError::execution(format!("writing the property list failed: {e}")))?;
    let output = if format == "binary" {
        STANDARD.encode(&bytes)
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Ok(json!({ "output": output, "format": format }))
}

fn plist_to_json(input: &str, args: &Args) -> ToolOutcome {
    let trimmed = input.trim_start_matches('\u{feff}').trim_start();
    // XML starts with '<'; anything else is taken as Base64 of a binary plist.
    let (bytes, detected) = if trimmed.starts_with('<') {
        (trimmed.as_bytes().to_vec(), "xml")
    } else {
        let bytes = decode_base64_param("input", trimmed).map_err(|_| {
            ToolError::invalid(
                "input is neither an XML property list (starting with '<') nor Base64 of a binary one",
            )
        })?;
        let kind = if bytes.starts_with(b"bplist") {
            "binary"
        } else {
            "xml"
        };
        (bytes, kind)
    };
    census::check(&bytes)?;
    let value = plist::Value::from_reader(Cursor::new(bytes))
        .map_err(|e| ToolError::invalid(format!("invalid {detected} property list: {e}")))?;
    let mut notes = Vec::new();
    let json = plist_to_value(&value, &mut notes);
    let output = json::write_indented(&json, args.str("indent")?)?;
    Ok(json!({ "output": output, "value": json, "detectedFormat": detected, "notes": notes }))
}

fn plist_to_value(v: &plist::Value, notes: &mut Vec<String>) -> Value {
    let mut note = |text: &str| {
        if !notes.iter().any(|n| n == text) {
            notes.push(text.to_string());
        }
    };
    match v {
        plist::Value::Array(a) => {
            Value::Array(a.iter().map(|v| plist_to_value(v, notes)).collect())
        }
        plist::Value::Dictionary(d) => Value::Object(
            d.iter()
                .map(|(k, v)| (k.clone(), plist_to_value(v, notes)))
                .collect(),
        ),
        plist::Value::Boolean(b) => Value::Bool(*b),
        plist::Value::Data(d) => {
            note("<data> is shown as Base64 text");
            Value::String(STANDARD.encode(d))
        }
        plist::Value::Date(d) => {
            note("<date> is shown as an ISO 8601 string");
            Value::String(d.to_xml_format())
        }
        plist::Value::Real(f) => Number::from_f64(*f)
            .map_or_else(|| Value::String(float_name(*f).to_string()), Value::Number),
        plist::Value::Integer(i) => i
            .as_signed()
            .map(Value::from)
            .or_else(|| i.as_unsigned().map(Value::from))
            .unwrap_or(Value::Null),
        plist::Value::String(s) => Value::String(s.clone()),
        plist::Value::Uid(u) => {
            note("keyed-archive UIDs are shown as {\"CF$UID\": n}");
            json!({ "CF$UID": u.get() })
        }
        _ => Value::Null,
    }
}

/// JSON → plist. Property lists have no null, so a null is an error naming where it is.
fn json_to_plist(v: &Value, path: &mut String) -> Result<plist::Value, ToolError> {
    Ok(match v {
        Value::Null => {
            let at = if path.is_empty() { "/" } else { path.as_str() };
            return Err(ToolError::invalid(format!(
                "property lists cannot hold null (at JSON Pointer '{at}'): remove the key or use a string or boolean"
            )));
        }
        Value::Bool(b) => plist::Value::Boolean(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                plist::Value::Integer(i.into())
            } else if let Some(u) = n.as_u64() {
                plist::Value::Integer(u.into())
            } else {
                plist::Value::Real(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => plist::Value::String(s.clone()),
        Value::Array(a) => {
            let mut out = Vec::with_capacity(a.len());
            for (i, item) in a.iter().enumerate() {
                let len = path.len();
                let _ = write!(path, "/{i}");
                out.push(json_to_plist(item, path)?);
                path.truncate(len);
            }
            plist::Value::Array(out)
        }
        Value::Object(o) => {
            let mut dict = plist::Dictionary::new();
            for (k, item) in o {
                let len = path.len();
                let _ = write!(path, "/{}", k.replace('~', "~0").replace('/', "~1"));
                dict.insert(k.clone(), json_to_plist(item, path)?);
                path.truncate(len);
            }
            plist::Value::Dictionary(dict)
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // msgpack.org front page example.
    #[test]
    fn messagepack_msgpack_org_example() {
        let data = run_ok(
            "messagepack-converter",
            json!({"input": "{\"compact\":true,\"schema\":0}"}),
        );
        assert_eq!(data["output"], "82a7636f6d70616374c3a6736368656d6100");
        assert_eq!(data["size"], 18);
        let back = run_ok(
            "messagepack-converter",
            json!({"input": "82 a7 63 6f 6d 70 61 63 74 c3 a6 73 63 68 65 6d 61 00", "mode": "decode", "indent": "0"}),
        );
        assert_eq!(back["output"], "{\"compact\":true,\"schema\":0}");
        assert_eq!(back["notes"], json!([]));
    }

    // MessagePack spec: fixint, negative fixint, uint 16, fixstr, nil, float 64, array.
    #[test]
    fn messagepack_spec_formats() {
        let enc = |v: serde_json::Value| {
            run_ok("messagepack-converter", json!({"input": v.to_string()}))["output"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(enc(json!(127)), "7f");
        assert_eq!(enc(json!(-32)), "e0");
        assert_eq!(enc(json!(256)), "cd0100");
        assert_eq!(enc(json!("a")), "a161");
        assert_eq!(enc(json!(null)), "c0");
        assert_eq!(enc(json!(1.5)), "cb3ff8000000000000");
        assert_eq!(enc(json!([1, 2])), "920102");
        let b64 = run_ok(
            "messagepack-converter",
            json!({"input": "[1,2]", "encoding": "base64"}),
        );
        assert_eq!(b64["output"], "kgEC");
    }

    #[test]
    fn messagepack_binary_and_timestamp_extension() {
        // bin 8 of 3 bytes; the 32-bit timestamp extension (type -1) for 2^30 seconds.
        let data = run_ok(
            "messagepack-converter",
            json!({"input": "82a162c403010203a174d6ff40000000", "mode": "decode"}),
        );
        assert_eq!(data["value"]["b"], "AQID");
        assert_eq!(data["value"]["t"]["extType"], -1);
        assert_eq!(data["value"]["t"]["timestamp"], "2004-01-10T13:37:04Z");
        assert_eq!(data["notes"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn messagepack_errors() {
        let (code, msg) = run_err(
            "messagepack-converter",
            json!({"input": "82a7636f6d7061", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("truncated"), "{msg}");
        let (_, msg) = run_err(
            "messagepack-converter",
            json!({"input": "c0c0", "mode": "decode"}),
        );
        assert!(msg.contains("1 trailing bytes"), "{msg}");
        let (_, msg) = run_err(
            "messagepack-converter",
            json!({"input": "zz", "mode": "decode"}),
        );
        assert!(msg.contains("not hex"), "{msg}");
    }

    fn cbor(v: serde_json::Value) -> String {
        run_ok("cbor-converter", json!({"input": v.to_string()}))["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // RFC 8949 Appendix A.
    #[test]
    fn cbor_rfc8949_appendix_a_encoding() {
        assert_eq!(cbor(json!(0)), "00");
        assert_eq!(cbor(json!(23)), "17");
        assert_eq!(cbor(json!(24)), "1818");
        assert_eq!(cbor(json!(1000000)), "1a000f4240");
        assert_eq!(cbor(json!(-1)), "20");
        assert_eq!(cbor(json!(-1000)), "3903e7");
        assert_eq!(cbor(json!(1.5)), "f93e00");
        assert_eq!(cbor(json!(1.1)), "fb3ff199999999999a");
        assert_eq!(cbor(json!("IETF")), "6449455446");
        assert_eq!(cbor(json!([1, [2, 3], [4, 5]])), "8301820203820405");
        assert_eq!(cbor(json!({"a": 1, "b": [2, 3]})), "a26161016162820203");
        assert_eq!(cbor(json!(true)), "f5");
        assert_eq!(cbor(json!(null)), "f6");
    }

    #[test]
    fn cbor_rfc8949_appendix_a_decoding_and_diagnostic() {
        let dec = |hex: &str| {
            run_ok(
                "cbor-converter",
                json!({"input": hex, "mode": "decode", "indent": "0"}),
            )
        };
        let d = dec("a26161016162820203");
        assert_eq!(d["output"], "{\"a\":1,\"b\":[2,3]}");
        assert_eq!(d["diagnostic"], "{\"a\": 1, \"b\": [2, 3]}");
        // Tag 1 (epoch date) and a byte string.
        let d = dec("c11a514b67b0");
        assert_eq!(d["diagnostic"], "1(1363896240)");
        assert_eq!(d["value"], json!({"tag": 1, "value": 1363896240}));
        let d = dec("4401020304");
        assert_eq!(d["diagnostic"], "h'01020304'");
        assert_eq!(d["value"], "AQIDBA==");
        // 18446744073709551616 is tag 2 (bignum) of h'010000000000000000'.
        assert_eq!(
            dec("c249010000000000000000")["diagnostic"],
            "2(h'010000000000000000')"
        );
        // ciborium reads undefined (simple value 23) as null.
        assert_eq!(dec("f7")["diagnostic"], "null");
        assert_eq!(dec("f97c00")["diagnostic"], "Infinity");
        assert_eq!(dec("3bffffffffffffffff")["value"], "-18446744073709551616");
    }

    #[test]
    fn cbor_errors() {
        let (code, msg) = run_err("cbor-converter", json!({"input": "8301", "mode": "decode"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("truncated"), "{msg}");
        let (_, msg) = run_err("cbor-converter", json!({"input": "0000", "mode": "decode"}));
        assert!(msg.contains("trailing"), "{msg}");
        let (code, _) = run_err("cbor-converter", json!({"input": "{bad"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    // Apple's "About Information Property List Files" style example.
    const APPLE_XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>CFBundleDevelopmentRegion</key>
    <string>en</string>
    <key>CFBundleVersion</key>
    <string>1.0</string>
    <key>LSRequiresIPhoneOS</key>
    <true/>
    <key>UIRequiredDeviceCapabilities</key>
    <array>
        <string>armv7</string>
    </array>
    <key>Count</key>
    <integer>42</integer>
    <key>Created</key>
    <date>2011-05-02T14:00:00Z</date>
    <key>Icon</key>
    <data>AQID</data>
</dict>
</plist>"#;

    #[test]
    fn plist_xml_to_json() {
        let data = run_ok("plist-converter", json!({"input": APPLE_XML}));
        assert_eq!(data["detectedFormat"], "xml");
        assert_eq!(
            data["value"],
            json!({
                "CFBundleDevelopmentRegion": "en",
                "CFBundleVersion": "1.0",
                "LSRequiresIPhoneOS": true,
                "UIRequiredDeviceCapabilities": ["armv7"],
                "Count": 42,
                "Created": "2011-05-02T14:00:00Z",
                "Icon": "AQID"
            })
        );
    }

    #[test]
    fn plist_json_to_xml_and_binary_round_trip() {
        let xml = run_ok(
            "plist-converter",
            json!({"input": "{\"Name\":\"cmpx\",\"Enabled\":true,\"Size\":3}", "mode": "from-json"}),
        );
        let out = xml["output"].as_str().unwrap();
        assert!(
            out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
            "{out}"
        );
        assert!(
            out.contains("<key>Name</key>") && out.contains("<string>cmpx</string>"),
            "{out}"
        );
        assert!(
            out.contains("<true/>") && out.contains("<integer>3</integer>"),
            "{out}"
        );
        let bin = run_ok(
            "plist-converter",
            json!({"input": "{\"a\":[1,2.5]}", "mode": "from-json", "format": "binary"}),
        );
        let b64 = bin["output"].as_str().unwrap();
        assert!(b64.starts_with("YnBsaXN0MD"), "{b64}"); // "bplist00"
        let back = run_ok("plist-converter", json!({"input": b64, "indent": "0"}));
        assert_eq!(back["detectedFormat"], "binary");
        assert_eq!(back["output"], "{\"a\":[1,2.5]}");
    }

    #[test]
    fn plist_errors() {
        let (code, msg) = run_err(
            "plist-converter",
            json!({"input": "{\"a\":[null]}", "mode": "from-json"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("/a/0"), "{msg}");
        let (code, _) = run_err(
            "plist-converter",
            json!({"input": "<plist><dict><key>a</key></plist>"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn nesting_and_size_are_limited() {
        use crate::tools::kit::depth::JSON_DEPTH;
        use crate::tools::kit::testing::assert_too_deep;
        // A million one-element arrays around a null.
        let msgpack = "91".repeat(1_000_000) + "c0";
        assert_too_deep(
            "messagepack-converter",
            json!({"input": msgpack, "mode": "decode"}),
            "input",
            JSON_DEPTH,
        );
        for cbor in ["81".repeat(1_000_000) + "f6", "c6".repeat(1_000_000) + "f6"] {
            assert_too_deep(
                "cbor-converter",
                json!({"input": cbor, "mode": "decode"}),
                "input",
                JSON_DEPTH,
            );
        }
        let plist = format!(
            "<?xml version=\"1.0\"?><plist version=\"1.0\">{}</plist>",
            crate::tools::kit::testing::nest("<array>", "", "</array>", 1_000_000)
        );
        assert_too_deep(
            "plist-converter",
            json!({"input": plist, "mode": "to-json"}),
            "input",
            JSON_DEPTH,
        );
        // Just under: 128 levels.
        let ok = "91".repeat(JSON_DEPTH - 1) + "c0";
        let d = run_ok(
            "messagepack-converter",
            json!({"input": ok, "mode": "decode", "indent": "0"}),
        );
        assert_eq!(
            d["output"],
            crate::tools::kit::testing::nest("[", "null", "]", JSON_DEPTH - 1)
        );
        let ok = "81".repeat(JSON_DEPTH - 1) + "f6";
        let d = run_ok(
            "cbor-converter",
            json!({"input": ok, "mode": "decode", "indent": "0"}),
        );
        assert_eq!(
            d["output"],
            crate::tools::kit::testing::nest("[", "null", "]", JSON_DEPTH - 1)
        );
        // Five million and one values, in a few bytes each.
        let many = format!("9a{:08x}{}", 5_000_001, "f6".repeat(5_000_001));
        let (_, msg) = run_err("cbor-converter", json!({"input": many, "mode": "decode"}));
        assert!(
            msg.starts_with("the CBOR has more than 5,000,000 values"),
            "{msg}"
        );
    }

    #[test]
    fn property_lists_that_expand_shared_objects_are_refused() {
        // bplist00 where object 1 is an array of 15 references to object 2, and so on: each
        // level multiplies the values by 15 (written by hand from Apple's CFBinaryPList.c).
        let levels = 8u8;
        let mut objects: Vec<Vec<u8>> = Vec::new();
        for i in 0..levels {
            let mut o = vec![0xAF, 0x10, 15];
            o.extend(std::iter::repeat_n(i + 1, 15));
            objects.push(o);
        }
        objects.push(vec![0x09]); // true
        let mut file = b"bplist00".to_vec();
        let mut offsets = Vec::new();
        for o in &objects {
            offsets.push(u8::try_from(file.len()).unwrap());
            file.extend(o);
        }
        let table = file.len();
        file.extend(&offsets);
        let mut trailer = vec![0u8; 6];
        trailer.extend([1, 1]);
        trailer.extend((objects.len() as u64).to_be_bytes());
        trailer.extend(0u64.to_be_bytes());
        trailer.extend((table as u64).to_be_bytes());
        file.extend(trailer);
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD.encode(&file);
        let (code, msg) = run_err("plist-converter", json!({"input": b64, "mode": "to-json"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("the property list has more than 2,000,000 values"),
            "{msg}"
        );
    }
}
