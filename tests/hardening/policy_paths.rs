//! Issue 37, item 1: a path-scoped deny holds for every spelling of a path inside the folder
//! (absolute, relative, `./`, `..`, `~`, through a link), on the command line, over MCP on
//! stdio and over MCP on HTTP. A global grant of the same capability makes every other delete
//! run without asking, so only the deny can keep the file.

use super::*;

const ADAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/adapters");
const RM: &str = "files.delete-a-file-or-directory";

/// A user's home with `keep/f.txt` (denied), `sub/`, `lnk -> keep`, and the policy written.
struct Home {
    _dir: tempfile::TempDir,
    user: PathBuf,
    t: Test,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(user.join("keep")).unwrap();
        std::fs::create_dir_all(user.join("sub")).unwrap();
        std::os::unix::fs::symlink(user.join("keep"), user.join("lnk")).unwrap();
        let mut t = Test::new();
        t.env("HOME", user.to_str().unwrap())
            .env("CMP_TOOL_PATH", ADAPTERS)
            .cwd(&user);
        let out = t.args(["policy", "grant", "fs:delete"]).run();
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        // As a shell passes `--path ~/keep`: expanded.
        let keep = user.join("keep");
        let out = t
            .args([
                "policy",
                "deny",
                "fs:delete",
                "--path",
                keep.to_str().unwrap(),
            ])
            .run();
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        Home { _dir: dir, user, t }
    }

    fn kept(&self) -> PathBuf {
        let f = self.user.join("keep/f.txt");
        std::fs::write(&f, "precious").unwrap();
        f
    }

    /// Every way of naming `keep/f.txt` (or the folder itself) from the home directory.
    fn forms(&self) -> Vec<String> {
        vec![
            "keep/f.txt".into(),
            "./keep/f.txt".into(),
            "sub/../keep/f.txt".into(),
            "~/keep/f.txt".into(),
            self.user.join("keep/f.txt").display().to_string(),
            "lnk/f.txt".into(),
            "./lnk/../keep/f.txt".into(),
            "keep".into(),
            "lnk/".into(),
        ]
    }
}

fn have_rm() -> bool {
    common::require("rm", Command::new("rm").arg("--version").output().is_ok())
}

