//! BTCP: `cmpx discover --format btcp` against the manifest schema of the BTCP specification
//! (tests/data/btcp/manifest.schema.json, copied from the spec repository with its commit), and
//! `cmpx serve` as a BTCP server between the reference BTCPClient (node, built at test time
//! into target/btcp-client) and the official MCP Python SDK.

use crate::common;
pub mod reference_client;

use common::Test;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn the_btcp_manifest_validates_and_names_map_back() {
    let out = Test::new().args(["discover", "--format", "btcp"]).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    let schema: Value =
        serde_json::from_str(include_str!("data/btcp/manifest.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the BTCP manifest schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .take(10)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert_eq!(doc["btcp"], "1.0");
    let tools = doc["tools"].as_array().unwrap();
    assert_eq!(tools.len(), cmpx::catalogue::all().len());
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"json_formatter"), "{names:?}");
    // Every tool's capabilities are within the manifest's union, as BTCP requires.
    let union: Vec<&Value> = doc["capabilities"].as_array().unwrap().iter().collect();
    for t in tools {
        for c in t["capabilities"].as_array().unwrap() {
            assert!(union.contains(&c), "{c} of {} not in {union:?}", t["name"]);
        }
    }
    let uuid = tools
        .iter()
        .find(|t| t["name"] == "uuid_generator")
        .unwrap();
    assert_eq!(
        uuid["capabilities"],
        serde_json::json!(["system:random", "system:clock"])
    );
    assert_eq!(
        doc["capabilities"],
        serde_json::json!(["system:clock", "system:random"])
    );
    // A schema that can fail: a hyphenated name is refused.
    let mut bad = doc.clone();
    bad["tools"][0]["name"] = Value::String("json-formatter".into());
    assert!(!validator.is_valid(&bad));
}

