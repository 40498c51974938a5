//! `cmpx do <request> [--<param> <value>]...`: resolve, then run the best intent only when the
//! match is confident and unambiguous; otherwise show the candidates and run nothing.

use super::target;
use crate::error::{Error, ExitCode};
use crate::exec::invoke::{self, Flags};
use crate::output::{self, Mode};
use crate::resolve::{self, Options};
use serde_json::json;

pub fn run(mode: Mode, words: &[String]) -> Result<ExitCode, Error> {
    if words.first().is_some_and(|w| w == "--help" || w == "-h") {
        super::print_subcommand_help("do");
        return Ok(ExitCode::Success);
    }
    let split = words
        .iter()
        .position(|w| w.starts_with("--"))
        .unwrap_or(words.len());
    let (request, rest) = words.split_at(split);
    let request = request.join(" ");
    if request.trim().is_empty() {
        return Err(Error::Usage(
            "say what you want first, e.g. cmpx do pretty print json --input @f.json".into(),
        ));
    }
    let index = resolve::index::load(&crate::paths::all_roots());
    let resolution = resolve::resolve(&index, &request, &Options::default());
    let Some(best) = resolution.chosen() else {
        let (code, exit, message) = if resolution.candidates.is_empty() {
            (
                crate::ctp::ErrorCode::NotFound,
                ExitCode::NotFound,
                format!("no installed tool matches {request:?}"),
            )
        } else {
            let why = if resolution.ambiguous {
                "ambiguous"
            } else {
                "not confident"
            };
            let names: Vec<&str> = resolution
                .candidates
                .iter()
                .map(|c| c.tool.as_str())
                .collect();
            (
                crate::ctp::ErrorCode::InvalidInput,
                ExitCode::Ambiguous,
                format!(
                    "{why}: nothing was run; candidates: {}. Use `cmpx run <tool>` to choose",
                    names.join(", ")
                ),
            )
        };
        let err = crate::ctp::ToolError::new(code, message).with_data(json!({
            "ambiguous": resolution.ambiguous,
            "candidates": resolution.candidates,
        }));
        output::print_result(mode, &crate::ctp::ToolResult::from(err));
        return Ok(exit);
    };
    let target = target::for_candidate(best)?;
    let mut inv = crate::argv::parse_slots(&crate::argv::slots_for_intent(&target.intent), rest)?;
    fill_from_request(&target.intent, &request, &mut inv.args);
    let flags = Flags {
        yes: inv.yes,
        dry_run: inv.dry_run,
        interactive: true,
        limits: target::limits(inv.timeout),
    };
    let result = invoke::invoke(&target, &inv.args, &flags);
    output::print_result(mode, &result);
    Ok(result
        .error_code()
        .map_or(ExitCode::Success, ExitCode::for_error_code))
}

/// Data pasted into the request ("what date is 1700000000", "sha256 of 'abc'") fills the intent's
/// one missing required parameter, when there is exactly one of each; anything less clear-cut is
/// left to the caller, who gets the usual "missing parameter" error.
fn fill_from_request(
    intent: &crate::cmp::Intent,
    request: &str,
    args: &mut serde_json::Map<String, serde_json::Value>,
) {
    let missing: Vec<&String> = intent
        .params
        .iter()
        .filter(|(name, spec)| spec.required && !args.contains_key(*name))
        .map(|(name, _)| name)
        .collect();
    let data = crate::resolve::samples::scrub(request).data;
    if let ([name], [value]) = (missing.as_slice(), data.as_slice()) {
        args.insert((*name).clone(), serde_json::Value::String(value.clone()));
    }
}
