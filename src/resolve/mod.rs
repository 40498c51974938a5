//! Intent resolution: from words ("pretty print this json") to ranked intents of installed tools.

mod checks;
mod fit;
pub mod folders;
pub mod index;
mod lazy;
pub mod learned;
mod lexicon;
mod modes;
pub mod samples;
mod score;
mod shifted;
pub mod stamp;
pub mod text;
pub mod timing;
pub mod values;
mod weights;

use crate::cmp::ParamSpec;
use index::Index;
use indexmap::IndexMap;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize)]
pub struct IntentRef {
    pub index: usize,
    pub pattern: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub tool: String,
    pub intent: IntentRef,
    pub score: f64,
    pub command: String,
    pub params: IndexMap<String, ParamSpec>,
    pub required: Vec<String>,
    pub confirm: bool,
    pub destructive: bool,
    pub adapter: bool,
    /// The tool folder; empty for a catalogue tool that is not exported.
    pub path: PathBuf,
}

#[derive(Debug, Clone, Serialize)]
pub struct Resolution {
    pub query: String,
    pub candidates: Vec<Candidate>,
    pub ambiguous: bool,
    pub confident: bool,
    /// What the confidence combiner weighed (for fitting it: bench/fit-weights.py).
    #[serde(skip)]
    pub features: Features,
}

impl Resolution {
    /// The candidate `cmpx do` may run: confident and unambiguous.
    pub fn chosen(&self) -> Option<&Candidate> {
        (self.confident && !self.ambiguous)
            .then(|| self.candidates.first())
            .flatten()
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub top: usize,
    pub domain: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            top: 5,
            domain: None,
        }
    }
}

/// Most terms of a request that are scored: its first `MAX_TERMS - TAIL_TERMS` and its last
/// `TAIL_TERMS` (a request is rarely longer than thirty; what stands between in a longer one
/// is text pasted without quotes, and scoring every word of 100 KB of it took minutes).
const MAX_TERMS: usize = 64;
const TAIL_TERMS: usize = 16;

pub fn query(text: &str) -> score::Query {
    let scrubbed = samples::scrub(text);
    let mut terms = text::terms(&scrubbed.text);
    if terms.len() > MAX_TERMS {
        terms.drain(MAX_TERMS - TAIL_TERMS..terms.len() - TAIL_TERMS);
    }
    score::Query {
        terms,
        concepts: scrubbed.concepts.iter().map(|c| text::term(c)).collect(),
        raw: text.to_string(),
        marks: text::marks(&scrubbed.text),
        written: values::distinctive(&scrubbed.text),
        implied: scrubbed
            .values
            .iter()
            .map(|v| values::spelling(v))
            .collect(),
    }
}

