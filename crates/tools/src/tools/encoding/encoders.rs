//! Text encoders: Base64 (RFC 4648), URL percent-encoding, HTML entities.

use crate::ctp::{ToolError, ToolOutcome};
use crate::text::Utf8Stream;
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::b64;
use crate::tools::kit::chunks::{Chunks, Stop};
use crate::tools::kit::plan::{Emit, Output, Plan, run_in_memory, stop_error};
use crate::tools::kit::tool::{Stream, Tool};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode, utf8_percent_encode};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("base64-encoder", base64_encoder).streams(Stream {
        param: "input",
        plan: plan_base64,
    }),
    Tool::new("url-encoder", url_encoder),
    Tool::new("html-entity-encoder", html_entity_encoder),
];

fn base64_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.flag("perLine") {
        return base64_per_line(args, input);
    }
    match plan_base64(args, Chunks::text(input)).map_err(stop_error)? {
        Some(plan) => run_in_memory(plan),
        None => Err(ToolError::invalid("unsupported Base64 arguments")),
    }
}

/// Encode: a single pass. Decode: one pass decodes to find the alphabet, the length, and whether the bytes are text
/// (returned as they are) or binary (returned as standard Base64); the second writes them.
pub(crate) fn plan_base64<'a>(args: &Args, input: Chunks<'a>) -> Result<Option<Plan<'a>>, Stop> {
    if args.flag("perLine") {
        // Lines are text: the ordinary call reads the whole input.
        return Ok(None);
    }
    let mode = args.str("mode")?;
    if mode == "decode" {
        let (url_safe, (len, text)) = b64::decode_detecting(
            &input,
            || (0u64, Utf8Stream::default()),
            |(len, text), bytes| {
                *len += bytes.len() as u64;
                // Not UTF-8 is an answer (the bytes are binary), not an error.
                let _ = text.push(bytes);
            },
        )?;
        let is_text = text.end().is_ok();
        let (encoding, len) = if is_text {
            ("utf-8", len)
        } else {
            ("base64", b64::Encoding::STANDARD.output_len(len))
        };
        let emit: Emit<'a> = Box::new(move |out: &mut dyn Write| {
            if is_text {
                return b64::decode_pass(&input, url_safe, |bytes| Ok(out.write_all(bytes)?));
            }
            let mut encoder = b64::Encoder::new(b64::Encoding::STANDARD, out);
            b64::decode_pass(&input, url_safe, |bytes| Ok(encoder.push(bytes)?))?;
            encoder.finish()?;
            Ok(())
        });
        return Ok(Some(Plan {
            fields: fields(&[("mode", mode), ("outputEncoding", encoding)]),
            output: Output::Stream { len, emit },
        }));
    }
    let variant = args.str("variant")?;
    let encoding = b64::Encoding {
        url_safe: variant == "urlsafe",
        padding: args.flag("padding"),
        width: args.usize("lineLength")?,
    };
    // One pass: the length is known up front, and any bytes encode (a `@path` file need not
    // be text).
    let n = input.byte_len()?;
    let emit: Emit<'a> = Box::new(move |out: &mut dyn Write| {
        let mut encoder = b64::Encoder::new(encoding, out);
        input.each(|piece| Ok(encoder.push(piece)?))?;
        encoder.finish()?;
        Ok(())
    });
    Ok(Some(Plan {
        fields: fields(&[("mode", mode), ("variant", variant)]),
        output: Output::Stream {
            len: encoding.output_len(n),
            emit,
        },
    }))
}

