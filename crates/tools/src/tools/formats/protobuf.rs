//! Schema-less Protocol Buffers wire-format decoding (like `protoc --decode_raw`) and single
//! varint encoding/decoding, over prost's varint and wire-type primitives.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::formats::binary_formats::read_binary;
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::MAX_RESULTS;
use crate::tools::kit::tool::Tool;
use prost::encoding::{WireType, decode_varint, encode_varint};
use serde_json::{Value, json};
use std::cell::Cell;
use std::fmt::Write as _;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("protobuf-decoder", protobuf_decoder)];

/// Nested messages deeper than this are shown as bytes rather than decoded further (each
/// level is a guess that costs a pass over its bytes); groups deeper than this are refused.
const MAX_DEPTH: usize = 64;

fn protobuf_decoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    match args.str("mode")? {
        "varint-encode" => varint_encode(input),
        "varint-decode" => varint_decode(&read_binary(input, args.str("encoding")?)?),
        _ => decode_message(&read_binary(input, args.str("encoding")?)?),
    }
}

fn decode_message(data: &[u8]) -> ToolOutcome {
    if data.is_empty() {
        return Err(ToolError::invalid(
            "input is empty: no Protobuf bytes to decode",
        ));
    }
    let work = Cell::new(0);
    let fields = Parser {
        data,
        depth: 0,
        work: &work,
    }
    .fields(0, data.len(), None)
    .map_err(|e| {
        if e.starts_with("input nests deeper") {
            ToolError::invalid(e)
        } else {
            ToolError::invalid(format!("invalid Protobuf wire data: {e}"))
        }
    })?;
    // Each listed field becomes a JSON object of about a kilobyte.
    let listed = count_fields(&fields);
    if listed > MAX_RESULTS {
        return Err(ToolError::invalid(format!(
            "the message has {listed} fields (counting nested ones); protobuf-decoder lists at most {MAX_RESULTS}: decode a smaller part of it"
        )));
    }
    let mut output = String::new();
    render(&fields, 0, &mut output);
    let fields: Vec<Value> = fields.iter().map(Field::to_json).collect();
    Ok(json!({ "output": output.trim_end(), "fields": fields, "size": data.len() }))
}

/// One decoded field.
struct Field {
    number: u32,
    wire_type: WireType,
    offset: usize,
    value: FieldValue,
}

enum FieldValue {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Message(Vec<Field>),
    Text(String),
    Bytes(Vec<u8>),
    Group(Vec<Field>),
}

struct Parser<'a> {
    data: &'a [u8],
    depth: usize,
    /// Fields read so far, including those of nested attempts that fell back to bytes.
    work: &'a Cell<usize>,
}

/// The most fields read while decoding, attempts included: each is a small struct, and
/// nested attempts can read the same bytes up to [`MAX_DEPTH`] times. Ten times the fields
/// listed.
const MAX_WORK: usize = 10 * MAX_RESULTS;

fn count_fields(fields: &[Field]) -> usize {
    fields
        .iter()
        .map(|f| match &f.value {
            FieldValue::Message(inner) | FieldValue::Group(inner) => 1 + count_fields(inner),
            _ => 1,
        })
        .sum()
}

