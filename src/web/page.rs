//! A tool's page, generated from its definition: header, the form (fields.rs), worked
//! examples as one-click fills, and the result area. One page, four forms (`Kind`): linked
//! assets for the web UI and the embed; everything inline, allowed by hash, for the bundle
//! and the MCP Apps view.

use super::style::Style;
use super::{assets, esc, fields};
use crate::ctp::ToolDefinition;
use serde_json::{Value, json};

pub enum Kind<'a> {
    /// `/tools/{id}`: the web UI's page, with a way back to the index.
    Tool,
    /// `/embed/{id}`: framed by a host page, styled by it, talking to it by postMessage.
    Embed(&'a Style),
    /// `/embed/{id}?format=bundle`: one HTML file with everything inline, calling `api`
    /// (this server's address) over HTTP.
    Bundle { style: &'a Style, api: String },
    /// `ui://cmpx/{id}`: an MCP Apps view; tools run through the host's bridge.
    App,
}

/// A page and the Content-Security-Policy it needs (without `frame-ancestors`, which the
/// route decides).
pub struct Rendered {
    pub html: String,
    pub csp: String,
}

/// What form.js needs about the tool: parameters without their help texts or AI hints, and
/// the worked examples' inputs.
fn tool_data(def: &ToolDefinition, api: &str) -> String {
    let contract = crate::catalogue::contract(&def.id);
    let examples: Vec<Value> = crate::contract::examples(def, contract.as_ref())
        .into_iter()
        .map(|e| json!({ "description": e.description, "input": e.input }))
        .collect();
    let params: Vec<Value> = def
        .parameters
        .iter()
        .filter(|p| p.hidden != Some(true))
        .map(|p| json!({ "name": p.name, "type": p.kind.as_str(), "integer": p.is_integer() }))
        .collect();
    let data = json!({
        "id": def.id,
        "name": def.name,
        "api": api,
        "params": params,
        "examples": examples,
    });
    // Inside <script type=application/json>, "</script" must not appear: escape every '<'.
    data.to_string().replace('<', "\\u003c")
}

fn examples_bar(def: &ToolDefinition) -> String {
    let contract = crate::catalogue::contract(&def.id);
    let all = crate::contract::examples(def, contract.as_ref());
    let mut out = String::from(
        "<div class=\"examples\" role=\"group\" aria-label=\"Examples\"><span class=\"examples-label\">Examples:</span>",
    );
    for (i, e) in all.iter().enumerate() {
        let label = e
            .description
            .clone()
            .unwrap_or_else(|| format!("Example {}", i + 1));
        out.push_str(&format!(
            "<button type=\"button\" class=\"example\" data-example=\"{i}\">{}</button>",
            esc(&label)
        ));
    }
    out.push_str("</div>");
    out
}

/// Whether any parameter is a file (the no-JavaScript form then posts multipart).
fn has_file(def: &ToolDefinition) -> bool {
    def.parameters
        .iter()
        .any(|p| p.kind == crate::ctp::ParamType::File)
}

pub fn render(def: &ToolDefinition, kind: Kind) -> Rendered {
    let (page, style_attrs, api) = match &kind {
        Kind::Tool => ("tool", " data-theme=\"auto\"".to_string(), String::new()),
        Kind::Embed(s) => ("embed", s.attributes(), String::new()),
        Kind::Bundle { style, api } => ("bundle", style.attributes(), api.clone()),
        Kind::App => ("app", " data-theme=\"auto\"".to_string(), String::new()),
    };
    let transport = if matches!(kind, Kind::App) {
        "mcp-app"
    } else {
        "http"
    };
    let endpoint = format!("{api}/api/tools/{}", def.id);
    let nav = if matches!(kind, Kind::Tool) {
        "<nav class=\"top\"><a href=\"/\">← All tools</a><button type=\"button\" class=\"theme-switch\" aria-label=\"Switch between light and dark\">◐</button></nav>"
    } else {
        ""
    };
    let body = format!(
        "<main class=\"tool\">{nav}<header><h1>{name}</h1><p class=\"desc\">{desc}</p></header>\
<form id=\"tool-form\" method=\"post\" action=\"{action}\"{enctype} novalidate>{examples}{fields}\
<div class=\"actions\"><button type=\"submit\" class=\"run\">Run</button><span class=\"status\" role=\"status\"></span></div></form>\
<section id=\"error\" class=\"error\" role=\"alert\" hidden></section>\
<section id=\"result\" class=\"result\" hidden aria-labelledby=\"result-title\"><div class=\"result-head\"><h2 id=\"result-title\">Result</h2>\
<button type=\"button\" id=\"copy\">Copy</button><button type=\"button\" id=\"download\">Download</button></div><pre id=\"output\" tabindex=\"0\"></pre></section></main>\
<script type=\"application/json\" id=\"cmpx-tool\">{data}</script>",
        name = esc(&def.name),
        desc = esc(&def.description),
        action = esc(&endpoint),
        enctype = if has_file(def) {
            " enctype=\"multipart/form-data\""
        } else {
            ""
        },
        examples = examples_bar(def),
        fields = fields::form_fields(&def.parameters),
        data = tool_data(def, &api),
    );
    let mut scripts = vec![assets::TRANSPORT_JS, assets::FORM_JS];
    let mut names = vec!["transport.js", "form.js"];
    if matches!(kind, Kind::Embed(_) | Kind::Bundle { .. }) {
        scripts.push(assets::EMBED_BRIDGE_JS);
        names.push("embed-bridge.js");
    }
    let title = format!("{} — cmpx", esc(&def.name));
    let inline = matches!(kind, Kind::Bundle { .. } | Kind::App);
    let connect = match &kind {
        Kind::Bundle { api, .. } => super::style::origin(api).unwrap_or_else(|| "'none'".into()),
        Kind::App => "'none'".into(),
        _ => "'self'".into(),
    };
    let (head, tail, csp) = if inline {
        let script_hashes: Vec<String> = scripts.iter().map(|s| assets::hash_source(s)).collect();
        let csp = format!(
            "default-src 'none'; script-src {}; style-src {}; img-src data: blob:; connect-src {connect}; form-action 'none'; base-uri 'none'",
            script_hashes.join(" "),
            assets::hash_source(assets::PAGE_CSS),
        );
        (
            format!(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\"><style>{}</style>",
                esc(&csp),
                assets::PAGE_CSS
            ),
            scripts
                .iter()
                .map(|s| format!("<script>{s}</script>"))
                .collect::<String>(),
            csp,
        )
    } else {
        (
            "<link rel=\"stylesheet\" href=\"/assets/page.css\">".to_string(),
            names
                .iter()
                .map(|n| format!("<script src=\"/assets/{n}\"></script>"))
                .collect::<String>(),
            format!(
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src {connect}; form-action 'self'; base-uri 'none'"
            ),
        )
    };
    let html = format!(
        "<!doctype html><html lang=\"en\" data-page=\"{page}\" data-transport=\"{transport}\"{style_attrs}><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"color-scheme\" content=\"light dark\">\
<title>{title}</title>{head}</head><body>{body}{tail}</body></html>"
    );
    Rendered { html, csp }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(id: &str) -> ToolDefinition {
        crate::catalogue::get(id).unwrap()
    }

    #[test]
    fn the_tool_page_links_its_assets_and_carries_the_examples() {
        let r = render(&def("json-formatter"), Kind::Tool);
        assert!(
            r.html
                .contains("<link rel=\"stylesheet\" href=\"/assets/page.css\">")
        );
        assert!(r.html.contains("<script src=\"/assets/form.js\"></script>"));
        assert!(!r.html.contains("embed-bridge.js"));
        assert!(r.html.contains("action=\"/api/tools/json-formatter\""));
        assert!(r.html.contains("data-example=\"0\""));
        assert!(r.csp.contains("script-src 'self'"));
        assert!(
            !r.html.contains("<script>"),
            "no inline script on linked pages"
        );
    }

    #[test]
    fn inline_forms_allow_exactly_their_own_scripts() {
        let style = Style::default();
        let r = render(
            &def("base64-encoder"),
            Kind::Bundle {
                style: &style,
                api: "http://127.0.0.1:7878".into(),
            },
        );
        assert!(r.csp.contains(&assets::hash_source(assets::FORM_JS)));
        assert!(
            r.csp
                .contains(&assets::hash_source(assets::EMBED_BRIDGE_JS))
        );
        assert!(r.html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#x27;none&#x27;; script-src &#x27;sha256-"));
        assert!(r.csp.contains("connect-src http://127.0.0.1:7878;"));
        assert!(
            r.html
                .contains("action=\"http://127.0.0.1:7878/api/tools/base64-encoder\"")
        );
        assert!(!r.html.contains("src=\"/assets/"));
        let app = render(&def("base64-encoder"), Kind::App);
        assert!(app.html.contains("data-transport=\"mcp-app\""));
        assert!(app.csp.contains("connect-src 'none'"));
        assert!(!app.html.contains("embed-bridge"));
    }

    #[test]
    fn tool_data_cannot_close_its_script_element() {
        let mut d = def("base64-encoder");
        d.name = "</script><script>alert(1)</script>".into();
        let r = render(&d, Kind::Tool);
        assert_eq!(r.html.matches("</script>").count(), 3, "{}", r.html);
        assert!(r.html.contains("\\u003c/script>\\u003cscript>"));
    }
}
