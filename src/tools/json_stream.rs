//! json-formatter and json-minifier over a `@path` file in constant memory: a resumable
//! byte-level scanner that validates the JSON (RFC 8259, as strictly as the in-memory path's
//! serde_json) and re-emits its tokens verbatim with new whitespace. One pass measures the
//! output and finds any error before a byte is printed; the second writes it, already escaped
//! when it goes inside the result envelope. Input it refuses (invalid JSON, bytes that are not
//! UTF-8) takes the ordinary path, which reads it whole and reports the error. The bytes are those of `json::json_formatter` and
//! `json::json_minifier` (`tests/json_stream.rs` and the differential test below compare them).

use super::args::Args;
use super::budget;
use super::chunks::{Chunks, Stop};
use super::depth::JSON_DEPTH;
use super::streaming::{Output, Plan};
use crate::ctp::ToolError;
use serde_json::{Map, Value};
use std::io::Write;

/// The scanner met something the in-memory path refuses.
#[derive(Debug)]
pub(crate) struct Invalid;

/// json-formatter over the input in pieces; sorted keys need the whole document.
pub fn plan_format<'a>(args: &Args, input: Chunks<'a>) -> Result<Option<Plan<'a>>, Stop> {
    if args.flag("sortKeys") {
        return Ok(None);
    }
    let unit: &'static [u8] = match args.str("indent")? {
        "4" => b"    ",
        "8" => b"        ",
        "tab" => b"\t",
        _ => b"  ",
    };
    plan(
        Style::new(Some(unit), args.flag("ensureAscii")),
        input,
        false,
    )
}

/// json-minifier over the input in pieces.
pub fn plan_minify<'a>(args: &Args, input: Chunks<'a>) -> Result<Option<Plan<'a>>, Stop> {
    if args.flag("sortKeys") {
        return Ok(None);
    }
    plan(Style::new(None, args.flag("ensureAscii")), input, true)
}