impl Parser<'_> {
    /// Parses the fields in `data[start..end]`. Inside a group, stops at the end-group key for
    /// `group` and returns the position after it.
    fn fields(&self, start: usize, end: usize, group: Option<u32>) -> Result<Vec<Field>, String> {
        self.fields_until(start, end, group).map(|(f, _)| f)
    }

    fn fields_until(
        &self,
        mut pos: usize,
        end: usize,
        group: Option<u32>,
    ) -> Result<(Vec<Field>, usize), String> {
        let mut fields = Vec::new();
        while pos < end {
            let offset = pos;
            let key = self.varint(&mut pos, end)?;
            let number = key >> 3;
            let wire_type = WireType::try_from(key & 7).map_err(|_| {
                format!(
                    "invalid wire type {} for field {number} at byte {offset} (valid: 0-5)",
                    key & 7
                )
            })?;
            if number == 0 || number > 536_870_911 {
                return Err(format!(
                    "invalid field number {number} at byte {offset} (valid: 1 to 536870911)"
                ));
            }
            let number = number as u32;
            let value = match wire_type {
                WireType::Varint => FieldValue::Varint(self.varint(&mut pos, end)?),
                WireType::SixtyFourBit => {
                    let b = self.take(&mut pos, end, 8, number)?;
                    FieldValue::Fixed64(u64::from_le_bytes(b.try_into().unwrap_or_default()))
                }
                WireType::ThirtyTwoBit => {
                    let b = self.take(&mut pos, end, 4, number)?;
                    FieldValue::Fixed32(u32::from_le_bytes(b.try_into().unwrap_or_default()))
                }
                WireType::LengthDelimited => {
                    let len_at = pos;
                    let len = self.varint(&mut pos, end)?;
                    let len = usize::try_from(len).unwrap_or(usize::MAX);
                    if len > end - pos {
                        return Err(format!(
                            "field {number} at byte {offset} declares {len} bytes at byte {len_at} but only {} remain",
                            end - pos
                        ));
                    }
                    let value = self.length_delimited(pos, pos + len)?;
                    pos += len;
                    value
                }
                WireType::StartGroup => {
                    if self.depth >= MAX_DEPTH {
                        return Err(crate::tools::kit::depth::too_deep(
                            "input",
                            MAX_DEPTH,
                            crate::tools::kit::depth::Place::Byte(offset),
                        )
                        .message);
                    }
                    let inner = Parser {
                        data: self.data,
                        depth: self.depth + 1,
                        work: self.work,
                    };
                    let (fields, after) = inner.fields_until(pos, end, Some(number))?;
                    pos = after;
                    FieldValue::Group(fields)
                }
                WireType::EndGroup => {
                    if group == Some(number) {
                        return Ok((fields, pos));
                    }
                    return Err(format!(
                        "unexpected end-group for field {number} at byte {offset}{}",
                        group.map_or(String::new(), |g| format!(" (the open group is field {g})"))
                    ));
                }
            };
            self.work.set(self.work.get() + 1);
            if self.work.get() > MAX_WORK {
                return Err(format!(
                    "more than {MAX_WORK} fields read (nested attempts included) by byte {offset}; decode a smaller part of the message"
                ));
            }
            fields.push(Field {
                number,
                wire_type,
                offset,
                value,
            });
        }
        match group {
            Some(g) => Err(format!(
                "group for field {g} is not closed before byte {end}"
            )),
            None => Ok((fields, pos)),
        }
    }

    /// A nested message when the bytes parse completely as one, else UTF-8 text, else bytes.
    /// Only running out of [`MAX_WORK`] is an error.
    fn length_delimited(&self, start: usize, end: usize) -> Result<FieldValue, String> {
        let bytes = &self.data[start..end];
        if !bytes.is_empty() && self.depth < MAX_DEPTH {
            let inner = Parser {
                data: self.data,
                depth: self.depth + 1,
                work: self.work,
            };
            match inner.fields(start, end, None) {
                Ok(fields) => return Ok(FieldValue::Message(fields)),
                Err(e) if self.work.get() > MAX_WORK => return Err(e),
                Err(_) => {}
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(s)
                if !s
                    .chars()
                    .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) =>
            {
                Ok(FieldValue::Text(s.to_string()))
            }
            _ => Ok(FieldValue::Bytes(bytes.to_vec())),
        }
    }

    fn varint(&self, pos: &mut usize, end: usize) -> Result<u64, String> {
        let mut buf = &self.data[*pos..end];
        let before = buf.len();
        let value = decode_varint(&mut buf).map_err(|_| {
            if self.data[*pos..end].iter().all(|b| b & 0x80 != 0) {
                format!("truncated varint at byte {}", *pos)
            } else {
                format!("invalid varint (more than 10 bytes) at byte {}", *pos)
            }
        })?;
        *pos += before - buf.len();
        Ok(value)
    }

    fn take(&self, pos: &mut usize, end: usize, n: usize, number: u32) -> Result<&[u8], String> {
        if end - *pos < n {
            return Err(format!(
                "truncated {}-bit value for field {number} at byte {}: {} of {n} bytes present",
                n * 8,
                *pos,
                end - *pos
            ));
        }
        let b = &self.data[*pos..*pos + n];
        *pos += n;
        Ok(b)
    }
}

