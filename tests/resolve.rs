//! `cmpx resolve`, `cmpx do`, `cmpx run --intent`, `cmpx install` and `cmpx validate` on
//! installed folders: ours, the bundled adapters, and third-party ones.

use crate::common;

use common::Test;
use serde_json::Value;
use std::path::Path;

fn write_tool(root: &Path, name: &str, capability: &str) {
    let dir = root.join(name).join("cmp");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = format!(
        r#"{{"domain":"demo","name":"{name}","summary":"A third-party test tool","version":"1.0.0"}}"#
    );
    std::fs::write(dir.join("manifest.json"), manifest).unwrap();
    std::fs::write(dir.join("capability.json"), capability).unwrap();
}

/// A third-party tool with a destructive intent that deletes `{path}` and a harmless one.
const SHREDDER: &str = r#"{"intents":[
  {"patterns":["shred the canary file","destroy canary"],"command":"rm -f -- {path}",
   "params":{"path":{"type":"string","required":true}},"destructive":true},
  {"patterns":["greet someone warmly"],"command":"echo hello {name}",
   "params":{"name":{"type":"string","required":false,"default":"world"}}}]}"#;

fn exported() -> Test {
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    t
}

#[test]
fn resolve_ranks_candidates_with_everything_an_agent_needs() {
    let mut t = exported();
    let doc = t
        .args(["resolve", "pretty", "print", "this", "json"])
        .run()
        .json();
    let best = &doc["candidates"][0];
    assert_eq!(best["tool"], "json-formatter");
    assert_eq!(best["intent"]["index"], 0);
    assert!(best["intent"]["pattern"].is_string());
    let score = best["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
    // The short answer: the required placeholder only (an absent flag is its default), and
    // every parameter left to fill in one line.
    assert_eq!(best["command"], "cmpx run json-formatter --input={input}");
    assert_eq!(
        best["params"]["input"],
        "required: The JSON document to format"
    );
    assert!(
        best["params"]["indent"]
            .as_str()
            .unwrap()
            .starts_with("default 2, one of 2|4|8|tab: "),
        "{doc}"
    );
    // No warning is false by omission; the others are one line each.
    assert_eq!(best.get("confirm"), None);
    assert_eq!(best.get("destructive"), None);
    let others = doc["candidates"].as_array().unwrap();
    assert!(others.len() > 1, "{doc}");
    for other in &others[1..] {
        let keys: Vec<&str> = other
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| !["confirm", "destructive"].contains(k))
            .collect();
        assert_eq!(keys, ["tool", "score", "command"], "{other}");
    }
    assert_eq!(doc["confident"], true);
    assert_eq!(doc.get("ambiguous"), None);

    // `--full`: every candidate with every parameter, as before.
    let doc = t
        .args(["resolve", "--full", "pretty", "print", "this", "json"])
        .run()
        .json();
    let best = &doc["candidates"][0];
    assert_eq!(best["tool"], "json-formatter");
    // Every parameter is a placeholder: filling them alone reaches every option.
    assert_eq!(
        best["command"],
        "cmpx run json-formatter --input={input} --indent={indent} --sortKeys={sortKeys} --ensureAscii={ensureAscii}"
    );
    assert_eq!(best["required"], serde_json::json!(["input"]));
    assert_eq!(best["params"]["input"]["required"], true);
    assert_eq!(best["confirm"], false);
    assert_eq!(best["destructive"], false);
    assert_eq!(doc["query"], "pretty print this json");
    assert_eq!(doc["confident"], true);
    assert_eq!(doc["ambiguous"], false);
}