fn plan(style: Style, input: Chunks<'_>, sizes: bool) -> Result<Option<Plan<'_>>, Stop> {
    let unit = style.unit.unwrap_or_default();
    let mut count = Count {
        unit: unit.len() as u64,
        // A tab is escaped as `\t`; spaces stay as they are.
        unit_escaped: unit.iter().map(|&b| if b == b'\t' { 2 } else { 1 }).sum(),
        ..Count::default()
    };
    let mut original = 0u64;
    let scanned = run(style, input, &mut count, |n| original += n);
    match scanned {
        Ok(()) => {}
        // Refused: the ordinary path reads the input whole and says exactly what and where,
        // in serde_json's words (its reader over a file words some positions differently).
        Err(Stop::Tool(_)) => return Ok(None),
        Err(stop) => return Err(stop),
    }
    if count.raw > budget::output_ceiling() as u64 {
        return Err(Stop::Tool(super::json::formatted_too_large()));
    }
    let mut fields = Map::new();
    if sizes {
        fields.insert("originalSize".into(), Value::from(original));
        fields.insert("minifiedSize".into(), Value::from(count.raw));
    }
    let emit = Box::new(move |out: &mut dyn Write, escaped: bool| {
        let mut sink = Writer::new(out, style, escaped);
        run(style, input, &mut sink, |_| {}).map_err(|stop| match stop {
            // Valid on the first pass, not on this one: the file changed in between.
            Stop::Tool(_) => Stop::Tool(ToolError::execution(
                "the input file changed while it was read",
            )),
            stop => stop,
        })?;
        sink.flush().map_err(Stop::Io)
    });
    Ok(Some(Plan {
        fields,
        output: Output::Escaping {
            len: count.raw,
            escaped_len: count.escaped,
            emit,
        },
    }))
}

/// One pass of the scanner over the whole input into `sink`; `seen` gets each piece's length.
fn run<S: Sink>(
    style: Style,
    input: Chunks<'_>,
    sink: &mut S,
    mut seen: impl FnMut(u64),
) -> Result<(), Stop> {
    let mut scanner = Scanner::new(style.unit.is_some(), style.ascii);
    let invalid = |_: Invalid| Stop::Tool(ToolError::invalid("invalid JSON"));
    input.each(|piece| {
        seen(piece.len() as u64);
        scanner.feed(piece, sink).map_err(invalid)
    })?;
    scanner.end().map_err(invalid)
}

/// What the output looks like.
#[derive(Clone, Copy)]
struct Style {
    /// The indentation unit; `None` minifies.
    unit: Option<&'static [u8]>,
    /// Non-ASCII characters in strings become `\uXXXX`.
    ascii: bool,
}

impl Style {
    fn new(unit: Option<&'static [u8]>, ascii: bool) -> Self {
        Style { unit, ascii }
    }
}

/// Where the scanner puts the output: counted on the first pass, written on the second.
pub(crate) trait Sink {
    /// Bytes that need no escaping inside a JSON string.
    fn text(&mut self, bytes: &[u8]);
    /// A `"` or `\`, which the envelope escapes.
    fn special(&mut self, byte: u8);
    /// A line break and `depth` indentation units (pretty-printing only).
    fn newline(&mut self, depth: usize);
    /// A non-ASCII character written as `\uXXXX` escapes.
    fn ascii_escape(&mut self, ch: char);
}

/// The first pass: the output's length as it is and escaped inside a JSON string.
#[derive(Default)]
struct Count {
    raw: u64,
    escaped: u64,
    unit: u64,
    unit_escaped: u64,
}

impl Sink for Count {
    #[inline]
    fn text(&mut self, bytes: &[u8]) {
        self.raw += bytes.len() as u64;
        self.escaped += bytes.len() as u64;
    }
    #[inline]
    fn special(&mut self, _: u8) {
        self.raw += 1;
        self.escaped += 2;
    }
    #[inline]
    fn newline(&mut self, depth: usize) {
        self.raw += 1 + self.unit * depth as u64;
        self.escaped += 2 + self.unit_escaped * depth as u64;
    }
    fn ascii_escape(&mut self, ch: char) {
        let units = ch.len_utf16() as u64;
        self.raw += 6 * units;
        self.escaped += 7 * units;
    }
}

/// The second pass: the output written, as it is or escaped, through a buffer of its own.
struct Writer<'w> {
    out: &'w mut dyn Write,
    buf: Vec<u8>,
    escaped: bool,
    /// A line break followed by [`JSON_DEPTH`] indentation units, sliced per line.
    pad: Vec<u8>,
    break_len: usize,
    unit_len: usize,
    error: Option<std::io::Error>,
}

const BUF: usize = 128 << 10;

impl<'w> Writer<'w> {
    fn new(out: &'w mut dyn Write, style: Style, escaped: bool) -> Self {
        let unit: Vec<u8> = match (style.unit, escaped) {
            (Some(b"\t"), true) => b"\\t".to_vec(),
            (Some(u), _) => u.to_vec(),
            (None, _) => Vec::new(),
        };
        let newline: &[u8] = if escaped { b"\\n" } else { b"\n" };
        let mut pad = newline.to_vec();
        for _ in 0..=JSON_DEPTH {
            pad.extend_from_slice(&unit);
        }
        Writer {
            out,
            buf: Vec::with_capacity(BUF + 4096),
            escaped,
            pad,
            break_len: newline.len(),
            unit_len: unit.len(),
            error: None,
        }
    }

    #[inline]
    fn room(&mut self) {
        if self.buf.len() >= BUF {
            self.drain();
        }
    }

    fn drain(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(&self.buf)
        {
            self.error = Some(e);
        }
        self.buf.clear();
    }

    fn flush(mut self) -> std::io::Result<()> {
        self.drain();
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

impl Sink for Writer<'_> {
    #[inline]
    fn text(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        self.room();
    }
    #[inline]
    fn special(&mut self, byte: u8) {
        if self.escaped {
            self.buf.push(b'\\');
        }
        self.buf.push(byte);
        self.room();
    }
    #[inline]
    fn newline(&mut self, depth: usize) {
        let end = (self.break_len + self.unit_len * depth).min(self.pad.len());
        self.buf.extend_from_slice(&self.pad[..end]);
        self.room();
    }
    fn ascii_escape(&mut self, ch: char) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut units = [0u16; 2];
        for &u in ch.encode_utf16(&mut units).iter() {
            if self.escaped {
                self.buf.push(b'\\');
            }
            self.buf.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                self.buf.push(HEX[usize::from((u >> shift) & 0xf)]);
            }
        }
        self.room();
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// Expecting a value; `first` right after `[` (so `]` may close it).
    Value {
        first: bool,
    },
    /// Expecting a key; `first` right after `{`.
    Key {
        first: bool,
    },
    Colon,
    /// After a value: `,`, a closing bracket, or (at the top) nothing but whitespace.
    After,
    Str {
        key: bool,
    },
    Num(Num),
    Lit,
}

