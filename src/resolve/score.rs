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
    if len < 3 || term.bytes().all(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let max = if len >= 8 { 2 } else { 1 };
    vocab
        .df
        .keys()
        .filter(|v| {
            let vl = v.chars().count();
            if vl < 3 || vl.abs_diff(len) > max || strsim::damerau_levenshtein(term, v) > max {
                return false;
            }
            // Three letters leave too little to go on: only a swapped pair ("jtw") or one
            // missing letter ("jsn") counts as a typo, never a different letter.
            len > 3 || vl > len || sorted_chars(term) == sorted_chars(v)
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
        // A bare number no tool mentions is data ("255 in binary"), not a word about the tool.
        if t.bytes().all(|b| b.is_ascii_digit()) && !vocab.df.contains_key(t.as_str()) {
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
    // Unknown words count against a match, but their weight grows with the square root of
    // how many there are: a long, chatty request is not ten times less about its tool.
    let unknown = terms.iter().filter(|(_, _, m)| m.is_empty()).count();
    if unknown > 1 {
        let scale = (unknown as f64).sqrt() / unknown as f64;
        for (_, w, m) in terms.iter_mut() {
            if m.is_empty() {
                *w *= scale;
            }
        }
    }
    let mut order = q.concepts.clone();
    order.extend(q.terms.iter().cloned());
    Prepared { terms, order }
}

fn sorted_chars(s: &str) -> Vec<char> {
    let mut c: Vec<char> = s.chars().collect();
    c.sort_unstable();
    c
}

/// Source and target formats a request names: "yaml to json", "to json from yaml", "the json
/// version of this yaml", "json out of this csv"; a pasted sample's format is a source.
#[derive(Default)]
struct Direction {
    sources: Vec<String>,
    targets: Vec<String>,
}

fn query_direction(q: &Query) -> Direction {
    let t = &q.terms;
    let mut d = Direction::default();
    for (i, w) in t.iter().enumerate() {
        let before = i.checked_sub(1).and_then(|j| t.get(j)).cloned();
        let after = t.get(i + 1).cloned();
        match w.as_str() {
            "to" => {
                d.sources.extend(before);
                d.targets.extend(after);
            }
            "as" => d.targets.extend(after),
            "from" | "out" => d.sources.extend(after),
            "version" | "equival" | "represent" | "counterpart" => {
                d.targets.extend(before);
                d.sources.extend(after);
            }
            _ => {}
        }
    }
    d.sources.extend(q.concepts.iter().cloned());
    d
}

/// An entry's own direction, from a pattern shaped "<source> to <target>".
fn entry_direction(e: &Entry) -> Option<(&str, &str)> {
    e.patterns.iter().find_map(|p| match p {
        Pattern::Terms(t) if t.len() == 3 && t[1] == "to" => Some((t[0].as_str(), t[2].as_str())),
        _ => None,
    })
}

/// 1 when the request's direction agrees with the entry's (or says nothing), less when reversed.
fn direction_factor(e: &Entry, d: &Direction) -> f64 {
    let Some((src, dst)) = entry_direction(e) else {
        return 1.0;
    };
    let agrees = d.sources.iter().any(|s| s == src) || d.targets.iter().any(|t| t == dst);
    let reversed = d.sources.iter().any(|s| s == dst) || d.targets.iter().any(|t| t == src);
    match (agrees, reversed) {
        (true, false) => 1.0,
        (false, true) => 0.7,
        _ => 0.9,
    }
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

/// F-measure (β = 1) of the two coverages: a pattern fully stated inside a long request of
/// unrelated words is weak evidence, and so is a request that states half of a pattern.
fn f_measure(cov_pattern: f64, cov_query: f64) -> f64 {
    const B2: f64 = 1.0;
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
    (0.92 * best.max(weak) + agreement + 0.05 * best.min(weak)).min(1.0)
}

/// One scored entry, with how many distinct request terms it accounts for.
pub struct Scored {
    pub entry: usize,
    pub score: f64,
    pub matched: usize,
}

/// The scores of every entry sharing a term with the query (or holding a `re:` pattern), and
/// how many request terms no installed tool mentions.
pub fn score_all(index: &Index, vocab: &Vocabulary, query: &Query) -> (Vec<Scored>, usize) {
    let n = index.entries.len().max(1) as f64;
    let q = prepare(query, vocab, n);
    let unknown = q.terms.iter().filter(|(_, _, m)| m.is_empty()).count();
    let direction = query_direction(query);
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
    let scored = candidates
        .into_iter()
        .map(|i| {
            let e = &index.entries[i as usize];
            let score = score_entry(e, &q, &query.raw, vocab, n) * direction_factor(e, &direction);
            Scored {
                entry: i as usize,
                score,
                matched: matched_terms(e, &q),
            }
        })
        .filter(|s| s.score > 0.0)
        .collect();
    (scored, unknown)
}

/// How many distinct request terms appear among the entry's pattern and weak terms.
fn matched_terms(e: &Entry, q: &Prepared) -> usize {
    q.terms
        .iter()
        .filter(|(_, _, matches)| {
            matches.iter().any(|(v, _)| {
                e.weak.iter().any(|w| w == v)
                    || e.patterns
                        .iter()
                        .any(|p| matches!(p, Pattern::Terms(t) if t.iter().any(|w| w == v)))
            })
        })
        .count()
}
