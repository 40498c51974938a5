//! The capability vocabulary (BTCP's names where they apply, local ones for what BTCP has no
//! word for), each name's risk level, what every catalogue tool declares (from the flags in
//! its contract file), and the reversible mapping between catalogue ids and BTCP tool names.

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
pub(crate) const SYSTEM_RANDOM: &str = "system:random";
pub(crate) const SYSTEM_CLOCK: &str = "system:clock";

/// Every name cmpx knows, local ones first.
pub(crate) const VOCABULARY: &[Known] = &[
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

pub(crate) fn known(name: &str) -> Option<&'static Known> {
    VOCABULARY.iter().find(|k| k.name == name)
}

/// A name nobody declared a risk for (a browser tool's own word) counts as high.
pub(crate) fn risk(name: &str) -> Risk {
    known(name).map_or(Risk::High, |k| k.risk)
}

/// The names that `granted` also grants (itself included).
pub(crate) fn covered_by(granted: &str) -> Vec<&str> {
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
pub(crate) fn well_formed(name: &str) -> bool {
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

/// The families the vocabulary's names belong to (`fs`, `network`, `dom`, …), in order.
pub(crate) fn families() -> Vec<&'static str> {
    let mut out: Vec<&str> = Vec::new();
    for k in VOCABULARY {
        let family = k.name.split(':').next().unwrap_or(k.name);
        if !out.contains(&family) {
            out.push(family);
        }
    }
    out
}

/// Why `name` cannot be a policy rule's capability, or `None` when it can: `*`, a family
/// (`fs:*`), a name of the vocabulary, or, in a family the vocabulary does not have, a
/// well-formed name (a browser tool's own word, such as `code:execute`). Within a known family
/// only the vocabulary's names exist, so `fs:delet` is refused rather than kept as a rule that
/// never matches. The message offers the closest name when one is close.
pub(crate) fn rule_problem(name: &str) -> Option<String> {
    let lowercase_word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase());
    let family = name.strip_suffix(":*");
    if name == "*"
        || family.is_some_and(lowercase_word)
        || known(name).is_some()
        || (well_formed(name) && !families().contains(&name.split(':').next().unwrap_or("")))
    {
        return None;
    }
    let patterns: Vec<String> = families().iter().map(|f| format!("{f}:*")).collect();
    let candidates = VOCABULARY
        .iter()
        .map(|k| k.name)
        .chain(patterns.iter().map(String::as_str))
        .chain(["*"]);
    let hint = crate::suggest::did_you_mean(name.trim(), candidates)
        .map(|s| format!("; did you mean {s}?"))
        .unwrap_or_default();
    let shown = crate::text::preview(name, 60);
    Some(if well_formed(name) {
        let family = name.split(':').next().unwrap_or("");
        let names: Vec<&str> = VOCABULARY
            .iter()
            .map(|k| k.name)
            .filter(|n| n.split(':').next() == Some(family))
            .collect();
        format!(
            "'{shown}' is not a capability: the {family} family has {}{hint}",
            names.join(", ")
        )
    } else {
        format!(
            "'{shown}' is not a capability name: use category:action in lowercase like fs:write or dom:read (or a family, fs:*, or * for all); `cmpx policy` lists them{hint}"
        )
    })
}

/// What a catalogue tool itself touches: most nothing; a few use randomness or the clock, as
/// the flags in their contract files say (`"random"`: every run, or only when a salt, an IV
/// or a seed is left out; `"clock"`). The tests below check the flags against the source and
/// against behaviour. Reading `@path` files and writing `--output-file` are the command
/// line's, checked where they happen (fs:read and fs:write on that path).
pub(crate) fn of_catalogue_tool(id: &str) -> Vec<&'static str> {
    let flags = crate::catalogue::flags(id);
    let mut out = Vec::new();
    if flags.random.is_some() {
        out.push(SYSTEM_RANDOM);
    }
    if flags.clock {
        out.push(SYSTEM_CLOCK);
    }
    out
}

