//! Classical ciphers: caesar-cipher (shift, ROT13, ROT47, brute force), xor-cipher (repeating
//! key, single-byte brute force ranked by English-likeness) and vigenere-cipher. None of these
//! is secure; they are for puzzles, CTFs and legacy data.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("caesar-cipher", caesar_cipher),
    Tool::new("xor-cipher", xor_cipher),
    Tool::new("vigenere-cipher", vigenere_cipher),
];

/// Shifts an ASCII letter by `shift` places (0..26), keeping its case; other characters pass.
fn shift_letter(c: char, shift: u8) -> char {
    let base = match c {
        'a'..='z' => b'a',
        'A'..='Z' => b'A',
        _ => return c,
    };
    char::from(base + (c as u8 - base + shift) % 26)
}

fn caesar(text: &str, shift: u8) -> String {
    text.chars().map(|c| shift_letter(c, shift)).collect()
}

/// ROT47 rotates the 94 printable ASCII characters '!'..='~' by 47, so it is its own inverse.
fn rot47(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '!'..='~' => char::from(b'!' + (c as u8 - b'!' + 47) % 94),
            _ => c,
        })
        .collect()
}

fn caesar_cipher(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let variant = args.str("variant")?;
    let mode = args.str("mode")?;
    if variant == "rot47" {
        return Ok(json!({ "output": rot47(input), "variant": variant }));
    }
    let shift = if variant == "rot13" {
        13
    } else {
        args.i64("shift")?
    };
    // Any integer works: -3 decodes a shift of 3, 29 is the same as 3.
    let forward = shift.rem_euclid(26);
    let signed = if mode == "decode" {
        (26 - forward) % 26
    } else {
        forward
    };
    let effective = u8::try_from(signed).unwrap_or(0);
    let mut data = json!({
        "output": caesar(input, effective),
        "variant": variant,
        "mode": mode,
        "shift": shift,
        "effectiveShift": effective,
    });
    if args.flag("bruteForce") {
        // Every shift as a decoding, so the line that reads as plain text gives the key.
        let candidates: Vec<Value> = (1..26u8)
            .map(|s| json!({ "shift": s, "text": caesar(input, 26 - s) }))
            .collect();
        data["candidates"] = Value::Array(candidates);
    }
    Ok(data)
}

/// Decodes a parameter given as text, hex or Base64.
fn bytes_param(name: &str, value: &str, encoding: &str) -> Result<Vec<u8>, ToolError> {
    match encoding {
        "hex" => decode_hex(name, value),
        "base64" => decode_base64_param(name, value),
        _ => Ok(value.as_bytes().to_vec()),
    }
}

/// Hex with optional whitespace, ':' or '-' separators and a leading 0x.
pub(crate) fn decode_hex(name: &str, value: &str) -> Result<Vec<u8>, ToolError> {
    let trimmed = value.trim();
    let body = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
        .unwrap_or(trimmed);
    let compact: String = body
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, ':' | '-'))
        .collect();
    if let Some((i, c)) = compact
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return Err(ToolError::invalid(format!(
            "parameter '{name}' is not valid hex: '{c}' at hex digit {} is not 0-9 or a-f",
            i + 1
        )));
    }
    hex::decode(&compact).map_err(|_| {
        ToolError::invalid(format!(
            "parameter '{name}' is not valid hex: it has an odd number of digits ({})",
            compact.len()
        ))
    })
}

/// Renders bytes as hex, Base64 or text; text that is not UTF-8 falls back to Base64.
fn render(bytes: Vec<u8>, encoding: &str) -> (String, &'static str) {
    match encoding {
        "hex" => (hex::encode(bytes), "hex"),
        "base64" => (STANDARD.encode(bytes), "base64"),
        _ => match String::from_utf8(bytes) {
            Ok(text) => (text, "utf-8"),
            Err(e) => (STANDARD.encode(e.into_bytes()), "base64"),
        },
    }
}

