//! `cmpx run` over a `@path` file for the tools that stream (`tools::streaming`): the file is
//! read in pieces (twice when the tool must see all of it before writing) and the result
//! envelope is written around the output as it is produced, so memory stays flat whatever the
//! input size. The bytes printed are exactly those of the in-memory path.

use crate::ctp::{ErrorCode, Metadata, ToolDefinition, ToolError, ToolResult, params};
use crate::error::Error;
use crate::output::Mode;
use crate::tools::Args;
use crate::tools::chunks::{Chunks, Stop};
use crate::tools::streaming::{Output, Plan, run_in_memory, streaming};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// What became of a streaming attempt.
pub enum Streamed {
    /// The result was printed.
    Printed(ToolResult),
    /// These arguments take the ordinary path; here are the arguments back.
    Declined(Map<String, Value>),
}

/// Where the streamed parameter's bytes come from.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// `@path`: read in pieces, once or twice.
    File(&'a Path),
    /// `-`: standard input, already read whole (it cannot be read twice).
    Stdin(&'a [u8]),
}

/// Runs tool `def` with its streaming parameter read from `input` and prints the result. `raw`
/// holds the other arguments. Compact JSON with an output within the limit streams; otherwise
/// (`--pretty`, a terminal, `--output-file`, a longer output) the same plan runs over the file
/// into memory, so the file is still taken as bytes and the output limit applies as usual.
pub fn run(
    permit: &super::authorize::Permit,
    def: &ToolDefinition,
    raw: Map<String, Value>,
    input: Input,
    mode: Mode,
    output_file: Option<&Path>,
) -> Result<Streamed, Error> {
    debug_assert_eq!(
        permit.tool(),
        def.id,
        "a permit runs the tool it was given for"
    );
    let started = Instant::now();
    let Some((param, plan)) = streaming(&def.id) else {
        return Ok(Streamed::Declined(raw));
    };
    let size = match input {
        Input::File(path) => match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m.len(),
            // Missing files, FIFOs and devices: the ordinary path reads them (once) or says why.
            _ => return Ok(Streamed::Declined(raw)),
        },
        Input::Stdin(bytes) => bytes.len() as u64,
    };
    if size > crate::limits::max_input() {
        return Ok(Streamed::Declined(raw));
    }
    // The other arguments are checked with the streamed one present but empty; the streamed
    // parameter has no constraints of its own (a unit test in `tools::streaming` sees to it).
    let mut probe = raw.clone();
    probe.insert(param.to_string(), Value::String(String::new()));
    // `inputSize` is the file's bytes plus the other values' (see `exec::input_bytes`).
    let input_size = super::input_bytes(&probe) + size;
    let prepared = match params::prepare_owned(def, probe) {
        Ok(p) => p,
        Err(_) => return Ok(Streamed::Declined(raw)),
    };
    let args = Args::new(&prepared);
    let (chunks, path) = match input {
        Input::File(path) => (Chunks::file(path), Some(path)),
        Input::Stdin(bytes) => (Chunks::bytes(bytes), None),
    };
    let planned = match plan(&args, chunks) {
        Ok(Some(p)) => p,
        Ok(None) => return Ok(Streamed::Declined(raw)),
        Err(stop) => {
            return stop_error(stop, param, path).report(started, input_size, def, mode);
        }
    };
    let fields_size = super::json_len(&crate::tools::data::with_output(
        String::new(),
        Value::Object(planned.fields.clone()),
    ));
    let limit_len = planned.output.limit_len();
    let streams = !matches!(planned.output, Output::Ready(_));
    match (planned.output, output_file) {
        (output, Some(target)) if streams => {
            let emit = match output.into_plain() {
                Ok((_, emit)) => emit,
                Err(ready) => {
                    let plan = Plan {
                        fields: planned.fields,
                        output: ready,
                    };
                    return in_memory(def, plan, started, input_size, output_file, mode);
                }
            };
            let stamp = path.and_then(file_stamp);
            let outcome =
                to_file(target, emit, || path.and_then(file_stamp) == stamp).map(|saved| {
                    let mut data = planned.fields;
                    data.insert("outputFile".into(), saved);
                    Value::Object(data)
                });
            let result = super::finish_outcome(def, outcome, started, input_size, None);
            crate::output::print_result(mode, &result);
            Ok(Streamed::Printed(result))
        }
        (_, None) if streams && fields_size + limit_len > crate::limits::max_output() => {
            // Refused before a byte is produced: the limit is known from the plan.
            let e = super::builtin::too_large(fields_size + limit_len, crate::limits::max_output());
            Failure::Tool(e).report(started, input_size, def, mode)
        }
        (output, None) if streams && mode == (Mode::Json { pretty: false }) => {
            let stamp = path.and_then(file_stamp);
            let mut out = stdout();
            let _ = out.write_all(b"{\"success\":true,\"data\":{\"output\":\"");
            let (emitted, written, broken) = match output {
                Output::Escaping { emit, .. } => {
                    // The output escapes itself: no second look at every byte.
                    let mut counted = Counting {
                        inner: &mut out,
                        written: 0,
                        failed: false,
                    };
                    let emitted = emit(&mut counted, true);
                    (emitted, counted.written, counted.failed)
                }
                output => {
                    let emit = match output.into_plain() {
                        Ok((_, emit)) => emit,
                        Err(ready) => {
                            let plan = Plan {
                                fields: planned.fields,
                                output: ready,
                            };
                            return in_memory(def, plan, started, input_size, None, mode);
                        }
                    };
                    let mut escaper = crate::jsonstr::Escaper::new(&mut out);
                    let emitted = emit(&mut escaper);
                    let written = escaper.written();
                    let broken = escaper.failed() || escaper.finish().is_err();
                    (emitted, written, broken)
                }
            };
            if broken {
                // The reader went away (`| head`) or the disk is full: as on the ordinary
                // path, there is no one left to tell.
                return Ok(Streamed::Printed(ToolResult::ok(
                    Value::Null,
                    Metadata::default(),
                )));
            }
            let failed = match emitted {
                Err(stop) => Some(stop.to_string()),
                Ok(()) if path.and_then(file_stamp) != stamp => {
                    Some("the file changed".to_string())
                }
                Ok(()) => None,
            };
            let _ = out.write_all(b"\"");
            let warnings: Vec<String> = failed
                .iter()
                .map(|why| {
                    format!(
                        "the output is incomplete: the input could not be read to the end ({why})"
                    )
                })
                .collect();
            let output_size = super::json_len(&crate::tools::data::with_output(
                String::new(),
                Value::Object(planned.fields.clone()),
            )) + written;
            let metadata = Metadata {
                execution_time: 0.0,
                input_size,
                output_size,
                warnings,
                tool_version: def.version().to_string(),
            };
            let result = finish(&mut out, planned.fields, metadata, started);
            Ok(Streamed::Printed(match failed {
                Some(_) => ToolResult {
                    error_code: Some(ErrorCode::ExecutionError),
                    ..result
                },
                None => result,
            }))
        }
        (output, _) => {
            let plan = Plan {
                fields: planned.fields,
                output,
            };
            in_memory(def, plan, started, input_size, output_file, mode)
        }
    }
}

