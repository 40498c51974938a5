//! Byte-to-text radix encodings: hex, Base32 (RFC 4648, base32hex, Crockford), Base58
//! (with Base58Check) and Base85 (Ascii85/Adobe, Z85).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::encoding::encoders::{bytes_output, input_bytes, parse_hex};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use data_encoding::{DecodeError, DecodeKind, Encoding, Specification};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("hex-encoder", hex_encoder),
    Tool::new("base32-encoder", base32_encoder),
    Tool::new("base58-encoder", base58_encoder),
    Tool::new("base85-encoder", base85_encoder),
];

/// The shared result of a decode: the bytes spelt per `outputFormat`, and their count.
fn decoded(args: &Args, bytes: Vec<u8>, extra: Value) -> ToolOutcome {
    let count = bytes.len();
    let (output, encoding) = bytes_output(bytes, args.opt_str("outputFormat").unwrap_or("auto"));
    let mut data = json!({ "output": output, "mode": "decode", "outputEncoding": encoding, "byteCount": count });
    if let (Some(d), Value::Object(e)) = (data.as_object_mut(), extra) {
        d.extend(e);
    }
    Ok(data)
}

/// The bytes to encode, per the tool's `inputFormat` option.
fn encode_input(args: &Args) -> Result<Vec<u8>, ToolError> {
    let format = args.opt_str("inputFormat").unwrap_or("text");
    input_bytes("input", args.str("input")?, format)
}

fn hex_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "decode" {
        let bytes = parse_hex(input)?;
        return decoded(args, bytes, json!({}));
    }
    let bytes = encode_input(args)?;
    let upper = args.str("case")? == "upper";
    let delimiter = args.str("delimiter")?;
    let pairs = bytes.iter().map(|b| {
        if upper {
            format!("{b:02X}")
        } else {
            format!("{b:02x}")
        }
    });
    let output = match delimiter {
        "space" => pairs.collect::<Vec<_>>().join(" "),
        "colon" => pairs.collect::<Vec<_>>().join(":"),
        "comma" => pairs.collect::<Vec<_>>().join(","),
        "newline" => pairs.collect::<Vec<_>>().join("\n"),
        "0x" => pairs
            .map(|p| format!("0x{p}"))
            .collect::<Vec<_>>()
            .join(" "),
        "0x-comma" => pairs
            .map(|p| format!("0x{p}"))
            .collect::<Vec<_>>()
            .join(", "),
        "backslash-x" => pairs.map(|p| format!("\\x{p}")).collect(),
        _ => {
            if upper {
                hex::encode_upper(&bytes)
            } else {
                hex::encode(&bytes)
            }
        }
    };
    Ok(json!({ "output": output, "mode": "encode", "byteCount": bytes.len() }))
}

/// Which characters a decoder skips: whitespace, as in line-wrapped or grouped input.
const WHITESPACE: &str = " \t\r\n";

