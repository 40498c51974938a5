//! The literal agent (issue 39): for every intent of every exported folder — catalogue tools
//! and adapters alike — take the `command` from capability.json, fill the placeholders from
//! the intent's worked example (a catalogue tool's: its own, else one of the tool's that agrees
//! with the values the intent fixes) or, for adapters, each required one from a fixture this
//! test makes (a git repository, files for rg and fd, a JSON file, an SQLite database, a tar
//! archive, a local HTTP server for curl), every other one with `''`, run the line through
//! `sh -c` exactly as an agent would, and require the `{success: true, data}` envelope. An
//! intent that asks for consent is run again with `--yes`, as an agent does once the user
//! agreed. Nothing reaches the internet.
//!
//! A program an adapter wraps that is missing here skips that adapter (a failure in CI, where
//! `.ci/run` installs them all).

use crate::common;

use common::Test;
use common::fixtures::{fill, git_repo, read_json, sh, word, write};
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A local HTTP server that answers every request with a short text body; its base URL.
fn http_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hello.txt", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\
                  Connection: close\r\n\r\nhello\n",
            );
        }
    });
    url
}

/// The fixtures the adapters run on: one working directory per adapter, and the values for
/// their required parameters.
struct Fixtures {
    root: tempfile::TempDir,
    url: String,
}

impl Fixtures {
    fn new() -> Fixtures {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        // git: a repository with two commits, an edit and an untracked file.
        let repo = r.join("git");
        if which::which("git").is_ok() {
            git_repo(&repo);
            write(repo.join("a.txt"), "one\n2\n");
            write(repo.join("untracked.txt"), "new\n");
        } else {
            std::fs::create_dir_all(&repo).unwrap();
        }
        // ripgrep and fd: a small source tree.
        for dir in ["ripgrep", "fd"] {
            write(
                r.join(dir).join("src/main.rs"),
                "// TODO: parse\nfn main() {}\n",
            );
            write(r.join(dir).join("notes.md"), "# Notes\nTODO: write\n");
        }
        write(
            r.join("jq/data.json"),
            r#"{"name": "cmpx", "items": [{"id": 1}, {"id": 2}]}"#,
        );
        let sqlite = r.join("sqlite");
        std::fs::create_dir_all(&sqlite).unwrap();
        if which::which("sqlite3").is_ok() {
            sh(
                &sqlite,
                "sqlite3",
                &[
                    "app.db",
                    "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); \
                     INSERT INTO items(name) VALUES ('alpha'), ('beta');",
                ],
            );
        }
        let tar = r.join("tar");
        write(tar.join("pack/a.txt"), "a\n");
        if which::which("tar").is_ok() && which::which("gzip").is_ok() {
            sh(&tar, "tar", &["-czf", "in.tar.gz", "pack"]);
        }
        write(r.join("files/notes.txt"), "notes\n");
        std::fs::create_dir_all(r.join("curl")).unwrap();
        std::fs::create_dir_all(r.join("out")).unwrap();
        Fixtures {
            root,
            url: http_server(),
        }
    }

