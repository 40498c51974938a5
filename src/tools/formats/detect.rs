//! Format detection for pasted text: every known format is probed with its real parser (JSON,
//! YAML, TOML, XML, CSV, URL, UUID, ULID, IP, cron, dates, PEM, JWT) or, where no parser decides
//! (Markdown, SQL, HTML), with structural patterns; the candidates are ranked by confidence.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::ToolFn;
use crate::tools::json;
use crate::tools::kit::args::{Args, decode_base64_param};
use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use regex::Regex;
use serde_json::{Value, json};
use std::sync::OnceLock;

pub const TOOLS: &[(&str, ToolFn)] = &[("format-detector", format_detector)];

/// Each format: its id, display name and the catalogue tools that work on it, best first.
/// Tools not (yet) in the catalogue are skipped when suggesting.
const FORMATS: &[(&str, &str, &[&str])] = &[
    (
        "json",
        "JSON",
        &[
            "json-formatter",
            "json-minifier",
            "json-to-yaml",
            "jsonpath-tester",
            "json-to-csv",
            "json-to-toml",
            "json-to-xml",
        ],
    ),
    (
        "yaml",
        "YAML",
        &["yaml-to-json", "yaml-formatter", "yaml-to-toml"],
    ),
    ("toml", "TOML", &["toml-to-json", "toml-to-yaml"]),
    (
        "xml",
        "XML",
        &["xml-formatter", "xml-to-json", "xml-validator"],
    ),
    ("html", "HTML", &["html-entity-encoder", "html-to-text"]),
    ("csv", "CSV / TSV", &["csv-to-json"]),
    ("jwt", "JSON Web Token", &["jwt-decoder"]),
    (
        "pem-certificate",
        "PEM certificate",
        &["certificate-decoder", "pem-converter"],
    ),
    (
        "pem-csr",
        "PEM certificate signing request",
        &["certificate-decoder", "pem-converter"],
    ),
    ("pem-private-key", "PEM private key", &["pem-converter"]),
    ("pem-public-key", "PEM public key", &["pem-converter"]),
    (
        "pem",
        "PEM block",
        &["pem-converter", "certificate-decoder"],
    ),
    ("data-uri", "Data URI", &["base64-file-encoder"]),
    (
        "base64",
        "Base64",
        &[
            "base64-encoder",
            "base64-file-encoder",
            "file-type-detector",
        ],
    ),
    (
        "hex",
        "Hexadecimal",
        &["hex-encoder", "hash-identifier", "number-base-converter"],
    ),
    (
        "url",
        "URL",
        &["url-parser", "url-encoder", "qr-code-generator"],
    ),
    ("email", "Email address", &["email-normalizer"]),
    ("uuid", "UUID", &["uuid-analyzer", "uuid-generator"]),
    ("ulid", "ULID", &["ulid-generator"]),
    (
        "ipv4",
        "IPv4 address",
        &[
            "ipv4-subnet-calculator",
            "ipv4-address-converter",
            "ipv4-range-expander",
        ],
    ),
    ("ipv6", "IPv6 address", &["ipv6-address-expander"]),
    ("cron", "Cron expression", &["cron-parser"]),
    ("iso-date", "ISO 8601 date", &["timestamp-converter"]),
    ("rfc2822-date", "RFC 2822 date", &["timestamp-converter"]),
    ("unix-timestamp", "Unix timestamp", &["timestamp-converter"]),
    ("markdown", "Markdown", &["markdown-to-html"]),
    ("sql", "SQL", &["sql-formatter"]),
    ("text", "Plain text", &["text-statistics", "case-converter"]),
];

struct Candidate {
    format: &'static str,
    confidence: f64,
    reason: String,
}

type Found = Vec<Candidate>;

fn add(found: &mut Found, format: &'static str, confidence: f64, reason: impl Into<String>) {
    found.push(Candidate {
        format,
        confidence,
        reason: reason.into(),
    });
}

