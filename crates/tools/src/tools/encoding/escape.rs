//! String escaping and unescaping for source-code literals and data formats (JSON, JavaScript,
//! C/Java, Python, regex, POSIX shell, CSV, SQL, XML).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use serde_json::json;
use std::fmt::Write as _;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("string-escaper", string_escaper)];

fn string_escaper(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    let format = args.str("format")?;
    if mode == "escape" {
        let output = escape(format, input, args.flag("escapeNonAscii"))?;
        return Ok(json!({ "output": output, "mode": mode, "format": format }));
    }
    if format == "shell" {
        let words = shell_words::split(input).map_err(|_| {
            ToolError::invalid(
                "the shell text has an opening quote (' or \") without its closing quote",
            )
        })?;
        return Ok(
            json!({ "output": words.join("\n"), "mode": mode, "format": format, "words": words }),
        );
    }
    let output = unescape(format, input)?;
    Ok(json!({ "output": output, "mode": mode, "format": format }))
}

fn escape(format: &str, s: &str, non_ascii: bool) -> Result<String, ToolError> {
    Ok(match format {
        "json" => {
            let quoted = serde_json::to_string(s).unwrap_or_default();
            let inner = quoted
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .unwrap_or(&quoted);
            if non_ascii {
                inner.chars().fold(String::new(), |mut out, c| {
                    push_utf16_escape(&mut out, c);
                    out
                })
            } else {
                inner.to_string()
            }
        }
        "javascript" => escape_javascript(s, non_ascii),
        "c" => escape_c(s, non_ascii),
        "python" => escape_python(s, non_ascii),
        "regex" => regex::escape(s),
        "shell" => shell_words::quote(s).into_owned(),
        "csv" => escape_csv(s)?,
        "sql" => s.replace('\'', "''"),
        "xml" => quick_xml::escape::escape(s).into_owned(),
        other => return Err(ToolError::invalid(format!("unknown format '{other}'"))),
    })
}

/// Writes `c` as `\uXXXX` (a surrogate pair above U+FFFF) if it is not ASCII, else as itself.
fn push_utf16_escape(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c);
        return;
    }
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        let _ = write!(out, "\\u{unit:04x}");
    }
}