/// Each line encoded or decoded on its own, its line ending (LF, CRLF or CR, see
/// `line_breaks`) kept as it was. Decoded lines must be text: bytes that are not UTF-8 have no
/// place between line breaks.
fn base64_per_line(args: &Args, input: &str) -> ToolOutcome {
    let mode = args.str("mode")?;
    let mut out = String::with_capacity(input.len() * 4 / 3 + 4);
    if mode == "decode" {
        for (n, (line, ending)) in crate::tools::kit::line_breaks::lines_with_endings(input)
            .into_iter()
            .enumerate()
        {
            let bytes = b64::decode_str("input", line)
                .map_err(|e| ToolError::invalid(format!("line {}: {}", n + 1, e.message)))?;
            let text = String::from_utf8(bytes).map_err(|_| {
                ToolError::invalid(format!(
                    "line {}: the decoded bytes are not UTF-8 text; decode it without perLine to get them as Base64",
                    n + 1
                ))
            })?;
            out.push_str(&text);
            out.push_str(ending);
        }
        let fields = fields(&[("mode", mode), ("outputEncoding", "utf-8")]);
        return Ok(crate::tools::kit::data::with_output(
            out,
            Value::Object(fields),
        ));
    }
    if args.usize("lineLength")? != 0 {
        return Err(ToolError::invalid(
            "lineLength cannot be combined with perLine: wrapping would split each encoded line over several",
        ));
    }
    let variant = args.str("variant")?;
    let encoding = b64::Encoding {
        url_safe: variant == "urlsafe",
        padding: args.flag("padding"),
        width: 0,
    };
    for (line, ending) in crate::tools::kit::line_breaks::lines_with_endings(input) {
        let mut encoder = b64::Encoder::new(encoding, Vec::new());
        let encoded = encoder
            .push(line.as_bytes())
            .and_then(|()| encoder.finish())
            .map_err(|e| ToolError::execution(format!("encoding failed: {e}")))?;
        out.push_str(&String::from_utf8_lossy(&encoded));
        out.push_str(ending);
    }
    let fields = fields(&[("mode", mode), ("variant", variant)]);
    Ok(crate::tools::kit::data::with_output(
        out,
        Value::Object(fields),
    ))
}

fn fields(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
        .collect()
}

/// RFC 3986 §2.3 unreserved characters are the only ones left as they are.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A whole URI keeps the RFC 3986 §2.2 reserved characters, which give it its structure.
const URI: &AsciiSet = &COMPONENT
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'#')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=');

fn url_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    let scope = args.str("scope")?;
    let convert = |text: &str| -> Result<String, ToolError> {
        Ok(if mode == "decode" {
            url_decode(text, scope == "form")?
        } else {
            match scope {
                "form" => url::form_urlencoded::byte_serialize(text.as_bytes()).collect(),
                "uri" => utf8_percent_encode(text, URI).to_string(),
                _ => utf8_percent_encode(text, COMPONENT).to_string(),
            }
        })
    };
    let output = if args.flag("perLine") {
        let mut out = String::with_capacity(input.len());
        for (n, (line, ending)) in crate::tools::kit::line_breaks::lines_with_endings(input)
            .into_iter()
            .enumerate()
        {
            let converted = convert(line)
                .map_err(|e| ToolError::invalid(format!("line {}: {}", n + 1, e.message)))?;
            out.push_str(&converted);
            out.push_str(ending);
        }
        out
    } else {
        convert(input)?
    };
    Ok(json!({ "output": output, "mode": mode, "scope": scope }))
}

/// Percent-decodes, rejecting what the crate would silently pass through: a '%' that does not
/// start a two-hex-digit escape, and bytes that do not form UTF-8.
fn url_decode(input: &str, plus_is_space: bool) -> Result<String, ToolError> {
    let bytes = input.as_bytes();
    for (i, _) in input.match_indices('%') {
        let escape = bytes.get(i + 1..i + 3);
        if !escape.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
            let shown: String = input[i..].chars().take(3).collect();
            let column = input[..i].chars().count() + 1;
            return Err(ToolError::invalid(format!(
                "malformed percent-escape '{shown}' at character {column}: '%' must be followed by two hexadecimal digits (write '%25' for a literal '%')"
            )));
        }
    }
    let spaced;
    let source = if plus_is_space {
        spaced = input.replace('+', " ");
        spaced.as_bytes()
    } else {
        bytes
    };
    let decoded: Vec<u8> = percent_decode(source).collect();
    String::from_utf8(decoded).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        ToolError::invalid(format!(
            "the decoded bytes are not valid UTF-8 (invalid sequence at decoded byte {at}); the escapes may encode another charset such as Latin-1"
        ))
    })
}

fn html_entity_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    if mode == "decode" {
        let output = html_escape::decode_html_entities(input).into_owned();
        return Ok(json!({ "output": output, "mode": mode }));
    }
    let scope = args.str("scope")?;
    let format = args.str("format")?;
    let escaped = html_escape::encode_quoted_attribute(input);
    if scope == "non-ascii" {
        let output = encode_non_ascii(&escaped, format);
        return Ok(json!({ "output": output, "mode": mode, "scope": scope, "format": format }));
    }
    Ok(json!({ "output": escaped, "mode": mode, "scope": scope }))
}

