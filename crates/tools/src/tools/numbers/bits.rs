//! Bit-level views of numbers: IEEE 754 binary32/binary64 fields, byte-order swapping and a
//! fixed-width bitwise/integer calculator.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use num_bigint::{BigInt, BigUint};
use num_traits::{Signed, Zero};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("float-converter", float_converter),
    Tool::new("endianness-swapper", endianness_swapper),
    Tool::new("bitwise-calculator", bitwise_calculator),
];

// ---------------------------------------------------------------------------------------------
// float-converter

/// The layout of one IEEE 754 binary interchange format.
#[derive(Clone, Copy)]
struct Format {
    name: &'static str,
    bits: u32,
    exponent_bits: u32,
    mantissa_bits: u32,
}

const BINARY32: Format = Format {
    name: "binary32",
    bits: 32,
    exponent_bits: 8,
    mantissa_bits: 23,
};
const BINARY64: Format = Format {
    name: "binary64",
    bits: 64,
    exponent_bits: 11,
    mantissa_bits: 52,
};

impl Format {
    fn bias(self) -> i64 {
        (1i64 << (self.exponent_bits - 1)) - 1
    }
}

fn float_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?.trim();
    let from = args.str("from")?;
    let precision = args.str("precision")?;
    let from_hex = match from {
        "hex" => true,
        "decimal" => false,
        _ => input.to_ascii_lowercase().starts_with("0x"),
    };
    if input.is_empty() {
        return Err(ToolError::invalid(
            "input is empty: give a decimal number (0.1, -2.5e-3, inf, nan) or hex bits (0x3F800000)",
        ));
    }
    if from_hex {
        let (format, bits) = parse_hex_bits(input, precision)?;
        let described = describe(format, bits, None);
        let output = described["value"].as_str().unwrap_or_default().to_string();
        return Ok(json!({
            "output": output,
            "from": "hex",
            format.name: described,
        }));
    }
    let exact_input = parse_decimal(input);
    let parsed64: f64 = input.parse().map_err(|_| {
        ToolError::invalid(format!(
            "'{}' is not a decimal number: expected digits with an optional sign, point and exponent (0.1, -2.5e-3), inf or nan; hex bits need a 0x prefix or from='hex'",
            crate::text::preview(input, 60)
        ))
    })?;
    let parsed32: f32 = input
        .parse()
        .map_err(|_| ToolError::invalid("not a number"))?;
    let mut out = serde_json::Map::new();
    let mut lines = Vec::new();
    if precision != "binary64" {
        let d = describe(
            BINARY32,
            u64::from(parsed32.to_bits()),
            exact_input.as_ref(),
        );
        lines.push(format!(
            "{} (binary32)",
            d["hex"].as_str().unwrap_or_default()
        ));
        out.insert("binary32".into(), d);
    }
    if precision != "binary32" {
        let d = describe(BINARY64, parsed64.to_bits(), exact_input.as_ref());
        lines.push(format!(
            "{} (binary64)",
            d["hex"].as_str().unwrap_or_default()
        ));
        out.insert("binary64".into(), d);
    }
    let output = if lines.len() == 1 {
        lines[0].split(' ').next().unwrap_or_default().to_string()
    } else {
        lines.join(", ")
    };
    let mut data = serde_json::Map::new();
    data.insert("output".into(), json!(output));
    data.insert("from".into(), json!("decimal"));
    data.extend(out);
    Ok(Value::Object(data))
}

