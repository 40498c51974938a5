//! Number theory on arbitrary-precision integers: gcd/lcm, extended gcd, modular power and
//! inverse, non-negative remainder and the Chinese remainder theorem (num-bigint).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("modular-arithmetic", modular_arithmetic)];

/// Euclid's steps are shown for learning; beyond this many they are left out.
const MAX_STEPS: usize = 100;

/// The most digits one integer may have (about 33,000 bits in decimal): a modular power of
/// numbers this size takes about a second; each doubling makes it several times slower, and
/// reading and printing decimal numbers is quadratic in their length.
const MAX_DIGITS: usize = 10_000;
/// The most digits all the integers of one call may have together: the lcm of a list and the
/// modulus of a system of congruences grow to the sum of their sizes.
const MAX_TOTAL_DIGITS: usize = 100_000;

fn too_big(what: &str, found: String, limit: usize, why: &str) -> ToolError {
    ToolError::invalid(format!(
        "{what} {found}; modular-arithmetic takes at most {limit} digits {why}, since arbitrary-precision arithmetic slows with the square of the length (a modular power of {MAX_DIGITS}-digit numbers takes about a second)"
    ))
}

/// A decimal or 0x/0b/0o integer, optionally negative, underscores allowed.
fn parse_int(text: &str, what: &str) -> Result<BigInt, ToolError> {
    let digits = text
        .trim()
        .bytes()
        .filter(u8::is_ascii_alphanumeric)
        .count();
    if digits > MAX_DIGITS {
        return Err(too_big(
            what,
            format!("has {digits} digits"),
            MAX_DIGITS,
            "per integer",
        ));
    }
    let t: String = text.trim().chars().filter(|c| *c != '_').collect();
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(&t)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else {
        (10, lower.as_str())
    };
    let value = BigInt::parse_bytes(digits.as_bytes(), radix)
        .filter(|_| !digits.starts_with(['+', '-']))
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "{what} '{}' is not an integer: write decimal digits (optionally negative) or a 0x hex number",
                crate::text::preview(text.trim(), 60)
            ))
        })?;
    Ok(if negative { -value } else { value })
}

fn required<'a>(args: &'a Args, name: &str, op: &str) -> Result<&'a str, ToolError> {
    args.opt_str(name)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::invalid(format!("operation '{op}' needs parameter '{name}'")))
}

fn positive_modulus(args: &Args, op: &str) -> Result<BigInt, ToolError> {
    let m = parse_int(required(args, "modulus", op)?, "modulus")?;
    if !m.is_positive() {
        return Err(ToolError::invalid(format!(
            "modulus must be a positive integer, received {m}"
        )));
    }
    Ok(m)
}

/// Splits a list of integers on commas, semicolons or whitespace.
fn parse_list(text: &str, what: &str) -> Result<Vec<BigInt>, ToolError> {
    text.split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| parse_int(s, what))
        .collect()
}

