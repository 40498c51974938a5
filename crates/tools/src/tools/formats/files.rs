//! Binary file tools: Base64 / data URI encoding of files (RFC 2397) and magic-number file type
//! detection, both sniffing content with the `infer` crate.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use infer::MatcherType;
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("base64-file-encoder", base64_file_encoder),
    Tool::new("file-type-detector", file_type_detector),
];

/// What the bytes of a file say about its type.
struct Sniffed {
    mime: &'static str,
    extension: &'static str,
    category: &'static str,
    /// How the type was recognised: "magic" (signature), "bom", "utf-8", or "none".
    method: &'static str,
    /// Text encoding, for text recognised by its byte-order mark or as valid UTF-8.
    encoding: Option<&'static str>,
}

const UNKNOWN: Sniffed = Sniffed {
    mime: "application/octet-stream",
    extension: "bin",
    category: "unknown",
    method: "none",
    encoding: None,
};

/// Signature sniffing first; byte-order marks and UTF-8 validity only when `infer` knows nothing,
/// because plain text has no magic number.
fn sniff(bytes: &[u8]) -> Sniffed {
    if bytes.is_empty() {
        return Sniffed {
            category: "empty",
            ..UNKNOWN
        };
    }
    if let Some(kind) = infer::get(bytes) {
        return Sniffed {
            mime: kind.mime_type(),
            extension: kind.extension(),
            category: category(kind.matcher_type(), kind.mime_type()),
            method: "magic",
            encoding: None,
        };
    }
    // UTF-32 LE starts with the UTF-16 LE mark, so the longer marks are tried first.
    const BOMS: &[(&[u8], &str)] = &[
        (&[0x00, 0x00, 0xFE, 0xFF], "utf-32be"),
        (&[0xFF, 0xFE, 0x00, 0x00], "utf-32le"),
        (&[0xEF, 0xBB, 0xBF], "utf-8"),
        (&[0xFE, 0xFF], "utf-16be"),
        (&[0xFF, 0xFE], "utf-16le"),
    ];
    let text = |method, encoding| Sniffed {
        mime: "text/plain",
        extension: "txt",
        category: "text",
        method,
        encoding: Some(encoding),
    };
    if let Some((_, encoding)) = BOMS.iter().find(|(bom, _)| bytes.starts_with(bom)) {
        return text("bom", encoding);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(is_binary_control) => {
            text("utf-8", if s.is_ascii() { "ascii" } else { "utf-8" })
        }
        _ => UNKNOWN,
    }
}

/// NUL and the C0 controls that do not occur in text files (tab, newlines, form feed and
/// escape do).
fn is_binary_control(c: char) -> bool {
    c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0C' | '\x1B')
}

fn category(kind: MatcherType, mime: &str) -> &'static str {
    // infer files PDF and RTF among its archives; to a person they are documents.
    if matches!(mime, "application/pdf" | "application/rtf") {
        return "document";
    }
    match kind {
        MatcherType::App => "application",
        MatcherType::Archive => "archive",
        MatcherType::Audio => "audio",
        MatcherType::Book => "book",
        MatcherType::Doc => "document",
        MatcherType::Font => "font",
        MatcherType::Image => "image",
        MatcherType::Text => "text",
        MatcherType::Video => "video",
        MatcherType::Custom => "custom",
    }
}

/// The MIME type a file name's extension suggests, if it has a known one.
fn mime_from_name(name: Option<&str>) -> Option<String> {
    let name = name?.trim();
    mime_guess::from_path(name)
        .first()
        .map(|m| m.essence_str().to_string())
}

fn base64_file_encoder(args: &Args) -> ToolOutcome {
    let mode = args.str("mode")?;
    if mode == "decode" {
        return decode_file(args);
    }
    if !args.has("file") {
        return Err(ToolError::invalid(
            "encode mode needs 'file': the file's bytes (on the command line --file @path; in JSON as Base64)",
        ));
    }
    let bytes = args.bytes("file")?;
    let sniffed = sniff(&bytes);
    let (mime, source) = match args.opt_str("mimeType").map(str::trim) {
        Some(given) => (checked_mime(given)?, "given"),
        None => match mime_from_name(args.opt_str("fileName")) {
            // A generic sniff result (text, unknown) loses to the name's extension: CSS, SVG or
            // JavaScript have no magic number.
            Some(by_name) if sniffed.method != "magic" => (by_name, "fileName"),
            _ => (sniffed.mime.to_string(), "detected"),
        },
    };
    let extension = extension_for(&mime, args.opt_str("fileName"), &sniffed);
    let encoded = STANDARD.encode(&bytes);
    let width = args.usize("lineLength")?;
    let output = if width == 0 {
        encoded.clone()
    } else {
        wrap(&encoded, width)
    };
    Ok(json!({
        "output": output,
        "dataUri": format!("data:{mime};base64,{encoded}"),
        "mimeType": mime,
        "mimeSource": source,
        "extension": extension,
        "size": bytes.len(),
        "mode": mode,
    }))
}

