//! Capabilities and the user's grants: the vocabulary with its risk levels
//! ([`capability`]), the policy file under CMP_HOME ([`file`]), and the one decision every
//! front end (command line, MCP, HTTP, BTCP) asks before anything runs ([`decide`]).

pub(crate) use crate::capability;
pub(crate) mod file;

use capability::Risk;
use file::{Policy, Rule};
use std::path::{Component, Path, PathBuf};

/// One capability a run needs, with the paths it touches (fs:* only; empty when unknown).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Need {
    pub capability: String,
    pub paths: Vec<PathBuf>,
    /// The person already named this exact thing on the command line (`--output-file`), so
    /// it needs no further consent; a deny still blocks it.
    pub named: bool,
}

impl Need {
    pub(crate) fn new(capability: &str) -> Need {
        Need {
            capability: capability.to_string(),
            paths: Vec::new(),
            named: false,
        }
    }
}

/// What the policy says about a run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Everything needed is granted (or low risk): run without asking.
    Granted,
    /// Neither granted nor denied: run only with consent (`--yes`, a typed y, the MCP
    /// client's question). Lists the capabilities that ask.
    Ask(Vec<String>),
    /// Never, not even with `--yes`: says which capability and which rule (or the policy file
    /// that cannot be read).
    Denied(String),
}

/// The decision for `tool` needing `needs`, under the user's policy file.
pub(crate) fn check(tool: &str, needs: &[Need]) -> Verdict {
    match file::load() {
        Ok(policy) => decide(&policy, tool, needs),
        // A broken policy must not widen anything: nothing runs until it is fixed.
        Err(why) => Verdict::Denied(why),
    }
}

/// The decision under `policy`: a deny anywhere wins; otherwise anything neither granted nor
/// low risk asks. Among rules that match one need, the most specific decides (a tool's rule
/// over a global one, a longer path over a shorter one, a deny over a grant).
pub(crate) fn decide(policy: &Policy, tool: &str, needs: &[Need]) -> Verdict {
    let mut ask = Vec::new();
    for need in needs {
        let mut best: Option<((bool, usize, bool), &Rule)> = None;
        let candidates = policy
            .grant
            .iter()
            .map(|r| (r, false))
            .chain(policy.deny.iter().map(|r| (r, true)));
        for (rule, deny) in candidates {
            if !matches(rule, tool, need, deny) {
                continue;
            }
            let depth = rule.path.as_deref().map_or(0, |p| p.components().count());
            let key = (rule.tool.is_some(), depth, deny);
            if best.as_ref().is_none_or(|(k, _)| key > *k) {
                best = Some((key, rule));
            }
        }
        match best {
            Some(((_, _, true), rule)) => {
                return Verdict::Denied(format!(
                    "{} is denied by the policy ({}){}",
                    need.capability,
                    describe(rule),
                    location_hint()
                ));
            }
            Some(_) => {}
            None if need.named || capability::risk(&need.capability) == Risk::Low => {}
            None => ask.push(need.capability.clone()),
        }
    }
    if ask.is_empty() {
        Verdict::Granted
    } else {
        ask.dedup();
        Verdict::Ask(ask)
    }
}

fn location_hint() -> String {
    file::location()
        .map(|p| format!(" in {}", p.display()))
        .unwrap_or_default()
}

/// A rule in words: `deny fs:delete for tool files under /etc`.
pub(crate) fn describe(rule: &Rule) -> String {
    let mut s = rule.capability.clone();
    if let Some(t) = &rule.tool {
        s.push_str(&format!(" for tool {t}"));
    }
    if let Some(p) = &rule.path {
        s.push_str(&format!(" under {}", p.display()));
    }
    s
}

/// Whether `rule` speaks about `need` of `tool`. A path rule grants only when every path of
/// the need lies under it (and some path is known), and denies when any does.
fn matches(rule: &Rule, tool: &str, need: &Need, deny: bool) -> bool {
    if rule.tool.as_deref().is_some_and(|t| !same_tool(t, tool)) {
        return false;
    }
    if !capability_matches(&rule.capability, &need.capability) {
        return false;
    }
    match &rule.path {
        None => true,
        Some(prefix) if deny => need.paths.iter().any(|p| under(p, prefix)),
        Some(prefix) => !need.paths.is_empty() && need.paths.iter().all(|p| under(p, prefix)),
    }
}

/// Tool names compare in either catalogue spelling (`json-formatter`, `json_formatter`).
fn same_tool(a: &str, b: &str) -> bool {
    a == b || a.replace('_', "-") == b.replace('_', "-")
}

/// `fs:*` covers the family; `dom:write` covers `dom:read` (BTCP's implications);
/// `network:fetch` covers `network:fetch:same-origin` and other refinements.
fn capability_matches(rule: &str, need: &str) -> bool {
    if rule == "*" {
        return true;
    }
    if let Some(family) = rule.strip_suffix(":*") {
        return need.split(':').next() == Some(family);
    }
    capability::covered_by(rule).contains(&need)
        || need
            .strip_prefix(rule)
            .is_some_and(|rest| rest.starts_with(':'))
}

fn under(path: &Path, prefix: &Path) -> bool {
    normalise(path).starts_with(normalise(prefix))
}

/// An absolute path without `.` or `..`, through the real location of whatever part exists
/// (a link into /etc counts as /etc). The longest existing prefix of the path as written is
/// resolved by the system (so `link/..` goes where the system would go), and what does not
/// exist yet is appended with `.` and `..` applied to it.
pub(crate) fn normalise(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let parts: Vec<Component> = absolute.components().collect();
    for split in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..split].iter().collect();
        if let Ok(real) = prefix.canonicalize() {
            return append_clean(real, &parts[split..]);
        }
    }
    append_clean(PathBuf::new(), &parts)
}

