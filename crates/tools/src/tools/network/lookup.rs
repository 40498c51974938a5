//! Reference lookups: HTTP status codes (RFC 9110 and the IANA registry) and MIME types by
//! file extension (mime_guess).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("http-status-lookup", http_status_lookup),
    Tool::new("mime-type-lookup", mime_type_lookup),
];

struct Status {
    code: u16,
    /// The phrase in the IANA HTTP Status Code Registry.
    reason: &'static str,
    /// Earlier registered names, still common in libraries and logs.
    formerly: &'static [&'static str],
    rfc: &'static str,
    section: &'static str,
    description: &'static str,
}

const fn s(
    code: u16,
    reason: &'static str,
    formerly: &'static [&'static str],
    rfc: &'static str,
    section: &'static str,
    description: &'static str,
) -> Status {
    Status {
        code,
        reason,
        formerly,
        rfc,
        section,
        description,
    }
}

const R9110: &str = "RFC 9110";

/// The IANA HTTP Status Code Registry, without the unused 306 and the unassigned ranges.
#[rustfmt::skip]
const STATUSES: &[Status] = &[
    s(100, "Continue", &[], R9110, "15.2.1", "The request headers were received; the client should send the body."),
    s(101, "Switching Protocols", &[], R9110, "15.2.2", "The server switches to the protocol the client asked for in Upgrade (e.g. WebSocket)."),
    s(102, "Processing", &[], "RFC 2518", "10.1", "WebDAV: the server accepted the request and is still working on it."),
    s(103, "Early Hints", &[], "RFC 8297", "2", "Preliminary headers (usually Link preload hints) sent before the final response."),
    s(200, "OK", &[], R9110, "15.3.1", "The request succeeded; the body carries the result."),
    s(201, "Created", &[], R9110, "15.3.2", "The request created a new resource, identified by Location."),
    s(202, "Accepted", &[], R9110, "15.3.3", "The request was accepted for processing, which has not finished."),
    s(203, "Non-Authoritative Information", &[], R9110, "15.3.4", "Success, but a transforming proxy modified the origin's content."),
    s(204, "No Content", &[], R9110, "15.3.5", "Success with no body to send."),
    s(205, "Reset Content", &[], R9110, "15.3.6", "Success; the client should reset the document view (e.g. clear a form)."),
    s(206, "Partial Content", &[], R9110, "15.3.7", "The body holds the byte ranges the Range header asked for."),
    s(207, "Multi-Status", &[], "RFC 4918", "11.1", "WebDAV: the body holds separate statuses for several resources."),
    s(208, "Already Reported", &[], "RFC 5842", "7.1", "WebDAV: members of this binding were already listed earlier in the response."),
    s(226, "IM Used", &[], "RFC 3229", "10.4.1", "The response is the result of instance manipulations (delta encoding) on the resource."),
    s(300, "Multiple Choices", &[], R9110, "15.4.1", "The resource has several representations; the client may pick one."),
    s(301, "Moved Permanently", &[], R9110, "15.4.2", "The resource has a new permanent URI in Location; clients may change POST to GET."),
    s(302, "Found", &["Moved Temporarily"], R9110, "15.4.3", "The resource is temporarily at the URI in Location; clients may change POST to GET."),
    s(303, "See Other", &[], R9110, "15.4.4", "The result is at another URI, to be fetched with GET (e.g. after a form POST)."),
    s(304, "Not Modified", &[], R9110, "15.4.5", "The cached copy is still valid for this conditional GET; no body is sent."),
    s(305, "Use Proxy", &[], R9110, "15.4.6", "Deprecated: the resource had to be accessed through a proxy."),
    s(307, "Temporary Redirect", &[], R9110, "15.4.8", "The resource is temporarily at Location; the method and body must not change."),
    s(308, "Permanent Redirect", &[], R9110, "15.4.9", "The resource has a new permanent URI; the method and body must not change."),
    s(400, "Bad Request", &[], R9110, "15.5.1", "The server will not process the request because of a client error (malformed syntax, invalid framing)."),
    s(401, "Unauthorized", &[], R9110, "15.5.2", "Valid authentication credentials are missing; see WWW-Authenticate."),
    s(402, "Payment Required", &[], R9110, "15.5.3", "Reserved for future use; some APIs use it for billing limits."),
    s(403, "Forbidden", &[], R9110, "15.5.4", "The server understood the request but refuses to authorize it."),
    s(404, "Not Found", &[], R9110, "15.5.5", "The server has no current representation for the target resource."),
    s(405, "Method Not Allowed", &[], R9110, "15.5.6", "The method is not supported by the resource; see Allow."),
    s(406, "Not Acceptable", &[], R9110, "15.5.7", "No representation matches the request's Accept headers."),
    s(407, "Proxy Authentication Required", &[], R9110, "15.5.8", "The client must authenticate with the proxy; see Proxy-Authenticate."),
    s(408, "Request Timeout", &[], R9110, "15.5.9", "The server did not receive a complete request in time."),
    s(409, "Conflict", &[], R9110, "15.5.10", "The request conflicts with the resource's current state (e.g. an edit conflict)."),
    s(410, "Gone", &[], R9110, "15.5.11", "The resource is permanently gone and no forwarding address is known."),
    s(411, "Length Required", &[], R9110, "15.5.12", "The server requires a Content-Length header."),
    s(412, "Precondition Failed", &[], R9110, "15.5.13", "A condition in the request headers (If-Match, If-Unmodified-Since…) was false."),
    s(413, "Content Too Large", &["Payload Too Large", "Request Entity Too Large"], R9110, "15.5.14", "The request body is larger than the server will process."),
    s(414, "URI Too Long", &["Request-URI Too Long"], R9110, "15.5.15", "The request target is longer than the server will interpret."),
    s(415, "Unsupported Media Type", &[], R9110, "15.5.16", "The body's Content-Type or Content-Encoding is not supported."),
    s(416, "Range Not Satisfiable", &["Requested Range Not Satisfiable"], R9110, "15.5.17", "None of the requested ranges overlap the resource."),
    s(417, "Expectation Failed", &[], R9110, "15.5.18", "The Expect header's expectation cannot be met."),
    s(418, "I'm a teapot", &[], "RFC 2324", "2.3.2", "April Fools' HTCPCP: the teapot refuses to brew coffee; RFC 9110 §15.5.19 reserves the code as unused."),
    s(421, "Misdirected Request", &[], R9110, "15.5.20", "The request reached a server that cannot answer for this scheme and authority."),
    s(422, "Unprocessable Content", &["Unprocessable Entity"], R9110, "15.5.21", "The body is well-formed but semantically invalid (e.g. failed validation)."),
    s(423, "Locked", &[], "RFC 4918", "11.3", "WebDAV: the resource is locked."),
    s(424, "Failed Dependency", &[], "RFC 4918", "11.4", "WebDAV: the method failed because an action it depended on failed."),
    s(425, "Too Early", &[], "RFC 8470", "5.2", "The server will not process a request that might be replayed (TLS early data)."),
    s(426, "Upgrade Required", &[], R9110, "15.5.22", "The client must switch to the protocol named in Upgrade."),
    s(428, "Precondition Required", &[], "RFC 6585", "3", "The server requires the request to be conditional (to avoid lost updates)."),
    s(429, "Too Many Requests", &[], "RFC 6585", "4", "Rate limited: the client sent too many requests; see Retry-After."),
    s(431, "Request Header Fields Too Large", &[], "RFC 6585", "5", "A header field, or all of them together, is too large."),
    s(451, "Unavailable For Legal Reasons", &[], "RFC 7725", "3", "Access is denied because of a legal demand (e.g. censorship, court order)."),
    s(500, "Internal Server Error", &[], R9110, "15.6.1", "The server hit an unexpected condition."),
    s(501, "Not Implemented", &[], R9110, "15.6.2", "The server does not support the functionality (e.g. the method) required."),
    s(502, "Bad Gateway", &[], R9110, "15.6.3", "A gateway or proxy received an invalid response from the upstream server."),
    s(503, "Service Unavailable", &[], R9110, "15.6.4", "The server is temporarily overloaded or down for maintenance; see Retry-After."),
    s(504, "Gateway Timeout", &[], R9110, "15.6.5", "A gateway or proxy did not get a timely response from the upstream server."),
    s(505, "HTTP Version Not Supported", &[], R9110, "15.6.6", "The server does not support the request's major HTTP version."),
    s(506, "Variant Also Negotiates", &[], "RFC 2295", "8.1", "Transparent content negotiation is misconfigured: the chosen variant negotiates too."),
    s(507, "Insufficient Storage", &[], "RFC 4918", "11.5", "WebDAV: the server cannot store what the request needs."),
    s(508, "Loop Detected", &[], "RFC 5842", "7.2", "WebDAV: the server found an infinite loop while processing."),
    s(510, "Not Extended", &[], "RFC 2774", "7", "Historic: further extensions to the request are required."),
    s(511, "Network Authentication Required", &[], "RFC 6585", "6", "The client must authenticate to gain network access (captive portal)."),
];