/// Replaces every non-ASCII character with a character reference in the chosen format.
fn encode_non_ascii(text: &str, format: &str) -> String {
    let names = (format == "named").then(entity_names);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if let Some(name) = names.and_then(|n| n.get(&c)) {
            let _ = write!(out, "&{name};");
        } else if format == "hex" {
            let _ = write!(out, "&#x{:X};", c as u32);
        } else {
            let _ = write!(out, "&#{};", c as u32);
        }
    }
    out
}

/// One HTML5 entity name per single character. Several names often share a character
/// (`&copy;`, `&COPY;`); the lowercase then shortest then alphabetically first is the familiar one.
fn entity_names() -> &'static HashMap<char, &'static str> {
    static NAMES: OnceLock<HashMap<char, &'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut map: HashMap<char, &'static str> = HashMap::new();
        for (name, value) in html_escape::NAMED_ENTITIES.iter() {
            let mut chars = value.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                continue;
            };
            let Ok(name) = std::str::from_utf8(name) else {
                continue;
            };
            let rank = |n: &str| {
                (
                    n.bytes().any(|b| b.is_ascii_uppercase()),
                    n.len(),
                    n.to_string(),
                )
            };
            match map.get(&c) {
                Some(current) if rank(current) <= rank(name) => {}
                _ => {
                    map.insert(c, name);
                }
            }
        }
        map
    })
}

/// Bytes given to a byte-oriented encoder: the text's UTF-8, or the bytes its Base64 or hex
/// spells (`format` is the tool's `inputFormat` option: "text", "base64" or "hex").
pub(crate) fn input_bytes(name: &str, input: &str, format: &str) -> Result<Vec<u8>, ToolError> {
    match format {
        "base64" => decode_base64_param(name, input),
        "hex" => parse_hex(input),
        _ => Ok(input.as_bytes().to_vec()),
    }
}

/// Decoded bytes as a result: `output` plus `outputEncoding` saying how it is spelt. `format`
/// is the tool's `outputFormat` option: "hex", "base64", or anything else for text when the
/// bytes are UTF-8 and Base64 when they are not.
pub(crate) fn bytes_output(bytes: Vec<u8>, format: &str) -> (String, &'static str) {
    match format {
        "hex" => (hex::encode(bytes), "hex"),
        "base64" => (STANDARD.encode(bytes), "base64"),
        _ => match String::from_utf8(bytes) {
            Ok(text) => (text, "utf-8"),
            Err(e) => (STANDARD.encode(e.into_bytes()), "base64"),
        },
    }
}

