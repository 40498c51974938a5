//! Tool pages: the pages, embeds, bundle, host script and search over HTTP; the MCP Apps
//! views over MCP (with and without the extension); and, in a real headless Chromium
//! (`browser.rs`), forms filled from examples, embeds on other origins, autosense, the
//! reference SDK's known faults, and the MCP Apps view under the official AppBridge.

mod browser;
use crate::common;
pub mod support;

use serde_json::{Value, json};
use support::{Server, get};

#[test]
fn pages_embeds_and_assets_are_served_with_their_headers() {
    let s = Server::start(&[]);
    let page = get(&s.addr, "/tools/json-formatter", &[]);
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(
        page.header("content-security-policy")
            .unwrap()
            .ends_with("frame-ancestors 'none'")
    );
    assert!(
        page.text().contains("<h1>JSON Formatter</h1>"),
        "{}",
        page.text()
    );

    let embed = get(
        &s.addr,
        "/embed/json-formatter?theme=dark&accent=%23ff0000&origin=http://127.0.0.1:1234",
        &[],
    );
    assert_eq!(embed.status, 200);
    assert_eq!(
        embed.header("x-frame-options"),
        None,
        "embeds may be framed"
    );
    assert_eq!(
        embed.header("content-security-policy"),
        Some(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self' http://localhost:* http://127.0.0.1:* https://localhost:* https://127.0.0.1:*"
        )
    );
    assert!(embed.text().contains(
        "data-page=\"embed\" data-transport=\"http\" data-theme=\"dark\" data-accent=\"#ff0000\" data-parent-origin=\"http://127.0.0.1:1234\""
    ), "{}", &embed.text()[..400]);
    assert!(
        embed
            .text()
            .contains("<script src=\"/assets/embed-bridge.js\"></script>")
    );

    let hostile = get(
        &s.addr,
        "/embed/json-formatter?accent=red%22%3E%3Cscript%3E&font=x%3B%7D&origin=javascript:alert(1)",
        &[],
    );
    assert!(hostile.text().starts_with("<!doctype html><html lang=\"en\" data-page=\"embed\" data-transport=\"http\" data-theme=\"auto\"><head>"), "{}", &hostile.text()[..300]);

    let bundle = get(&s.addr, "/embed/base64-encoder?format=bundle", &[]);
    assert_eq!(bundle.status, 200);
    let csp = bundle.header("content-security-policy").unwrap();
    assert!(
        csp.starts_with("default-src 'none'; script-src 'sha256-"),
        "{csp}"
    );
    assert!(
        csp.contains(&format!("connect-src http://{};", s.addr)),
        "{csp}"
    );
    assert!(
        !bundle.text().contains("src=\"/assets/"),
        "the bundle needs nothing else"
    );
    assert!(bundle.text().contains(&format!(
        "action=\"http://{}/api/tools/base64-encoder\"",
        s.addr
    )));
    assert_eq!(
        get(&s.addr, "/embed/base64-encoder?format=zip", &[]).status,
        400
    );

    let listed = Server::start(&["--allow-origin", "https://docs.example.com"]);
    let e = get(&listed.addr, "/embed/uuid-generator", &[]);
    assert!(
        e.header("content-security-policy")
            .unwrap()
            .ends_with("https://127.0.0.1:* https://docs.example.com")
    );

    let missing = get(&s.addr, "/embed/jsn-formatter", &[]);
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["errorCode"], "NOT_FOUND");
    assert_eq!(get(&s.addr, "/tools/nope", &[]).status, 404);

    let js = get(&s.addr, "/embed.js", &[]);
    assert_eq!(
        js.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(
        js.header("cross-origin-resource-policy"),
        Some("cross-origin")
    );
    assert!(js.text().contains("window.ConveniencePro"));
    assert_eq!(
        get(&s.addr, "/assets/page.css", &[]).header("content-type"),
        Some("text/css; charset=utf-8")
    );
    assert_eq!(get(&s.addr, "/assets/../Cargo.toml", &[]).status, 404);
    assert_eq!(get(&s.addr, "/assets/secret.js", &[]).status, 404);

    // `/`: the web UI for browsers, the JSON index for programs (as before).
    let ui = get(
        &s.addr,
        "/",
        &[("Accept", "text/html,application/xhtml+xml")],
    );
    assert!(ui.text().contains("<a href=\"/tools/json-formatter\">"));
    assert_eq!(get(&s.addr, "/", &[]).json()["name"], "cmpx");

    let found = get(&s.addr, "/api/resolve?q=pretty%20print%20json&top=3", &[]).json();
    assert_eq!(found["results"][0]["id"], "json-formatter", "{found:#}");
    assert_eq!(found["results"].as_array().unwrap().len(), 3);
}

