//! Text encoders: Base64 (RFC 4648), URL percent-encoding, HTML entities.

use super::ToolFn;
use super::args::{Args, decode_base64_param};
use crate::ctp::ToolOutcome;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::json;

pub const TOOLS: &[(&str, ToolFn)] = &[("base64-encoder", base64_encoder)];

fn base64_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    let variant = args.str("variant")?;
    if mode == "decode" {
        let bytes = decode_base64_param("input", input)?;
        return Ok(match String::from_utf8(bytes) {
            Ok(text) => json!({ "output": text, "mode": mode, "outputEncoding": "utf-8" }),
            Err(e) => {
                json!({ "output": STANDARD.encode(e.into_bytes()), "mode": mode, "outputEncoding": "base64" })
            }
        });
    }
    let engine = match (variant, args.flag("padding")) {
        ("urlsafe", true) => &URL_SAFE,
        ("urlsafe", false) => &URL_SAFE_NO_PAD,
        (_, true) => &STANDARD,
        (_, false) => &STANDARD_NO_PAD,
    };
    let encoded = engine.encode(input.as_bytes());
    let width = args.usize("lineLength")?;
    let output = if width == 0 {
        encoded
    } else {
        wrap(&encoded, width)
    };
    Ok(json!({ "output": output, "mode": mode, "variant": variant }))
}

/// Splits ASCII text into lines of `width` characters joined by CRLF-free newlines.
fn wrap(ascii: &str, width: usize) -> String {
    ascii
        .as_bytes()
        .chunks(width)
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::testing::{run_err, run_ok};
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
}
