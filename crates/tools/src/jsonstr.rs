//! JSON string contents, measured and written byte for byte as serde_json writes them, but
//! fast over long runs that need no escaping (the usual case for a large tool output).

use std::io::{self, Write};

/// The length of `s` as a JSON string, quotes included.
pub fn len(s: &str) -> u64 {
    len_bytes(s.as_bytes())
}

/// [`len`] for text held as bytes (a piece of a file).
pub fn len_bytes(bytes: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has just been found to support AVX2.
        return unsafe { len_bytes_avx2(bytes) };
    }
    count_len(bytes)
}

/// The same loop compiled for AVX2, which doubles the bytes compared per instruction over
/// the SSE2 baseline that every x86-64 binary must assume.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn len_bytes_avx2(bytes: &[u8]) -> u64 {
    count_len(bytes)
}

#[inline(always)]
fn count_len(bytes: &[u8]) -> u64 {
    let mut extra = 0u64;
    // Every byte to escape takes at least one more byte; controls without a short escape
    // (`\n`, `\t`, …) become `\u00XX`, four more again. Two counts per 128-byte block, in u8s
    // that cannot overflow there, with no branches: this vectorises, where a test per byte
    // (or skipping clean blocks, defeated by a newline on every line) runs several times slower.
    for block in bytes.chunks(128) {
        let (mut escaped, mut long) = (0u8, 0u8);
        for &b in block {
            let control = b < 0x20;
            // The short escapes are 0x08, 0x09, 0x0a, 0x0c and 0x0d.
            let short = (b.wrapping_sub(0x08) < 6) & (b != 0x0b);
            escaped += u8::from(control | (b == b'"') | (b == b'\\'));
            long += u8::from(control & !short);
        }
        extra += u64::from(escaped) + 4 * u64::from(long);
    }
    bytes.len() as u64 + 2 + extra
}

/// Where the first byte serde_json escapes (`"`, `\`, a control below 0x20) is in `bytes`.
fn next_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Eight bytes per step (SWAR): each test sets the high bit of a matching byte. A borrow
    // can also flag a byte above a real match, never below one, so the lowest flag is exact.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let equal = |x: u64, b: u8| below(x ^ (ONES * u64::from(b)), 1);
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let flags = below(x, 0x20) | equal(x, b'"') | equal(x, b'\\');
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|i| at + i)
}

fn escape(b: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        b'\t' => out.extend_from_slice(b"\\t"),
        b'\n' => out.extend_from_slice(b"\\n"),
        0x0c => out.extend_from_slice(b"\\f"),
        b'\r' => out.extend_from_slice(b"\\r"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
    }
}

/// A writer that escapes everything written through it into the contents of a JSON string,
/// exactly as serde_json would, and counts the bytes it produced. Short runs between escapes
/// are gathered in a buffer of its own, so text with a newline on every line does not cost
/// two calls into the inner writer per line.
pub struct Escaper<W: Write> {
    inner: W,
    buf: Vec<u8>,
    written: u64,
    failed: bool,
}

const GATHER: usize = 64 << 10;

impl<W: Write> Escaper<W> {
    pub fn new(inner: W) -> Self {
        Escaper {
            inner,
            buf: Vec::with_capacity(GATHER + 8),
            written: 0,
            failed: false,
        }
    }

    /// Bytes produced so far (written through, or gathered and about to be).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Whether a write to the inner writer failed (as opposed to the caller's own reads).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Writes out what is gathered and returns the inner writer, for what goes around the
    /// string.
    pub fn finish(mut self) -> io::Result<W> {
        self.drain()?;
        Ok(self.inner)
    }

    fn drain(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let result = self.inner.write_all(&self.buf);
        self.buf.clear();
        self.failed |= result.is_err();
        result
    }

    fn pass(&mut self, run: &[u8]) -> io::Result<()> {
        if self.buf.len() + run.len() <= GATHER {
            self.buf.extend_from_slice(run);
            return Ok(());
        }
        self.drain()?;
        if run.len() >= GATHER {
            let result = self.inner.write_all(run);
            self.failed |= result.is_err();
            return result;
        }
        self.buf.extend_from_slice(run);
        Ok(())
    }
}

impl<W: Write> Write for Escaper<W> {
    /// Escaping looks at single bytes, so pieces may be split anywhere; the result is valid
    /// JSON when the whole stream is UTF-8.
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(at) = next_special(rest) {
            let (run, tail) = rest.split_at(at);
            self.pass(run)?;
            let gathered = self.buf.len();
            escape(tail[0], &mut self.buf);
            self.written += (run.len() + self.buf.len() - gathered) as u64;
            rest = &tail[1..];
        }
        self.pass(rest)?;
        self.written += rest.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<String> {
        let mut all: Vec<String> = [
            "",
            "plain",
            "say \"hi\" \\ back",
            "\u{0}\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f} end",
            "café 東京 😀 \u{2028}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Specials on both sides of every block boundary.
        let mut long = "x".repeat(300);
        for at in [0, 63, 64, 65, 127, 128, 200, 299] {
            long.replace_range(at..=at, "\"");
        }
        all.push(long.clone());
        all.push(long.replace('"', "\n"));
        all.push("y".repeat(1000));
        all.push((0u8..0x80).map(char::from).collect());
        // Longer than the gathering buffer, in short runs and in one long run.
        all.push("line \"quoted\"\t\u{1}\n".repeat(8000));
        all.push("z".repeat(200_000) + "\n" + &"w".repeat(70_000));
        all
    }

    fn escaped(pieces: &[&[u8]]) -> (Vec<u8>, u64) {
        let mut esc = Escaper::new(Vec::new());
        for piece in pieces {
            esc.write_all(piece).unwrap();
        }
        let n = esc.written();
        (esc.finish().unwrap(), n)
    }

    #[test]
    fn matches_serde_json_byte_for_byte() {
        for s in samples() {
            let expected = serde_json::to_string(&s).unwrap();
            assert_eq!(len(&s), expected.len() as u64, "{s:?}");
            let (out, n) = escaped(&[s.as_bytes()]);
            assert_eq!(out, expected.as_bytes()[1..expected.len() - 1], "{s:?}");
            assert_eq!(n, out.len() as u64);
        }
    }

    #[test]
    fn escaper_counts_across_split_writes() {
        for s in samples() {
            let expected = serde_json::to_string(&s).unwrap();
            let pieces: Vec<&[u8]> = s.as_bytes().chunks(7).collect();
            let (out, n) = escaped(&pieces);
            assert_eq!(n, expected.len() as u64 - 2);
            assert_eq!(out, expected.as_bytes()[1..expected.len() - 1]);
        }
    }
}
