//! Format detection for pasted text: every known format is probed with its real parser (JSON,
//! YAML, TOML, XML, CSV, URL, UUID, ULID, IP, cron, dates, PEM, JWT) or, where no parser decides
//! (Markdown, SQL, HTML), with structural patterns; the candidates are ranked by confidence.
mod documents;
mod tokens;

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use documents::{
    probe_csv, probe_json, probe_markdown, probe_sql, probe_toml, probe_xml_html, probe_yaml,
};
use serde_json::{Value, json};
use tokens::{
    probe_base64, probe_cron, probe_date, probe_email, probe_hex, probe_ip, probe_jwt, probe_pem,
    probe_timestamp, probe_ulid, probe_url, probe_uuid,
};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("format-detector", format_detector)];

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
