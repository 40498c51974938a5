//! `cmpx run <tool> …`: one catalogue tool, one ToolResult.

use crate::argv::DeferredSource;
use crate::catalogue;
use crate::ctp::ToolDefinition;
use crate::error::{Error, ExitCode};
use crate::exec::stream::{Input, Streamed};
use crate::output::{self, Mode};

pub(super) fn run(mode: Mode, tool: &str, tokens: &[String]) -> Result<ExitCode, Error> {
    if tool == "--help" || tool == "-h" {
        // `--help` after the tool id describes the tool; before it, the subcommand.
        let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
        if let Some(run) = cmd.find_subcommand_mut("run") {
            let _ = run.print_long_help();
        }
        return Ok(ExitCode::Success);
    }
    let wants_intent = tokens
        .iter()
        .any(|t| t == "--intent" || t.starts_with("--intent="));
    let def = match catalogue::get(tool) {
        Some(def) if !wants_intent => def,
        _ => return run_installed(mode, tool, tokens),
    };
    if crate::argv::asks_for_help(&crate::argv::slots_for_definition(&def), tokens) {
        print_help(&def);
        return Ok(ExitCode::Success);
    }
    // The policy decides before any `@path` is read or anything runs.
    let output_file = tokens.iter().enumerate().find_map(|(i, t)| {
        t.strip_prefix("--output-file=")
            .map(str::to_string)
            .or_else(|| {
                (t == "--output-file")
                    .then(|| tokens.get(i + 1).cloned())
                    .flatten()
            })
    });
    let reads = crate::exec::authorize::at_paths(tokens);
    let call = crate::exec::authorize::Call::Builtin {
        id: &def.id,
        reads: &reads,
        output: output_file.as_deref().map(std::path::Path::new),
    };
    let yes = tokens.iter().any(|t| t == "--yes");
    let permit =
        crate::exec::authorize::authorize(&call, crate::exec::authorize::Ask::Terminal { yes })?;
    let mut inv = match crate::tools::streaming::streaming(&def.id) {
        Some((param, _)) => crate::argv::parse_deferring(&def, tokens, param)?,
        None => crate::argv::parse(&def, tokens)?,
    };
    let warnings = std::mem::take(&mut inv.warnings);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    // A file for a tool that streams is read in pieces; stdin is read whole, as bytes too.
    if let Some(deferred) = inv.deferred.take() {
        let mut args = std::mem::take(&mut inv.args);
        args.remove(&deferred.param);
        let output_file = inv.output_file.as_deref().map(std::path::Path::new);
        let stdin = deferred.stdin_bytes().transpose()?;
        let input = match (&deferred.source, &stdin) {
            (DeferredSource::File(path), _) => Input::File(std::path::Path::new(path)),
            (DeferredSource::Stdin, bytes) => Input::Stdin(bytes.as_deref().unwrap_or_default()),
        };
        match crate::exec::stream::run(&permit, &def, args, input, mode, output_file)? {
            Streamed::Printed(result) => {
                return Ok(result
                    .error_code()
                    .map_or(ExitCode::Success, ExitCode::for_error_code));
            }
            Streamed::Declined(back) => args = back,
        }
        let text = match stdin {
            Some(bytes) => Some(crate::argv::utf8(bytes, &deferred.param)?),
            None => None,
        };
        inv.args = args;
        match text {
            Some(text) => {
                inv.args
                    .insert(deferred.param, serde_json::Value::String(text));
            }
            None => {
                inv.deferred = Some(deferred);
                inv.read_deferred()?;
            }
        }
    }
    let output_file = inv.output_file.as_deref().map(std::path::Path::new);
    let bounds = crate::exec::worker::Bounds::new(inv.timeout);
    let mut result = crate::exec::worker::run(permit, &def, inv.args, output_file, bounds);
    if let Some(metadata) = result.metadata.as_mut() {
        metadata.warnings.extend(warnings);
    }
    output::print_result(mode, &result);
    Ok(result
        .error_code()
        .map_or(ExitCode::Success, ExitCode::for_error_code))
}

