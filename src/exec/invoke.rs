//! Running one intent of an installed tool (ours or anyone's): parameters into the template,
//! consent when the intent asks for it, then in-process for `cmpx run …` or as a program.

use super::confirm::{self, Consent};
use super::external::Limits;
use super::template;
use crate::cmp::{Intent, Manifest};
use crate::ctp::{ErrorCode, ToolError, ToolResult};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::time::Instant;

/// One chosen intent of an installed tool.
#[derive(Debug, Clone)]
pub struct Target {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub intent_index: usize,
    pub intent: Intent,
}

#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// Consent given on the command line (`--yes`) or by the MCP client.
    pub yes: bool,
    /// Print what would run; run nothing.
    pub dry_run: bool,
    /// May ask the person at the terminal (the command line); never when stdin carries a
    /// protocol, as with the MCP server.
    pub interactive: bool,
    pub limits: Limits,
    /// `--output-file`: where a built-in tool's full output goes (see `run_definition_to`).
    pub output_file: Option<std::path::PathBuf>,
}

fn shell_line(argv: &[String]) -> String {
    shell_words::join(argv)
}

/// Fills the template: the argv that would run, with the prepared values.
pub fn plan(
    target: &Target,
    given: &Map<String, Value>,
) -> Result<(Vec<String>, Map<String, Value>), ToolError> {
    let values = template::prepare(&target.intent.params, given)?;
    let mut argv = template::render(&target.intent.command, &values)?;
    if is_builtin(&argv) {
        // Optional parameters of built-in tools are not in the template; pass the given ones on.
        let in_template = crate::cmp::capability::placeholders(&target.intent.command);
        for (name, v) in given {
            if !in_template.contains(&name.as_str()) && !v.is_null() {
                argv.push(format!("--{name}"));
                argv.push(v.as_str().map_or_else(|| v.to_string(), str::to_string));
            }
        }
    }
    Ok((argv, values))
}

fn is_builtin(argv: &[String]) -> bool {
    argv.len() >= 3 && argv[0] == crate::cmp::mapping::BINARY && argv[1] == "run"
}

pub fn invoke(target: &Target, given: &Map<String, Value>, flags: &Flags) -> ToolResult {
    invoke_cancellable(target, given, flags, &|| false)
        .unwrap_or_else(|| ToolResult::from(ToolError::execution("the call was cancelled")))
}

/// [`invoke`] that stops the run (the worker and every process it started) as soon as
/// `cancelled()` turns true, and then returns `None`; a server polls it about every 20 ms.
pub fn invoke_cancellable(
    target: &Target,
    given: &Map<String, Value>,
    flags: &Flags,
    cancelled: &dyn Fn() -> bool,
) -> Option<ToolResult> {
    let started = Instant::now();
    let version = target.manifest.version.clone();
    let (argv, _) = match plan(target, given) {
        Ok(p) => p,
        Err(e) => return Some(super::envelope(Err(e), started, given, &version)),
    };
    let intent = &target.intent;
    let effects = intent.effects();
    if flags.dry_run {
        let data = json!({
            "dryRun": true,
            "tool": target.manifest.name,
            "intent": { "index": target.intent_index, "pattern": intent.patterns.first() },
            "argv": argv,
            "command": shell_line(&argv),
            "confirm": effects.consent,
            "destructive": effects.destructive,
        });
        return Some(super::envelope(Ok(data), started, given, &version));
    }
    let verdict = crate::policy::check(
        &target.manifest.name,
        &crate::policy::intent_needs(intent, given),
    );
    let asking = match &verdict {
        crate::policy::Verdict::Denied(why) => {
            let err = ToolError::new(
                ErrorCode::Unauthorized,
                format!(
                    "not allowed: {why}; nothing was run (--yes does not override a deny; see `cmpx policy`)"
                ),
            )
            .with_data(json!({
                "denied": true,
                "tool": target.manifest.name,
                "argv": argv,
                "command": shell_line(&argv),
            }));
            return Some(super::envelope(Err(err), started, given, &version));
        }
        crate::policy::Verdict::Ask(caps) => caps.clone(),
        crate::policy::Verdict::Granted => Vec::new(),
    };
    let needs_consent = !asking.is_empty() || crate::cmp::effects::asks_itself(intent);
    let caution = crate::cmp::effects::caution(intent);
    match confirm::obtain(
        needs_consent,
        caution.warning(),
        &shell_line(&argv),
        flags.yes,
        flags.interactive,
    ) {
        Consent::Given => {}
        refused => {
            let (what, hint) = match refused {
                Consent::Declined => ("declined", ""),
                _ => (
                    "required",
                    "; nothing was run. Re-run with --yes to proceed",
                ),
            };
            let kind = caution.phrase();
            let needs = if asking.is_empty() {
                String::new()
            } else {
                format!(
                    " and needs {}, which the policy neither grants nor denies (`cmpx policy grant` allows it without asking)",
                    asking.join(", ")
                )
            };
            let err = ToolError::new(
                ErrorCode::Unauthorized,
                format!("confirmation {what}: this action {kind}{needs}{hint}"),
            )
            .with_data(json!({
                "confirmationRequired": true,
                "declined": refused == Consent::Declined,
                "tool": target.manifest.name,
                "argv": argv,
                "command": shell_line(&argv),
                "destructive": effects.destructive,
                "capabilities": asking,
            }));
            return Some(super::envelope(Err(err), started, given, &version));
        }
    }
    if is_builtin(&argv) {
        let Some(def) = crate::catalogue::get(&argv[2]) else {
            return Some(ToolResult::err(super::not_found(&argv[2]), None));
        };
        return match crate::argv::parse(&def, &argv[3..]) {
            Ok(inv) => {
                let bounds = super::worker::Bounds::new(Some(flags.limits.timeout));
                super::worker::run_cancellable(
                    &def,
                    inv.args,
                    flags.output_file.as_deref(),
                    bounds,
                    cancelled,
                )
            }
            Err(e) => Some(super::envelope(
                Err(e.into_tool_error()),
                started,
                given,
                &version,
            )),
        };
    }
    let codes: &[i32] = if intent.success_codes.is_empty() {
        &[0]
    } else {
        &intent.success_codes
    };
    let outcome = super::worker::run_program(
        &argv,
        &target.manifest.aliases,
        codes,
        flags.limits,
        cancelled,
    )?;
    Some(super::envelope(outcome, started, given, &version))
}
