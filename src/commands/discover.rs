//! `cmpx discover`: the catalogue's discovery documents, printed one at a time or written as a
//! well-known layout under a directory, replacing only files cmpx wrote there
//! ([`crate::discovery::written`]) unless `--force`.

use crate::discovery::Options;
use crate::discovery::documents::Format;
use crate::discovery::written::{Decision, Record};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub(super) fn run(
    mode: Mode,
    format: Option<&str>,
    out: Option<&Path>,
    base_url: &str,
    force: bool,
) -> Result<ExitCode, Error> {
    let opts = Options::new(base_url).map_err(Error::Usage)?;
    let formats = match format {
        Some(name) => vec![Format::parse(name).ok_or_else(|| {
            Error::Usage(format!(
                "unknown format '{}'; formats: {}",
                crate::text::preview(name, 40),
                Format::names()
            ))
        })?],
        None if out.is_some() => Format::ALL.to_vec(),
        None => {
            return Err(Error::Usage(format!(
                "give --format <name> to print one document, or --out DIR to write them all; formats: {}",
                Format::names()
            )));
        }
    };
    let tools = crate::catalogue::all();
    let Some(dir) = out else {
        print_text(&formats[0].render(tools, &opts));
        return Ok(ExitCode::Success);
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    // Two runs into one folder take turns, so neither records the other's half-written state.
    let _lock = crate::cmp::lock::acquire(dir)?;
    let before = Record::load(dir);
    let mut record = before.clone();
    let mut files = Vec::new();
    for f in formats {
        let path = dir.join(f.file());
        let text = f.render(tools, &opts);
        let status = match record.decide(dir, f.file(), text.as_bytes(), force)? {
            Decision::Keep(reason) => {
                eprintln!(
                    "warning: kept {}: {}",
                    crate::text::escape_control(&path.display().to_string()),
                    crate::text::escape_control(&reason)
                );
                let mut entry = file_entry("format", f.name(), path, "skipped");
                entry["reason"] = Value::String(reason);
                files.push(entry);
                continue;
            }
            Decision::Unchanged => "unchanged",
            Decision::Create => "created",
            Decision::Update => "updated",
        };
        if status != "unchanged" {
            crate::cmp::atomic::write(&path, text.as_bytes())?;
        }
        record.wrote(f.file(), text.as_bytes());
        files.push(file_entry("format", f.name(), path, status));
    }
    record.save(dir, &before)?;
    output::print_value(
        mode,
        &json!({
            "target": dir,
            "baseUrl": opts.base_url,
            "tools": tools.len(),
            "files": files,
        }),
    );
    Ok(ExitCode::Success)
}

/// Writes `bytes` atomically unless the file already holds them (so a repeated run changes no
/// mtime); says which of `created`, `updated` or `unchanged` happened.
pub(super) fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<&'static str, Error> {
    use crate::cmp::read::{self, Links, ReadError};
    let status = match read::read(path, read::MAX_DOCUMENT_BYTES, Links::Follow) {
        Ok(old) if old == bytes => return Ok("unchanged"),
        Ok(_) | Err(ReadError::TooLarge(_)) => "updated",
        Err(ReadError::NotFound) => "created",
        Err(e) => return Err(e.into_error(path)),
    };
    crate::cmp::atomic::write(path, bytes)?;
    Ok(status)
}

/// Prints a document as it is: these are files, not results, so no JSON envelope.
pub(super) fn print_text(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// A JSON summary entry for a written file.
pub(super) fn file_entry(key: &str, name: &str, path: PathBuf, status: &str) -> Value {
    json!({ key: name, "path": path, "status": status })
}
