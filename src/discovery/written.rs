//! What `cmpx discover --out` wrote, and what it may therefore replace. `.cmpx-discover.json` in
//! the output folder records the SHA-256 of each file cmpx wrote there; as with `export`, a file
//! that matches neither that record nor the new content was made or edited by someone else and
//! is kept unless `--force`. Links are never written through: a file that is a link is replaced
//! (the link itself, never its target) only with `--force`, and a linked folder on the way to a
//! file is never written into.

use crate::cmp::read::{self, Links, ReadError};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// The record's name in the output folder.
pub const RECORD_FILE: &str = ".cmpx-discover.json";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    generator: String,
    /// Relative path (`/` separated) → SHA-256 of the bytes cmpx wrote.
    files: BTreeMap<String, String>,
}

/// What to do with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Create,
    Update,
    Unchanged,
    /// Leave it; the reason says why and what to do.
    Keep(String),
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl Record {
    /// The folder's record; none (or an unreadable one) means cmpx owns nothing there yet.
    pub fn load(dir: &Path) -> Record {
        read::read(
            &dir.join(RECORD_FILE),
            read::MAX_DOCUMENT_BYTES,
            Links::Refuse,
        )
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
    }

    pub fn decide(
        &self,
        dir: &Path,
        rel: &str,
        new: &[u8],
        force: bool,
    ) -> Result<Decision, Error> {
        let path = dir.join(rel);
        if let Some(reason) = linked_folder(dir, &path)? {
            return Ok(Decision::Keep(reason));
        }
        let foreign = |why: String| {
            if force {
                Decision::Update
            } else {
                Decision::Keep(format!("{why}; use --force to replace it"))
            }
        };
        Ok(
            match read::read_optional(&path, read::MAX_DOCUMENT_BYTES, Links::Refuse) {
                Ok(None) => Decision::Create,
                Ok(Some(old)) if old == new => Decision::Unchanged,
                Ok(Some(old)) => match self.files.get(rel) {
                    Some(hash) if *hash == sha256(&old) => Decision::Update,
                    Some(_) => foreign("edited since cmpx wrote it".to_string()),
                    None => foreign("not written by cmpx".to_string()),
                },
                Err(ReadError::TooLarge(_)) => foreign("not written by cmpx".to_string()),
                Err(ReadError::Link) => foreign(
                    "a symbolic link (--force replaces the link itself, never the file it points to)"
                        .to_string(),
                ),
                Err(ReadError::NotRegular("a directory")) => Decision::Keep(format!(
                    "{} is a directory; remove it to write the file",
                    path.display()
                )),
                Err(ReadError::NotRegular(what)) => foreign(format!("{what}, not a regular file")),
                Err(e) => return Err(e.into_error(&path)),
            },
        )
    }

    /// Notes that `rel` now holds `bytes` written (or confirmed) by cmpx.
    pub fn wrote(&mut self, rel: &str, bytes: &[u8]) {
        self.files.insert(rel.to_string(), sha256(bytes));
    }

    /// Writes the record when it changed (a run that changes nothing changes no mtime).
    pub fn save(&mut self, dir: &Path, before: &Record) -> Result<(), Error> {
        self.generator = format!("cmpx {}", env!("CARGO_PKG_VERSION"));
        if self == before {
            return Ok(());
        }
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        crate::cmp::atomic::write(&dir.join(RECORD_FILE), &bytes)
    }
}

/// A folder between `dir` and `path` (`.well-known/`) that is a link or no folder at all.
fn linked_folder(dir: &Path, path: &Path) -> Result<Option<String>, Error> {
    for parent in path.ancestors().skip(1).take_while(|p| *p != dir) {
        match std::fs::symlink_metadata(parent) {
            Ok(m) if m.is_dir() => {}
            Ok(m) => {
                return Ok(Some(format!(
                    "{} is {}, not a directory; cmpx never writes through links, even with --force",
                    parent.display(),
                    read::kind(m.file_type())
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("inspect", parent, e)),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files_are_replaced_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut record = Record::default();
        assert_eq!(
            record.decide(d, "a.txt", b"new", false).unwrap(),
            Decision::Create
        );
        std::fs::write(d.join("a.txt"), "old").unwrap();
        assert_eq!(
            record.decide(d, "a.txt", b"new", false).unwrap(),
            Decision::Keep("not written by cmpx; use --force to replace it".into())
        );
        assert_eq!(
            record.decide(d, "a.txt", b"new", true).unwrap(),
            Decision::Update
        );
        assert_eq!(
            record.decide(d, "a.txt", b"old", false).unwrap(),
            Decision::Unchanged
        );
        record.wrote("a.txt", b"old");
        assert_eq!(
            record.decide(d, "a.txt", b"new", false).unwrap(),
            Decision::Update
        );
        std::fs::write(d.join("a.txt"), "edited").unwrap();
        assert_eq!(
            record.decide(d, "a.txt", b"new", false).unwrap(),
            Decision::Keep("edited since cmpx wrote it; use --force to replace it".into())
        );
    }
}
