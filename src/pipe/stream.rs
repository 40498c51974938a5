//! The streaming fast path of `cmpx pipe`: a recipe of byte transforms only (Base64 decode,
//! gzip/zlib/deflate decompress), from an `@path` input to `--output-file`, runs as a stack of
//! `Read` adapters in constant memory instead of one worker per step holding whole payloads.

use super::plan::{Kind, Plan, Planned, step_error};
use super::run::VERSION;
use crate::ctp::{ErrorCode, ToolError, ToolResult};
use crate::tools::b64;
use crate::tools::chunks::{Chunks, Stop};
use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use serde_json::{Map, Value, json};
use std::cell::Cell;
use std::io::{self, Read, Write};
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Bytes read from the input (or a decoder) at a time.
const PIECE: usize = 1 << 16;

/// One step the fast path can run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Transform {
    Base64Decode,
    /// gzip (multi-member, as the tool reads it), zlib or raw deflate.
    Inflate(&'static str),
}

/// The transforms of `plan`, when every step is one the fast path runs exactly as the tool
/// does; `None` sends the recipe down the ordinary path.
pub(crate) fn transforms(plan: &Plan) -> Option<Vec<Transform>> {
    let chain: Option<Vec<Transform>> = plan
        .steps
        .iter()
        .map(|step| {
            if step.from != super::recipe::DEFAULT_FROM || step.into.as_deref() != Some("input") {
                return None;
            }
            let Kind::Builtin(def) = &step.kind else {
                return None;
            };
            let text = |name: &str| -> Option<String> {
                let v = step
                    .params
                    .get(name)
                    .or(def.parameter(name)?.default_value.as_ref())?;
                v.as_str().map(str::to_string)
            };
            match def.id.as_str() {
                "base64-encoder" => {
                    let known = ["mode", "variant", "padding", "lineLength", "perLine"];
                    let plain = step.params.keys().all(|k| known.contains(&k.as_str()));
                    let per_line = step.params.get("perLine").and_then(Value::as_bool);
                    (plain && text("mode")? == "decode" && per_line != Some(true))
                        .then_some(Transform::Base64Decode)
                }
                "gzip-compressor" => {
                    let known = ["mode", "format", "level", "inputEncoding"];
                    let plain = step.params.keys().all(|k| known.contains(&k.as_str()));
                    if !plain || text("mode")? != "decompress" {
                        return None;
                    }
                    match text("format")?.as_str() {
                        "gzip" => Some(Transform::Inflate("gzip")),
                        "zlib" => Some(Transform::Inflate("zlib")),
                        "deflate" => Some(Transform::Inflate("deflate")),
                        _ => None,
                    }
                }
                _ => None,
            }
        })
        .collect();
    // Only a first Base64 step can pick its alphabet from the whole input before streaming.
    chain.filter(|c| !c.iter().skip(1).any(|t| *t == Transform::Base64Decode))
}

/// A step's failure travelling up the reader stack inside an `io::Error`.
#[derive(Debug)]
struct StepFailure {
    index: usize,
    error: ToolError,
}

impl std::fmt::Display for StepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.error.message)
    }
}

impl std::error::Error for StepFailure {}

fn fail(index: usize, error: ToolError) -> io::Error {
    io::Error::other(StepFailure { index, error })
}

/// The input file's own read error, kept apart so no decoder mistakes it for bad data.
#[derive(Debug)]
struct InputFailure(io::Error);

impl std::fmt::Display for InputFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for InputFailure {}

/// Whether `e` is a step's failure or the input's, rather than a decoder's complaint.
fn is_ours(e: &io::Error) -> bool {
    e.get_ref()
        .is_some_and(|inner| inner.is::<StepFailure>() || inner.is::<InputFailure>())
}

/// Counts the bytes read through it; the source one also enforces the recipe's time limit.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
    deadline: Option<Instant>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(fail(
                0,
                ToolError::new(
                    ErrorCode::Timeout,
                    "the recipe ran out of time; allow more with --timeout <seconds>",
                ),
            ));
        }
        let n = self.inner.read(buf).map_err(|e| {
            // Only the source has a deadline; the stages' errors pass through as they are.
            if self.deadline.is_some() && !is_ours(&e) {
                io::Error::other(InputFailure(e))
            } else {
                e
            }
        })?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// The tool's own lenient Base64 decoder (whitespace, optional padding) over a reader.
