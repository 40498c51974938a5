//! Tool-level evidence for ranking: how close the request is to everything said about a tool
//! at once (its patterns, name, summary and learned phrasings), as the cosine of TF-IDF vectors.
//!
//! The word score (`score`) takes the best single pattern, so a request whose words are spread
//! over several of a tool's phrasings ("this SOAP response is unreadable, indent it") earns
//! little from each. The centroid of the tool's phrasings adds them up. It reorders candidates
//! only: whether `cmpx do` may act is still decided on the word score (see `resolve`), because
//! on the cross-validated train split the fit raised top-1 by about a point but did not tell
//! right answers from wrong ones any better (a classifier given the fits as well as the word
//! score's features traced the same confident/wrong curve).

use super::index::{Index, Pattern, TermId};
use super::score::{Query, Scored, idf};
use rustc_hash::FxHashMap;

/// Candidates ranked beyond the `top` asked for: a shown candidate whose folder vanished is
/// skipped, and `modes::prefer_named` moves one entry up and another down.
pub(super) const SLACK: usize = 4;

/// Adds each candidate tool's fit to its entries' scores (scaled back into 0..1) and sorts by
/// the result; the fits, by tool, for the features dump.
///
/// Only the first `keep` after re-ranking are wanted: `scored` comes sorted by word score, and
/// as a fit adds at most its weight (`rules.fit` in resolver/weights.toml), the candidates are
/// taken in that order until the next could no longer reach the `keep`-th re-ranked score. The rest are dropped, except those of tools
/// whose fit is known anyway (the first tool's modes are all still there for
/// `modes::prefer_named`). With ten thousand tools sharing the request's words, computing a
/// centroid for every candidate tool was most of a `resolve`.
pub(super) fn rerank(
    index: &Index,
    q: &Query,
    scored: &mut Vec<Scored>,
    keep: usize,
) -> FxHashMap<u32, f64> {
    let request = request_vector(index, q);
    if request.is_empty() {
        return FxHashMap::default();
    }
    let idf = Idf::of(index);
    let weight = super::score::weights().fit;
    let mut fits: FxHashMap<u32, f64> = FxHashMap::default();
    // The `keep` best re-ranked scores so far, smallest first.
    let mut best: std::collections::BinaryHeap<std::cmp::Reverse<Ordered>> = Default::default();
    let mut cut = scored.len();
    for (at, s) in scored.iter_mut().enumerate() {
        if best.len() >= keep.max(1) {
            let kth = best.peek().map_or(f64::NEG_INFINITY, |r| r.0.0);
            // A cosine is at most 1; the margin covers rounding.
            let reach = (s.score + weight * (1.0 + 1e-9)) / (1.0 + weight) + 1e-9;
            if reach < kth {
                cut = at;
                break;
            }
        }
        let tool = index.entries[s.entry].tool;
        let fit = *fits
            .entry(tool)
            .or_insert_with(|| cosine(&request, &centroid(index, tool, &idf), &idf));
        s.score = (s.score + weight * fit) / (1.0 + weight);
        best.push(std::cmp::Reverse(Ordered(s.score)));
        if best.len() > keep.max(1) {
            best.pop();
        }
    }
    let mut at = cut;
    while at < scored.len() {
        let s = &mut scored[at];
        match fits.get(&index.entries[s.entry].tool) {
            Some(fit) => {
                s.score = (s.score + weight * fit) / (1.0 + weight);
                at += 1;
            }
            None => {
                scored.swap_remove(at);
            }
        }
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    fits
}

/// An `f64` ordered by `total_cmp`, for the heap.
#[derive(PartialEq)]
struct Ordered(f64);

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Term weights as the word score has them (`score::idf`).
struct Idf<'a> {
    df: &'a [u32],
    entries: f64,
}

impl<'a> Idf<'a> {
    fn of(index: &'a Index) -> Self {
        Idf {
            df: &index.df,
            entries: index.entries.len().max(1) as f64,
        }
    }

    fn get(&self, t: TermId) -> f64 {
        idf(self.df.get(t as usize).copied().unwrap_or(0), self.entries)
    }
}

/// The request's known terms (concepts from pasted samples included) with their counts.
fn request_vector(index: &Index, q: &Query) -> FxHashMap<TermId, f64> {
    let ids = index.term_ids();
    let mut counts: FxHashMap<TermId, f64> = FxHashMap::default();
    for t in q.concepts.iter().chain(&q.terms) {
        if let Some(&id) = ids.get(t) {
            *counts.entry(id).or_default() += 1.0;
        }
    }
    counts
}

/// Sublinear term frequency: a word said twice is not twice the evidence.
fn tf(count: f64) -> f64 {
    1.0 + count.ln()
}

/// The sum of the tool's phrasings as unit TF-IDF vectors (each pattern of each intent, and
/// the name, summary and tags as one more), not yet normalised.
fn centroid(index: &Index, tool: u32, idf: &Idf) -> FxHashMap<TermId, f64> {
    let mut sum: FxHashMap<TermId, f64> = FxHashMap::default();
    let mut add = |terms: &[TermId]| {
        let mut counts: FxHashMap<TermId, f64> = FxHashMap::default();
        for &t in terms {
            *counts.entry(t).or_default() += 1.0;
        }
        let weights: Vec<(TermId, f64)> = counts
            .into_iter()
            .map(|(t, c)| (t, tf(c) * idf.get(t)))
            .collect();
        let norm = weights.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
        if norm > 0.0 {
            for (t, w) in weights {
                *sum.entry(t).or_default() += w / norm;
            }
        }
    };
    add(&index.tools[tool as usize].weak);
    for e in index.entries_of(tool) {
        for p in &index.entries[e].patterns {
            if let Pattern::Terms(terms) = p {
                add(terms);
            }
        }
    }
    sum
}

fn cosine(request: &FxHashMap<TermId, f64>, centroid: &FxHashMap<TermId, f64>, idf: &Idf) -> f64 {
    let (mut dot, mut q2) = (0.0, 0.0);
    for (&t, &c) in request {
        let w = tf(c) * idf.get(t);
        q2 += w * w;
        dot += w * centroid.get(&t).copied().unwrap_or(0.0);
    }
    let c2: f64 = centroid.values().map(|w| w * w).sum();
    if dot <= 0.0 || q2 <= 0.0 || c2 <= 0.0 {
        return 0.0;
    }
    dot / (q2.sqrt() * c2.sqrt())
}