#[test]
fn a_folder_deny_holds_for_every_spelling_on_the_command_line() {
    if !have_rm() {
        return;
    }
    let mut home = Home::new();
    for form in home.forms() {
        let kept = home.kept();
        let out = home
            .t
            .args(["run", "files", "--intent", "5", "--paths", &form, "--yes"])
            .run();
        assert_ne!(out.code, 0, "{form}: {}", out.stdout);
        assert!(
            out.stdout.contains("fs:delete is denied"),
            "{form}: {}",
            out.stdout
        );
        assert!(kept.exists(), "{form} deleted the file");
    }
    // Outside the folder the global grant lets the same call run (so the test can fail).
    let other = home.user.join("other.txt");
    std::fs::write(&other, "x").unwrap();
    let out = home
        .t
        .args([
            "run",
            "files",
            "--intent",
            "5",
            "--paths",
            "other.txt",
            "--yes",
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(!other.exists());
}

/// MCP over stdio, started by the operator with destructive calls allowed: the deny still
/// decides.
#[test]
fn a_folder_deny_holds_for_every_spelling_over_mcp() {
    if !have_rm() {
        return;
    }
    let home = Home::new();
    let mut child = Command::new(common::bin())
        .args(["mcp", "--allow-destructive"])
        .env("HOME", &home.user)
        .env("CMP_HOME", home.t.home())
        .env("CMP_TOOL_PATH", ADAPTERS)
        .current_dir(&home.user)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |id: usize, method: &str, params: Value| -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    ask(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    for (i, form) in home.forms().into_iter().enumerate() {
        let kept = home.kept();
        let r = ask(
            i + 1,
            "tools/call",
            json!({"name": RM, "arguments": {"paths": [form]}}),
        );
        assert_eq!(r["result"]["isError"], true, "{form}: {r}");
        assert!(r.to_string().contains("fs:delete is denied"), "{form}: {r}");
        assert!(kept.exists(), "{form} deleted the file over MCP");
    }
    let other = home.user.join("other.txt");
    std::fs::write(&other, "x").unwrap();
    let r = ask(
        99,
        "tools/call",
        json!({"name": RM, "arguments": {"paths": ["other.txt"]}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(!other.exists());
    let _ = child.kill();
    let _ = child.wait();
}

/// MCP over HTTP (`cmpx serve --allow-adapters`), a 2025-era session.
#[test]
fn a_folder_deny_holds_for_every_spelling_over_http() {
    if !have_rm() {
        return;
    }
    let home = Home::new();
    let mut child = Command::new(common::bin())
        .args(["serve", "--port", "0", "--allow-adapters"])
        .env("HOME", &home.user)
        .env("CMP_HOME", home.t.home())
        .env("CMP_TOOL_PATH", ADAPTERS)
        .env_remove("CMPX_TOKEN")
        .current_dir(&home.user)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let post = |session: Option<&str>, body: Value| -> (Option<String>, Value) {
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        let body = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some(id) = session {
            head.push_str(&format!(
                "Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut raw = String::new();
        std::io::Read::read_to_string(&mut stream, &mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let session = head
            .lines()
            .find_map(|l| {
                l.split_once(':')
                    .filter(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))
            })
            .map(|(_, v)| v.trim().to_string());
        (session, serde_json::from_str(body).unwrap_or(Value::Null))
    };
    let (session, _) = post(
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    let session = session.expect("a session id");
    for (i, form) in home.forms().into_iter().enumerate() {
        let kept = home.kept();
        let (_, r) = post(
            Some(&session),
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": RM, "arguments": {"paths": [form]}}}),
        );
        assert_eq!(r["result"]["isError"], true, "{form}: {r}");
        assert!(r.to_string().contains("fs:delete is denied"), "{form}: {r}");
        assert!(kept.exists(), "{form} deleted the file over HTTP");
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Issue 38: a recipe step that runs an installed tool (`cmpx pipe --allow-adapters`) is
/// decided by the same authorization point, with the value it is given read as a path.
/// (A recipe runs an installed tool's first intent: `zap` has the files adapter's delete.)
#[test]
fn a_folder_deny_holds_for_every_spelling_in_a_recipe_step() {
    let mut home = Home::new();
    let delete = json!([{
        "patterns": ["delete a file or directory"],
        "command": "rm -r -- {paths}",
        "params": {"paths": {"type": "array<string>", "required": true, "description": "what to delete"}},
        "confirm": true,
        "destructive": true,
        "capabilities": ["fs:delete"]
    }]);
    super::folder(home.t.home(), "zap", delete);
    let recipe = home.user.join("recipe.json");
    let pipe = |home: &mut Home, path: &str| {
        std::fs::write(
            &recipe,
            json!([{"tool": "zap", "params": {"paths": [path]}}]).to_string(),
        )
        .unwrap();
        home.t
            .args([
                "pipe",
                "--recipe",
                recipe.to_str().unwrap(),
                "--allow-adapters",
                "--yes",
                "--json",
            ])
            .run()
    };
    for form in home.forms() {
        let kept = home.kept();
        let out = pipe(&mut home, &form);
        assert_ne!(out.code, 0, "{form}: {}", out.stdout);
        assert!(
            out.stdout.contains("fs:delete is denied"),
            "{form}: {}{}",
            out.stdout,
            out.stderr
        );
        assert!(kept.exists(), "{form} deleted the file in a recipe");
    }
    let other = home.user.join("other.txt");
    std::fs::write(&other, "x").unwrap();
    let out = pipe(&mut home, "other.txt");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!other.exists());
}

/// Issue 38: a catalogue tool reading a file (`@path` on the command line, a recipe's
/// `--input @path`) is refused under a folder's fs:read deny, whatever the spelling.
#[test]
fn a_folder_read_deny_holds_for_catalogue_tools_and_recipes() {
    let home = Home::new();
    let mut t = home.t;
    let keep = home.user.join("keep");
    let out = t
        .args([
            "policy",
            "deny",
            "fs:read",
            "--path",
            keep.to_str().unwrap(),
        ])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    std::fs::write(keep.join("secret.txt"), "top secret").unwrap();
    std::fs::write(home.user.join("open.txt"), "open").unwrap();
    let forms = [
        "keep/secret.txt",
        "./keep/secret.txt",
        "sub/../keep/secret.txt",
        "lnk/secret.txt",
        "./lnk/../keep/secret.txt",
    ];
    for form in forms {
        let at = format!("@{form}");
        let out = t
            .args(["run", "base64-encoder", "--input", &at, "--json"])
            .run();
        assert_ne!(out.code, 0, "{form}: {}", out.stdout);
        assert!(
            out.stdout.contains("fs:read is denied"),
            "{form}: {}",
            out.stdout
        );
        assert!(
            !out.stdout.contains("dG9wIHNlY3JldA"),
            "{form} leaked: {}",
            out.stdout
        );
        let out = t
            .args(["pipe", "base64-encoder", "--input", &at, "--json"])
            .run();
        assert_ne!(out.code, 0, "{form}: {}", out.stdout);
        assert!(
            out.stdout.contains("fs:read is denied"),
            "{form}: {}",
            out.stdout
        );
        assert!(
            !out.stdout.contains("dG9wIHNlY3JldA"),
            "{form} leaked: {}",
            out.stdout
        );
    }
    // A file outside the folder is read as usual (so the test can fail).
    let out = t
        .args(["run", "base64-encoder", "--input", "@open.txt", "--json"])
        .run();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("b3Blbg=="), "{}", out.stdout);
}
