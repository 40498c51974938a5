//! `cmpx export`: valid CMP folders, atomic and idempotent, never clobbering a user's files.

use crate::common;

use common::Test;
use serde_json::Value;
use std::path::Path;
use std::time::SystemTime;

/// Catalogue tools plus the bundled adapters whose programs are on this machine.
fn exported_count() -> usize {
    let adapters = cmpx::adapters::all()
        .iter()
        .filter(|a| a.missing_programs().is_empty())
        .count();
    cmpx::catalogue::all().len() + adapters
}

fn mtimes(dir: &Path) -> Vec<(String, SystemTime)> {
    let mut out = Vec::new();
    for tool in std::fs::read_dir(dir).unwrap() {
        let tool = tool.unwrap().path();
        for f in [
            "cmp/manifest.json",
            "cmp/capability.json",
            "cmp/examples.json",
            ".cmpx-export.json",
        ] {
            let p = tool.join(f);
            out.push((
                p.display().to_string(),
                std::fs::metadata(&p).unwrap().modified().unwrap(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn exports_one_valid_folder_per_tool() {
    let mut t = Test::new();
    let target = t.home().join("out");
    let out = t.args(["export", "--to", target.to_str().unwrap()]).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.json();
    assert_eq!(
        report["created"].as_array().unwrap().len(),
        exported_count()
    );
    for def in cmpx::catalogue::all() {
        let dir = target.join(&def.id);
        let problems = cmpx::cmp::validate::check_folder(&dir);
        assert!(problems.is_empty(), "{problems:#?}");
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(dir.join("cmp/manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["name"], def.id.as_str());
        assert_eq!(manifest["domain"], def.category.as_str());
        assert_eq!(manifest["binary"], "cmpx");
    }
}

/// An exported adapter folder is valid CMP and shows only `cmpx run` lines as commands: the
/// program's own line is kept in `program`, and each example's `command` is its intent's line
/// filled from the example. The bundled folder itself keeps the program's command (issue 39).
#[test]
fn exported_adapters_present_cmpx_run_commands() {
    for adapter in cmpx::adapters::all() {
        let bundle = adapter.bundle();
        let file = |rel: &str| -> Value {
            let (_, bytes) = bundle.files.iter().find(|(r, _)| *r == rel).unwrap();
            serde_json::from_slice(bytes).unwrap()
        };
        let source = adapter.capability().unwrap();
        let cap: cmpx::cmp::Capability =
            serde_json::from_value(file("cmp/capability.json")).unwrap();
        let problems = cmpx::cmp::validate::check_capability(&cap);
        assert!(problems.is_empty(), "{}: {problems:?}", adapter.name);
        assert_eq!(cap.intents.len(), source.intents.len());
        for (i, (shown, raw)) in cap.intents.iter().zip(&source.intents).enumerate() {
            let prefix = format!("cmpx run {} --intent {i}", adapter.name);
            assert!(
                shown.command.starts_with(&prefix),
                "{}: {}",
                adapter.name,
                shown.command
            );
            assert_eq!(shown.program.as_deref(), Some(raw.command.as_str()));
            assert_eq!(shown.params, raw.params);
            assert!(!raw.command.starts_with("cmpx "), "{}", raw.command);
        }
        for example in file("cmp/examples.json")["examples"].as_array().unwrap() {
            let command = example["command"].as_str().unwrap_or_default();
            assert!(
                command.starts_with(&format!("cmpx run {} --intent ", adapter.name)),
                "{}: {example}",
                adapter.name
            );
        }
    }
}

#[test]
fn default_target_is_cmp_home_tools() {
    let mut t = Test::new();
    let out = t.args(["export"]).run();
    assert_eq!(out.code, 0);
    assert_eq!(out.json()["target"], t.tools_dir().display().to_string());
    assert!(
        t.tools_dir()
            .join("base64-encoder/cmp/manifest.json")
            .is_file()
    );
}

#[test]
fn every_minified_manifest_is_under_50_tokens() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    for def in cmpx::catalogue::all() {
        let text = serde_json::to_string(&cmpx::cmp::mapping::manifest(def)).unwrap();
        let tokens = bpe.encode_with_special_tokens(&text).len();
        assert!(tokens < 50, "{}: {tokens} tokens: {text}", def.id);
    }
}

/// Capability files stay cheap to read: the median is under 600 o200k tokens. The figures
/// print with `cargo test --test export capability -- --nocapture`.
#[test]
fn capability_files_stay_small() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let mut sizes: Vec<(usize, String)> = cmpx::catalogue::all()
        .iter()
        .map(|def| {
            let bundle = cmpx::cmp::export::bundle(def);
            let (_, bytes) = bundle
                .files
                .iter()
                .find(|(name, _)| *name == "cmp/capability.json")
                .unwrap();
            let text = String::from_utf8(bytes.clone()).unwrap();
            (bpe.encode_with_special_tokens(&text).len(), def.id.clone())
        })
        .collect();
    sizes.sort();
    let median = &sizes[sizes.len() / 2];
    let largest = &sizes[sizes.len() - 1];
    println!(
        "capability.json in o200k tokens over {} tools: median {} ({}), largest {} ({})",
        sizes.len(),
        median.0,
        median.1,
        largest.0,
        largest.1
    );
    assert!(median.0 < 600, "median capability is {} tokens", median.0);
}

#[test]
fn a_second_export_rewrites_nothing() {
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let before = mtimes(&t.tools_dir());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let report = t.args(["export"]).run().json();
    assert_eq!(
        report["unchanged"].as_array().unwrap().len(),
        exported_count()
    );
    assert!(report["created"].as_array().unwrap().is_empty());
    assert_eq!(mtimes(&t.tools_dir()), before);
}

#[test]
fn a_user_edit_survives_and_is_reported() {
    let mut t = Test::new();
    t.args(["export"]).run();
    let cap = t.tools_dir().join("base64-encoder/cmp/capability.json");
    std::fs::write(&cap, "{\"intents\": []} // mine").unwrap();
    let report = t.args(["export"]).run().json();
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["tool"], "base64-encoder");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("edited since the last export")
    );
    assert_eq!(
        std::fs::read_to_string(&cap).unwrap(),
        "{\"intents\": []} // mine"
    );

    let report = t.args(["export", "--force"]).run().json();
    assert_eq!(report["updated"], serde_json::json!(["base64-encoder"]));
    assert!(cmpx::cmp::validate::check_folder(&t.tools_dir().join("base64-encoder")).is_empty());
}

#[test]
fn a_deleted_file_counts_as_an_edit() {
    let mut t = Test::new();
    t.args(["export"]).run();
    std::fs::remove_file(t.tools_dir().join("base64-encoder/cmp/examples.json")).unwrap();
    let report = t.args(["export"]).run().json();
    assert_eq!(report["skipped"][0]["tool"], "base64-encoder");
    assert!(
        !t.tools_dir()
            .join("base64-encoder/cmp/examples.json")
            .exists()
    );
}

#[test]
fn a_folder_cmpx_did_not_create_is_left_alone() {
    let mut t = Test::new();
    let theirs = t.tools_dir().join("base64-encoder/cmp");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("manifest.json"), "{\"their\": \"file\"}").unwrap();
    let report = t.args(["export"]).run().json();
    assert_eq!(report["skipped"][0]["tool"], "base64-encoder");
    assert!(
        report["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not created by cmpx")
    );
    assert_eq!(
        std::fs::read_to_string(theirs.join("manifest.json")).unwrap(),
        "{\"their\": \"file\"}"
    );
    assert!(!theirs.join("capability.json").exists());
}

#[test]
fn dry_run_writes_nothing() {
    let mut t = Test::new();
    let out = t.args(["export", "--dry-run"]).run();
    assert_eq!(out.code, 0);
    let report = out.json();
    assert_eq!(report["dryRun"], true);
    assert_eq!(
        report["created"].as_array().unwrap().len(),
        exported_count()
    );
    assert!(!t.tools_dir().exists());
}

#[test]
fn an_unwritable_target_is_a_clear_error() {
    let mut t = Test::new();
    let blocker = t.home().join("file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let out = t
        .args(["export", "--to", blocker.join("tools").to_str().unwrap()])
        .run();
    assert_eq!(out.code, 1);
    let doc = out.json();
    assert_eq!(doc["success"], false);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("cannot create directory"),
        "{doc}"
    );
    assert_eq!(
        std::fs::read_to_string(&blocker).unwrap(),
        "not a directory"
    );
}

#[test]
fn no_temporary_files_are_left_behind() {
    let mut t = Test::new();
    t.args(["export"]).run();
    for entry in walk(&t.tools_dir()) {
        let name = entry.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            !name.starts_with(".cmpx-tmp-") && !name.starts_with(".cmpx-new-"),
            "{}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}
