//! The resumable JSON scanner behind the streaming json-formatter and json-minifier: it
//! validates RFC 8259 text as strictly as serde_json does and hands every token, verbatim, to a
//! [`Sink`] with new whitespace between them. A piece of the input may end anywhere: inside a
//! string, an escape, a multi-byte character, a number or a literal.
//!
//! Speed comes from treating each whole token at once where it lies inside the piece (a string
//! found with one scan for its closing quote and copied in one go, a number or literal matched
//! in a tight loop), from checking UTF-8 a whole piece at a time, and from falling back to the
//! byte-at-a-time states only for the token a piece boundary cuts.

use crate::text::{NotUtf8, Utf8Stream};
use crate::tools::json::simd::{self, AVX2, AVX512, SCALAR, SSE2, special_bits};
use crate::tools::kit::depth::JSON_DEPTH;

mod fast;

/// The scanner met something the in-memory path refuses.
#[derive(Debug)]
pub(crate) struct Invalid;

impl From<NotUtf8> for Invalid {
    fn from(_: NotUtf8) -> Self {
        Invalid
    }
}

/// Where the scanner puts the output: counted on the first pass, written on the second.
pub(crate) trait Sink {
    /// Bytes that need no escaping inside a JSON string.
    fn text(&mut self, bytes: &[u8]);
    /// One byte that needs no escaping (punctuation).
    fn byte(&mut self, byte: u8);
    /// A whole token at `piece[start..end]` that needs no escaping (a number or literal).
    fn token(&mut self, piece: &[u8], start: usize, end: usize);
    /// A `"` or `\`, which the envelope escapes.
    fn special(&mut self, byte: u8);
    /// A whole string token whose contents, `piece[start..end]`, hold no `"` or `\`: the
    /// contents and both quotes. (The piece is there so that a short string can be copied as
    /// a fixed number of bytes.)
    fn quoted(&mut self, piece: &[u8], start: usize, end: usize);
    /// A line break and `depth` indentation units (pretty-printing only).
    fn newline(&mut self, depth: usize);
    /// A non-ASCII character written as `\uXXXX` escapes.
    fn ascii_escape(&mut self, ch: char);
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
    /// Inside a string cut by a piece boundary.
    Str {
        key: bool,
    },
    /// Inside a number cut by a piece boundary.
    Num(Num),
    /// Inside `true`, `false` or `null` cut by a piece boundary.
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

/// The resumable scanner.
pub(crate) struct Scanner {
    state: State,
    /// `true` for an object at each open level.
    stack: Vec<bool>,
    /// A bracket was opened and nothing written inside yet (`[]` stays on one line).
    pending: bool,
    pretty: bool,
    ascii: bool,
    /// Check that the input is UTF-8: not on a second pass over input the first found valid.
    utf8_check: bool,
    /// Bytes of a leading byte order mark matched so far; 3 once past the start.
    bom: u8,
    /// Inside a string: 0, or 1 after `\`, or 2..=5 while hex digits of `\u` remain (+1).
    esc: u8,
    /// With `ascii`: a multi-byte character in a string cut by the piece boundary.
    carry: [u8; 4],
    carry_len: u8,
    carry_need: u8,
    utf8: Utf8Stream,
    lit: &'static [u8],
    lit_pos: usize,
    /// Where in the current piece the 64-byte block that `specials` describes starts
    /// (`usize::MAX`: none yet).
    block: usize,
    /// Bit `k` set when byte `block + k` is one a string cannot simply copy ([`next_special`]).
    specials: u64,
    /// The widest level of SIMD instructions the CPU has ([`simd::detect`]).
    simd: u8,
}

impl Scanner {
    /// A scanner for a first pass (`utf8_check`) or a second one over the same input.
    pub(crate) fn new(pretty: bool, ascii: bool, utf8_check: bool) -> Self {
        Scanner {
            state: State::Value { first: false },
            stack: Vec::with_capacity(JSON_DEPTH + 1),
            pending: false,
            pretty,
            ascii,
            utf8_check,
            bom: 0,
            esc: 0,
            carry: [0; 4],
            carry_len: 0,
            carry_need: 0,
            utf8: Utf8Stream::default(),
            lit: b"",
            lit_pos: 0,
            block: usize::MAX,
            specials: 0,
            simd: simd::detect(),
        }
    }

