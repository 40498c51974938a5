//! The filesystem-diff test: every bundled adapter intent runs (with consent) in a fresh
//! temporary directory, and what changed there — files created, removed, or given new
//! content, `.git` included — must be covered by the capabilities the intent declares. Since
//! MCP's hints and consent derive from those declarations (`cmp::effects`), no intent that
//! changes a file can be listed `readOnlyHint: true` or run without consent.

use crate::common;

use cmpx::cmp::Intent;
use cmpx::cmp::effects;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

const ADAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/adapters");

#[derive(Debug, PartialEq)]
enum Entry {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

fn snapshot(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let kind = e.file_type().unwrap();
            let entry = if kind.is_symlink() {
                Entry::Link(std::fs::read_link(&path).unwrap())
            } else if kind.is_dir() {
                todo.push(path.clone());
                Entry::Dir
            } else {
                Entry::File(std::fs::read(&path).unwrap())
            };
            out.insert(rel, entry);
        }
    }
    out
}

/// What changed, as the capabilities it takes: created → fs:write, removed → fs:delete,
/// new content → fs:overwrite; each with the paths that show it.
fn changes(
    before: &BTreeMap<PathBuf, Entry>,
    after: &BTreeMap<PathBuf, Entry>,
) -> BTreeMap<&'static str, Vec<PathBuf>> {
    let mut out: BTreeMap<&str, Vec<PathBuf>> = BTreeMap::new();
    for (path, entry) in after {
        match before.get(path) {
            None => out.entry(effects::FS_WRITE).or_default().push(path.clone()),
            Some(old) if old != entry => out
                .entry(effects::FS_OVERWRITE)
                .or_default()
                .push(path.clone()),
            Some(_) => {}
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p)) {
        out.entry(effects::FS_DELETE)
            .or_default()
            .push(path.clone());
    }
    out
}

fn sh(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir.parent().unwrap())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A directory with something for every intent: a git repository with a committed file
/// changed since and an untracked one, a JSON file, an SQLite database, an archive of the
/// committed state.
fn fixture(dir: &Path) {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(dir.join("sub/inner.txt"), "inner\n").unwrap();
    std::fs::write(dir.join("data.json"), "{\"a\": 1}\n").unwrap();
    sh(dir, "git", &["init", "-q", "-b", "main"]);
    sh(dir, "git", &["add", "."]);
    sh(
        dir,
        "git",
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "start",
        ],
    );
    sh(dir, "tar", &["czf", "archive.tar.gz", "a.txt", "sub"]);
    sh(
        dir,
        "sqlite3",
        &["app.db", "create table t(x); insert into t values (1);"],
    );
    std::fs::write(dir.join("a.txt"), "changed\n").unwrap();
    std::fs::write(dir.join("new.txt"), "untracked\n").unwrap();
    // Let git see a.txt as changed whatever the clock's resolution.
    let _ = Command::new("git")
        .args(["update-index", "--refresh", "-q"])
        .current_dir(dir)
        .status();
}

/// One HTTP answer per connection on 127.0.0.1; returns the base URL.
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
            let body = "downloaded\n";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

/// The arguments each intent runs with, by adapter and intent index.
fn arguments(adapter: &str, index: usize, url: &str) -> Value {
    match (adapter, index) {
        ("curl", 2) => json!({"url": format!("{url}/f"), "output": "a.txt"}),
        ("curl", _) => json!({"url": format!("{url}/f")}),
        ("fd", 0) => json!({"name": "*.txt"}),
        ("fd", 1) => json!({"extension": "txt"}),
        ("files", 2) => json!({"path": "newdir/deeper"}),
        ("files", 3) => json!({"source": "a.txt", "dest": "copy.txt"}),
        ("files", 4) => json!({"source": "a.txt", "dest": "data.json"}),
        ("files", 5) => json!({"paths": ["new.txt"]}),
        ("git", 6) => json!({"file": "sub/inner.txt"}),
        ("git", 7) => json!({"message": "wip"}),
        ("jq", 0) => json!({"filter": ".a", "file": "data.json"}),
        ("jq", 1) => json!({"file": "data.json"}),
        ("ripgrep", 0 | 2) => json!({"pattern": "alpha"}),
        ("sqlite", 1) => json!({"db": "app.db", "table": "t"}),
        ("sqlite", 2) => json!({"db": "app.db", "sql": "select * from t"}),
        ("sqlite", 3) => json!({"db": "app.db", "sql": "insert into t values (2)"}),
        ("sqlite", _) => json!({"db": "app.db"}),
        ("tar", 1) => json!({"archive": "archive.tar.gz", "paths": ["sub"]}),
        ("tar", _) => json!({"archive": "archive.tar.gz"}),
        _ => json!({}),
    }
}

