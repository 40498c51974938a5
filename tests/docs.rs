//! The documents promise numbers; these tests keep the promises true.

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

fn snippet() -> String {
    let doc = read("AGENT_SETUP.md");
    let start = doc.find("<!-- cmp:start -->").expect("start marker");
    let end = doc.find("<!-- cmp:end -->").expect("end marker");
    doc[start..end + "<!-- cmp:end -->".len()].to_string()
}

#[test]
fn the_agent_snippet_is_under_100_tokens() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = bpe.encode_with_special_tokens(&snippet()).len();
    assert!(tokens < 100, "snippet is {tokens} tokens");
}

#[test]
fn the_snippet_points_at_the_exported_layout() {
    let s = snippet();
    assert!(s.contains("~/.cmp/tools/"));
    assert!(s.contains("manifest.json") && s.contains("capability.json") && s.contains("command"));
}

#[test]
fn readme_documents_every_exit_code() {
    let readme = read("README.md");
    for code in cmpx::ExitCode::ALL {
        let row = format!("| {} |", code.code());
        assert!(
            readme.contains(&row),
            "README.md has no row for exit code {}",
            code.code()
        );
    }
}

/// The `$ cmpx …` lines of a document's code blocks (comments after two spaces and `#` cut).
fn shown_commands(doc: &str) -> Vec<String> {
    let comment = regex::Regex::new(r"\s{2,}#.*$").unwrap();
    let mut lines = Vec::new();
    let mut in_block = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ").filter(|_| in_block) {
            lines.push(comment.replace(cmd, "").trim().to_string());
        }
    }
    lines
}

/// The `cmpx …` commands AGENT_SETUP.md gives inline, in backticks.
fn inline_commands(doc: &str) -> Vec<String> {
    let code = regex::Regex::new(r"`(cmpx [^`]+)`").unwrap();
    code.captures_iter(doc).map(|c| c[1].to_string()).collect()
}

/// A project folder with what the documents' commands read: a package.json, a gzip+Base64
/// blob, a JSON file, a git repository with a change to discard, and a third-party CMP
/// folder (and an older copy of it) to install and validate.
fn project(home: &Path) -> std::path::PathBuf {
    use base64::Engine;
    use std::io::Write;
    let dir = home.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("package.json"),
        r#"{"name":"demo","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(dir.join("data.json"), r#"{"a":[1,2],"b":{"c":true}}"#).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(br#"{"compressed":true,"items":[1,2,3]}"#)
        .unwrap();
    let blob = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
    std::fs::write(dir.join("blob.txt"), &blob).unwrap();
    std::fs::write(dir.join("big.b64"), &blob).unwrap();
    for folder in [dir.join("my-tool"), dir.join("old/my-tool")] {
        let cmp = folder.join("cmp");
        std::fs::create_dir_all(&cmp).unwrap();
        std::fs::write(
            cmp.join("manifest.json"),
            r#"{"domain":"converters","name":"my-tool","summary":"Slugify a title","version":"1.0.0"}"#,
        )
        .unwrap();
        std::fs::write(
            cmp.join("capability.json"),
            r#"{"intents":[{"patterns":["slugify a title"],"command":"cmpx run slugify --input={title}","params":{"title":{"type":"string","required":true,"description":"The title"}},"capabilities":[]}]}"#,
        )
        .unwrap();
    }
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
            .env("HOME", home)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    };
    std::fs::write(dir.join("notes.txt"), "first\n").unwrap();
    git(&["init", "-q"]);
    git(&["add", "notes.txt"]);
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(dir.join("notes.txt"), "a change to discard\n").unwrap();
    dir
}

/// Runs `line` in `sh` from `cwd`, as a reader would, with this build's cmpx first on PATH.
fn shell(line: &str, home: &Path, cwd: &Path) -> std::process::Output {
    let bin_dir = Path::new(crate::common::bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("CMP_HOME", home.join(".cmp"))
        .stdin(std::process::Stdio::null())
        // Files, not pipes: a long output must not block the command while it is timed.
        .stdout(std::fs::File::create(home.join("stdout")).unwrap())
        .stderr(std::fs::File::create(home.join("stderr")).unwrap())
        .spawn()
        .unwrap();
    // A command that waits for something (a server) is not a command a reader runs to see
    // an answer: it fails here rather than holding the suite.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("`{line}` did not finish in 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::process::Output {
        status: child.wait().unwrap(),
        stdout: std::fs::read(home.join("stdout")).unwrap(),
        stderr: std::fs::read(home.join("stderr")).unwrap(),
    }
}

/// Issue 39: every command the README's tour and AGENT_SETUP.md show runs and succeeds, in
/// the order shown, on a fresh home with the fixtures they name; the few that cannot run
/// here are listed, so a new one cannot go unchecked; the counts they state are the counts.
#[test]
fn every_command_the_readme_and_agent_setup_show_runs() {
    // A placeholder in a document and the real value a reader would put there.
    const FILL: &[(&str, &str)] = &[(
        "eyJ…",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )];
    // Not run: the network (nothing else is reachable here).
    const NOT_RUN: &[&str] = &["curl -s https://… | cmpx run json-minifier --input -"];
    if !crate::common::require("git", crate::common::runs("git", &["--version"])) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("keep")).unwrap();
    let cwd = project(home.path());
    let mut lines = shown_commands(&read("README.md"));
    lines.extend(inline_commands(&read("AGENT_SETUP.md")));
    let export_line = regex::Regex::new(r"exported (\d+) tools to \S+: (\d+) created").unwrap();
    let mut skipped = Vec::new();
    let mut ran = 0;
    for line in &lines {
        if NOT_RUN.contains(&line.as_str()) {
            skipped.push(line.clone());
            continue;
        }
        // Inline mentions of a command's shape (`cmpx resolve "<request>"`) are not commands.
        if line.contains('<') || !line.starts_with("cmpx ") {
            continue;
        }
        let mut filled = line.clone();
        for (placeholder, value) in FILL {
            filled = filled.replace(placeholder, value);
        }
        // An ellipsis left unfilled marks a shape (`cmpx run …`), not a command.
        if filled.contains('…') {
            continue;
        }
        let out = shell(&filled, home.path(), &cwd);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "`{line}` exited {:?}:\n{stdout}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        // A command that prints a ToolResult prints a successful one.
        if let Ok(result) = serde_json::from_str::<serde_json::Value>(stdout.trim())
            && result.get("success").is_some()
        {
            assert_eq!(result["success"], true, "`{line}`: {result}");
        }
        if line == "cmpx export" {
            // The tour's export line states what a full export writes.
            let stated = export_line
                .captures(&read("README.md"))
                .map(|c| {
                    (
                        c[1].parse::<usize>().unwrap(),
                        c[2].parse::<usize>().unwrap(),
                    )
                })
                .expect("the tour shows the export line");
            let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
            let created = summary["created"].as_array().unwrap().len();
            let missing = summary["adaptersNotInstalled"].as_array().unwrap().len();
            assert_eq!(stated, (created + missing, created + missing), "{summary}");
        }
        ran += 1;
    }
    assert_eq!(
        skipped, NOT_RUN,
        "a command listed as not run is no longer shown"
    );
    assert!(ran > 30, "only {ran} commands found");
}
