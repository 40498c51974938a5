//! The capability policy ($CMP_HOME/policy.toml) through the real binary: a deny blocks even
//! with --yes (command line and MCP), a grant runs without asking, anything else asks, a
//! broken file refuses everything, and `cmpx policy` edits survive being killed mid-write.

mod common;

use common::Test;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A third-party tool that declares nothing: it counts as process:spawn (high risk).
fn third_party(root: &Path) {
    let dir = root.join("hello/cmp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"domain":"demo","name":"hello","summary":"says hello","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("capability.json"),
        r#"{"intents":[{"patterns":["say hello"],"command":"echo hello {who}","params":{"who":{"type":"string","required":true}}}]}"#,
    )
    .unwrap();
}

#[test]
fn an_undeclared_tool_asks_until_granted_then_runs_without_asking() {
    let mut t = Test::new();
    let root = t.home().join("extra");
    third_party(&root);
    t.env("CMP_TOOL_PATH", root.to_str().unwrap());
    let asked = t.args(["run", "hello", "--who", "you"]).run();
    assert_eq!(asked.code, 3, "{}", asked.stdout);
    let doc = asked.json();
    assert_eq!(doc["errorCode"], "UNAUTHORIZED");
    assert_eq!(doc["data"]["capabilities"], json!(["process:spawn"]));
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("destructive (cannot be undone) and needs process:spawn, which the policy neither grants nor denies"),
        "{doc}"
    );
    let granted = t
        .args(["policy", "grant", "process:spawn", "--tool", "hello"])
        .run();
    assert_eq!(granted.code, 0, "{}", granted.stderr);
    assert_eq!(granted.json()["changed"], true);
    let ran = t.args(["run", "hello", "--who", "you"]).run();
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(ran.json()["data"]["stdout"], "hello you\n");
    // Granted for that tool only.
    let text = std::fs::read_to_string(t.home().join("policy.toml")).unwrap();
    assert!(
        text.contains("[[grant]]\ncapability = \"process:spawn\"\ntool = \"hello\"\n"),
        "{text}"
    );
}

#[test]
fn a_deny_blocks_even_with_yes() {
    let mut t = Test::new();
    let root = t.home().join("extra");
    third_party(&root);
    t.env("CMP_TOOL_PATH", root.to_str().unwrap());
    assert_eq!(t.args(["policy", "deny", "process:spawn"]).run().code, 0);
    let out = t.args(["run", "hello", "--who", "x", "--yes"]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    let doc = out.json();
    assert_eq!(doc["data"]["denied"], true);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .starts_with("not allowed: process:spawn is denied by the policy (process:spawn)"),
        "{doc}"
    );
    // A grant for the tool is more specific than the global deny.
    t.args(["policy", "grant", "process:spawn", "--tool", "hello"])
        .run();
    assert_eq!(t.args(["run", "hello", "--who", "x"]).run().code, 0);
    // Revoking it brings the global deny back.
    t.args(["policy", "revoke", "process:spawn", "--tool", "hello"])
        .run();
    assert_eq!(
        t.args(["run", "hello", "--who", "x", "--yes"]).run().code,
        3
    );
}

#[test]
fn catalogue_tools_obey_denies_of_what_they_touch_and_read() {
    let mut t = Test::new();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("a.json"), "{\"a\":1}").unwrap();
    std::fs::write(dir.path().join("b.json"), "{\"b\":1}").unwrap();
    t.args([
        "policy",
        "deny",
        "fs:read",
        "--path",
        secret.to_str().unwrap(),
    ])
    .run();
    let at = |p: &Path| format!("@{}", p.display());
    let out = t
        .args([
            "run",
            "json-minifier",
            "--input",
            &at(&secret.join("a.json")),
            "--yes",
        ])
        .run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("fs:read is denied")
    );
    let out = t
        .args([
            "run",
            "json-minifier",
            "--input",
            &at(&dir.path().join("b.json")),
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["data"]["output"], "{\"b\":1}");
    // A tool that uses randomness stops when system:random is denied; others go on.
    t.args(["policy", "deny", "system:random"]).run();
    assert_eq!(t.args(["run", "uuid-generator"]).run().code, 3);
    assert_eq!(
        t.args(["run", "base64-encoder", "--input", "hi"])
            .run()
            .code,
        0
    );
}

