//! Whatever one call does — run out of memory, overflow its stack, loop, leave processes
//! behind in a new session — ends in a clear result, and never takes the CLI or the MCP
//! server down with it.

use crate::common;

use common::{Test, bin};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// One line of JSON per reply.
fn replies(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn a_tool_that_exhausts_its_memory_is_an_error_result() {
    let mut t = Test::new();
    let out = t
        .args([
            "run",
            "jq-processor",
            "--filter",
            "[range(1e9)]",
            "--input",
            "null",
        ])
        .env("CMPX_MAX_MEMORY", "256M")
        .run();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(doc["errorCode"], "EXECUTION_ERROR");
    let message = doc["error"].as_str().unwrap();
    assert!(
        message.contains("memory") && message.contains("256.0 MiB"),
        "{message}"
    );
    assert!(
        !out.stderr.contains("memory allocation of"),
        "the worker's death throes leaked: {}",
        out.stderr
    );
}

#[test]
fn a_stack_overflow_is_an_error_result() {
    let mut t = Test::new();
    // An unbounded recursion in the user's own program: nothing but the stack stops it.
    let out = t
        .args([
            "run",
            "jq-processor",
            "--filter",
            "def f: [f]; f",
            "--input",
            "null",
        ])
        .run();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(doc["success"], false);
    assert!(
        doc["error"].as_str().unwrap().contains("stack")
            || doc["error"].as_str().unwrap().contains("memory"),
        "{doc}"
    );
}

#[test]
fn built_in_tools_stop_at_the_timeout() {
    let mut t = Test::new();
    let out = t
        .args([
            "run",
            "jq-processor",
            "--filter",
            "last(range(1e15))",
            "--input",
            "null",
            "--timeout",
            "1",
        ])
        .run();
    assert_eq!(out.code, 5, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(doc["errorCode"], "TIMEOUT");
    assert!(
        doc["error"].as_str().unwrap().contains("--timeout"),
        "{doc}"
    );
    for bad in ["0", "-1", "nan", "inf", "1e300", "ten"] {
        let out = t
            .args(["run", "base64-encoder", "--input", "x", "--timeout", bad])
            .run();
        assert_eq!(out.code, 2, "--timeout {bad}: {}", out.stdout);
    }
}

#[test]
fn the_mcp_server_survives_a_call_that_kills_its_worker() {
    let mut t = Test::new();
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
    let bomb = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"jq-processor","arguments":{"filter":"[range(1e9)]","input":"null"}}});
    let overflow = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"jq-processor","arguments":{"filter":"def f: [f]; f","input":"null"}}});
    let list = json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}});
    let ok = json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"base64-encoder","arguments":{"input":"hello"}}});
    let out = t
        .args(["mcp"])
        .env("CMPX_MAX_MEMORY", "256M")
        .stdin(format!("{init}\n{bomb}\n{overflow}\n{list}\n{ok}\n"))
        .run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Calls run concurrently, so answers come in any order: put them in id order.
    let mut replies = replies(&out.stdout);
    replies.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(replies.len(), 5, "{}", out.stdout);
    assert_eq!(replies[1]["result"]["isError"], true, "{}", replies[1]);
    assert_eq!(replies[2]["result"]["isError"], true, "{}", replies[2]);
    assert!(replies[3]["result"]["tools"].as_array().unwrap().len() > 10);
    assert_eq!(
        replies[4]["result"]["structuredContent"]["output"],
        "aGVsbG8="
    );
}

#[test]
fn arguments_that_are_not_utf8_are_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    for args in [
        vec![
            OsStr::from_bytes(b"run"),
            OsStr::from_bytes(b"base64-encoder"),
            OsStr::from_bytes(b"--input"),
            OsStr::from_bytes(b"\xff\xfe"),
        ],
        vec![OsStr::from_bytes(b"\xff")],
        vec![OsStr::from_bytes(b"run"), OsStr::from_bytes(b"\xc3\x28")],
        vec![
            OsStr::from_bytes(b"do"),
            OsStr::from_bytes(b"encode \x80 please"),
        ],
    ] {
        let out = Command::new(bin())
            .args(&args)
            .env("CMP_HOME", home.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["errorCode"], "INVALID_INPUT");
        assert!(
            doc["error"].as_str().unwrap().contains("not valid UTF-8"),
            "{doc}"
        );
    }
}

#[test]
fn a_timeout_stops_what_the_program_started_in_another_session() {
    if !common::require("setsid", which::which("setsid").is_ok()) {
        return;
    }
    let mut t = Test::new();
    let marker = t.home().join("survived");
    let script = t.home().join("spawner.sh");
    write(
        &script,
        &format!(
            "#!/bin/sh\nsetsid sh -c 'sleep 2; touch {}' &\nsleep 30\n",
            marker.display()
        ),
    );
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let dir = t.home().join("tools/spawner/cmp");
    write(
        &dir.join("manifest.json"),
        r#"{"domain":"test","name":"spawner","summary":"spawns","version":"1.0.0"}"#,
    );
    write(
        &dir.join("capability.json"),
        &json!({"intents": [{"patterns": ["spawn"], "command": script.to_str().unwrap()}]})
            .to_string(),
    );
    // It declares nothing, so it counts as process:spawn and runs with consent.
    let out = t
        .args(["run", "spawner", "--timeout", "0.5", "--yes"])
        .run();
    assert_eq!(out.code, 5, "{}{}", out.stdout, out.stderr);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        !marker.exists(),
        "a process started with setsid outlived the timeout"
    );
    // Also when the program ends by itself and leaves a process behind.
    write(
        &script,
        &format!(
            "#!/bin/sh\nsetsid sh -c 'sleep 1; touch {}' &\necho done\n",
            marker.display()
        ),
    );
    let out = t.args(["run", "spawner", "--yes"]).run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.json()["data"]["stdout"], "done\n");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!marker.exists(), "a leftover process outlived its program");
}

#[test]
fn binary_stdin_is_bytes_for_the_byte_tools() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let mut t = Test::new();
    let out = t
        .args(["run", "base64-encoder", "--input", "-"])
        .stdin(bytes.clone())
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc = out.json();
    use base64::Engine;
    assert_eq!(
        doc["data"]["output"],
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    assert_eq!(doc["metadata"]["inputSize"], 3000);
    let out = t
        .args([
            "run",
            "hash-generator",
            "--input",
            "-",
            "--algorithm",
            "sha256",
        ])
        .stdin(bytes.clone())
        .run();
    use sha2::Digest;
    assert_eq!(
        out.json()["data"]["output"],
        hex::encode(sha2::Sha256::digest(&bytes))
    );
    // Text tools still say plainly that they take text.
    let out = t
        .args(["run", "json-formatter", "--input", "-"])
        .stdin(vec![0xff, 0xfe, b'{'])
        .run();
    assert_eq!(out.code, 2);
    assert!(out.json()["error"].as_str().unwrap().contains("UTF-8"));
}