/// Where a number is in `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Start,
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    Sign,
    Exp,
}

const BOM: &[u8; 3] = b"\xef\xbb\xbf";

/// The resumable scanner: any piece boundary may fall anywhere, inside a string, an escape,
/// a multi-byte character, a number or a literal.
pub(crate) struct Scanner {
    state: State,
    /// `true` for an object at each open level.
    stack: Vec<bool>,
    /// A bracket was opened and nothing written inside yet (`[]` stays on one line).
    pending: bool,
    pretty: bool,
    ascii: bool,
    /// Bytes of a leading byte order mark matched so far; 3 once past the start.
    bom: u8,
    /// Inside a string: 0, or 1 after `\`, or 2..=5 while hex digits of `\u` remain (+1).
    esc: u8,
    /// A multi-byte character cut by the piece boundary, and its full length.
    carry: [u8; 4],
    carry_len: u8,
    carry_need: u8,
    lit: &'static [u8],
    lit_pos: usize,
}

impl Scanner {
    pub(crate) fn new(pretty: bool, ascii: bool) -> Self {
        Scanner {
            state: State::Value { first: false },
            stack: Vec::with_capacity(JSON_DEPTH + 1),
            pending: false,
            pretty,
            ascii,
            bom: 0,
            esc: 0,
            carry: [0; 4],
            carry_len: 0,
            carry_need: 0,
            lit: b"",
            lit_pos: 0,
        }
    }

