//! Hardening: hostile parameter values reach programs as one literal argument, hostile tool
//! folders are skipped with a reason, confirmation cannot be bypassed, limits hold, and an
//! export killed at any moment (or starved of disk) leaves every folder whole.

use crate::common;
mod interrupted;
mod policy_paths;

use common::{Test, bin};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn write(path: impl AsRef<Path>, content: impl AsRef<[u8]>) {
    let path = path.as_ref();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A third-party tool folder `<home>/tools/<name>/cmp/` with the given intents.
fn folder(home: &Path, name: &str, intents: Value) -> PathBuf {
    let dir = home.join("tools").join(name);
    write(
        dir.join("cmp/manifest.json"),
        json!({"domain": "test", "name": name, "summary": format!("{name} test tool"), "version": "1.0.0"})
            .to_string(),
    );
    write(
        dir.join("cmp/capability.json"),
        json!({ "intents": intents }).to_string(),
    );
    dir
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

// ---------------------------------------------------------------------------------------------
// Hostile parameter values reach the program as exactly one literal argument.

const ECHO_ARGV: &str = "import sys, json; print(json.dumps(sys.argv[1:]))";

fn echo_tool(t: &Test) {
    // A script file, not `python3 -c`: a value after `-c` code would make the intent one that
    // runs a value as code, which needs consent (SPEC.md §7).
    let script = t.home().join("echo_argv.py");
    write(&script, ECHO_ARGV);
    folder(
        t.home(),
        "echoargs",
        json!([{
            "patterns": ["echo the arguments"],
            "command": format!("python3 {} {{value}}", script.display()),
            "params": {"value": {"type": "string", "required": true, "description": "anything"}},
            "confirm": false, "destructive": false, "idempotent": true,
            // It only prints its arguments; undeclared, it would count as process:spawn and ask.
            "capabilities": []
        }]),
    );
}

/// The argv the program received, from its JSON stdout.
fn received(out: &common::Output) -> Vec<String> {
    let v = out.json();
    assert_eq!(v["success"], true, "{}", out.stdout);
    // JSON on the program's stdout arrives parsed in `data.stdout`.
    serde_json::from_value(v["data"]["stdout"].clone())
        .unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

#[test]
fn hostile_values_reach_the_program_as_one_literal_argument() {
    if !common::require("python3", which::which("python3").is_ok()) {
        return;
    }
    let mut t = Test::new();
    echo_tool(&t);
    let work = tempfile::tempdir().unwrap();
    let hostile = [
        "$(touch PWNED)",
        "`touch PWNED`",
        "; touch PWNED",
        "&& touch PWNED",
        "| touch PWNED",
        "' ; touch PWNED ; '",
        "\" ; touch PWNED ; \"",
        "line one\nline two\r\n",
        "$HOME ${PATH} * ? [a-z] ~",
        "{value} {value?} {{value}}",
        "-rf",
        "--help",
        "日本語 café 😀 \u{202e}rtl",
        "\\x00 \\n \\",
    ];
    for value in hostile {
        let out = t
            .cwd(work.path())
            .args(["run", "echoargs", "--value", value])
            .run();
        assert_eq!(received(&out), vec![value.to_string()], "value {value:?}");
        let out = t
            .args([
                "run",
                "echoargs",
                "--args",
                &json!({ "value": value }).to_string(),
            ])
            .run();
        assert_eq!(
            received(&out),
            vec![value.to_string()],
            "value {value:?} via --args"
        );
    }
    let long = "A".repeat(100_000);
    let out = t.args(["run", "echoargs", "--value", &long]).run();
    assert_eq!(received(&out), vec![long]);
    assert!(
        !work.path().join("PWNED").exists() && !t.home().join("PWNED").exists(),
        "an injected command ran"
    );
}

#[test]
fn values_no_program_can_receive_are_refused_clearly() {
    let mut t = Test::new();
    echo_tool(&t);
    // NUL cannot be part of an argument: refused before anything runs.
    let out = t
        .args(["run", "echoargs", "--args", r#"{"value": "a\u0000b"}"#])
        .run();
    assert_ne!(out.code, 0, "{}", out.stdout);
    let v = out.json();
    assert_eq!(v["success"], false);
    assert!(
        v["error"].as_str().unwrap().contains("NUL byte"),
        "{}",
        out.stdout
    );
    // Longer than the kernel accepts for one argument (128 KiB).
    let huge = t.home().join("huge.json");
    write(&huge, json!({"value": "B".repeat(300_000)}).to_string());
    let out = t
        .args(["run", "echoargs", "--args", &format!("@{}", huge.display())])
        .run();
    assert_ne!(out.code, 0);
    assert_eq!(out.json()["success"], false, "{}", out.stdout);
    // Invalid UTF-8 from @path for a text parameter.
    let bad = t.home().join("bad.txt");
    write(&bad, b"ok \xff\xfe not utf-8");
    let out = t
        .args([
            "run",
            "url-encoder",
            "--input",
            &format!("@{}", bad.display()),
        ])
        .run();
    assert_eq!(out.code, 2);
    assert!(
        out.stdout.contains("not valid UTF-8") && out.stdout.contains("offset 3"),
        "{}",
        out.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Hostile folders are skipped with a reason; nothing panics, nothing runs.

#[test]
fn hostile_folders_are_skipped_with_a_reason() {
    let mut t = Test::new();
    let tools = t.tools_dir();
    let manifest = |name: &str| {
        json!({"domain": "x", "name": name, "summary": "s", "version": "1.0.0"}).to_string()
    };
    let ok_cap = json!({"intents": [{"patterns": ["say hi"], "command": "echo hi",
        "params": {}, "confirm": false, "destructive": false, "idempotent": true}]})
    .to_string();
    write(
        tools.join("huge/cmp/manifest.json"),
        " ".repeat(3 << 20) + "{}",
    );
    write(tools.join("huge/cmp/capability.json"), &ok_cap);
    write(tools.join("deep/cmp/manifest.json"), "[".repeat(200_000));
    write(tools.join("deep/cmp/capability.json"), &ok_cap);
    write(tools.join("notjson/cmp/manifest.json"), "name = 'toml?'");
    write(
        tools.join("binary/cmp/manifest.json"),
        b"\xff\xfe\x00{\"name\"",
    );
    write(tools.join("dotdot/cmp/manifest.json"), manifest("../../x"));
    write(tools.join("dotdot/cmp/capability.json"), &ok_cap);
    write(
        tools.join("absolute/cmp/manifest.json"),
        manifest("/etc/passwd"),
    );
    write(tools.join("absolute/cmp/capability.json"), &ok_cap);
    write(
        tools.join("undeclared/cmp/manifest.json"),
        manifest("undeclared"),
    );
    write(
        tools.join("undeclared/cmp/capability.json"),
        json!({"intents": [{"patterns": ["touch the canary"], "command": "touch {nowhere}",
            "params": {}, "confirm": false, "destructive": false, "idempotent": true}]})
        .to_string(),
    );
    write(tools.join("deepcap/cmp/manifest.json"), manifest("deepcap"));
    write(
        tools.join("deepcap/cmp/capability.json"),
        "{\"intents\":".to_string() + &"[".repeat(100_000),
    );
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(tools.join("loop"), tools.join("loop")).unwrap();
    std::os::unix::fs::symlink(tools.join("loop2/x"), tools.join("loop1")).unwrap();
    std::os::unix::fs::symlink(tools.join("loop1"), tools.join("loop2")).unwrap();
    folder(
        t.home(),
        "fine",
        json!([{"patterns": ["say hi"], "command": "echo hi",
        "params": {}, "confirm": false, "destructive": false, "idempotent": true}]),
    );

    let out = t.args(["list"]).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let names: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"fine"), "{names:?}");
    for bad in ["../../x", "/etc/passwd"] {
        assert!(!names.contains(&bad), "{bad} was listed");
    }
    let skipped = v["skipped"].to_string();
    for folder in ["huge", "deep", "notjson", "binary", "dotdot", "absolute"] {
        assert!(
            skipped.contains(&format!("/{folder}/")),
            "{folder} not reported: {skipped}"
        );
    }
    assert!(skipped.contains("larger than"), "{skipped}");

    // The undeclared placeholder never runs; validate names the problem.
    let out = t.args(["run", "undeclared"]).run();
    assert_ne!(out.code, 0);
    let out = t
        .args(["validate", tools.join("undeclared").to_str().unwrap()])
        .run();
    assert_ne!(out.code, 0);
    assert!(out.stdout.contains("nowhere"), "{}", out.stdout);
    assert!(!t.home().join("{nowhere}").exists());

    for args in [
        vec!["resolve", "say hi"],
        vec!["do", "touch the canary"],
        vec!["run", "../../x"],
        vec!["run", "deepcap"],
        vec!["show", "/etc/passwd"],
        vec!["discover", "--format", "llms-txt"],
    ] {
        let out = t.args(&args).run();
        assert!(out.code != 101, "{args:?}");
    }
    let out = t
        .args(["mcp"])
        .stdin(
            [
                json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
                json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            ]
            .iter()
            .map(|m| m.to_string() + "\n")
            .collect::<String>(),
        )
        .run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("fine"), "{}", out.stdout);
}

#[test]
fn unreadable_folders_are_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let mut t = Test::new();
    let dir = folder(t.home(), "locked", json!([]));
    let mode = |p: &Path, m| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(&dir.join("cmp"), 0o000).unwrap();
    let (code, text) = if is_root() {
        // Permission bits do not bind root (CI runs as root): the listing runs as "nobody",
        // from a copy of the binary in a directory anyone can enter.
        mode(t.home(), 0o755).unwrap();
        let bin_dir = tempfile::tempdir().unwrap();
        mode(bin_dir.path(), 0o755).unwrap();
        let binary = bin_dir.path().join("cmpx");
        std::fs::copy(bin(), &binary).unwrap();
        let out = Command::new(&binary)
            .arg("list")
            .env_clear()
            .env("CMP_HOME", t.home())
            .env("HOME", t.home())
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code().unwrap_or(-1), text)
    } else {
        let out = t.args(["list"]).run();
        (out.code, out.stdout + &out.stderr)
    };
    mode(&dir.join("cmp"), 0o755).unwrap();
    assert_eq!(code, 0, "{text}");
}

// ---------------------------------------------------------------------------------------------
// Confirmation cannot be bypassed: every path, no TTY, no --yes; the canary survives.

fn canary_tools(t: &Test) -> PathBuf {
    let canary = t.home().join("canary.txt");
    write(&canary, "still here");
    folder(
        t.home(),
        "nuke",
        json!([{
            "patterns": ["delete the canary file"],
            "command": "rm -f {path}",
            "params": {"path": {"type": "string", "required": true, "description": "file"}},
            "confirm": true, "destructive": true, "idempotent": false
        }]),
    );
    folder(
        t.home(),
        "blank",
        json!([{
            "patterns": ["truncate the canary file"],
            "command": "truncate -s 0 {path}",
            "params": {"path": {"type": "string", "required": true, "description": "file"}},
            "confirm": true, "destructive": false, "idempotent": true
        }]),
    );
    canary
}

#[test]
fn confirmation_cannot_be_bypassed() {
    let mut t = Test::new();
    let canary = canary_tools(&t);
    let path = canary.to_str().unwrap();
    let attempts: Vec<Vec<&str>> = vec![
        vec!["do", "delete the canary file", "--path", path],
        vec!["do", "truncate the canary file", "--path", path],
        vec!["run", "nuke", "--path", path],
        vec!["run", "nuke", "--intent", "0", "--path", path],
        vec!["run", "blank", "--intent", "truncate", "--path", path],
        vec!["run", "nuke", "--args", r#"{"yes": true}"#, "--path", path],
        vec!["run", "nuke", "--path", path, "--json", "--pretty"],
        vec!["run", "nuke", "--path", path, "--dry-run", "--yes"],
    ];
    for args in &attempts {
        for (k, v) in [
            ("CMPX_YES", "1"),
            ("YES", "1"),
            ("CMP_AGENT", "1"),
            ("CI", "true"),
        ] {
            t.env(k, v);
        }
        let out = t.args(args).run();
        assert_eq!(
            std::fs::read_to_string(&canary).unwrap(),
            "still here",
            "{args:?} touched the canary: {}",
            out.stdout
        );
        if args.contains(&"--args") {
            // `yes` is no parameter: the call is refused before consent is even considered.
            assert_eq!(out.json()["errorCode"], "INVALID_INPUT", "{args:?}");
        } else if !args.contains(&"--dry-run") {
            assert_eq!(out.code, 3, "{args:?}: {}", out.stdout);
            assert_eq!(out.json()["errorCode"], "UNAUTHORIZED", "{args:?}");
        }
    }
    // Answering anything but "y" on a non-terminal stdin is not consent either.
    let out = t.args(["run", "nuke", "--path", path]).stdin("y\n").run();
    assert_eq!(out.code, 3, "{}", out.stdout);

    // MCP, without --allow-destructive and with a client that cannot be asked.
    let calls = [
        json!({"name": "nuke", "arguments": {"path": path}}),
        json!({"name": "nuke", "arguments": {"path": path, "yes": true}}),
        json!({"name": "blank", "arguments": {"path": path}, "_meta": {"confirm": true}}),
    ];
    let mut input = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}).to_string() + "\n";
    for (i, call) in calls.iter().enumerate() {
        input += &(json!({"jsonrpc":"2.0","id": i + 1,"method":"tools/call","params": call})
            .to_string()
            + "\n");
    }
    let out = t.args(["mcp"]).stdin(input).run();
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "still here");
    let replies: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for r in replies.iter().filter(|r| r["id"] != 0) {
        let refused = r["result"]["isError"] == true || r.get("error").is_some();
        assert!(refused, "MCP call ran a destructive intent: {r}");
    }
    // The control: with consent the same call does run, so the tests above can fail.
    let out = t.args(["run", "nuke", "--path", path, "--yes"]).run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(!canary.exists());
}

