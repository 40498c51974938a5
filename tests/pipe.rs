//! `cmpx pipe`: the bundled recipes reproduce their documented results through the command
//! line, invalid recipes are refused before any step runs (nothing written), saved recipes
//! are CMP folders, and a cycle through them is refused naming the step.

use crate::common;

use common::Test;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn recipes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes")
}

fn bundled() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(recipes_dir())
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let recipe: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (name, recipe)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_bundled_recipe_reproduces_its_example_from_its_file_and_by_name() {
    let recipes = bundled();
    assert_eq!(recipes.len(), 5);
    let mut t = Test::new();
    let result_schema = common::schema("tool-result.schema.json");
    for (name, recipe) in &recipes {
        let input = recipe["example"]["input"].as_str().unwrap();
        let expected = &recipe["example"]["output"];
        let file = recipes_dir().join(format!("{name}.json"));
        for source in [file.display().to_string(), name.clone()] {
            let out = t
                .args(["pipe", "--recipe", &source, "--input", input, "--json"])
                .run();
            assert_eq!(out.code, 0, "{name}: {}{}", out.stdout, out.stderr);
            let result = out.json();
            assert_eq!(&result["data"]["output"], expected, "{name} via {source}");
            let steps = result["data"]["steps"].as_array().unwrap();
            assert_eq!(
                steps.len(),
                recipe["steps"].as_array().unwrap().len(),
                "{name}"
            );
            for (i, s) in steps.iter().enumerate() {
                assert_eq!(s["step"], i + 1);
                assert_eq!(s["tool"], recipe["steps"][i]["tool"]);
                assert!(
                    s["ms"].is_number() && s["inputBytes"].is_u64() && s["outputBytes"].is_u64()
                );
            }
            if let Some(v) = &result_schema {
                common::assert_valid(v, &result, name);
            }
        }
    }
}

#[test]
fn the_short_form_runs_the_issue_example_with_a_file_input() {
    let mut t = Test::new();
    let blob = t.home().join("blob.txt");
    // {"a":1} gzipped (mtime 0), then Base64.
    std::fs::write(&blob, "H4sIAAAAAAAAA6tWSlSyMqwFAK+sG1YHAAAA\n").unwrap();
    let out = t
        .args([
            "pipe",
            "base64-encoder mode=decode | gzip-compressor mode=decompress | json-formatter indent=4",
            "--input",
            &format!("@{}", blob.display()),
            "--json",
        ])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let r = out.json();
    assert_eq!(r["data"]["output"], "{\n    \"a\": 1\n}");
    // The decoded gzip bytes crossed as bytes: 27 of them, not 36 characters of Base64.
    assert_eq!(r["data"]["steps"][0]["outputBytes"], 27);
    assert_eq!(r["data"]["steps"][1]["inputBytes"], 27);
}

#[test]
fn binary_data_reaching_a_text_tool_fails_naming_the_step_and_keeping_earlier_ones() {
    let mut t = Test::new();
    let out = t
        .args([
            "pipe",
            "base64-encoder mode=decode | json-formatter",
            "--input",
            "AP8QaGVsbG+A",
            "--json",
        ])
        .run();
    assert_eq!(out.code, 1, "{}", out.stdout);
    let r = out.json();
    assert_eq!(r["errorCode"], "INVALID_INPUT");
    assert!(
        r["error"].as_str().unwrap().starts_with(
            "step 2 (json-formatter): the previous step produced binary data (9 bytes"
        ),
        "{}",
        r["error"]
    );
    assert_eq!(r["data"]["failedStep"], 2);
    assert_eq!(r["data"]["steps"][0]["tool"], "base64-encoder");
    assert_eq!(r["data"]["steps"][0]["outputBytes"], 9);
    assert_eq!(r["data"]["steps"][1]["step"], 2);
}

