//! Every catalogue file validates against the normative CTP schema, and every result cmpx prints
//! (success and error) validates against the CTP result schema.

use crate::common;

use common::{Test, assert_valid, schema};
use serde_json::{Value, json};
use std::path::Path;

fn catalogue_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogue");
    let mut files = Vec::new();
    for category in std::fs::read_dir(&root).unwrap() {
        let category = category.unwrap().path();
        if category.is_dir() {
            for f in std::fs::read_dir(&category).unwrap() {
                let f = f.unwrap().path();
                // `<id>.cmpx.json` is the tool's contract, not a CTP document.
                let contract = f.to_string_lossy().ends_with(".cmpx.json");
                if f.extension().is_some_and(|e| e == "json") && !contract {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_catalogue_file_validates_against_the_ctp_schema() {
    let files = catalogue_files();
    assert!(!files.is_empty());
    let Some(validator) = schema("tool-definition.schema.json") else {
        // Without the schemas, cmpx's own rules (which the unit tests also run) must still hold.
        let problems = cmpx::ctp::rules::check_catalogue(cmpx::catalogue::all());
        assert!(problems.is_empty(), "{problems:#?}");
        return;
    };
    for f in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        assert_valid(&validator, &doc, &f.display().to_string());
    }
}

#[test]
fn the_schema_rejects_what_cmpx_rejects() {
    // A guard that the validator is really applied: an extra field must fail it.
    let Some(validator) = schema("tool-definition.schema.json") else {
        return;
    };
    let mut doc = serde_json::to_value(&cmpx::catalogue::all()[0]).unwrap();
    assert!(validator.is_valid(&doc));
    doc["surprise"] = json!(true);
    assert!(!validator.is_valid(&doc));
}

fn check_result(
    out: &common::Output,
    validator: Option<&jsonschema::Validator>,
    what: &str,
) -> Value {
    let doc = out.json();
    if let Some(v) = validator {
        assert_valid(v, &doc, what);
    }
    doc
}

#[test]
fn every_example_result_validates_against_the_result_schema() {
    let validator = schema("tool-result.schema.json");
    let mut t = Test::new();
    for def in cmpx::catalogue::all() {
        let args = serde_json::to_string(&def.example.input).unwrap();
        let out = t.args(["run", &def.id, "--args", &args]).run();
        assert_eq!(out.code, 0, "{}: {}", def.id, out.stdout);
        let doc = check_result(&out, validator.as_ref(), &def.id);
        assert_eq!(doc["success"], true);
        assert_eq!(doc["metadata"]["toolVersion"], def.version());
    }
}

#[test]
fn error_results_validate_and_carry_the_documented_exit_codes() {
    let validator = schema("tool-result.schema.json");
    let mut t = Test::new();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["run", "no-such-tool"], 4, "NOT_FOUND"),
        (&["run", "base64-encodr", "--input", "x"], 4, "NOT_FOUND"),
        (&["run", "base64-encoder"], 2, "MISSING_REQUIRED"),
        (
            &[
                "run",
                "base64-encoder",
                "--input",
                "x",
                "--lineLength",
                "many",
            ],
            2,
            "TYPE_ERROR",
        ),
        (
            &[
                "run",
                "base64-encoder",
                "--input",
                "x",
                "--lineLength",
                "-3",
            ],
            2,
            "CONSTRAINT_VIOLATION",
        ),
        (
            &[
                "run",
                "base64-encoder",
                "--input",
                "x",
                "--mode",
                "sideways",
            ],
            2,
            "CONSTRAINT_VIOLATION",
        ),
        (
            // An unknown parameter is a usage error, like every other command-line mistake.
            &["run", "base64-encoder", "--input", "x", "--colour", "red"],
            2,
            "INVALID_INPUT",
        ),
        (
            &["run", "base64-encoder", "--args", "{not json"],
            2,
            "INVALID_INPUT",
        ),
        (
            &["run", "base64-encoder", "--input", "@/definitely/not/here"],
            2,
            "INVALID_INPUT",
        ),
        (
            &[
                "run",
                "base64-encoder",
                "--input",
                "%%%",
                "--mode",
                "decode",
            ],
            1,
            "INVALID_INPUT",
        ),
        (&["frobnicate"], 2, "INVALID_INPUT"),
    ];
    for (args, code, error_code) in cases {
        let out = t.args(args.iter()).run();
        assert_eq!(out.code, *code, "{args:?}: {}", out.stdout);
        let doc = check_result(&out, validator.as_ref(), &format!("{args:?}"));
        assert_eq!(doc["success"], false, "{args:?}");
        assert_eq!(doc["errorCode"], *error_code, "{args:?}: {doc}");
        assert!(doc["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
}

#[test]
fn the_catalogue_carries_every_wave_1_and_2a_tool() {
    for id in common::WAVE1.iter().chain(common::WAVE2A) {
        assert!(
            cmpx::catalogue::get(id).is_some(),
            "{id} is missing from the catalogue"
        );
    }
    assert!(cmpx::catalogue::all().len() >= common::WAVE1.len() + common::WAVE2A.len());
}
