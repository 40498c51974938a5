//! The executor: the one code path that turns a tool and its arguments into a ToolResult.
//!
//! Every front end (`cmpx run`, `cmpx do`, recipes, the MCP and HTTP servers, BTCP) asks
//! [`authorize`] first and runs what it permits through [`worker::run`] (a catalogue tool) or
//! [`invoke::invoke`] (an installed intent), which take the [`authorize::Permit`]; so
//! authorization, normalisation, validation, panic containment and metadata are the same
//! everywhere.

pub mod authorize;
mod builtin;
pub mod confirm;
pub mod external;
pub mod invoke;
pub mod stream;
pub mod template;
pub mod worker;

use builtin::run_definition_to;
pub use builtin::{
    finish_outcome, output_file_record, run_builtin, run_definition, run_definition_owned,
    write_new_file,
};
// The result envelope and the sizes in its metadata are the tool library's, so a result is
// the same from every host.
pub use cmpx_tools::run::{envelope, envelope_sized, input_bytes, json_len, millis, not_found};
