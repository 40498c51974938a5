//! BTCP in a real browser: the reference BTCPClient (built at test time, its ES modules served
//! as they are) on a web page in headless Chromium, on its own origin given to `cmpx serve`
//! with `--allow-origin`, offers `greet` and `paint` (dom:write) to the official MCP Python SDK
//! (tests/btcp/agent.py), over HTTP streaming and over WebSocket. Driven by Selenium
//! (tests/btcp/browser_driver.py) as tests/pages.rs is; screenshots go to
//! target/btcp-artifacts/. Without CI a missing browser skips; with CI it fails.

use crate::btcp::reference_client;
use crate::common;
use crate::pages::support;

use common::{require, runs};
use serde_json::{Value, json};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use support::StaticServer;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cmpx serve --port 0 --allow-origin ORIGIN` in a temporary CMP_HOME (whose policy the
/// agent changes), stopped when dropped.
struct Cmpx {
    child: Child,
    url: String,
    home: tempfile::TempDir,
}

impl Cmpx {
    fn start(allowed: &str) -> Cmpx {
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(common::bin())
            .args(["serve", "--port", "0", "--allow-origin", allowed])
            .env("CMP_HOME", home.path())
            .env("HOME", home.path())
            .env_remove("CMPX_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start cmpx serve");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().trim_end_matches('/').to_string();
        assert!(url.starts_with("http://"), "cmpx serve printed {line:?}");
        Cmpx { child, url, home }
    }
}

impl Drop for Cmpx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder served as the page's origin: the page, and the built client's `dist/` beside it.
fn pages(dist: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        manifest_dir().join("tests/btcp/browser_page.html"),
        dir.path().join("page.html"),
    )
    .unwrap();
    std::os::unix::fs::symlink(dist, dir.path().join("dist")).unwrap();
    dir
}

fn meet_in_chromium(transport: &str) {
    if !require("chromium", runs("chromium", &["--version"]))
        || !require("chromedriver", runs("chromedriver", &["--version"]))
        || !require(
            "Python's selenium",
            runs("python3", &["-c", "import selenium"]),
        )
        || !require("the MCP Python SDK", runs("python3", &["-c", "import mcp"]))
    {
        return;
    }
    let Some(dist) = reference_client::built() else {
        return;
    };
    let dir = pages(&dist);
    let static_server = StaticServer::start(dir.path().to_path_buf());
    let origin = format!("http://127.0.0.1:{}", static_server.port);
    // The same pages as `localhost`: another origin, which cmpx was not told about.
    let other = format!("http://localhost:{}", static_server.port);
    let cmpx = Cmpx::start(&origin);
    let out_dir = manifest_dir().join("target/btcp-artifacts");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = Command::new("python3")
        // Selenium must never reach the network (the script also sets these itself).
        .env("SE_AVOID_STATS", "true")
        .env("SE_OFFLINE", "true")
        .arg(manifest_dir().join("tests/btcp/browser_driver.py"))
        .args(["--pages", &origin, "--other", &other, "--cmpx", &cmpx.url])
        .args(["--transport", transport])
        .arg("--agent")
        .arg(manifest_dir().join("tests/btcp/agent.py"))
        .args(["--bin", common::bin()])
        .arg("--home")
        .arg(cmpx.home.path())
        .arg("--out")
        .arg(&out_dir)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON summary: {stdout}"));
    eprintln!("{summary:#}");

    // The agent's side: both tools beside the catalogue, greet answered by the page, paint
    // refused before the grant and run after it, the list change, the forged POST refused.
    let agent = &summary["agent"];
    let user_agent = summary["userAgent"].as_str().unwrap();
    assert!(user_agent.contains("HeadlessChrome"), "{user_agent}");
    assert_eq!(
        agent["greet"],
        format!("Hello, cmpx! (BTCP page, {user_agent})")
    );
    assert_eq!(agent["paint"], "painted the page red");
    // The agent declares no elicitation, so dom:write stays pending with the way to grant it.
    let request = &agent["request"];
    assert_eq!(request["granted"], json!(["dom:read"]));
    assert_eq!(request["denied"], json!([]));
    assert_eq!(request["pending"], json!(["dom:write"]));
    let message = request["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("cmpx policy grant dom:write --tool"),
        "{message}"
    );
    assert_eq!(agent["listChanged"], true);
    assert_eq!(agent["impostor"], 403);
    assert_eq!(agent["tools"], cmpx::catalogue::all().len() + 4);
    // The second page's session sees neither tool.
    assert_eq!(agent["otherSession"], "unknown tool: greet");

    // The page's side: the refused paint never reached it; the granted one changed its DOM.
    assert_eq!(summary["calls"], json!(["greet cmpx", "paint red"]));
    assert_eq!(summary["background"], "rgb(255, 0, 0)");
    assert_eq!(summary["canvas"], "Painted red by an agent.");
    // A page on an origin cmpx does not allow cannot open a session at all.
    let refused = if transport == "ws" {
        "WebSocket connection error"
    } else {
        "SSE connection error"
    };
    assert_eq!(
        summary["stranger"],
        json!({"state": "error", "error": refused})
    );
    let shot = summary["screenshot"].as_str().unwrap();
    assert!(
        std::fs::metadata(shot).is_ok_and(|m| m.len() > 1000),
        "{shot}"
    );
}

#[test]
fn a_page_in_headless_chromium_offers_tools_to_an_mcp_agent_over_http_streaming() {
    meet_in_chromium("http");
}

#[test]
fn a_page_in_headless_chromium_offers_tools_to_an_mcp_agent_over_websocket() {
    meet_in_chromium("ws");
}

/// Issue 37, item 14: every browser driver script keeps Selenium off the network: statistics
/// off and the system chromedriver named, before Selenium is imported.
#[test]
fn browser_drivers_never_reach_the_network() {
    for script in ["tests/btcp/browser_driver.py", "tests/pages/browser.py"] {
        let text = std::fs::read_to_string(manifest_dir().join(script)).unwrap();
        let import = text.find("from selenium import").expect(script);
        for needed in [
            "os.environ[\"SE_AVOID_STATS\"] = \"true\"",
            "os.environ[\"SE_OFFLINE\"] = \"true\"",
        ] {
            let at = text
                .find(needed)
                .unwrap_or_else(|| panic!("{script}: {needed}"));
            assert!(
                at < import,
                "{script}: {needed} before Selenium is imported"
            );
        }
        assert!(
            text.contains("Service(executable_path=DRIVER)"),
            "{script} names the chromedriver"
        );
        assert!(text.contains("--disable-background-networking"), "{script}");
    }
}
