//! Built-in tools run in a worker process (`cmpx __worker`): whatever one call does to its
//! process — an abort when memory runs out, a stack overflow, a loop that never ends — ends
//! that worker, never the CLI or a long-lived server, and every call is bounded in memory
//! (`RLIMIT_DATA`) and in wall-clock time.
//!
//! The parent sends one request per line (`{"tool", "args", "outputFile"}`) and reads one
//! ToolResult per line. A worker serves requests until its input ends, so a server keeps a few
//! warm ([`keep_warm`]); the command line starts one per call.

use super::authorize::Permit;
use crate::ctp::{ErrorCode, ToolDefinition, ToolError, ToolResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The hidden subcommand a worker runs as.
pub const COMMAND: &str = "__worker";

/// How long a call may run, and how much memory its worker may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub time: Duration,
    pub memory: u64,
}

impl Bounds {
    /// The limits in force (`CMPX_MAX_MEMORY`), with `--timeout` when one was given.
    pub fn new(timeout: Option<Duration>) -> Bounds {
        Bounds {
            time: timeout.unwrap_or(crate::limits::DEFAULT_TIMEOUT),
            memory: crate::limits::max_memory(),
        }
    }
}

/// One job for a worker.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Request {
    /// A catalogue tool with its raw arguments.
    #[serde(rename_all = "camelCase")]
    Tool {
        tool: String,
        args: Map<String, Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_file: Option<PathBuf>,
    },
    /// An external program (an adapter intent), run by `external::run` in the worker, which
    /// is a subreaper: whatever the program leaves behind, even in a new session, is its own
    /// to stop.
    #[serde(rename_all = "camelCase")]
    Program {
        argv: Vec<String>,
        aliases: Vec<String>,
        success_codes: Vec<i32>,
        timeout: Duration,
        max_output: usize,
        /// The intent keeps stdout as text (`"stdoutFormat": "text"`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stdout_text: bool,
    },
}

/// What became of one call.
enum Reply {
    Done(ToolResult),
    TimedOut,
    Cancelled,
    /// The worker ended without a result; the message says why, as far as it can be told.
    Died(ToolError),
}

/// Runs catalogue tool `def` in a worker within `bounds`: the one way the command line and the
/// servers run a built-in tool.
pub fn run(
    permit: Permit,
    def: &ToolDefinition,
    args: Map<String, Value>,
    output_file: Option<&Path>,
    bounds: Bounds,
) -> ToolResult {
    run_cancellable(permit, def, args, output_file, bounds, &|| false)
        .unwrap_or_else(|| ToolResult::from(ToolError::execution("the call was cancelled")))
}

/// [`run`] that stops the worker as soon as `cancelled()` turns true, and then returns `None`.
pub fn run_cancellable(
    permit: Permit,
    def: &ToolDefinition,
    args: Map<String, Value>,
    output_file: Option<&Path>,
    bounds: Bounds,
    cancelled: &dyn Fn() -> bool,
) -> Option<ToolResult> {
    let Some(exe) = executable() else {
        // A test binary or a fuzz target linking the library: there is no worker to start.
        return Some(super::run_definition_to(permit, def, args, output_file));
    };
    debug_assert_eq!(
        permit.tool(),
        def.id,
        "a permit runs the tool it was given for"
    );
    let started = Instant::now();
    let input_size = super::input_bytes(&args);
    let fail = |e: ToolError| super::envelope_sized(Err(e), started, input_size, def.version());
    let request = Request::Tool {
        tool: def.id.clone(),
        args,
        output_file: output_file.map(Path::to_path_buf),
    };
    match call(
        &exe,
        request,
        bounds.memory,
        started + bounds.time,
        cancelled,
    ) {
        Reply::Done(result) => Some(result),
        Reply::Cancelled => None,
        Reply::TimedOut => Some(fail(ToolError::new(
            ErrorCode::Timeout,
            format!(
                "{} did not finish within {} and was stopped; allow more with --timeout <seconds>",
                def.id,
                seconds(bounds.time)
            ),
        ))),
        Reply::Died(why) => Some(fail(why)),
    }
}

