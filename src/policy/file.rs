//! The user's policy file, `$CMP_HOME/policy.toml`: rules that grant or deny a capability,
//! globally, for one tool, or (fs:*) under one path. Read on every decision; written only
//! whole, by an atomic rename, under the CMP_HOME writers' lock.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "policy.toml";

/// One rule: the capability (`fs:write`, or a whole family as `fs:*`), and optionally the
/// tool it is limited to and, for `fs:*`, the path prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub capability: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grant: Vec<Rule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<Rule>,
}

/// Where the policy lives, or `None` without a home directory.
pub fn location() -> Option<PathBuf> {
    crate::paths::cmp_home().map(|h| h.join(FILE_NAME))
}

/// The policy; an absent file is the empty policy. A file that cannot be read or parsed is an
/// error naming it: callers refuse to run rather than guess what the user meant.
pub fn load() -> Result<Policy, String> {
    let Some(path) = location() else {
        return Ok(Policy::default());
    };
    load_from(&path)
}

pub fn load_from(path: &Path) -> Result<Policy, String> {
    let bytes =
        match crate::cmp::read::read_optional(path, 1 << 20, crate::cmp::read::Links::Follow) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(Policy::default()),
            Err(e) => return Err(e.describe(path)),
        };
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| format!("the policy file {} is not UTF-8", path.display()))?;
    toml::from_str(text).map_err(|e| {
        format!(
            "the policy file {} is not valid ({}); fix it, or remove it and grant again with `cmpx policy grant`",
            path.display(),
            e.message()
        )
    })
}

/// Writes the policy whole: a temporary file beside it, renamed into place, so a reader (or a
/// killed writer) sees the old policy or the new one, never part of one.
pub fn save(path: &Path, policy: &Policy) -> Result<(), crate::error::Error> {
    let text = toml::to_string(policy)
        .map_err(|e| crate::error::Error::Usage(format!("cannot write the policy as TOML: {e}")))?;
    let header =
        "# cmpx capability policy: edit with `cmpx policy grant|deny|revoke` (SPEC.md §10.3)\n";
    crate::cmp::atomic::write_with_mode(path, format!("{header}{text}").as_bytes(), 0o600)
}
