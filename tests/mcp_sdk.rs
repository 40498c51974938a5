//! `cmpx mcp` against the official SDKs, in both protocol eras: the Python SDK (default mode
//! picks 2026-07-28; the handshake agrees on each older version), the TypeScript SDK 1.x
//! (2025-11-25) and 2.x (pinned to 2026-07-28); and every worked example of every catalogue
//! tool called through each, which raises (or reports) any result its outputSchema rejects.
//!
//! CI installs the SDKs (`.ci/run`: pip `mcp`, npm packages into target/mcp-node); elsewhere
//! a missing one skips the test (`common::skip`), in CI it fails it.

use crate::common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp");

fn missing(what: &str, hint: &str) -> bool {
    common::skip(format!("{what} is not installed ({hint})"));
    true
}

fn no_python_sdk() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import mcp, jsonschema"])
        .status()
        .is_ok_and(|s| s.success());
    !ok && missing("the MCP Python SDK", "pip install mcp jsonschema")
}

fn node_modules() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-node/node_modules");
    let ok = dir.join("@modelcontextprotocol/sdk").is_dir()
        && dir.join("@modelcontextprotocol/client").is_dir()
        && Command::new("node")
            .arg("--version")
            .status()
            .is_ok_and(|s| s.success());
    if ok {
        return Some(dir);
    }
    missing(
        "the MCP TypeScript SDKs",
        "npm install --prefix target/mcp-node @modelcontextprotocol/sdk@1 @modelcontextprotocol/client@2",
    );
    None
}

/// Runs a client script; its one summary line.
fn run(program: &str, args: &[&str]) -> Value {
    let out = Command::new(program).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{program} {:?}:\n{stdout}\n{}",
        &args[..args.len().min(5)],
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("summary line ({e}): {stdout}"));
    println!("{program}: {summary}");
    summary
}

fn python(home: &Path, mode: &str, era: &str, extra: &[&str]) -> Value {
    let script = format!("{SCRIPTS}/sdk_client.py");
    let mut args = vec![
        script.as_str(),
        common::bin(),
        home.to_str().unwrap(),
        mode,
        era,
    ];
    args.extend(extra);
    run("python3", &args)
}

/// Every worked example of every catalogue tool (the definition's and its contract's), as
/// `[{tool, input}]` in a file.
fn examples_file(dir: &Path) -> (PathBuf, usize) {
    let mut all = Vec::new();
    for def in cmpx::catalogue::all() {
        let contract = cmpx::catalogue::contract(&def.id);
        for e in cmpx::contract::examples(def, contract.as_ref()) {
            all.push(json!({"tool": def.id, "input": e.input}));
        }
    }
    let path = dir.join("examples.json");
    std::fs::write(&path, serde_json::to_vec(&all).unwrap()).unwrap();
    (path, all.len())
}

#[test]
fn python_sdk_picks_2026_07_28_and_agrees_on_each_older_version() {
    if no_python_sdk() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    for mode in ["full", "progressive"] {
        let s = python(home.path(), mode, "auto", &[]);
        assert_eq!(s["protocolVersion"], "2026-07-28", "{s}");
    }
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let s = python(home.path(), "full", version, &[]);
        assert_eq!(s["protocolVersion"], version, "{s}");
    }
}

fn shredder(root: &Path) {
    let dir = root.join("shredder/cmp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"domain":"demo","name":"shredder","summary":"Deletes files","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("capability.json"),
        r#"{"intents":[{"patterns":["shred a file"],"command":"rm -f -- {path}","params":{"path":{"type":"string","required":true}},"capabilities":["fs:delete"]}]}"#,
    )
    .unwrap();
}

/// Consent through the SDK's own elicitation handler: a server request in 2025-11-25, a
/// multi round-trip (`input_required`, retried with `inputResponses`) in 2026-07-28.
#[test]
fn python_sdk_gives_consent_in_both_eras() {
    if no_python_sdk() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let extra = home.path().join("extra");
    shredder(&extra);
    for era in ["auto", "2025-11-25"] {
        let target = home.path().join(format!("target-{era}"));
        std::fs::write(&target, "x").unwrap();
        let s = python(
            home.path(),
            "consent",
            era,
            &[extra.to_str().unwrap(), target.to_str().unwrap()],
        );
        assert_eq!(s["asked"], 1, "{s}");
        assert!(!target.exists());
    }
}

#[test]
fn python_sdk_calls_every_example_of_every_tool() {
    if no_python_sdk() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let (file, count) = examples_file(home.path());
    for era in ["auto", "2025-11-25"] {
        let s = python(home.path(), "examples", era, &[file.to_str().unwrap()]);
        assert_eq!(s["examples"], count, "{s}");
    }
}

/// The `pipe` tool runs each bundled recipe (recipes/*.json) through the SDK and answers its
/// documented output, in both eras.
#[test]
fn python_sdk_runs_every_bundled_recipe_through_pipe() {
    if no_python_sdk() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let recipe: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let example = &recipe["example"];
        cases.push(json!({
            "tool": "pipe",
            "input": {"recipe": name, "input": example["input"]},
            "expect": example["output"],
        }));
        // The same recipe given as its steps rather than by name.
        cases.push(json!({
            "tool": "pipe",
            "input": {"steps": recipe["steps"], "input": example["input"]},
            "expect": example["output"],
        }));
    }
    assert_eq!(cases.len(), 10);
    let file = home.path().join("recipes.json");
    std::fs::write(&file, serde_json::to_vec(&cases).unwrap()).unwrap();
    for era in ["auto", "2025-11-25"] {
        let s = python(home.path(), "examples", era, &[file.to_str().unwrap()]);
        assert_eq!(s["examples"], 10, "{s}");
    }
}

#[test]
fn typescript_sdks_call_every_example_on_one_page_in_both_eras() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let (file, count) = examples_file(home.path());
    let script = format!("{SCRIPTS}/ts_client.mjs");
    for (flavour, version) in [("v1", "2025-11-25"), ("v2", "2026-07-28")] {
        let s = run(
            "node",
            &[
                &script,
                modules.to_str().unwrap(),
                common::bin(),
                home.path().to_str().unwrap(),
                flavour,
                file.to_str().unwrap(),
            ],
        );
        assert_eq!(s["calls"], count, "{s}");
        assert_eq!(s["failures"], 0, "{s}");
        if flavour == "v2" {
            assert_eq!(s["protocolVersion"], version, "{s}");
        }
    }
}
