//! The agent's path, end to end: export, read each capability, fill the command template with
//! the example input the way an agent would (each value shell-quoted), run it through `sh -c`
//! with cmpx first on PATH, and compare the printed result with the example output.

mod common;

use common::Test;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A parameter value as an agent writes it on a command line.
fn word(value: &Value) -> String {
    let text = match value {
        Value::String(s) if s.starts_with('@') => format!("@{s}"),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    shell_words::quote(&text).into_owned()
}

#[test]
fn every_exported_command_reproduces_its_example() {
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let bin_dir = Path::new(common::bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for def in cmpx::catalogue::all() {
        let cmp = t.tools_dir().join(&def.id).join("cmp");
        let cap: Value =
            serde_json::from_slice(&std::fs::read(cmp.join("capability.json")).unwrap()).unwrap();
        let examples: Value =
            serde_json::from_slice(&std::fs::read(cmp.join("examples.json")).unwrap()).unwrap();
        let example = &examples["examples"][0];
        let context = example["invocation"]["context"].as_object().unwrap();
        let mut command = cap["intents"][0]["command"].as_str().unwrap().to_string();
        for (name, value) in context {
            let placeholder = format!("{{{name}}}");
            if command.contains(&placeholder) {
                command = command.replace(&placeholder, &word(value));
            } else {
                command.push_str(&format!(" --{name} {}", word(value)));
            }
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .env("PATH", &path)
            .env("CMP_HOME", t.home())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{command}: {e}\n{stdout}"));
        assert_eq!(doc["success"], true, "{command}: {doc}");
        if cmpx::tools::NONDETERMINISTIC.contains(&def.id.as_str()) {
            assert!(
                cmpx::tools::same_shape(&doc["data"], &example["result"]),
                "{command}: {doc}"
            );
        } else {
            assert_eq!(doc["data"], example["result"], "{command}");
        }
    }
}
