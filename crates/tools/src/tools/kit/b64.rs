//! Base64 over an input seen in pieces: encoding (RFC 4648 §4 and §5, optional line wrapping)
//! and the lenient decoding cmpx accepts (whitespace ignored, padding optional, either alphabet).
//!
//! `base64-simd` does the bulk work: it runs several times faster than the scalar `base64`
//! crate, which is what lets a 1 GiB input keep pace with coreutils `base64`.

use crate::ctp::ToolError;
use crate::tools::kit::chunks::{Chunks, Stop};
use base64_simd::{AsOut, Base64, STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::json;
use std::io::{self, Write};

/// How to encode: alphabet, padding, and line length (0 = one line).
#[derive(Debug, Clone, Copy)]
pub struct Encoding {
    pub url_safe: bool,
    pub padding: bool,
    pub width: usize,
}

impl Encoding {
    /// Standard alphabet, padded, one line: how cmpx returns bytes that are not text.
    pub const STANDARD: Encoding = Encoding {
        url_safe: false,
        padding: true,
        width: 0,
    };

    fn engine(self) -> &'static Base64 {
        match (self.url_safe, self.padding) {
            (true, true) => &URL_SAFE,
            (true, false) => &URL_SAFE_NO_PAD,
            (false, true) => &STANDARD,
            (false, false) => &STANDARD_NO_PAD,
        }
    }

    /// The length of the encoding of `n` bytes, line breaks included.
    pub fn output_len(self, n: u64) -> u64 {
        let chars = if self.padding {
            n.div_ceil(3) * 4
        } else {
            (n * 4).div_ceil(3)
        };
        match self.width as u64 {
            0 => chars,
            width => chars + chars.saturating_sub(1) / width,
        }
    }
}

/// Encodes bytes pushed in pieces of any size, writing the text as it goes.
pub struct Encoder<W> {
    encoding: Encoding,
    out: W,
    /// Bytes short of a whole 3-byte group, kept for the next push.
    carry: [u8; 3],
    carried: usize,
    column: usize,
    buf: Vec<u8>,
}

impl<W: Write> Encoder<W> {
    pub fn new(encoding: Encoding, out: W) -> Self {
        Encoder {
            encoding,
            out,
            carry: [0; 3],
            carried: 0,
            column: 0,
            buf: Vec::new(),
        }
    }

    pub fn push(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        if self.carried > 0 {
            let take = (3 - self.carried).min(bytes.len());
            self.carry[self.carried..self.carried + take].copy_from_slice(&bytes[..take]);
            self.carried += take;
            bytes = &bytes[take..];
            if self.carried < 3 {
                return Ok(());
            }
            let group = self.carry;
            self.carried = 0;
            self.encode_whole(&group)?;
        }
        let whole = bytes.len() / 3 * 3;
        self.encode_whole(&bytes[..whole])?;
        let rest = &bytes[whole..];
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carried = rest.len();
        Ok(())
    }

    /// Encodes what is left (with padding if asked) and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        let rest = self.carry;
        let n = self.carried;
        let mut text = [0u8; 4];
        let encoded = self
            .encoding
            .engine()
            .encode(&rest[..n], text.as_mut_slice().as_out());
        let len = encoded.len();
        self.write_wrapped(&text[..len])?;
        Ok(self.out)
    }

    /// Encodes whole 3-byte groups, which never need padding.
    fn encode_whole(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let engine = if self.encoding.url_safe {
            &URL_SAFE_NO_PAD
        } else {
            &STANDARD_NO_PAD
        };
        let mut buf = std::mem::take(&mut self.buf);
        buf.resize(bytes.len() / 3 * 4, 0);
        let _ = engine.encode(bytes, buf.as_mut_slice().as_out());
        let written = self.write_wrapped(&buf);
        self.buf = buf;
        written
    }

    fn write_wrapped(&mut self, mut text: &[u8]) -> io::Result<()> {
        let width = self.encoding.width;
        if width == 0 {
            return self.out.write_all(text);
        }
        while !text.is_empty() {
            // A break goes before the next character, never after the last one.
            if self.column == width {
                self.out.write_all(b"\n")?;
                self.column = 0;
            }
            let take = (width - self.column).min(text.len());
            self.out.write_all(&text[..take])?;
            self.column += take;
            text = &text[take..];
        }
        Ok(())
    }
}

/// Runs of alphabet characters at least this long are decoded where they lie; shorter ones
/// (lines of wrapped Base64) are gathered first, so that decoding is not a call per line.
const DIRECT: usize = 4096;

