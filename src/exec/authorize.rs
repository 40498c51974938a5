//! The one authorization point. Every call from every front end (a catalogue tool, an
//! installed intent, a recipe step, a browser tool) is decided here by the user's policy and,
//! where the policy leaves it open, the person's consent; what may run gets a [`Permit`].
//!
//! The executor's run functions take a `Permit`, and only this module makes one, so a route
//! that skips the decision does not compile. A front end supplies only how to ask: the
//! terminal ([`Ask::Terminal`]), its own protocol (it takes the [`Question`] of
//! [`Decision::Ask`] and answers it with [`Question::accept`] or [`Question::decline`]), or
//! not at all ([`Ask::Never`]). Every refusal is worded here, once.

use super::confirm::{self, Consent};
use super::invoke::Target;
use crate::cmp::effects::{self, Caution};
use crate::ctp::{ErrorCode, ToolError};
use crate::policy::{self, Need, Verdict};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// What is asked to run.
pub enum Call<'a> {
    /// A catalogue tool run in process: `reads` are the `@path` files of its command line,
    /// `output` its `--output-file`.
    Builtin {
        id: &'a str,
        reads: &'a [PathBuf],
        output: Option<&'a Path>,
    },
    /// One intent of an installed tool (an adapter, a third-party folder, ours with
    /// `--intent`) with the arguments it will get; its parameters are read as paths against
    /// the working directory (see [`policy::intent_needs`]).
    Intent {
        target: &'a Target,
        args: &'a Map<String, Value>,
    },
    /// A browser tool of a BTCP session: the capabilities it declares, and those the person
    /// granted to this session alone.
    Browser {
        name: &'a str,
        capabilities: Vec<String>,
        session_grants: Vec<String>,
    },
}

/// Proof that the policy and, where needed, the person allowed one call. Only this module
/// makes one; the executor's run functions take it by value, so each permit runs one call.
#[derive(Debug)]
#[must_use = "a permit does nothing until the executor runs the call with it"]
pub struct Permit {
    tool: String,
}

impl Permit {
    /// The tool (or browser tool) the permit was given for.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// For the worker process, which runs only what its parent sends over its private pipe
    /// (the parent held a permit for it), and for the tests, which run the catalogue's
    /// examples and their own fixed inputs (`exec::run_definition`).
    pub(super) fn internal(tool: &str) -> Permit {
        Permit {
            tool: tool.to_string(),
        }
    }
}

/// The decision about a call.
pub enum Decision {
    /// Granted by the policy (or low risk and not asking itself): run.
    Run(Permit),
    /// Neither granted nor denied, or the intent asks itself: run only with the person's yes.
    Ask(Question),
    /// Denied (or the policy file cannot be read): nothing runs, whatever consent is given.
    Refuse(ToolError),
}

/// A question for the person: what would run and why it asks. Answered with
/// [`Question::accept`] (the person said yes, or the front end was started with consent for
/// everything), [`Question::decline`], or [`Question::cannot_ask`].
#[derive(Debug)]
pub struct Question {
    tool: String,
    /// The capabilities the policy neither grants nor denies (empty when only the intent
    /// itself asks).
    capabilities: Vec<String>,
    caution: Caution,
    /// What would run, as a shell line (for a built-in tool, `cmpx run <id>`).
    command: String,
    /// Fields every refusal of this call carries in `error.data`.
    data: Map<String, Value>,
}

impl Question {
    pub fn tool(&self) -> &str {
        &self.tool
    }

    pub fn capabilities(&self) -> &[String] {
        &self.capabilities
    }

    pub fn caution(&self) -> &Caution {
        &self.caution
    }

    /// The command line a question shows the person.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The person said yes.
    pub fn accept(self) -> Permit {
        Permit { tool: self.tool }
    }

    /// The person said no.
    pub fn decline(self) -> ToolError {
        self.refusal(true, "", "")
    }

    /// Nobody could be asked: `why` finishes "…, and …" (e.g. "this client cannot ask the
    /// person"), `hint` says how the person can let it run; `<tool>` and `<capability>` in it
    /// become this call's tool and the first capability that asks.
    pub fn cannot_ask(self, why: &str, hint: &str) -> ToolError {
        self.refusal(false, why, hint)
    }