fn base32_spec(variant: &str, padding: bool) -> Result<Encoding, ToolError> {
    let mut spec = Specification::new();
    spec.ignore.push_str(WHITESPACE);
    match variant {
        "crockford" => {
            // Crockford: no padding, case-insensitive, I/L read as 1, O as 0, hyphens ignored.
            spec.symbols.push_str("0123456789ABCDEFGHJKMNPQRSTVWXYZ");
            spec.translate.from.push_str("abcdefghjkmnpqrstvwxyziIlLoO");
            spec.translate.to.push_str("ABCDEFGHJKMNPQRSTVWXYZ111100");
            spec.ignore.push('-');
        }
        "base32hex" => {
            spec.symbols.push_str("0123456789ABCDEFGHIJKLMNOPQRSTUV");
            spec.translate.from.push_str("abcdefghijklmnopqrstuv");
            spec.translate.to.push_str("ABCDEFGHIJKLMNOPQRSTUV");
        }
        _ => {
            spec.symbols.push_str("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
            spec.translate.from.push_str("abcdefghijklmnopqrstuvwxyz");
            spec.translate.to.push_str("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        }
    }
    if padding && variant != "crockford" {
        spec.padding = Some('=');
    }
    spec.encoding()
        .map_err(|e| ToolError::execution(format!("internal Base32 specification error: {e}")))
}

/// A data-encoding decode error in the user's terms: what is wrong and at which character.
fn decode_error_message(name: &str, input: &str, e: DecodeError) -> String {
    let at = input
        .get(..e.position)
        .map_or(e.position, |s| s.chars().count())
        + 1;
    let shown = input
        .get(e.position..)
        .and_then(|s| s.chars().next())
        .map(|c| format!(" {c:?}"))
        .unwrap_or_default();
    match e.kind {
        DecodeKind::Symbol => {
            format!("invalid {name} character{shown} at position {at}")
        }
        DecodeKind::Length => format!(
            "invalid {name} length: the input ends mid-group (check for missing or extra characters near position {at})"
        ),
        DecodeKind::Padding => format!("invalid {name} padding at position {at}"),
        DecodeKind::Trailing => format!(
            "non-canonical {name}: the last character{shown} at position {at} carries non-zero unused bits"
        ),
    }
}

fn base32_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let variant = args.str("variant")?;
    if args.str("mode")? == "decode" {
        // Padding is accepted whether or not the option asks for it on output.
        let padded = input.contains('=');
        if padded && variant == "crockford" {
            return Err(ToolError::invalid(
                "Crockford's Base32 has no '=' padding; remove it",
            ));
        }
        let encoding = base32_spec(variant, padded)?;
        let bytes = encoding
            .decode(input.as_bytes())
            .map_err(|e| ToolError::invalid(decode_error_message("Base32", input, e)))?;
        return decoded(args, bytes, json!({ "variant": variant }));
    }
    let bytes = encode_input(args)?;
    let output = base32_spec(variant, args.flag("padding"))?.encode(&bytes);
    Ok(json!({ "output": output, "mode": "encode", "variant": variant }))
}

fn base58_alphabet(name: &str) -> &'static bs58::Alphabet {
    match name {
        "ripple" => bs58::Alphabet::RIPPLE,
        "flickr" => bs58::Alphabet::FLICKR,
        _ => bs58::Alphabet::BITCOIN,
    }
}

/// Base58 is a conversion of the whole input between bases: its time grows with the square of
/// the length (32 KiB take about a second, 600 KiB many minutes), so longer input is refused.
const MAX_BASE58: usize = 32 << 10;

fn base58_too_long(what: &str, len: usize) -> ToolError {
    ToolError::invalid(format!(
        "the {what} is {len} bytes; base58-encoder takes at most {} KiB, because Base58 converts the whole input between bases and its time grows with the square of the length; for larger data use base64-encoder or base32-encoder",
        MAX_BASE58 >> 10
    ))
}

fn base58_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let alphabet_name = args.str("alphabet")?;
    let alphabet = base58_alphabet(alphabet_name);
    let check = args.flag("check");
    if args.str("mode")? == "decode" {
        let trimmed = input.trim();
        // 32 KiB of bytes spell about 44 KiB of Base58 text.
        if trimmed.len() > MAX_BASE58 * 138 / 100 {
            return Err(base58_too_long("Base58 text", trimmed.len()));
        }
        let builder = bs58::decode(trimmed).with_alphabet(alphabet);
        let result = if check {
            builder.with_check(None).into_vec()
        } else {
            builder.into_vec()
        };
        let bytes = result.map_err(|e| base58_error(trimmed, alphabet_name, e))?;
        return decoded(
            args,
            bytes,
            json!({ "alphabet": alphabet_name, "check": check }),
        );
    }
    let bytes = encode_input(args)?;
    if bytes.len() > MAX_BASE58 {
        return Err(base58_too_long("input", bytes.len()));
    }
    let builder = bs58::encode(&bytes).with_alphabet(alphabet);
    let output = if check {
        builder.with_check().into_string()
    } else {
        builder.into_string()
    };
    Ok(json!({ "output": output, "mode": "encode", "alphabet": alphabet_name, "check": check }))
}

fn base58_error(input: &str, alphabet: &str, e: bs58::decode::Error) -> ToolError {
    use bs58::decode::Error as E;
    let position = |index: usize| input.get(..index).map_or(index, |s| s.chars().count()) + 1;
    ToolError::invalid(match e {
        E::InvalidCharacter { character, index } => format!(
            "invalid Base58 character {character:?} at position {} (not in the {alphabet} alphabet; Base58 omits 0, O, I and l)",
            position(index)
        ),
        E::NonAsciiCharacter { index } => format!(
            "invalid Base58 character {:?} at position {}: Base58 is ASCII only",
            input
                .get(index..)
                .and_then(|s| s.chars().next())
                .unwrap_or('?'),
            position(index)
        ),
        E::InvalidChecksum {
            checksum,
            expected_checksum,
        } => format!(
            "Base58Check checksum mismatch: the data hashes to {} but the string carries {}; the string is mistyped or not Base58Check",
            hex::encode(checksum),
            hex::encode(expected_checksum)
        ),
        E::NoChecksum => {
            "too short for Base58Check: it must decode to at least 4 checksum bytes".to_string()
        }
        other => format!("invalid Base58: {other}"),
    })
}

