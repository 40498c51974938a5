//! The resolution index: every installed intent with its patterns pre-tokenised into term ids,
//! cached under `$CMP_HOME/cache/` and rebuilt whenever any tool folder under any root changes.
//!
//! Freshness is checked on every load by comparing a stamp (the metadata of each manifest and
//! capability, see `stamp`) with the one recorded; a mismatch rebuilds, a missing or unreadable
//! cache rebuilds, so the cache is never served stale and is always safe to delete. A rebuild
//! re-reads only the folders whose own stamp changed (`folders`). The cache keeps only what
//! scoring needs; the few candidates shown are read from their own files.

use super::folders::{self, Prepared, Record, Tokens};
use super::lazy::{Bounds, Fits, Lazy};
use super::learned::{self, Learned, Phrasing};
use super::stamp::{self, Stamps};
use crate::cmp::registry;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

const FORMAT: u32 = 11;

pub type TermId = u32;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Pattern {
    Terms(Vec<TermId>),
    Regex(String),
}

/// What the index knows of one installed tool.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// Its choice parameters (see `values`).
    #[serde(default)]
    pub choices: Vec<super::values::Choice>,
}

/// One intent of one tool.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Entry {
    pub tool: u32,
    pub intent: u32,
    pub patterns: Vec<Pattern>,
    /// How many of the patterns (the last ones) are learned phrasings, not the contract's.
    #[serde(default)]
    pub learned: u32,
    /// The options of the tool's choices its command fixes (choice, option).
    #[serde(default)]
    pub fixed: Vec<(u32, u32)>,
}

impl Fits for ToolInfo {
    fn fits(&self, b: Bounds) -> bool {
        self.weak.iter().all(|&w| (w as usize) < b.terms)
    }
}

impl Fits for Entry {
    fn fits(&self, b: Bounds) -> bool {
        (self.tool as usize) < b.tools
            && self.learned as usize <= self.patterns.len()
            && self.patterns.iter().all(|p| match p {
                Pattern::Terms(t) => t.iter().all(|&t| (t as usize) < b.terms),
                Pattern::Regex(_) => true,
            })
    }
}

impl Entry {
    /// The patterns the tool's contract declares (without learned phrasings).
    pub fn declared(&self) -> &[Pattern] {
        &self.patterns[..self.patterns.len().saturating_sub(self.learned as usize)]
    }

    /// Every term of the declared word patterns (regex patterns have none), repeats included.
    pub fn declared_terms(&self) -> impl Iterator<Item = TermId> + '_ {
        self.declared()
            .iter()
            .filter_map(|p| match p {
                Pattern::Terms(t) => Some(t.iter().copied()),
                Pattern::Regex(_) => None,
            })
            .flatten()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Index {
    format: u32,
    stamp: u64,
    /// The vocabulary: a term's id is its position.
    pub terms: Vec<String>,
    /// The term ids in the order of their text, for lookups by binary search (a hash map of
    /// the vocabulary would have to be built on every run).
    by_text: Vec<TermId>,
    /// How many entries mention each term (patterns or weak terms).
    pub df: Vec<u32>,
    /// Whether a term is in some tool's own words (a declared pattern or its weak terms), not
    /// only in learned phrasings: only these are typo targets, and a word known only from a
    /// learned phrasing (a typo someone made) does not stop a request's typo being corrected.
    #[serde(default)]
    pub declared: Vec<bool>,
    /// Tools and entries are decoded when first used (see `lazy`).
    pub tools: Lazy<ToolInfo>,
    pub entries: Lazy<Entry>,
    /// Tool `t`'s entries are `tool_starts[t]..tool_starts[t + 1]`: a tool's intents are
    /// stored together.
    tool_starts: Vec<u32>,
    /// The entries mentioning each term, ascending: term `t`'s are
    /// `postings[starts[t]..starts[t + 1]]`, so scoring visits only the entries that share a
    /// term with the request instead of every installed intent.
    starts: Vec<u32>,
    postings: Vec<u32>,
    /// The entries with a `re:` pattern, which any request may match.
    pub regex: Vec<u32>,
    #[serde(skip)]
    pub skipped: Vec<registry::Skipped>,
}

impl Index {
    pub fn tool_of(&self, e: &Entry) -> &ToolInfo {
        &self.tools[e.tool as usize]
    }

