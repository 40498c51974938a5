//! The catalogue of CTP tool definitions embedded at build time, looked up by id, with each
//! tool's declared contract (`contract.rs`).

use crate::contract::{Contract, Flags};
use crate::ctp::ToolDefinition;
use std::sync::OnceLock;

/// The generated tables of embedded files (catalogue and adapters).
pub(crate) mod embedded {
    include!(concat!(env!("OUT_DIR"), "/catalogue_files.rs"));
}

pub(crate) use embedded::DIGEST;

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
    use std::path::Path;

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
                let result = crate::exec::run_definition(def, &example.input);
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

    /// Every file under `dir`, at any depth, sorted.
    fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        let mut dirs = vec![dir.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    /// Every `#[cfg(test)] mod tests { … }` under `dir` and every file that is a test-only
    /// module (`#[cfg(test)] mod name;`), as one text.
    fn test_code(dir: &Path) -> String {
        let files: Vec<_> = files_under(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        let declared =
            regex::Regex::new(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))? )?mod (\w+);").unwrap();
        let inline = regex::Regex::new(r"#\[cfg\(test\)\]\s*mod \w+ \{").unwrap();
        let mut test_only = Vec::new();
        let mut code = String::new();
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let dir = match path.file_stem().and_then(|s| s.to_str()) {
                Some("mod") => path.parent().unwrap_or(path).to_path_buf(),
                _ => path.with_extension(""),
            };
            for c in declared.captures_iter(&text) {
                test_only.push(dir.join(format!("{}.rs", &c[1])));
                test_only.push(dir.join(&c[1]).join("mod.rs"));
            }
            if let Some(m) = inline.find(&text) {
                code.push_str(&text[m.start()..]);
            }
        }
        for path in files.iter().filter(|p| test_only.contains(p)) {
            code.push_str(&std::fs::read_to_string(path).unwrap_or_default());
        }
        code
    }

    /// Whether `text` names tool `id` as a whole word (not as part of a longer id).
    fn names(text: &str, id: &str) -> bool {
        let part = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-');
        text.match_indices(id).any(|(at, _)| {
            !part(text[..at].chars().next_back()) && !part(text[at + id.len()..].chars().next())
        })
    }

    /// The discovery documents under tests/golden that list the catalogue (they name most of
    /// its tools), by path.
    fn golden_listings(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for path in files_under(dir) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let named = all().iter().filter(|t| names(&text, &t.id)).count();
                if named * 2 > all().len() {
                    let rel = path.strip_prefix(dir).unwrap_or(&path);
                    out.push((rel.display().to_string(), text));
                }
            }
        }
        out
    }

    /// CONTRIBUTING.md's checklist, tool by tool: a tool missing any of the files it must
    /// appear in fails here, named with the missing piece and how to add it. (The flags are
    /// checked against the code by the streaming test above and by capability's tests.)
    #[test]
    fn every_tool_has_every_piece_of_the_checklist() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap_or_default();
        let lock: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&read(crate::versioning::lock::CATALOGUE_LOCK))
                .unwrap_or_default();
        let pending = read("tests/data/examples-pending.txt");
        let tests = test_code(&root.join("src/tools"));
        let goldens = golden_listings(&root.join("tests/golden/discover"));
        assert!(
            !goldens.is_empty(),
            "no golden discovery document lists the catalogue"
        );
        let mut every: Vec<&str> = ids()
            .chain(contract_sources().map(|s| s.id()))
            .chain(crate::tools::implemented_ids())
            .collect();
        every.sort_unstable();
        every.dedup();
        let mut problems = Vec::new();
        for id in every {
            let mut missing = |piece: String| problems.push(format!("{id}: {piece}"));
            let Some(def) = get(id) else {
                missing(format!(
                    "1. no definition catalogue/<category>/{id}.json (it has a contract or an implementation)"
                ));
                continue;
            };
            let category = &def.category;
            if !contract_sources().any(|s| s.path == format!("{category}/{id}.cmpx.json")) {
                missing(format!(
                    "2. no contract catalogue/{category}/{id}.cmpx.json beside its definition"
                ));
            }
            if crate::tools::implementation(id).is_none() {
                missing(
                    "3. no implementation: an entry in its family's TOOLS under src/tools (a new family also goes in FAMILIES)".into(),
                );
            }
            if !tests.contains(&format!("\"{id}\"")) {
                missing(
                    "4. no tests: none of the #[cfg(test)] code under src/tools names it".into(),
                );
            }
            let contract = contract(id);
            let examples = crate::contract::examples(&def, contract.as_ref()).len();
            if examples < 3 && !pending.lines().any(|l| l.trim() == id) {
                missing(format!(
                    "5. {examples} worked examples: its contract's \"examples\" bring them to 3"
                ));
            }
            if !lock.contains_key(id) {
                missing(format!(
                    "6. not in {}: cargo run -q -- validate --lock > {0}",
                    crate::versioning::lock::CATALOGUE_LOCK
                ));
            }
            let stale: Vec<&str> = goldens
                .iter()
                .filter(|(_, text)| !names(text, id))
                .map(|(file, _)| file.as_str())
                .collect();
            if !stale.is_empty() {
                missing(format!(
                    "7. not in the golden discovery documents {} under tests/golden/discover: regenerate them with UPDATE_GOLDEN=1 (CONTRIBUTING.md)",
                    stale.join(", ")
                ));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
