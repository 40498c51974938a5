//! The JSON engine's SIMD kernels, apart from the scanner (`scan`) and the emitter (`emit`)
//! whose loops are compiled once per level: which level this CPU runs, and per level the
//! classification of 64-byte blocks (the emitter's [`Masks`], the scanner's [`special_bits`])
//! and the search for a string's next byte to stop at ([`next_special`]). Each level can be
//! forced from a test on any host ([`forced`]), so every one of them is tested.

/// The levels of instructions the kernels come in. SSE2 is part of every x86-64 CPU; the
/// scanner's and emitter's loops are compiled once more for each wider level and the one to
/// run chosen when a pass starts. With AVX-512 a block is classified by ten compares of all 64
/// bytes, each straight into a bit mask; the SSE2 classification, four times as many
/// instructions, was a fifth of the pass. [`SCALAR`] is the portable level: what other CPUs
/// run, and what tests run in place of a level this CPU lacks ([`forced`]).
pub(crate) const SCALAR: u8 = 0;
pub(crate) const SSE2: u8 = 1;
pub(crate) const AVX2: u8 = 2;
pub(crate) const AVX512: u8 = 3;

/// Every level, narrowest first.
#[cfg(test)]
pub(crate) const LEVELS: [u8; 4] = [SCALAR, SSE2, AVX2, AVX512];

/// The widest level this CPU runs.
pub(crate) fn detect() -> u8 {
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
        SSE2
    }
    #[cfg(not(target_arch = "x86_64"))]
    SCALAR
}

/// A level's name, for messages.
#[cfg(test)]
pub(crate) fn name(level: u8) -> &'static str {
    match level {
        SCALAR => "scalar",
        SSE2 => "SSE2",
        AVX2 => "AVX2",
        _ => "AVX-512",
    }
}

/// The level a test asks for when this CPU runs it, else the portable level in its place (the
/// same loop with the scalar kernels), said on stderr past the harness's capture so that what
/// was not run natively is never silent. A test that loops over [`LEVELS`] with it runs every
/// level's code on any host, each vector level natively wherever the CPU has it.
#[cfg(test)]
pub(crate) fn forced(level: u8) -> u8 {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: [AtomicBool; 4] = [const { AtomicBool::new(false) }; 4];
    if level <= detect() {
        return level;
    }
    // Once per level and process (nextest runs each test in a process of its own).
    if !SAID[usize::from(level.min(AVX512))].swap(true, Ordering::Relaxed) {
        let thread = std::thread::current();
        let _ = writeln!(
            std::io::stderr(),
            "emulated: {}: this CPU lacks {}, so its loop ran with the portable kernels",
            thread.name().unwrap_or("a test"),
            name(level)
        );
    }
    SCALAR
}

/// One 64-byte block's bytes of each kind, bit `i` for byte `i` (the emitter's view).
#[derive(Debug, PartialEq, Eq, Clone, Copy, Default)]
pub(crate) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// Space, tab, line feed, carriage return.
    pub space: u64,
    /// `{`, `}`, `[`, `]`, `,` and `:`.
    pub structural: u64,
}

impl Masks {
    /// Adds the masks of the part of a block that starts at byte `at` (the narrower levels
    /// classify a block a part at a time).
    #[inline(always)]
    fn add_part(&mut self, [quote, backslash, space, structural]: [u64; 4], at: usize) {
        self.quote |= quote << at;
        self.backslash |= backslash << at;
        self.space |= space << at;
        self.structural |= structural << at;
    }
}

/// The masks of one block with the `SIMD` level's instructions; inlined only into code
/// compiled for them (the `SIMD` variants of the emitter's loop), or called after [`detect`]
/// said so.
#[inline(always)]
pub(crate) fn classify<const SIMD: u8>(block: &[u8; 64]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    {
        match SIMD {
            // SAFETY: only run where the CPU has AVX-512BW (see above).
            AVX512 => unsafe { classify_avx512(block) },
            // SAFETY: only run where the CPU has AVX2.
            AVX2 => unsafe { classify_avx2(block) },
            SSE2 => classify_sse2(block),
            _ => classify_scalar(block),
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
    let mut m = Masks::default();
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
        m.add_part([quote, backslash, space, structural], 32 * k);
    }
    m
}

/// The masks 16 bytes at a time (SSE2, part of x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn classify_sse2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut m = Masks::default();
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
        m.add_part([quote, backslash, space, structural], 16 * k);
    }
    m
}

/// The masks a byte at a time, for any CPU (and to check the others against).
#[inline(always)]
fn classify_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
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

/// Where the first byte a string cannot simply copy is (`"`, `\`, a control character, and
/// with `ascii` a non-ASCII byte), or the length of `bytes`: sixteen bytes at a time with SSE2
/// (part of every x86-64 CPU), the rest eight at a time.
#[inline(always)]
pub(crate) fn next_special(bytes: &[u8], ascii: bool) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let mut at = 0;
        while let Some(block) = bytes.get(at..at + 16) {
            let flags = special16(block, ascii);
            if flags != 0 {
                return at + flags.trailing_zeros() as usize;
            }
            at += 16;
        }
        at + next_special_swar(&bytes[at..], ascii)
    }
    #[cfg(not(target_arch = "x86_64"))]
    next_special_swar(bytes, ascii)
}

