//! The page tests in a real browser: Debian's chromium and chromium-driver, driven by
//! Selenium from `browser.py` (one session for every check). `.ci/run` installs them; with CI
//! set a missing browser fails the test, otherwise it is skipped with a message. Screenshots
//! go to `target/pages-artifacts/`.

use super::support::{Server, StaticServer};
use crate::common::{require, runs};
use cmpx::ctp::ToolDefinition;
use cmpx::web::{self, Kind, style::Style};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A page from a definition with the three field types no catalogue tool has (date,
/// datetime, email), beside url and color.
fn synthetic_page(api: &str) -> String {
    let def: ToolDefinition = serde_json::from_value(json!({
        "id": "field-types", "name": "Field types", "description": "Every remaining field type.",
        "category": "utilities", "tags": ["test"], "method": "POST", "outputDescription": "none",
        "parameters": [
            {"name": "day", "type": "date", "label": "Day", "description": "A date", "required": true},
            {"name": "when", "type": "datetime", "label": "When", "description": "A moment", "required": false},
            {"name": "mail", "type": "email", "label": "Mail", "description": "An address", "required": true},
            {"name": "site", "type": "url", "label": "Site", "description": "A URL", "required": false},
            {"name": "tint", "type": "color", "label": "Tint", "description": "A colour", "required": false, "defaultValue": "#336699"}
        ],
        "example": {"input": {"day": "2023-12-31", "when": "2023-12-31T23:59:30Z", "mail": "ops@example.org"}, "output": {}}
    }))
    .unwrap();
    web::render(
        &def,
        Kind::Bundle {
            style: &Style::default(),
            api: api.to_string(),
        },
    )
    .html
}

/// Bundles the test's MCP Apps host (AppBridge from @modelcontextprotocol/ext-apps, as
/// installed by .ci/run into target/mcp-apps-node) for the browser.
fn bundle_app_host(dir: &Path) -> bool {
    let node = manifest_dir().join("target/mcp-apps-node");
    let esbuild = node.join("node_modules/.bin/esbuild");
    let present = esbuild.exists()
        && node
            .join("node_modules/@modelcontextprotocol/ext-apps/package.json")
            .exists();
    if !require(
        "@modelcontextprotocol/ext-apps and esbuild in target/mcp-apps-node",
        present,
    ) {
        return false;
    }
    let out = Command::new(&esbuild)
        .arg(manifest_dir().join("tests/pages/app-host.mjs"))
        .args([
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", dir.join("app-host.js").display()))
        .env("NODE_PATH", node.join("node_modules"))
        .output()
        .expect("run esbuild");
    assert!(
        out.status.success(),
        "esbuild: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

#[test]
fn tool_pages_work_in_headless_chromium() {
    if !require("chromium", runs("chromium", &["--version"]))
        || !require("chromedriver", runs("chromedriver", &["--version"]))
        || !require(
            "Python's selenium",
            runs("python3", &["-c", "import selenium"]),
        )
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = StaticServer::start(dir.path().to_path_buf());
    let host_origin = format!("http://127.0.0.1:{}", hosts.port);
    // The MCP Apps host page calls /mcp from its own origin.
    let cmpx = Server::start(&["--allow-origin", &host_origin]);
    std::fs::write(
        dir.path().join("synthetic.html"),
        synthetic_page(&format!("http://{}", cmpx.addr)),
    )
    .unwrap();
    let app_host = bundle_app_host(dir.path());
    let out_dir = manifest_dir().join("target/pages-artifacts");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut cmd = Command::new("python3");
    // Selenium must never reach the network (the script also sets these itself).
    cmd.env("SE_AVOID_STATS", "true")
        .env("SE_OFFLINE", "true")
        .arg(manifest_dir().join("tests/pages/browser.py"))
        .args(["--cmpx", &format!("http://{}", cmpx.addr)])
        .args(["--host-port", &hosts.port.to_string()])
        .arg("--dir")
        .arg(dir.path())
        .arg("--out")
        .arg(&out_dir)
        .arg("--catalogue")
        .arg(manifest_dir().join("catalogue"));
    if app_host {
        cmd.arg("--app-host");
    }
    let out = cmd.output().expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null);
    assert!(
        out.status.success(),
        "browser checks failed: {:#}",
        summary["failures"]
    );
    assert!(summary["tools"].as_array().unwrap().len() >= 20);
    assert_eq!(summary["search"], "10/10");
    assert_eq!(
        summary["field_types_from_catalogue"],
        json!([
            "boolean", "color", "file", "json", "number", "select", "text", "textarea", "url"
        ])
    );
    if app_host {
        assert_eq!(summary["mcp_apps"], "ran base64-encoder through AppBridge");
    }
}