fn append_clean(mut out: PathBuf, rest: &[Component]) -> PathBuf {
    for c in rest {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The capabilities an installed intent's run needs: its declaration (or process:spawn when
/// it declares none), fs:* ones with the directory the command runs in and every parameter
/// value, each read as a path the program may touch: relative ones against that directory,
/// `~` against the home directory. A value that is no path costs nothing: it lies under the
/// working directory, which is listed anyway.
pub(crate) fn intent_needs(
    intent: &crate::cmp::Intent,
    args: &serde_json::Map<String, serde_json::Value>,
) -> Vec<Need> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let mut paths = vec![cwd.clone()];
    let mut add = |s: &str| {
        if s.is_empty() {
            return;
        }
        let home_rel = if s == "~" {
            Some("")
        } else {
            s.strip_prefix("~/")
        };
        match (home_rel, dirs::home_dir()) {
            (Some(rest), Some(home)) => paths.push(home.join(rest)),
            _ => paths.push(cwd.join(s)),
        }
    };
    for v in args.values() {
        match v {
            serde_json::Value::String(s) => add(s),
            serde_json::Value::Array(items) => {
                items.iter().filter_map(|i| i.as_str()).for_each(&mut add)
            }
            _ => {}
        }
    }
    crate::cmp::effects::needed(intent)
        .into_iter()
        .map(|c| Need {
            paths: if c.starts_with("fs:") {
                paths.clone()
            } else {
                Vec::new()
            },
            capability: c,
            named: false,
        })
        .collect()
}

/// A catalogue tool's run: what the tool declares, plus the command line's own file access
/// (`@path` reads are fs:read of that file; `--output-file` is fs:write, named by the person).
pub(crate) fn builtin_needs(id: &str, reads: &[PathBuf], output: Option<&Path>) -> Vec<Need> {
    let mut needs: Vec<Need> = capability::of_catalogue_tool(id)
        .into_iter()
        .map(Need::new)
        .collect();
    if !reads.is_empty() {
        needs.push(Need {
            capability: capability::FS_READ.into(),
            paths: reads.to_vec(),
            named: false,
        });
    }
    if let Some(out) = output {
        needs.push(Need {
            capability: capability::FS_WRITE.into(),
            paths: vec![out.to_path_buf()],
            named: true,
        });
    }
    needs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(cap: &str, tool: Option<&str>, path: Option<&str>) -> Rule {
        Rule {
            capability: cap.into(),
            tool: tool.map(Into::into),
            path: path.map(PathBuf::from),
        }
    }

    fn need(cap: &str, paths: &[&str]) -> Need {
        Need {
            capability: cap.into(),
            paths: paths.iter().map(PathBuf::from).collect(),
            named: false,
        }
    }

    #[test]
    fn low_risk_is_granted_and_the_rest_asks() {
        let p = Policy::default();
        assert_eq!(decide(&p, "t", &[need("fs:read", &[])]), Verdict::Granted);
        assert_eq!(
            decide(&p, "t", &[need("fs:read", &[]), need("network:fetch", &[])]),
            Verdict::Ask(vec!["network:fetch".into()])
        );
        assert_eq!(
            decide(&p, "t", &[need("code:execute", &[])]),
            Verdict::Ask(vec!["code:execute".into()])
        );
    }

    #[test]
    fn the_most_specific_rule_decides_and_deny_wins_ties() {
        let p = Policy {
            grant: vec![
                rule("network:fetch", Some("curl"), None),
                rule("fs:*", None, Some("/work")),
            ],
            deny: vec![
                rule("network:fetch", None, None),
                rule("fs:delete", None, Some("/work/keep")),
                rule("fs:read", None, Some("/secret")),
            ],
        };
        assert_eq!(
            decide(&p, "curl", &[need("network:fetch", &[])]),
            Verdict::Granted
        );
        assert!(matches!(
            decide(&p, "wget", &[need("network:fetch", &[])]),
            Verdict::Denied(m) if m.starts_with("network:fetch is denied by the policy (network:fetch)")
        ));
        assert_eq!(
            decide(&p, "files", &[need("fs:delete", &["/work/a"])]),
            Verdict::Granted
        );
        assert!(matches!(
            decide(&p, "files", &[need("fs:delete", &["/work/keep/a"])]),
            Verdict::Denied(_)
        ));
        // A path grant covers a need only when every path is under it.
        assert_eq!(
            decide(&p, "files", &[need("fs:write", &["/work/a", "/tmp/b"])]),
            Verdict::Ask(vec!["fs:write".into()])
        );
        // A low-risk capability can still be denied.
        assert!(matches!(
            decide(&p, "json-formatter", &[need("fs:read", &["/secret/x"])]),
            Verdict::Denied(_)
        ));
    }

    #[test]
    fn implications_and_tool_spellings() {
        let p = Policy {
            grant: vec![rule("dom:write", Some("json_formatter"), None)],
            deny: vec![],
        };
        assert_eq!(
            decide(
                &p,
                "json-formatter",
                &[need("dom:read", &[]), need("dom:write", &[])]
            ),
            Verdict::Granted
        );
        let named = Need {
            named: true,
            ..need("fs:write", &["/tmp/x"])
        };
        assert_eq!(decide(&Policy::default(), "t", &[named]), Verdict::Granted);
    }

    #[test]
    fn paths_are_normalised() {
        assert!(under(Path::new("/a/b/../c"), Path::new("/a")));
        assert!(!under(Path::new("/a/../etc/passwd"), Path::new("/a")));
        assert!(!under(Path::new("/ab"), Path::new("/a")));
    }
}
