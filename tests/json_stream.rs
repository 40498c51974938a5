//! json-formatter and json-minifier over a `@path` file (streamed) print what the ordinary
//! path prints for the same text given inline, errors included, and write `--output-file`
//! only for valid input.

use crate::common;

use common::Test;

fn normalised(stdout: &str) -> String {
    let re = regex::Regex::new(r#""executionTime":[0-9.e+-]+"#).unwrap();
    re.replace(stdout, r#""executionTime":0"#).into_owned()
}

/// A document with every kind of token, escapes, non-ASCII text and empty containers, about
/// 100 KB (an inline argument must stay under the kernel's 128 KiB per argument).
fn document() -> String {
    let item = r#"{"id": 12345678901234567890123, "f": [1.0, -0.5E-7, 1e400], "s": "tab\t \"q\" \\ \/ \u00e9 é 東京 😀",
  "e": {}, "a": [ ], "n": null, "t": true, "deep": [[[{"x": [false]}]]]}"#;
    let items: Vec<&str> = std::iter::repeat_n(item, 500).collect();
    format!("\u{feff}[\n{}\n]\n", items.join(",\n"))
}

#[track_caller]
fn same_as_inline(text: &str, tool: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.json");
    std::fs::write(&file, text).unwrap();
    let at = format!("@{}", file.display());
    let mut args = vec!["run", tool, "--input", at.as_str()];
    args.extend_from_slice(extra);
    let streamed = Test::new().args(&args).run();
    args[3] = text;
    let inline = Test::new().args(&args).run();
    assert_eq!(streamed.code, inline.code, "{}", streamed.stderr);
    assert_eq!(normalised(&streamed.stdout), normalised(&inline.stdout));
    streamed.json()
}

#[test]
fn streamed_output_is_byte_identical_to_inline() {
    let doc = document();
    for extra in [
        &[][..],
        &["--indent", "4"],
        &["--indent", "tab", "--ensureAscii"],
        &["--indent", "8"],
        &["--sortKeys"],
    ] {
        let v = same_as_inline(&doc, "json-formatter", extra);
        assert_eq!(v["success"], true);
    }
    let v = same_as_inline(&doc, "json-minifier", &["--ensureAscii"]);
    assert_eq!(v["data"]["originalSize"], doc.len());
    let v = same_as_inline(&doc, "json-minifier", &[]);
    assert_eq!(
        v["data"]["minifiedSize"],
        v["data"]["output"].as_str().unwrap().len()
    );
    assert!(
        v["data"]["output"]
            .as_str()
            .unwrap()
            .starts_with(r#"[{"id":12345678901234567890123,"f":[1.0,-0.5E-7,1e400],"s":"tab\t \"q\" \\ \/ \u00e9 é 東京 😀","e":{},"a":[],"#)
    );
}

#[test]
fn streamed_errors_are_the_inline_errors() {
    let doc = document();
    // A trailing comma near the end, a control character, a leading zero, too deep, empty.
    let broken = [
        doc.replacen("[false]", "[false,]", 1),
        doc.replacen("tab\\t", "tab\t", 1),
        doc.replacen("-0.5E-7", "-05", 1),
        format!("{}1{}", "[".repeat(129), "]".repeat(129)),
        " \n\t ".to_string(),
    ];
    let expected = [
        "invalid JSON at line 2, column 131: expected value",
        "invalid JSON at line 1, column 2: expected value",
        "",
        "input nests deeper than 128 levels (at line 1, column 129)",
        "input is empty",
    ];
    for (text, want) in broken.iter().zip(expected) {
        for tool in ["json-formatter", "json-minifier"] {
            let v = same_as_inline(text, tool, &[]);
            assert_eq!(v["success"], false);
            assert_eq!(v["errorCode"], "INVALID_INPUT");
            let msg = v["error"].as_str().unwrap();
            assert!(
                msg.starts_with("invalid JSON") || msg.starts_with(want),
                "{msg}"
            );
        }
    }
}

#[test]
fn output_file_is_written_only_for_valid_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.json");
    let doc = document();
    std::fs::write(&input, &doc).unwrap();
    let at = format!("@{}", input.display());
    let target = dir.path().join("out.json");
    let out = target.display().to_string();
    let r = Test::new()
        .args([
            "run",
            "json-formatter",
            "--input",
            &at,
            "--output-file",
            &out,
        ])
        .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let inline = Test::new()
        .args(["run", "json-formatter", "--input", &doc])
        .run()
        .json();
    let written = std::fs::read_to_string(&target).unwrap();
    assert_eq!(written, inline["data"]["output"].as_str().unwrap());
    assert_eq!(r.json()["data"]["outputFile"]["bytes"], written.len());

    std::fs::write(&input, doc.replacen("null", "nul", 1)).unwrap();
    let target = dir.path().join("bad.json");
    let bad = target.display().to_string();
    let r = Test::new()
        .args([
            "run",
            "json-minifier",
            "--input",
            &at,
            "--output-file",
            &bad,
        ])
        .run();
    assert_eq!(r.code, 1);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid JSON at line")
    );
    assert!(!target.exists(), "no output file for invalid input");
}
