//! Number base conversion for integers of any size (num-bigint), bases 2 to 64, with the
//! RFC 4648 digit alphabets or a custom one above the usual 0-9a-z.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use num_bigint::BigUint;
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("number-base-converter", number_base_converter)];

/// The largest number converted, in bits (65,536 hex digits, about 78,900 decimal digits):
/// conversion to and from bases that are not powers of two takes time quadratic in the
/// length, well under a second up to here and hours at the input limit.
const MAX_BITS: u64 = 1 << 18;

/// The longest input read: digits of the largest base-2 number, with room for separators.
const MAX_CHARS: usize = 4 * MAX_BITS as usize;

fn too_long(what: String) -> ToolError {
    ToolError::invalid(format!(
        "{what}; number-base-converter takes numbers of up to {MAX_BITS} bits (65,536 hex or about 78,900 decimal digits), since converting longer ones to and from decimal takes time that grows with the square of their length"
    ))
}

struct Parsed {
    negative: bool,
    magnitude: BigUint,
    base: u32,
}

fn number_base_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let from = match args.str("from")? {
        "auto" => None,
        b => Some(base(b)?),
    };
    let alphabet = alphabet(args)?;
    let parsed = match from {
        Some(b) if uses_alphabet(b, &alphabet) => parse_with(input, b, &digits_for(b, &alphabet)?)?,
        _ => parse(input, from)?,
    };
    let upper = args.flag("uppercase");
    let prefix = args.flag("prefix");
    let render = |b: u32| {
        let mut digits = parsed.magnitude.to_str_radix(b);
        if upper {
            digits.make_ascii_uppercase();
        }
        let p = match (prefix, b) {
            (true, 2) => "0b",
            (true, 8) => "0o",
            (true, 16) => "0x",
            _ => "",
        };
        let sign = if parsed.negative { "-" } else { "" };
        format!("{sign}{p}{digits}")
    };
    let (binary, octal, decimal, hex) = (render(2), render(8), render(10), render(16));
    let to = args.str("to")?;
    let output = match to {
        "all" => {
            format!("binary: {binary}\noctal: {octal}\ndecimal: {decimal}\nhexadecimal: {hex}")
        }
        b => match base(b)? {
            b if uses_alphabet(b, &alphabet) => {
                let digits = digits_for(b, &alphabet)?;
                let sign = if parsed.negative { "-" } else { "" };
                let body: String = parsed
                    .magnitude
                    .to_radix_be(b)
                    .iter()
                    .map(|&d| digits[usize::from(d)])
                    .collect();
                format!("{sign}{body}")
            }
            b => render(b),
        },
    };
    Ok(json!({
        "output": output,
        "binary": binary,
        "octal": octal,
        "decimal": decimal,
        "hexadecimal": hex,
        "fromBase": parsed.base,
        "bitLength": parsed.magnitude.bits(),
        "negative": parsed.negative,
    }))
}

fn base(text: &str) -> Result<u32, ToolError> {
    text.parse::<u32>()
        .ok()
        .filter(|b| (2..=64).contains(b))
        .ok_or_else(|| ToolError::invalid(format!("base '{text}' must be from 2 to 64")))
}

/// Digits above base 36 when no alphabet is chosen: GMP's 0-9A-Za-z, then RFC 4648's
/// URL-safe `-` and `_`.
const WIDE_DIGITS: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

/// The chosen digit alphabet, or `None` for the default (0-9a-z up to base 36).
fn alphabet(args: &Args) -> Result<Option<Vec<char>>, ToolError> {
    let named = match args.str("alphabet")? {
        "base64" => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        "base64url" => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        "base32" => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        "base32hex" => "0123456789ABCDEFGHIJKLMNOPQRSTUV",
        "custom" => {
            let custom = args.opt_str("customAlphabet").unwrap_or("");
            let chars: Vec<char> = custom.chars().collect();
            if chars.len() < 2 {
                return Err(ToolError::invalid(
                    "alphabet 'custom' needs customAlphabet: at least two digits, in value order",
                ));
            }
            if let Some(c) = chars.iter().find(|c| c.is_whitespace() || c.is_control()) {
                return Err(ToolError::invalid(format!(
                    "customAlphabet holds {}, which cannot be a digit",
                    crate::text::describe_char(*c)
                )));
            }
            for (i, c) in chars.iter().enumerate() {
                if chars[..i].contains(c) {
                    return Err(ToolError::invalid(format!(
                        "customAlphabet repeats {} (position {}): each digit must be distinct",
                        crate::text::describe_char(*c),
                        i + 1
                    )));
                }
            }
            return Ok(Some(chars));
        }
        _ => return Ok(None),
    };
    Ok(Some(named.chars().collect()))
}