#[test]
fn one_tool_page_weighs_under_50_kb() {
    let s = Server::start(&[]);
    let mut total = 0;
    let page = get(&s.addr, "/embed/json-formatter", &[]);
    total += page.body.len();
    for asset in ["page.css", "transport.js", "form.js", "embed-bridge.js"] {
        total += get(&s.addr, &format!("/assets/{asset}"), &[]).body.len();
    }
    eprintln!("page weight: /embed/json-formatter with its CSS and JS: {total} bytes");
    assert!(total < 50 * 1024, "{total} bytes");
}

fn mcp_lines(messages: &[Value]) -> Vec<Value> {
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let out = common::Test::new()
        .args(["mcp"])
        .stdin(input.as_bytes())
        .run();
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn init(capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "t", "version": "1"}}})
}

const UI: &str = "io.modelcontextprotocol/ui";

#[test]
fn mcp_apps_views_exist_only_for_clients_that_declare_the_extension() {
    let ui_caps = json!({"extensions": {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    let replies = mcp_lines(&[
        init(ui_caps.clone()),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "ui://cmpx/base64-encoder"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "ui://cmpx/nope"}}),
    ]);
    assert_eq!(
        replies[0]["result"]["capabilities"]["extensions"][UI]["mimeTypes"],
        json!(["text/html;profile=mcp-app"])
    );
    assert_eq!(
        replies[0]["result"]["capabilities"]["resources"],
        json!({"listChanged": false})
    );
    let tools = replies[1]["result"]["tools"].as_array().unwrap();
    let b64 = tools
        .iter()
        .find(|t| t["name"] == "base64-encoder")
        .unwrap();
    assert_eq!(
        b64["_meta"]["ui"],
        json!({"resourceUri": "ui://cmpx/base64-encoder"})
    );
    assert_eq!(b64["_meta"]["ui/resourceUri"], "ui://cmpx/base64-encoder");
    let listed = replies[2]["result"]["resources"].as_array().unwrap();
    assert!(
        listed.iter().any(|r| r["uri"] == "ui://cmpx/base64-encoder"
            && r["mimeType"] == "text/html;profile=mcp-app")
    );
    let content = &replies[3]["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        content["_meta"]["ui"]["csp"],
        json!({"connectDomains": [], "resourceDomains": []})
    );
    let html = content["text"].as_str().unwrap();
    assert!(
        html.contains("data-transport=\"mcp-app\"")
            && html.contains("<h1>Base64 Encoder/Decoder</h1>"),
        "{}",
        &html[..300]
    );
    assert_eq!(replies[4]["error"]["code"], -32002);

    // Without the extension: the same list as ever, and no resources.
    let plain = mcp_lines(&[
        init(json!({})),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "ui://cmpx/base64-encoder"}}),
    ]);
    assert!(
        plain[0]["result"]["capabilities"]
            .get("extensions")
            .is_none()
    );
    assert!(
        plain[0]["result"]["capabilities"]
            .get("resources")
            .is_none()
    );
    let plain_tools = plain[1]["result"]["tools"].as_array().unwrap();
    assert!(plain_tools.iter().all(|t| t["_meta"].get("ui").is_none()));
    let stripped: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut t = t.clone();
            let meta = t["_meta"].as_object_mut().unwrap();
            meta.remove("ui");
            meta.remove("ui/resourceUri");
            t
        })
        .collect();
    assert_eq!(
        &stripped, plain_tools,
        "the extension adds _meta.ui and nothing else"
    );
    assert_eq!(plain[2]["error"]["code"], -32601);
    assert_eq!(plain[3]["error"]["code"], -32601);

    // 2026-07-28: the capability travels in each request's _meta.
    let meta = |caps: Value| json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps});
    let modern = mcp_lines(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(ui_caps.clone())}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "ui://cmpx/uuid-generator", "_meta": meta(ui_caps)}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta(json!({}))}}),
    ]);
    assert_eq!(
        modern[0]["result"]["tools"][0]["_meta"]["ui"]["resourceUri"]
            .as_str()
            .unwrap(),
        format!(
            "ui://cmpx/{}",
            modern[0]["result"]["tools"][0]["name"].as_str().unwrap()
        )
    );
    assert_eq!(
        modern[1]["result"]["contents"][0]["uri"],
        "ui://cmpx/uuid-generator"
    );
    assert!(modern[2]["result"]["tools"][0]["_meta"].get("ui").is_none());
}