/// The largest 32-bit group in Ascii85, `s8W-!` = 2^32 - 1; group digits sort like their values.
const ASCII85_MAX_GROUP: &[u8; 5] = b"s8W-!";

fn base85_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let variant = args.str("variant")?;
    if args.str("mode")? == "decode" {
        let bytes = if variant == "z85" {
            z85_decode(input)?
        } else {
            ascii85_decode(input)?
        };
        return decoded(args, bytes, json!({ "variant": variant }));
    }
    let bytes = encode_input(args)?;
    let output = if variant == "z85" {
        if !bytes.len().is_multiple_of(4) {
            return Err(ToolError::invalid(format!(
                "Z85 (ZeroMQ RFC 32) encodes whole 4-byte groups, but the input is {} bytes; pad it to a multiple of 4 ({} more bytes) or use the ascii85 variant",
                bytes.len(),
                4 - bytes.len() % 4
            )));
        }
        z85::encode(&bytes)
    } else {
        let body = ascii85_encode(&bytes);
        if args.flag("delimiters") {
            format!("<~{body}~>")
        } else {
            body
        }
    };
    Ok(json!({ "output": output, "mode": "encode", "variant": variant }))
}

/// Adobe Ascii85 without delimiters, with `z` for an all-zero group as the format defines
/// (the crate encodes such a group as `!!!!!`).
fn ascii85_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 5 / 4 + 5);
    for chunk in bytes.chunks(4) {
        if chunk == [0, 0, 0, 0] {
            out.push('z');
        } else {
            let group = ascii85::encode(chunk);
            out.push_str(group.trim_start_matches("<~").trim_end_matches("~>"));
        }
    }
    out
}

/// Validates Ascii85 group by group (the crate overflows on out-of-range groups and mishandles
/// `z`) and decodes each with the crate.
fn ascii85_decode(input: &str) -> Result<Vec<u8>, ToolError> {
    let mut body = input.trim();
    body = body.strip_prefix("<~").unwrap_or(body);
    body = body.strip_suffix("~>").unwrap_or(body);
    let offset = input.len() - input.trim_start().len()
        + if input.trim_start().starts_with("<~") {
            2
        } else {
            0
        };
    let mut out = Vec::with_capacity(body.len() * 4 / 5 + 4);
    let mut group: Vec<u8> = Vec::with_capacity(5);
    let mut group_start = 0;
    let position = |i: usize| input.get(..offset + i).map_or(i, |s| s.chars().count()) + 1;
    for (i, c) in body.char_indices() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == 'z' {
            if !group.is_empty() {
                return Err(ToolError::invalid(format!(
                    "'z' at position {} is inside a 5-character group; it may only stand for a whole group of four zero bytes",
                    position(i)
                )));
            }
            out.extend_from_slice(&[0, 0, 0, 0]);
            continue;
        }
        if !('!'..='u').contains(&c) {
            return Err(ToolError::invalid(format!(
                "invalid Ascii85 character {c:?} at position {}: only '!' to 'u' and 'z' are allowed",
                position(i)
            )));
        }
        if group.is_empty() {
            group_start = i;
        }
        group.push(c as u8);
        if group.len() == 5 {
            out.extend(ascii85_group(&group, position(group_start))?);
            group.clear();
        }
    }
    match group.len() {
        0 => {}
        1 => {
            return Err(ToolError::invalid(format!(
                "the final Ascii85 group at position {} has a single character; a partial group needs at least two",
                position(group_start)
            )));
        }
        n => {
            let mut padded = group.clone();
            padded.resize(5, b'u');
            let bytes = ascii85_group(&padded, position(group_start))?;
            out.extend_from_slice(&bytes[..n - 1]);
        }
    }
    Ok(out)
}