// ---------------------------------------------------------------------------------------------
// Limits.

#[test]
fn input_output_and_folder_limits_hold() {
    let mut t = Test::new();
    let big = t.home().join("big.txt");
    write(&big, "x".repeat(3 << 20));
    let at = format!("@{}", big.display());
    let out = t
        .env("CMPX_MAX_INPUT", "1M")
        .args(["run", "hash-generator", "--input", &at])
        .run();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("input limit") && out.stdout.contains("CMPX_MAX_INPUT"));
    // Inline values obey the same limit.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params":
        {"name": "hash-generator", "arguments": {"input": "y".repeat(1100 << 10)}}});
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
    let out = t.args(["mcp"]).stdin(format!("{init}\n{call}\n")).run();
    assert!(
        out.stdout.contains("CONSTRAINT_VIOLATION") && out.stdout.contains("input limit"),
        "{}",
        &out.stdout[..out.stdout.len().min(400)]
    );
    // Standard input too (cmpx stops reading at the limit, so the writer sees a closed pipe).
    let out = Command::new(bin())
        .args(["run", "hash-generator", "--input", "-"])
        .env("CMP_HOME", t.home())
        .env("CMPX_MAX_INPUT", "1M")
        .stdin(std::fs::File::open(&big).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("standard input is larger"));

    // Output: a result over the limit is an error naming --output-file, never a cut success;
    // the full text goes to a new file on request.
    let mut t = Test::new();
    t.env("CMPX_MAX_OUTPUT", "1K");
    let out = t
        .args(["run", "base64-encoder", "--input", &"q".repeat(6000)])
        .run();
    assert_eq!(out.code, 1);
    let v = out.json();
    assert_eq!(v["success"], false);
    assert_eq!(v["errorCode"], "EXECUTION_ERROR");
    assert_eq!(v["data"]["outputTooLarge"], true);
    assert!(
        v["error"].as_str().unwrap().contains("--output-file"),
        "{v}"
    );
    let file = t.home().join("full.b64");
    let out = t
        .args([
            "run",
            "base64-encoder",
            "--input",
            &"q".repeat(6000),
            "--output-file",
            file.to_str().unwrap(),
        ])
        .run();
    let v = out.json();
    assert_eq!(v["success"], true);
    assert_eq!(std::fs::read_to_string(&file).unwrap().len(), 8000);
    // The data names the file instead of carrying its content, so stdout stays small.
    assert!(v["data"].get("output").is_none(), "{v}");
    assert_eq!(v["data"]["outputFile"]["bytes"], 8000);
    assert!(out.stdout.len() < 4096);
    // An existing file is never overwritten.
    write(&file, "mine");
    let out = t
        .args([
            "run",
            "base64-encoder",
            "--input",
            "q",
            "--output-file",
            file.to_str().unwrap(),
        ])
        .run();
    assert_eq!(out.json()["success"], false);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");

    // Folders per root.
    let mut t = Test::new();
    for i in 0..5 {
        folder(t.home(), &format!("tool{i}"), json!([]));
    }
    let out = t.env("CMPX_MAX_TOOLS", "3").args(["list"]).run();
    let v = out.json();
    assert_eq!(v["count"], 3);
    assert!(v["skipped"].to_string().contains("CMPX_MAX_TOOLS"));
}