    /// The entries mentioning term `t` (in a pattern, or in their tool's weak terms), ascending.
    pub fn postings(&self, t: TermId) -> &[u32] {
        let t = t as usize;
        match (self.starts.get(t), self.starts.get(t + 1)) {
            (Some(&a), Some(&b)) => self.postings.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Id lookup for the vocabulary.
    pub fn term_ids(&self) -> TermIds<'_> {
        TermIds(self)
    }

    /// The entries of tool `t` (its general intent first), by position.
    pub fn entries_of(&self, t: u32) -> std::ops::Range<usize> {
        let at = |i: usize| self.tool_starts.get(i).map_or(0, |&s| s as usize);
        at(t as usize)..at(t as usize + 1).max(at(t as usize))
    }
}

/// Looks terms up by their text in the sorted vocabulary.
pub struct TermIds<'a>(&'a Index);

impl<'a> TermIds<'a> {
    pub fn get(&self, term: &str) -> Option<&'a TermId> {
        let index = self.0;
        let at = index
            .by_text
            .binary_search_by(|&id| index.terms[id as usize].as_str().cmp(term))
            .ok()?;
        index.by_text.get(at)
    }
}

#[derive(Default)]
struct Builder {
    tools: Vec<ToolInfo>,
    entries: Vec<Entry>,
    tool_starts: Vec<u32>,
    /// FxHash: the terms are the installed tools' own words, and SipHash was a tenth of a
    /// rebuild.
    ids: rustc_hash::FxHashMap<String, TermId>,
    terms: Vec<String>,
    learned: HashMap<String, Vec<Learned>>,
}

impl Builder {
    fn id(&mut self, term: &str) -> TermId {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.terms.len() as TermId;
        self.terms.push(term.to_string());
        self.ids.insert(term.to_string(), id);
        id
    }

    fn ids(&mut self, terms: &[String]) -> Vec<TermId> {
        terms.iter().map(|t| self.id(t)).collect()
    }

    /// Gives a prepared tool's terms their ids, in the order they are met.
    fn add(&mut self, p: &Prepared, dir: PathBuf, builtin: bool) {
        let mut weak = self.ids(&p.weak);
        weak.sort_unstable();
        weak.dedup();
        let t = self.tools.len() as u32;
        self.tool_starts.push(self.entries.len() as u32);
        self.tools.push(ToolInfo {
            name: p.name.clone(),
            domain: p.domain.clone(),
            dir,
            adapter: p.adapter,
            builtin,
            weak,
            modes: p.modes,
            choices: p.choices.clone(),
        });
        let learned = self.learned.remove(&p.name).unwrap_or_default();
        for (i, intent) in p.intents.iter().enumerate() {
            let mut patterns: Vec<Pattern> = intent
                .iter()
                .map(|tokens| match tokens {
                    Tokens::Terms(t) => Pattern::Terms(self.ids(t)),
                    Tokens::Regex(re) => Pattern::Regex(re.clone()),
                })
                .collect();
            let declared = patterns.len();
            for l in learned.iter().filter(|l| learned_intent(p, l) == Some(i)) {
                patterns.push(Pattern::Terms(self.ids(&l.terms)));
            }
            let learned = (patterns.len() - declared) as u32;
            self.entries.push(Entry {
                tool: t,
                intent: i as u32,
                patterns,
                learned,
                fixed: p.fixed.get(i).cloned().unwrap_or_default(),
            });
        }
    }
}

/// The intent a learned phrasing belongs to: the one whose first pattern is its label, else a
/// catalogue tool's general intent.
fn learned_intent(p: &Prepared, l: &Learned) -> Option<usize> {
    match &l.label {
        None => p.modes.then_some(0).or((p.intents.len() == 1).then_some(0)),
        Some(label) => p
            .intents
            .iter()
            .position(|i| matches!(i.first(), Some(Tokens::Terms(t)) if t == label)),
    }
}

