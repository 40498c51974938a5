//! Consent is exactly the flag `--yes` (or a "y" typed at a terminal): every other spelling or
//! value is a usage error that runs nothing, on every path that can run a confirm or
//! destructive intent, and `--help` anywhere among the flags describes instead of running.

use crate::common;

use common::Test;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn folder(home: &Path, name: &str, intents: Value) {
    let dir = home.join("tools").join(name).join("cmp");
    write(
        &dir.join("manifest.json"),
        &json!({"domain": "test", "name": name, "summary": format!("{name} test tool"), "version": "1.0.0"})
            .to_string(),
    );
    write(
        &dir.join("capability.json"),
        &json!({ "intents": intents }).to_string(),
    );
}

/// A canary file and two tools that would destroy it: `nuke` (destructive) and `blank`
/// (confirm), each with two intents so that `--intent` is needed and can be given both ways.
fn canary_tools(t: &Test) -> PathBuf {
    let canary = t.home().join("canary.txt");
    write(&canary, "still here");
    let path_param = json!({"path": {"type": "string", "required": true, "description": "file"}});
    folder(
        t.home(),
        "nuke",
        json!([
            {"patterns": ["list the canary file"], "command": "ls {path}", "params": path_param},
            {"patterns": ["delete the canary file"], "command": "rm -f {path}", "params": path_param,
             "confirm": true, "destructive": true, "idempotent": false}
        ]),
    );
    folder(
        t.home(),
        "blank",
        json!([
            {"patterns": ["truncate the canary file"], "command": "truncate -s 0 {path}",
             "params": path_param, "confirm": true}
        ]),
    );
    canary
}

const SPELLINGS: &[&[&str]] = &[
    &["--yes=false"],
    &["--yes=no"],
    &["--yes=0"],
    &["--yes=off"],
    &["--yes="],
    &["--yes=true"],
    &["--yes=1"],
    &["--yes", "false"],
    &["--yes", "no"],
    &["--yes", "0"],
    &["--yes", "N"],
    &["--YES"],
    &["--Yes"],
    &["-y"],
    &["--yes-please"],
];

#[test]
fn no_spelling_but_the_flag_itself_gives_consent() {
    let mut t = Test::new();
    let canary = canary_tools(&t);
    let path = canary.to_str().unwrap().to_string();
    let paths: Vec<Vec<String>> = [
        vec!["run", "nuke", "--intent", "1", "--path", &path],
        vec![
            "run",
            "nuke",
            "--intent",
            "delete the canary file",
            "--path",
            &path,
        ],
        vec!["run", "nuke", "--intent=delete", "--path", &path],
        vec!["run", "blank", "--path", &path],
        vec!["do", "delete the canary file", "--path", &path],
        vec!["do", "truncate the canary file", "--path", &path],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect();
    for base in &paths {
        for spelling in SPELLINGS {
            // After the parameters, and (for `do`) before the request too.
            let mut after = base.clone();
            after.extend(spelling.iter().map(|s| s.to_string()));
            let mut variants = vec![after];
            if base[0] == "do" {
                let mut before = vec!["do".to_string()];
                before.extend(spelling.iter().map(|s| s.to_string()));
                before.extend(base[1..].iter().cloned());
                variants.push(before);
            }
            for args in variants {
                let out = t.args(&args).run();
                assert_eq!(
                    std::fs::read_to_string(&canary).unwrap(),
                    "still here",
                    "{args:?} touched the canary: {}",
                    out.stdout
                );
                assert!(
                    out.code == 2 || out.code == 3,
                    "{args:?} exited {}: {}",
                    out.code,
                    out.stdout
                );
                let doc = out.json();
                assert_eq!(doc["success"], false, "{args:?}");
            }
        }
    }
    // A value on --yes is refused by name, before anything else is looked at.
    let out = t
        .args([
            "run",
            "nuke",
            "--intent",
            "1",
            "--path",
            &path,
            "--yes=false",
        ])
        .run();
    assert_eq!(out.code, 2);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("--yes takes no value"),
        "{}",
        out.stdout
    );
    // The control: the flag itself does give consent, so the loops above can fail.
    let out = t.args(["run", "blank", "--path", &path, "--yes"]).run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "");
    let out = t
        .args(["do", "delete the canary file", "--path", &path, "--yes"])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(!canary.exists());
}