    /// Where an adapter's commands run.
    fn cwd(&self, adapter: &str) -> PathBuf {
        let dir = self.root.path().join(adapter);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The value for a required parameter of an adapter's intent.
    fn value(&self, adapter: &str, intent: usize, param: &str) -> Option<String> {
        let v = match (adapter, intent, param) {
            ("git", _, "file") => "a.txt",
            ("ripgrep", _, "pattern") => "TODO",
            ("fd", _, "name") => "*.rs",
            ("fd", _, "extension") => "md",
            ("jq", _, "filter") => ".items[].id",
            ("jq", _, "file") => "data.json",
            ("sqlite", _, "db") => "app.db",
            ("sqlite", _, "table") => "items",
            ("sqlite", 2, "sql") => "SELECT count(*) AS n FROM items",
            ("sqlite", 3, "sql") => "INSERT INTO items(name) VALUES ('gamma')",
            ("tar", 1, "archive") => {
                return Some(
                    self.root
                        .path()
                        .join("out/new.tar.gz")
                        .display()
                        .to_string(),
                );
            }
            ("tar", _, "archive") => "in.tar.gz",
            ("files", 2, "path") => "made/here",
            ("files", 3, "source") => "notes.txt",
            ("files", 3, "dest") => "copy.txt",
            ("files", 4, "source") => "copy.txt",
            ("files", 4, "dest") => "moved.txt",
            ("files", 5, "paths") => "moved.txt",
            ("curl", _, "url") => return Some(self.url.clone()),
            ("curl", _, "output") => "download.txt",
            _ => return None,
        };
        Some(v.to_string())
    }
}

/// Runs one command line as an agent does; `None` when it succeeded, else why not. An intent
/// that asks for consent runs again with `--yes`.
fn run_line(line: &str, cwd: &Path, path: &str, home: &Path) -> Option<String> {
    let run = |line: &str| {
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(line)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", path)
            .env("HOME", home)
            .env("CMP_HOME", home)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let doc = serde_json::from_str::<Value>(&stdout).ok();
        (out.status.code(), doc, stdout, out.stderr)
    };
    let (mut code, mut doc, mut stdout, mut stderr) = run(line);
    if doc
        .as_ref()
        .is_some_and(|d| d["data"]["confirmationRequired"] == true)
    {
        (code, doc, stdout, stderr) = run(&format!("{line} --yes"));
    }
    let Some(doc) = doc else {
        return Some(format!(
            "{line}\n  not one JSON document (exit {code:?}): {stdout}\n  stderr: {}",
            String::from_utf8_lossy(&stderr)
        ));
    };
    let envelope =
        doc["success"].is_boolean() && (doc.get("data").is_some() || doc.get("error").is_some());
    if !envelope || doc["success"] != true || code != Some(0) {
        return Some(format!("{line}\n  exit {code:?}: {doc}"));
    }
    None
}

/// Values for the modes of catalogue tools that have no worked example of their own and whose
/// tool's examples do not suit them (another mode's input): `(tool, a word the mode's command
/// fixes, the values)`. An RSA private key is made by the catalogue itself.
fn mode_fixture(tool: &str, command: &str, rsa_key: &str) -> Option<Map<String, Value>> {
    const FIXTURES: &[(&str, &str, &str)] = &[
        (
            "bitwise-calculator",
            "--operation=shr",
            r#"{"a": "0xF0", "b": "2"}"#,
        ),
        // "hello\n", compressed by Python's zlib and lzma (FORMAT_ALONE).
        (
            "gzip-compressor",
            "--format=zlib",
            r#"{"input": "eJzLSM3JyecCAAhLAh8="}"#,
        ),
        (
            "lzma-compressor",
            "--format=lzma",
            r#"{"input": "XQAAgAD//////////wA0GUnujd09Ot///90SAAA="}"#,
        ),
        (
            "jwt-encoder",
            "--algorithm=RS256",
            r#"{"payload": "{\"sub\": \"a\"}"}"#,
        ),
        (
            "mime-type-lookup",
            "--mode=mime",
            r#"{"query": "image/png"}"#,
        ),
        (
            "number-base-converter",
            "--from=2",
            r#"{"input": "11111111"}"#,
        ),
        (
            "roman-numeral-converter",
            "--mode=toNumber",
            r#"{"input": "MCMXCIV"}"#,
        ),
    ];
    let words: Vec<String> = shell_words::split(command).unwrap_or_default();
    let (_, _, values) = FIXTURES
        .iter()
        .find(|(t, word, _)| *t == tool && words.iter().any(|w| w == word))?;
    let mut values: Map<String, Value> = serde_json::from_str(values).unwrap();
    if tool == "jwt-encoder" {
        values.insert("privateKey".into(), Value::String(rsa_key.to_string()));
    }
    Some(values)
}

/// The worked example a literal agent copies for a catalogue intent: its own, else one of the
/// tool's whose values agree with what the intent's command fixes (`--mode=decode`) and give
/// every required parameter.
fn example_for<'a>(
    examples: &'a [Value],
    intent: &Value,
    required: &[&String],
) -> Option<&'a Map<String, Value>> {
    let command = intent["command"].as_str().unwrap_or_default();
    let fixed: Vec<(String, String)> = shell_words::split(command)
        .unwrap_or_default()
        .into_iter()
        .filter(|w| !w.contains('{'))
        .filter_map(|w| {
            let (k, v) = w.strip_prefix("--")?.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })
        .collect();
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let fits = |c: &Map<String, Value>| {
        required.iter().all(|r| c.contains_key(r.as_str()))
            && fixed
                .iter()
                .all(|(k, v)| c.get(k).is_some_and(|x| text(x).eq_ignore_ascii_case(v)))
    };
    let first = &intent["patterns"][0];
    let contexts = examples
        .iter()
        .filter(|e| e["intent"] == *first)
        .chain(examples.iter().filter(|e| e["intent"] != *first))
        .filter_map(|e| e["invocation"]["context"].as_object());
    // No example fits every fixed value: one that gives the required values (a mode of a
    // converter takes the same input as another).
    contexts.clone().find(|c| fits(c)).or_else(|| {
        contexts
            .clone()
            .find(|c| required.iter().all(|r| c.contains_key(r.as_str())))
    })
}

