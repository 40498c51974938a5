//! Folder safety: writers into one CMP_HOME take turns and leave every folder whole; nothing is
//! written or copied through a link and no copy gains permissions; a FIFO anywhere in a tools
//! tree hangs nothing; `discover --out` keeps files it did not write; and a template that runs
//! a caller's value as code is flagged and needs consent.

use crate::common;

use common::{Output, Test, bin};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn write(path: impl AsRef<Path>, content: impl AsRef<[u8]>) {
    let path = path.as_ref();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A third-party tool folder `<root>/<name>/cmp/` with the given intents.
fn folder(root: &Path, name: &str, intents: Value) -> PathBuf {
    let dir = root.join(name);
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

fn hello(name: &str) -> Value {
    json!([{"patterns": [format!("say hello from {name}")], "command": "echo hello",
        "params": {}, "confirm": false, "destructive": false, "idempotent": true}])
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn cmpx(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CMP_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// How long a command may take before the test calls it hung. Generous: this detects a
/// process blocked forever (on a FIFO, a lock), not a slow machine.
const HANG: Duration = Duration::from_secs(120);

/// Waits for `child`, killing it and failing the test if it never finishes.
fn finish(mut child: Child, what: &str) -> Output {
    // Either stream may have been taken by the caller already.
    fn drain(stream: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_string(&mut s);
            }
            s
        })
    }
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let code = status.code().unwrap_or(-1);
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert_ne!(code, 101, "{what} panicked: {stderr}");
    Output {
        code,
        stdout,
        stderr,
    }
}

/// Runs cmpx to the end (or fails the test if it hangs).
fn run(home: &Path, args: &[&str]) -> Output {
    finish(cmpx(home, args).spawn().unwrap(), &format!("cmpx {args:?}"))
}

fn run_with_stdin(home: &Path, args: &[&str], input: &str) -> Output {
    let mut child = cmpx(home, args).stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    finish(child, &format!("cmpx {args:?}"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Concurrent writers.

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Rewrites every exported folder as an older cmpx would have left it, so the next export
/// replaces it.
fn make_old(tools: &Path) {
    for entry in std::fs::read_dir(tools).unwrap().flatten() {
        let dir = entry.path();
        let state_path = dir.join(".cmpx-export.json");
        let Ok(state) = std::fs::read(&state_path) else {
            continue;
        };
        let mut state: Value = serde_json::from_slice(&state).unwrap();
        let manifest_path = dir.join("cmp/manifest.json");
        let mut manifest: Value =
            serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
        manifest["x-old"] = json!(true);
        let bytes = serde_json::to_vec_pretty(&manifest).unwrap();
        std::fs::write(&manifest_path, &bytes).unwrap();
        state["files"]["cmp/manifest.json"] = json!(sha256(&bytes));
        std::fs::write(&state_path, state.to_string()).unwrap();
    }
}

fn trials() -> usize {
    std::env::var("CMPX_CONCURRENCY_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

/// Two exports and an install at once on one CMP_HOME, from an empty root, from folders an
/// older cmpx left, and with some folders missing. Set CMPX_CONCURRENCY_TRIALS=50 for the
/// issue's full run.
#[test]
fn concurrent_exports_and_an_install_leave_every_folder_whole() {
    let t = Test::new();
    let home = t.home();
    let tools = t.tools_dir();
    let src = tempfile::tempdir().unwrap();
    let side = folder(src.path(), "side-tool", hello("the side tool"));
    let first = run(home, &["export"]);
    assert_eq!(first.code, 0, "{}{}", first.stdout, first.stderr);
    let expected: BTreeSet<String> = std::fs::read_dir(&tools)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(expected.len() > 100, "{expected:?}");

    for trial in 0..trials() {
        match trial % 3 {
            0 => std::fs::remove_dir_all(&tools).unwrap(),
            1 => make_old(&tools),
            _ => {
                for name in expected.iter().filter(|n| (n.len() + trial) % 3 == 0) {
                    let _ = std::fs::remove_dir_all(tools.join(name));
                }
            }
        }
        let children = [
            cmpx(home, &["export"]).spawn().unwrap(),
            cmpx(home, &["export"]).spawn().unwrap(),
            cmpx(home, &["install", "--force", s(&side)])
                .spawn()
                .unwrap(),
        ];
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| finish(c, "a concurrent writer"))
            .collect();
        for out in &outs {
            assert_eq!(
                out.code, 0,
                "trial {trial}: a writer failed:\n{}\n{}",
                out.stdout, out.stderr
            );
        }
        for out in &outs[..2] {
            let report = out.json();
            assert_eq!(report["skipped"], json!([]), "trial {trial}: {report}");
            let done: usize = ["created", "updated", "unchanged"]
                .iter()
                .map(|k| report[k].as_array().unwrap().len())
                .sum();
            assert_eq!(done, expected.len(), "trial {trial}: {report}");
        }
        assert_eq!(outs[2].json()["installed"], "side-tool");

        let mut found = BTreeSet::new();
        for entry in std::fs::read_dir(&tools).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "trial {trial}: {name} left behind");
            for file in ["cmp/manifest.json", "cmp/capability.json"] {
                assert!(
                    entry.path().join(file).is_file(),
                    "trial {trial}: {name} has no {file}"
                );
            }
            found.insert(name);
        }
        let mut want = expected.clone();
        want.insert("side-tool".to_string());
        assert_eq!(found, want, "trial {trial}");
        let check = run(home, &["validate", s(&tools)]);
        assert_eq!(check.code, 0, "trial {trial}: {}", check.stdout);
        assert_eq!(check.json()["checked"], want.len());
        // A later export finds nothing of its own that looks edited.
        let again = run(home, &["export"]);
        assert_eq!(again.json()["skipped"], json!([]), "trial {trial}");
        assert_eq!(
            again.json()["unchanged"].as_array().unwrap().len(),
            expected.len()
        );
    }
}

#[test]
fn a_writer_waits_for_the_lock_and_says_so() {
    let t = Test::new();
    let tools = t.tools_dir();
    std::fs::create_dir_all(&tools).unwrap();
    let src = tempfile::tempdir().unwrap();
    let waiter = folder(src.path(), "waiter", hello("the waiter"));

    // The test holds the lock a writer takes: an advisory lock on the tools root itself.
    let held = std::fs::File::open(&tools).unwrap();
    held.lock().unwrap();
    let mut child = cmpx(t.home(), &["install", s(&waiter)]).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The folder's intent declares no capabilities: install warns about that first.
    let note = std::iter::from_fn(|| rx.recv_timeout(HANG).ok())
        .find(|l| !l.starts_with("warning: "))
        .expect("no note about waiting");
    assert_eq!(
        note,
        format!(
            "cmpx: waiting for another cmpx that is writing to {} to finish…",
            tools.display()
        )
    );
    assert!(child.try_wait().unwrap().is_none(), "it gave up instead");
    assert!(!tools.join("waiter").exists());
    drop(held);
    let out = finish(child, "the waiting install");
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(tools.join("waiter/cmp/capability.json").is_file());
}

// ---------------------------------------------------------------------------------------------
// Links.

/// Every file under `dir` with its bytes, links included as their target path.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_symlink() {
                let target = std::fs::read_link(e.path()).unwrap();
                out.push((e.path(), target.to_string_lossy().as_bytes().to_vec()));
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn export_never_writes_through_links_even_with_force() {
    let t = Test::new();
    let tools = t.tools_dir();
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path();
    write(o.join("notes.txt"), "the user's notes");
    write(o.join("cmp/manifest.json"), "{\"mine\": true}");
    write(o.join("state.json"), "{}");
    std::fs::create_dir_all(&tools).unwrap();
    let link = |target: &Path, at: &Path| {
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, at).unwrap();
    };
    link(o, &tools.join("json-formatter"));
    link(&o.join("cmp"), &tools.join("json-minifier/cmp"));
    link(
        &o.join("notes.txt"),
        &tools.join("base64-encoder/cmp/capability.json"),
    );
    link(
        &o.join("notes.txt"),
        &tools.join("url-encoder/cmp/examples.json"),
    );
    link(
        &o.join("state.json"),
        &tools.join("uuid-generator/.cmpx-export.json"),
    );
    mkfifo(&tools.join("slugify/cmp/manifest.json"));
    let before = tree(o);

    for args in [&["export", "--force"][..], &["export"]] {
        let out = run(t.home(), args);
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        let report = out.json();
        let reason = |tool: &str| -> String {
            report["skipped"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["tool"] == tool)
                .unwrap_or_else(|| panic!("{tool} not skipped: {report}"))["reason"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let never = "cmpx never writes through links, even with --force";
        assert_eq!(
            reason("json-formatter"),
            format!(
                "{} is a symbolic link, not a directory; {never}; replace the link with a real folder or remove it",
                tools.join("json-formatter").display()
            )
        );
        assert_eq!(
            reason("json-minifier"),
            format!(
                "{} is a symbolic link, not a directory; {never}; replace the link with a real folder or remove it",
                tools.join("json-minifier/cmp").display()
            )
        );
        for (tool, file) in [
            ("base64-encoder", "cmp/capability.json"),
            ("url-encoder", "cmp/examples.json"),
            ("uuid-generator", ".cmpx-export.json"),
        ] {
            assert_eq!(
                reason(tool),
                format!(
                    "{} is a symbolic link, not a regular file; {never}; replace the link with a real file or remove it",
                    tools.join(tool).join(file).display()
                )
            );
        }
        assert_eq!(
            reason("slugify"),
            format!(
                "{} is a FIFO (named pipe), not a regular file; remove it to export here",
                tools.join("slugify/cmp/manifest.json").display()
            )
        );
        assert_eq!(report["skipped"].as_array().unwrap().len(), 6, "{report}");
        assert_eq!(
            tree(o),
            before,
            "something was written outside the tools root"
        );
        assert!(tools.join("hash-generator/cmp/manifest.json").is_file());
    }
    assert!(
        std::fs::symlink_metadata(tools.join("json-formatter"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn install_copies_only_the_folders_own_files_and_never_widens_permissions() {
    let t = Test::new();
    let tools = t.tools_dir();
    let src = tempfile::tempdir().unwrap();
    let dir = folder(src.path(), "perm", hello("perm"));
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.json");
    write(&secret, json!({"examples": []}).to_string());
    set_mode(&secret, 0o600);

    // A linked examples.json is refused: nothing outside the folder is copied in.
    let examples = dir.join("cmp/examples.json");
    std::os::unix::fs::symlink(&secret, &examples).unwrap();
    let out = run(t.home(), &["install", s(&dir)]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(
        out.json()["error"],
        format!(
            "{} is a symbolic link; install copies a folder's own files only (copy the file it points to into the folder)",
            examples.display()
        )
    );
    assert!(!tools.join("perm").exists());

    // So is a linked cmp/ folder.
    let other = tempfile::tempdir().unwrap();
    let real = folder(other.path(), "linked", hello("linked"));
    let linked = src.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(real.join("cmp"), linked.join("cmp")).unwrap();
    let out = run(t.home(), &["install", s(&linked)]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(
        out.json()["error"],
        format!(
            "{} is a symbolic link; install copies a folder's own files only (replace the link with the folder)",
            linked.join("cmp").display()
        )
    );
    assert!(!tools.join("linked").exists());

    // Real files keep their permission bits or fewer: never group/other write, never execute.
    std::fs::remove_file(&examples).unwrap();
    write(&examples, json!({"examples": []}).to_string());
    set_mode(&dir.join("cmp/capability.json"), 0o600);
    set_mode(&dir.join("cmp/manifest.json"), 0o640);
    set_mode(&examples, 0o777);
    set_mode(&dir.join("cmp"), 0o750);
    let out = run(t.home(), &["install", s(&dir)]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let installed = tools.join("perm/cmp");
    assert_eq!(mode(&installed.join("capability.json")), 0o600);
    assert_eq!(mode(&installed.join("manifest.json")), 0o640);
    assert_eq!(mode(&installed.join("examples.json")), 0o644);
    assert_eq!(mode(&installed), 0o750);

    // An installed folder that is a link is not replaced, even with --force.
    std::fs::remove_dir_all(tools.join("perm")).unwrap();
    std::os::unix::fs::symlink(outside.path(), tools.join("perm")).unwrap();
    let before = tree(outside.path());
    let out = run(t.home(), &["install", "--force", s(&dir)]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert_eq!(
        out.json()["error"],
        format!(
            "{} is a symbolic link, not a tool folder; cmpx does not replace it, even with --force (remove it first)",
            tools.join("perm").display()
        )
    );
    assert_eq!(tree(outside.path()), before);
}

// ---------------------------------------------------------------------------------------------
// FIFOs.

fn fifo_message(path: &Path) -> String {
    format!(
        "{} is a FIFO (named pipe), not a regular file; cmpx reads only regular files",
        path.display()
    )
}

#[test]
fn a_fifo_in_place_of_a_cmp_file_hangs_nothing() {
    for file in ["capability.json", "examples.json", "manifest.json"] {
        let t = Test::new();
        let home = t.home();
        let dir = folder(&t.tools_dir(), "piped", hello("piped"));
        write(
            dir.join("cmp/examples.json"),
            json!({"examples": []}).to_string(),
        );
        let fifo = dir.join("cmp").join(file);
        mkfifo(&fifo);
        let mcp = [
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
        ]
        .iter()
        .map(|m| m.to_string() + "\n")
        .collect::<String>();
        let out = run_with_stdin(home, &["mcp"], &mcp);
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        assert_eq!(out.stdout.lines().count(), 2, "{file}: {}", out.stdout);

        for args in [
            &["resolve", "say hello from piped"][..],
            &["do", "say hello from piped"],
            &["run", "piped", "--intent", "0"],
            &["list"],
            &["export"],
        ] {
            let out = run(home, args);
            assert!(out.code <= 6, "{file} {args:?}: {}", out.stdout);
        }
        let out = run(home, &["validate", s(&dir)]);
        assert_eq!(out.code, 1, "{file}: {}", out.stdout);
        assert!(
            out.json()["problems"]
                .as_array()
                .unwrap()
                .contains(&json!(fifo_message(&fifo))),
            "{file}: {}",
            out.stdout
        );
        let out = run(home, &["install", "--force", s(&dir)]);
        assert_eq!(out.code, 1, "{file}: {}", out.stdout);
        assert!(out.stdout.contains(&fifo_message(&fifo)), "{}", out.stdout);
        let out = run(home, &["show", "piped"]);
        if file == "manifest.json" {
            // No readable manifest: the folder is no tool, and the listing says why.
            assert_eq!(out.code, 4, "{}", out.stdout);
            let list = run(home, &["list"]).json();
            assert!(
                list["skipped"]
                    .to_string()
                    .contains("is a FIFO (named pipe)"),
                "{list}"
            );
        } else {
            assert_eq!(out.code, 1, "{file}: {}", out.stdout);
            assert_eq!(out.json()["error"], fifo_message(&fifo));
        }
    }
}

#[test]
fn a_fifo_elsewhere_cmpx_reads_hangs_nothing() {
    let t = Test::new();
    let home = t.home();
    // The resolver's cache: ignored, rebuilt, and replaced by a regular file.
    let cache = home.join("cache/resolve-index.bin");
    mkfifo(&cache);
    let out = run(home, &["resolve", "pretty print json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(std::fs::symlink_metadata(&cache).unwrap().is_file());

    // An export's record: the folder is skipped with the reason.
    assert_eq!(run(home, &["export"]).code, 0);
    let state = t.tools_dir().join("json-formatter/.cmpx-export.json");
    mkfifo(&state);
    let out = run(home, &["export"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.json()["skipped"],
        json!([{"tool": "json-formatter", "reason": format!(
            "{} is a FIFO (named pipe), not a regular file; remove it to export here",
            state.display()
        )}])
    );

    // A definition file given to validate, and the file agent-setup edits.
    let def = home.join("def.json");
    mkfifo(&def);
    let out = run(home, &["validate", s(&def)]);
    assert_eq!(out.code, 1);
    assert_eq!(out.json()["problems"], json!([fifo_message(&def)]));
    let out = run(home, &["agent-setup", "--write", s(&def)]);
    assert_eq!(out.code, 1);
    assert_eq!(out.json()["error"], fifo_message(&def));

    // A discovery document: kept unless --force, which replaces the FIFO itself.
    let site = home.join("site");
    let yaml = site.join("api/openapi.yaml");
    std::fs::create_dir_all(site.join("api")).unwrap();
    mkfifo(&yaml);
    let out = run(home, &["discover", "--out", s(&site)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        status_of(&out.json(), "openapi"),
        (
            "skipped".to_string(),
            "a FIFO (named pipe), not a regular file; use --force to replace it".to_string()
        )
    );
    let out = run(home, &["discover", "--out", s(&site), "--force"]);
    assert_eq!(status_of(&out.json(), "openapi").0, "updated");
    assert!(std::fs::symlink_metadata(&yaml).unwrap().is_file());
}

// ---------------------------------------------------------------------------------------------
// discover --out.

/// `(status, reason)` of one format in a `discover --out` summary.
fn status_of(summary: &Value, format: &str) -> (String, String) {
    let entry = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["format"] == format)
        .unwrap_or_else(|| panic!("{format} not in {summary}"));
    (
        entry["status"].as_str().unwrap().to_string(),
        entry["reason"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn discover_keeps_files_it_did_not_write_unless_forced() {
    let t = Test::new();
    let home = t.home();
    let site = tempfile::tempdir().unwrap();
    let dir = site.path();
    let yaml = dir.join("api/openapi.yaml");
    std::fs::create_dir_all(dir.join("api")).unwrap();
    write(&yaml, "openapi: 3.1.0\n# the user's own API\n");
    let mine = std::fs::read(&yaml).unwrap();

    let out = run(home, &["discover", "--out", s(dir)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let keep = "not written by cmpx; use --force to replace it".to_string();
    assert_eq!(
        status_of(&out.json(), "openapi"),
        ("skipped".into(), keep.clone())
    );
    assert_eq!(
        out.stderr,
        format!("warning: kept {}: {keep}\n", yaml.display())
    );
    assert_eq!(status_of(&out.json(), "llms-txt").0, "created");
    assert_eq!(std::fs::read(&yaml).unwrap(), mine);

    // Again: still kept; cmpx's own files are unchanged.
    let out = run(home, &["discover", "--out", s(dir)]);
    assert_eq!(status_of(&out.json(), "openapi"), ("skipped".into(), keep));
    assert_eq!(status_of(&out.json(), "llms-txt").0, "unchanged");

    // An edit to a file cmpx wrote is kept too.
    let llms = dir.join("llms.txt");
    let mut edited = std::fs::read_to_string(&llms).unwrap();
    edited.push_str("\n- my own link\n");
    std::fs::write(&llms, &edited).unwrap();
    let out = run(
        home,
        &[
            "discover",
            "--out",
            s(dir),
            "--base-url",
            "https://tools.example",
        ],
    );
    assert_eq!(
        status_of(&out.json(), "llms-txt"),
        (
            "skipped".into(),
            "edited since cmpx wrote it; use --force to replace it".into()
        )
    );
    assert_eq!(std::fs::read_to_string(&llms).unwrap(), edited);
    // Its own files it replaces when they change.
    assert_eq!(status_of(&out.json(), "ctp-manifest").0, "updated");

    // A file cmpx wrote and the user deleted is written again.
    std::fs::remove_file(dir.join("llms-full.txt")).unwrap();
    let out = run(
        home,
        &[
            "discover",
            "--out",
            s(dir),
            "--base-url",
            "https://tools.example",
        ],
    );
    assert_eq!(status_of(&out.json(), "llms-full-txt").0, "created");

    // --force replaces both.
    let out = run(home, &["discover", "--out", s(dir), "--force"]);
    assert_eq!(status_of(&out.json(), "openapi").0, "updated");
    assert_eq!(status_of(&out.json(), "llms-txt").0, "updated");
    let printed = run(home, &["discover", "--format", "openapi"]).stdout;
    assert_eq!(std::fs::read_to_string(&yaml).unwrap(), printed);
}

#[test]
fn discover_never_writes_through_links() {
    let t = Test::new();
    let home = t.home();
    let site = tempfile::tempdir().unwrap();
    let dir = site.path();
    let outside = tempfile::tempdir().unwrap();
    let user = outside.path().join("user.yaml");
    write(&user, "mine\n");
    std::os::unix::fs::symlink(outside.path(), dir.join(".well-known")).unwrap();
    std::fs::create_dir_all(dir.join("api")).unwrap();
    std::os::unix::fs::symlink(&user, dir.join("api/openapi.yaml")).unwrap();
    let before = tree(outside.path());

    let out = run(home, &["discover", "--out", s(dir)]);
    assert_eq!(
        status_of(&out.json(), "openapi"),
        (
            "skipped".into(),
            "a symbolic link (--force replaces the link itself, never the file it points to); use --force to replace it".into()
        )
    );
    let linked = format!(
        "{} is a symbolic link, not a directory; cmpx never writes through links, even with --force",
        dir.join(".well-known").display()
    );
    assert_eq!(
        status_of(&out.json(), "ctp-manifest"),
        ("skipped".into(), linked.clone())
    );
    let out = run(home, &["discover", "--out", s(dir), "--force"]);
    assert_eq!(
        status_of(&out.json(), "ctp-manifest"),
        ("skipped".into(), linked)
    );
    assert_eq!(status_of(&out.json(), "openapi").0, "updated");
    assert!(
        std::fs::symlink_metadata(dir.join("api/openapi.yaml"))
            .unwrap()
            .is_file()
    );
    assert_eq!(tree(outside.path()), before);
}

// ---------------------------------------------------------------------------------------------
// Templates that run a value as code.

#[test]
fn templates_that_run_a_value_as_code_warn_and_need_consent() {
    let t = Test::new();
    let home = t.home();
    let src = tempfile::tempdir().unwrap();
    let dir = folder(
        src.path(),
        "shelly",
        json!([
            {"patterns": ["shelly touch a file"], "command": "sh -c 'touch \"$1\"' sh {path}",
             "params": {"path": {"type": "string", "required": true}}},
            {"patterns": ["shelly count the lines"], "command": "wc -l {path}", "capabilities": ["fs:read"],
             "params": {"path": {"type": "string", "required": true}}},
        ]),
    );
    let warning = format!(
        "{}: intents[0].command passes {{path}} as an argument to the code that sh -c runs, which \
         can execute it; it runs only with consent (--yes), like an intent marked confirm",
        dir.join("cmp/capability.json").display()
    );
    // It also declares no capabilities (issue 37, item 21).
    let undeclared = format!(
        "{}: intents[0] declares no capabilities, so cmpx counts it as process:spawn (a program \
         nothing describes) and asks before every run; declare what it touches, e.g. \
         \"capabilities\": [\"fs:read\"]",
        dir.join("cmp/capability.json").display()
    );

    // Warnings, not problems: the folder stays valid.
    let out = run(home, &["validate", s(&dir)]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        out.json(),
        json!({"valid": true, "checked": 1, "problems": [], "warnings": [warning, undeclared]})
    );
    assert_eq!(
        out.stderr,
        format!("warning: {warning}\nwarning: {undeclared}\n")
    );
    let out = run(home, &["install", s(&dir)]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        out.stderr,
        format!("warning: {warning}\nwarning: {undeclared}\n")
    );
    assert_eq!(out.json()["warnings"], json!([warning, undeclared]));

    let canary = home.join("canary");
    let c = s(&canary);
    for args in [
        &["run", "shelly", "--intent", "0", "--path", c][..],
        &["run", "shelly", "--intent", "touch a file", "--path", c],
        &["do", "shelly touch a file", "--path", c],
    ] {
        let out = run(home, args);
        assert_eq!(out.code, 3, "{args:?}: {}", out.stdout);
        assert_eq!(out.json()["errorCode"], "UNAUTHORIZED");
        assert!(!canary.exists(), "{args:?} ran without consent");
    }
    let resolved = run(home, &["resolve", "shelly touch a file"]).json();
    assert_eq!(resolved["candidates"][0]["confirm"], true, "{resolved}");

    // MCP: listed as asking for confirmation, refused without a way to ask.
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}).to_string();
    let list = json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}).to_string();
    let out = run_with_stdin(
        home,
        &["mcp", "--page-size", "1000"],
        &format!("{init}\n{list}\n"),
    );
    let tools: Value = serde_json::from_str(out.stdout.lines().nth(1).unwrap()).unwrap();
    let touch = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["name"].as_str().unwrap().starts_with("shelly.")
                && t["title"].to_string().contains("touch")
        })
        .unwrap_or_else(|| panic!("{tools}"))
        .clone();
    assert!(
        touch["description"]
            .as_str()
            .unwrap()
            .contains(
                "Declares no capabilities, so nothing says what its program does; asks for confirmation."
            ),
        "{touch}"
    );
    assert_eq!(touch["annotations"]["readOnlyHint"], false);
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
        "params": {"name": touch["name"], "arguments": {"path": c}}})
    .to_string();
    let out = run_with_stdin(home, &["mcp"], &format!("{init}\n{call}\n"));
    let reply: Value = serde_json::from_str(out.stdout.lines().nth(1).unwrap()).unwrap();
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(!canary.exists(), "MCP ran it without consent");

    // The other intent passes its value as one plain argument and runs as before.
    write(&canary, "one\ntwo\n");
    let out = run(home, &["run", "shelly", "--intent", "1", "--path", c]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    std::fs::remove_file(&canary).unwrap();
    // The control: with consent it does run, so the refusals above can fail.
    let out = run(
        home,
        &["run", "shelly", "--intent", "0", "--path", c, "--yes"],
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(canary.exists());
}

#[test]
fn the_catalogue_and_the_bundled_adapters_raise_no_code_warning() {
    let t = Test::new();
    let adapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
    for args in [vec!["validate"], vec!["validate", s(&adapters)]] {
        let out = run(t.home(), &args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stdout);
        assert_eq!(out.json()["warnings"], json!([]), "{args:?}");
    }
}
