//! The bundled adapters (`adapters/<name>/cmp/`) run through `cmpx run <adapter> --intent <n>`
//! against the real programs, on data each test prepares in its own temporary directory: every
//! intent, consent for confirm/destructive intents, values that would be dangerous in a shell,
//! a missing program, and `cmpx validate adapters/`.
//!
//! A program missing on the machine fails the test in CI (which installs them all); elsewhere
//! the adapter's test says it is skipped and returns early (`common::skip`).

use crate::common;

use common::fixtures::{git_repo, sh, write};
use common::{Output, Test};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

const ADAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/adapters");
const NAMES: &[&str] = &[
    "git", "ripgrep", "fd", "jq", "tar", "sqlite", "files", "curl",
];

/// Values a shell would act on; each must reach the program as one literal argument.
const NASTY: &[&str] = &[
    "$(touch pwned)",
    "; rm -rf x; touch pwned",
    "`touch pwned`",
    "it's \"quoted\" | touch pwned",
    "two\nlines && touch pwned",
    "-rf",
];

/// Whether the programs are installed (`a|b` accepts either name); when not, a skip (a failure
/// in CI).
fn have(adapter: &str, programs: &[&str]) -> bool {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| !p.split('|').any(|name| which::which(name).is_ok()))
        .collect();
    if missing.is_empty() {
        return true;
    }
    common::skip(format!(
        "{missing:?} not installed for the {adapter} adapter"
    ));
    false
}

/// `cmpx run <adapter> --intent <intent> <params…>` in `cwd`, with the bundled adapters.
fn run(cwd: &Path, adapter: &str, intent: usize, params: &[&str]) -> Output {
    let mut args = vec![
        "run".to_string(),
        adapter.to_string(),
        "--intent".to_string(),
        intent.to_string(),
    ];
    args.extend(params.iter().map(|s| s.to_string()));
    Test::new()
        .env("CMP_TOOL_PATH", ADAPTERS)
        .cwd(cwd)
        .args(&args)
        .run()
}

/// The `data` of a successful run.
#[track_caller]
fn ok(out: &Output) -> Value {
    let doc = out.json();
    assert!(
        out.code == 0 && doc["success"] == true,
        "expected success, got exit {}:\n{}\nstderr:\n{}",
        out.code,
        out.stdout,
        out.stderr
    );
    doc["data"].clone()
}

/// `data.stdout` of a successful run, which must be text.
#[track_caller]
fn text(out: &Output) -> String {
    let data = ok(out);
    data["stdout"]
        .as_str()
        .unwrap_or_else(|| panic!("stdout is not text: {data}"))
        .to_string()
}

/// A failed run with the given exit code and CTP error code.
#[track_caller]
fn failed(out: &Output, code: i32, error_code: &str) -> Value {
    let doc = out.json();
    assert_eq!(
        (out.code, doc["errorCode"].as_str()),
        (code, Some(error_code)),
        "{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(doc["success"], false);
    doc
}

/// A confirm/destructive intent run without `--yes`: refused, nothing ran.
#[track_caller]
fn refused(out: &Output) {
    let doc = failed(out, 3, "UNAUTHORIZED");
    assert_eq!(doc["data"]["confirmationRequired"], true, "{doc}");
}

/// stdout lines without a leading `./`, sorted.
fn lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.strip_prefix("./").unwrap_or(l).to_string())
        .collect();
    v.sort();
    v
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("read {}: {e}", path.as_ref().display()))
}

