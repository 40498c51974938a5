//! Probes for single values: JWTs, PEM blocks, URLs, e-mail addresses, UUIDs, ULIDs, IP
//! addresses, cron expressions, dates, timestamps, Base64 and hex.

use super::{Found, add, is_single_token, name_of, preview};
use crate::tools::kit::args::decode_base64_param;
use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

pub(super) fn probe_jwt(s: &str, found: &mut Found) {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    if !is_single_token(s) {
        return;
    }
    let parts: Vec<&str> = s.split('.').collect();
    if !matches!(parts.len(), 3 | 5) {
        return;
    }
    let Ok(header) = URL_SAFE_NO_PAD.decode(parts[0]) else {
        return;
    };
    let Ok(Value::Object(header)) = serde_json::from_slice::<Value>(&header) else {
        return;
    };
    let Some(alg) = header.get("alg").and_then(Value::as_str) else {
        return;
    };
    let kind = if parts.len() == 5 {
        "JWE (encrypted)"
    } else {
        "JWS (signed)"
    };
    add(
        found,
        "jwt",
        0.99,
        format!(
            "{kind} compact serialisation whose header decodes to JSON with alg {}",
            preview(alg)
        ),
    );
}

pub(super) fn probe_pem(s: &str, found: &mut Found) {
    if !s.contains("-----BEGIN ") {
        return;
    }
    let Ok(blocks) = pem::parse_many(s) else {
        return;
    };
    let Some(first) = blocks.first() else {
        return;
    };
    let tag = first.tag();
    let format = if tag.ends_with("CERTIFICATE REQUEST") {
        "pem-csr"
    } else if tag.ends_with("CERTIFICATE") {
        "pem-certificate"
    } else if tag.ends_with("PRIVATE KEY") {
        "pem-private-key"
    } else if tag.ends_with("PUBLIC KEY") {
        "pem-public-key"
    } else {
        "pem"
    };
    add(
        found,
        format,
        0.99,
        format!(
            "{} PEM block(s); the first is '{}' ({} bytes of DER)",
            blocks.len(),
            preview(tag),
            first.contents().len()
        ),
    );
}

pub(super) fn probe_url(s: &str, found: &mut Found) {
    const SCHEMES: &[&str] = &[
        "http",
        "https",
        "ftp",
        "ftps",
        "sftp",
        "ws",
        "wss",
        "file",
        "ssh",
        "git",
        "mailto",
        "tel",
        "ldap",
        "ldaps",
        "s3",
        "postgres",
        "postgresql",
        "mysql",
        "redis",
        "rediss",
        "mongodb",
        "amqp",
        "amqps",
        "urn",
    ];
    if !is_single_token(s) {
        return;
    }
    let Ok(url) = url::Url::parse(s) else {
        return;
    };
    let scheme = url.scheme();
    if scheme == "data" {
        let media = s[5..].split([',', ';']).next().unwrap_or("");
        let media = if media.is_empty() {
            "text/plain"
        } else {
            media
        };
        add(
            found,
            "data-uri",
            0.99,
            format!("RFC 2397 data URI carrying {}", preview(media)),
        );
        return;
    }
    let host = url.host_str().unwrap_or("");
    if SCHEMES.contains(&scheme) {
        let reason = if host.is_empty() {
            format!("a {scheme}: URI")
        } else {
            format!("a {scheme} URL for host {}", preview(host))
        };
        add(found, "url", 0.95, reason);
    } else if !host.is_empty() && s.contains("://") {
        add(
            found,
            "url",
            0.8,
            format!(
                "a URL with scheme '{}' and host {}",
                preview(scheme),
                preview(host)
            ),
        );
    }
}

pub(super) fn probe_email(s: &str, found: &mut Found) {
    // The WHATWG HTML "valid e-mail address" production.
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$").expect("constant regex compiles")
    });
    let address = match (s.rfind('<'), s.ends_with('>')) {
        (Some(i), true) => &s[i + 1..s.len() - 1],
        _ => s,
    };
    if re.is_match(address) {
        let named = if address.len() == s.len() {
            ""
        } else {
            " with a display name"
        };
        add(
            found,
            "email",
            0.95,
            format!("a valid email address{named} (WHATWG syntax)"),
        );
    }
}

