//! Running an external program for an adapter intent: no shell, a time limit that kills the
//! whole process group, an output cap, and a CTP result whatever happens.

use crate::ctp::{ErrorCode, ToolError};
use serde_json::{Value, json};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// Bytes of stdout kept; the rest is read and dropped so the program never blocks.
    pub max_output: usize,
}

pub const DEFAULT_TIMEOUT: Duration = crate::limits::DEFAULT_TIMEOUT;
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

/// Other names distributions give programs, tried after a manifest's own aliases: Debian and
/// Ubuntu install `fd` as `fdfind` and `bat` as `batcat`.
const HOST_ALIASES: &[(&str, &str)] = &[("fd", "fdfind"), ("bat", "batcat")];

/// The Debian/Ubuntu package that provides a program, named when the program is missing.
const PACKAGES: &[(&str, &str)] = &[
    ("fd", "fd-find"),
    ("fdfind", "fd-find"),
    ("rg", "ripgrep"),
    ("jq", "jq"),
    ("sqlite3", "sqlite3"),
    ("git", "git"),
    ("tar", "tar"),
    ("gzip", "gzip"),
    ("curl", "curl"),
    ("bat", "bat"),
    ("batcat", "bat"),
    ("ls", "coreutils"),
    ("du", "coreutils"),
    ("mkdir", "coreutils"),
    ("cp", "coreutils"),
    ("mv", "coreutils"),
    ("rm", "coreutils"),
];

/// The Debian/Ubuntu package that installs `program`, when cmpx knows it.
pub fn package_for(program: &str) -> Option<&'static str> {
    PACKAGES
        .iter()
        .find(|(name, _)| *name == program)
        .map(|(_, package)| *package)
}

/// Finds the program on PATH under its own name, then each alias the manifest gives, then the
/// name the host's distribution may use instead (Debian's `fdfind` for `fd`).
pub fn locate(program: &str, aliases: &[String]) -> Result<std::path::PathBuf, ToolError> {
    let host = HOST_ALIASES
        .iter()
        .filter(|(name, _)| *name == program)
        .map(|(_, alias)| *alias)
        .filter(|alias| !aliases.iter().any(|a| a == alias));
    let names: Vec<&str> = std::iter::once(program)
        .chain(aliases.iter().map(String::as_str))
        .chain(host)
        .collect();
    if let Some(path) = names.iter().find_map(|name| which::which(name).ok()) {
        return Ok(path);
    }
    let also = if names.len() > 1 {
        format!(" (or {})", names[1..].join(", "))
    } else {
        String::new()
    };
    let package = package_for(program);
    let install = package
        .map(|p| format!("; install the package {p} (Debian, Ubuntu: sudo apt-get install {p})"))
        .unwrap_or_default();
    Err(ToolError::new(
        ErrorCode::NotFound,
        format!(
            "program '{}'{also} is not installed or not on PATH{install}",
            crate::text::preview(program, 60)
        ),
    )
    .with_data(json!({ "program": program, "package": package })))
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

/// stdout as JSON when it is one JSON document or JSON Lines (unless `text` asks to keep it
/// as written), else as text.
fn parse_stdout(bytes: &[u8], truncated: bool, text: bool) -> (Value, &'static str) {
    if !text && !truncated && !bytes.iter().all(u8::is_ascii_whitespace) {
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

/// The process group of the program running now (0: none). Read by the signal handler.
static RUNNING_GROUP: AtomicI32 = AtomicI32::new(0);
/// The signal (SIGTERM, SIGINT) that arrived while a program ran (0: none): stop it, and
/// everything it started, then exit.
static STOP: AtomicI32 = AtomicI32::new(0);
/// Whether [`become_subreaper`] made orphans ours (only then are they swept).
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Makes this process the reaper of every orphan below it (Linux), so that a program's
/// descendants that left its process group — `setsid`, daemons — are still ours to stop.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // The kernel reads the argument as a flag (any non-zero value sets it); rustix types it as a
    // pid, so our own stands for "on".
    if rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok() {
        SUBREAPER.store(true, Ordering::SeqCst);
    }
}

/// SIGTERM and SIGINT end this process; while a program runs, they first stop the program
/// and everything it started (see [`run`]).
pub fn stop_on_signals() {
    // libc stays for this and for `_exit` (here and in `run_as`): rustix's safe API has neither
    // a way to install a signal handler nor `_exit`; its `runtime` module, which has both, is an
    // unstable interface for libc-free programs and would bypass libc's own signal state.
    extern "C" fn on_signal(sig: libc::c_int) {
        if RUNNING_GROUP.load(Ordering::SeqCst) == 0 {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(128 + sig) };
        }
        STOP.store(sig, Ordering::SeqCst);
    }
    // SAFETY: the handler only touches atomics and calls _exit, both async-signal-safe.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGTERM, handler);
        libc::signal(libc::SIGINT, handler);
    }
}

