//! `manifest.json`: the few fields an agent reads to decide whether a tool is worth a look.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Manifest {
    pub domain: String,
    pub name: String,
    pub summary: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// Free-form in CMP v0.2 (programs, other tools); kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adapter: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wraps: Option<String>,
    /// cmpx extension for adapters: other names the wrapped program goes by (Debian's `fdfind`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

/// Longest summary CMP allows, in characters.
pub const MAX_SUMMARY_CHARS: usize = 100;

/// Whether `v` is a semantic version (MAJOR.MINOR.PATCH with optional pre-release and build).
pub fn is_semver(v: &str) -> bool {
    semver::Version::parse(v).is_ok()
}

impl Manifest {
    /// Problems with the manifest's fields, each naming the field.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (field, value) in [
            ("domain", &self.domain),
            ("name", &self.name),
            ("summary", &self.summary),
        ] {
            if value.trim().is_empty() {
                out.push(format!("'{field}' is empty"));
            }
        }
        let chars = self.summary.chars().count();
        if chars > MAX_SUMMARY_CHARS {
            out.push(format!(
                "'summary' has {chars} characters; at most {MAX_SUMMARY_CHARS} are allowed"
            ));
        }
        if !self.name.trim().is_empty() && !is_safe_name(&self.name) {
            out.push(format!(
                "'name' {:?} is not a tool name: use letters, digits, '.', '_' and '-', starting with a letter or digit",
                crate::text::preview(&self.name, 60)
            ));
        }
        if !is_semver(&self.version) {
            out.push(format!(
                "'version' {:?} is not a semantic version (e.g. 1.0.0)",
                self.version
            ));
        }
        if self.adapter && self.wraps.as_deref().is_none_or(|w| w.trim().is_empty()) {
            out.push("'wraps' must name the program an adapter runs".to_string());
        }
        out
    }
}

/// A name that is safe as a command word and a folder name: no path separators, no `..`, no
/// leading dot or dash, nothing invisible.
pub fn is_safe_name(name: &str) -> bool {
    name.len() <= 128
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.contains("..")
}

#[cfg(test)]
mod tests {
    use super::is_semver;

    #[test]
    fn semver_rules() {
        for ok in [
            "1.0.0",
            "0.2.10",
            "1.0.0-alpha.1",
            "1.0.0+build.5",
            "2.1.3-rc.1+sha.abc",
        ] {
            assert!(is_semver(ok), "{ok}");
        }
        for bad in ["1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.x", ""] {
            assert!(!is_semver(bad), "{bad}");
        }
    }
}