/// Builds the index, reusing each folder of `old` whose stamp is unchanged; returns the
/// records to cache for the next rebuild and how many folders were read afresh.
fn build_from(
    stamps: &Stamps,
    old: HashMap<PathBuf, Record>,
    learned: HashMap<String, Vec<Learned>>,
) -> (Index, Vec<Record>, usize) {
    let mut index = Index {
        format: FORMAT,
        stamp: stamps.digest,
        ..Index::default()
    };
    let found = stamps.tool_folders(&mut index.skipped);
    let (read, fresh) = folders::read_all(found, old);
    // A name found in an earlier root (or earlier in a root) shadows the same name later.
    let mut dirs: HashMap<&str, &Path> = HashMap::new();
    let mut tools = Vec::new();
    for f in &read {
        match f {
            Err(skipped) => index.skipped.push(skipped.clone()),
            Ok(f) => match dirs.get(f.name.as_str()) {
                Some(first) => index.skipped.push(registry::Skipped {
                    path: f.dir.clone(),
                    reason: format!("'{}' is already installed at {}", f.name, first.display()),
                }),
                None => {
                    dirs.insert(&f.name, &f.dir);
                    tools.push(f);
                }
            },
        }
    }
    let mut builder = Builder {
        learned,
        ..Builder::default()
    };
    // cmpx always knows its own catalogue; an exported copy (same name) stands in for it.
    for def in crate::catalogue::all()
        .iter()
        .filter(|d| !dirs.contains_key(d.id.as_str()))
    {
        let (m, cap) = (
            crate::cmp::mapping::manifest(def),
            crate::cmp::mapping::capability(def),
        );
        builder.add(&folders::prepare(&m, &cap), PathBuf::new(), true);
    }
    for f in tools {
        match &f.tool {
            Ok(p) => builder.add(p, f.dir.clone(), false),
            Err(skipped) => index.skipped.push(skipped.clone()),
        }
    }
    let (tools, entries) = (
        std::mem::take(&mut builder.tools),
        std::mem::take(&mut builder.entries),
    );
    builder.tool_starts.push(entries.len() as u32);
    index.tool_starts = std::mem::take(&mut builder.tool_starts);
    // Postings by counting: each entry's distinct terms, then the entries of each term.
    let mut per_entry: Vec<Vec<TermId>> = Vec::with_capacity(entries.len());
    index.df = vec![0; builder.terms.len()];
    for (i, e) in entries.iter().enumerate() {
        let mut seen: Vec<TermId> = e
            .patterns
            .iter()
            .filter_map(|p| match p {
                Pattern::Terms(t) => Some(t.iter().copied()),
                Pattern::Regex(_) => None,
            })
            .flatten()
            .chain(tools[e.tool as usize].weak.iter().copied())
            .collect();
        seen.sort_unstable();
        seen.dedup();
        for &t in &seen {
            index.df[t as usize] += 1;
        }
        per_entry.push(seen);
        if e.patterns.iter().any(|p| matches!(p, Pattern::Regex(_))) {
            index.regex.push(i as u32);
        }
    }
    index.starts = Vec::with_capacity(index.df.len() + 1);
    let mut at = 0u32;
    for &df in &index.df {
        index.starts.push(at);
        at += df;
    }
    index.starts.push(at);
    index.postings = vec![0; at as usize];
    let mut next: Vec<u32> = index.starts.clone();
    for (i, seen) in per_entry.iter().enumerate() {
        for &t in seen {
            index.postings[next[t as usize] as usize] = i as u32;
            next[t as usize] += 1;
        }
    }
    index.declared = vec![false; builder.terms.len()];
    let declared = entries
        .iter()
        .flat_map(|e| e.declared())
        .filter_map(|p| match p {
            Pattern::Terms(t) => Some(t.iter()),
            Pattern::Regex(_) => None,
        })
        .flatten()
        .chain(tools.iter().flat_map(|t| t.weak.iter()));
    for &t in declared {
        index.declared[t as usize] = true;
    }
    let bounds = Bounds {
        terms: builder.terms.len(),
        tools: tools.len(),
    };
    index.tools = Lazy::built(tools, bounds);
    index.entries = Lazy::built(entries, bounds);
    index.terms = builder.terms;
    index.by_text = (0..index.terms.len() as TermId).collect();
    index
        .by_text
        .sort_unstable_by(|&a, &b| index.terms[a as usize].cmp(&index.terms[b as usize]));
    let records = read
        .into_iter()
        .filter_map(|f| {
            let f = f.ok()?;
            Some(Record {
                dir: f.dir,
                stamp: f.stamp,
                tool: f.tool.ok()?,
            })
        })
        .collect();
    (index, records, fresh)
}

/// A fresh index for `roots`, bypassing the cache (tests, benchmarks).
pub fn build(roots: &[PathBuf]) -> Index {
    build_learning(roots, learned::all())
}

/// [`build`] learning from `phrasings` instead of the embedded ones (the accuracy test's
/// cross-validation leaves a part of its train split out).
pub fn build_learning(roots: &[PathBuf], phrasings: &[Phrasing]) -> Index {
    build_from(
        &stamp::stamps(roots, seed()),
        HashMap::new(),
        learned::by_tool(phrasings),
    )
    .0
}