// ---------------------------------------------------------------------------------------------
// Crash safety of export.

const STATE_FILE: &str = ".cmpx-export.json";
const FILES: [&str; 2] = ["cmp/manifest.json", "cmp/capability.json"];

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn snapshot(tools: &Path) -> BTreeMap<String, Vec<Vec<u8>>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(tools).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let files = FILES
            .iter()
            .map(|f| std::fs::read(entry.path().join(f)).unwrap_or_default())
            .collect();
        out.insert(name, files);
    }
    out
}

/// Rewrites every folder as an "older cmpx" would have left it: different files, recorded in
/// the state file as cmpx's own, so the next export replaces them.
fn make_old(
    tools: &Path,
    new: &BTreeMap<String, Vec<Vec<u8>>>,
    skip: &str,
) -> BTreeMap<String, Vec<Vec<u8>>> {
    let mut old = BTreeMap::new();
    for (name, files) in new {
        if name == skip {
            continue;
        }
        let dir = tools.join(name);
        std::fs::create_dir_all(dir.join("cmp")).unwrap();
        let mut hashes = BTreeMap::new();
        let mut contents = Vec::new();
        for (rel, bytes) in FILES.iter().zip(files) {
            let mut v: Value = serde_json::from_slice(bytes).unwrap();
            v["x-old"] = json!(true);
            let text = serde_json::to_vec_pretty(&v).unwrap();
            std::fs::write(dir.join(rel), &text).unwrap();
            hashes.insert(rel.to_string(), sha256(&text));
            contents.push(text);
        }
        let state = json!({"generator": "cmpx 0.0.1", "files": hashes, "replacing": {}});
        std::fs::write(dir.join(STATE_FILE), state.to_string()).unwrap();
        old.insert(name.clone(), contents);
    }
    old
}