fn escape_javascript(s: &str, non_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            // "\0" followed by a digit would read as a legacy octal escape.
            '\0' if !chars.peek().is_some_and(char::is_ascii_digit) => out.push_str("\\0"),
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if non_ascii => push_utf16_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

fn escape_c(s: &str, non_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            // Three-digit octal is read the same by C, C++ and Java, unlike the greedy C \x.
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c if non_ascii && !c.is_ascii() => {
                if (c as u32) <= 0xFFFF {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                } else {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn escape_python(s: &str, non_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let n = c as u32;
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Like repr(): C0/C1 controls and the Unicode line/paragraph separators are escaped.
            c if c.is_control() && n <= 0xFF => {
                let _ = write!(out, "\\x{n:02x}");
            }
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{n:04x}");
            }
            // Like ascii(): the shortest of \xHH, \uXXXX, \UXXXXXXXX.
            c if non_ascii && !c.is_ascii() => {
                let _ = match n {
                    0..=0xFF => write!(out, "\\x{n:02x}"),
                    0x100..=0xFFFF => write!(out, "\\u{n:04x}"),
                    _ => write!(out, "\\U{n:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out
}

fn escape_csv(s: &str) -> Result<String, ToolError> {
    let mut writer = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(Vec::new());
    let failed =
        |e: &dyn std::fmt::Display| ToolError::execution(format!("CSV writer failed: {e}"));
    // A whole one-field record: the closing quote is only written when the record ends.
    writer.write_record([s]).map_err(|e| failed(&e))?;
    let bytes = writer.into_inner().map_err(|e| failed(&e))?;
    let record = String::from_utf8(bytes).map_err(|e| failed(&e))?;
    Ok(record.strip_suffix('\n').unwrap_or(&record).to_string())
}

fn unescape(format: &str, s: &str) -> Result<String, ToolError> {
    match format {
        "json" => unescape_json(s),
        "javascript" => unescape_javascript(s),
        "c" => unescape_c(s),
        "python" => unescape_python(s),
        "csv" => unescape_csv(s),
        "sql" => unescape_sql(s),
        "xml" => unescape_xml(s),
        "regex" => Err(ToolError::invalid(
            "unescape is not available for the regex format: a regex escape is not reversible \
             in general (use mode 'escape', or another format)",
        )),
        other => Err(ToolError::invalid(format!("unknown format '{other}'"))),
    }
}

/// "line L, column C" (1-based, columns in characters) of byte offset `pos` in `s`.
fn position(s: &str, pos: usize) -> String {
    let before = &s[..pos.min(s.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    format!("line {line}, column {column}")
}

fn bad_escape(s: &str, pos: usize, what: impl std::fmt::Display) -> ToolError {
    // Show the backslash and what follows, up to the next escape or whitespace.
    let rest = &s[pos..];
    let seq: String = rest
        .char_indices()
        .take_while(|&(i, c)| i < 10 && !(i > 0 && c == '\\') && (i == 0 || !c.is_whitespace()))
        .map(|(_, c)| c)
        .collect();
    ToolError::invalid(format!(
        "invalid escape sequence '{seq}' at {}: {what}",
        position(s, pos)
    ))
}

fn unescape_json(s: &str) -> Result<String, ToolError> {
    // The input is string contents; a whole quoted literal is accepted too (raw '"' is not valid
    // inside contents, so the two readings never both succeed).
    let as_contents = serde_json::from_str::<String>(&format!("\"{s}\""));
    match as_contents {
        Ok(v) => Ok(v),
        Err(e) => {
            if s.len() >= 2
                && s.starts_with('"')
                && s.ends_with('"')
                && let Ok(v) = serde_json::from_str::<String>(s)
            {
                return Ok(v);
            }
            // We added one quote before the first line's text.
            let column = if e.line() == 1 {
                e.column().saturating_sub(1)
            } else {
                e.column()
            };
            let msg = e.to_string();
            let msg = msg
                .rsplit_once(" at line ")
                .map_or(msg.as_str(), |(m, _)| m);
            Err(ToolError::invalid(format!(
                "not valid JSON string contents at line {}, column {column}: {msg} \
                 (RFC 8259 requires \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX, and no raw control characters)",
                e.line()
            )))
        }
    }
}

/// A cursor over text being unescaped, tracking byte offsets for error positions.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0 }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.s[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Up to `max` digits of `radix`, returned with how many there were.
    fn digits(&mut self, radix: u32, max: usize) -> (u32, usize) {
        let mut value: u32 = 0;
        let mut n = 0;
        while n < max {
            match self.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = value.saturating_mul(radix).saturating_add(d);
                    self.pos += 1;
                    n += 1;
                }
                None => break,
            }
        }
        (value, n)
    }

    /// Exactly `count` hex digits.
    fn hex(&mut self, count: usize, start: usize) -> Result<u32, ToolError> {
        let (v, n) = self.digits(16, count);
        if n == count {
            Ok(v)
        } else {
            Err(bad_escape(
                self.s,
                start,
                format!("expected {count} hexadecimal digits"),
            ))
        }
    }
}

fn code_point(s: &str, start: usize, v: u32) -> Result<char, ToolError> {
    char::from_u32(v).ok_or_else(|| {
        bad_escape(
            s,
            start,
            format!("U+{v:04X} is not a Unicode scalar value (surrogate or beyond U+10FFFF)"),
        )
    })
}

fn unescape_javascript(s: &str) -> Result<String, ToolError> {
    let mut out = String::with_capacity(s.len());
    let mut cur = Cursor::new(s);
    while let Some(c) = cur.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let start = cur.pos - 1;
        let Some(e) = cur.next() else {
            return Err(bad_escape(s, start, "a backslash ends the text"));
        };
        match e {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '0' if !cur.peek().is_some_and(|d| d.is_ascii_digit()) => out.push('\0'),
            '0'..='9' => {
                return Err(bad_escape(
                    s,
                    start,
                    "octal and \\8 \\9 escapes are not allowed in strict-mode JavaScript; use \\x or \\u",
                ));
            }
            'x' => out.push(code_point(s, start, cur.hex(2, start)?)?),
            'u' => out.push(js_unicode_escape(&mut cur, start)?),
            // Line continuations contribute nothing.
            '\r' => {
                cur.eat('\n');
            }
            '\n' | '\u{2028}' | '\u{2029}' => {}
            // Any other character escapes to itself (ECMAScript NonEscapeCharacter).
            other => out.push(other),
        }
    }
    Ok(out)
}

/// After `\u`: `{X…}` or `XXXX`, joining a UTF-16 surrogate pair written as two escapes.
fn js_unicode_escape(cur: &mut Cursor, start: usize) -> Result<char, ToolError> {
    let s = cur.s;
    if cur.eat('{') {
        let (v, n) = cur.digits(16, 8);
        if n == 0 || !cur.eat('}') {
            return Err(bad_escape(s, start, "expected hexadecimal digits and '}'"));
        }
        return code_point(s, start, v);
    }
    let unit = cur.hex(4, start)?;
    if (0xD800..0xDC00).contains(&unit) {
        let low_start = cur.pos;
        if cur.eat('\\') && cur.eat('u') {
            let low = cur.hex(4, low_start)?;
            if (0xDC00..0xE000).contains(&low) {
                return code_point(s, start, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
            }
        }
        return Err(bad_escape(
            s,
            start,
            "a high surrogate must be followed by a low surrogate escape (\\uDC00-\\uDFFF); \
             a lone surrogate cannot be represented in UTF-8 text",
        ));
    }
    code_point(s, start, unit)
}

fn unescape_python(s: &str) -> Result<String, ToolError> {
    let mut out = String::with_capacity(s.len());
    let mut cur = Cursor::new(s);
    while let Some(c) = cur.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let start = cur.pos - 1;
        let Some(e) = cur.next() else {
            return Err(bad_escape(s, start, "a backslash ends the text"));
        };
        match e {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0'..='7' => {
                let (rest, n) = cur.digits(8, 2);
                let first = e as u32 - '0' as u32;
                let v = first * 8u32.pow(n as u32) + rest;
                out.push(code_point(s, start, v)?);
            }
            'x' => out.push(code_point(s, start, cur.hex(2, start)?)?),
            'u' => out.push(code_point(s, start, cur.hex(4, start)?)?),
            'U' => out.push(code_point(s, start, cur.hex(8, start)?)?),
            'N' => {
                return Err(bad_escape(
                    s,
                    start,
                    "named \\N{...} escapes are not supported; write the character or use \\u/\\U",
                ));
            }
            // Python keeps unrecognised escapes as written (with a SyntaxWarning since 3.12).
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

fn unescape_c(s: &str) -> Result<String, ToolError> {
    // \x and octal escapes are bytes, so "\xc3\xa9" is "é": collect bytes, decode at the end.
    let mut out: Vec<u8> = Vec::with_capacity(s.len());
    let mut cur = Cursor::new(s);
    fn push_char(out: &mut Vec<u8>, c: char) {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    while let Some(c) = cur.next() {
        if c != '\\' {
            push_char(&mut out, c);
            continue;
        }
        let start = cur.pos - 1;
        let Some(e) = cur.next() else {
            return Err(bad_escape(s, start, "a backslash ends the text"));
        };
        let byte = |v: u32| {
            u8::try_from(v)
                .map_err(|_| bad_escape(s, start, format!("value {v} does not fit in a byte")))
        };
        match e {
            'a' => out.push(7),
            'b' => out.push(8),
            'f' => out.push(12),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(11),
            '\\' | '\'' | '"' | '?' => push_char(&mut out, e),
            '0'..='7' => {
                let (rest, n) = cur.digits(8, 2);
                let v = (e as u32 - '0' as u32) * 8u32.pow(n as u32) + rest;
                out.push(byte(v)?);
            }
            'x' => {
                let (v, n) = cur.digits(16, 8);
                if n == 0 {
                    return Err(bad_escape(
                        s,
                        start,
                        "\\x needs at least one hexadecimal digit",
                    ));
                }
                out.push(byte(v)?);
            }
            'u' => push_char(&mut out, code_point(s, start, cur.hex(4, start)?)?),
            'U' => push_char(&mut out, code_point(s, start, cur.hex(8, start)?)?),
            _ => {
                return Err(bad_escape(
                    s,
                    start,
                    "not a C escape (valid: \\a \\b \\f \\n \\r \\t \\v \\\\ \\' \\\" \\? \\ooo \\xHH \\uXXXX \\UXXXXXXXX)",
                ));
            }
        }
    }
    String::from_utf8(out).map_err(|e| {
        ToolError::invalid(format!(
            "the unescaped bytes are not valid UTF-8 (first bad byte at offset {} of the result); \
             \\x and octal escapes must spell out complete UTF-8 sequences",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Undoes doubling of `quote`; a lone quote is an error. Accepts the contents or the whole
/// quoted literal (a lone quote at each end cannot be contents, so the readings never clash).
fn undouble(s: &str, quote: char, what: &str) -> Result<String, ToolError> {
    let contents = |text: &str, offset: usize| -> Result<String, ToolError> {
        let mut out = String::with_capacity(text.len());
        let mut cur = Cursor::new(text);
        while let Some(c) = cur.next() {
            if c == quote && !cur.eat(quote) {
                return Err(ToolError::invalid(format!(
                    "lone {quote} at {}: inside {what} a {quote} must be doubled ({quote}{quote})",
                    position(s, offset + cur.pos - 1)
                )));
            }
            out.push(c);
        }
        Ok(out)
    };
    match contents(s, 0) {
        Ok(v) => Ok(v),
        Err(e) => {
            let q = quote.len_utf8();
            if s.len() >= 2 * q && s.starts_with(quote) && s.ends_with(quote) {
                contents(&s[q..s.len() - q], q).map_err(|_| e)
            } else {
                Err(e)
            }
        }
    }
}

fn unescape_sql(s: &str) -> Result<String, ToolError> {
    undouble(s, '\'', "an SQL string literal")
}

fn unescape_csv(s: &str) -> Result<String, ToolError> {
    if s.starts_with('"') {
        if s.len() < 2 || !s.ends_with('"') {
            return Err(ToolError::invalid(
                "the field starts with a double quote but does not end with one (RFC 4180 §2.5)",
            ));
        }
        let inner = &s[1..s.len() - 1];
        if let Some(i) = inner.replace("\"\"", "\0\0").find('"') {
            return Err(ToolError::invalid(format!(
                "lone \" at {}: inside a quoted CSV field a \" must be doubled (RFC 4180 §2.7)",
                position(s, i + 1)
            )));
        }
        return Ok(inner.replace("\"\"", "\""));
    }
    if let Some(i) = s.find(['"', ',', '\r', '\n']) {
        return Err(ToolError::invalid(format!(
            "unquoted CSV field contains {:?} at {}: fields with quotes, commas or line breaks \
             must be enclosed in double quotes (RFC 4180 §2.6)",
            &s[i..i + 1],
            position(s, i)
        )));
    }
    Ok(s.to_string())
}

fn unescape_xml(s: &str) -> Result<String, ToolError> {
    use quick_xml::escape::{EscapeError, unescape};
    match unescape(s) {
        Ok(v) => Ok(v.into_owned()),
        Err(EscapeError::UnrecognizedEntity(range, name)) => Err(ToolError::invalid(format!(
            "unknown entity '&{name};' at {}: XML predefines only &amp; &lt; &gt; &quot; &apos; \
             and character references (&#NN; / &#xHH;)",
            position(s, range.start.saturating_sub(1))
        ))),
        Err(EscapeError::UnterminatedEntity(range)) => Err(ToolError::invalid(format!(
            "'&' at {} starts an entity with no closing ';' (write a literal & as &amp;)",
            position(s, range.start)
        ))),
        Err(e) => {
            // Character reference errors carry no position: find the first one that fails.
            let at = s
                .match_indices("&#")
                .find(|(i, _)| {
                    let end = s[*i..].find(';').map_or(s.len(), |j| i + j + 1);
                    unescape(&s[*i..end]).is_err()
                })
                .map(|(i, _)| format!(" at {}", position(s, i)))
                .unwrap_or_default();
            Err(ToolError::invalid(format!("{e}{at}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn esc(format: &str, input: &str) -> String {
        run_ok("string-escaper", json!({"input": input, "format": format}))["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn unesc(format: &str, input: &str) -> String {
        run_ok(
            "string-escaper",
            json!({"input": input, "format": format, "mode": "unescape"}),
        )["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn unesc_err(format: &str, input: &str) -> String {
        let (code, msg) = run_err(
            "string-escaper",
            json!({"input": input, "format": format, "mode": "unescape"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput, "{msg}");
        msg
    }

    // RFC 8259 §7: quotation mark, reverse solidus and control characters must be escaped.
    #[test]
    fn json_escape_rfc8259() {
        assert_eq!(
            esc("json", "say \"hi\"\\\n\t\u{1}"),
            "say \\\"hi\\\"\\\\\\n\\t\\u0001"
        );
        let data = run_ok(
            "string-escaper",
            json!({"input": "é😀", "format": "json", "escapeNonAscii": true}),
        );
        // RFC 8259 §7: G clef U+1D11E is "\ud834\udd1e"; 😀 U+1F600 is "\ud83d\ude00".
        assert_eq!(data["output"], "\\u00e9\\ud83d\\ude00");
        assert_eq!(unesc("json", "\\ud834\\udd1e \\/ \\u00e9"), "\u{1D11E} / é");
        assert_eq!(
            unesc("json", "\"quoted \\\"literal\\\"\""),
            "quoted \"literal\""
        );
        let msg = unesc_err("json", "ok\\q");
        assert!(msg.contains("line 1, column 4"), "{msg}");
    }

    #[test]
    fn javascript_escapes() {
        assert_eq!(
            esc("javascript", "it's \"x\"\n\u{0}1\u{2028}"),
            "it\\'s \\\"x\\\"\\n\\x001\\u2028"
        );
        assert_eq!(
            unesc("javascript", "\\x41\\u0042\\u{1F600}\\uD83D\\uDE00\\q\\0"),
            "AB😀😀q\0"
        );
        let msg = unesc_err("javascript", "ab\\uD800x");
        assert!(
            msg.contains("column 3") && msg.contains("surrogate"),
            "{msg}"
        );
        assert!(unesc_err("javascript", "\\1").contains("octal"));
    }

    #[test]
    fn c_escapes() {
        assert_eq!(esc("c", "a\"b\\\n\u{7}\u{1b}"), "a\\\"b\\\\\\n\\a\\033");
        let data = run_ok(
            "string-escaper",
            json!({"input": "é😀", "format": "c", "escapeNonAscii": true}),
        );
        assert_eq!(data["output"], "\\u00e9\\U0001f600");
        assert_eq!(unesc("c", "\\xc3\\xa9\\101\\u00e9\\?"), "éAé?");
        let msg = unesc_err("c", "line\\q");
        assert!(msg.contains("'\\q'") && msg.contains("column 5"), "{msg}");
        assert!(unesc_err("c", "\\777").contains("does not fit"));
    }

    // Expected values are what CPython's repr()/ascii() and literal parsing produce.
    #[test]
    fn python_escapes() {
        assert_eq!(esc("python", "tab\there\u{85}"), "tab\\there\\x85");
        let data = run_ok(
            "string-escaper",
            json!({"input": "é€😀", "format": "python", "escapeNonAscii": true}),
        );
        assert_eq!(data["output"], "\\xe9\\u20ac\\U0001f600");
        assert_eq!(unesc("python", "\\x41\\101\\w"), "AA\\w");
        assert_eq!(unesc("python", "C:\\path\\d"), "C:\\path\\d");
        let msg = unesc_err("python", "\\U00110000");
        assert!(msg.contains("not a Unicode scalar value"), "{msg}");
    }

    #[test]
    fn regex_and_shell() {
        assert_eq!(esc("regex", "1.5*(a+b)?"), "1\\.5\\*\\(a\\+b\\)\\?");
        assert_eq!(esc("shell", "it's here"), "'it'\\''s here'");
        assert_eq!(esc("shell", "plain"), "plain");
        let data = run_ok(
            "string-escaper",
            json!({"input": "echo 'it'\\''s' \"a b\"", "format": "shell", "mode": "unescape"}),
        );
        assert_eq!(data["words"], json!(["echo", "it's", "a b"]));
        let msg = unesc_err("shell", "echo 'open");
        assert!(msg.contains("closing quote"), "{msg}");
        assert!(unesc_err("regex", "a\\.b").contains("not available"));
    }

    // RFC 4180 §2.6/§2.7 quoting; SQL-92 doubled quotes; XML 1.0 §4.6 predefined entities.
    #[test]
    fn csv_sql_xml() {
        assert_eq!(esc("csv", "a,\"b\""), "\"a,\"\"b\"\"\"");
        assert_eq!(esc("csv", "plain"), "plain");
        assert_eq!(unesc("csv", "\"a,\"\"b\"\"\""), "a,\"b\"");
        assert!(unesc_err("csv", "\"a\"b\"").contains("column 3"));
        assert_eq!(esc("sql", "O'Reilly"), "O''Reilly");
        assert_eq!(unesc("sql", "'O''Reilly'"), "O'Reilly");
        assert_eq!(unesc("sql", "O''Reilly"), "O'Reilly");
        assert!(unesc_err("sql", "O'Reilly").contains("line 1, column 2"));
        assert_eq!(
            esc("xml", "<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;"
        );
        assert_eq!(unesc("xml", "&lt;&#65;&#x42;&amp;&apos;"), "<AB&'");
        assert!(unesc_err("xml", "a &nbsp; b").contains("'&nbsp;'"));
        assert!(unesc_err("xml", "x &#xZZ;").contains("column 3"));
    }
}
