//! What an intent does to the world, from its `capabilities` declaration (a cmpx extension to
//! CMP's capability.json, in the vocabulary of BTCP-style capabilities, issue 17), and the one
//! function that turns it into consent, `confirm`/`destructive` and the MCP hints.

use super::capability::Intent;

pub use crate::capability::{
    FS_DELETE, FS_OVERWRITE, FS_READ, FS_WRITE, NETWORK_FETCH, PROCESS_SPAWN,
};

/// The names an intent may declare: cmpx's local vocabulary (BTCP's names are for browser
/// tools), with each name's risk level.
pub fn vocabulary() -> impl Iterator<Item = &'static crate::capability::Known> {
    crate::capability::VOCABULARY.iter().filter(|k| k.local)
}

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

/// What an intent touches: its declaration; for a command that runs a catalogue tool
/// (`cmpx run <id> …`, as exported folders do), that tool's; otherwise `None` (nothing says).
pub fn declared(intent: &Intent) -> Option<Vec<String>> {
    if let Some(d) = &intent.capabilities {
        return Some(d.clone());
    }
    let words = shell_words::split(intent.template()).ok()?;
    match words.as_slice() {
        [bin, run, id, ..] if bin == super::mapping::BINARY && run == "run" => {
            crate::catalogue::get(id).map(|_| {
                crate::capability::of_catalogue_tool(id)
                    .into_iter()
                    .map(str::to_string)
                    .collect()
            })
        }
        _ => None,
    }
}

/// The capabilities a run is checked against: the declaration, or `process:spawn` (high)
/// for an intent that declares nothing, since it runs a program nothing describes.
pub fn needed(intent: &Intent) -> Vec<String> {
    declared(intent).unwrap_or_else(|| vec![PROCESS_SPAWN.to_string()])
}

/// Whether the intent itself asks to be confirmed every time, whatever is granted: it says
/// `confirm` or `destructive`, or hands a caller's value to a shell or interpreter as code.
pub fn asks_itself(intent: &Intent) -> bool {
    intent.confirm || intent.destructive || intent.runs_code().is_some()
}

/// The one derivation. An intent that declares nothing (a third-party folder) counts as
/// `process:spawn`: open-world, destructive and asking for consent. Consent here is the
/// default with no policy: any capability above low risk, or the intent asking itself; the
/// user's policy (`crate::policy`) can grant or deny at run time.
pub fn of(intent: &Intent) -> Effects {
    let declared = declared(intent);
    let needed = needed(intent);
    let has = |name: &str| needed.iter().any(|c| c == name);
    let changes = has(FS_WRITE) || has(FS_OVERWRITE) || has(FS_DELETE) || has(PROCESS_SPAWN);
    let destructive =
        intent.destructive || has(FS_OVERWRITE) || has(FS_DELETE) || has(PROCESS_SPAWN);
    let risky = needed
        .iter()
        .any(|c| crate::capability::risk(c) > crate::capability::Risk::Low);
    let consent = asks_itself(intent) || risky;
    Effects {
        read_only: declared.is_some() && !changes && !asks_itself(intent),
        destructive,
        idempotent: intent.idempotent,
        open_world: declared.is_none()
            || has(PROCESS_SPAWN)
            || needed.iter().any(|c| c.starts_with("network:")),
        consent,
    }
}

/// What is true of an intent that runs only with consent, said the same way at the terminal, in
/// an MCP question and in a refusal. Most serious first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caution {
    /// It says `destructive`, or declares fs:overwrite or fs:delete: it cannot be undone.
    Destructive,
    /// It declares no capabilities (a third-party folder), so nothing says what its program
    /// does; counted as process:spawn, but not thereby destructive.
    Undeclared,
    /// It declares process:spawn: it runs a program or code that nothing describes.
    Spawns,
    /// It hands a caller's value to a shell or interpreter (how, in words).
    RunsCode(String),
    /// It says `confirm`.
    Confirm,
    /// Nothing about the intent itself; only a capability above low risk asks.
    Capability,
}

/// Why the intent asks, in the terms of [`Caution`].
pub fn caution(intent: &Intent) -> Caution {
    let declared = declared(intent);
    let has = |name: &str| declared.iter().flatten().any(|c| c == name);
    if intent.destructive || has(FS_OVERWRITE) || has(FS_DELETE) {
        Caution::Destructive
    } else if declared.is_none() {
        Caution::Undeclared
    } else if has(PROCESS_SPAWN) {
        Caution::Spawns
    } else if let Some(why) = intent.runs_code().filter(|_| !intent.confirm) {
        Caution::RunsCode(why)
    } else if intent.confirm {
        Caution::Confirm
    } else {
        Caution::Capability
    }
}