#[test]
fn export_killed_at_random_points_leaves_every_folder_whole() {
    let t = Test::new();
    let tools = t.tools_dir();
    let export = |extra: &[&str]| {
        Command::new(bin())
            .arg("export")
            .args(extra)
            .env("CMP_HOME", t.home())
            .env("HOME", t.home())
            .env("PATH", "/nonexistent")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    assert!(export(&[]).wait().unwrap().success());
    let new = snapshot(&tools);
    assert!(new.len() > 100);
    // A user's edit that every export must keep.
    let edited = "json-formatter";
    let edited_manifest = tools.join(edited).join(FILES[0]);
    std::fs::write(
        &edited_manifest,
        "{\"name\": \"json-formatter\", \"mine\": true}",
    )
    .unwrap();
    let mine = std::fs::read(&edited_manifest).unwrap();

    // The shortest of three full replacements bounds the kill delays, so most kills land
    // mid-export even when a loaded machine made one run slow.
    let full = (0..3)
        .map(|_| {
            make_old(&tools, &new, edited);
            let started = Instant::now();
            assert!(export(&[]).wait().unwrap().success());
            started.elapsed()
        })
        .min()
        .unwrap();

    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let trials = 40;
    let mut mid_run_kills = 0;
    for trial in 0..trials {
        let old = make_old(&tools, &new, edited);
        if trial % 3 == 0 {
            // Some folders missing: the kill may land while they are being created.
            for name in old.keys().filter(|n| n.len() % 4 == trial % 4) {
                std::fs::remove_dir_all(tools.join(name)).unwrap();
            }
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % (full.as_micros() as u64 + 1));
        let mut child = export(&[]);
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().unwrap();
        if !status.success() {
            mid_run_kills += 1;
        }
        let now = snapshot(&tools);
        for (name, files) in &now {
            if name == edited {
                continue;
            }
            let whole_old = old.get(name) == Some(files);
            let whole_new = new.get(name) == Some(files);
            assert!(
                whole_old || whole_new,
                "trial {trial} (killed after {delay:?}): {name} is neither the old nor the new version"
            );
        }
        assert_eq!(
            std::fs::read(&edited_manifest).unwrap(),
            mine,
            "trial {trial}: the user's edit was lost"
        );
    }
    eprintln!("{mid_run_kills} of {trials} kills landed mid-export (full export: {full:?})");
    assert!(
        mid_run_kills >= 3,
        "only {mid_run_kills} kills landed mid-export"
    );
    // The next export completes the job and cleans up what the kills left behind.
    assert!(export(&[]).wait().unwrap().success());
    let after = snapshot(&tools);
    for (name, files) in &new {
        if name != edited {
            assert_eq!(after.get(name), Some(files), "{name}");
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(&tools)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".cmpx-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Runs `cmpx export` with a pre-exec hook (resource limit, another user) and returns its
/// exit code and stdout.
fn export_with(
    home: &Path,
    hook: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
) -> (i32, String) {
    export_by(Path::new(bin()), home, hook)
}

fn export_by(
    binary: &Path,
    home: &Path,
    hook: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
) -> (i32, String) {
    let mut cmd = Command::new(binary);
    cmd.arg("export")
        .env("CMP_HOME", home)
        .env("HOME", home)
        .env("PATH", "/nonexistent")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the hook only makes async-signal-safe libc calls.
    unsafe { cmd.pre_exec(hook) };
    let out = cmd.output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert_ne!(code, 101, "cmpx panicked");
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn a_full_disk_gives_a_clear_error_and_keeps_existing_folders() {
    let t = Test::new();
    assert_eq!(export_with(t.home(), || Ok(())).0, 0);
    let tools = t.tools_dir();
    let new = snapshot(&tools);
    let old = make_old(&tools, &new, "");
    // RLIMIT_FSIZE 0 makes every write fail with EFBIG, as a full disk fails with ENOSPC.
    let (code, text) = export_with(t.home(), || {
        // SAFETY: plain libc calls in the child before exec.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
        }
        Ok(())
    });
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("File too large") || text.contains("No space"),
        "{text}"
    );
    let now = snapshot(&tools);
    assert_eq!(now, old, "a failed export changed existing folders");
}

#[test]
fn a_read_only_home_gives_a_clear_error_and_keeps_existing_folders() {
    use std::os::unix::fs::PermissionsExt;
    let t = Test::new();
    assert_eq!(export_with(t.home(), || Ok(())).0, 0);
    let tools = t.tools_dir();
    let old = make_old(&tools, &snapshot(&tools), "");
    let set = |p: &Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    set(t.home(), 0o755);
    set(&tools, 0o555);
    for name in old.keys() {
        set(&tools.join(name), 0o555);
        set(&tools.join(name).join("cmp"), 0o555);
    }
    let root = is_root();
    // "nobody" may not be able to reach the build directory (a clone in a 0700 temp dir), so
    // it runs a copy of the binary from a directory anyone can enter.
    let bin_dir = tempfile::tempdir().unwrap();
    set(bin_dir.path(), 0o755);
    let binary = bin_dir.path().join("cmpx");
    std::fs::copy(bin(), &binary).unwrap();
    let (code, text) = export_by(&binary, t.home(), move || {
        if root {
            // Root ignores permission bits: run the export as "nobody" instead.
            // SAFETY: plain libc calls in the child before exec.
            unsafe {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(65534) != 0
                    || libc::setuid(65534) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    });
    for name in old.keys() {
        set(&tools.join(name).join("cmp"), 0o755);
        set(&tools.join(name), 0o755);
    }
    set(&tools, 0o755);
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("ermission denied"), "{text}");
    assert_eq!(snapshot(&tools), old);
}

// ---------------------------------------------------------------------------------------------
// No panic on any command with hostile arguments.

#[test]
fn hostile_command_lines_never_panic() {
    let mut t = Test::new();
    let lines: Vec<Vec<String>> = vec![
        vec!["run".into(), "\u{0}".into()],
        vec!["run".into(), "json-formatter".into(), "--input".into()],
        vec![
            "run".into(),
            "json-formatter".into(),
            "--input".into(),
            "@/nonexistent/x".into(),
        ],
        vec![
            "run".into(),
            "json-formatter".into(),
            "--input".into(),
            "@/proc/self/mem".into(),
        ],
        vec![
            "run".into(),
            "json-formatter".into(),
            "--input".into(),
            "@/".into(),
        ],
        vec![
            "run".into(),
            "number-base-converter".into(),
            "--args".into(),
            "[1,2]".into(),
        ],
        vec![
            "run".into(),
            "number-base-converter".into(),
            "--value".into(),
            "9".repeat(5000),
        ],
        vec![
            "run".into(),
            "uuid-generator".into(),
            "--count".into(),
            "1e308".into(),
        ],
        vec![
            "run".into(),
            "lorem-ipsum-generator".into(),
            "--count".into(),
            "-1".into(),
        ],
        vec!["do".into(), "\u{202e}\u{0}\u{7}".into()],
        vec!["resolve".into(), "x ".repeat(60_000)],
        vec!["export".into(), "--to".into(), "/proc/version".into()],
        vec!["validate".into(), "/dev/null".into()],
    ];
    for args in &lines {
        if args.iter().any(|a| a.contains('\0')) {
            continue; // the OS cannot pass NUL in argv
        }
        let out = t.args(args).run();
        assert!(out.code != 101, "{args:?}");
    }
    // The MCP server survives garbage and keeps answering.
    let mut child = Command::new(bin())
        .arg("mcp")
        .env("CMP_HOME", t.home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for junk in [
        "not json\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"json-formatter\",\"arguments\":{\"input\":[[[[]]]]}}}\n",
        &("[".repeat(100_000) + "\n"),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"../../x\"}}\n",
        "\u{feff}{}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
    ] {
        stdin.write_all(junk.as_bytes()).unwrap();
    }
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert_ne!(child.wait().unwrap().code(), Some(101));
    assert!(
        lines
            .iter()
            .any(|l| l["id"] == 3 && l["result"] == json!({})),
        "{lines:?}"
    );
}