/// Runs `args` with `--output-file` and checks it was refused before anything ran: the exit
/// code, the step named, and no output file.
#[track_caller]
fn refused_before_running(t: &mut Test, args: &[&str], code: i32, starts: &str) -> Value {
    let out_file = t.home().join("out.txt");
    let _ = std::fs::remove_file(&out_file);
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend([
        "--output-file".into(),
        out_file.display().to_string(),
        "--json".into(),
    ]);
    let out = t.args(&all).run();
    assert_eq!(out.code, code, "{}{}", out.stdout, out.stderr);
    let r = out.json();
    assert!(
        r["error"].as_str().unwrap().starts_with(starts),
        "{}",
        r["error"]
    );
    assert!(!out_file.exists(), "a step ran and wrote its output");
    r
}

#[test]
fn invalid_recipes_are_refused_before_any_step_runs() {
    let mut t = Test::new();
    let r = refused_before_running(
        &mut t,
        &[
            "pipe",
            "url-encoder mode=decode | html-entity-decoder",
            "--input",
            "x",
        ],
        4,
        "step 2 (html-entity-decoder): unknown tool 'html-entity-decoder'; did you mean 'html-entity-encoder'?",
    );
    assert_eq!(r["data"]["didYouMean"], "html-entity-encoder");
    assert_eq!(r["data"]["failedStep"], 2);
    let r = refused_before_running(
        &mut t,
        &[
            "pipe",
            "base64-encoder mode=decode | gzip-compressor mode=decompress | json-formatter indent=5",
            "--input",
            "H4sIAAAAAAAAA6tWSlSyMqwFAK+sG1YHAAAA",
        ],
        2,
        "step 3 (json-formatter): parameter 'indent' violates options",
    );
    assert_eq!(r["errorCode"], "CONSTRAINT_VIOLATION");
    assert_eq!(r["data"]["failedStep"], 3);
    refused_before_running(
        &mut t,
        &[
            "pipe",
            "json-formatter | find-replace replace=x",
            "--input",
            "{}",
        ],
        2,
        "step 2 (find-replace): missing required parameter 'find'",
    );
}

#[test]
fn saved_recipes_are_cmp_folders_that_run_by_name_and_nest() {
    let mut t = Test::new();
    let out = t
        .args([
            "pipe",
            "url-encoder mode=decode",
            "--save",
            "unurl",
            "--json",
        ])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let cmp = t.tools_dir().join("unurl/cmp");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(cmp.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], "unurl");
    assert_eq!(manifest["domain"], "recipes");
    let cap: Value =
        serde_json::from_str(&std::fs::read_to_string(cmp.join("capability.json")).unwrap())
            .unwrap();
    assert_eq!(
        cap["intents"][0]["command"],
        "cmpx run unurl --input={input}"
    );
    assert!(cmp.join("recipe.json").is_file());
    // The folder is valid CMP.
    let out = t
        .args([
            "validate",
            &t.tools_dir().join("unurl").display().to_string(),
        ])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // A saved recipe is a step of another.
    let out = t
        .args([
            "pipe",
            "unurl | html-entity-encoder mode=decode",
            "--input",
            "%26lt%3Bb%26gt%3B",
            "--json",
        ])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let r = out.json();
    assert_eq!(r["data"]["output"], "<b>");
    assert_eq!(r["data"]["steps"][0]["label"], "1.1");
    // And runs by name.
    let out = t
        .args(["pipe", "--recipe", "unurl", "--input", "a%20b", "--json"])
        .run();
    assert_eq!(out.json()["data"]["output"], "a b");
    // Its exported command gives the result a tool gives: `data.output`, as the steps do.
    let out = t.args(["run", "unurl", "--input", "a%20b"]).run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let r = out.json();
    assert_eq!(r["data"]["output"], "a b", "{r}");
    assert_eq!(r["data"]["steps"][0]["tool"], "url-encoder", "{r}");
    // `--list` names it beside the bundled recipes, with steps that read back.
    let listed = t.args(["pipe", "--list", "--json"]).run().json();
    let recipes = listed["recipes"].as_array().unwrap();
    let unurl = recipes
        .iter()
        .find(|r| r["name"] == "unurl")
        .expect("unurl");
    assert_eq!(unurl["source"], "saved");
    assert_eq!(unurl["steps"], "url-encoder mode=decode");
    assert!(
        recipes
            .iter()
            .any(|r| r["name"] == "jwt-claims" && r["source"] == "bundled")
    );
    // A folder that is not a recipe is never replaced.
    std::fs::create_dir_all(t.tools_dir().join("mine/cmp")).unwrap();
    let out = t
        .args(["pipe", "json-formatter", "--save", "mine", "--json"])
        .run();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("is not a saved recipe")
    );
    // A built-in tool's name is refused.
    let out = t
        .args([
            "pipe",
            "json-formatter",
            "--save",
            "json-minifier",
            "--json",
        ])
        .run();
    assert_eq!(out.code, 2, "{}", out.stdout);
}