/// Whether base `b` is written with the alphabet: always above 36, and for any base but 10
/// (always 0-9, so that a result stays readable) when one is chosen.
fn uses_alphabet(b: u32, alphabet: &Option<Vec<char>>) -> bool {
    b > 36 || (alphabet.is_some() && b != 10)
}

/// The first `base` digits of the alphabet.
fn digits_for(base: u32, alphabet: &Option<Vec<char>>) -> Result<Vec<char>, ToolError> {
    let all: Vec<char> = match alphabet {
        Some(a) => a.clone(),
        None => WIDE_DIGITS.chars().collect(),
    };
    let n = base as usize;
    if all.len() < n {
        return Err(ToolError::invalid(format!(
            "base {base} needs {base} digits but the alphabet has {}: choose a base up to {} or a longer alphabet",
            all.len(),
            all.len()
        )));
    }
    Ok(all[..n].to_vec())
}

/// Reads an integer written with `digits` (case-sensitive); whitespace separates groups, and
/// a leading `-` or `+` is a sign unless it is itself a digit.
fn parse_with(input: &str, base: u32, digits: &[char]) -> Result<Parsed, ToolError> {
    let trimmed = input.trim();
    let (negative, body) = match trimmed.chars().next() {
        Some(c @ ('-' | '+')) if !digits.contains(&c) => (c == '-', &trimmed[1..]),
        _ => (false, trimmed),
    };
    let mut values = Vec::new();
    for (pos, c) in body.chars().enumerate() {
        if c.is_whitespace() {
            continue;
        }
        match digits.iter().position(|d| *d == c) {
            Some(v) => values.push(v as u8),
            None => {
                return Err(ToolError::invalid(format!(
                    "invalid digit {} at position {} for base {base} (digits: {})",
                    crate::text::describe_char(c),
                    pos + 1 + (trimmed.len() - body.len()),
                    digits.iter().collect::<String>()
                )));
            }
        }
    }
    if values.is_empty() {
        return Err(ToolError::invalid(format!(
            "'{}' contains no digits to convert",
            crate::text::preview(input, 40)
        )));
    }
    let magnitude = BigUint::from_radix_be(&values, base)
        .ok_or_else(|| ToolError::invalid(format!("cannot read the digits in base {base}")))?;
    let negative = negative && magnitude.bits() > 0;
    Ok(Parsed {
        negative,
        magnitude,
        base,
    })
}

fn allowed_digits(base: u32) -> String {
    match base {
        2..=10 => format!("0-{}", base - 1),
        11 => "0-9, a".into(),
        _ => format!("0-9, a-{}", char::from(b'a' + (base - 11) as u8)),
    }
}