/// The bytes of the first 16 of `part` that [`next_special`] stops at, bit `k` for byte `k`
/// (SSE2, part of x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special16(part: &[u8], ascii: bool) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert!(part.len() >= 16);
    // SAFETY: SSE2 is part of x86-64, and the load reads 16 bytes of `part`, which holds them.
    unsafe {
        let x = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
        let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
        let slash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
        // Below 0x20 exactly when min(x, 0x1f) is x (unsigned).
        let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
        let found = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), control));
        // The high bit of each byte: non-ASCII.
        let high = if ascii { _mm_movemask_epi8(x) } else { 0 };
        (found | high) as u32
    }
}

/// The bytes of a 64-byte `block` that [`next_special`] stops at, bit `k` for byte `k`, with
/// the `SIMD` level's instructions (only in code compiled for them, see the scanner's `feed`).
#[inline(always)]
pub(crate) fn special_bits<const SIMD: u8>(block: &[u8], ascii: bool) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(block) = block.first_chunk::<64>() {
            match SIMD {
                // SAFETY: only run where the CPU has AVX-512BW.
                AVX512 => return unsafe { special_bits_avx512(block, ascii) },
                // SAFETY: only run where the CPU has AVX2.
                AVX2 => return unsafe { special_bits_avx2(block, ascii) },
                _ => {}
            }
        }
        if SIMD != SCALAR {
            let mut bits = 0u64;
            for (k, part) in block.chunks_exact(16).take(4).enumerate() {
                bits |= u64::from(special16(part, ascii) as u16) << (16 * k);
            }
            return bits;
        }
    }
    special_bits_scalar(block, ascii)
}

/// [`special_bits`] a byte at a time, for any CPU.
#[inline(always)]
fn special_bits_scalar(block: &[u8], ascii: bool) -> u64 {
    block.iter().take(64).enumerate().fold(0, |bits, (k, &b)| {
        let stop = b < 0x20 || b == b'"' || b == b'\\' || (ascii && b >= 0x80);
        bits | u64::from(stop) << k
    })
}

/// [`special_bits`] with AVX-512: each test of all 64 bytes gives its mask directly.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn special_bits_avx512(block: &[u8; 64], ascii: bool) -> u64 {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_loadu_si512,
        _mm512_movepi8_mask, _mm512_set1_epi8,
    };
    // SAFETY: the caller vouches for the instructions; the load reads the block's 64 bytes.
    unsafe {
        let x = _mm512_loadu_si512(block.as_ptr().cast::<__m512i>());
        let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
        let control = _mm512_cmplt_epu8_mask(x, _mm512_set1_epi8(0x20));
        // The high bit of each byte: non-ASCII.
        let high = if ascii { _mm512_movepi8_mask(x) } else { 0 };
        eq(b'"') | eq(b'\\') | control | high
    }
}

/// [`special_bits`] with AVX2, 32 bytes at a time.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn special_bits_avx2(block: &[u8; 64], ascii: bool) -> u64 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };
    let mut bits = 0u64;
    for (k, part) in block.chunks_exact(32).enumerate() {
        // SAFETY: the caller vouches for AVX2, and the load reads the 32 bytes of `part`.
        let found = unsafe {
            let x = _mm256_loadu_si256(part.as_ptr().cast::<__m256i>());
            let eq = |c: u8| _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c as i8));
            // Below 0x20 exactly when min(x, 0x1f) is x (unsigned).
            let control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1f)), x);
            let found = _mm256_movemask_epi8(_mm256_or_si256(
                _mm256_or_si256(eq(b'"'), eq(b'\\')),
                control,
            ));
            let high = if ascii { _mm256_movemask_epi8(x) } else { 0 };
            (found | high) as u32
        };
        bits |= u64::from(found) << (32 * k);
    }
    bits
}