fn format_detector(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let text = input.strip_prefix('\u{feff}').unwrap_or(input).trim();
    if text.is_empty() {
        return Err(ToolError::invalid(
            "input is empty: paste the text whose format you want to identify",
        ));
    }
    let mut found = Found::new();
    let probes: &[fn(&str, &mut Found)] = &[
        probe_jwt,
        probe_pem,
        probe_json,
        probe_xml_html,
        probe_yaml,
        probe_toml,
        probe_csv,
        probe_url,
        probe_email,
        probe_uuid,
        probe_ulid,
        probe_ip,
        probe_cron,
        probe_date,
        probe_timestamp,
        probe_base64,
        probe_hex,
        probe_markdown,
        probe_sql,
    ];
    for probe in probes {
        probe(text, &mut found);
    }
    if found.iter().all(|c| c.confidence < 0.5) {
        let lines = text.lines().count();
        let words = text.split_whitespace().count();
        add(
            &mut found,
            "text",
            0.5,
            format!("{lines} line(s), {words} word(s); no structured format recognised"),
        );
    }
    // Stable sort: at equal confidence the probe order (most specific first) decides.
    found.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    let best = &found[0];
    let mut suggested: Vec<&str> = Vec::new();
    // The best match always counts, even when it is only "text".
    for (_, c) in found
        .iter()
        .enumerate()
        .filter(|(i, c)| *i == 0 || c.confidence >= 0.6)
        .take(3)
    {
        for tool in tools_for(c.format) {
            if !suggested.contains(tool) && crate::catalogue::ids().any(|id| id == *tool) {
                suggested.push(tool);
            }
        }
    }
    suggested.truncate(6);
    let candidates: Vec<Value> = found
        .iter()
        .map(|c| {
            json!({
                "format": c.format,
                "name": name_of(c.format),
                "confidence": c.confidence,
                "reason": c.reason,
            })
        })
        .collect();
    Ok(json!({
        "format": best.format,
        "name": name_of(best.format),
        "confidence": best.confidence,
        "candidates": candidates,
        "suggestedTools": suggested,
    }))
}

fn name_of(format: &str) -> &'static str {
    FORMATS
        .iter()
        .find(|(id, _, _)| *id == format)
        .map_or("Unknown", |(_, name, _)| name)
}

fn tools_for(format: &str) -> &'static [&'static str] {
    FORMATS
        .iter()
        .find(|(id, _, _)| *id == format)
        .map_or(&[], |(_, _, tools)| tools)
}

fn is_single_token(s: &str) -> bool {
    !s.is_empty() && !s.contains(char::is_whitespace)
}

fn preview(s: &str) -> String {
    crate::text::preview(s, 40)
}

/// Validated without building a tree (any size, any depth); only the top level is counted.
fn probe_json(s: &str, found: &mut Found) {
    if json::validate(s).is_err() {
        return;
    }
    match json::top_level(s) {
        (b'{', members) => add(
            found,
            "json",
            0.98,
            format!("parses as JSON: an object with {members} key(s)"),
        ),
        (b'[', items) => add(
            found,
            "json",
            0.97,
            format!("parses as JSON: an array of {items} item(s)"),
        ),
        (b'"', _) => add(found, "json", 0.4, "parses as JSON: a single string"),
        // Bare numbers and literals are JSON too, but rarely what was meant.
        _ => add(found, "json", 0.3, "parses as a JSON scalar"),
    }
}

fn probe_yaml(s: &str, found: &mut Found) {
    use serde_norway::Value as Yaml;
    if s.len() > crate::tools::config::yaml::MAX_YAML {
        return;
    }
    let Ok(value) = serde_norway::from_str::<Yaml>(s) else {
        return;
    };
    let flow = s.starts_with('{') || s.starts_with('[');
    match value {
        Yaml::Mapping(map) if flow => add(
            found,
            "yaml",
            0.5,
            format!(
                "parses as a YAML flow mapping of {} key(s) (JSON is also valid YAML)",
                map.len()
            ),
        ),
        // "Note: call me" is a one-key YAML mapping, and as likely to be prose.
        Yaml::Mapping(map) if map.len() < 2 && !s.contains('\n') => add(
            found,
            "yaml",
            0.45,
            "parses as a YAML mapping with a single key on one line",
        ),
        Yaml::Mapping(map) => add(
            found,
            "yaml",
            0.85,
            format!("parses as YAML: a mapping with {} key(s)", map.len()),
        ),
        Yaml::Sequence(items) if !flow && items.len() > 1 => add(
            found,
            "yaml",
            0.7,
            format!(
                "parses as YAML: a block sequence of {} item(s)",
                items.len()
            ),
        ),
        _ => {}
    }
}