pub fn resolve(index: &Index, request: &str, opts: &Options) -> Resolution {
    let mut clock = std::time::Instant::now();
    let q = query(request);
    timing::span("query", &mut clock);
    if std::env::var_os("CMPX_RESOLVE_DEBUG").is_some() {
        eprintln!(
            "resolve: terms {:?}, concepts {:?}, marks {:?}",
            q.terms, q.concepts, q.marks
        );
    }
    let (mut scored, unknown, typed) = score::score_all(index, &q);
    // Modes are told apart by the words as meant: "decdoe base58" asks to decode.
    let mq = score::Query {
        terms: typed,
        ..q.clone()
    };
    timing::span("score", &mut clock);
    scored.retain(|s| {
        opts.domain.as_deref().is_none_or(|d| {
            index
                .tool_of(&index.entries[s.entry])
                .domain
                .eq_ignore_ascii_case(d)
        })
    });
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    if std::env::var_os("CMPX_RESOLVE_DEBUG").is_some() {
        for s in scored.iter().take(6) {
            let e = &index.entries[s.entry];
            eprintln!(
                "  {} #{} score {:.3} own {:.3}",
                index.tool_of(e).name,
                e.intent,
                s.score,
                s.own
            );
        }
    }
    // Candidates are shown in the order of word score and tool fit (`fit`); confidence is
    // judged on the word score alone, as below. Only those that may be shown are ranked.
    let mut ranked: Vec<score::Scored> = scored
        .iter()
        .filter(|s| s.score >= weights::get().rules.min_score)
        .cloned()
        .collect();
    let choice = modes::prefer_named(index, &mut scored, &mq);
    let top = scored.first().map_or(0.0, |s| s.score);
    let second = rival(index, &scored, choice.is_some()).map_or(0.0, |s| s.score);
    let w = &weights::get().rules;
    let ambiguous = top >= w.min_score && second >= w.min_score && top - second < w.ambiguity_gap;
    // One matching word among several nobody's tools mention ("hash brown recipe") is a
    // coincidence of vocabulary, not a request for the tool.
    let lone_word = scored
        .first()
        .is_some_and(|s| s.matched <= 1 && unknown >= 2);
    // Only the candidates that can still be shown need their tool's fit;
    // `CMPX_RESOLVE_EXHAUSTIVE` (to check that this changes nothing) ranks them all.
    let exhaustive = std::env::var_os("CMPX_RESOLVE_EXHAUSTIVE").is_some();
    let keep = if exhaustive {
        usize::MAX
    } else {
        opts.top.max(1).saturating_add(fit::SLACK)
    };
    fit::rerank(index, &q, &mut ranked, keep);
    modes::prefer_named(index, &mut ranked, &mq);
    // When the fit puts another intent first, `cmpx do` would run what the word score did not
    // vouch for: offer it, do not act on it.
    let same_first = ranked.first().map(|s| s.entry) == scored.first().map(|s| s.entry);
    let first = scored.first();
    let distinct = q
        .terms
        .iter()
        .chain(&q.concepts)
        .collect::<std::collections::HashSet<_>>()
        .len()
        .max(1) as f64;
    let features = Features {
        top,
        lead: top - second,
        coverage: first.map_or(0.0, |s| s.matched as f64) / distinct,
        unknown: unknown as f64,
        mode_gap: modes::Choice::gap(choice),
        own: first.map_or(0.0, |s| s.own),
        declared_margin: support_margin(index, &scored, |s| s.declared),
        learned_margin: support_margin(index, &scored, |s| s.learned),
        unserved: unserved(index, &q) as u8 as f64,
        veto: lone_word || !same_first,
    };
    let confident = weights::get().confidence.accepts(&features);
    let mut capabilities = HashMap::new();
    let candidates = ranked
        .into_iter()
        .filter_map(|s| candidate(index, &index.entries[s.entry], s.score, &mut capabilities))
        .take(opts.top.max(1))
        .collect();
    timing::span("candidates", &mut clock);
    Resolution {
        query: request.to_string(),
        candidates,
        ambiguous,
        confident,
        features,
    }
}

/// What the confidence combiner weighs (resolver/weights.toml, fitted by
/// bench/fit-weights.py on the cross-validated train split).
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// The best candidate's score.
    pub top: f64,
    /// Its lead over the best rival decision.
    pub lead: f64,
    /// The share of the request's distinct terms the best candidate's tool mentions.
    pub coverage: f64,
    /// Request words no installed tool mentions.
    pub unknown: f64,
    /// For a tool with modes, how clearly the request names the mode chosen (see
    /// `modes::Choice::gap`): negative when it uses words of some modes but names none.
    pub mode_gap: f64,
    /// What the best candidate's own patterns earned, before its tool's name and summary.
    pub own: f64,
    /// How far the best candidate's tool leads the next on the contract's own words, and on
    /// learned phrasings (negative when another tool leads on them).
    pub declared_margin: f64,
    pub learned_margin: f64,
    /// The request asks for something done in the world that no installed tool's words
    /// mention (`actions.world` in resolver/lexicon.toml): 1, else 0.
    pub unserved: f64,
    /// A rule forbids acting: one matching word among several nobody's tools mention, or the
    /// tool fit putting another intent first.
    pub veto: bool,
}

impl Features {
    /// The combiner's inputs, by name, as resolver/weights.toml names its coefficients.
    pub const NAMES: [&str; 9] = [
        "top",
        "lead",
        "coverage",
        "unknown",
        "mode_gap",
        "own",
        "declared_margin",
        "learned_margin",
        "unserved",
    ];

    /// The inputs in `NAMES` order, each bounded so that no one request's extreme (ten unknown
    /// words, a mode gap of 6) outweighs the rest.
    pub fn vector(&self) -> [f64; 9] {
        [
            self.top,
            self.lead,
            self.coverage,
            self.unknown.min(4.0),
            self.mode_gap.clamp(-3.0, 3.0),
            self.own,
            self.declared_margin,
            self.learned_margin,
            self.unserved,
        ]
    }
}

