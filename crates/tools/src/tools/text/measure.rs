//! Measurements of strings and data: edit distances and similarities (strsim), and Shannon
//! entropy with a byte or character frequency distribution.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("string-distance", string_distance),
    Tool::new("entropy-calculator", entropy_calculator),
];

/// Rounds a ratio for display; six decimals are beyond any use of these measures.
fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

const ALGORITHMS: &[&str] = &[
    "levenshtein",
    "damerauLevenshtein",
    "osa",
    "hamming",
    "jaro",
    "jaroWinkler",
    "normalizedLevenshtein",
    "sorensenDice",
];

fn string_distance(args: &Args) -> ToolOutcome {
    let fold = |s: &str| {
        if args.flag("ignoreCase") {
            s.to_lowercase()
        } else {
            s.to_string()
        }
    };
    let (a, b) = (fold(args.str("first")?), fold(args.str("second")?));
    let chosen = args.str("algorithm")?;
    let mut data = Map::new();
    for &name in ALGORITHMS {
        if chosen != "all" && chosen != name {
            continue;
        }
        let value = match name {
            "levenshtein" => json!(strsim::levenshtein(&a, &b)),
            "damerauLevenshtein" => json!(strsim::damerau_levenshtein(&a, &b)),
            "osa" => json!(strsim::osa_distance(&a, &b)),
            "hamming" => match strsim::hamming(&a, &b) {
                Ok(d) => json!(d),
                Err(_) if chosen == "all" => Value::Null,
                Err(_) => {
                    return Err(ToolError::invalid(format!(
                        "Hamming distance needs strings of equal length, but they have {} and {} characters",
                        a.chars().count(),
                        b.chars().count()
                    )));
                }
            },
            "jaro" => json!(round(strsim::jaro(&a, &b), 6)),
            "jaroWinkler" => json!(round(strsim::jaro_winkler(&a, &b), 6)),
            "normalizedLevenshtein" => json!(round(strsim::normalized_levenshtein(&a, &b), 6)),
            _ => json!(round(sorensen_dice(&a, &b), 6)),
        };
        data.insert(name.to_string(), value);
    }
    data.insert("firstLength".into(), json!(a.chars().count()));
    data.insert("secondLength".into(), json!(b.chars().count()));
    Ok(Value::Object(data))
}

/// Sørensen–Dice coefficient over character bigrams, whitespace ignored, as strsim and the
/// string-similarity package define it; counted in characters (strsim divides by byte
/// lengths, which is wrong for non-ASCII text).
fn sorensen_dice(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().filter(|c| !c.is_whitespace()).collect();
    let b: Vec<char> = b.chars().filter(|c| !c.is_whitespace()).collect();
    if a == b {
        return 1.0;
    }
    if a.len() < 2 || b.len() < 2 {
        return 0.0;
    }
    let mut bigrams: HashMap<(char, char), usize> = HashMap::new();
    for w in a.windows(2) {
        *bigrams.entry((w[0], w[1])).or_default() += 1;
    }
    let mut shared = 0;
    for w in b.windows(2) {
        if let Some(n) = bigrams.get_mut(&(w[0], w[1]))
            && *n > 0
        {
            *n -= 1;
            shared += 1;
        }
    }
    (2 * shared) as f64 / (a.len() + b.len() - 2) as f64
}

/// How one symbol is shown in the frequency table.
fn describe_byte(b: u32) -> String {
    match char::from_u32(b) {
        Some(c) if (0x20..0x7F).contains(&b) => c.to_string(),
        _ => format!("\\x{b:02X}"),
    }
}

