//! Plans: a tool's run over its main input in pieces, written once over [`Chunks`]. The
//! in-memory call (`cmpx run … --input text`, MCP) and the streaming call over a `@path` file
//! (see `exec::stream`) run the same plan, so they cannot disagree. Which tools have one is
//! said by their descriptors (`kit::tool`).

use crate::ctp::{ErrorCode, ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::chunks::{Chunks, Stop};
use crate::tools::kit::data::with_output;
use serde_json::{Map, Value};
use std::io::Write;

/// Writes the output during the second pass over the input.
pub type Emit<'a> = Box<dyn FnOnce(&mut dyn Write) -> Result<(), Stop> + 'a>;

/// What a first pass over the input found: everything in the result but the output, and the
/// output itself or the way to write it.
pub struct Plan<'a> {
    /// The result's `data` members after `output`, in order.
    pub fields: Map<String, Value>,
    pub output: Output<'a>,
}

pub enum Output<'a> {
    /// A small output, already computed (a digest).
    Ready(String),
    /// A large one, `len` bytes of UTF-8 text written by `emit` in a second pass.
    Stream { len: u64, emit: Emit<'a> },
    /// Text that also writes itself already escaped as the contents of a JSON string
    /// (`emit(out, true)`): `len` bytes as it is, `escaped_len` escaped. JSON output, whose
    /// every quote and line break would otherwise go through the general escaper.
    Escaping {
        len: u64,
        escaped_len: u64,
        emit: EmitEscaping<'a>,
    },
}

/// Writes the output during the second pass, escaped for a JSON string when asked.
pub type EmitEscaping<'a> = Box<dyn FnOnce(&mut dyn Write, bool) -> Result<(), Stop> + 'a>;

impl<'a> Output<'a> {
    /// The output's length inside the result (escaped), which the output limit applies to.
    pub fn limit_len(&self) -> u64 {
        match self {
            Output::Ready(text) => text.len() as u64,
            Output::Stream { len, .. } => *len,
            Output::Escaping { escaped_len, .. } => *escaped_len,
        }
    }

    /// The output's length and a writer of its plain text (for a file or memory); a ready
    /// output comes back as it is.
    pub fn into_plain(self) -> Result<(u64, Emit<'a>), Output<'a>> {
        match self {
            Output::Ready(text) => Err(Output::Ready(text)),
            Output::Stream { len, emit } => Ok((len, emit)),
            Output::Escaping { len, emit, .. } => Ok((len, Box::new(move |out| emit(out, false)))),
        }
    }
}

/// Plans a run of a tool over `input`; `Ok(None)` when these arguments need the whole input
/// in memory (e.g. a hash of hex-encoded bytes).
pub type PlanFn = for<'a> fn(&Args, Chunks<'a>) -> Result<Option<Plan<'a>>, Stop>;

/// Runs a plan to completion in memory: the ordinary tool call.
pub fn run_in_memory(plan: Plan) -> ToolOutcome {
    let output = match plan.output.into_plain() {
        Err(Output::Ready(text)) => text,
        Err(_) => String::new(),
        Ok((len, emit)) => {
            let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            emit(&mut bytes).map_err(stop_error)?;
            String::from_utf8(bytes).map_err(|_| {
                ToolError::new(ErrorCode::InternalError, "the output is not UTF-8 text")
            })?
        }
    };
    Ok(with_output(output, Value::Object(plan.fields)))
}

/// The error for a pass that stopped, when the input was in memory all along.
pub fn stop_error(stop: Stop) -> ToolError {
    match stop {
        Stop::Tool(e) => e,
        Stop::Io(e) => ToolError::new(
            ErrorCode::ExecutionError,
            format!("the output could not be written: {e}"),
        ),
    }
}
