//! Running a tool whose user-written program (a jq filter, a template) can recurse or loop
//! without bound in a child `cmpx run <tool>`: a stack overflow aborts only the child, a child
//! that runs too long is killed, and one that allocates past its memory limit (RLIMIT_DATA)
//! fails alone, so none takes down the CLI or a long-lived MCP server.

use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child so that it runs the tool itself instead of starting another child.
const IN_CHILD_ENV: &str = "CMPX_ISOLATED_CHILD";

pub struct Job {
    pub id: &'static str,
    /// The tool's parameter names, passed on to the child.
    pub params: &'static [&'static str],
    pub time_limit: Duration,
    pub timeout_message: &'static str,
}

/// Runs `here` in a child process, or directly when this process is that child, a unit test,
/// or not the cmpx binary.
pub fn run(job: &Job, args: &Args, here: fn(&Args) -> ToolOutcome) -> ToolOutcome {
    match child_executable() {
        Some(exe) => run_in_child(&exe, job, args),
        None => here(args),
    }
}

fn child_executable() -> Option<PathBuf> {
    if cfg!(test) || std::env::var_os(IN_CHILD_ENV).is_some() {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    (exe.file_stem()?.to_str()? == "cmpx").then_some(exe)
}

fn run_in_child(exe: &std::path::Path, job: &Job, args: &Args) -> ToolOutcome {
    let params: Map<String, Value> = job
        .params
        .iter()
        .filter_map(|&name| args.get(name).map(|v| (name.to_string(), v.clone())))
        .collect();
    let request = Value::Object(params).to_string();
    let memory = memory_limit(request.len());
    let mut command = Command::new(exe);
    command
        .args(["run", job.id, "--json", "--args", "-"])
        .env(IN_CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    limit_memory(&mut command, memory);
    let mut child = command
        .spawn()
        .map_err(|e| ToolError::execution(format!("could not start the {} worker: {e}", job.id)))?;
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(request.as_bytes());
        }
    });
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(stdout) = stdout.as_mut() {
            let _ = stdout.read_to_end(&mut out);
        }
        out
    });
    // Only the end of stderr matters: the runtime's last words when the worker aborts.
    let mut stderr = child.stderr.take();
    let complaints = std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut buf = [0u8; 4096];
        while let Some(Ok(n @ 1..)) = stderr.as_mut().map(|e| e.read(&mut buf)) {
            tail.extend_from_slice(&buf[..n]);
            let excess = tail.len().saturating_sub(4096);
            tail.drain(..excess);
        }
        String::from_utf8_lossy(&tail).into_owned()
    });
    let deadline = Instant::now() + job.time_limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    let last_words = complaints.join().unwrap_or_default();
    let result: Option<Value> = serde_json::from_slice(&out).ok();
    match (status, result) {
        (None, _) => Err(ToolError::invalid(format!(
            "{} (stopped after {} seconds)",
            job.timeout_message,
            job.time_limit.as_secs()
        ))),
        (Some(_), Some(result)) if result["success"] == true => Ok(result["data"].clone()),
        (Some(_), Some(result)) => {
            let message = result["error"]
                .as_str()
                .unwrap_or("the worker failed without a message")
                .to_string();
            Err(match result["errorCode"].as_str() {
                Some("INVALID_INPUT") => ToolError::invalid(message),
                _ => ToolError::execution(message),
            })
        }
        // No result at all: the child died; its last words on stderr say why.
        (Some(status), None) if last_words.contains("memory allocation of") => {
            Err(ToolError::invalid(format!(
                "the {} worker ran out of memory ({status}): it may use {}, about four times its input plus 1 GiB; build smaller values (limit(n; f), first(f)) or give a smaller input",
                job.id,
                crate::limits::human(memory)
            )))
        }
        (Some(status), None) => Err(ToolError::invalid(format!(
            "the {} worker stopped without a result ({status}); the usual cause is unbounded recursion (stack overflow): check recursive definitions, partials or macros for a base case",
            job.id
        ))),
    }
}

/// The memory a worker may map: 1 GiB for the program's own values, and four times the
/// request for the copies of its input (the request, its parsed arguments, the parsed input
/// and the program's view of it). An allocation past it aborts only the worker.
fn memory_limit(request: usize) -> u64 {
    (1u64 << 30).saturating_add(4 * request as u64)
}

#[cfg(unix)]
fn limit_memory(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent; the closure
    // runs in the forked child before exec.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

#[cfg(not(unix))]
fn limit_memory(_command: &mut Command, _bytes: u64) {}
