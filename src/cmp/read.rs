//! Reading the files cmpx takes from disk (tool folders, its cache, documents it rewrites):
//! regular files only, of bounded size, and never blocking. A FIFO, socket, device or directory
//! where a file should be is refused with a reason instead of hanging (or draining) the command.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Largest document cmpx reads back before rewriting it (`discover --out`, `agent-setup
/// --write`); its own are at most a few megabytes.
pub const MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;

/// Whether a symbolic link at the path itself may be followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Readers of tool folders: a linked file is read like any other (it is only read).
    Follow,
    /// Copying and rewriting: a link is refused, so nothing outside the tree is taken for its own.
    Refuse,
}

#[derive(Debug)]
pub enum ReadError {
    NotFound,
    /// A symbolic link, with [`Links::Refuse`].
    Link,
    /// Something other than a regular file: what it is ("a FIFO (named pipe)").
    NotRegular(&'static str),
    TooLarge(u64),
    Io(std::io::Error),
}

impl ReadError {
    /// One sentence naming the file and what is wrong with it.
    pub fn describe(&self, path: &Path) -> String {
        let p = path.display();
        match self {
            ReadError::NotFound => format!("cannot read {p}: no such file"),
            ReadError::Link => {
                format!("{p} is a symbolic link; cmpx does not follow links here")
            }
            ReadError::NotRegular(what) => {
                format!("{p} is {what}, not a regular file; cmpx reads only regular files")
            }
            ReadError::TooLarge(max) => format!("{p} is larger than {max} bytes"),
            ReadError::Io(e) => format!("cannot read {p}: {e}"),
        }
    }

    /// The application error for a file a command needed: an I/O failure as such, anything
    /// else (a FIFO, a link, too large) as a problem with the file.
    pub fn into_error(self, path: &Path) -> crate::error::Error {
        match self {
            ReadError::Io(e) => crate::error::Error::io("read", path, e),
            other => crate::error::Error::Invalid(vec![other.describe(path)]),
        }
    }
}

/// What a non-regular file is, in words.
pub fn kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// The file's bytes (at most `max`) and its metadata, taken from the open handle so that what
/// was checked is what was read.
pub fn read_with_meta(
    path: &Path,
    max: u64,
    links: Links,
) -> Result<(Vec<u8>, Metadata), ReadError> {
    let file = open(path, links)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind(meta.file_type())));
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge(max));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok((bytes, meta))
}

/// The file's bytes, at most `max`.
pub fn read(path: &Path, max: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    read_with_meta(path, max, links).map(|(bytes, _)| bytes)
}

/// `None` when the file does not exist.
pub fn read_optional(path: &Path, max: u64, links: Links) -> Result<Option<Vec<u8>>, ReadError> {
    match read(path, max, links) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(ReadError::NotFound) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Looks before opening (opening a device or FIFO can itself have effects), then opens
/// without blocking; the caller checks the handle again.
fn open(path: &Path, links: Links) -> Result<File, ReadError> {
    let meta = match links {
        Links::Follow => std::fs::metadata(path),
        Links::Refuse => std::fs::symlink_metadata(path),
    };
    let meta = meta.map_err(|e| io_error(e, path, links))?;
    if meta.file_type().is_symlink() {
        return Err(ReadError::Link);
    }
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind(meta.file_type())));
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = OFlags::NONBLOCK | OFlags::NOCTTY;
        if links == Links::Refuse {
            flags |= OFlags::NOFOLLOW;
        }
        // The flag bits are small positive values: the cast keeps them.
        opts.custom_flags(flags.bits() as i32);
    }
    opts.open(path).map_err(|e| io_error(e, path, links))
}

fn io_error(e: std::io::Error, path: &Path, links: Links) -> ReadError {
    if e.kind() == std::io::ErrorKind::NotFound {
        return ReadError::NotFound;
    }
    // O_NOFOLLOW fails with ELOOP on a link swapped in after the look.
    if links == Links::Refuse
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    {
        return ReadError::Link;
    }
    ReadError::Io(e)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .unwrap();
        let e = read(&fifo, 10, Links::Follow).unwrap_err();
        assert_eq!(
            e.describe(&fifo),
            format!(
                "{} is a FIFO (named pipe), not a regular file; cmpx reads only regular files",
                fifo.display()
            )
        );
        assert!(matches!(
            read(dir.path(), 10, Links::Follow),
            Err(ReadError::NotRegular("a directory"))
        ));
        assert!(matches!(
            read(Path::new("/dev/zero"), 10, Links::Follow),
            Err(ReadError::NotRegular("a device"))
        ));
    }

    #[test]
    fn links_are_followed_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "hello").unwrap();
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read(&link, 10, Links::Follow).unwrap(), b"hello");
        assert!(matches!(
            read(&link, 10, Links::Refuse),
            Err(ReadError::Link)
        ));
        assert!(matches!(
            read(&file, 4, Links::Refuse),
            Err(ReadError::TooLarge(4))
        ));
        assert!(matches!(
            read_optional(&dir.path().join("none"), 4, Links::Refuse),
            Ok(None)
        ));
    }
}
