//! Recognising data pasted into a request ("decode eyJhbGci…", "what date is 1700000000").
//!
//! A recognised sample is cut out of the text (its characters say nothing about the tool) and
//! replaced by the words that name what it is, which then match tools that mention them. What
//! each kind of sample looks like is data: resolver/detectors.toml.

use super::checks::{self, Check};
use regex::Regex;
use serde::{Deserialize, Deserializer};
use std::sync::OnceLock;

/// resolver/detectors.toml (its header describes the fields).
#[derive(Deserialize)]
#[cfg_attr(test, serde(deny_unknown_fields))]
pub(super) struct Data {
    detector: Vec<Detector>,
    pub(super) words: Words,
}

#[derive(Deserialize)]
#[cfg_attr(test, serde(deny_unknown_fields))]
pub(super) struct Words {
    pub(super) nato: Vec<String>,
    pub(super) caesar_common: Vec<String>,
    pub(super) caesar_asks: Vec<String>,
    file_extensions: Vec<String>,
}

#[derive(Deserialize)]
#[cfg_attr(test, serde(deny_unknown_fields))]
struct Detector {
    kind: String,
    pattern: String,
    /// Compiled on first use: most requests hold none of the data most detectors look for, and
    /// compiling all of them took a third of a warm `cmpx resolve`.
    #[serde(skip)]
    re: OnceLock<Regex>,
    concepts: Vec<String>,
    #[serde(default)]
    any: Vec<String>,
    #[serde(default, deserialize_with = "named_check")]
    gate: Option<Check>,
    #[serde(default, deserialize_with = "named_check")]
    check: Option<Check>,
    #[serde(default)]
    keeps_words: bool,
    #[serde(default)]
    implies: Vec<String>,
    #[cfg(test)]
    positive: Vec<String>,
    #[cfg(test)]
    #[serde(default)]
    negative: Vec<String>,
}

/// An unknown name fails the parse, which a test does.
fn named_check<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Check>, D::Error> {
    let name = String::deserialize(d)?;
    checks::named(&name)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("no check named {name}")))
}

/// Parsed on first use; the tests parse it, so a malformed file never ships.
pub(super) fn data_file() -> &'static Data {
    static D: OnceLock<Data> = OnceLock::new();
    D.get_or_init(|| {
        toml::from_str(include_str!("../../resolver/detectors.toml"))
            .expect("resolver/detectors.toml parses (tested)")
    })
}

impl Detector {
    /// Whether the lowercased request may hold a match: the gates spare compiling the pattern.
    fn may_match(&self, lower: &str) -> bool {
        self.gate.is_none_or(|g| g(lower))
            && (self.any.is_empty() || self.any.iter().any(|n| lower.contains(n.as_str())))
    }

    fn regex(&self) -> &Regex {
        self.re.get_or_init(|| {
            let pattern = self
                .pattern
                .replace("{nato}", &data_file().words.nato.join("|"));
            Regex::new(&pattern).unwrap_or_else(|e| panic!("detector {}: {e}", self.kind))
        })
    }
}

/// Adds each of `items` not yet in `list`, in order.
fn add_new<'a>(list: &mut Vec<&'a str>, items: impl IntoIterator<Item = &'a String>) {
    for item in items {
        if !list.contains(&item.as_str()) {
            list.push(item);
        }
    }
}

/// A match without the space or quote before it (a cron line in backticks).
fn sample_text(m: &str) -> &str {
    let m = m.trim();
    if m.starts_with(['`', '\'', '"']) {
        m.trim_matches(['`', '\'', '"'])
    } else {
        m
    }
}

/// Quoted payloads ('…', "…", `…`) are data, not words about the tool. A quote must open after
/// a space or punctuation and close before one, so "what's" and "don't" are not quotes.
fn quoted() -> &'static Regex {
    static Q: OnceLock<Regex> = OnceLock::new();
    Q.get_or_init(|| {
        Regex::new(
            r#"(?s)(?:^|[\s(\[{:=,])(?:"[^"\n]+"|'[^'\n]+'|`[^`]+`|“[^”]+”)(?:$|[\s)\]}.,;:!?])"#,
        )
        .expect("valid quote pattern")
    })
}

