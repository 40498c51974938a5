//! `cmpx validate --lock` and `--against`: tool versions checked against an older surface,
//! through the real binary, for catalogue definitions and exported CMP folders alike.

use crate::common;

use common::Test;
use serde_json::{Value, json};
use std::path::Path;

const LOCK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/catalogue/versions.lock.json");

fn definition(home: &Path, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    definition_named(home, "base64-encoder.json", edit)
}

fn definition_named(home: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let source = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/catalogue/encoders/base64-encoder.json"
    );
    let mut def: Value = serde_json::from_str(&std::fs::read_to_string(source).unwrap()).unwrap();
    edit(&mut def);
    let path = home.join(name);
    std::fs::write(&path, serde_json::to_vec(&def).unwrap()).unwrap();
    path
}

/// A lock of base64-encoder as it is, at version 1.0.0, so the expected versions below do not
/// follow the catalogue's.
fn old_lock(home: &Path) -> std::path::PathBuf {
    let file = definition_named(home, "original.json", |d| d["version"] = json!("1.0.0"));
    let out = Test::new()
        .args(["validate", "--lock", file.to_str().unwrap()])
        .run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let path = home.join("old.lock.json");
    std::fs::write(&path, out.stdout).unwrap();
    path
}

fn rename_line_length(def: &mut Value) {
    def["version"] = json!("1.0.0");
    for p in def["parameters"].as_array_mut().unwrap() {
        if p["name"] == "lineLength" {
            p["name"] = json!("wrap");
        }
    }
}

#[test]
fn exported_folders_match_the_catalogue_lock() {
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let tools = t.tools_dir();
    let out = Test::new()
        .args([
            "validate",
            "--json",
            "--against",
            LOCK,
            tools.to_str().unwrap(),
        ])
        .run();
    let v = out.json();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(v["compared"], cmpx::catalogue::all().len());
    assert_eq!(v["changed"], json!([]));
    // The bundled adapters are exported too, and are not in the catalogue's lock.
    assert!(v["added"].as_array().unwrap().contains(&json!("git")));
}

#[test]
fn a_renamed_parameter_needs_a_major_version() {
    let t = Test::new();
    let lock = old_lock(t.home());
    let lock = lock.to_str().unwrap();
    let file = definition(t.home(), rename_line_length);
    let out = Test::new()
        .args([
            "validate",
            "--json",
            "--against",
            lock,
            file.to_str().unwrap(),
        ])
        .run();
    assert_eq!(out.code, 1, "{}", out.stdout);
    let v = out.json();
    assert_eq!(v["valid"], false);
    assert_eq!(
        v["changed"][0]["problem"],
        "base64-encoder: parameter `lineLength` removed; a breaking change needs version 2.0.0 or later (is 1.0.0)"
    );
    let bumped = definition(t.home(), |d| {
        rename_line_length(d);
        d["version"] = json!("2.0.0");
    });
    let out = Test::new()
        .args([
            "validate",
            "--json",
            "--against",
            lock,
            bumped.to_str().unwrap(),
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["changed"][0]["needs"], "major");
}

#[test]
fn an_optional_parameter_needs_a_minor_version() {
    let t = Test::new();
    let lock = old_lock(t.home());
    let lock = lock.to_str().unwrap();
    let add = |d: &mut Value| {
        d["parameters"].as_array_mut().unwrap().push(json!({
            "name": "finalNewline", "type": "boolean", "label": "Final newline",
            "description": "End the output with a newline", "required": false, "defaultValue": false
        }));
    };
    let file = definition(t.home(), |d| {
        add(d);
        d["version"] = json!("1.0.1");
    });
    let out = Test::new()
        .args([
            "validate",
            "--json",
            "--against",
            lock,
            file.to_str().unwrap(),
        ])
        .run();
    assert_eq!(out.code, 1);
    let v = out.json();
    assert_eq!(
        v["changed"][0]["changes"],
        json!([{"bump": "minor", "what": "optional parameter `finalNewline` added"}])
    );
    assert!(
        v["changed"][0]["problem"]
            .as_str()
            .unwrap()
            .ends_with("an additive change needs version 1.1.0 or later (is 1.0.1)")
    );
    let file = definition(t.home(), |d| {
        add(d);
        d["version"] = json!("1.1.0");
    });
    let out = Test::new()
        .args(["validate", "--against", lock, file.to_str().unwrap()])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn the_lock_is_printed_and_bad_locks_are_refused() {
    let out = Test::new().args(["validate", "--lock"]).run();
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, std::fs::read_to_string(LOCK).unwrap());
    let t = Test::new();
    let bad = t.home().join("old.lock.json");
    std::fs::write(&bad, "{\"x\": [1, 2]").unwrap();
    let out = Test::new()
        .args(["validate", "--against", bad.to_str().unwrap()])
        .run();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.json()["errorCode"], "INVALID_INPUT");
    assert!(
        out.stdout.contains("old.lock.json: not a cmpx lock file"),
        "{}",
        out.stdout
    );
    let out = Test::new()
        .args(["validate", "--against", "/nonexistent/old"])
        .run();
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("/nonexistent/old: no such file or directory"),
        "{}",
        out.stdout
    );
}
