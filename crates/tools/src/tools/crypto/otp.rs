//! One-time passwords: otp-generator (HOTP, RFC 4226; TOTP, RFC 6238; otpauth:// Key URI format).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use chrono::{DateTime, SecondsFormat, Utc};
use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use serde_json::{Map, Value, json};
use totp_rs::Secret;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("otp-generator", otp_generator)];

/// Characters left as they are in an otpauth:// label or query value (RFC 3986 unreserved).
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Everything that defines an OTP generator, after merging parameters with an otpauth:// URI.
struct Config {
    key: Vec<u8>,
    kind: String,
    algorithm: String,
    digits: u32,
    period: u64,
    counter: u64,
    issuer: String,
    account: String,
}

fn otp_generator(args: &Args) -> ToolOutcome {
    let config = config(args)?;
    let (counter, time) = if config.kind == "totp" {
        let time = match args.opt_i64("time") {
            Some(t) => u64::try_from(t).map_err(|_| {
                ToolError::invalid(format!("time must be a Unix time in seconds ≥ 0, got {t}"))
            })?,
            None => u64::try_from(Utc::now().timestamp()).unwrap_or(0),
        };
        (time / config.period, Some(time))
    } else {
        (config.counter, None)
    };
    if args.str("mode")? == "verify" {
        return verify(args, &config, counter);
    }
    let code = hotp(&config, counter)?;
    let mut out = Map::new();
    out.insert("output".into(), json!(code));
    out.insert("type".into(), json!(config.kind));
    out.insert("algorithm".into(), json!(config.algorithm));
    out.insert("digits".into(), json!(config.digits));
    if let Some(time) = time {
        let start = counter.saturating_mul(config.period);
        let end = start.saturating_add(config.period);
        out.insert("period".into(), json!(config.period));
        out.insert("time".into(), json!(time));
        out.insert("timeStep".into(), json!(counter));
        out.insert("validFrom".into(), json!(iso8601(start)));
        out.insert("validUntil".into(), json!(iso8601(end)));
        out.insert("remainingSeconds".into(), json!(end.saturating_sub(time)));
        let previous = match counter.checked_sub(1) {
            Some(c) => json!(hotp(&config, c)?),
            None => Value::Null,
        };
        out.insert("previous".into(), previous);
        out.insert(
            "next".into(),
            json!(hotp(&config, counter.saturating_add(1))?),
        );
    } else {
        out.insert("counter".into(), json!(counter));
    }
    out.insert("secret".into(), json!(base32(&config.key)));
    out.insert("uri".into(), json!(otpauth_uri(&config)));
    Ok(Value::Object(out))
}

fn config(args: &Args) -> Result<Config, ToolError> {
    let secret = args.str("secret")?.trim();
    let mut config = Config {
        key: Vec::new(),
        kind: args.str("type")?.to_string(),
        algorithm: args.str("algorithm")?.to_string(),
        digits: u32::try_from(args.i64("digits")?).unwrap_or(6),
        period: u64::try_from(args.i64("period")?).unwrap_or(30),
        counter: u64::try_from(args.i64("counter")?).unwrap_or(0),
        issuer: args.opt_str("issuer").unwrap_or("").to_string(),
        account: args.opt_str("accountName").unwrap_or("").to_string(),
    };
    let secret = if secret.to_ascii_lowercase().starts_with("otpauth://") {
        apply_uri(secret, &mut config)?
    } else {
        secret.to_string()
    };
    config.key = decode_base32(&secret)?;
    if !(6..=10).contains(&config.digits) {
        return Err(ToolError::invalid(format!(
            "digits must be between 6 and 10 (RFC 4226 §5.3), got {}",
            config.digits
        )));
    }
    if !(1..=86_400).contains(&config.period) {
        return Err(ToolError::invalid(format!(
            "period must be between 1 and 86400 seconds, got {}",
            config.period
        )));
    }
    Ok(config)
}

