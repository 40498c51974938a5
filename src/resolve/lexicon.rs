//! The resolver's vocabulary rules, read once from resolver/lexicon.toml (embedded at build
//! time) and the catalogue tools' own `resolve.phrases`: stop words, synonyms, phrase
//! rewrites, opposite actions and the words that say whether a request makes or reads.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const SOURCE: &str = include_str!("../../resolver/lexicon.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    stop: Stop,
    opposites: Opposites,
    actions: Actions,
    marks: MarkWords,
    synonyms: BTreeMap<String, String>,
    phrases: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stop {
    words: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Opposites {
    pairs: Vec<[String; 2]>,
    modes: Vec<[String; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Actions {
    pub makes: Vec<String>,
    pub creates: Vec<String>,
    pub only_reads: Vec<String>,
    pub reads: Vec<String>,
    pub made: Vec<String>,
    pub world: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MarkWords {
    pub targets: Vec<String>,
    pub sources: Vec<String>,
    pub determiners: Vec<String>,
}

pub(super) struct Lexicon {
    /// Sorted, for binary search.
    pub stop_words: Vec<String>,
    pub synonyms: BTreeMap<String, String>,
    /// Expression and what it reads as, longest expression first, so that "regular
    /// expressions" is rewritten before "regular expression" could take part of it.
    pub phrases: Vec<(String, String)>,
    pub opposites: Vec<(String, String)>,
    pub mode_opposites: Vec<(String, String)>,
    pub actions: Actions,
    pub marks: MarkWords,
}

/// The lexicon; the embedded file is checked by this module's tests, so a parse failure is a
/// build that never passed them.
pub(super) fn get() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| {
        let file: File = toml::from_str(SOURCE).expect("resolver/lexicon.toml parses");
        let mut phrases: Vec<(String, String)> = file.phrases.into_iter().collect();
        phrases.extend(tool_phrases());
        phrases.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        let pairs = |p: Vec<[String; 2]>| p.into_iter().map(|[a, b]| (a, b)).collect();
        Lexicon {
            stop_words: file.stop.words,
            synonyms: file.synonyms,
            phrases,
            opposites: pairs(file.opposites.pairs),
            mode_opposites: pairs(file.opposites.modes),
            actions: file.actions,
            marks: file.marks,
        }
    })
}

/// Every catalogue tool's own expressions (its contract's `resolve.phrases`). Only the contracts
/// that have some are parsed, and only their `resolve` field is kept: this runs at the start of
/// every resolution, and the rest of a contract is its output schema and examples.
fn tool_phrases() -> Vec<(String, String)> {
    #[derive(Deserialize)]
    struct OnlyResolve {
        #[serde(default)]
        resolve: crate::contract::Resolve,
    }
    crate::catalogue::contract_sources()
        .filter(|s| s.text.contains("\"phrases\""))
        .filter_map(|s| serde_json::from_str::<OnlyResolve>(s.text).ok())
        .flat_map(|c| c.resolve.phrases)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::text;
    use std::collections::HashSet;

    fn sorted_unique(name: &str, list: &[String]) {
        let mut want = list.to_vec();
        want.sort();
        want.dedup();
        assert_eq!(list, want, "{name} is not sorted, or repeats a word");
    }

    fn file() -> File {
        toml::from_str(SOURCE).unwrap()
    }

    #[test]
    fn every_list_is_sorted_and_unique() {
        let f = file();
        sorted_unique("stop.words", &f.stop.words);
        let a = &f.actions;
        for (name, list) in [
            ("actions.makes", &a.makes),
            ("actions.creates", &a.creates),
            ("actions.only_reads", &a.only_reads),
            ("actions.reads", &a.reads),
            ("actions.made", &a.made),
            ("actions.world", &a.world),
            ("marks.targets", &f.marks.targets),
            ("marks.sources", &f.marks.sources),
            ("marks.determiners", &f.marks.determiners),
        ] {
            sorted_unique(name, list);
        }
        for (name, pairs) in [
            ("opposites.pairs", &f.opposites.pairs),
            ("opposites.modes", &f.opposites.modes),
        ] {
            let firsts: Vec<String> = pairs.iter().map(|[a, _]| a.clone()).collect();
            sorted_unique(name, &firsts);
        }
        // The tables are sorted by the parser; a key written twice does not parse.
        assert!(
            toml::from_str::<File>(&SOURCE.replacen("[synonyms]", "[synonyms]\nyml = \"x\"", 1))
                .is_err()
        );
    }

    /// What a rule may point at: a term some catalogue tool's patterns, name, summary or tags
    /// use, or one the resolver's own rules read (direction words, "average", "count").
    fn vocabulary() -> HashSet<String> {
        let mut vocab = HashSet::new();
        for def in crate::catalogue::all() {
            let (m, cap) = (
                crate::cmp::mapping::manifest(def),
                crate::cmp::mapping::capability(def),
            );
            let p = super::super::folders::prepare(&m, &cap);
            vocab.extend(p.weak);
            for intent in p.intents {
                for t in intent {
                    if let super::super::folders::Tokens::Terms(t) = t {
                        vocab.extend(t);
                    }
                }
            }
        }
        vocab
    }

    #[test]
    fn every_right_hand_side_is_in_the_vocabulary() {
        let vocab = vocabulary();
        let lex = get();
        let mut missing = Vec::new();
        for (word, canon) in &lex.synonyms {
            if !vocab.contains(&text::term(canon)) {
                missing.push(format!("synonym {word} = {canon}"));
            }
        }
        for (expr, meaning) in &lex.phrases {
            for t in text::terms(meaning) {
                if !vocab.contains(&t) {
                    missing.push(format!("phrase {expr:?} = {meaning:?} ({t})"));
                }
            }
        }
        // An opposite counts against an intent that says it: one side a tool uses is enough
        // ("deserialize this" against a tool that only says "serialize").
        for (a, b) in lex.opposites.iter().chain(&lex.mode_opposites) {
            if ![a, b].iter().any(|w| vocab.contains(&text::term(w))) {
                missing.push(format!("opposites {a} / {b}"));
            }
        }
        assert!(missing.is_empty(), "not a term any tool uses: {missing:#?}");
    }

    #[test]
    fn a_tools_own_phrases_mean_words_of_that_tool() {
        let mut seen = 0;
        for src in crate::catalogue::contract_sources() {
            let contract: crate::contract::Contract = serde_json::from_str(src.text).unwrap();
            if contract.resolve.phrases.is_empty() {
                continue;
            }
            let def = crate::catalogue::get(src.id()).unwrap();
            let (m, cap) = (
                crate::cmp::mapping::manifest(&def),
                crate::cmp::mapping::capability(&def),
            );
            let p = super::super::folders::prepare(&m, &cap);
            let mut own: HashSet<String> = p.weak.into_iter().collect();
            for intent in p.intents {
                for t in intent {
                    if let super::super::folders::Tokens::Terms(t) = t {
                        own.extend(t);
                    }
                }
            }
            for (expr, meaning) in &contract.resolve.phrases {
                seen += 1;
                let general = file().phrases;
                assert!(
                    !general.contains_key(expr),
                    "{}: {expr:?} is also in resolver/lexicon.toml",
                    src.id()
                );
                for t in text::terms(meaning) {
                    assert!(
                        own.contains(&t),
                        "{}: {expr:?} reads as {meaning:?}, but the tool never says {t:?}",
                        src.id()
                    );
                }
            }
        }
        assert!(seen > 0);
    }
}
