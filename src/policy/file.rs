//! The user's policy file, `$CMP_HOME/policy.toml`: rules that grant or deny a capability,
//! globally, for one tool, or (fs:*) under one path. Read on every decision; written only
//! whole, by an atomic rename, under the CMP_HOME writers' lock.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub(crate) const FILE_NAME: &str = "policy.toml";

/// One rule: the capability (`fs:write`, or a whole family as `fs:*`), and optionally the
/// tool it is limited to and, for `fs:*`, the path prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Rule {
    pub capability: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Policy {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grant: Vec<Rule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<Rule>,
}

/// Where the policy lives, or `None` without a home directory.
pub(crate) fn location() -> Option<PathBuf> {
    crate::paths::cmp_home().map(|h| h.join(FILE_NAME))
}

/// The policy; an absent file is the empty policy. A file that cannot be read or parsed is an
/// error naming it: callers refuse to run rather than guess what the user meant.
pub(crate) fn load() -> Result<Policy, String> {
    let Some(path) = location() else {
        return Ok(Policy::default());
    };
    load_from(&path)
}

pub(crate) fn load_from(path: &Path) -> Result<Policy, String> {
    let bytes =
        match crate::cmp::read::read_optional(path, 1 << 20, crate::cmp::read::Links::Follow) {
            Ok(Some(b)) => b,
            Ok(None) => return absent(path),
            Err(e) => return Err(e.describe(path)),
        };
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| format!("the policy file {} is not UTF-8", path.display()))?;
    let invalid = |why: String| {
        format!(
            "the policy file {} is not valid ({why}); fix it, or remove it and grant again with `cmpx policy grant`",
            path.display(),
        )
    };
    let mut policy: Policy = toml::from_str(text).map_err(|e| invalid(e.message().to_string()))?;
    let problems: Vec<String> = [("grant", &policy.grant), ("deny", &policy.deny)]
        .into_iter()
        .flat_map(|(table, rules)| {
            rules.iter().enumerate().filter_map(move |(i, rule)| {
                let found = problems(rule);
                (!found.is_empty()).then(|| {
                    format!(
                        "[[{table}]] rule {} ({}): {}",
                        i + 1,
                        crate::policy::describe(rule),
                        found.join("; ")
                    )
                })
            })
        })
        .collect();
    if !problems.is_empty() {
        return Err(invalid(problems.join("; ")));
    }
    for rule in policy.grant.iter_mut().chain(policy.deny.iter_mut()) {
        rule.path = rule.path.take().map(|p| expand_home(&p));
    }
    Ok(policy)
}

/// No file is the empty policy; a link whose target is missing is not "no file" (whatever it
/// pointed at held rules once), so it refuses like an unreadable file.
fn absent(path: &Path) -> Result<Policy, String> {
    match std::fs::read_link(path) {
        Ok(target) => Err(format!(
            "the policy file {} is a symbolic link to {}, which does not exist; restore the target, or remove the link to start from an empty policy",
            path.display(),
            target.display()
        )),
        Err(_) => Ok(Policy::default()),
    }
}

/// What is wrong with a rule, each problem in words: a rule that can never match anything
/// (a misspelt capability, a relative path) would otherwise be kept and silently do nothing.
pub(crate) fn problems(rule: &Rule) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(why) = crate::capability::rule_problem(&rule.capability) {
        out.push(why);
    }
    if let Some(tool) = &rule.tool
        && !crate::cmp::manifest::is_safe_name(tool)
    {
        out.push(format!(
            "tool {:?} is not a tool name (a catalogue id such as json-formatter, an installed tool's name or a browser tool's name: letters, digits, '.', '_' and '-', starting with a letter or digit)",
            crate::text::preview(tool, 60)
        ));
    }
    if let Some(p) = &rule.path {
        let text = p.to_string_lossy();
        if !(p.is_absolute() || text == "~" || text.starts_with("~/")) {
            out.push(format!(
                "path {:?} is neither absolute nor under ~/, so it would match nothing",
                crate::text::preview(&text, 80)
            ));
        }
        if !(rule.capability == "*" || rule.capability.starts_with("fs:")) {
            out.push(format!(
                "a path applies to fs:* capabilities only, not to {}",
                rule.capability
            ));
        }
    }
    out
}

/// `~` and `~/…` under the home directory; anything else as written.
pub(crate) fn expand_home(path: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    let rest = match text.as_ref() {
        "~" => "",
        t => match t.strip_prefix("~/") {
            Some(rest) => rest,
            None => return path.to_path_buf(),
        },
    };
    match dirs::home_dir() {
        Some(home) => home.join(rest),
        None => path.to_path_buf(),
    }
}

/// Writes the policy whole: a temporary file beside it, renamed into place, so a reader (or a
/// killed writer) sees the old policy or the new one, never part of one.
pub(crate) fn save(path: &Path, policy: &Policy) -> Result<(), crate::error::Error> {
    let text = toml::to_string(policy)
        .map_err(|e| crate::error::Error::Usage(format!("cannot write the policy as TOML: {e}")))?;
    let header =
        "# cmpx capability policy: edit with `cmpx policy grant|deny|revoke` (SPEC.md §10.3)\n";
    crate::cmp::atomic::write_with_mode(path, format!("{header}{text}").as_bytes(), 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Policy, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, text).unwrap();
        load_from(&path)
    }

    #[test]
    fn every_rule_is_checked_on_load() {
        let err = load_text(
            "[[grant]]\ncapability = \"fs:read\"\n[[deny]]\ncapability = \"fs:read\"\n[[deny]]\ncapability = \"FS:DELETE\"\ntool = \"files\"\n",
        )
        .unwrap_err();
        assert!(
            err.contains("is not valid ([[deny]] rule 2 (FS:DELETE for tool files): 'FS:DELETE' is not a capability name"),
            "{err}"
        );
        assert!(err.contains("did you mean fs:delete?"), "{err}");
        let err =
            load_text("[[grant]]\ncapability = \"network:fetch\"\npath = \"rel\"\n").unwrap_err();
        assert!(
            err.contains("[[grant]] rule 1 (network:fetch under rel): path \"rel\" is neither absolute nor under ~/, so it would match nothing; a path applies to fs:* capabilities only, not to network:fetch"),
            "{err}"
        );
        let ok = load_text(
            "[[deny]]\ncapability = \"fs:*\"\npath = \"/etc\"\ntool = \"json_formatter\"\n",
        )
        .unwrap();
        assert_eq!(ok.deny.len(), 1);
    }

    #[test]
    fn a_home_path_is_expanded_on_load() {
        let Some(home) = dirs::home_dir() else {
            return;
        };
        let p = load_text("[[deny]]\ncapability = \"fs:read\"\npath = \"~/keep\"\n").unwrap();
        assert_eq!(p.deny[0].path.as_deref(), Some(home.join("keep").as_path()));
        assert_eq!(expand_home(Path::new("~")), home);
        assert_eq!(expand_home(Path::new("~x/y")), PathBuf::from("~x/y"));
    }

    #[cfg(unix)]
    #[test]
    fn absent_is_empty_but_a_dangling_link_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        assert_eq!(load_from(&path), Ok(Policy::default()));
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &path).unwrap();
        let err = load_from(&path).unwrap_err();
        assert_eq!(
            err,
            format!(
                "the policy file {} is a symbolic link to {}, which does not exist; restore the target, or remove the link to start from an empty policy",
                path.display(),
                dir.path().join("nowhere").display()
            )
        );
    }
}
