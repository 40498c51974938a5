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

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggests_close_names_only() {
        let names = ["json-formatter", "json-minifier", "base64-encoder"];
        assert_eq!(did_you_mean("json-formater", names), Some("json-formatter"));
        assert_eq!(did_you_mean("base64", names), Some("base64-encoder"));
        assert_eq!(did_you_mean("qqqqqq", names), None);
    }
}
