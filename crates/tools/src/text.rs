//! Small text helpers: untrusted text shown safely in messages, and the one check that bytes
//! read in pieces are UTF-8.

/// Replaces control characters with visible escapes so that untrusted text cannot move the
/// cursor, clear the screen, forge extra lines or reorder what is shown (bidirectional
/// overrides and isolates, zero-width marks) when printed to a terminal or a prompt.
pub fn escape_control(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || is_invisible_format(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Format characters that change how surrounding text displays without showing themselves.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// At most `max` characters of `s`, control characters escaped, with an ellipsis when cut.
pub fn preview(s: &str, max: usize) -> String {
    let mut cut: String = s.chars().take(max).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    escape_control(&cut)
}

/// A character named for an error message: `'x'` when printable ASCII, with its code point
/// otherwise (`'é' (U+00E9)`, `U+0000`), so that nothing invisible or misleading is printed.
pub fn describe_char(c: char) -> String {
    match c {
        ' '..='~' => format!("'{c}'"),
        c if c.is_alphanumeric() => format!("'{c}' (U+{:04X})", c as u32),
        // Controls, spaces, and format characters such as U+202E (which reverses the text
        // after it) are shown only by number.
        c => format!("U+{:04X}", c as u32),
    }
}

/// Whether bytes that arrive in pieces are UTF-8 together. A character cut by the end of a
/// piece (at most three bytes of it) is kept and checked with the next piece, so a piece may
/// end anywhere. The one incremental check: the streaming JSON scanner, base64-decoder's test
/// for text and the pipe's streamed output all use it.
#[derive(Default, Clone, Copy)]
pub struct Utf8Stream {
    /// The start of a character the previous piece cut, completed by the next.
    cut: [u8; 4],
    cut_len: u8,
    /// A piece was not UTF-8: so is everything after it.
    bad: bool,
}

/// Bytes that are not UTF-8 (or end inside a character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8;

impl Utf8Stream {
    /// Checks that `piece` continues valid UTF-8. Once a piece is not, every later call and
    /// [`Utf8Stream::end`] say so too.
    pub fn push(&mut self, piece: &[u8]) -> Result<(), NotUtf8> {
        if self.bad {
            return Err(NotUtf8);
        }
        let checked = self.check(piece);
        self.bad = checked.is_err();
        checked
    }

    fn check(&mut self, piece: &[u8]) -> Result<(), NotUtf8> {
        let mut rest = piece;
        if self.cut_len > 0 {
            // Only a valid start of a character is ever kept, so its lead byte says its width.
            let need = match self.cut[0] {
                0xf0.. => 4,
                0xe0.. => 3,
                _ => 2,
            };
            while usize::from(self.cut_len) < need {
                let Some((&b, tail)) = rest.split_first() else {
                    return Ok(());
                };
                self.cut[usize::from(self.cut_len)] = b;
                self.cut_len += 1;
                rest = tail;
            }
            std::str::from_utf8(&self.cut[..need]).map_err(|_| NotUtf8)?;
            self.cut_len = 0;
        }
        // simdutf8's fast check first (SIMD, chosen at run time); its slower `compat` one says
        // where a piece cuts a character.
        if simdutf8::basic::from_utf8(rest).is_ok() {
            return Ok(());
        }
        match simdutf8::compat::from_utf8(rest) {
            Ok(_) => Ok(()),
            // Cut by the end of the piece, not wrong (yet).
            Err(e) if e.error_len().is_none() => {
                let tail = &rest[e.valid_up_to()..];
                self.cut[..tail.len()].copy_from_slice(tail);
                self.cut_len = tail.len() as u8;
                Ok(())
            }
            Err(_) => Err(NotUtf8),
        }
    }

    /// The end of the input: every piece was UTF-8 and no character is left cut.
    pub fn end(&self) -> Result<(), NotUtf8> {
        if self.bad || self.cut_len > 0 {
            Err(NotUtf8)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape_control("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
        assert_eq!(preview("abcdef", 3), "abc…");
        assert_eq!(preview("ab", 3), "ab");
        // Bidirectional overrides would show "rm -rf /" reversed; zero-width marks hide text.
        assert_eq!(
            escape_control("a\u{202e}b\u{200b}c\r"),
            "a\\u{202e}b\\u{200b}c\\r"
        );
    }

    #[test]
    fn describes_characters_visibly() {
        assert_eq!(describe_char('$'), "'$'");
        assert_eq!(describe_char('é'), "'é' (U+00E9)");
        assert_eq!(describe_char('\u{1b}'), "U+001B");
        assert_eq!(describe_char('\u{202e}'), "U+202E");
    }

    /// Whether `pieces`, pushed in order, are UTF-8 together.
    fn utf8_in(pieces: &[&[u8]]) -> bool {
        let mut check = Utf8Stream::default();
        let pushed = pieces.iter().all(|p| check.push(p).is_ok());
        let ended = check.end().is_ok();
        assert!(pushed || !ended, "a failed piece must fail the end too");
        pushed && ended
    }

    #[test]
    fn utf8_characters_split_at_every_offset_of_every_piece_boundary() {
        // Characters of each width (2, 3 and 4 bytes) between ASCII, and long enough (over
        // 64 bytes) that simdutf8's vector loop sees the cut too.
        let short = "añ€😀z";
        let long = format!("{}é東😀{}", "x".repeat(70), "y".repeat(70));
        for text in [short, long.as_str()] {
            let bytes = text.as_bytes();
            for a in 0..=bytes.len() {
                assert!(utf8_in(&[&bytes[..a], &bytes[a..]]), "{text:?} cut at {a}");
                for b in a..=bytes.len().min(a + 5) {
                    let three: [&[u8]; 3] = [&bytes[..a], &bytes[a..b], &bytes[b..]];
                    assert!(utf8_in(&three), "{text:?} cut at {a} and {b}");
                }
            }
            // A byte at a time: every character waits for its last byte.
            let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
            assert!(utf8_in(&bytewise), "{text:?} a byte at a time");
        }
        assert!(utf8_in(&[]));
        assert!(utf8_in(&[b"", b"", b"abc", b""]));
    }

    #[test]
    fn utf8_invalid_bytes_are_refused_wherever_the_pieces_are_cut() {
        let bad: [&[u8]; 9] = [
            b"\xff",
            b"a\x80b",
            // Overlong encodings, a UTF-16 surrogate, past U+10FFFF.
            b"\xc0\x80",
            b"\xe0\x80\x80",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            // A lead byte followed by something that does not continue it.
            b"\xc3(",
            b"\xe2\x82(",
            b"\xf0\x9f\x98A",
        ];
        for bytes in bad {
            for cut in 0..=bytes.len() {
                assert!(
                    !utf8_in(&[&bytes[..cut], &bytes[cut..]]),
                    "{bytes:?} cut at {cut}"
                );
            }
            let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
            assert!(!utf8_in(&bytewise), "{bytes:?} a byte at a time");
        }
        // Once refused, always refused, even if later pieces are clean.
        let mut check = Utf8Stream::default();
        assert_eq!(check.push(b"\xff"), Err(NotUtf8));
        assert_eq!(check.push(b"fine"), Err(NotUtf8));
        assert_eq!(check.end(), Err(NotUtf8));
    }

    #[test]
    fn utf8_truncated_character_at_the_end_of_input_is_refused() {
        for bytes in [&b"a\xc3"[..], b"\xe2\x82", b"ok\xf0\x9f\x98", b"\xf0"] {
            for cut in 0..=bytes.len() {
                let mut check = Utf8Stream::default();
                // Every piece is fine on its own: only the end finds the character unfinished.
                assert!(check.push(&bytes[..cut]).is_ok(), "{bytes:?}");
                assert!(check.push(&bytes[cut..]).is_ok(), "{bytes:?}");
                assert_eq!(check.end(), Err(NotUtf8), "{bytes:?} cut at {cut}");
            }
        }
    }
}
