//! The catalogue of CTP tool definitions embedded at build time, looked up by id, with each
//! tool's declared contract (`contract.rs`).

use crate::contract::{Contract, Flags};
use crate::ctp::ToolDefinition;
use std::sync::OnceLock;

/// The generated tables of the embedded catalogue files.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/catalogue_files.rs"));
}

/// A digest of every embedded catalogue file (part of the resolver's cache key).
pub use embedded::DIGEST;

/// One embedded definition file: its path under `catalogue/` and its text.
#[derive(Debug, Clone, Copy)]
pub struct SourceFile {
    pub path: &'static str,
    pub text: &'static str,
}

impl SourceFile {
    /// The tool id this file should define (or declare the contract of), from its file name.
    pub fn id(&self) -> &'static str {
        let name = self.path.rsplit('/').next().unwrap_or(self.path);
        name.strip_suffix(".cmpx.json")
            .or_else(|| name.strip_suffix(".json"))
            .unwrap_or(name)
    }

    /// The category folder the file sits in.
    pub fn category(&self) -> &'static str {
        self.path.split('/').next().unwrap_or("")
    }

    pub fn parse(&self) -> Result<ToolDefinition, String> {
        serde_json::from_str(self.text).map_err(|e| format!("catalogue/{}: {e}", self.path))
    }
}

pub fn sources() -> impl Iterator<Item = SourceFile> {
    embedded::FILES
        .iter()
        .map(|(path, text)| SourceFile { path, text })
}

struct Loaded {
    tools: Vec<ToolDefinition>,
    errors: Vec<String>,
}

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        let mut tools = Vec::new();
        let mut errors = Vec::new();
        for src in sources() {
            match src.parse() {
                Ok(def) => tools.push(def),
                Err(e) => errors.push(e),
            }
        }
        tools.sort_by(|a, b| a.id.cmp(&b.id));
        Loaded { tools, errors }
    })
}

/// Every definition that parses, sorted by id.
pub fn all() -> &'static [ToolDefinition] {
    &loaded().tools
}

/// Embedded files that do not parse as definitions (empty in a healthy build).
pub fn load_errors() -> &'static [String] {
    &loaded().errors
}

/// Looks up one tool by id, parsing only its own file.
pub fn get(id: &str) -> Option<ToolDefinition> {
    sources()
        .find(|s| s.id() == id)
        .and_then(|s| s.parse().ok())
        .filter(|d| d.id == id)
}

pub fn ids() -> impl Iterator<Item = &'static str> {
    sources().map(|s| s.id())
}

/// The embedded contract files (`<category>/<id>.cmpx.json`).
pub fn contract_sources() -> impl Iterator<Item = SourceFile> {
    embedded::CONTRACT_FILES
        .iter()
        .map(|(path, text)| SourceFile { path, text })
}

/// The declared contract of tool `id`; `None` when it has none or it does not parse (the
/// catalogue tests report which).
pub fn contract(id: &str) -> Option<Contract> {
    contract_sources()
        .find(|s| s.id() == id)
        .and_then(|s| serde_json::from_str(s.text).ok())
}

/// The flags of tool `id` from its contract file (random output, reads the clock, streams);
/// none for an id the catalogue does not have.
pub fn flags(id: &str) -> Flags {
    contract_sources()
        .find(|s| s.id() == id)
        .and_then(|s| serde_json::from_str(s.text).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctp::rules;

    #[test]
    fn every_file_parses_and_is_named_after_its_id_and_category() {
        assert!(load_errors().is_empty(), "{:#?}", load_errors());
        for src in sources() {
            let def = src.parse().unwrap();
            assert_eq!(
                def.id,
                src.id(),
                "catalogue/{} defines '{}'",
                src.path,
                def.id
            );
            assert_eq!(
                def.category,
                src.category(),
                "catalogue/{} is in the wrong folder",
                src.path
            );
        }
    }

    #[test]
    fn every_tool_declares_a_valid_contract() {
        let mut problems = Vec::new();
        for src in contract_sources() {
            match serde_json::from_str::<Contract>(src.text) {
                Err(e) => problems.push(format!("catalogue/{}: {e}", src.path)),
                Ok(c) => match get(src.id()) {
                    Some(def) => problems.extend(crate::contract::check(&def, &c)),
                    None => problems.push(format!("catalogue/{}: no such tool", src.path)),
                },
            }
        }
        for def in all() {
            if contract(&def.id).is_none() {
                problems.push(format!(
                    "{}: no contract (catalogue/{}/{}.cmpx.json)",
                    def.id, def.category, def.id
                ));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn every_definition_follows_the_ctp_rules() {
        let problems = rules::check_catalogue(all());
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn every_definition_has_keywords_and_an_implementation() {
        for def in all() {
            assert!(!def.keywords.is_empty(), "{} has no keywords", def.id);
            assert!(
                crate::tools::implementation(&def.id).is_some(),
                "{} has no implementation",
                def.id
            );
        }
        for id in crate::tools::implemented_ids() {
            assert!(
                get(id).is_some(),
                "{id} is implemented but not in the catalogue"
            );
        }
    }

    #[test]
    fn every_example_output_is_reproduced() {
        for def in all() {
            let contract = contract(&def.id);
            for example in crate::contract::examples(def, contract.as_ref()) {
                let result = crate::run::run_definition(def, example.input.clone());
                let what = example.description.as_deref().unwrap_or("example");
                assert!(
                    result.success,
                    "{} ({what}): failed: {:?}",
                    def.id, result.error
                );
                let data = result.data.unwrap();
                if flags(&def.id).always_random() {
                    assert!(
                        crate::tools::same_shape(&data, &example.output),
                        "{} ({what}): output {data} does not have the example's shape",
                        def.id
                    );
                } else {
                    assert_eq!(data, example.output, "{} ({what}): output differs", def.id);
                }
            }
        }
    }

    #[test]
    fn the_light_flag_reader_agrees_with_the_contract() {
        for def in all() {
            let full = contract(&def.id).map(|c| c.flags()).unwrap_or_default();
            assert_eq!(flags(&def.id), full, "{}", def.id);
        }
    }

    /// The `streams` flag and the code's streaming plan name the same parameter, or neither
    /// exists: the flag is what docs and tests read, the plan is what runs.
    #[test]
    fn the_streams_flag_agrees_with_the_streaming_plans() {
        let mut problems = Vec::new();
        for def in all() {
            let flagged = flags(&def.id).streams;
            let planned = crate::tools::streaming::streaming(&def.id).map(|(param, _)| param);
            if flagged.as_deref() != planned {
                problems.push(format!(
                    "{}: its contract says \"streams\": {flagged:?}, its streaming plan reads {planned:?}",
                    def.id
                ));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
