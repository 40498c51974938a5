//! MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): for a client that declares
//! it, each catalogue tool's definition names its view (`_meta.ui.resourceUri`,
//! `ui://cmpx/<id>`) and `resources/list` / `resources/read` serve the view, the tool's page
//! with everything inline, as `text/html;profile=mcp-app`. Clients that do not declare the
//! extension see exactly what they saw before: no `_meta`, no resources.

use crate::web;
use serde_json::{Map, Value, json};

pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// JSON-RPC error for an unknown resource (MCP's "resource not found").
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// Whether client capabilities declare MCP Apps: `extensions["io.modelcontextprotocol/ui"]`,
/// with `mimeTypes` (when given) including the MCP Apps HTML type.
pub fn negotiated(capabilities: &Value) -> bool {
    let Some(ui) = capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .filter(|u| u.is_object())
    else {
        return false;
    };
    match ui.get("mimeTypes").and_then(Value::as_array) {
        Some(types) => types.iter().any(|t| t.as_str() == Some(web::APP_MIME)),
        None => true,
    }
}

/// The server capabilities a negotiating client is told about.
pub fn add_capabilities(caps: &mut Value) {
    caps["resources"] = json!({ "listChanged": false });
    caps["extensions"] = json!({ EXTENSION: { "mimeTypes": [web::APP_MIME] } });
}

/// A catalogue tool's MCP definition with its view named (both the nested key and the
/// flat `ui/resourceUri` older hosts read).
pub fn with_view(mut definition: Value, id: &str) -> Value {
    let uri = web::app_uri(id);
    if let Some(obj) = definition.as_object_mut() {
        let meta = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        meta["ui"] = json!({ "resourceUri": uri });
        meta["ui/resourceUri"] = json!(uri);
    }
    definition
}

/// The view's resource metadata: it needs no network, no frames and no other origin.
fn resource_meta() -> Value {
    json!({ "ui": { "csp": { "connectDomains": [], "resourceDomains": [] }, "prefersBorder": true } })
}

/// Every catalogue tool's view, in catalogue order, paged like `tools/list`.
pub fn list(cursor: Option<&Value>, page_size: usize) -> Result<Value, String> {
    let all = crate::catalogue::all();
    let start = match cursor {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => c
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= all.len())
            .ok_or_else(|| format!("invalid cursor: {}", crate::text::preview(c, 32)))?,
        Some(_) => return Err("cursor must be a string".into()),
    };
    let end = (start + page_size.max(1)).min(all.len());
    let resources: Vec<Value> = all[start..end]
        .iter()
        .map(|def| {
            json!({
                "uri": web::app_uri(&def.id),
                "name": def.id,
                "title": def.name,
                "description": def.summary(),
                "mimeType": web::APP_MIME,
                "_meta": resource_meta(),
            })
        })
        .collect();
    let mut result = json!({ "resources": resources });
    if end < all.len() {
        result["nextCursor"] = json!(end.to_string());
    }
    Ok(result)
}

/// `resources/read`: the view of the tool a `ui://cmpx/<id>` URI names.
pub fn read(uri: &str) -> Option<Value> {
    let def = web::app_tool(uri)?;
    let page = web::render(&def, web::Kind::App);
    Some(json!({
        "contents": [{
            "uri": uri,
            "mimeType": web::APP_MIME,
            "text": page.html,
            "_meta": resource_meta(),
        }]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_recognised_only_as_declared() {
        assert!(negotiated(&json!({"extensions": {EXTENSION: {}}})));
        assert!(negotiated(
            &json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}})
        ));
        assert!(!negotiated(
            &json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}})
        ));
        assert!(!negotiated(&json!({"extensions": {EXTENSION: true}})));
        assert!(!negotiated(&json!({"experimental": {EXTENSION: {}}})));
        assert!(!negotiated(&json!({})));
    }

    #[test]
    fn views_are_listed_and_read_by_uri() {
        let first = list(None, 2).unwrap();
        assert_eq!(first["resources"].as_array().unwrap().len(), 2);
        assert_eq!(first["nextCursor"], "2");
        let uri = first["resources"][0]["uri"].as_str().unwrap().to_string();
        assert!(uri.starts_with("ui://cmpx/"), "{uri}");
        let read = read(&uri).unwrap();
        let content = &read["contents"][0];
        assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
        assert!(
            content["text"]
                .as_str()
                .unwrap()
                .contains("data-transport=\"mcp-app\"")
        );
        assert_eq!(content["_meta"]["ui"]["csp"]["connectDomains"], json!([]));
        assert!(super::read("ui://cmpx/no-such-tool").is_none());
        assert!(super::read("https://example.com/").is_none());
        assert!(list(Some(&json!("x")), 2).is_err());
        let d = with_view(json!({"name": "base64-encoder"}), "base64-encoder");
        assert_eq!(d["_meta"]["ui"]["resourceUri"], "ui://cmpx/base64-encoder");
        assert_eq!(d["_meta"]["ui/resourceUri"], "ui://cmpx/base64-encoder");
    }
}
