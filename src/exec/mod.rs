//! The executor: the one code path that turns a tool id and raw arguments into a ToolResult.
//!
//! `cmpx run`, `cmpx do`, the MCP server and the tests all call `run_builtin`, so normalisation,
//! validation, panic containment and metadata are the same everywhere.

mod builtin;

pub use builtin::{not_found, run_builtin, run_definition};