/// Any installed tool (an adapter, a third-party folder, or ours with `--intent`).
fn run_installed(mode: Mode, tool: &str, tokens: &[String]) -> Result<ExitCode, Error> {
    let scan = crate::cmp::registry::scan(&crate::paths::all_roots());
    let Some(installed) = scan.find(tool) else {
        let err = crate::exec::not_found(tool);
        return Err(
            match crate::suggest::did_you_mean(tool, scan.tools.iter().map(|t| t.name())) {
                Some(s) if err.data.is_none() => crate::ctp::ToolError::new(
                    err.code,
                    format!(
                        "unknown tool '{}'; did you mean '{s}'?",
                        crate::text::preview(tool, 60)
                    ),
                )
                .with_data(serde_json::json!({ "didYouMean": s }))
                .into(),
                _ => err.into(),
            },
        );
    };
    if let Some(done) = super::pipe::run_saved(mode, tool, tokens) {
        return done;
    }
    let (_, cap) = super::target::read(&installed.dir)?;
    // The intent flag is read before the parameters, whose names depend on the intent.
    let wanted = tokens.iter().enumerate().find_map(|(i, t)| {
        t.strip_prefix("--intent=").map(str::to_string).or_else(|| {
            (t == "--intent")
                .then(|| tokens.get(i + 1).cloned())
                .flatten()
        })
    });
    let index = match wanted {
        Some(w) => super::target::choose_intent(&cap, &w).ok_or_else(|| {
            Error::Usage(format!(
                "{tool} has no intent matching '{}'; intents: {}",
                crate::text::preview(&w, 40),
                list_intents(&cap)
            ))
        })?,
        None if cap.intents.len() == 1 => 0,
        None if crate::argv::asks_for_help(&[], tokens) => {
            crate::outln!(
                "{tool}: {}\nIntents (choose one with --intent <n|pattern>; add --help to describe it):",
                crate::text::escape_control(&installed.manifest.summary)
            );
            for (i, it) in cap.intents.iter().enumerate() {
                crate::outln!(
                    "  {i}: {}",
                    crate::text::escape_control(it.patterns.first().map_or("", String::as_str))
                );
            }
            crate::outln!("\n{}", crate::cli::RUN_FLAGS_HELP);
            return Ok(ExitCode::Success);
        }
        None => {
            return Err(Error::Usage(format!(
                "{tool} has several intents; choose one with --intent <n|pattern>: {}",
                list_intents(&cap)
            )));
        }
    };
    let target = super::target::load(&installed.dir, index)?;
    let slots = crate::argv::slots_for_intent(&target.intent);
    if crate::argv::asks_for_help(&slots, tokens) {
        super::target::print_intent_help(&target);
        return Ok(ExitCode::Success);
    }
    let inv = crate::argv::parse_slots(&slots, tokens)?;
    let result = super::target::invoke(&target, inv);
    output::print_result(mode, &result);
    Ok(result
        .error_code()
        .map_or(ExitCode::Success, ExitCode::for_error_code))
}

fn list_intents(cap: &crate::cmp::Capability) -> String {
    cap.intents
        .iter()
        .enumerate()
        .map(|(i, it)| format!("{i}: {}", it.patterns.first().map_or("", String::as_str)))
        .collect::<Vec<_>>()
        .join("; ")
}

fn print_help(def: &ToolDefinition) {
    crate::outln!("{} — {}\n", def.id, def.name);
    crate::outln!("{}\n", def.description);
    crate::outln!("Usage: {}\n", crate::cmp::mapping::command(def));
    crate::outln!("Parameters:");
    let slots = crate::argv::slots_for_definition(def);
    for (p, slot) in def.parameters.iter().zip(&slots) {
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
        // Each parameter says what it reads: only content parameters take a file or stdin.
        let reads = match slot.source {
            crate::argv::Source::Literal => None,
            crate::argv::Source::Files => Some("@path reads a file"),
            crate::argv::Source::FilesAndStdin => Some("@path reads a file, - reads stdin"),
            crate::argv::Source::Binary => Some("@path reads a file's bytes, - reads stdin"),
        };
        if let Some(reads) = reads {
            crate::outln!("      {reads}");
        }
    }
    let any_file = slots
        .iter()
        .any(|s| s.source != crate::argv::Source::Literal);
    crate::outln!(
        "\n{}{}",
        if any_file {
            "Values: '' gives a parameter its default; @@x is the literal @x.\n\n"
        } else {
            "Values: '' gives a parameter its default.\n\n"
        },
        crate::cli::RUN_FLAGS_HELP
    );
}