fn path_with_cmpx() -> String {
    let bin_dir = Path::new(common::bin()).parent().unwrap();
    format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn every_exported_intent_runs_as_the_snippet_says() {
    let mut t = Test::new();
    let report = t.args(["export"]).run().json();
    let adapters: Vec<String> = cmpx::adapters::all()
        .iter()
        .map(|a| a.name.to_string())
        .collect();
    for a in cmpx::adapters::all() {
        let missing = a.missing_programs();
        if !missing.is_empty() {
            common::skip(format!("{missing:?} for the {} adapter", a.name));
        }
    }
    let fixtures = Fixtures::new();
    let path = path_with_cmpx();
    let rsa = t
        .args(["run", "rsa-key-pair-generator", "--bits", "2048"])
        .run()
        .json();
    let rsa_key = rsa["data"]["privateKey"].as_str().unwrap().to_string();
    let mut folders: Vec<String> = report["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    folders.sort();
    let mut failures = Vec::new();
    let mut ran = 0;
    for tool in &folders {
        let cmp = t.tools_dir().join(tool).join("cmp");
        let cap = read_json(&cmp.join("capability.json"));
        let examples = read_json(&cmp.join("examples.json"));
        let examples = examples["examples"].as_array().cloned().unwrap_or_default();
        let adapter = adapters.contains(tool);
        let cwd = if adapter {
            fixtures.cwd(tool)
        } else {
            fixtures.cwd("catalogue")
        };
        for (i, intent) in cap["intents"].as_array().unwrap().iter().enumerate() {
            let command = intent["command"].as_str().unwrap();
            if !command.starts_with("cmpx run ") {
                failures.push(format!(
                    "{tool} intent {i}: `{command}` is not a cmpx run line"
                ));
                continue;
            }
            let params = intent["params"].as_object().cloned().unwrap_or_default();
            let required: Vec<&String> = params
                .iter()
                .filter(|(_, p)| p["required"] == true)
                .map(|(name, _)| name)
                .collect();
            let fixture = mode_fixture(tool, command, &rsa_key);
            let example = if adapter {
                None
            } else {
                fixture
                    .as_ref()
                    .or_else(|| example_for(&examples, intent, &required))
            };
            let mut unfilled = Vec::new();
            let line = fill(command, |name| {
                // Adapters: a fixture for each required value. Catalogue tools: every value
                // the worked example gives (a mode may need one that is optional elsewhere).
                let value = match example {
                    Some(context) => context.get(name).cloned(),
                    None if required.iter().any(|r| *r == name) => {
                        fixtures.value(tool, i, name).map(Value::String)
                    }
                    None => None,
                };
                if value.is_none() && required.iter().any(|r| *r == name) {
                    unfilled.push(name.to_string());
                }
                word(value.as_ref(), !adapter)
            });
            if !unfilled.is_empty() {
                failures.push(format!(
                    "{tool} intent {i}: no example or fixture gives {unfilled:?}"
                ));
                continue;
            }
            ran += 1;
            if let Some(why) = run_line(&line, &cwd, &path, t.home()) {
                failures.push(why);
            }
        }
    }
    eprintln!("ran {ran} intents of {} folders", folders.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// jq's pretty-print intent with `''` for the indent indents (two spaces), and its answer is
/// the indented text.
#[test]
fn jq_pretty_print_with_blank_indent_indents() {
    if !common::require("jq", which::which("jq").is_ok()) {
        return;
    }
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let cap = read_json(&t.tools_dir().join("jq/cmp/capability.json"));
    let intent = cap["intents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["patterns"][0] == "pretty-print a json file")
        .unwrap();
    assert_eq!(
        intent["command"],
        "cmpx run jq --intent 1 --file={file} --indent={indent}"
    );
    assert_eq!(intent["program"], "jq --indent {indent} . -- {file}");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path().join("data.json"), r#"{"a":[1,2]}"#);
    let line = "cmpx run jq --intent 1 --file=data.json --indent=''";
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir.path())
        .env("PATH", path_with_cmpx())
        .env("HOME", t.home())
        .env("CMP_HOME", t.home())
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["success"], true, "{doc}");
    assert_eq!(doc["data"]["exitCode"], 0, "{doc}");
    assert_eq!(doc["data"]["argv"][2], "2", "{doc}");
    assert_eq!(
        doc["data"]["stdout"], "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n",
        "{doc}"
    );
}

/// On a host with only `fdfind` (Debian's name for fd), the exported fd command works; with
/// neither, the error names the package to install.
#[test]
fn the_fd_adapter_runs_with_only_fdfind() {
    let Some(fd) = ["fdfind", "fd"].iter().find_map(|p| which::which(p).ok()) else {
        common::skip("fd (package fd-find) is missing");
        return;
    };
    let mut t = Test::new();
    assert_eq!(t.args(["export"]).run().code, 0);
    let cap = read_json(&t.tools_dir().join("fd/cmp/capability.json"));
    let template = cap["intents"][1]["command"].as_str().unwrap();
    assert_eq!(
        template,
        "cmpx run fd --intent 1 --extension={extension} --path={path}"
    );
    let line = fill(template, |name| match name {
        "extension" => "md".into(),
        _ => "''".into(),
    });
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(common::bin(), bin.path().join("cmpx")).unwrap();
    let work = tempfile::tempdir().unwrap();
    write(work.path().join("docs/readme.md"), "# hi\n");
    let run = |path: &Path| -> Value {
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(&line)
            .current_dir(work.path())
            .env_clear()
            .env("PATH", path)
            .env("HOME", t.home())
            .env("CMP_HOME", t.home())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    };
    // Neither name on PATH: NOT_FOUND, naming the Debian/Ubuntu package.
    let doc = run(bin.path());
    assert_eq!(doc["errorCode"], "NOT_FOUND", "{doc}");
    assert!(doc["error"].as_str().unwrap().contains("fd-find"), "{doc}");
    assert_eq!(doc["data"]["package"], "fd-find", "{doc}");
    // Only `fdfind`.
    std::os::unix::fs::symlink(&fd, bin.path().join("fdfind")).unwrap();
    let doc = run(bin.path());
    assert_eq!(doc["success"], true, "{doc}");
    assert!(
        doc["data"]["stdout"]
            .as_str()
            .is_some_and(|s| s.trim_end().ends_with("docs/readme.md")),
        "{doc}"
    );
}
