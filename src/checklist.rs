//! CONTRIBUTING.md's checklist, tool by tool: every file a new tool touches, across the
//! workspace (catalogue, tool library, versions lock, golden documents).

use crate::catalogue::{all, contract, contract_sources, get, ids};
use std::path::Path;

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

/// A tool missing any of the files it must appear in fails here, named with the missing piece
/// and how to add it. (The flags are checked against the code by the catalogue's streaming
/// test and by capability's tests.)
#[test]
fn every_tool_has_every_piece_of_the_checklist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap_or_default();
    let lock: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&read(crate::versioning::lock::CATALOGUE_LOCK)).unwrap_or_default();
    let pending = read("tests/data/examples-pending.txt");
    let tests = test_code(&root.join("crates/tools/src/tools"));
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
                "3. no implementation: an entry in its family's TOOLS under crates/tools/src/tools (a new family also goes in FAMILIES)".into(),
            );
        }
        if !tests.contains(&format!("\"{id}\"")) {
            missing(
                "4. no tests: none of the #[cfg(test)] code under crates/tools/src/tools names it"
                    .into(),
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
