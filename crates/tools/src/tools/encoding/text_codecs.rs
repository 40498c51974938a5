//! Text-level codecs: quoted-printable (RFC 2045), Unicode escape sequences, Punycode/IDNA
//! (RFC 3492, UTS #46) and legacy charsets (WHATWG Encoding Standard via encoding_rs).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::encoding::encoders::{bytes_output, input_bytes, parse_hex};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use encoding_rs::{DecoderResult, EncoderResult, Encoding};
use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use regex::Regex;
use serde_json::json;
use std::fmt::Write as _;
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("quoted-printable-encoder", quoted_printable_encoder),
    Tool::new("unicode-escape", unicode_escape),
    Tool::new("punycode-converter", punycode_converter),
    Tool::new("charset-converter", charset_converter),
];

/// 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

// ---------------------------------------------------------------- quoted-printable

fn quoted_printable_encoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let crlf = args.str("lineEnding")? == "crlf";
    if args.str("mode")? == "decode" {
        let strict = args.flag("strict");
        let parse_mode = if strict {
            quoted_printable::ParseMode::Strict
        } else {
            quoted_printable::ParseMode::Robust
        };
        let options = quoted_printable::Options::default().parse_mode(parse_mode);
        // Pasted text usually has LF line breaks; they stand for the CRLFs of the encoded form.
        let canonical = lf_to_crlf(input.as_bytes());
        let mut bytes = quoted_printable::decode_with_options(&canonical, options)
            .map_err(|e| qp_error(input, e))?;
        if !crlf {
            bytes = crlf_to_lf(&bytes);
        }
        let count = bytes.len();
        let (output, encoding) = bytes_output(bytes, args.str("outputFormat")?);
        return Ok(
            json!({ "output": output, "mode": "decode", "outputEncoding": encoding, "byteCount": count }),
        );
    }
    let binary = args.str("inputMode")? == "binary";
    let mut bytes = input_bytes("input", input, args.str("inputFormat")?)?;
    if !binary {
        // Text's line breaks are hard line breaks, which RFC 2045 writes as CRLF.
        bytes = lf_to_crlf(&bytes);
    }
    let mode = if binary {
        quoted_printable::InputMode::Binary
    } else {
        quoted_printable::InputMode::Text
    };
    let options = quoted_printable::Options::default()
        .input_mode(mode)
        .line_length_limit(args.usize("lineLength")?);
    let mut output = quoted_printable::encode_with_options(&bytes, options);
    if !crlf {
        // Literal CR and LF are always escaped, so every CRLF left is a line break.
        output = output.replace("\r\n", "\n");
    }
    Ok(json!({ "output": output, "mode": "encode" }))
}

fn lf_to_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    let mut previous = 0u8;
    for &b in bytes {
        if b == b'\n' && previous != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        previous = b;
    }
    out
}

fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if !(b == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            out.push(b);
        }
    }
    out
}

/// A strict-mode decoding error, with the line and column of the first offending '=' when the
/// problem is an escape.
fn qp_error(input: &str, e: quoted_printable::QuotedPrintableError) -> ToolError {
    use quoted_printable::QuotedPrintableError as E;
    let bad_escape = |i: usize| {
        let rest = &input.as_bytes()[i + 1..];
        let soft_break = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
            .is_none_or(|p| matches!(rest[p], b'\r' | b'\n'));
        let upper_hex =
            |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b));
        !(soft_break || upper_hex(rest.first()) && upper_hex(rest.get(1)))
    };
    let located = input
        .match_indices('=')
        .map(|(i, _)| i)
        .find(|&i| bad_escape(i))
        .map(|i| {
            let (line, column) = line_col(input, i);
            let shown: String = input[i..].chars().take(3).collect();
            format!(" ('{}' at line {line}, column {column})", shown.trim_end())
        })
        .unwrap_or_default();
    ToolError::invalid(match e {
        E::InvalidByte => "strict quoted-printable allows only printable ASCII, tab and CRLF line breaks; the input has other bytes or bare CR/LF (turn strict off to accept it)".to_string(),
        E::LineTooLong => "a line is longer than the 76 characters RFC 2045 allows (turn strict off to accept it)".to_string(),
        E::IncompleteHexOctet => format!("an '=' is not followed by two hex digits{located}"),
        E::InvalidHexOctet => format!("an '=' is followed by characters that are not hex digits{located}; write a literal '=' as =3D"),
        E::LowercaseHexOctet => format!("RFC 2045 requires uppercase hex digits after '='{located}"),
    })
}

