//! Roman numerals: integers 1–3999 to the standard subtractive form and back, with strict
//! validation that says why a numeral is not in standard form.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new(
    "roman-numeral-converter",
    roman_numeral_converter,
)];

/// The standard form's building blocks, largest first (the six subtractive pairs included).
const PARTS: [(&str, u32); 13] = [
    ("M", 1000),
    ("CM", 900),
    ("D", 500),
    ("CD", 400),
    ("C", 100),
    ("XC", 90),
    ("L", 50),
    ("XL", 40),
    ("X", 10),
    ("IX", 9),
    ("V", 5),
    ("IV", 4),
    ("I", 1),
];

fn letter_value(c: char) -> Option<u32> {
    PARTS
        .iter()
        .find(|(s, _)| s.len() == 1 && s.starts_with(c))
        .map(|(_, v)| *v)
}

/// The standard numeral of `n` and the parts it is made of.
fn to_roman(mut n: u32) -> (String, Vec<Value>) {
    let mut out = String::new();
    let mut parts = Vec::new();
    for (s, v) in PARTS {
        while n >= v {
            out.push_str(s);
            parts.push(json!({ "numeral": s, "value": v }));
            n -= v;
        }
    }
    (out, parts)
}

/// The value of a numeral in standard form; anything else is rejected with the reason.
fn from_roman(original: &str) -> Result<u32, ToolError> {
    let numeral = original.to_uppercase();
    let chars: Vec<char> = numeral.chars().collect();
    let bad = |why: String| {
        ToolError::invalid(format!("'{original}' is not a valid Roman numeral: {why}"))
    };
    let mut values = Vec::with_capacity(chars.len());
    for (i, c) in chars.iter().enumerate() {
        values.push(letter_value(*c).ok_or_else(|| {
            bad(format!(
                "'{c}' at position {} is not one of the numeral letters I V X L C D M",
                i + 1
            ))
        })?);
    }
    let mut run = 1;
    for i in 1..chars.len() {
        run = if chars[i] == chars[i - 1] { run + 1 } else { 1 };
        let c = chars[i];
        if run == 2 && matches!(c, 'V' | 'L' | 'D') {
            return Err(bad(format!(
                "{c} is never repeated ({c}{c} is written {})",
                to_roman(values[i] * 2).0
            )));
        }
        if run == 4 {
            let hint = if c == 'M' {
                "; standard numerals stop at 3999 (MMMCMXCIX)".to_string()
            } else {
                format!(" (write {} instead)", to_roman(values[i] * 4).0)
            };
            return Err(bad(format!(
                "{c} is repeated four times in a row; at most three are allowed{hint}"
            )));
        }
    }
    for i in 1..chars.len() {
        let (small, big) = (values[i - 1], values[i]);
        if small >= big {
            continue;
        }
        let (s, b) = (chars[i - 1], chars[i]);
        if matches!(s, 'V' | 'L' | 'D') {
            return Err(bad(format!(
                "{s} cannot be subtracted ({s}{b} is not a numeral; only I, X and C are placed before a larger letter)"
            )));
        }
        if big > small * 10 {
            let allowed = match s {
                'I' => "V and X",
                'X' => "L and C",
                _ => "D and M",
            };
            return Err(bad(format!(
                "{s} can only be subtracted from {allowed}, not from {b} ({b}-{s} is written {})",
                to_roman(big - small).0
            )));
        }
    }
    // Strict letters in every place can still be out of order (IXI, XCX, IIV): a numeral is
    // standard exactly when re-writing its value gives it back.
    let mut total = 0;
    let mut i = 0;
    while i < values.len() {
        match values.get(i + 1) {
            Some(&next) if next > values[i] => {
                total += next - values[i];
                i += 2;
            }
            _ => {
                total += values[i];
                i += 1;
            }
        }
    }
    let standard = to_roman(total).0;
    if standard != numeral {
        return Err(bad(format!(
            "the letters are out of order for the standard form; {total} is written {standard}"
        )));
    }
    Ok(total)
}

