//! Consent over MCP for intents that change files or run code. 2025 era: an
//! `elicitation/create` request with an unguessable id, whose answer counts only when it
//! comes after the question, for that id, within [`TIME_LIMIT`]. 2026-07-28: a multi
//! round-trip request (`input_required`), whose `requestState` is a single-use, unguessable
//! token bound to the tool and its arguments. Either way the prompt shows the exact command
//! with control characters escaped, and only a form-capable client is asked.

use crate::cmp::effects::Caution;
use crate::ctp::{ErrorCode, ToolError, ToolResult};
use crate::secret::random_token;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

/// How long a question stays open.
pub(super) const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Why a 2025-era question was not asked of an HTTP client that accepts only JSON: the
/// question is a request of the server's, which goes on the call's event stream.
pub(super) const JSON_ONLY: &str = "the question cannot be asked over a JSON response (this request accepts only application/json, and cmpx asks with elicitation/create on the call's text/event-stream; use a client that accepts text/event-stream)";

/// The key of our one input request in a 2026-07-28 `inputRequests` map.
pub(super) const INPUT_KEY: &str = "cmpx_consent";

/// Whether the client declared form-mode elicitation: `elicitation: {}` (form implied) or
/// `elicitation: {form: {}}`; `{url: {}}` alone is not enough (we show a form).
pub(super) fn form_capable(capabilities: &Value) -> bool {
    match capabilities.get("elicitation") {
        Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
        _ => false,
    }
}

/// The question's text: the command with every control and direction character escaped, and
/// what the person should know before answering ([`Caution::warning`]).
pub(super) fn prompt(command: &str, warning: Option<&str>) -> String {
    let warning = warning.map(|w| format!(" {w}")).unwrap_or_default();
    format!(
        "cmpx will run: {}.{warning} Proceed?",
        crate::text::escape_control(command)
    )
}

/// The `elicitation/create` params (without `mode` for clients before 2025-11-25).
pub(super) fn question(command: &str, warning: Option<&str>, with_mode: bool) -> Value {
    let mut params = json!({
        "message": prompt(command, warning),
        "requestedSchema": {
            "type": "object",
            "properties": { "confirm": { "type": "boolean", "title": "Run it", "description": "Run this command" } },
            "required": ["confirm"],
        },
    });
    if with_mode {
        params["mode"] = json!("form");
    }
    params
}

/// An `ElicitResult` that says yes: accepted, with `confirm: true`.
pub(super) fn accepted(answer: &Value) -> bool {
    answer.get("action") == Some(&json!("accept"))
        && answer.pointer("/content/confirm") == Some(&json!(true))
}

/// How the person can let a refused call run: what the model can tell them.
pub(super) const HINT: &str = "Ask the person you work for: they can allow it when their MCP client asks (a client with form elicitation), or start the server with `cmpx mcp --allow-destructive`, or grant what it needs for good with `cmpx policy grant <capability> --tool <tool>`; at a terminal they can run it themselves with `cmpx run <tool> … --yes`.";

/// Nothing ran because nobody could say yes: what the model can do, and what a person can.
pub(super) fn refusal(tool: &str, command: &str, caution: &Caution, why: &str) -> ToolResult {
    let kind = caution.phrase();
    ToolResult::err(
        ToolError::new(
            ErrorCode::Unauthorized,
            format!(
                "confirmation required: this action {kind}, and {why}; nothing was run. \
                 Ask the person you work for: they can allow it when their MCP client asks \
                 (a client with form elicitation), or start the server with \
                 `cmpx mcp --allow-destructive`, or grant what it needs for good with \
                 `cmpx policy grant <capability> --tool {tool}`; at a terminal they can run it \
                 themselves with `cmpx run {tool} … --yes`."
            ),
        )
        .with_data(json!({ "confirmationRequired": true, "declined": false, "command": command })),
        None,
    )
}

/// The policy denies something the tool needs: no question is asked, nothing runs.
pub(super) fn denied(tool: &str, why: &str) -> ToolResult {
    ToolResult::err(
        ToolError::new(
            ErrorCode::Unauthorized,
            format!(
                "not allowed: {why}; nothing was run. Only the person can change that, with \
                 `cmpx policy` (see `cmpx policy` for the rules that apply to {tool})."
            ),
        )
        .with_data(json!({ "denied": true, "tool": tool })),
        None,
    )
}

pub(super) fn declined(command: &str) -> ToolResult {
    ToolResult::err(
        ToolError::new(
            ErrorCode::Unauthorized,
            "confirmation declined by the user; nothing was run",
        )
        .with_data(json!({ "confirmationRequired": true, "declined": true, "command": command })),
        None,
    )
}

/// Open questions (2025 era) and tokens handed out (2026-07-28).
#[derive(Default)]
pub(super) struct Book {
    questions: Mutex<HashMap<String, Sender<Value>>>,
    tokens: Mutex<HashMap<String, Pending>>,
}

struct Pending {
    /// The tool name and arguments the token was issued for.
    binding: String,
    expires: Instant,
}

