//! Character-level converters: text as bytes (binary, hex, decimal, octal), Unicode code points
//! in their many notations, the ICAO/NATO spelling alphabet, and numeronyms (i18n).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use regex::{Captures, Regex};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("text-to-binary", text_to_binary),
    Tool::new("char-code-converter", char_code_converter),
    Tool::new("nato-alphabet-converter", nato_alphabet_converter),
    Tool::new("numeronym-generator", numeronym_generator),
];

fn joiner(args: &Args) -> Result<&'static str, ToolError> {
    Ok(match args.str("separator")? {
        "none" => "",
        "comma" => ",",
        "newline" => "\n",
        _ => " ",
    })
}

/// Compiles one of this module's fixed patterns once.
fn pattern(cell: &'static OnceLock<Regex>, source: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(source).unwrap_or_else(|e| panic!("bad pattern {source}: {e}")))
}

/// A token matched by a scanning pattern, with its 1-based character position.
struct Token<'a> {
    caps: Captures<'a>,
    column: usize,
    text: &'a str,
}

/// Finds every token of `re` in `input`, requiring that only separators (whitespace, commas,
/// semicolons) lie between them, so stray text is reported instead of silently skipped.
fn scan<'a>(input: &'a str, re: &Regex, what: &str) -> Result<Vec<Token<'a>>, ToolError> {
    let is_sep = |c: char| c.is_whitespace() || c == ',' || c == ';';
    let mut tokens = Vec::new();
    let mut last = 0;
    let check_gap = |from: usize, to: usize| -> Result<(), ToolError> {
        let gap = &input[from..to];
        if let Some(off) = gap.find(|c: char| !is_sep(c)) {
            let at = from + off;
            let shown: String = input[at..]
                .chars()
                .take_while(|c| !is_sep(*c))
                .take(20)
                .collect();
            let column = input[..at].chars().count() + 1;
            return Err(ToolError::invalid(format!(
                "'{shown}' at character {column} is not {what}"
            )));
        }
        Ok(())
    };
    for caps in re.captures_iter(input) {
        let Some(m) = caps.get(0) else { continue };
        check_gap(last, m.start())?;
        last = m.end();
        tokens.push(Token {
            column: input[..m.start()].chars().count() + 1,
            text: m.as_str(),
            caps,
        });
    }
    check_gap(last, input.len())?;
    Ok(tokens)
}

/// Hex digits as bytes: one or two digits per separated group, or an even-length run of
/// pairs. `\x`, `0x` and `%` prefixes are accepted (C, Python and URL escapes).
fn hex_bytes(input: &str) -> Result<Vec<u8>, ToolError> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = pattern(&RE, r"(?i)(?:\\x|0x|%)?([0-9a-f]+)");
    let mut out = Vec::new();
    for (n, t) in scan(input, re, "hexadecimal")?.iter().enumerate() {
        let digits = t.caps.get(1).map_or("", |m| m.as_str());
        if digits.len() > 2 && digits.len() % 2 == 1 {
            return Err(ToolError::invalid(format!(
                "group {} '{}' at character {} has an odd number of hex digits; a byte is two",
                n + 1,
                t.text,
                t.column
            )));
        }
        let padded = if digits.len() == 1 {
            format!("0{digits}")
        } else {
            digits.to_string()
        };
        out.extend(hex::decode(&padded).map_err(|e| ToolError::invalid(e.to_string()))?);
    }
    Ok(out)
}

