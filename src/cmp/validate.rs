//! Checks of CMP folders, shared by `cmpx validate`, `cmpx install` and the tests.

use super::Manifest;
use super::capability::{Capability, PARAM_TYPES, placeholders};
use super::registry::{read_json, read_json_optional};
use std::path::{Path, PathBuf};

/// The folder holding a tool's CMP files: `cmp/` preferred, `.cmp/` accepted. A manifest that
/// is there but is no regular file (a FIFO, a dangling link) still marks the folder, so that
/// reading it reports why instead of the folder silently not counting.
pub fn cmp_dir(tool_dir: &Path) -> Option<PathBuf> {
    ["cmp", ".cmp"]
        .iter()
        .map(|s| tool_dir.join(s))
        .find(|d| std::fs::symlink_metadata(d.join("manifest.json")).is_ok())
}

/// What checking one folder found: problems make it invalid; warnings do not.
#[derive(Debug, Default)]
pub struct Checked {
    pub problems: Vec<String>,
    /// Intents that hand a value to a shell or interpreter as code ([`super::shell_code`]), and
    /// intents that declare no capabilities.
    pub warnings: Vec<String>,
}

/// Every problem in one tool folder, each naming the file and the field.
pub fn check_folder(tool_dir: &Path) -> Vec<String> {
    check(tool_dir).problems
}

/// Every problem and warning in one tool folder, each naming the file and the field.
pub fn check(tool_dir: &Path) -> Checked {
    let Some(dir) = cmp_dir(tool_dir) else {
        return Checked {
            problems: vec![format!(
                "{}: no cmp/manifest.json or .cmp/manifest.json",
                tool_dir.display()
            )],
            warnings: Vec::new(),
        };
    };
    let mut out = Checked::default();
    let manifest_path = dir.join("manifest.json");
    match read_json::<Manifest>(&manifest_path) {
        Ok(m) => out.problems.extend(
            m.problems()
                .into_iter()
                .map(|p| format!("{}: {p}", manifest_path.display())),
        ),
        Err(e) => out.problems.push(e),
    }
    let cap_path = dir.join("capability.json");
    match read_json::<Capability>(&cap_path) {
        Ok(c) => {
            out.problems.extend(
                check_capability(&c)
                    .into_iter()
                    .map(|p| format!("{}: {p}", cap_path.display())),
            );
            out.warnings.extend(
                capability_warnings(&c)
                    .into_iter()
                    .map(|w| format!("{}: {w}", cap_path.display())),
            );
        }
        Err(e) => out.problems.push(e),
    }
    let ex_path = dir.join("examples.json");
    if let Some(Err(e)) = read_json_optional::<super::Examples>(&ex_path) {
        out.problems.push(e);
    }
    out
}

/// Intents that are valid but deserve a second look: one that runs a value as code needs
/// consent at run time like a `confirm: true` intent; one that declares no capabilities counts
/// as process:spawn, so it asks before every run and nothing can grant it narrowly.
pub fn capability_warnings(cap: &Capability) -> Vec<String> {
    let mut out = Vec::new();
    for (i, intent) in cap.intents.iter().enumerate() {
        if let Some(why) = intent.runs_code() {
            out.push(format!(
                "intents[{i}].command {why}; it runs only with consent (--yes), like an intent \
                 marked confirm"
            ));
        }
        if super::effects::declared(intent).is_none() {
            out.push(format!(
                "intents[{i}] declares no capabilities, so cmpx counts it as process:spawn (a \
                 program nothing describes) and asks before every run; declare what it touches, \
                 e.g. \"capabilities\": [\"fs:read\"]"
            ));
        }
    }
    out
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
        // `program` (written by export for adapters) runs; `command` is what an agent runs.
        let templates = std::iter::once(("command", intent.command.as_str()))
            .chain(intent.program.as_deref().map(|p| ("program", p)));
        for (field, template) in templates {
            if template.trim().is_empty() {
                out.push(format!("{at}.{field} is empty"));
            } else if let Err(e) = shell_words::split(template) {
                out.push(format!("{at}.{field} cannot be split into words: {e}"));
            }
            for name in placeholders(template) {
                if !intent.params.contains_key(name) {
                    out.push(format!(
                        "{at}.{field} uses {{{name}}} but params does not declare '{name}'"
                    ));
                }
            }
            for name in switches(template) {
                if intent.params.get(name).is_some_and(|p| p.kind != "boolean") {
                    out.push(format!(
                        "{at}.{field} uses the switch {{{name}?}} but '{name}' is not a boolean"
                    ));
                }
            }
        }
        if let Some(format) = &intent.stdout_format
            && format != "text"
            && format != "auto"
        {
            out.push(format!(
                "{at}.stdoutFormat {:?} is not \"text\" or \"auto\"",
                crate::text::preview(format, 40)
            ));
        }
        for problem in intent
            .capabilities
            .as_deref()
            .map(super::effects::check)
            .unwrap_or_default()
        {
            out.push(format!("{at}.capabilities: {problem}"));
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
