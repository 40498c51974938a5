//! The streaming JSON tools' second pass (json-formatter, json-minifier): it re-emits input the
//! first pass (`json_scan`) already found valid, so it looks only at the bytes that change the
//! output. Each 64-byte block becomes bit masks (quotes, backslashes, whitespace, brackets,
//! commas and colons; `simd::classify` at the widest level the CPU has), a prefix XOR of the unescaped quotes says
//! which bytes lie inside strings, and the bytes in between the marked ones are copied whole.
//! It writes the same bytes as the scanner with [`Writer`] (`json_stream` tests compare them).

use crate::tools::json::scan::Invalid;
use crate::tools::json::simd::{self, AVX2, AVX512, SCALAR, SSE2};
use crate::tools::json::sink::{Out, Writer};

const BOM: &[u8; 3] = b"\xef\xbb\xbf";

/// The second pass's state between pieces.
pub(crate) struct Emitter {
    pretty: bool,
    /// Quotes and backslashes get a backslash (output inside the result envelope).
    escaped: bool,
    depth: usize,
    /// A bracket was opened and nothing written inside yet (`[]` stays on one line).
    pending: bool,
    /// The previous piece ended inside a string.
    in_string: bool,
    /// The previous piece ended with a backslash that escapes this piece's first byte.
    escape: bool,
    /// Bytes of a leading byte order mark skipped so far; 3 once past the start.
    bom: u8,
    /// The widest level of SIMD instructions the CPU has ([`simd::detect`]).
    simd: u8,
}

/// Writes the line break a pretty output owes before its next token or string (the first
/// thing inside a bracket), once.
#[inline(always)]
fn settle<const PRETTY: bool>(o: &mut Out, pending: &mut bool, depth: usize) {
    if PRETTY && *pending {
        *pending = false;
        o.newline(depth);
    }
}

impl Emitter {
    pub(crate) fn new(pretty: bool, escaped: bool) -> Self {
        Emitter {
            pretty,
            escaped,
            depth: 0,
            pending: false,
            in_string: false,
            escape: false,
            bom: 0,
            simd: simd::detect(),
        }
    }

    /// The same emitter at SIMD `level`, or the portable level in its place where this CPU
    /// lacks it ([`simd::forced`]).
    #[cfg(test)]
    pub(crate) fn with_simd(self, level: u8) -> Self {
        Emitter {
            simd: simd::forced(level),
            ..self
        }
    }

    /// Re-emits the next piece of the input. `Invalid` means the input is not what the first
    /// pass saw (a bracket closes nothing).
    pub(crate) fn feed(&mut self, buf: &[u8], w: &mut Writer) -> Result<(), Invalid> {
        let mut from = 0;
        while self.bom < 3 {
            match buf.get(from) {
                None => return Ok(()),
                Some(&b) if b == BOM[usize::from(self.bom)] => {
                    self.bom += 1;
                    from += 1;
                }
                Some(_) => self.bom = 3,
            }
        }
        let buf = &buf[from..];
        let mut out = w.lend();
        let fed = match self.simd {
            // SAFETY: `simd::detect` found the CPU to have these instructions (or a test forced
            // a level only where it does, `simd::forced`).
            #[cfg(target_arch = "x86_64")]
            AVX512 => unsafe { self.blocks_avx512(buf, &mut out, w) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            AVX2 => unsafe { self.blocks_avx2(buf, &mut out, w) },
            #[cfg(target_arch = "x86_64")]
            SSE2 => self.kinds::<SSE2>(buf, &mut out, w),
            _ => self.kinds::<SCALAR>(buf, &mut out, w),
        };
        w.give_back(out);
        fed
    }

    /// [`Emitter::kinds`] compiled for AVX-512 (and the bit instructions of its CPUs).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn blocks_avx512(&mut self, buf: &[u8], o: &mut Out, w: &mut Writer) -> Result<(), Invalid> {
        self.kinds::<AVX512>(buf, o, w)
    }

