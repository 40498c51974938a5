//! Running a tool whose user-written program (a jq filter, a template) can recurse or loop
//! without bound in a child `cmpx run <tool>`: a stack overflow aborts only the child, and a
//! child that runs too long is killed, so neither takes down the CLI or a long-lived MCP server.

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
    let mut child = Command::new(exe)
        .args(["run", job.id, "--json", "--args", "-"])
        .env(IN_CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| ToolError::execution(format!("could not start the {} worker: {e}", job.id)))?;
    let request = Value::Object(params).to_string();
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
        // No result at all: the child died, which for these tools means unbounded recursion.
        (Some(status), None) => Err(ToolError::invalid(format!(
            "the {} worker stopped without a result ({status}); the usual cause is unbounded recursion (stack overflow): check recursive definitions, partials or macros for a base case",
            job.id
        ))),
    }
}