/// A digest of the index format, the embedded catalogue and cmpx's version, so a new cmpx
/// binary never reads an index (or folder records) built by an older one. The embedded files
/// are hashed once, by build.rs.
fn seed() -> u64 {
    let mut h = DefaultHasher::new();
    FORMAT.hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    crate::catalogue::DIGEST.hash(&mut h);
    crate::adapters::DIGEST.hash(&mut h);
    h.finish()
}

/// The cache's first line: what built it, from what, and a checksum of the rest. A cache whose
/// first line differs is rebuilt without decoding the rest, and one whose body does not match
/// its checksum (cut short or damaged) is rebuilt: the index's items are decoded only when
/// used, so decoding alone would no longer find the damage.
fn header(kind: &str, stamp: u64, body: &[u8]) -> String {
    let sum = crc32fast::hash(body);
    format!("cmpx-resolve-{kind} {FORMAT} {stamp:016x} {sum:08x}\n")
}

/// The body of a cache file written by `header(kind, ..)`, with the stamp it records: none
/// when another cmpx wrote it or its checksum fails.
fn checked_body<'a>(bytes: &'a [u8], kind: &str) -> Option<(u64, &'a [u8])> {
    let rest = bytes.strip_prefix(format!("cmpx-resolve-{kind} {FORMAT} ").as_bytes())?;
    let line = rest.get(..26)?;
    let body = rest.get(26..)?;
    let text = std::str::from_utf8(line).ok()?;
    let (stamp, sum) = text.strip_suffix('\n')?.split_once(' ')?;
    let (stamp, sum) = (
        u64::from_str_radix(stamp, 16).ok()?,
        u32::from_str_radix(sum, 16).ok()?,
    );
    (crc32fast::hash(body) == sum).then_some((stamp, body))
}

/// The index for `roots`: from the cache when its stamp still matches, else rebuilt (and the
/// cache refreshed when it can be written; a read-only home just means no cache).
pub fn load(roots: &[PathBuf]) -> Index {
    load_then(roots, |_| ()).0
}

/// [`load`], and `then` applied to the index: first to the cached one while the folders are
/// still being stamped, so that on a warm run the answer is ready when the stamps say the
/// cache is fresh; again to the rebuilt one when they say it is not.
pub fn load_then<T>(roots: &[PathBuf], then: impl Fn(&Index) -> T) -> (Index, T) {
    match crate::paths::cmp_home() {
        Some(home) => {
            let (index, _, value) = load_at_then(roots, &home.join("cache"), then);
            (index, value)
        }
        None => {
            let index = build(roots);
            let value = then(&index);
            (index, value)
        }
    }
}

/// [`load`] with the cache in `cache`; also says how many folders were read afresh (none when
/// the index came from the cache).
pub fn load_at(roots: &[PathBuf], cache: &Path) -> (Index, usize) {
    let (index, fresh, ()) = load_at_then(roots, cache, |_| ());
    (index, fresh)
}

fn load_at_then<T>(
    roots: &[PathBuf],
    cache: &Path,
    then: impl Fn(&Index) -> T,
) -> (Index, usize, T) {
    let mut clock = std::time::Instant::now();
    let seed = seed();
    let index_path = cache.join("resolve-index.bin");
    // The cached index is read, decoded and used while the folders are stamped: only the
    // stamps say whether it is still fresh, and on a warm run they are most of the time.
    let (stamps, cached) = stamp::stamps_with(roots, seed, || {
        let mut clock = std::time::Instant::now();
        let index = read_index(&index_path);
        super::timing::span("read cache (while stamping)", &mut clock);
        index.map(|index| {
            let value = then(&index);
            (index, value)
        })
    });
    super::timing::span("stamp, read cache and answer", &mut clock);
    let stale = match cached {
        Some((index, value)) if index.stamp == stamps.digest => return (index, 0, value),
        stale => stale.map(|(index, _)| index),
    };
    let records_path = cache.join("resolve-folders.bin");
    // Tokenising the learned phrasings takes as long as decoding the records: both at once.
    let (old, learned) = std::thread::scope(|s| {
        let learned = s.spawn(|| learned::by_tool(learned::all()));
        let old = read_records(&records_path, seed);
        let learned = learned
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (old, learned)
    });
    super::timing::span(
        "read folder records, tokenise learned phrasings",
        &mut clock,
    );
    let (index, records, fresh) = build_from(&stamps, old, learned);
    super::timing::span("build", &mut clock);
    // The cache is written while the request is answered from the new index.
    let value = std::thread::scope(|s| {
        s.spawn(|| {
            // The records first: they are valid on their own (each keyed by its folder's
            // stamp), so a run stopped between the two writes leaves nothing wrong behind.
            if let Ok(body) = postcard::to_stdvec(&records) {
                write_cache(&records_path, &header("folders", seed, &body), &body);
            }
            if let Ok(body) = postcard::to_stdvec(&index) {
                write_cache(&index_path, &header("index", stamps.digest, &body), &body);
            }
        });
        then(&index)
    });
    super::timing::span("write cache and answer", &mut clock);
    // Freeing the stale index and the records is a hundred thousand small frees: another
    // thread does it, and a command that ends first leaves it to the exit.
    std::thread::spawn(move || drop((stale, records)));
    (index, fresh, value)
}

