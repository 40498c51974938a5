//! The two sinks of the streaming JSON tools' scanner (`json_scan`): [`Count`] measures the
//! output on the first pass, [`Writer`] writes it on the second, as it is or already escaped
//! as the contents of a JSON string (the result envelope's `output`).

use crate::tools::json::scan::Sink;
use crate::tools::kit::depth::JSON_DEPTH;
use std::io::Write;

/// The first pass: the output's length as it is and escaped inside a JSON string.
#[derive(Default)]
pub(crate) struct Count {
    /// Output bytes.
    pub raw: u64,
    unit: u64,
    /// The bytes escaping adds. Kept apart from `raw` in memory: side by side, the compiler
    /// updated both with one 16-byte load and store, which waited on the 8-byte stores of the
    /// previous token (store forwarding fails) and cost a third of the pass.
    extra: u64,
    unit_extra: u64,
}

impl Count {
    /// A counter for output indented by `unit` (empty when minified).
    pub(crate) fn new(unit: &[u8]) -> Self {
        Count {
            unit: unit.len() as u64,
            // A tab is escaped as `\t`; spaces stay as they are.
            unit_extra: unit.iter().filter(|&&b| b == b'\t').count() as u64,
            ..Count::default()
        }
    }

    /// The output's length escaped as the contents of a JSON string.
    pub(crate) fn escaped(&self) -> u64 {
        self.raw + self.extra
    }
}

impl Sink for Count {
    #[inline(always)]
    fn text(&mut self, bytes: &[u8]) {
        self.raw += bytes.len() as u64;
    }
    #[inline(always)]
    fn byte(&mut self, _: u8) {
        self.raw += 1;
    }
    #[inline(always)]
    fn token(&mut self, _: &[u8], start: usize, end: usize) {
        self.raw += (end - start) as u64;
    }
    #[inline(always)]
    fn special(&mut self, _: u8) {
        self.raw += 1;
        self.extra += 1;
    }
    #[inline(always)]
    fn quoted(&mut self, _: &[u8], start: usize, end: usize) {
        self.raw += (end - start) as u64 + 2;
        self.extra += 2;
    }
    #[inline(always)]
    fn newline(&mut self, depth: usize) {
        self.raw += 1 + self.unit * depth as u64;
        self.extra += 1 + self.unit_extra * depth as u64;
    }
    fn ascii_escape(&mut self, ch: char) {
        let units = ch.len_utf16() as u64;
        self.raw += 6 * units;
        self.extra += units;
    }
}

/// The second pass: the output written, as it is or escaped, through a buffer of its own.
pub(crate) struct Writer<'w> {
    out: &'w mut dyn Write,
    /// [`BUF`] bytes handed on at a time, plus [`SLACK`] so that a token needs no check of
    /// its own; `len` of them are filled.
    buf: Box<[u8]>,
    len: usize,
    escaped: bool,
    /// A line break followed by [`JSON_DEPTH`] indentation units, sliced per line.
    pad: Vec<u8>,
    break_len: usize,
    unit_len: usize,
    error: Option<std::io::Error>,
    /// Bytes handed on so far.
    written: u64,
}

const BUF: usize = 128 << 10;
const SLACK: usize = 4 << 10;
/// Short strings (most keys and values) are copied as this many bytes at once, a fixed-size
/// copy the compiler inlines, instead of through a call to `memcpy` sized to the string.
const SHORT: usize = 32;

impl<'w> Writer<'w> {
    /// A writer of output indented by `unit` (`None` minifies), escaped when `escaped`.
    pub(crate) fn new(out: &'w mut dyn Write, unit: Option<&[u8]>, escaped: bool) -> Self {
        let unit: Vec<u8> = match (unit, escaped) {
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
            buf: vec![0; BUF + SLACK].into_boxed_slice(),
            len: 0,
            escaped,
            pad,
            break_len: newline.len(),
            unit_len: unit.len(),
            error: None,
            written: 0,
        }
    }

