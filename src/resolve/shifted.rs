//! Recognising English written in a Caesar shift ("Wkh hdjoh kdv odqghg", ROT13's "Gur
//! dhvpx oebja sbk"): pasted ciphertext is data, and that it is shifted English names the tool.

/// A common English word (resolver/detectors.toml `caesar_common`): a request's own words are
/// English, so only a run of words that are not English until shifted counts.
fn common(word: &str) -> bool {
    let common = &super::samples::data_file().words.caesar_common;
    common.binary_search_by(|w| w.as_str().cmp(word)).is_ok()
}

/// `word` (lowercase ASCII letters) with each letter moved `k` places along the alphabet.
fn shift(word: &str, k: u8) -> String {
    word.bytes()
        .map(|b| (b'a' + (b - b'a' + k) % 26) as char)
        .collect()
}

/// The byte range of a run of shifted English in `text` and the shift that reads it (the
/// number of places each letter was moved forward: 13 for ROT13, 3 for Caesar's own). At
/// least two words of three letters or more must read as common English under one shift,
/// and half of the run's words, none of them English as written.
pub(super) fn find(text: &str) -> Option<(usize, usize, u8)> {
    let mut words: Vec<(usize, usize, String)> = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_ascii_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                // A word glued to digits or other letters is a name or code, not a message word.
                let next = text[i..].chars().next();
                let before = text[..s].chars().next_back();
                let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                if !glued(next) && !glued(before) {
                    words.push((s, i, text[s..i].to_ascii_lowercase()));
                }
                start = None;
            }
            _ => {}
        }
    }
    if words.len() < 2 {
        return None;
    }
    let asks = &super::samples::data_file().words.caesar_asks;
    let mut best: Option<(usize, usize, u8, usize)> = None;
    for k in 1..26u8 {
        let hits: Vec<usize> = (0..words.len())
            .filter(|&i| {
                let w = &words[i].2;
                !common(w) && common(&shift(w, 26 - k))
            })
            .collect();
        let mut long: Vec<&str> = hits
            .iter()
            .map(|&i| words[i].2.as_str())
            .filter(|w| w.len() >= 3)
            .collect();
        long.sort_unstable();
        long.dedup();
        if long.len() < 2 {
            continue;
        }
        let (first, mut last) = (hits[0], hits[hits.len() - 1]);
        let span = &words[first..=last];
        let plain = span.iter().any(|(_, _, w)| common(w));
        if plain || hits.len() * 2 < span.len() {
            continue;
        }
        // The message goes on over words no list holds ("Wkh iodj lv vkliwhg"), as far as
        // only spaces and sentence punctuation lie between them and no word of a request
        // about it follows ("… decode it").
        let joined = |a: usize, b: usize| {
            text[words[a].1..words[b].0]
                .chars()
                .all(|c| c == ' ' || ",.!?".contains(c))
        };
        while last + 1 < words.len()
            && joined(last, last + 1)
            && !common(&words[last + 1].2)
            && !asks.contains(&words[last + 1].2)
        {
            last += 1;
        }
        if best.is_none_or(|b| hits.len() > b.3) {
            best = Some((words[first].0, words[last].1, k, hits.len()));
        }
    }
    best.map(|(s, e, k, _)| (s, e, k))
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn shifted_english_is_found_with_its_shift() {
        let rot13 = "Gur dhvpx oebja sbk whzcf bire gur ynml qbt";
        assert_eq!(find(rot13), Some((0, rot13.len(), 13)));
        let text = "clue reads 'Wkh hdjoh kdv odqghg' and we don't know the shift";
        let (s, e, k) = find(text).unwrap();
        assert_eq!((&text[s..e], k), ("Wkh hdjoh kdv odqghg", 3));
    }

    #[test]
    fn plain_requests_and_other_ciphers_are_not_shifted_english() {
        for text in [
            "decrypt 'RIJVS UYVJN' with the key KEY",
            "caesar cipher shift 7 on 'attack at dawn'",
            "pretty print this json",
            "uif",
            "convert 1011011101 binray to decimal",
            "what is the sha256 of hello world",
        ] {
            assert_eq!(find(text), None, "{text}");
        }
    }

    #[test]
    fn in_every_labelled_and_probe_request_only_ciphertext_is_found() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts: Vec<String> = Vec::new();
        fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::String(s) => out.push(s.clone()),
                serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
                serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
                _ => {}
            }
        }
        for dir in ["tests/data", "bench/probe"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if name.starts_with("resolve-requests") && name.ends_with(".json") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    strings(&serde_json::from_str(&text).unwrap(), &mut texts);
                } else if name.ends_with(".jsonl") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for line in text.lines().filter(|l| !l.trim().is_empty()) {
                        let v: serde_json::Value = serde_json::from_str(line).unwrap();
                        texts.push(v["text"].as_str().unwrap().to_string());
                    }
                }
            }
        }
        assert!(texts.len() > 5000, "{}", texts.len());
        let mut found: Vec<&str> = texts
            .iter()
            .filter_map(|t| find(t).map(|(s, e, _)| &t[s..e]))
            .collect();
        found.sort_unstable();
        found.dedup();
        assert_eq!(
            found,
            [
                "Aol xbpjr iyvdu mve",
                "Gur dhvpx oebja sbk whzcf bire gur ynml qbt",
                "Khoor Zruog",
                "Uryyb Jbeyq",
                "Uryyb, Jbeyq",
                "Uryyb, jbeyq",
                "Wkh hdjoh kdv odqghg",
                "Wkh iodj lv vkliwhg",
                "Wkh txlfn eurzq ira",
            ]
        );
    }
}