/// Decodes pieces of Base64 text, passing the bytes on as they come.
pub struct Decoder {
    url_safe: bool,
    /// Alphabet characters not yet decoded (fewer than four between pushes).
    staged: Vec<u8>,
    /// Where long runs are decoded to.
    scratch: Vec<u8>,
    /// Input bytes seen before the current piece, for error offsets.
    offset: u64,
    pads: usize,
    pad_at: u64,
}

/// Whether `b` belongs to the alphabet. Written as range compares so that a block of them
/// vectorises.
#[inline]
fn in_alphabet(b: u8, url_safe: bool) -> bool {
    let letter = (b | 0x20).wrapping_sub(b'a') < 26;
    let digit = b.wrapping_sub(b'0') < 10;
    let extra = if url_safe {
        (b == b'-') | (b == b'_')
    } else {
        (b == b'+') | (b == b'/')
    };
    letter | digit | extra
}

/// How many leading bytes of `bytes` are alphabet characters.
fn alphabet_run(bytes: &[u8], url_safe: bool) -> usize {
    const BLOCK: usize = 32;
    let mut i = 0;
    while let Some(block) = bytes.get(i..i + BLOCK) {
        if !block
            .iter()
            .fold(true, |all, &b| all & in_alphabet(b, url_safe))
        {
            break;
        }
        i += BLOCK;
    }
    i + bytes[i..]
        .iter()
        .take_while(|&&b| in_alphabet(b, url_safe))
        .count()
}

/// The character starting `bytes`, or its first byte when that is not UTF-8.
fn describe_at(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    match valid.chars().next() {
        Some(c) => crate::text::describe_char(c),
        None => format!("the byte 0x{:02X}", bytes[0]),
    }
}

fn invalid(offset: u64, what: String) -> Stop {
    Stop::Tool(
        ToolError::invalid(format!("parameter 'input' is not valid Base64: {what}"))
            .with_data(json!({ "offset": offset })),
    )
}

impl Decoder {
    pub fn new(url_safe: bool) -> Self {
        Decoder {
            url_safe,
            staged: Vec::new(),
            scratch: Vec::new(),
            offset: 0,
            pads: 0,
            pad_at: 0,
        }
    }

    pub fn push(
        &mut self,
        bytes: &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let mut i = 0;
        while i < bytes.len() {
            let run = alphabet_run(&bytes[i..], self.url_safe);
            if run > 0 {
                if self.pads > 0 {
                    return Err(invalid(
                        self.pad_at,
                        format!(
                            "the '=' padding at offset {} is followed by more data",
                            self.pad_at
                        ),
                    ));
                }
                let run_bytes = &bytes[i..i + run];
                i += run;
                if run < DIRECT {
                    self.staged.extend_from_slice(run_bytes);
                } else {
                    self.decode_direct(run_bytes, out)?;
                }
                continue;
            }
            let at = self.offset + i as u64;
            match bytes[i] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {}
                b'=' => {
                    if self.pads == 0 {
                        self.pad_at = at;
                    }
                    self.pads += 1;
                    if self.pads > 2 {
                        return Err(invalid(
                            at,
                            format!("more than two '=' padding characters (at offset {at})"),
                        ));
                    }
                }
                _ => {
                    return Err(invalid(
                        at,
                        format!(
                            "{} at offset {at} is not a Base64 character",
                            describe_at(&bytes[i..])
                        ),
                    ));
                }
            }
            i += 1;
        }
        self.offset += bytes.len() as u64;
        let whole = self.staged.len() / 4 * 4;
        if whole > 0 {
            let engine = self.engine();
            // Every staged byte is in the alphabet, so whole groups always decode.
            let decoded = engine
                .decode_inplace(&mut self.staged[..whole])
                .map_err(|_| invalid(self.offset, "it could not be decoded".into()))?;
            out(decoded)?;
            self.staged.copy_within(whole.., 0);
            self.staged.truncate(self.staged.len() - whole);
        }
        Ok(())
    }

    /// Decodes a long run of alphabet characters without copying it into `staged` first.
    fn decode_direct(
        &mut self,
        mut run: &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        // What is staged goes first: topped up to whole groups, it decodes in place.
        let top_up = (4 - self.staged.len() % 4) % 4;
        self.staged.extend_from_slice(&run[..top_up]);
        run = &run[top_up..];
        if !self.staged.is_empty() {
            let decoded = self
                .engine()
                .decode_inplace(&mut self.staged)
                .map_err(|_| invalid(self.offset, "it could not be decoded".into()))?;
            out(decoded)?;
            self.staged.clear();
        }
        let whole = run.len() / 4 * 4;
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.resize(whole / 4 * 3, 0);
        let decoded = self
            .engine()
            .decode(&run[..whole], scratch.as_mut_slice().as_out())
            .map_err(|_| invalid(self.offset, "it could not be decoded".into()));
        let passed = decoded.and_then(|d| out(d));
        self.scratch = scratch;
        passed?;
        self.staged.extend_from_slice(&run[whole..]);
        Ok(())
    }

    fn engine(&self) -> &'static Base64 {
        if self.url_safe {
            &URL_SAFE_NO_PAD
        } else {
            &STANDARD_NO_PAD
        }
    }

    pub fn finish(mut self, out: &mut impl FnMut(&[u8]) -> Result<(), Stop>) -> Result<(), Stop> {
        let left = self.staged.len();
        let end = self.offset;
        if left == 1 {
            return Err(invalid(
                end,
                "it ends with a lone character (a group needs at least two)".into(),
            ));
        }
        if self.pads > 0 && !(left + self.pads).is_multiple_of(4) {
            return Err(invalid(
                self.pad_at,
                format!(
                    "{} '=' after a group of {left} characters (padding completes a group of four)",
                    self.pads
                ),
            ));
        }
        if left > 0 {
            let engine = self.engine();
            let decoded = engine.decode_inplace(&mut self.staged).map_err(|_| {
                invalid(
                    end,
                    "its last character carries bits beyond the data (not a canonical encoding)"
                        .into(),
                )
            })?;
            out(decoded)?;
        }
        Ok(())
    }
}

