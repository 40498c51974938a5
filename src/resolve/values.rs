//! The values a request names or implies ("SHA-256", "md5", a 10-digit time in seconds) held
//! against the values a tool's modes fix and its parameters offer: a mode that fixes another
//! value than the one asked for is not the one meant, and the value named fills the parameter.

use crate::cmp::{Capability, ParamSpec};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// One choice parameter of a tool (from its general intent): its name and its options,
/// spelt as `spelling` spells them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Choice {
    pub param: String,
    pub options: Vec<String>,
}

/// A value compared as people write it in any of its forms: "SHA-256", "sha256" and
/// "sha 256" are one value, as are "dotnet-ticks" and "DotNet Ticks".
pub fn spelling(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The tool's choice parameters: those of its first intent that offer a list of values.
pub fn choices(cap: &Capability) -> Vec<Choice> {
    let Some(general) = cap.intents.first() else {
        return Vec::new();
    };
    general
        .params
        .iter()
        .filter_map(|(name, spec)| {
            let options: Vec<String> = spec
                .enum_values
                .as_ref()?
                .iter()
                .filter_map(|v| v.as_str().map(spelling))
                .collect();
            (!options.is_empty()).then(|| Choice {
                param: name.clone(),
                options,
            })
        })
        .collect()
}

/// What an intent's command fixes of the tool's choices (`--unit=milliseconds`), as
/// (choice, option) positions.
pub fn fixed(command: &str, choices: &[Choice]) -> Vec<(u32, u32)> {
    command
        .split_whitespace()
        .filter_map(|w| {
            let (name, value) = w.strip_prefix("--")?.split_once('=')?;
            let c = choices.iter().position(|c| c.param == name)?;
            let o = choices[c]
                .options
                .iter()
                .position(|o| *o == spelling(value))?;
            Some((c as u32, o as u32))
        })
        .collect()
}

/// The values a request writes out, spelt for comparison: each word (with the hyphens and
/// slashes inside it), as written and as its term ("md5sum" is md5), and each word with the
/// next ("sha 256"). Stop words are left out: "all" is an option, not something "hash all of
/// these" asks for.
pub fn written(text: &str) -> Vec<String> {
    let mut out = spelt(text);
    out.sort_unstable();
    out.dedup();
    out
}

/// [`written`], only the values with a digit: names like "sha256", "utf-16" or "ipv6" are
/// values whatever the sentence, where a word like "hash" or "verify" is an option of some
/// tool's `mode` and also just a word ("does the password match this bcrypt hash"). Choosing
/// a mode by the words is the telling words' job (`modes`).
pub fn distinctive(text: &str) -> Vec<String> {
    let mut out = spelt(text);
    out.retain(|v| v.bytes().any(|b| b.is_ascii_digit()));
    out.sort_unstable();
    out.dedup();
    out
}

fn spelt(text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || "-_./".contains(c)))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if super::text::is_stop_word(&w.to_lowercase()) {
            continue;
        }
        out.push(spelling(w));
        out.push(spelling(&super::text::term(&w.to_lowercase())));
        if let Some(next) = words.get(i + 1) {
            out.push(spelling(&format!("{w}{next}")));
        }
    }
    out
}

/// For each of the tool's choices, the options the request asks for: written out, or implied
/// by its data. An option is named only when it is the only one of its choice named ("hex to
/// base64" names two encodings and decides nothing).
pub fn named(choices: &[Choice], written: &[String], implied: &[String]) -> Vec<Option<u32>> {
    choices
        .iter()
        .map(|c| {
            let mut hits = c.options.iter().enumerate().filter(|(_, o)| {
                written.binary_search(o).is_ok() || implied.iter().any(|i| i == *o)
            });
            match (hits.next(), hits.next()) {
                (Some((at, _)), None) => Some(at as u32),
                _ => None,
            }
        })
        .collect()
}