    /// Appends `bytes`; a block of them too long for the slack goes through [`Writer::long`].
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.len..self.len + bytes.len()) {
            Some(room) if bytes.len() <= SLACK => {
                room.copy_from_slice(bytes);
                self.len += bytes.len();
                self.room();
            }
            _ => self.long(bytes),
        }
    }

    #[cold]
    #[inline(never)]
    fn long(&mut self, bytes: &[u8]) {
        self.drain();
        self.written += bytes.len() as u64;
        if self.error.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.error = Some(e);
        }
    }

    /// Copies `len` bytes of `piece` from `start` to `gap` bytes past the end of the buffer,
    /// as SHORT bytes at once, when they are that short and the piece and the slack have
    /// SHORT bytes there (what lies past `len` is overwritten next); `false` when not.
    #[inline(always)]
    fn short(&mut self, piece: &[u8], start: usize, len: usize, gap: usize) -> bool {
        let at = self.len + gap;
        match (
            piece.get(start..start + SHORT),
            self.buf.get_mut(at..at + SHORT),
        ) {
            (Some(src), Some(dst)) if len <= SHORT => {
                dst.copy_from_slice(src);
                true
            }
            _ => false,
        }
    }

    #[inline(always)]
    fn push(&mut self, byte: u8) {
        // `room` keeps `len` below BUF, and SLACK > 0.
        if let Some(b) = self.buf.get_mut(self.len) {
            *b = byte;
            self.len += 1;
        }
    }

    #[inline(always)]
    fn room(&mut self) {
        if self.len >= BUF {
            self.drain();
        }
    }

    #[cold]
    #[inline(never)]
    fn drain(&mut self) {
        self.written += self.len as u64;
        if self.error.is_none()
            && let Err(e) = self.out.write_all(&self.buf[..self.len])
        {
            self.error = Some(e);
        }
        self.len = 0;
    }

    /// Writes what is left; the number of bytes written, or the first write error.
    pub(crate) fn flush(mut self) -> std::io::Result<u64> {
        self.drain();
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush().map(|()| self.written),
        }
    }
}

/// [`Writer`]'s buffer lent to a tight loop (the emitter's) as a plain local value, so that
/// the compiler keeps its fill level in a register. Inside the Writer, every byte stored into
/// the buffer might alias the level, which was then reloaded and stored around each token
/// (measured in session 7: minify about 4% faster, pretty-printing unchanged).
pub(crate) struct Out {
    buf: Box<[u8]>,
    pad: Vec<u8>,
    len: usize,
    break_len: usize,
    unit_len: usize,
}

impl Writer<'_> {
    /// Lends the buffer to a loop; [`Writer::give_back`] returns it.
    pub(crate) fn lend(&mut self) -> Out {
        Out {
            buf: std::mem::take(&mut self.buf),
            pad: std::mem::take(&mut self.pad),
            len: self.len,
            break_len: self.break_len,
            unit_len: self.unit_len,
        }
    }

    pub(crate) fn give_back(&mut self, out: Out) {
        self.buf = out.buf;
        self.pad = out.pad;
        self.len = out.len;
        self.room();
    }

    /// Hands `bytes` on to the output, past the buffer (which holds none at the time).
    #[cold]
    #[inline(never)]
    fn hand_on(&mut self, bytes: &[u8]) {
        self.written += bytes.len() as u64;
        if self.error.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.error = Some(e);
        }
    }
}

/// Each method leaves `len` below `BUF + SLACK`, and needs it below `BUF` (see [`Out::room`]).
impl Out {
    /// Hands the buffer on once it holds [`BUF`] bytes.
    #[inline(always)]
    pub(crate) fn room(&mut self, w: &mut Writer) {
        if self.len >= BUF {
            w.hand_on(&self.buf[..self.len]);
            self.len = 0;
        }
    }

    /// `piece[start..end]`, which needs no escaping.
    #[inline(always)]
    pub(crate) fn token(&mut self, piece: &[u8], start: usize, end: usize, w: &mut Writer) {
        let n = end - start;
        let at = self.len;
        if n <= SHORT
            && let (Some(src), Some(dst)) = (
                piece.get(start..start + SHORT),
                self.buf.get_mut(at..at + SHORT),
            )
        {
            dst.copy_from_slice(src);
            self.len += n;
        } else if n <= SLACK
            && let (Some(src), Some(dst)) = (piece.get(start..end), self.buf.get_mut(at..at + n))
        {
            dst.copy_from_slice(src);
            self.len += n;
        } else {
            self.long(&piece[start..end], w);
        }
    }