/// A request that names a file gets a command that reads it: `@file` where the tool takes
/// content, the path itself where an adapter takes a path; pasted data fills the one required
/// parameter it can.
#[test]
fn resolve_fills_the_files_and_data_a_request_names() {
    let mut t = exported();
    for (request, command) in [
        (
            "convert config.yaml to json",
            "cmpx run yaml-to-json --input=@config.yaml",
        ),
        (
            "sha256 of ./build/report.pdf",
            "cmpx run hash-generator --input=@./build/report.pdf",
        ),
        (
            "diff a.txt b.txt",
            "cmpx run text-diff --original=@a.txt --modified=@b.txt",
        ),
        (
            "decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            "cmpx run jwt-decoder --token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
        ),
    ] {
        let doc = t.args(["resolve", request]).run().json();
        let best = &doc["candidates"][0];
        assert_eq!(best["command"], command, "{request}: {doc}");
        // What is filled is not asked for again.
        for (name, _) in best["params"].as_object().into_iter().flatten() {
            assert!(
                !command.contains(&format!("--{name}=")),
                "{request}: {name} is filled and listed: {doc}"
            );
        }
    }
    // An adapter that takes a path gets the path itself.
    let doc = t
        .args(["resolve", "what tables are in app.db?"])
        .run()
        .json();
    let best = &doc["candidates"][0];
    assert_eq!(best["tool"], "sqlite", "{doc}");
    let command = best["command"].as_str().unwrap();
    assert!(
        command.contains("app.db") && !command.contains("{db}") && !command.contains('@'),
        "{doc}"
    );
    assert_eq!(best.get("params"), None, "{doc}");
}

/// The short answer is sized for an agent's context: on these everyday requests its median
/// stays under 250 o200k tokens with five candidates, and each is under half the full answer
/// (bench/resolve_tokens.py measures every labelled request).
#[test]
fn the_short_answer_is_small() {
    let mut t = exported();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let mut sizes = Vec::new();
    for request in [
        "pretty print this json",
        "convert config.yaml to json",
        "base64 encode hello",
        "what date is 1700000000",
        "sha256 of report.pdf",
        "list the tables in app.db",
        "slugify My Blog Post Title",
    ] {
        let out = t.args(["resolve", request]).run().stdout;
        let short = bpe.encode_with_special_tokens(&out).len();
        let out = t.args(["resolve", "--full", request]).run().stdout;
        let full = bpe.encode_with_special_tokens(&out).len();
        assert!(
            short * 2 < full,
            "{request}: {short} tokens, {full} in full"
        );
        sizes.push(short);
    }
    sizes.sort();
    assert!(sizes[sizes.len() / 2] < 250, "{sizes:?}");
}

#[test]
fn resolve_reads_samples_typos_and_direction() {
    let mut t = exported();
    for (request, tool) in [
        (
            "decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            "jwt-decoder",
        ),
        ("what date is 1700000000", "timestamp-converter"),
        ("bas64 encode this", "base64-encoder"),
        // Typos judged on the word as typed: "fomatter" stems two edits from "format".
        ("sql fomatter", "sql-formatter"),
        ("xml fomatter", "xml-formatter"),
        ("decmal to binary", "number-base-converter"),
        ("convert yaml to json", "yaml-to-json"),
        ("convert json to yaml", "json-to-yaml"),
        ("generating uuids", "uuid-generator"),
        // A pasted IBAN is an IBAN (it passes mod 97), not a hex number.
        ("is DE89370400440532013000 valid?", "iban-validator"),
        // A pasted CSV is the source: "json to excel" says nothing either way and does not
        // excuse json-to-csv's "json to csv".
        (
            "name,age,city\nAlice,30,Berlin\nBob,25,Lisbon\n-> array of objects",
            "csv-to-json",
        ),
        // Bare status codes are codes when they are the only numbers.
        ("difference between 401 and 403", "http-status-lookup"),
        ("37 out of 412 as a percent", "percentage-calculator"),
        // A pattern anchored at both ends is a regular expression.
        ("does ^[A-Z]{2}\\d{6}$ match AB123456?", "regex-tester"),
        (
            "in telemetry.db run: DELETE FROM events WHERE ts < 5",
            "sqlite",
        ),
        ("what's the mean of 12, 15, 9 and 20", "math-evaluator"),
    ] {
        let doc = t.args(["resolve", request]).run().json();
        assert_eq!(doc["candidates"][0]["tool"], tool, "{request}: {doc}");
    }
}