/// Runs an external program in a worker (see [`Request::Program`]); the outcome is
/// `external::run`'s. `None` when `cancelled()` turned true first. Only [`super::invoke`]
/// calls it, with a permit for the intent.
pub(super) fn run_program(
    argv: &[String],
    aliases: &[String],
    success_codes: &[i32],
    limits: super::external::Limits,
    stdout_text: bool,
    cancelled: &dyn Fn() -> bool,
) -> Option<Result<Value, ToolError>> {
    let Some(exe) = executable() else {
        return Some(super::external::run_as(
            argv,
            aliases,
            success_codes,
            limits,
            stdout_text,
        ));
    };
    let request = Request::Program {
        argv: argv.to_vec(),
        aliases: aliases.to_vec(),
        success_codes: success_codes.to_vec(),
        timeout: limits.timeout,
        max_output: limits.max_output,
        stdout_text,
    };
    // The worker stops the program at its time limit and says so; this later deadline only
    // catches a worker that cannot.
    let deadline = Instant::now() + limits.timeout + Duration::from_secs(5);
    let memory = crate::limits::max_memory();
    match call(&exe, request, memory, deadline, cancelled) {
        Reply::Done(result) => Some(outcome_of(result)),
        Reply::Cancelled => None,
        Reply::TimedOut => Some(Err(ToolError::new(
            ErrorCode::Timeout,
            format!(
                "{} did not finish within {} and was stopped",
                argv.first().map_or("the program", String::as_str),
                seconds(limits.timeout)
            ),
        ))),
        Reply::Died(why) => Some(Err(why)),
    }
}

/// A ToolResult back into the outcome it was made from.
fn outcome_of(result: ToolResult) -> Result<Value, ToolError> {
    match (result.success, result.data) {
        (true, data) => Ok(data.unwrap_or(Value::Null)),
        (false, data) => Err(ToolError {
            code: result.error_code.unwrap_or(ErrorCode::InternalError),
            message: result.error.unwrap_or_default(),
            data,
        }),
    }
}

/// One request in a worker: a warm one from the pool when a server keeps them (catalogue
/// tools only), else a fresh one. Afterwards the worker goes back to the pool if it finished
/// cleanly and quickly, and is stopped otherwise: a worker that failed, timed out, was
/// cancelled or grew is never reused.
fn call(
    exe: &Path,
    request: Request,
    memory: u64,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
) -> Reply {
    // An external program's worker is a subreaper of whatever the program left: never reused.
    let poolable = matches!(request, Request::Tool { .. });
    let warm = if poolable { take_idle(memory) } else { None };
    let mut worker = match warm {
        Some(w) => w,
        None => match Worker::spawn(exe, memory) {
            Ok(w) => w,
            Err(e) => {
                return Reply::Died(ToolError::new(
                    ErrorCode::InternalError,
                    format!("cannot start a worker process: {e}"),
                ));
            }
        },
    };
    let started = Instant::now();
    let reply = worker.call(request, deadline, cancelled);
    if poolable && matches!(reply, Reply::Done(_)) && started.elapsed() < REUSE_WITHIN {
        give_back(worker);
    } else {
        worker.stop();
    }
    reply
}

/// Idle workers a long-lived server keeps for its next calls; none unless [`keep_warm`] asks.
struct Pool {
    capacity: usize,
    idle: Vec<Worker>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    capacity: 0,
    idle: Vec::new(),
});

/// A call that ran longer gains little from a warm worker (starting one costs milliseconds)
/// and may have left work behind (a tool's own time limit abandons a thread): not reused.
const REUSE_WITHIN: Duration = Duration::from_secs(1);
/// Data a worker may hold after a call and still be reused: what the allocator keeps from a
/// large input would otherwise count against the next call's memory limit.
const REUSE_MAX_DATA: u64 = 64 << 20;