pub(super) fn probe_uuid(s: &str, found: &mut Found) {
    if !matches!(s.len(), 32 | 36 | 38 | 45) {
        return;
    }
    let Ok(id) = uuid::Uuid::parse_str(s) else {
        return;
    };
    let version = match id.get_version_num() {
        0 if id.is_nil() => "the nil UUID".to_string(),
        15 if id.is_max() => "the max UUID".to_string(),
        n => format!("version {n}"),
    };
    let confidence = if s.len() == 32 { 0.6 } else { 0.99 };
    add(found, "uuid", confidence, format!("a UUID, {version}"));
}

pub(super) fn probe_ulid(s: &str, found: &mut Found) {
    if s.len() != 26 || !s.starts_with(|c: char| ('0'..='7').contains(&c)) {
        return;
    }
    let one_case =
        !s.chars().any(|c| c.is_ascii_lowercase()) || !s.chars().any(|c| c.is_ascii_uppercase());
    let Ok(id) = ulid::Ulid::from_string(s) else {
        return;
    };
    if !one_case {
        return;
    }
    let ms = id.timestamp_ms();
    let when = i64::try_from(ms)
        .ok()
        .and_then(DateTime::from_timestamp_millis)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default();
    // 2000-01-01 to 2100-01-01: a random 26-character word rarely lands in that window.
    let plausible = (946_684_800_000..4_102_444_800_000).contains(&ms);
    let confidence = if plausible { 0.9 } else { 0.4 };
    add(
        found,
        "ulid",
        confidence,
        format!("26 Crockford Base32 characters, a ULID created {when}"),
    );
}

pub(super) fn probe_ip(s: &str, found: &mut Found) {
    use std::net::IpAddr;
    if let Ok(ip) = s.parse::<IpAddr>() {
        let format = if ip.is_ipv4() { "ipv4" } else { "ipv6" };
        add(
            found,
            format,
            0.99,
            format!("a valid {} address", name_of(format)),
        );
    } else if let Ok(net) = s.parse::<ipnet::IpNet>() {
        let format = match net {
            ipnet::IpNet::V4(_) => "ipv4",
            ipnet::IpNet::V6(_) => "ipv6",
        };
        add(
            found,
            format,
            0.97,
            format!(
                "an {} network in CIDR notation (/{})",
                name_of(format),
                net.prefix_len()
            ),
        );
    }
}

pub(super) fn probe_cron(s: &str, found: &mut Found) {
    const MACROS: &[&str] = &[
        "@yearly",
        "@annually",
        "@monthly",
        "@weekly",
        "@daily",
        "@midnight",
        "@hourly",
        "@reboot",
    ];
    if MACROS.iter().any(|m| m.eq_ignore_ascii_case(s)) {
        add(found, "cron", 0.95, format!("the cron macro {s}"));
        return;
    }
    let fields: Vec<&str> = s.split_whitespace().collect();
    if !matches!(fields.len(), 5 | 6) || s.contains('\n') {
        return;
    }
    let field_ok = |f: &&str| {
        f.chars()
            .all(|c| c.is_ascii_alphanumeric() || "*/,-?#".contains(c))
    };
    if !fields.iter().all(field_ok) {
        return;
    }
    use croner::parser::{CronParser, Seconds, Year};
    let parsed = CronParser::builder()
        .seconds(Seconds::Optional)
        .year(Year::Disallowed)
        .build()
        .parse(s);
    if parsed.is_err() {
        return;
    }
    let operators = s.contains(['*', '/', ',', '-', '?']);
    let confidence = if operators { 0.9 } else { 0.5 };
    add(
        found,
        "cron",
        confidence,
        format!("{} fields that parse as a cron schedule", fields.len()),
    );
}

pub(super) fn probe_date(s: &str, found: &mut Found) {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        add(
            found,
            "iso-date",
            0.98,
            format!(
                "an RFC 3339 / ISO 8601 date-time: {}",
                t.with_timezone(&Utc)
                    .to_rfc3339_opts(SecondsFormat::AutoSi, true)
            ),
        );
    } else if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        add(
            found,
            "iso-date",
            0.95,
            format!("an ISO 8601 calendar date: {d}"),
        );
    } else if [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .any(|f| NaiveDateTime::parse_from_str(s, f).is_ok())
    {
        add(
            found,
            "iso-date",
            0.9,
            "an ISO 8601 date-time without a time zone",
        );
    } else if let Ok(t) = DateTime::parse_from_rfc2822(s) {
        add(
            found,
            "rfc2822-date",
            0.95,
            format!(
                "an RFC 2822 date (email and HTTP headers): {}",
                t.with_timezone(&Utc)
                    .to_rfc3339_opts(SecondsFormat::Secs, true)
            ),
        );
    }
}

