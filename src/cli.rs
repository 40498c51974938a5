//! Command-line definitions (clap derive).

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "cmpx",
    version,
    about = "Developer utilities for coding agents, exported as CMP folders"
)]
pub struct Cli {
    /// Print JSON even when stdout is a terminal.
    #[arg(long, global = true)]
    pub json: bool,
    /// Indent JSON output.
    #[arg(long, global = true)]
    pub pretty: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a tool: cmpx run <tool> [--<param> <value>]... [--args '<json>']
    Run {
        tool: String,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        params: Vec<String>,
    },
}
