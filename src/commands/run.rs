//! `cmpx run <tool> …`: one catalogue tool, one ToolResult.

use crate::catalogue;
use crate::ctp::ToolDefinition;
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};

pub fn run(mode: Mode, tool: &str, tokens: &[String]) -> Result<ExitCode, Error> {
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
    println!("{} — {}\n", def.id, def.name);
    println!("{}\n", def.description);
    println!("Usage: {}\n", crate::cmp::mapping::command(def));
    println!("Parameters:");
    for p in &def.parameters {
        let mut line = format!("  --{} <{}>", p.name, p.kind.as_str());
        if p.required {
            line.push_str(" (required)");
        }
        println!("{line}\n      {}", p.description);
        if !p.options.is_empty() {
            println!(
                "      one of: {}",
                p.option_values().collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(d) = &p.default_value {
            println!("      default: {d}");
        }
    }
    println!(
        "\nValues: @path reads a file, - reads stdin, @@x is the literal @x; --args '<json>' gives all at once."
    );
}