/// Keeps up to `capacity` idle workers for reuse (a server passes its concurrency bound), so
/// a call does not pay for starting a process. Each call keeps its own time and memory limits;
/// the worker it ran in is reused only after a clean, quick result.
pub fn keep_warm(capacity: usize) {
    let surplus: Vec<Worker> = {
        let mut pool = lock_pool();
        pool.capacity = capacity;
        let extra = pool.idle.len().saturating_sub(capacity);
        pool.idle.drain(..extra).collect()
    };
    surplus.into_iter().for_each(Worker::stop);
}

fn lock_pool() -> std::sync::MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A live idle worker started with the same memory limit.
fn take_idle(memory: u64) -> Option<Worker> {
    let mut pool = lock_pool();
    while let Some(mut worker) = pool.idle.pop() {
        // One that ended while idle (killed from outside) has been reaped by try_wait.
        if worker.memory == memory && matches!(worker.child.try_wait(), Ok(None)) {
            return Some(worker);
        }
    }
    None
}

fn give_back(worker: Worker) {
    let mut pool = lock_pool();
    if pool.idle.len() < pool.capacity && worker.stdin.is_some() && worker.reusable() {
        pool.idle.push(worker);
        return;
    }
    drop(pool);
    worker.stop();
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// The program to start as a worker, when this process is cmpx itself.
/// Set by the `cmpx` binary's entry point: only that binary can start itself as a worker. A
/// test or fuzz binary linking the library runs tools in-process instead. (Checking the file
/// name instead would silently drop containment for a renamed binary.)
static WORKERS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called by the `cmpx` binary before anything runs.
pub fn enable() {
    WORKERS.store(true, std::sync::atomic::Ordering::SeqCst);
}

fn executable() -> Option<PathBuf> {
    if cfg!(test) || !WORKERS.load(std::sync::atomic::Ordering::SeqCst) {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    // /proc/self/exe starts this very binary, even if it was replaced or moved meanwhile.
    let this = Path::new("/proc/self/exe");
    Some(if this.exists() {
        this.to_path_buf()
    } else {
        exe
    })
}

/// Lines the worker's stderr carries when it dies of a known cause; the parent explains the
/// cause in the result instead of passing them on.
const CRASH_LINES: &[&str] = &[
    "memory allocation of",
    "has overflowed its stack",
    "fatal runtime error",
];

struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: mpsc::Receiver<Result<Vec<u8>, String>>,
    stderr: Arc<Mutex<String>>,
    memory: u64,
}

impl Worker {
    fn spawn(exe: &Path, memory: u64) -> std::io::Result<Worker> {
        let mut cmd = Command::new(exe);
        cmd.arg(COMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use rustix::process::{Resource, Rlimit, setrlimit};
            use std::os::unix::process::CommandExt;
            // SAFETY: the closure runs between fork and exec, so it must be async-signal-safe:
            // rustix's setrlimit is one prlimit64 syscall (no allocation, no lock), and turning its
            // errno into an io::Error allocates nothing either.
            unsafe {
                cmd.pre_exec(move || {
                    let data = Rlimit {
                        current: Some(memory),
                        maximum: Some(memory),
                    };
                    let none = Rlimit {
                        current: Some(0),
                        maximum: Some(0),
                    };
                    // A worker that dies of its memory limit must not leave a core file.
                    let _ = setrlimit(Resource::Core, none);
                    setrlimit(Resource::Data, data)?;
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn()?;
        let stdout = child.stdout.take().ok_or_else(no_pipe)?;
        let stderr = child.stderr.take().ok_or_else(no_pipe)?;
        let (tx, replies) = mpsc::channel();
        let cap = reply_cap();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            loop {
                match read_line_capped(&mut reader, cap) {
                    Ok(Some(line)) => {
                        if tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Ok(None) | Err(LineError::Io) => return,
                    Err(LineError::TooLong) => {
                        let _ = tx.send(Err(format!(
                            "the result is larger than {}",
                            crate::limits::human(cap)
                        )));
                        return;
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(String::new()));
        let keep = Arc::clone(&tail);
        std::thread::spawn(move || relay_stderr(stderr, &keep));
        Ok(Worker {
            stdin: child.stdin.take(),
            child,
            replies,
            stderr: tail,
            memory,
        })
    }

    fn call(&mut self, request: Request, deadline: Instant, cancelled: &dyn Fn() -> bool) -> Reply {
        let Some(stdin) = self.stdin.take() else {
            return Reply::Died(ToolError::new(
                ErrorCode::InternalError,
                "the worker's input is closed",
            ));
        };
        // A large request is written while the worker reads it; a worker that dies meanwhile
        // breaks the pipe, which ends the writer.
        let writer = std::thread::spawn(move || -> Option<ChildStdin> {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdin);
            serde_json::to_writer(&mut out, &request).ok()?;
            out.write_all(b"\n").ok()?;
            out.flush().ok()?;
            out.into_inner().ok()
        });
        let reply = loop {
            let now = Instant::now();
            if now >= deadline {
                self.kill();
                break Reply::TimedOut;
            }
            if cancelled() {
                self.kill();
                break Reply::Cancelled;
            }
            let slice = (deadline - now).min(Duration::from_millis(20));
            match self.replies.recv_timeout(slice) {
                Ok(Ok(line)) => break parse_reply(&line),
                Ok(Err(why)) => {
                    self.kill();
                    break Reply::Died(ToolError::execution(why));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().ok();
                    break Reply::Died(self.diagnose(status));
                }
            }
        };
        if let Ok(Some(stdin)) = writer.join() {
            self.stdin = Some(stdin);
        }
        reply
    }

    /// Whether the worker may serve another call: nothing left running in it (one thread) and
    /// little memory held (`REUSE_MAX_DATA`).
    fn reusable(&self) -> bool {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
        else {
            return false;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
        };
        field("Threads:") == Some(1)
            && field("VmData:").is_some_and(|kib| kib.saturating_mul(1024) <= REUSE_MAX_DATA)
    }

    /// Asks the worker to stop (SIGTERM: a running program and all it started are stopped
    /// first), and kills it if it has not within two seconds.
    fn kill(&mut self) {
        // Our own child, not reaped yet: its pid cannot have been reused.
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Ends the worker: closing its input lets it exit; one that does not is killed.
    fn stop(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Why a worker ended without a result, from its exit status and last words.
    fn diagnose(&self, status: Option<ExitStatus>) -> ToolError {
        let said = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let signal = status.and_then(|s| {
            use std::os::unix::process::ExitStatusExt;
            s.signal()
        });
        if said.contains("memory allocation of")
            || signal == Some(rustix::process::Signal::KILL.as_raw())
        {
            return ToolError::execution(format!(
                "the tool needed more memory than the {} limit and was stopped; the input is too large for it (set {}=<size> to allow more)",
                crate::limits::human(self.memory),
                crate::limits::MAX_MEMORY_ENV
            ));
        }
        if said.contains("overflowed its stack") {
            return ToolError::invalid(
                "the input nests too deeply for this tool (the worker ran out of stack); flatten or split it",
            );
        }
        if let Some(code @ (130 | 143)) = status.and_then(|s| s.code()) {
            // The worker's own signal handler: someone asked it to stop (Ctrl-C, SIGTERM).
            let what = if code == 130 { "SIGINT" } else { "SIGTERM" };
            return ToolError::execution(format!(
                "the call was interrupted ({what}); the tool and every process it started were stopped"
            ));
        }
        let how = match (status.and_then(|s| s.code()), signal) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(sig)) => format!("signal {sig}"),
            _ => "no status".to_string(),
        };
        ToolError::new(
            ErrorCode::InternalError,
            format!(
                "the worker stopped without a result ({how}); this is a bug in cmpx, please report it"
            ),
        )
    }
}

fn no_pipe() -> std::io::Error {
    std::io::Error::other("the worker's pipes were not set up")
}

/// The largest reply line read: the output limit with room for JSON escapes and the envelope.
fn reply_cap() -> u64 {
    crate::limits::max_output()
        .saturating_mul(6)
        .saturating_add(16 << 20)
}

/// How deep a result may nest. Tools bound the depth of what they parse (512 levels at most),
/// but a converted document is deeper than its source (an XML element becomes an object
/// holding an array of children), so the reply gets room beyond serde_json's 128 levels.
const REPLY_DEPTH: usize = 2048;

fn parse_reply(line: &[u8]) -> Reply {
    if nesting(line) > REPLY_DEPTH {
        return Reply::Died(ToolError::execution(format!(
            "the result nests deeper than {REPLY_DEPTH} levels, more than cmpx passes on; give the tool less deeply nested input"
        )));
    }
    // serde_json recurses per level: the parse gets a stack sized for REPLY_DEPTH levels in
    // any build, whichever thread (CLI main, MCP call) asked.
    let parsed = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("worker-reply".into())
            .stack_size(64 << 20)
            .spawn_scoped(scope, || {
                let mut de = serde_json::Deserializer::from_slice(line);
                de.disable_recursion_limit();
                ToolResult::deserialize(&mut de).map_err(|e| e.to_string())
            })
            .map(|handle| handle.join())
    });
    match parsed {
        Ok(Ok(Ok(result))) => Reply::Done(result),
        Ok(Ok(Err(e))) => Reply::Died(ToolError::new(
            ErrorCode::InternalError,
            format!("the worker's reply is not a ToolResult ({e}); this is a bug in cmpx"),
        )),
        Ok(Err(_)) => Reply::Died(ToolError::new(
            ErrorCode::InternalError,
            "reading the worker's reply failed; this is a bug in cmpx",
        )),
        Err(e) => Reply::Died(ToolError::execution(format!(
            "could not start a thread to read the worker's reply: {e}"
        ))),
    }
}

/// The deepest bracket nesting of JSON text, strings skipped; no tree is built.
fn nesting(json: &[u8]) -> usize {
    let (mut level, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in json {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                level += 1;
                deepest = deepest.max(level);
            }
            b']' | b'}' => level = level.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

enum LineError {
    Io,
    TooLong,
}

/// One line without its newline; `None` at the end of input.
fn read_line_capped(reader: &mut impl BufRead, cap: u64) -> Result<Option<Vec<u8>>, LineError> {
    let mut line = Vec::new();
    let read = reader
        .take(cap.saturating_add(1))
        .read_until(b'\n', &mut line)
        .map_err(|_| LineError::Io)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(Some(line));
    }
    if line.len() as u64 > cap {
        return Err(LineError::TooLong);
    }
    // The worker ended in the middle of a line: no reply.
    Ok(None)
}

/// Passes the worker's diagnostics on to our stderr, keeping the last few KiB for
/// [`Worker::diagnose`]; from the first line of a known death on (and any backtrace after
/// it), lines are kept but not passed on: the result explains the death.
fn relay_stderr(stderr: impl Read, tail: &Mutex<String>) {
    const KEEP: usize = 4096;
    let reader = BufReader::new(stderr);
    let mut dying = false;
    for line in reader.split(b'\n') {
        let Ok(line) = line else { return };
        let line = String::from_utf8_lossy(&line).into_owned();
        dying = dying || CRASH_LINES.iter().any(|c| line.contains(c));
        if !dying {
            crate::log_sink::line(line.clone());
        }
        if let Ok(mut t) = tail.lock() {
            t.push_str(&line);
            t.push('\n');
            if t.len() > 2 * KEEP {
                let mut cut = t.len() - KEEP;
                while !t.is_char_boundary(cut) {
                    cut += 1;
                }
                t.drain(..cut);
            }
        }
    }
}

/// The worker's side: requests from stdin, results to stdout, until stdin ends.
pub fn serve() -> i32 {
    let stdin = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // Whatever an external program leaves behind is re-parented here, to be stopped.
    super::external::become_subreaper();
    super::external::stop_on_signals();
    // Read straight from the pipe into values: a 256 MiB request is never held twice.
    let requests = serde_json::Deserializer::from_reader(stdin).into_iter::<Request>();
    for request in requests {
        let result = match request {
            Ok(Request::Tool {
                tool,
                args,
                output_file,
            }) => match crate::catalogue::get(&tool) {
                // The parent sends only what it held a permit for, over this private pipe.
                Some(def) => super::run_definition_to(
                    Permit::internal(&tool),
                    &def,
                    args,
                    output_file.as_deref(),
                ),
                None => ToolResult::from(super::not_found(&tool)),
            },
            Ok(Request::Program {
                argv,
                aliases,
                success_codes,
                timeout,
                max_output,
                stdout_text,
            }) => {
                let limits = super::external::Limits {
                    timeout,
                    max_output,
                };
                match super::external::run_as(&argv, &aliases, &success_codes, limits, stdout_text)
                {
                    Ok(data) => ToolResult::ok(data, Default::default()),
                    Err(e) => ToolResult::err(e, None),
                }
            }
            Err(e) if e.is_eof() => return 0,
            Err(e) => {
                // The stream cannot be trusted past a malformed request.
                let _ = write_result(
                    &mut out,
                    &ToolResult::from(ToolError::new(
                        ErrorCode::InternalError,
                        format!("malformed worker request: {e}"),
                    )),
                );
                return 2;
            }
        };
        if write_result(&mut out, &result).is_err() {
            return 0;
        }
    }
    0
}

fn write_result(out: &mut impl Write, result: &ToolResult) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, result)?;
    out.write_all(b"\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_whole_and_capped() {
        let mut input: &[u8] = b"{\"a\":1}\n{\"b\":2}\npartial";
        assert_eq!(
            read_line_capped(&mut input, 100).ok().flatten(),
            Some(b"{\"a\":1}".to_vec())
        );
        assert_eq!(
            read_line_capped(&mut input, 100).ok().flatten(),
            Some(b"{\"b\":2}".to_vec())
        );
        // A worker that died mid-line left no reply.
        assert!(matches!(read_line_capped(&mut input, 100), Ok(None)));
        let mut long: &[u8] = b"0123456789\n";
        assert!(matches!(
            read_line_capped(&mut long, 5),
            Err(LineError::TooLong)
        ));
    }

    #[test]
    fn replies_parse_back_into_results() {
        let result = ToolResult::from(ToolError::invalid("bad"));
        let line = serde_json::to_vec(&result).unwrap();
        match parse_reply(&line) {
            Reply::Done(back) => assert_eq!(back, result),
            _ => panic!("not parsed"),
        }
        assert!(matches!(parse_reply(b"{\"nope\":1}"), Reply::Died(_)));
    }

    #[test]
    fn deep_results_pass_up_to_the_reply_depth() {
        let deep = |n: usize| {
            format!(
                "{{\"success\":true,\"data\":{{\"v\":{}\"[{{]\\\"\"{}}}}}",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        assert_eq!(nesting(deep(10).as_bytes()), 12);
        match parse_reply(deep(REPLY_DEPTH - 2).as_bytes()) {
            Reply::Done(r) => assert!(r.success),
            _ => panic!("a result {REPLY_DEPTH} levels deep must pass"),
        }
        match parse_reply(deep(REPLY_DEPTH - 1).as_bytes()) {
            Reply::Died(e) => assert!(
                e.message.contains("nests deeper than 2048"),
                "{}",
                e.message
            ),
            _ => panic!("deeper than REPLY_DEPTH must be refused"),
        }
    }

    #[test]
    fn durations_read_as_seconds() {
        assert_eq!(seconds(Duration::from_secs(60)), "60 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
