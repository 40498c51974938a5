//! The capability policy ($CMP_HOME/policy.toml) through the real binary: a deny blocks even
//! with --yes (command line and MCP), a grant runs without asking, anything else asks, a
//! broken file refuses everything, and `cmpx policy` edits survive being killed mid-write.

use crate::common;

use common::Test;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A third-party tool that declares nothing: it counts as process:spawn (high risk).
fn third_party(root: &Path) {
    let dir = root.join("hello/cmp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"domain":"demo","name":"hello","summary":"says hello","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("capability.json"),
        r#"{"intents":[{"patterns":["say hello"],"command":"echo hello {who}","params":{"who":{"type":"string","required":true}}}]}"#,
    )
    .unwrap();
}

#[test]
fn an_undeclared_tool_asks_until_granted_then_runs_without_asking() {
    let mut t = Test::new();
    let root = t.home().join("extra");
    third_party(&root);
    t.env("CMP_TOOL_PATH", root.to_str().unwrap());
    let asked = t.args(["run", "hello", "--who", "you"]).run();
    assert_eq!(asked.code, 3, "{}", asked.stdout);
    let doc = asked.json();
    assert_eq!(doc["errorCode"], "UNAUTHORIZED");
    assert_eq!(doc["data"]["capabilities"], json!(["process:spawn"]));
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("this action runs an undeclared program (it declares no capabilities), so cmpx asks first and needs process:spawn, which the policy neither grants nor denies"),
        "{doc}"
    );
    let granted = t
        .args(["policy", "grant", "process:spawn", "--tool", "hello"])
        .run();
    assert_eq!(granted.code, 0, "{}", granted.stderr);
    assert_eq!(granted.json()["changed"], true);
    let ran = t.args(["run", "hello", "--who", "you"]).run();
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(ran.json()["data"]["stdout"], "hello you\n");
    // Granted for that tool only.
    let text = std::fs::read_to_string(t.home().join("policy.toml")).unwrap();
    assert!(
        text.contains("[[grant]]\ncapability = \"process:spawn\"\ntool = \"hello\"\n"),
        "{text}"
    );
}

/// Issue 37, item 21: an intent that declares nothing (and says `destructive: false`) was
/// called "destructive (cannot be undone)" when it asked first. It is said to run an
/// undeclared program, and `cmpx validate` and `cmpx install` warn about it without failing.
#[test]
fn an_undeclared_intent_is_described_truly_and_warned_about() {
    let mut t = Test::new();
    let root = t.home().join("extra");
    third_party(&root);
    let capability = root.join("hello/cmp/capability.json");
    let text = std::fs::read_to_string(&capability).unwrap().replace(
        r#""required":true}}}"#,
        r#""required":true}},"destructive":false}"#,
    );
    std::fs::write(&capability, text).unwrap();
    t.env("CMP_TOOL_PATH", root.to_str().unwrap());
    let asked = t.args(["run", "hello", "--who", "you"]).run();
    assert_eq!(asked.code, 3, "{}", asked.stdout);
    let error = asked.json()["error"].as_str().unwrap().to_string();
    assert!(
        error.starts_with("confirmation required: this action runs an undeclared program (it declares no capabilities), so cmpx asks first"),
        "{error}"
    );
    assert!(!error.contains("undone"), "{error}");
    let help = t.args(["run", "hello", "--help"]).run();
    assert!(
        help.stdout.contains(
            "Asks first: it declares no capabilities, so nothing says what its program does"
        ),
        "{}",
        help.stdout
    );
    assert!(!help.stdout.contains("undone"), "{}", help.stdout);

    let warning = format!(
        "{}: intents[0] declares no capabilities, so cmpx counts it as process:spawn (a program \
         nothing describes) and asks before every run; declare what it touches, e.g. \
         \"capabilities\": [\"fs:read\"]",
        capability.display()
    );
    let folder = root.join("hello");
    let checked = t.args(["validate", folder.to_str().unwrap()]).run();
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    assert_eq!(checked.stderr, format!("warning: {warning}\n"));
    assert_eq!(checked.json()["warnings"], json!([warning]));
    let installed = t.args(["install", folder.to_str().unwrap()]).run();
    assert_eq!(installed.code, 0, "{}", installed.stdout);
    assert_eq!(installed.stderr, format!("warning: {warning}\n"));
    // The control: declaring what it touches silences the warning.
    let text = std::fs::read_to_string(&capability).unwrap().replace(
        r#""destructive":false"#,
        r#""capabilities":["process:spawn"]"#,
    );
    std::fs::write(&capability, text).unwrap();
    let checked = t.args(["validate", folder.to_str().unwrap()]).run();
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    assert_eq!(checked.stderr, "");
    assert_eq!(checked.json()["warnings"], json!([]));
}