/// Reads an otpauth:// URI (Google Authenticator Key URI format) into `config`; its values
/// override the parameters. Returns the Base32 secret it carries.
fn apply_uri(uri: &str, config: &mut Config) -> Result<String, ToolError> {
    let url = url::Url::parse(uri)
        .map_err(|e| ToolError::invalid(format!("the otpauth:// URI is malformed: {e}")))?;
    let kind = url.host_str().unwrap_or("").to_ascii_lowercase();
    if kind != "totp" && kind != "hotp" {
        return Err(ToolError::invalid(format!(
            "the otpauth:// URI type must be 'totp' or 'hotp', got '{kind}'"
        )));
    }
    config.kind = kind;
    let label = percent_decode_str(url.path().trim_start_matches('/'))
        .decode_utf8_lossy()
        .into_owned();
    match label.split_once(':') {
        Some((issuer, account)) => {
            config.issuer = issuer.trim().to_string();
            config.account = account.trim().to_string();
        }
        None => config.account = label,
    }
    let mut secret = None;
    for (key, value) in url.query_pairs() {
        let number = |name: &str| {
            value.parse::<u64>().map_err(|_| {
                ToolError::invalid(format!(
                    "the otpauth:// URI's {name} must be a whole number, got '{value}'"
                ))
            })
        };
        match key.to_ascii_lowercase().as_str() {
            "secret" => secret = Some(value.to_string()),
            "issuer" => config.issuer = value.to_string(),
            "algorithm" => {
                config.algorithm = match value.to_ascii_uppercase().as_str() {
                    a @ ("SHA1" | "SHA256" | "SHA512") => a.to_string(),
                    _ => {
                        return Err(ToolError::invalid(format!(
                            "the otpauth:// URI's algorithm must be SHA1, SHA256 or SHA512, got '{value}'"
                        )));
                    }
                }
            }
            "digits" => config.digits = u32::try_from(number("digits")?).unwrap_or(0),
            "period" => config.period = number("period")?,
            "counter" => config.counter = number("counter")?,
            _ => {}
        }
    }
    secret.ok_or_else(|| ToolError::invalid("the otpauth:// URI has no secret= parameter"))
}

/// RFC 4648 Base32, tolerating the spaces, hyphens, lower case and padding people paste.
fn decode_base32(text: &str) -> Result<Vec<u8>, ToolError> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '=')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if compact.is_empty() {
        return Err(ToolError::invalid("the secret is empty"));
    }
    if let Some((i, c)) = compact
        .char_indices()
        .find(|(_, c)| !matches!(c, 'A'..='Z' | '2'..='7'))
    {
        return Err(ToolError::invalid(format!(
            "the secret is not Base32: character '{c}' at position {} is outside A–Z and 2–7",
            i + 1
        )));
    }
    let bytes = Secret::try_from_base32(&compact)
        .map_err(|e| ToolError::invalid(format!("the secret is not valid Base32: {e}")))?;
    let bytes = bytes.as_bytes().to_vec();
    if bytes.is_empty() {
        return Err(ToolError::invalid("the secret decodes to no bytes"));
    }
    Ok(bytes)
}

fn base32(key: &[u8]) -> String {
    Secret::new(key.to_vec().into_boxed_slice()).to_base32()
}

fn mac<M: Mac + KeyInit>(key: &[u8], counter: u64) -> Result<Vec<u8>, ToolError> {
    let mut mac = <M as KeyInit>::new_from_slice(key)
        .map_err(|_| ToolError::invalid("the secret cannot be used as an HMAC key"))?;
    mac.update(&counter.to_be_bytes());
    Ok(mac.finalize().into_bytes().to_vec())
}