#[test]
fn a_cycle_through_saved_recipes_is_refused_naming_the_step() {
    let mut t = Test::new();
    assert_eq!(
        t.args(["pipe", "url-encoder mode=decode", "--save", "a"])
            .run()
            .code,
        0
    );
    assert_eq!(
        t.args(["pipe", "json-minifier | a", "--save", "b"])
            .run()
            .code,
        0
    );
    // Saving `a` as a recipe that reaches itself is refused at once.
    let out = t.args(["pipe", "b", "--save", "a", "--json"]).run();
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("(a → b → a)"),
        "{}",
        out.stdout
    );
    // A cycle made by copying files in is refused when it runs, before any step.
    let cycle = r#"{"steps": [{"tool": "b"}]}"#;
    std::fs::write(t.tools_dir().join("a/cmp/recipe.json"), cycle).unwrap();
    let r = refused_before_running(
        &mut t,
        &["pipe", "json-formatter | a", "--input", "{}"],
        1,
        "step 2.1.2 (a): saved recipes form a cycle (a → b → a)",
    );
    assert_eq!(r["data"]["failedStep"], 2);
    assert_eq!(r["data"]["cycle"], serde_json::json!(["a", "b", "a"]));
}

#[test]
fn adapters_are_refused_unless_allowed() {
    let mut t = Test::new();
    std::fs::create_dir_all(t.tools_dir().join("echoer/cmp")).unwrap();
    std::fs::write(
        t.tools_dir().join("echoer/cmp/manifest.json"),
        r#"{"domain":"x","name":"echoer","summary":"echo","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        t.tools_dir().join("echoer/cmp/capability.json"),
        r#"{"intents":[{"patterns":["echo"],"command":"echo {input}","params":{"input":{"type":"string","required":true}}}]}"#,
    )
    .unwrap();
    let r = refused_before_running(
        &mut t,
        &["pipe", "json-minifier | echoer", "--input", "{ }"],
        3,
        "step 2 (echoer): echoer is an installed tool that runs a program; recipes run only built-in tools",
    );
    assert_eq!(r["errorCode"], "UNAUTHORIZED");
}

/// One JSON-RPC exchange with `cmpx mcp ARGS` over stdio: initialize, then `call`.
fn mcp_call(t: &Test, args: &[&str], call: Value) -> Value {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(common::bin())
        .arg("mcp")
        .args(args)
        .env("CMP_HOME", t.home())
        .env("HOME", t.home())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let request =
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call});
    writeln!(stdin, "{init}\n{request}").unwrap();
    drop(stdin);
    let reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let answer = reader
        .lines()
        .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
        .find(|v| v["id"] == 2)
        .unwrap();
    child.wait().unwrap();
    answer["result"].clone()
}