/// Digit groups in base 2, 8 or 10 as bytes. Separated groups may drop leading zeros
/// (7-bit ASCII "1000001"); an unseparated binary run must be a whole number of bytes.
fn radix_bytes(input: &str, radix: u32) -> Result<Vec<u8>, ToolError> {
    let (name, digit_name) = match radix {
        2 => ("binary", "a binary digit (0 or 1)"),
        8 => ("octal", "an octal digit (0-7)"),
        _ => ("decimal", "a decimal digit"),
    };
    let is_sep = |c: char| c.is_whitespace() || c == ',' || c == ';';
    let mut out = Vec::new();
    let mut column = 1;
    let mut group = 0;
    for piece in input.split_inclusive(is_sep) {
        let token = piece.trim_end_matches(is_sep);
        let start = column;
        column += piece.chars().count();
        if token.is_empty() {
            continue;
        }
        group += 1;
        let digits = match radix {
            2 => token.strip_prefix("0b").unwrap_or(token),
            8 => token.strip_prefix("0o").unwrap_or(token),
            _ => token,
        };
        if let Some(bad) = digits.chars().find(|c| !c.is_digit(radix)) {
            return Err(ToolError::invalid(format!(
                "group {group} '{token}' at character {start} contains '{bad}', which is not {digit_name}"
            )));
        }
        let chunks: Vec<&str> = if radix == 2 && digits.len() > 8 {
            if digits.len() % 8 != 0 {
                return Err(ToolError::invalid(format!(
                    "group {group} '{token}' at character {start} has {} bits; a byte has 8 (a run without separators must be a multiple of 8 bits)",
                    digits.len()
                )));
            }
            (0..digits.len())
                .step_by(8)
                .map(|i| &digits[i..i + 8])
                .collect()
        } else {
            vec![digits]
        };
        for chunk in chunks {
            match u32::from_str_radix(chunk, radix)
                .ok()
                .and_then(|v| u8::try_from(v).ok())
            {
                Some(b) => out.push(b),
                None => {
                    return Err(ToolError::invalid(format!(
                        "group {group} '{token}' at character {start} is not a byte: {name} bytes range from {} to {}",
                        fmt_byte(0, radix),
                        fmt_byte(255, radix)
                    )));
                }
            }
        }
    }
    Ok(out)
}

fn fmt_byte(b: u8, radix: u32) -> String {
    match radix {
        2 => format!("{b:08b}"),
        8 => format!("{b:03o}"),
        16 => format!("{b:02x}"),
        _ => b.to_string(),
    }
}

/// Decoded bytes as text, or as Base64 when they are not UTF-8 (as base64-encoder does).
fn bytes_output(bytes: Vec<u8>) -> (String, &'static str) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, "utf-8"),
        Err(e) => (STANDARD.encode(e.into_bytes()), "base64"),
    }
}

fn text_to_binary(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let format = args.str("format")?;
    let radix = match format {
        "hex" => 16,
        "octal" => 8,
        "decimal" => 10,
        _ => 2,
    };
    if args.str("mode")? == "decode" {
        let bytes = if radix == 16 {
            hex_bytes(input)?
        } else {
            radix_bytes(input, radix)?
        };
        let count = bytes.len();
        let (output, encoding) = bytes_output(bytes);
        return Ok(json!({
            "output": output, "mode": "decode", "format": format,
            "bytes": count, "outputEncoding": encoding,
        }));
    }
    let sep = joiner(args)?;
    if sep.is_empty() && matches!(radix, 8 | 10) {
        return Err(ToolError::invalid(format!(
            "{format} bytes have no fixed width, so separator 'none' would make them unreadable; choose space, comma or newline"
        )));
    }
    let groups: Vec<String> = input.bytes().map(|b| fmt_byte(b, radix)).collect();
    Ok(json!({
        "output": groups.join(sep), "mode": "encode", "format": format, "bytes": groups.len(),
    }))
}

/// Every notation of one character, the table row of char-code-converter.
fn char_info(c: char) -> Value {
    let cp = c as u32;
    let mut utf16 = [0u16; 2];
    let units = c.encode_utf16(&mut utf16);
    let mut utf8 = [0u8; 4];
    let bytes = c.encode_utf8(&mut utf8).as_bytes();
    json!({
        "char": c.to_string(),
        "codePoint": format!("U+{cp:04X}"),
        "decimal": cp,
        "hex": format!("{cp:X}"),
        "octal": format!("{cp:o}"),
        "html": format!("&#{cp};"),
        "htmlHex": format!("&#x{cp:X};"),
        "js": units.iter().fold(String::new(), |mut s, u| { let _ = write!(s, "\\u{u:04X}"); s }),
        "jsCodePoint": format!("\\u{{{cp:X}}}"),
        "utf8": bytes.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" "),
        "utf16": units.iter().map(|u| format!("{u:04X}")).collect::<Vec<_>>().join(" "),
    })
}

