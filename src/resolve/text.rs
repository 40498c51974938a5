//! Turning requests and patterns into comparable terms: words, stop words, synonyms, stems.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashMap;
use std::sync::OnceLock;

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Lowercase runs of letters and digits (apostrophes kept inside words).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || (c == '\'' && !cur.is_empty()) {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur).trim_end_matches('\'').to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur.trim_end_matches('\'').to_string());
    }
    out
}

pub fn is_stop_word(word: &str) -> bool {
    let stop = &super::lexicon::get().stop_words;
    stop.binary_search_by(|w| w.as_str().cmp(word)).is_ok()
}

/// Synonyms keyed by the stem of the word, so every inflection of a synonym folds too
/// ("beautifying" as well as "beautify").
fn synonym_stems() -> &'static HashMap<String, String> {
    static MAP: OnceLock<HashMap<String, String>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map = HashMap::new();
        for (word, canon) in &super::lexicon::get().synonyms {
            let canon = stemmer().stem(canon).into_owned();
            map.insert(word.to_string(), canon.clone());
            map.entry(stemmer().stem(word).into_owned())
                .or_insert(canon);
        }
        map
    })
}

/// One word to its term: stemmed, with synonyms folded onto one spelling.
pub fn term(word: &str) -> String {
    // "ROT13'd", "base64'ed": the clitic says nothing the word does not.
    let word = word
        .strip_suffix("'d")
        .or_else(|| word.strip_suffix("'ed"))
        .filter(|w| !w.is_empty())
        .unwrap_or(word);
    let map = synonym_stems();
    if let Some(canon) = map.get(word) {
        return canon.clone();
    }
    let stem = stemmer().stem(word).into_owned();
    map.get(&stem).cloned().unwrap_or(stem)
}

/// The opposite of a term, both ways round (terms as `term` spells them); `modes` adds the
/// opposites that only tell a tool's modes apart.
pub fn opposite(t: &str, modes: bool) -> Option<&'static str> {
    type Maps = [HashMap<String, String>; 2];
    static MAPS: OnceLock<Maps> = OnceLock::new();
    let maps = MAPS.get_or_init(|| {
        let lex = super::lexicon::get();
        let build = |lists: &[&[(String, String)]]| {
            let mut map = HashMap::new();
            for (a, b) in lists.iter().copied().flatten() {
                map.insert(term(a), term(b));
                map.insert(term(b), term(a));
            }
            map
        };
        [
            build(&[&lex.opposites]),
            build(&[&lex.opposites, &lex.mode_opposites]),
        ]
    });
    maps[modes as usize].get(t).map(String::as_str)
}

fn two_for_to() -> &'static regex::Regex {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"\b([a-z]{2,})2([a-z]{2,})\b").expect("valid pattern"))
}

/// The ordered terms of a text, stop words dropped.
pub fn terms(text: &str) -> Vec<String> {
    let mut words = words(&normalised(text));
    asks_when_made(&mut words);
    words
        .iter()
        .filter(|w| !is_stop_word(w))
        .map(|w| term(w))
        .collect()
}

/// "When was this id created?" asks for the time written in something that exists, not for
/// a new one: after "when" (or "what time", "what date"), the past forms that would fold to
/// "generate" become "timestamp".
fn asks_when_made(words: &mut [String]) {
    let made = &super::lexicon::get().actions.made;
    let asked = words.iter().position(|w| w == "when").or_else(|| {
        words
            .windows(2)
            .position(|w| w[0] == "what" && matches!(w[1].as_str(), "time" | "date" | "day"))
            .map(|at| at + 1)
    });
    let Some(when) = asked else {
        return;
    };
    for w in &mut words[when + 1..] {
        if made.contains(w) {
            *w = "timestamp".to_string();
        }
    }
}

/// The formats or forms a text names as what it wants ("… in binary", "to snake_case",
/// "as yaml") and as what it has ("from hex"): the phrase after the marker word, which `terms`
/// would drop as a stop word ("in") or keep without its role, and around "of" ("the code
/// points of these characters"); and whether it asks about something it has ("is this …").
pub fn marks(text: &str) -> Marks {
    let mut marks = Marks::default();
    let text = normalised(text).replace(". ", ", ");
    // A phrase ends with its clause: "42 in binary, from hex".
    for clause in text.split([',', ';', '?', '!']) {
        let words = words(clause);
        for (i, marker) in words.iter().enumerate() {
            let (side, past_article) = match marker.as_str() {
                // "in this file" is where, not what: only the next word counts after "in".
                "in" => (&mut marks.targets, false),
                "to" | "into" | "as" => (&mut marks.targets, true),
                "from" => (&mut marks.sources, true),
                _ => continue,
            };
            side.extend(phrase(&words[i + 1..], past_article));
        }
        // "the code points of these characters": what is wanted comes before "of", what is
        // given after it.
        for (i, _) in words.iter().enumerate().filter(|(_, w)| *w == "of") {
            let before = words[..i].iter().rev().take_while(|w| in_phrase(w)).take(2);
            marks.targets.extend(before.map(|w| term(w)));
            marks.sources.extend(phrase(&words[i + 1..], true));
        }
        // "check whether this uuid is a v7": a question about something given, like "is this".
        marks.asks_about_given |= words.iter().any(|w| w == "whether");
        marks.asks_about_given |= words.windows(2).any(|w| {
            matches!(
                (w[0].as_str(), w[1].as_str()),
                ("is" | "was", "this" | "that" | "it") | ("are" | "were", "these" | "those")
            )
        });
    }
    marks
}

