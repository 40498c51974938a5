//! What changed between two surfaces of one tool, how big a version bump that needs (semver:
//! breaking → major, additive → minor), and whether the new version says so.

use super::surface::{Field, Param, Surface};
use semver::Version;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Bump {
    None,
    Minor,
    Major,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Change {
    pub bump: Bump,
    pub what: String,
}

/// The comparison of one tool: its changes and, when the version does not cover them, the
/// problem and the version it needs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Verdict {
    pub tool: String,
    pub from: String,
    pub to: String,
    pub changes: Vec<Change>,
    pub needs: Bump,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

pub(crate) fn compare(tool: &str, old: &Surface, new: &Surface) -> Verdict {
    let changes = changes(old, new);
    let needs = changes.iter().map(|c| c.bump).max().unwrap_or(Bump::None);
    let problem = version_problem(&old.version, &new.version, needs).map(|p| {
        let what: Vec<&str> = changes
            .iter()
            .filter(|c| c.bump == needs)
            .map(|c| c.what.as_str())
            .collect();
        if what.is_empty() {
            format!("{tool}: {p}")
        } else {
            format!("{tool}: {}; {p}", what.join("; "))
        }
    });
    Verdict {
        tool: tool.to_string(),
        from: old.version.clone(),
        to: new.version.clone(),
        changes,
        needs,
        problem,
    }
}

fn changes(old: &Surface, new: &Surface) -> Vec<Change> {
    let mut out = Vec::new();
    let mut push = |bump, what: String| out.push(Change { bump, what });
    for (name, was) in &old.params {
        match new.params.get(name) {
            None => push(Bump::Major, format!("parameter `{name}` removed")),
            Some(now) => param_changes(name, was, now, &mut push),
        }
    }
    for (name, now) in &new.params {
        if !old.params.contains_key(name) {
            if now.required {
                push(Bump::Major, format!("required parameter `{name}` added"));
            } else {
                push(Bump::Minor, format!("optional parameter `{name}` added"));
            }
        }
    }
    for (path, was) in &old.output {
        match new.output.get(path) {
            None => push(Bump::Major, format!("output field `{path}` removed")),
            Some(now) => field_changes(path, was, now, &mut push),
        }
    }
    for path in new.output.keys().filter(|p| !old.output.contains_key(*p)) {
        push(Bump::Minor, format!("output field `{path}` added"));
    }
    out
}

fn param_changes(name: &str, was: &Param, now: &Param, push: &mut impl FnMut(Bump, String)) {
    if was.kind != now.kind {
        push(
            Bump::Major,
            format!(
                "parameter `{name}` changed type from {} to {}",
                was.kind, now.kind
            ),
        );
    }
    match (was.required, now.required) {
        (false, true) => push(Bump::Major, format!("parameter `{name}` became required")),
        (true, false) => push(Bump::Minor, format!("parameter `{name}` became optional")),
        _ => {}
    }
    match (&was.options, &now.options) {
        (None, Some(_)) => push(
            Bump::Major,
            format!("parameter `{name}` now accepts only listed options"),
        ),
        (Some(_), None) => push(Bump::Minor, format!("parameter `{name}` accepts any value")),
        (Some(a), Some(b)) => {
            for gone in a.iter().filter(|v| !b.contains(v)) {
                push(
                    Bump::Major,
                    format!("option `{gone}` of parameter `{name}` removed"),
                );
            }
            for added in b.iter().filter(|v| !a.contains(v)) {
                push(
                    Bump::Minor,
                    format!("option `{added}` of parameter `{name}` added"),
                );
            }
        }
        (None, None) => {}
    }
}

fn field_changes(path: &str, was: &Field, now: &Field, push: &mut impl FnMut(Bump, String)) {
    // A field typed `any` promised nothing about its type.
    if was.kind != now.kind && was.kind != "any" {
        push(
            Bump::Major,
            format!(
                "output field `{path}` changed type from {} to {}",
                was.kind, now.kind
            ),
        );
    }
    if was.required && !now.required {
        push(
            Bump::Major,
            format!("output field `{path}` is no longer always present"),
        );
    }
}

/// `None` when `to` covers a change of size `needs` from `from`. Below 1.0.0 the convention
/// Cargo uses applies: a minor bump is the breaking one, a patch bump the additive one.
pub(crate) fn version_problem(from: &str, to: &str, needs: Bump) -> Option<String> {
    let (old, new) = match (Version::parse(from), Version::parse(to)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) => return Some(format!("version {from:?} is not semver: {e}")),
        (_, Err(e)) => return Some(format!("version {to:?} is not semver: {e}")),
    };
    if new < old {
        return Some(format!("version went backwards from {old} to {new}"));
    }
    let covered = match needs {
        Bump::None => true,
        Bump::Minor if old.major == 0 => {
            new > old && (new.minor, new.patch) != (old.minor, old.patch)
        }
        Bump::Minor => (new.major, new.minor) > (old.major, old.minor),
        Bump::Major if old.major == 0 => (new.major, new.minor) > (old.major, old.minor),
        Bump::Major => new.major > old.major,
    };
    if covered {
        return None;
    }
    let (kind, needed) = match needs {
        Bump::Major if old.major == 0 => ("a breaking change", format!("0.{}.0", old.minor + 1)),
        Bump::Major => ("a breaking change", format!("{}.0.0", old.major + 1)),
        _ if old.major == 0 => (
            "an additive change",
            format!("0.{}.{}", old.minor, old.patch + 1),
        ),
        _ => (
            "an additive change",
            format!("{}.{}.0", old.major, old.minor + 1),
        ),
    };
    Some(format!("{kind} needs version {needed} or later (is {new})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn surface(version: &str, params: &[(&str, &str, bool)]) -> Surface {
        Surface {
            version: version.into(),
            params: params
                .iter()
                .map(|(n, t, r)| {
                    (
                        n.to_string(),
                        Param {
                            kind: t.to_string(),
                            required: *r,
                            options: None,
                        },
                    )
                })
                .collect(),
            output: BTreeMap::new(),
        }
    }

    #[test]
    fn a_rename_needs_a_major_version() {
        let old = surface(
            "1.0.0",
            &[("input", "string", true), ("wrap", "integer", false)],
        );
        let new = surface(
            "1.0.0",
            &[("input", "string", true), ("width", "integer", false)],
        );
        let v = compare("text-wrapper", &old, &new);
        assert_eq!(v.needs, Bump::Major);
        assert_eq!(
            v.problem.as_deref(),
            Some(
                "text-wrapper: parameter `wrap` removed; a breaking change needs version 2.0.0 or later (is 1.0.0)"
            )
        );
        let bumped = surface(
            "2.0.0",
            &[("input", "string", true), ("width", "integer", false)],
        );
        assert_eq!(compare("text-wrapper", &old, &bumped).problem, None);
    }

    #[test]
    fn an_optional_parameter_needs_a_minor_version() {
        let old = surface("1.4.2", &[("input", "string", true)]);
        let new = surface(
            "1.4.3",
            &[("input", "string", true), ("upper", "boolean", false)],
        );
        let v = compare("t", &old, &new);
        assert_eq!(v.needs, Bump::Minor);
        assert!(
            v.problem
                .unwrap()
                .ends_with("needs version 1.5.0 or later (is 1.4.3)")
        );
        let ok = surface(
            "1.5.0",
            &[("input", "string", true), ("upper", "boolean", false)],
        );
        assert_eq!(compare("t", &old, &ok).problem, None);
    }

    #[test]
    fn a_new_required_parameter_or_type_change_is_breaking() {
        let old = surface("1.0.0", &[("n", "integer", false)]);
        let v = compare("t", &old, &surface("1.1.0", &[("n", "string", false)]));
        assert_eq!(v.needs, Bump::Major);
        let v = compare("t", &old, &surface("1.1.0", &[("n", "integer", true)]));
        assert_eq!(v.needs, Bump::Major);
        let v = compare(
            "t",
            &old,
            &surface("1.1.0", &[("n", "integer", false), ("k", "string", true)]),
        );
        assert_eq!(v.needs, Bump::Major);
    }

    #[test]
    fn options_removed_are_breaking_and_added_are_additive() {
        let mut old = surface("1.0.0", &[("mode", "string", false)]);
        old.params.get_mut("mode").unwrap().options = Some(vec!["a".into(), "b".into()]);
        let mut added = old.clone();
        added.params.get_mut("mode").unwrap().options =
            Some(vec!["a".into(), "b".into(), "c".into()]);
        assert_eq!(compare("t", &old, &added).needs, Bump::Minor);
        let mut removed = old.clone();
        removed.params.get_mut("mode").unwrap().options = Some(vec!["a".into()]);
        assert_eq!(compare("t", &old, &removed).needs, Bump::Major);
    }

    #[test]
    fn unchanged_surfaces_need_nothing_but_may_not_go_backwards() {
        let old = surface("1.2.0", &[("input", "string", true)]);
        assert_eq!(compare("t", &old, &old).problem, None);
        let back = surface("1.1.9", &[("input", "string", true)]);
        assert_eq!(
            compare("t", &old, &back).problem.as_deref(),
            Some("t: version went backwards from 1.2.0 to 1.1.9")
        );
    }

    #[test]
    fn below_one_minor_is_breaking() {
        assert_eq!(version_problem("0.3.1", "0.4.0", Bump::Major), None);
        assert_eq!(
            version_problem("0.3.1", "0.3.2", Bump::Major).as_deref(),
            Some("a breaking change needs version 0.4.0 or later (is 0.3.2)")
        );
        assert_eq!(version_problem("0.3.1", "0.3.2", Bump::Minor), None);
    }

    #[test]
    fn removed_output_fields_are_breaking() {
        let mut old = surface("1.0.0", &[]);
        old.output.insert(
            "a".into(),
            Field {
                kind: "string".into(),
                required: true,
            },
        );
        let mut new = old.clone();
        new.output.clear();
        new.output.insert(
            "b".into(),
            Field {
                kind: "string".into(),
                required: false,
            },
        );
        let v = compare("t", &old, &new);
        assert_eq!(v.needs, Bump::Major);
        assert_eq!(v.changes.len(), 2);
    }
}