    /// [`Emitter::kinds`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn blocks_avx2(&mut self, buf: &[u8], o: &mut Out, w: &mut Writer) -> Result<(), Invalid> {
        self.kinds::<AVX2>(buf, o, w)
    }

    #[inline(always)]
    fn kinds<const SIMD: u8>(
        &mut self,
        buf: &[u8],
        o: &mut Out,
        w: &mut Writer,
    ) -> Result<(), Invalid> {
        match (self.pretty, self.escaped) {
            (true, true) => self.blocks::<true, true, SIMD>(buf, o, w),
            (true, false) => self.blocks::<true, false, SIMD>(buf, o, w),
            (false, true) => self.blocks::<false, true, SIMD>(buf, o, w),
            (false, false) => self.blocks::<false, false, SIMD>(buf, o, w),
        }
    }

    /// [`Emitter::feed`] past the byte order mark, one variant per kind of output so that
    /// the tests of it leave the loop; the state it changes per stop lives in locals (in
    /// registers) until the piece ends.
    #[inline(always)]
    fn blocks<const PRETTY: bool, const ESCAPED: bool, const SIMD: u8>(
        &mut self,
        buf: &[u8],
        o: &mut Out,
        w: &mut Writer,
    ) -> Result<(), Invalid> {
        let n = buf.len();
        let (mut depth, mut pending) = (self.depth, self.pending);
        // Bytes before `last` are written.
        let mut last = 0;
        let mut at = 0;
        while at < n {
            let len = (n - at).min(64);
            let masks = match <&[u8; 64]>::try_from(&buf[at..at + len]) {
                Ok(block) => simd::classify::<SIMD>(block),
                Err(_) => {
                    let mut pad = [0u8; 64];
                    pad[..len].copy_from_slice(&buf[at..]);
                    simd::classify::<SIMD>(&pad)
                }
            };
            let escaped = self.escaped_bits(masks.backslash, len);
            let quotes = masks.quote & !escaped;
            // Set from an opening quote up to, not including, its closing one.
            let inside = prefix_xor(quotes) ^ if self.in_string { !0 } else { 0 };
            self.in_string = inside >> 63 == 1;
            let outside = !(inside | quotes);
            let spaces = masks.space & outside;
            let specials = if ESCAPED {
                masks.quote | masks.backslash
            } else {
                0
            };
            let mut stops = spaces | specials;
            if PRETTY {
                stops |= masks.structural & outside;
            }
            while stops != 0 {
                let bit = stops & stops.wrapping_neg();
                stops ^= bit;
                let pos = at + bit.trailing_zeros() as usize;
                if last < pos {
                    settle::<PRETTY>(o, &mut pending, depth);
                    o.token(buf, last, pos, w);
                    o.room(w);
                }
                // An opening quote whose string closes in this block with no backslash
                // before: the whole string at once, one stop instead of two.
                if ESCAPED && bit & quotes & inside != 0 {
                    let next = stops & stops.wrapping_neg();
                    if next & quotes != 0 {
                        let end = at + next.trailing_zeros() as usize;
                        stops ^= next;
                        settle::<PRETTY>(o, &mut pending, depth);
                        o.escaped_string(buf, pos + 1, end, w);
                        last = end + 1;
                        // A key's colon right after it: no stop of its own either.
                        if PRETTY
                            && next << 1 != 0
                            && stops & stops.wrapping_neg() == next << 1
                            && buf.get(end + 1) == Some(&b':')
                        {
                            stops &= stops - 1;
                            o.text(b": ");
                            last = end + 2;
                        }
                        o.room(w);
                        continue;
                    }
                }
                last = pos + 1;
                // Tested on the masks, not with a jump on the byte: the kinds follow a
                // pattern (quote, quote, colon, ...) that conditional branches predict and a
                // jump table did not (a misprediction on most stops).
                if bit & specials != 0 {
                    settle::<PRETTY>(o, &mut pending, depth);
                    o.special::<ESCAPED>(buf[pos]);
                } else if PRETTY && bit & spaces == 0 {
                    // A bracket, comma or colon outside strings.
                    let b = buf[pos];
                    if b == b',' {
                        o.text(b",");
                        o.newline(depth);
                    } else if b == b':' {
                        o.text(b": ");
                    } else if b == b'[' || b == b'{' {
                        if pending {
                            o.newline(depth);
                        }
                        o.text(&[b]);
                        depth += 1;
                        pending = true;
                    } else {
                        let Some(up) = depth.checked_sub(1) else {
                            self.depth = depth;
                            return Err(Invalid);
                        };
                        depth = up;
                        if pending {
                            pending = false;
                        } else {
                            o.newline(depth);
                        }
                        o.text(&[b]);
                    }
                }
                o.room(w);
            }
            at += len;
        }
        if last < n {
            settle::<PRETTY>(o, &mut pending, depth);
            o.token(buf, last, n, w);
            o.room(w);
        }
        self.depth = depth;
        self.pending = pending;
        Ok(())
    }

    /// The end of the input: every bracket closed, every string ended.
    pub(crate) fn end(&self) -> Result<(), Invalid> {
        if self.depth == 0 && !self.in_string && !self.escape && !self.pending {
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    /// The bytes of a block of `len` bytes that a backslash escapes; keeps for the next block
    /// whether its first byte is escaped.
    #[inline(always)]
    fn escaped_bits(&mut self, backslash: u64, len: usize) -> u64 {
        let mut escaped = u64::from(self.escape);
        if backslash == 0 && !self.escape {
            return 0;
        }
        // Backslashes come in strings only, and rarely: one at a time, in order, each
        // escaping the next byte unless it is escaped itself.
        let mut carry = false;
        let mut rest = backslash;
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            if escaped >> i & 1 == 0 {
                if i == 63 {
                    carry = true;
                } else {
                    escaped |= 1 << (i + 1);
                }
            }
        }
        self.escape = if len == 64 {
            carry
        } else {
            escaped >> len & 1 == 1
        };
        escaped
    }
}