/// One pass decoding all of `input` with one alphabet.
pub fn decode_pass(
    input: &Chunks,
    url_safe: bool,
    mut out: impl FnMut(&[u8]) -> Result<(), Stop>,
) -> Result<(), Stop> {
    let mut decoder = Decoder::new(url_safe);
    input.each(|piece| decoder.push(piece, &mut out))?;
    decoder.finish(&mut out)
}

/// Which alphabet decodes `input` (`true`: URL-safe), trying the standard one first, and the
/// state `scan` built from the decoded bytes of the pass that succeeded. When neither
/// alphabet fits, the error is the one found further into the input.
pub fn decode_detecting<S>(
    input: &Chunks,
    start: impl Fn() -> S,
    scan: impl Fn(&mut S, &[u8]),
) -> Result<(bool, S), Stop> {
    let attempt = |url_safe| {
        let mut state = start();
        decode_pass(input, url_safe, |bytes| {
            scan(&mut state, bytes);
            Ok(())
        })
        .map(|()| state)
    };
    let standard = match attempt(false) {
        Ok(state) => return Ok((false, state)),
        Err(Stop::Tool(e)) => e,
        Err(other) => return Err(other),
    };
    match attempt(true) {
        Ok(state) => Ok((true, state)),
        Err(Stop::Tool(url)) if offset_of(&url) > offset_of(&standard) => Err(Stop::Tool(url)),
        Err(Stop::Tool(_)) => Err(Stop::Tool(standard)),
        Err(other) => Err(other),
    }
}

fn offset_of(e: &ToolError) -> u64 {
    e.data
        .as_ref()
        .and_then(|d| d["offset"].as_u64())
        .unwrap_or(0)
}

