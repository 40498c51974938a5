//! Freshness stamps: a digest of the metadata of every file an index is built from, taken
//! with one `fstatat` per file relative to an open root, so a warm load costs two short
//! stat calls per folder and no path walk from `/`.

use std::ffi::{CStr, OsStr, OsString};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What a file's metadata says about its content: any write changes the ctime (which no
/// user can set back), so an edit that keeps the size and restores the mtime still shows.
fn hash_stat(h: &mut impl Hasher, st: &Result<libc::stat, std::io::ErrorKind>) {
    match st {
        Ok(m) => (
            m.st_mode,
            m.st_size,
            m.st_mtime,
            m.st_mtime_nsec,
            m.st_ctime,
            m.st_ctime_nsec,
            m.st_ino,
            m.st_dev,
        )
            .hash(h),
        Err(kind) => kind.hash(h),
    }
}

/// `fstatat(root, rel)`, following symbolic links or not.
fn stat_at(root: &File, rel: &CStr, follow: bool) -> Result<libc::stat, std::io::ErrorKind> {
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `rel` is NUL-terminated, `st` is a valid buffer for one `stat`, and the
    // descriptor stays open for the call.
    let rc = unsafe { libc::fstatat(root.as_raw_fd(), rel.as_ptr(), st.as_mut_ptr(), flags) };
    if rc == 0 {
        // SAFETY: fstatat filled the buffer when it returned 0.
        Ok(unsafe { st.assume_init() })
    } else {
        Err(std::io::Error::last_os_error().kind())
    }
}

/// `name/sub/file` as a C string in `buf` (reused across calls: the warm path stats every
/// folder, so it allocates nothing per call); `None` for a name holding a NUL.
fn rel_path<'a>(buf: &'a mut Vec<u8>, name: &OsStr, sub: &str, file: &str) -> Option<&'a CStr> {
    buf.clear();
    buf.extend_from_slice(name.as_bytes());
    buf.push(b'/');
    buf.extend_from_slice(sub.as_bytes());
    buf.push(b'/');
    buf.extend_from_slice(file.as_bytes());
    buf.push(0);
    CStr::from_bytes_with_nul(buf).ok()
}

fn stat_rel(
    root: &File,
    buf: &mut Vec<u8>,
    name: &OsStr,
    sub: &str,
    file: &str,
    follow: bool,
) -> Result<libc::stat, std::io::ErrorKind> {
    let rel = rel_path(buf, name, sub, file).ok_or(std::io::ErrorKind::InvalidInput)?;
    stat_at(root, rel, follow)
}

/// The stamp of one tool folder: which CMP folder it uses (`cmp/` before `.cmp/`, as the
/// scan decides: a manifest that is a dangling link still picks its folder) and the metadata
/// of its manifest and capability (through links).
pub fn folder(root: &File, name: &OsStr, buf: &mut Vec<u8>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for sub in ["cmp", ".cmp"] {
        let manifest = stat_rel(root, buf, name, sub, "manifest.json", true);
        if manifest.is_err() && stat_rel(root, buf, name, sub, "manifest.json", false).is_err() {
            continue;
        }
        sub.hash(&mut h);
        hash_stat(&mut h, &manifest);
        hash_stat(
            &mut h,
            &stat_rel(root, buf, name, sub, "capability.json", true),
        );
        return h.finish();
    }
    h.finish()
}

/// Every folder of every root with its stamp, and one digest of them all (with `seed`, which
/// says what built the index). Folders are stamped in parallel over the machine's cores.
pub struct Stamps {
    pub digest: u64,
    /// Each root's folder names and their stamps, in the same order.
    roots: Vec<(PathBuf, Vec<OsString>, Vec<u64>)>,
}

impl Stamps {
    /// Each folder's stamp by path; only a rebuild needs it, so a warm load never builds it.
    pub fn folders(&self) -> std::collections::HashMap<PathBuf, u64> {
        self.roots
            .iter()
            .flat_map(|(root, names, stamps)| {
                names
                    .iter()
                    .map(|n| root.join(n))
                    .zip(stamps.iter().copied())
            })
            .collect()
    }
}

pub fn stamps(roots: &[PathBuf], seed: u64) -> Stamps {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    seed.hash(&mut h);
    let mut folders = Vec::new();
    for root in roots {
        root.hash(&mut h);
        let (dir, names) = match open_root(root) {
            Ok(found) => found,
            Err(kind) => {
                kind.hash(&mut h);
                continue;
            }
        };
        names.hash(&mut h);
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8);
        let chunk = names.len().div_ceil(threads).max(512);
        let stamps: Vec<u64> = std::thread::scope(|s| {
            let handles: Vec<_> = names
                .chunks(chunk)
                .map(|part| {
                    let dir = &dir;
                    s.spawn(move || {
                        let mut buf = Vec::new();
                        part.iter()
                            .map(|n| folder(dir, n, &mut buf))
                            .collect::<Vec<u64>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        });
        stamps.hash(&mut h);
        folders.push((root.clone(), names, stamps));
    }
    Stamps {
        digest: h.finish(),
        roots: folders,
    }
}

/// The root opened for `fstatat`, and its folder names sorted (staging folders left out: an
/// export is still building them).
fn open_root(root: &Path) -> Result<(File, Vec<OsString>), std::io::ErrorKind> {
    let dir = File::open(root).map_err(|e| e.kind())?;
    let mut names: Vec<OsString> = std::fs::read_dir(root)
        .map_err(|e| e.kind())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| {
            !n.to_string_lossy()
                .starts_with(crate::cmp::staging::STAGING_PREFIX)
        })
        .collect();
    names.sort();
    Ok((dir, names))
}