// ---------------------------------------------------------------- unicode-escape

fn unicode_escape(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "unescape" {
        let (output, count) = unescape_unicode(input)?;
        return Ok(json!({ "output": output, "mode": "unescape", "unescaped": count }));
    }
    let format = args.str("format")?;
    let all = args.str("scope")? == "all";
    let upper = args.str("case")? == "upper";
    let mut out = String::with_capacity(input.len() * 2);
    let mut count = 0;
    for c in input.chars() {
        if !all && c.is_ascii() {
            out.push(c);
            continue;
        }
        count += 1;
        let cp = c as u32;
        let hex = |n: u32, width: usize| {
            if upper {
                format!("{n:0width$X}")
            } else {
                format!("{n:0width$x}")
            }
        };
        match format {
            "braces" => {
                let _ = write!(out, "\\u{{{}}}", hex(cp, 1));
            }
            "python" if cp > 0xFFFF => {
                let _ = write!(out, "\\U{}", hex(cp, 8));
            }
            "u-plus" => {
                let _ = write!(out, "U+{}", hex(cp, 4));
            }
            "html" => {
                let _ = write!(out, "&#x{};", hex(cp, 1));
            }
            _ => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{}", hex(u32::from(*unit), 4));
                }
            }
        }
    }
    Ok(json!({ "output": out, "mode": "escape", "format": format, "escaped": count }))
}

fn escape_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"\\u\{([0-9A-Fa-f]{1,6})\}|\\U([0-9A-Fa-f]{8})|\\u([0-9A-Fa-f]{4})|U\+([0-9A-Fa-f]{4,6})|&#[xX]([0-9A-Fa-f]{1,6});|&#([0-9]{1,7});",
        )
        .expect("static pattern compiles")
    })
}

/// Replaces every recognised escape with its character; `\uXXXX` pairs are UTF-16 surrogates.
fn unescape_unicode(input: &str) -> Result<(String, usize), ToolError> {
    let mut out = String::with_capacity(input.len());
    let mut last = 0;
    let mut count = 0;
    let mut pending_high: Option<(u32, usize)> = None;
    let position = |at: usize| {
        let (line, column) = line_col(input, at);
        format!("line {line}, column {column}")
    };
    let lone_high = |at: usize| {
        ToolError::invalid(format!(
            "lone high surrogate at {}: a \\uD800-\\uDBFF escape must be followed directly by a low surrogate \\uDC00-\\uDFFF",
            position(at)
        ))
    };
    for caps in escape_pattern().captures_iter(input) {
        let Some(whole) = caps.get(0) else { continue };
        if let Some((_, at)) = pending_high
            && whole.start() != last
        {
            return Err(lone_high(at));
        }
        out.push_str(&input[last..whole.start()]);
        last = whole.end();
        let (digits, radix, utf16) = if let Some(m) = caps.get(3) {
            (m.as_str(), 16, true)
        } else if let Some(m) = caps.get(6) {
            (m.as_str(), 10, false)
        } else {
            let m = [1, 2, 4, 5].iter().find_map(|&g| caps.get(g));
            (m.map_or("", |m| m.as_str()), 16, false)
        };
        let value = u32::from_str_radix(digits, radix).unwrap_or(u32::MAX);
        if utf16 && (0xD800..0xDC00).contains(&value) {
            if let Some((_, at)) = pending_high {
                return Err(lone_high(at));
            }
            pending_high = Some((value, whole.start()));
            continue;
        }
        let cp = match pending_high.take() {
            Some((high, _)) if utf16 && (0xDC00..0xE000).contains(&value) => {
                0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)
            }
            Some((_, at)) => return Err(lone_high(at)),
            None if utf16 && (0xDC00..0xE000).contains(&value) => {
                return Err(ToolError::invalid(format!(
                    "lone low surrogate '{}' at {}: it must follow a high surrogate \\uD800-\\uDBFF",
                    whole.as_str(),
                    position(whole.start())
                )));
            }
            None => value,
        };
        let c = char::from_u32(cp).ok_or_else(|| {
            ToolError::invalid(format!(
                "'{}' at {} is not a Unicode scalar value (code points stop at U+10FFFF and exclude surrogates U+D800-U+DFFF)",
                whole.as_str(),
                position(whole.start())
            ))
        })?;
        out.push(c);
        count += 1;
    }
    if let Some((_, at)) = pending_high {
        return Err(lone_high(at));
    }
    out.push_str(&input[last..]);
    Ok((out, count))
}

