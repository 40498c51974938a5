//! The web UI's front page (`/` for browsers): every tool by category, and search as you
//! type through the resolver (`/api/resolve?q=`), the same ranking as `cmpx resolve`.

use super::esc;
use crate::resolve::{self, index::Index};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub(crate) fn render() -> super::page::Rendered {
    let mut by_category: BTreeMap<&str, Vec<&crate::ctp::ToolDefinition>> = BTreeMap::new();
    for def in crate::catalogue::all() {
        by_category
            .entry(def.category.as_str())
            .or_default()
            .push(def);
    }
    let mut sections = String::new();
    for (category, tools) in &by_category {
        sections.push_str(&format!(
            "<section class=\"category\"><h2>{} <span class=\"count\">{}</span></h2><ul class=\"tools\">",
            esc(&title_case(category)),
            tools.len()
        ));
        for def in tools {
            sections.push_str(&format!(
                "<li data-id=\"{id}\"><a href=\"/tools/{id}\"><strong>{name}</strong><span>{summary}</span></a></li>",
                id = esc(&def.id),
                name = esc(&def.name),
                summary = esc(def.summary()),
            ));
        }
        sections.push_str("</ul></section>");
    }
    let html = format!(
        "<!doctype html><html lang=\"en\" data-page=\"index\" data-theme=\"auto\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"color-scheme\" content=\"light dark\">\
<title>cmpx — developer utilities</title><link rel=\"stylesheet\" href=\"/assets/page.css\"></head><body>\
<main class=\"index\"><nav class=\"top\"><strong>cmpx</strong> <span class=\"muted\">{n} developer utilities, offline</span>\
<button type=\"button\" class=\"theme-switch\" aria-label=\"Switch between light and dark\">◐</button></nav>\
<form class=\"search\" role=\"search\" action=\"/\" method=\"get\"><label for=\"q\">Find a tool</label>\
<input type=\"search\" id=\"q\" name=\"q\" placeholder=\"pretty print json, decode a jwt, sha256 of a file…\" autocomplete=\"off\" autofocus></form>\
<ol id=\"results\" class=\"results\" aria-live=\"polite\"></ol>{sections}</main><script src=\"/assets/index.js\"></script></body></html>",
        n = crate::catalogue::all().len(),
    );
    super::page::Rendered {
        html,
        csp: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'".into(),
    }
}

fn title_case(s: &str) -> String {
    s.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The catalogue's own index (no installed folders: the web UI runs catalogue tools),
/// built once per process.
fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| resolve::index::build(&[]))
}

/// `/api/resolve?q=`: catalogue tools ranked for a request, best first.
pub(crate) fn search(q: &str, top: usize) -> Value {
    let q: String = q.chars().take(500).collect();
    let resolution = resolve::resolve(
        index(),
        &q,
        &resolve::Options {
            top: top.clamp(1, 50) * 3,
            domain: None,
        },
    );
    let mut seen = Vec::new();
    let mut results = Vec::new();
    for c in &resolution.candidates {
        if seen.contains(&c.tool) {
            continue;
        }
        let Some(def) = crate::catalogue::get(&c.tool) else {
            continue;
        };
        seen.push(c.tool.clone());
        results.push(json!({
            "id": def.id,
            "name": def.name,
            "category": def.category,
            "summary": def.summary(),
            "score": c.score,
            "page": format!("/tools/{}", def.id),
        }));
        if results.len() >= top.clamp(1, 50) {
            break;
        }
    }
    json!({ "query": q, "confident": resolution.confident, "results": results })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_finds_the_tool_a_request_names() {
        let r = search("pretty print json", 5);
        assert_eq!(r["results"][0]["id"], "json-formatter", "{r:#}");
        assert_eq!(r["results"][0]["page"], "/tools/json-formatter");
        assert_eq!(search("", 5)["results"], json!([]));
    }

    #[test]
    fn the_index_lists_every_tool_under_its_category() {
        let html = render().html;
        for def in crate::catalogue::all() {
            assert!(
                html.contains(&format!("<a href=\"/tools/{}\">", def.id)),
                "{}",
                def.id
            );
        }
        assert_eq!(title_case("data-formats"), "Data Formats");
    }
}