    /// Scans the next piece of the input.
    pub(crate) fn feed<S: Sink>(&mut self, buf: &[u8], s: &mut S) -> Result<(), Invalid> {
        let mut i = 0;
        while self.bom < 3 {
            let Some(&b) = buf.get(i) else {
                return Ok(());
            };
            if b == BOM[usize::from(self.bom)] {
                self.bom += 1;
                i += 1;
            } else if self.bom == 0 {
                self.bom = 3;
            } else {
                // Part of a byte order mark: non-ASCII outside a string.
                return Err(Invalid);
            }
        }
        let n = buf.len();
        while i < n {
            match self.state {
                State::Str { key } => i = self.string(buf, i, key, s)?,
                State::Num(num) => i = self.number(buf, i, num, s)?,
                State::Lit => {
                    while i < n && self.lit_pos < self.lit.len() {
                        if buf[i] != self.lit[self.lit_pos] {
                            return Err(Invalid);
                        }
                        i += 1;
                        self.lit_pos += 1;
                    }
                    if self.lit_pos == self.lit.len() {
                        s.text(self.lit);
                        self.state = State::After;
                    }
                }
                _ => {
                    let b = buf[i];
                    if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                        i += 1;
                        continue;
                    }
                    if self.structural(b, s)? {
                        i += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// The end of the input: valid only after one whole value.
    pub(crate) fn end(&mut self) -> Result<(), Invalid> {
        if let State::Num(num) = self.state {
            if !matches!(num, Num::Zero | Num::Int | Num::Frac | Num::Exp) {
                return Err(Invalid);
            }
            self.state = State::After;
        }
        if self.state == State::After && self.stack.is_empty() {
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    fn begin_value<S: Sink>(&mut self, s: &mut S) {
        if self.pending {
            self.pending = false;
            if self.pretty {
                s.newline(self.stack.len());
            }
        }
    }

    fn open<S: Sink>(&mut self, b: u8, s: &mut S) -> Result<(), Invalid> {
        if self.stack.len() >= JSON_DEPTH {
            return Err(Invalid);
        }
        self.begin_value(s);
        let object = b == b'{';
        self.stack.push(object);
        s.text(if object { b"{" } else { b"[" });
        self.pending = true;
        self.state = if object {
            State::Key { first: true }
        } else {
            State::Value { first: true }
        };
        Ok(())
    }

    fn close<S: Sink>(&mut self, b: u8, s: &mut S) {
        self.stack.pop();
        if self.pending {
            self.pending = false;
        } else if self.pretty {
            s.newline(self.stack.len());
        }
        s.text(if b == b'}' { b"}" } else { b"]" });
        self.state = State::After;
    }

    /// A byte outside strings, numbers and literals; returns whether it was consumed.
    fn structural<S: Sink>(&mut self, b: u8, s: &mut S) -> Result<bool, Invalid> {
        match self.state {
            State::Value { first } => match b {
                b']' if first => self.close(b, s),
                b'{' | b'[' => self.open(b, s)?,
                b'"' => {
                    self.begin_value(s);
                    s.special(b'"');
                    self.state = State::Str { key: false };
                }
                b'-' | b'0'..=b'9' => {
                    self.begin_value(s);
                    self.state = State::Num(Num::Start);
                    return Ok(false);
                }
                b't' | b'f' | b'n' => {
                    self.begin_value(s);
                    self.lit = match b {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    self.lit_pos = 0;
                    self.state = State::Lit;
                    return Ok(false);
                }
                _ => return Err(Invalid),
            },
            State::Key { first } => match b {
                b'}' if first => self.close(b, s),
                b'"' => {
                    self.begin_value(s);
                    s.special(b'"');
                    self.state = State::Str { key: true };
                }
                _ => return Err(Invalid),
            },
            State::Colon => {
                if b != b':' {
                    return Err(Invalid);
                }
                s.text(if self.pretty { b": " } else { b":" });
                self.state = State::Value { first: false };
            }
            State::After => {
                let Some(&object) = self.stack.last() else {
                    return Err(Invalid);
                };
                match (b, object) {
                    (b',', _) => {
                        s.text(b",");
                        if self.pretty {
                            s.newline(self.stack.len());
                        }
                        self.state = if object {
                            State::Key { first: false }
                        } else {
                            State::Value { first: false }
                        };
                    }
                    (b'}', true) | (b']', false) => self.close(b, s),
                    _ => return Err(Invalid),
                }
            }
            State::Str { .. } | State::Num(_) | State::Lit => return Err(Invalid),
        }
        Ok(true)
    }

    /// Scans a number from `i`; returns where it stopped (the end of the piece, or the byte
    /// after the number, not consumed).
    fn number<S: Sink>(
        &mut self,
        buf: &[u8],
        mut i: usize,
        mut num: Num,
        s: &mut S,
    ) -> Result<usize, Invalid> {
        let start = i;
        let n = buf.len();
        while i < n {
            let b = buf[i];
            let next = match (num, b) {
                (Num::Start, b'-') => Num::Minus,
                (Num::Start | Num::Minus, b'0') => Num::Zero,
                (Num::Start | Num::Minus, b'1'..=b'9') => Num::Int,
                (Num::Int, b'0'..=b'9') => {
                    while i + 1 < n && buf[i + 1].is_ascii_digit() {
                        i += 1;
                    }
                    Num::Int
                }
                (Num::Zero | Num::Int, b'.') => Num::Dot,
                (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
                (Num::E, b'+' | b'-') => Num::Sign,
                (Num::E | Num::Sign | Num::Exp, b'0'..=b'9') => Num::Exp,
                (Num::Zero | Num::Int | Num::Frac | Num::Exp, _) => {
                    s.text(&buf[start..i]);
                    self.state = State::After;
                    return Ok(i);
                }
                _ => return Err(Invalid),
            };
            num = next;
            i += 1;
        }
        s.text(&buf[start..i]);
        self.state = State::Num(num);
        Ok(i)
    }

    /// Scans string contents from `i` (after the opening quote); returns where it stopped.
    fn string<S: Sink>(
        &mut self,
        buf: &[u8],
        mut i: usize,
        key: bool,
        s: &mut S,
    ) -> Result<usize, Invalid> {
        let n = buf.len();
        // Finish what the previous piece cut: a multi-byte character, then an escape.
        while self.carry_len > 0 {
            let Some(&b) = buf.get(i) else {
                return Ok(i);
            };
            self.carry[usize::from(self.carry_len)] = b;
            self.carry_len += 1;
            i += 1;
            if self.carry_len == self.carry_need {
                let len = usize::from(self.carry_need);
                let bytes = self.carry;
                let ch = std::str::from_utf8(&bytes[..len]).map_err(|_| Invalid)?;
                self.carry_len = 0;
                self.emit_char(ch, &bytes[..len], s);
            }
        }
        while self.esc > 0 {
            let Some(&b) = buf.get(i) else {
                return Ok(i);
            };
            i = self.escape(b, i, s)?;
        }
        let mut run = i;
        while i < n {
            i += next_special(&buf[i..]);
            let Some(&b) = buf.get(i) else {
                break;
            };
            match b {
                b'"' => {
                    s.text(&buf[run..i]);
                    s.special(b'"');
                    self.state = if key { State::Colon } else { State::After };
                    return Ok(i + 1);
                }
                b'\\' => {
                    s.text(&buf[run..i]);
                    s.special(b'\\');
                    self.esc = 1;
                    i += 1;
                    while self.esc > 0 {
                        let Some(&b) = buf.get(i) else {
                            return Ok(i);
                        };
                        i = self.escape(b, i, s)?;
                    }
                    run = i;
                }
                0x80.. => {
                    let need = match b {
                        0xc2..=0xdf => 2,
                        0xe0..=0xef => 3,
                        0xf0..=0xf4 => 4,
                        _ => return Err(Invalid),
                    };
                    if i + need > n {
                        s.text(&buf[run..i]);
                        let rest = &buf[i..];
                        self.carry[..rest.len()].copy_from_slice(rest);
                        self.carry_len = rest.len() as u8;
                        self.carry_need = need as u8;
                        return Ok(n);
                    }
                    let ch = std::str::from_utf8(&buf[i..i + need]).map_err(|_| Invalid)?;
                    if self.ascii {
                        s.text(&buf[run..i]);
                        self.emit_char(ch, &[], s);
                        run = i + need;
                    }
                    i += need;
                }
                _ => return Err(Invalid),
            }
        }
        s.text(&buf[run..n]);
        Ok(n)
    }

    /// A whole multi-byte character, as `\uXXXX` or as its bytes.
    fn emit_char<S: Sink>(&mut self, ch: &str, bytes: &[u8], s: &mut S) {
        match ch.chars().next() {
            Some(c) if self.ascii => s.ascii_escape(c),
            _ => s.text(bytes),
        }
    }

    /// One byte of an escape sequence at `i`; returns the next position.
    fn escape<S: Sink>(&mut self, b: u8, i: usize, s: &mut S) -> Result<usize, Invalid> {
        match (self.esc, b) {
            (1, b'"' | b'\\') => {
                s.special(b);
                self.esc = 0;
            }
            (1, b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                s.text(&[b]);
                self.esc = 0;
            }
            (1, b'u') => {
                s.text(b"u");
                self.esc = 5;
            }
            (2..=5, b) if b.is_ascii_hexdigit() => {
                s.text(&[b]);
                self.esc = if self.esc == 2 { 0 } else { self.esc - 1 };
            }
            _ => return Err(Invalid),
        }
        Ok(i + 1)
    }
}

/// Where the first byte a string cannot simply copy is (`"`, `\`, a control character, a
/// non-ASCII byte), or the length of `bytes`: eight bytes at a time.
#[inline]
fn next_special(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        // A byte's high bit is set in `flags` when it is below 0x20, `"` or `\` (borrows can
        // flag bytes above a real match, never below one) or non-ASCII.
        let below = |x: u64, k: u64| x.wrapping_sub(ONES * k) & !x;
        let quote = x ^ (ONES * u64::from(b'"'));
        let slash = x ^ (ONES * u64::from(b'\\'));
        let flags = (below(x, 0x20) | below(quote, 1) | below(slash, 1) | x) & HIGH;
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + words
        .remainder()
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x80)
        .unwrap_or(words.remainder().len())
}

#[cfg(test)]
mod tests;
