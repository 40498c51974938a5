//! Choosing among a catalogue tool's modes: which of the tool's intents a request names
//! ("url decode", "to snake_case", "crlf to lf"), judged by the words that tell the tool's
//! modes apart rather than by the words they share.

use super::index::{Entry, Index, Pattern, TermId};
use super::score::{Query, Scored};
use std::collections::{HashMap, HashSet};

/// The numbers below (`rules.mode_min` and the telling weights) are `[rules]` in
/// resolver/weights.toml, which says what each weighs and how it was chosen.
fn w() -> &'static super::weights::Rules {
    super::score::weights()
}

/// How the entry's fixed values meet the values the request names or implies (`values`).
fn values_agree(index: &Index, e: &Entry, q: &Query) -> i32 {
    if e.fixed.is_empty() {
        return 0;
    }
    let choices = &index.tools[e.tool as usize].choices;
    let named = super::values::named(choices, &q.written, &q.implied);
    super::values::agreement(&e.fixed, &named)
}

/// Each mode entry of the first candidate's tool, with the weight of the request's terms that
/// only some of the tool's modes use: a word every mode uses ("url" for url-encoder) tells
/// nothing about which one is meant; a word one mode uses ("decode") tells it. Only the
/// contract's own patterns count here: a learned phrasing carries incidental words.
struct Telling {
    /// The mode's position in `scored`.
    at: usize,
    weight: f64,
    /// The part of `weight` from words the general intent does not declare too ("date" for a
    /// timestamp converter's "milliseconds to date" is not a reason to doubt the general one).
    beyond_general: f64,
}

fn telling(index: &Index, scored: &[Scored], q: &Query) -> Vec<Telling> {
    let Some(first) = scored.first() else {
        return Vec::new();
    };
    let tool = index.entries[first.entry].tool;
    let modes: Vec<usize> = scored
        .iter()
        .enumerate()
        .filter(|(_, s)| index.entries[s.entry].tool == tool && index.entries[s.entry].intent != 0)
        .map(|(at, _)| at)
        .collect();
    // Modes that share no term with the request are not in `scored`, but they still count
    // as modes that do not use a word.
    let total = index
        .entries_of(tool)
        .filter(|&e| index.entries[e].intent != 0)
        .count()
        .max(modes.len());
    if total < 2 {
        return Vec::new();
    }
    let typed = typed_words(q);
    let vocab: Vec<HashSet<TermId>> = modes
        .iter()
        .map(|&at| {
            index.entries[scored[at].entry]
                .declared_terms()
                .filter(|&t| typed.contains(index.terms[t as usize].as_str()))
                .collect()
        })
        .collect();
    let mut df: HashMap<TermId, usize> = HashMap::new();
    for v in &vocab {
        for &t in v {
            *df.entry(t).or_default() += 1;
        }
    }
    let general: HashSet<TermId> = index
        .entries_of(tool)
        .map(|e| &index.entries[e])
        .filter(|e| e.intent == 0)
        .flat_map(|e| e.declared_terms())
        .collect();
    let marks = Marks::of(q);
    let idf = |t: &TermId| (total as f64 / df[t] as f64).ln();
    let opposed = opposed(&typed);
    let forms = sample_forms(index, tool, q);
    modes
        .iter()
        .zip(&vocab)
        .map(|(&at, v)| {
            let entry = &index.entries[scored[at].entry];
            let way = direction(index, entry, &marks)
                - w().opposed * contradicts(index, entry, &opposed)
                + w().whole * names_whole(index, entry, &typed, &df, total) as u8 as f64
                - w().sample_form * makes_form(index, entry, &forms, &typed) as u8 as f64
                + w().value * values_agree(index, entry, q) as f64;
            Telling {
                at,
                weight: v.iter().map(idf).sum::<f64>() + way,
                beyond_general: v
                    .iter()
                    .filter(|t| !general.contains(t))
                    .map(idf)
                    .sum::<f64>()
                    + way,
            }
        })
        .collect()
}

/// The forms of the request's pasted samples (their concepts) that some of the tool's modes
/// name and others do not: a mode named by the form the sample is already in makes that form
/// ("defang url" for a pasted `hxxp://evil[.]com`), the others read it.
fn sample_forms(index: &Index, tool: u32, q: &Query) -> HashSet<TermId> {
    let mut forms = HashSet::new();
    if q.concepts.is_empty() {
        return forms;
    }
    let modes: Vec<HashSet<TermId>> = index
        .entries_of(tool)
        .map(|e| &index.entries[e])
        .filter(|e| e.intent != 0)
        .map(|e| e.declared_terms().collect())
        .collect();
    for c in &q.concepts {
        let Some(&id) = index.term_ids().get(c.as_str()) else {
            continue;
        };
        let naming = modes.iter().filter(|m| m.contains(&id)).count();
        if naming > 0 && naming < modes.len() {
            forms.insert(id);
        }
    }
    forms
}

