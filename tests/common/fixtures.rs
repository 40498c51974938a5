//! Fixtures and the agent's placeholder filling, shared by the tests that run exported
//! commands (adapters, agent_path, literal_agent): files, programs that must succeed, a git
//! repository with history.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes `content` to `path`, creating its folder.
pub fn write(path: impl AsRef<Path>, content: &str) {
    let path = path.as_ref();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
        .unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// Runs a setup program in `cwd`; it must succeed. Returns its stdout.
pub fn sh(cwd: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A git repository at `repo` on branch `main`: `a.txt` committed ("first commit"), then
/// changed with `b.txt` added ("second commit"), and a branch `feature`.
pub fn git_repo(repo: &Path) -> PathBuf {
    std::fs::create_dir_all(repo).unwrap();
    let git = |args: &[&str]| sh(repo, "git", args);
    git(&["init", "-q"]);
    git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
    // cmpx runs git with the test's HOME, so identity lives in the repository.
    git(&["config", "user.name", "Ada Tester"]);
    git(&["config", "user.email", "ada@example.com"]);
    git(&["config", "commit.gpgsign", "false"]);
    write(repo.join("a.txt"), "one\n");
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "first commit"]);
    write(repo.join("a.txt"), "one\ntwo\n");
    write(repo.join("b.txt"), "bee\n");
    git(&["add", "a.txt", "b.txt"]);
    git(&["commit", "-q", "-m", "second commit"]);
    git(&["branch", "feature"]);
    repo.to_path_buf()
}

/// A value as an agent writes it into a placeholder: shell-quoted text, a literal leading `@`
/// doubled when `doubles_at` (for catalogue tools, `@path` reads a file); `''` for none.
pub fn word(value: Option<&Value>, doubles_at: bool) -> String {
    let text = match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) if doubles_at && s.starts_with('@') => format!("@{s}"),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    shell_words::quote(&text).into_owned()
}

/// `template` with each `{name}` replaced by what `value_of(name)` gives (already quoted).
pub fn fill(template: &str, mut value_of: impl FnMut(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&value_of(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    out + rest
}