fn roman_numeral_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?.trim();
    let mode = args.str("mode")?;
    let looks_numeric = input.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    let to_numeral = match mode {
        "toRoman" => true,
        "toNumber" => false,
        _ => looks_numeric,
    };
    if input.is_empty() {
        return Err(ToolError::invalid(
            "the input is empty; give a number from 1 to 3999 or a Roman numeral",
        ));
    }
    if to_numeral {
        let n: i64 = input.parse().map_err(|_| {
            ToolError::invalid(format!(
                "'{input}' is not a whole number; give an integer from 1 to 3999"
            ))
        })?;
        let n = u32::try_from(n).ok().filter(|n| (1..=3999).contains(n)).ok_or_else(|| {
            ToolError::invalid(format!(
                "{input} is out of range: standard Roman numerals cover 1 to 3999 (there is no zero or negative numeral)"
            ))
        })?;
        let (numeral, parts) = to_roman(n);
        let numeral = if args.flag("lowercase") {
            numeral.to_lowercase()
        } else {
            numeral
        };
        return Ok(
            json!({ "output": numeral, "direction": "toRoman", "value": n, "parts": parts }),
        );
    }
    let value = from_roman(input)?;
    let (numeral, parts) = to_roman(value);
    Ok(json!({ "output": value, "direction": "toNumber", "numeral": numeral, "parts": parts }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // Standard-form examples as given on Wikipedia's "Roman numerals" page.
    #[test]
    fn numbers_to_roman() {
        for (n, r) in [
            (1994, "MCMXCIV"),
            (3999, "MMMCMXCIX"),
            (4, "IV"),
            (2024, "MMXXIV"),
            (444, "CDXLIV"),
            (1, "I"),
        ] {
            let data = run_ok("roman-numeral-converter", json!({"input": n.to_string()}));
            assert_eq!(data["output"], r, "{n}");
        }
        let data = run_ok("roman-numeral-converter", json!({"input": "1994"}));
        assert_eq!(
            data["parts"],
            json!([{"numeral": "M", "value": 1000}, {"numeral": "CM", "value": 900},
                   {"numeral": "XC", "value": 90}, {"numeral": "IV", "value": 4}])
        );
        let lower = run_ok(
            "roman-numeral-converter",
            json!({"input": "14", "lowercase": true}),
        );
        assert_eq!(lower["output"], "xiv");
    }

    #[test]
    fn roman_to_numbers_lowercase_accepted() {
        for (r, n) in [
            ("MCMXCIV", 1994),
            ("mmmcmxcix", 3999),
            ("iv", 4),
            ("XLII", 42),
            ("MMXXIV", 2024),
        ] {
            let data = run_ok("roman-numeral-converter", json!({"input": r}));
            assert_eq!(data["output"], n, "{r}");
        }
        let data = run_ok("roman-numeral-converter", json!({"input": "xlii"}));
        assert_eq!(data["numeral"], "XLII");
    }

    #[test]
    fn malformed_numerals_rejected_with_reasons() {
        let cases = [
            ("IIII", "I is repeated four times"),
            ("VX", "V cannot be subtracted"),
            ("MMMM", "stop at 3999"),
            ("IC", "I can only be subtracted from V and X"),
            ("VV", "V is never repeated (VV is written X)"),
            ("IXI", "10 is written X"),
            ("IIV", "out of order"),
            ("MCMZ", "'Z' at position 4"),
        ];
        for (input, reason) in cases {
            let (code, msg) = run_err("roman-numeral-converter", json!({"input": input}));
            assert_eq!(code, ErrorCode::InvalidInput, "{input}");
            assert!(msg.contains(reason), "{input}: {msg}");
        }
    }

    #[test]
    fn numbers_out_of_range_rejected() {
        for input in ["0", "4000", "-5"] {
            let (code, msg) = run_err("roman-numeral-converter", json!({"input": input}));
            assert_eq!(code, ErrorCode::InvalidInput);
            assert!(msg.contains("1 to 3999"), "{msg}");
        }
        let (_, msg) = run_err(
            "roman-numeral-converter",
            json!({"input": "12.5", "mode": "toRoman"}),
        );
        assert!(msg.contains("not a whole number"), "{msg}");
    }
}