/// Whether a mode's name (its first pattern) starts with one of `forms`, as what it does
/// ("defang url", "gzip compress": an action with an opposite), not with what it reads
/// ("decompress gzip", "objectid timestamp") nor where it starts ("hex to decimal", which
/// `direction` already credits for a pasted hex number). A
/// mode whose name also states an action the request asks for ("compress H4sI…") is what
/// was asked, whatever the sample already is.
fn makes_form(index: &Index, e: &Entry, forms: &HashSet<TermId>, request: &HashSet<&str>) -> bool {
    let word = |t: &TermId| index.terms[*t as usize].as_str();
    e.declared().first().is_some_and(|p| match p {
        Pattern::Terms(t) => {
            t.first().is_some_and(|x| forms.contains(x))
                && t.iter()
                    .any(|x| super::text::opposite(word(x), true).is_some())
                && !t.iter().any(|x| {
                    word(x) == "to"
                        || (request.contains(word(x))
                            && super::text::opposite(word(x), true).is_some())
                })
        }
        Pattern::Regex(_) => false,
    })
}

/// Whether a general intent that generates (its name "basic auth header generator") would make
/// again what the request pastes (an `Authorization: Basic …` header) for a request that asks
/// for nothing new: its lone mode ("decode basic auth") is then the one that reads it.
fn remakes_sample(index: &Index, general: &Entry, q: &Query, request: &HashSet<&str>) -> bool {
    let generate = super::text::term("generate");
    let name = match general.declared().first() {
        Some(Pattern::Terms(t)) => t,
        _ => return false,
    };
    let word = |t: &TermId| index.terms[*t as usize].as_str();
    !request.contains(generate.as_str())
        && name
            .first()
            .is_some_and(|t| q.concepts.iter().any(|c| c == word(t)))
        && name.iter().any(|t| word(t) == generate)
}

/// Whether the request states one of the mode's declared patterns whole, with a word that
/// not every mode uses ("scrypt" for the scrypt mode, where "key derivation" is half of
/// "pbkdf2 derive key").
fn names_whole(
    index: &Index,
    e: &Entry,
    request: &HashSet<&str>,
    df: &HashMap<TermId, usize>,
    total: usize,
) -> bool {
    e.declared().iter().any(|p| match p {
        Pattern::Terms(t) => {
            !t.is_empty()
                && t.iter()
                    .all(|x| request.contains(index.terms[*x as usize].as_str()))
                && t.iter().any(|x| df.get(x).is_some_and(|&n| n < total))
        }
        Pattern::Regex(_) => false,
    })
}

/// `telling`, best first: telling words first, the mode's own score to break a tie.
fn ranked_telling(index: &Index, scored: &[Scored], q: &Query) -> Vec<Telling> {
    let mut modes = telling(index, scored, q);
    modes.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then(scored[b.at].own.total_cmp(&scored[a.at].own))
    });
    modes
}

/// How far the first of `ranked_telling` leads the next.
fn telling_lead(modes: &[Telling]) -> f64 {
    modes.first().map_or(0.0, |m| m.weight) - modes.get(1).map_or(0.0, |m| m.weight)
}

/// The request's terms and concepts, once each.
fn request_words(q: &Query) -> HashSet<&str> {
    q.terms
        .iter()
        .chain(&q.concepts)
        .map(String::as_str)
        .collect()
}

/// The request's typed terms, once each: a pasted sample's form (its concept) is what the
/// request has, not a word that names a mode or an action ("unfang hxxps://evil[.]com" asks to
/// refang what is defanged).
fn typed_words(q: &Query) -> HashSet<&str> {
    q.terms.iter().map(String::as_str).collect()
}

/// Actions the request asks for whose opposite it does not also name ("encode", not
/// "decode"), with that opposite: a mode that declares only the opposite is the other direction.
fn opposed<'a>(request: &HashSet<&'a str>) -> Vec<(&'a str, &'static str)> {
    request
        .iter()
        .filter_map(|t| Some((*t, super::text::opposite(t, true)?)))
        .filter(|(_, o)| !request.contains(o))
        .collect()
}

/// How many of the request's actions the entry's declared patterns name only the opposite of.
fn contradicts(index: &Index, e: &Entry, opposed: &[(&str, &str)]) -> f64 {
    if opposed.is_empty() {
        return 0.0;
    }
    let words: HashSet<&str> = e
        .declared_terms()
        .map(|t| index.terms[t as usize].as_str())
        .collect();
    opposed
        .iter()
        .filter(|(asked, other)| words.contains(other) && !words.contains(asked))
        .count() as f64
}

/// The request's wanted and given forms, as sets of terms; a pasted sample is given.
struct Marks<'a> {
    targets: HashSet<&'a str>,
    sources: HashSet<&'a str>,
}

