//! The resolution index: every installed intent with its patterns pre-tokenised into term ids,
//! cached under `$CMP_HOME/cache/` and rebuilt whenever any tool folder under any root changes.
//!
//! Freshness is checked on every load by comparing a stamp (size and mtime of each manifest and
//! capability) with the one recorded; a mismatch rebuilds, a missing or unreadable cache
//! rebuilds, so the cache is never served stale and is always safe to delete. The cache keeps
//! only what scoring needs; the few candidates shown are read from their own files.

use super::text;
use crate::cmp::registry::{self, Installed};
use crate::cmp::{Capability, Manifest};
use serde::{Deserialize, Serialize};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

const FORMAT: u32 = 5;

pub type TermId = u32;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Pattern {
    Terms(Vec<TermId>),
    Regex(String),
}

/// What the index knows of one installed tool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub domain: String,
    pub dir: PathBuf,
    pub adapter: bool,
    /// A catalogue tool not exported to any root: cmpx knows it without files.
    #[serde(default)]
    pub builtin: bool,
    /// Terms from the name, summary, domain and tags: weaker evidence than the patterns.
    pub weak: Vec<TermId>,
    /// A catalogue tool (run by `cmpx run <name>`): its first intent is the general one and the
    /// others are its modes, so they are one decision, not rivals.
    #[serde(default)]
    pub modes: bool,
}

/// One intent of one tool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub tool: u32,
    pub intent: u32,
    pub patterns: Vec<Pattern>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Index {
    format: u32,
    stamp: u64,
    /// The vocabulary: a term's id is its position.
    pub terms: Vec<String>,
    /// How many entries mention each term (patterns or weak terms).
    pub df: Vec<u32>,
    pub tools: Vec<ToolInfo>,
    pub entries: Vec<Entry>,
    #[serde(skip)]
    pub skipped: Vec<registry::Skipped>,
}

impl Index {
    pub fn tool_of(&self, e: &Entry) -> &ToolInfo {
        &self.tools[e.tool as usize]
    }

    /// Id lookup for the vocabulary, built on demand (a few thousand terms).
    pub fn term_ids(&self) -> HashMap<&str, TermId> {
        self.terms
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i as TermId))
            .collect()
    }
}

#[derive(Default)]
struct Builder {
    ids: HashMap<String, TermId>,
    terms: Vec<String>,
}

impl Builder {
    fn id(&mut self, term: String) -> TermId {
        if let Some(&id) = self.ids.get(&term) {
            return id;
        }
        let id = self.terms.len() as TermId;
        self.terms.push(term.clone());
        self.ids.insert(term, id);
        id
    }

    fn ids(&mut self, terms: Vec<String>) -> Vec<TermId> {
        terms.into_iter().map(|t| self.id(t)).collect()
    }

    /// A pattern's terms, plus its two words written as one ("upper case" → "uppercase",
    /// "pascal case" → "pascalcase") since people write compounds both ways.
    fn pattern(&mut self, p: &str) -> Vec<Pattern> {
        if let Some(re) = p.strip_prefix("re:") {
            return vec![Pattern::Regex(re.to_string())];
        }
        let mut out = vec![Pattern::Terms(self.ids(text::terms(p)))];
        let words: Vec<String> = text::words(p)
            .into_iter()
            .filter(|w| !text::is_stop_word(w))
            .collect();
        if words.len() == 2 {
            out.push(Pattern::Terms(vec![self.id(text::term(&words.concat()))]));
        }
        out
    }

    fn tool(&mut self, tool: &Installed, index: &mut Index) -> Result<(), String> {
        let cap = tool.capability()?;
        self.add(&tool.manifest, &cap, tool.dir.clone(), false, index);
        Ok(())
    }

    fn add(
        &mut self,
        m: &Manifest,
        cap: &Capability,
        dir: PathBuf,
        builtin: bool,
        index: &mut Index,
    ) {
        let mut weak = text::terms(&m.name.replace(['-', '_'], " "));
        weak.extend(text::terms(&m.summary));
        weak.extend(text::terms(&m.domain));
        for tag in &m.tags {
            weak.extend(text::terms(tag));
        }
        let mut weak = self.ids(weak);
        weak.sort_unstable();
        weak.dedup();
        let t = index.tools.len() as u32;
        index.tools.push(ToolInfo {
            name: m.name.clone(),
            domain: m.domain.clone(),
            dir,
            adapter: m.adapter,
            builtin,
            weak,
            modes: cap.intents.len() > 1
                && crate::catalogue::get(&m.name).is_some()
                && cap.intents.iter().all(|i| {
                    i.command
                        .strip_prefix("cmpx run ")
                        .and_then(|c| c.split_whitespace().next())
                        == Some(m.name.as_str())
                }),
        });
        for (i, intent) in cap.intents.iter().enumerate() {
            let patterns = intent
                .patterns
                .iter()
                .flat_map(|p| self.pattern(p))
                .collect();
            index.entries.push(Entry {
                tool: t,
                intent: i as u32,
                patterns,
            });
        }
    }
}

