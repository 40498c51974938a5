//! `cmpx mcp`: an MCP server over stdio (JSON-RPC 2.0, one message per line). Only protocol
//! goes to stdout, one writer at a time; diagnostics go to stderr; end of input ends the
//! server once running calls have answered. The protocol itself lives in [`engine`], apart
//! from the transport, so an HTTP transport can drive it too.

pub mod apps;
mod consent;
pub mod engine;
mod progressive;
pub mod registry;

use crate::jsonrpc::{self, Line};
use engine::{Engine, Sink};
use registry::{McpTool, Registry};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

pub use engine::{LEGACY, MAX_CALLS, MODERN, call_result};

#[derive(Debug, Clone)]
pub struct Options {
    /// Expose three meta-tools (search, describe, run) instead of every tool.
    pub progressive: bool,
    /// Run intents that need consent without asking.
    pub allow_destructive: bool,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// Calls that run at once; one more is answered at once with a "busy" tool error.
    pub max_calls: usize,
}

/// Serves stdin/stdout until end of input.
pub fn serve(opts: Options) -> i32 {
    serve_linked(opts, None)
}

/// Serves stdin/stdout, with the browser tools of a BTCP session beside the catalogue when
/// `browser` names one (`cmpx mcp --btcp-server`).
pub fn serve_linked(opts: Options, browser: Option<crate::btcp::Link>) -> i32 {
    let roots = crate::paths::all_roots();
    let registry = Registry::load(&roots);
    let remote = browser.as_ref().and_then(|l| l.remote.clone());
    let engine = Arc::new(match browser {
        Some(link) => Engine::with_browser(opts, registry, link),
        None => Engine::new(opts, registry),
    });
    let out = Mutex::new(std::io::stdout());
    let sink: Sink = Arc::new(move |msg: Value| {
        let mut text = serde_json::to_vec(&msg).unwrap_or_default();
        text.push(b'\n');
        let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
        // A client that closed our stdout cannot be told anything more.
        let _ = out.write_all(&text).and_then(|()| out.flush());
    });
    if let Some(remote) = remote {
        let tell = sink.clone();
        remote.watch(move || {
            tell(jsonrpc::notification(
                "notifications/tools/list_changed",
                None,
            ));
        });
    }
    let stdin = std::io::stdin();
    match run(
        &engine,
        std::io::BufReader::with_capacity(1 << 16, stdin.lock()),
        &sink,
    ) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cmpx mcp: {e}");
            1
        }
    }
}

/// Reads messages until end of input, then waits for running calls.
pub fn run(engine: &Arc<Engine>, mut input: impl BufRead, sink: &Sink) -> std::io::Result<()> {
    let cap = jsonrpc::line_cap();
    loop {
        let line = match jsonrpc::read_line(&mut input, cap) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                engine.finish();
                return Err(e);
            }
        };
        match line {
            Line::Message(bytes) => engine.receive(jsonrpc::classify(&bytes), sink),
            Line::TooLong(head) => {
                if let Some(answer) = jsonrpc::too_long(&head, cap) {
                    sink(answer);
                }
            }
        }
    }
    engine.finish();
    Ok(())
}

impl McpTool {
    pub fn summary(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.definition.get("title"),
            "description": self.definition.get("description"),
            "annotations": self.definition.get("annotations"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(input: &[u8]) -> Vec<Value> {
        let opts = Options {
            progressive: false,
            allow_destructive: false,
            page_size: 10,
            max_calls: MAX_CALLS,
        };
        let engine = Arc::new(Engine::new(opts, Registry { tools: Vec::new() }));
        let got = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&got);
        let sink: Sink = Arc::new(move |v| keep.lock().unwrap().push(v));
        run(&engine, input, &sink).expect("in-memory session");
        got.lock().unwrap().clone()
    }

    /// Found by fuzzing (mcp_loop): a line that is not UTF-8 ended the whole server with an
    /// I/O error; it is a parse error for that line only, answered with the line's id.
    #[test]
    fn invalid_utf8_line_is_a_parse_error_and_the_server_goes_on() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initia\x89ize\"}\n\
                      \n\
                      {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        let replies = session(input);
        assert_eq!(replies.len(), 2, "{replies:?}");
        assert_eq!(replies[0]["error"]["code"], json!(jsonrpc::PARSE_ERROR));
        assert_eq!(replies[0]["id"], json!(1));
        assert_eq!(
            replies[1],
            json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
        );
    }

    #[test]
    fn requests_before_initialize_are_refused_and_discover_is_answered() {
        let input = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#;
        let replies = session(input);
        assert_eq!(replies[0]["error"]["code"], json!(jsonrpc::INVALID_REQUEST));
        assert_eq!(replies[0]["id"], 1);
        assert_eq!(replies[1]["result"]["resultType"], "complete");
        assert_eq!(replies[1]["result"]["supportedVersions"][0], MODERN);
        assert_eq!(
            replies[1]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "cmpx"
        );
        assert_eq!(replies[2]["error"]["code"], json!(-32022));
        assert_eq!(replies[2]["error"]["data"]["requested"], "1900-01-01");
        assert_eq!(replies[3]["result"]["cacheScope"], "private");
        assert_eq!(replies[3]["result"]["ttlMs"], 300_000);
        assert_eq!(replies[3]["result"]["tools"], json!([]));
    }
}
