//! A tool's main input seen piece by piece: a string in memory, or a file re-read on every
//! pass, so that a tool can run over a 1 GiB `@path` input without holding it. The pieces are
//! bytes: a file is taken as it is, text or not, as `sha256sum` or `base64` would take it.

use crate::ctp::ToolError;
use std::io::Read;
use std::path::Path;
use std::sync::mpsc::sync_channel;

/// How much of a file one read brings in: large enough that the per-piece overhead vanishes,
/// small enough that the copy from the page cache and the tool's work on it stay in the CPU's
/// cache (1 MiB pieces made the copy alone cost more than coreutils' whole run).
pub const CHUNK: usize = 32 << 10;

/// The pieces [`Chunks::each_ahead`] reads a file in: larger, since each one costs a hand-over
/// between threads (a futex wake and often a context switch on each side), and few enough
/// (see [`AHEAD`]) to stay in the CPU's L2 cache. 512 KiB against 128 KiB: json-formatter on
/// 64 MiB 190 → 178 ms of CPU, 149 → 139 ms wall; at 1 GiB system time 0.9-1.1 → 0.6 s;
/// 1 MiB pieces cost more CPU again (bench/NOTES.md, session 12).
pub const AHEAD_CHUNK: usize = 512 << 10;

/// How many pieces the reading thread may have read that the caller has not yet taken.
const AHEAD: usize = 3;

/// Why a pass over the input stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The tool refused the input.
    Tool(ToolError),
    /// The file could not be read, or the output not written.
    Io(std::io::Error),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Tool(e) => f.write_str(&e.message),
            Stop::Io(e) => e.fmt(f),
        }
    }
}

impl From<ToolError> for Stop {
    fn from(e: ToolError) -> Self {
        Stop::Tool(e)
    }
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Io(e)
    }
}

/// The input of one parameter, readable as many times as the tool needs.
#[derive(Debug, Clone, Copy)]
pub struct Chunks<'a> {
    source: Source<'a>,
    size: usize,
}

#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
    File(&'a Path),
}

impl<'a> Chunks<'a> {
    /// A string already in memory.
    pub fn text(text: &'a str) -> Self {
        Chunks {
            source: Source::Text(text),
            size: CHUNK,
        }
    }

    /// Bytes already in memory (standard input read whole), text or not.
    pub fn bytes(bytes: &'a [u8]) -> Self {
        Chunks {
            source: Source::Bytes(bytes),
            size: CHUNK,
        }
    }

    /// A file, read in [`CHUNK`]-sized pieces.
    pub fn file(path: &'a Path) -> Self {
        Chunks {
            source: Source::File(path),
            size: CHUNK,
        }
    }

    /// The same input cut into pieces of at most `size` bytes: tests use it to put piece
    /// boundaries everywhere.
    pub fn with_chunk_size(self, size: usize) -> Self {
        Chunks {
            size: size.max(1),
            ..self
        }
    }

    /// The input's length in bytes (a file's as it is now).
    pub fn byte_len(&self) -> Result<u64, Stop> {
        match self.source {
            Source::Text(text) => Ok(text.len() as u64),
            Source::Bytes(bytes) => Ok(bytes.len() as u64),
            Source::File(path) => Ok(std::fs::metadata(path)?.len()),
        }
    }

    /// Calls `each` with successive pieces of the input, in order. A file is read again from
    /// its start on every call.
    pub fn each(&self, mut each: impl FnMut(&[u8]) -> Result<(), Stop>) -> Result<(), Stop> {
        match self.source {
            Source::Text(text) => text.as_bytes().chunks(self.size).try_for_each(each),
            Source::Bytes(bytes) => bytes.chunks(self.size).try_for_each(each),
            Source::File(path) => read_file(path, self.size, &mut each),
        }
    }
}

impl Chunks<'_> {
    /// [`Chunks::each`], with `check` called on every piece before `each` sees it (a failed
    /// check ends the pass like a failed `each`). A file is read, and checked, on a second
    /// thread a few pieces ahead, so that copying it from the kernel and checking it overlap
    /// with `each`'s work; its pieces are [`AHEAD_CHUNK`] bytes unless a size was chosen.
    pub fn each_ahead(
        &self,
        mut check: impl FnMut(&[u8]) -> Result<(), Stop> + Send,
        mut each: impl FnMut(&[u8]) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let Source::File(path) = self.source else {
            return self.each(|piece| {
                check(piece)?;
                each(piece)
            });
        };
        let size = if self.size == CHUNK {
            AHEAD_CHUNK
        } else {
            self.size
        };
        std::thread::scope(|scope| {
            let (full_tx, full_rx) = sync_channel::<Result<(Vec<u8>, usize), Stop>>(AHEAD);
            let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(AHEAD + 1);
            for _ in 0..=AHEAD {
                // Cannot fail: the channel has room for every buffer and its receiver is here.
                let _ = empty_tx.send(vec![0u8; size]);
            }
            scope.spawn(move || {
                let mut file = match std::fs::File::open(path) {
                    Ok(file) => file,
                    Err(e) => {
                        let _ = full_tx.send(Err(Stop::Io(e)));
                        return;
                    }
                };
                // Ends when the caller stops taking pieces (its receivers are dropped).
                while let Ok(mut buf) = empty_rx.recv() {
                    let piece = read_full(&mut file, &mut buf)
                        .map_err(Stop::Io)
                        .and_then(|read| check(&buf[..read]).map(|()| read));
                    let last = !matches!(piece, Ok(read) if read == size);
                    if full_tx.send(piece.map(|read| (buf, read))).is_err() || last {
                        return;
                    }
                }
            });
            loop {
                // The reader sends a short piece (or an error) last, and stops.
                let Ok(piece) = full_rx.recv() else {
                    return Ok(());
                };
                let (buf, read) = piece?;
                if read > 0 {
                    each(&buf[..read])?;
                }
                if read < size {
                    return Ok(());
                }
                let _ = empty_tx.send(buf);
            }
        })
    }
}