/// Every file named `pwned` under `dir` (what the values would create if a shell ran them).
fn pwned(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_name() == "pwned" {
                found.push(path.clone());
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    found
}

#[track_caller]
fn assert_not_pwned(dir: &Path) {
    let found = pwned(dir);
    assert!(found.is_empty(), "a shell ran a value: {found:?}");
    let cwd_pwned = std::env::current_dir().unwrap().join("pwned");
    assert!(!cwd_pwned.exists(), "{}", cwd_pwned.display());
}

// ---------------------------------------------------------------------------------------------

#[test]
fn validate_accepts_the_bundled_adapters() {
    let out = Test::new().args(["validate", ADAPTERS, "--json"]).run();
    let doc = out.json();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(doc["valid"], true, "{doc}");
    assert_eq!(doc["checked"], NAMES.len(), "{doc}");
}

#[test]
fn adapter_files_follow_the_house_rules() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let mut folders: Vec<String> = std::fs::read_dir(ADAPTERS)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("cmp/manifest.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut expected: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(folders, expected);
    for name in NAMES {
        let dir = Path::new(ADAPTERS).join(name).join("cmp");
        let manifest: Value = serde_json::from_str(&read(dir.join("manifest.json"))).unwrap();
        assert_eq!(manifest["name"], *name);
        assert_eq!(manifest["version"], "1.0.0");
        assert_eq!(manifest["adapter"], true, "{name}");
        assert!(manifest["wraps"].as_str().is_some_and(|w| !w.is_empty()));
        assert!(manifest["summary"].as_str().unwrap().chars().count() <= 100);
        let tokens = bpe
            .encode_with_special_tokens(&serde_json::to_string(&manifest).unwrap())
            .len();
        assert!(tokens < 50, "{name}: manifest is {tokens} tokens");

        let cap: Value = serde_json::from_str(&read(dir.join("capability.json"))).unwrap();
        let intents = cap["intents"].as_array().unwrap();
        let mut firsts = Vec::new();
        for (i, intent) in intents.iter().enumerate() {
            for key in ["confirm", "destructive", "idempotent"] {
                assert!(
                    intent[key].is_boolean(),
                    "{name} intent {i}: '{key}' must be written explicitly"
                );
            }
            if intent["destructive"] == true {
                assert_eq!(intent["confirm"], true, "{name} intent {i}");
            }
            let patterns = intent["patterns"].as_array().unwrap();
            assert!(patterns.len() >= 3, "{name} intent {i}: few patterns");
            for p in patterns {
                let p = p.as_str().unwrap();
                if !p.starts_with("re:") {
                    assert_eq!(p, p.to_lowercase(), "{name} intent {i}: {p:?}");
                }
            }
            for (param, spec) in intent["params"].as_object().into_iter().flatten() {
                assert!(
                    spec["description"].is_string(),
                    "{name} intent {i}: {param} needs a description"
                );
            }
            firsts.push(patterns[0].as_str().unwrap().to_string());
        }
        let examples: Value = serde_json::from_str(&read(dir.join("examples.json"))).unwrap();
        let examples = examples["examples"].as_array().unwrap();
        assert!(!examples.is_empty() && examples.len() <= 2, "{name}");
        for ex in examples {
            let intent = ex["intent"].as_str().unwrap();
            assert!(
                firsts.iter().any(|f| f == intent),
                "{name}: example names no intent's first pattern: {intent:?}"
            );
        }
    }
}

/// A folder read from disk keeps its program's command (the bundled adapters here, as any
/// third-party folder); `show` and `resolve` present it as a `cmpx run` line (issue 39).
#[test]
fn show_and_resolve_present_cmpx_run_lines() {
    let doc = Test::new()
        .env("CMP_TOOL_PATH", ADAPTERS)
        .args(["show", "jq"])
        .run()
        .json();
    let intent = &doc["capability"]["intents"][1];
    assert_eq!(
        intent["command"], "cmpx run jq --intent 1 --file={file} --indent={indent}",
        "{doc}"
    );
    assert_eq!(intent["program"], "jq --indent {indent} . -- {file}");
    let doc = Test::new()
        .env("CMP_TOOL_PATH", ADAPTERS)
        .args(["resolve", "jq . data.json"])
        .run()
        .json();
    let command = doc["candidates"][0]["command"].as_str().unwrap_or_default();
    assert!(command.starts_with("cmpx run jq --intent 1 "), "{doc}");
}

#[test]
fn a_missing_program_is_not_found_and_named() {
    let root = tempfile::tempdir().unwrap();
    let src = Path::new(ADAPTERS).join("jq/cmp");
    let dest = root.path().join("ghost/cmp");
    std::fs::create_dir_all(&dest).unwrap();
    let manifest = read(src.join("manifest.json"))
        .replace("\"jq\"", "\"ghost\"")
        .replace("\"wraps\": \"ghost\"", "\"wraps\": \"no-such-program-xyz\"");
    write(dest.join("manifest.json"), &manifest);
    let cap = read(src.join("capability.json")).replace("\"jq ", "\"no-such-program-xyz ");
    write(dest.join("capability.json"), &cap);
    let work = tempfile::tempdir().unwrap();
    write(work.path().join("x.json"), "{}");
    let out = Test::new()
        .env("CMP_TOOL_PATH", root.path().to_string_lossy())
        .cwd(work.path())
        .args([
            "run", "ghost", "--intent", "0", "--filter", ".", "--file", "x.json",
        ])
        .run();
    let doc = failed(&out, 4, "NOT_FOUND");
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("'no-such-program-xyz'"),
        "{doc}"
    );
}