    /// The same scanner at SIMD `level`, or the portable level in its place where this CPU
    /// lacks it ([`simd::forced`]).
    #[cfg(test)]
    pub(crate) fn with_simd(self, level: u8) -> Self {
        Scanner {
            simd: simd::forced(level),
            ..self
        }
    }

    /// Scans the next piece of the input.
    pub(crate) fn feed<S: Sink>(&mut self, buf: &[u8], s: &mut S) -> Result<(), Invalid> {
        match self.simd {
            // SAFETY: `simd::detect` found the CPU to have these instructions (or a test forced
            // a level only where it does, `simd::forced`).
            #[cfg(target_arch = "x86_64")]
            AVX512 => unsafe { self.feed_avx512(buf, s) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            AVX2 => unsafe { self.feed_avx2(buf, s) },
            #[cfg(target_arch = "x86_64")]
            SSE2 => self.feed_with::<S, SSE2>(buf, s),
            _ => self.feed_with::<S, SCALAR>(buf, s),
        }
    }

    /// [`Scanner::feed_with`] compiled for AVX-512 (and the bit instructions of its CPUs): the
    /// strings' 64-byte blocks are classified with four instructions instead of sixteen.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn feed_avx512<S: Sink>(&mut self, buf: &[u8], s: &mut S) -> Result<(), Invalid> {
        self.feed_with::<S, AVX512>(buf, s)
    }

    /// [`Scanner::feed_with`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn feed_avx2<S: Sink>(&mut self, buf: &[u8], s: &mut S) -> Result<(), Invalid> {
        self.feed_with::<S, AVX2>(buf, s)
    }