    fn refusal(self, declined: bool, why: &str, hint: &str) -> ToolError {
        let what = if declined {
            "declined by the person"
        } else {
            "required"
        };
        let action = match (&self.caution, self.capabilities.is_empty()) {
            (Caution::Capability, false) => format!(
                "needs {}, which the policy neither grants nor denies",
                self.capabilities.join(", ")
            ),
            (caution, true) => caution.phrase(),
            (caution, false) => format!(
                "{} and needs {}, which the policy neither grants nor denies",
                caution.phrase(),
                self.capabilities.join(", ")
            ),
        };
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(", and {why}")
        };
        let hint = if hint.is_empty() {
            String::new()
        } else {
            let hint = hint.replace("<tool>", &self.tool);
            match self.capabilities.first() {
                Some(c) => format!(" {}", hint.replace("<capability>", c)),
                None => format!(" {hint}"),
            }
        };
        let mut data = self.data;
        data.insert("confirmationRequired".into(), json!(true));
        data.insert("declined".into(), json!(declined));
        data.insert("capabilities".into(), json!(self.capabilities));
        ToolError::new(
            ErrorCode::Unauthorized,
            format!("confirmation {what}: this action {action}{why}; nothing was run.{hint}"),
        )
        .with_data(Value::Object(data))
    }
}

/// How a front end that answers at once obtains consent.
#[derive(Debug, Clone, Copy)]
pub enum Ask<'a> {
    /// The command line: `--yes` consents; otherwise the person is asked at the terminal,
    /// when there is one.
    Terminal { yes: bool },
    /// Consent for everything was given when the front end started (`cmpx mcp
    /// --allow-destructive`) or earlier in this same call (a recipe's plan).
    Given,
    /// Nobody can be asked here: `why` and `hint` as for [`Question::cannot_ask`].
    Never { why: &'a str, hint: &'a str },
}

/// The hint of a command line that could not ask.
pub const TERMINAL_HINT: &str = "Re-run with --yes to proceed, or let it run without asking with `cmpx policy grant <capability> --tool <tool>`.";

/// The decision about `call` under the user's policy file.
pub fn decide(call: &Call) -> Decision {
    match call {
        Call::Builtin { id, reads, output } => {
            let verdict = policy::check(id, &policy::builtin_needs(id, reads, output.as_deref()));
            let data = tool_data(id);
            let command = format!("{} run {id}", crate::cmp::mapping::BINARY);
            match verdict {
                Verdict::Granted => Decision::Run(Permit::internal(id)),
                Verdict::Denied(why) => Decision::Refuse(denied(id, &why, data)),
                Verdict::Ask(capabilities) => Decision::Ask(Question {
                    tool: id.to_string(),
                    capabilities,
                    caution: Caution::Capability,
                    command,
                    data,
                }),
            }
        }
        Call::Intent { target, args } => {
            let tool = target.manifest.name.as_str();
            let mut data = tool_data(tool);
            let argv = super::invoke::plan(target, args).map(|(argv, _)| argv);
            let command = match &argv {
                Ok(argv) => shell_words::join(argv),
                Err(_) => target.intent.command.clone(),
            };
            if let Ok(argv) = &argv {
                data.insert("argv".into(), json!(argv));
                data.insert("command".into(), json!(command));
            }
            data.insert(
                "destructive".into(),
                json!(effects::of(&target.intent).destructive),
            );
            let verdict = policy::check(tool, &policy::intent_needs(&target.intent, args));
            let capabilities = match verdict {
                Verdict::Denied(why) => return Decision::Refuse(denied(tool, &why, data)),
                Verdict::Ask(capabilities) => capabilities,
                Verdict::Granted => Vec::new(),
            };
            if capabilities.is_empty() && !effects::asks_itself(&target.intent) {
                return Decision::Run(Permit::internal(tool));
            }
            Decision::Ask(Question {
                tool: tool.to_string(),
                capabilities,
                caution: effects::caution(&target.intent),
                command,
                data,
            })
        }
        Call::Browser {
            name,
            capabilities,
            session_grants,
        } => {
            let needs: Vec<Need> = capabilities.iter().map(|c| Need::new(c)).collect();
            let data = tool_data(name);
            let mut rules = match policy::file::load() {
                Ok(p) => p,
                Err(why) => return Decision::Refuse(denied(name, &why, data)),
            };
            rules
                .grant
                .extend(session_grants.iter().map(|c| policy::file::Rule {
                    capability: c.clone(),
                    tool: None,
                    path: None,
                }));
            match policy::decide(&rules, name, &needs) {
                Verdict::Granted => Decision::Run(Permit::internal(name)),
                Verdict::Denied(why) => Decision::Refuse(denied(name, &why, data)),
                Verdict::Ask(capabilities) => Decision::Ask(Question {
                    tool: name.to_string(),
                    capabilities,
                    caution: Caution::Capability,
                    command: format!("browser tool {name}"),
                    data,
                }),
            }
        }
    }
}

