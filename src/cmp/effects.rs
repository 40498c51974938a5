//! What an intent does to the world, from its `capabilities` declaration (a cmpx extension to
//! CMP's capability.json, in the vocabulary of BTCP-style capabilities, issue 17), and the one
//! function that turns it into consent, `confirm`/`destructive` and the MCP hints.

use super::capability::Intent;

/// Reads files or directories; changes nothing.
pub const FS_READ: &str = "fs:read";
/// Creates new files or directories, never replacing or removing what is there.
pub const FS_WRITE: &str = "fs:write";
/// May replace the content of an existing file (or a whole directory tree).
pub const FS_OVERWRITE: &str = "fs:overwrite";
/// Removes files or directories.
pub const FS_DELETE: &str = "fs:delete";
/// Opens network connections (fetches a URL).
pub const NETWORK_FETCH: &str = "network:fetch";
/// Runs an arbitrary program or code chosen by the caller.
pub const PROCESS_SPAWN: &str = "process:spawn";

/// The whole vocabulary, with each name's risk level.
pub const CAPABILITIES: &[(&str, &str)] = &[
    (FS_READ, "low"),
    (FS_WRITE, "medium"),
    (FS_OVERWRITE, "high"),
    (FS_DELETE, "high"),
    (NETWORK_FETCH, "medium"),
    (PROCESS_SPAWN, "high"),
];

/// Everything the front ends say and enforce about an intent's side effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effects {
    /// Changes nothing (MCP `readOnlyHint`).
    pub read_only: bool,
    /// May replace or remove what was there (`destructive`, MCP `destructiveHint`).
    pub destructive: bool,
    /// Repeating the call with the same arguments changes nothing more (`idempotentHint`).
    pub idempotent: bool,
    /// Reaches beyond the local files: the network or arbitrary programs (`openWorldHint`).
    pub open_world: bool,
    /// Runs only with the user's consent (`confirm`).
    pub consent: bool,
}

/// The one derivation. An intent that declares nothing (a third-party folder) is not called
/// read-only nor closed-world: nothing says what it touches. Its `confirm`/`destructive` flags
/// and a value run as code (see [`super::shell_code`]) still ask for consent.
pub fn of(intent: &Intent) -> Effects {
    let declared = intent.capabilities.as_deref();
    let has = |name: &str| declared.is_some_and(|d| d.iter().any(|c| c == name));
    let changes = has(FS_WRITE) || has(FS_OVERWRITE) || has(FS_DELETE) || has(PROCESS_SPAWN);
    let destructive =
        intent.destructive || has(FS_OVERWRITE) || has(FS_DELETE) || has(PROCESS_SPAWN);
    let consent = intent.confirm || changes || destructive || intent.runs_code().is_some();
    Effects {
        read_only: declared.is_some() && !consent,
        destructive,
        idempotent: intent.idempotent,
        open_world: declared.is_none()
            || has(PROCESS_SPAWN)
            || declared.is_some_and(|d| d.iter().any(|c| c.starts_with("network:"))),
        consent,
    }
}

/// Problems with a declaration: unknown names.
pub fn check(declared: &[String]) -> Vec<String> {
    declared
        .iter()
        .filter(|c| !CAPABILITIES.iter().any(|(name, _)| name == c))
        .map(|c| {
            let known: Vec<&str> = CAPABILITIES.iter().map(|(n, _)| *n).collect();
            format!("{c:?} is not one of {}", known.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn intent(extra: serde_json::Value) -> Intent {
        let mut v = json!({"patterns": ["x"], "command": "prog {path}", "params": {"path": {"type": "string"}}});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn declarations_decide_every_hint() {
        let read = of(&intent(json!({"capabilities": ["fs:read"]})));
        assert_eq!(
            read,
            Effects {
                read_only: true,
                destructive: false,
                idempotent: true,
                open_world: false,
                consent: false
            }
        );
        let fetch = of(&intent(json!({"capabilities": ["network:fetch"]})));
        assert!(fetch.read_only && fetch.open_world && !fetch.consent);
        let mkdir = of(&intent(json!({"capabilities": ["fs:write"]})));
        assert!(!mkdir.read_only && mkdir.consent && !mkdir.destructive);
        let mv = of(&intent(
            json!({"capabilities": ["fs:overwrite", "fs:delete"], "idempotent": false}),
        ));
        assert!(!mv.read_only && mv.consent && mv.destructive && !mv.idempotent);
    }

    #[test]
    fn nothing_declared_is_neither_read_only_nor_closed() {
        let e = of(&intent(json!({})));
        assert!(!e.read_only && e.open_world && !e.consent && !e.destructive);
        let e = of(&intent(json!({"destructive": true})));
        assert!(e.consent && e.destructive);
    }

    #[test]
    fn unknown_names_are_reported() {
        assert_eq!(
            check(&["fs:read".into(), "fs:explode".into()]),
            vec![
                "\"fs:explode\" is not one of fs:read, fs:write, fs:overwrite, fs:delete, network:fetch, process:spawn"
                    .to_string()
            ]
        );
    }
}