// ---------------------------------------------------------------- punycode

fn punycode_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let to_ascii = args.str("mode")? == "encode";
    let label_mode = args.str("scope")? == "label";
    let strict = args.flag("strict");
    let mut lines = Vec::new();
    for (n, line) in line_breaks::lines(input).enumerate() {
        let item = line.trim();
        if item.is_empty() {
            lines.push(String::new());
            continue;
        }
        let converted = match (label_mode, to_ascii) {
            (true, true) => idna::punycode::encode_str(item).ok_or_else(|| {
                ToolError::invalid(format!(
                    "line {}: '{item}' is too long to encode as Punycode",
                    n + 1
                ))
            })?,
            (true, false) => {
                let body = item
                    .strip_prefix("xn--")
                    .or_else(|| item.strip_prefix("XN--"))
                    .unwrap_or(item);
                idna::punycode::decode_to_string(body).ok_or_else(|| {
                    ToolError::invalid(format!(
                        "line {}: '{item}' is not valid Punycode (RFC 3492): only ASCII letters, digits and '-' may appear, and the digits after the last '-' must decode to code points",
                        n + 1
                    ))
                })?
            }
            (false, true) => domain_to_ascii(item, strict).map_err(|e| line_error(n, e))?,
            (false, false) => domain_to_unicode(item, strict).map_err(|e| line_error(n, e))?,
        };
        lines.push(converted);
    }
    let output = lines.join("\n");
    Ok(json!({
        "output": output,
        "mode": if to_ascii { "encode" } else { "decode" },
        "scope": if label_mode { "label" } else { "domain" },
    }))
}

fn line_error(n: usize, e: ToolError) -> ToolError {
    ToolError::invalid(format!("line {}: {}", n + 1, e.message))
}

fn idna_options(strict: bool) -> (AsciiDenyList, Hyphens, DnsLength) {
    if strict {
        (AsciiDenyList::STD3, Hyphens::Check, DnsLength::Verify)
    } else {
        (AsciiDenyList::URL, Hyphens::Allow, DnsLength::Ignore)
    }
}

fn domain_to_ascii(domain: &str, strict: bool) -> Result<String, ToolError> {
    let (deny, hyphens, length) = idna_options(strict);
    Uts46::new()
        .to_ascii(domain.as_bytes(), deny, hyphens, length)
        .map(|cow| cow.into_owned())
        .map_err(|_| idna_error(domain, strict))
}

fn domain_to_unicode(domain: &str, strict: bool) -> Result<String, ToolError> {
    let (deny, hyphens, _) = idna_options(strict);
    let (unicode, result) = Uts46::new().to_unicode(domain.as_bytes(), deny, hyphens);
    if result.is_err() {
        return Err(idna_error(domain, strict));
    }
    if strict {
        // ToUnicode has no length check; the strict ToASCII form must fit DNS limits too.
        domain_to_ascii(domain, strict)?;
    }
    Ok(unicode.into_owned())
}

