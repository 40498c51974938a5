//! cmpx: a catalogue of developer utilities in CTP form, exported as CMP folders, with the
//! executor those folders point at.

pub mod adapters;
#[cfg(test)]
mod architecture;
pub mod argv;
pub mod btcp;
pub mod capability;
pub mod catalogue;
pub mod cli;
pub mod cmp;
pub mod commands;
pub mod contract;
pub mod ctp;
pub mod discovery;
pub mod error;
pub mod exec;
pub mod jsonrpc;
pub mod jsonstr;
pub mod limits;
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
pub mod suggest;
pub mod text;
pub mod tools;
pub mod versioning;
pub mod web;

pub use error::{Error, ExitCode};
