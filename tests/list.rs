//! `cmpx list` and `cmpx show` read what is installed, skipping broken folders with a reason.

use crate::common;

use common::Test;
use std::path::Path;

fn write_tool(root: &Path, folder: &str, sub: &str, manifest: &str) {
    let dir = root.join(folder).join(sub);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("manifest.json"), manifest).unwrap();
    std::fs::write(
        dir.join("capability.json"),
        r#"{"intents":[{"patterns":["say hi"],"command":"echo hi"}]}"#,
    )
    .unwrap();
}

#[test]
fn lists_exported_and_third_party_tools_and_skips_broken_ones() {
    let mut t = Test::new();
    t.args(["export"]).run();
    let extra = t.home().join("extra");
    write_tool(
        &extra,
        "hello",
        ".cmp",
        r#"{"domain":"demo","name":"hello","summary":"Says hi","version":"0.1.0"}"#,
    );
    write_tool(&extra, "broken", "cmp", "{ nope");
    write_tool(
        &extra,
        "partial",
        "cmp",
        r#"{"domain":"demo","name":"partial"}"#,
    );
    let long = "x".repeat(101);
    write_tool(
        &extra,
        "wordy",
        "cmp",
        &format!(r#"{{"domain":"d","name":"wordy","summary":"{long}","version":"1.0.0"}}"#),
    );
    let out = t
        .args(["list"])
        .env("CMP_TOOL_PATH", format!("{}:/nonexistent", extra.display()))
        .run();
    assert_eq!(out.code, 0);
    let doc = out.json();
    let names: Vec<&str> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let adapters = cmpx::adapters::all()
        .iter()
        .filter(|a| a.missing_programs().is_empty())
        .count();
    assert_eq!(names.len(), cmpx::catalogue::all().len() + adapters + 1);
    assert!(names.contains(&"hello") && names.contains(&"base64-encoder"));
    let skipped = doc["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 3, "{skipped:#?}");
    for (folder, reason) in [
        ("broken", "not a valid CMP file"),
        ("partial", "missing field"),
        ("wordy", "summary"),
    ] {
        assert!(
            skipped
                .iter()
                .any(|s| s["path"].as_str().unwrap().contains(folder)
                    && s["reason"].as_str().unwrap().contains(reason)),
            "{folder}: {skipped:#?}"
        );
        assert!(
            out.stderr.contains(folder),
            "stderr names {folder}: {}",
            out.stderr
        );
    }
}

#[test]
fn list_filters_by_domain() {
    let mut t = Test::new();
    t.args(["export"]).run();
    let doc = t.args(["list", "--domain", "encoders"]).run().json();
    let tools = doc["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    assert!(tools.iter().all(|t| t["domain"] == "encoders"));
    let expected = cmpx::catalogue::all()
        .iter()
        .filter(|d| d.category == "encoders")
        .count();
    assert_eq!(tools.len(), expected);
}

#[test]
fn show_prints_the_installed_files_or_suggests_a_name() {
    let mut t = Test::new();
    t.args(["export"]).run();
    let doc = t.args(["show", "base64-encoder"]).run().json();
    assert_eq!(doc["installed"], true);
    assert_eq!(doc["manifest"]["name"], "base64-encoder");
    assert_eq!(
        doc["capability"]["intents"][0]["command"],
        "cmpx run base64-encoder --input={input} --mode={mode} --variant={variant} --padding={padding} --lineLength={lineLength} --perLine={perLine}"
    );
    let out = t.args(["show", "base64-encodr"]).run();
    assert_eq!(out.code, 4);
    assert_eq!(out.json()["data"]["didYouMean"], "base64-encoder");
}

#[test]
fn an_empty_home_lists_nothing() {
    let mut t = Test::new();
    let out = t.args(["list"]).run();
    assert_eq!(out.code, 0);
    assert_eq!(out.json()["count"], 0);
}