/// Reads an optionally signed integer; `_` and spaces separate digit groups. Without an
/// explicit base, a 0x / 0o / 0b prefix picks the base and anything else is decimal.
fn parse(input: &str, from: Option<u32>) -> Result<Parsed, ToolError> {
    if input.len() > MAX_CHARS {
        return Err(too_long(format!(
            "the input is {} characters long",
            input.chars().count()
        )));
    }
    let chars: Vec<(usize, char)> = input.chars().enumerate().map(|(i, c)| (i + 1, c)).collect();
    let mut rest: &[(usize, char)] = &chars;
    while let [(_, c), tail @ ..] = rest {
        if !c.is_whitespace() {
            break;
        }
        rest = tail;
    }
    let mut negative = false;
    if let [(_, c @ ('-' | '+')), tail @ ..] = rest {
        negative = *c == '-';
        rest = tail;
    }
    let prefixed = match rest {
        [(_, '0'), (_, p), ..] => match p.to_ascii_lowercase() {
            'x' => Some(16),
            'o' => Some(8),
            'b' => Some(2),
            _ => None,
        },
        _ => None,
    };
    let base = match (from, prefixed) {
        (None, Some(p)) => {
            rest = &rest[2..];
            p
        }
        (None, None) => 10,
        (Some(b), Some(p)) if b == p => {
            rest = &rest[2..];
            b
        }
        (Some(b), _) => b,
    };
    let mut digits = String::new();
    for &(pos, c) in rest {
        if c == '_' || c.is_whitespace() {
            continue;
        }
        if c.is_digit(base) {
            digits.push(c);
        } else {
            let hint = if c == '.' || c == ',' {
                " (only whole numbers are supported)"
            } else {
                ""
            };
            return Err(ToolError::invalid(format!(
                "invalid digit '{}' at position {pos} for base {base} (allowed: {}){hint}",
                crate::text::escape_control(&c.to_string()),
                allowed_digits(base)
            )));
        }
    }
    if digits.is_empty() {
        return Err(ToolError::invalid(format!(
            "'{}' contains no digits to convert",
            crate::text::preview(input, 40)
        )));
    }
    // Without leading zeros, d digits hold more than (d - 1)·log2(base) bits: refuse before
    // the (quadratic) parse when that is already too many, and check exactly after it.
    let significant = digits.trim_start_matches('0').len();
    let at_least = significant.saturating_sub(1) as f64 * f64::from(base).log2();
    if at_least > MAX_BITS as f64 {
        return Err(too_long(format!(
            "the number has {significant} digits in base {base}"
        )));
    }
    let magnitude = BigUint::parse_bytes(digits.as_bytes(), base)
        .ok_or_else(|| ToolError::invalid(format!("cannot read '{digits}' in base {base}")))?;
    if magnitude.bits() > MAX_BITS {
        return Err(too_long(format!(
            "the number has {} bits",
            magnitude.bits()
        )));
    }
    // "-0" is zero, not negative zero.
    let negative = negative && magnitude.bits() > 0;
    Ok(Parsed {
        negative,
        magnitude,
        base,
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn two_fifty_five_everywhere() {
        let data = run_ok("number-base-converter", json!({"input": "255"}));
        assert_eq!(data["binary"], "11111111");
        assert_eq!(data["octal"], "377");
        assert_eq!(data["hexadecimal"], "ff");
        assert_eq!(data["bitLength"], 8);
        assert_eq!(
            data["output"],
            "binary: 11111111\noctal: 377\ndecimal: 255\nhexadecimal: ff"
        );
        for input in ["0xFF", "0b1111_1111", "0o377", "-0x0"] {
            let d = run_ok("number-base-converter", json!({"input": input, "to": 10}));
            let expected = if input == "-0x0" { "0" } else { "255" };
            assert_eq!(d["output"], expected, "{input}");
        }
    }

    #[test]
    fn word_size_boundaries() {
        // 2^64 and 2^128: one past u64::MAX and u128::MAX.
        let d = run_ok(
            "number-base-converter",
            json!({"input": "18446744073709551616", "to": 16, "prefix": true}),
        );
        assert_eq!(d["output"], "0x10000000000000000");
        assert_eq!(d["bitLength"], 65);
        let d = run_ok(
            "number-base-converter",
            json!({"input": "ffffffff ffffffff ffffffff ffffffff", "from": 16, "to": 10}),
        );
        assert_eq!(d["output"], "340282366920938463463374607431768211455");
        let d = run_ok(
            "number-base-converter",
            json!({"input": "-340282366920938463463374607431768211456", "to": 16, "uppercase": true}),
        );
        assert_eq!(d["output"], "-100000000000000000000000000000000");
        assert_eq!(d["negative"], true);
    }

    #[test]
    fn base_36() {
        let d = run_ok(
            "number-base-converter",
            json!({"input": "zz", "from": 36, "to": 10}),
        );
        assert_eq!(d["output"], "1295");
        let d = run_ok(
            "number-base-converter",
            json!({"input": "1295", "to": 36, "uppercase": true}),
        );
        assert_eq!(d["output"], "ZZ");
        // With an explicit base 16, "0b" is the number 11, not a binary prefix.
        let d = run_ok(
            "number-base-converter",
            json!({"input": "0b", "from": 16, "to": 10}),
        );
        assert_eq!(d["output"], "11");
    }

    #[test]
    fn invalid_digit_names_digit_and_position() {
        let (code, msg) = run_err(
            "number-base-converter",
            json!({"input": "12g4", "from": 16}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "invalid digit 'g' at position 3 for base 16 (allowed: 0-9, a-f)"
        );
        let (_, msg) = run_err("number-base-converter", json!({"input": "0b102"}));
        assert!(msg.contains("'2' at position 5 for base 2"), "{msg}");
        let (_, msg) = run_err("number-base-converter", json!({"input": "1.5"}));
        assert!(msg.contains("whole numbers"), "{msg}");
        let (code, _) = run_err("number-base-converter", json!({"input": "0x"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn numbers_longer_than_the_bit_limit_are_refused() {
        let (code, msg) = run_err(
            "number-base-converter",
            json!({"input": "9".repeat(20_000_000)}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("the input is 20000000 characters long; number-base-converter takes numbers of up to 262144 bits"), "{msg}");
        let (_, msg) = run_err(
            "number-base-converter",
            json!({"input": "9".repeat(80_000)}),
        );
        assert!(
            msg.starts_with("the number has 80000 digits in base 10;"),
            "{msg}"
        );
        // Leading zeros do not count; 2^262144 - 1 (all ones) is the largest accepted.
        let ones = "0".repeat(1000) + &"1".repeat(262_144);
        let d = run_ok(
            "number-base-converter",
            json!({"input": ones, "from": "2", "to": "16"}),
        );
        assert_eq!(d["bitLength"], 262_144);
        assert_eq!(d["output"], "f".repeat(65_536));
        let (_, msg) = run_err(
            "number-base-converter",
            json!({"input": "1".repeat(262_145), "from": "2"}),
        );
        assert!(msg.starts_with("the number has 262145 bits;"), "{msg}");
    }

    #[test]
    fn bases_up_to_64_with_rfc4648_and_custom_alphabets_match_python() {
        let conv = |args: serde_json::Value| {
            run_ok("number-base-converter", args)["output"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        // 2^64 - 1 in base 62 (GMP digits) and base 64 (RFC 4648 Base64 digit values).
        let n = "18446744073709551615";
        assert_eq!(conv(json!({"input": n, "to": 62})), "LygHa16AHYF");
        assert_eq!(
            conv(json!({"input": n, "to": 64, "alphabet": "base64"})),
            "P//////////"
        );
        assert_eq!(
            conv(json!({"input": n, "to": 64, "alphabet": "base64url"})),
            "P__________"
        );
        assert_eq!(
            conv(json!({"input": "P//////////", "from": 64, "alphabet": "base64", "to": 10})),
            n
        );
        assert_eq!(
            conv(json!({"input": "-LygHa16AHYF", "from": 62, "to": 16})),
            "-ffffffffffffffff"
        );
        assert_eq!(
            conv(json!({"input": "1024", "to": 32, "alphabet": "base32"})),
            "BAA"
        );
        assert_eq!(
            conv(json!({"input": "1024", "to": 32, "alphabet": "base32hex"})),
            "100"
        );
        let crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
        assert_eq!(
            conv(
                json!({"input": "1700000000", "to": 32, "alphabet": "custom", "customAlphabet": crockford})
            ),
            "1JN7W80"
        );
        // Python, independently: positional digits by repeated divmod.
        let program = "def enc(n, a, b):\n    s = ''\n    while n: n, r = divmod(n, b); s = a[r] + s\n    return s or a[0]\n\
            import string\n\
            b64 = string.ascii_uppercase + string.ascii_lowercase + string.digits + '+/'\n\
            gmp = string.digits + string.ascii_uppercase + string.ascii_lowercase + '-_'\n\
            for n in (0, 1, 63, 64, 2**64 - 1, 10**40):\n    print(enc(n, gmp, 62), enc(n, b64, 64), enc(n, gmp, 64), enc(n, '0123456789ABCDEFGHJKMNPQRSTVWXYZ', 32))";
        if let Some(py) = crate::tools::kit::testing::python(program) {
            for (line, n) in py.lines().zip([
                "0",
                "1",
                "63",
                "64",
                n,
                "10000000000000000000000000000000000000000",
            ]) {
                let ours = [
                    conv(json!({"input": n, "to": 62})),
                    conv(json!({"input": n, "to": 64, "alphabet": "base64"})),
                    conv(json!({"input": n, "to": 64})),
                    conv(
                        json!({"input": n, "to": 32, "alphabet": "custom", "customAlphabet": crockford}),
                    ),
                ];
                assert_eq!(ours.join(" "), line, "{n}");
            }
        }
        let (code, msg) = run_err(
            "number-base-converter",
            json!({"input": "10", "to": 40, "alphabet": "base32"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("base 40 needs 40 digits but the alphabet has 32"),
            "{msg}"
        );
        let (code, msg) = run_err(
            "number-base-converter",
            json!({"input": "10", "to": 3, "alphabet": "custom", "customAlphabet": "aba"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("repeats 'a' (position 3)"), "{msg}");
        let (code, msg) = run_err(
            "number-base-converter",
            json!({"input": "AB*", "from": 64, "alphabet": "base64url"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("invalid digit '*' at position 3 for base 64"),
            "{msg}"
        );
    }
}