fn modular_arithmetic(args: &Args) -> ToolOutcome {
    let total: usize = ["a", "b", "modulus", "congruences"]
        .iter()
        .filter_map(|name| args.opt_str(name))
        .map(|text| text.bytes().filter(u8::is_ascii_alphanumeric).count())
        .sum();
    if total > MAX_TOTAL_DIGITS {
        return Err(too_big(
            "the integers",
            format!("have {total} digits together"),
            MAX_TOTAL_DIGITS,
            "in all",
        ));
    }
    let op = args.str("operation")?;
    match op {
        "gcd" | "lcm" => {
            let mut values = parse_list(required(args, "a", op)?, "a")?;
            if let Some(b) = args.opt_str("b").filter(|s| !s.trim().is_empty()) {
                values.extend(parse_list(b, "b")?);
            }
            if values.len() < 2 {
                return Err(ToolError::invalid(format!(
                    "{op} needs at least two integers: give a and b, or a list in a (12, 18, 30)"
                )));
            }
            let gcd = values.iter().fold(BigInt::zero(), |acc, v| acc.gcd(v));
            let lcm = values
                .iter()
                .skip(1)
                .fold(values[0].abs(), |acc, v| acc.lcm(v));
            let mut out = serde_json::Map::new();
            let main = if op == "gcd" { &gcd } else { &lcm };
            out.insert("output".into(), json!(main.to_string()));
            out.insert("operation".into(), json!(op));
            out.insert(
                "inputs".into(),
                json!(values.iter().map(ToString::to_string).collect::<Vec<_>>()),
            );
            out.insert("gcd".into(), json!(gcd.to_string()));
            out.insert("lcm".into(), json!(lcm.to_string()));
            out.insert("coprime".into(), json!(gcd.is_one()));
            if values.len() == 2 {
                out.insert("steps".into(), json!(euclid_steps(&values[0], &values[1])));
            }
            Ok(Value::Object(out))
        }
        "egcd" => {
            let a = parse_int(required(args, "a", op)?, "a")?;
            let b = parse_int(required(args, "b", op)?, "b")?;
            let e = a.extended_gcd(&b);
            Ok(json!({
                "output": e.gcd.to_string(),
                "operation": op,
                "gcd": e.gcd.to_string(),
                "x": e.x.to_string(),
                "y": e.y.to_string(),
                "equation": format!("{a}·({}) + {b}·({}) = {}", e.x, e.y, e.gcd),
                "steps": euclid_steps(&a, &b),
            }))
        }
        "modpow" => {
            let base = parse_int(required(args, "a", op)?, "a (base)")?;
            let exponent = parse_int(required(args, "b", op)?, "b (exponent)")?;
            let m = positive_modulus(args, op)?;
            let (b, e) = if exponent.is_negative() {
                // a^-e = (a^-1)^e, defined only when a is invertible.
                let inv = inverse(&base, &m)?;
                (inv, -exponent.clone())
            } else {
                (base.clone(), exponent.clone())
            };
            let r = b.modpow(&e, &m);
            Ok(json!({
                "output": r.to_string(),
                "operation": op,
                "result": r.to_string(),
                "expression": format!("{base}^{exponent} mod {m}"),
                "hex": format!("0x{}", r.to_str_radix(16)),
            }))
        }
        "modinv" => {
            let a = parse_int(required(args, "a", op)?, "a")?;
            let m = positive_modulus(args, op)?;
            let inv = inverse(&a, &m)?;
            Ok(json!({
                "output": inv.to_string(),
                "operation": op,
                "inverse": inv.to_string(),
                "check": format!("{a}·{inv} ≡ 1 (mod {m})"),
            }))
        }
        "mod" => {
            let a = parse_int(required(args, "a", op)?, "a")?;
            let m = positive_modulus(args, op)?;
            let r = a.mod_floor(&m);
            Ok(json!({
                "output": r.to_string(),
                "operation": op,
                "result": r.to_string(),
                "truncatedRemainder": (&a % &m).to_string(),
                "quotient": a.div_floor(&m).to_string(),
            }))
        }
        "crt" => crt(required(args, "congruences", op)?),
        other => Err(ToolError::invalid(format!("unknown operation '{other}'"))),
    }
}

fn inverse(a: &BigInt, m: &BigInt) -> Result<BigInt, ToolError> {
    a.modinv(m).ok_or_else(|| {
        let g = a.gcd(m);
        ToolError::invalid(format!(
            "{a} has no inverse modulo {m}: gcd({a}, {m}) = {g}, and an inverse exists only when they are coprime (gcd 1)"
        ))
    })
}

/// The division steps of Euclid's algorithm, "a = q·b + r".
fn euclid_steps(a: &BigInt, b: &BigInt) -> Vec<String> {
    let (mut x, mut y) = (a.abs(), b.abs());
    let mut steps = Vec::new();
    while !y.is_zero() && steps.len() < MAX_STEPS {
        let (q, r) = x.div_rem(&y);
        steps.push(format!("{x} = {q}·{y} + {r}"));
        x = y;
        y = r;
    }
    steps
}