/// Whether the request uses a verb of doing something in the world (`actions.world`) that no
/// installed tool's words include.
fn unserved(index: &Index, q: &score::Query) -> bool {
    // As terms once: stemming every verb for every request term was repeated work.
    static WORLD: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let world = WORLD.get_or_init(|| {
        lexicon::get()
            .actions
            .world
            .iter()
            .map(|w| text::term(w))
            .collect()
    });
    let ids = index.term_ids();
    q.terms
        .iter()
        .any(|t| world.contains(t) && ids.get(t).is_none())
}

/// The first candidate's tool's best value of `f`, less the best other tool's (negative when
/// another tool leads on that evidence).
fn support_margin(
    index: &Index,
    scored: &[score::Scored],
    f: impl Fn(&score::Scored) -> f64,
) -> f64 {
    let Some(first) = scored.first() else {
        return 0.0;
    };
    let tool = index.entries[first.entry].tool;
    let (mut mine, mut other) = (0.0f64, 0.0f64);
    for s in scored {
        if index.entries[s.entry].tool == tool {
            mine = mine.max(f(s));
        } else {
            other = other.max(f(s));
        }
    }
    mine - other
}

/// The best candidate that would be a different decision from the first: another tool, or
/// another intent of a tool whose intents are separate actions (an adapter's `git status` and
/// `git reset --hard`). A catalogue tool's modes are one decision when `modes::prefer_named`
/// settled them (`settled`); a mode that leads on its score alone has the tool's other modes
/// as rivals ("url encdoe": encodeURI and url encode score alike), though not the general
/// intent, which can do either.
fn rival<'a>(
    index: &Index,
    scored: &'a [score::Scored],
    settled: bool,
) -> Option<&'a score::Scored> {
    let first = scored.first()?;
    let e = &index.entries[first.entry];
    let modes = index.tools[e.tool as usize].modes;
    let unsettled_mode = modes && !settled && e.intent != 0;
    scored.iter().skip(1).find(|s| {
        let other = &index.entries[s.entry];
        !modes || other.tool != e.tool || (unsettled_mode && other.intent != 0)
    })
}

/// A candidate for display, with its command and parameters read from the tool's own files
/// (once per tool). A tool whose files vanished since indexing is left out.
fn candidate(
    index: &Index,
    e: &index::Entry,
    score: f64,
    capabilities: &mut HashMap<u32, Option<crate::cmp::Capability>>,
) -> Option<Candidate> {
    let tool = index.tool_of(e);
    let cap = capabilities
        .entry(e.tool)
        .or_insert_with(|| {
            if tool.builtin {
                crate::catalogue::get(&tool.name).map(|d| crate::cmp::mapping::capability(&d))
            } else {
                crate::cmp::registry::read_folder(&tool.dir)
                    .ok()
                    .map(|(_, c)| c)
            }
        })
        .as_ref()?;
    let intent = cap.intents.get(e.intent as usize)?;
    Some(Candidate {
        tool: tool.name.clone(),
        intent: IntentRef {
            index: e.intent as usize,
            pattern: intent.patterns.first().cloned().unwrap_or_default(),
        },
        score: (score * 1000.0).round() / 1000.0,
        command: crate::cmp::capability::presented_command(&tool.name, e.intent as usize, intent),
        required: intent
            .params
            .iter()
            .filter(|(_, p)| p.required)
            .map(|(n, _)| n.clone())
            .collect(),
        params: intent.params.clone(),
        // Consent and destructiveness come from the one derivation (cmp::effects): a declared
        // write, a `confirm` flag or a value run as code all ask first.
        confirm: intent.needs_consent(),
        destructive: intent.effects().destructive,
        adapter: tool.adapter,
        path: tool.dir.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::{MAX_TERMS, TAIL_TERMS, query};

    #[test]
    fn a_long_request_is_scored_by_its_head_and_tail() {
        let filler: Vec<String> = (0..500).map(|i| format!("zq{i}x")).collect();
        let request = format!("count the words of {} then sort lines", filler.join(" "));
        let terms = query(&request).terms;
        assert_eq!(terms.len(), MAX_TERMS);
        assert_eq!(&terms[..2], ["count", "word"]);
        assert_eq!(&terms[MAX_TERMS - 2..], ["sort", "line"]);
        assert_eq!(terms[MAX_TERMS - TAIL_TERMS - 1], "zq45x");
    }
}
