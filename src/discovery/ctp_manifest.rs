//! `.well-known/ctp-manifest.json`: the CTP service manifest (`ctp-manifest.schema.json`, which
//! allows no other fields).
//!
//! `baseUrl` is the `--base-url` option (default [`super::DEFAULT_BASE_URL`], a placeholder: cmpx
//! serves no HTTP itself); each tool's `apiEndpoint` is `<baseUrl>/api/tools/<id>`, the POST
//! operation the OpenAPI document describes. `license` is the crate's `license` field and is left
//! out while Cargo.toml declares none.

use super::{CTP_VERSION, Options, SERVICE_DESCRIPTION, SERVICE_NAME};
use crate::ctp::ToolDefinition;
use serde_json::{Map, Value, json};

pub fn manifest(tools: &[ToolDefinition], opts: &Options) -> Value {
    let mut doc = Map::new();
    doc.insert("ctpVersion".into(), json!(CTP_VERSION));
    doc.insert("name".into(), json!(SERVICE_NAME));
    doc.insert("description".into(), json!(SERVICE_DESCRIPTION));
    doc.insert("baseUrl".into(), json!(opts.base_url));
    doc.insert("apiPath".into(), json!(super::API_PATH));
    doc.insert(
        "tools".into(),
        tools
            .iter()
            .map(|d| tool(d, opts))
            .collect::<Vec<_>>()
            .into(),
    );
    doc.insert(
        "categories".into(),
        super::by_category(tools)
            .iter()
            .enumerate()
            .map(|(i, (id, _))| {
                json!({
                    "id": id,
                    "name": super::category_name(id),
                    "description": super::category_description(id),
                    "order": i + 1,
                })
            })
            .collect::<Vec<_>>()
            .into(),
    );
    doc.insert(
        "capabilities".into(),
        json!({
            // No iframe widgets or live updates; a JSON API (the OpenAPI document), and every
            // tool computes locally without a network.
            "embedding": false,
            "autosense": false,
            "api": true,
            "offline": true,
            "realtime": false,
        }),
    );
    let license = env!("CARGO_PKG_LICENSE");
    if !license.is_empty() {
        doc.insert("license".into(), json!(license));
    }
    Value::Object(doc)
}

fn tool(def: &ToolDefinition, opts: &Options) -> Value {
    let mut t = Map::new();
    t.insert("id".into(), json!(def.id));
    t.insert("name".into(), json!(def.name));
    t.insert("description".into(), json!(def.description));
    t.insert("category".into(), json!(def.category));
    t.insert("tags".into(), json!(def.tags));
    if let Some(icon) = &def.icon {
        t.insert("icon".into(), json!(icon));
    }
    t.insert("apiEndpoint".into(), json!(opts.endpoint(&def.id)));
    t.insert("method".into(), json!(def.method));
    t.insert("parameters".into(), json!(def.parameters));
    if let Some(mode) = &def.execution_mode {
        t.insert("executionMode".into(), json!(mode));
    }
    if let Some(d) = def.deprecated {
        t.insert("deprecated".into(), json!(d));
    }
    Value::Object(t)
}