/// The request's own values choose the mode and fill the choice: a 10-digit time is seconds
/// (the general intent, whose `auto` unit reads it so), 13 digits are milliseconds, and a named
/// algorithm is that algorithm, never a mode fixing another one.
#[test]
fn values_in_the_request_choose_the_mode_and_fill_the_choice() {
    let mut t = exported();
    for (request, pattern, command) in [
        (
            "convert unix timestamp 1700000000 to a date",
            "timestamp converter",
            "cmpx run timestamp-converter --input=1700000000",
        ),
        (
            "what date is 1700000000123",
            "milliseconds to date",
            "cmpx run timestamp-converter --input=1700000000123 --unit=milliseconds",
        ),
        (
            "SHA-256 of report.pdf",
            "hash generator",
            "cmpx run hash-generator --input=@report.pdf",
        ),
        (
            "md5 of setup.iso",
            "md5",
            "cmpx run hash-generator --input=@setup.iso --algorithm=md5",
        ),
        (
            "sha384 of file.bin",
            "hash generator",
            "cmpx run hash-generator --input=@file.bin --algorithm=sha384",
        ),
        (
            "sha3-256 hash of 'abc'",
            "hash generator",
            "cmpx run hash-generator --input=abc --algorithm=sha3-256",
        ),
    ] {
        let doc = t.args(["resolve", request]).run().json();
        let best = &doc["candidates"][0];
        assert_eq!(best["intent"]["pattern"], pattern, "{request}: {doc}");
        assert_eq!(best["command"], command, "{request}: {doc}");
    }
    // `cmpx do` fills the named option as `resolve` writes it.
    let doc = t.args(["do", "--dry-run", "sha384 of 'abc'"]).run().json();
    let argv = doc["data"]["argv"].to_string();
    assert!(argv.contains("--algorithm=sha384"), "{doc}");
}

/// A tool with one mode beside its general intent, whose label names both actions ("bcrypt
/// hash & verify"): the label's words are no evidence for the general intent, so the request
/// that asks to verify gets the verify mode, and the one that asks to hash does not. (A word a
/// mode declares, moved out of the general intent, names that mode: "unfang".)
#[test]
fn the_lone_mode_wins_over_a_label_that_names_both_actions() {
    let mut t = exported();
    for (request, pattern) in [
        ("verify my password against a bcrypt hash", "bcrypt verify"),
        ("does the password match this bcrypt hash", "bcrypt verify"),
        ("hash this password with bcrypt", "bcrypt hash & verify"),
        ("unfang a url", "refang"),
        // The pasted sample is defanged: its form is what the request has, not an action it
        // asks for, so it does not count against refanging it.
        ("unfang hxxps://evil[.]com", "refang"),
        // A typo of the action still names the mode.
        (
            "decdoe base58 3mJr7AoUXx2Wqd into hex bytes",
            "base58 decode",
        ),
        // Phonetic spelling pasted is what the request has: it is to be read back.
        (
            "what does 'Whiskey Hotel Oscar Alpha Mike India' spell",
            "nato to text",
        ),
        // Three decompressing modes tie on the telling words; each is named more than the
        // compressing one that leads on "gzip base64", so their own scores pick among them.
        (
            "gunzip this base64: H4sIAAAAAAACA6tWKi5JLCktVrJSys9W0lFKzi/NK1GyMjGqBQAqjjy0GgAAAA==",
            "gunzip",
        ),
    ] {
        let doc = t.args(["resolve", request]).run().json();
        assert_eq!(
            doc["candidates"][0]["intent"]["pattern"], pattern,
            "{request}: {doc}"
        );
    }
}

/// A pasted sample is already in its form: the mode named for making that form is not what
/// the request wants, unless the request asks for that mode's action in its own words.
#[test]
fn a_sample_is_not_made_again_into_its_own_form() {
    let mut t = exported();
    // (request, wanted tool, an intent it must not lead with, the intent it must lead with)
    for (request, tool, not, want) in [
        (
            "make hxxps://bad[.]example[.]org clickable again",
            "url-defanger",
            Some("defang url"),
            None,
        ),
        (
            "compress H4sIAAAAAAACA6tWKi5JLCktVrJSys9W0lFKzi/NK1GyMjGqBQAqjjy0GgAAAA==",
            "gzip-compressor",
            None,
            Some("gzip compress"),
        ),
        (
            "the error code is 0x80070005, what number is that in base 10",
            "number-base-converter",
            None,
            Some("hex to decimal"),
        ),
        // The general intent generates the header; pasted, the header is read.
        (
            "what creds are in this header? Authorization: Basic ZGVwbG95OnMzY3JldA==",
            "basic-auth-generator",
            None,
            Some("decode basic auth"),
        ),
        (
            "which username and password are in 'Authorization: Basic dXNlcjpwYXNz'?",
            "basic-auth-generator",
            None,
            Some("decode basic auth"),
        ),
        (
            "make a basic auth header for admin / secret",
            "basic-auth-generator",
            Some("decode basic auth"),
            None,
        ),
    ] {
        let doc = t.args(["resolve", request]).run().json();
        let first = &doc["candidates"][0];
        assert_eq!(first["tool"], tool, "{request}: {doc}");
        let intent = &first["intent"]["pattern"];
        if let Some(not) = not {
            assert_ne!(intent, not, "{request}: {doc}");
        }
        if let Some(want) = want {
            assert_eq!(intent, want, "{request}: {doc}");
        }
    }
}

