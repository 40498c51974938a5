//! Running a checked plan: each step through the one executor (a worker process per built-in
//! call, `invoke` for installed tools), its output handed on by `handoff`, its figures kept for
//! `data.steps`. A failing step ends the run with one ToolResult that names it.

use super::handoff::{self, Payload};
use super::plan::{Kind, Plan, Planned, step_error};
use crate::ctp::{ErrorCode, ToolError, ToolResult};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The recipe format's version, reported as `metadata.toolVersion` of a recipe's result.
pub(crate) const VERSION: &str = "1.0.0";

pub(crate) struct Run<'a> {
    /// The recipe's input; `None` runs the first step on its own parameters.
    pub input: Option<Payload>,
    /// Where the last step's `output` goes (`--output-file`).
    pub output_file: Option<&'a Path>,
    /// The whole recipe's time limit; each step gets what is left.
    pub timeout: Duration,
    /// Consent for installed tools' intents (built-in steps were decided in the plan).
    pub yes: bool,
    pub interactive: bool,
    pub cancelled: &'a dyn Fn() -> bool,
}

/// Runs `plan`; `None` when `cancelled()` turned true.
pub(crate) fn run(plan: &Plan, mut run: Run) -> Option<ToolResult> {
    let started = Instant::now();
    let input_size = run.input.as_ref().map_or(0, Payload::byte_len);
    let mut payload = run.input.take();
    let mut steps: Vec<Value> = Vec::new();
    let last = plan.steps.len() - 1;
    let mut data = Value::Null;
    for (i, step) in plan.steps.iter().enumerate() {
        let step_started = Instant::now();
        let mut args = step.params.clone();
        let in_bytes = payload.as_ref().map_or(0, Payload::byte_len);
        let delivered = match (payload.take(), &step.into, &step.kind) {
            (Some(p), Some(into), Kind::Builtin(def)) => handoff::deliver(p, def, into, &mut args),
            (Some(p), Some(into), Kind::Installed(_)) => {
                args.insert(into.clone(), payload_text(p));
                Ok(())
            }
            _ => Ok(()),
        };
        let output_file = (i == last).then_some(run.output_file).flatten();
        let remaining = run.timeout.saturating_sub(started.elapsed());
        let result = match delivered {
            Ok(()) => execute(step, args, output_file, remaining, &run)?,
            Err(e) => ToolResult::from(e),
        };
        let mut record = json!({
            "step": i + 1,
            "tool": step.tool,
            "ms": millis(step_started),
            "inputBytes": in_bytes,
        });
        if step.label.contains('.') {
            record["label"] = json!(step.label);
        }
        if !result.success {
            record["error"] = json!(result.error);
            steps.push(record);
            return Some(failure(step, result, steps, started, input_size));
        }
        data = result.data.unwrap_or(Value::Null);
        let warnings = result.metadata.map(|m| m.warnings).unwrap_or_default();
        let next_from = plan.steps.get(i + 1).map(|s| s.from.as_str());
        match handoff::take(&data, next_from.unwrap_or(super::recipe::DEFAULT_FROM)) {
            Ok(p) => {
                record["outputBytes"] = json!(p.byte_len());
                payload = Some(p);
            }
            Err(_) if next_from.is_none() => {
                record["outputBytes"] = json!(output_bytes(&data));
            }
            Err(e) => {
                record["warnings"] = json!(warnings);
                steps.push(record);
                let next = &plan.steps[i + 1];
                let e = step_error(&next.label, next.top, &next.tool, from_error(e, step));
                return Some(failure_of(e, steps, started, input_size));
            }
        }
        record["warnings"] = json!(warnings);
        steps.push(record);
    }
    if let Value::Object(map) = &mut data {
        map.insert("steps".into(), Value::Array(steps));
    }
    Some(crate::exec::envelope_sized(
        Ok(data),
        started,
        input_size,
        VERSION,
    ))
}

fn execute(
    step: &Planned,
    args: Map<String, Value>,
    output_file: Option<&Path>,
    remaining: Duration,
    run: &Run,
) -> Option<ToolResult> {
    if remaining.is_zero() {
        return Some(ToolResult::from(ToolError::new(
            ErrorCode::Timeout,
            "the recipe ran out of time before this step; allow more with --timeout <seconds>",
        )));
    }
    use crate::exec::authorize::{self, Ask, Call};
    match &step.kind {
        Kind::Builtin(def) => {
            // Decided again with what the step touches; the plan already asked the person.
            let call = Call::Builtin {
                id: &def.id,
                reads: &step.reads,
                output: step.output.as_deref(),
            };
            let permit = match authorize::authorize(&call, Ask::Given) {
                Ok(permit) => permit,
                Err(e) => return Some(ToolResult::from(e)),
            };
            let bounds = crate::exec::worker::Bounds {
                time: remaining,
                memory: crate::limits::max_memory(),
            };
            crate::exec::worker::run_cancellable(
                permit,
                def,
                args,
                output_file,
                bounds,
                run.cancelled,
            )
        }
        Kind::Installed(target) => {
            let call = Call::Intent {
                target,
                args: &args,
            };
            let permit =
                match authorize::authorize(&call, super::plan::ask(run.yes, run.interactive)) {
                    Ok(permit) => permit,
                    Err(e) => return Some(ToolResult::from(e)),
                };
            let flags = crate::exec::invoke::Flags {
                limits: crate::exec::external::Limits {
                    timeout: remaining,
                    ..Default::default()
                },
                output_file: output_file.map(Path::to_path_buf),
            };
            crate::exec::invoke::invoke_cancellable(permit, target, &args, &flags, run.cancelled)
        }
    }
}

/// An installed program takes text: bytes as Base64 (lossless), JSON as compact text.
fn payload_text(p: Payload) -> Value {
    match p {
        Payload::Text(t) => Value::String(t),
        Payload::Bytes(b) => Value::String(base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            b,
        )),
        Payload::Json(Value::String(s)) => Value::String(s),
        Payload::Json(v) => Value::String(v.to_string()),
    }
}

fn from_error(e: ToolError, previous: &Planned) -> ToolError {
    ToolError::new(
        e.code,
        format!(
            "\"from\" cannot be taken from step {} ({}): {}",
            previous.label, previous.tool, e.message
        ),
    )
}

/// The last step's output size: its `output` text, or the file it went to.
fn output_bytes(data: &Value) -> u64 {
    match (data.get("output"), data.pointer("/outputFile/bytes")) {
        (Some(Value::String(s)), _) => s.len() as u64,
        (_, Some(Value::Number(n))) => n.as_u64().unwrap_or(0),
        _ => serde_json::to_string(data).map_or(0, |s| s.len() as u64),
    }
}

fn failure(
    step: &Planned,
    result: ToolResult,
    steps: Vec<Value>,
    started: Instant,
    input_size: u64,
) -> ToolResult {
    let e = ToolError {
        code: result.error_code.unwrap_or(ErrorCode::InternalError),
        message: result.error.unwrap_or_default(),
        data: result.data,
    };
    failure_of(
        step_error(&step.label, step.top, &step.tool, e),
        steps,
        started,
        input_size,
    )
}

/// The failed run's result: the step's error, with `data.steps` holding every step that ran.
fn failure_of(e: ToolError, steps: Vec<Value>, started: Instant, input_size: u64) -> ToolResult {
    let mut e = e;
    if let Some(Value::Object(map)) = &mut e.data {
        map.insert("steps".into(), Value::Array(steps));
    }
    crate::exec::envelope_sized(Err(e), started, input_size, VERSION)
}

fn millis(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1e6).round() / 1e3
}