/// [`next_special`] eight bytes at a time in a `u64` (SWAR), for any CPU.
#[inline(always)]
pub(crate) fn next_special_swar(bytes: &[u8], ascii: bool) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let non_ascii = if ascii { HIGH } else { 0 };
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        // A byte's high bit is set in `flags` when it is below 0x20, `"` or `\` (borrows can
        // flag bytes above a real match, never below one), or non-ASCII when that counts.
        let below = |x: u64, k: u64| x.wrapping_sub(ONES * k) & !x;
        let quote = x ^ (ONES * u64::from(b'"'));
        let slash = x ^ (ONES * u64::from(b'\\'));
        let flags = (below(x, 0x20) | below(quote, 1) | below(slash, 1) | (x & non_ascii)) & HIGH;
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + words
        .remainder()
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || (ascii && b >= 0x80))
        .unwrap_or(words.remainder().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::json::stream::tests::Rng;

    /// [`classify`] at a level chosen at run time (a level [`forced`] gave).
    fn classify_at(level: u8, block: &[u8; 64]) -> Masks {
        match level {
            AVX512 => classify::<AVX512>(block),
            AVX2 => classify::<AVX2>(block),
            SSE2 => classify::<SSE2>(block),
            _ => classify::<SCALAR>(block),
        }
    }

    /// [`special_bits`] at a level chosen at run time.
    fn special_bits_at(level: u8, block: &[u8; 64], ascii: bool) -> u64 {
        match level {
            AVX512 => special_bits::<AVX512>(block, ascii),
            AVX2 => special_bits::<AVX2>(block, ascii),
            SSE2 => special_bits::<SSE2>(block, ascii),
            _ => special_bits::<SCALAR>(block, ascii),
        }
    }

    #[test]
    fn every_level_is_forced_natively_where_the_cpu_has_it() {
        assert_eq!(forced(SCALAR), SCALAR);
        for level in LEVELS {
            let ran = forced(level);
            if level <= detect() {
                assert_eq!(ran, level, "{}", name(level));
            } else {
                assert_eq!(ran, SCALAR, "{}", name(level));
            }
        }
        #[cfg(target_arch = "x86_64")]
        assert!(detect() >= SSE2, "SSE2 is part of x86-64");
    }

    #[test]
    fn masks_agree_with_a_byte_by_byte_test_at_every_level() {
        // The scalar kernel is the byte-by-byte reading; the fixed block below checks it too.
        let naive = classify_scalar;
        let levels = LEVELS.map(forced);
        let alphabet = b"\"\\ \n\r\t{}[],:a0\x00\x7f\x80\xff;<Z{[";
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let block = rng.block(alphabet, 3);
            for level in levels {
                assert_eq!(
                    classify_at(level, &block),
                    naive(&block),
                    "{} {block:?}",
                    name(level)
                );
            }
        }
        let mut block = [b'x'; 64];
        block[0] = b'"';
        block[15] = b'\\';
        block[16] = b'[';
        block[63] = b'\t';
        for level in levels {
            assert_eq!(
                classify_at(level, &block),
                Masks {
                    quote: 1,
                    backslash: 1 << 15,
                    space: 1 << 63,
                    structural: 1 << 16,
                },
                "{}",
                name(level)
            );
        }
    }

    #[test]
    fn special_bits_agree_with_a_byte_by_byte_test_at_every_level() {
        let naive = |block: &[u8; 64], ascii: bool| {
            block.iter().enumerate().fold(0u64, |bits, (k, &b)| {
                let stop = b < 0x20 || b == b'"' || b == b'\\' || (ascii && b >= 0x80);
                bits | u64::from(stop) << k
            })
        };
        let alphabet = b"\"\\ \x00\x1f\x20\x21\x7f\x80\xc3\xffab[";
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        let levels = LEVELS.map(forced);
        for _ in 0..20_000 {
            let block = rng.block(alphabet, 4);
            for ascii in [false, true] {
                let want = naive(&block, ascii);
                for level in levels {
                    let got = special_bits_at(level, &block, ascii);
                    assert_eq!(got, want, "{} {block:?}", name(level));
                }
            }
        }
    }

    #[test]
    fn next_special_finds_the_first_byte_to_stop_at() {
        assert_eq!(next_special(b"abcdefghijklmnop", false), 16);
        assert_eq!(next_special(b"abcdefgh\"ijk", false), 8);
        assert_eq!(next_special(b"ab\\", false), 2);
        assert_eq!(next_special(b"abcdefghij\x1fk", false), 10);
        assert_eq!(next_special("abcdefgé".as_bytes(), true), 7);
        assert_eq!(next_special("abcdefgé\"".as_bytes(), false), 9);
        assert_eq!(next_special("é\"".as_bytes(), false), 2);
        assert_eq!(next_special(b"!#~ \x7f", true), 5);
        assert_eq!(next_special(b"\x20\x21\x22", false), 2);
    }

    #[test]
    fn next_special_agrees_with_a_byte_by_byte_search_at_every_place() {
        // Both ends of each block of 16 (SSE2) and 8 (SWAR) bytes, and the tail after them.
        let naive = |bytes: &[u8], ascii: bool| {
            bytes
                .iter()
                .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || (ascii && b >= 0x80))
                .unwrap_or(bytes.len())
        };
        for len in 0..=40 {
            for at in 0..len {
                for stop in [b'"', b'\\', 0x00, 0x1f, 0x80, 0xff] {
                    // Bytes next to the ones searched for: none of them stops a search.
                    let mut bytes: Vec<u8> = (0..len)
                        .map(|i| [b'!', b'#', b'[', 0x7f, b' '][i % 5])
                        .collect();
                    bytes[at] = stop;
                    for ascii in [false, true] {
                        let want = naive(&bytes, ascii);
                        assert_eq!(next_special(&bytes, ascii), want, "{bytes:?} {ascii}");
                        assert_eq!(next_special_swar(&bytes, ascii), want, "{bytes:?} {ascii}");
                    }
                }
            }
        }
    }
}