fn zigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

fn wire_name(w: WireType) -> &'static str {
    match w {
        WireType::Varint => "varint",
        WireType::SixtyFourBit => "i64",
        WireType::LengthDelimited => "len",
        WireType::StartGroup => "sgroup",
        WireType::EndGroup => "egroup",
        WireType::ThirtyTwoBit => "i32",
    }
}

/// The elements of a packed repeated varint field, if the bytes are exactly that.
fn packed_varints(bytes: &[u8]) -> Option<Vec<u64>> {
    let mut buf = bytes;
    let mut out = Vec::new();
    while !buf.is_empty() {
        out.push(decode_varint(&mut buf).ok()?);
    }
    Some(out)
}

impl Field {
    fn to_json(&self) -> Value {
        let mut out = json!({
            "field": self.number,
            "wireType": self.wire_type as u8,
            "wireTypeName": wire_name(self.wire_type),
            "offset": self.offset,
        });
        let extra = match &self.value {
            FieldValue::Varint(n) => json!({
                "type": "varint",
                "value": n,
                "signed": *n as i64,
                "zigzag": zigzag(*n),
            }),
            FieldValue::Fixed64(n) => json!({
                "type": "fixed64",
                "value": n,
                "signed": *n as i64,
                "double": f64::from_bits(*n),
            }),
            FieldValue::Fixed32(n) => json!({
                "type": "fixed32",
                "value": n,
                "signed": *n as i32,
                "float": f32::from_bits(*n),
            }),
            FieldValue::Message(fields) => json!({
                "type": "message",
                "fields": fields.iter().map(Field::to_json).collect::<Vec<_>>(),
            }),
            FieldValue::Group(fields) => json!({
                "type": "group",
                "fields": fields.iter().map(Field::to_json).collect::<Vec<_>>(),
            }),
            FieldValue::Text(s) => json!({ "type": "string", "value": s }),
            FieldValue::Bytes(b) => {
                let mut v = json!({ "type": "bytes", "value": hex::encode(b) });
                if let Some(items) = packed_varints(b) {
                    v["packedVarints"] = json!(items);
                }
                v
            }
        };
        if let (Some(o), Value::Object(e)) = (out.as_object_mut(), extra) {
            o.extend(e);
        }
        out
    }
}

