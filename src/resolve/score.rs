//! Scoring one request against the index: term overlap weighted by rarity (IDF), both ways
//! (how much of a pattern the request covers, how much of the request the pattern explains),
//! with word order, direction ("yaml to json"), typo tolerance, `re:` patterns and weak
//! evidence from name, summary and tags.

use super::index::{Entry, Index, Pattern, TermId, TermIds};
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// The hand-chosen numbers of scoring (resolver/weights.toml `[rules]`).
pub(super) fn weights() -> &'static super::weights::Rules {
    &super::weights::get().rules
}

#[derive(Clone)]
pub struct Query {
    /// Ordered terms of the request (samples and quotes removed).
    pub terms: Vec<String>,
    /// Concepts recognised from pasted samples.
    pub concepts: Vec<String>,
    /// The request as typed, for `re:` patterns.
    pub raw: String,
    /// What the request names as wanted and as given (samples removed), for choosing a mode.
    pub marks: super::text::Marks,
    /// The distinctive values it writes out and those its data implies (see `values`), for
    /// choosing a mode by the value it fixes.
    pub written: Vec<String>,
    pub implied: Vec<String>,
}

/// One distinct request term: its weight and the vocabulary terms it matches, with credit.
struct QueryTerm {
    weight: f64,
    matches: Vec<(TermId, f64)>,
}

/// The request resolved against the vocabulary once, then scored against many entries.
struct Prepared {
    terms: Vec<QueryTerm>,
    /// The request's terms in order (ids; unknown words as `None`), for word order.
    order: Vec<Option<TermId>>,
    idf: Vec<f64>,
    direction: Direction,
    to: Option<TermId>,
    /// Actions the request asks for (when known to the vocabulary) with their opposites, for
    /// requests that do not name both.
    opposed: Vec<(Option<TermId>, TermId)>,
    /// The request pastes a sample and asks for nothing new: (make words, read words) as
    /// term ids, for `one_sided_factor`.
    reads_sample: Option<(Vec<TermId>, Vec<TermId>)>,
    /// With `reads_sample`: the pasted samples' concepts, which a generator named after one
    /// of them would only make again ("uuid generator" for a pasted UUID).
    sampled: Vec<TermId>,
    /// The request asks for something new: (read-only words, creation words) as term ids,
    /// for `one_sided_factor`.
    makes_new: Option<(Vec<TermId>, Vec<TermId>)>,
    /// The request's terms with each unknown word that is a typo of exactly one known term
    /// spelt as that term ("decdoe" as "decod"), for the rules that read the words themselves.
    typed: Vec<String>,
}

fn sorted_chars(s: &str) -> Vec<char> {
    let mut c: Vec<char> = s.chars().collect();
    c.sort_unstable();
    c
}

/// Counts of each ASCII letter and digit (other characters share one slot).
fn histogram(s: &str) -> [u8; 37] {
    let mut h = [0u8; 37];
    for b in s.bytes() {
        let i = match b {
            b'a'..=b'z' => (b - b'a') as usize,
            b'0'..=b'9' => 26 + (b - b'0') as usize,
            _ => 36,
        };
        h[i] = h[i].saturating_add(1);
    }
    h
}

/// How many letters must be added or removed to turn one bag of letters into the other.
fn letter_difference(h: &[u8; 37], other: &str) -> usize {
    let o = histogram(other);
    h.iter()
        .zip(o.iter())
        .map(|(a, b)| a.abs_diff(*b) as usize)
        .sum()
}

/// The vocabulary a typo may be corrected to: the tools' own words, not learned phrasings'.
fn typo_targets(index: &Index) -> impl Iterator<Item = (TermId, &String)> {
    index
        .terms
        .iter()
        .enumerate()
        .filter(|(i, _)| index.declared.get(*i).copied().unwrap_or(true))
        .map(|(i, v)| (i as TermId, v))
}