/// `cmpx serve --port 0` in a temporary CMP_HOME, stopped when dropped.
struct Server {
    child: std::process::Child,
    url: String,
    home: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        use std::io::BufRead;
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(common::bin())
            .args(["serve", "--port", "0"])
            .env("CMP_HOME", home.path())
            .env("HOME", home.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Server {
            child,
            url: line.trim().trim_end_matches('/').to_string(),
            home,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the reference BTCPClient in node (`transport` http or ws, `url` the /btcp base it is
/// given); returns once it printed "ready".
fn browser(
    dist: &Path,
    url: &str,
    session: &str,
    tools: &str,
    transport: &str,
) -> std::process::Child {
    use std::io::BufRead;
    let mut child = Command::new("node")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/btcp/browser.mjs"
        ))
        .arg(dist)
        .args([url, session, tools, transport])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.trim() != "ready" {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "the browser client did not connect: {line}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    child
}

/// Whether python3 has the MCP SDK; when not, a skip (a failure in CI).
fn python_sdk() -> bool {
    common::require(
        "the MCP Python SDK (pip install mcp)",
        common::runs("python3", &["-c", "import mcp"]),
    )
}

/// The browser on `transport` (its session bound to an owner key in the URL for HTTP
/// streaming), a second browser without tools, and the Python SDK as the agent (agent.py with
/// `mode`, given the two session ids); agent.py's summary, `None` when skipped.
fn meet(transport: &str, mode: &[&str]) -> Option<(Value, String, String)> {
    let dist = reference_client::built()?;
    if !python_sdk() {
        return None;
    }
    let server = Server::start();
    let with = format!("it-{transport}-a1b2c3d4e5f6a7b8c9d0");
    let without = format!("it-{transport}-0f9e8d7c6b5a4f3e2d1c");
    let owned = match transport {
        "ws" => format!("{}/btcp", server.url),
        _ => format!("{}/btcp/k/owner-key-{}", server.url, "9f8e7d6c5b4a3928"),
    };
    let mut a = browser(&dist, &owned, &with, "tools", transport);
    let mut b = browser(
        &dist,
        &format!("{}/btcp", server.url),
        &without,
        "none",
        "http",
    );
    // A second browser cannot take a live session, over either transport (even with its
    // owner key: a live session has one owner).
    for path in ["events", "ws"] {
        let taken = Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "--max-time",
                "3",
            ])
            .args(["-H", "Connection: Upgrade", "-H", "Upgrade: websocket"])
            .args(["-H", "Sec-WebSocket-Version: 13"])
            .args(["-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="])
            .args(["-H", "Accept: text/event-stream"])
            .arg(format!(
                "{owned}/{path}?sessionId={with}&clientType=browser"
            ))
            .output();
        if let Ok(out) = taken {
            assert_eq!(String::from_utf8_lossy(&out.stdout), "409", "{path}");
        }
    }
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/btcp/agent.py"))
        .args([
            server.url.as_str(),
            with.as_str(),
            without.as_str(),
            common::bin(),
        ])
        .args(mode)
        .env("CMP_HOME", server.home.path())
        .env("HOME", server.home.path())
        .output()
        .unwrap();
    for child in [&mut a, &mut b] {
        drop(child.stdin.take());
        let _ = child.wait();
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    Some((summary, with, without))
}

fn meet_and_call(transport: &str) {
    let Some((summary, _, _)) = meet(transport, &[]) else {
        return;
    };
    assert_eq!(summary["greet"], "Hello, cmpx!");
    assert_eq!(summary["paint"], "painted the page red");
    // This agent cannot be asked: the standing, and how the person grants what is pending.
    let request = &summary["request"];
    assert_eq!(request["granted"], serde_json::json!(["dom:read"]));
    assert_eq!(request["denied"], serde_json::json!([]));
    assert_eq!(request["pending"], serde_json::json!(["dom:write"]));
    assert!(
        request["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot ask the person")
                && m.contains("cmpx policy grant dom:write --tool")),
        "{request}"
    );
    assert_eq!(summary["listChanged"], true);
    assert_eq!(summary["impostor"], 403);
    // The catalogue, `pipe`, the two browser tools and the capability request.
    assert_eq!(summary["tools"], cmpx::catalogue::all().len() + 4);
}

#[test]
fn the_reference_client_and_the_python_sdk_meet_through_cmpx_over_http_streaming() {
    meet_and_call("http");
}

#[test]
fn the_reference_client_and_the_python_sdk_meet_through_cmpx_over_websocket() {
    meet_and_call("ws");
}

/// `__btcp_request_capabilities` asks the person once, for what is pending alone; accepted,
/// it holds for that BTCP session only; declined, it stays pending with how to grant it.
fn request_capabilities(transport: &str, era: &str) {
    let Some((summary, with, _)) = meet(transport, &["consent", era]) else {
        return;
    };
    assert_eq!(
        summary["request"],
        serde_json::json!({"granted": ["dom:read", "dom:write"], "denied": ["storage:local:write"], "pending": []})
    );
    // One question, about dom:write alone: dom:read is granted by default, and the denied
    // capability is never put to the person.
    assert_eq!(
        summary["questions"],
        serde_json::json!([format!(
            "cmpx will run: grant dom:write to the browser tools of BTCP session {with} until it ends. Proceed?"
        )])
    );
    assert_eq!(summary["paint"], "painted the page red");
    assert_eq!(summary["questionsAfterPaint"], 1);
    assert_eq!(summary["malformed"], true);
    // The other session: none of the first one's tools, and its grant does not carry over.
    assert_eq!(summary["otherSees"], serde_json::json!([]));
    let other = &summary["other"];
    assert_eq!(other["granted"], serde_json::json!([]));
    assert_eq!(other["denied"], serde_json::json!(["storage:local:write"]));
    assert_eq!(other["pending"], serde_json::json!(["dom:write"]));
    let note = other["message"].as_str().unwrap_or_default();
    assert!(
        note.starts_with("dom:write not granted: the person declined.")
            && note.contains("`cmpx policy grant dom:write --tool <browser tool>`"),
        "{other}"
    );
    assert_eq!(summary["otherQuestions"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_capability_request_asks_the_person_once_in_the_handshake_era() {
    request_capabilities("http", "legacy");
}

#[test]
fn a_capability_request_asks_the_person_once_in_2026_07_28() {
    request_capabilities("ws", "auto");
}

/// A BTCP agent joins a session under /btcp/a/KEY/ with its owner key (join.mjs): it lists
/// and calls the session's tools under the policy, cannot register, hears of changes; no key,
/// another session's key or the session id as key are refused.
#[test]
fn a_btcp_agent_joins_with_the_owner_key_and_nothing_else() {
    let Some(dist) = reference_client::built() else {
        return;
    };
    let server = Server::start();
    let (a, key_a) = ("join-a-0123456789abcdef", "owner-a-5f4e3d2c1b0a9f8e");
    let (b, key_b) = ("join-b-0123456789abcdef", "owner-b-0a1b2c3d4e5f6a7b");
    let mut first = browser(
        &dist,
        &format!("{}/btcp/k/{key_a}", server.url),
        a,
        "tools",
        "http",
    );
    let mut second = browser(
        &dist,
        &format!("{}/btcp/k/{key_b}", server.url),
        b,
        "none",
        "ws",
    );
    let out = Command::new("node")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/btcp/join.mjs"))
        .arg(&dist)
        .args([server.url.as_str(), a, key_a, b, key_b, common::bin()])
        .env("CMP_HOME", server.home.path())
        .env("HOME", server.home.path())
        .output()
        .unwrap();
    for child in [&mut first, &mut second] {
        drop(child.stdin.take());
        let _ = child.wait();
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        seen,
        serde_json::json!({
            "browserPath": 400,
            "wrongKey": 403,
            "otherKey": 403,
            "idAsKey": 403,
            "welcome": {"message": "Connected to cmpx (BTCP agent)", "sessionId": null},
            "joined": ["greet", "paint"],
            "list": ["greet", "paint"],
            "greet": "Hello, agent!",
            "paintRefused": true,
            "register": -32600,
            "stillTwo": ["greet", "paint"],
            "paint": "painted the page red",
            "updated": ["greet"],
            "wsWelcome": a,
            "wsList": ["greet"],
            "wsGreet": "Hello, socket!",
            "wsJoinOther": -32001,
            "strangerWelcome": null,
            "strangerList": -32001,
        })
    );
}

#[test]
fn websocket_sessions_are_bounded_and_closed_at_shutdown() {
    use std::io::BufRead;
    let Some(dist) = reference_client::built() else {
        return;
    };
    let server = Server::start();
    let ws = server.url.replace("http://", "ws://") + "/btcp/ws";
    let mut child = Command::new("node")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/btcp/socket.mjs"
        ))
        .arg(&dist)
        .args([ws.as_str(), "sock-0123456789abcdef"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let seen: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(
        seen,
        serde_json::json!({
            "welcome": "sock-0123456789abcdef",
            "pong": {"pong": true},
            "garbage": -32700,
            "second": 409,
            "agent": 400,
            "tooLarge": "dropped",
        })
    );
    assert_eq!(lines.next().unwrap().unwrap(), "waiting");
    // SIGTERM: the server closes the socket with 1001 (going away) and exits 0.
    let stopped = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let closed: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(closed["closed"], 1001);
    let _ = child.wait();
}

/// `cmpx mcp --btcp-server URL --btcp-session ID` on stdio, driven by the Python SDK in `era`
/// (auto: 2026-07-28 with input_required; legacy: a handshake and elicitation/create).
fn bridge(era: &str) {
    let Some(dist) = reference_client::built() else {
        return;
    };
    if !python_sdk() {
        return;
    }
    let server = Server::start();
    let session = format!("bridge-{era}-5e4d3c2b1a0f9e8d");
    let mut page = browser(
        &dist,
        &format!("{}/btcp", server.url),
        &session,
        "tools",
        "ws",
    );
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/btcp/bridge.py"))
        .arg(common::bin())
        .arg(server.home.path())
        .args([server.url.as_str(), session.as_str(), era])
        .env("HOME", server.home.path())
        .output()
        .unwrap();
    drop(page.stdin.take());
    let _ = page.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        summary,
        serde_json::json!({
            "tools": cmpx::catalogue::all().len() + 4,
            "greet": "Hello, cmpx!",
            "askedBeforeRequest": 0,
            "request": {"granted": ["dom:read", "dom:write"], "denied": [], "pending": []},
            "question": true,
            "paint": "painted the page red",
            "askedAtPaint": 0,
            "listChanged": true,
            "paintAfterChange": false,
            "denied": true,
            "protocolVersion": if era == "legacy" { "2025-11-25" } else { "2026-07-28" },
        })
    );
}

#[test]
fn the_stdio_bridge_offers_a_sessions_browser_tools_in_2026_07_28() {
    bridge("auto");
}

#[test]
fn the_stdio_bridge_offers_a_sessions_browser_tools_in_the_handshake_era() {
    bridge("legacy");
}