/// [`decide`], with the question (if any) answered as `ask` says: the permit, or why not.
pub fn authorize(call: &Call, ask: Ask) -> Result<Permit, ToolError> {
    match decide(call) {
        Decision::Run(permit) => Ok(permit),
        Decision::Refuse(e) => Err(e),
        Decision::Ask(question) => {
            match ask {
                Ask::Given => Ok(question.accept()),
                Ask::Never { why, hint } => Err(question.cannot_ask(why, hint)),
                Ask::Terminal { yes } => match confirm::obtain(
                    true,
                    question.caution.warning(),
                    &question.command,
                    yes,
                    true,
                ) {
                    Consent::Given => Ok(question.accept()),
                    Consent::Declined => Err(question.decline()),
                    Consent::Required => Err(question
                        .cannot_ask("there is no terminal to ask and no --yes", TERMINAL_HINT)),
                },
            }
        }
    }
}

fn tool_data(tool: &str) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("tool".into(), json!(tool));
    data
}

/// The one wording of a deny.
fn denied(tool: &str, why: &str, mut data: Map<String, Value>) -> ToolError {
    data.insert("denied".into(), json!(true));
    ToolError::new(
        ErrorCode::Unauthorized,
        format!(
            "not allowed: {why}; nothing was run. A deny holds whatever consent is given (--yes \
             included); only the person can change it (`cmpx policy` shows the rules that apply \
             to {tool})."
        ),
    )
    .with_data(Value::Object(data))
}

