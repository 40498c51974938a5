//! The capability vocabulary (BTCP's names where they apply, local ones for what BTCP has no
//! word for), each name's risk level, what every catalogue tool declares, and the reversible
//! mapping between catalogue ids and BTCP tool names.

use serde::Serialize;

/// How much a capability can hurt; low ones are granted unless the policy denies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
    Critical,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

/// One known capability.
pub struct Known {
    pub name: &'static str,
    pub risk: Risk,
    /// Local names are cmpx's own; the others are BTCP's (docs/api/core/capabilities.md).
    pub local: bool,
    pub what: &'static str,
}

const fn local(name: &'static str, risk: Risk, what: &'static str) -> Known {
    Known {
        name,
        risk,
        local: true,
        what,
    }
}

const fn btcp(name: &'static str, risk: Risk, what: &'static str) -> Known {
    Known {
        name,
        risk,
        local: false,
        what,
    }
}

pub const FS_READ: &str = "fs:read";
pub const FS_WRITE: &str = "fs:write";
pub const FS_OVERWRITE: &str = "fs:overwrite";
pub const FS_DELETE: &str = "fs:delete";
pub const NETWORK_FETCH: &str = "network:fetch";
pub const PROCESS_SPAWN: &str = "process:spawn";
pub const SYSTEM_RANDOM: &str = "system:random";
pub const SYSTEM_CLOCK: &str = "system:clock";

/// Every name cmpx knows, local ones first.
pub const VOCABULARY: &[Known] = &[
    local(FS_READ, Risk::Low, "reads files or directories"),
    local(
        FS_WRITE,
        Risk::Medium,
        "creates files or directories, never replacing any",
    ),
    local(
        FS_OVERWRITE,
        Risk::High,
        "may replace an existing file's content",
    ),
    local(FS_DELETE, Risk::High, "removes files or directories"),
    local(NETWORK_FETCH, Risk::Medium, "opens network connections"),
    local(
        PROCESS_SPAWN,
        Risk::High,
        "runs a program or code that nothing declares",
    ),
    local(SYSTEM_RANDOM, Risk::Low, "uses the system's random numbers"),
    local(SYSTEM_CLOCK, Risk::Low, "reads the current time"),
    btcp("dom:read", Risk::Low, "reads the page"),
    btcp("dom:write", Risk::Medium, "changes the page"),
    btcp("dom:observe", Risk::Low, "watches the page change"),
    btcp("dom:shadow", Risk::Medium, "reaches into shadow DOM"),
    btcp("storage:local:read", Risk::Low, "reads localStorage"),
    btcp("storage:local:write", Risk::Medium, "writes localStorage"),
    btcp("storage:session:read", Risk::Low, "reads sessionStorage"),
    btcp(
        "storage:session:write",
        Risk::Medium,
        "writes sessionStorage",
    ),
    btcp("storage:indexed:read", Risk::Medium, "reads IndexedDB"),
    btcp("storage:indexed:write", Risk::High, "writes IndexedDB"),
    btcp("storage:cookie:read", Risk::High, "reads cookies"),
    btcp("storage:cookie:write", Risk::Critical, "writes cookies"),
    btcp(
        "network:fetch:same-origin",
        Risk::Medium,
        "fetches from the page's origin",
    ),
    btcp(
        "network:fetch:cross-origin",
        Risk::High,
        "fetches from any origin",
    ),
    btcp(
        "network:websocket:same-origin",
        Risk::Medium,
        "opens WebSockets to the page's origin",
    ),
    btcp(
        "network:websocket:cross-origin",
        Risk::High,
        "opens WebSockets to any origin",
    ),
    btcp("clipboard:read", Risk::High, "reads the clipboard"),
    btcp("clipboard:write", Risk::Medium, "writes the clipboard"),
    btcp("media:camera", Risk::Critical, "uses the camera"),
    btcp("media:microphone", Risk::Critical, "uses the microphone"),
    btcp("media:screen", Risk::Critical, "captures the screen"),
];

/// BTCP's implications: granting the left one grants the right one too.
const IMPLIES: &[(&str, &str)] = &[
    ("dom:write", "dom:read"),
    ("storage:local:write", "storage:local:read"),
    ("storage:session:write", "storage:session:read"),
    ("storage:indexed:write", "storage:indexed:read"),
    ("network:fetch:cross-origin", "network:fetch:same-origin"),
];