/// The field of `char_info` that a `format` option shows.
fn format_field(format: &str) -> &'static str {
    match format {
        "decimal" => "decimal",
        "hex" => "hex",
        "octal" => "octal",
        "html-decimal" => "html",
        "html-hex" => "htmlHex",
        "js" => "js",
        "js-codepoint" => "jsCodePoint",
        "utf8" => "utf8",
        "utf16" => "utf16",
        _ => "codePoint",
    }
}

fn char_code_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "decode" {
        let from = args.str("inputFormat")?;
        let text = match from {
            "utf8" => String::from_utf8(hex_bytes(input)?).map_err(|e| {
                ToolError::invalid(format!(
                    "the bytes are not valid UTF-8 (invalid sequence at byte {})",
                    e.utf8_error().valid_up_to()
                ))
            })?,
            "utf16" => utf16_text(input)?,
            _ => code_point_text(input, from)?,
        };
        let characters: Vec<Value> = text.chars().map(char_info).collect();
        return Ok(json!({
            "output": text, "mode": "decode", "count": characters.len(), "characters": characters,
        }));
    }
    let format = args.str("format")?;
    let field = format_field(format);
    let characters: Vec<Value> = input.chars().map(char_info).collect();
    let codes: Vec<String> = characters
        .iter()
        .map(|c| match &c[field] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    Ok(json!({
        "output": codes.join(joiner(args)?), "mode": "encode", "format": format,
        "count": characters.len(), "characters": characters,
    }))
}

/// Code points written in any common notation; bare numbers are read in base `from`
/// (decimal when `auto`). Surrogate pairs (`\uD83D\uDE00`) are joined.
fn code_point_text(input: &str, from: &str) -> Result<String, ToolError> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = pattern(
        &RE,
        r"(?i)U\+([0-9a-f]{1,8})|&#x([0-9a-f]{1,8});|&#([0-9]{1,10});|\\u\{([0-9a-f]{1,8})\}|\\u([0-9a-f]{4})|\\x\{([0-9a-f]{1,8})\}|\\x([0-9a-f]{2})|0x([0-9a-f]{1,8})|0o([0-7]{1,11})|([0-9a-z]+)",
    );
    let mut values: Vec<(u32, usize, &str)> = Vec::new();
    for t in scan(input, re, "a character code")? {
        let (digits, radix) = match (1..=10).find_map(|i| t.caps.get(i).map(|m| (i, m.as_str()))) {
            Some((3, d)) => (d, 10),
            Some((9, d)) => (d, 8),
            Some((10, d)) => match from {
                "hex" => (d, 16),
                "octal" => (d, 8),
                _ => (d, 10),
            },
            Some((_, d)) => (d, 16),
            None => continue,
        };
        let value = u32::from_str_radix(digits, radix).map_err(|_| {
            let hint = if from == "auto" && digits.chars().all(|c| c.is_ascii_hexdigit()) {
                " (bare numbers are decimal; write U+ or 0x before hex, or choose inputFormat 'hex')"
            } else {
                ""
            };
            ToolError::invalid(format!(
                "'{}' at character {} is not a base-{radix} number{hint}",
                t.text, t.column
            ))
        })?;
        values.push((value, t.column, t.text));
    }
    let mut out = String::new();
    let mut i = 0;
    while i < values.len() {
        let (v, column, text) = values[i];
        let combined = match values.get(i + 1) {
            Some(&(lo, _, _))
                if (0xD800..0xDC00).contains(&v) && (0xDC00..0xE000).contains(&lo) =>
            {
                i += 1;
                0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
            }
            _ => v,
        };
        let c = char::from_u32(combined).ok_or_else(|| {
            let why = if (0xD800..0xE000).contains(&combined) {
                "is a lone UTF-16 surrogate (a high surrogate D800-DBFF must be followed by a low one DC00-DFFF)"
            } else {
                "is beyond U+10FFFF, the last Unicode code point"
            };
            ToolError::invalid(format!("'{text}' at character {column} {why}"))
        })?;
        out.push(c);
        i += 1;
    }
    Ok(out)
}

