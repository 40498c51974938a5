//! Freshness stamps: a digest of the metadata of every file an index is built from, taken
//! with one `statx` per file relative to an open root, so a warm load costs two short
//! stat calls per folder and no path walk from `/`.

use rustix::fs::{AtFlags, StatxFlags};
use rustix::io::Errno;
use std::ffi::{CStr, OsStr, OsString};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};

/// What a file's metadata says about its content: any write changes the ctime (which no
/// user can set back), so an edit that keeps the size and restores the mtime still shows.
#[derive(Hash)]
struct Meta {
    mode: u32,
    size: u64,
    mtime: (i64, u32),
    ctime: (i64, u32),
    ino: u64,
    dev: (u32, u32),
}

/// The fields [`Meta`] needs; asking for no more lets the kernel skip the rest.
const STATX_MASK: StatxFlags = StatxFlags::TYPE
    .union(StatxFlags::MODE)
    .union(StatxFlags::SIZE)
    .union(StatxFlags::MTIME)
    .union(StatxFlags::CTIME)
    .union(StatxFlags::INO);

/// `statx(root, rel)` (about a tenth cheaper than `fstatat`: a warm load makes two per
/// folder), following symbolic links or not; `fstatat` where the kernel has no `statx`.
fn stat_at(root: &File, rel: &CStr, follow: bool) -> Result<Meta, std::io::ErrorKind> {
    let nofollow = if follow {
        AtFlags::empty()
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    let kind = |e: Errno| std::io::Error::from(e).kind();
    match rustix::fs::statx(root, rel, nofollow | AtFlags::STATX_DONT_SYNC, STATX_MASK) {
        Ok(x) => {
            return Ok(Meta {
                mode: u32::from(x.stx_mode),
                size: x.stx_size,
                mtime: (x.stx_mtime.tv_sec, x.stx_mtime.tv_nsec),
                ctime: (x.stx_ctime.tv_sec, x.stx_ctime.tv_nsec),
                ino: x.stx_ino,
                dev: (x.stx_dev_major, x.stx_dev_minor),
            });
        }
        Err(e) if e != Errno::NOSYS => return Err(kind(e)),
        Err(_) => {}
    }
    let m = rustix::fs::statat(root, rel, nofollow).map_err(kind)?;
    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    Ok(Meta {
        mode: m.st_mode as u32,
        size: m.st_size as u64,
        mtime: (m.st_mtime as i64, m.st_mtime_nsec as u32),
        ctime: (m.st_ctime as i64, m.st_ctime_nsec as u32),
        ino: m.st_ino as u64,
        dev: (rustix::fs::major(m.st_dev), rustix::fs::minor(m.st_dev)),
    })
}

/// A folder's stamp needs no defence against chosen collisions (whoever can shape the
/// metadata can edit the files), only a cheap, well-mixed digest of a few words: SipHash was
/// a tenth of a warm load at 10,000 folders.
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        let m =
            u128::from(self.0 ^ x ^ 0xA076_1D64_78BD_642F) * u128::from(0xE703_7ED1_A0B4_28DBu64);
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

fn hash_stat(h: &mut impl Hasher, st: &Result<Meta, std::io::ErrorKind>) {
    match st {
        Ok(m) => m.hash(h),
        Err(kind) => kind.hash(h),
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
) -> Result<Meta, std::io::ErrorKind> {
    let rel = rel_path(buf, name, sub, file).ok_or(std::io::ErrorKind::InvalidInput)?;
    stat_at(root, rel, follow)
}

/// Where a folder's manifest is: the CMP folder the scan uses (`cmp/` before `.cmp/`: a
/// manifest that is a dangling link still picks its folder), or none (not a tool folder).
const SUBS: [&str; 2] = ["cmp", ".cmp"];

/// The stamp of one tool folder: which CMP folder it uses (its index in [`SUBS`], if any) and
/// the metadata of its manifest and capability (through links).
pub fn folder(root: &File, name: &OsStr, buf: &mut Vec<u8>) -> (u64, Option<usize>) {
    let mut h = Mix::default();
    for (at, sub) in SUBS.iter().enumerate() {
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
        return (h.finish(), Some(at));
    }
    (h.finish(), None)
}

/// One stamped folder of one root.
struct Stamped {
    name: OsString,
    stamp: u64,
    sub: Option<usize>,
}

/// Every folder of every root with its stamp, and one digest of them all (with `seed`, which
/// says what built the index). Folders are stamped in parallel over the machine's cores.
pub struct Stamps {
    pub digest: u64,
    roots: Vec<(PathBuf, Vec<Stamped>)>,
}

impl Stamps {
    /// The tool folders found (those with a manifest) as `registry::tool_folders` lists them,
    /// without asking the file system again: `(folder, its CMP folder, its stamp)`, root by
    /// root in name order, at most `max_tools` per root (the rest noted in `skipped`).
    pub fn tool_folders(
        &self,
        skipped: &mut Vec<crate::cmp::registry::Skipped>,
    ) -> Vec<(PathBuf, PathBuf, u64)> {
        let max = crate::limits::max_tools();
        let mut found = Vec::new();
        for (root, folders) in &self.roots {
            let mut mine = 0;
            for f in folders {
                if mine >= max {
                    skipped.push(crate::cmp::registry::Skipped::too_many_tools(root, max));
                    break;
                }
                if let Some(sub) = f.sub {
                    let dir = root.join(&f.name);
                    found.push((dir.clone(), dir.join(SUBS[sub]), f.stamp));
                    mine += 1;
                }
            }
        }
        found
    }
}

pub fn stamps(roots: &[PathBuf], seed: u64) -> Stamps {
    stamps_with(roots, seed, || ()).0
}

/// Folders a thread takes at a time: small enough that the threads finish together.
const CHUNK: usize = 64;

/// [`stamps`], while this thread first runs `alongside` (a warm load decodes the cached index
/// there) and then helps the others stamp: the threads share the folders as they come free,
/// so neither job waits on the other.
pub fn stamps_with<T>(roots: &[PathBuf], seed: u64, alongside: impl FnOnce() -> T) -> (Stamps, T) {
    let opened: Vec<_> = roots.iter().map(|r| open_root(r)).collect();
    let work: Vec<(&File, &OsStr)> = opened
        .iter()
        .flatten()
        .flat_map(|(dir, names)| names.iter().map(move |n| (dir, n.as_os_str())))
        .collect();
    let slots: Vec<AtomicU64> = work.iter().map(|_| AtomicU64::new(0)).collect();
    // The CMP folder each uses: 0 for none, else 1 + its index in SUBS.
    let subs: Vec<AtomicU8> = work.iter().map(|_| AtomicU8::new(0)).collect();
    let next = AtomicUsize::new(0);
    let stamp_some = || {
        let mut buf = Vec::new();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            let Some(part) = work.get(start..(start + CHUNK).min(work.len())) else {
                break;
            };
            if part.is_empty() {
                break;
            }
            for (i, (dir, name)) in part.iter().enumerate() {
                let (stamp, sub) = folder(dir, name, &mut buf);
                slots[start + i].store(stamp, Ordering::Relaxed);
                subs[start + i].store(sub.map_or(0, |s| s as u8 + 1), Ordering::Relaxed);
            }
        }
    };
    // Another thread costs more than it saves below a few hundred folders.
    let helpers = if work.len() < 4 * CHUNK {
        0
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            - 1
    };
    let value = std::thread::scope(|s| {
        for _ in 0..helpers {
            s.spawn(stamp_some);
        }
        let value = alongside();
        stamp_some();
        value
    });
    drop(work);
    let mut stamped = slots
        .into_iter()
        .zip(subs)
        .map(|(stamp, sub)| (stamp.into_inner(), sub.into_inner()));
    let mut h = Mix::default();
    seed.hash(&mut h);
    let mut folders = Vec::new();
    for (root, found) in roots.iter().zip(opened) {
        root.hash(&mut h);
        match found {
            Err(kind) => kind.hash(&mut h),
            Ok((_, names)) => {
                let mine: Vec<Stamped> = names
                    .into_iter()
                    .zip(stamped.by_ref())
                    .map(|(name, (stamp, sub))| {
                        name.hash(&mut h);
                        stamp.hash(&mut h);
                        Stamped {
                            name,
                            stamp,
                            sub: sub.checked_sub(1).map(usize::from),
                        }
                    })
                    .collect();
                mine.len().hash(&mut h);
                folders.push((root.clone(), mine));
            }
        }
    }
    (
        Stamps {
            digest: h.finish(),
            roots: folders,
        },
        value,
    )
}

/// The root opened for `statx`, and its folder names sorted (staging folders left out: an
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Enough folders that helper threads share the work, one of them edited between calls.
    #[test]
    fn shared_stamping_sees_every_folder_and_one_edit() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().to_path_buf();
        for i in 0..300 {
            let cmp = root.join(format!("tool-{i:03}")).join("cmp");
            std::fs::create_dir_all(&cmp).unwrap();
            std::fs::write(cmp.join("manifest.json"), format!("{{\"n\":{i}}}")).unwrap();
            std::fs::write(cmp.join("capability.json"), "{}").unwrap();
        }
        let roots = [root.clone()];
        let (before, answer) = stamps_with(&roots, 7, || 42);
        assert_eq!(answer, 42);
        let folders = |s: &Stamps| -> std::collections::HashMap<PathBuf, u64> {
            let mut skipped = Vec::new();
            let found = s.tool_folders(&mut skipped);
            assert!(skipped.is_empty());
            for (dir, cmp, _) in &found {
                assert_eq!(*cmp, dir.join("cmp"));
            }
            found.into_iter().map(|(dir, _, s)| (dir, s)).collect()
        };
        let by_dir = folders(&before);
        assert_eq!(by_dir.len(), 300);
        let dir = File::open(&root).unwrap();
        let mut buf = Vec::new();
        for (path, stamp) in &by_dir {
            let name = path.file_name().unwrap();
            assert_eq!(*stamp, folder(&dir, name, &mut buf).0, "{}", path.display());
        }
        assert_eq!(stamps(&roots, 7).digest, before.digest);
        assert_ne!(stamps(&roots, 8).digest, before.digest);

        // Same size, and the mtime set back: the ctime still tells.
        let edited = root.join("tool-257").join("cmp").join("capability.json");
        let mtime = std::fs::metadata(&edited).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&edited, "[]").unwrap();
        File::options()
            .write(true)
            .open(&edited)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let after = stamps(&roots, 7);
        assert_ne!(after.digest, before.digest);
        let changed: Vec<PathBuf> = folders(&after)
            .into_iter()
            .filter(|(p, s)| by_dir[p] != *s)
            .map(|(p, _)| p)
            .collect();
        assert_eq!(changed, [root.join("tool-257")]);
    }

    #[test]
    fn a_missing_root_is_part_of_the_digest() {
        let home = tempfile::tempdir().unwrap();
        let (present, missing) = (home.path().to_path_buf(), home.path().join("nope"));
        let one = stamps(std::slice::from_ref(&present), 1);
        let both = stamps(&[present, missing], 1);
        assert_ne!(one.digest, both.digest);
        assert_eq!(both.tool_folders(&mut Vec::new()).len(), 0);
    }
}
