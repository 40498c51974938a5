//! `cmpx run <tool> …`: one catalogue tool, one ToolResult.

use crate::catalogue;
use crate::ctp::ToolDefinition;
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};

pub fn run(mode: Mode, tool: &str, tokens: &[String]) -> Result<ExitCode, Error> {
    if tool == "--help" || tool == "-h" {
        // `--help` after the tool id describes the tool; before it, the subcommand.
        let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
        if let Some(run) = cmd.find_subcommand_mut("run") {
            let _ = run.print_long_help();
        }
        return Ok(ExitCode::Success);
    }
    let def = catalogue::get(tool).ok_or_else(|| crate::exec::not_found(tool))?;
    let inv = crate::argv::parse(&def, tokens)?;
    if inv.help {
        print_help(&def);
        return Ok(ExitCode::Success);
    }
    let result = crate::exec::run_definition(&def, &inv.args);
    output::print_result(mode, &result);
    Ok(result
        .error_code()
        .map_or(ExitCode::Success, ExitCode::for_error_code))
}

fn print_help(def: &ToolDefinition) {
    crate::outln!("{} — {}\n", def.id, def.name);
    crate::outln!("{}\n", def.description);
    crate::outln!("Usage: {}\n", crate::cmp::mapping::command(def));
    crate::outln!("Parameters:");
    for p in &def.parameters {
        let mut line = format!("  --{} <{}>", p.name, p.kind.as_str());
        if p.required {
            line.push_str(" (required)");
        }
        crate::outln!("{line}\n      {}", p.description);
        if !p.options.is_empty() {
            crate::outln!(
                "      one of: {}",
                p.option_values().collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(d) = &p.default_value {
            crate::outln!("      default: {d}");
        }
    }
    crate::outln!(
        "\nValues: @path reads a file, - reads stdin, @@x is the literal @x; --args '<json>' gives all at once."
    );
}