/// The plan run into memory and printed as the ordinary path prints a result.
fn in_memory(
    def: &ToolDefinition,
    plan: Plan,
    started: Instant,
    input_size: u64,
    output_file: Option<&Path>,
    mode: Mode,
) -> Result<Streamed, Error> {
    let outcome = run_in_memory(plan);
    let result = super::finish_outcome(def, outcome, started, input_size, output_file);
    crate::output::print_result(mode, &result);
    Ok(Streamed::Printed(result))
}

/// Streams the output into a new file at `target`, hashing it on the way; `unchanged` says
/// whether the input stayed as it was (a file changed midway is an error, and the output
/// file is removed).
fn to_file(
    target: &Path,
    emit: crate::tools::streaming::Emit,
    unchanged: impl Fn() -> bool,
) -> Result<Value, ToolError> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    let mut bytes = 0u64;
    super::builtin::write_new_file(target, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let mut hashing = Hashing {
            inner: &mut out,
            hasher: &mut hasher,
            bytes: &mut bytes,
        };
        emit(&mut hashing).map_err(|stop| std::io::Error::other(stop.to_string()))?;
        out.flush()?;
        if unchanged() {
            Ok(())
        } else {
            Err(std::io::Error::other(
                "the input file changed while it was read",
            ))
        }
    })?;
    Ok(super::builtin::output_file_record(
        target,
        bytes,
        &hex::encode(hasher.finalize()),
    ))
}

/// A writer that counts what passes through it and remembers whether a write failed.
struct Counting<'a, W: Write> {
    inner: &'a mut W,
    written: u64,
    failed: bool,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf).inspect_err(|_| self.failed = true)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

/// A writer that hashes and counts what passes through it.
struct Hashing<'a, W: Write> {
    inner: &'a mut W,
    hasher: &'a mut sha2::Sha256,
    bytes: &'a mut u64,
}

impl<W: Write> Write for Hashing<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        *self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The rest of the envelope after `output`; returns the result as printed (without output).
fn finish(
    out: &mut impl Write,
    fields: Map<String, Value>,
    mut metadata: Metadata,
    started: Instant,
) -> ToolResult {
    metadata.execution_time = super::millis(started);
    let mut tail = Vec::new();
    for (key, value) in &fields {
        tail.push(b',');
        let _ = serde_json::to_writer(&mut tail, key);
        tail.push(b':');
        let _ = serde_json::to_writer(&mut tail, value);
    }
    tail.extend_from_slice(b"},\"metadata\":");
    let _ = serde_json::to_writer(&mut tail, &metadata);
    tail.extend_from_slice(b"}\n");
    let _ = out.write_all(&tail).and_then(|()| out.flush());
    ToolResult::ok(Value::Object(fields), metadata)
}

fn file_stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// Standard output without the line buffering of `std::io::stdout()`, which scans every
/// block written for a newline.
fn stdout() -> std::io::BufWriter<Box<dyn Write>> {
    use std::os::fd::AsFd;
    let _ = std::io::stdout().flush();
    let raw: Box<dyn Write> = match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(std::io::stdout()),
    };
    std::io::BufWriter::with_capacity(1 << 16, raw)
}

/// How a first pass that stopped is reported: as the ordinary path would have.
enum Failure {
    Usage(Error),
    Tool(ToolError),
}

fn stop_error(stop: Stop, param: &str, path: Option<&Path>) -> Failure {
    match stop {
        Stop::Tool(e) => Failure::Tool(e),
        Stop::Io(e) => Failure::Usage(match path {
            Some(path) => crate::argv::unreadable(param, &path.to_string_lossy(), &e),
            None => Error::io("read", "standard input", e),
        }),
    }
}

impl Failure {
    fn report(
        self,
        started: Instant,
        input_size: u64,
        def: &ToolDefinition,
        mode: Mode,
    ) -> Result<Streamed, Error> {
        match self {
            Failure::Usage(e) => Err(e),
            Failure::Tool(e) => {
                let result = super::envelope_sized(Err(e), started, input_size, def.version());
                crate::output::print_result(mode, &result);
                Ok(Streamed::Printed(result))
            }
        }
    }
}
