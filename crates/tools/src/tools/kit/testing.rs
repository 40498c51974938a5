//! Test helpers: run a tool as every host does (prepared, contained, measured).

use crate::ctp::{ErrorCode, ToolResult};
use serde_json::Value;

/// Runs `id` with `args` (a JSON object) through the executor.
pub fn run(id: &str, args: Value) -> ToolResult {
    let Value::Object(map) = args else {
        panic!("test args must be a JSON object");
    };
    crate::run::run(id, map)
}

/// Runs a tool that must succeed and returns its `data`.
#[track_caller]
pub fn run_ok(id: &str, args: Value) -> Value {
    let result = run(id, args);
    assert!(
        result.success,
        "{id} failed: {:?} {:?}",
        result.error_code, result.error
    );
    result.data.expect("success carries data")
}

/// Runs a tool that must fail and returns its error code and message.
#[track_caller]
pub fn run_err(id: &str, args: Value) -> (ErrorCode, String) {
    let result = run(id, args);
    assert!(
        !result.success,
        "{id} unexpectedly succeeded: {:?}",
        result.data
    );
    (
        result.error_code.expect("failure carries a code"),
        result.error.expect("failure carries a message"),
    )
}

/// Runs a text tool on `input` plus the options in `extra` (a JSON object) and returns its
/// `data.output` string.
#[track_caller]
pub fn output_with(id: &str, input: &str, extra: Value) -> String {
    let mut args = serde_json::json!({ "input": input });
    if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    run_ok(id, args)["output"]
        .as_str()
        .expect("output is a string")
        .to_string()
}

/// `open` `n` times, then `inner`, then `close` `n` times: input nested `n` levels deep.
pub fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + inner.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(inner);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

/// Asserts a depth error: INVALID_INPUT, naming `what` and the limit.
#[track_caller]
pub fn assert_too_deep(id: &str, args: Value, what: &str, limit: usize) {
    let (code, msg) = run_err(id, args);
    assert_eq!(code, ErrorCode::InvalidInput, "{msg}");
    let expected = format!("{what} nests deeper than {limit} levels");
    assert!(
        msg.starts_with(&expected),
        "{id}: expected '{expected}…', got: {msg}"
    );
}

/// Whether the tests run in CI: `CI` set to anything but "", "0" or "false" (`.ci/run` runs
/// with CI=true). The one reading of `CI` in the workspace's tests (tests/common re-exports it).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| {
        let v = v.trim();
        !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
    })
}

/// A check that cannot run on this machine (`why`: the program that is missing). In CI, which
/// installs everything (`.ci/run`), that fails the test; elsewhere it writes one
/// `skipped: <test>: <why>` line to stderr, past the harness's capture so that a skip is
/// never silent, and the caller returns or leaves that check out.
#[track_caller]
pub fn skip(why: impl std::fmt::Display) {
    use std::io::Write as _;
    assert!(!in_ci(), "cannot run in CI: {why} (.ci/run installs it)");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}

/// Runs `python3 -c program` and returns its trimmed stdout, for checking a tool against an
/// independent implementation (datetime, hashlib, base64, uuid). `None` where python3 cannot
/// run, after [`skip`] (a failure in CI): the caller leaves that comparison out.
#[track_caller]
pub fn python(program: &str) -> Option<String> {
    match std::process::Command::new("python3")
        .args(["-c", program])
        .output()
    {
        Ok(out) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
        }
        Ok(out) => panic!(
            "python3 failed on {program:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => {
            skip(format!("python3 cannot run ({e})"));
            None
        }
    }
}