#[test]
fn a_deny_blocks_even_with_yes() {
    let mut t = Test::new();
    let root = t.home().join("extra");
    third_party(&root);
    t.env("CMP_TOOL_PATH", root.to_str().unwrap());
    assert_eq!(t.args(["policy", "deny", "process:spawn"]).run().code, 0);
    let out = t.args(["run", "hello", "--who", "x", "--yes"]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    let doc = out.json();
    assert_eq!(doc["data"]["denied"], true);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .starts_with("not allowed: process:spawn is denied by the policy (process:spawn)"),
        "{doc}"
    );
    // A grant for the tool is more specific than the global deny.
    t.args(["policy", "grant", "process:spawn", "--tool", "hello"])
        .run();
    assert_eq!(t.args(["run", "hello", "--who", "x"]).run().code, 0);
    // Revoking it brings the global deny back.
    t.args(["policy", "revoke", "process:spawn", "--tool", "hello"])
        .run();
    assert_eq!(
        t.args(["run", "hello", "--who", "x", "--yes"]).run().code,
        3
    );
}

#[test]
fn catalogue_tools_obey_denies_of_what_they_touch_and_read() {
    let mut t = Test::new();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("a.json"), "{\"a\":1}").unwrap();
    std::fs::write(dir.path().join("b.json"), "{\"b\":1}").unwrap();
    t.args([
        "policy",
        "deny",
        "fs:read",
        "--path",
        secret.to_str().unwrap(),
    ])
    .run();
    let at = |p: &Path| format!("@{}", p.display());
    let out = t
        .args([
            "run",
            "json-minifier",
            "--input",
            &at(&secret.join("a.json")),
            "--yes",
        ])
        .run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("fs:read is denied")
    );
    let out = t
        .args([
            "run",
            "json-minifier",
            "--input",
            &at(&dir.path().join("b.json")),
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["data"]["output"], "{\"b\":1}");
    // A tool that uses randomness stops when system:random is denied; others go on.
    t.args(["policy", "deny", "system:random"]).run();
    assert_eq!(t.args(["run", "uuid-generator"]).run().code, 3);
    assert_eq!(
        t.args(["run", "base64-encoder", "--input", "hi"])
            .run()
            .code,
        0
    );
}

/// Issue 37, item 11: tools that draw a salt, an IV or a seed only when none is given, and
/// one that reads the clock to say whether a certificate has expired, declared nothing, so a
/// deny of system:random or system:clock did not stop them.
#[test]
fn denying_randomness_or_the_clock_stops_every_tool_that_uses_it() {
    let mut t = Test::new();
    t.args(["policy", "deny", "system:random"]).run();
    for args in [
        &[
            "run",
            "text-encryptor",
            "--input",
            "hi",
            "--passphrase",
            "pw",
        ][..],
        &["run", "password-hash-generator", "--password", "pw"],
        &["run", "lorem-ipsum-generator"],
        &["run", "jwt-encoder", "--payload", "{}", "--secret", "s"],
    ] {
        let out = t.args(args).run();
        assert_eq!(out.code, 3, "{args:?}: {}", out.stdout);
        assert!(
            out.json()["error"]
                .as_str()
                .unwrap()
                .contains("system:random is denied by the policy"),
            "{args:?}: {}",
            out.stdout
        );
    }
    t.args(["policy", "revoke", "system:random"]).run();
    t.args(["policy", "deny", "system:clock"]).run();
    let out = t
        .args(["run", "certificate-decoder", "--input", "not a certificate"])
        .run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("system:clock is denied by the policy")
    );
    // The control: a tool that uses neither still runs.
    assert_eq!(t.args(["run", "lorem-ipsum-generator"]).run().code, 0);
}

#[test]
fn mcp_refuses_a_denied_tool_even_when_destructive_calls_are_allowed() {
    let mut t = Test::new();
    t.args([
        "policy",
        "deny",
        "system:random",
        "--tool",
        "uuid-generator",
    ])
    .run();
    let mut child = Command::new(common::bin())
        .args(["mcp", "--allow-destructive"])
        .env("CMP_HOME", t.home())
        .env("HOME", t.home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let call = |id: i64, name: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}, "_meta": meta}});
    {
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}", call(1, "uuid-generator")).unwrap();
        writeln!(stdin, "{}", call(2, "ulid-generator")).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let mut replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    replies.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(replies[0]["result"]["isError"], true, "{replies:?}");
    let text = replies[0]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("not allowed: system:random is denied"),
        "{text}"
    );
    assert_eq!(replies[1]["result"]["isError"], false, "{replies:?}");
}

#[test]
fn a_broken_policy_refuses_to_run_anything_that_it_could_restrict() {
    let mut t = Test::new();
    std::fs::write(t.home().join("policy.toml"), "[[deny]]\ncapability = ").unwrap();
    let out = t.args(["run", "uuid-generator", "--yes"]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("policy.toml is not valid"),
        "{}",
        out.stdout
    );
    let show = t.args(["policy"]).run();
    assert_eq!(show.code, 2, "{}", show.stdout);
}

