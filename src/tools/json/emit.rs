//! The streaming JSON tools' second pass (json-formatter, json-minifier): it re-emits input the
//! first pass (`json_scan`) already found valid, so it looks only at the bytes that change the
//! output. Each 64-byte block becomes bit masks (quotes, backslashes, whitespace, brackets,
//! commas and colons; SSE2, part of every x86-64 CPU), a prefix XOR of the unescaped quotes says
//! which bytes lie inside strings, and the bytes in between the marked ones are copied whole.
//! It writes the same bytes as the scanner with [`Writer`] (`json_stream` tests compare them).

use crate::tools::json::scan::Invalid;
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
    /// The widest of [`SSE2`], [`AVX2`] and [`AVX512`] the CPU has.
    simd: u8,
}

/// The instructions [`classify`] works with: SSE2 is part of every x86-64 CPU; the loop is
/// compiled once more for each wider kind and the one to run chosen when the pass starts.
/// With AVX-512 a block is classified by ten compares of all 64 bytes, each straight into a
/// bit mask; the SSE2 classification, four times as many instructions, was a fifth of the pass.
pub(crate) const SSE2: u8 = 0;
pub(crate) const AVX2: u8 = 1;
pub(crate) const AVX512: u8 = 2;

/// The widest kind of SIMD instructions this CPU runs.
pub(crate) fn simd_level() -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        // Every feature the wider loops are compiled with must be there, not only the vector
        // width: a virtual machine may offer AVX2 and hide BMI2.
        let base = has!("avx2") && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
        if base && has!("avx512f") && has!("avx512bw") {
            return AVX512;
        }
        if base {
            return AVX2;
        }
    }
    SSE2
}

/// One 64-byte block's bytes of each kind, bit `i` for byte `i`.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(crate) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// Space, tab, line feed, carriage return.
    pub space: u64,
    /// `{`, `}`, `[`, `]`, `,` and `:`.
    pub structural: u64,
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
            simd: simd_level(),
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
            // SAFETY: `simd_level` found the CPU to have these instructions.
            #[cfg(target_arch = "x86_64")]
            AVX512 => unsafe { self.blocks_avx512(buf, &mut out, w) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            AVX2 => unsafe { self.blocks_avx2(buf, &mut out, w) },
            _ => self.kinds::<SSE2>(buf, &mut out, w),
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
                Ok(block) => classify_with::<SIMD>(block),
                Err(_) => {
                    let mut pad = [0u8; 64];
                    pad[..len].copy_from_slice(&buf[at..]);
                    classify_with::<SIMD>(&pad)
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

/// The masks of one block with the SSE2 baseline (tests check the other kinds against it).
#[cfg(test)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    classify_with::<SSE2>(block)
}

/// The masks of one block with the `SIMD` instructions; inlined only into code compiled for
/// them (the `SIMD` variants of [`Emitter::blocks`]), or called after [`simd_level`] said so.
#[inline(always)]
pub(crate) fn classify_with<const SIMD: u8>(block: &[u8; 64]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    {
        match SIMD {
            // SAFETY: only run where the CPU has AVX-512BW (see above).
            AVX512 => unsafe { classify_avx512(block) },
            // SAFETY: only run where the CPU has AVX2.
            AVX2 => unsafe { classify_avx2(block) },
            _ => classify_sse2(block),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    classify_scalar(block)
}

/// [`classify_sse2`] 64 bytes at a time; each compare gives its bit mask directly.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn classify_avx512(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_or_si512, _mm512_set1_epi8,
    };
    // SAFETY: the caller vouches for the instructions; the load reads the block's 64 bytes.
    unsafe {
        let x = _mm512_loadu_si512(block.as_ptr().cast::<__m512i>());
        let eq = |v: __m512i, c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
        // `[` and `{`, `]` and `}` differ only in bit 0x20.
        let lower = _mm512_or_si512(x, _mm512_set1_epi8(0x20));
        Masks {
            quote: eq(x, b'"'),
            backslash: eq(x, b'\\'),
            space: eq(x, b' ') | eq(x, b'\n') | eq(x, b'\r') | eq(x, b'\t'),
            structural: eq(lower, b'{') | eq(lower, b'}') | eq(x, b',') | eq(x, b':'),
        }
    }
}

/// [`classify_sse2`] 32 bytes at a time.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn classify_avx2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        space: 0,
        structural: 0,
    };
    for (k, part) in block.chunks_exact(32).enumerate() {
        // SAFETY: the caller vouches for AVX2, and the load reads the 32 bytes of `part`.
        let [quote, backslash, space, structural] = unsafe {
            let x = _mm256_loadu_si256(part.as_ptr().cast::<__m256i>());
            let eq = |v: __m256i, c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
            let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32);
            let space = _mm256_or_si256(
                _mm256_or_si256(eq(x, b' '), eq(x, b'\n')),
                _mm256_or_si256(eq(x, b'\r'), eq(x, b'\t')),
            );
            let lower = _mm256_or_si256(x, _mm256_set1_epi8(0x20));
            let structural = _mm256_or_si256(
                _mm256_or_si256(eq(lower, b'{'), eq(lower, b'}')),
                _mm256_or_si256(eq(x, b','), eq(x, b':')),
            );
            [
                bits(eq(x, b'"')),
                bits(eq(x, b'\\')),
                bits(space),
                bits(structural),
            ]
        };
        let shift = 32 * k;
        m.quote |= quote << shift;
        m.backslash |= backslash << shift;
        m.space |= space << shift;
        m.structural |= structural << shift;
    }
    m
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn classify_sse2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        space: 0,
        structural: 0,
    };
    for (k, part) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of x86-64, and the load reads the 16 bytes of `part`.
        let [quote, backslash, space, structural] = unsafe {
            let x = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
            let eq = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
            let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16);
            let space = _mm_or_si128(
                _mm_or_si128(eq(b' '), eq(b'\n')),
                _mm_or_si128(eq(b'\r'), eq(b'\t')),
            );
            // `[` and `{`, `]` and `}` differ only in bit 0x20.
            let lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
            let brackets = _mm_or_si128(
                _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'{' as i8)),
                _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'}' as i8)),
            );
            let structural = _mm_or_si128(brackets, _mm_or_si128(eq(b','), eq(b':')));
            [
                bits(eq(b'"')),
                bits(eq(b'\\')),
                bits(space),
                bits(structural),
            ]
        };
        let shift = 16 * k;
        m.quote |= quote << shift;
        m.backslash |= backslash << shift;
        m.space |= space << shift;
        m.structural |= structural << shift;
    }
    m
}