impl Caution {
    /// The words that finish "this action …".
    pub fn phrase(&self) -> String {
        match self {
            Caution::Destructive => "is destructive (cannot be undone)".to_string(),
            Caution::Undeclared => {
                "runs an undeclared program (it declares no capabilities), so cmpx asks first"
                    .to_string()
            }
            Caution::Spawns => {
                "runs a program or code that nothing describes (process:spawn), so cmpx asks first"
                    .to_string()
            }
            Caution::RunsCode(why) => format!("runs a value as code ({why})"),
            Caution::Confirm => "is marked confirm".to_string(),
            Caution::Capability => "asks first".to_string(),
        }
    }

    /// The sentence a question to the person carries, if any.
    pub fn warning(&self) -> Option<&'static str> {
        match self {
            Caution::Destructive => Some("This is destructive and cannot be undone."),
            Caution::Undeclared => Some(
                "It runs a program that declares no capabilities, so cmpx cannot say what it changes.",
            ),
            Caution::Spawns => Some("It runs a program or code that nothing describes."),
            _ => None,
        }
    }
}

/// Problems with a declaration: unknown names.
pub fn check(declared: &[String]) -> Vec<String> {
    declared
        .iter()
        .filter(|c| !vocabulary().any(|k| k.name == c.as_str()))
        .map(|c| {
            let known: Vec<&str> = vocabulary().map(|k| k.name).collect();
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
        assert!(fetch.read_only && fetch.open_world && fetch.consent);
        let mkdir = of(&intent(json!({"capabilities": ["fs:write"]})));
        assert!(!mkdir.read_only && mkdir.consent && !mkdir.destructive);
        let mv = of(&intent(
            json!({"capabilities": ["fs:overwrite", "fs:delete"], "idempotent": false}),
        ));
        assert!(!mv.read_only && mv.consent && mv.destructive && !mv.idempotent);
    }

    #[test]
    fn nothing_declared_is_process_spawn() {
        let e = of(&intent(json!({})));
        assert!(!e.read_only && e.open_world && e.consent && e.destructive);
        assert_eq!(
            needed(&intent(json!({}))),
            vec!["process:spawn".to_string()]
        );
        let exported = intent(json!({"command": "cmpx run uuid-generator"}));
        assert_eq!(
            needed(&exported),
            vec!["system:random".to_string(), "system:clock".to_string()]
        );
        let e = of(&exported);
        assert!(e.read_only && !e.open_world && !e.consent);
        let e = of(&intent(json!({"destructive": true})));
        assert!(e.consent && e.destructive);
    }

    /// Issue 37, item 21: an intent that declares nothing and says `destructive: false` was
    /// called "destructive (cannot be undone)".
    #[test]
    fn the_caution_says_what_is_true() {
        let undeclared = intent(json!({"destructive": false}));
        assert!(
            of(&undeclared).destructive,
            "the MCP hint stays conservative"
        );
        assert_eq!(caution(&undeclared), Caution::Undeclared);
        assert_eq!(
            caution(&undeclared).phrase(),
            "runs an undeclared program (it declares no capabilities), so cmpx asks first"
        );
        assert!(!caution(&undeclared).warning().unwrap().contains("undone"));
        for (extra, expected) in [
            (json!({"destructive": true}), Caution::Destructive),
            (json!({"capabilities": ["fs:delete"]}), Caution::Destructive),
            (
                json!({"capabilities": ["fs:overwrite"], "confirm": true}),
                Caution::Destructive,
            ),
            (json!({"capabilities": ["process:spawn"]}), Caution::Spawns),
            (
                json!({"capabilities": ["fs:read"], "confirm": true}),
                Caution::Confirm,
            ),
            (
                json!({"capabilities": ["network:fetch"]}),
                Caution::Capability,
            ),
        ] {
            assert_eq!(caution(&intent(extra.clone())), expected, "{extra}");
        }
        let code = intent(
            json!({"capabilities": ["fs:read"], "command": "sh -c {script}", "params": {"script": {"type": "string"}}}),
        );
        let Caution::RunsCode(why) = caution(&code) else {
            panic!("{:?}", caution(&code));
        };
        assert!(
            caution(&code)
                .phrase()
                .starts_with("runs a value as code ("),
            "{why}"
        );
        assert_eq!(
            Caution::Destructive.warning(),
            Some("This is destructive and cannot be undone.")
        );
        let exported = intent(json!({"command": "cmpx run uuid-generator"}));
        assert_eq!(caution(&exported), Caution::Capability);
    }

    #[test]
    fn unknown_names_are_reported() {
        assert_eq!(
            check(&["fs:read".into(), "fs:explode".into()]),
            vec![
                "\"fs:explode\" is not one of fs:read, fs:write, fs:overwrite, fs:delete, network:fetch, process:spawn, system:random, system:clock"
                    .to_string()
            ]
        );
    }
}