/// Decodes a whole string in memory (the `file` parameters and `inputEncoding: base64`).
pub fn decode_str(name: &str, text: &str) -> Result<Vec<u8>, ToolError> {
    let input = Chunks::text(text);
    let (_, bytes) = decode_detecting(
        &input,
        || Vec::with_capacity(text.len() / 4 * 3 + 3),
        |bytes: &mut Vec<u8>, piece| bytes.extend_from_slice(piece),
    )
    .map_err(|stop| match stop {
        Stop::Tool(e) => ToolError {
            message: e
                .message
                .replacen("parameter 'input'", &format!("parameter '{name}'"), 1),
            ..e
        },
        other => ToolError::invalid(format!("parameter '{name}' could not be read: {other}")),
    })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &str, encoding: Encoding, piece: usize) -> String {
        let mut enc = Encoder::new(encoding, Vec::new());
        for p in text.as_bytes().chunks(piece) {
            enc.push(p).unwrap();
        }
        String::from_utf8(enc.finish().unwrap()).unwrap()
    }

    #[test]
    fn encoding_matches_the_base64_crate_for_every_split_and_variant() {
        use base64::Engine;
        use base64::engine::general_purpose as gp;
        let text = "Many hands make light work. ☃ ".repeat(7);
        for n in [0, 1, 2, 3, 4, 5, 64, text.len()] {
            let t = &text[..text.floor_char_boundary(n)];
            for piece in [1, 2, 3, 5, 7, 1000] {
                for (url_safe, padding, expected) in [
                    (false, true, gp::STANDARD.encode(t)),
                    (false, false, gp::STANDARD_NO_PAD.encode(t)),
                    (true, true, gp::URL_SAFE.encode(t)),
                    (true, false, gp::URL_SAFE_NO_PAD.encode(t)),
                ] {
                    let e = Encoding {
                        url_safe,
                        padding,
                        width: 0,
                    };
                    assert_eq!(encode(t, e, piece), expected);
                    assert_eq!(e.output_len(t.len() as u64), expected.len() as u64);
                }
            }
        }
    }

    #[test]
    fn wrapping_breaks_between_lines_only() {
        let e = Encoding {
            width: 4,
            ..Encoding::STANDARD
        };
        for piece in [1, 2, 4, 100] {
            assert_eq!(encode("foobarfoobar", e, piece), "Zm9v\nYmFy\nZm9v\nYmFy");
            assert_eq!(encode("foob", e, piece), "Zm9v\nYg==");
        }
        assert_eq!(e.output_len(12), 19);
        assert_eq!(e.output_len(0), 0);
        assert_eq!(encode("", e, 1), "");
    }

    fn decode(text: &str, piece: usize) -> Result<Vec<u8>, String> {
        decode_detecting(
            &Chunks::text(text).with_chunk_size(piece),
            Vec::new,
            |bytes: &mut Vec<u8>, p| bytes.extend_from_slice(p),
        )
        .map(|(_, bytes)| bytes)
        .map_err(|e| match e {
            Stop::Tool(e) => e.message,
            other => format!("{other:?}"),
        })
    }

    #[test]
    fn decoding_is_lenient_about_whitespace_padding_and_alphabet() {
        for piece in [4, 5, 7, 1000] {
            for (text, plain) in [
                ("Zm9vYmFy", "foobar"),
                ("Zm9vYg==", "foob"),
                ("Zm9vYg", "foob"),
                ("Zm9v\r\nYmE=\n", "fooba"),
                ("  Zm 9v YmE ", "fooba"),
                ("c3ViamVjdHM_X2Q=", "subjects?_d"),
                ("c3ViamVjdHM/X2Q", "subjects?_d"),
                ("", ""),
            ] {
                assert_eq!(decode(text, piece).unwrap(), plain.as_bytes(), "{text:?}");
            }
        }
    }

    #[test]
    fn long_runs_decode_in_place_across_pieces() {
        use base64::Engine;
        let bytes: Vec<u8> = (0..30_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let one_line = base64::engine::general_purpose::STANDARD.encode(&bytes);
        // Whitespace at odd places leaves runs that are not whole groups.
        let mut spaced = one_line.clone();
        for at in [5001, 9000, 20_003, 33_333] {
            spaced.insert(at, '\n');
        }
        for text in [&one_line, &spaced] {
            for piece in [4097, 5000, 7001, 100_000] {
                assert_eq!(decode(text, piece).unwrap(), bytes, "piece {piece}");
            }
        }
    }

    #[test]
    fn decoding_errors_say_what_and_where() {
        for (text, wanted) in [
            ("not base64!", "'!' at offset 10 is not a Base64 character"),
            ("Zm9v\tYm$y", "'$' at offset 7"),
            ("Zm9vY", "lone character"),
            ("Zm9vYg=", "1 '=' after a group of 2 characters"),
            ("Zm9v=", "1 '=' after a group of 0"),
            ("Zm9vYg===", "more than two '='"),
            ("Zm9=vYg", "padding at offset 3 is followed by more data"),
            ("Zm9vYh==", "not a canonical encoding"),
            ("ab+c-d==", "'-' at offset 4"),
            ("Zm9v\u{e9}", "'é' (U+00E9) at offset 4"),
            ("Zm9v\u{1}", "U+0001 at offset 4"),
        ] {
            for piece in [4, 6, 1000] {
                let err = decode(text, piece).unwrap_err();
                assert!(err.contains(wanted), "{text:?}: {err}");
                assert!(err.starts_with("parameter 'input' is not valid Base64: "));
            }
        }
    }

    #[test]
    fn decode_str_names_its_parameter() {
        assert_eq!(decode_str("key", "a2V5").unwrap(), b"key");
        let err = decode_str("key", "a2V5!").unwrap_err();
        assert!(
            err.message
                .starts_with("parameter 'key' is not valid Base64")
        );
        assert_eq!(err.data.unwrap()["offset"], 4);
    }
}