/// A catalogue id as a BTCP tool name (`^[a-zA-Z][a-zA-Z0-9_]*$`): `json-formatter` →
/// `json_formatter`. Catalogue ids use lowercase letters, digits and single hyphens, so the
/// mapping reverses exactly.
pub(crate) fn btcp_name(id: &str) -> String {
    id.replace('-', "_")
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
    fn rule_capabilities_are_known_names_families_or_browser_words() {
        for ok in [
            "*",
            "fs:*",
            "fs:delete",
            "network:fetch:same-origin",
            "code:execute",
            "code:*",
        ] {
            assert_eq!(rule_problem(ok), None, "{ok}");
        }
        let why = |name: &str| rule_problem(name).unwrap();
        assert_eq!(
            why("FS:DELETE"),
            "'FS:DELETE' is not a capability name: use category:action in lowercase like fs:write or dom:read (or a family, fs:*, or * for all); `cmpx policy` lists them; did you mean fs:delete?"
        );
        assert!(why("fs:delete ").contains("did you mean fs:delete?"));
        assert_eq!(
            why("fs:delet"),
            "'fs:delet' is not a capability: the fs family has fs:read, fs:write, fs:overwrite, fs:delete; did you mean fs:delete?"
        );
        assert!(!why("").contains("did you mean"));
        assert_eq!(
            families(),
            [
                "fs",
                "network",
                "process",
                "system",
                "dom",
                "storage",
                "clipboard",
                "media"
            ]
        );
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
            // The mapping reverses exactly.
            assert_eq!(name.replace('_', "-"), def.id);
        }
        assert_eq!(btcp_name("json-formatter"), "json_formatter");
    }

    /// Calls that draw the system's random numbers, directly or inside a library call.
    const RANDOM_CALLS: &str = r"\brand::|\bOsRng\b|\bgetrandom\b|\bthread_rng\b|\bnew_v4\b|\bUlid::new\b|\bgenerate_key\b|\bbcrypt::hash\b|jsonwebtoken::crypto::sign\b";

    /// Calls that read the wall clock: any `Type::now()` and UUID's clock-based constructors.
    /// `Instant::now()` is left out by [`first_call`]: a monotonic deadline, never in a result.
    const CLOCK_CALLS: &str = r"\b(?:[A-Z][A-Za-z0-9]*::now\(|now_v[0-9]+\()";

    /// The first call in `code` that `calls` matches, but `Instant::now(`.
    fn first_call<'a>(calls: &regex::Regex, code: &'a str) -> Option<&'a str> {
        calls
            .find_iter(code)
            .map(|m| m.as_str())
            .find(|m| *m != "Instant::now(")
    }

    /// Tools that share a source file with a random or clock call but never reach it, with the
    /// capability they do not need: each one was read and found so.
    const SHARES_A_FILE: &[(&str, &str)] = &[
        ("uuid-analyzer", SYSTEM_RANDOM),
        ("uuid-analyzer", SYSTEM_CLOCK),
        ("math-evaluator", SYSTEM_RANDOM),
        ("percentage-calculator", SYSTEM_RANDOM),
        ("ipv4-subnet-calculator", SYSTEM_RANDOM),
        ("ipv4-subnet-calculator", SYSTEM_CLOCK),
        ("ipv4-address-converter", SYSTEM_RANDOM),
        ("ipv4-address-converter", SYSTEM_CLOCK),
        ("ipv4-range-expander", SYSTEM_RANDOM),
        ("ipv4-range-expander", SYSTEM_CLOCK),
        ("mac-address-generator", SYSTEM_CLOCK),
        ("password-strength-analyzer", SYSTEM_RANDOM),
        ("basic-auth-generator", SYSTEM_RANDOM),
        ("string-obfuscator", SYSTEM_RANDOM),
        ("duration-formatter", SYSTEM_CLOCK),
        // Verifying a signature draws nothing; only signing (PS*) does.
        ("jwt-decoder", SYSTEM_RANDOM),
    ];

    /// The non-test source of every tool module under crates/tools/src/tools with the tool ids it
    /// registers: modules declared `#[cfg(test)]` are left out, and each file is cut where its
    /// `#[cfg(test)] mod tests` begins.
    fn tool_sources() -> Vec<(std::path::PathBuf, String, Vec<String>)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/tools/src/tools");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        let test_mod =
            regex::Regex::new(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))? )?mod (\w+);").unwrap();
        let mut test_only = Vec::new();
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let dir = match path.file_stem().and_then(|s| s.to_str()) {
                Some("mod") => path.parent().unwrap().to_path_buf(),
                _ => path.with_extension(""),
            };
            for c in test_mod.captures_iter(&text) {
                test_only.push(dir.join(format!("{}.rs", &c[1])));
            }
        }
        let entry = regex::Regex::new(r#"Tool::new\(\s*"([a-z0-9-]+)","#).unwrap();
        let tests_at = regex::Regex::new(r"#\[cfg\(test\)\]\s*mod tests\b").unwrap();
        files
            .into_iter()
            .filter(|p| !test_only.contains(p))
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap();
                let end = tests_at.find(&text).map_or(text.len(), |m| m.start());
                let code: String = text[..end]
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let ids = code
                    .find(" const TOOLS: &[Tool]")
                    .map(|at| {
                        let list = &code[at..at + code[at..].find("];").unwrap()];
                        entry
                            .captures_iter(list)
                            .map(|c| c[1].to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                (path, code, ids)
            })
            .collect()
    }

    /// Every tool whose module draws random numbers or reads the clock declares it (or is
    /// listed, read and found not to reach the call); a module without tools of its own that
    /// makes such a call is a helper whose callers nobody has classified, and fails.
    #[test]
    fn every_random_or_clock_call_belongs_to_a_tool_that_declares_it() {
        let mut problems = Vec::new();
        let mut exempt_used = Vec::new();
        for (capability, pattern) in [(SYSTEM_RANDOM, RANDOM_CALLS), (SYSTEM_CLOCK, CLOCK_CALLS)] {
            let calls = regex::Regex::new(pattern).unwrap();
            for (path, code, ids) in tool_sources() {
                let Some(call) = first_call(&calls, &code) else {
                    continue;
                };
                let file = path.display();
                if ids.is_empty() {
                    problems.push(format!(
                        "{file} calls {call} ({capability}) but registers no tool: say which tools reach it"
                    ));
                }
                for id in ids {
                    let declares = of_catalogue_tool(&id).contains(&capability);
                    let exempt = SHARES_A_FILE.contains(&(id.as_str(), capability));
                    if exempt {
                        exempt_used.push((id.clone(), capability));
                    }
                    if declares && exempt {
                        problems.push(format!(
                            "{id} declares {capability} and is listed as not needing it"
                        ));
                    } else if !declares && !exempt {
                        problems.push(format!(
                            "{id} is implemented in {file}, which calls {call}, but does not declare {capability}"
                        ));
                    }
                }
            }
        }
        for (id, capability) in SHARES_A_FILE {
            if !exempt_used.iter().any(|(i, c)| i == id && c == capability) {
                problems.push(format!(
                    "{id} is listed as sharing a file with a {capability} call, but its file makes none"
                ));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// Behaviour agrees with the declaration: every example of every tool that does not declare
    /// system:random, as given and with each argument left out in turn (a seed, a salt, an IV),
    /// gives the same output three times running. A tool that reads the clock may see the
    /// second change once, not twice.
    #[test]
    fn tools_not_declaring_randomness_repeat_their_output() {
        let mut problems = Vec::new();
        for def in crate::catalogue::all() {
            let declared = of_catalogue_tool(&def.id);
            if declared.contains(&SYSTEM_RANDOM) {
                continue;
            }
            let clock = declared.contains(&SYSTEM_CLOCK);
            let contract = crate::catalogue::contract(&def.id);
            for example in crate::contract::examples(def, contract.as_ref()) {
                let mut inputs = vec![example.input.clone()];
                for key in example.input.keys() {
                    let mut fewer = example.input.clone();
                    fewer.remove(key);
                    inputs.push(fewer);
                }
                for input in inputs {
                    let run = || crate::exec::run_definition(def, &input).data;
                    let (a, b) = (run(), run());
                    let varies = a != b && (!clock || b != run());
                    if varies {
                        problems.push(format!(
                            "{} gives a different output each run for {}",
                            def.id,
                            serde_json::Value::Object(input)
                        ));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// The other half of the behaviour check: a tool flagged `"random": "always"` does give
    /// fresh values from one run to the next, for some example as given or with an argument
    /// left out (its examples may pin a seed, entropy or a key, and are compared by shape
    /// only, so a wrong flag would hide a tool that always repeats).
    #[test]
    fn tools_declaring_random_output_vary() {
        let mut problems = Vec::new();
        for def in crate::catalogue::all() {
            if !crate::catalogue::flags(&def.id).always_random() {
                continue;
            }
            let contract = crate::catalogue::contract(&def.id);
            let varies = crate::contract::examples(def, contract.as_ref())
                .iter()
                .flat_map(|e| {
                    let fewer = e.input.keys().map(|key| {
                        let mut fewer = e.input.clone();
                        fewer.remove(key);
                        fewer
                    });
                    std::iter::once(e.input.clone()).chain(fewer)
                })
                .any(|input| {
                    let run = || crate::exec::run_definition(def, &input).data;
                    run() != run()
                });
            if !varies {
                problems.push(format!(
                    "{} is flagged \"random\": \"always\" but repeats every example, with every argument left out in turn",
                    def.id
                ));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn declared_flags_give_the_capabilities() {
        assert_eq!(of_catalogue_tool("json-formatter"), Vec::<&str>::new());
        assert_eq!(
            of_catalogue_tool("uuid-generator"),
            vec![SYSTEM_RANDOM, SYSTEM_CLOCK]
        );
        assert_eq!(of_catalogue_tool("text-encryptor"), vec![SYSTEM_RANDOM]);
        assert_eq!(of_catalogue_tool("certificate-decoder"), vec![SYSTEM_CLOCK]);
        assert_eq!(of_catalogue_tool("no-such-tool"), Vec::<&str>::new());
    }
}