/// What a call's tool name and arguments are bound to: its canonical JSON.
pub(super) fn binding(name: &str, args: &Map<String, Value>) -> String {
    serde_json::to_string(&json!([name, args])).unwrap_or_default()
}

impl Book {
    /// Opens a question: its id and where its answer will arrive.
    pub(super) fn ask(&self) -> (String, Receiver<Value>) {
        let id = format!("cmpx-consent-{}", random_token());
        let (tx, rx) = mpsc::channel();
        if let Ok(mut q) = self.questions.lock() {
            q.insert(id.clone(), tx);
        }
        (id, rx)
    }

    /// Closes a question (answered, timed out, cancelled).
    pub(super) fn close(&self, id: &str) {
        if let Ok(mut q) = self.questions.lock() {
            q.remove(id);
        }
    }

    /// A client's response: delivered when it answers an open question, else dropped (an
    /// answer sent before the question, or for another id, counts for nothing).
    pub(super) fn answer(&self, id: &Value, body: &Map<String, Value>) {
        let Some(id) = id.as_str() else { return };
        let Some(tx) = self.questions.lock().ok().and_then(|mut q| q.remove(id)) else {
            return;
        };
        let result = body.get("result").cloned().unwrap_or(Value::Null);
        let _ = tx.send(result);
    }

    /// Refuses every open question (end of input: nobody is left to answer).
    pub(super) fn close_all(&self) {
        if let Ok(mut q) = self.questions.lock() {
            q.clear();
        }
    }

    /// A token for a 2026-07-28 retry of this very call.
    pub(super) fn issue(&self, binding: String) -> String {
        let token = random_token();
        if let Ok(mut t) = self.tokens.lock() {
            let now = Instant::now();
            t.retain(|_, p| p.expires > now);
            t.insert(
                token.clone(),
                Pending {
                    binding,
                    expires: now + TIME_LIMIT,
                },
            );
        }
        token
    }

    /// Takes a token back: true once, for the call it was issued for, before it expires.
    pub(super) fn redeem(&self, token: &str, binding: &str) -> bool {
        let Ok(mut t) = self.tokens.lock() else {
            return false;
        };
        match t.get(token) {
            Some(p) if p.binding == binding && p.expires > Instant::now() => {
                t.remove(token);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_count_only_for_an_open_question() {
        let book = Book::default();
        let yes = json!({"result": {"action": "accept", "content": {"confirm": true}}});
        let yes = yes.as_object().unwrap();
        // Before any question: dropped.
        book.answer(&json!("cmpx-consent-1"), yes);
        let (id, rx) = book.ask();
        assert_eq!(id.len(), "cmpx-consent-".len() + 32);
        assert!(rx.try_recv().is_err());
        book.answer(&json!("cmpx-consent-1"), yes);
        assert!(rx.try_recv().is_err());
        book.answer(&json!(id), yes);
        assert!(accepted(&rx.try_recv().unwrap()));
        // A second answer to the same question: dropped.
        book.answer(&json!(id), yes);
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn tokens_are_single_use_and_bound_to_the_call() {
        let book = Book::default();
        let args = json!({"path": "x"}).as_object().unwrap().clone();
        let t = book.issue(binding("files.delete", &args));
        assert!(!book.redeem(&t, &binding("files.delete", &Map::new())));
        assert!(!book.redeem("forged", &binding("files.delete", &args)));
        assert!(book.redeem(&t, &binding("files.delete", &args)));
        assert!(!book.redeem(&t, &binding("files.delete", &args)));
    }

    #[test]
    fn the_prompt_escapes_what_would_hide_the_command() {
        let p = prompt(
            "rm -- 'a\rb\u{1b}[2K\u{202e}txt.exe'\nls",
            Caution::Destructive.warning(),
        );
        assert!(!p.chars().any(|c| c.is_control() || c == '\u{202e}'), "{p}");
        assert!(p.contains("\\r") && p.contains("\\u{1b}") && p.contains("\\u{202e}"));
        assert!(p.ends_with("This is destructive and cannot be undone. Proceed?"));
    }

    /// An intent that declares nothing is not called destructive: it is said to declare
    /// nothing (issue 37, item 21).
    #[test]
    fn an_undeclared_intent_is_not_called_destructive() {
        let p = prompt("echo hi", Caution::Undeclared.warning());
        assert_eq!(
            p,
            "cmpx will run: echo hi. It runs a program that declares no capabilities, so cmpx cannot say what it changes. Proceed?"
        );
        let r = refusal("hello", "echo hi", &Caution::Undeclared, "no way to ask");
        let error = r.error.unwrap();
        assert!(
            error.starts_with("confirmation required: this action runs an undeclared program (it declares no capabilities), so cmpx asks first, and no way to ask; nothing was run."),
            "{error}"
        );
        assert!(!error.contains("undone"));
    }

    #[test]
    fn only_form_capable_clients_are_asked() {
        assert!(form_capable(&json!({"elicitation": {}})));
        assert!(form_capable(
            &json!({"elicitation": {"form": {}, "url": {}}})
        ));
        assert!(!form_capable(&json!({"elicitation": {"url": {}}})));
        assert!(!form_capable(&json!({})));
    }
}
