//! A tool's descriptor: its id, its function and, for a tool that streams, the plan that reads
//! its main input in pieces. Each family lists its tools as descriptors in its `TOOLS`, so
//! everything the code knows of a tool is in one entry (its flags are in its contract file).

use super::args::Args;
use super::plan::PlanFn;
use crate::ctp::ToolOutcome;

/// Runs a tool on parameters already normalised, validated and defaulted by the executor.
pub type ToolFn = fn(&Args) -> ToolOutcome;

/// One built-in tool.
#[derive(Clone, Copy)]
pub struct Tool {
    pub id: &'static str,
    pub run: ToolFn,
    /// How the tool runs over a `@path` file in pieces, if it can.
    pub stream: Option<Stream>,
}

/// A tool's streaming: the parameter read in pieces and the plan over it. The in-memory call
/// runs the same plan (see `kit::plan`), so the two cannot disagree.
#[derive(Clone, Copy)]
pub struct Stream {
    pub param: &'static str,
    pub plan: PlanFn,
}

impl Tool {
    pub const fn new(id: &'static str, run: ToolFn) -> Tool {
        Tool {
            id,
            run,
            stream: None,
        }
    }

    pub const fn streams(self, stream: Stream) -> Tool {
        Tool {
            stream: Some(stream),
            ..self
        }
    }
}
