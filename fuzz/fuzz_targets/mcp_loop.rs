#![no_main]
//! The MCP message loop: lines of JSON-RPC through `mcp::Server::run` over in-memory I/O.
//!
//! Input: one options byte (bit 0: progressive mode; bits 2-7: tools/list page size), then
//! the lines. Every response must be one JSON value per line with
//! `"jsonrpc": "2.0"`. Only catalogue tools are registered (no install roots), and inputs
//! naming tools that are slow by design (key derivation, key generation, user programs run
//! without bound) are skipped, so a timeout means the loop itself is slow.

use cmpx::mcp::registry::{Kind, McpTool, Registry};
use cmpx::mcp::{Options, Server};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::io::Cursor;
use std::sync::OnceLock;

/// Tools whose cost is the point (KDFs, RSA key generation) or that run user programs.
const SLOW: &[&str] = &[
    "bcrypt",
    "password-hash",
    "rsa-key",
    "jq-processor",
    "template-renderer",
    "text-encryptor",
    "fernet",
    "otp-generator",
];

/// A fresh copy of the catalogue registry: building it (schemas for every tool) is what
/// dominates an iteration otherwise.
fn registry() -> Registry {
    static BUILT: OnceLock<Registry> = OnceLock::new();
    let built = BUILT.get_or_init(|| Registry::load(&[]));
    let tools = built
        .tools
        .iter()
        .map(|t| McpTool {
            name: t.name.clone(),
            definition: t.definition.clone(),
            kind: match &t.kind {
                Kind::Builtin(def) => Kind::Builtin(def.clone()),
                Kind::Intent(target) => Kind::Intent(target.clone()),
            },
        })
        .collect();
    Registry { tools }
}

fn init() {
    static HOME: OnceLock<tempfile::TempDir> = OnceLock::new();
    HOME.get_or_init(|| {
        let home = tempfile::tempdir().expect("temp dir");
        // SAFETY: set once, before the target does anything that reads the environment.
        unsafe {
            std::env::set_var("CMP_HOME", home.path());
            std::env::remove_var("CMP_TOOL_PATH");
        }
        home
    });
}

fuzz_target!(|data: &[u8]| {
    init();
    let Some((&flags, lines)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(lines);
    if SLOW.iter().any(|s| text.contains(s)) {
        return;
    }
    let opts = Options {
        progressive: flags & 1 != 0,
        allow_destructive: false,
        page_size: (flags >> 2) as usize,
    };
    let mut out = Vec::new();
    let mut server = Server::new(Cursor::new(lines), &mut out, opts, registry());
    server.run().expect("in-memory I/O does not fail");
    drop(server);
    let out = String::from_utf8(out).expect("responses are UTF-8");
    for line in out.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("response is not one JSON value per line: {e}: {line}"));
        let msgs = match &v {
            Value::Array(a) => a.iter().collect(),
            one => vec![one],
        };
        for m in msgs {
            assert_eq!(m.get("jsonrpc"), Some(&Value::from("2.0")), "{line}");
            assert!(
                m.get("result").is_some() != m.get("error").is_some(),
                "a response has exactly one of result and error: {line}"
            );
            if m.pointer("/result/isError") == Some(&Value::Bool(true))
                && let Some(text) = m.pointer("/result/content/0/text").and_then(Value::as_str)
                && let Ok(err) = serde_json::from_str::<Value>(text)
                && err.get("errorCode") == Some(&Value::from("INTERNAL_ERROR"))
                && let Some(message) = err.get("error").and_then(Value::as_str)
            {
                assert!(
                    !message.contains("failed unexpectedly"),
                    "a tool panicked inside the MCP server: {message}"
                );
            }
        }
    }
});