/// Whether `unshare -rn` (a user and network namespace, no privileges needed) works here; the
/// tests that need it [`common::require`] it.
fn isolation_works() -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| common::runs("unshare", &["-rn", "true"]))
}

const UNSHARE: &str = "a working `unshare -rn` (for the network check)";

/// The check itself can fail: a fetch in the namespace does not reach even 127.0.0.1.
#[test]
fn a_connection_from_inside_the_namespace_fails() {
    if !common::require(UNSHARE, isolation_works())
        || !common::require("curl", which::which("curl").is_ok())
    {
        return;
    }
    let url = serve();
    let outside = Command::new("curl").args(["-sf", &url]).output().unwrap();
    assert!(outside.status.success());
    let inside = Command::new("unshare")
        .args(["-rn", "curl", "-sf", &url])
        .output()
        .unwrap();
    assert!(!inside.status.success());
}

fn installed(programs: &[&str]) -> bool {
    let missing: Vec<&&str> = programs
        .iter()
        .filter(|p| !p.split('|').any(|n| which::which(n).is_ok()))
        .collect();
    if !missing.is_empty() {
        common::skip(format!("{missing:?} not installed"));
    }
    missing.is_empty()
}

#[test]
fn every_adapter_intent_changes_only_what_it_declares() {
    let needed = [
        "git",
        "rg",
        "fd|fdfind",
        "jq",
        "tar",
        "gzip",
        "sqlite3",
        "curl",
        "ls",
        "du",
        "mkdir",
        "cp",
        "mv",
        "rm",
    ];
    if !installed(&needed) {
        return;
    }
    // Without a namespace the intents still run, with the network, and that half goes unchecked.
    common::require(UNSHARE, isolation_works());
    let url = serve();
    let mut problems = Vec::new();
    let mut ran = 0;
    let mut offline_runs = 0;
    let mut adapters: Vec<PathBuf> = std::fs::read_dir(ADAPTERS)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("cmp/capability.json").exists())
        .collect();
    adapters.sort();
    for dir in adapters {
        let adapter = dir.file_name().unwrap().to_string_lossy().into_owned();
        let cap: Value =
            serde_json::from_slice(&std::fs::read(dir.join("cmp/capability.json")).unwrap())
                .unwrap();
        for (index, raw) in cap["intents"].as_array().unwrap().iter().enumerate() {
            let intent: Intent = serde_json::from_value(raw.clone()).unwrap();
            let name = format!("{adapter} intent {index} ({})", intent.patterns[0]);
            let Some(declared) = intent.capabilities.clone() else {
                problems.push(format!("{name}: declares no capabilities"));
                continue;
            };
            let top = tempfile::tempdir().unwrap();
            let work = top.path().join("work");
            fixture(&work);
            let home = top.path().join("home");
            let before = snapshot(&work);
            let mut args = vec![
                "run".to_string(),
                adapter.clone(),
                "--intent".to_string(),
                index.to_string(),
                "--yes".to_string(),
            ];
            for (k, v) in arguments(&adapter, index, &url).as_object().unwrap() {
                args.push(format!("--{k}"));
                args.push(v.as_str().map_or_else(|| v.to_string(), str::to_string));
            }
            // An intent that declares no network:* capability runs in a network namespace of
            // its own with no interface up: a connection it tried would fail, and so would it.
            let offline = isolation_works() && !declared.iter().any(|d| d.starts_with("network:"));
            let mut cmd = if offline {
                let mut c = Command::new("unshare");
                c.args(["-rn", common::bin()]);
                c
            } else {
                Command::new(common::bin())
            };
            offline_runs += usize::from(offline);
            let out = cmd
                .args(&args)
                .current_dir(&work)
                .env("CMP_HOME", &home)
                .env("CMP_TOOL_PATH", ADAPTERS)
                .env("HOME", top.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.com")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.com")
                .output()
                .unwrap();
            ran += 1;
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
            if doc["success"] != true {
                problems.push(format!(
                    "{name}: did not run ({args:?}): {}",
                    String::from_utf8_lossy(&out.stdout)
                ));
                continue;
            }
            let after = snapshot(&work);
            for (needs, paths) in changes(&before, &after) {
                if !declared.iter().any(|d| d == needs) {
                    problems.push(format!(
                        "{name}: changed {paths:?}, which takes {needs}, but declares {declared:?}"
                    ));
                }
            }
            let e = intent.effects();
            let changed = before != after;
            if changed && (e.read_only || !e.consent) {
                problems.push(format!(
                    "{name}: changes files yet is read-only ({}) or runs without consent ({})",
                    e.read_only, !e.consent
                ));
            }
        }
    }
    eprintln!("ran {ran} adapter intents, {offline_runs} of them without a network");
    if isolation_works() {
        assert!(
            offline_runs >= 25,
            "only {offline_runs} intents ran offline"
        );
    }
    assert!(ran >= 30, "only {ran} intents ran");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
