//! The resolution index: every installed intent with its patterns pre-tokenised, cached under
//! `$CMP_HOME/cache/` and rebuilt whenever any tool folder under any root changes.
//!
//! Freshness is checked on every load by comparing a stamp (size and mtime of each manifest and
//! capability, per folder) with the one recorded; a mismatch rebuilds, a missing or unreadable
//! cache rebuilds, so the cache is never served stale and is always safe to delete.

use super::text;
use crate::cmp::ParamSpec;
use crate::cmp::registry::{self, Installed};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

const FORMAT: u32 = 2;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Pattern {
    Terms(Vec<String>),
    Regex(String),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub tool: String,
    pub domain: String,
    pub dir: PathBuf,
    pub intent: usize,
    pub first_pattern: String,
    pub command: String,
    pub params: IndexMap<String, ParamSpec>,
    pub confirm: bool,
    pub destructive: bool,
    pub adapter: bool,
    pub patterns: Vec<Pattern>,
    /// Terms from the name, summary, domain and tags: weaker evidence than the patterns.
    pub weak: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Index {
    format: u32,
    stamp: Vec<(PathBuf, u64, u64)>,
    pub entries: Vec<Entry>,
    #[serde(skip)]
    pub skipped: Vec<registry::Skipped>,
}

fn entries_for(tool: &Installed) -> Result<Vec<Entry>, String> {
    let cap = tool.capability()?;
    let m = &tool.manifest;
    let mut weak = text::terms(&m.name.replace(['-', '_'], " "));
    weak.extend(text::terms(&m.summary));
    weak.extend(text::terms(&m.domain));
    for tag in &m.tags {
        weak.extend(text::terms(tag));
    }
    weak.sort();
    weak.dedup();
    Ok(cap
        .intents
        .into_iter()
        .enumerate()
        .map(|(i, intent)| Entry {
            tool: m.name.clone(),
            domain: m.domain.clone(),
            dir: tool.dir.clone(),
            intent: i,
            first_pattern: intent.patterns.first().cloned().unwrap_or_default(),
            patterns: intent
                .patterns
                .iter()
                .flat_map(|p| match p.strip_prefix("re:") {
                    Some(re) => vec![Pattern::Regex(re.to_string())],
                    None => pattern_variants(p),
                })
                .collect(),
            command: intent.command,
            params: intent.params,
            confirm: intent.confirm,
            destructive: intent.destructive,
            adapter: m.adapter,
            weak: weak.clone(),
        })
        .collect())
}

/// A pattern's terms, plus its two words written as one ("upper case" → "uppercase",
/// "pascal case" → "pascalcase") since people write compounds both ways.
fn pattern_variants(p: &str) -> Vec<Pattern> {
    let mut out = vec![Pattern::Terms(text::terms(p))];
    let words: Vec<String> = text::words(p)
        .into_iter()
        .filter(|w| !text::is_stop_word(w))
        .collect();
    if words.len() == 2 {
        out.push(Pattern::Terms(vec![text::term(&words.concat())]));
    }
    out
}

/// `(file, size, mtime in ns)` for the manifest and capability of every tool folder.
fn stamp(roots: &[PathBuf]) -> Vec<(PathBuf, u64, u64)> {
    let mut out = Vec::new();
    for root in roots {
        for (_, cmp_dir) in registry::tool_folders(root, &mut Vec::new()) {
            for name in ["manifest.json", "capability.json"] {
                let path = cmp_dir.join(name);
                let (size, mtime) = std::fs::metadata(&path)
                    .map(|m| {
                        let t = m
                            .modified()
                            .ok()
                            .and_then(|t| t.duration_since(UNIX_EPOCH).ok());
                        (m.len(), t.map_or(0, |d| d.as_nanos() as u64))
                    })
                    .unwrap_or((u64::MAX, 0));
                out.push((path, size, mtime));
            }
        }
    }
    out
}

fn build_stamped(roots: &[PathBuf], stamp: Vec<(PathBuf, u64, u64)>) -> Index {
    let scan = registry::scan(roots);
    let mut skipped = scan.skipped;
    let mut entries = Vec::new();
    for tool in &scan.tools {
        match entries_for(tool) {
            Ok(e) => entries.extend(e),
            Err(reason) => skipped.push(registry::Skipped {
                path: tool.cmp_dir.join("capability.json"),
                reason,
            }),
        }
    }
    Index {
        format: FORMAT,
        stamp,
        entries,
        skipped,
    }
}

/// A fresh index for `roots`, bypassing the cache (tests, benchmarks).
pub fn build(roots: &[PathBuf]) -> Index {
    build_stamped(roots, stamp(roots))
}

fn cache_path() -> Option<PathBuf> {
    crate::paths::cmp_home().map(|h| h.join("cache").join("resolve-index.json"))
}

/// The index for `roots`: from the cache when every stamp still matches, else rebuilt (and the
/// cache refreshed when it can be written; a read-only home just means no cache).
pub fn load(roots: &[PathBuf]) -> Index {
    let current = stamp(roots);
    let cache = cache_path();
    if let Some(path) = &cache
        && let Some(index) = read_cache(path).filter(|i| i.format == FORMAT && i.stamp == current)
    {
        return index;
    }
    let index = build_stamped(roots, current);
    if let Some(path) = &cache
        && let Ok(bytes) = serde_json::to_vec(&index)
    {
        let _ = crate::cmp::atomic::write(path, &bytes);
    }
    index
}

fn read_cache(path: &Path) -> Option<Index> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Document frequencies and postings, built in memory from the entries at load.
pub struct Vocabulary {
    pub df: HashMap<String, u32>,
    pub postings: HashMap<String, Vec<u32>>,
    pub regex_entries: Vec<u32>,
}

impl Index {
    pub fn vocabulary(&self) -> Vocabulary {
        let mut postings: HashMap<String, Vec<u32>> = HashMap::new();
        let mut regex_entries = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            let mut seen: Vec<&String> = Vec::new();
            for p in &e.patterns {
                match p {
                    Pattern::Terms(ts) => seen.extend(ts),
                    Pattern::Regex(_) => regex_entries.push(i as u32),
                }
            }
            seen.extend(&e.weak);
            seen.sort();
            seen.dedup();
            for t in seen {
                postings.entry(t.clone()).or_default().push(i as u32);
            }
        }
        regex_entries.dedup();
        let df = postings
            .iter()
            .map(|(t, p)| (t.clone(), p.len() as u32))
            .collect();
        Vocabulary {
            df,
            postings,
            regex_entries,
        }
    }
}