fn xor_cipher(args: &Args) -> ToolOutcome {
    let data = bytes_param("input", args.str("input")?, args.str("inputEncoding")?)?;
    let out_encoding = args.str("outputEncoding")?;
    if args.flag("bruteForce") {
        return xor_brute_force(&data, args);
    }
    let Some(key_text) = args.opt_str("key") else {
        return Err(ToolError::invalid(
            "a 'key' is needed to XOR with (or set bruteForce to search single-byte keys)",
        ));
    };
    let key = bytes_param("key", key_text, args.str("keyEncoding")?)?;
    if key.is_empty() {
        return Err(ToolError::invalid(
            "the key is empty: XOR needs at least one key byte",
        ));
    }
    let xored: Vec<u8> = data
        .iter()
        .zip(key.iter().cycle())
        .map(|(d, k)| d ^ k)
        .collect();
    let (output, encoding) = render(xored, out_encoding);
    Ok(json!({
        "output": output,
        "outputEncoding": encoding,
        "keyHex": hex::encode(&key),
        "inputSize": data.len(),
    }))
}

/// English letter frequencies in percent (a-z), from Lewand's "Cryptological Mathematics".
const LETTER_FREQ: [f64; 26] = [
    8.167, 1.492, 2.782, 4.253, 12.702, 2.228, 2.015, 6.094, 6.966, 0.153, 0.772, 4.025, 2.406,
    6.749, 7.507, 1.929, 0.095, 5.987, 6.327, 9.056, 2.758, 0.978, 2.360, 0.150, 1.974, 0.074,
];