/// "encoding" the noun (a charset) is not "encode" the action: a mode that reads bytes in an
/// encoding is not named by a request to encode.
#[test]
fn encoding_a_charset_is_not_decoding_one() {
    let mut t = exported();
    for (request, want) in [
        (
            "encode 'Größe' as ISO-8859-1 bytes, hex please",
            "encode to charset",
        ),
        (
            "decode these latin-1 bytes to text: 47 72 F6 DF 65",
            "decode charset",
        ),
    ] {
        let doc = t.args(["resolve", request]).run().json();
        assert_eq!(
            doc["candidates"][0]["tool"], "charset-converter",
            "{request}: {doc}"
        );
        assert_eq!(
            doc["candidates"][0]["intent"]["pattern"], want,
            "{request}: {doc}"
        );
    }
}

#[test]
fn resolve_returns_nothing_confident_for_requests_no_tool_serves() {
    let mut t = exported();
    for request in [
        "book a flight to paris",
        "what's the weather in Berlin",
        "hash brown recipe",
        // A read-only tool is not what a request for something new wants.
        "create a self-signed TLS certificate",
    ] {
        let doc = t.args(["resolve", request]).run().json();
        assert_eq!(doc["confident"], false, "{request}: {doc}");
    }
    let doc = t.args(["resolve", "book a flight to paris"]).run().json();
    assert_eq!(doc["candidates"], serde_json::json!([]));
}

#[test]
fn resolve_searches_third_party_roots_and_domains() {
    let mut t = exported();
    let extra = t.home().join("extra");
    write_tool(&extra, "shredder", SHREDDER);
    t.env("CMP_TOOL_PATH", extra.display().to_string());
    let doc = t.args(["resolve", "shred", "the", "canary"]).run().json();
    assert_eq!(doc["candidates"][0]["tool"], "shredder");
    assert_eq!(doc["candidates"][0]["destructive"], true);
    let doc = t
        .args(["resolve", "--domain", "encoders", "encode", "this"])
        .run()
        .json();
    assert!(
        doc["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["tool"] != "shredder")
    );
}

#[test]
fn the_index_is_never_stale_and_safe_to_delete() {
    let mut t = exported();
    let ask = |t: &mut Test| {
        t.args(["resolve", "frobnicate", "the", "widgets"])
            .run()
            .json()
    };
    assert_eq!(ask(&mut t)["candidates"], serde_json::json!([]));
    assert!(t.home().join("cache/resolve-index.bin").is_file());
    // A new folder appears: found at once.
    write_tool(
        &t.tools_dir(),
        "widget",
        r#"{"intents":[{"patterns":["frobnicate the widgets"],"command":"echo a"}]}"#,
    );
    assert_eq!(ask(&mut t)["candidates"][0]["tool"], "widget");
    // Its capability is edited in place: the new patterns count at once.
    std::fs::write(
        t.tools_dir().join("widget/cmp/capability.json"),
        r#"{"intents":[{"patterns":["polish the gadgets"],"command":"echo b"}]}"#,
    )
    .unwrap();
    assert_eq!(ask(&mut t)["candidates"], serde_json::json!([]));
    // The cache is deleted, or replaced by garbage: rebuilt, same answers.
    std::fs::write(t.home().join("cache/resolve-index.bin"), "garbage").unwrap();
    let doc = t.args(["resolve", "polish the gadgets"]).run().json();
    assert_eq!(doc["candidates"][0]["tool"], "widget");
    std::fs::remove_dir_all(t.home().join("cache")).unwrap();
    let doc = t.args(["resolve", "polish the gadgets"]).run().json();
    assert_eq!(
        doc["candidates"][0]["intent"]["pattern"],
        "polish the gadgets"
    );
}

/// Rewrites a file in place (same inode), keeping its size and restoring its modification
/// time to the nanosecond: only the change time can tell.
fn rewrite_in_place_same_size_and_mtime(path: &Path, text: &str) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(
        before.len(),
        text.len() as u64,
        "the edit must keep the size"
    );
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = std::fs::metadata(path).unwrap();
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    assert_eq!(after.len(), before.len());
}