/// Hex bits, with or without 0x, spaces and underscores allowed between digits.
fn parse_hex_bits(input: &str, precision: &str) -> Result<(Format, u64), ToolError> {
    let body = input
        .strip_prefix("0x")
        .or_else(|| input.strip_prefix("0X"))
        .unwrap_or(input);
    let digits: String = body
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    if let Some(bad) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(ToolError::invalid(format!(
            "hex bits '{}' contain '{bad}', which is not a hex digit",
            crate::text::preview(input, 60)
        )));
    }
    if digits.is_empty() {
        return Err(ToolError::invalid(
            "hex bits are empty: give e.g. 0x3F800000",
        ));
    }
    let significant = digits.trim_start_matches('0').len();
    let format = match precision {
        "binary32" => BINARY32,
        "binary64" => BINARY64,
        _ if digits.len() <= 8 => BINARY32,
        _ => BINARY64,
    };
    if significant > (format.bits / 4) as usize || digits.len() > 16 {
        return Err(ToolError::invalid(format!(
            "hex bits '{}' have {} significant digits, more than the {} a {} value holds",
            crate::text::preview(input, 60),
            significant,
            format.bits / 4,
            format.name
        )));
    }
    let bits = u64::from_str_radix(&digits[digits.len().saturating_sub(16)..], 16)
        .map_err(|e| ToolError::invalid(format!("hex bits: {e}")))?;
    Ok((format, bits))
}

/// A decimal number `digits × 10^-scale` held exactly.
struct Decimal {
    value: BigInt,
    scale: i64,
}

/// Parses plain decimal notation exactly; `None` for inf/nan or exponents too large to expand.
fn parse_decimal(text: &str) -> Option<Decimal> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || exponent.abs() > 2000
        || int.len() + frac.len() > 2000
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let mut value = BigInt::parse_bytes(
        if digits.is_empty() {
            b"0"
        } else {
            digits.as_bytes()
        },
        10,
    )?;
    if negative {
        value = -value;
    }
    let scale = frac.len() as i64 - exponent;
    Some(Decimal { value, scale })
}

fn pow10(n: i64) -> BigInt {
    BigInt::from(10u8).pow(u32::try_from(n).unwrap_or(0))
}

/// Renders `value × 10^-scale` in plain notation without trailing fractional zeros.
fn decimal_string(d: &Decimal) -> String {
    let negative = d.value.is_negative();
    let digits = d.value.abs().to_string();
    let mut s = if d.scale <= 0 {
        if d.value.is_zero() {
            "0".to_string()
        } else {
            format!("{digits}{}", "0".repeat(d.scale.unsigned_abs() as usize))
        }
    } else {
        let scale = d.scale as usize;
        let padded = if digits.len() <= scale {
            format!("{}{digits}", "0".repeat(scale - digits.len() + 1))
        } else {
            digits
        };
        let (int, frac) = padded.split_at(padded.len() - scale);
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            int.to_string()
        } else {
            format!("{int}.{frac}")
        }
    };
    if negative {
        s.insert(0, '-');
    }
    s
}

/// The exact value of a finite float given its sign, integer significand and power of two.
fn exact_float(negative: bool, significand: u64, exp2: i64) -> Decimal {
    let m = BigInt::from(significand);
    let (value, scale) = if exp2 >= 0 {
        (m << exp2 as usize, 0)
    } else {
        let five = BigInt::from(5u8).pow(exp2.unsigned_abs() as u32);
        (m * five, -exp2)
    };
    Decimal {
        value: if negative { -value } else { value },
        scale,
    }
}

fn difference(a: &Decimal, b: &Decimal) -> Decimal {
    let scale = a.scale.max(b.scale);
    let av = &a.value * pow10(scale - a.scale);
    let bv = &b.value * pow10(scale - b.scale);
    Decimal {
        value: av - bv,
        scale,
    }
}

/// The shortest decimal that reads back to the same float, in JavaScript's style: plain
/// notation for 1e-7 ≤ |x| < 1e21, exponent notation otherwise.
fn shortest(format: Format, bits: u64) -> String {
    let (value, plain, exp) = if format.bits == 32 {
        let f = f32::from_bits(bits as u32);
        (f64::from(f), f.to_string(), format!("{f:e}"))
    } else {
        let f = f64::from_bits(bits);
        (f, f.to_string(), format!("{f:e}"))
    };
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = value.abs();
    if a == 0.0 || (1e-7..1e21).contains(&a) {
        plain
    } else {
        exp
    }
}

