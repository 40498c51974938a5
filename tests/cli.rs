//! The command-line contract: one JSON document on stdout, facets, parameter sources, exit codes.

use crate::common;

use common::Test;
use serde_json::json;

#[test]
fn success_prints_one_result_and_exits_zero() {
    let mut t = Test::new();
    let out = t.args(["run", "base64-encoder", "--input", "hello"]).run();
    assert_eq!(out.code, 0);
    let doc = out.json();
    assert_eq!(doc["success"], true);
    assert_eq!(doc["data"]["output"], "aGVsbG8=");
    assert!(doc["metadata"]["executionTime"].is_number());
    // The bytes of the values given: "hello".
    assert_eq!(doc["metadata"]["inputSize"], 5);
    assert!(!out.stdout.trim_end().contains('\n'), "compact by default");
}

#[test]
fn pretty_indents_the_same_document() {
    let mut t = Test::new();
    let compact = t
        .args(["run", "base64-encoder", "--input", "hello"])
        .run()
        .json();
    let out = t
        .args(["run", "base64-encoder", "--input", "hello", "--pretty"])
        .run();
    assert!(out.stdout.contains("\n  \"success\": true"));
    let mut pretty = out.json();
    pretty["metadata"]["executionTime"] = compact["metadata"]["executionTime"].clone();
    assert_eq!(pretty, compact);
}

#[test]
fn values_come_from_files_stdin_and_args() {
    let mut t = Test::new();
    let file = t.home().join("in.txt");
    std::fs::write(&file, "foobar").unwrap();
    let out = t
        .args([
            "run",
            "base64-encoder",
            "--input",
            &format!("@{}", file.display()),
        ])
        .run();
    assert_eq!(out.json()["data"]["output"], "Zm9vYmFy");
    let out = t
        .args(["run", "base64-encoder", "--input", "-"])
        .stdin("foob")
        .run();
    assert_eq!(out.json()["data"]["output"], "Zm9vYg==");
    let out = t
        .args([
            "run",
            "base64-encoder",
            "--args",
            r#"{"input":"Zm8=","mode":"decode"}"#,
        ])
        .run();
    assert_eq!(out.json()["data"]["output"], "fo");
    let out = t.args(["run", "base64-encoder", "--input", "@@me"]).run();
    assert_eq!(out.json()["data"]["output"], "QG1l");
}

#[test]
fn invalid_utf8_from_a_file_is_a_clear_usage_error() {
    let mut t = Test::new();
    let file = t.home().join("bin.dat");
    std::fs::write(&file, [0x66, 0xff, 0xfe]).unwrap();
    let at = format!("@{}", file.display());
    let out = t.args(["run", "url-encoder", "--input", &at]).run();
    assert_eq!(out.code, 2);
    let doc = out.json();
    assert!(
        doc["error"].as_str().unwrap().contains("not valid UTF-8"),
        "{doc}"
    );
    // The tools that stream a file take its bytes, as `base64` and `sha256sum` do.
    let out = t.args(["run", "base64-encoder", "--input", &at]).run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["data"]["output"], "Zv/+");
}

#[test]
fn exit_code_1_when_the_tool_rejects_the_input() {
    let mut t = Test::new();
    let out = t
        .args([
            "run",
            "base64-encoder",
            "--input",
            "***",
            "--mode",
            "decode",
        ])
        .run();
    assert_eq!(out.code, 1);
    assert_eq!(out.json()["errorCode"], "INVALID_INPUT");
}

#[test]
fn exit_code_2_for_usage_and_parameter_errors() {
    let mut t = Test::new();
    for args in [
        vec!["run", "base64-encoder"],
        vec![
            "run",
            "base64-encoder",
            "--input",
            "x",
            "--padding",
            "maybe",
        ],
        vec!["run", "base64-encoder", "--input"],
        vec!["run", "base64-encoder", "--input", "a", "--input", "b"],
        vec!["export", "--bogus"],
    ] {
        let out = t.args(&args).run();
        assert_eq!(out.code, 2, "{args:?}: {}", out.stdout);
        assert_eq!(out.json()["success"], false, "{args:?}");
    }
}

#[test]
fn exit_code_4_for_unknown_tools_with_a_suggestion() {
    let mut t = Test::new();
    let out = t.args(["run", "json-formater"]).run();
    assert_eq!(out.code, 4);
    let doc = out.json();
    assert_eq!(doc["errorCode"], "NOT_FOUND");
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("unknown tool 'json-formater'")
    );
}

#[test]
fn validation_messages_name_the_parameter_rule_and_value() {
    let mut t = Test::new();
    let doc = t
        .args([
            "run",
            "base64-encoder",
            "--input",
            "x",
            "--lineLength",
            "-1",
        ])
        .run()
        .json();
    assert_eq!(doc["errorCode"], "CONSTRAINT_VIOLATION");
    assert_eq!(
        doc["error"],
        "parameter 'lineLength' violates min 0; received -1"
    );
    let doc = t
        .args(["run", "base64-encoder", "--input", "x", "--mode", "encdoe"])
        .run()
        .json();
    assert_eq!(
        doc["error"],
        "parameter 'mode' violates options [encode, decode]; received 'encdoe' (did you mean 'encode'?)"
    );
    let doc = t
        .args(["run", "base64-encoder", "--args", r#"{"input": 42}"#])
        .run()
        .json();
    assert_eq!(doc["errorCode"], "TYPE_ERROR");
    assert_eq!(
        doc["error"],
        "parameter 'input' (textarea) expects a string, received number 42"
    );
}

#[test]
fn agent_mode_env_forces_json_and_control_characters_are_escaped() {
    let mut t = Test::new();
    let out = t
        .args(["run", "no\u{1b}[31mtool"])
        .env("CMP_AGENT", "1")
        .run();
    let doc = out.json();
    assert!(!doc["error"].as_str().unwrap().contains('\u{1b}'));
}

#[test]
fn tool_help_lists_parameters() {
    let mut t = Test::new();
    let out = t.args(["run", "base64-encoder", "--help"]).run();
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("--lineLength <number>"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("one of: encode, decode"));
}

#[test]
fn works_from_any_directory() {
    let mut t = Test::new();
    let out = t
        .args(["run", "base64-encoder", "--input", "hi"])
        .cwd("/")
        .run();
    assert_eq!(
        out.json()["data"],
        json!({"output": "aGk=", "mode": "encode", "variant": "standard"})
    );
}

/// Issue 39: `--input=config.yaml` beside a file of that name is the text, as always, but the
/// result says so and names `@config.yaml`; `@config.yaml` converts the file.
#[test]
fn a_value_that_names_a_file_gets_a_warning_naming_at_path() {
    let mut t = Test::new();
    let dir = t.home().join("project");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), "name: cmpx\nport: 8080\n").unwrap();
    let out = t
        .cwd(&dir)
        .args(["run", "yaml-to-json", "--input=config.yaml"])
        .run();
    let doc = out.json();
    assert_eq!(doc["success"], true);
    let warnings = doc["metadata"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("--input=@config.yaml")),
        "{warnings:?}"
    );
    assert!(out.stderr.contains("@config.yaml"), "{}", out.stderr);
    let out = t
        .cwd(&dir)
        .args(["run", "yaml-to-json", "--input=@config.yaml"])
        .run();
    let doc = out.json();
    let converted: serde_json::Value =
        serde_json::from_str(doc["data"]["output"].as_str().unwrap()).unwrap();
    assert_eq!(converted, json!({"name": "cmpx", "port": 8080}));
    assert!(doc["metadata"].get("warnings").is_none(), "{doc}");
}
