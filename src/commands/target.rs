//! Loading one intent of an installed tool, shared by `do` and `run --intent`.

use crate::cmp::validate::cmp_dir;
use crate::cmp::{Capability, Manifest};
use crate::ctp::{ErrorCode, ToolError};
use crate::error::Error;
use crate::exec::external::Limits;
use crate::exec::invoke::Target;
use std::path::Path;
use std::time::Duration;

/// The intent a resolution candidate names: from its folder, or from the embedded catalogue
/// when the tool is not exported.
pub(super) fn for_candidate(c: &crate::resolve::Candidate) -> Result<Target, Error> {
    if c.path.as_os_str().is_empty() {
        let def = crate::catalogue::get(&c.tool).ok_or_else(|| crate::exec::not_found(&c.tool))?;
        let cap = crate::cmp::mapping::capability(&def);
        let intent = cap
            .intents
            .into_iter()
            .nth(c.intent.index)
            .ok_or_else(|| crate::exec::not_found(&c.tool))?;
        return Ok(Target {
            dir: c.path.clone(),
            manifest: crate::cmp::mapping::manifest(&def),
            intent_index: c.intent.index,
            intent,
        });
    }
    load(&c.path, c.intent.index)
}

pub(super) fn load(tool_dir: &Path, intent_index: usize) -> Result<Target, Error> {
    let (manifest, cap) = read(tool_dir)?;
    let intent = cap.intents.get(intent_index).cloned().ok_or_else(|| {
        ToolError::new(
            ErrorCode::NotFound,
            format!("{} has no intent {intent_index}", manifest.name),
        )
    })?;
    Ok(Target {
        dir: tool_dir.to_path_buf(),
        manifest,
        intent_index,
        intent,
    })
}

pub(super) fn read(tool_dir: &Path) -> Result<(Manifest, Capability), Error> {
    let code = if cmp_dir(tool_dir).is_some() {
        ErrorCode::InvalidInput
    } else {
        ErrorCode::NotFound
    };
    crate::cmp::registry::read_folder(tool_dir).map_err(|e| ToolError::new(code, e).into())
}

/// Picks an intent by index ("2") or by pattern: an exact pattern first, else the intent whose
/// patterns best match the words.
pub(super) fn choose_intent(cap: &Capability, wanted: &str) -> Option<usize> {
    if let Ok(i) = wanted.trim().parse::<usize>() {
        return (i < cap.intents.len()).then_some(i);
    }
    let lower = wanted.trim().to_lowercase();
    if let Some(i) = cap
        .intents
        .iter()
        .position(|it| it.patterns.iter().any(|p| p.to_lowercase() == lower))
    {
        return Some(i);
    }
    let want = crate::resolve::text::terms(wanted);
    cap.intents
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let best = it
                .patterns
                .iter()
                .map(|p| {
                    let terms = crate::resolve::text::terms(p);
                    want.iter().filter(|w| terms.contains(w)).count()
                })
                .max()
                .unwrap_or(0);
            (i, best)
        })
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(i, n)| (*n, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// Runs an intent from the command line: `--dry-run` shows what would run; otherwise the one
/// authorization point decides, asking at the terminal unless `--yes` was given.
pub(super) fn invoke(target: &Target, inv: crate::argv::Invocation) -> crate::ctp::ToolResult {
    if inv.dry_run {
        return crate::exec::invoke::dry_run(target, &inv.args);
    }
    let call = crate::exec::authorize::Call::Intent {
        target,
        args: &inv.args,
    };
    let ask = crate::exec::authorize::Ask::Terminal { yes: inv.yes };
    let permit = match crate::exec::authorize::authorize(&call, ask) {
        Ok(permit) => permit,
        Err(e) => {
            return crate::exec::envelope(
                Err(e),
                std::time::Instant::now(),
                &inv.args,
                &target.manifest.version,
            );
        }
    };
    let flags = crate::exec::invoke::Flags {
        limits: limits(inv.timeout),
        output_file: inv.output_file.map(Into::into),
    };
    crate::exec::invoke::invoke(permit, target, &inv.args, &flags)
}

pub(super) fn limits(timeout: Option<Duration>) -> Limits {
    let mut limits = Limits::default();
    if let Some(t) = timeout {
        limits.timeout = t;
    }
    limits
}

/// Describes one intent of an installed tool: what it does, the command, its parameters.
pub(super) fn print_intent_help(target: &Target) {
    let intent = &target.intent;
    crate::outln!(
        "{} — intent {}: {}\n",
        target.manifest.name,
        target.intent_index,
        crate::text::escape_control(intent.patterns.first().map_or("", String::as_str))
    );
    crate::outln!(
        "{}\n",
        crate::text::escape_control(&target.manifest.summary)
    );
    let command = crate::cmp::capability::presented_command(
        &target.manifest.name,
        target.intent_index,
        intent,
    );
    crate::outln!("Command: {}", crate::text::escape_control(&command));
    if intent.template() != command {
        crate::outln!(
            "Runs (no shell; '' leaves a parameter at its default): {}",
            crate::text::escape_control(intent.template())
        );
    }
    let caution = crate::cmp::effects::caution(intent);
    if caution == crate::cmp::effects::Caution::Destructive {
        crate::outln!(
            "Destructive: it cannot be undone; it runs only with --yes or a \"y\" typed at the terminal."
        );
    } else if caution == crate::cmp::effects::Caution::Undeclared {
        crate::outln!(
            "Asks first: it declares no capabilities, so nothing says what its program does; it runs only with --yes or a \"y\" typed at the terminal."
        );
    } else if intent.needs_consent() {
        crate::outln!("Asks first: it runs only with --yes or a \"y\" typed at the terminal.");
    }
    if intent.params.is_empty() {
        crate::outln!("\nParameters: none");
    } else {
        crate::outln!("\nParameters:");
    }
    for (name, spec) in &intent.params {
        let mut line = format!(
            "  --{} <{}>",
            crate::text::escape_control(name),
            crate::text::escape_control(&spec.kind)
        );
        if spec.required {
            line.push_str(" (required)");
        }
        crate::outln!("{line}");
        if let Some(d) = &spec.description {
            crate::outln!("      {}", crate::text::escape_control(d));
        }
        if let Some(values) = &spec.enum_values {
            let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            crate::outln!(
                "      one of: {}",
                crate::text::escape_control(&shown.join(", "))
            );
        }
        if let Some(d) = &spec.default {
            crate::outln!(
                "      default: {}",
                crate::text::escape_control(&d.to_string())
            );
        }
    }
    crate::outln!("\n{}", crate::cli::RUN_FLAGS_HELP);
}