/// How English-like bytes look: mean per-byte letter frequency (space counts as the most common
/// "letter"), with non-printable bytes penalised. Also returns the printable fraction.
fn english_score(bytes: &[u8]) -> (f64, f64) {
    if bytes.is_empty() {
        return (0.0, 0.0);
    }
    let mut score = 0.0;
    let mut printable = 0usize;
    for &b in bytes {
        let is_printable = (0x20..0x7f).contains(&b) || matches!(b, b'\n' | b'\r' | b'\t');
        if is_printable {
            printable += 1;
        }
        score += match b {
            b' ' => 13.0,
            b'a'..=b'z' => LETTER_FREQ[usize::from(b - b'a')],
            b'A'..=b'Z' => LETTER_FREQ[usize::from(b - b'A')] * 0.8,
            _ if is_printable => 0.5,
            _ => -20.0,
        };
    }
    let n = bytes.len() as f64;
    (score / n, printable as f64 / n)
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn xor_brute_force(data: &[u8], args: &Args) -> ToolOutcome {
    let crib = args.opt_str("crib").map(str::as_bytes);
    let limit = args.usize("candidates")?;
    let mut ranked: Vec<(u8, f64, f64, Vec<u8>)> = (0..=255u8)
        .map(|k| {
            let plain: Vec<u8> = data.iter().map(|b| b ^ k).collect();
            let (score, printable) = english_score(&plain);
            (k, score, printable, plain)
        })
        .filter(|(_, _, _, plain)| {
            crib.is_none_or(|c| c.is_empty() || plain.windows(c.len()).any(|w| w == c))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(limit);
    let candidates: Vec<Value> = ranked
        .into_iter()
        .map(|(k, score, printable, plain)| {
            json!({
                "key": format!("{k:02x}"),
                "keyChar": if (0x20..0x7f).contains(&k) { Value::from(char::from(k).to_string()) } else { Value::Null },
                "score": round4(score),
                "printableRatio": round4(printable),
                "text": String::from_utf8_lossy(&plain),
            })
        })
        .collect();
    let output = candidates
        .first()
        .and_then(|c| c["text"].as_str())
        .unwrap_or_default()
        .to_string();
    Ok(json!({
        "output": output,
        "candidates": candidates,
        "inputSize": data.len(),
    }))
}

fn vigenere_cipher(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let key_text = args.str("key")?;
    let mode = args.str("mode")?;
    if key_text.is_empty() {
        return Err(ToolError::invalid(
            "the key is empty: give one or more letters A-Z",
        ));
    }
    if let Some((i, c)) = key_text
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_alphabetic())
    {
        return Err(ToolError::invalid(format!(
            "the key may contain only letters A-Z: '{c}' at position {} is not one",
            i + 1
        )));
    }
    let shifts: Vec<u8> = key_text
        .bytes()
        .map(|b| b.to_ascii_uppercase() - b'A')
        .map(|s| if mode == "decode" { (26 - s) % 26 } else { s })
        .collect();
    // Only letters consume key letters; spaces and punctuation pass through (as CyberChef).
    let mut next = shifts.iter().cycle();
    let output: String = input
        .chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                shift_letter(c, *next.next().unwrap_or(&0))
            } else {
                c
            }
        })
        .collect();
    Ok(json!({ "output": output, "mode": mode, "key": key_text.to_ascii_uppercase() }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    #[test]
    fn caesar_rot13_rot47_and_shifts() {
        assert_eq!(
            output_with(
                "caesar-cipher",
                "Hello, World!",
                json!({"variant": "rot13"})
            ),
            "Uryyb, Jbeyq!"
        );
        // ROT13 is its own inverse.
        assert_eq!(
            output_with(
                "caesar-cipher",
                "Uryyb, Jbeyq!",
                json!({"variant": "rot13"})
            ),
            "Hello, World!"
        );
        assert_eq!(
            output_with("caesar-cipher", "Hello", json!({"variant": "rot47"})),
            "w6==@"
        );
        assert_eq!(
            output_with("caesar-cipher", "w6==@", json!({"variant": "rot47"})),
            "Hello"
        );
        assert_eq!(
            output_with("caesar-cipher", "abc xyz", json!({"shift": 3})),
            "def abc"
        );
    }

    // The classic example: Caesar's shift of 3 (Suetonius), with wrap-around and negatives.
    #[test]
    fn caesar_shift_wraps_and_decodes() {
        let plain = "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG";
        let cipher = "WKH TXLFN EURZQ IRA MXPSV RYHU WKH ODCB GRJ";
        assert_eq!(
            output_with("caesar-cipher", plain, json!({"shift": 3})),
            cipher
        );
        assert_eq!(
            output_with("caesar-cipher", plain, json!({"shift": 29})),
            cipher
        );
        assert_eq!(
            output_with("caesar-cipher", plain, json!({"shift": -23})),
            cipher
        );
        assert_eq!(
            output_with(
                "caesar-cipher",
                cipher,
                json!({"shift": 3, "mode": "decode"})
            ),
            plain
        );
        let data = run_ok("caesar-cipher", json!({"input": "x", "shift": -1}));
        assert_eq!(data["effectiveShift"], 25);
        let extreme = run_ok(
            "caesar-cipher",
            json!({"input": "abc", "shift": i64::MIN, "mode": "decode"}),
        );
        // i64::MIN ≡ 18 (mod 26), so decoding shifts back by 18 (forward by 8).
        assert_eq!(extreme["output"], "ijk");
    }

    #[test]
    fn caesar_brute_force_lists_all_25_shifts() {
        let data = run_ok(
            "caesar-cipher",
            json!({"input": "Khoor, Zruog!", "bruteForce": true}),
        );
        let list = data["candidates"].as_array().unwrap();
        assert_eq!(list.len(), 25);
        assert_eq!(list[2], json!({"shift": 3, "text": "Hello, World!"}));
    }

    #[test]
    fn caesar_rejects_a_fractional_shift() {
        let (code, _) = run_err("caesar-cipher", json!({"input": "abc", "shift": 1.5}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }

    #[test]
    fn xor_text_and_hex_vectors() {
        let data = run_ok(
            "xor-cipher",
            json!({"input": "Hello", "key": "20", "keyEncoding": "hex", "outputEncoding": "text"}),
        );
        assert_eq!(data["output"], "hELLO");
        // Cryptopals set 1, challenge 2 (fixed XOR).
        let data = run_ok(
            "xor-cipher",
            json!({
                "input": "1c0111001f010100061a024b53535009181c",
                "inputEncoding": "hex",
                "key": "686974207468652062756c6c277320657965",
                "keyEncoding": "hex",
            }),
        );
        assert_eq!(data["output"], "746865206b696420646f6e277420706c6179");
    }

    // Cryptopals set 1, challenge 5 (repeating-key XOR with "ICE").
    #[test]
    fn xor_repeating_key() {
        let input = "Burning 'em, if you ain't quick and nimble\nI go crazy when I hear a cymbal";
        let data = run_ok("xor-cipher", json!({"input": input, "key": "ICE"}));
        assert_eq!(
            data["output"],
            "0b3637272a2b2e63622c2e69692a23693a2a3c6324202d623d63343c2a26226324272765272a282b2f20430a652e2c652a3124333a653e2b2027630c692b20283165286326302e27282f"
        );
        let back = run_ok(
            "xor-cipher",
            json!({"input": data["output"], "inputEncoding": "hex", "key": "ICE", "outputEncoding": "text"}),
        );
        assert_eq!(back["output"], input);
    }

    // Cryptopals set 1, challenge 3 (single-byte XOR cipher).
    #[test]
    fn xor_brute_force_finds_the_key() {
        let data = run_ok(
            "xor-cipher",
            json!({
                "input": "1b37373331363f78151b7f2b783431333d78397828372d363c78373e783a393b3736",
                "inputEncoding": "hex",
                "bruteForce": true,
            }),
        );
        assert_eq!(data["output"], "Cooking MC's like a pound of bacon");
        assert_eq!(data["candidates"][0]["key"], "58");
        assert_eq!(data["candidates"][0]["keyChar"], "X");
        assert_eq!(data["candidates"].as_array().unwrap().len(), 5);
        let cribbed = run_ok(
            "xor-cipher",
            json!({
                "input": "1b37373331363f78151b7f2b783431333d78397828372d363c78373e783a393b3736",
                "inputEncoding": "hex",
                "bruteForce": true,
                "crib": "bacon",
            }),
        );
        assert_eq!(cribbed["candidates"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn xor_rejects_empty_key_and_bad_hex() {
        let (code, msg) = run_err(
            "xor-cipher",
            json!({"input": "abc", "key": "", "keyEncoding": "text"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("key"), "{msg}");
        let (code, msg) = run_err(
            "xor-cipher",
            json!({"input": "abc", "key": "0g", "keyEncoding": "hex"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'g' at hex digit 2"), "{msg}");
    }

    // The textbook example (Wikipedia, "Vigenère cipher"): ATTACKATDAWN with key LEMON.
    #[test]
    fn vigenere_textbook_vector() {
        assert_eq!(
            output_with("vigenere-cipher", "ATTACKATDAWN", json!({"key": "LEMON"})),
            "LXFOPVEFRNHR"
        );
        assert_eq!(
            output_with(
                "vigenere-cipher",
                "LXFOPVEFRNHR",
                json!({"key": "LEMON", "mode": "decode"})
            ),
            "ATTACKATDAWN"
        );
    }

    #[test]
    fn vigenere_keeps_case_and_skips_non_letters() {
        assert_eq!(
            output_with("vigenere-cipher", "attack at dawn", json!({"key": "lemon"})),
            "lxfopv ef rnhr"
        );
        assert_eq!(
            output_with(
                "vigenere-cipher",
                "Attack, at Dawn!",
                json!({"key": "Lemon"})
            ),
            "Lxfopv, ef Rnhr!"
        );
        assert_eq!(
            output_with(
                "vigenere-cipher",
                "Lxfopv, ef Rnhr!",
                json!({"key": "LEMON", "mode": "decode"})
            ),
            "Attack, at Dawn!"
        );
    }

    #[test]
    fn vigenere_rejects_non_letter_keys() {
        let (code, msg) = run_err("vigenere-cipher", json!({"input": "abc", "key": "LEM0N"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'0' at position 4"), "{msg}");
    }
}