fn probe_toml(s: &str, found: &mut Found) {
    if s.len() > crate::tools::config::toml::MAX_TOML {
        return;
    }
    let Ok(table) = toml::from_str::<toml::Table>(s) else {
        return;
    };
    if table.is_empty() {
        return;
    }
    let sections = s
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .count();
    let keys = table.len();
    if sections > 0 {
        add(
            found,
            "toml",
            0.95,
            format!(
                "parses as TOML: {keys} top-level key(s) or table(s), {sections} [table] header(s)"
            ),
        );
    } else if keys > 1 || s.contains('\n') {
        add(
            found,
            "toml",
            0.85,
            format!("parses as TOML: {keys} key = value pair(s)"),
        );
    } else {
        add(
            found,
            "toml",
            0.6,
            "parses as a single TOML key = value pair",
        );
    }
}

fn probe_xml_html(s: &str, found: &mut Found) {
    if !s.starts_with('<') {
        probe_html_fragment(s, found);
        return;
    }
    let lower: String = s.chars().take(200).collect::<String>().to_ascii_lowercase();
    let html_root = lower.starts_with("<!doctype html") || lower.contains("<html");
    match xml_root(s) {
        Some(root) if root.eq_ignore_ascii_case("html") => {
            add(
                found,
                "html",
                0.97,
                "well-formed XHTML document with an <html> root",
            );
            add(found, "xml", 0.6, "well-formed XML (XHTML)");
        }
        Some(root) => {
            let declared = lower.starts_with("<?xml");
            let what = if root == "svg" {
                "an SVG image".to_string()
            } else {
                format!("root element <{root}>")
            };
            let tags = html_tags(s);
            // <div>…</div> is well-formed XML, but an HTML element at the root says HTML.
            let html_element = html_tags(&format!("<{root}>")) == 1;
            let xml_confidence = match (declared, html_element) {
                (true, _) => 0.98,
                (false, true) => 0.75,
                (false, false) => 0.9,
            };
            add(
                found,
                "xml",
                xml_confidence,
                format!("well-formed XML, {what}"),
            );
            if html_element && !declared {
                add(
                    found,
                    "html",
                    0.92,
                    format!("markup rooted in the HTML element <{root}>"),
                );
            } else if tags >= 2 {
                add(
                    found,
                    "html",
                    0.8,
                    format!("well-formed markup using {tags} HTML element name(s)"),
                );
            }
        }
        None if html_root => add(
            found,
            "html",
            0.95,
            "starts with an HTML doctype or <html> element",
        ),
        None => probe_html_fragment(s, found),
    }
}

fn probe_html_fragment(s: &str, found: &mut Found) {
    let tags = html_tags(s);
    if tags == 0 {
        return;
    }
    let (confidence, where_) = if s.starts_with('<') {
        (if tags >= 2 { 0.85 } else { 0.7 }, "starts with markup")
    } else {
        (0.4, "inside other text")
    };
    add(
        found,
        "html",
        confidence,
        format!("{tags} HTML element(s) {where_}"),
    );
}

/// The number of HTML element start tags (by well-known names).
fn html_tags(s: &str) -> usize {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)<(html|head|body|div|span|p|a|br|hr|img|ul|ol|li|table|thead|tbody|tr|td|th|script|style|h[1-6]|section|article|nav|header|footer|main|form|input|button|label|select|textarea|meta|link|title|strong|em|b|i|code|pre|iframe)[\s>/]").expect("constant regex compiles")
    });
    re.find_iter(s).count()
}

/// The root element's name if `s` is a well-formed XML document with exactly one root.
fn xml_root(s: &str) -> Option<String> {
    use quick_xml::Reader;
    use quick_xml::events::Event;
    let mut reader = Reader::from_str(s);
    reader.config_mut().check_end_names = true;
    let mut depth = 0usize;
    let mut root: Option<String> = None;
    loop {
        match reader.read_event().ok()? {
            // A second root element: not a well-formed document.
            Event::Start(_) | Event::Empty(_) if depth == 0 && root.is_some() => return None,
            Event::Start(e) => {
                if depth == 0 {
                    root = Some(e.name().as_ref().to_string());
                }
                depth += 1;
            }
            Event::Empty(e) if depth == 0 => root = Some(e.name().as_ref().to_string()),
            Event::End(_) => depth = depth.checked_sub(1)?,
            Event::Text(t) if depth == 0 && !t.trim().is_empty() => return None,
            Event::Eof => break,
            _ => {}
        }
    }
    if depth == 0 { root } else { None }
}