fn describe(format: Format, bits: u64, input: Option<&Decimal>) -> Value {
    let mantissa_mask = (1u64 << format.mantissa_bits) - 1;
    let exp_max = (1u64 << format.exponent_bits) - 1;
    let sign = (bits >> (format.bits - 1)) & 1;
    let biased = (bits >> format.mantissa_bits) & exp_max;
    let mantissa = bits & mantissa_mask;
    let class = match (biased, mantissa) {
        (0, 0) => "zero",
        (0, _) => "subnormal",
        (e, 0) if e == exp_max => "infinity",
        (e, _) if e == exp_max => "NaN",
        _ => "normal",
    };
    let hex_digits = (format.bits / 4) as usize;
    let exponent_text = format!("{biased:0w$b}", w = format.exponent_bits as usize);
    let mantissa_text = format!("{mantissa:0w$b}", w = format.mantissa_bits as usize);
    let mut out = serde_json::Map::new();
    out.insert("hex".into(), json!(format!("0x{bits:0hex_digits$X}")));
    out.insert(
        "binary".into(),
        json!(format!("{sign} {exponent_text} {mantissa_text}")),
    );
    out.insert("sign".into(), json!(sign));
    out.insert("exponentBits".into(), json!(exponent_text));
    out.insert("biasedExponent".into(), json!(biased));
    let unbiased = match class {
        "normal" => json!(biased as i64 - format.bias()),
        "subnormal" => json!(1 - format.bias()),
        _ => Value::Null,
    };
    out.insert("exponent".into(), unbiased);
    out.insert("mantissaBits".into(), json!(mantissa_text));
    out.insert("class".into(), json!(class));
    out.insert("value".into(), json!(shortest(format, bits)));
    if class == "NaN" {
        let quiet = mantissa >> (format.mantissa_bits - 1) & 1 == 1;
        out.insert("quietNaN".into(), json!(quiet));
        out.insert(
            "payload".into(),
            json!(format!("0x{:X}", mantissa & (mantissa_mask >> 1))),
        );
    }
    if matches!(class, "normal" | "subnormal" | "zero") {
        let (significand, exp2) = if class == "normal" {
            (
                mantissa | (1u64 << format.mantissa_bits),
                biased as i64 - format.bias() - format.mantissa_bits as i64,
            )
        } else {
            (mantissa, 1 - format.bias() - format.mantissa_bits as i64)
        };
        let exact = exact_float(sign == 1, significand, exp2);
        let mut exact_text = decimal_string(&exact);
        if class == "zero" && sign == 1 {
            exact_text = "-0".into();
        }
        out.insert("exactValue".into(), json!(exact_text));
        if let Some(input) = input {
            let err = difference(&exact, input);
            out.insert("roundingError".into(), json!(decimal_string(&err)));
            out.insert("exact".into(), json!(err.value.is_zero()));
        }
    } else if input.is_some() {
        // A finite decimal that became infinity overflowed the format.
        out.insert("overflow".into(), json!(class == "infinity"));
    }
    Value::Object(out)
}

// ---------------------------------------------------------------------------------------------
// endianness-swapper