impl<'a> Marks<'a> {
    fn of(q: &'a Query) -> Self {
        Marks {
            targets: q.marks.targets.iter().map(String::as_str).collect(),
            sources: q
                .marks
                .sources
                .iter()
                .chain(&q.concepts)
                .map(String::as_str)
                .collect(),
        }
    }
}

/// How a mode's declared "<from> to <to>" (or "to <to>", "from <from>") patterns agree with
/// what the request wants and has: the best pattern's agreement, in `rules.direction` units.
fn direction(index: &Index, e: &Entry, marks: &Marks) -> f64 {
    if marks.targets.is_empty() && marks.sources.is_empty() {
        return 0.0;
    }
    let word = |t: &TermId| index.terms[*t as usize].as_str();
    e.declared()
        .iter()
        .filter_map(|p| match p {
            Pattern::Terms(t) => Some(t),
            Pattern::Regex(_) => None,
        })
        .filter_map(|t| {
            let (from, to): (&[TermId], &[TermId]) =
                if let Some(at) = t.iter().position(|x| word(x) == "to") {
                    (&t[..at], &t[at + 1..])
                } else if t.first().is_some_and(|x| word(x) == "from") {
                    (&t[1..], &[])
                } else {
                    return None;
                };
            let hits =
                |side: &[TermId], set: &HashSet<&str>| side.iter().any(|x| set.contains(word(x)));
            let mut score = 0.0;
            if hits(to, &marks.targets) {
                score += w().direction;
            }
            if hits(from, &marks.targets) {
                score -= w().direction;
            }
            if hits(from, &marks.sources) {
                score += w().direction / 2.0;
            }
            if hits(to, &marks.sources) {
                score -= w().direction / 2.0;
            }
            Some(score)
        })
        .reduce(f64::max)
        .unwrap_or(0.0)
}

/// A request that names one of a catalogue tool's modes gets the intent that carries it: when
/// the tool's general intent leads on the tool's name but one mode clearly beats the tool's
/// other modes (on telling words, else on its own score), that mode takes the general
/// intent's place (and score). Modes that tie leave the general intent, which asks for the
/// choice as a parameter. `None` for a first candidate that is not a tool's general intent.
pub(super) fn prefer_named(index: &Index, scored: &mut [Scored], q: &Query) -> Option<Choice> {
    let first = scored.first()?;
    let tool = index.entries[first.entry].tool;
    if !index.tools[tool as usize].modes {
        return None;
    }
    if index.entries[first.entry].intent != 0 {
        return overrule(index, scored, q);
    }
    if let Some(choice) = lone_mode(index, scored, q) {
        return Some(choice);
    }
    let modes = ranked_telling(index, scored, q);
    let best_at = modes.first()?.at;
    let lead = telling_lead(&modes);
    // A mode that fixes another value than the one asked for is never meant: the general
    // intent takes the value as a parameter.
    let refused = values_agree(index, &index.entries[scored[best_at].entry], q) < 0;
    let named = if refused {
        false
    } else if lead >= w().telling_lead {
        scored[best_at].own >= w().mode_min / 2.0
    } else {
        // No telling word decides: the modes' own scores may, among the tied.
        own_score_decides(&modes, scored)
    };
    if !named {
        let telling = modes.iter().map(|m| m.beyond_general).fold(0.0, f64::max);
        return Some(Choice::General { telling });
    }
    Some(promote(scored, best_at, lead))
}

/// A mode that leads on its score alone gives way to another of the tool's modes that the
/// request's telling words clearly name ("sort these version numbers so 10 comes after 9, not
/// after 1" scores natural sort first; the words that tell the sorts apart name numeric sort).
/// `None` when no other mode is clearly named.
fn overrule(index: &Index, scored: &mut [Scored], q: &Query) -> Option<Choice> {
    let first = &index.entries[scored[0].entry];
    if values_agree(index, first, q) < 0 {
        // It fixes another value than the one asked for: the general intent takes its place.
        let general = index.entries_of(first.tool).start;
        let at = scored.iter().position(|s| s.entry == general)?;
        promote(scored, at, 0.0);
        return Some(Choice::General { telling: 0.0 });
    }
    let modes = ranked_telling(index, scored, q);
    let best = modes.first()?;
    if best.at == 0 {
        return None;
    }
    let lead = telling_lead(&modes);
    if lead >= w().telling_lead {
        return (scored[best.at].own >= w().mode_min / 2.0).then(|| promote(scored, best.at, lead));
    }
    // Several modes tie, each named more than the first ("gunzip this base64" against "gzip
    // base64", a compressing mode): their own scores decide among them, as in `prefer_named`.
    let first = modes.iter().find(|m| m.at == 0).map_or(0.0, |m| m.weight);
    if best.weight - first < w().telling_lead {
        return None;
    }
    let (at, lead) = (best.at, best.weight - first);
    own_score_decides(&modes, scored).then(|| promote(scored, at, lead))
}