fn ascii85_group(group: &[u8], at: usize) -> Result<Vec<u8>, ToolError> {
    if group > ASCII85_MAX_GROUP.as_slice() {
        return Err(ToolError::invalid(format!(
            "the Ascii85 group {:?} at position {at} exceeds 2^32 - 1 (largest group is \"s8W-!\")",
            String::from_utf8_lossy(group)
        )));
    }
    let text = std::str::from_utf8(group).unwrap_or_default();
    ascii85::decode(text)
        .map_err(|e| ToolError::invalid(format!("invalid Ascii85 at position {at}: {e}")))
}

fn z85_decode(input: &str) -> Result<Vec<u8>, ToolError> {
    let compact: String = input.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if !compact.len().is_multiple_of(5) || compact.len() != compact.chars().count() {
        if let Some((i, c)) = compact.chars().enumerate().find(|(_, c)| !c.is_ascii()) {
            return Err(ToolError::invalid(format!(
                "invalid Z85 character {c:?} at position {} (ignoring whitespace)",
                i + 1
            )));
        }
        return Err(ToolError::invalid(format!(
            "Z85 text must be a multiple of 5 characters long (each group of 5 encodes 4 bytes), but has {}",
            compact.len()
        )));
    }
    // The crate also accepts its own '#'-marked short tail, which RFC 32 does not define.
    if let Some(i) = compact
        .as_bytes()
        .chunks(5)
        .position(|g| g.first() == Some(&b'#'))
    {
        return Err(ToolError::invalid(format!(
            "the Z85 group at position {} starts with '#', so its value exceeds 2^32 - 1",
            i * 5 + 1
        )));
    }
    z85::decode(&compact).map_err(|e| {
        ToolError::invalid(match e {
            z85::DecodeError::InvalidByte(i, b) => format!(
                "invalid Z85 character {:?} at position {} (ignoring whitespace)",
                char::from(b),
                i + 1
            ),
            z85::DecodeError::InvalidChunk(i) => {
                format!("the Z85 group at position {} exceeds 2^32 - 1", i + 1)
            }
            other => format!("invalid Z85: {other}"),
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    // --- hex-encoder ---

    #[test]
    fn hex_encodes_with_case_and_delimiters() {
        assert_eq!(output_with("hex-encoder", "Hello", json!({})), "48656c6c6f");
        assert_eq!(
            output_with(
                "hex-encoder",
                "Hi!",
                json!({"case": "upper", "delimiter": "colon"})
            ),
            "48:69:21"
        );
        assert_eq!(
            output_with("hex-encoder", "Hi!", json!({"delimiter": "0x-comma"})),
            "0x48, 0x69, 0x21"
        );
        assert_eq!(
            output_with("hex-encoder", "Hi!", json!({"delimiter": "backslash-x"})),
            "\\x48\\x69\\x21"
        );
        // "é" is C3 A9 in UTF-8 (RFC 3629).
        assert_eq!(
            output_with(
                "hex-encoder",
                "é",
                json!({"delimiter": "space", "case": "upper"})
            ),
            "C3 A9"
        );
        // Base64 input: RFC 4648 "Zm9vYmFy" is "foobar".
        assert_eq!(
            output_with("hex-encoder", "Zm9vYmFy", json!({"inputFormat": "base64"})),
            "666f6f626172"
        );
    }

    #[test]
    fn hex_decode_tolerates_separators_and_prefixes() {
        for input in [
            "48656c6c6f",
            "48 65 6C 6C 6F",
            "48:65:6c:6c:6f",
            "0x48, 0x65, 0x6c, 0x6c, 0x6f",
            "0x480x650x6c0x6c0x6f",
            "\\x48\\x65\\x6c\\x6c\\x6f",
            "48-65\n6c 6c\t6f",
        ] {
            assert_eq!(
                output_with("hex-encoder", input, json!({"mode": "decode"})),
                "Hello",
                "{input}"
            );
        }
    }

    #[test]
    fn hex_decode_binary_comes_back_as_base64() {
        let data = run_ok("hex-encoder", json!({"input": "ff00fe", "mode": "decode"}));
        assert_eq!(data["output"], "/wD+");
        assert_eq!(data["outputEncoding"], "base64");
        assert_eq!(data["byteCount"], 3);
    }

    #[test]
    fn hex_decode_errors_name_character_and_position() {
        let (code, msg) = run_err("hex-encoder", json!({"input": "48 6g", "mode": "decode"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'g' at position 5"), "{msg}");
        let (code, msg) = run_err("hex-encoder", json!({"input": "486", "mode": "decode"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("odd number of hex digits (3)"), "{msg}");
    }

    // --- base32-encoder: RFC 4648 §10 vectors ---

    const RFC4648_BASE32: [(&str, &str, &str); 7] = [
        ("", "", ""),
        ("f", "MY======", "CO======"),
        ("fo", "MZXQ====", "CPNG===="),
        ("foo", "MZXW6===", "CPNMU==="),
        ("foob", "MZXW6YQ=", "CPNMUOG="),
        ("fooba", "MZXW6YTB", "CPNMUOJ1"),
        ("foobar", "MZXW6YTBOI======", "CPNMUOJ1E8======"),
    ];

    #[test]
    fn base32_rfc4648_vectors_both_ways() {
        for (plain, b32, b32hex) in RFC4648_BASE32.into_iter().skip(1) {
            assert_eq!(output_with("base32-encoder", plain, json!({})), b32);
            assert_eq!(
                output_with("base32-encoder", plain, json!({"variant": "base32hex"})),
                b32hex
            );
            assert_eq!(
                output_with("base32-encoder", b32, json!({"mode": "decode"})),
                plain
            );
            assert_eq!(
                output_with(
                    "base32-encoder",
                    b32hex,
                    json!({"mode": "decode", "variant": "base32hex"})
                ),
                plain
            );
        }
    }

    #[test]
    fn base32_unpadded_and_case_insensitive_decode() {
        assert_eq!(
            output_with("base32-encoder", "foobar", json!({"padding": false})),
            "MZXW6YTBOI"
        );
        assert_eq!(
            output_with("base32-encoder", "mzxw6ytboi", json!({"mode": "decode"})),
            "foobar"
        );
        assert_eq!(
            output_with(
                "base32-encoder",
                "mzxw6ytboi======",
                json!({"mode": "decode"})
            ),
            "foobar"
        );
    }

    #[test]
    fn base32_crockford() {
        // Crockford alphabet: "foobar" (0x666f6f626172) spelt with 0-9 A-Z minus I L O U.
        assert_eq!(
            output_with("base32-encoder", "foobar", json!({"variant": "crockford"})),
            "CSQPYRK1E8"
        );
        // Decoding is case-insensitive, reads O as 0 and I/L as 1, and skips hyphens.
        assert_eq!(
            output_with(
                "base32-encoder",
                "csqp-yrkie8",
                json!({"mode": "decode", "variant": "crockford"})
            ),
            "foobar"
        );
    }

    #[test]
    fn base32_rejects_invalid_characters() {
        let (code, msg) = run_err(
            "base32-encoder",
            json!({"input": "MZXW1YTB", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'1' at position 5"), "{msg}");
    }

    // --- base58-encoder ---

    #[test]
    fn base58_draft_msporny_vectors() {
        // draft-msporny-base58-03 §5.
        assert_eq!(
            output_with("base58-encoder", "Hello World!", json!({})),
            "2NEpo7TZRRrLZSi2U"
        );
        assert_eq!(
            output_with(
                "base58-encoder",
                "The quick brown fox jumps over the lazy dog.",
                json!({})
            ),
            "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z"
        );
        // Leading zero bytes become leading '1's: 0x0000287fb4cd → "11233QC4".
        assert_eq!(
            output_with(
                "base58-encoder",
                "0000287fb4cd",
                json!({"inputFormat": "hex"})
            ),
            "11233QC4"
        );
        assert_eq!(
            output_with(
                "base58-encoder",
                "2NEpo7TZRRrLZSi2U",
                json!({"mode": "decode"})
            ),
            "Hello World!"
        );
    }

    #[test]
    fn base58check_bitcoin_address() {
        // The genesis block's address: version 0x00 + HASH160 of its public key.
        let data = run_ok(
            "base58-encoder",
            json!({"input": "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "mode": "decode", "check": true, "outputFormat": "hex"}),
        );
        assert_eq!(data["output"], "0062e907b15cbf27d5425399ebf6f0fb50ebb88f18");
        assert_eq!(
            output_with(
                "base58-encoder",
                "0062e907b15cbf27d5425399ebf6f0fb50ebb88f18",
                json!({"inputFormat": "hex", "check": true})
            ),
            "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"
        );
        let (code, msg) = run_err(
            "base58-encoder",
            json!({"input": "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", "mode": "decode", "check": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("checksum mismatch"), "{msg}");
    }

    #[test]
    fn base58_other_alphabets() {
        // Same number, other digit orders: Ripple starts with 'r', Flickr swaps the cases.
        assert_eq!(
            output_with(
                "base58-encoder",
                "Hello World!",
                json!({"alphabet": "flickr"})
            ),
            "2nePN7syqqRkyrH2t"
        );
        assert_eq!(
            output_with(
                "base58-encoder",
                "Hello World!",
                json!({"alphabet": "ripple"})
            ),
            "p4NFofTZRRiLZS5p7"
        );
    }

    #[test]
    fn base58_invalid_character_position() {
        let (code, msg) = run_err(
            "base58-encoder",
            json!({"input": "2NEpo0TZ", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'0' at position 6"), "{msg}");
    }

    #[test]
    fn base58_refuses_input_whose_conversion_would_take_minutes() {
        let at_limit = "a".repeat(super::MAX_BASE58);
        let encoded = output_with("base58-encoder", &at_limit, json!({}));
        assert_eq!(
            output_with("base58-encoder", &encoded, json!({"mode": "decode"})),
            at_limit
        );
        let (code, msg) = run_err(
            "base58-encoder",
            json!({"input": "a".repeat(super::MAX_BASE58 + 1)}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("the input is 32769 bytes; base58-encoder takes at most 32 KiB"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "base58-encoder",
            json!({"input": "2".repeat(50_000), "mode": "decode"}),
        );
        assert!(msg.starts_with("the Base58 text is 50000 bytes"), "{msg}");
    }

    // --- base85-encoder ---

    #[test]
    fn ascii85_wikipedia_vectors() {
        assert_eq!(output_with("base85-encoder", "Man ", json!({})), "9jqo^");
        assert_eq!(
            output_with("base85-encoder", "Man is", json!({"delimiters": true})),
            "<~9jqo^Bla~>"
        );
        assert_eq!(
            output_with(
                "base85-encoder",
                r"<~9jqo^BlbD-BleB1DJ+*+F(f,q/0JhKF<GL>Cj@.4Gp$d7F!,L7@<6@)/0JDEF<G%<+EV:2F!,O<DJ+*.@<*K0@<6L(Df-\0Ec5e;DffZ(EZee.Bl.9pEr~>",
                json!({"mode": "decode"})
            ),
            "Man is distinguished, not only by his reason, but by this singular passion from other animals"
        );
    }

    #[test]
    fn ascii85_z_for_zero_groups() {
        assert_eq!(
            output_with(
                "base85-encoder",
                "AAAAAAAAAAAA",
                json!({"inputFormat": "base64"})
            ),
            "zz!!"
        );
        let data = run_ok(
            "base85-encoder",
            json!({"input": "z!!", "mode": "decode", "outputFormat": "hex"}),
        );
        assert_eq!(data["output"], "0000000000");
        let (code, msg) = run_err(
            "base85-encoder",
            json!({"input": "9jzo^", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'z' at position 3"), "{msg}");
        let (_, msg) = run_err(
            "base85-encoder",
            json!({"input": "uuuuu", "mode": "decode"}),
        );
        assert!(msg.contains("exceeds 2^32 - 1"), "{msg}");
    }

    #[test]
    fn z85_rfc32_vector() {
        // ZeroMQ RFC 32: 86 4F D2 6F B5 59 F7 5B <-> "HelloWorld".
        assert_eq!(
            output_with(
                "base85-encoder",
                "864FD26FB559F75B",
                json!({"variant": "z85", "inputFormat": "hex"})
            ),
            "HelloWorld"
        );
        let data = run_ok(
            "base85-encoder",
            json!({"input": "HelloWorld", "variant": "z85", "mode": "decode", "outputFormat": "hex"}),
        );
        assert_eq!(data["output"], "864fd26fb559f75b");
    }

    #[test]
    fn z85_rejects_partial_groups() {
        let (code, msg) = run_err(
            "base85-encoder",
            json!({"input": "Hello", "variant": "z85"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("input is 5 bytes") && msg.contains("3 more"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "base85-encoder",
            json!({"input": "HelloWorl", "variant": "z85", "mode": "decode"}),
        );
        assert!(msg.contains("multiple of 5"), "{msg}");
    }
}