/// RFC 9110 §15: the class is the first digit.
fn class_name(code: u16) -> &'static str {
    match code / 100 {
        1 => "Informational",
        2 => "Successful",
        3 => "Redirection",
        4 => "Client Error",
        _ => "Server Error",
    }
}

fn status_json(st: &Status) -> Value {
    json!({
        "code": st.code,
        "reason": st.reason,
        "class": format!("{}xx", st.code / 100),
        "category": class_name(st.code),
        "description": st.description,
        "rfc": st.rfc,
        "section": st.section,
        "formerly": st.formerly,
    })
}

fn http_status_lookup(args: &Args) -> ToolOutcome {
    let query = args.str("query")?.trim();
    let lower = query.to_lowercase();
    let (matches, note): (Vec<&Status>, Option<String>) = if query.len() == 3
        && query.bytes().all(|b| b.is_ascii_digit())
    {
        let code: u16 = query.parse().unwrap_or(0);
        if !(100..=599).contains(&code) {
            return Err(ToolError::invalid(format!(
                "{code} is not an HTTP status code: RFC 9110 §15 codes run from 100 to 599"
            )));
        }
        let found: Vec<&Status> = STATUSES.iter().filter(|s| s.code == code).collect();
        let note = found.is_empty().then(|| {
            format!(
                "{code} is not registered; as a {}xx code it is treated as {} (RFC 9110 §15)",
                code / 100,
                class_name(code)
            )
        });
        (found, note)
    } else if lower.len() == 3
        && lower.ends_with("xx")
        && (b'1'..=b'5').contains(&lower.as_bytes()[0])
    {
        let class = u16::from(lower.as_bytes()[0] - b'0');
        (
            STATUSES.iter().filter(|s| s.code / 100 == class).collect(),
            None,
        )
    } else {
        let words: Vec<&str> = lower.split_whitespace().collect();
        if words.is_empty() || query.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ToolError::invalid(format!(
                "'{query}' is not a status code: give three digits (404), a class (4xx) or words from the reason phrase (not found)"
            )));
        }
        let has_all = |text: &str| {
            let t = text.to_lowercase();
            words.iter().all(|w| t.contains(w))
        };
        let by_name: Vec<&Status> = STATUSES
            .iter()
            .filter(|s| has_all(s.reason) || s.formerly.iter().any(|f| has_all(f)))
            .collect();
        if by_name.is_empty() {
            let by_text: Vec<&Status> =
                STATUSES.iter().filter(|s| has_all(s.description)).collect();
            let note = by_text
                .is_empty()
                .then(|| format!("no status code's name or description contains '{query}'"));
            (by_text, note)
        } else {
            (by_name, None)
        }
    };
    let output = matches
        .iter()
        .map(|s| format!("{} {} — {}", s.code, s.reason, s.description))
        .collect::<Vec<_>>()
        .join("\n");
    let mut data = json!({
        "output": if output.is_empty() { note.clone().unwrap_or_default() } else { output },
        "query": query,
        "count": matches.len(),
        "matches": matches.iter().map(|s| status_json(s)).collect::<Vec<_>>(),
    });
    if let Some(note) = note {
        data["note"] = json!(note);
    }
    Ok(data)
}