pub fn known(name: &str) -> Option<&'static Known> {
    VOCABULARY.iter().find(|k| k.name == name)
}

/// A name nobody declared a risk for (a browser tool's own word) counts as high.
pub fn risk(name: &str) -> Risk {
    known(name).map_or(Risk::High, |k| k.risk)
}

/// The names that `granted` also grants (itself included).
pub fn covered_by(granted: &str) -> Vec<&str> {
    let mut out = vec![granted];
    out.extend(
        IMPLIES
            .iter()
            .filter(|(from, _)| *from == granted)
            .map(|(_, to)| *to),
    );
    out
}

/// BTCP's shape for a capability name: `^[a-z]+:[a-z]+(:[a-z-]+)?$`.
pub fn well_formed(name: &str) -> bool {
    let parts: Vec<&str> = name.split(':').collect();
    let word = |s: &str, dash: bool| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || (dash && b == b'-'))
    };
    match parts.as_slice() {
        [a, b] => word(a, false) && word(b, false),
        [a, b, c] => word(a, false) && word(b, false) && word(c, true),
        _ => false,
    }
}

/// Catalogue tools that use the system's random numbers: the ones whose output varies from run
/// to run, one list kept in `tools` (the clock-reading ones below take their time as an input).
const RANDOM: &[&str] = crate::tools::NONDETERMINISTIC;

/// Catalogue tools that read the clock (when no time is given).
const CLOCK: &[&str] = &[
    "cron-parser",
    "date-calculator",
    "eta-calculator",
    "fernet-encryptor",
    "ipv6-ula-generator",
    "jwt-decoder",
    "jwt-encoder",
    "otp-generator",
    "timestamp-converter",
    "ulid-generator",
    "uuid-generator",
];

/// What a catalogue tool itself touches: most nothing; a few use randomness or the clock.
/// Reading `@path` files and writing `--output-file` are the command line's, checked where
/// they happen (fs:read and fs:write on that path).
pub fn of_catalogue_tool(id: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if RANDOM.contains(&id) {
        out.push(SYSTEM_RANDOM);
    }
    if CLOCK.contains(&id) {
        out.push(SYSTEM_CLOCK);
    }
    out
}

/// A catalogue id as a BTCP tool name (`^[a-zA-Z][a-zA-Z0-9_]*$`): `json-formatter` →
/// `json_formatter`. Catalogue ids use lowercase letters, digits and single hyphens, so the
/// mapping reverses exactly.
pub fn btcp_name(id: &str) -> String {
    id.replace('-', "_")
}

/// The catalogue id a name stands for, in either form (`json_formatter` or `json-formatter`).
pub fn catalogue_id(name: &str) -> Option<String> {
    let id = name.replace('_', "-");
    crate::catalogue::get(&id).map(|d| d.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_btcp_shape_and_risks_are_known() {
        for k in VOCABULARY {
            assert!(well_formed(k.name), "{}", k.name);
        }
        assert!(!well_formed("Dom:read") && !well_formed("dom") && !well_formed("a:b:c:d"));
        assert_eq!(risk("fs:read"), Risk::Low);
        assert_eq!(risk("dom:write"), Risk::Medium);
        assert_eq!(risk("code:execute"), Risk::High);
        assert_eq!(covered_by("dom:write"), vec!["dom:write", "dom:read"]);
    }

    #[test]
    fn ids_map_to_btcp_names_and_back() {
        for def in crate::catalogue::all() {
            let name = btcp_name(&def.id);
            assert!(
                name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && name.len() <= 64,
                "{name}"
            );
            assert_eq!(catalogue_id(&name).as_deref(), Some(def.id.as_str()));
            assert_eq!(catalogue_id(&def.id).as_deref(), Some(def.id.as_str()));
        }
        assert_eq!(btcp_name("json-formatter"), "json_formatter");
        assert_eq!(catalogue_id("no_such_tool"), None);
    }

    #[test]
    fn declared_catalogue_tools_exist() {
        for id in RANDOM.iter().chain(CLOCK) {
            assert!(crate::catalogue::get(id).is_some(), "{id}");
        }
        assert_eq!(of_catalogue_tool("json-formatter"), Vec::<&str>::new());
        assert_eq!(
            of_catalogue_tool("uuid-generator"),
            vec![SYSTEM_RANDOM, SYSTEM_CLOCK]
        );
    }
}
