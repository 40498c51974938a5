//! `cmpx policy`: shows the capability policy (the file, its rules, and every known
//! capability with its risk and default); `grant|deny|revoke CAPABILITY [--tool ID] [--path
//! PREFIX]` changes it, whole and atomically, under the CMP_HOME writers' lock.

use crate::capability::{self, Risk};
use crate::error::{Error, ExitCode};
use crate::output::{self, Mode};
use crate::policy::file::{self, Policy, Rule};
use serde_json::json;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    Grant,
    Deny,
    Revoke,
}

pub(super) fn show(mode: Mode) -> Result<ExitCode, Error> {
    let path = file::location().ok_or_else(no_home)?;
    let policy = file::load().map_err(Error::Usage)?;
    output::print_value(mode, &document(&path, &policy));
    Ok(ExitCode::Success)
}

fn document(path: &Path, policy: &Policy) -> serde_json::Value {
    let vocabulary: Vec<_> = capability::VOCABULARY
        .iter()
        .map(|k| {
            json!({
                "name": k.name,
                "risk": k.risk,
                "source": if k.local { "cmpx" } else { "btcp" },
                "what": k.what,
                "default": if k.risk == Risk::Low { "granted" } else { "ask" },
            })
        })
        .collect();
    json!({
        "file": path,
        "exists": path.exists(),
        "grant": policy.grant,
        "deny": policy.deny,
        "capabilities": vocabulary,
        "rules": "a deny always blocks, even with --yes; a grant runs without asking; anything else asks unless its risk is low. The most specific rule wins (a tool's over a global one, a longer path over a shorter one, a deny over a grant).",
    })
}

pub(super) fn change(
    mode: Mode,
    what: Change,
    capability_name: &str,
    tool: Option<&str>,
    path: Option<&Path>,
) -> Result<ExitCode, Error> {
    let rule = Rule {
        capability: capability_name.to_string(),
        tool: tool.map(str::to_string),
        // A quoted `--path '~/keep'` means the home directory, as in the file.
        path: path.map(|p| crate::policy::normalise(&file::expand_home(p))),
    };
    // The checks a hand-edited file gets on load, so the command line writes no rule that
    // would make the file invalid or match nothing.
    let problems = file::problems(&rule);
    if !problems.is_empty() {
        return Err(Error::Usage(problems.join("; ")));
    }
    let location = file::location().ok_or_else(no_home)?;
    let home = location.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(home).map_err(|e| Error::io("create directory", home, e))?;
    let _lock = crate::cmp::lock::acquire(home)?;
    let mut policy = file::load_from(&location).map_err(Error::Usage)?;
    let before = policy.clone();
    policy.grant.retain(|r| r != &rule);
    policy.deny.retain(|r| r != &rule);
    match what {
        Change::Grant => policy.grant.push(rule.clone()),
        Change::Deny => policy.deny.push(rule.clone()),
        Change::Revoke => {}
    }
    let changed = policy != before;
    if changed {
        file::save(&location, &policy)?;
    }
    if what == Change::Revoke && !changed {
        eprintln!(
            "cmpx policy: no rule for {} to revoke",
            crate::policy::describe(&rule)
        );
    }
    let mut doc = document(&location, &policy);
    doc["changed"] = json!(changed);
    output::print_value(mode, &doc);
    Ok(ExitCode::Success)
}

fn no_home() -> Error {
    Error::Usage("no home directory: set CMP_HOME to say where the policy lives".to_string())
}