/// The files a command line's words would read: every value that is `@path` (not `@@…`).
pub fn at_paths(words: &[String]) -> Vec<PathBuf> {
    words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((name, value)) if name.starts_with("--") => value,
            _ => w.as_str(),
        })
        .filter_map(|v| {
            v.strip_prefix('@')
                .filter(|p| !p.starts_with('@') && !p.is_empty())
        })
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_files_a_command_line_reads() {
        let words: Vec<String> = ["--input", "@a.json", "--x=@b", "@@literal", "plain", "@"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            at_paths(&words),
            vec![PathBuf::from("a.json"), PathBuf::from("b")]
        );
    }

    fn question(caution: Caution, capabilities: &[&str]) -> Question {
        Question {
            tool: "t".into(),
            capabilities: capabilities.iter().map(|c| c.to_string()).collect(),
            caution,
            command: "t --x".into(),
            data: tool_data("t"),
        }
    }

    #[test]
    fn refusals_say_what_asks_and_why_nobody_said_yes() {
        let e = question(Caution::Capability, &["fs:read"]).cannot_ask(
            "no way to ask",
            "Try `cmpx policy grant <capability> --tool <tool>`.",
        );
        assert_eq!(
            e.message,
            "confirmation required: this action needs fs:read, which the policy neither grants nor denies, and no way to ask; nothing was run. Try `cmpx policy grant fs:read --tool t`."
        );
        let data = e.data.unwrap();
        assert_eq!(data["confirmationRequired"], true);
        assert_eq!(data["declined"], false);
        assert_eq!(data["tool"], "t");
        let e = question(Caution::Undeclared, &[]).decline();
        assert_eq!(
            e.message,
            "confirmation declined by the person: this action runs an undeclared program (it declares no capabilities), so cmpx asks first; nothing was run."
        );
        assert_eq!(e.data.unwrap()["declined"], true);
        let e = question(Caution::Destructive, &["fs:delete"]).cannot_ask("", "");
        assert!(
            e.message.starts_with(
                "confirmation required: this action is destructive (cannot be undone) and needs fs:delete"
            ),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_deny_says_so_whatever_the_front_end() {
        let e = denied(
            "t",
            "fs:read is denied by the policy (fs:read)",
            tool_data("t"),
        );
        assert!(e.message.starts_with(
            "not allowed: fs:read is denied by the policy (fs:read); nothing was run."
        ));
        assert_eq!(e.code, ErrorCode::Unauthorized);
        assert_eq!(e.data.unwrap()["denied"], true);
    }
}

/// The grep-level half of "one way in" (the type system is the other): who may call the
/// functions that run something, and who may make a permit.
#[cfg(test)]
mod one_way_in {
    use std::path::Path;

    /// Every non-test line of every source file under src/, with its path from src/.
    fn source_lines() -> Vec<(String, String)> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let rel = path.strip_prefix(root).unwrap().display().to_string();
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Unit tests sit at the end of a file, after `#[cfg(test)]`.
                    let code = text.split("#[cfg(test)]").next().unwrap_or("");
                    out.extend(
                        code.lines()
                            .filter(|l| !l.trim_start().starts_with("//"))
                            .map(|l| (rel.clone(), l.to_string())),
                    );
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut out = Vec::new();
        walk(&root, &root, &mut out);
        out
    }

    /// The files whose lines contain any of `needles`, sorted and deduplicated.
    fn callers(needles: &[&str]) -> Vec<String> {
        let mut files: Vec<String> = source_lines()
            .into_iter()
            .filter(|(_, line)| needles.iter().any(|n| line.contains(n)))
            .map(|(file, _)| file)
            .collect();
        files.sort();
        files.dedup();
        files
    }

    #[test]
    fn only_the_front_ends_call_the_run_functions() {
        assert_eq!(
            callers(&[
                "worker::run(",
                "worker::run_cancellable(",
                "invoke::invoke(",
                "invoke::invoke_cancellable(",
                "stream::run(&permit",
                "link.call(permit",
            ]),
            [
                "btcp/agent.rs",      // a BTCP agent's tools/call (cannot ask)
                "commands/run.rs",    // cmpx run <catalogue tool> (asks at the terminal)
                "commands/target.rs", // cmpx run <installed tool>, cmpx do
                "exec/invoke.rs",     // an intent that runs a catalogue tool
                "mcp/engine.rs",      // MCP on stdio and HTTP (asks through the client)
                "pipe/run.rs",        // recipe steps (cmpx pipe, /api/pipe, the MCP pipe tool)
                "serve/tools.rs",     // the CTP endpoints (cannot ask)
            ],
            "a new caller of a run function is a new way in: it must obtain a permit from \
             exec::authorize and be listed here"
        );
    }

    #[test]
    fn only_the_authorization_point_reads_the_policy_for_a_call() {
        assert_eq!(
            callers(&["policy::check(", "policy::decide("]),
            ["exec/authorize.rs"]
        );
    }

    #[test]
    fn permits_are_made_only_inside_the_executor() {
        assert_eq!(callers(&["Permit {"]), ["exec/authorize.rs"]);
        assert_eq!(
            callers(&["Permit::internal("]),
            [
                "exec/authorize.rs",
                "exec/builtin.rs", // the catalogue's own examples (run_definition)
                "exec/invoke.rs",  // `cmpx run <id>` as an authorized intent's command
                "exec/worker.rs",  // the worker process, running what its parent sends
            ]
        );
    }

    #[test]
    fn the_policy_free_runners_serve_only_examples_and_tests() {
        // The tool library's runner (cmpx_tools::run) asks no policy: in this crate only the
        // executor calls it, under a permit (exec/mod.rs re-exports its envelope helpers).
        assert_eq!(
            callers(&["cmpx_tools::run::execute", "cmpx_tools::run::run"]),
            ["exec/builtin.rs"]
        );
        // The examples' runner has no caller outside test code (the catalogue's example
        // checks, tests/contracts.rs and the fuzz targets).
        assert_eq!(
            callers(&["exec::run_definition", "exec::run_builtin"]),
            Vec::<String>::new()
        );
    }
}