/// Whether the first of `ranked_telling`, tied on telling words (within `rules.telling_lead`) with
/// others, is chosen by its own score: at least `rules.mode_min`, ahead of theirs by `rules.mode_lead`.
fn own_score_decides(modes: &[Telling], scored: &[Scored]) -> bool {
    let Some(best) = modes.first() else {
        return false;
    };
    let own = scored[best.at].own;
    let rival = modes
        .iter()
        .skip(1)
        .filter(|m| best.weight - m.weight < w().telling_lead)
        .map(|m| scored[m.at].own)
        .fold(0.0, f64::max);
    own >= w().mode_min && own - rival >= w().mode_lead
}

/// A tool with a single mode besides its general intent ("decode basic auth" beside the header
/// generator, "bcrypt verify" beside "bcrypt hash"): the general intent is then itself the other
/// action, so the two are told apart by the words each declares and the other does not, and by
/// the direction and opposite actions of the request, as modes are among themselves. `None`
/// when the tool has more modes (or none), for `prefer_named`'s general rule.
fn lone_mode(index: &Index, scored: &mut [Scored], q: &Query) -> Option<Choice> {
    let tool = index.entries[scored.first()?.entry].tool;
    let mut modes = index
        .entries_of(tool)
        .filter(|&e| index.entries[e].intent != 0);
    let (mode, more) = (modes.next()?, modes.next());
    if more.is_some() {
        return None;
    }
    let general = scored[0].entry;
    let Some(at) = scored.iter().position(|s| s.entry == mode) else {
        return Some(Choice::General { telling: 0.0 });
    };
    let request = request_words(q);
    let typed = typed_words(q);
    // The general intent's label names every action the tool has ("bcrypt hash & verify"):
    // its words are no evidence for the general intent over the mode.
    let words = |e: usize, skip: usize| -> HashSet<&str> {
        index.entries[e]
            .declared()
            .iter()
            .skip(skip)
            .filter_map(|p| match p {
                Pattern::Terms(t) => Some(t.iter()),
                Pattern::Regex(_) => None,
            })
            .flatten()
            .map(|&t| index.terms[t as usize].as_str())
            .filter(|w| request.contains(w))
            .collect()
    };
    let (of_general, of_mode) = (words(general, 1), words(mode, 0));
    let marks = Marks::of(q);
    let opposed = opposed(&typed);
    // ln 2: a word one of the two intents uses, as `telling` weighs a word one of two modes uses.
    let weigh = |e: usize, own: &HashSet<&str>, other: &HashSet<&str>| {
        let entry = &index.entries[e];
        own.difference(other).count() as f64 * std::f64::consts::LN_2
            + direction(index, entry, &marks)
            - w().opposed * contradicts(index, entry, &opposed)
    };
    let remakes =
        w().remakes * remakes_sample(index, &index.entries[general], q, &typed) as u8 as f64;
    let agree = values_agree(index, &index.entries[mode], q);
    let lead = weigh(mode, &of_mode, &of_general) - weigh(general, &of_general, &of_mode)
        + remakes
        + w().value * agree as f64;
    if agree < 0 || lead < w().telling_lead || scored[at].own < w().mode_min / 2.0 {
        return Some(Choice::General {
            telling: lead.max(0.0),
        });
    }
    Some(promote(scored, at, lead))
}

/// The mode at `at` takes the first place and its score; the general intent it displaces keeps
/// at most the mode's own score, and the rest are ranked again behind it.
fn promote(scored: &mut [Scored], at: usize, lead: f64) -> Choice {
    let (general, own) = (scored[0].score, scored[at].own);
    scored[at].score = general;
    scored[0].score = own.min(general);
    scored.swap(0, at);
    scored[1..].sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    Choice::Named { lead }
}

/// What `prefer_named` decided for a tool with modes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Choice {
    /// A mode stands in for the general intent, leading the next mode by `lead` telling weight.
    Named { lead: f64 },
    /// The general intent stays; `telling` is the most any mode gets from words the general
    /// intent does not declare (0 when the request uses none that tells the modes apart).
    General { telling: f64 },
}

impl Choice {
    /// How clearly the first candidate's mode is the one meant: 0.5 when there is no mode to
    /// get wrong, the lead when a mode was named, negative when the request has words that
    /// point at some modes but none of them clearly.
    pub(super) fn gap(choice: Option<Choice>) -> f64 {
        match choice {
            None => 0.5,
            Some(Choice::Named { lead }) => lead,
            Some(Choice::General { telling }) if telling <= 0.0 => 0.5,
            Some(Choice::General { telling }) => -telling,
        }
    }
}