// ---------------------------------------------------------------------------------------------

#[test]
fn git_every_intent() {
    if !have("git", &["git"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = git_repo(&tmp.path().join("repo"));
    let r = repo.as_path();
    // Local edits: a modified tracked file and an untracked one.
    write(r.join("a.txt"), "one\ntwo\nthree\n");
    write(r.join("u.txt"), "untracked\n");

    // 0 status
    let s = text(&run(r, "git", 0, &[]));
    assert!(s.starts_with("## main"), "{s}");
    assert!(s.contains(" M a.txt") && s.contains("?? u.txt"), "{s}");
    // the same from outside the repository, with --path
    let s = text(&run(tmp.path(), "git", 0, &["--path", "repo"]));
    assert!(s.contains(" M a.txt"), "{s}");

    // 1 recent commits
    let s = text(&run(r, "git", 1, &[]));
    let log = lines(&s);
    assert_eq!(log.len(), 2, "{s}");
    assert!(
        s.lines()
            .next()
            .unwrap()
            .ends_with("Ada Tester second commit"),
        "{s}"
    );
    let s = text(&run(r, "git", 1, &["--limit", "1"]));
    assert_eq!(s.lines().count(), 1);
    assert!(s.contains("second commit") && !s.contains("first commit"));

    // 2 diff of the working tree
    let s = text(&run(r, "git", 2, &[]));
    assert!(
        s.contains("diff --git a/a.txt b/a.txt") && s.contains("\n+three"),
        "{s}"
    );
    let s = text(&run(r, "git", 2, &["--files", "b.txt"]));
    assert_eq!(s, "");

    // 3 current branch, 4 branches
    assert_eq!(text(&run(r, "git", 3, &[])), "main\n");
    let s = text(&run(r, "git", 4, &[]));
    assert_eq!(lines(&s), ["  feature", "* main"], "{s}");

    // 5 show a commit
    let s = text(&run(r, "git", 5, &[]));
    assert!(s.contains("second commit") && s.contains("+bee"), "{s}");
    let s = text(&run(r, "git", 5, &["--commit", "HEAD~1"]));
    assert!(
        s.contains("first commit") && !s.contains("second commit"),
        "{s}"
    );
    // an option-looking value is a revision, never an option (no file written)
    failed(
        &run(r, "git", 5, &["--commit", "--output=pwned"]),
        1,
        "EXECUTION_ERROR",
    );
    assert_not_pwned(tmp.path());

    // 6 blame
    let s = text(&run(r, "git", 6, &["--file", "a.txt"]));
    assert_eq!(s.lines().count(), 3, "{s}");
    assert!(s.lines().next().unwrap().contains("Ada Tester"), "{s}");
    let s = text(&run(r, "git", 6, &["--file", "a.txt", "--lines", "2,2"]));
    assert_eq!(s.lines().count(), 1, "{s}");
    assert!(s.trim_end().ends_with("two"), "{s}");

    // 7 stash (confirm)
    refused(&run(r, "git", 7, &[]));
    assert_eq!(read(r.join("a.txt")), "one\ntwo\nthree\n");
    ok(&run(
        r,
        "git",
        7,
        &["--message", "wip $(touch pwned)", "--yes"],
    ));
    assert_eq!(read(r.join("a.txt")), "one\ntwo\n");
    assert!(!r.join("u.txt").exists());
    let list = sh(r, "git", &["stash", "list"]);
    assert!(list.contains("wip $(touch pwned)"), "{list}");
    assert_not_pwned(tmp.path());
    sh(r, "git", &["stash", "pop", "-q"]);
    assert_eq!(read(r.join("a.txt")), "one\ntwo\nthree\n");

    // 8 reset --hard (destructive)
    refused(&run(r, "git", 8, &[]));
    assert_eq!(read(r.join("a.txt")), "one\ntwo\nthree\n");
    ok(&run(r, "git", 8, &["--yes"]));
    assert_eq!(read(r.join("a.txt")), "one\ntwo\n");
    assert!(
        r.join("u.txt").exists(),
        "reset must not touch untracked files"
    );

    // 9 clean -fd (destructive)
    std::fs::create_dir_all(r.join("junk")).unwrap();
    write(r.join("junk/x.tmp"), "x");
    refused(&run(r, "git", 9, &[]));
    assert!(r.join("u.txt").exists() && r.join("junk/x.tmp").exists());
    ok(&run(r, "git", 9, &["--yes"]));
    assert!(!r.join("u.txt").exists() && !r.join("junk").exists());
    assert!(r.join("a.txt").exists() && r.join("b.txt").exists());
    let log = sh(r, "git", &["log", "--oneline"]);
    assert_eq!(log.lines().count(), 2, "commits survive: {log}");
}

// ---------------------------------------------------------------------------------------------

fn search_tree(dir: &Path) {
    write(
        dir.join("src/main.rs"),
        "fn main() {}\n// TODO one\n// todo two\n",
    );
    write(dir.join("README.md"), "TODO: docs\nTODO: tests\n");
    write(dir.join("opts.txt"), "pass --files here\n");
    // `.ignore` is honoured by rg and fd outside a git repository too.
    write(dir.join(".ignore"), "ignored.txt\n");
    write(dir.join("ignored.txt"), "TODO hidden\n");
}

/// rg --json output as a list of messages (one message comes back as a single object).
fn messages(stdout: &Value) -> Vec<Value> {
    match stdout {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    }
}

fn matches(data: &Value) -> Vec<(String, u64, String)> {
    let mut found: Vec<(String, u64, String)> = messages(&data["stdout"])
        .iter()
        .filter(|m| m["type"] == "match")
        .map(|m| {
            let d = &m["data"];
            let path = d["path"]["text"].as_str().unwrap();
            (
                path.strip_prefix("./").unwrap_or(path).to_string(),
                d["line_number"].as_u64().unwrap(),
                d["lines"]["text"].as_str().unwrap().trim_end().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn ripgrep_every_intent() {
    if !have("ripgrep", &["rg"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    search_tree(d);

    // 0 search: JSON messages, smart case, .ignore respected
    let data = ok(&run(d, "ripgrep", 0, &["--pattern", "TODO"]));
    assert_eq!(data["stdoutFormat"], "jsonl");
    assert_eq!(
        matches(&data),
        [
            ("README.md".to_string(), 1, "TODO: docs".to_string()),
            ("README.md".to_string(), 2, "TODO: tests".to_string()),
            ("src/main.rs".to_string(), 2, "// TODO one".to_string()),
        ]
    );
    let data = ok(&run(
        d,
        "ripgrep",
        0,
        &["--pattern", "todo", "--glob", "*.rs", "--limit", "1"],
    ));
    assert_eq!(
        matches(&data),
        [("src/main.rs".to_string(), 2, "// TODO one".to_string())]
    );
    let data = ok(&run(
        d,
        "ripgrep",
        0,
        &["--pattern", "t.do", "--paths", r#"["README.md", "src"]"#],
    ));
    assert_eq!(matches(&data).len(), 4);
    // nothing found is a success (rg exits 1)
    let data = ok(&run(d, "ripgrep", 0, &["--pattern", "no such words"]));
    assert_eq!(data["exitCode"], 1);
    assert!(matches(&data).is_empty());
    // a pattern that looks like an option is searched for, not obeyed
    let data = ok(&run(d, "ripgrep", 0, &["--pattern", "--files"]));
    assert_eq!(
        matches(&data),
        [("opts.txt".to_string(), 1, "pass --files here".to_string())]
    );
    for nasty in NASTY {
        let out = run(d, "ripgrep", 0, &["--pattern", nasty]);
        // some are not valid regexes (exit 2); none may run anything
        assert!(out.code == 0 || out.code == 1, "{}", out.stdout);
    }
    assert_not_pwned(d);

    // 1 files that would be searched
    let s = text(&run(d, "ripgrep", 1, &[]));
    assert_eq!(lines(&s), ["README.md", "opts.txt", "src/main.rs"], "{s}");
    let s = text(&run(d, "ripgrep", 1, &["--glob", "*.md"]));
    assert_eq!(lines(&s), ["README.md"]);

    // 2 count per file
    let s = text(&run(d, "ripgrep", 2, &["--pattern", "TODO"]));
    assert_eq!(lines(&s), ["README.md:2", "src/main.rs:1"], "{s}");
    let s = text(&run(d, "ripgrep", 2, &["--pattern", "todo"]));
    assert_eq!(lines(&s), ["README.md:2", "src/main.rs:2"], "{s}");
}

#[test]
fn fd_every_intent() {
    if !have("fd", &["fd|fdfind"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d.join("src/test_util.rs"), "");
    write(d.join("src/main.rs"), "");
    write(d.join("docs/guide.md"), "");
    write(d.join("notes/old.md"), "");
    write(d.join("config.toml"), "");
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    std::fs::File::options()
        .write(true)
        .open(d.join("notes/old.md"))
        .unwrap()
        .set_modified(old)
        .unwrap();

    // 0 by name (glob)
    let s = text(&run(d, "fd", 0, &["--name", "*test*"]));
    assert_eq!(lines(&s), ["src/test_util.rs"], "{s}");
    let s = text(&run(d, "fd", 0, &["--name", "config.toml"]));
    assert_eq!(lines(&s), ["config.toml"], "{s}");
    let s = text(&run(d, "fd", 0, &["--name", "*.rs", "--path", "src"]));
    assert_eq!(lines(&s), ["src/main.rs", "src/test_util.rs"], "{s}");
    let s = text(&run(d, "fd", 0, &["--name", "-rf"]));
    assert_eq!(s, "");

    // 1 by extension
    let s = text(&run(d, "fd", 1, &["--extension", "md"]));
    assert_eq!(lines(&s), ["docs/guide.md", "notes/old.md"], "{s}");

    // 2 recently changed
    let s = text(&run(d, "fd", 2, &[]));
    let got = lines(&s);
    assert!(got.contains(&"docs/guide.md".to_string()), "{s}");
    assert!(!got.contains(&"notes/old.md".to_string()), "{s}");
    let s = text(&run(d, "fd", 2, &["--within", "20000d"]));
    assert!(lines(&s).contains(&"notes/old.md".to_string()), "{s}");
}

#[test]
fn jq_every_intent() {
    if !have("jq", &["jq"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let doc = json!({
        "version": "1.4.2",
        "items": [
            {"id": 1, "name": "alpha", "active": true},
            {"id": 2, "name": "beta", "active": false},
            {"id": 3, "name": "gamma", "active": true}
        ]
    });
    write(d.join("data.json"), &doc.to_string());

    // 0 query
    let data = ok(&run(
        d,
        "jq",
        0,
        &["--filter", ".version", "--file", "data.json"],
    ));
    assert_eq!(data["stdout"], "1.4.2");
    let data = ok(&run(
        d,
        "jq",
        0,
        &["--filter", ".items[].name", "--file", "data.json"],
    ));
    assert_eq!(data["stdout"], json!(["alpha", "beta", "gamma"]));
    let data = ok(&run(
        d,
        "jq",
        0,
        &[
            "--filter",
            "[.items[] | select(.active) | .id]",
            "--file",
            "data.json",
        ],
    ));
    assert_eq!(data["stdout"], json!([1, 3]));
    // a shell-looking filter is a jq syntax error, not a command
    failed(
        &run(
            d,
            "jq",
            0,
            &["--filter", "$(touch pwned)", "--file", "data.json"],
        ),
        1,
        "EXECUTION_ERROR",
    );
    assert_not_pwned(d);

    // 1 pretty-print
    // The indented text is the answer (`"stdoutFormat": "text"`), and `''` is the default 2.
    for indent in [None, Some(""), Some("4")] {
        let mut params = vec!["--file", "data.json"];
        if let Some(i) = indent {
            params.extend(["--indent", i]);
        }
        let data = ok(&run(d, "jq", 1, &params));
        let text = data["stdout"].as_str().unwrap();
        let spaces = if indent == Some("4") { 4 } else { 2 };
        assert!(
            text.contains(&format!("\n{}\"version\"", " ".repeat(spaces))),
            "{indent:?}: {text}"
        );
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), doc);
    }
    failed(
        &run(d, "jq", 1, &["--file", "missing.json"]),
        1,
        "EXECUTION_ERROR",
    );
}

#[test]
fn tar_every_intent() {
    if !have("tar", &["tar", "gzip"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d.join("src/a.txt"), "alpha\n");
    write(d.join("src/b/c.txt"), "gamma\n");
    write(d.join("-v"), "dash\n");

    // 1 create (confirm: overwrites the archive)
    refused(&run(
        d,
        "tar",
        1,
        &["--archive", "out.tar.gz", "--paths", "src"],
    ));
    assert!(!d.join("out.tar.gz").exists());
    ok(&run(
        d,
        "tar",
        1,
        &[
            "--archive",
            "out.tar.gz",
            "--paths",
            r#"["src", "-v"]"#,
            "--yes",
        ],
    ));
    let bytes = std::fs::read(d.join("out.tar.gz")).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip-compressed by suffix");

    // 0 list
    let s = text(&run(d, "tar", 0, &["--archive", "out.tar.gz"]));
    assert_eq!(
        lines(&s),
        ["-v", "src/", "src/a.txt", "src/b/", "src/b/c.txt"],
        "{s}"
    );
    // a colon is a local file name, never a remote host
    failed(
        &run(d, "tar", 0, &["--archive", "pwned:x"]),
        1,
        "EXECUTION_ERROR",
    );

    // 2 extract (confirm: overwrites)
    write(d.join("out/src/a.txt"), "canary\n");
    refused(&run(
        d,
        "tar",
        2,
        &["--archive", "out.tar.gz", "--dir", "out"],
    ));
    assert_eq!(read(d.join("out/src/a.txt")), "canary\n");
    assert!(!d.join("out/src/b").exists());
    ok(&run(
        d,
        "tar",
        2,
        &["--archive", "out.tar.gz", "--dir", "out", "--yes"],
    ));
    assert_eq!(read(d.join("out/src/a.txt")), "alpha\n");
    assert_eq!(read(d.join("out/src/b/c.txt")), "gamma\n");
    assert_eq!(read(d.join("out/-v")), "dash\n");
    assert_not_pwned(d);
}

#[test]
fn sqlite_every_intent() {
    if !have("sqlite", &["sqlite3"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    sh(
        d,
        "sqlite3",
        &[
            "app.db",
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, active INTEGER);
             CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER, total REAL);
             INSERT INTO users VALUES (1, 'ada', 1), (2, 'bob', 0), (3, 'cy', 1);
             INSERT INTO orders VALUES (1, 1, 9.5);",
        ],
    );
    let count = || {
        sh(d, "sqlite3", &["app.db", "SELECT count(*) FROM users"])
            .trim()
            .to_string()
    };

    // 0 tables
    let data = ok(&run(d, "sqlite", 0, &["--db", "app.db"]));
    assert_eq!(
        data["stdout"],
        json!([{"name": "orders"}, {"name": "users"}])
    );
    failed(
        &run(d, "sqlite", 0, &["--db", "missing.db"]),
        1,
        "EXECUTION_ERROR",
    );
    assert!(!d.join("missing.db").exists(), "read-only must not create");

    // 1 schema
    let s = text(&run(
        d,
        "sqlite",
        1,
        &["--db", "app.db", "--table", "users"],
    ));
    assert!(s.starts_with("CREATE TABLE users"), "{s}");
    assert!(!s.contains("orders"), "{s}");

    // 2 read-only query
    let sql = "SELECT id, name FROM users WHERE active = 1 ORDER BY id";
    let data = ok(&run(d, "sqlite", 2, &["--db", "app.db", "--sql", sql]));
    assert_eq!(
        data["stdout"],
        json!([{"id": 1, "name": "ada"}, {"id": 3, "name": "cy"}])
    );
    let abs = d.join("app.db");
    let data = ok(&run(
        d,
        "sqlite",
        2,
        &[
            "--db",
            abs.to_str().unwrap(),
            "--sql",
            "SELECT count(*) AS n FROM users",
        ],
    ));
    assert_eq!(data["stdout"], json!([{"n": 3}]));
    // writes are refused by the read-only connection
    failed(
        &run(
            d,
            "sqlite",
            2,
            &["--db", "app.db", "--sql", "DELETE FROM users"],
        ),
        1,
        "EXECUTION_ERROR",
    );
    assert_eq!(count(), "3");
    // dot-commands that reach the shell or files are refused (safe mode)
    for sql in [".shell touch pwned", ".system touch pwned", ".output pwned"] {
        let out = run(d, "sqlite", 2, &["--db", "app.db", "--sql", sql]);
        assert_eq!(out.code, 1, "{sql}: {}", out.stdout);
    }
    assert_not_pwned(d);

    // 3 modify (destructive)
    let update = "UPDATE users SET active = 0 WHERE id = 1";
    refused(&run(
        d,
        "sqlite",
        3,
        &["--db", "app.db", "--sql", "DELETE FROM users"],
    ));
    assert_eq!(count(), "3");
    ok(&run(
        d,
        "sqlite",
        3,
        &["--db", "app.db", "--sql", update, "--yes"],
    ));
    let data = ok(&run(d, "sqlite", 2, &["--db", "app.db", "--sql", sql]));
    assert_eq!(data["stdout"], json!([{"id": 3, "name": "cy"}]));
    let out = run(
        d,
        "sqlite",
        3,
        &["--db", "app.db", "--sql", ".shell touch pwned", "--yes"],
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_not_pwned(d);
}

#[test]
fn files_every_intent() {
    if !have("files", &["ls", "du", "mkdir", "cp", "mv", "rm"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d.join("a.txt"), "alpha\n");
    write(d.join("sub/inner.txt"), &"x".repeat(10_000));

    // 0 list
    let s = text(&run(d, "files", 0, &[]));
    assert!(s.contains(" a.txt\n") && s.contains(" sub\n"), "{s}");
    let s = text(&run(d, "files", 0, &["--path", "sub"]));
    assert!(s.contains(" inner.txt\n") && !s.contains("a.txt"), "{s}");

    // 1 disk usage
    let s = text(&run(d, "files", 1, &["--paths", "sub"]));
    assert_eq!(s.lines().count(), 1, "{s}");
    assert!(s.trim_end().ends_with("\tsub"), "{s}");
    let s = text(&run(d, "files", 1, &["--depth", "1"]));
    assert!(
        s.contains("\t./sub\n") && s.trim_end().ends_with("\t."),
        "{s}"
    );

    // 2 mkdir (it writes: consent first), including names a shell would act on
    refused(&run(d, "files", 2, &["--path", "logs/2024"]));
    assert!(!d.join("logs").exists());
    ok(&run(d, "files", 2, &["--path", "logs/2024", "--yes"]));
    assert!(d.join("logs/2024").is_dir());
    let names = d.join("names");
    std::fs::create_dir(&names).unwrap();
    for nasty in NASTY {
        ok(&run(&names, "files", 2, &["--path", nasty, "--yes"]));
    }
    let mut made: Vec<String> = std::fs::read_dir(&names)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    let mut want: Vec<String> = NASTY.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(made, want, "each value made exactly one directory");
    assert_not_pwned(d);

    // 3 copy, never overwriting (it writes: consent first)
    refused(&run(
        d,
        "files",
        3,
        &["--source", "a.txt", "--dest", "b.txt"],
    ));
    assert!(!d.join("b.txt").exists());
    ok(&run(
        d,
        "files",
        3,
        &["--source", "a.txt", "--dest", "b.txt", "--yes"],
    ));
    assert_eq!(read(d.join("b.txt")), "alpha\n");
    write(d.join("b.txt"), "keep\n");
    let out = run(
        d,
        "files",
        3,
        &["--source", "a.txt", "--dest", "b.txt", "--yes"],
    );
    // coreutils differ on whether a skipped copy exits 0 or 1; either way nothing changes
    assert!(out.code == 0 || out.code == 1, "{}", out.stdout);
    assert_eq!(read(d.join("b.txt")), "keep\n");
    ok(&run(
        d,
        "files",
        3,
        &["--source", "sub", "--dest", "sub2", "--yes"],
    ));
    assert_eq!(read(d.join("sub2/inner.txt")).len(), 10_000);

    // 4 move (confirm)
    refused(&run(
        d,
        "files",
        4,
        &["--source", "a.txt", "--dest", "moved.txt"],
    ));
    assert!(d.join("a.txt").exists() && !d.join("moved.txt").exists());
    ok(&run(
        d,
        "files",
        4,
        &["--source", "a.txt", "--dest", "moved.txt", "--yes"],
    ));
    assert!(!d.join("a.txt").exists());
    assert_eq!(read(d.join("moved.txt")), "alpha\n");

    // 5 delete (destructive)
    refused(&run(d, "files", 5, &["--paths", "sub2"]));
    assert!(d.join("sub2/inner.txt").exists());
    ok(&run(
        d,
        "files",
        5,
        &["--paths", r#"["sub2", "moved.txt"]"#, "--yes"],
    ));
    assert!(!d.join("sub2").exists() && !d.join("moved.txt").exists());
    assert!(d.join("sub/inner.txt").exists() && d.join("b.txt").exists());
    // an option-looking name is a file name
    write(d.join("-rf"), "dash");
    ok(&run(d, "files", 5, &["--paths", "-rf", "--yes"]));
    assert!(!d.join("-rf").exists() && d.join("b.txt").exists());
}

// ---------------------------------------------------------------------------------------------

/// A tiny HTTP/1.1 server on 127.0.0.1 for the curl tests; returns its base URL.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&req);
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
            let (status, kind, body) = match path.as_str() {
                "/hello.json" => (
                    "200 OK",
                    "application/json",
                    "{\"hello\": \"world\", \"n\": 1}",
                ),
                "/file.txt" => ("200 OK", "text/plain", "file body\n"),
                "/moved" => ("302 Found", "text/plain", ""),
                _ => ("404 Not Found", "text/plain", "nope\n"),
            };
            let location = if path == "/moved" {
                "Location: /file.txt\r\n"
            } else {
                ""
            };
            let response = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nX-Cmpx-Test: yes\r\n{location}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    format!("http://{addr}")
}

#[test]
fn curl_every_intent() {
    if !have("curl", &["curl"]) {
        return;
    }
    let base = serve();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let url = |p: &str| format!("{base}{p}");

    // Reaching the network (network:fetch, medium risk) needs consent unless the policy
    // grants it (tests/policy.rs).
    refused(&run(d, "curl", 0, &["--url", &url("/hello.json")]));
    // 0 fetch: a JSON body comes back parsed
    let data = ok(&run(d, "curl", 0, &["--yes", "--url", &url("/hello.json")]));
    assert_eq!(data["stdout"], json!({"hello": "world", "n": 1}));
    let s = text(&run(d, "curl", 0, &["--yes", "--url", &url("/moved")]));
    assert_eq!(s, "file body\n", "redirects are followed");
    let doc = failed(
        &run(d, "curl", 0, &["--yes", "--url", &url("/missing")]),
        1,
        "EXECUTION_ERROR",
    );
    assert_eq!(doc["data"]["stdout"], "nope\n", "the error body is kept");
    // only http(s): a file:// URL never reads local files
    write(d.join("secret.txt"), "s3cret");
    let file_url = format!("file://{}", d.join("secret.txt").display());
    let out = run(d, "curl", 0, &["--yes", "--url", &file_url]);
    assert_eq!(out.code, 1);
    assert!(!out.stdout.contains("s3cret"));
    for nasty in ["$(touch pwned)", "-o pwned", "`touch pwned`"] {
        assert_eq!(
            run(d, "curl", 0, &["--yes", "--url", nasty]).code,
            1,
            "{nasty}"
        );
    }
    assert_not_pwned(d);

    // 1 headers
    let s = text(&run(d, "curl", 1, &["--yes", "--url", &url("/hello.json")]));
    assert!(s.starts_with("HTTP/1.1 200"), "{s}");
    let lower = s.to_lowercase();
    assert!(
        lower.contains("x-cmpx-test: yes") && lower.contains("content-type: application/json"),
        "{s}"
    );
    assert!(!s.contains("world"), "no body: {s}");

    // 2 download (confirm: may overwrite)
    write(d.join("dl.txt"), "canary\n");
    refused(&run(
        d,
        "curl",
        2,
        &["--url", &url("/file.txt"), "--output", "dl.txt"],
    ));
    assert_eq!(read(d.join("dl.txt")), "canary\n");
    ok(&run(
        d,
        "curl",
        2,
        &["--url", &url("/file.txt"), "--output", "dl.txt", "--yes"],
    ));
    assert_eq!(read(d.join("dl.txt")), "file body\n");
    ok(&run(
        d,
        "curl",
        2,
        &[
            "--url",
            &url("/file.txt"),
            "--output",
            "new/dir/f.txt",
            "--yes",
        ],
    ));
    assert_eq!(read(d.join("new/dir/f.txt")), "file body\n");
}