/// `protoc --decode_raw` text: `1: 150`, `2: "testing"`, `3 { … }`, fixed values in hex.
fn render(fields: &[Field], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for f in fields {
        match &f.value {
            FieldValue::Varint(n) => {
                let _ = writeln!(out, "{pad}{}: {n}", f.number);
            }
            FieldValue::Fixed64(n) => {
                let _ = writeln!(out, "{pad}{}: 0x{n:016x}", f.number);
            }
            FieldValue::Fixed32(n) => {
                let _ = writeln!(out, "{pad}{}: 0x{n:08x}", f.number);
            }
            FieldValue::Message(inner) | FieldValue::Group(inner) => {
                let _ = writeln!(out, "{pad}{} {{", f.number);
                render(inner, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            FieldValue::Text(s) => {
                let _ = writeln!(out, "{pad}{}: \"{}\"", f.number, c_escape(s.as_bytes()));
            }
            FieldValue::Bytes(b) => {
                let _ = writeln!(out, "{pad}{}: \"{}\"", f.number, c_escape(b));
            }
        }
    }
}

/// protoc's CEscape: common escapes, printable ASCII as is, other bytes as octal.
fn c_escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out
}

fn varint_decode(data: &[u8]) -> ToolOutcome {
    let mut buf = data;
    let value = decode_varint(&mut buf).map_err(|_| {
        if data.iter().all(|b| b & 0x80 != 0) {
            ToolError::invalid(format!(
                "truncated varint: all {} bytes have the continuation bit (0x80) set",
                data.len()
            ))
        } else {
            ToolError::invalid("invalid varint: longer than 10 bytes")
        }
    })?;
    let used = data.len() - buf.len();
    if !buf.is_empty() {
        return Err(ToolError::invalid(format!(
            "the varint ends at byte {used} but {} more bytes follow (decode a whole message with mode 'decode')",
            buf.len()
        )));
    }
    Ok(json!({
        "output": value.to_string(),
        "value": value,
        "signed": value as i64,
        "zigzag": zigzag(value),
        "bytes": used,
    }))
}

fn varint_encode(input: &str) -> ToolOutcome {
    let text = input.trim();
    let (unsigned, negative) = if let Some(digits) = text.strip_prefix('-') {
        let n: i64 = format!("-{digits}")
            .parse()
            .map_err(|_| number_error(text))?;
        (n as u64, Some(n))
    } else {
        (text.parse::<u64>().map_err(|_| number_error(text))?, None)
    };
    let mut plain = Vec::new();
    encode_varint(unsigned, &mut plain);
    // ZigZag (sint32/sint64): 0 → 0, -1 → 1, 1 → 2, …
    let zz = match negative {
        Some(n) => ((n << 1) ^ (n >> 63)) as u64,
        None if unsigned <= i64::MAX as u64 => unsigned << 1,
        None => {
            return Ok(json!({
                "output": hex::encode(&plain),
                "varint": hex::encode(&plain),
                "zigzag": null,
            }));
        }
    };
    let mut zigzagged = Vec::new();
    encode_varint(zz, &mut zigzagged);
    Ok(json!({
        "output": hex::encode(&plain),
        "varint": hex::encode(&plain),
        "zigzag": hex::encode(&zigzagged),
    }))
}

fn number_error(text: &str) -> ToolError {
    ToolError::invalid(format!(
        "'{text}' is not a 64-bit integer: varint-encode takes a decimal number from -9223372036854775808 to 18446744073709551615"
    ))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn decode(hex: &str) -> serde_json::Value {
        run_ok("protobuf-decoder", json!({"input": hex}))
    }

    // protobuf.dev "Encoding": a simple message, field 1 = 150.
    #[test]
    fn protobuf_dev_varint_field() {
        let data = decode("08 96 01");
        assert_eq!(data["output"], "1: 150");
        let f = &data["fields"][0];
        assert_eq!(f["field"], 1);
        assert_eq!(f["wireType"], 0);
        assert_eq!(f["value"], 150);
        assert_eq!(f["zigzag"], 75);
    }

    // protobuf.dev "Encoding": strings and embedded messages.
    #[test]
    fn protobuf_dev_string_and_nested_message() {
        let data = decode("12 07 74 65 73 74 69 6e 67");
        assert_eq!(data["output"], "2: \"testing\"");
        assert_eq!(data["fields"][0]["type"], "string");
        assert_eq!(data["fields"][0]["value"], "testing");
        let data = decode("1a 03 08 96 01");
        assert_eq!(data["output"], "3 {\n  1: 150\n}");
        assert_eq!(data["fields"][0]["fields"][0]["value"], 150);
    }

    // protobuf.dev "Encoding", packed repeated fields: field 6 = [3, 270, 86942].
    #[test]
    fn protobuf_dev_packed_repeated() {
        let data = decode("3206038e029ea705");
        let f = &data["fields"][0];
        assert_eq!(f["field"], 6);
        assert_eq!(f["type"], "bytes");
        assert_eq!(f["packedVarints"], json!([3, 270, 86942]));
        assert_eq!(data["output"], "6: \"\\003\\216\\002\\236\\247\\005\"");
    }

    #[test]
    fn protobuf_fixed_values_signed_and_groups() {
        // field 1 fixed32 1.0f, field 2 fixed64 -2 (two's complement), field 3 sint -1 (zigzag 1).
        let data = decode("0d0000803f 11feffffffffffffff 1801");
        assert_eq!(data["fields"][0]["float"], 1.0);
        assert_eq!(data["fields"][1]["signed"], -2);
        assert_eq!(data["fields"][2]["zigzag"], -1);
        assert_eq!(data["output"], "1: 0x3f800000\n2: 0xfffffffffffffffe\n3: 1");
        // Group 4 (start 0x23, end 0x24) holding field 1 = 1.
        let data = decode("23 08 01 24");
        assert_eq!(data["fields"][0]["type"], "group");
        assert_eq!(data["output"], "4 {\n  1: 1\n}");
    }

    #[test]
    fn protobuf_errors_name_the_byte() {
        let (code, msg) = run_err("protobuf-decoder", json!({"input": "08 96"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("truncated varint at byte 1"), "{msg}");
        let (_, msg) = run_err("protobuf-decoder", json!({"input": "0801 0f"}));
        assert!(
            msg.contains("invalid wire type 7 for field 1 at byte 2"),
            "{msg}"
        );
        let (_, msg) = run_err("protobuf-decoder", json!({"input": "12 07 74 65"}));
        assert!(msg.contains("declares 7 bytes"), "{msg}");
    }

    #[test]
    fn varint_modes() {
        let enc = run_ok(
            "protobuf-decoder",
            json!({"input": "150", "mode": "varint-encode"}),
        );
        assert_eq!(enc["output"], "9601");
        assert_eq!(enc["zigzag"], "ac02");
        let enc = run_ok(
            "protobuf-decoder",
            json!({"input": "-1", "mode": "varint-encode"}),
        );
        assert_eq!(enc["output"], "ffffffffffffffffff01");
        assert_eq!(enc["zigzag"], "01");
        let dec = run_ok(
            "protobuf-decoder",
            json!({"input": "9601", "mode": "varint-decode"}),
        );
        assert_eq!(dec["value"], 150);
        let (code, _) = run_err(
            "protobuf-decoder",
            json!({"input": "96", "mode": "varint-decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn deep_messages_decode_to_sixty_four_levels_and_deep_groups_are_refused() {
        // A million nested length-delimited fields: decoded 64 levels down, bytes below.
        let mut lens = vec![0usize];
        for _ in 0..999_999 {
            let inner = *lens.last().unwrap();
            let mut varint = Vec::new();
            prost::encoding::encode_varint(inner as u64, &mut varint);
            lens.push(1 + varint.len() + inner);
        }
        let mut hex = String::new();
        for len in lens.iter().rev() {
            let mut head = vec![0x0a];
            prost::encoding::encode_varint(*len as u64, &mut head);
            hex.push_str(&hex::encode(head));
        }
        let d = run_ok("protobuf-decoder", json!({"input": hex}));
        let output = d["output"].as_str().unwrap();
        assert!(output.starts_with("1 {\n  1 {\n"), "{}", &output[..40]);
        assert_eq!(output.lines().filter(|l| l.ends_with('{')).count(), 64);
        // A million nested groups (start-group for field 1 is 0x0b).
        let groups = "0b".repeat(1_000_000) + &"0c".repeat(1_000_000);
        let (code, msg) = run_err("protobuf-decoder", json!({"input": groups}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("nests deeper than 64 levels (at byte 64)"),
            "{msg}"
        );
        // Just under: 64 groups.
        let ok = "0b".repeat(64) + "0801" + &"0c".repeat(64);
        let d = run_ok("protobuf-decoder", json!({"input": ok}));
        assert_eq!(d["output"].as_str().unwrap().lines().count(), 129);
    }

    #[test]
    fn long_field_lists_are_refused() {
        let (code, msg) = run_err("protobuf-decoder", json!({"input": "0801".repeat(100_001)}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "the message has 100001 fields (counting nested ones); protobuf-decoder lists at most 100000: decode a smaller part of it"
        );
    }
}
