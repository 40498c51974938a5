//! The policy decision for a catalogue tool's run, as every front end applies it: a deny is an
//! `UNAUTHORIZED` error whatever consent was given; a capability that asks needs `--yes` or a
//! typed y (the command line) — front ends that cannot ask refuse.

use super::confirm::{self, Consent};
use crate::ctp::{ErrorCode, ToolError};
use crate::policy::{self, Verdict};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Whether `id` may run, reading `reads` (`@path` files) and writing `output`.
pub fn builtin(
    id: &str,
    reads: &[PathBuf],
    output: Option<&Path>,
    yes: bool,
    interactive: bool,
) -> Result<(), ToolError> {
    match policy::check(id, &policy::builtin_needs(id, reads, output)) {
        Verdict::Granted => Ok(()),
        Verdict::Denied(why) => Err(ToolError::new(
            ErrorCode::Unauthorized,
            format!("not allowed: {why}; nothing was run (--yes does not override a deny; see `cmpx policy`)"),
        )
        .with_data(json!({ "denied": true, "tool": id }))),
        Verdict::Ask(caps) => match confirm::obtain(true, None, &format!("cmpx run {id} (needs {})", caps.join(", ")), yes, interactive) {
            Consent::Given => Ok(()),
            refused => Err(ToolError::new(
                ErrorCode::Unauthorized,
                format!(
                    "confirmation {}: {id} needs {}, which the policy neither grants nor denies; nothing was run",
                    if refused == Consent::Declined { "declined" } else { "required" },
                    caps.join(", ")
                ),
            )
            .with_data(json!({ "confirmationRequired": true, "tool": id, "capabilities": caps }))),
        },
    }
}

/// The files a command line's words would read: every value that is `@path` (not `@@…`).
pub fn at_paths(words: &[String]) -> Vec<PathBuf> {
    words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((name, value)) if name.starts_with("--") => value,
            _ => w.as_str(),
        })
        .filter_map(|v| {
            v.strip_prefix('@')
                .filter(|p| !p.starts_with('@') && !p.is_empty())
        })
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_files_a_command_line_reads() {
        let words: Vec<String> = ["--input", "@a.json", "--x=@b", "@@literal", "plain", "@"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            at_paths(&words),
            vec![PathBuf::from("a.json"), PathBuf::from("b")]
        );
    }
}