/// UTF-16 code units in hex: up to four digits per separated group, or a run of four-digit units.
fn utf16_text(input: &str) -> Result<String, ToolError> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = pattern(&RE, r"(?i)(?:\\u|0x|U\+)?([0-9a-f]+)");
    let mut units = Vec::new();
    for t in scan(input, re, "a hexadecimal UTF-16 code unit")? {
        let digits = t.caps.get(1).map_or("", |m| m.as_str());
        if digits.len() > 4 && digits.len() % 4 != 0 {
            return Err(ToolError::invalid(format!(
                "'{}' at character {} is not a whole number of 16-bit units (four hex digits each)",
                t.text, t.column
            )));
        }
        for i in (0..digits.len()).step_by(4) {
            let chunk = &digits[i..(i + 4).min(digits.len())];
            units.push(
                u16::from_str_radix(chunk, 16).map_err(|e| ToolError::invalid(e.to_string()))?,
            );
        }
    }
    String::from_utf16(&units).map_err(|_| {
        ToolError::invalid(
            "the code units contain an unpaired surrogate (D800-DBFF must be followed by DC00-DFFF)",
        )
    })
}

/// The ICAO spelling alphabet (ICAO Annex 10 Vol. II §5.2.1.4.3), used by NATO and the ITU.
const LETTERS: [&str; 26] = [
    "Alfa", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett",
    "Kilo", "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango",
    "Uniform", "Victor", "Whiskey", "X-ray", "Yankee", "Zulu",
];
/// Digits as ICAO radiotelephony says them (Tree, Fower, Fife, Niner avoid confusions on air).
const ICAO_DIGITS: [&str; 10] = [
    "Zero", "One", "Two", "Tree", "Fower", "Fife", "Six", "Seven", "Eight", "Niner",
];
const PLAIN_DIGITS: [&str; 10] = [
    "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
];
/// Other spellings in common use, accepted when decoding.
const ALIASES: [(&str, char); 4] = [
    ("alpha", 'A'),
    ("juliet", 'J'),
    ("xray", 'X'),
    ("whisky", 'W'),
];

fn nato_lookup(word: &str) -> Option<char> {
    let w = word.to_lowercase();
    let letter = LETTERS
        .iter()
        .zip('A'..='Z')
        .find(|(name, _)| name.to_lowercase() == w)
        .map(|(_, c)| c);
    let digit = || {
        ICAO_DIGITS
            .iter()
            .zip(PLAIN_DIGITS.iter())
            .zip('0'..='9')
            .find(|((a, b), _)| a.to_lowercase() == w || b.to_lowercase() == w)
            .map(|(_, c)| c)
    };
    let alias = || ALIASES.iter().find(|(a, _)| *a == w).map(|(_, c)| *c);
    letter.or_else(digit).or_else(alias)
}

fn nato_alphabet_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "decode" {
        let mut out = String::new();
        for (n, word) in input.split_whitespace().enumerate() {
            if word == "/" || word == "|" {
                out.push(' ');
            } else if let Some(c) =
                nato_lookup(word.trim_matches(|c: char| matches!(c, ',' | '.' | ';')))
            {
                out.push(c);
            } else if word.chars().count() == 1 {
                out.push_str(word);
            } else {
                return Err(ToolError::invalid(format!(
                    "word {} '{word}' is not a spelling-alphabet code word (Alfa … Zulu, Zero … Niner); separate words with spaces and mark spaces with '/'",
                    n + 1
                )));
            }
        }
        return Ok(json!({ "output": out, "mode": "decode" }));
    }
    let digits = if args.str("digits")? == "plain" {
        &PLAIN_DIGITS
    } else {
        &ICAO_DIGITS
    };
    let mut words: Vec<String> = Vec::new();
    let mut in_space = false;
    for c in input.chars() {
        if c.is_whitespace() {
            if !in_space && !words.is_empty() {
                words.push("/".into());
            }
            in_space = true;
            continue;
        }
        in_space = false;
        let upper = c.to_ascii_uppercase();
        let word = match upper {
            'A'..='Z' => LETTERS[(upper as u8 - b'A') as usize].to_string(),
            '0'..='9' => digits[(upper as u8 - b'0') as usize].to_string(),
            _ => c.to_string(),
        };
        words.push(word);
    }
    if words.last().is_some_and(|w| w == "/") {
        words.pop();
    }
    let output = match args.str("style")? {
        "upper" => words.join(" ").to_uppercase(),
        "lower" => words.join(" ").to_lowercase(),
        _ => words.join(" "),
    };
    Ok(json!({ "output": output, "mode": "encode" }))
}