#[test]
fn policy_edits_are_checked() {
    let mut t = Test::new();
    let bad = t.args(["policy", "grant", "Not A Capability"]).run();
    assert_eq!(bad.code, 2);
    assert!(
        bad.json()["error"]
            .as_str()
            .unwrap()
            .contains("is not a capability name")
    );
    let bad = t
        .args(["policy", "grant", "network:fetch", "--path", "/tmp"])
        .run();
    assert_eq!(bad.code, 2);
    let shown = t.args(["policy"]).run().json();
    assert_eq!(shown["exists"], false);
    assert_eq!(shown["grant"], json!([]));
    let fs_read = shown["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fs:read")
        .unwrap();
    assert_eq!(fs_read["default"], "granted");
    assert_eq!(
        t.args(["policy", "grant", "fs:*"]).run().json()["grant"],
        json!([{"capability": "fs:*"}])
    );
}

/// A hand-edited rule that could never match (a capability in capitals, with a trailing space,
/// misspelt; a tool that is no tool name; a relative path; a path on a capability that has
/// none) makes the file invalid: everything is refused, and the message names the file, the
/// rule and what is wrong. Before, each loaded, was listed, and denied nothing.
#[test]
fn a_rule_that_could_never_match_makes_the_policy_invalid() {
    let mut t = Test::new();
    let cases = [
        (
            "[[deny]]\ncapability = \"SYSTEM:RANDOM\"\n",
            "[[deny]] rule 1 (SYSTEM:RANDOM): 'SYSTEM:RANDOM' is not a capability name",
            "did you mean system:random?",
        ),
        (
            "[[deny]]\ncapability = \"system:random \"\n",
            "[[deny]] rule 1 (system:random ): 'system:random ' is not a capability name",
            "did you mean system:random?",
        ),
        (
            "[[grant]]\ncapability = \"fs:read\"\n[[deny]]\ncapability = \"system:randon\"\n",
            "[[deny]] rule 1 (system:randon): 'system:randon' is not a capability: the system family has system:random, system:clock",
            "did you mean system:random?",
        ),
        (
            "[[deny]]\ncapability = \"system:random\"\ntool = \"uuid generator\"\n",
            "[[deny]] rule 1 (system:random for tool uuid generator): tool \"uuid generator\" is not a tool name",
            "",
        ),
        (
            "[[deny]]\ncapability = \"fs:read\"\npath = \"secret\"\n",
            "path \"secret\" is neither absolute nor under ~/",
            "",
        ),
        (
            "[[deny]]\ncapability = \"system:random\"\npath = \"/tmp\"\n",
            "a path applies to fs:* capabilities only, not to system:random",
            "",
        ),
    ];
    let policy = t.home().join("policy.toml");
    for (text, why, hint) in cases {
        std::fs::write(&policy, text).unwrap();
        let out = t.args(["run", "uuid-generator", "--yes"]).run();
        assert_eq!(out.code, 3, "{text}: {}", out.stdout);
        let error = out.json()["error"].as_str().unwrap().to_string();
        assert!(
            error.contains(&format!(
                "the policy file {} is not valid",
                policy.display()
            )),
            "{error}"
        );
        assert!(error.contains(why), "{text}: {error}");
        assert!(error.contains(hint), "{text}: {error}");
        // Not listed as if it were in force either.
        let shown = t.args(["policy"]).run();
        assert_eq!(shown.code, 2, "{text}: {}", shown.stdout);
        assert!(shown.json()["error"].as_str().unwrap().contains(why));
    }
    // The control: the rule spelt right is valid and denies.
    std::fs::write(&policy, "[[deny]]\ncapability = \"system:random\"\n").unwrap();
    let out = t.args(["run", "uuid-generator", "--yes"]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("system:random is denied by the policy")
    );
    std::fs::write(&policy, "[[deny]]\ncapability = \"system:*\"\n").unwrap();
    assert_eq!(t.args(["run", "uuid-generator"]).run().code, 3);
    assert_eq!(
        t.args(["run", "base64-encoder", "--input", "x"]).run().code,
        0
    );
}

/// A `~/` path in a hand-edited rule is under the home directory (it matched nothing before:
/// it was taken relative to wherever cmpx ran).
#[test]
fn a_home_relative_path_rule_applies_under_home() {
    let mut t = Test::new();
    let secret = t.home().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("a.json"), "{\"a\":1}").unwrap();
    std::fs::write(
        t.home().join("policy.toml"),
        "[[deny]]\ncapability = \"fs:read\"\npath = \"~/secret\"\n",
    )
    .unwrap();
    let at = format!("@{}", secret.join("a.json").display());
    let out = t.args(["run", "json-minifier", "--input", &at]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .contains("fs:read is denied"),
        "{}",
        out.stdout
    );
}