fn entropy_calculator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let encoding = args.str("inputEncoding")?;
    let by_char = args.str("symbols")? == "characters";
    if by_char && encoding != "text" {
        return Err(ToolError::invalid(
            "symbols=characters needs inputEncoding=text; binary input is measured in bytes",
        ));
    }
    let bytes = match encoding {
        "base64" => decode_base64_param("input", input)?,
        "hex" => {
            let compact: String = input
                .chars()
                .filter(|c| !c.is_whitespace() && *c != ':')
                .collect();
            let compact = compact.strip_prefix("0x").unwrap_or(&compact);
            hex::decode(compact)
                .map_err(|e| ToolError::invalid(format!("input is not valid hex: {e}")))?
        }
        _ => input.as_bytes().to_vec(),
    };
    let symbols: Vec<u32> = if by_char {
        input.chars().map(u32::from).collect()
    } else {
        bytes.iter().map(|&b| u32::from(b)).collect()
    };
    if symbols.is_empty() {
        return Err(ToolError::invalid(
            "input is empty; entropy is undefined without any symbols",
        ));
    }
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for &s in &symbols {
        *counts.entry(s).or_default() += 1;
    }
    let n = symbols.len() as f64;
    let entropy: f64 = counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum::<f64>()
        .max(0.0);
    let distinct = counts.len();
    // Bytes are compared with the uniform distribution over all 256 values (as `ent` does);
    // characters, which have no fixed alphabet, with the uniform one over those present.
    let categories = if by_char { distinct } else { 256 };
    let expected = n / categories as f64;
    let observed_sq: f64 = counts
        .values()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    let chi_square = observed_sq + (categories - distinct) as f64 * expected;
    let normalized = if by_char {
        if distinct > 1 {
            entropy / (distinct as f64).log2()
        } else {
            0.0
        }
    } else {
        entropy / 8.0
    };

    let mut ranked: Vec<(u32, usize)> = counts.into_iter().collect();
    ranked.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let top: Vec<Value> = ranked
        .iter()
        .take(args.usize("top")?)
        .map(|&(s, c)| {
            let shown = if by_char {
                char::from_u32(s).map(String::from).unwrap_or_default()
            } else {
                describe_byte(s)
            };
            json!({
                "value": s,
                "symbol": shown,
                "count": c,
                "percent": round(c as f64 * 100.0 / n, 4),
            })
        })
        .collect();
    Ok(json!({
        "entropy": round(entropy, 6),
        "totalBits": round(entropy * n, 3),
        "normalized": round(normalized, 6),
        "symbols": if by_char { "characters" } else { "bytes" },
        "length": symbols.len(),
        "distinct": distinct,
        "chiSquare": round(chi_square, 3),
        "degreesOfFreedom": categories - 1,
        "frequencies": top,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use base64::Engine;
    use serde_json::json;

    fn distance(a: &str, b: &str, algorithm: &str) -> serde_json::Value {
        let data = run_ok(
            "string-distance",
            json!({"first": a, "second": b, "algorithm": algorithm}),
        );
        data[algorithm].clone()
    }

    // Textbook values: Levenshtein (1965) kitten/sitting, Hamming karolin/kathrin,
    // Winkler (1990) MARTHA/MARHTA, and the OSA vs Damerau-Levenshtein "ca"/"abc" case
    // (Wikipedia, Damerau–Levenshtein distance).
    #[test]
    fn classic_distance_vectors() {
        assert_eq!(distance("kitten", "sitting", "levenshtein"), 3);
        assert_eq!(distance("karolin", "kathrin", "hamming"), 3);
        assert_eq!(distance("MARTHA", "MARHTA", "jaroWinkler"), 0.961111);
        assert_eq!(distance("MARTHA", "MARHTA", "jaro"), 0.944444);
        assert_eq!(distance("ca", "abc", "osa"), 3);
        assert_eq!(distance("ca", "abc", "damerauLevenshtein"), 2);
        // Dice's coefficient, "night" vs "nacht": one shared bigram of four each.
        assert_eq!(distance("night", "nacht", "sorensenDice"), 0.25);
    }

    #[test]
    fn all_algorithms_at_once() {
        let data = run_ok(
            "string-distance",
            json!({"first": "kitten", "second": "sitting"}),
        );
        assert_eq!(data["levenshtein"], 3);
        assert_eq!(data["osa"], 3);
        assert_eq!(data["normalizedLevenshtein"], 0.571429);
        assert_eq!(data["hamming"], json!(null));
        assert_eq!(data["firstLength"], 6);
        assert_eq!(data["secondLength"], 7);
    }

    #[test]
    fn ignore_case_and_unicode_characters() {
        let data = run_ok(
            "string-distance",
            json!({"first": "Straße", "second": "STRASSE", "ignoreCase": true, "algorithm": "levenshtein"}),
        );
        assert_eq!(data["levenshtein"], 2);
        assert_eq!(distance("héllo", "hello", "levenshtein"), 1);
        // Counted in characters: "héllo"/"hallo" share "ll" and "lo" of four bigrams each.
        assert_eq!(distance("héllo", "hallo", "sorensenDice"), 0.5);
    }

    #[test]
    fn hamming_requires_equal_lengths() {
        let (code, msg) = run_err(
            "string-distance",
            json!({"first": "abc", "second": "ab", "algorithm": "hamming"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("3 and 2 characters"), "{msg}");
    }

    #[test]
    fn entropy_of_simple_strings() {
        let h = |s: &str| run_ok("entropy-calculator", json!({"input": s}))["entropy"].clone();
        assert_eq!(h("aabb"), 1.0);
        assert_eq!(h("abcd"), 2.0);
        assert_eq!(h("aaaa"), 0.0);
        let data = run_ok("entropy-calculator", json!({"input": "aabb", "top": 1}));
        assert_eq!(data["totalBits"], 4.0);
        assert_eq!(data["normalized"], 0.125);
        // Chi-square against 256 equally likely byte values: 2·(2−1/64)²·64 + 254/64 = 508.
        assert_eq!(data["chiSquare"], 508.0);
        assert_eq!(data["degreesOfFreedom"], 255);
        assert_eq!(
            data["frequencies"],
            json!([{"value": 97, "symbol": "a", "count": 2, "percent": 50.0}])
        );
    }

    #[test]
    fn entropy_of_all_256_bytes_is_8_bits() {
        let all: Vec<u8> = (0..=255).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&all);
        let data = run_ok(
            "entropy-calculator",
            json!({"input": b64, "inputEncoding": "base64", "top": 2}),
        );
        assert_eq!(data["entropy"], 8.0);
        assert_eq!(data["normalized"], 1.0);
        assert_eq!(data["chiSquare"], 0.0);
        assert_eq!(data["distinct"], 256);
        assert_eq!(data["frequencies"][0]["symbol"], "\\x00");
        let hex = run_ok(
            "entropy-calculator",
            json!({"input": "00 ff 00 ff", "inputEncoding": "hex"}),
        );
        assert_eq!(hex["entropy"], 1.0);
    }

    #[test]
    fn entropy_over_characters() {
        // "héhé" is 6 UTF-8 bytes (h, C3, A9 twice) but 4 characters of 2 kinds.
        let bytes = run_ok("entropy-calculator", json!({"input": "héhé"}));
        assert_eq!(bytes["length"], 6);
        assert_eq!(bytes["entropy"], 1.584963);
        let chars = run_ok(
            "entropy-calculator",
            json!({"input": "héhé", "symbols": "characters"}),
        );
        assert_eq!(chars["length"], 4);
        assert_eq!(chars["entropy"], 1.0);
        assert_eq!(chars["normalized"], 1.0);
        assert_eq!(chars["degreesOfFreedom"], 1);
    }

    #[test]
    fn entropy_errors() {
        let (code, msg) = run_err("entropy-calculator", json!({"input": ""}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("empty"), "{msg}");
        let (code, _) = run_err(
            "entropy-calculator",
            json!({"input": "zz", "inputEncoding": "hex"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        let (code, _) = run_err(
            "entropy-calculator",
            json!({"input": "AA==", "inputEncoding": "base64", "symbols": "characters"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