fn endianness_swapper(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "integer" {
        return swap_integer(input.trim(), args.str("integerWidth")?);
    }
    let format = args.str("dataFormat")?;
    let word = args.usize("wordLength")?;
    let pad = args.flag("padIncompleteWords");
    let data = if format == "text" {
        input.as_bytes().to_vec()
    } else {
        parse_hex_bytes(input)?
    };
    let mut swapped = Vec::with_capacity(data.len() + word);
    let mut incomplete = false;
    for chunk in data.chunks(word) {
        let mut w = chunk.to_vec();
        if w.len() < word {
            incomplete = true;
            if pad {
                w.resize(word, 0);
            }
        }
        w.reverse();
        swapped.extend(w);
    }
    let hex_spaced = spaced_hex(&swapped);
    let mut out = serde_json::Map::new();
    if format == "text" {
        match String::from_utf8(swapped.clone()) {
            Ok(text) => {
                out.insert("output".into(), json!(text));
                out.insert("outputEncoding".into(), json!("utf-8"));
            }
            Err(_) => {
                out.insert("output".into(), json!(hex_spaced));
                out.insert("outputEncoding".into(), json!("hex"));
            }
        }
    } else {
        out.insert("output".into(), json!(hex_spaced));
    }
    out.insert("hex".into(), json!(hex::encode(&swapped)));
    out.insert("byteCount".into(), json!(swapped.len()));
    out.insert("wordLength".into(), json!(word));
    out.insert("incompleteWord".into(), json!(incomplete));
    out.insert("padded".into(), json!(incomplete && pad));
    Ok(Value::Object(out))
}

fn spaced_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Hex bytes as people paste them (see `encoding::parse_hex`).
fn parse_hex_bytes(input: &str) -> Result<Vec<u8>, ToolError> {
    crate::tools::encoding::encoders::parse_hex(input).map_err(|e| {
        ToolError::invalid(format!(
            "{} (choose dataFormat 'text' for raw text)",
            e.message
        ))
    })
}

fn swap_integer(input: &str, width: &str) -> ToolOutcome {
    let (value, hex_digits) = parse_integer_text(input)?;
    let magnitude_bits = 128 - value.unsigned_abs().leading_zeros();
    let fits = |w: u32| {
        if value < 0 {
            magnitude_bits <= w && value >= -(1i128 << (w - 1))
        } else {
            magnitude_bits <= w
        }
    };
    let bits: u32 = match width {
        "16" => 16,
        "32" => 32,
        "64" => 64,
        // Zero-padded hex says its width: 0x00001234 is a 32-bit value.
        _ => match hex_digits {
            Some(4) => 16,
            Some(8) => 32,
            Some(16) => 64,
            _ => [16, 32, 64].into_iter().find(|w| fits(*w)).unwrap_or(128),
        },
    };
    if bits > 64 || !fits(bits) {
        return Err(ToolError::invalid(format!(
            "{input} does not fit in {} bits (unsigned 0..2^{n}-1 or signed -2^{m}..2^{m}-1)",
            bits.min(64),
            n = bits.min(64),
            m = bits.min(64) - 1
        )));
    }
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let unsigned = (value as u64) & mask;
    let bytes = (bits / 8) as usize;
    let be = &unsigned.to_be_bytes()[8 - bytes..];
    let mut le = be.to_vec();
    le.reverse();
    let swapped = le.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
    let digits = bytes * 2;
    let signed = |v: u64| {
        if bits == 64 {
            v as i64
        } else if v >> (bits - 1) & 1 == 1 {
            (v as i64) - (1i64 << bits)
        } else {
            v as i64
        }
    };
    Ok(json!({
        "output": format!("0x{swapped:0digits$X}"),
        "width": bits,
        "value": { "hex": format!("0x{unsigned:0digits$X}"), "unsigned": unsigned.to_string(), "signed": signed(unsigned).to_string() },
        "bigEndianBytes": spaced_hex(be),
        "littleEndianBytes": spaced_hex(&le),
        "swapped": { "hex": format!("0x{swapped:0digits$X}"), "unsigned": swapped.to_string(), "signed": signed(swapped).to_string() },
    }))
}