/// [`classify`] a byte at a time, for any CPU (and to check the SSE2 one against).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn classify_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        space: 0,
        structural: 0,
    };
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b' ' | b'\n' | b'\r' | b'\t' => m.space |= bit,
            b'{' | b'}' | b'[' | b']' | b',' | b':' => m.structural |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::json::scan::Scanner;
    use crate::tools::json::stream::tests::Rng;

    #[test]
    fn sse2_and_byte_by_byte_masks_agree_on_random_blocks() {
        let alphabet = b"\"\\ \n\r\t{}[],:a0\x00\x7f\x80\xff;<Z{[";
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let block = rng.block(alphabet, 3);
            assert_eq!(classify(&block), classify_scalar(&block), "{block:?}");
            #[cfg(target_arch = "x86_64")]
            {
                let level = simd_level();
                if level >= AVX2 {
                    // SAFETY: the CPU has AVX2.
                    let wide = unsafe { classify_avx2(&block) };
                    assert_eq!(wide, classify_scalar(&block), "AVX2 {block:?}");
                }
                if level >= AVX512 {
                    // SAFETY: the CPU has AVX-512BW.
                    let wide = unsafe { classify_avx512(&block) };
                    assert_eq!(wide, classify_scalar(&block), "AVX-512 {block:?}");
                }
            }
        }
        let mut block = [b'x'; 64];
        block[0] = b'"';
        block[15] = b'\\';
        block[16] = b'[';
        block[63] = b'\t';
        assert_eq!(
            classify(&block),
            Masks {
                quote: 1,
                backslash: 1 << 15,
                space: 1 << 63,
                structural: 1 << 16,
            }
        );
    }

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

    /// What the emitter writes for `doc` in pieces of `chunk` bytes, the same with each kind
    /// of SIMD instructions this CPU has.
    fn emitted(doc: &[u8], unit: Option<&[u8]>, escaped: bool, chunk: usize) -> Vec<u8> {
        let outs: Vec<Vec<u8>> = (SSE2..=simd_level())
            .map(|simd| {
                let mut out = Vec::new();
                let mut w = Writer::new(&mut out, unit, escaped);
                let mut e = Emitter::new(unit.is_some(), escaped);
                e.simd = simd;
                for piece in doc.chunks(chunk) {
                    e.feed(piece, &mut w).expect("emit");
                }
                e.end().expect("end");
                w.flush().expect("flush");
                out
            })
            .collect();
        for (simd, out) in outs.iter().enumerate() {
            assert!(*out == outs[0], "SIMD level {simd} differs from SSE2");
        }
        outs.into_iter().next().unwrap_or_default()
    }

    /// What the validating scanner writes for `doc`, whole.
    fn scanned(doc: &[u8], unit: Option<&[u8]>, escaped: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out, unit, escaped);
        let mut s = Scanner::new(unit.is_some(), false, true);
        s.feed(doc, &mut w).expect("valid");
        s.end().expect("valid end");
        w.flush().expect("flush");
        out
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