fn fuzzy_matches(index: &Index, term: &str) -> Vec<TermId> {
    let len = term.chars().count();
    if len < 3 || term.bytes().all(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let hist = histogram(term);
    let max = if len >= 8 { 2 } else { 1 };
    typo_targets(index)
        .filter(|(_, v)| {
            let vl = v.chars().count();
            // Cheap rejections first: the length, then the letters present (an edit changes at
            // most two letter counts), before the quadratic edit distance.
            if vl < 3 || vl.abs_diff(len) > max || letter_difference(&hist, v) > 2 * max {
                return false;
            }
            if strsim::damerau_levenshtein(term, v) > max {
                return false;
            }
            // Short words leave too little to go on: only a swapped pair ("jtw", "jsno") or one
            // missing letter ("jsn") counts as a typo, never a different letter ("pari" is
            // not "pars").
            len > 4 || vl > len || sorted_chars(term) == sorted_chars(v)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Vocabulary terms a misspelt word is a typo of, judged on the word as typed rather than its
/// stem: a stem cut from a typo often lands too far from the right one ("fomatter" stems to
/// "fomatt", two edits from "format", though one from "formatter"). A stem is the start of its
/// words, so the typed word's start is compared with it, leaving a short ending.
fn surface_matches(index: &Index, word: &str) -> Vec<TermId> {
    // ASCII only, so byte offsets are character offsets below.
    let ascii = |w: &str| w.bytes().all(|b| b.is_ascii_lowercase());
    if word.len() < 5 || !ascii(word) {
        return Vec::new();
    }
    typo_targets(index)
        .filter(|(_, v)| {
            // A word that starts with the whole stem is another word from it ("startup"),
            // not a typo.
            if v.len() < 5
                || v.as_bytes()[0] != word.as_bytes()[0]
                || word.starts_with(v.as_str())
                || !ascii(v)
            {
                return false;
            }
            (v.len() - 1..=v.len() + 1)
                .filter(|&k| k <= word.len() && word.len() - k <= 4)
                .any(|k| strsim::damerau_levenshtein(&word[..k], v) == 1)
        })
        .map(|(i, _)| i)
        .collect()
}

/// What a request term may be a typo of: by its stem, else by the word as typed.
fn typo_matches(index: &Index, t: &str, typed: &[String]) -> Vec<TermId> {
    let mut found = fuzzy_matches(index, t);
    if found.is_empty() {
        let words = typed.iter().filter(|w| super::text::term(w) == t);
        found = words.flat_map(|w| surface_matches(index, w)).collect();
        found.sort_unstable();
        found.dedup();
    }
    found
}

/// A term's rarity among `entries` installed intents, `df` of which mention it.
pub(super) fn idf(df: u32, entries: f64) -> f64 {
    (1.0 + entries / (df.max(1) as f64)).ln()
}

fn prepare(q: &Query, index: &Index, ids: &TermIds) -> Prepared {
    let n = index.entries.len().max(1) as f64;
    let idf: Vec<f64> = index.df.iter().map(|&df| idf(df, n)).collect();
    let max_idf = (1.0 + n).ln();
    let mut seen = HashSet::new();
    let mut terms = Vec::new();
    let mut fixes: HashMap<&str, &str> = HashMap::new();
    let raw_words = super::text::words(&q.raw);
    for t in q.concepts.iter().chain(&q.terms) {
        if !seen.insert(t.as_str()) {
            continue;
        }
        match ids.get(t.as_str()) {
            Some(&id) if index.declared.get(id as usize).copied().unwrap_or(true) => {
                terms.push(QueryTerm {
                    weight: idf[id as usize],
                    matches: vec![(id, 1.0)],
                })
            }
            // Known only from a learned phrasing: that, and what it may be a typo of.
            Some(&id) => {
                let mut matches = vec![(id, 1.0)];
                matches.extend(
                    typo_matches(index, t, &raw_words)
                        .into_iter()
                        .map(|v| (v, weights().fuzzy)),
                );
                terms.push(QueryTerm {
                    weight: idf[id as usize],
                    matches,
                })
            }
            // A bare number no tool mentions is data ("255 in binary"), not a word about the tool.
            None if t.bytes().all(|b| b.is_ascii_digit()) => {}
            None => {
                let fuzzy: Vec<(TermId, f64)> = typo_matches(index, t, &raw_words)
                    .into_iter()
                    .map(|v| (v, weights().fuzzy))
                    .collect();
                if let [(only, _)] = fuzzy.as_slice() {
                    fixes.insert(t.as_str(), index.terms[*only as usize].as_str());
                }
                let weight = if fuzzy.is_empty() {
                    weights().unknown * max_idf
                } else {
                    max_idf * weights().fuzzy
                };
                terms.push(QueryTerm {
                    weight,
                    matches: fuzzy,
                });
            }
        }
    }
    // Unknown words count against a match, but their weight grows with the square root of
    // how many there are: a long, chatty request is not ten times less about its tool.
    let unknown = terms.iter().filter(|t| t.matches.is_empty()).count();
    if unknown > 1 {
        let scale = (unknown as f64).sqrt() / unknown as f64;
        for t in terms.iter_mut().filter(|t| t.matches.is_empty()) {
            t.weight *= scale;
        }
    }
    let order = q
        .concepts
        .iter()
        .chain(&q.terms)
        .map(|t| ids.get(t.as_str()).copied())
        .collect();
    let direction = query_direction(q, ids);
    let typed: Vec<String> = q
        .terms
        .iter()
        .map(|t| fixes.get(t.as_str()).map_or(t.as_str(), |f| *f).to_string())
        .collect();
    let asked: HashSet<&str> = typed.iter().map(String::as_str).collect();
    let opposed = asked
        .iter()
        .filter_map(|t| {
            let o = super::text::opposite(t, false)?;
            if asked.contains(o) {
                return None;
            }
            Some((ids.get(t).copied(), *ids.get(o)?))
        })
        .collect();
    let ids_of = |words: &[String]| -> Vec<TermId> {
        words
            .iter()
            .filter_map(|w| ids.get(super::text::term(w).as_str()).copied())
            .collect()
    };
    let actions = &super::lexicon::get().actions;
    let (makes, creates) = (ids_of(&actions.makes), ids_of(&actions.creates));
    // "when was this generated", "the created_at of this id": a past participle tells of
    // something already made, so only a word in another form asks for something new.
    let past: HashSet<String> = raw_words
        .iter()
        .filter(|w| w.ends_with("ed") || *w == "made")
        .map(|w| super::text::term(w))
        .collect();
    let present: HashSet<String> = raw_words
        .iter()
        .filter(|w| !(w.ends_with("ed") || *w == "made"))
        .map(|w| super::text::term(w))
        .collect();
    let asks_for = |words: &[TermId]| {
        q.terms.iter().any(|t| {
            ids.get(t.as_str()).is_some_and(|id| words.contains(id))
                && (present.contains(t) || !past.contains(t))
        })
    };
    // "… or is it random?" asks what something given is: only a word for making something
    // new asks for it then.
    let asks_new = asks_for(if q.marks.asks_about_given {
        &creates
    } else {
        &makes
    });
    let makes_new = asks_for(&creates).then(|| (ids_of(&actions.only_reads), creates));
    let given = !q.concepts.is_empty() || q.marks.asks_about_given;
    let reads_sample = (given && !asks_new).then(|| (makes, ids_of(&actions.reads)));
    let sampled = q
        .concepts
        .iter()
        .filter_map(|c| ids.get(c.as_str()).copied())
        .collect();
    Prepared {
        terms,
        order,
        idf,
        direction,
        to: ids.get("to").copied(),
        opposed,
        reads_sample,
        sampled,
        makes_new,
        typed,
    }
}

/// Source and target formats a request names: "yaml to json", "to json from yaml", "the json
/// version of this yaml", "json out of this csv"; a pasted sample's format is a source.
#[derive(Default)]
struct Direction {
    sources: Vec<TermId>,
    targets: Vec<TermId>,
}

fn query_direction(q: &Query, ids: &TermIds) -> Direction {
    let t = &q.terms;
    let id = |i: Option<usize>| {
        i.and_then(|i| t.get(i))
            .and_then(|w| ids.get(w.as_str()).copied())
    };
    let mut d = Direction::default();
    for (i, w) in t.iter().enumerate() {
        let (before, after) = (id(i.checked_sub(1)), id(Some(i + 1)));
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
    d.sources.extend(
        q.concepts
            .iter()
            .filter_map(|c| ids.get(c.as_str()).copied()),
    );
    d
}

/// 1 when the request's direction agrees with the entry's (or says nothing), less when reversed.
/// An entry's direction comes from a pattern shaped "<source> to <target>".
fn direction_factor(e: &Entry, q: &Prepared) -> f64 {
    let Some(to) = q.to else { return 1.0 };
    let d = &q.direction;
    // A tool that converts both ways ("plist to json", "json to plist") is judged by the
    // pattern that fits the request best; a pattern that says nothing either way ("json to
    // excel" for a request that pastes csv) does not excuse one that goes the other way.
    let (mut agrees, mut reversed, mut any) = (false, false, false);
    for p in &e.patterns {
        let Pattern::Terms(t) = p else { continue };
        if t.len() != 3 || t[1] != to {
            continue;
        }
        let (src, dst) = (t[0], t[2]);
        let here = d.sources.contains(&src) || d.targets.contains(&dst);
        let there = d.sources.contains(&dst) || d.targets.contains(&src);
        any = true;
        agrees |= here && !there;
        reversed |= there && !here;
    }
    if !any || agrees {
        1.0
    } else if reversed {
        weights().reversed
    } else {
        weights().undirected
    }
}

/// Whether the entry's own words (declared patterns, name, summary) include `id`.
fn says(e: &Entry, weak: &[TermId], id: TermId) -> bool {
    weak.binary_search(&id).is_ok()
        || e.declared()
            .iter()
            .any(|p| matches!(p, Pattern::Terms(t) if t.contains(&id)))
}

/// `weights().opposite` when the entry's own words name the opposite of an action the request
/// asks for and never the action itself, else 1.
fn opposite_factor(e: &Entry, weak: &[TermId], q: &Prepared) -> f64 {
    let contradicted = q
        .opposed
        .iter()
        .any(|&(asked, other)| says(e, weak, other) && !asked.is_some_and(|a| says(e, weak, a)));
    if contradicted {
        weights().opposite
    } else {
        1.0
    }
}

/// `weights().maker` for an entry whose own words say one of `sides.0` and none of `sides.1`:
/// a generator when the request pastes a sample and asks for nothing new (`reads_sample`), a
/// read-only tool when the request asks for something new (`makes_new`: "generate an SSL
/// certificate" is not the certificate decoder).
fn one_sided_factor(e: &Entry, weak: &[TermId], sides: &Option<(Vec<TermId>, Vec<TermId>)>) -> f64 {
    let Some((these, not_those)) = sides else {
        return 1.0;
    };
    let says = |id: &TermId| says(e, weak, *id);
    if these.iter().any(says) && !not_those.iter().any(says) {
        weights().maker
    } else {
        1.0
    }
}

/// A further `weights().maker` for a generator whose first declared pattern starts with the
/// concept of a pasted sample, when the request asks for nothing new: it would make another
/// one of what is already there ("is this a v4 or v7 uuid: 0190…" is not for the generator).
fn remake_factor(e: &Entry, weak: &[TermId], q: &Prepared) -> f64 {
    let first = e.declared().iter().find_map(|p| match p {
        Pattern::Terms(t) => t.first(),
        Pattern::Regex(_) => None,
    });
    let remade = first.is_some_and(|f| q.sampled.contains(f));
    if remade && one_sided_factor(e, weak, &q.reads_sample) < 1.0 {
        weights().maker
    } else {
        1.0
    }
}

/// Length of the longest common subsequence of a pattern and the request, in terms.
fn lcs(a: &[TermId], b: &[Option<TermId>]) -> usize {
    // One row, updated in place (the diagonal kept aside), on the stack for a usual request.
    let mut buf = [0usize; 129];
    let mut heap = Vec::new();
    let row: &mut [usize] = if b.len() < buf.len() {
        &mut buf[..b.len() + 1]
    } else {
        heap.resize(b.len() + 1, 0);
        &mut heap
    };
    for x in a {
        let mut diag = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if Some(*x) == *y {
                diag + 1
            } else {
                up.max(row[j])
            };
            diag = up;
        }
    }
    row[b.len()]
}

/// F-measure (β = 1) of the two coverages: a pattern fully stated inside a long request of
/// unrelated words is weak evidence, and so is a request that states half of a pattern.
fn f_measure(cov_pattern: f64, cov_query: f64) -> f64 {
    if cov_pattern <= 0.0 || cov_query <= 0.0 {
        return 0.0;
    }
    2.0 * cov_pattern * cov_query / (cov_query + cov_pattern)
}

/// How well `terms` (a pattern, or the weak terms) match the query, and which query terms
/// they account for (a bit per query term, with its credit).
#[cfg(test)]
struct Match {
    score: f64,
    cov_q: f64,
    credit: Vec<f64>,
}

/// One pattern's `Match`; scoring itself goes through `score_into`, with a shared buffer.
#[cfg(test)]
fn score_terms(terms: &[TermId], q: &Prepared, ordered: bool) -> Match {
    let mut credit = vec![0.0; q.terms.len()];
    match score_into(terms, q, ordered, &mut credit) {
        Some((score, cov_q)) => Match {
            score,
            cov_q,
            credit,
        },
        // Most patterns share nothing with a request.
        None => Match {
            score: 0.0,
            cov_q: 0.0,
            credit: Vec::new(),
        },
    }
}

/// `score_terms` writing the credits into `credit` (zeroed here, one slot per query term):
/// the score and coverage, or none when the terms share nothing with the request. An entry
/// reuses one buffer for all its patterns instead of a vector for each.
fn score_into(
    terms: &[TermId],
    q: &Prepared,
    ordered: bool,
    credit: &mut [f64],
) -> Option<(f64, f64)> {
    let touches = q
        .terms
        .iter()
        .any(|qt| qt.matches.iter().any(|(v, _)| terms.contains(v)));
    if !touches {
        return None;
    }
    credit.fill(0.0);
    // A pattern is a handful of terms: sorted on the stack, not in a fresh vector (at ten
    // thousand installed tools that share words this ran a million times per request).
    let mut buf = [0 as TermId; 32];
    let mut heap = Vec::new();
    let uniq: &mut [TermId] = if terms.len() <= buf.len() {
        buf[..terms.len()].copy_from_slice(terms);
        &mut buf[..terms.len()]
    } else {
        heap.extend_from_slice(terms);
        &mut heap
    };
    uniq.sort_unstable();
    let mut n = 0;
    for i in 0..uniq.len() {
        if i == 0 || uniq[i] != uniq[n - 1] {
            uniq[n] = uniq[i];
            n += 1;
        }
    }
    let uniq = &uniq[..n];
    let (mut q_matched, mut q_total) = (0.0, 0.0);
    for (i, qt) in q.terms.iter().enumerate() {
        q_total += qt.weight;
        for &(v, c) in &qt.matches {
            if uniq.binary_search(&v).is_ok() {
                credit[i] = f64::max(credit[i], c);
            }
        }
        q_matched += qt.weight * credit[i];
    }
    // A pattern term's credit: the best any request term gives it.
    let p_credit = |t: TermId| {
        q.terms
            .iter()
            .flat_map(|qt| qt.matches.iter())
            .filter(|&&(v, _)| v == t)
            .fold(None, |best: Option<f64>, &(_, c)| {
                Some(best.map_or(c, |b| b.max(c)))
            })
    };
    let idf = |t: TermId| q.idf.get(t as usize).copied().unwrap_or(0.0);
    let p_total: f64 = uniq.iter().map(|&t| idf(t)).sum();
    let p_matched: f64 = uniq
        .iter()
        .map(|&t| idf(t) * p_credit(t).unwrap_or(0.0))
        .sum();
    let cov_p = if p_total > 0.0 {
        p_matched / p_total
    } else {
        0.0
    };
    let cov_q = if q_total > 0.0 {
        let unmatched = q_total - q_matched;
        let unmatched = if unmatched > weights().unmatched {
            (unmatched * weights().unmatched).sqrt()
        } else {
            unmatched
        };
        q_matched / (q_matched + unmatched)
    } else {
        0.0
    };
    let mut score = f_measure(cov_p, cov_q);
    if score > 0.0 && ordered && terms.len() >= 2 {
        let order = lcs(terms, &q.order) as f64 / terms.len() as f64;
        score *= 1.0 - weights().order * (1.0 - order);
    }
    Some((score, cov_q))
}

/// The entry's score, and the part its own patterns earn (without the tool-wide weak terms,
/// which every intent of a tool shares).
fn score_entry(e: &Entry, weak: &[TermId], q: &Prepared, raw: &str) -> (f64, f64, f64, f64) {
    let mut declared_best = 0.0f64;
    let mut learned_best = 0.0f64;
    // The best pattern's score and coverage of the request.
    let (mut best_score, mut best_cov) = (0.0f64, 0.0f64);
    // The union of the patterns' credits and one pattern's, on the stack for a usual request
    // (an entry is scored for every installed intent sharing a word with the request).
    let n = q.terms.len();
    let mut stack = [0.0f64; 2 * 48];
    let mut heap = Vec::new();
    let buffers: &mut [f64] = if 2 * n <= stack.len() {
        &mut stack[..2 * n]
    } else {
        heap.resize(2 * n, 0.0);
        &mut heap
    };
    let (union, credit) = buffers.split_at_mut(n);
    let mut strong = 0usize;
    let declared = e.patterns.len().saturating_sub(e.learned as usize);
    for (at, p) in e.patterns.iter().enumerate() {
        let (mut score, cov_q) = match p {
            Pattern::Terms(ts) => match score_into(ts, q, true, credit) {
                Some(m) => {
                    for (u, c) in union.iter_mut().zip(credit.iter()) {
                        *u = f64::max(*u, *c);
                    }
                    m
                }
                None => (0.0, 0.0),
            },
            Pattern::Regex(re) => {
                let hit = pattern_matches(re, raw);
                (if hit { weights().regex } else { 0.0 }, 0.0)
            }
        };
        if at >= declared {
            score *= weights().learned;
            learned_best = learned_best.max(score);
        } else {
            declared_best = declared_best.max(score);
        }
        if score >= 0.5 {
            strong += 1;
        }
        if score > best_score {
            (best_score, best_cov) = (score, cov_q);
        }
    }
    // Patterns that each explain a different part of the request ("create a jwt … signed with
    // HS256") add up to more than the best one alone.
    let total: f64 = q.terms.iter().map(|t| t.weight).sum();
    let union_cov = if total > 0.0 {
        q.terms
            .iter()
            .zip(union.iter())
            .map(|(t, c)| t.weight * c)
            .sum::<f64>()
            / total
    } else {
        0.0
    };
    let breadth = weights().breadth * (union_cov - best_cov).max(0.0);
    // Several patterns agreeing is a little more evidence than one.
    let agreement = weights().agreement * (strong.saturating_sub(1).min(3)) as f64;
    let weak = weights().weak * score_into(weak, q, false, credit).map_or(0.0, |m| m.0);
    let best = best_score + breadth;
    (
        (weights().best * best.max(weak) + agreement + weights().other * best.min(weak)).min(1.0),
        best,
        declared_best.max(weak),
        learned_best,
    )
}

/// One scored entry, with how many distinct request terms it accounts for.
#[derive(Clone)]
pub(super) struct Scored {
    pub entry: usize,
    pub score: f64,
    /// What the intent's own patterns earned, before the tool's name and summary.
    pub own: f64,
    /// What the contract's own words earned (declared patterns, name and summary), without
    /// learned phrasings.
    pub declared: f64,
    /// What the best learned phrasing earned (someone's words for this intent).
    pub learned: f64,
    pub matched: usize,
}

/// Whether a `re:` pattern matches the request. Compiled patterns are kept for the life of the
/// process: compiling dominates otherwise (the MCP server and the tests resolve many requests).
/// An ASCII request is matched by the pattern built with ASCII classes, which answers the same
/// for ASCII text and compiles in a fraction of the time (a case-insensitive Unicode `\w` was
/// most of a warm `cmpx resolve`); other requests get the Unicode build.
fn pattern_matches(re: &str, raw: &str) -> bool {
    type Cache = Mutex<HashMap<(String, bool), Option<regex::bytes::Regex>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let ascii = raw.is_ascii();
    let compiled = {
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        map.entry((re.to_string(), ascii))
            .or_insert_with(|| {
                let build = |unicode: bool| {
                    regex::bytes::RegexBuilder::new(re)
                        .case_insensitive(true)
                        .unicode(unicode)
                        .size_limit(1 << 20)
                        .build()
                        .ok()
                };
                // A pattern that needs Unicode (`\p{Greek}`) does not build without it.
                if ascii {
                    build(false).or_else(|| build(true))
                } else {
                    build(true)
                }
            })
            .clone()
    };
    compiled.is_some_and(|r| r.is_match(raw.as_bytes()))
}

fn regex_hit(e: &Entry, raw: &str) -> bool {
    e.patterns.iter().any(|p| match p {
        Pattern::Regex(re) => pattern_matches(re, raw),
        Pattern::Terms(_) => false,
    })
}

fn mentions(e: &Entry, weak: &[TermId], id: TermId) -> bool {
    weak.binary_search(&id).is_ok()
        || e.patterns
            .iter()
            .any(|p| matches!(p, Pattern::Terms(t) if t.contains(&id)))
}

/// The scores of every entry sharing a term with the query (or holding a `re:` pattern), how
/// many request terms no installed tool mentions, and the request's terms with their typos
/// corrected (see `Prepared::typed`).
pub(super) fn score_all(index: &Index, query: &Query) -> (Vec<Scored>, usize, Vec<String>) {
    let ids = index.term_ids();
    let q = prepare(query, index, &ids);
    let unknown = q.terms.iter().filter(|t| t.matches.is_empty()).count();
    // Connectives ("to", "from") order a request but say nothing of the tool by themselves:
    // an entry is a candidate only when it shares a content term, or a `re:` pattern matches.
    let connectives: Vec<TermId> = ["to", "from", "as", "out"]
        .iter()
        .filter_map(|w| ids.get(w).copied())
        .collect();
    let wanted: HashSet<TermId> = q
        .terms
        .iter()
        .flat_map(|t| t.matches.iter().map(|(v, _)| *v))
        .filter(|v| !connectives.contains(v))
        .collect();
    // The entries that share a wanted term (from the postings) or whose `re:` pattern
    // matches, in entry order; no other entry can score.
    let mut visit: Vec<u32> = wanted
        .iter()
        .flat_map(|&t| index.postings(t).iter().copied())
        .chain(
            index
                .regex
                .iter()
                .copied()
                .filter(|&i| regex_hit(&index.entries[i as usize], &query.raw)),
        )
        .collect();
    visit.sort_unstable();
    visit.dedup();
    let mut scored = Vec::new();
    for i in visit {
        let i = i as usize;
        let e = &index.entries[i];
        let weak = &index.tool_of(e).weak;
        let direction = direction_factor(e, &q)
            * opposite_factor(e, weak, &q)
            * one_sided_factor(e, weak, &q.reads_sample)
            * remake_factor(e, weak, &q)
            * one_sided_factor(e, weak, &q.makes_new);
        let (score, own, declared, learned) = score_entry(e, weak, &q, &query.raw);
        let (score, own, declared) = (score * direction, own * direction, declared * direction);
        let learned = learned * direction;
        if score > 0.0 {
            let matched = q
                .terms
                .iter()
                .filter(|t| t.matches.iter().any(|&(v, _)| mentions(e, weak, v)))
                .count();
            scored.push(Scored {
                entry: i,
                score,
                own,
                declared,
                learned,
                matched,
            });
        }
    }
    (scored, unknown, q.typed)
}

#[cfg(test)]
mod tests {
    use super::pattern_matches;

    /// `score_terms` and `lcs` as they were written first (a hash map of credits, a vector
    /// per row), to check that their allocation-free forms give the very same bits.
    fn reference(
        terms: &[super::TermId],
        q: &super::Prepared,
        ordered: bool,
    ) -> (f64, f64, Vec<f64>) {
        use std::collections::HashMap;
        let mut credit = vec![0.0; q.terms.len()];
        let mut uniq = terms.to_vec();
        uniq.sort_unstable();
        uniq.dedup();
        let mut p_credit: HashMap<super::TermId, f64> = HashMap::new();
        let (mut q_matched, mut q_total) = (0.0, 0.0);
        for (i, qt) in q.terms.iter().enumerate() {
            q_total += qt.weight;
            for &(v, c) in &qt.matches {
                if uniq.binary_search(&v).is_ok() {
                    credit[i] = f64::max(credit[i], c);
                    let e = p_credit.entry(v).or_insert(0.0);
                    *e = e.max(c);
                }
            }
            q_matched += qt.weight * credit[i];
        }
        let idf = |t: super::TermId| q.idf.get(t as usize).copied().unwrap_or(0.0);
        let p_total: f64 = uniq.iter().map(|&t| idf(t)).sum();
        let p_matched: f64 = uniq
            .iter()
            .map(|&t| idf(t) * p_credit.get(&t).copied().unwrap_or(0.0))
            .sum();
        let cov_p = if p_total > 0.0 {
            p_matched / p_total
        } else {
            0.0
        };
        let cov_q = if q_total > 0.0 {
            let unmatched = q_total - q_matched;
            let unmatched = if unmatched > super::weights().unmatched {
                (unmatched * super::weights().unmatched).sqrt()
            } else {
                unmatched
            };
            q_matched / (q_matched + unmatched)
        } else {
            0.0
        };
        let mut score = super::f_measure(cov_p, cov_q);
        if score > 0.0 && ordered && terms.len() >= 2 {
            let (a, b) = (terms, &q.order);
            let mut prev = vec![0usize; b.len() + 1];
            for x in a {
                let mut cur = vec![0usize; b.len() + 1];
                for (j, y) in b.iter().enumerate() {
                    cur[j + 1] = if Some(*x) == *y {
                        prev[j] + 1
                    } else {
                        prev[j + 1].max(cur[j])
                    };
                }
                prev = cur;
            }
            score *=
                1.0 - super::weights().order * (1.0 - prev[b.len()] as f64 / terms.len() as f64);
        }
        (score, cov_q, credit)
    }

    /// `score_entry` as it was written first, on `reference`.
    fn reference_entry(e: &super::Entry, weak: &[super::TermId], q: &super::Prepared) -> [u64; 4] {
        let (mut declared_best, mut learned_best) = (0.0f64, 0.0f64);
        let (mut best, mut best_cov) = (0.0f64, 0.0f64);
        let mut union = vec![0.0; q.terms.len()];
        let mut strong = 0usize;
        let declared = e.patterns.len().saturating_sub(e.learned as usize);
        for (at, p) in e.patterns.iter().enumerate() {
            let (mut score, cov_q, credit) = match p {
                super::Pattern::Terms(ts) => reference(ts, q, true),
                super::Pattern::Regex(_) => (0.0, 0.0, Vec::new()),
            };
            if at >= declared {
                score *= super::weights().learned;
                learned_best = learned_best.max(score);
            } else {
                declared_best = declared_best.max(score);
            }
            for (u, c) in union.iter_mut().zip(&credit) {
                *u = f64::max(*u, *c);
            }
            if score >= 0.5 {
                strong += 1;
            }
            if score > best {
                (best, best_cov) = (score, cov_q);
            }
        }
        let total: f64 = q.terms.iter().map(|t| t.weight).sum();
        let union_cov = if total > 0.0 {
            q.terms
                .iter()
                .zip(&union)
                .map(|(t, c)| t.weight * c)
                .sum::<f64>()
                / total
        } else {
            0.0
        };
        let breadth = super::weights().breadth * (union_cov - best_cov).max(0.0);
        let agreement = super::weights().agreement * (strong.saturating_sub(1).min(3)) as f64;
        let weak = super::weights().weak * reference(weak, q, false).0;
        let best = best + breadth;
        [
            (super::weights().best * best.max(weak)
                + agreement
                + super::weights().other * best.min(weak))
            .min(1.0),
            best,
            declared_best.max(weak),
            learned_best,
        ]
        .map(f64::to_bits)
    }

    #[test]
    fn pattern_and_entry_scores_are_the_same_bits_as_the_reference() {
        let index = super::super::index::build(&[]);
        let ids = index.term_ids();
        let requests = [
            "pretty print this json",
            "convert unix timestamp 1700000000 to a date",
            "yaml to json to yaml json json",
            "decdoe base64 and then encode url base64",
            "sort lines count words sort lines reverse text to upper case",
        ];
        let mut touched = 0;
        for r in requests {
            let q = super::prepare(&super::super::query(r), &index, &ids);
            for e in index.entries.iter() {
                let weak = &index.tool_of(e).weak;
                if e.patterns
                    .iter()
                    .all(|p| matches!(p, super::Pattern::Terms(_)))
                {
                    let (a, b, c, d) = super::score_entry(e, weak, &q, r);
                    let got = [a, b, c, d].map(f64::to_bits);
                    assert_eq!(got, reference_entry(e, weak, &q), "{r}: entry {}", e.intent);
                }
                let pats = e.patterns.iter().filter_map(|p| match p {
                    super::Pattern::Terms(t) => Some((t.as_slice(), true)),
                    super::Pattern::Regex(_) => None,
                });
                for (terms, ordered) in pats.chain([(weak.as_slice(), false)]) {
                    let m = super::score_terms(terms, &q, ordered);
                    if m.credit.is_empty() {
                        continue;
                    }
                    touched += 1;
                    let (score, cov_q, credit) = reference(terms, &q, ordered);
                    assert_eq!(m.score.to_bits(), score.to_bits(), "{r}: {terms:?}");
                    assert_eq!(m.cov_q.to_bits(), cov_q.to_bits(), "{r}: {terms:?}");
                    assert_eq!(m.credit, credit, "{r}: {terms:?}");
                }
            }
        }
        assert!(touched > 100);
    }

    #[test]
    fn re_patterns_answer_the_same_with_ascii_classes_for_ascii_requests() {
        // ASCII request: the ASCII build; anything else: the Unicode one.
        assert!(pattern_matches(r"^\w+ \d+%$", "TAX 15%"));
        assert!(pattern_matches(r"^\w+$", "héllo"));
        assert!(!pattern_matches(r"^\w+$", "hello world"));
        // Case-insensitive both ways, as before.
        assert!(pattern_matches(
            r"\bapplication/vnd\.[\w.+-]+",
            "APPLICATION/VND.MS-EXCEL"
        ));
        // A pattern that needs Unicode still works for an ASCII request.
        assert!(pattern_matches(r"\p{Greek}|abc", "xabcx"));
        assert!(pattern_matches(r"\p{Greek}", "λ"));
        assert!(!pattern_matches(r"(", "anything"));
    }
}