/// An integer in decimal (optionally negative) or 0x/0b/0o notation, underscores allowed.
/// Also returns the number of hex digits written, which can imply a width.
fn parse_integer_text(input: &str) -> Result<(i128, Option<usize>), ToolError> {
    let t: String = input.trim().chars().filter(|c| *c != '_').collect();
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits, name) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d, "hexadecimal")
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d, "binary")
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d, "octal")
    } else {
        (10, lower.as_str(), "decimal")
    };
    if digits.is_empty() {
        return Err(ToolError::invalid(format!(
            "'{}' has no digits",
            crate::text::preview(input, 60)
        )));
    }
    let magnitude = u128::from_str_radix(digits, radix).map_err(|e| {
        let reason = if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) {
            "is larger than 128 bits".to_string()
        } else {
            format!("is not a {name} number")
        };
        ToolError::invalid(format!(
            "'{}' {reason} (write decimal, or prefix 0x, 0b or 0o)",
            crate::text::preview(input, 60)
        ))
    })?;
    let value = if negative {
        if magnitude > 1u128 << 127 {
            return Err(ToolError::invalid(format!(
                "'{}' is below -2^127, the smallest 128-bit signed value",
                crate::text::preview(input, 60)
            )));
        }
        (magnitude as i128).wrapping_neg()
    } else {
        magnitude as i128
    };
    let hex_digits = (radix == 16).then_some(digits.len());
    Ok((value, hex_digits))
}

// ---------------------------------------------------------------------------------------------
// bitwise-calculator

/// An operand: its bit pattern at the chosen width (stored in a u128).
fn operand(text: &str, name: &str, width: u32) -> Result<u128, ToolError> {
    let t = text.trim();
    let negative = t.starts_with('-');
    let digits: String = t.chars().filter(|c| *c != '_').collect();
    let unsigned = digits.trim_start_matches(['-', '+']).to_ascii_lowercase();
    let (radix, body) = if let Some(d) = unsigned.strip_prefix("0x") {
        (16, d.to_string())
    } else if let Some(d) = unsigned.strip_prefix("0b") {
        (2, d.to_string())
    } else if let Some(d) = unsigned.strip_prefix("0o") {
        (8, d.to_string())
    } else {
        (10, unsigned.clone())
    };
    let magnitude = BigUint::parse_bytes(body.as_bytes(), radix).ok_or_else(|| {
        ToolError::invalid(format!(
            "operand {name} '{}' is not a number: write decimal (-5, 240), or prefix 0x, 0b or 0o",
            crate::text::preview(t, 60)
        ))
    })?;
    let limit = BigUint::from(1u8) << width as usize;
    if negative {
        let half = BigUint::from(1u8) << (width - 1) as usize;
        if magnitude > half {
            return Err(ToolError::invalid(format!(
                "operand {name} '{t}' does not fit in {width} bits: the signed range is -2^{m} to 2^{m}-1",
                m = width - 1
            )));
        }
        let pattern = (&limit - magnitude) % &limit;
        return Ok(to_u128(&pattern));
    }
    if magnitude >= limit {
        return Err(ToolError::invalid(format!(
            "operand {name} '{t}' does not fit in {width} bits ({} bits needed); choose a wider width",
            magnitude.bits()
        )));
    }
    Ok(to_u128(&magnitude))
}

fn to_u128(v: &BigUint) -> u128 {
    v.to_u64_digits()
        .iter()
        .rev()
        .fold(0u128, |acc, d| (acc << 64) | u128::from(*d))
}

