//! The catalogue as a BTCP manifest (`"btcp": "1.0"`, the shape of the BTCP specification's
//! docs/api/core/manifest.md): every tool under its BTCP name (`json_formatter`), with the
//! capabilities it declares, and their union.

use super::{Options, json_schema};
use crate::capability;
use crate::ctp::ToolDefinition;
use serde_json::{Value, json};

/// BTCP's limits on a tool's description.
const DESCRIPTION: std::ops::RangeInclusive<usize> = 10..=1000;

pub fn manifest(tools: &[ToolDefinition], opts: &Options) -> Value {
    let mut union: Vec<&str> = Vec::new();
    let tools: Vec<Value> = tools
        .iter()
        .map(|def| {
            let caps = capability::of_catalogue_tool(&def.id);
            for c in &caps {
                if !union.contains(c) {
                    union.push(c);
                }
            }
            let mut description = def.description.clone();
            if let Some(hint) = &def.ai_instructions {
                description = format!("{description} {hint}");
            }
            if description.chars().count() > *DESCRIPTION.end() {
                description = description.chars().take(*DESCRIPTION.end()).collect();
            }
            if description.chars().count() < *DESCRIPTION.start() {
                description = format!("{}: {description}", def.name);
            }
            json!({
                "name": capability::btcp_name(&def.id),
                "description": description,
                "inputSchema": json_schema::input_schema(def),
                "outputSchema": json_schema::output_schema(def),
                "capabilities": caps,
                "tags": [def.category],
            })
        })
        .collect();
    union.sort_unstable();
    json!({
        "btcp": "1.0",
        "name": "cmpx",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "cmpx developer utilities: formatters, converters, encoders, hashes, JWT, UUIDs, dates and more, run locally. Call a tool by its BTCP name (json_formatter) or its catalogue id (json-formatter).",
        "provider": { "name": "cmpx", "url": opts.base_url },
        "tools": tools,
        "capabilities": union,
        "config": { "timeout": 60000, "maxConcurrent": 8 },
    })
}