/// Replaces a cache file by a rename, without waiting for the disk (`fsync`): a cache lost or
/// cut short by a crash fails its header or decoding (or its consistency check) and is rebuilt,
/// and waiting for the disk was most of an after-install run's write time.
fn write_cache(path: &Path, header: &str, body: &[u8]) {
    let Some(dir) = path.parent() else { return };
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(crate::cmp::atomic::TEMP_PREFIX)
            .tempfile_in(dir)?;
        std::io::Write::write_all(&mut tmp, header.as_bytes())?;
        std::io::Write::write_all(&mut tmp, body)?;
        // tempfile creates 0600; the cache is as readable as the files it indexes.
        tmp.as_file()
            .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    };
    let _ = write();
}

/// Largest cache read back; a bigger (or non-regular) file is ignored and the index rebuilt.
const MAX_CACHE_BYTES: u64 = 256 * 1024 * 1024;

fn read_cache(path: &Path) -> Option<Vec<u8>> {
    crate::cmp::read::read(path, MAX_CACHE_BYTES, crate::cmp::read::Links::Refuse).ok()
}

/// The cached index, whatever folders it was built from (the caller compares its stamp):
/// none when missing, corrupt, inconsistent or its header and body disagree.
fn read_index(path: &Path) -> Option<Index> {
    let bytes = read_cache(path)?;
    let (stamp, body) = checked_body(&bytes, "index")?;
    let mut index = postcard::from_bytes::<Index>(body)
        .ok()
        .filter(|i| i.format == FORMAT && i.stamp == stamp && i.consistent())?;
    let bounds = Bounds {
        terms: index.terms.len(),
        tools: index.tools.len(),
    };
    index.tools.bound(bounds);
    index.entries.bound(bounds);
    Some(index)
}

impl Index {
    /// Whether every id in a decoded index points inside it, so a damaged cache that still
    /// decodes is rebuilt instead of indexing out of bounds. The tools and entries, decoded
    /// later, are checked one by one when they are (`Fits`).
    fn consistent(&self) -> bool {
        let (terms, entries, tools) = (self.terms.len(), self.entries.len(), self.tools.len());
        self.df.len() == terms
            && self.declared.len() == terms
            && self.by_text.len() == terms
            && self.by_text.iter().all(|&t| (t as usize) < terms)
            && self
                .by_text
                .windows(2)
                .all(|w| self.terms[w[0] as usize] < self.terms[w[1] as usize])
            && self.tools.consistent()
            && self.entries.consistent()
            && (entries == 0 || tools > 0)
            && self.tool_starts.len() == tools + 1
            && self.tool_starts.windows(2).all(|w| w[0] <= w[1])
            && self
                .tool_starts
                .last()
                .is_some_and(|&l| l as usize == entries)
            && self.starts.len() == terms + 1
            && self.starts.windows(2).all(|w| w[0] <= w[1])
            && self
                .starts
                .last()
                .is_some_and(|&l| l as usize == self.postings.len())
            && self.postings.iter().all(|&e| (e as usize) < entries)
            && self.regex.iter().all(|&e| (e as usize) < entries)
    }
}

/// The folder records of the last build, by folder; none when missing, corrupt or written by
/// another cmpx (a rebuild then reads every folder).
fn read_records(path: &Path, seed: u64) -> HashMap<PathBuf, Record> {
    read_cache(path)
        .and_then(|bytes| {
            let (stamp, body) = checked_body(&bytes, "folders")?;
            (stamp == seed)
                .then(|| postcard::from_bytes::<Vec<Record>>(body).ok())
                .flatten()
        })
        .unwrap_or_default()
        .into_iter()
        .map(|r| (r.dir.clone(), r))
        .collect()
}