/// Stops every process left below this one: with [`become_subreaper`], the orphans of a
/// finished or stopped program are re-parented to us. Killing one can orphan its own
/// children in turn, so this repeats until nothing is left (or a second has passed).
fn stop_descendants() {
    // Without it, our children are only those other threads started (tests run in parallel).
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    use rustix::process::{Signal, WaitOptions, kill_process, waitpid};
    let me = std::process::id();
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    loop {
        let children = children_of(me);
        if children.is_empty() || std::time::Instant::now() > deadline {
            return;
        }
        for pid in children {
            // One that already ended is still reaped by the wait; errors change nothing here.
            let _ = kill_process(pid, Signal::KILL);
            let _ = waitpid(Some(pid), WaitOptions::empty());
        }
    }
}

/// The pids whose parent is `parent`, from /proc.
fn children_of(parent: u32) -> Vec<rustix::process::Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // pid (comm) state ppid …; comm may hold spaces and parentheses.
                    let after = &stat[stat.rfind(')')? + 1..];
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .filter_map(|pid| rustix::process::Pid::from_raw(i32::try_from(pid).ok()?))
        .collect()
}

#[cfg(unix)]
fn kill_group(pgid: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // Pid 0 would mean our own group: never ours to kill.
    if let Some(pgid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
        // An already-empty group yields ESRCH, which is fine.
        let _ = kill_process_group(pgid, Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pgid: u32) {}

/// Runs `argv` (argv[0] resolved with `aliases`) and describes the outcome. `success_codes`
/// lists the exit statuses that mean success (usually just 0).
#[cfg(test)]
fn run(
    argv: &[String],
    aliases: &[String],
    success_codes: &[i32],
    limits: Limits,
) -> Result<Value, ToolError> {
    run_as(argv, aliases, success_codes, limits, false)
}

/// [`run`], keeping stdout as text whatever it holds when `stdout_text` (an intent's
/// `"stdoutFormat": "text"`).
pub(super) fn run_as(
    argv: &[String],
    aliases: &[String],
    success_codes: &[i32],
    limits: Limits,
    stdout_text: bool,
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
    RUNNING_GROUP.store(pid as i32, Ordering::SeqCst);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let deadline = std::time::Instant::now() + limits.timeout;
    let (status, timed_out) = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left.min(Duration::from_millis(20))) {
            Ok(status) => break (status, false),
            Err(mpsc::RecvTimeoutError::Timeout)
                if left.is_zero() || STOP.load(Ordering::SeqCst) != 0 =>
            {
                kill_group(pid);
                break (
                    rx.recv()
                        .unwrap_or_else(|_| Err(std::io::Error::other("wait failed"))),
                    true,
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break (Err(std::io::Error::other("wait failed")), false);
            }
        }
    };
    // Anything the program left running, in its group or not, would hold our pipes open.
    kill_group(pid);
    stop_descendants();
    RUNNING_GROUP.store(0, Ordering::SeqCst);
    let sig = STOP.load(Ordering::SeqCst);
    if sig != 0 {
        // SAFETY: _exit ends the process at once, as the signal asked.
        unsafe { libc::_exit(128 + sig) };
    }
    let out = out_reader.join().unwrap_or(Captured {
        bytes: Vec::new(),
        truncated: false,
    });
    let err_tail = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    let code = status.as_ref().ok().and_then(|s| s.code());
    let (stdout_value, format) = parse_stdout(&out.bytes, out.truncated, stdout_text);
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
        let data = run_as(
            &words(&["printf", "{\n  \"a\": 1\n}\n"]),
            &[],
            &[0],
            Limits::default(),
            true,
        )
        .unwrap();
        assert_eq!(data["stdout"], "{\n  \"a\": 1\n}\n");
        assert_eq!(data["stdoutFormat"], "text");
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
    fn a_missing_known_program_names_its_package() {
        assert_eq!(package_for("fd"), Some("fd-find"));
        assert_eq!(package_for("rg"), Some("ripgrep"));
        assert_eq!(package_for("rm"), Some("coreutils"));
        assert_eq!(package_for("no-such-program-xyz"), None);
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