#[test]
fn mcp_calls_without_consent_run_nothing() {
    let mut t = Test::new();
    let canary = canary_tools(&t);
    let path = canary.to_str().unwrap();
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}});
    let out = t
        .args(["mcp", "--page-size", "1000"])
        .stdin(format!("{init}\n{list}\n"))
        .run();
    let tools: Vec<String> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["id"] == 1)
        .flat_map(|r| r["result"]["tools"].as_array().cloned().unwrap_or_default())
        .filter_map(|tool| tool["name"].as_str().map(String::from))
        .filter(|n| n.starts_with("nuke.") || n.starts_with("blank."))
        .collect();
    assert_eq!(tools.len(), 3, "{tools:?}");
    let mut input = format!("{init}\n");
    for (i, name) in tools.iter().enumerate() {
        for args in [
            json!({"path": path}),
            json!({"path": path, "yes": true}),
            json!({"path": path, "yes": "false"}),
        ] {
            input += &format!(
                "{}\n",
                json!({"jsonrpc":"2.0","id": i + 10,"method":"tools/call","params": {"name": name, "arguments": args}})
            );
        }
    }
    let out = t.args(["mcp"]).stdin(input).run();
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "still here");
    let replies: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r["id"] != 0)
        .collect();
    assert_eq!(replies.len(), 9, "{}", out.stdout);
    for r in &replies {
        let name_is_safe = r["result"]["isError"] == false;
        // Only the harmless `ls` intent may succeed, and only without a stray argument.
        if name_is_safe {
            let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
            assert!(text.contains("\"ls\""), "a call ran: {r}");
        }
    }
}

#[test]
fn help_anywhere_among_the_flags_runs_nothing() {
    let mut t = Test::new();
    let canary = canary_tools(&t);
    let path = canary.to_str().unwrap();
    for args in [
        vec!["run", "nuke", "--intent", "1", "--path", path, "--help"],
        vec![
            "run", "nuke", "--intent", "1", "--help", "--path", path, "--yes",
        ],
        vec![
            "run", "nuke", "--intent", "1", "-h", "--path", path, "--yes",
        ],
        vec!["run", "nuke", "--path", path, "--yes", "--help"],
        vec!["run", "blank", "--path", path, "--yes", "--help"],
        vec![
            "do",
            "delete the canary file",
            "--path",
            path,
            "--yes",
            "--help",
        ],
        vec!["run", "base64-encoder", "--input", "x", "--help"],
    ] {
        let out = t.args(&args).run();
        assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(
            std::fs::read_to_string(&canary).unwrap(),
            "still here",
            "{args:?} ran something"
        );
        assert!(
            out.stdout.contains("Parameters") || out.stdout.contains("Intents"),
            "{args:?}: {}",
            out.stdout
        );
        assert!(
            out.stdout.contains("--yes"),
            "{args:?}: no run flags listed"
        );
    }
    // `--help` as a parameter's value is that value, not a request for help.
    let out = t.args(["run", "base64-encoder", "--input", "--help"]).run();
    assert_eq!(out.json()["data"]["output"], "LS1oZWxw");
}

#[test]
fn run_help_lists_the_run_flags() {
    let mut t = Test::new();
    let out = t.args(["run", "--help"]).run();
    for flag in [
        "--intent",
        "--yes",
        "--dry-run",
        "--timeout",
        "--output-file",
        "--json",
        "--pretty",
    ] {
        assert!(out.stdout.contains(flag), "{flag} missing:\n{}", out.stdout);
    }
}