#[test]
fn the_index_follows_folders_added_edited_and_removed() {
    let mut t = exported();
    let tool = |t: &mut Test, q: &str| -> Value {
        t.args(["resolve", q]).run().json()["candidates"][0]["tool"].clone()
    };
    assert_eq!(tool(&mut t, "polish the gadgets"), Value::Null);
    let cache = t.home().join("cache/resolve-index.bin");
    // Added: a new folder is found on the next call, and the cache is rewritten.
    let before = std::fs::read(&cache).unwrap();
    write_tool(
        &t.tools_dir(),
        "gadget",
        r#"{"intents":[{"patterns":["polish the gadgets"],"command":"echo aa"}]}"#,
    );
    assert_eq!(tool(&mut t, "polish the gadgets"), "gadget");
    assert_ne!(std::fs::read(&cache).unwrap(), before);
    // Answered from the cache: the same answer again.
    assert_eq!(tool(&mut t, "polish the gadgets"), "gadget");
    // Edited in place with the same size and the same mtime: the new patterns count.
    let capability = t.tools_dir().join("gadget/cmp/capability.json");
    rewrite_in_place_same_size_and_mtime(
        &capability,
        r#"{"intents":[{"patterns":["scrub the zorblaxy"],"command":"echo aa"}]}"#,
    );
    assert_eq!(tool(&mut t, "polish the gadgets"), Value::Null);
    assert_eq!(tool(&mut t, "scrub the zorblaxy"), "gadget");
    // Its manifest edited the same way: the new name is what resolves.
    let manifest = t.tools_dir().join("gadget/cmp/manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    rewrite_in_place_same_size_and_mtime(&manifest, &text.replace("gadget", "gidget"));
    assert_eq!(tool(&mut t, "scrub the zorblaxy"), "gidget");
    // Moved from cmp/ to .cmp/: still found.
    std::fs::rename(
        t.tools_dir().join("gadget/cmp"),
        t.tools_dir().join("gadget/.cmp"),
    )
    .unwrap();
    assert_eq!(tool(&mut t, "scrub the zorblaxy"), "gidget");
    // Removed: gone on the next call.
    std::fs::remove_dir_all(t.tools_dir().join("gadget")).unwrap();
    assert_eq!(tool(&mut t, "scrub the zorblaxy"), Value::Null);
    // A folder in a CMP_TOOL_PATH root counts too.
    let extra = t.home().join("extra");
    write_tool(
        &extra,
        "sprocketeer",
        r#"{"intents":[{"patterns":["scrub the zorblaxy"],"command":"echo c"}]}"#,
    );
    let doc = t
        .args(["resolve", "scrub the zorblaxy"])
        .env("CMP_TOOL_PATH", extra.to_str().unwrap())
        .run()
        .json();
    assert_eq!(doc["candidates"][0]["tool"], "sprocketeer");
}

#[test]
fn do_runs_a_confident_match_and_dry_run_shows_the_argv() {
    let mut t = exported();
    let out = t.args(["do", "base64", "encode", "--input", "hello"]).run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["data"]["output"], "aGVsbG8=");
    let doc = t
        .args(["do", "base64", "encode", "--input", "hello", "--dry-run"])
        .run()
        .json();
    // The argv as it would run: the value given, and every default written out.
    let argv: Vec<&str> = doc["data"]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        argv[..4],
        ["cmpx", "run", "base64-encoder", "--input=hello"]
    );
    assert!(argv.contains(&"--mode=encode"), "{argv:?}");
    assert_eq!(doc["data"]["dryRun"], true);
}