    /// A string whose contents, `piece[start..end]`, hold no `"` or `\`, with both quotes
    /// escaped: one fixed-size copy when it is short.
    #[inline(always)]
    pub(crate) fn escaped_string(
        &mut self,
        piece: &[u8],
        start: usize,
        end: usize,
        w: &mut Writer,
    ) {
        let n = end - start;
        let at = self.len;
        if n <= SHORT
            && let (Some(src), Some(dst)) = (
                piece.get(start..start + SHORT),
                self.buf.get_mut(at..at + SHORT + 4),
            )
        {
            dst[2..SHORT + 2].copy_from_slice(src);
            dst[..2].copy_from_slice(b"\\\"");
            dst[n + 2..n + 4].copy_from_slice(b"\\\"");
            self.len += n + 4;
        } else {
            self.text(b"\\\"");
            self.token(piece, start, end, w);
            self.room(w);
            self.text(b"\\\"");
        }
    }

    #[cold]
    #[inline(never)]
    fn long(&mut self, bytes: &[u8], w: &mut Writer) {
        w.hand_on(&self.buf[..self.len]);
        self.len = 0;
        w.hand_on(bytes);
    }

    /// A few bytes that need no escaping.
    #[inline(always)]
    pub(crate) fn text<const N: usize>(&mut self, bytes: &[u8; N]) {
        if let Some(dst) = self.buf.get_mut(self.len..self.len + N) {
            dst.copy_from_slice(bytes);
            self.len += N;
        }
    }

    /// A `"` or `\`, with a backslash before it when `ESCAPED`.
    #[inline(always)]
    pub(crate) fn special<const ESCAPED: bool>(&mut self, byte: u8) {
        if ESCAPED {
            self.text(&[b'\\', byte]);
        } else {
            self.text(&[byte]);
        }
    }

    /// A line break and `depth` indentation units.
    #[inline(always)]
    pub(crate) fn newline(&mut self, depth: usize) {
        let n = (self.break_len + self.unit_len * depth).min(self.pad.len());
        let at = self.len;
        if n <= SHORT
            && let (Some(src), Some(dst)) =
                (self.pad.get(..SHORT), self.buf.get_mut(at..at + SHORT))
        {
            dst.copy_from_slice(src);
            self.len += n;
        } else if let (Some(src), Some(dst)) = (self.pad.get(..n), self.buf.get_mut(at..at + n)) {
            dst.copy_from_slice(src);
            self.len += n;
        }
    }
}

impl Sink for Writer<'_> {
    #[inline(always)]
    fn text(&mut self, bytes: &[u8]) {
        self.put(bytes);
    }
    #[inline(always)]
    fn byte(&mut self, byte: u8) {
        self.push(byte);
        self.room();
    }
    #[inline(always)]
    fn token(&mut self, piece: &[u8], start: usize, end: usize) {
        if self.short(piece, start, end - start, 0) {
            self.len += end - start;
        } else {
            self.put(&piece[start..end]);
        }
        self.room();
    }
    #[inline(always)]
    fn special(&mut self, byte: u8) {
        if self.escaped {
            self.push(b'\\');
        }
        self.push(byte);
        self.room();
    }
    #[inline(always)]
    fn quoted(&mut self, piece: &[u8], start: usize, end: usize) {
        let body = end - start;
        let q = 1 + usize::from(self.escaped);
        if self.short(piece, start, body, q) {
            // The quotes around the body just copied.
            for at in [self.len, self.len + q + body] {
                if self.escaped {
                    self.buf[at] = b'\\';
                }
                self.buf[at + q - 1] = b'"';
            }
            self.len += body + 2 * q;
        } else {
            let quote: &[u8] = if self.escaped { b"\\\"" } else { b"\"" };
            self.put(quote);
            self.put(&piece[start..end]);
            self.put(quote);
        }
        self.room();
    }
    #[inline(always)]
    fn newline(&mut self, depth: usize) {
        // At most 2 + 8 × (JSON_DEPTH + 1) bytes, well within the slack.
        let n = (self.break_len + self.unit_len * depth).min(self.pad.len());
        if n <= SHORT
            && let (Some(src), Some(dst)) = (
                self.pad.get(..SHORT),
                self.buf.get_mut(self.len..self.len + SHORT),
            )
        {
            dst.copy_from_slice(src);
            self.len += n;
        } else if let Some(dst) = self.buf.get_mut(self.len..self.len + n) {
            dst.copy_from_slice(&self.pad[..n]);
            self.len += n;
        }
        self.room();
    }
    fn ascii_escape(&mut self, ch: char) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut units = [0u16; 2];
        for &u in ch.encode_utf16(&mut units).iter() {
            if self.escaped {
                self.push(b'\\');
            }
            self.put(b"\\u");
            for shift in [12, 8, 4, 0] {
                self.push(HEX[usize::from((u >> shift) & 0xf)]);
            }
        }
        self.room();
    }
}