/// The phrase a marker marks, as terms: past an article when `past_article` ("as shift_jis
/// bytes", "into a real url"), up to the next stop word or marker, at most `MARKED_WORDS`.
fn phrase(after: &[String], past_article: bool) -> impl Iterator<Item = String> + '_ {
    after
        .iter()
        .skip_while(move |w| past_article && super::lexicon::get().marks.determiners.contains(w))
        .take_while(|w| in_phrase(w))
        .take(MARKED_WORDS)
        .map(|w| term(w))
}

/// Whether a word can be part of a marked phrase: not a stop word nor another marker.
fn in_phrase(w: &str) -> bool {
    let marks = &super::lexicon::get().marks;
    !is_stop_word(w) && !marks.targets.iter().chain(&marks.sources).any(|m| m == w)
}

/// At most this many words after a marker are marked: "to snake_case", "as shift_jis bytes"
/// (the train split's mode choices were flat from 3 to 6 words, one fewer at 2).
const MARKED_WORDS: usize = 3;

/// See [`marks`].
#[derive(Debug, Default, Clone)]
pub struct Marks {
    pub targets: Vec<String>,
    pub sources: Vec<String>,
    /// The request asks about something it has ("is this id a v4 or a v1 guid?"), pasted or
    /// not: it is to be read, not made.
    pub asks_about_given: bool,
}

/// Lowercased, with "json2yaml" spelt out and multi-word expressions folded (the lexicon's
/// phrases and the tools' own).
fn normalised(text: &str) -> String {
    let mut text = text.to_lowercase();
    // "json2yaml", "yml2json": the digit stands for "to".
    if text.contains('2') {
        text = two_for_to().replace_all(&text, "$1 to $2").into_owned();
    }
    for (from, to) in &super::lexicon::get().phrases {
        if text.contains(from.as_str()) {
            text = text.replace(from.as_str(), &format!(" {to} "));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposites_meet_on_terms_both_ways() {
        assert_eq!(
            opposite(&term("encoding"), false),
            Some(term("decode").as_str())
        );
        assert_eq!(
            opposite(&term("beautify"), false),
            Some(term("minify").as_str())
        );
        assert_eq!(
            opposite(&term("unescape"), true),
            Some(term("escape").as_str())
        );
        assert_eq!(opposite(&term("json"), true), None);
        assert_eq!(opposite(&term("create"), false), None);
        assert_eq!(
            opposite(&term("create"), true),
            Some(term("validate").as_str())
        );
    }

    #[test]
    fn marks_name_what_a_request_wants_and_has() {
        let m = marks("what is 42 in binary, from hex? write it in dots and dashes");
        assert_eq!(m.targets, vec!["binari", "mors"]);
        assert_eq!(m.sources, vec!["hex"]);
        assert!(marks("find it in this file").targets.is_empty());
        assert_eq!(
            marks("turn it into a real url").targets,
            vec!["real", "url"]
        );
        assert_eq!(
            marks("encode this as shift_jis bytes").targets,
            vec!["shift", "jis", "byte"]
        );
        assert!(marks("is this id a v4 or a v1 guid?").asks_about_given);
        assert!(!marks("generate a v4 guid").asks_about_given);
        assert!(marks("made from a MAC and a clock, or is it random?").asks_about_given);
        let m = marks("the unicode code points of these characters");
        assert_eq!(m.targets, vec!["codepoint", "unicod"]);
        assert_eq!(m.sources, vec!["charact"]);
    }

    #[test]
    fn plurals_verb_forms_and_synonyms_meet() {
        assert_eq!(terms("Generating UUIDs"), terms("generate uuid"));
        assert_eq!(terms("beautify the JSON"), terms("prettify json"));
        assert_eq!(terms("beautifying json"), terms("prettify json"));
        assert_eq!(terms("how many words"), terms("count words"));
        assert_eq!(terms("get rid of the numbers"), terms("remove the numbers"));
        assert_eq!(terms("a list of dicts"), terms("a array of objects"));
        assert_eq!(
            terms("flip every bit of 0x0F"),
            terms("invert bits of 0x0F")
        );
        assert_eq!(terms("how far apart are they"), terms("distance are they"));
        assert_eq!(terms("base64 encode hello world"), terms("base64 encode"));
        assert_eq!(
            terms("when was this ulid created"),
            terms("when was this ulid timestamp")
        );
        assert_eq!(
            terms("at what time was this generated"),
            terms("at what time was this timestamp")
        );
        assert_eq!(
            terms("when will you create a ulid"),
            terms("when generate ulid")
        );
        assert_eq!(
            terms("convert yaml into json"),
            vec!["convert", "yaml", "to", "json"]
        );
        assert_eq!(
            words("don't split base64, sha-256!"),
            vec!["don't", "split", "base64", "sha", "256"]
        );
    }
}
