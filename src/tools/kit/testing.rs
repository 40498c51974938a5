//! Test helpers: run a tool through the real executor, as every caller does.

use crate::ctp::{ErrorCode, ToolResult};
use serde_json::Value;

/// Runs `id` with `args` (a JSON object) through the executor.
pub fn run(id: &str, args: Value) -> ToolResult {
    let Value::Object(map) = args else {
        panic!("test args must be a JSON object");
    };
    crate::exec::run_builtin(id, &map)
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

/// Runs `python3 -c program` and returns its trimmed stdout, for checking a tool against an
/// independent implementation (datetime, hashlib, base64, uuid). `None`, with a note on
/// stderr, where python3 is absent: the caller skips that comparison.
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
            eprintln!("skipped the comparison with Python: python3 cannot run ({e})");
            None
        }
    }
}