    #[inline(always)]
    fn feed_with<S: Sink, const SIMD: u8>(&mut self, buf: &[u8], s: &mut S) -> Result<(), Invalid> {
        // Bytes outside strings must be ASCII and the grammar refuses any that are not, so a
        // check of the whole piece leaves strings free to copy non-ASCII text unexamined.
        if self.utf8_check {
            self.utf8.push(buf)?;
        }
        self.block = usize::MAX;
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
            i = match self.state {
                State::Str { key } => self.string(buf, i, key, s)?,
                State::Num(num) => self.number(buf, i, num, s)?,
                State::Lit => self.literal(buf, i, s)?,
                _ => {
                    let at = self.fast::<S, SIMD>(buf, i, s)?;
                    if at < n {
                        self.token::<S, SIMD>(buf, at, s)?
                    } else {
                        at
                    }
                }
            };
        }
        Ok(())
    }

    /// The end of the input: valid only after one whole value.
    pub(crate) fn end(&mut self) -> Result<(), Invalid> {
        self.utf8.end()?;
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

    /// The next token from `i` (after any whitespace), whole or up to the end of the piece
    /// (the state then says where it stopped); returns where it stopped.
    fn token<S: Sink, const SIMD: u8>(
        &mut self,
        buf: &[u8],
        mut i: usize,
        s: &mut S,
    ) -> Result<usize, Invalid> {
        let n = buf.len();
        while i < n {
            let b = buf[i];
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                i += 1;
                continue;
            }
            match (self.state, b) {
                (State::Value { .. }, b'"') => {
                    self.begin_value(s);
                    i = self.quoted::<S, SIMD>(buf, i + 1, false, s)?;
                }
                (State::Key { .. }, b'"') => {
                    self.begin_value(s);
                    i = self.quoted::<S, SIMD>(buf, i + 1, true, s)?;
                    // Compact input puts the colon right after the key: no trip round the loop.
                    if self.state == State::Colon && buf.get(i) == Some(&b':') {
                        self.colon(s);
                        i += 1;
                    }
                }
                (State::Value { .. }, b'-' | b'0'..=b'9') => {
                    self.begin_value(s);
                    i = match whole_number(&buf[i..]) {
                        Ok(Some(len)) => {
                            s.token(buf, i, i + len);
                            self.state = State::After;
                            i + len
                        }
                        Ok(None) => self.number(buf, i, Num::Start, s)?,
                        Err(Invalid) => return Err(Invalid),
                    };
                }
                (State::Value { .. }, b't' | b'f' | b'n') => {
                    self.begin_value(s);
                    self.lit = match b {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    let end = i + self.lit.len();
                    if buf.get(i..end) == Some(self.lit) {
                        s.token(buf, i, end);
                        self.state = State::After;
                        return Ok(end);
                    }
                    self.lit_pos = 0;
                    self.state = State::Lit;
                    i = self.literal(buf, i, s)?;
                }
                (State::Value { first: true }, b']') | (State::Key { first: true }, b'}') => {
                    self.close(b, s);
                    i += 1;
                }
                (State::Value { .. }, b'{' | b'[') => {
                    self.open(b, s)?;
                    i += 1;
                }
                (State::Colon, b':') => {
                    self.colon(s);
                    i += 1;
                }
                (State::After, _) => {
                    self.after(b, s)?;
                    i += 1;
                }
                (State::Str { .. } | State::Num(_) | State::Lit, _) => return Ok(i),
                _ => return Err(Invalid),
            }
            return Ok(i);
        }
        Ok(i)
    }

    #[inline(always)]
    fn colon<S: Sink>(&mut self, s: &mut S) {
        if self.pretty {
            s.text(b": ");
        } else {
            s.byte(b':');
        }
        self.state = State::Value { first: false };
    }

    /// A `,` or closing bracket after a value.
    fn after<S: Sink>(&mut self, b: u8, s: &mut S) -> Result<(), Invalid> {
        let Some(&object) = self.stack.last() else {
            return Err(Invalid);
        };
        match (b, object) {
            (b',', _) => {
                s.byte(b',');
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
        Ok(())
    }

    #[inline]
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
        s.byte(b);
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
        s.byte(b);
        self.state = State::After;
    }

    /// A string from just after its opening quote: in one go when it ends within the piece
    /// and holds no escape (most do), else through [`Scanner::string`].
    #[inline(always)]
    fn quoted<S: Sink, const SIMD: u8>(
        &mut self,
        buf: &[u8],
        body: usize,
        key: bool,
        s: &mut S,
    ) -> Result<usize, Invalid> {
        let end = self.string_end::<SIMD>(buf, body);
        if buf.get(end) == Some(&b'"') {
            s.quoted(buf, body, end);
            self.state = if key { State::Colon } else { State::After };
            return Ok(end + 1);
        }
        s.special(b'"');
        self.string(buf, body, key, s)
    }

    /// [`next_special`] from `at`, found in bit masks of whole 64-byte blocks of the piece. The
    /// last block's mask is kept: most strings end in the block the previous one ended in, so
    /// that each block is classified once instead of once per string, and a string's length
    /// costs no loop (whose exit was mispredicted on strings longer than one step).
    #[inline(always)]
    fn string_end<const SIMD: u8>(&mut self, buf: &[u8], at: usize) -> usize {
        let mut base = at & !63;
        if base != self.block {
            let Some(block) = buf.get(base..base + 64) else {
                return at + simd::next_special(&buf[at..], self.ascii);
            };
            self.specials = special_bits::<SIMD>(block, self.ascii);
            self.block = base;
        }
        let ahead = self.specials >> (at - base);
        if ahead != 0 {
            return at + ahead.trailing_zeros() as usize;
        }
        loop {
            base += 64;
            let Some(block) = buf.get(base..base + 64) else {
                return base + simd::next_special(&buf[base..], self.ascii);
            };
            let bits = special_bits::<SIMD>(block, self.ascii);
            if bits != 0 {
                self.specials = bits;
                self.block = base;
                return base + bits.trailing_zeros() as usize;
            }
        }
    }

    /// The rest of `true`, `false` or `null`, possibly cut by the piece boundary.
    fn literal<S: Sink>(&mut self, buf: &[u8], mut i: usize, s: &mut S) -> Result<usize, Invalid> {
        let n = buf.len();
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
        Ok(i)
    }

    /// Scans a number from `i`, a byte at a time; returns where it stopped (the end of the
    /// piece, or the byte after the number, not consumed).
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
                (Num::Int, b'0'..=b'9') => Num::Int,
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

    /// Scans string contents from `i` (after the opening quote, already written) across
    /// escapes and piece boundaries; returns where it stopped.
    fn string<S: Sink>(
        &mut self,
        buf: &[u8],
        mut i: usize,
        key: bool,
        s: &mut S,
    ) -> Result<usize, Invalid> {
        self.state = State::Str { key };
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
                self.emit_char(ch, s);
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
            i += simd::next_special(&buf[i..], self.ascii);
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
                // Only with `ascii`: the UTF-8 itself was checked with the whole piece.
                0x80.. => {
                    let need = match b {
                        0xc2..=0xdf => 2,
                        0xe0..=0xef => 3,
                        0xf0..=0xf4 => 4,
                        _ => return Err(Invalid),
                    };
                    s.text(&buf[run..i]);
                    if i + need > n {
                        let rest = &buf[i..];
                        self.carry[..rest.len()].copy_from_slice(rest);
                        self.carry_len = rest.len() as u8;
                        self.carry_need = need as u8;
                        return Ok(n);
                    }
                    let ch = std::str::from_utf8(&buf[i..i + need]).map_err(|_| Invalid)?;
                    self.emit_char(ch, s);
                    i += need;
                    run = i;
                }
                _ => return Err(Invalid),
            }
        }
        s.text(&buf[run..n]);
        Ok(n)
    }

    /// A whole multi-byte character as `\uXXXX` (only `ascii` output stops at one).
    fn emit_char<S: Sink>(&mut self, ch: &str, s: &mut S) {
        if let Some(c) = ch.chars().next() {
            s.ascii_escape(c);
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
                s.byte(b);
                self.esc = 0;
            }
            (1, b'u') => {
                s.byte(b'u');
                self.esc = 5;
            }
            (2..=5, b) if b.is_ascii_hexdigit() => {
                s.byte(b);
                self.esc = if self.esc == 2 { 0 } else { self.esc - 1 };
            }
            _ => return Err(Invalid),
        }
        Ok(i + 1)
    }
}

