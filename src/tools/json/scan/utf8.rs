//! The streaming JSON scanner's UTF-8 check, a piece at a time: apart from the scanner so that
//! it can run on the thread that reads the file ahead of the scan.

use super::Invalid;

/// Checks that successive pieces are UTF-8 together.
#[derive(Default)]
pub(crate) struct Utf8 {
    /// The start of a UTF-8 sequence the previous piece cut, checked with the next piece.
    cut: [u8; 4],
    cut_len: u8,
}

impl Utf8 {
    /// Checks that `buf` continues valid UTF-8, keeping a sequence cut at its end for later.
    pub(crate) fn check(&mut self, buf: &[u8]) -> Result<(), Invalid> {
        let mut rest = buf;
        if self.cut_len > 0 {
            let need = match self.cut[0] {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            while usize::from(self.cut_len) < need {
                let Some((&b, tail)) = rest.split_first() else {
                    return Ok(());
                };
                self.cut[usize::from(self.cut_len)] = b;
                self.cut_len += 1;
                rest = tail;
            }
            std::str::from_utf8(&self.cut[..need]).map_err(|_| Invalid)?;
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
            Err(_) => Err(Invalid),
        }
    }

    /// The end of the input: no character may be left cut.
    pub(crate) fn end(&self) -> Result<(), Invalid> {
        if self.cut_len > 0 {
            Err(Invalid)
        } else {
            Ok(())
        }
    }
}