/// Bit `i` set when an odd number of bits `0..=i` of `x` are.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::json::scan::Scanner;
    use crate::tools::json::stream::tests::Rng;

    #[test]
    fn backslashes_escape_across_blocks_as_a_byte_by_byte_walk_says() {
        let mut rng = Rng(12345);
        for _ in 0..2000 {
            // Backslash runs of any length, cut into blocks of random lengths.
            let len = 1 + rng.next() as usize % 300;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.next().is_multiple_of(3) {
                        b'a'
                    } else {
                        b'\\'
                    }
                })
                .collect();
            let mut expected = vec![false; len];
            let mut escape = false;
            for (i, &b) in bytes.iter().enumerate() {
                expected[i] = escape;
                escape = !escape && b == b'\\';
            }
            let mut emitter = Emitter::new(false, false);
            let mut got = Vec::new();
            let mut at = 0;
            while at < len {
                let n = (1 + rng.next() as usize % 64).min(len - at);
                let mask = bytes[at..at + n]
                    .iter()
                    .enumerate()
                    .fold(0u64, |m, (i, &b)| m | (u64::from(b == b'\\') << i));
                let escaped = emitter.escaped_bits(mask, n);
                got.extend((0..n).map(|i| escaped >> i & 1 == 1));
                at += n;
            }
            assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(&bytes));
            assert_eq!(emitter.escape, escape);
        }
    }

    /// What the emitter writes for `doc` in pieces of `chunk` bytes, the same at every level
    /// of SIMD instructions (forced, `simd::forced`).
    fn emitted(doc: &[u8], unit: Option<&[u8]>, escaped: bool, chunk: usize) -> Vec<u8> {
        let outs: Vec<Vec<u8>> = simd::LEVELS
            .map(|level| {
                let mut out = Vec::new();
                let mut w = Writer::new(&mut out, unit, escaped);
                let mut e = Emitter::new(unit.is_some(), escaped).with_simd(level);
                for piece in doc.chunks(chunk) {
                    e.feed(piece, &mut w).expect("emit");
                }
                e.end().expect("end");
                w.flush().expect("flush");
                out
            })
            .into();
        for (level, out) in simd::LEVELS.iter().zip(&outs) {
            assert!(
                *out == outs[0],
                "{} differs from scalar",
                simd::name(*level)
            );
        }
        outs.into_iter().next().unwrap_or_default()
    }

    /// What the validating scanner writes for `doc`, whole, the same at every level.
    fn scanned(doc: &[u8], unit: Option<&[u8]>, escaped: bool) -> Vec<u8> {
        let outs = simd::LEVELS.map(|level| {
            let mut out = Vec::new();
            let mut w = Writer::new(&mut out, unit, escaped);
            let mut s = Scanner::new(unit.is_some(), false, true).with_simd(level);
            s.feed(doc, &mut w).expect("valid");
            s.end().expect("valid end");
            w.flush().expect("flush");
            out
        });
        for (level, out) in simd::LEVELS.iter().zip(&outs) {
            assert!(
                *out == outs[0],
                "{} differs from scalar",
                simd::name(*level)
            );
        }
        outs.into_iter().next().unwrap_or_default()
    }

    #[test]
    fn tokens_straddling_every_block_and_piece_boundary_come_out_as_the_scanner_writes_them() {
        let tricky = [
            r#"{"k\"ey":"a\\\\\"b","e":[],"o":{},"n":-12.5e+3}"#,
            r#"[ "x\\", "\\\"" , [ [ ] , { } ] , true,false ,null,"\u00e9\n"]"#,
            "\u{feff}{ \"a\" : [ 1 ,\t2 ,\r\n3 ] , \"b\" : \"é 東 😀 \\/\" }",
            r#""just a \"string\" with a \\ in it""#,
            " 42 ",
        ];
        let units: [Option<&[u8]>; 3] = [None, Some(b"  "), Some(b"\t")];
        for doc in tricky {
            for pad in 0..70 {
                // `pad` spaces move every token across the 64-byte blocks (after a BOM, the
                // blocks start past it).
                let (bom, rest) = match doc.strip_prefix('\u{feff}') {
                    Some(rest) => ("\u{feff}", rest),
                    None => ("", doc),
                };
                let text = format!("{bom}{}{rest}{}", " ".repeat(pad), "\n".repeat(pad % 3));
                let bytes = text.as_bytes();
                for unit in units {
                    for escaped in [false, true] {
                        let expected = scanned(bytes, unit, escaped);
                        for chunk in [1, 2, 3, 17, 63, 64, 65, 130, bytes.len()] {
                            assert_eq!(
                                String::from_utf8_lossy(&emitted(bytes, unit, escaped, chunk)),
                                String::from_utf8_lossy(&expected),
                                "{text:?} unit {unit:?} escaped {escaped} chunk {chunk}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn long_tokens_and_output_past_the_buffer_come_out_whole() {
        // A string longer than the writer's slack (handed on past the buffer) and enough
        // records to fill the 128 KiB buffer several times over, in pieces of odd sizes.
        let long = "x\\\"y".repeat(3000);
        let mut doc = format!("[\"{long}\",{{\"k\":\"{long}\"}}");
        for i in 0..9000 {
            doc.push_str(&format!(
                ",{{\"id\":{i},\"t\":[\"a b\",[],{{}}],\"n\":null}}"
            ));
        }
        doc.push(']');
        let bytes = doc.as_bytes();
        assert!(bytes.len() > 300 << 10);
        for unit in [None, Some(&b"  "[..]), Some(&b"\t"[..])] {
            for escaped in [false, true] {
                let expected = scanned(bytes, unit, escaped);
                for chunk in [4093, 1 << 17] {
                    assert!(
                        emitted(bytes, unit, escaped, chunk) == expected,
                        "unit {unit:?} escaped {escaped} chunk {chunk}"
                    );
                }
            }
        }
    }

    #[test]
    fn deep_nesting_and_a_bracket_that_closes_nothing() {
        let doc = format!("{}1{}", "[{\"a\":".repeat(60), "}]".repeat(60));
        for unit in [None, Some(&b"    "[..])] {
            assert_eq!(
                emitted(doc.as_bytes(), unit, true, 7),
                scanned(doc.as_bytes(), unit, true)
            );
        }
        // Input changed since the first pass: the emitter notices what it can.
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out, Some(b"  "), false);
        let mut e = Emitter::new(true, false);
        assert!(e.feed(b"[1]]", &mut w).is_err());
        let mut e = Emitter::new(true, false);
        e.feed(b"[\"open", &mut w).expect("feed");
        assert!(e.end().is_err());
    }
}
