//! Checks of CMP folders, shared by `cmpx validate`, `cmpx install` and the tests.

use super::Manifest;
use super::capability::{Capability, PARAM_TYPES, placeholders};
use super::registry::read_json;
use std::path::{Path, PathBuf};

/// The folder holding a tool's CMP files: `cmp/` preferred, `.cmp/` accepted.
pub fn cmp_dir(tool_dir: &Path) -> Option<PathBuf> {
    ["cmp", ".cmp"]
        .iter()
        .map(|s| tool_dir.join(s))
        .find(|d| d.join("manifest.json").is_file())
}

/// Every problem in one tool folder, each naming the file and the field.
pub fn check_folder(tool_dir: &Path) -> Vec<String> {
    let Some(dir) = cmp_dir(tool_dir) else {
        return vec![format!(
            "{}: no cmp/manifest.json or .cmp/manifest.json",
            tool_dir.display()
        )];
    };
    let mut problems = Vec::new();
    let manifest_path = dir.join("manifest.json");
    match read_json::<Manifest>(&manifest_path) {
        Ok(m) => problems.extend(
            m.problems()
                .into_iter()
                .map(|p| format!("{}: {p}", manifest_path.display())),
        ),
        Err(e) => problems.push(e),
    }
    let cap_path = dir.join("capability.json");
    match read_json::<Capability>(&cap_path) {
        Ok(c) => problems.extend(
            check_capability(&c)
                .into_iter()
                .map(|p| format!("{}: {p}", cap_path.display())),
        ),
        Err(e) => problems.push(e),
    }
    let ex_path = dir.join("examples.json");
    if ex_path.exists()
        && let Err(e) = read_json::<super::Examples>(&ex_path)
    {
        problems.push(e);
    }
    problems
}

/// The names used as `{name?}` switches in a command template.
fn switches(command: &str) -> Vec<&str> {
    placeholders(command)
        .into_iter()
        .filter(|n| command.contains(&format!("{{{n}?}}")))
        .collect()
}

/// Problems with a capability's intents, each naming the intent index and field.
pub fn check_capability(cap: &Capability) -> Vec<String> {
    let mut out = Vec::new();
    if cap.intents.is_empty() {
        out.push("'intents' is empty; at least one intent is required".to_string());
    }
    for (i, intent) in cap.intents.iter().enumerate() {
        let at = format!("intents[{i}]");
        if intent.patterns.iter().all(|p| p.trim().is_empty()) {
            out.push(format!("{at}.patterns has no pattern"));
        }
        for p in &intent.patterns {
            if let Some(re) = p.strip_prefix("re:")
                && let Err(e) = regex::RegexBuilder::new(re).size_limit(1 << 20).build()
            {
                out.push(format!("{at}.patterns: {p:?} does not compile: {e}"));
            }
        }
        if intent.command.trim().is_empty() {
            out.push(format!("{at}.command is empty"));
        } else if let Err(e) = shell_words::split(&intent.command) {
            out.push(format!("{at}.command cannot be split into words: {e}"));
        }
        for name in placeholders(&intent.command) {
            if !intent.params.contains_key(name) {
                out.push(format!(
                    "{at}.command uses {{{name}}} but params does not declare '{name}'"
                ));
            }
        }
        for name in switches(&intent.command) {
            if intent.params.get(name).is_some_and(|p| p.kind != "boolean") {
                out.push(format!(
                    "{at}.command uses the switch {{{name}?}} but '{name}' is not a boolean"
                ));
            }
        }
        for (name, spec) in &intent.params {
            if !PARAM_TYPES.contains(&spec.kind.as_str()) {
                out.push(format!(
                    "{at}.params.{name}.type {:?} is not one of {}",
                    spec.kind,
                    PARAM_TYPES.join(", ")
                ));
            }
        }
    }
    out
}