/// The idna crate reports only that a domain failed; UTS #46 ToUnicode marks the failing labels
/// with U+FFFD, which tells the user where to look.
fn idna_error(domain: &str, strict: bool) -> ToolError {
    let (deny, hyphens, _) = idna_options(strict);
    let (marked, _) = Uts46::new().to_unicode(domain.as_bytes(), deny, hyphens);
    let bad: Vec<&str> = domain
        .split('.')
        .zip(marked.split('.'))
        .filter(|(_, m)| m.contains('\u{FFFD}'))
        .map(|(label, _)| label)
        .collect();
    let rules = if strict {
        "UTS #46 with STD3 rules, hyphen checks and DNS lengths (labels of 1-63 characters, names up to 253)"
    } else {
        "UTS #46 / IDNA 2008"
    };
    if bad.is_empty() {
        ToolError::invalid(format!(
            "'{domain}' is not a valid domain name under {rules}"
        ))
    } else {
        ToolError::invalid(format!(
            "'{domain}' is not a valid domain name under {rules}: invalid label(s) {}",
            bad.iter()
                .map(|l| format!("'{l}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

// ---------------------------------------------------------------- charset

fn charset_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let charset = Charset::from_label(args.str("charset")?)?;
    let bytes_format = args.str("bytesFormat")?;
    let on_error = args.str("onError")?;
    if args.str("mode")? == "decode" {
        let bytes = if bytes_format == "base64" {
            crate::tools::kit::args::decode_base64_param("input", input)?
        } else {
            parse_hex(input)?
        };
        let (output, replaced) = decode_charset(&bytes, charset, on_error == "error")?;
        return Ok(
            json!({ "output": output, "mode": "decode", "charset": charset.name(), "replacements": replaced }),
        );
    }
    let (bytes, replaced) = encode_charset(input, charset, on_error)?;
    let output = if bytes_format == "base64" {
        STANDARD.encode(&bytes)
    } else {
        bytes
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    Ok(
        json!({ "output": output, "mode": "encode", "charset": charset.name(), "byteCount": bytes.len(), "replacements": replaced }),
    )
}

/// A charset the converter handles. True ISO-8859-1 and the UTF-16s are its own: WHATWG maps
/// the label iso-8859-1 to windows-1252, and encoding_rs's UTF-16 encoders write UTF-8.
#[derive(Clone, Copy)]
enum Charset {
    Latin1,
    Utf16(bool),
    Whatwg(&'static Encoding),
}

/// Labels people use that the WHATWG list lacks, with the label they mean.
const EXTRA_LABELS: &[(&str, &str)] = &[
    ("macroman", "macintosh"),
    ("mac-roman", "macintosh"),
    ("mac", "macintosh"),
    ("cp932", "shift_jis"),
    ("cp936", "gbk"),
    ("cp949", "euc-kr"),
    ("cp950", "big5"),
    ("utf-16-le", "utf-16le"),
    ("utf-16-be", "utf-16be"),
];

/// The labels of true ISO-8859-1 (IANA's aliases for it).
const LATIN1_LABELS: &[&str] = &[
    "iso-8859-1",
    "iso8859-1",
    "iso_8859-1",
    "iso_8859-1:1987",
    "iso88591",
    "latin1",
    "latin-1",
    "l1",
    "cp819",
    "ibm819",
    "iso-ir-100",
    "csisolatin1",
];

impl Charset {
    /// Any name or alias, in any case: IANA's ISO-8859-1 aliases, the WHATWG Encoding
    /// Standard's labels (cp1252, sjis, utf8, latin2, …) and a few common others.
    fn from_label(label: &str) -> Result<Charset, ToolError> {
        let key = label.trim().to_ascii_lowercase();
        if LATIN1_LABELS.contains(&key.as_str()) {
            return Ok(Charset::Latin1);
        }
        let key = EXTRA_LABELS
            .iter()
            .find(|(alias, _)| *alias == key)
            .map_or(key.as_str(), |(_, to)| to);
        match Encoding::for_label(key.as_bytes()) {
            Some(e) if e == encoding_rs::UTF_16LE => Ok(Charset::Utf16(false)),
            Some(e) if e == encoding_rs::UTF_16BE => Ok(Charset::Utf16(true)),
            Some(e) if e != encoding_rs::REPLACEMENT && e != encoding_rs::X_USER_DEFINED => {
                Ok(Charset::Whatwg(e))
            }
            _ => Err(ToolError::invalid(format!(
                "unknown charset '{}': give a name or alias such as utf-8, windows-1252 (cp1252), iso-8859-1 (latin1), iso-8859-2 (latin2), shift_jis (sjis), euc-jp, gbk, gb18030, big5, euc-kr, koi8-r, utf-16le",
                crate::text::preview(label, 40)
            ))),
        }
    }

    /// The canonical name: the WHATWG Encoding Standard's (as HTTP and HTML write it), and
    /// ISO-8859-1 for true Latin-1.
    fn name(self) -> &'static str {
        match self {
            Charset::Latin1 => "ISO-8859-1",
            Charset::Utf16(false) => "UTF-16LE",
            Charset::Utf16(true) => "UTF-16BE",
            Charset::Whatwg(e) => e.name(),
        }
    }
}

fn encode_charset(
    text: &str,
    charset: Charset,
    on_error: &str,
) -> Result<(Vec<u8>, usize), ToolError> {
    let encoding = match charset {
        Charset::Utf16(big_endian) => {
            let units = text.encode_utf16();
            let bytes = if big_endian {
                units.flat_map(u16::to_be_bytes).collect()
            } else {
                units.flat_map(u16::to_le_bytes).collect()
            };
            return Ok((bytes, 0));
        }
        Charset::Latin1 => None,
        Charset::Whatwg(e) => Some(e),
    };
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut replaced = 0;
    let mut unmappable = |c: char, at: usize, out: &mut Vec<u8>| -> Result<(), ToolError> {
        replaced += 1;
        match on_error {
            "replace" => out.push(b'?'),
            "html" => out.extend_from_slice(format!("&#{};", c as u32).as_bytes()),
            _ => {
                let (line, column) = line_col(text, at);
                return Err(ToolError::invalid(format!(
                    "{c:?} (U+{:04X}) at line {line}, column {column} cannot be represented in {}; choose another charset or set onError to replace or html",
                    c as u32,
                    charset.name()
                )));
            }
        }
        Ok(())
    };
    let Some(encoding) = encoding else {
        for (at, c) in text.char_indices() {
            match u8::try_from(u32::from(c)) {
                Ok(b) => out.push(b),
                Err(_) => unmappable(c, at, &mut out)?,
            }
        }
        return Ok((out, replaced));
    };
    let mut encoder = encoding.new_encoder();
    let mut consumed = 0;
    loop {
        let room = encoder
            .max_buffer_length_from_utf8_without_replacement(text.len() - consumed)
            .unwrap_or(1 << 20);
        out.reserve(room);
        let (result, read) =
            encoder.encode_from_utf8_to_vec_without_replacement(&text[consumed..], &mut out, true);
        consumed += read;
        match result {
            EncoderResult::InputEmpty => break,
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(c) => unmappable(c, consumed - c.len_utf8(), &mut out)?,
        }
    }
    Ok((out, replaced))
}

fn decode_charset(
    bytes: &[u8],
    charset: Charset,
    fail: bool,
) -> Result<(String, usize), ToolError> {
    let encoding = match charset {
        // Every byte is a character: U+0000-U+00FF.
        Charset::Latin1 => return Ok((encoding_rs::mem::decode_latin1(bytes).into_owned(), 0)),
        Charset::Utf16(false) => encoding_rs::UTF_16LE,
        Charset::Utf16(true) => encoding_rs::UTF_16BE,
        Charset::Whatwg(e) => e,
    };
    let mut decoder = encoding.new_decoder_with_bom_removal();
    let mut out = String::with_capacity(bytes.len() * 2);
    let mut consumed = 0;
    let mut replaced = 0;
    loop {
        let room = decoder
            .max_utf8_buffer_length_without_replacement(bytes.len() - consumed)
            .unwrap_or(1 << 20);
        out.reserve(room);
        let (result, read) =
            decoder.decode_to_string_without_replacement(&bytes[consumed..], &mut out, true);
        consumed += read;
        match result {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(bad, extra) => {
                let end = consumed - usize::from(extra);
                let start = end.saturating_sub(usize::from(bad));
                if fail {
                    return Err(ToolError::invalid(format!(
                        "byte{} {} at offset {start} (0x{start:X}) {} not valid {}; check the charset, or set onError to replace",
                        if bad == 1 { "" } else { "s" },
                        bytes[start..end]
                            .iter()
                            .map(|b| format!("{b:02X}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                        if bad == 1 { "is" } else { "are" },
                        charset.name()
                    )));
                }
                replaced += 1;
                out.push('\u{FFFD}');
            }
        }
    }
    Ok((out, replaced))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    // --- quoted-printable-encoder ---

    // Wikipedia's "Quoted-printable" example (a quotation from Antoine de Saint-Exupéry);
    // QP_ENCODED is Python's `quopri.encodestring` output (lines of 76 including the '='),
    // QP_WIKIPEDIA the article's own line breaking, which robust decoding accepts.
    const QP_PLAIN: &str = "J'interdis aux marchands de vanter trop leurs marchandises. Car ils se font vite pédagogues et t'enseignent comme but ce qui n'est par essence qu'un moyen, et te trompant ainsi sur la route à suivre les voilà bientôt qui te dégradent, car si leur musique est vulgaire ils te fabriquent pour te la vendre une âme vulgaire.";
    const QP_ENCODED: &str = "J'interdis aux marchands de vanter trop leurs marchandises. Car ils se font=\r\n vite p=C3=A9dagogues et t'enseignent comme but ce qui n'est par essence qu=\r\n'un moyen, et te trompant ainsi sur la route =C3=A0 suivre les voil=C3=A0 b=\r\nient=C3=B4t qui te d=C3=A9gradent, car si leur musique est vulgaire ils te =\r\nfabriquent pour te la vendre une =C3=A2me vulgaire.";
    const QP_WIKIPEDIA: &str = "J'interdis aux marchands de vanter trop leurs marchandises. Car ils se font =\r\nvite p=C3=A9dagogues et t'enseignent comme but ce qui n'est par essence qu'=\r\nun moyen, et te trompant ainsi sur la route =C3=A0 suivre les voil=C3=A0 bi=\r\nent=C3=B4t qui te d=C3=A9gradent, car si leur musique est vulgaire ils te f=\r\nabriquent pour te la vendre une =C3=A2me vulgaire.";

    #[test]
    fn qp_wikipedia_example_both_ways() {
        assert_eq!(
            output_with("quoted-printable-encoder", QP_PLAIN, json!({})),
            QP_ENCODED
        );
        assert_eq!(
            output_with(
                "quoted-printable-encoder",
                QP_ENCODED,
                json!({"mode": "decode"})
            ),
            QP_PLAIN
        );
        assert_eq!(
            output_with(
                "quoted-printable-encoder",
                QP_WIKIPEDIA,
                json!({"mode": "decode"})
            ),
            QP_PLAIN
        );
        // Its first line has 77 characters, one more than RFC 2045 allows.
        let (_, msg) = run_err(
            "quoted-printable-encoder",
            json!({"input": QP_WIKIPEDIA, "mode": "decode", "strict": true}),
        );
        assert!(msg.contains("longer than the 76"), "{msg}");
    }

    #[test]
    fn qp_escapes_equals_non_ascii_and_trailing_space() {
        // RFC 2045 §6.7: '=' is =3D, 8-bit octets are =XX, and whitespace before a line break
        // is encoded.
        assert_eq!(
            output_with(
                "quoted-printable-encoder",
                "a=b é \nnext",
                json!({"lineEnding": "lf"})
            ),
            "a=3Db =C3=A9=20\nnext"
        );
    }

    #[test]
    fn qp_binary_mode_escapes_line_breaks() {
        assert_eq!(
            output_with(
                "quoted-printable-encoder",
                "line1\r\nline2",
                json!({"inputMode": "binary"})
            ),
            "line1=0D=0Aline2"
        );
        assert_eq!(
            output_with("quoted-printable-encoder", "line1\nline2", json!({})),
            "line1\r\nline2"
        );
    }

    #[test]
    fn qp_strict_decode_reports_bad_escapes() {
        let (code, msg) = run_err(
            "quoted-printable-encoder",
            json!({"input": "caf=c3=a9", "mode": "decode", "strict": true}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("uppercase") && msg.contains("column 4"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "quoted-printable-encoder",
            json!({"input": "1+1=2\nok", "mode": "decode", "strict": true}),
        );
        assert!(msg.contains("line 1, column 4"), "{msg}");
        // Robust decoding (RFC 2045 §6.7 note) accepts lowercase hex.
        assert_eq!(
            output_with(
                "quoted-printable-encoder",
                "caf=c3=a9",
                json!({"mode": "decode"})
            ),
            "café"
        );
    }

    // --- unicode-escape ---

    #[test]
    fn unicode_escape_formats() {
        let input = "é😀";
        let cases = [
            ("json", "lower", "\\u00e9\\ud83d\\ude00"),
            ("json", "upper", "\\u00E9\\uD83D\\uDE00"),
            ("braces", "upper", "\\u{E9}\\u{1F600}"),
            ("python", "upper", "\\u00E9\\U0001F600"),
            ("u-plus", "upper", "U+00E9U+1F600"),
            ("html", "upper", "&#xE9;&#x1F600;"),
        ];
        for (format, case, expected) in cases {
            assert_eq!(
                output_with(
                    "unicode-escape",
                    input,
                    json!({"format": format, "case": case})
                ),
                expected,
                "{format}"
            );
        }
    }

    #[test]
    fn unicode_escape_scope() {
        assert_eq!(output_with("unicode-escape", "Aé", json!({})), "A\\u00E9");
        assert_eq!(
            output_with("unicode-escape", "Aé", json!({"scope": "all"})),
            "\\u0041\\u00E9"
        );
    }

    #[test]
    fn unicode_unescape_accepts_every_form() {
        let data = run_ok(
            "unicode-escape",
            json!({"input": "\\ud83d\\ude00 \\u{1F600} \\U0001F600 U+1F600 &#x1F600; &#128512; caf\\u00e9 \\n", "mode": "unescape"}),
        );
        assert_eq!(data["output"], "😀 😀 😀 😀 😀 😀 café \\n");
        assert_eq!(data["unescaped"], 7);
    }

    #[test]
    fn unicode_unescape_rejects_lone_surrogates() {
        let (code, msg) = run_err(
            "unicode-escape",
            json!({"input": "x\\ud83d!", "mode": "unescape"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("lone high surrogate at line 1, column 2"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "unicode-escape",
            json!({"input": "\\ude00", "mode": "unescape"}),
        );
        assert!(msg.contains("lone low surrogate"), "{msg}");
        let (_, msg) = run_err(
            "unicode-escape",
            json!({"input": "\\u{110000}", "mode": "unescape"}),
        );
        assert!(msg.contains("not a Unicode scalar value"), "{msg}");
    }

    // --- punycode-converter ---

    #[test]
    fn punycode_domains_idna2008() {
        assert_eq!(
            output_with("punycode-converter", "münchen.de", json!({})),
            "xn--mnchen-3ya.de"
        );
        assert_eq!(
            output_with("punycode-converter", "例え.テスト", json!({})),
            "xn--r8jz45g.xn--zckzah"
        );
        assert_eq!(
            output_with(
                "punycode-converter",
                "xn--r8jz45g.xn--zckzah\nxn--mnchen-3ya.de",
                json!({"mode": "decode"})
            ),
            "例え.テスト\nmünchen.de"
        );
        // UTS #46 mapping lowercases and keeps ß (IDNA 2008, nontransitional).
        assert_eq!(
            output_with("punycode-converter", "Faß.DE", json!({})),
            "xn--fa-hia.de"
        );
    }

    #[test]
    fn punycode_rfc3492_sample_labels() {
        // RFC 3492 §7.1 (A) Arabic (Egyptian) and (L) 3<nen>B<gumi><kinpachi><sensei>.
        let arabic = "\u{0644}\u{064A}\u{0647}\u{0645}\u{0627}\u{0628}\u{062A}\u{0643}\u{0644}\u{0645}\u{0648}\u{0634}\u{0639}\u{0631}\u{0628}\u{064A}\u{061F}";
        assert_eq!(
            output_with("punycode-converter", arabic, json!({"scope": "label"})),
            "egbpdaj6bu4bxfgehfvwxn"
        );
        assert_eq!(
            output_with(
                "punycode-converter",
                "3年B組金八先生",
                json!({"scope": "label"})
            ),
            "3B-ww4c5e180e575a65lsy2b"
        );
        assert_eq!(
            output_with(
                "punycode-converter",
                "ihqwcrb4cv8a8dqg056pqjye",
                json!({"scope": "label", "mode": "decode"})
            ),
            "他们为什么不说中文"
        );
    }

    #[test]
    fn punycode_rejects_invalid_labels() {
        let (code, msg) = run_err(
            "punycode-converter",
            json!({"input": "xn--a.com", "mode": "decode"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'xn--a'"), "{msg}");
        let (_, msg) = run_err(
            "punycode-converter",
            json!({"input": "-bad-.example", "strict": true}),
        );
        assert!(msg.contains("'-bad-'"), "{msg}");
        let (_, msg) = run_err(
            "punycode-converter",
            json!({"input": "ab§", "scope": "label", "mode": "decode"}),
        );
        assert!(msg.contains("not valid Punycode"), "{msg}");
    }

    // --- charset-converter ---

    #[test]
    fn charset_encodes_windows_1252_and_shift_jis() {
        assert_eq!(
            output_with("charset-converter", "€", json!({"charset": "windows-1252"})),
            "80"
        );
        assert_eq!(
            output_with("charset-converter", "日本", json!({"charset": "shift_jis"})),
            "93 FA 96 7B"
        );
        assert_eq!(
            output_with("charset-converter", "Привет", json!({"charset": "koi8-r"})),
            "F0 D2 C9 D7 C5 D4"
        );
        assert_eq!(
            output_with("charset-converter", "é😀", json!({"charset": "utf-16be"})),
            "00 E9 D8 3D DE 00"
        );
    }

    #[test]
    fn charset_decodes_bytes() {
        assert_eq!(
            output_with(
                "charset-converter",
                "93fa967b",
                json!({"charset": "shift_jis", "mode": "decode"})
            ),
            "日本"
        );
        assert_eq!(
            output_with(
                "charset-converter",
                "C4 E3 BA C3",
                json!({"charset": "gbk", "mode": "decode"})
            ),
            "你好"
        );
        // True ISO-8859-1 maps 0x80 to U+0080; windows-1252 maps it to €.
        assert_eq!(
            output_with(
                "charset-converter",
                "80",
                json!({"charset": "iso-8859-1", "mode": "decode"})
            ),
            "\u{80}"
        );
        assert_eq!(
            output_with(
                "charset-converter",
                "gA==",
                json!({"charset": "windows-1252", "mode": "decode", "bytesFormat": "base64"})
            ),
            "€"
        );
    }

    // Bytes from Python's codecs (mac_roman, cp1252, shift_jis, iso-8859-7, utf-16-be,
    // iso-8859-2); names as the WHATWG Encoding Standard writes them.
    #[test]
    fn charset_aliases_and_canonical_names() {
        for (alias, text, bytes, name) in [
            ("latin1", "é", "E9", "ISO-8859-1"),
            ("ISO_8859-1", "é", "E9", "ISO-8859-1"),
            ("cp1252", "é€", "E9 80", "windows-1252"),
            ("Windows-1252", "é€", "E9 80", "windows-1252"),
            ("SJIS", "日本", "93 FA 96 7B", "Shift_JIS"),
            ("shift_jis", "日本", "93 FA 96 7B", "Shift_JIS"),
            ("greek", "Ωλ", "D9 EB", "ISO-8859-7"),
            ("macroman", "é", "8E", "macintosh"),
            ("UTF-16BE", "é", "00 E9", "UTF-16BE"),
            ("latin2", "ą", "B1", "ISO-8859-2"),
            (" utf8 ", "é", "C3 A9", "UTF-8"),
        ] {
            let data = run_ok(
                "charset-converter",
                json!({"input": text, "charset": alias}),
            );
            assert_eq!(data["output"], bytes, "{alias}");
            assert_eq!(data["charset"], name, "{alias}");
            let back = run_ok(
                "charset-converter",
                json!({"input": bytes, "charset": alias, "mode": "decode"}),
            );
            assert_eq!(back["output"], text, "{alias}");
            assert_eq!(back["charset"], name, "{alias}");
        }
        let (code, msg) = run_err(
            "charset-converter",
            json!({"input": "a", "charset": "ebcdic-42"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("unknown charset 'ebcdic-42': give a name or alias"),
            "{msg}"
        );
        // The WHATWG "replacement" encoding decodes everything to U+FFFD: not a charset.
        let (code, _) = run_err(
            "charset-converter",
            json!({"input": "a", "charset": "iso-2022-kr"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        let (_, msg) = run_err(
            "charset-converter",
            json!({"input": "€", "charset": "latin1"}),
        );
        assert!(msg.contains("cannot be represented in ISO-8859-1"), "{msg}");
    }

    #[test]
    fn charset_unmappable_characters() {
        let (code, msg) = run_err(
            "charset-converter",
            json!({"input": "a€b", "charset": "iso-8859-1"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("U+20AC") && msg.contains("column 2"), "{msg}");
        let data = run_ok(
            "charset-converter",
            json!({"input": "a😀", "charset": "shift_jis", "onError": "html"}),
        );
        assert_eq!(data["output"], "61 26 23 31 32 38 35 31 32 3B");
        assert_eq!(data["replacements"], 1);
        let (_, msg) = run_err(
            "charset-converter",
            json!({"input": "41 FF 42", "charset": "shift_jis", "mode": "decode"}),
        );
        assert!(msg.contains("FF at offset 1"), "{msg}");
        let data = run_ok(
            "charset-converter",
            json!({"input": "41 FF 42", "charset": "shift_jis", "mode": "decode", "onError": "replace"}),
        );
        assert_eq!(data["output"], "A\u{FFFD}B");
    }
}