#[test]
fn do_runs_nothing_without_a_confident_single_match() {
    let mut t = exported();
    let out = t.args(["do", "book", "a", "flight", "--input", "x"]).run();
    assert_eq!(out.code, 4);
    assert_eq!(out.json()["errorCode"], "NOT_FOUND");
    // Two tools equally plausible: candidates printed, exit 6.
    let extra = t.home().join("extra");
    write_tool(
        &extra,
        "twin-a",
        r#"{"intents":[{"patterns":["zorp the blorb"],"command":"touch twin-a-ran"}]}"#,
    );
    write_tool(
        &extra,
        "twin-b",
        r#"{"intents":[{"patterns":["zorp the blorb"],"command":"touch twin-b-ran"}]}"#,
    );
    let home = t.home().to_path_buf();
    t.env("CMP_TOOL_PATH", extra.display().to_string())
        .cwd(home);
    let out = t.args(["do", "zorp", "the", "blorb"]).run();
    assert_eq!(out.code, 6, "{}", out.stdout);
    let doc = out.json();
    assert_eq!(doc["data"]["ambiguous"], true);
    assert_eq!(doc["data"]["candidates"].as_array().unwrap().len(), 2);
    assert!(!t.home().join("twin-a-ran").exists() && !t.home().join("twin-b-ran").exists());
}

#[test]
fn do_takes_the_data_pasted_into_the_request() {
    let mut t = exported();
    let out = t.args(["do", "what date is 1700000000"]).run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["data"]["iso8601"], "2023-11-14T22:13:20Z");
    let out = t.args(["do", "base64 encode 'hello'"]).run();
    assert_eq!(out.json()["data"]["output"], "aGVsbG8=", "{}", out.stdout);
}

#[test]
fn do_names_missing_parameters() {
    let mut t = exported();
    let out = t.args(["do", "base64", "encode"]).run();
    assert_eq!(out.code, 2);
    let doc = out.json();
    assert_eq!(doc["errorCode"], "MISSING_REQUIRED");
    assert!(doc["error"].as_str().unwrap().contains("--input"), "{doc}");
}