fn mask(width: u32) -> u128 {
    if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Reads a width-bit pattern as a two's-complement signed value.
fn signed(v: u128, width: u32) -> i128 {
    if width == 128 {
        v as i128
    } else if v >> (width - 1) & 1 == 1 {
        (v as i128) - (1i128 << width)
    } else {
        v as i128
    }
}

fn render(v: u128, width: u32) -> Value {
    let hex_digits = (width / 4) as usize;
    let bin_digits = width as usize;
    json!({
        "unsigned": v.to_string(),
        "signed": signed(v, width).to_string(),
        "hex": format!("0x{v:0hex_digits$X}"),
        "binary": format!("0b{v:0bin_digits$b}"),
        "octal": format!("0o{v:o}"),
    })
}

fn bitwise_calculator(args: &Args) -> ToolOutcome {
    let op = args.str("operation")?;
    let width: u32 = args
        .str("width")?
        .parse()
        .map_err(|_| ToolError::invalid("width must be 8, 16, 32, 64 or 128"))?;
    let m = mask(width);
    let a = operand(args.str("a")?, "a", width)?;
    let unary = op == "not";
    let shift = matches!(op, "shl" | "shr" | "sar" | "rol" | "ror");
    let b_text = args.opt_str("b").map(str::trim).filter(|s| !s.is_empty());
    let b = match (unary, b_text) {
        (true, _) => None,
        (false, Some(t)) if shift => {
            let n: u32 = t.parse().map_err(|_| {
                ToolError::invalid(format!(
                    "shift amount b '{t}' must be a non-negative whole number of bits"
                ))
            })?;
            Some(u128::from(n))
        }
        (false, Some(t)) => Some(operand(t, "b", width)?),
        (false, None) => {
            return Err(ToolError::invalid(format!(
                "operation '{op}' needs a second operand b"
            )));
        }
    };
    let bv = b.unwrap_or(0);
    let n = u32::try_from(bv).unwrap_or(u32::MAX);
    let sa = signed(a, width);
    let sb = signed(bv, width);
    let mut unsigned_overflow = false;
    let mut signed_overflow = false;
    let result = match op {
        "and" => a & bv,
        "or" => a | bv,
        "xor" => a ^ bv,
        "nand" => !(a & bv) & m,
        "nor" => !(a | bv) & m,
        "xnor" => !(a ^ bv) & m,
        "not" => !a & m,
        "shl" => {
            let r = if n >= width { 0 } else { (a << n) & m };
            unsigned_overflow = n > 0 && a != 0 && (n >= width || (a >> (width - n)) != 0);
            signed_overflow = a != 0 && (n >= width || signed(r, width) >> n.min(127) != sa);
            r
        }
        "shr" => {
            if n >= width {
                0
            } else {
                a >> n
            }
        }
        "sar" => {
            let s = sa >> n.min(width - 1);
            (s as u128) & m
        }
        "rol" | "ror" => {
            let k = n % width;
            let (l, r) = if op == "rol" {
                (k, width - k)
            } else {
                (width - k, k)
            };
            if k == 0 { a } else { ((a << l) | (a >> r)) & m }
        }
        "add" => {
            let (sum, carry) = a.overflowing_add(bv);
            unsigned_overflow = carry || sum > m;
            let r = sum & m;
            signed_overflow = (sa >= 0) == (sb >= 0) && (signed(r, width) >= 0) != (sa >= 0);
            r
        }
        "sub" => {
            unsigned_overflow = bv > a;
            let r = a.wrapping_sub(bv) & m;
            signed_overflow = (sa >= 0) != (sb >= 0) && (signed(r, width) >= 0) != (sa >= 0);
            r
        }
        other => {
            return Err(ToolError::invalid(format!("unknown operation '{other}'")));
        }
    };
    let mut out = serde_json::Map::new();
    out.insert(
        "output".into(),
        json!(format!("0x{result:0w$X}", w = (width / 4) as usize)),
    );
    out.insert("operation".into(), json!(op));
    out.insert("width".into(), json!(width));
    out.insert("a".into(), render(a, width));
    if let Some(b) = b {
        if shift {
            out.insert("b".into(), json!(b.to_string()));
        } else {
            out.insert("b".into(), render(b, width));
        }
    }
    out.insert("result".into(), render(result, width));
    out.insert(
        "flags".into(),
        json!({
            "zero": result == 0,
            "negative": result >> (width - 1) & 1 == 1,
            "unsignedOverflow": unsigned_overflow,
            "signedOverflow": signed_overflow,
        }),
    );
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn float_point_one_binary64_exact_value() {
        let d = run_ok("float-converter", json!({"input": "0.1"}));
        let b64 = &d["binary64"];
        assert_eq!(b64["hex"], "0x3FB999999999999A");
        assert_eq!(
            b64["exactValue"],
            "0.1000000000000000055511151231257827021181583404541015625"
        );
        assert_eq!(
            b64["roundingError"],
            "0.0000000000000000055511151231257827021181583404541015625"
        );
        assert_eq!(b64["exponent"], -4);
        assert_eq!(b64["class"], "normal");
        assert_eq!(d["binary32"]["hex"], "0x3DCCCCCD");
        assert_eq!(d["binary32"]["exactValue"], "0.100000001490116119384765625");
    }

    #[test]
    fn float_one_and_minus_two_binary32() {
        let d = run_ok(
            "float-converter",
            json!({"input": "1", "precision": "binary32"}),
        );
        assert_eq!(d["output"], "0x3F800000");
        assert_eq!(
            d["binary32"]["binary"],
            "0 01111111 00000000000000000000000"
        );
        assert_eq!(d["binary32"]["exact"], true);
        let d = run_ok(
            "float-converter",
            json!({"input": "-2.0", "precision": "binary32"}),
        );
        assert_eq!(d["binary32"]["hex"], "0xC0000000");
        assert_eq!(d["binary32"]["sign"], 1);
        assert_eq!(d["binary32"]["exponent"], 1);
    }

    #[test]
    fn float_hex_bits_subnormal_and_nan() {
        let d = run_ok("float-converter", json!({"input": "0x00000001"}));
        // The shortest decimal that reads back to this binary32 is 1e-45 (Java prints 1.4E-45).
        assert_eq!(d["output"], "1e-45");
        assert_eq!(d["binary32"]["class"], "subnormal");
        assert_eq!(d["binary32"]["exponent"], -126);
        assert!(
            d["binary32"]["exactValue"]
                .as_str()
                .unwrap()
                .starts_with("0.000000000000000000000000000000000000000000001401298464324817")
        );
        let d = run_ok(
            "float-converter",
            json!({"input": "7FC00000", "from": "hex"}),
        );
        assert_eq!(d["binary32"]["class"], "NaN");
        assert_eq!(d["binary32"]["quietNaN"], true);
        let d = run_ok("float-converter", json!({"input": "0x3FF0000000000000"}));
        assert_eq!(d["binary64"]["value"], "1");
        let d = run_ok("float-converter", json!({"input": "0xFFF0000000000000"}));
        assert_eq!(d["binary64"]["class"], "infinity");
        assert_eq!(d["output"], "-Infinity");
    }

    #[test]
    fn float_errors() {
        let (code, msg) = run_err("float-converter", json!({"input": "12abc"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not a decimal number"), "{msg}");
        let (_, msg) = run_err(
            "float-converter",
            json!({"input": "0x123456789", "precision": "binary32"}),
        );
        assert!(msg.contains("binary32"), "{msg}");
        let d = run_ok("float-converter", json!({"input": "1e400"}));
        assert_eq!(d["binary64"]["class"], "infinity");
        assert_eq!(d["binary64"]["overflow"], true);
    }

    #[test]
    fn endianness_word_swap_and_padding() {
        let d = run_ok("endianness-swapper", json!({"input": "12345678"}));
        assert_eq!(d["output"], "78 56 34 12");
        let d = run_ok("endianness-swapper", json!({"input": "0102030405"}));
        assert_eq!(d["output"], "04 03 02 01 00 00 00 05");
        assert_eq!(d["padded"], true);
        let d = run_ok(
            "endianness-swapper",
            json!({"input": "0102030405", "padIncompleteWords": false}),
        );
        assert_eq!(d["output"], "04 03 02 01 05");
        let d = run_ok(
            "endianness-swapper",
            json!({"input": "0x0102 0x0304", "wordLength": 2}),
        );
        assert_eq!(d["hex"], "02010403");
    }

    #[test]
    fn endianness_text_and_integer_modes() {
        let d = run_ok(
            "endianness-swapper",
            json!({"input": "abcd", "dataFormat": "text", "wordLength": 2}),
        );
        assert_eq!(d["output"], "badc");
        let d = run_ok(
            "endianness-swapper",
            json!({"input": "0x12345678", "mode": "integer"}),
        );
        assert_eq!(d["output"], "0x78563412");
        assert_eq!(d["bigEndianBytes"], "12 34 56 78");
        assert_eq!(d["littleEndianBytes"], "78 56 34 12");
        assert_eq!(d["swapped"]["unsigned"], "2018915346");
        let d = run_ok(
            "endianness-swapper",
            json!({"input": "1", "mode": "integer", "integerWidth": "16"}),
        );
        assert_eq!(d["output"], "0x0100");
        assert_eq!(d["swapped"]["unsigned"], "256");
    }

    #[test]
    fn endianness_errors() {
        let (code, msg) = run_err("endianness-swapper", json!({"input": "0102zz"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'z'"), "{msg}");
        let (_, msg) = run_err("endianness-swapper", json!({"input": "123"}));
        assert!(msg.contains("odd"), "{msg}");
        let (_, msg) = run_err(
            "endianness-swapper",
            json!({"input": "70000", "mode": "integer", "integerWidth": "16"}),
        );
        assert!(msg.contains("16 bits"), "{msg}");
    }

    #[test]
    fn bitwise_and_not_rol() {
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0xF0", "b": "0x3C", "operation": "and", "width": "8"}),
        );
        assert_eq!(d["output"], "0x30");
        assert_eq!(d["result"]["unsigned"], "48");
        assert_eq!(d["result"]["binary"], "0b00110000");
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0", "operation": "not", "width": "8"}),
        );
        assert_eq!(d["result"]["unsigned"], "255");
        assert_eq!(d["result"]["signed"], "-1");
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0x81", "b": "1", "operation": "rol", "width": "8"}),
        );
        assert_eq!(d["output"], "0x03");
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0x81", "b": "1", "operation": "ror", "width": "8"}),
        );
        assert_eq!(d["output"], "0xC0");
    }

    #[test]
    fn bitwise_shifts_and_wrapping_arithmetic() {
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "-16", "b": "2", "operation": "sar", "width": "8"}),
        );
        assert_eq!(d["result"]["signed"], "-4");
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "-16", "b": "2", "operation": "shr", "width": "8"}),
        );
        assert_eq!(d["result"]["unsigned"], "60");
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "127", "b": "1", "operation": "add", "width": "8"}),
        );
        assert_eq!(d["result"]["signed"], "-128");
        assert_eq!(d["flags"]["signedOverflow"], true);
        assert_eq!(d["flags"]["unsignedOverflow"], false);
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0xFFFFFFFF", "b": "1", "operation": "add"}),
        );
        assert_eq!(d["output"], "0x00000000");
        assert_eq!(d["flags"]["unsignedOverflow"], true);
        assert_eq!(d["flags"]["zero"], true);
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0", "b": "1", "operation": "sub", "width": "64"}),
        );
        assert_eq!(d["result"]["unsigned"], "18446744073709551615");
        let d = run_ok(
            "bitwise-calculator",
            json!({"a": "0b1010", "b": "0o17", "operation": "xnor", "width": "8"}),
        );
        assert_eq!(d["output"], "0xFA");
    }

    #[test]
    fn bitwise_errors() {
        let (code, msg) = run_err(
            "bitwise-calculator",
            json!({"a": "256", "b": "1", "operation": "and", "width": "8"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("does not fit in 8 bits"), "{msg}");
        let (_, msg) = run_err(
            "bitwise-calculator",
            json!({"a": "-129", "b": "1", "operation": "and", "width": "8"}),
        );
        assert!(msg.contains("signed range"), "{msg}");
        let (_, msg) = run_err("bitwise-calculator", json!({"a": "5", "operation": "xor"}));
        assert!(msg.contains("second operand"), "{msg}");
        let (_, msg) = run_err(
            "bitwise-calculator",
            json!({"a": "0xZZ", "b": "1", "operation": "or"}),
        );
        assert!(msg.contains("not a number"), "{msg}");
    }
}