/// The files a request names, in order, each once: a word that looks like a file name (a known
/// extension, as in `file_name`), or names a file that exists here (`Makefile`, `./run`).
/// Quotes and punctuation around the word are not part of it.
pub fn named_files(request: &str) -> Vec<String> {
    static F: OnceLock<Regex> = OnceLock::new();
    let looks = F.get_or_init(|| {
        Regex::new(&format!(
            r"(?i)^(?:[\w.~-]*/)*[\w~-][\w.-]*\.(?:{})$",
            data_file().words.file_extensions.join("|")
        ))
        .expect("valid file name pattern")
    });
    let mut out: Vec<String> = Vec::new();
    for word in request.split_whitespace() {
        let word = word
            .trim_start_matches(|c: char| "([{<'\"`“‘".contains(c))
            .trim_end_matches(|c: char| ")]}>'\"`”’,;:!?.".contains(c));
        // `@data.json` is already the file's content, as an agent writes it.
        let word = word.strip_prefix('@').unwrap_or(word);
        if word.is_empty() {
            continue;
        }
        let exists = || {
            (word.contains('/') || word.contains('.') || word.chars().any(|c| c.is_uppercase()))
                && std::path::Path::new(word).is_file()
        };
        if (looks.is_match(word) || exists()) && !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

/// A file name or path ending in an extension people name files by, with what comes before it.
fn file_name() -> &'static Regex {
    static F: OnceLock<Regex> = OnceLock::new();
    F.get_or_init(|| {
        Regex::new(&format!(
            r"(?i)(?P<lead>^|[\s(\[,:=])(?:[\w.~-]*/)*[\w~-][\w.-]*\.(?P<ext>{})\b(?P<tail>$|[\s)\],.;:!?'\x22])",
            data_file().words.file_extensions.join("|")
        ))
        .expect("valid file name pattern")
    })
}

/// What a request looks like once samples are recognised: the remaining text and the concepts.
#[derive(Debug, Default, PartialEq)]
pub struct Scrubbed {
    pub text: String,
    pub concepts: Vec<&'static str>,
    /// The pasted data itself (samples and quoted text), in order of appearance.
    pub data: Vec<String>,
    /// Values the request carries without naming them (a ten-digit time is in seconds).
    pub values: Vec<&'static str>,
}

pub fn scrub(request: &str) -> Scrubbed {
    scrub_gated(request, true)
}

fn scrub_gated(request: &str, gated: bool) -> Scrubbed {
    let mut text = request.to_string();
    let mut lower = text.to_ascii_lowercase();
    let (mut concepts, mut values) = (Vec::new(), Vec::new());
    let mut data: Vec<(usize, String)> = Vec::new();
    for d in &data_file().detector {
        if gated && !d.may_match(&lower) {
            continue;
        }
        let found: Vec<(usize, usize)> = d
            .regex()
            .find_iter(&text)
            .filter(|m| d.check.is_none_or(|ok| ok(m.as_str().trim())))
            .map(|m| (m.start(), m.end()))
            .collect();
        if found.is_empty() {
            continue;
        }
        add_new(&mut concepts, &d.concepts);
        add_new(&mut values, &d.implies);
        data.extend(
            found
                .iter()
                .map(|&(s, e)| (s, sample_text(&text[s..e]).to_string())),
        );
        let mut rest = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e) in found {
            rest.push_str(&text[at..s]);
            rest.push(' ');
            if d.keeps_words {
                // "I'm" stays one word, as the tokeniser reads it.
                let letters = |c: char| c.is_alphabetic() || c == '\'' || c == '’';
                for w in text[s..e]
                    .split(|c: char| !c.is_alphanumeric() && !letters(c))
                    .filter(|w| w.chars().any(char::is_alphabetic) && w.chars().all(letters))
                {
                    rest.push_str(w);
                    rest.push(' ');
                }
                // An operator written as symbols names the operation as its words would.
                for (symbol, words) in [("<<", "shift left "), (">>", "shift right ")] {
                    if text[s..e].contains(symbol) {
                        rest.push_str(words);
                    }
                }
            }
            at = e;
        }
        rest.push_str(&text[at..]);
        text = rest;
        lower = text.to_ascii_lowercase();
    }
    if let Some((s, e, k)) = super::shifted::find(&text) {
        // Shifted English is a message to decipher: ROT13 when shifted by thirteen.
        let named = if k == 13 { "rot13" } else { "caesar" };
        if !concepts.contains(&named) {
            concepts.push(named);
        }
        data.push((s, text[s..e].to_string()));
        text = format!("{} {}", &text[..s], &text[e..]);
    }
    if text.contains('.') {
        // "docker-compose.override.yml", "src/settings.json": a file's name says nothing about
        // the tool; that there is a file, and what its extension says it holds, do.
        text = file_name()
            .replace_all(&text, "${lead} file ${ext} ${tail}")
            .into_owned();
    }
    for m in quoted().find_iter(&text) {
        let inner = m
            .as_str()
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric() && !"'\"`\u{201c}\u{201d}".contains(c));
        let inner = inner.trim_matches(['\'', '"', '`', '\u{201c}', '\u{201d}']);
        data.push((m.start(), inner.to_string()));
    }
    text = quoted().replace_all(&text, " ").into_owned();
    data.sort_by_key(|(at, _)| *at);
    Scrubbed {
        text,
        concepts,
        values,
        data: data
            .into_iter()
            .map(|(_, d)| d)
            .filter(|d| !d.is_empty())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::{data_file, scrub, scrub_gated};

    #[test]
    fn every_detector_fires_on_its_positives_and_not_on_its_negatives() {
        let data = data_file();
        let mut kinds: Vec<&str> = data.detector.iter().map(|d| d.kind.as_str()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), data.detector.len(), "kinds are unique");
        let mut failures = Vec::new();
        for d in &data.detector {
            // Compiles, or names the detector that does not.
            let re = d.regex();
            assert!(!d.positive.is_empty(), "{}: no positive example", d.kind);
            let has_gate = d.gate.is_some() || d.check.is_some() || !d.any.is_empty();
            assert!(
                !has_gate || !d.negative.is_empty(),
                "{}: no negative",
                d.kind
            );
            assert!(d.any.iter().all(|n| *n == n.to_lowercase()), "{}", d.kind);
            // Fired: its own pattern and check accept a match, and its concepts are found
            // (another detector's concepts alone do not count).
            let fires = |text: &str| {
                let own = re
                    .find_iter(text)
                    .any(|m| d.check.is_none_or(|ok| ok(m.as_str().trim())));
                let found = scrub(text).concepts;
                own && d.concepts.iter().all(|c| found.contains(&c.as_str()))
            };
            for text in &d.positive {
                if !fires(text) {
                    failures.push(format!("{} misses {text:?}", d.kind));
                }
            }
            for text in &d.negative {
                let found = scrub(text).concepts;
                if d.concepts.iter().all(|c| found.contains(&c.as_str())) {
                    failures.push(format!("{} fires on {text:?}", d.kind));
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn word_lists_are_sorted_and_unique() {
        let words = &data_file().words;
        for (name, list) in [
            ("nato", &words.nato),
            ("caesar_common", &words.caesar_common),
            ("caesar_asks", &words.caesar_asks),
            ("file_extensions", &words.file_extensions),
        ] {
            // `shifted::common` searches its list by halves.
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{name}");
        }
        // Joined into regex alternations as they are.
        assert!(
            (words.nato.iter().chain(&words.file_extensions))
                .all(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        );
    }

    #[test]
    fn a_time_in_seconds_or_milliseconds_carries_its_unit() {
        assert_eq!(scrub("what date is 1700000000").values, ["seconds"]);
        assert_eq!(
            scrub("is 1718035200123 after 1700000000").values,
            ["seconds", "milliseconds"]
        );
        assert!(scrub("sort these lines").values.is_empty());
    }

    #[test]
    fn gates_never_skip_a_detector_that_would_match() {
        // Every labelled request, positive or negative, scrubs the same with and without the
        // gates that spare compiling detectors.
        let mut texts: Vec<String> = Vec::new();
        for file in [
            include_str!("../../tests/data/resolve-requests.json"),
            include_str!("../../tests/data/resolve-requests-2a.json"),
            include_str!("../../tests/data/resolve-requests-2b.json"),
            include_str!("../../tests/data/resolve-requests-3.json"),
        ] {
            let doc: serde_json::Value = serde_json::from_str(file).unwrap();
            for list in doc.as_object().unwrap().values() {
                for item in list.as_array().into_iter().flatten() {
                    let text = item.as_str().or_else(|| item["text"].as_str());
                    texts.extend(text.map(str::to_string));
                }
            }
        }
        assert!(texts.len() > 1000, "{}", texts.len());
        texts.extend(
            [
                "what is ٣٤٥ in hex",
                "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
                "DRWXR-XR-X what does it mean",
                "drwxrwxrwx",
                "MON-FRI JAN FEB MAR APR",
                "SELECT * FROM t",
                "ESC[1;31m red",
                "\\U0001F600",
            ]
            .map(String::from),
        );
        for text in &texts {
            assert_eq!(scrub_gated(text, true), scrub_gated(text, false), "{text}");
        }
    }

    #[test]
    fn roman_numerals_object_ids_and_millisecond_times_are_samples() {
        assert_eq!(
            scrub("MCMLXXXIV as a number").concepts,
            vec!["roman", "numeral"]
        );
        assert_eq!(scrub("MMXXIV").concepts, vec!["roman", "numeral"]);
        // Not canonical, or short enough to be an abbreviation.
        for text in ["XIIII in decimal", "MDCM", "the CLI prints MD", "VIVID"] {
            assert!(scrub(text).concepts.is_empty(), "{text}");
        }
        assert_eq!(
            scrub("what date is 1718035200123?").concepts,
            vec!["timestamp", "milliseconds"]
        );
        assert_eq!(scrub("what date is 1718035200").concepts, vec!["timestamp"]);
        assert_eq!(
            scrub("_id 64b7f3a2c9e77a1d2f0a1b2c created when").concepts,
            vec!["objectid"]
        );
        // 24 hex digits that start far from any plausible creation time are just hex.
        assert_eq!(scrub("ffb7f3a2c9e77a1d2f0a1b2c").concepts, vec!["hex"]);
    }

    #[test]
    fn html_unpadded_base32_and_shifts_are_told_apart() {
        assert_eq!(
            scrub("escape <script>alert(1)</script> now").concepts,
            vec!["html"]
        );
        assert_eq!(
            scrub("pretty print <a><b x=\"1\">t</b></a>").concepts,
            vec!["xml"]
        );
        // A link is HTML, even once its address is cut out as a URL.
        assert_eq!(
            scrub("as plain text: <p>Hi <a href=\"https://x.example/1\">#1</a></p>").concepts,
            vec!["url", "html"]
        );
        assert_eq!(
            scrub("what <meta> tags do I need").concepts,
            Vec::<&str>::new()
        );
        assert_eq!(
            scrub("secret JBSWY3DPEHPK3PXP in hex").concepts,
            vec!["base32"]
        );
        // Not whole blocks of eight, or no digit.
        assert!(scrub("JBSWY3DPEHPK3PX").concepts.is_empty());
        assert!(scrub("ABCDEFGHABCDEFGH").concepts.is_empty());
        let s = scrub("what is 1 << 40");
        assert_eq!(s.concepts, vec!["bitwise"]);
        assert_eq!(
            s.text.split_whitespace().collect::<Vec<_>>(),
            ["what", "is", "shift", "left"]
        );
        assert_eq!(
            scrub("what's 255 written in binary").concepts,
            vec!["decimal", "number", "base"]
        );
    }

    #[test]
    fn percent_encoding_takes_its_whole_token() {
        let s = scrub("url decode hello%20world%3F now");
        assert_eq!(s.concepts, vec!["url", "encode"]);
        assert_eq!(s.data, vec!["hello%20world%3F"]);
        assert_eq!(
            s.text.split_whitespace().collect::<Vec<_>>(),
            ["url", "decode", "now"]
        );
    }

    #[test]
    fn named_files_are_the_words_that_look_like_or_are_files() {
        assert_eq!(super::named_files("diff a.txt b.txt"), ["a.txt", "b.txt"]);
        assert_eq!(
            super::named_files("count rows in 'data.csv', then sort ./out/data.csv."),
            ["data.csv", "./out/data.csv"]
        );
        assert_eq!(super::named_files("pretty print @data.json"), ["data.json"]);
        // Domains, versions and plain words are not files (unless one exists here).
        assert!(super::named_files("punycode of münchen.de v1.2.3 json").is_empty());
        assert_eq!(
            super::named_files("hash Cargo.lock and src"),
            ["Cargo.lock"]
        );
    }

    #[test]
    fn a_file_name_leaves_the_word_file_and_its_extension() {
        let words = |t: &str| {
            scrub(t)
                .text
                .split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words("where is docker-compose.override.yml?"),
            ["where", "is", "file", "yml", "?"]
        );
        assert_eq!(
            words("convert src/config/settings.json, then"),
            ["convert", "file", "json", ",", "then"]
        );
        assert_eq!(words("(inventory.txt)"), ["(", "file", "txt", ")"]);
        // Domains, versions and quoted names are left alone.
        assert_eq!(
            words("punycode of münchen.de"),
            ["punycode", "of", "münchen.de"]
        );
        assert_eq!(
            words("bump to 1.2.3 on example.com"),
            ["bump", "to", "1.2.3", "on", "example.com"]
        );
        assert_eq!(scrub("hash 'notes.txt'").data, vec!["notes.txt"]);
    }

    #[test]
    fn recognises_pasted_samples() {
        let s = scrub("decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc please");
        assert_eq!(s.concepts, vec!["jwt"]);
        assert!(!s.text.contains("eyJ"));
        assert_eq!(scrub("what date is 1700000000").concepts, vec!["timestamp"]);
        assert_eq!(
            scrub("*/5 * * * * what does it mean").concepts,
            vec!["cron"]
        );
        let quoted = scrub("does schedule `30 2 * * 0` run nightly?");
        assert_eq!(
            (quoted.concepts, quoted.data),
            (vec!["cron"], vec!["30 2 * * 0".into()])
        );
        assert_eq!(
            scrub("decode 93 48 65 6C 6F 94 as Windows-1252").concepts,
            vec!["bytes"]
        );
        // Bare numbers are bytes or codes, not a schedule.
        assert!(
            !scrub("starts with 50 4B 03 04 14 00 06 00")
                .concepts
                .contains(&"cron")
        );
        assert_eq!(
            scrub("convert 0xff to decimal").concepts,
            vec!["number", "base", "hex"]
        );
        assert_eq!(scrub(r#"{"a":1} make it readable"#).concepts, vec!["json"]);
        let s = scrub(r#"{"a":1,"b":{"c":[1,2,3]}} make it readable"#);
        assert_eq!(
            (s.concepts, s.text.trim()),
            (vec!["json"], "make it readable")
        );
        assert_eq!(scrub("sha256 of 'hello world'").text.trim(), "sha256 of");
        assert_eq!(scrub("sha256 of 'hello world'").data, vec!["hello world"]);
        assert_eq!(scrub("what date is 1700000000").data, vec!["1700000000"]);
        assert_eq!(
            scrub("What's the blake2b checksum of 'abc'?").text.trim(),
            "What's the blake2b checksum of"
        );
        assert!(scrub("generate a uuid").concepts.is_empty());
        assert_eq!(
            scrub("what does 'Whiskey Hotel Oscar Alpha Mike India' spell").concepts,
            vec!["nato"]
        );
        // An IBAN is told from a hex string by its mod-97 check, spaced or not.
        assert_eq!(
            scrub("is DE89370400440532013000 valid?").concepts,
            vec!["iban"]
        );
        assert_eq!(scrub("GB82 WEST 1234 5698 7654 32").concepts, vec!["iban"]);
        assert_ne!(
            scrub("is DE89370400440532013001 valid?").concepts,
            vec!["iban"]
        );
        assert_eq!(
            scrub("check against $scrypt$ln=15,r=8,p=1$aM15713r3X$nFNh2CVH").concepts,
            vec!["scrypt", "hash"]
        );
        assert_eq!(
            scrub("id,name\n1,alice\n2,bob -> json").concepts,
            vec!["csv"]
        );
        assert_eq!(
            scrub("key: value\nlist:\n  - a\n  - b\nturn that into JSON").concepts,
            vec!["yaml"]
        );
        assert_eq!(
            scrub("# Title\n\n**bold** text -> give me the HTML").concepts,
            vec!["markdown"]
        );
        assert!(scrub("sort these lines").concepts.is_empty());
        assert_eq!(
            scrub("my API returns 422, what is that").concepts,
            vec!["http", "status"]
        );
        assert_eq!(scrub("-rw-r--r-- as a number?").concepts, vec!["chmod"]);
        assert_eq!(
            scrub("compute sin(pi/4) * 2").concepts,
            vec!["math", "calculate"]
        );
        assert!(scrub("give me 500 words").concepts.is_empty());
        assert!(scrub("char codes 72 101 108 108 111").concepts.is_empty());
        assert_eq!(scrub("decode ... --- ...").concepts, vec!["morse"]);
        assert!(scrub("wait... what - no").concepts.is_empty());
        assert_eq!(scrub("0xF0 AND 0x3C").concepts, vec!["bitwise"]);
        // The operator is a word about the operation, not data.
        assert_eq!(
            scrub("what is 0b1100 XOR 0b1010?")
                .text
                .split_whitespace()
                .collect::<Vec<_>>(),
            vec!["what", "is", "XOR", "?"]
        );
        assert_eq!(scrub("1 << 12").concepts, vec!["bitwise"]);
        assert!(!scrub("between 5 and 10").concepts.contains(&"bitwise"));
        assert_eq!(
            scrub("compute pow(4, 13, 497)").concepts,
            vec!["modular", "exponentiation"]
        );
        assert_eq!(
            scrub("51.5074,-0.1278 to 48.8566,2.3522").concepts,
            vec!["latitude", "longitude"]
        );
        assert!(scrub("version 99.123,400.5").concepts.is_empty());
        assert_eq!(scrub("expand 2001:db8::1").concepts, vec!["ipv6"]);
        assert!(scrub("use std::fs and 10:30:00").concepts.is_empty());
        assert_eq!(
            scrub("00-1A-2B-3C-4D-5E to colons").concepts,
            vec!["mac", "address"]
        );
        assert_eq!(
            scrub("decode 01ARZ3NDEKTSV4RRFFQ69G5FAV").concepts,
            vec!["ulid"]
        );
        assert_eq!(scrub("decode gAAAAABlx3k2aQ9...").concepts[0], "fernet");
        assert_eq!(
            scrub("what is xn--bcher-kva.example").concepts,
            vec!["punycode"]
        );
        assert_eq!(
            scrub(r"unescape \u00e9\u00e8").concepts,
            vec!["unicode", "escape"]
        );
        assert_eq!(scrub("clean ^[[0;31m out").concepts, vec!["ansi", "escape"]);
        assert_eq!(
            scrub("s/teh/the/g please").concepts,
            vec!["find", "replace"]
        );
        assert_eq!(scrub("what does //a/@href return").concepts, vec!["xpath"]);
        assert!(scrub("back up /var/www nightly").concepts.is_empty());
        assert_eq!(scrub("parse '2h 15m'").concepts, vec!["duration"]);
        assert_eq!(scrub("what is 7b226964223a20317d").concepts, vec!["hex"]);
        assert_eq!(
            scrub("What's rgb(34, 139, 34) in HSL?").concepts,
            vec!["color", "rgb"]
        );
        assert_eq!(
            scrub("brand color #FF5733 as cmyk").concepts,
            vec!["color", "hex"]
        );
        assert_eq!(scrub("lighten #fff").concepts, vec!["color", "hex"]);
        assert_eq!(
            scrub("hsl(210, 50%, 40%) to hex").concepts,
            vec!["color", "hsl"]
        );
        assert!(scrub("fix issue #123").concepts.is_empty());
        assert_eq!(
            scrub("the secret is dXNlcm5hbWU=, what does it say").concepts,
            vec!["base64"]
        );
        assert_eq!(
            scrub("I have U+1F600 U+2764").concepts,
            vec!["unicode", "codepoint"]
        );
        assert!(scrub("set password= in the config").concepts.is_empty());
        assert!(scrub("what day was 2024-03-15").concepts.is_empty());
        assert_eq!(
            scrub("decode https://nam12.safelinks.protection.outlook.com/?url=x").concepts[0],
            "safelink"
        );
    }

    /// Kinds of sample no catalogue tool takes as input, each with the reason (none today:
    /// a detector for data nothing reads only steers requests away from the right tool).
    const UNREAD: &[(&str, &str)] = &[];

    #[test]
    fn every_sample_kind_is_read_by_a_tool_that_says_its_concepts() {
        use std::collections::{BTreeMap, BTreeSet, HashSet};
        #[derive(serde::Deserialize)]
        struct File {
            detector: Vec<Kind>,
        }
        #[derive(serde::Deserialize)]
        struct Kind {
            kind: String,
            concepts: Vec<String>,
        }
        let file: File = toml::from_str(include_str!("../../resolver/detectors.toml")).unwrap();
        let concepts: BTreeMap<&str, &[String]> = file
            .detector
            .iter()
            .map(|d| (d.kind.as_str(), d.concepts.as_slice()))
            .collect();
        let mut read = BTreeSet::new();
        let mut failures = Vec::new();
        for src in crate::catalogue::contract_sources() {
            let contract: crate::contract::Contract = serde_json::from_str(src.text).unwrap();
            if contract.resolve.reads.is_empty() {
                continue;
            }
            let def = crate::catalogue::get(src.id()).unwrap();
            let p = super::super::folders::prepare(
                &crate::cmp::mapping::manifest(&def),
                &crate::cmp::mapping::capability(&def),
            );
            let mut own: HashSet<String> = p.weak.into_iter().collect();
            for intent in p.intents {
                for t in intent {
                    if let super::super::folders::Tokens::Terms(t) = t {
                        own.extend(t);
                    }
                }
            }
            for kind in &contract.resolve.reads {
                let Some(words) = concepts.get(kind.as_str()) else {
                    failures.push(format!(
                        "{}: reads {kind}, which no detector finds",
                        src.id()
                    ));
                    continue;
                };
                read.insert(kind.as_str().to_string());
                // The detector reaches the tool only through the words it stands for.
                if !words
                    .iter()
                    .any(|c| own.contains(&crate::resolve::text::term(c)))
                {
                    failures.push(format!(
                        "{}: reads {kind}, but its own words use none of {words:?}",
                        src.id()
                    ));
                }
            }
        }
        for kind in concepts.keys() {
            let allowed = UNREAD.iter().any(|(k, _)| k == kind);
            if read.contains(*kind) == allowed {
                failures.push(if allowed {
                    format!("{kind}: listed as unread, but a tool reads it")
                } else {
                    format!("{kind}: no tool reads it")
                });
            }
        }
        for (kind, _) in UNREAD {
            if !concepts.contains_key(kind) {
                failures.push(format!(
                    "{kind}: listed as unread, but no detector finds it"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