/// HOTP (RFC 4226 §5.3): HMAC of the 8-byte counter, dynamic truncation, modulo 10^digits.
fn hotp(config: &Config, counter: u64) -> Result<String, ToolError> {
    let hs = match config.algorithm.as_str() {
        "SHA256" => mac::<Hmac<sha2::Sha256>>(&config.key, counter)?,
        "SHA512" => mac::<Hmac<sha2::Sha512>>(&config.key, counter)?,
        _ => mac::<Hmac<sha1::Sha1>>(&config.key, counter)?,
    };
    let offset = usize::from(hs.last().copied().unwrap_or(0) & 0x0f);
    let word: [u8; 4] = hs
        .get(offset..offset + 4)
        .and_then(|s| s.try_into().ok())
        .unwrap_or_default();
    let binary = u64::from(u32::from_be_bytes(word) & 0x7fff_ffff);
    let code = binary % 10u64.pow(config.digits);
    Ok(format!("{code:0width$}", width = config.digits as usize))
}

fn verify(args: &Args, config: &Config, counter: u64) -> ToolOutcome {
    let Some(code) = args
        .opt_str("code")
        .map(|c| c.chars().filter(|c| !c.is_whitespace()).collect::<String>())
        .filter(|c| !c.is_empty())
    else {
        return Err(ToolError::invalid(
            "verify mode needs the code to check in the 'code' parameter",
        ));
    };
    if code.len() != config.digits as usize || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ToolError::invalid(format!(
            "the code must be {} digits, got '{code}'",
            config.digits
        )));
    }
    let window = args.i64("window")?;
    let mut matched = None;
    for delta in std::iter::once(0).chain((1..=window).flat_map(|d| [-d, d])) {
        let Some(candidate) = counter.checked_add_signed(delta) else {
            continue;
        };
        if hotp(config, candidate)? == code {
            matched = Some((delta, candidate));
            break;
        }
    }
    Ok(json!({
        "valid": matched.is_some(),
        "delta": matched.map(|(d, _)| d),
        "matchedCounter": matched.map(|(_, c)| c),
        "counter": counter,
        "type": config.kind,
        "window": window,
    }))
}

fn iso8601(unix: u64) -> String {
    i64::try_from(unix)
        .ok()
        .and_then(|t| DateTime::<Utc>::from_timestamp(t, 0))
        .map_or_else(String::new, |d| {
            d.to_rfc3339_opts(SecondsFormat::Secs, true)
        })
}

