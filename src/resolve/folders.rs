//! One tool folder read and tokenised: what the index needs of it, cached with the folder's
//! stamp so that a rebuild (after an install) re-reads only the folders that changed, and a
//! cold build reads folders in parallel.

use super::{text, values};
use crate::cmp::registry::{self, Skipped};
use crate::cmp::{Capability, Manifest};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A pattern's terms, before they get ids.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Tokens {
    Terms(Vec<String>),
    Regex(String),
}

/// A tool as the index takes it in: its terms in the order they are met, so interning them
/// gives the same ids whether they were just read or came from the cache.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Prepared {
    pub name: String,
    pub domain: String,
    pub adapter: bool,
    pub modes: bool,
    pub weak: Vec<String>,
    pub intents: Vec<Vec<Tokens>>,
    /// The tool's choice parameters, and what each intent's command fixes of them.
    pub choices: Vec<values::Choice>,
    pub fixed: Vec<Vec<(u32, u32)>>,
}

/// A pattern's terms, plus its two words written as one ("upper case" → "uppercase",
/// "pascal case" → "pascalcase") since people write compounds both ways.
fn pattern(p: &str, out: &mut Vec<Tokens>) {
    if let Some(re) = p.strip_prefix("re:") {
        out.push(Tokens::Regex(re.to_string()));
        return;
    }
    out.push(Tokens::Terms(text::terms(p)));
    let words: Vec<String> = text::words(p)
        .into_iter()
        .filter(|w| !text::is_stop_word(w))
        .collect();
    if words.len() == 2 {
        out.push(Tokens::Terms(vec![text::term(&words.concat())]));
    }
}

pub fn prepare(m: &Manifest, cap: &Capability) -> Prepared {
    let choices = values::choices(cap);
    let mut weak = text::terms(&m.name.replace(['-', '_'], " "));
    weak.extend(text::terms(&m.summary));
    weak.extend(text::terms(&m.domain));
    for tag in &m.tags {
        weak.extend(text::terms(tag));
    }
    Prepared {
        name: m.name.clone(),
        domain: m.domain.clone(),
        adapter: m.adapter,
        // A catalogue tool (run by `cmpx run <name>`): its first intent is the general one
        // and the others are its modes.
        modes: cap.intents.len() > 1
            && crate::catalogue::get(&m.name).is_some()
            && cap.intents.iter().all(|i| {
                i.command
                    .strip_prefix("cmpx run ")
                    .and_then(|c| c.split_whitespace().next())
                    == Some(m.name.as_str())
            }),
        weak,
        intents: cap
            .intents
            .iter()
            .map(|i| {
                let mut out = Vec::new();
                for p in &i.patterns {
                    pattern(p, &mut out);
                }
                out
            })
            .collect(),
        fixed: cap
            .intents
            .iter()
            .map(|i| values::fixed(&i.command, &choices))
            .collect(),
        choices,
    }
}

/// One installed folder as read: its manifest's name (which decides shadowing) and the tool,
/// or why its capability could not be used.
pub struct Folder {
    pub dir: PathBuf,
    /// The folder's stamp when it was read (see `stamp`).
    pub stamp: u64,
    pub name: String,
    pub tool: Result<Prepared, Skipped>,
}

/// Reads one folder as `registry::scan` and the index would: a manifest that is unreadable or
/// has problems means no tool at all.
fn read(dir: &Path, cmp_dir: &Path, stamp: u64) -> Result<Folder, Skipped> {
    let manifest_path = cmp_dir.join("manifest.json");
    let manifest: Manifest = registry::read_json(&manifest_path).map_err(|reason| Skipped {
        path: manifest_path.clone(),
        reason,
    })?;
    let problems = manifest.problems();
    if !problems.is_empty() {
        return Err(Skipped {
            path: manifest_path,
            reason: problems.join("; "),
        });
    }
    let cap_path = cmp_dir.join("capability.json");
    let tool = registry::read_json::<Capability>(&cap_path)
        .map(|cap| prepare(&manifest, &cap))
        .map_err(|reason| Skipped {
            path: cap_path,
            reason,
        });
    Ok(Folder {
        dir: dir.to_path_buf(),
        stamp,
        name: manifest.name,
        tool,
    })
}

/// A cached folder: valid while the folder's stamp is unchanged.
#[derive(Serialize, Deserialize)]
pub struct Record {
    pub dir: PathBuf,
    pub stamp: u64,
    pub tool: Prepared,
}

/// Every tool folder `found` by the stamps (in scan order), each taken from `old` when its
/// stamp still matches (moved, not copied) and read otherwise (in parallel over the
/// machine's cores).
pub fn read_all(
    found: Vec<(PathBuf, PathBuf, u64)>,
    mut old: HashMap<PathBuf, Record>,
) -> (Vec<Result<Folder, Skipped>>, usize) {
    let reused: Vec<Option<Prepared>> = found
        .iter()
        .map(|(dir, _, stamp)| {
            let r = old.remove(dir)?;
            (*stamp == r.stamp).then_some(r.tool)
        })
        .collect();
    drop(old);
    let fresh = reused.iter().filter(|r| r.is_none()).count();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = fresh.div_ceil(threads).max(256);
    let mut to_read: Vec<(usize, &(PathBuf, PathBuf, u64))> = found
        .iter()
        .enumerate()
        .filter(|(i, _)| reused[*i].is_none())
        .collect();
    let read: Vec<(usize, Result<Folder, Skipped>)> = std::thread::scope(|s| {
        let handles: Vec<_> = to_read
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&(i, (dir, cmp_dir, stamp))| (i, read(dir, cmp_dir, *stamp)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    to_read.clear();
    let mut read = read.into_iter().peekable();
    let folders = found
        .into_iter()
        .zip(reused)
        .enumerate()
        .filter_map(|(i, ((dir, _, stamp), tool))| match tool {
            Some(tool) => Some(Ok(Folder {
                dir,
                stamp,
                name: tool.name.clone(),
                tool: Ok(tool),
            })),
            None => read.next_if(|(at, _)| *at == i).map(|(_, f)| f),
        })
        .collect();
    (folders, fresh)
}