/// The file extension for the MIME type the result reports, so the two always agree: the
/// sniffed one when the types match, the file name's when it maps to that type, else the
/// type's usual extension ("bin" when it has none).
fn extension_for(mime: &str, file_name: Option<&str>, sniffed: &Sniffed) -> String {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence == sniffed.mime {
        return sniffed.extension.to_string();
    }
    if let Some(ext) = file_name
        .and_then(|n| std::path::Path::new(n.trim()).extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        && mime_guess::from_ext(&ext)
            .iter()
            .any(|m| m.essence_str() == essence)
    {
        return ext;
    }
    // mime_guess lists a type's extensions alphabetically (image/jpeg: jfif first), so the
    // common choice for the ambiguous ones is named here.
    const USUAL: &[(&str, &str)] = &[
        ("text/plain", "txt"),
        ("image/jpeg", "jpg"),
        ("text/javascript", "js"),
        ("application/javascript", "js"),
        ("audio/mpeg", "mp3"),
        ("image/svg+xml", "svg"),
        ("application/octet-stream", "bin"),
        ("image/x-icon", "ico"),
        ("text/markdown", "md"),
        ("application/xml", "xml"),
        ("text/xml", "xml"),
        ("video/mp4", "mp4"),
        ("image/tiff", "tif"),
    ];
    if let Some((_, ext)) = USUAL.iter().find(|(m, _)| *m == essence) {
        return ext.to_string();
    }
    let known = mime_guess::get_mime_extensions_str(&essence).unwrap_or_default();
    let subtype = essence.split('/').nth(1).unwrap_or("");
    known
        .iter()
        .find(|e| **e == subtype)
        .or_else(|| known.first())
        .map_or_else(|| "bin".to_string(), |e| e.to_string())
}

/// A MIME type as RFC 2045 writes it: type "/" subtype, optionally followed by parameters.
fn checked_mime(given: &str) -> Result<String, ToolError> {
    let essence = given.split(';').next().unwrap_or("").trim();
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    match essence.split_once('/') {
        Some((t, s)) if token(t) && token(s) && !given.contains(',') => Ok(given.to_string()),
        _ => Err(ToolError::invalid(format!(
            "mimeType '{}' is not a MIME type such as image/png or text/plain;charset=utf-8",
            crate::text::preview(given, 60)
        ))),
    }
}

fn wrap(ascii: &str, width: usize) -> String {
    ascii
        .as_bytes()
        .chunks(width)
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A parsed RFC 2397 `data:` URI.
struct DataUri {
    media_type: Option<String>,
    bytes: Vec<u8>,
}

fn parse_data_uri(uri: &str) -> Result<DataUri, ToolError> {
    let rest = &uri[5..];
    let Some((header, data)) = rest.split_once(',') else {
        return Err(ToolError::invalid(
            "the data URI has no ',' separating its media type from its data (RFC 2397: data:[<mediatype>][;base64],<data>)",
        ));
    };
    let (media, is_base64) = match header.strip_suffix(";base64") {
        Some(m) => (m, true),
        None => match header.len().checked_sub(7) {
            Some(i)
                if header
                    .get(i..)
                    .is_some_and(|t| t.eq_ignore_ascii_case(";base64")) =>
            {
                (&header[..i], true)
            }
            _ => (header, false),
        },
    };
    let media = media.trim();
    // RFC 2397 §2: an omitted media type means text/plain;charset=US-ASCII, and ";charset=…"
    // alone keeps text/plain.
    let media_type = if media.is_empty() {
        None
    } else if media.starts_with(';') {
        Some(format!("text/plain{media}"))
    } else {
        Some(checked_mime(media)?)
    };
    let bytes = if is_base64 {
        let unescaped: Vec<u8> = percent_encoding::percent_decode_str(data).collect();
        let text = String::from_utf8(unescaped)
            .map_err(|_| ToolError::invalid("the data URI's Base64 data is not ASCII"))?;
        decode_base64_param("input", &text)?
    } else {
        percent_encoding::percent_decode_str(data).collect()
    };
    Ok(DataUri { media_type, bytes })
}

fn decode_file(args: &Args) -> ToolOutcome {
    let Some(input) = args.opt_str("input").map(str::trim) else {
        return Err(ToolError::invalid(
            "decode mode needs 'input': Base64 text or a data URI such as data:image/png;base64,iVBOR…",
        ));
    };
    let is_uri = input
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("data:"));
    let (declared, bytes) = if is_uri {
        let uri = parse_data_uri(input)?;
        (uri.media_type, uri.bytes)
    } else {
        (None, decode_base64_param("input", input)?)
    };
    let sniffed = sniff(&bytes);
    let detected = (sniffed.method != "none").then_some(sniffed.mime);
    let mime = match &declared {
        Some(m) => m.clone(),
        None if is_uri => "text/plain;charset=US-ASCII".to_string(),
        None => sniffed.mime.to_string(),
    };
    let text = std::str::from_utf8(&bytes).ok().map(str::to_string);
    let extension = extension_for(&mime, None, &sniffed);
    Ok(json!({
        "output": STANDARD.encode(&bytes),
        "mimeType": mime,
        "detectedMimeType": detected,
        "extension": extension,
        "size": bytes.len(),
        "text": text,
        "mode": "decode",
    }))
}

fn file_type_detector(args: &Args) -> ToolOutcome {
    let bytes = args.bytes("file")?;
    let shown = args.usize("headerBytes")?;
    let sniffed = sniff(&bytes);
    let head = &bytes[..bytes.len().min(shown)];
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let ascii: String = head
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    let by_name = mime_from_name(args.opt_str("fileName"));
    let mut data = json!({
        "mimeType": sniffed.mime,
        "extension": sniffed.extension,
        "category": sniffed.category,
        "detected": sniffed.method != "none",
        "method": sniffed.method,
        "encoding": sniffed.encoding,
        "size": bytes.len(),
        "hex": hex.join(" "),
        "ascii": ascii,
    });
    if let Some(name_mime) = by_name {
        // A name whose extension contradicts a magic number is worth flagging (renamed or
        // disguised files); text and unknown content cannot contradict anything.
        let matches = sniffed.method != "magic" || name_mime == sniffed.mime;
        data["mimeTypeFromName"] = Value::String(name_mime);
        data["nameMatchesContent"] = Value::Bool(matches);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::json;

    /// A 1×1 RGBA PNG (70 bytes: signature, IHDR, IDAT, IEND, every CRC valid).
    const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    fn b64(bytes: &[u8]) -> String {
        STANDARD.encode(bytes)
    }

    #[test]
    fn encodes_png_as_base64_and_data_uri() {
        let data = run_ok("base64-file-encoder", json!({"file": PNG_1X1}));
        assert_eq!(data["output"], PNG_1X1);
        assert_eq!(data["dataUri"], format!("data:image/png;base64,{PNG_1X1}"));
        assert_eq!(data["mimeType"], "image/png");
        assert_eq!(data["mimeSource"], "detected");
        assert_eq!(data["extension"], "png");
        assert_eq!(data["size"], 70);
    }

    #[test]
    fn encode_options_mime_name_and_wrapping() {
        let svg = b64(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        let named = run_ok(
            "base64-file-encoder",
            json!({"file": svg, "fileName": "logo.svg"}),
        );
        assert_eq!(named["mimeType"], "image/svg+xml");
        assert_eq!(named["mimeSource"], "fileName");
        let given = run_ok(
            "base64-file-encoder",
            json!({"file": b64(b"hi"), "mimeType": "text/plain;charset=utf-8"}),
        );
        assert_eq!(
            given["dataUri"],
            "data:text/plain;charset=utf-8;base64,aGk="
        );
        let wrapped = run_ok(
            "base64-file-encoder",
            json!({"file": b64(b"foobarfoobar"), "lineLength": 8}),
        );
        assert_eq!(wrapped["output"], "Zm9vYmFy\nZm9vYmFy");
        assert_eq!(
            wrapped["dataUri"],
            "data:text/plain;base64,Zm9vYmFyZm9vYmFy"
        );
    }

    // Python's mimetypes.guess_type agrees on each pair (logo.svg: image/svg+xml, etc.).
    #[test]
    fn extension_always_matches_the_mime_type() {
        let svg = b64(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        let named = run_ok(
            "base64-file-encoder",
            json!({"file": svg, "fileName": "logo.svg"}),
        );
        assert_eq!(named["mimeType"], "image/svg+xml");
        assert_eq!(named["extension"], "svg");
        let css = run_ok(
            "base64-file-encoder",
            json!({"file": b64(b"a{}"), "fileName": "Site.CSS"}),
        );
        assert_eq!(
            (css["mimeType"].as_str(), css["extension"].as_str()),
            (Some("text/css"), Some("css"))
        );
        let given = run_ok(
            "base64-file-encoder",
            json!({"file": b64(b"hi"), "mimeType": "application/json"}),
        );
        assert_eq!(given["extension"], "json");
        let jpeg = run_ok(
            "base64-file-encoder",
            json!({"file": PNG_1X1, "mimeType": "image/jpeg"}),
        );
        assert_eq!(jpeg["extension"], "jpg");
        let odd = run_ok(
            "base64-file-encoder",
            json!({"file": b64(b"hi"), "mimeType": "application/x-made-up"}),
        );
        assert_eq!(odd["extension"], "bin");
        let declared = run_ok(
            "base64-file-encoder",
            json!({"mode": "decode", "input": "data:text/csv;base64,YSxiCjEsMgo="}),
        );
        assert_eq!(declared["mimeType"], "text/csv");
        assert_eq!(declared["extension"], "csv");
    }

    // RFC 2397 §4 examples.
    #[test]
    fn decodes_rfc2397_examples() {
        let note = run_ok(
            "base64-file-encoder",
            json!({"mode": "decode", "input": "data:,A%20brief%20note"}),
        );
        assert_eq!(note["text"], "A brief note");
        assert_eq!(note["mimeType"], "text/plain;charset=US-ASCII");
        assert_eq!(note["size"], 12);
        let greek = run_ok(
            "base64-file-encoder",
            json!({"mode": "decode", "input": "data:text/plain;charset=iso-8859-7,%be%fg%be"}),
        );
        assert_eq!(greek["mimeType"], "text/plain;charset=iso-8859-7");
        assert_eq!(greek["output"], b64(b"\xbe%fg\xbe"));
        assert_eq!(greek["text"], serde_json::Value::Null);
        let gif = "R0lGODdhMAAwAPAAAAAAAP///ywAAAAAMAAwAAAC8IyPqcvt3wCcDkiLc7C0qwyGHhSWpjQu5yqmCYsapyuvUUlvONmOZtfzgFzByTB10QgxOR0TqBQejhRNzOfkVJ+5YiUqrXF5Y5lKh/DeuNcP5yLWGsEbtLiOSpa/TPg7JpJHxyendzWTBfX0cxOnKPjgBzi4diinWGdkF8kjdfnycQZXZeYGejmJlZeGl9i2icVqaNVailT6F5iJ90m6mvuTS4OK05M0vDk0Q4XUtwvKOzrcd3iq9uisF81M1OIcR7lEewwcLp7tuNNkM3uNna3F2JQFo97Vriy/Xl4/f1cf5VWzXyym7PHhhx4dbgYKAAA7";
        let image = run_ok(
            "base64-file-encoder",
            json!({"mode": "decode", "input": format!("data:image/gif;base64,{gif}")}),
        );
        assert_eq!(image["mimeType"], "image/gif");
        assert_eq!(image["detectedMimeType"], "image/gif");
        assert_eq!(image["output"], gif);
        assert_eq!(image["size"], STANDARD.decode(gif).unwrap().len());
    }

    #[test]
    fn decodes_plain_base64_and_detects_type() {
        let data = run_ok(
            "base64-file-encoder",
            json!({"mode": "decode", "input": PNG_1X1}),
        );
        assert_eq!(data["mimeType"], "image/png");
        assert_eq!(data["text"], serde_json::Value::Null);
        let text = run_ok(
            "base64-file-encoder",
            json!({"mode": "decode", "input": "SGVsbG8sIFdvcmxkIQ=="}),
        );
        assert_eq!(text["text"], "Hello, World!");
        assert_eq!(text["mimeType"], "text/plain");
    }

    #[test]
    fn base64_file_errors() {
        let (code, msg) = run_err(
            "base64-file-encoder",
            json!({"mode": "decode", "input": "data:image/png;base64"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("','"), "{msg}");
        let (code, msg) = run_err(
            "base64-file-encoder",
            json!({"mode": "decode", "input": "not base64!"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid Base64"), "{msg}");
        let (code, msg) = run_err("base64-file-encoder", json!({}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'file'"), "{msg}");
        let (code, _) = run_err(
            "base64-file-encoder",
            json!({"file": "aGk=", "mimeType": "png"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    fn detect(bytes: &[u8]) -> serde_json::Value {
        run_ok("file-type-detector", json!({"file": b64(bytes)}))
    }

    // Signatures from the formats' specifications (PNG §5.2, JFIF, GIF89a, PDF 1.7 §7.5.2,
    // APPNOTE.TXT §4.3.7, RFC 1952 §2.3.1).
    #[test]
    fn detects_magic_numbers() {
        let cases: &[(&[u8], &str, &str, &str)] = &[
            (
                b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
                "image/png",
                "png",
                "image",
            ),
            (
                b"\xFF\xD8\xFF\xE0\0\x10JFIF\0",
                "image/jpeg",
                "jpg",
                "image",
            ),
            (b"GIF89a\x01\0\x01\0", "image/gif", "gif", "image"),
            (
                b"%PDF-1.7\n%\xE2\xE3\xCF\xD3",
                "application/pdf",
                "pdf",
                "document",
            ),
            (
                b"PK\x03\x04\x14\0\0\0\x08\0",
                "application/zip",
                "zip",
                "archive",
            ),
            (
                b"\x1F\x8B\x08\0\0\0\0\0\0\x03",
                "application/gzip",
                "gz",
                "archive",
            ),
        ];
        for (bytes, mime, ext, category) in cases {
            let data = detect(bytes);
            assert_eq!(data["mimeType"], *mime, "{mime}");
            assert_eq!(data["extension"], *ext, "{mime}");
            assert_eq!(data["category"], *category, "{mime}");
            assert_eq!(data["method"], "magic");
        }
        assert_eq!(
            detect(b"\x89PNG\r\n\x1a\n")["hex"],
            "89 50 4e 47 0d 0a 1a 0a"
        );
        assert_eq!(detect(b"\x89PNG\r\n\x1a\n")["ascii"], ".PNG....");
    }

    #[test]
    fn detects_text_by_bom_and_utf8() {
        let utf16 = detect(b"\xFF\xFEh\0i\0");
        assert_eq!(utf16["category"], "text");
        assert_eq!(utf16["encoding"], "utf-16le");
        assert_eq!(utf16["method"], "bom");
        let bom8 = detect(b"\xEF\xBB\xBFhello");
        assert_eq!(bom8["encoding"], "utf-8");
        let plain = detect("caf\u{e9}\n".as_bytes());
        assert_eq!(plain["mimeType"], "text/plain");
        assert_eq!(plain["encoding"], "utf-8");
        assert_eq!(detect(b"plain ascii")["encoding"], "ascii");
    }

    #[test]
    fn unknown_bytes_are_a_result_not_an_error() {
        let data = detect(b"\x00\x01\x02\x03\xFE");
        assert_eq!(data["detected"], false);
        assert_eq!(data["category"], "unknown");
        assert_eq!(data["mimeType"], "application/octet-stream");
        let empty = run_ok("file-type-detector", json!({"file": ""}));
        assert_eq!(empty["category"], "empty");
        assert_eq!(empty["size"], 0);
    }

    #[test]
    fn flags_a_name_that_contradicts_the_content() {
        let data = run_ok(
            "file-type-detector",
            json!({"file": b64(b"GIF89a\x01\0\x01\0"), "fileName": "photo.jpg"}),
        );
        assert_eq!(data["mimeTypeFromName"], "image/jpeg");
        assert_eq!(data["nameMatchesContent"], false);
        let (code, msg) = run_err("file-type-detector", json!({"file": "@@@"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid Base64"), "{msg}");
    }
}