fn read_file(
    path: &Path,
    size: usize,
    each: &mut dyn FnMut(&[u8]) -> Result<(), Stop>,
) -> Result<(), Stop> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; size];
    loop {
        let read = read_full(&mut file, &mut buf)?;
        if read > 0 {
            each(&buf[..read])?;
        }
        if read < size {
            return Ok(());
        }
    }
}

/// Fills `buf` unless the file ends first; returns how much it read.
fn read_full(file: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(chunks: Chunks) -> Result<Vec<Vec<u8>>, Stop> {
        let mut pieces = Vec::new();
        chunks.each(|p| {
            pieces.push(p.to_vec());
            Ok(())
        })?;
        Ok(pieces)
    }

    #[test]
    fn text_comes_in_pieces_of_the_chosen_size() {
        let text = "aé東😀b";
        let pieces = collect(Chunks::text(text).with_chunk_size(4)).unwrap();
        assert_eq!(pieces.concat(), text.as_bytes());
        assert_eq!(pieces.len(), 3);
        assert!(collect(Chunks::text("")).unwrap().is_empty());
        assert_eq!(Chunks::text(text).byte_len().unwrap(), 11);
    }

    #[test]
    fn files_can_be_read_again_and_measured_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        let mut bytes = "héllo \"wörld\"\n東京 😀\t".repeat(50).into_bytes();
        bytes.push(0xff);
        std::fs::write(&path, &bytes).unwrap();
        for size in [1, 5, 64, CHUNK] {
            let chunks = Chunks::file(&path).with_chunk_size(size);
            assert_eq!(collect(chunks).unwrap().concat(), bytes, "size {size}");
            assert_eq!(collect(chunks).unwrap().concat(), bytes, "second pass");
        }
        let text = "a\"b\n".repeat(1000);
        std::fs::write(&path, &text).unwrap();
        let chunks = Chunks::file(&path).with_chunk_size(7);
        assert_eq!(chunks.byte_len().unwrap(), text.len() as u64);
    }

    #[test]
    fn reading_ahead_checks_and_hands_over_every_piece_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        for size in [1, 7, 64, 5000, CHUNK] {
            let (mut checked, mut seen) = (Vec::new(), Vec::new());
            Chunks::file(&path)
                .with_chunk_size(size)
                .each_ahead(
                    |p| {
                        checked.extend_from_slice(p);
                        Ok(())
                    },
                    |p| {
                        seen.extend_from_slice(p);
                        Ok(())
                    },
                )
                .unwrap();
            assert_eq!((&checked, &seen), (&bytes, &bytes), "size {size}");
        }
        // A failed check or a failed step ends the pass with its error.
        let mut steps = 0;
        let failed = Chunks::file(&path).with_chunk_size(100).each_ahead(
            |p| match p[0] {
                200 => Err(Stop::Tool(ToolError::invalid("bad piece"))),
                _ => Ok(()),
            },
            |_| {
                steps += 1;
                Ok(())
            },
        );
        // Piece k starts with byte (100 k) % 251: the third one with 200.
        assert!(matches!(failed, Err(Stop::Tool(e)) if e.message == "bad piece"));
        assert_eq!(steps, (0..50).position(|k| (k * 100) % 251 == 200).unwrap());
        let stopped = Chunks::file(&path)
            .with_chunk_size(10)
            .each_ahead(|_| Ok(()), |_| Err(Stop::Tool(ToolError::invalid("stop"))));
        assert!(matches!(stopped, Err(Stop::Tool(e)) if e.message == "stop"));
        let missing =
            Chunks::file(Path::new("/nonexistent/cmpx")).each_ahead(|_| Ok(()), |_| Ok(()));
        assert!(matches!(missing, Err(Stop::Io(_))));
    }

    #[test]
    fn missing_file_is_an_io_stop() {
        assert!(matches!(
            collect(Chunks::file(Path::new("/nonexistent/cmpx"))),
            Err(Stop::Io(_))
        ));
    }
}