#[test]
fn destructive_intents_never_run_without_consent() {
    let mut t = exported();
    let extra = t.home().join("extra");
    write_tool(&extra, "shredder", SHREDDER);
    let canary = t.home().join("canary");
    std::fs::write(&canary, "alive").unwrap();
    t.env("CMP_TOOL_PATH", extra.display().to_string());
    let canary_arg = canary.display().to_string();
    for args in [
        vec![
            "do",
            "shred",
            "the",
            "canary",
            "file",
            "--path",
            &canary_arg,
        ],
        vec!["run", "shredder", "--intent", "0", "--path", &canary_arg],
        vec![
            "run",
            "shredder",
            "--intent",
            "shred the canary file",
            "--path",
            &canary_arg,
        ],
    ] {
        // Environment variables never stand in for consent.
        let out = t
            .args(&args)
            .env("CMP_AGENT", "1")
            .env("CMPX_YES", "1")
            .env("YES", "1")
            .run();
        assert_eq!(out.code, 3, "{args:?}: {}", out.stdout);
        let doc = out.json();
        assert_eq!(doc["errorCode"], "UNAUTHORIZED");
        assert_eq!(doc["data"]["confirmationRequired"], true);
        assert_eq!(
            doc["data"]["argv"],
            serde_json::json!(["rm", "-f", "--", canary_arg])
        );
        assert!(canary.exists(), "{args:?} deleted the canary");
    }
    let out = t
        .args([
            "run",
            "shredder",
            "--intent",
            "0",
            "--path",
            &canary_arg,
            "--yes",
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(!canary.exists());
}

#[test]
fn values_reach_the_program_as_one_literal_word() {
    let mut t = exported();
    let extra = t.home().join("extra");
    write_tool(&extra, "shredder", SHREDDER);
    let home = t.home().to_path_buf();
    t.env("CMP_TOOL_PATH", extra.display().to_string())
        .cwd(home);
    let hostile = "$(touch pwned); rm -rf y `touch pwned2` 'q' \"d\"\nnext && | >out";
    let out = t
        .args([
            "run",
            "shredder",
            "--intent",
            "greet someone",
            "--name",
            hostile,
            // An undeclared folder counts as process:spawn, which asks first.
            "--yes",
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc = out.json();
    assert_eq!(doc["data"]["stdout"], format!("hello {hostile}\n"));
    assert_eq!(
        doc["data"]["argv"],
        serde_json::json!(["echo", "hello", hostile])
    );
    for f in ["pwned", "pwned2", "out", "y"] {
        assert!(!t.home().join(f).exists(), "{f} was created");
    }
}

#[test]
fn several_intents_need_a_choice() {
    let mut t = exported();
    let extra = t.home().join("extra");
    write_tool(&extra, "shredder", SHREDDER);
    t.env("CMP_TOOL_PATH", extra.display().to_string());
    let out = t.args(["run", "shredder"]).run();
    assert_eq!(out.code, 2);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("0: shred the canary file; 1: greet someone warmly")
    );
    let out = t.args(["run", "shredder", "--intent", "7"]).run();
    assert_eq!(out.code, 2);
}

#[test]
fn install_validates_and_copies_a_folder() {
    let mut t = Test::new();
    let src = t.home().join("src");
    write_tool(&src, "shredder", SHREDDER);
    let out = t
        .args(["install", src.join("shredder").to_str().unwrap()])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["installed"], "shredder");
    assert!(t.tools_dir().join("shredder/cmp/capability.json").is_file());
    let out = t
        .args(["install", src.join("shredder").to_str().unwrap()])
        .run();
    assert_eq!(out.code, 2, "already installed without --force");
    let out = t
        .args(["install", "--force", src.join("shredder").to_str().unwrap()])
        .run();
    assert_eq!(out.code, 0);

    write_tool(
        &src,
        "broken",
        r#"{"intents":[{"patterns":["x"],"command":"echo {undeclared}"}]}"#,
    );
    let out = t
        .args(["install", src.join("broken").to_str().unwrap()])
        .run();
    assert_eq!(out.code, 1);
    assert!(out.json()["error"].as_str().unwrap().contains("undeclared"));
    assert!(!t.tools_dir().join("broken").exists());

    let sneaky = src.join("sneaky/cmp");
    std::fs::create_dir_all(&sneaky).unwrap();
    std::fs::write(
        sneaky.join("manifest.json"),
        r#"{"domain":"d","name":"../../escape","summary":"s","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        sneaky.join("capability.json"),
        r#"{"intents":[{"patterns":["x"],"command":"echo"}]}"#,
    )
    .unwrap();
    let out = t
        .args(["install", src.join("sneaky").to_str().unwrap()])
        .run();
    assert_eq!(out.code, 1);
    assert!(!t.home().join("escape").exists());
}

#[test]
fn validate_names_the_file_and_field_at_fault() {
    let mut t = Test::new();
    let root = t.home().join("bad");
    write_tool(
        &root,
        "faulty",
        r#"{"intents":[{"patterns":["re:(unclosed"],"command":"echo {x} {y}",
            "params":{"x":{"type":"float"}}}]}"#,
    );
    let out = t.args(["validate", root.to_str().unwrap()]).run();
    assert_eq!(out.code, 1);
    let doc = out.json();
    let problems: Vec<&str> = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let all = problems.join("\n");
    assert!(
        all.contains("capability.json: intents[0].patterns"),
        "{all}"
    );
    assert!(
        all.contains("uses {y} but params does not declare 'y'"),
        "{all}"
    );
    assert!(all.contains("intents[0].params.x.type \"float\""), "{all}");
    let out = t
        .args(["validate", concat!(env!("CARGO_MANIFEST_DIR"), "/adapters")])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn a_terminal_answer_gives_or_refuses_consent() {
    if !common::require("`script` (bsdutils)", which_script().is_some()) {
        return;
    }
    let t = exported();
    let extra = t.home().join("extra");
    write_tool(&extra, "shredder", SHREDDER);
    let canary = t.home().join("canary");
    std::fs::write(&canary, "alive").unwrap();
    let command = format!(
        "{} run shredder --intent 0 --path {}",
        common::bin(),
        shell_words::quote(&canary.display().to_string())
    );
    let run_with_answer = |answer: &str| -> String {
        let mut child = std::process::Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("CMP_HOME", t.home())
            .env("CMP_TOOL_PATH", &extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(answer.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let screen = run_with_answer("n\n");
    assert!(screen.contains("cannot be undone"), "{screen}");
    assert!(screen.contains("[y/N]"), "{screen}");
    assert!(canary.exists(), "declined, yet the canary is gone");
    run_with_answer("y\n");
    assert!(!canary.exists(), "accepted, yet the canary survived");
}

fn which_script() -> Option<std::path::PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join("script"))
        .find(|p| p.is_file())
}

#[allow(dead_code)]
fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}