/// `cmpx policy deny … --path '~/secret'` (quoted, so no shell expands it) means the home
/// directory, as `~` in the file does, not a folder named `~` in the working directory.
#[test]
fn a_quoted_home_path_on_the_command_line_means_home() {
    let mut t = Test::new();
    let work = t.home().join("work");
    std::fs::create_dir_all(&work).unwrap();
    t.cwd(&work);
    let out = t
        .args(["policy", "deny", "fs:read", "--path", "~/secret"])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let home = t.home().canonicalize().unwrap();
    assert_eq!(
        out.json()["deny"][0]["path"],
        home.join("secret").display().to_string()
    );
}

/// A policy.toml that is a link to nothing is not "no policy": whatever it pointed at held
/// rules, so everything is refused until the link is fixed or removed.
#[cfg(unix)]
#[test]
fn a_dangling_policy_link_refuses_everything() {
    let mut t = Test::new();
    let missing = t.home().join("gone/policy.toml");
    std::os::unix::fs::symlink(&missing, t.home().join("policy.toml")).unwrap();
    let out = t.args(["run", "uuid-generator", "--yes"]).run();
    assert_eq!(out.code, 3, "{}", out.stdout);
    let error = out.json()["error"].as_str().unwrap().to_string();
    assert!(
        error.contains(&format!(
            "policy.toml is a symbolic link to {}, which does not exist",
            missing.display()
        )),
        "{error}"
    );
    assert_eq!(t.args(["policy"]).run().code, 2);
    // The control: with the target back, the policy is read again.
    std::fs::create_dir_all(missing.parent().unwrap()).unwrap();
    std::fs::write(&missing, "").unwrap();
    assert_eq!(t.args(["run", "uuid-generator"]).run().code, 0);
}

/// `cmpx policy grant|deny` refuses what a hand-edited file may not hold, with the closest
/// name when one is close, and writes nothing.
#[test]
fn policy_edits_refuse_names_that_would_never_match() {
    let mut t = Test::new();
    for (args, why) in [
        (
            vec!["deny", "FS:DELETE"],
            "'FS:DELETE' is not a capability name: use category:action in lowercase like fs:write or dom:read (or a family, fs:*, or * for all); `cmpx policy` lists them; did you mean fs:delete?",
        ),
        (vec!["deny", "fs:delete "], "did you mean fs:delete?"),
        (
            vec!["grant", "network:fecth"],
            "'network:fecth' is not a capability: the network family has network:fetch, network:fetch:same-origin",
        ),
        (
            vec!["grant", "network:fecth"],
            "did you mean network:fetch?",
        ),
        (vec!["deny", "Fs:*"], "did you mean fs:*?"),
        (
            vec!["deny", "system:random", "--tool", "../uuid"],
            "tool \"../uuid\" is not a tool name",
        ),
    ] {
        let out = t.args([&["policy"][..], args.as_slice()].concat()).run();
        assert_eq!(out.code, 2, "{args:?}: {}", out.stdout);
        let error = out.json()["error"].as_str().unwrap().to_string();
        assert!(error.contains(why), "{args:?}: {error}");
    }
    assert!(!t.home().join("policy.toml").exists());
    // A browser tool's own word, in a family cmpx does not know, can still be granted.
    let out = t
        .args(["policy", "grant", "code:execute", "--tool", "paint"])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        out.json()["grant"],
        json!([{"capability": "code:execute", "tool": "paint"}])
    );
}

/// `cmpx policy grant` killed at any moment leaves the old policy or the new one, never a
/// torn file: every run after a kill still reads it.
#[test]
fn a_killed_policy_write_never_corrupts_the_file() {
    let t = Test::new();
    let mut seen_new = 0;
    for i in 0..40u64 {
        let mut child = Command::new(common::bin())
            .args(["policy", "grant", "fs:write", "--tool", &format!("tool{i}")])
            .env("CMP_HOME", t.home())
            .env("HOME", t.home())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill at a different moment each time: before, during and after the write.
        std::thread::sleep(std::time::Duration::from_millis((i * 37) % 41));
        let _ = child.kill();
        let _ = child.wait();
        let path = t.home().join("policy.toml");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let parsed: Result<toml::Value, _> = toml::from_str(&text);
            assert!(parsed.is_ok(), "torn policy after kill {i}:\n{text}");
            if text.contains(&format!("tool{i}\"")) {
                seen_new += 1;
            }
        }
    }
    // Some runs got to finish their write (the loop does kill at every stage).
    assert!(seen_new > 0, "no grant ever completed");
    let stray: Vec<_> = std::fs::read_dir(t.home())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "policy.toml" && !n.starts_with(".cmpx-tmp-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
