//! The agent's path, literally, as the snippet states it: export, list the tools folder, read
//! a tool's manifest and capability, pick the intent an example names, replace every
//! `{param}` in its command with the shell-quoted value from the example's context (`''` for
//! one the context leaves out), run it through `sh -c`, and read `success` and `data`. Nothing
//! is appended to a command: what the files say must be enough.

use crate::common;

use common::Test;
use common::fixtures::{read_json, word};
use serde_json::{Map, Value};
use std::path::Path;
use std::process::Command;

/// Fills every `{name}` of `template` from `context`, as the agent would.
fn fill(template: &str, context: &Map<String, Value>) -> String {
    common::fixtures::fill(template, |name| word(context.get(name), true))
}

#[test]
fn every_example_reproduces_by_filling_placeholders_only() {
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let bin_dir = Path::new(common::bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let pending_list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/examples-pending.txt"),
    )
    .unwrap();
    let pending: Vec<&str> = pending_list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let mut failures = Vec::new();
    let mut ran = 0;
    for def in cmpx::catalogue::all() {
        let cmp = t.tools_dir().join(&def.id).join("cmp");
        let manifest = read_json(&cmp.join("manifest.json"));
        assert_eq!(manifest["name"], def.id.as_str());
        let cap = read_json(&cmp.join("capability.json"));
        let examples = read_json(&cmp.join("examples.json"));
        let intents = cap["intents"].as_array().unwrap();
        let examples = examples["examples"].as_array().unwrap();
        if (examples.len() < 3) != pending.contains(&def.id.as_str()) {
            failures.push(format!(
                "{}: {} worked examples (want at least 3), and {} tests/data/examples-pending.txt",
                def.id,
                examples.len(),
                if examples.len() < 3 {
                    "not in"
                } else {
                    "still in"
                }
            ));
        }
        for example in examples {
            let named = example["intent"].as_str().unwrap();
            let Some(intent) = intents.iter().find(|i| i["patterns"][0] == named) else {
                failures.push(format!("{}: no intent has the pattern {named:?}", def.id));
                continue;
            };
            let context = example["invocation"]["context"].as_object().unwrap();
            let command = fill(intent["command"].as_str().unwrap(), context);
            if example["command"] != command.as_str() {
                failures.push(format!(
                    "{}: examples.json says `{}` but filling gives `{command}`",
                    def.id, example["command"]
                ));
            }
            let out = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .env("PATH", &path)
                .env("CMP_HOME", t.home())
                .output()
                .unwrap();
            ran += 1;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let Ok(doc) = serde_json::from_str::<Value>(&stdout) else {
                failures.push(format!("{command}: not one JSON document: {stdout}"));
                continue;
            };
            let same = if cmpx::catalogue::flags(&def.id).always_random() {
                cmpx::tools::same_shape(&doc["data"], &example["result"])
            } else {
                doc["data"] == example["result"]
            };
            if out.status.code() != Some(0) || doc["success"] != true || !same {
                failures.push(format!(
                    "{command}\n  want {}\n  got  {doc}",
                    example["result"]
                ));
            }
        }
    }
    eprintln!("ran {ran} examples by filling placeholders");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_select_option_is_reachable_from_the_capability_file() {
    for def in cmpx::catalogue::all() {
        let cap = cmpx::cmp::mapping::capability(def);
        for p in &def.parameters {
            // Reachable: some intent has a placeholder for it with the option in its enum, or
            // fixes it to that option in its command.
            for option in p.option_values() {
                let reachable = cap.intents.iter().any(|i| {
                    let placeholder = format!("{{{}}}", p.name);
                    let fixed = format!("--{}={}", p.name, shell_words::quote(option));
                    (i.command.contains(&placeholder)
                        && i.params.get(&p.name).is_some_and(|s| {
                            s.enum_values
                                .as_ref()
                                .is_some_and(|e| e.iter().any(|v| v == option))
                        }))
                        || i.command.split(' ').any(|w| w == fixed)
                });
                assert!(reachable, "{}: {}={option} is unreachable", def.id, p.name);
            }
            // Every parameter, optional or not, has a placeholder in the general intent.
            assert!(
                cap.intents[0].command.contains(&format!("{{{}}}", p.name)),
                "{}: --{} has no placeholder",
                def.id,
                p.name
            );
        }
    }
}

/// The snippet's shortcut and the fields it names: `cmpx resolve` lists `candidates`, each with
/// a `command` an agent fills the same way; a run prints `success`, then `data` or `error`.
#[test]
fn the_snippet_shortcut_gives_the_fields_it_names() {
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let snippet = t.args(["agent-setup"]).run().stdout;
    for field in ["candidates", "command", "success", "data", "error"] {
        assert!(
            snippet.contains(field),
            "the snippet no longer names {field}"
        );
    }
    let resolution = t
        .args(["resolve", "convert this identifier to snake_case"])
        .run()
        .json();
    let candidates = resolution["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty(), "{resolution}");
    let best = &candidates[0];
    let template = best["command"].as_str().unwrap();
    let mut context = Map::new();
    context.insert("input".into(), Value::String("userName".into()));
    let command = fill(template, &context);
    let bin_dir = Path::new(common::bin()).parent().unwrap();
    let run = |command: &str| -> Value {
        let out = Command::new("sh")
            .arg("-c")
            .arg(command)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    bin_dir.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("CMP_HOME", t.home())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = run(&command);
    assert_eq!(doc["success"], true, "{command}: {doc}");
    assert_eq!(doc["data"]["output"], "user_name", "{command}: {doc}");
    let doc = run(&fill("cmpx run json-formatter --input={input}", &context));
    assert_eq!(doc["success"], false);
    assert!(
        doc["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{doc}"
    );
}