fn numeronym_generator(args: &Args) -> ToolOutcome {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = pattern(&RE, r"[\p{L}\p{N}]+");
    let input = args.str("input")?;
    let min = args.usize("minLength")?;
    let mut words = Vec::new();
    let output = re.replace_all(input, |caps: &Captures| {
        let word = &caps[0];
        let chars: Vec<char> = word.chars().collect();
        match (chars.first(), chars.last()) {
            (Some(first), Some(last)) if chars.len() >= min.max(3) => {
                let short = format!("{first}{}{last}", chars.len() - 2);
                words.push(json!({ "word": word, "numeronym": short }));
                short
            }
            _ => word.to_string(),
        }
    });
    Ok(json!({ "output": output, "words": words }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // ASCII 'A' is 0x41; 'é' (U+00E9) is C3 A9 in UTF-8 (RFC 3629).
    #[test]
    fn binary_encodes_utf8_bytes() {
        assert_eq!(
            run_ok("text-to-binary", json!({"input": "A"}))["output"],
            "01000001"
        );
        let data = run_ok("text-to-binary", json!({"input": "é"}));
        assert_eq!(data["output"], "11000011 10101001");
        assert_eq!(data["bytes"], 2);
        let hex = run_ok(
            "text-to-binary",
            json!({"input": "Hi é", "format": "hex", "separator": "none"}),
        );
        assert_eq!(hex["output"], "486920c3a9");
        let dec = run_ok(
            "text-to-binary",
            json!({"input": "Hi", "format": "decimal", "separator": "comma"}),
        );
        assert_eq!(dec["output"], "72,105");
        let oct = run_ok("text-to-binary", json!({"input": "Hi", "format": "octal"}));
        assert_eq!(oct["output"], "110 151");
    }

    #[test]
    fn binary_decodes_groups_runs_and_7_bit_ascii() {
        let data = run_ok(
            "text-to-binary",
            json!({"input": "01001000 01101001", "mode": "decode"}),
        );
        assert_eq!(data["output"], "Hi");
        let run = run_ok(
            "text-to-binary",
            json!({"input": "1100001110101001", "mode": "decode"}),
        );
        assert_eq!(run["output"], "é");
        let seven = run_ok(
            "text-to-binary",
            json!({"input": "1001000 1101001", "mode": "decode"}),
        );
        assert_eq!(seven["output"], "Hi");
        let hex = run_ok(
            "text-to-binary",
            json!({"input": "\\x48\\x69 0xC3,a9", "mode": "decode", "format": "hex"}),
        );
        assert_eq!(hex["output"], "Hié");
        let bin = run_ok(
            "text-to-binary",
            json!({"input": "11111111", "mode": "decode"}),
        );
        assert_eq!(bin["output"], "/w==");
        assert_eq!(bin["outputEncoding"], "base64");
    }

    #[test]
    fn binary_decode_rejects_bad_groups() {
        let (code, msg) = run_err(
            "text-to-binary",
            json!({"input": "01000001 0102", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("group 2 '0102' at character 10 contains '2'"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "text-to-binary",
            json!({"input": "010000010", "mode": "decode"}),
        );
        assert!(msg.contains("has 9 bits"), "{msg}");
        let (_, msg) = run_err(
            "text-to-binary",
            json!({"input": "72 256", "mode": "decode", "format": "decimal"}),
        );
        assert!(msg.contains("'256'") && msg.contains("0 to 255"), "{msg}");
        let (_, msg) = run_err(
            "text-to-binary",
            json!({"input": "48 6g", "mode": "decode", "format": "hex"}),
        );
        assert!(msg.contains("'g' at character 5"), "{msg}");
    }

    // Code points from the Unicode code charts: U+0041 LATIN CAPITAL LETTER A,
    // U+1F600 GRINNING FACE (UTF-16 D83D DE00, UTF-8 F0 9F 98 80).
    #[test]
    fn char_codes_table() {
        let data = run_ok("char-code-converter", json!({"input": "A😀"}));
        assert_eq!(data["output"], "U+0041 U+1F600");
        let a = &data["characters"][0];
        assert_eq!(a["decimal"], 65);
        assert_eq!(a["html"], "&#65;");
        assert_eq!(a["js"], "\\u0041");
        let smile = &data["characters"][1];
        assert_eq!(smile["utf16"], "D83D DE00");
        assert_eq!(smile["utf8"], "F0 9F 98 80");
        assert_eq!(smile["decimal"], 128512);
        assert_eq!(smile["js"], "\\uD83D\\uDE00");
        assert_eq!(smile["jsCodePoint"], "\\u{1F600}");
        assert_eq!(smile["octal"], "373000");
        let dec = run_ok(
            "char-code-converter",
            json!({"input": "Hi", "format": "decimal", "separator": "comma"}),
        );
        assert_eq!(dec["output"], "72,105");
        let html = run_ok(
            "char-code-converter",
            json!({"input": "é😀", "format": "html-hex", "separator": "none"}),
        );
        assert_eq!(html["output"], "&#xE9;&#x1F600;");
    }

    #[test]
    fn char_codes_decode_any_notation() {
        let data = run_ok(
            "char-code-converter",
            json!({"input": "U+0048 105, &#x1F600; &#65;\\uD83D\\uDE00 \\u{E9} 0x21", "mode": "decode"}),
        );
        assert_eq!(data["output"], "Hi😀A😀é!");
        let hex = run_ok(
            "char-code-converter",
            json!({"input": "48 69", "mode": "decode", "inputFormat": "hex"}),
        );
        assert_eq!(hex["output"], "Hi");
        let utf16 = run_ok(
            "char-code-converter",
            json!({"input": "D83D DE00 0041", "mode": "decode", "inputFormat": "utf16"}),
        );
        assert_eq!(utf16["output"], "😀A");
        let utf8 = run_ok(
            "char-code-converter",
            json!({"input": "F0 9F 98 80 C3A9", "mode": "decode", "inputFormat": "utf8"}),
        );
        assert_eq!(utf8["output"], "😀é");
    }

    #[test]
    fn char_codes_decode_errors() {
        let (code, msg) = run_err(
            "char-code-converter",
            json!({"input": "\\uD83D 65", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("lone UTF-16 surrogate"), "{msg}");
        let (_, msg) = run_err(
            "char-code-converter",
            json!({"input": "U+110000", "mode": "decode"}),
        );
        assert!(msg.contains("beyond U+10FFFF"), "{msg}");
        let (_, msg) = run_err(
            "char-code-converter",
            json!({"input": "65 1F", "mode": "decode"}),
        );
        assert!(
            msg.contains("'1F' at character 4") && msg.contains("inputFormat 'hex'"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "char-code-converter",
            json!({"input": "65 + 66", "mode": "decode"}),
        );
        assert!(msg.contains("'+' at character 4"), "{msg}");
        let (_, msg) = run_err(
            "char-code-converter",
            json!({"input": "C3 28", "mode": "decode", "inputFormat": "utf8"}),
        );
        assert!(msg.contains("not valid UTF-8"), "{msg}");
    }

    // ICAO Annex 10 spelling alphabet; digits in radiotelephony form.
    #[test]
    fn nato_spells_text() {
        let data = run_ok("nato-alphabet-converter", json!({"input": "Hi X9"}));
        assert_eq!(data["output"], "Hotel India / X-ray Niner");
        let plain = run_ok(
            "nato-alphabet-converter",
            json!({"input": "j3-b", "digits": "plain", "style": "upper"}),
        );
        assert_eq!(plain["output"], "JULIETT THREE - BRAVO");
        let icao = run_ok("nato-alphabet-converter", json!({"input": "345"}));
        assert_eq!(icao["output"], "Tree Fower Fife");
    }

    #[test]
    fn nato_decodes_spelling_with_variants() {
        let data = run_ok(
            "nato-alphabet-converter",
            json!({"input": "hotel ECHO Lima lima oscar / Whisky alpha juliet xray Niner Three", "mode": "decode"}),
        );
        assert_eq!(data["output"], "HELLO WAJX93");
        let round = run_ok(
            "nato-alphabet-converter",
            json!({"input": "Alfa - Bravo / Tree", "mode": "decode"}),
        );
        assert_eq!(round["output"], "A-B 3");
    }

    #[test]
    fn nato_decode_rejects_unknown_words() {
        let (code, msg) = run_err(
            "nato-alphabet-converter",
            json!({"input": "Alfa Bravoo", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("word 2 'Bravoo'"), "{msg}");
    }

    // The well-known numeronyms (W3C i18n glossary; Kubernetes docs for k8s).
    #[test]
    fn numeronyms_of_known_words() {
        for (word, short) in [
            ("internationalization", "i18n"),
            ("localization", "l10n"),
            ("accessibility", "a11y"),
            ("Kubernetes", "K8s"),
        ] {
            assert_eq!(
                run_ok("numeronym-generator", json!({"input": word}))["output"],
                short
            );
        }
    }

    #[test]
    fn numeronyms_per_word_keeping_short_words_and_punctuation() {
        let data = run_ok(
            "numeronym-generator",
            json!({"input": "Internationalization and localization, for all."}),
        );
        assert_eq!(data["output"], "I18n and l10n, for all.");
        assert_eq!(
            data["words"][0],
            json!({"word": "Internationalization", "numeronym": "I18n"})
        );
        let strict = run_ok(
            "numeronym-generator",
            json!({"input": "for accessibility", "minLength": 5}),
        );
        assert_eq!(strict["output"], "for a11y");
    }

    #[test]
    fn numeronym_rejects_tiny_min_length() {
        let (code, _) = run_err(
            "numeronym-generator",
            json!({"input": "abc", "minLength": 1}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }

    #[test]
    fn binary_round_trips_multilingual_text() {
        let text = "Grüße, 世界 😀";
        for format in ["binary", "hex", "decimal", "octal"] {
            let encoded = run_ok("text-to-binary", json!({"input": text, "format": format}));
            let decoded = run_ok(
                "text-to-binary",
                json!({"input": encoded["output"], "format": format, "mode": "decode"}),
            );
            assert_eq!(decoded["output"], text, "{format}");
        }
        let (code, msg) = run_err(
            "text-to-binary",
            json!({"input": "Hi", "format": "decimal", "separator": "none"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("no fixed width"), "{msg}");
    }

    // The euro sign U+20AC: UTF-8 E2 82 AC, decimal 8364 (Unicode code chart 20A0-20CF).
    #[test]
    fn char_codes_round_trip_every_format() {
        let text = "€A😀";
        for (format, from) in [
            ("unicode", "auto"),
            ("decimal", "auto"),
            ("hex", "hex"),
            ("octal", "octal"),
            ("html-decimal", "auto"),
            ("html-hex", "auto"),
            ("js", "auto"),
            ("js-codepoint", "auto"),
            ("utf8", "utf8"),
            ("utf16", "utf16"),
        ] {
            let enc = run_ok(
                "char-code-converter",
                json!({"input": text, "format": format}),
            );
            let dec = run_ok(
                "char-code-converter",
                json!({"input": enc["output"], "mode": "decode", "inputFormat": from}),
            );
            assert_eq!(dec["output"], text, "{format}: {}", enc["output"]);
        }
        let euro = run_ok(
            "char-code-converter",
            json!({"input": "€", "format": "utf8"}),
        );
        assert_eq!(euro["output"], "E2 82 AC");
        assert_eq!(euro["characters"][0]["decimal"], 8364);
    }

    #[test]
    fn nato_round_trip_and_passthrough() {
        let text = "CALL SIGN N123AB, OVER";
        let spelled = run_ok("nato-alphabet-converter", json!({"input": text}));
        assert_eq!(
            spelled["output"],
            "Charlie Alfa Lima Lima / Sierra India Golf November / November One Two Tree Alfa Bravo , / Oscar Victor Echo Romeo"
        );
        let back = run_ok(
            "nato-alphabet-converter",
            json!({"input": spelled["output"], "mode": "decode"}),
        );
        assert_eq!(back["output"], "CALL SIGN N123AB, OVER");
        let lower = run_ok(
            "nato-alphabet-converter",
            json!({"input": "é x", "style": "lower"}),
        );
        assert_eq!(lower["output"], "é / x-ray");
    }

    #[test]
    fn numeronym_counts_characters_not_bytes() {
        let data = run_ok("numeronym-generator", json!({"input": "Überprüfung café"}));
        assert_eq!(data["output"], "Ü9g c2é");
        let digits = run_ok("numeronym-generator", json!({"input": "web3 abcd"}));
        assert_eq!(digits["output"], "w23 a2d");
    }
}