/// What a file's metadata says about its content: any write changes the ctime (which no
/// user can set back), so an edit that keeps the size and restores the mtime still shows.
fn hash_meta(h: &mut impl Hasher, meta: &std::io::Result<std::fs::Metadata>) {
    use std::os::unix::fs::MetadataExt;
    match meta {
        Ok(m) => (
            m.mode(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
            m.ino(),
            m.dev(),
        )
            .hash(h),
        Err(e) => e.kind().hash(h),
    }
}

/// The stamp of one tool folder: which CMP folder it uses (`cmp/` before `.cmp/`, as the
/// scan decides) and the metadata of its manifest and capability.
fn folder_stamp(dir: &Path) -> u64 {
    let mut h = DefaultHasher::new();
    for sub in ["cmp", ".cmp"] {
        let cmp = dir.join(sub);
        let manifest = cmp.join("manifest.json");
        let Ok(lstat) = std::fs::symlink_metadata(&manifest) else {
            continue;
        };
        sub.hash(&mut h);
        let meta = if lstat.file_type().is_symlink() {
            std::fs::metadata(&manifest)
        } else {
            Ok(lstat)
        };
        hash_meta(&mut h, &meta);
        hash_meta(&mut h, &std::fs::metadata(cmp.join("capability.json")));
        return h.finish();
    }
    h.finish()
}

/// One digest of everything an index is built from: each root's folder names and each
/// folder's stamp, plus the embedded catalogue. Two stat calls per folder are the whole cost
/// of a warm load, so they are spread over the machine's cores.
fn stamp(roots: &[PathBuf]) -> u64 {
    let mut h = DefaultHasher::new();
    FORMAT.hash(&mut h);
    catalogue_stamp().hash(&mut h);
    for root in roots {
        root.hash(&mut h);
        let mut names: Vec<std::ffi::OsString> = match std::fs::read_dir(root) {
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name())
                .filter(|n| {
                    !n.to_string_lossy()
                        .starts_with(crate::cmp::staging::STAGING_PREFIX)
                })
                .collect(),
            Err(e) => {
                e.kind().hash(&mut h);
                continue;
            }
        };
        names.sort();
        names.hash(&mut h);
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8);
        let chunk = names.len().div_ceil(threads).max(512);
        let stamps: Vec<u64> = std::thread::scope(|s| {
            let handles: Vec<_> = names
                .chunks(chunk)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|n| folder_stamp(&root.join(n)))
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
    }
    h.finish()
}

fn build_stamped(roots: &[PathBuf], stamp: u64) -> Index {
    let scan = registry::scan(roots);
    let mut index = Index {
        format: FORMAT,
        stamp,
        skipped: scan.skipped,
        ..Index::default()
    };
    let mut builder = Builder::default();
    // cmpx always knows its own catalogue; an exported copy (same name) stands in for it.
    let installed: HashSet<&str> = scan.tools.iter().map(|t| t.name()).collect();
    for def in crate::catalogue::all()
        .iter()
        .filter(|d| !installed.contains(d.id.as_str()))
    {
        let (m, cap) = (
            crate::cmp::mapping::manifest(def),
            crate::cmp::mapping::capability(def),
        );
        builder.add(&m, &cap, PathBuf::new(), true, &mut index);
    }
    for tool in &scan.tools {
        if let Err(reason) = builder.tool(tool, &mut index) {
            index.skipped.push(registry::Skipped {
                path: tool.cmp_dir.join("capability.json"),
                reason,
            });
        }
    }
    index.df = vec![0; builder.terms.len()];
    for e in &index.entries {
        let mut seen: Vec<TermId> = e
            .patterns
            .iter()
            .filter_map(|p| match p {
                Pattern::Terms(t) => Some(t.iter().copied()),
                Pattern::Regex(_) => None,
            })
            .flatten()
            .chain(index.tools[e.tool as usize].weak.iter().copied())
            .collect();
        seen.sort_unstable();
        seen.dedup();
        for t in seen {
            index.df[t as usize] += 1;
        }
    }
    index.terms = builder.terms;
    index
}

/// A fresh index for `roots`, bypassing the cache (tests, benchmarks).
pub fn build(roots: &[PathBuf]) -> Index {
    build_stamped(roots, stamp(roots))
}

/// A digest of the embedded catalogue and cmpx's version, so a new cmpx binary never reads an
/// index built by an older one.
fn catalogue_stamp() -> u64 {
    let mut h = DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut h);
    for src in crate::catalogue::sources() {
        src.path.hash(&mut h);
        src.text.hash(&mut h);
    }
    h.finish()
}

fn cache_path() -> Option<PathBuf> {
    crate::paths::cmp_home().map(|h| h.join("cache").join("resolve-index.bin"))
}

/// The cache's first line: what built it and from what. A cache whose first line differs is
/// rebuilt without decoding the rest.
fn header(stamp: u64) -> String {
    format!("cmpx-resolve-index {FORMAT} {stamp:016x}\n")
}

/// The index for `roots`: from the cache when its stamp still matches, else rebuilt (and the
/// cache refreshed when it can be written; a read-only home just means no cache).
pub fn load(roots: &[PathBuf]) -> Index {
    let current = stamp(roots);
    let cache = cache_path();
    if let Some(path) = &cache
        && let Some(index) = read_cache(path, current)
    {
        return index;
    }
    let index = build_stamped(roots, current);
    if let Some(path) = &cache
        && let Ok(body) = rmp_serde::to_vec(&index)
    {
        let mut bytes = header(current).into_bytes();
        bytes.extend_from_slice(&body);
        let _ = crate::cmp::atomic::write(path, &bytes);
    }
    index
}

/// Largest cache read back; a bigger (or non-regular) file is ignored and the index rebuilt.
const MAX_CACHE_BYTES: u64 = 256 * 1024 * 1024;

fn read_cache(path: &Path, stamp: u64) -> Option<Index> {
    let bytes =
        crate::cmp::read::read(path, MAX_CACHE_BYTES, crate::cmp::read::Links::Refuse).ok()?;
    let body = bytes.strip_prefix(header(stamp).as_bytes())?;
    rmp_serde::from_slice::<Index>(body)
        .ok()
        .filter(|i| i.format == FORMAT && i.stamp == stamp)
}
