//! cmpx: a catalogue of developer utilities in CTP form, exported as CMP folders, with the
//! executor those folders point at.

pub mod adapters;
#[cfg(test)]
mod architecture;
pub mod argv;
pub mod btcp;
pub mod capability;
#[cfg(test)]
mod checklist;
pub mod cli;
pub mod cmp;
pub mod commands;
pub mod discovery;
pub mod error;
pub mod exec;
pub mod jsonrpc;
pub mod log_sink;
pub mod mcp;
pub mod new_file;
pub mod output;
pub mod paths;
pub mod pipe;
pub mod policy;
pub mod resolve;
pub mod secret;
pub mod serve;
pub mod versioning;
pub mod web;

pub use error::{Error, ExitCode};
// The tool library's modules keep the paths the rest of the crate has always used.
pub use cmpx_tools::{catalogue, contract, ctp, jsonstr, limits, suggest, text, tools};
