//! Phrasings learned from labelled requests (`learned.json`, the train split of
//! tests/data/resolve-requests*.json): each becomes one more pattern of the intent it was
//! labelled with, so the words people use for a tool that its contract does not ("make it
//! readable with indentation") count as evidence for it. The test split is never in the file,
//! so the accuracy it reports is on phrasing the resolver has not seen.

use super::text;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

const SOURCE: &str = include_str!("learned.json");

#[derive(Debug, Clone, Deserialize)]
pub struct Phrasing {
    pub tool: String,
    /// The first pattern of the intent it asks for; none for a catalogue tool's general intent.
    #[serde(default)]
    pub intent: Option<String>,
    pub text: String,
}

#[derive(Deserialize)]
struct File {
    phrasings: Vec<Phrasing>,
}

/// Every embedded phrasing (none if the file were unreadable; a unit test says it is not).
pub fn all() -> &'static [Phrasing] {
    static ALL: OnceLock<Vec<Phrasing>> = OnceLock::new();
    ALL.get_or_init(|| {
        serde_json::from_str::<File>(SOURCE)
            .map(|f| f.phrasings)
            .unwrap_or_default()
    })
}

/// One phrasing as the index takes it: the terms of its intent's label (to find the intent)
/// and its own terms, samples turned into concepts as in a request.
pub struct Learned {
    pub label: Option<Vec<String>>,
    pub terms: Vec<String>,
}

/// Phrasings by tool name, tokenised.
pub fn by_tool(phrasings: &[Phrasing]) -> HashMap<String, Vec<Learned>> {
    let mut out: HashMap<String, Vec<Learned>> = HashMap::new();
    for p in phrasings {
        let q = super::query(&p.text);
        let terms: Vec<String> = q.concepts.into_iter().chain(q.terms).collect();
        if terms.is_empty() {
            continue;
        }
        out.entry(p.tool.clone()).or_default().push(Learned {
            label: p.intent.as_deref().map(text::terms),
            terms,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_file_parses_and_names_catalogue_tools_or_adapters() {
        let all = all();
        assert!(all.len() > 1000, "{} phrasings", all.len());
        let adapters = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
        for p in all {
            assert!(
                crate::catalogue::get(&p.tool).is_some() || adapters.join(&p.tool).is_dir(),
                "{} is neither a catalogue tool nor a bundled adapter",
                p.tool
            );
        }
    }
}
