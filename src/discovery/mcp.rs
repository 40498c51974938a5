//! Catalogue tools and installed intents as MCP tool definitions (name, title, description,
//! inputSchema, outputSchema, annotations — hints always explicit, since MCP's defaults assume
//! a destructive, open-world tool).

use super::json_schema;
use crate::cmp::{Intent, Manifest};
use crate::ctp::ToolDefinition;
use serde_json::{Value, json};

/// A catalogue tool: read-only, idempotent, closed-world computation.
pub fn builtin_tool(def: &ToolDefinition) -> Value {
    let mut description = def.description.clone();
    if let Some(hint) = &def.ai_instructions {
        description = format!("{description} {hint}");
    }
    let mut tool = json!({
        "name": def.id,
        "title": def.name,
        "description": description,
        "inputSchema": json_schema::input_schema(def),
        "outputSchema": json_schema::output_schema(def),
        "annotations": {
            "title": def.name,
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
        // The tool's semver version: a major bump means a breaking change (SPEC.md "Versions").
        "_meta": { "version": def.version() },
    });
    let touches = crate::capability::of_catalogue_tool(&def.id);
    if !touches.is_empty() {
        tool["_meta"][META_CAPABILITIES] = json!(touches);
    }
    tool
}

/// Where a tool's capabilities go in its MCP definition (`_meta`, which clients pass on).
pub const META_CAPABILITIES: &str = "cmpx/capabilities";

/// The MCP name of an installed tool's intent: `<tool>.<first pattern as a slug>`, cut to
/// MCP's 64 characters, e.g. `git.repository-status`.
pub fn intent_name(tool: &str, intent: &Intent, index: usize) -> String {
    let first = intent
        .patterns
        .iter()
        .find(|p| !p.starts_with("re:"))
        .map_or("", String::as_str);
    let mut slug = String::new();
    for c in first.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() {
        format!("intent-{index}")
    } else {
        slug.to_string()
    };
    let tool: String = tool
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .collect();
    let mut name = format!("{tool}.{slug}");
    if name.len() > 64 {
        name.truncate(64);
        name = name.trim_end_matches(['-', '.']).to_string();
    }
    name
}

/// An installed tool's intent (an adapter or a third-party folder).
pub fn intent_tool(manifest: &Manifest, intent: &Intent, index: usize) -> Value {
    let effects = intent.effects();
    let consent = match crate::cmp::effects::caution(intent) {
        crate::cmp::effects::Caution::Destructive => {
            " Destructive: cannot be undone; asks for confirmation."
        }
        crate::cmp::effects::Caution::Undeclared => {
            " Declares no capabilities, so nothing says what its program does; asks for confirmation."
        }
        _ if effects.consent => " Asks for confirmation before running.",
        _ => "",
    };
    let also: Vec<&str> = intent
        .patterns
        .iter()
        .skip(1)
        .filter(|p| !p.starts_with("re:"))
        .take(4)
        .map(String::as_str)
        .collect();
    let mut description = format!(
        "{}: {}.{consent} Runs `{}`.",
        manifest.summary,
        intent.patterns.first().map_or("", String::as_str),
        intent.command
    );
    if !also.is_empty() {
        description.push_str(&format!(" Also: {}.", also.join("; ")));
    }
    json!({
        "name": intent_name(&manifest.name, intent, index),
        "title": format!("{} — {}", manifest.name, intent.patterns.first().map_or("", String::as_str)),
        "description": description,
        "inputSchema": json_schema::intent_schema(&intent.params),
        "_meta": {
            META_CAPABILITIES: crate::cmp::effects::needed(intent),
            "version": manifest.version,
        },
        // Every hint from the intent's declared capabilities (cmp::effects), nothing else.
        "annotations": {
            "readOnlyHint": effects.read_only,
            "destructiveHint": effects.destructive,
            "idempotentHint": effects.idempotent,
            "openWorldHint": effects.open_world,
        },
    })
}

/// Every catalogue tool as an MCP tool, in id order.
pub fn catalogue_tools() -> Vec<Value> {
    crate::catalogue::all().iter().map(builtin_tool).collect()
}
