//! "Did you mean" suggestions for mistyped names, shared by every lookup that can miss.

/// The closest candidate to `input`, if any is close enough to be a plausible typo.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let input = input.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&input, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The option a mistyped enum value most likely meant. Spelling first, as people and agents
/// write values: the same letters and digits in another case or punctuation (`SHA-256` is
/// `sha256`), then the value missing only a letter prefix one option has alone (`7` is `v7`),
/// then [`did_you_mean`]'s closeness.
pub fn closest_option<'a>(input: &str, options: &[&'a str]) -> Option<&'a str> {
    fn squashed(s: &str) -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .flat_map(|c| c.to_lowercase())
            .collect()
    }
    let wanted = squashed(input);
    if wanted.is_empty() {
        return None;
    }
    let same: Vec<&str> = options
        .iter()
        .copied()
        .filter(|o| squashed(o) == wanted)
        .collect();
    if let [one] = same[..] {
        return Some(one);
    }
    let prefixed: Vec<&str> = options
        .iter()
        .copied()
        .filter(|o| {
            squashed(o)
                .strip_suffix(&wanted)
                .is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphabetic()))
        })
        .collect();
    if let [one] = prefixed[..] {
        return Some(one);
    }
    did_you_mean(input, options.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::{closest_option, did_you_mean};

    #[test]
    fn enum_values_are_matched_by_spelling_before_closeness() {
        let hashes = [
            "md5",
            "sha1",
            "sha256",
            "sha3-256",
            "sha512-256",
            "blake2s-256",
        ];
        assert_eq!(closest_option("SHA-256", &hashes), Some("sha256"));
        assert_eq!(closest_option("sha_1", &hashes), Some("sha1"));
        assert_eq!(closest_option("SHA3_256", &hashes), Some("sha3-256"));
        let versions = ["v4", "v7", "v1", "v5", "v3", "nil", "max"];
        assert_eq!(closest_option("7", &versions), Some("v7"));
        assert_eq!(closest_option("V4", &versions), Some("v4"));
        assert_eq!(closest_option("-", &versions), None);
        assert_eq!(closest_option("zzzz", &versions), None);
    }

    #[test]
    fn suggests_close_names_only() {
        let names = ["json-formatter", "json-minifier", "base64-encoder"];
        assert_eq!(did_you_mean("json-formater", names), Some("json-formatter"));
        assert_eq!(did_you_mean("base64", names), Some("base64-encoder"));
        assert_eq!(did_you_mean("qqqqqq", names), None);
    }
}
