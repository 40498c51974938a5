//! Running one intent of an installed tool (ours or anyone's): parameters into the template,
//! then, with the permit [`super::authorize`] gave, a worker for `cmpx run …` or the program.

use super::authorize::Permit;
use super::external::Limits;
use super::template;
use crate::cmp::{Intent, Manifest};
use crate::ctp::{ToolError, ToolResult};
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
    pub limits: Limits,
    /// `--output-file`: where a built-in tool's full output goes.
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
    let mut argv = template::render(target.intent.template(), &values)?;
    if is_builtin(&argv) {
        // Optional parameters of built-in tools are not in the template; pass the given ones on.
        let in_template = crate::cmp::capability::placeholders(target.intent.template());
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

/// What would run, with nothing run and nothing asked (`--dry-run`).
pub fn dry_run(target: &Target, given: &Map<String, Value>) -> ToolResult {
    let started = Instant::now();
    let version = target.manifest.version.clone();
    let argv = match plan(target, given) {
        Ok((argv, _)) => argv,
        Err(e) => return super::envelope(Err(e), started, given, &version),
    };
    let intent = &target.intent;
    let effects = intent.effects();
    let data = json!({
        "dryRun": true,
        "tool": target.manifest.name,
        "intent": { "index": target.intent_index, "pattern": intent.patterns.first() },
        "argv": argv,
        "command": shell_line(&argv),
        "confirm": effects.consent,
        "destructive": effects.destructive,
    });
    super::envelope(Ok(data), started, given, &version)
}

/// Runs the intent `permit` allows: a `cmpx run …` command in a worker, any other program
/// under `flags.limits`.
pub fn invoke(
    permit: Permit,
    target: &Target,
    given: &Map<String, Value>,
    flags: &Flags,
) -> ToolResult {
    invoke_cancellable(permit, target, given, flags, &|| false)
        .unwrap_or_else(|| ToolResult::from(ToolError::execution("the call was cancelled")))
}

/// [`invoke`] that stops the run (the worker and every process it started) as soon as
/// `cancelled()` turns true, and then returns `None`; a server polls it about every 20 ms.
pub fn invoke_cancellable(
    permit: Permit,
    target: &Target,
    given: &Map<String, Value>,
    flags: &Flags,
    cancelled: &dyn Fn() -> bool,
) -> Option<ToolResult> {
    debug_assert_eq!(
        permit.tool(),
        target.manifest.name,
        "a permit runs the tool it was given for"
    );
    let started = Instant::now();
    let version = target.manifest.version.clone();
    let (argv, _) = match plan(target, given) {
        Ok(p) => p,
        Err(e) => return Some(super::envelope(Err(e), started, given, &version)),
    };
    let intent = &target.intent;
    if is_builtin(&argv) {
        let Some(def) = crate::catalogue::get(&argv[2]) else {
            return Some(ToolResult::err(super::not_found(&argv[2]), None));
        };
        return match crate::argv::parse(&def, &argv[3..]) {
            Ok(inv) => {
                let bounds = super::worker::Bounds::new(Some(flags.limits.timeout));
                // The intent was authorized with everything it touches (its parameters read
                // as paths), and it runs exactly this catalogue tool: the permit carries over.
                super::worker::run_cancellable(
                    Permit::internal(&def.id),
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
        intent.stdout_as_text(),
        cancelled,
    )?;
    Some(super::envelope(outcome, started, given, &version))
}
