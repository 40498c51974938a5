//! The scanner's fast path: whole tokens in a loop whose place in the code is the grammar's
//! state (a value, then `,` or a closing bracket, then a key and its colon), so that no token
//! goes through a jump on a state kept in memory. Measured on the benchmark's 64 MiB file, that
//! jump, mispredicted on most tokens, took a quarter of each pass.
//!
//! It stops, with the state set, at the first token that does not lie whole inside the piece
//! or that it leaves to the careful path ([`Scanner::token`]): anything invalid or unusual.

use super::{Invalid, Scanner, Sink, State, whole_number};
use crate::tools::kit::depth::JSON_DEPTH;

/// Where a key and its colon left the scan.
enum Step {
    /// At the value after the colon.
    Value(usize),
    /// Stopped here, with the state set.
    Stop(usize),
}

impl Scanner {
    /// Whole tokens from `i` while they lie inside the piece; returns where it stopped (the
    /// end of the piece, or the start of a token for [`Scanner::token`]).
    #[inline(always)]
    pub(super) fn fast<S: Sink, const SIMD: u8>(
        &mut self,
        buf: &[u8],
        i: usize,
        s: &mut S,
    ) -> Result<usize, Invalid> {
        let n = buf.len();
        // Into the loop at a value or after one.
        let (mut i, mut at_value) = match self.state {
            State::Value { first: false } => (i, true),
            State::After => (i, false),
            State::Value { first: true } | State::Key { first: true } => {
                let object = matches!(self.state, State::Key { .. });
                let i = skip_ws(buf, i);
                let Some(&b) = buf.get(i) else {
                    return Ok(i);
                };
                if b == closing(object) {
                    self.stack.pop();
                    self.pending = false;
                    s.byte(b);
                    (i + 1, false)
                } else {
                    self.pending = false;
                    if self.pretty {
                        s.newline(self.stack.len());
                    }
                    if object {
                        match self.key::<S, SIMD>(buf, i, s)? {
                            Step::Value(i) => (i, true),
                            Step::Stop(i) => return Ok(i),
                        }
                    } else {
                        self.state = State::Value { first: false };
                        (i, true)
                    }
                }
            }
            State::Key { first: false } => match self.key::<S, SIMD>(buf, i, s)? {
                Step::Value(i) => (i, true),
                Step::Stop(i) => return Ok(i),
            },
            State::Colon => match self.colon_at(buf, i, s) {
                Step::Value(i) => (i, true),
                Step::Stop(i) => return Ok(i),
            },
            State::Str { .. } | State::Num(_) | State::Lit => return Ok(i),
        };
        loop {
            if at_value {
                i = skip_ws(buf, i);
                let Some(&b) = buf.get(i) else {
                    self.state = State::Value { first: false };
                    return Ok(i);
                };
                match b {
                    b'"' => {
                        i = self.quoted::<S, SIMD>(buf, i + 1, false, s)?;
                        if i >= n {
                            return Ok(i);
                        }
                    }
                    b'-' | b'0'..=b'9' => match whole_number(&buf[i..])? {
                        Some(len) => {
                            s.token(buf, i, i + len);
                            i += len;
                        }
                        None => {
                            self.state = State::Value { first: false };
                            return Ok(i);
                        }
                    },
                    b't' | b'f' | b'n' => {
                        // The last four letters, compared as one word (a slice compare
                        // calls `memcmp`); `b` is the first.
                        let (len, last) = match b {
                            b't' => (4, *b"true"),
                            b'f' => (5, *b"alse"),
                            _ => (4, *b"null"),
                        };
                        let end = i + len;
                        let word = buf
                            .get(end - 4..end)
                            .and_then(|w| <[u8; 4]>::try_from(w).ok());
                        if word != Some(last) {
                            self.state = State::Value { first: false };
                            return Ok(i);
                        }
                        s.token(buf, i, end);
                        i = end;
                    }
                    b'{' | b'[' => {
                        if self.stack.len() >= JSON_DEPTH {
                            return Err(Invalid);
                        }
                        let object = b == b'{';
                        self.stack.push(object);
                        s.byte(b);
                        i = skip_ws(buf, i + 1);
                        let Some(&c) = buf.get(i) else {
                            self.pending = true;
                            self.state = if object {
                                State::Key { first: true }
                            } else {
                                State::Value { first: true }
                            };
                            return Ok(i);
                        };
                        if c == closing(object) {
                            self.stack.pop();
                            s.byte(c);
                            i += 1;
                        } else {
                            if self.pretty {
                                s.newline(self.stack.len());
                            }
                            if object {
                                match self.key::<S, SIMD>(buf, i, s)? {
                                    Step::Value(at) => i = at,
                                    Step::Stop(at) => return Ok(at),
                                }
                            }
                            continue;
                        }
                    }
                    _ => {
                        self.state = State::Value { first: false };
                        return Ok(i);
                    }
                }
            }
            at_value = true;
            // After a value: closing brackets until a `,` leads to the next value.
            loop {
                i = skip_ws(buf, i);
                let (Some(&b), Some(&object)) = (buf.get(i), self.stack.last()) else {
                    self.state = State::After;
                    return Ok(i);
                };
                if b == b',' {
                    s.byte(b',');
                    if self.pretty {
                        s.newline(self.stack.len());
                    }
                    i += 1;
                    if object {
                        match self.key::<S, SIMD>(buf, i, s)? {
                            Step::Value(at) => i = at,
                            Step::Stop(at) => return Ok(at),
                        }
                    }
                    break;
                }
                if b != closing(object) {
                    self.state = State::After;
                    return Ok(i);
                }
                self.stack.pop();
                if self.pretty {
                    s.newline(self.stack.len());
                }
                s.byte(b);
                i += 1;
            }
        }
    }

    /// A key and its colon from `i`.
    #[inline(always)]
    fn key<S: Sink, const SIMD: u8>(
        &mut self,
        buf: &[u8],
        i: usize,
        s: &mut S,
    ) -> Result<Step, Invalid> {
        let i = skip_ws(buf, i);
        if buf.get(i) != Some(&b'"') {
            self.state = State::Key { first: false };
            return Ok(Step::Stop(i));
        }
        // Sets the state: `Colon` after the key, `Str` when the piece cuts it.
        let i = self.quoted::<S, SIMD>(buf, i + 1, true, s)?;
        Ok(self.colon_at(buf, i, s))
    }

    /// The colon after a key, from `i` (the state is `Colon`, or `Str` at the piece's end).
    #[inline(always)]
    fn colon_at<S: Sink>(&mut self, buf: &[u8], i: usize, s: &mut S) -> Step {
        let i = skip_ws(buf, i);
        if buf.get(i) != Some(&b':') {
            return Step::Stop(i);
        }
        self.colon(s);
        Step::Value(i + 1)
    }
}

#[inline(always)]
fn closing(object: bool) -> u8 {
    if object { b'}' } else { b']' }
}

/// The first byte at or after `i` that is not JSON whitespace, or the piece's length.
#[inline(always)]
fn skip_ws(buf: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = buf.get(i) {
        i += 1;
    }
    i
}