/// Solves a system "x ≡ r (mod m)", one congruence per line, moduli need not be coprime.
fn crt(text: &str) -> ToolOutcome {
    let number = regex::Regex::new(r"-?0[xX][0-9a-fA-F_]+|-?[0-9][0-9_]*")
        .map_err(|e| ToolError::execution(e.to_string()))?;
    let mut system = Vec::new();
    for (i, line) in text
        .split(['\n', ';'])
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let tokens: Vec<&str> = number.find_iter(line).map(|m| m.as_str()).collect();
        if tokens.len() != 2 {
            return Err(ToolError::invalid(format!(
                "congruence {} '{}' should hold two integers, a residue and a modulus (\"x ≡ 2 (mod 3)\", \"2 mod 3\" or \"2, 3\")",
                i + 1,
                crate::text::preview(line.trim(), 60)
            )));
        }
        let r = parse_int(tokens[0], "residue")?;
        let m = parse_int(tokens[1], "modulus")?;
        if !m.is_positive() {
            return Err(ToolError::invalid(format!(
                "congruence {} has modulus {m}; moduli must be positive",
                i + 1
            )));
        }
        system.push((r, m));
    }
    if system.is_empty() {
        return Err(ToolError::invalid(
            "no congruences given: write one per line, e.g. \"x ≡ 2 (mod 3)\"",
        ));
    }
    let (mut x, mut m) = (system[0].0.mod_floor(&system[0].1), system[0].1.clone());
    for (r, n) in &system[1..] {
        let g = m.gcd(n);
        let diff = r - &x;
        if !diff.mod_floor(&g).is_zero() {
            return Err(ToolError::invalid(format!(
                "the system has no solution: x ≡ {x} (mod {m}) and x ≡ {r} (mod {n}) disagree, since gcd({m}, {n}) = {g} does not divide {r} - {x}"
            )));
        }
        let m_g = &m / &g;
        let n_g = n / &g;
        let inv = m_g.modinv(&n_g).unwrap_or_else(BigInt::zero);
        let lcm = &m_g * n;
        x = (&x + (&diff / &g) * inv % &n_g * &m).mod_floor(&lcm);
        m = lcm;
    }
    Ok(json!({
        "output": x.to_string(),
        "operation": "crt",
        "solution": x.to_string(),
        "modulus": m.to_string(),
        "general": format!("x ≡ {x} (mod {m})"),
        "congruences": system.iter().map(|(r, n)| format!("x ≡ {r} (mod {n})")).collect::<Vec<_>>(),
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn extended_gcd_240_46() {
        // The worked example in Wikipedia's "Extended Euclidean algorithm".
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "egcd", "a": "240", "b": "46"}),
        );
        assert_eq!(d["gcd"], "2");
        assert_eq!(d["x"], "-9");
        assert_eq!(d["y"], "47");
        assert_eq!(d["steps"][0], "240 = 5·46 + 10");
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "lcm", "a": "4, 6", "b": "10"}),
        );
        assert_eq!(d["output"], "60");
        assert_eq!(d["gcd"], "2");
    }

    #[test]
    fn modular_exponentiation_and_inverse() {
        // Wikipedia "Modular exponentiation": 4^13 mod 497 = 445.
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "modpow", "a": "4", "b": "13", "modulus": "497"}),
        );
        assert_eq!(d["output"], "445");
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "modinv", "a": "3", "modulus": "11"}),
        );
        assert_eq!(d["output"], "4");
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "modpow", "a": "3", "b": "-1", "modulus": "0xB"}),
        );
        assert_eq!(d["output"], "4");
        // 2^127 - 1 is prime, so 2^(p-1) ≡ 1 (Fermat).
        let p = "170141183460469231731687303715884105727";
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "modpow", "a": "2", "b": "170141183460469231731687303715884105726", "modulus": p}),
        );
        assert_eq!(d["output"], "1");
    }

    #[test]
    fn non_negative_mod_and_crt() {
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "mod", "a": "-7", "modulus": "3"}),
        );
        assert_eq!(d["output"], "2");
        assert_eq!(d["truncatedRemainder"], "-1");
        // Sunzi's problem: x ≡ 2 (mod 3), x ≡ 3 (mod 5), x ≡ 2 (mod 7) → 23.
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "crt", "congruences": "x ≡ 2 (mod 3)\n3 mod 5\n2, 7"}),
        );
        assert_eq!(d["output"], "23");
        assert_eq!(d["modulus"], "105");
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "crt", "congruences": "x ≡ 3 (mod 4); x ≡ 5 (mod 6)"}),
        );
        assert_eq!(d["output"], "11");
        assert_eq!(d["modulus"], "12");
    }

    #[test]
    fn errors() {
        let (code, msg) = run_err(
            "modular-arithmetic",
            json!({"operation": "modinv", "a": "2", "modulus": "4"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("gcd(2, 4) = 2"), "{msg}");
        let (_, msg) = run_err(
            "modular-arithmetic",
            json!({"operation": "crt", "congruences": "x ≡ 1 (mod 4)\nx ≡ 2 (mod 6)"}),
        );
        assert!(msg.contains("no solution"), "{msg}");
        let (_, msg) = run_err(
            "modular-arithmetic",
            json!({"operation": "mod", "a": "5", "modulus": "0"}),
        );
        assert!(msg.contains("positive"), "{msg}");
        let (_, msg) = run_err(
            "modular-arithmetic",
            json!({"operation": "gcd", "a": "12", "b": "1.5"}),
        );
        assert!(msg.contains("'1.5' is not an integer"), "{msg}");
    }

    #[test]
    fn operand_sizes_are_limited() {
        let huge = "7".repeat(10_001);
        let (code, msg) = run_err(
            "modular-arithmetic",
            json!({"operation": "modpow", "a": "3", "b": huge, "modulus": "1000"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("b (exponent) has 10001 digits; modular-arithmetic takes at most 10000 digits per integer"), "{msg}");
        let list = vec!["9".repeat(9_000); 12].join(",");
        let (_, msg) = run_err("modular-arithmetic", json!({"operation": "gcd", "a": list}));
        assert!(msg.starts_with("the integers have 108000 digits together; modular-arithmetic takes at most 100000 digits in all"), "{msg}");
        let (_, msg) = run_err(
            "modular-arithmetic",
            json!({"operation": "gcd", "a": "1".repeat(20_000_000), "b": "2"}),
        );
        assert!(msg.contains("at most 100000 digits in all"), "{msg}");
        // At the limit: a 10,000-digit modulus and exponent (2 is a unit mod an odd number).
        let m = "9".repeat(10_000);
        let d = run_ok(
            "modular-arithmetic",
            json!({"operation": "modpow", "a": "2", "b": "1", "modulus": m}),
        );
        assert_eq!(d["result"], "2");
    }
}
