//! `cmpx do <request> [--<param> <value>]...`: resolve, then run the best intent only when the
//! match is confident and unambiguous; otherwise show the candidates and run nothing.

use super::target;
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use crate::resolve::{self, Options};
use serde_json::json;

pub(super) fn run(mode: Mode, words: &[String]) -> Result<ExitCode, Error> {
    if words.first().is_some_and(|w| w == "--help" || w == "-h") {
        super::print_subcommand_help("do");
        return Ok(ExitCode::Success);
    }
    let (request, rest) = split_request(words);
    if request.trim().is_empty() {
        return Err(Error::Usage(
            "say what you want first, e.g. cmpx do pretty print json --input @f.json".into(),
        ));
    }
    let (index, resolution) = resolve::index::load_then(&crate::paths::all_roots(), |index| {
        resolve::resolve(index, &request, &Options::default())
    });
    // Never freed, as in `cmpx resolve`: the process ends soon, and the exit frees it at once.
    std::mem::forget(index);
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
    let slots = crate::argv::slots_for_intent(&target.intent);
    if crate::argv::asks_for_help(&slots, &rest) {
        target::print_intent_help(&target);
        return Ok(ExitCode::Success);
    }
    let mut inv = crate::argv::parse_slots(&slots, &rest)?;
    fill_from_request(&target.intent, &request, &mut inv.args);
    let result = target::invoke(&target, inv);
    output::print_result(mode, &result);
    Ok(result
        .error_code()
        .map_or(ExitCode::Success, ExitCode::for_error_code))
}

/// Splits `do` words into the request text and the flags and parameters. Request words come
/// first, but the run flags (`--yes`, `--dry-run`, `--timeout N`) may also lead, as people type
/// `cmpx do --yes …` as often as they put them last.
fn split_request(words: &[String]) -> (String, Vec<String>) {
    let mut rest = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.as_str() {
            // `--yes false`: the word goes with the flag, and the parser refuses the pair.
            "--yes"
                if words
                    .get(i + 1)
                    .is_some_and(|n| crate::argv::is_truth_word(n)) =>
            {
                rest.extend(words[i..i + 2].iter().cloned());
                i += 2;
            }
            "--yes" | "--dry-run" => {
                rest.push(w.clone());
                i += 1;
            }
            "--timeout" => {
                rest.extend(words[i..].iter().take(2).cloned());
                i += 2;
            }
            _ if w.starts_with("--timeout=") => {
                rest.push(w.clone());
                i += 1;
            }
            _ => break,
        }
    }
    let words = &words[i.min(words.len())..];
    let split = words
        .iter()
        .position(|w| w.starts_with("--"))
        .unwrap_or(words.len());
    rest.extend(words[split..].iter().cloned());
    (words[..split].join(" "), rest)
}

/// Data pasted into the request ("what date is 1700000000", "sha256 of 'abc'") fills the intent's
/// one missing required parameter, when there is exactly one of each; anything less clear-cut is
/// left to the caller, who gets the usual "missing parameter" error. An option the request
/// names fills its choice parameter.
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
    let scrubbed = crate::resolve::samples::scrub(request);
    if let ([name], [value]) = (missing.as_slice(), scrubbed.data.as_slice()) {
        args.insert((*name).clone(), serde_json::Value::String(value.clone()));
    }
    let written = crate::resolve::values::written(&scrubbed.text);
    // The option the request names ("sha384 of …"), as `cmpx resolve` writes it in.
    for (name, option) in crate::resolve::values::fill(&intent.params, &written) {
        args.entry(name)
            .or_insert(serde_json::Value::String(option));
    }
}

#[cfg(test)]
mod tests {
    use super::split_request;

    fn split(words: &[&str]) -> (String, Vec<String>) {
        split_request(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn run_flags_may_lead_or_trail_the_request() {
        assert_eq!(
            split(&["--yes", "--timeout", "5", "reset", "git", "--input", "x"]),
            (
                "reset git".to_string(),
                vec!["--yes", "--timeout", "5", "--input", "x"]
                    .into_iter()
                    .map(String::from)
                    .collect()
            )
        );
        assert_eq!(
            split(&["base64", "encode", "--dry-run"]),
            ("base64 encode".to_string(), vec!["--dry-run".to_string()])
        );
        assert_eq!(
            split(&["--dry-run"]),
            (String::new(), vec!["--dry-run".to_string()])
        );
        assert_eq!(split(&["--timeout"]).0, "");
    }
}