/// Parses hex as people paste it: digits in either case, separated or not by whitespace,
/// ':', ',', ';' or '-', each byte optionally prefixed with `0x` or `\x`. Errors name the
/// offending character and its 1-based character position.
pub(crate) fn parse_hex(input: &str) -> Result<Vec<u8>, ToolError> {
    let mut digits = String::with_capacity(input.len());
    let mut chars = input.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        let prefix_x = |next: Option<&(usize, char)>| matches!(next, Some((_, 'x' | 'X')));
        if c.is_ascii_hexdigit() {
            // A `0x` prefix can only start at a byte boundary; elsewhere '0' is a digit.
            if c == '0' && digits.len().is_multiple_of(2) && prefix_x(chars.peek()) {
                chars.next();
                continue;
            }
            digits.push(c);
        } else if c == '\\' && prefix_x(chars.peek()) {
            chars.next();
        } else if !(c.is_whitespace() || matches!(c, ':' | ',' | ';' | '-')) {
            return Err(ToolError::invalid(format!(
                "invalid hex character {c:?} at position {}: expected hex digits 0-9/a-f, optionally separated by spaces, ':', ',' or '-' or prefixed with 0x or \\x",
                i + 1
            )));
        }
    }
    if !digits.len().is_multiple_of(2) {
        return Err(ToolError::invalid(format!(
            "odd number of hex digits ({}): every byte needs two digits, so the last byte is incomplete",
            digits.len()
        )));
    }
    hex::decode(&digits).map_err(|e| ToolError::invalid(format!("invalid hex: {e}")))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // RFC 4648 §10 test vectors.
    #[test]
    fn base64_rfc4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            if !plain.is_empty() {
                assert_eq!(
                    run_ok("base64-encoder", json!({"input": plain}))["output"],
                    encoded
                );
                assert_eq!(
                    run_ok(
                        "base64-encoder",
                        json!({"input": encoded, "mode": "decode"})
                    )["output"],
                    plain
                );
            }
        }
    }

    #[test]
    fn base64_urlsafe_without_padding() {
        let data = run_ok(
            "base64-encoder",
            json!({"input": "\u{fb}\u{ff}", "variant": "urlsafe", "padding": false}),
        );
        assert_eq!(data["output"], "w7vDvw");
        assert_eq!(
            run_ok(
                "base64-encoder",
                json!({"input": "subjects?_d", "variant": "urlsafe"})
            )["output"],
            "c3ViamVjdHM_X2Q="
        );
    }

    #[test]
    fn base64_wraps_lines() {
        let data = run_ok(
            "base64-encoder",
            json!({"input": "foobarfoobar", "lineLength": "8"}),
        );
        assert_eq!(data["output"], "Zm9vYmFy\nZm9vYmFy");
    }

    #[test]
    fn base64_decode_rejects_garbage() {
        let (code, msg) = run_err(
            "base64-encoder",
            json!({"input": "not base64!", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid Base64"), "{msg}");
    }

    #[test]
    fn base64_decode_binary_comes_back_as_base64() {
        let data = run_ok("base64-encoder", json!({"input": "/w==", "mode": "decode"}));
        assert_eq!(data["output"], "/w==");
        assert_eq!(data["outputEncoding"], "base64");
    }

    // Test strings from RFC 3986 §2 and the WHATWG URL Standard's form serializer.
    // Expected values from Python: base64.b64encode / urlsafe_b64encode of each line's UTF-8.
    #[test]
    fn base64_per_line_encodes_each_line_keeping_its_ending() {
        let out = |input: &str, extra: serde_json::Value| {
            let mut args = json!({"input": input, "perLine": true});
            args.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            run_ok("base64-encoder", args)
        };
        let data = out("hello\r\n\nwörld\ra?b>", json!({}));
        assert_eq!(data["output"], "aGVsbG8=\r\n\nd8O2cmxk\rYT9iPg==");
        assert_eq!(data["variant"], "standard");
        assert_eq!(
            out(
                "hello\na?b>\n",
                json!({"variant": "urlsafe", "padding": false})
            )["output"],
            "aGVsbG8\nYT9iPg\n"
        );
        let back = out("aGVsbG8=\r\n\nd8O2cmxk\rYT9iPg", json!({"mode": "decode"}));
        assert_eq!(back["output"], "hello\r\n\nwörld\ra?b>");
        assert_eq!(back["outputEncoding"], "utf-8");
    }

    #[test]
    fn base64_per_line_errors_name_the_line() {
        let (code, message) = run_err(
            "base64-encoder",
            json!({"input": "aGVsbG8=\nnot base64!", "mode": "decode", "perLine": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(message.starts_with("line 2: "), "{message}");
        let (code, message) = run_err(
            "base64-encoder",
            json!({"input": "aGk=\n/w==", "mode": "decode", "perLine": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            message,
            "line 2: the decoded bytes are not UTF-8 text; decode it without perLine to get them as Base64"
        );
        let (code, message) = run_err(
            "base64-encoder",
            json!({"input": "a\nb", "perLine": true, "lineLength": 76}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(message.starts_with("lineLength cannot be combined with perLine"));
    }

    #[test]
    fn url_encoder_per_line_matches_python_quote() {
        let input = "a b&c\r\nhttps://x.example/é?q=1\rlast/one\n";
        let enc = run_ok("url-encoder", json!({"input": input, "perLine": true}));
        assert_eq!(
            enc["output"],
            "a%20b%26c\r\nhttps%3A%2F%2Fx.example%2F%C3%A9%3Fq%3D1\rlast%2Fone\n"
        );
        let dec = run_ok(
            "url-encoder",
            json!({"input": enc["output"], "mode": "decode", "perLine": true}),
        );
        assert_eq!(dec["output"], input);
        if let Some(py) = crate::tools::kit::testing::python(
            "from urllib.parse import quote\n\
             for l in ['a b&c', 'https://x.example/\\u00e9?q=1', 'last/one']: print(quote(l, safe=\"!*'()~\"))",
        ) {
            let ours: Vec<&str> =
                crate::tools::kit::line_breaks::lines(enc["output"].as_str().unwrap_or_default())
                    .collect();
            assert_eq!(ours.join("\n"), py);
        }
        let (code, msg) = run_err(
            "url-encoder",
            json!({"input": "ok\nbad%zz", "mode": "decode", "perLine": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("line 2: malformed percent-escape"), "{msg}");
    }

    #[test]
    fn url_component_keeps_only_unreserved() {
        let data = run_ok("url-encoder", json!({"input": "a b&c=d/e?f~g.h_i-j!*'()"}));
        assert_eq!(
            data["output"],
            "a%20b%26c%3Dd%2Fe%3Ff~g.h_i-j%21%2A%27%28%29"
        );
        assert_eq!(
            run_ok("url-encoder", json!({"input": "€ ü"}))["output"],
            "%E2%82%AC%20%C3%BC"
        );
    }

    #[test]
    fn url_uri_scope_keeps_reserved() {
        let data = run_ok(
            "url-encoder",
            json!({"input": "https://example.com/a path/ü?q=1&r=[x]#frag", "scope": "uri"}),
        );
        assert_eq!(
            data["output"],
            "https://example.com/a%20path/%C3%BC?q=1&r=[x]#frag"
        );
    }

    #[test]
    fn url_form_scope_uses_plus_for_space() {
        let data = run_ok(
            "url-encoder",
            json!({"input": "name=John Doe*~", "scope": "form"}),
        );
        assert_eq!(data["output"], "name%3DJohn+Doe*%7E");
        let back = run_ok(
            "url-encoder",
            json!({"input": "John+Doe%21%2B", "scope": "form", "mode": "decode"}),
        );
        assert_eq!(back["output"], "John Doe!+");
        // Outside form encoding '+' is a literal plus.
        let literal = run_ok("url-encoder", json!({"input": "1+1%3D2", "mode": "decode"}));
        assert_eq!(literal["output"], "1+1=2");
    }

    #[test]
    fn url_decode_rejects_malformed_escapes_and_bad_utf8() {
        let (code, msg) = run_err("url-encoder", json!({"input": "100%zz", "mode": "decode"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'%zz' at character 4"), "{msg}");
        let (code, msg) = run_err("url-encoder", json!({"input": "50%", "mode": "decode"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("at character 3"), "{msg}");
        let (code, msg) = run_err("url-encoder", json!({"input": "caf%E9", "mode": "decode"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid UTF-8"), "{msg}");
    }

    #[test]
    fn html_minimal_escapes_the_five_specials() {
        let data = run_ok(
            "html-entity-encoder",
            json!({"input": "<a href=\"x\">Tom & Jerry's</a> café"}),
        );
        assert_eq!(
            data["output"],
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#x27;s&lt;/a&gt; café"
        );
    }

    #[test]
    fn html_non_ascii_as_numeric_or_named_references() {
        let input = "© café → 😀";
        let dec = run_ok(
            "html-entity-encoder",
            json!({"input": input, "scope": "non-ascii"}),
        );
        assert_eq!(dec["output"], "&#169; caf&#233; &#8594; &#128512;");
        let hex = run_ok(
            "html-entity-encoder",
            json!({"input": input, "scope": "non-ascii", "format": "hex"}),
        );
        assert_eq!(hex["output"], "&#xA9; caf&#xE9; &#x2192; &#x1F600;");
        let named = run_ok(
            "html-entity-encoder",
            json!({"input": input, "scope": "non-ascii", "format": "named"}),
        );
        assert_eq!(named["output"], "&copy; caf&eacute; &rarr; &#128512;");
    }

    #[test]
    fn html_rejects_unknown_scope() {
        let (code, msg) = run_err(
            "html-entity-encoder",
            json!({"input": "x", "scope": "everything"}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("non-ascii"), "{msg}");
    }

    // Named references from the WHATWG HTML entity table (html.spec.whatwg.org/entities.json).
    #[test]
    fn html_decodes_named_and_numeric_references() {
        let data = run_ok(
            "html-entity-encoder",
            json!({"input": "&lt;p&gt;&copy; 2024 &mdash; &NotEqualTilde; &#x1F600;&#65;&amp;amp;", "mode": "decode"}),
        );
        assert_eq!(data["output"], "<p>© 2024 — \u{2242}\u{338} 😀A&amp;");
    }

    #[test]
    fn html_decode_leaves_unknown_references_alone() {
        let data = run_ok(
            "html-entity-encoder",
            json!({"input": "&bogus; &#xZZ; AT&T", "mode": "decode"}),
        );
        assert_eq!(data["output"], "&bogus; &#xZZ; AT&T");
    }
}
