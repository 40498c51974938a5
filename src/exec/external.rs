//! Running an external program for an adapter intent: no shell, a time limit that kills the
//! whole process group, an output cap, and a CTP result whatever happens.

use crate::ctp::{ErrorCode, ToolError};
use serde_json::{Value, json};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// Bytes of stdout kept; the rest is read and dropped so the program never blocks.
    pub max_output: usize,
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_MAX_OUTPUT: usize = 16 * 1024 * 1024;
const STDERR_TAIL: usize = 4096;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: DEFAULT_TIMEOUT,
            max_output: DEFAULT_MAX_OUTPUT,
        }
    }
}

/// Finds the program on PATH, trying each alias (e.g. Debian's `fdfind` for `fd`) in turn.
pub fn locate(program: &str, aliases: &[String]) -> Result<std::path::PathBuf, ToolError> {
    std::iter::once(program)
        .chain(aliases.iter().map(String::as_str))
        .find_map(|name| which::which(name).ok())
        .ok_or_else(|| {
            let also = if aliases.is_empty() {
                String::new()
            } else {
                format!(" (or {})", aliases.join(", "))
            };
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "program '{}'{also} is not installed or not on PATH",
                    crate::text::preview(program, 60)
                ),
            )
            .with_data(json!({ "program": program }))
        })
}

struct Captured {
    bytes: Vec<u8>,
    truncated: bool,
}

fn read_capped(mut r: impl Read, cap: usize) -> Captured {
    let mut bytes = Vec::new();
    let mut truncated = false;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(bytes.len());
                bytes.extend_from_slice(&buf[..n.min(room)]);
                truncated |= n > room;
            }
        }
    }
    Captured { bytes, truncated }
}

fn read_tail(mut r: impl Read, keep: usize) -> Vec<u8> {
    let mut tail = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                tail.extend_from_slice(&buf[..n]);
                if tail.len() > 2 * keep {
                    tail.drain(..tail.len() - keep);
                }
            }
        }
    }
    if tail.len() > keep {
        tail.drain(..tail.len() - keep);
    }
    tail
}

/// stdout as JSON when it is one JSON document or JSON Lines, else as text.
fn parse_stdout(bytes: &[u8], truncated: bool) -> (Value, &'static str) {
    if !truncated && !bytes.iter().all(u8::is_ascii_whitespace) {
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            return (v, "json");
        }
        let text = String::from_utf8_lossy(bytes);
        let lines: Option<Vec<Value>> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).ok())
            .collect();
        if let Some(lines) = lines.filter(|l| l.len() > 1) {
            return (Value::Array(lines), "jsonl");
        }
    }
    (
        Value::String(String::from_utf8_lossy(bytes).into_owned()),
        "text",
    )
}

#[cfg(unix)]
fn kill_group(pgid: u32) {
    // SAFETY: killpg only sends a signal; an already-empty group yields ESRCH, which is fine.
    unsafe {
        libc::killpg(pgid as libc::pid_t, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pgid: u32) {}

/// Runs `argv` (argv[0] resolved with `aliases`) and describes the outcome. `success_codes`
/// lists the exit statuses that mean success (usually just 0).
pub fn run(
    argv: &[String],
    aliases: &[String],
    success_codes: &[i32],
    limits: Limits,
) -> Result<Value, ToolError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| ToolError::invalid("empty command"))?;
    if let Some(i) = args.iter().position(|a| a.contains('\0')) {
        return Err(ToolError::invalid(format!(
            "argument {} contains a NUL byte, which no program can receive; nothing was run",
            i + 1
        )));
    }
    let path = locate(program, aliases)?;
    let mut cmd = Command::new(&path);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so a timeout can stop the program and everything it started.
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| ToolError::execution(format!("cannot start {}: {e}", path.display())))?;
    let pid = child.id();
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let cap = limits.max_output;
    let out_reader = std::thread::spawn(move || read_capped(stdout, cap));
    let err_reader = std::thread::spawn(move || read_tail(stderr, STDERR_TAIL));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let (status, timed_out) = match rx.recv_timeout(limits.timeout) {
        Ok(status) => (status, false),
        Err(_) => {
            kill_group(pid);
            (
                rx.recv()
                    .unwrap_or_else(|_| Err(std::io::Error::other("wait failed"))),
                true,
            )
        }
    };
    // Anything the program left running in its group would hold our pipes open.
    kill_group(pid);
    let out = out_reader.join().unwrap_or(Captured {
        bytes: Vec::new(),
        truncated: false,
    });
    let err_tail = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    let code = status.as_ref().ok().and_then(|s| s.code());
    let (stdout_value, format) = parse_stdout(&out.bytes, out.truncated);
    let data = json!({
        "argv": argv,
        "exitCode": code,
        "stdout": stdout_value,
        "stdoutFormat": format,
        "stdoutTruncated": out.truncated,
        "stderr": err_tail,
    });
    if timed_out {
        return Err(ToolError::new(
            ErrorCode::Timeout,
            format!(
                "{program} did not finish within {:?} and was stopped",
                limits.timeout
            ),
        )
        .with_data(data));
    }
    match code {
        Some(c) if success_codes.contains(&c) => Ok(data),
        Some(c) => {
            let last = err_tail
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim();
            let why = if last.is_empty() {
                String::new()
            } else {
                format!(": {}", crate::text::preview(last, 300))
            };
            Err(
                ToolError::execution(format!("{program} exited with status {c}{why}"))
                    .with_data(data),
            )
        }
        None => {
            Err(ToolError::execution(format!("{program} was stopped by a signal")).with_data(data))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn json_stdout_comes_back_as_json() {
        let data = run(
            &words(&["sh", "-c", "echo '{\"a\": 1}'"]),
            &[],
            &[0],
            Limits::default(),
        )
        .unwrap();
        assert_eq!(data["stdout"], json!({"a": 1}));
        assert_eq!(data["stdoutFormat"], "json");
        let data = run(
            &words(&["printf", "{\"a\":1}\\n{\"a\":2}\\n"]),
            &[],
            &[0],
            Limits::default(),
        )
        .unwrap();
        assert_eq!(data["stdout"], json!([{"a": 1}, {"a": 2}]));
    }

    #[test]
    fn failures_carry_the_status_and_stderr() {
        let err = run(
            &words(&["sh", "-c", "echo oops >&2; exit 3"]),
            &[],
            &[0],
            Limits::default(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::ExecutionError);
        assert_eq!(err.message, "sh exited with status 3: oops");
        assert_eq!(err.data.unwrap()["exitCode"], 3);
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let err = run(
            &words(&["no-such-program-xyz"]),
            &[],
            &[0],
            Limits::default(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert!(err.message.contains("'no-such-program-xyz'"));
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let script = format!("(sleep 1; touch {}) & sleep 30", marker.display());
        let limits = Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        };
        let err = run(&words(&["sh", "-c", &script]), &[], &[0], limits).unwrap_err();
        assert_eq!(err.code, ErrorCode::Timeout);
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !marker.exists(),
            "a child of the timed-out program kept running"
        );
    }

    #[test]
    fn output_is_capped() {
        let limits = Limits {
            max_output: 10,
            ..Limits::default()
        };
        let data = run(
            &words(&["sh", "-c", "yes | head -c 100000"]),
            &[],
            &[0],
            limits,
        )
        .unwrap();
        assert_eq!(data["stdout"].as_str().unwrap().len(), 10);
        assert_eq!(data["stdoutTruncated"], true);
    }
}