pub(super) fn probe_timestamp(s: &str, found: &mut Found) {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) || (s.contains('.') && frac.is_empty()) {
        return;
    }
    let Ok(value) = int.parse::<i64>() else {
        return;
    };
    let (unit, time, confidence) = match int.len() {
        9 | 10 => ("seconds", DateTime::from_timestamp(value, 0), 0.85),
        12 | 13 if frac.is_empty() => {
            ("milliseconds", DateTime::from_timestamp_millis(value), 0.85)
        }
        15 | 16 if frac.is_empty() => ("microseconds", DateTime::from_timestamp_micros(value), 0.7),
        18 | 19 if frac.is_empty() => (
            "nanoseconds",
            Some(DateTime::from_timestamp_nanos(value)),
            0.7,
        ),
        _ => return,
    };
    if let Some(t) = time {
        add(
            found,
            "unix-timestamp",
            confidence,
            format!(
                "{unit} since 1970-01-01: {}",
                t.to_rfc3339_opts(SecondsFormat::Secs, true)
            ),
        );
    }
}

pub(super) fn probe_base64(s: &str, found: &mut Found) {
    // Line-wrapped Base64 has newlines but never spaces inside a line.
    if s.contains([' ', '\t']) {
        return;
    }
    let compact: String = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let body = compact.trim_end_matches('=');
    let alphabet = |c: char| c.is_ascii_alphanumeric() || "+/-_".contains(c);
    if compact.len() < 8 || !body.chars().all(alphabet) || compact.len() - body.len() > 2 {
        return;
    }
    if compact.contains('=') && !compact.len().is_multiple_of(4) {
        return;
    }
    // Pure hex digits and pure decimal numbers belong to the hex and timestamp probes.
    if body.chars().all(|c| c.is_ascii_hexdigit()) {
        return;
    }
    let Ok(bytes) = decode_base64_param("input", &compact) else {
        return;
    };
    let strong_hint = compact.ends_with('=') || compact.contains(['+', '/']);
    if let Some(kind) = infer::get(&bytes) {
        add(
            found,
            "base64",
            0.9,
            format!(
                "Base64 of {} bytes that are a {} file",
                bytes.len(),
                kind.mime_type()
            ),
        );
    } else if let Ok(text) = std::str::from_utf8(&bytes)
        && !text.chars().any(|c| c.is_control() && !c.is_whitespace())
    {
        add(
            found,
            "base64",
            0.85,
            format!("Base64 of UTF-8 text: \"{}\"", preview(text)),
        );
    } else {
        let confidence = if strong_hint { 0.55 } else { 0.3 };
        add(
            found,
            "base64",
            confidence,
            format!("decodes as Base64 to {} bytes of binary data", bytes.len()),
        );
    }
}

pub(super) fn probe_hex(s: &str, found: &mut Found) {
    let body = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let digits: String = body
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ':')
        .collect();
    if digits.len() < 4 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return;
    }
    // Decimal-only strings are numbers first.
    if digits.chars().all(|c| c.is_ascii_digit()) {
        return;
    }
    let mixed_case = digits.chars().any(|c| c.is_ascii_lowercase())
        && digits.chars().any(|c| c.is_ascii_uppercase());
    let hash = match digits.len() {
        32 => Some("MD5 (or a UUID without hyphens)"),
        40 => Some("SHA-1"),
        56 => Some("SHA-224"),
        64 => Some("SHA-256"),
        96 => Some("SHA-384"),
        128 => Some("SHA-512"),
        _ => None,
    };
    let (confidence, reason) = match hash {
        _ if mixed_case => (0.4, format!("{} hex digits in mixed case", digits.len())),
        Some(h) => (
            0.85,
            format!("{} hex digits: the length of a {h} digest", digits.len()),
        ),
        None if digits.len().is_multiple_of(2) => (
            if digits.len() >= 8 { 0.7 } else { 0.4 },
            format!("{} bytes written as hex digits", digits.len() / 2),
        ),
        None => (0.4, format!("{} hex digits (an odd count)", digits.len())),
    };
    add(found, "hex", confidence, reason);
}
