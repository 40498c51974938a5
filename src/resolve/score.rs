//! Scoring one request against the index: term overlap weighted by rarity (IDF), both ways
//! (how much of a pattern the request covers, how much of the request the pattern explains),
//! with word order, typo tolerance, `re:` patterns and weak evidence from name and summary.

use super::index::{Entry, Index, Pattern, Vocabulary};
use std::collections::{HashMap, HashSet};

/// Tunable weights, kept together so the accuracy benchmark can report what it measured.
pub struct Weights {
    /// Weight of a query word no installed tool mentions, relative to the rarest known term.
    pub unknown: f64,
    /// Credit for a typo match (Damerau-Levenshtein) relative to an exact one.
    pub fuzzy: f64,
    /// Score of a matching `re:` pattern.
    pub regex: f64,
    /// How much the name/summary/tags can contribute when patterns say little.
    pub weak: f64,
}

pub const WEIGHTS: Weights = Weights {
    unknown: 0.5,
    fuzzy: 0.8,
    regex: 0.9,
    weak: 0.7,
};

pub struct Query {
    /// Ordered terms of the request (samples and quotes removed).
    pub terms: Vec<String>,
    /// Concepts recognised from pasted samples.
    pub concepts: Vec<String>,
    /// The request as typed, for `re:` patterns.
    pub raw: String,
}

/// One distinct query term: its weight and the vocabulary terms it matches, with credit.
type QueryTerm<'a> = (String, f64, Vec<(&'a str, f64)>);

struct Prepared<'a> {
    terms: Vec<QueryTerm<'a>>,
    order: Vec<String>,
}

fn idf(vocab: &Vocabulary, n: f64, term: &str) -> f64 {
    let df = vocab.df.get(term).copied().unwrap_or(0) as f64;
    (1.0 + n / df.max(1.0)).ln()
}

fn fuzzy_matches<'a>(vocab: &'a Vocabulary, term: &str) -> Vec<&'a str> {
    let len = term.chars().count();
    if len < 4 || term.bytes().all(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let max = if len >= 8 { 2 } else { 1 };
    vocab
        .df
        .keys()
        .filter(|v| {
            let vl = v.chars().count();
            vl >= 4 && vl.abs_diff(len) <= max && strsim::damerau_levenshtein(term, v) <= max
        })
        .map(String::as_str)
        .collect()
}

fn prepare<'a>(q: &Query, vocab: &'a Vocabulary, n: f64) -> Prepared<'a> {
    let max_idf = (1.0 + n).ln();
    let mut seen = HashSet::new();
    let mut terms = Vec::new();
    for t in q.concepts.iter().chain(&q.terms) {
        if !seen.insert(t.clone()) {
            continue;
        }
        match vocab.df.get_key_value(t.as_str()) {
            Some((k, _)) => terms.push((t.clone(), idf(vocab, n, t), vec![(k.as_str(), 1.0)])),
            None => {
                let fuzzy: Vec<(&str, f64)> = fuzzy_matches(vocab, t)
                    .into_iter()
                    .map(|v| (v, WEIGHTS.fuzzy))
                    .collect();
                let weight = if fuzzy.is_empty() {
                    WEIGHTS.unknown * max_idf
                } else {
                    max_idf * 0.8
                };
                terms.push((t.clone(), weight, fuzzy));
            }
        }
    }
    let mut order = q.concepts.clone();
    order.extend(q.terms.iter().cloned());
    Prepared { terms, order }
}

/// Length of the longest common subsequence of two term sequences.
fn lcs(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        prev = cur;
    }
    prev[b.len()]
}

/// F-measure of the two coverages, leaning towards the pattern side (β = 1.5): a request that
/// fully states a pattern is good evidence even with extra words around it.
fn f_measure(cov_pattern: f64, cov_query: f64) -> f64 {
    const B2: f64 = 1.5 * 1.5;
    if cov_pattern <= 0.0 || cov_query <= 0.0 {
        return 0.0;
    }
    (1.0 + B2) * cov_pattern * cov_query / (B2 * cov_query + cov_pattern)
}

/// Scores `terms` (a pattern, or the weak terms) against the query.
fn score_terms(terms: &[String], q: &Prepared, vocab: &Vocabulary, n: f64) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let mut uniq: Vec<&String> = terms.iter().collect();
    uniq.sort();
    uniq.dedup();
    // Credit each query term gets from this pattern, and each pattern term from the query.
    let mut p_credit: HashMap<&str, f64> = HashMap::new();
    let mut q_matched = 0.0;
    let mut q_total = 0.0;
    for (_, weight, matches) in &q.terms {
        q_total += weight;
        let mut best: f64 = 0.0;
        for (v, credit) in matches {
            if uniq.iter().any(|t| t.as_str() == *v) {
                best = best.max(*credit);
                let e = p_credit.entry(v).or_insert(0.0);
                *e = e.max(*credit);
            }
        }
        q_matched += weight * best;
    }
    let p_total: f64 = uniq.iter().map(|t| idf(vocab, n, t)).sum();
    let p_matched: f64 = uniq
        .iter()
        .map(|t| idf(vocab, n, t) * p_credit.get(t.as_str()).copied().unwrap_or(0.0))
        .sum();
    let cov_p = if p_total > 0.0 {
        p_matched / p_total
    } else {
        0.0
    };
    let cov_q = if q_total > 0.0 {
        q_matched / q_total
    } else {
        0.0
    };
    let f = f_measure(cov_p, cov_q);
    if f == 0.0 || terms.len() < 2 {
        return f;
    }
    let order = lcs(terms, &q.order) as f64 / terms.len() as f64;
    f * (0.85 + 0.15 * order)
}

fn score_entry(e: &Entry, q: &Prepared, raw: &str, vocab: &Vocabulary, n: f64) -> f64 {
    let mut best: f64 = 0.0;
    let mut strong = 0usize;
    for p in &e.patterns {
        let s = match p {
            Pattern::Terms(ts) => score_terms(ts, q, vocab, n),
            Pattern::Regex(re) => regex::RegexBuilder::new(re)
                .case_insensitive(true)
                .size_limit(1 << 20)
                .build()
                .ok()
                .filter(|r| r.is_match(raw))
                .map_or(0.0, |_| WEIGHTS.regex),
        };
        if s >= 0.5 {
            strong += 1;
        }
        best = best.max(s);
    }
    // Several patterns agreeing is a little more evidence than one.
    let agreement = 0.02 * (strong.saturating_sub(1).min(3)) as f64;
    let weak = WEIGHTS.weak * score_terms(&e.weak, q, vocab, n);
    (best.max(weak) + agreement + 0.1 * best.min(weak)).min(1.0)
}

/// Every entry sharing a term with the query (or holding a `re:` pattern), with its score.
pub fn score_all(index: &Index, vocab: &Vocabulary, query: &Query) -> Vec<(usize, f64)> {
    let n = index.entries.len().max(1) as f64;
    let q = prepare(query, vocab, n);
    let mut candidates: Vec<u32> = vocab.regex_entries.clone();
    for (_, _, matches) in &q.terms {
        for (v, _) in matches {
            if let Some(p) = vocab.postings.get(*v) {
                candidates.extend(p);
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    candidates
        .into_iter()
        .map(|i| {
            (
                i as usize,
                score_entry(&index.entries[i as usize], &q, &query.raw, vocab, n),
            )
        })
        .filter(|(_, s)| *s > 0.0)
        .collect()
}
