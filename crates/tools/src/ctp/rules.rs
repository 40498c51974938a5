//! The CTP §5.3 definition rules, enforced in code so `cmpx validate` and the tests agree.

use super::definition::{ParamType, ToolDefinition};
use super::params;
use std::collections::HashSet;

/// Parameter names the `cmpx run` command line keeps for itself; a tool may not use them.
pub const RESERVED_PARAM_NAMES: &[&str] = &[
    "args", "pretty", "json", "help", "yes", "intent", "timeout", "dryRun",
];

/// Problems with one definition, each a sentence naming the field at fault. Empty means valid.
pub fn check_definition(def: &ToolDefinition) -> Vec<String> {
    let mut problems = Vec::new();
    let mut p = |msg: String| problems.push(format!("{}: {msg}", def.id));

    let id_ok = !def.id.is_empty()
        && def.id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !id_ok {
        p(format!(
            "id '{}' must be lowercase words joined by hyphens",
            def.id
        ));
    }
    for tag in &def.tags {
        if tag.to_lowercase() != *tag {
            p(format!("tag '{tag}' must be lowercase"));
        }
    }
    if def.tags.is_empty() {
        p("tags must list at least one tag".into());
    }
    let mut seen = HashSet::new();
    for param in &def.parameters {
        if !seen.insert(param.name.as_str()) {
            p(format!("parameter '{}' is declared twice", param.name));
        }
        if RESERVED_PARAM_NAMES.contains(&param.name.as_str()) {
            p(format!(
                "parameter name '{}' is reserved by the cmpx command line",
                param.name
            ));
        }
        if param.kind == ParamType::Select && param.options.is_empty() {
            p(format!("select parameter '{}' has no options", param.name));
        }
        if param.kind != ParamType::Select && !param.options.is_empty() {
            p(format!(
                "parameter '{}' has options but is not of type select",
                param.name
            ));
        }
        if let Some(pattern) = param.validation.as_ref().and_then(|v| v.pattern.as_ref())
            && let Err(e) = regex::Regex::new(pattern)
        {
            p(format!(
                "parameter '{}' pattern does not compile: {e}",
                param.name
            ));
        }
        if let Some(default) = &param.default_value {
            if param.required {
                p(format!(
                    "parameter '{}' is required, so its defaultValue would never apply",
                    param.name
                ));
            }
            if let Err(e) = params::normalise(param, default.clone()).and_then(|v| match v {
                Some(v) => params::validate(param, &v),
                None => Ok(()),
            }) {
                p(format!(
                    "parameter '{}' defaultValue is invalid: {}",
                    param.name, e.message
                ));
            }
        }
    }
    if let Err(e) = params::prepare(def, &def.example.input) {
        p(format!("example.input is invalid: {}", e.message));
    }
    for related in &def.related_tools {
        if related == &def.id {
            p("relatedTools lists the tool itself".into());
        }
    }
    problems
}

/// Problems across a set of definitions: each definition's own, duplicate ids, and
/// `relatedTools` that name no tool in the set.
pub fn check_catalogue<'a>(defs: impl IntoIterator<Item = &'a ToolDefinition>) -> Vec<String> {
    let defs: Vec<&ToolDefinition> = defs.into_iter().collect();
    let mut problems = Vec::new();
    let mut ids = HashSet::new();
    for def in &defs {
        if !ids.insert(def.id.as_str()) {
            problems.push(format!("{}: id is used by more than one tool", def.id));
        }
        problems.extend(check_definition(def));
    }
    for def in &defs {
        for related in &def.related_tools {
            if !ids.contains(related.as_str()) {
                problems.push(format!(
                    "{}: relatedTools names '{related}', which is not in the catalogue",
                    def.id
                ));
            }
        }
    }
    problems
}