#[test]
fn mcp_refuses_a_denied_tool_even_when_destructive_calls_are_allowed() {
    let mut t = Test::new();
    t.args([
        "policy",
        "deny",
        "system:random",
        "--tool",
        "uuid-generator",
    ])
    .run();
    let mut child = Command::new(common::bin())
        .args(["mcp", "--allow-destructive"])
        .env("CMP_HOME", t.home())
        .env("HOME", t.home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let call = |id: i64, name: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}, "_meta": meta}});
    {
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}", call(1, "uuid-generator")).unwrap();
        writeln!(stdin, "{}", call(2, "ulid-generator")).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let mut replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    replies.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(replies[0]["result"]["isError"], true, "{replies:?}");
    let text = replies[0]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("not allowed: system:random is denied"),
        "{text}"
    );
    assert_eq!(replies[1]["result"]["isError"], false, "{replies:?}");
}

#[test]
fn a_broken_policy_refuses_to_run_anything_that_it_could_restrict() {
    let mut t = Test::new();
    std::fs::write(t.home().join("policy.toml"), "[[deny]]\ncapability = ").unwrap();
    let out = t.args(["run", "uuid-generator", "--yes"]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("policy.toml is not valid"),
        "{}",
        out.stdout
    );
    let show = t.args(["policy"]).run();
    assert_eq!(show.code, 2, "{}", show.stdout);
}

#[test]
fn policy_edits_are_checked() {
    let mut t = Test::new();
    let bad = t.args(["policy", "grant", "Not A Capability"]).run();
    assert_eq!(bad.code, 2);
    assert!(
        bad.json()["error"]
            .as_str()
            .unwrap()
            .contains("is not a capability name")
    );
    let bad = t
        .args(["policy", "grant", "network:fetch", "--path", "/tmp"])
        .run();
    assert_eq!(bad.code, 2);
    let shown = t.args(["policy"]).run().json();
    assert_eq!(shown["exists"], false);
    assert_eq!(shown["grant"], json!([]));
    let fs_read = shown["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fs:read")
        .unwrap();
    assert_eq!(fs_read["default"], "granted");
    assert_eq!(
        t.args(["policy", "grant", "fs:*"]).run().json()["grant"],
        json!([{"capability": "fs:*"}])
    );
}

/// `cmpx policy grant` killed at any moment leaves the old policy or the new one, never a
/// torn file: every run after a kill still reads it.
#[test]
fn a_killed_policy_write_never_corrupts_the_file() {
    let t = Test::new();
    let mut seen_new = 0;
    for i in 0..40u64 {
        let mut child = Command::new(common::bin())
            .args(["policy", "grant", "fs:write", "--tool", &format!("tool{i}")])
            .env("CMP_HOME", t.home())
            .env("HOME", t.home())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill at a different moment each time: before, during and after the write.
        std::thread::sleep(std::time::Duration::from_millis((i * 37) % 41));
        let _ = child.kill();
        let _ = child.wait();
        let path = t.home().join("policy.toml");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let parsed: Result<toml::Value, _> = toml::from_str(&text);
            assert!(parsed.is_ok(), "torn policy after kill {i}:\n{text}");
            if text.contains(&format!("tool{i}\"")) {
                seen_new += 1;
            }
        }
    }
    // Some runs got to finish their write (the loop does kill at every stage).
    assert!(seen_new > 0, "no grant ever completed");
    let stray: Vec<_> = std::fs::read_dir(t.home())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "policy.toml" && !n.starts_with(".cmpx-tmp-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