struct Base64Read<R> {
    inner: R,
    index: usize,
    decoder: Option<b64::Decoder>,
    piece: Vec<u8>,
    out: Vec<u8>,
    pos: usize,
}

impl<R: Read> Read for Base64Read<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.out.len() {
            let Some(decoder) = self.decoder.as_mut() else {
                return Ok(0);
            };
            self.out.clear();
            self.pos = 0;
            let n = self.inner.read(&mut self.piece)?;
            let out = &mut self.out;
            let mut sink = |bytes: &[u8]| -> Result<(), Stop> {
                out.extend_from_slice(bytes);
                Ok(())
            };
            let pushed = if n == 0 {
                let last = self.decoder.take();
                last.map_or(Ok(()), |d| d.finish(&mut sink))
            } else {
                decoder.push(&self.piece[..n], &mut sink)
            };
            pushed.map_err(|stop| match stop {
                Stop::Tool(e) => fail(self.index, e),
                Stop::Io(e) => e,
            })?;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A decompressor whose own errors are the tool's "not valid" error for step `index`.
struct Inflate {
    inner: Box<dyn Read>,
    index: usize,
    format: &'static str,
}

impl Read for Inflate {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if is_ours(&e) {
                e
            } else {
                let message = format!("input is not valid {} data: {e}", self.format);
                fail(self.index, ToolError::invalid(message))
            }
        })
    }
}

/// Runs the chain from `input` into a new file at `output`; the result has the ordinary
/// path's shape (`data.steps`, `data.outputFile`) plus `data.streamed: true`.
pub(crate) fn run(
    plan: &Plan,
    chain: &[Transform],
    input: &Path,
    output: &Path,
    timeout: Duration,
) -> ToolResult {
    let started = Instant::now();
    let input_size = std::fs::metadata(input).map_or(0, |m| m.len());
    let outcome = stream(chain, input, output, started + timeout);
    let ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let outcome = match outcome {
        Ok(done) => done,
        Err(e) => return crate::exec::envelope_sized(Err(e), started, input_size, VERSION),
    };
    // Steps overlap in time, so each reports the whole run's time.
    let mut steps: Vec<Value> = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| record(step, i, ms, &outcome.counts))
        .collect();
    match outcome.failure {
        None => {
            let mut data = last_fields(chain, &outcome);
            data.insert("outputFile".into(), outcome.file);
            data.insert("streamed".into(), json!(true));
            data.insert("steps".into(), Value::Array(steps));
            crate::exec::envelope_sized(Ok(Value::Object(data)), started, input_size, VERSION)
        }
        Some(StepFailure { index, error }) => {
            steps.truncate(index + 1);
            steps[index]["error"] = json!(error.message);
            if let Some(rec) = steps[index].as_object_mut() {
                rec.remove("outputBytes");
                rec.remove("warnings");
            }
            let step = &plan.steps[index];
            let mut e = step_error(&step.label, step.top, &step.tool, error);
            if let Some(Value::Object(map)) = &mut e.data {
                map.insert("steps".into(), Value::Array(steps));
            }
            crate::exec::envelope_sized(Err(e), started, input_size, VERSION)
        }
    }
}

fn record(step: &Planned, i: usize, ms: f64, counts: &[u64]) -> Value {
    let mut rec = json!({
        "step": i + 1,
        "tool": step.tool,
        "ms": ms,
        "inputBytes": counts[i],
        "outputBytes": counts[i + 1],
        "warnings": [],
    });
    if step.label.contains('.') {
        rec["label"] = json!(step.label);
    }
    rec
}