/// The Key URI format: otpauth://TYPE/ISSUER:ACCOUNT?secret=…&issuer=…&algorithm=…&digits=…
fn otpauth_uri(config: &Config) -> String {
    let enc = |s: &str| utf8_percent_encode(s, UNRESERVED).to_string();
    let label = match (config.issuer.is_empty(), config.account.is_empty()) {
        (false, false) => format!("{}:{}", enc(&config.issuer), enc(&config.account)),
        (false, true) => enc(&config.issuer),
        (true, false) => enc(&config.account),
        (true, true) => "OTP".to_string(),
    };
    let mut uri = format!(
        "otpauth://{}/{label}?secret={}",
        config.kind,
        base32(&config.key)
    );
    if !config.issuer.is_empty() {
        uri.push_str(&format!("&issuer={}", enc(&config.issuer)));
    }
    uri.push_str(&format!(
        "&algorithm={}&digits={}",
        config.algorithm, config.digits
    ));
    if config.kind == "totp" {
        uri.push_str(&format!("&period={}", config.period));
    } else {
        uri.push_str(&format!("&counter={}", config.counter));
    }
    uri
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    /// RFC 6238 Appendix B seeds: the ASCII digits repeated to 20, 32 and 64 bytes, in Base32.
    const SEED_SHA1: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    const SEED_SHA256: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====";
    const SEED_SHA512: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA=";

    #[test]
    fn totp_rfc6238_appendix_b() {
        let table: [(u64, &str, &str, &str); 6] = [
            (59, "94287082", "46119246", "90693936"),
            (1111111109, "07081804", "68084774", "25091201"),
            (1111111111, "14050471", "67062674", "99943326"),
            (1234567890, "89005924", "91819424", "93441116"),
            (2000000000, "69279037", "90698825", "38618901"),
            (20000000000, "65353130", "77737706", "47863826"),
        ];
        for (time, sha1, sha256, sha512) in table {
            for (alg, seed, code) in [
                ("SHA1", SEED_SHA1, sha1),
                ("SHA256", SEED_SHA256, sha256),
                ("SHA512", SEED_SHA512, sha512),
            ] {
                let data = run_ok(
                    "otp-generator",
                    json!({"secret": seed, "algorithm": alg, "digits": 8, "time": time}),
                );
                assert_eq!(data["output"], code, "{alg} at T={time}");
            }
        }
    }

    #[test]
    fn hotp_rfc4226_appendix_d() {
        let codes = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583",
            "399871", "520489",
        ];
        for (counter, code) in codes.iter().enumerate() {
            let data = run_ok(
                "otp-generator",
                json!({"secret": SEED_SHA1, "type": "hotp", "counter": counter}),
            );
            assert_eq!(data["output"], *code, "counter {counter}");
            assert_eq!(data["counter"], counter);
        }
    }

    #[test]
    fn totp_details_and_uri() {
        let data = run_ok(
            "otp-generator",
            json!({"secret": "gezd gnbv gy3t qojq gezd gnbv gy3t qojq", "time": 1111111109,
                   "issuer": "ACME Co", "accountName": "john@example.com"}),
        );
        // The 6-digit code is the last six digits of the 8-digit RFC value 07081804.
        assert_eq!(data["output"], "081804");
        assert_eq!(data["timeStep"], 37037036);
        assert_eq!(data["validFrom"], "2005-03-18T01:58:00Z");
        assert_eq!(data["validUntil"], "2005-03-18T01:58:30Z");
        assert_eq!(data["remainingSeconds"], 1);
        assert_eq!(
            data["uri"],
            "otpauth://totp/ACME%20Co:john%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30"
        );
    }

    #[test]
    fn otpauth_uri_as_secret() {
        let data = run_ok(
            "otp-generator",
            json!({"secret": "otpauth://totp/ACME:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA&algorithm=SHA256&digits=8&issuer=ACME",
                   "time": 59}),
        );
        assert_eq!(data["output"], "46119246");
        assert_eq!(data["algorithm"], "SHA256");
    }

    #[test]
    fn verify_within_window() {
        // 287082 is HOTP counter 1 = TOTP step 1 (T = 30..59).
        let ok = run_ok(
            "otp-generator",
            json!({"secret": SEED_SHA1, "mode": "verify", "code": "287082", "time": 65}),
        );
        assert_eq!(ok["valid"], true);
        assert_eq!(ok["delta"], -1);
        assert_eq!(ok["matchedCounter"], 1);
        let strict = run_ok(
            "otp-generator",
            json!({"secret": SEED_SHA1, "mode": "verify", "code": "287082", "time": 65, "window": 0}),
        );
        assert_eq!(strict["valid"], false);
        assert_eq!(strict["delta"], json!(null));
        let hotp = run_ok(
            "otp-generator",
            json!({"secret": SEED_SHA1, "type": "hotp", "mode": "verify", "code": "969429", "counter": 2}),
        );
        assert_eq!(hotp["valid"], true);
        assert_eq!(hotp["delta"], 1);
    }

    #[test]
    fn bad_secret_and_code_are_invalid_input() {
        let (code, msg) = run_err("otp-generator", json!({"secret": "JBSWY3DP!"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'!' at position 9"), "{msg}");
        let (code, msg) = run_err(
            "otp-generator",
            json!({"secret": SEED_SHA1, "mode": "verify", "code": "12ab56"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("6 digits"), "{msg}");
        let (code, _) = run_err(
            "otp-generator",
            json!({"secret": "otpauth://totp/x?issuer=a"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