fn probe_csv(s: &str, found: &mut Found) {
    if s.lines().count() < 2 {
        return;
    }
    for (delimiter, label) in [(b',', "','"), (b'\t', "tabs"), (b';', "';'"), (b'|', "'|'")] {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(s.as_bytes());
        let mut widths = Vec::new();
        for record in reader.records() {
            match record {
                Ok(r) => widths.push(r.len()),
                Err(_) => return,
            }
        }
        let Some(&first) = widths.first() else {
            continue;
        };
        if first >= 2 && widths.len() >= 2 && widths.iter().all(|&w| w == first) {
            let confidence = if widths.len() >= 3 { 0.8 } else { 0.65 };
            add(
                found,
                "csv",
                confidence,
                format!(
                    "{} rows of {first} columns separated by {label}",
                    widths.len()
                ),
            );
            return;
        }
    }
}

fn probe_jwt(s: &str, found: &mut Found) {
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

fn probe_pem(s: &str, found: &mut Found) {
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

fn probe_url(s: &str, found: &mut Found) {
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

fn probe_email(s: &str, found: &mut Found) {
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

fn probe_uuid(s: &str, found: &mut Found) {
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

fn probe_ulid(s: &str, found: &mut Found) {
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

fn probe_ip(s: &str, found: &mut Found) {
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

fn probe_cron(s: &str, found: &mut Found) {
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

fn probe_date(s: &str, found: &mut Found) {
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

fn probe_timestamp(s: &str, found: &mut Found) {
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

fn probe_base64(s: &str, found: &mut Found) {
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

fn probe_hex(s: &str, found: &mut Found) {
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

fn probe_markdown(s: &str, found: &mut Found) {
    static FEATURES: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    let features = FEATURES.get_or_init(|| {
        [
            // CommonMark ATX headings: up to three spaces of indent, one to six #, then at
            // least one space or tab.
            ("headings", r"(?m)^ {0,3}#{1,6}[ \t]+\S"),
            ("fenced code", r"(?m)^(```|~~~)"),
            ("links", r"\[[^\]\n]+\]\([^)\s]+\)"),
            (
                "emphasis",
                r"\*\*[^*\n]+\*\*|__[^_\n]+__|(^|\s)_[^_\n]+_(\s|$)",
            ),
            (
                "lists",
                r"(?m)^\s{0,3}([-*+]|\d+\.) \S[^\n]*\n\s{0,3}([-*+]|\d+\.) \S",
            ),
            ("block quotes", r"(?m)^> "),
            // A GFM table: a header row holding a pipe, then a delimiter row of cells of one or
            // more hyphens, each with optional colons, outer pipes optional (required for a
            // single column).
            (
                "tables",
                r"(?m)^[^\n]*\|[^\n]*\n {0,3}(?:\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?|\|[ \t]*:?-+:?[ \t]*\|)[ \t]*\r?$",
            ),
            ("inline code", r"`[^`\n]+`"),
        ]
        .into_iter()
        .filter_map(|(name, re)| Regex::new(re).ok().map(|r| (name, r)))
        .collect()
    });
    let seen: Vec<&str> = features
        .iter()
        .filter(|(_, re)| re.is_match(s))
        .map(|(name, _)| *name)
        .collect();
    let mut confidence = match seen.len() {
        0 => return,
        1 if matches!(seen[0], "headings" | "fenced code") => 0.65,
        1 => 0.45,
        2 => 0.8,
        _ => 0.9,
    };
    // A delimiter row under a piped header is Markdown's own: it outranks the same text read
    // as '|'-separated values.
    if seen.contains(&"tables") {
        confidence = f64::max(confidence, 0.85);
    }
    add(
        found,
        "markdown",
        confidence,
        format!("Markdown syntax: {}", seen.join(", ")),
    );
}

fn probe_sql(s: &str, found: &mut Found) {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    let (start, clause) = RE.get_or_init(|| {
        let start = Regex::new(r"(?i)^\s*(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|CREATE\s+(OR\s+REPLACE\s+)?(TEMP(ORARY)?\s+)?(TABLE|INDEX|UNIQUE\s+INDEX|VIEW|DATABASE|SCHEMA|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE)|ALTER\s+TABLE|DROP\s+(TABLE|INDEX|VIEW|DATABASE|SCHEMA)|WITH\s+(RECURSIVE\s+)?\w+\s*(\([^)]*\))?\s+AS\s*\(|MERGE\s+INTO|TRUNCATE\s+TABLE|GRANT|REVOKE)\b").expect("constant regex compiles");
        let clause = Regex::new(r"(?i)\b(FROM|WHERE|VALUES|SET|JOIN|GROUP\s+BY|ORDER\s+BY|PRIMARY\s+KEY|ON|TO)\b|\(").expect("constant regex compiles");
        (start, clause)
    });
    let Some(m) = start.find(s) else {
        return;
    };
    let keyword = m
        .as_str()
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_uppercase();
    let confidence = if clause.is_match(&s[m.end()..]) {
        0.9
    } else {
        0.6
    };
    add(
        found,
        "sql",
        confidence,
        format!("an SQL {keyword} statement"),
    );
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn best(input: &str) -> String {
        let data = run_ok("format-detector", json!({"input": input}));
        data["format"].as_str().unwrap().to_string()
    }

    // One well-known sample per format: RFC 8259 §13, RFC 7519 §3.1, the YAML 1.2 and TOML 1.0
    // spec examples, RFC 4180, RFC 9562 and the ULID spec, RFC 5952, RFC 3339, crontab(5).
    #[test]
    fn one_sample_per_format() {
        let samples: &[(&str, &str)] = &[
            (
                r#"{"Image": {"Width": 800, "Height": 600, "Title": "View from 15th Floor"}}"#,
                "json",
            ),
            (r#"[{"precision": "zip", "Latitude": 37.7668}]"#, "json"),
            (
                "hr:  65    # Home runs\navg: 0.278 # Batting average\nrbi: 147   # Runs Batted In",
                "yaml",
            ),
            (
                "title = \"TOML Example\"\n\n[owner]\nname = \"Tom Preston-Werner\"",
                "toml",
            ),
            (
                "<?xml version=\"1.0\"?>\n<note><to>Tove</to><from>Jani</from></note>",
                "xml",
            ),
            (
                "<!DOCTYPE html>\n<html><body><p>Hello<br></p></body></html>",
                "html",
            ),
            ("<div class=\"card\"><p>Hi</p></div>", "html"),
            ("aaa,bbb,ccc\nzzz,yyy,xxx\n111,222,333", "csv"),
            (
                "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
                "jwt",
            ),
            ("SGVsbG8sIFdvcmxkIQ==", "base64"),
            (
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "hex",
            ),
            ("https://example.com/path?query=1#frag", "url"),
            ("john.doe@example.com", "email"),
            ("f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "uuid"),
            ("01ARZ3NDEKTSV4RRFFQ69G5FAV", "ulid"),
            ("192.0.2.1", "ipv4"),
            ("2001:db8::1", "ipv6"),
            ("*/15 0 1,15 * 1-5", "cron"),
            ("1985-04-12T23:20:50.52Z", "iso-date"),
            ("1700000000", "unix-timestamp"),
            (
                "-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----",
                "pem-certificate",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\nMAMCAQA=\n-----END PRIVATE KEY-----",
                "pem-private-key",
            ),
            (
                "# Title\n\nSome **bold** text and a [link](https://example.com).\n\n- one\n- two",
                "markdown",
            ),
            (
                "SELECT id, name FROM users WHERE active = 1 ORDER BY name;",
                "sql",
            ),
            ("data:,A%20brief%20note", "data-uri"),
        ];
        for (input, expected) in samples {
            assert_eq!(best(input), *expected, "{input}");
        }
    }

    #[test]
    fn reports_reasons_and_suggests_existing_tools() {
        let data = run_ok(
            "format-detector",
            json!({"input": "{\"a\": 1, \"b\": [true, null]}"}),
        );
        assert_eq!(data["format"], "json");
        assert_eq!(data["name"], "JSON");
        assert_eq!(data["confidence"], 0.98);
        let first = &data["candidates"][0];
        assert_eq!(first["reason"], "parses as JSON: an object with 2 key(s)");
        // JSON is valid YAML too, ranked below.
        let formats: Vec<&str> = data["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["format"].as_str().unwrap())
            .collect();
        assert!(formats.contains(&"yaml"), "{formats:?}");
        let tools: Vec<&str> = data["suggestedTools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(tools[0], "json-formatter");
        for tool in tools {
            assert!(crate::catalogue::get(tool).is_some(), "{tool}");
        }
    }

    #[test]
    fn decodes_what_it_recognises() {
        let ulid = run_ok(
            "format-detector",
            json!({"input": "01ARYZ6S41TSV4RRFFQ69G5FAV"}),
        );
        assert!(
            ulid["candidates"][0]["reason"]
                .as_str()
                .unwrap()
                .contains("2016-07-30T22:36:16.385Z")
        );
        let ts = run_ok("format-detector", json!({"input": "1700000000000"}));
        assert_eq!(ts["format"], "unix-timestamp");
        assert_eq!(
            ts["candidates"][0]["reason"],
            "milliseconds since 1970-01-01: 2023-11-14T22:13:20Z"
        );
        let b64 = run_ok("format-detector", json!({"input": "SGVsbG8sIFdvcmxkIQ=="}));
        assert_eq!(
            b64["candidates"][0]["reason"],
            "Base64 of UTF-8 text: \"Hello, World!\""
        );
    }

    #[test]
    fn plain_prose_is_text_and_empty_is_an_error() {
        let data = run_ok(
            "format-detector",
            json!({"input": "The quick brown fox jumps over the lazy dog"}),
        );
        assert_eq!(data["format"], "text");
        assert_eq!(data["suggestedTools"][0], "text-statistics");
        let (code, msg) = run_err("format-detector", json!({"input": "   \n "}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("empty"), "{msg}");
    }

    #[test]
    fn deep_and_large_input_is_recognised_without_a_tree() {
        use crate::tools::kit::testing::nest;
        // JSON of any depth validates without recursion; the structured probes stay bounded.
        let deep = nest("[", "", "]", 1_000_000);
        let d = run_ok("format-detector", json!({"input": deep}));
        assert_eq!(d["format"], "json");
        assert_eq!(
            d["candidates"][0]["reason"],
            "parses as JSON: an array of 1 item(s)"
        );
        let deep_xml = nest("<a>", "", "</a>", 1_000_000);
        let d = run_ok("format-detector", json!({"input": deep_xml}));
        assert_eq!(d["format"], "html");
    }

    #[test]
    fn markdown_headings_at_every_level_and_spacing() {
        for level in 1..=6 {
            for gap in [" ", "   ", "\t", " \t "] {
                for indent in ["", " ", "   "] {
                    let text = format!("{indent}{} Title{gap}here\nplain text", "#".repeat(level))
                        .replacen(" Title", &format!("{gap}Title"), 1);
                    let d = run_ok("format-detector", json!({"input": text}));
                    assert_eq!(d["format"], "markdown", "{text:?}: {d}");
                }
            }
        }
        // Seven #, no space, or four spaces of indent are not headings.
        for text in ["####### x\nplain", "#hashtag\nplain", "plain\n    # code"] {
            let d = run_ok("format-detector", json!({"input": text}));
            assert_ne!(d["format"], "markdown", "{text:?}: {d}");
        }
    }

    #[test]
    fn gfm_tables_with_every_delimiter_row_form() {
        for delimiter in [
            "|-|-|",
            "| - | - |",
            "-|-",
            "- | -",
            "|:-|-:|",
            "| :-: | :--- |",
            ":-:|---:",
            "|---|---|",
            "| --- | --- |  ",
        ] {
            for header in ["| a | b |", "a | b"] {
                let text = format!("{header}\n{delimiter}\n| 1 | 2 |\n");
                let d = run_ok("format-detector", json!({"input": text}));
                assert_eq!(d["format"], "markdown", "{text:?}: {d}");
            }
        }
        let single = run_ok("format-detector", json!({"input": "| a |\n| - |\n| 1 |\n"}));
        assert_eq!(single["format"], "markdown", "{single}");
        let crlf = run_ok(
            "format-detector",
            json!({"input": "a | b\r\n-|-\r\n1 | 2\r\n"}),
        );
        assert_eq!(crlf["format"], "markdown", "{crlf}");
    }
}