/// What the last step's tool puts beside its output.
fn last_fields(chain: &[Transform], done: &Streamed) -> Map<String, Value> {
    let n = chain.len();
    let encoding = if done.utf8 { "utf-8" } else { "binary" };
    let mut m = Map::new();
    match chain[n - 1] {
        Transform::Base64Decode => {
            m.insert("mode".into(), json!("decode"));
            m.insert("outputEncoding".into(), json!(encoding));
        }
        Transform::Inflate(format) => {
            let (packed, size) = (done.counts[n - 1], done.counts[n]);
            m.insert("outputEncoding".into(), json!(encoding));
            m.insert("mode".into(), json!("decompress"));
            m.insert("format".into(), json!(format));
            m.insert("inputSize".into(), json!(packed));
            m.insert("outputSize".into(), json!(size));
            if size > 0 {
                let r = packed as f64 / size as f64;
                m.insert("ratio".into(), json!((r * 10_000.0).round() / 10_000.0));
            }
        }
    }
    m
}

struct Streamed {
    /// Bytes into step 1, into step 2, …, out of the last step.
    counts: Vec<u64>,
    file: Value,
    utf8: bool,
    failure: Option<StepFailure>,
}

impl Streamed {
    /// A run that stopped at step `index` (0-based) with `counts` bytes through each step.
    fn failed(counts: Vec<u64>, index: usize, error: ToolError) -> Self {
        Streamed {
            counts,
            file: Value::Null,
            utf8: false,
            failure: Some(StepFailure { index, error }),
        }
    }
}

/// Builds the reader stack and copies it into the new file. `Err` is a failure not of a step
/// (the input cannot be read); a step's failure, writing the file included (the last step's
/// job on the ordinary path), is `Streamed::failure`.
fn stream(
    chain: &[Transform],
    input: &Path,
    output: &Path,
    deadline: Instant,
) -> Result<Streamed, ToolError> {
    let last = chain.len() - 1;
    let nothing = || vec![0; chain.len() + 1];
    let read_error = |e: io::Error| {
        ToolError::invalid(format!(
            "cannot read the input file {}: {e}",
            input.display()
        ))
    };
    // An existing file is refused before the input is read, not after a long run; the
    // rename at the end refuses one that appears meanwhile.
    if let Err(e) = crate::new_file::refuse_existing(output) {
        return Ok(Streamed::failed(nothing(), last, e));
    }
    // The tool picks the alphabet from the whole input (standard first); a first Base64
    // step does the same over the file before anything is written.
    let url_safe = match chain.first() {
        Some(Transform::Base64Decode) => match detect_alphabet(input) {
            Ok(url_safe) => url_safe,
            Err(Stop::Tool(e)) => return Ok(Streamed::failed(nothing(), 0, e)),
            Err(Stop::Io(e)) => return Err(read_error(e)),
        },
        _ => false,
    };
    let file = std::fs::File::open(input).map_err(read_error)?;
    let counts: Vec<Rc<Cell<u64>>> = (0..=chain.len()).map(|_| Rc::default()).collect();
    let mut reader = stack(chain, file, &counts, url_safe, deadline);
    let cap = crate::limits::max_stream_output();
    let mut failure = None;
    let mut unreadable = None;
    let mut utf8 = crate::text::Utf8Stream::default();
    let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
    let written = crate::new_file::write(output, |file| {
        let mut out = io::BufWriter::with_capacity(PIECE, file);
        let mut piece = vec![0; PIECE];
        let mut total: u64 = 0;
        loop {
            let n = match reader.read(&mut piece) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let inner = e.into_inner();
                    match inner.map(|b| b.downcast::<StepFailure>()) {
                        Some(Ok(f)) => failure = Some(*f),
                        Some(Err(other)) => {
                            let e = other
                                .downcast::<InputFailure>()
                                .map_or_else(|o| io::Error::other(o.to_string()), |f| f.0);
                            unreadable = Some(e);
                        }
                        None => unreadable = Some(io::Error::other("the input could not be read")),
                    }
                    return Err(io::Error::other("the stream stopped"));
                }
            };
            total += n as u64;
            if total > cap {
                let packed = counts[last].get();
                failure = Some(StepFailure {
                    index: last,
                    error: too_large(cap, packed),
                });
                return Err(io::Error::other("the output limit was reached"));
            }
            sha2::Digest::update(&mut hasher, &piece[..n]);
            // Not UTF-8 only makes the record say binary.
            let _ = utf8.push(&piece[..n]);
            out.write_all(&piece[..n])?;
        }
        out.flush()
    });
    let counts: Vec<u64> = counts.iter().map(|c| c.get()).collect();
    if let Some(e) = unreadable {
        return Err(read_error(e));
    }
    if let Some(f) = failure {
        return Ok(Streamed::failed(counts, f.index, f.error));
    }
    if let Err(e) = written {
        return Ok(Streamed::failed(counts, last, e));
    }
    let bytes = counts[chain.len()];
    let sha = hex::encode(sha2::Digest::finalize(hasher));
    Ok(Streamed {
        file: crate::exec::output_file_record(output, bytes, &sha),
        utf8: utf8.end().is_ok(),
        counts,
        failure: None,
    })
}