/// The length of the number at the start of `bytes` when it ends before `bytes` does;
/// `None` when it may go on into the next piece.
#[inline(always)]
fn whole_number(bytes: &[u8]) -> Result<Option<usize>, Invalid> {
    // A `match`, not `map_or`: the compiler left `map_or` a call of its own per number.
    let digits = |from: usize| match bytes.get(from..) {
        Some(rest) => digit_run(rest),
        None => 0,
    };
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        Some(_) => return Err(Invalid),
        None => return Ok(None),
    }
    if bytes.get(i) == Some(&b'.') {
        let d = digits(i + 1);
        if d == 0 && i + 1 < bytes.len() {
            return Err(Invalid);
        }
        i += 1 + d;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let d = digits(i);
        if d == 0 && i < bytes.len() {
            return Err(Invalid);
        }
        i += d;
    }
    Ok((i < bytes.len()).then_some(i))
}

/// How many ASCII digits `bytes` starts with: eight bytes at a time (SWAR), so that the
/// length of a number costs no branch per digit (nor a mispredicted one at its end).
#[inline(always)]
pub(crate) fn digit_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        // Per byte, on its low seven bits (no borrow or carry crosses bytes): the high bit of
        // `low` is clear below 0x30, that of `high` set from 0x3a; `x` flags non-ASCII.
        let low = (x | HIGH).wrapping_sub(ONES * 0x30);
        let high = (x & !HIGH).wrapping_add(ONES * 0x46);
        let other = (!low | high | x) & HIGH;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}