/// The IANA top-level media types (RFC 6838 §4.2 and later registrations).
const TOP_LEVEL_TYPES: &[&str] = &[
    "application",
    "audio",
    "example",
    "font",
    "haptics",
    "image",
    "message",
    "model",
    "multipart",
    "text",
    "video",
];

fn mime_type_lookup(args: &Args) -> ToolOutcome {
    let query = args.str("query")?.trim();
    let mode = match args.str("mode")? {
        "auto" => {
            let essence = query.split(';').next().unwrap_or("").trim();
            let looks_mime = essence.split_once('/').is_some_and(|(top, sub)| {
                TOP_LEVEL_TYPES.contains(&top.to_ascii_lowercase().as_str())
                    && !sub.is_empty()
                    && !sub.contains('/')
            });
            if looks_mime { "mime" } else { "extension" }
        }
        other => other,
    };
    if mode == "mime" {
        let essence = query
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let Some((top, sub)) = essence
            .split_once('/')
            .filter(|(t, s)| !t.is_empty() && !s.is_empty())
        else {
            return Err(ToolError::invalid(format!(
                "'{query}' is not a MIME type: expected type/subtype such as image/png"
            )));
        };
        let extensions: Vec<&str> = mime_guess::get_extensions(top, sub)
            .map(|e| e.to_vec())
            .unwrap_or_default();
        let mut data = json!({
            "output": extensions.join("\n"),
            "query": query,
            "kind": "mime",
            "mimeType": essence,
            "found": !extensions.is_empty(),
            "extensions": extensions,
        });
        if extensions.is_empty() {
            data["note"] = json!(format!("no file extension is known for {essence}"));
        }
        return Ok(data);
    }
    let name = query.rsplit(['/', '\\']).next().unwrap_or(query);
    // A bare extension ("png", ".png") or the extension of a file name ("photo.JPG").
    let ext = match name.rsplit_once('.') {
        Some((_, e)) => e,
        None => name,
    };
    if ext.is_empty() {
        return Err(ToolError::invalid(format!(
            "'{query}' has no extension to look up: give an extension (png), a file name (photo.png) or a MIME type (image/png)"
        )));
    }
    let types: Vec<&str> = mime_guess::from_ext(ext).iter_raw().collect();
    let mut data = json!({
        "output": types.join("\n"),
        "query": query,
        "kind": "extension",
        "extension": ext.to_lowercase(),
        "found": !types.is_empty(),
        "mimeType": types.first(),
        "mimeTypes": types,
    });
    if types.is_empty() {
        data["note"] = json!(format!(
            "no MIME type is known for .{}; application/octet-stream is the generic type for unknown binary data",
            ext.to_lowercase()
        ));
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn status_by_code() {
        let d = run_ok("http-status-lookup", json!({"query": "404"}));
        assert_eq!(d["count"], 1);
        let m = &d["matches"][0];
        assert_eq!(m["reason"], "Not Found");
        assert_eq!(m["category"], "Client Error");
        assert_eq!(m["rfc"], "RFC 9110");
        assert_eq!(m["section"], "15.5.5");
        // RFC 9110 renamed 413 and 422; the registry's current names are reported.
        let d = run_ok("http-status-lookup", json!({"query": "413"}));
        assert_eq!(d["matches"][0]["reason"], "Content Too Large");
        let d = run_ok("http-status-lookup", json!({"query": "451"}));
        assert_eq!(d["matches"][0]["rfc"], "RFC 7725");
    }

    #[test]
    fn status_by_text_and_class() {
        let d = run_ok("http-status-lookup", json!({"query": "teapot"}));
        assert_eq!(d["matches"][0]["code"], 418);
        let d = run_ok("http-status-lookup", json!({"query": "not found"}));
        assert_eq!(d["matches"][0]["code"], 404);
        assert_eq!(d["count"], 1);
        let d = run_ok("http-status-lookup", json!({"query": "payload too large"}));
        assert_eq!(d["matches"][0]["code"], 413);
        let d = run_ok("http-status-lookup", json!({"query": "5xx"}));
        assert_eq!(d["count"], 11);
        let d = run_ok("http-status-lookup", json!({"query": "rate limited"}));
        assert_eq!(d["matches"][0]["code"], 429);
    }

    // Where the registry and the http crate agree (all but the renamed ones), the phrases match.
    #[test]
    fn status_phrases_agree_with_http_crate() {
        for st in super::STATUSES {
            let canonical = http::StatusCode::from_u16(st.code)
                .ok()
                .and_then(|c| c.canonical_reason());
            let Some(canonical) = canonical else {
                panic!("{} unknown to http", st.code)
            };
            if ![203, 413, 422].contains(&st.code) {
                assert_eq!(canonical, st.reason, "{}", st.code);
            } else {
                assert!(canonical != st.reason);
            }
        }
    }

    #[test]
    fn status_unknown_and_invalid() {
        let d = run_ok("http-status-lookup", json!({"query": "299"}));
        assert_eq!(d["count"], 0);
        assert!(d["note"].as_str().unwrap().contains("Successful"));
        let d = run_ok("http-status-lookup", json!({"query": "banana"}));
        assert_eq!(d["count"], 0);
        let (code, msg) = run_err("http-status-lookup", json!({"query": "600"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("100 to 599"), "{msg}");
        let (_, msg) = run_err("http-status-lookup", json!({"query": "42"}));
        assert!(msg.contains("three digits"), "{msg}");
    }

    #[test]
    fn mime_by_extension_and_file_name() {
        let d = run_ok("mime-type-lookup", json!({"query": "png"}));
        assert_eq!(d["mimeType"], "image/png");
        let d = run_ok("mime-type-lookup", json!({"query": "Report.PDF"}));
        assert_eq!(d["mimeType"], "application/pdf");
        assert_eq!(d["extension"], "pdf");
        let d = run_ok("mime-type-lookup", json!({"query": "/var/www/index.html"}));
        assert_eq!(d["mimeType"], "text/html");
        let d = run_ok("mime-type-lookup", json!({"query": ".json"}));
        assert_eq!(d["mimeType"], "application/json");
    }

    #[test]
    fn mime_to_extensions() {
        let d = run_ok("mime-type-lookup", json!({"query": "image/jpeg"}));
        let exts = d["extensions"].as_array().unwrap();
        assert!(
            exts.contains(&json!("jpg")) && exts.contains(&json!("jpeg")),
            "{exts:?}"
        );
        let d = run_ok(
            "mime-type-lookup",
            json!({"query": "Text/HTML; charset=utf-8"}),
        );
        assert_eq!(d["mimeType"], "text/html");
        assert!(d["extensions"].as_array().unwrap().contains(&json!("html")));
        let d = run_ok(
            "mime-type-lookup",
            json!({"query": "application/vnd.ms-excel"}),
        );
        assert!(d["extensions"].as_array().unwrap().contains(&json!("xls")));
    }

    #[test]
    fn mime_unknown_and_invalid() {
        let d = run_ok("mime-type-lookup", json!({"query": "qqqzz"}));
        assert_eq!(d["found"], false);
        assert!(d["mimeType"].is_null());
        assert!(d["note"].as_str().unwrap().contains("octet-stream"));
        let d = run_ok("mime-type-lookup", json!({"query": "image/x-nothing"}));
        assert_eq!(d["found"], false);
        let (code, msg) = run_err(
            "mime-type-lookup",
            json!({"query": "image/", "mode": "mime"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("type/subtype"), "{msg}");
        let (_, msg) = run_err("mime-type-lookup", json!({"query": "archive."}));
        assert!(msg.contains("no extension"), "{msg}");
    }
}
