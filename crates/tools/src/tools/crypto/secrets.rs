//! Secret generators: random passwords from the OS-seeded CSPRNG.

use crate::ctp::{ErrorCode, ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use rand::RngExt;
use rand::seq::{IndexedRandom, SliceRandom};
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("password-generator", password_generator)];

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
/// Characters easily confused with one another in many fonts, or awkward to read aloud.
const AMBIGUOUS: &str = "Il1|O0o`'\"";

fn password_generator(args: &Args) -> ToolOutcome {
    let length = args.usize("length")?;
    let count = args.usize("count")?;
    let exclude_ambiguous = args.flag("excludeAmbiguous");
    let symbol_set = args.str("symbolSet")?;
    let exclude = args.opt_str("exclude").unwrap_or("");
    let selected: Vec<(&str, &str)> = [
        ("uppercase", UPPER),
        ("lowercase", LOWER),
        ("digits", DIGITS),
        ("symbols", symbol_set),
    ]
    .into_iter()
    .filter(|(name, _)| args.flag(name))
    .collect();
    if selected.is_empty() {
        return Err(ToolError::new(
            ErrorCode::ConstraintViolation,
            "select at least one character class: uppercase, lowercase, digits or symbols",
        ));
    }
    let mut classes: Vec<Vec<char>> = Vec::new();
    for (name, chars) in &selected {
        let mut set: Vec<char> = Vec::new();
        for c in chars.chars() {
            let skip = c.is_control()
                || set.contains(&c)
                || exclude.contains(c)
                || (exclude_ambiguous && AMBIGUOUS.contains(c));
            if !skip {
                set.push(c);
            }
        }
        if set.is_empty() {
            return Err(ToolError::invalid(format!(
                "the {name} class has no characters left (symbolSet is empty, or every character is ambiguous or in exclude); turn the class off or exclude fewer characters"
            )));
        }
        classes.push(set);
    }
    if length < classes.len() {
        return Err(ToolError::new(
            ErrorCode::ConstraintViolation,
            format!(
                "length {length} is shorter than the {} selected character classes, each of which appears at least once",
                classes.len()
            ),
        ));
    }
    let mut alphabet: Vec<char> = Vec::new();
    for c in classes.iter().flatten() {
        if !alphabet.contains(c) {
            alphabet.push(*c);
        }
    }
    // ThreadRng is a ChaCha CSPRNG seeded from the operating system.
    let mut rng = rand::rng();
    let passwords: Vec<String> = (0..count)
        .map(|_| {
            let mut chars: Vec<char> = classes
                .iter()
                .filter_map(|class| class.choose(&mut rng).copied())
                .collect();
            while chars.len() < length {
                let i = rng.random_range(0..alphabet.len());
                chars.push(alphabet[i]);
            }
            chars.shuffle(&mut rng);
            chars.into_iter().collect()
        })
        .collect();
    let entropy = length as f64 * (alphabet.len() as f64).log2();
    let entropy = (entropy * 100.0).round() / 100.0;
    Ok(json!({
        "output": passwords.join("\n"),
        "passwords": passwords,
        "length": length,
        "alphabetSize": alphabet.len(),
        "entropyBits": entropy,
        "strength": strength(entropy),
    }))
}

/// Rough labels on the usual entropy scale (KeePass / NIST SP 800-63 style bands).
fn strength(bits: f64) -> &'static str {
    match bits {
        b if b < 28.0 => "very weak",
        b if b < 36.0 => "weak",
        b if b < 60.0 => "reasonable",
        b if b < 128.0 => "strong",
        _ => "very strong",
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;
    use std::collections::HashSet;

    fn passwords(data: &serde_json::Value) -> Vec<String> {
        data["passwords"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn default_is_16_chars_from_94ish_alphabet_with_every_class() {
        let data = run_ok("password-generator", json!({"count": 200}));
        // 26 + 26 + 10 + 27 default symbols = 89 characters; 16 × log2(89) = 103.61 bits.
        assert_eq!(data["alphabetSize"], 89);
        assert_eq!(data["entropyBits"], 103.61);
        assert_eq!(data["strength"], "strong");
        let all = passwords(&data);
        assert_eq!(all.len(), 200);
        assert_eq!(all.iter().collect::<HashSet<_>>().len(), 200);
        for p in &all {
            assert_eq!(p.chars().count(), 16);
            assert!(p.chars().any(|c| c.is_ascii_uppercase()), "{p}");
            assert!(p.chars().any(|c| c.is_ascii_lowercase()), "{p}");
            assert!(p.chars().any(|c| c.is_ascii_digit()), "{p}");
            assert!(p.chars().any(|c| c.is_ascii_punctuation()), "{p}");
        }
    }

    #[test]
    fn digits_only_pin_entropy() {
        // A 4-digit PIN: 4 × log2(10) = 13.29 bits.
        let data = run_ok(
            "password-generator",
            json!({"length": 4, "uppercase": false, "lowercase": false, "symbols": false}),
        );
        assert_eq!(data["alphabetSize"], 10);
        assert_eq!(data["entropyBits"], 13.29);
        assert_eq!(data["strength"], "very weak");
        let pin = data["output"].as_str().unwrap();
        assert!(pin.len() == 4 && pin.chars().all(|c| c.is_ascii_digit()));
    }

    #[test]
    fn exclude_ambiguous_and_custom_symbols() {
        let data = run_ok(
            "password-generator",
            json!({"length": 64, "count": 50, "excludeAmbiguous": true, "symbolSet": "-_|"}),
        );
        // 24 upper (no I, O) + 24 lower (no l, o) + 8 digits (no 0, 1) + 2 symbols ('|' dropped).
        assert_eq!(data["alphabetSize"], 58);
        for p in passwords(&data) {
            assert!(!p.chars().any(|c| "Il1|O0o".contains(c)), "{p}");
            assert!(p.chars().any(|c| c == '-' || c == '_'), "{p}");
        }
    }

    #[test]
    fn excluded_characters_never_appear() {
        let data = run_ok(
            "password-generator",
            json!({"length": 40, "count": 100, "exclude": "aeiouAEIOU0\"'`"}),
        );
        // 26 + 26 + 10 + 27 symbols, less 10 vowels and the digit 0 (the quotes are not in
        // the default symbol set).
        assert_eq!(data["alphabetSize"], 78);
        for p in passwords(&data) {
            assert!(!p.chars().any(|c| "aeiouAEIOU0\"'`".contains(c)), "{p}");
        }
        let (code, msg) = run_err(
            "password-generator",
            json!({"digits": true, "exclude": "0123456789"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("digits class has no characters left"), "{msg}");
    }

    #[test]
    fn no_class_is_an_error() {
        let (code, msg) = run_err(
            "password-generator",
            json!({"uppercase": false, "lowercase": false, "digits": false, "symbols": false}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("at least one character class"), "{msg}");
        let (code, _) = run_err("password-generator", json!({"length": 3}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }
}