/// How an intent's fixed values meet the request's: +1 for each value it fixes that the
/// request names, -1 for each it fixes where the request names another option.
pub fn agreement(fixed: &[(u32, u32)], named: &[Option<u32>]) -> i32 {
    fixed
        .iter()
        .map(|&(c, o)| match named.get(c as usize).copied().flatten() {
            Some(n) if n == o => 1,
            Some(_) => -1,
            None => 0,
        })
        .sum()
}

/// The choice parameters of an intent that the request names one option of, with that option
/// as the intent spells it: a named value the intent would not otherwise use ("sha384 of
/// file.bin" for a hash tool whose default is sha256). An option two parameters share ("hex"
/// for input and output encodings) fills neither, and one equal to the default is left out.
/// `written` is [`written`] of the request with its samples cut out (`samples::scrub`), taken
/// once for all the candidates.
pub fn fill(params: &IndexMap<String, ParamSpec>, written: &[String]) -> Vec<(String, String)> {
    let options = |spec: &ParamSpec| -> Vec<String> {
        let values = spec.enum_values.iter().flatten();
        values
            .filter_map(|v| v.as_str().map(String::from))
            .collect()
    };
    let named: Vec<(&String, String)> = params
        .iter()
        .filter_map(|(name, spec)| {
            let mut hits = options(spec)
                .into_iter()
                .filter(|o| written.binary_search(&spelling(o)).is_ok());
            match (hits.next(), hits.next()) {
                (Some(o), None) => Some((name, o)),
                _ => None,
            }
        })
        .collect();
    named
        .iter()
        .filter(|(name, o)| {
            let shared = named
                .iter()
                .filter(|(_, other)| spelling(other) == spelling(o));
            let default = params[*name].default.as_ref().and_then(|d| d.as_str());
            shared.count() == 1 && default.is_none_or(|d| spelling(d) != spelling(o))
        })
        .map(|(name, o)| ((*name).clone(), o.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(param: &str, options: &[&str]) -> Choice {
        Choice {
            param: param.into(),
            options: options.iter().map(|o| spelling(o)).collect(),
        }
    }

    #[test]
    fn values_meet_in_any_spelling() {
        let algorithms = [choice(
            "algorithm",
            &["md5", "sha1", "sha256", "sha3-256", "blake2b-512", "all"],
        )];
        let named_in = |text: &str| named(&algorithms, &distinctive(text), &[]);
        assert_eq!(named_in("SHA-256 of report.pdf"), [Some(2)]);
        assert_eq!(named_in("sha 256 of it"), [Some(2)]);
        assert_eq!(named_in("the sha3-256 hash"), [Some(3)]);
        assert_eq!(named_in("BLAKE2b-512 please"), [Some(4)]);
        assert_eq!(named_in("md5sum of setup.iso"), [Some(0)]);
        // "all" is a stop word; two names decide nothing.
        assert_eq!(named_in("hash all of these"), [None]);
        assert_eq!(named_in("md5 or sha1?"), [None]);
        let units = [choice("unit", &["auto", "seconds", "milliseconds"])];
        assert_eq!(named(&units, &[], &["seconds".into()]), [Some(1)]);
        // A word that is an option but no distinctive value names nothing for ranking.
        let modes = [choice("mode", &["hash", "verify"])];
        assert_eq!(
            named(&modes, &distinctive("match this bcrypt hash"), &[]),
            [None]
        );
        assert!(written("match this bcrypt hash").contains(&"hash".to_string()));
    }

    #[test]
    fn a_mode_that_fixes_another_value_disagrees() {
        let c = [choice("unit", &["auto", "seconds", "milliseconds"])];
        let ms = fixed("cmpx run t --input={input} --unit=milliseconds", &c);
        assert_eq!(ms, [(0, 2)]);
        assert_eq!(agreement(&ms, &[Some(1)]), -1);
        assert_eq!(agreement(&ms, &[Some(2)]), 1);
        assert_eq!(agreement(&ms, &[None]), 0);
        assert!(fixed("cmpx run t --unit={unit}", &c).is_empty());
    }
}
