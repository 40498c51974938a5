//! cmpx: a catalogue of developer utilities in CTP form, exported as CMP folders, with the
//! executor those folders point at.

// Modules the binary, the integration tests and the fuzz targets use are `pub`; the rest, and
// everything in them, is `pub(crate)` (`unreachable_pub` warns on a new one).
#![warn(unreachable_pub)]

pub mod adapters;
#[cfg(test)]
mod architecture;
mod argv;
mod btcp;
mod capability;
#[cfg(test)]
mod checklist;
mod cli;
pub mod cmp;
pub mod commands;
pub mod discovery;
mod error;
pub mod exec;
mod jsonrpc;
mod log_sink;
pub mod mcp;
mod new_file;
mod output;
mod paths;
mod pipe;
mod policy;
pub mod resolve;
mod secret;
mod serve;
mod versioning;
pub mod web;

pub use error::{Error, ExitCode};
// The tool library's modules keep the paths the rest of the crate has always used.
pub use cmpx_tools::{catalogue, contract, ctp, jsonstr, limits, suggest, text, tools};