/// The alphabet the Base64 tool would pick for the file (`true`: URL-safe).
fn detect_alphabet(input: &Path) -> Result<bool, Stop> {
    b64::decode_detecting(&Chunks::file(input), || (), |_, _| {}).map(|(url_safe, ())| url_safe)
}

/// The input file under one reader per step, each counting the bytes it hands on.
fn stack(
    chain: &[Transform],
    file: std::fs::File,
    counts: &[Rc<Cell<u64>>],
    url_safe: bool,
    deadline: Instant,
) -> Box<dyn Read> {
    let mut reader: Box<dyn Read> = Box::new(Counting {
        inner: file,
        count: counts[0].clone(),
        deadline: Some(deadline),
    });
    for (i, t) in chain.iter().enumerate() {
        let stage: Box<dyn Read> = match *t {
            // `transforms` keeps Base64 decode first, where its alphabet is known.
            Transform::Base64Decode => Box::new(Base64Read {
                inner: reader,
                index: i,
                decoder: Some(b64::Decoder::new(url_safe)),
                piece: vec![0; PIECE],
                out: Vec::new(),
                pos: 0,
            }),
            Transform::Inflate(format) => {
                let inner: Box<dyn Read> = match format {
                    "zlib" => Box::new(ZlibDecoder::new(reader)),
                    "deflate" => Box::new(DeflateDecoder::new(reader)),
                    _ => Box::new(MultiGzDecoder::new(reader)),
                };
                Box::new(Inflate {
                    inner,
                    index: i,
                    format,
                })
            }
        };
        reader = Box::new(Counting {
            inner: stage,
            count: counts[i + 1].clone(),
            deadline: None,
        });
    }
    reader
}

/// The same words as the gzip tool's bomb refusal, with the streaming limit and its variable.
fn too_large(cap: u64, packed: u64) -> ToolError {
    ToolError::invalid(format!(
        "decompressed data exceeds the {} streaming limit (from {packed} compressed bytes); this may be a decompression bomb; if the output is expected, raise {}",
        crate::limits::human(cap),
        crate::limits::MAX_STREAM_OUTPUT_ENV,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_reader_decodes_in_small_reads_and_names_its_step() {
        let r = Base64Read {
            inner: &b"aGVs\nbG8g d29y bGQ="[..],
            index: 2,
            decoder: Some(b64::Decoder::new(false)),
            piece: vec![0; 3],
            out: Vec::new(),
            pos: 0,
        };
        let mut out = Vec::new();
        let mut r = r;
        let mut buf = [0u8; 2];
        loop {
            let n = r.read(&mut buf).expect("valid Base64");
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, b"hello world");
        let mut bad = Base64Read {
            inner: &b"aGVs*"[..],
            index: 2,
            decoder: Some(b64::Decoder::new(false)),
            piece: vec![0; 64],
            out: Vec::new(),
            pos: 0,
        };
        let e = bad.read_to_end(&mut Vec::new()).expect_err("invalid");
        let f = e.get_ref().and_then(|i| i.downcast_ref::<StepFailure>());
        let f = f.expect("a step failure");
        assert_eq!(f.index, 2);
        assert!(
            f.error.message.contains("'*'") || f.error.message.contains("offset 4"),
            "{}",
            f.error.message
        );
    }
}