#[test]
fn mcp_runs_every_bundled_recipe_in_full_and_progressive_mode() {
    let t = Test::new();
    for (name, recipe) in bundled() {
        let args = serde_json::json!({"recipe": name, "input": recipe["example"]["input"]});
        let full = mcp_call(
            &t,
            &[],
            serde_json::json!({"name": "pipe", "arguments": args}),
        );
        assert_eq!(full["isError"], false, "{name}: {full}");
        assert_eq!(
            full["structuredContent"]["output"], recipe["example"]["output"],
            "{name}"
        );
        let progressive = mcp_call(
            &t,
            &["--progressive"],
            serde_json::json!({"name": "run", "arguments": {"name": "pipe", "arguments": args}}),
        );
        assert_eq!(
            progressive["structuredContent"],
            full["structuredContent"]
                .as_object()
                .map(|m| {
                    // Timings differ between runs; the rest is the same.
                    let mut m = m.clone();
                    m["steps"] = progressive["structuredContent"]["steps"].clone();
                    Value::Object(m)
                })
                .unwrap(),
            "{name}"
        );
    }
    // The same refusal as the command line, as a tool error the model can read.
    let bad = mcp_call(
        &t,
        &[],
        serde_json::json!({"name": "pipe", "arguments": {"steps": [{"tool": "json-formatter", "params": {"indent": 5}}], "input": "{}"}}),
    );
    assert_eq!(bad["isError"], true);
    assert!(
        bad["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("step 1 (json-formatter): parameter 'indent'")
    );
}

#[test]
fn http_post_api_pipe_answers_the_same_result() {
    use std::io::{Read, Write};
    let t = Test::new();
    let mut server = std::process::Command::new(common::bin())
        .args(["serve", "--port", "0"])
        .env("CMP_HOME", t.home())
        .env("HOME", t.home())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr = line
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let post = |body: &Value| -> (u16, Value) {
        let body = body.to_string();
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST /api/pipe HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        s.read_to_string(&mut response).unwrap();
        let status = response[9..12].parse().unwrap();
        let (_, json) = response.split_once("\r\n\r\n").unwrap();
        (status, serde_json::from_str(json).unwrap())
    };
    for (name, recipe) in bundled() {
        let (status, r) =
            post(&serde_json::json!({"recipe": name, "input": recipe["example"]["input"]}));
        assert_eq!(status, 200, "{name}: {r}");
        assert_eq!(r["data"]["output"], recipe["example"]["output"], "{name}");
        assert_eq!(
            r["data"]["steps"].as_array().unwrap().len(),
            recipe["steps"].as_array().unwrap().len()
        );
    }
    let (status, r) =
        post(&serde_json::json!({"steps": [{"tool": "json-formater"}], "input": "{}"}));
    assert_eq!(status, 404);
    assert_eq!(r["data"]["didYouMean"], "json-formatter");
    let _ = server.kill();
    let _ = server.wait();
}

/// Lines that differ from one another (counters, a rolling hash) so the compressed stream is
/// not trivially repetitive.
fn sample_text(lines: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..lines {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        out.extend_from_slice(
            format!(
                "{{\"row\":{i},\"hash\":\"{h:016x}\",\"note\":\"entry {}\"}}\n",
                h % 977
            )
            .as_bytes(),
        );
    }
    out
}

fn packed(format: &str, data: &[u8]) -> Vec<u8> {
    use flate2::Compression;
    use std::io::Write;
    let mut out = Vec::new();
    match format {
        "zlib" => {
            let mut e = flate2::write::ZlibEncoder::new(&mut out, Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap();
        }
        "deflate" => {
            let mut e = flate2::write::DeflateEncoder::new(&mut out, Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap();
        }
        _ => {
            let mut e = flate2::write::GzEncoder::new(&mut out, Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap();
        }
    }
    out
}

fn b64_lines(bytes: &[u8]) -> Vec<u8> {
    use base64::Engine;
    let text = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = Vec::with_capacity(text.len() + text.len() / 76 + 1);
    for line in text.as_bytes().chunks(76) {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

/// Runs `recipe` streamed (`@path` → file) and in memory (stdin → file); both files must hold
/// `expected`.
fn streamed_and_inline_agree(recipe: &str, input: &[u8], expected: &[u8]) {
    let mut t = Test::new();
    let dir = t.home().to_path_buf();
    let source = dir.join("in.b64");
    std::fs::write(&source, input).unwrap();
    let (streamed, inline) = (dir.join("streamed.out"), dir.join("inline.out"));
    let at = format!("@{}", source.display());
    let out = t
        .args([
            "pipe",
            recipe,
            "--input",
            &at,
            "--output-file",
            streamed.to_str().unwrap(),
            "--json",
        ])
        .run();
    assert_eq!(out.code, 0, "{recipe}: {}{}", out.stdout, out.stderr);
    let r = out.json();
    assert_eq!(r["data"]["streamed"], true, "{recipe}");
    assert_eq!(r["data"]["outputFile"]["bytes"], expected.len(), "{recipe}");
    let out = t
        .args([
            "pipe",
            recipe,
            "--input",
            "-",
            "--output-file",
            inline.to_str().unwrap(),
            "--json",
        ])
        .stdin(input.to_vec())
        .run();
    assert_eq!(out.code, 0, "{recipe}: {}{}", out.stdout, out.stderr);
    assert!(out.json()["data"].get("streamed").is_none(), "{recipe}");
    assert_eq!(std::fs::read(&streamed).unwrap(), expected, "{recipe}");
    assert_eq!(std::fs::read(&inline).unwrap(), expected, "{recipe}");
}

#[test]
fn streamed_chains_write_the_same_bytes_as_the_in_memory_path() {
    let text = sample_text(20_000);
    for format in ["gzip", "zlib", "deflate"] {
        let recipe =
            format!("base64-encoder mode=decode | gzip-compressor mode=decompress format={format}");
        streamed_and_inline_agree(&recipe, &b64_lines(&packed(format, &text)), &text);
    }
    streamed_and_inline_agree("base64-encoder mode=decode", &b64_lines(&text), &text);
    // URL-safe Base64 is detected over the whole file, as the tool does.
    let url = base64::Engine::encode(
        &base64::engine::general_purpose::URL_SAFE,
        packed("gzip", &text),
    );
    assert!(url.contains('-') || url.contains('_'));
    streamed_and_inline_agree(
        "base64-encoder mode=decode | gzip-compressor mode=decompress",
        url.as_bytes(),
        &text,
    );
}

fn no_files_but(dir: &Path, keep: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "tools")
        .collect();
    names.sort();
    assert_eq!(names, keep, "files left in {}", dir.display());
}

#[test]
fn a_mid_stream_error_names_the_step_and_leaves_no_file() {
    let mut t = Test::new();
    let dir = t.home().to_path_buf();
    let text = sample_text(50_000);
    let mut gz = packed("gzip", &text);
    let middle = gz.len() / 2;
    for b in &mut gz[middle..middle + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(dir.join("bad-gzip.b64"), b64_lines(&gz)).unwrap();
    let mut b64 = b64_lines(&packed("gzip", &text));
    b64[100_000] = b'*';
    std::fs::write(dir.join("bad-b64.b64"), &b64).unwrap();
    let out_path = dir.join("out.txt");
    let recipe = "base64-encoder mode=decode | gzip-compressor mode=decompress";
    for (file, step, says) in [
        (
            "bad-gzip.b64",
            "step 2 (gzip-compressor): input is not valid gzip data",
            "",
        ),
        (
            "bad-b64.b64",
            "step 1 (base64-encoder): parameter 'input' is not valid Base64",
            "'*' at offset 100000",
        ),
    ] {
        let out = t
            .args([
                "pipe",
                recipe,
                "--input",
                &format!("@{}", dir.join(file).display()),
                "--output-file",
                out_path.to_str().unwrap(),
                "--json",
            ])
            .run();
        assert_eq!(out.code, 1, "{file}: {}{}", out.stdout, out.stderr);
        let r = out.json();
        let error = r["error"].as_str().unwrap();
        assert!(
            error.starts_with(step) && error.contains(says),
            "{file}: {error}"
        );
        assert_eq!(r["errorCode"], "INVALID_INPUT");
        no_files_but(&dir, &["bad-b64.b64", "bad-gzip.b64"]);
    }
    // The bomb guard stops the output at its limit, naming the step that produced it.
    std::fs::write(dir.join("ok.b64"), b64_lines(&packed("gzip", &text))).unwrap();
    let out = t
        .args([
            "pipe",
            recipe,
            "--input",
            &format!("@{}", dir.join("ok.b64").display()),
            "--output-file",
            out_path.to_str().unwrap(),
            "--json",
        ])
        .env("CMPX_MAX_STREAM_OUTPUT", "1M")
        .run();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let error = out.json()["error"].as_str().unwrap().to_string();
    assert!(
        error.starts_with(
            "step 2 (gzip-compressor): decompressed data exceeds the 1.0 MiB streaming limit"
        ) && error.contains("CMPX_MAX_STREAM_OUTPUT"),
        "{error}"
    );
    no_files_but(&dir, &["bad-b64.b64", "bad-gzip.b64", "ok.b64"]);
}

#[test]
fn a_streamed_run_never_replaces_an_existing_file() {
    let mut t = Test::new();
    let dir = t.home().to_path_buf();
    let text = sample_text(1_000);
    std::fs::write(dir.join("in.b64"), b64_lines(&packed("gzip", &text))).unwrap();
    std::fs::write(dir.join("out.txt"), "keep me").unwrap();
    let out = t
        .args([
            "pipe",
            "base64-encoder mode=decode | gzip-compressor mode=decompress",
            "--input",
            &format!("@{}", dir.join("in.b64").display()),
            "--output-file",
            dir.join("out.txt").to_str().unwrap(),
            "--json",
        ])
        .run();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let r = out.json();
    assert_eq!(r["errorCode"], "EXECUTION_ERROR");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .starts_with("step 2 (gzip-compressor): cannot write the output to")
            && r["error"]
                .as_str()
                .unwrap()
                .ends_with("it already exists, and cmpx does not overwrite files"),
        "{}",
        r["error"]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
        "keep me"
    );
    no_files_but(&dir, &["in.b64", "out.txt"]);
}

/// 200 MiB of output from a gzip of identical ~1 MiB members (the multi-member gzip the tool
/// reads), written straight to the file so the test itself stays small. The peak is taken by
/// `/usr/bin/time`, not `wait4` here: Linux carries the forking process's peak into the child's.
#[cfg(target_os = "linux")]
#[test]
fn a_200_mib_streamed_output_stays_under_64_mib_of_memory() {
    use std::io::Write;
    let t = Test::new();
    let dir = t.home();
    let text = sample_text(14_000);
    let member = packed("gzip", &text);
    let copies = (200usize << 20).div_ceil(text.len());
    let file = std::fs::File::create(dir.join("big.b64")).unwrap();
    let mut enc =
        base64::write::EncoderWriter::new(file, &base64::engine::general_purpose::STANDARD);
    for _ in 0..copies {
        enc.write_all(&member).unwrap();
    }
    enc.finish().unwrap();
    let out_path = dir.join("big.out");
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "peak-kib=%M", common::bin()])
        .args([
            "pipe",
            "base64-encoder mode=decode | gzip-compressor mode=decompress",
            "--input",
            &format!("@{}", dir.join("big.b64").display()),
            "--output-file",
            out_path.to_str().unwrap(),
            "--json",
        ])
        .env("CMP_HOME", dir)
        .env("HOME", dir)
        .output()
        .expect("this test needs /usr/bin/time (GNU time) to measure peak memory");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    let expected = (text.len() * copies) as u64;
    assert_eq!(r["data"]["outputFile"]["bytes"], expected);
    assert_eq!(std::fs::metadata(&out_path).unwrap().len(), expected);
    let peak_kib: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak-kib="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {stderr}"));
    assert!(
        peak_kib < 64 << 10,
        "peak RSS {peak_kib} KiB for {expected} bytes out"
    );
}
