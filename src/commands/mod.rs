//! Dispatch: parse the command line, run one subcommand, map its outcome to an exit code.

mod agent_setup;
mod discover;
mod do_;
mod doc;
mod export;
mod install;
mod list;
mod pipe;
mod policy;
mod resolve;
mod run;
mod serve;
mod show;
mod target;
mod validate;

use crate::cli::{Cli, Command};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use clap::Parser;

/// What a subcommand hands back: the document to print and the exit code it implies.
pub struct Outcome {
    pub value: serde_json::Value,
    pub exit: ExitCode,
}

pub fn main() -> i32 {
    crate::exec::worker::enable();
    install_panic_hook();
    if let Some(code) = refuse_non_utf8_arguments() {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    let run_flags = match &cli.command {
        Command::Run { params: words, .. } | Command::Do { words } => (
            words.iter().any(|p| p == "--json"),
            words.iter().any(|p| p == "--pretty"),
        ),
        _ => (false, false),
    };
    let mode = Mode::detect(cli.json || run_flags.0, cli.pretty || run_flags.1);
    let result = match cli.command {
        Command::Run { tool, params } => run::run(mode, &tool, &params),
        Command::Do { words } => do_::run(mode, &words),
        Command::Mcp {
            progressive,
            allow_destructive,
            page_size,
            btcp_server,
            btcp_session,
            btcp_token,
        } => {
            let opts = crate::mcp::Options {
                progressive,
                allow_destructive,
                page_size,
                max_calls: crate::mcp::MAX_CALLS,
            };
            let (Some(server), Some(session)) = (btcp_server, btcp_session) else {
                return crate::mcp::serve(opts);
            };
            return match crate::btcp::remote::Remote::new(&server, &session, btcp_token) {
                Ok(remote) => {
                    crate::mcp::serve_linked(opts, Some(crate::btcp::Link::remote(remote)))
                }
                Err(why) => {
                    eprintln!("error: {why}");
                    crate::ExitCode::Usage.code()
                }
            };
        }
        Command::Serve {
            port,
            bind,
            token,
            base_url,
            allow_origins,
            rate_limit,
            max_concurrent,
            timeout,
            allow_adapters,
        } => {
            return serve::run(serve::Flags {
                port,
                bind,
                token,
                base_url,
                allow_origins,
                rate_limit,
                max_concurrent,
                timeout,
                allow_adapters,
            });
        }
        Command::Pipe { list: true, .. } => {
            crate::output::print_value(mode, &crate::pipe::list::list());
            Ok(ExitCode::Success)
        }
        Command::Pipe {
            recipe_text,
            recipe,
            input,
            output_file,
            allow_adapters,
            yes,
            save,
            timeout,
            list: false,
        } => pipe::run(
            mode,
            pipe::Flags {
                recipe_text,
                recipe,
                input,
                output_file,
                allow_adapters,
                yes,
                save,
                timeout,
            },
        ),
        Command::Install { dir, force } => install::run(mode, &dir, force),
        Command::Export { to, force, dry_run } => export::run(mode, to, force, dry_run),
        Command::List { domain } => list::run(mode, domain.as_deref()),
        Command::Show { tool } => show::run(mode, &tool),
        Command::Resolve {
            text,
            top,
            domain,
            full,
        } => resolve::run(mode, &text.join(" "), top, domain, full),
        Command::Validate {
            paths,
            lock,
            against,
        } => match (lock, against) {
            (true, _) => validate::lock(&paths),
            (false, Some(old)) => validate::against(mode, &paths, &old),
            (false, None) => validate::run(mode, &paths),
        },
        Command::Discover {
            format,
            out,
            base_url,
            force,
        } => discover::run(mode, format.as_deref(), out.as_deref(), &base_url, force),
        Command::Doc { tool, all, out } => doc::run(mode, tool.as_deref(), all, out.as_deref()),
        Command::Policy { change } => match change {
            None => policy::show(mode),
            Some(c) => {
                let (what, rule) = match c {
                    crate::cli::PolicyChange::Grant(r) => (policy::Change::Grant, r),
                    crate::cli::PolicyChange::Deny(r) => (policy::Change::Deny, r),
                    crate::cli::PolicyChange::Revoke(r) => (policy::Change::Revoke, r),
                };
                policy::change(
                    mode,
                    what,
                    &rule.capability,
                    rule.tool.as_deref(),
                    rule.path.as_deref(),
                )
            }
        },
        Command::AgentSetup { write } => agent_setup::run(mode, write.as_deref()),
        Command::Worker => return crate::exec::worker::serve(),
    };
    match result {
        Ok(code) => code.code(),
        Err(e) => report_error(mode, e),
    }
}

/// Prints the long help of one subcommand (for subcommands that take raw words).
pub fn print_subcommand_help(name: &str) {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    if let Some(sub) = cmd.find_subcommand_mut(name) {
        let _ = sub.print_long_help();
    }
}

/// Prints an error as a CTP result (JSON mode) or a message (human mode); returns its exit code.
pub fn report_error(mode: Mode, e: Error) -> i32 {
    let exit = e.exit_code();
    let result = crate::ctp::ToolResult::from(e.into_tool_error());
    output::print_result(mode, &result);
    exit.code()
}

fn clap_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::Usage.code()
        } else {
            0
        };
    }
    let _ = e.print();
    let mode = Mode::detect(std::env::args_os().any(|a| a == "--json"), false);
    if mode.is_json() {
        let message = e
            .kind()
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| "invalid command line".to_string());
        let detail = e.to_string();
        let first_line = detail
            .lines()
            .next()
            .unwrap_or(&message)
            .trim_start_matches("error: ")
            .to_string();
        let result = crate::ctp::ToolResult::from(crate::ctp::ToolError::invalid(first_line));
        output::print_result(mode, &result);
    }
    ExitCode::Usage.code()
}

/// cmpx's arguments are text: one that is not UTF-8 is a usage error naming its position
/// (binary data goes in a file, passed as `@path`), reported before anything else runs.
fn refuse_non_utf8_arguments() -> Option<i32> {
    let position = std::env::args_os()
        .skip(1)
        .position(|a| a.to_str().is_none())?;
    let mode = Mode::detect(std::env::args_os().any(|a| a == "--json"), false);
    let err = Error::Usage(format!(
        "argument {} is not valid UTF-8; cmpx takes text arguments (pass binary data in a file as @path)",
        position + 1
    ));
    Some(report_error(mode, err))
}

/// Tool panics are caught and reported as INTERNAL_ERROR results; keep the default hook's
/// backtrace noise off stderr, leaving one line for whoever investigates.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("cmpx: internal error{location} (please report it)");
    }));
}
