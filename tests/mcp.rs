//! `cmpx mcp`: the protocol, driven by raw JSON-RPC lines (the official SDKs: tests/mcp_sdk.rs).

use crate::common;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    fn start(home: &Path, args: &[&str], tool_path: Option<&Path>) -> Session {
        Session::start_with(home, args, tool_path, &[])
    }

    fn start_with(
        home: &Path,
        args: &[&str],
        tool_path: Option<&Path>,
        env: &[(&str, &str)],
    ) -> Session {
        let mut cmd = Command::new(common::bin());
        cmd.envs(env.iter().copied());
        cmd.arg("mcp")
            .args(args)
            .env("CMP_HOME", home)
            .env_remove("CMP_TOOL_PATH")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(p) = tool_path {
            cmd.env("CMP_TOOL_PATH", p);
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not one JSON message per line ({e}): {line:?}"))
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let r = self.recv();
        assert_eq!(r["id"], id, "{r}");
        r
    }

    fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let r = self.request(0, "initialize", json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "test", "version": "0"}}));
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    fn finish(mut self) -> i32 {
        drop(self.stdin);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert!(
            rest.is_empty(),
            "unexpected output after the last request: {rest}"
        );
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

#[test]
fn negotiates_the_protocol_version() {
    let home = tempfile::tempdir().unwrap();
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut s = Session::start(home.path(), &[], None);
        let r = s.initialize(v, json!({}));
        assert_eq!(r["result"]["protocolVersion"], v);
        assert_eq!(r["result"]["serverInfo"]["name"], "cmpx");
        assert!(r["result"]["capabilities"]["tools"].is_object());
        assert_eq!(
            r["result"]["capabilities"]["experimental"]["ctp"]["version"],
            "1.0.0"
        );
        assert_eq!(s.finish(), 0, "clean exit on end of input");
    }
    let mut s = Session::start(home.path(), &[], None);
    assert_eq!(
        s.initialize("1999-01-01", json!({}))["result"]["protocolVersion"],
        "2025-11-25"
    );
    s.finish();
}

#[test]
fn answers_every_request_and_nothing_else() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Session::start(home.path(), &[], None);
    s.initialize("2025-06-18", json!({}));
    assert_eq!(s.request(1, "ping", json!({}))["result"], json!({}));
    let r = s.request(2, "server/discover", json!({}));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["supportedVersions"][0], "2026-07-28");
    for method in ["resources/list", "prompts/list", "nonsense"] {
        let r = s.request(2, method, json!({}));
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
    }
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
    );
    writeln!(s.stdin, "{{not json").unwrap();
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);
    let r = s.request(3, "tools/list", json!({"cursor": "zzz"}));
    assert_eq!(r["error"]["code"], -32602);
    // Batches were dropped from MCP in 2025-06-18: one error, no id.
    s.send(&json!([{"jsonrpc": "2.0", "id": 4, "method": "ping"}, {"jsonrpc": "2.0", "id": 5, "method": "ping"}]));
    let r = s.recv();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    assert_eq!(s.finish(), 0);
}

/// Every malformed message gets exactly one well-formed answer carrying its id when the id
/// can be recovered, and a malformed notification gets none.
#[test]
fn a_garbage_corpus_gets_one_answer_each() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Session::start(home.path(), &[], None);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"json-formatter","arguments":{{"input":{}0{}}}}}}}"#,
        "[".repeat(127),
        "]".repeat(127)
    );
    let bom = "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";
    // (line, the expected answer's id and code, or None for silence)
    let corpus: Vec<(&str, Option<(Value, i64)>)> = vec![
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            Some((json!(1), -32600)),
        ),
        ("{}", Some((Value::Null, -32600))),
        ("[]", Some((Value::Null, -32600))),
        ("42", Some((Value::Null, -32600))),
        (r#""ping""#, Some((Value::Null, -32600))),
        ("{not json", Some((Value::Null, -32700))),
        (
            r#"{"jsonrpc":"2.0","id":"p","method":"x","params":{"#,
            Some((json!("p"), -32700)),
        ),
        (
            r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
            Some((json!(2), -32600)),
        ),
        (r#"{"id":3,"method":"ping"}"#, Some((json!(3), -32600))),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            Some((Value::Null, -32600)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            Some((Value::Null, -32600)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Some((Value::Null, -32600)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            Some((Value::Null, -32600)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":7}"#,
            Some((json!(4), -32600)),
        ),
        (r#"{"jsonrpc":"2.0","id":5}"#, Some((json!(5), -32600))),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":[1]}"#,
            Some((json!(6), -32602)),
        ),
        (&deep, Some((json!("deep"), -32602))),
        (bom, Some((json!(7), -32700))),
        // Notifications, well-formed or not, and stray responses: silence.
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"1.0","method":"notifications/whatever"}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"cmpx-consent-1","result":{"action":"accept"}}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"x"}}"#,
            None,
        ),
    ];
    let mut expected = Vec::new();
    for (line, answer) in &corpus {
        writeln!(s.stdin, "{line}").unwrap();
        expected.extend(answer.clone());
    }
    s.send(&json!({"jsonrpc": "2.0", "id": "end", "method": "ping"}));
    let mut got = Vec::new();
    loop {
        let r = s.recv();
        if r["id"] == "end" {
            break;
        }
        assert_eq!(r["jsonrpc"], "2.0", "{r}");
        assert!(r["error"]["message"].is_string(), "{r}");
        got.push((r["id"].clone(), r["error"]["code"].as_i64().unwrap()));
    }
    assert_eq!(got, expected);
    s.finish();
}

#[test]
fn a_line_past_the_input_limit_is_refused_with_its_id() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Session::start_with(home.path(), &[], None, &[("CMPX_MAX_INPUT", "1K")]);
    s.initialize("2025-11-25", json!({}));
    let big = "x".repeat(3 << 20);
    s.send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "base64-encoder", "arguments": {"input": big}}}));
    let r = s.recv();
    assert_eq!(r["id"], 41, "{r}");
    assert_eq!(r["error"]["code"], -32600);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("CMPX_MAX_INPUT")
    );
    // The same from a notification: nothing.
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/x", "params": {"pad": big}}));
    assert_eq!(s.request(42, "ping", json!({}))["result"], json!({}));
    s.finish();
}

const ADAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/adapters");

/// Whether `program` is installed; when not, a skip (a failure in CI).
fn have(program: &str) -> bool {
    common::require(program, which::which(program).is_ok())
}

/// Whether a process whose command line contains `marker` is alive.
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
    })
}

impl Session {
    /// Messages until the answer to `id`, keeping the notifications seen on the way.
    fn answer_to(&mut self, id: &Value, seen: &mut Vec<Value>) -> Value {
        loop {
            let m = self.recv();
            if &m["id"] == id && m.get("method").is_none() {
                return m;
            }
            seen.push(m);
        }
    }
}

/// A 10 s jq call does not hold up other requests, reports progress, and a cancellation
/// stops it (and its jq) with no result sent; a fifth call past the bound is refused.
#[test]
fn calls_run_concurrently_and_cancel() {
    if !have("jq") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data.json");
    std::fs::write(&data, "{}").unwrap();
    let mut s = Session::start(home.path(), &[], Some(Path::new(ADAPTERS)));
    s.initialize("2025-11-25", json!({}));
    let marker = format!("cmpx-test-{}", std::process::id());
    let slow = |n: usize| {
        json!({
            "name": "jq.query-a-json-file-with-a-filter",
            "arguments": {"filter": format!("\"{marker}-{n}\" as $m | (now + 10) as $t | until(now > $t; .)"), "file": data.display().to_string()},
            "_meta": {"progressToken": format!("p{n}")},
        })
    };
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": slow(1)}));
    let mut seen = Vec::new();
    while !running(&format!("{marker}-1")) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let asked = std::time::Instant::now();
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(s.answer_to(&json!(2), &mut seen)["result"], json!({}));
    println!("ping answered in {:?} while jq ran", asked.elapsed());
    // Call 1 may report progress before this answer, on a slow machine: wait for the answer.
    s.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}));
    let r = s.answer_to(&json!(3), &mut seen);
    assert!(r["result"]["tools"].is_array());
    // Past the bound: three more slow calls fill it; the next is refused at once.
    for n in 4..7 {
        s.send(&json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": slow(n)}));
    }
    s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": slow(7)}));
    let busy = s.answer_to(&json!(7), &mut seen);
    assert_eq!(busy["result"]["isError"], true, "{busy}");
    assert!(
        busy["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("RATE_LIMITED")
    );
    // Progress for call 1 (it runs past a second), then cancel everything.
    while !seen
        .iter()
        .any(|m| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p1")
    {
        seen.push(s.recv());
    }
    let cancelled = std::time::Instant::now();
    for n in [1, 4, 5, 6] {
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": n, "reason": "test"}}));
    }
    for n in [1, 4, 5, 6] {
        while running(&format!("{marker}-{n}")) {
            assert!(
                cancelled.elapsed() < std::time::Duration::from_secs(8),
                "jq {n} still runs after its call was cancelled"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    println!("cancelled calls ended in {:?}", cancelled.elapsed());
    assert_eq!(s.request(8, "ping", json!({}))["result"], json!({}));
    for m in &seen {
        assert_eq!(m["method"], "notifications/progress", "{m}");
    }
    // Nothing more arrives for the cancelled calls: no result, no progress.
    s.finish();
}

fn all_tools(s: &mut Session) -> (Vec<Value>, usize) {
    let (mut tools, mut cursor, mut pages) = (Vec::new(), Value::Null, 0);
    loop {
        let r = s.request(10 + pages as i64, "tools/list", json!({"cursor": cursor}));
        pages += 1;
        tools.extend(r["result"]["tools"].as_array().unwrap().iter().cloned());
        match r["result"].get("nextCursor") {
            Some(c) => cursor = c.clone(),
            None => return (tools, pages),
        }
    }
}

#[test]
fn lists_every_tool_in_pages_in_a_stable_order() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Session::start(home.path(), &["--page-size", "7"], None);
    s.initialize("2025-06-18", json!({}));
    let (first, pages) = all_tools(&mut s);
    let (second, _) = all_tools(&mut s);
    s.finish();
    assert_eq!(first, second);
    assert!(pages > 1);
    let names: Vec<&str> = first.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let ids: Vec<&str> = cmpx::catalogue::all()
        .iter()
        .map(|d| d.id.as_str())
        .collect();
    assert_eq!(&names[..ids.len()], &ids[..]);
    for t in &first {
        let a = &t["annotations"];
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(a[hint].is_boolean(), "{} lacks {hint}", t["name"]);
        }
        assert_eq!(t["inputSchema"]["type"], "object");
    }
    let b64 = first
        .iter()
        .find(|t| t["name"] == "base64-encoder")
        .unwrap();
    assert_eq!(b64["title"], "Base64 Encoder/Decoder");
    assert_eq!(
        b64["inputSchema"]["properties"]["mode"]["enum"],
        json!(["encode", "decode"])
    );
    assert_eq!(
        b64["inputSchema"]["properties"]["lineLength"]["type"],
        "integer"
    );
    assert_eq!(b64["inputSchema"]["properties"]["lineLength"]["minimum"], 0);
    assert_eq!(b64["inputSchema"]["required"], json!(["input"]));
    assert_eq!(b64["annotations"]["readOnlyHint"], true);
    assert_eq!(b64["annotations"]["destructiveHint"], false);
}

#[test]
fn calls_go_through_the_executor() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Session::start(home.path(), &[], None);
    s.initialize("2025-06-18", json!({}));
    let r = s.request(
        1,
        "tools/call",
        json!({"name": "base64-encoder", "arguments": {"input": "hello"}}),
    );
    assert_eq!(r["result"]["isError"], false);
    assert_eq!(r["result"]["structuredContent"]["output"], "aGVsbG8=");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        r["result"]["structuredContent"]
    );
    let r = s.request(
        2,
        "tools/call",
        json!({"name": "base64-encoder", "arguments": {"input": 5}}),
    );
    assert_eq!(r["result"]["isError"], true);
    let err: Value =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(err["errorCode"], "TYPE_ERROR");
    let r = s.request(
        3,
        "tools/call",
        json!({"name": "base64-encodr", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean 'base64-encoder'")
    );
    s.finish();
}

fn shredder(root: &Path) {
    let dir = root.join("shredder/cmp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"domain":"demo","name":"shredder","summary":"Deletes files","version":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("capability.json"),
        r#"{"intents":[{"patterns":["shred a file"],"command":"rm -f -- {path}","params":{"path":{"type":"string","required":true}},"destructive":true}]}"#,
    )
    .unwrap();
}

#[test]
fn destructive_intents_need_consent_from_the_user_or_the_operator() {
    let home = tempfile::tempdir().unwrap();
    let extra = home.path().join("extra");
    shredder(&extra);
    let canary = home.path().join("canary");
    let call = json!({"name": "shredder.shred-a-file", "arguments": {"path": canary.display().to_string()}});

    // A client without elicitation: refused, the canary survives.
    std::fs::write(&canary, "alive").unwrap();
    let mut s = Session::start(home.path(), &[], Some(&extra));
    s.initialize("2025-06-18", json!({}));
    let (tools, _) = all_tools(&mut s);
    let t = tools
        .iter()
        .find(|t| t["name"] == "shredder.shred-a-file")
        .expect("intent listed");
    assert_eq!(t["annotations"]["destructiveHint"], true);
    assert_eq!(t["annotations"]["readOnlyHint"], false);
    let r = s.request(1, "tools/call", call.clone());
    assert_eq!(r["result"]["isError"], true);
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("UNAUTHORIZED")
    );
    assert!(canary.exists());
    s.finish();

    // A client with elicitation whose user declines, then one whose user accepts.
    for (answer, survives) in [
        (json!({"action": "decline"}), true),
        (
            json!({"action": "accept", "content": {"confirm": true}}),
            false,
        ),
    ] {
        std::fs::write(&canary, "alive").unwrap();
        let mut s = Session::start(home.path(), &[], Some(&extra));
        s.initialize("2025-06-18", json!({"elicitation": {}}));
        s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}));
        let ask = s.recv();
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        assert!(
            ask["params"]["message"]
                .as_str()
                .unwrap()
                .contains("cannot be undone")
        );
        s.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer}));
        let r = s.recv();
        assert_eq!(r["id"], 7);
        assert_eq!(r["result"]["isError"], survives, "{r}");
        assert_eq!(canary.exists(), survives);
        s.finish();
    }

    // The operator allowed it when starting the server.
    std::fs::write(&canary, "alive").unwrap();
    let mut s = Session::start(home.path(), &["--allow-destructive"], Some(&extra));
    s.initialize("2025-06-18", json!({}));
    let r = s.request(1, "tools/call", call);
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(!canary.exists());
    s.finish();
}

const MODERN_META: &str = "io.modelcontextprotocol/protocolVersion";

fn modern(capabilities: Value) -> Value {
    json!({ MODERN_META: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities })
}

/// A consent answer sent before its question, or for another id, or a forged
/// `requestState`, runs nothing; the canary survives. The prompt is escaped; a client with
/// URL-only elicitation is not asked but told what a person can do.
#[test]
fn consent_cannot_be_forged_or_pre_answered() {
    let home = tempfile::tempdir().unwrap();
    let extra = home.path().join("extra");
    shredder(&extra);
    let canary = home.path().join("canary\u{1b}[2K\u{202e}gpj.exe");
    std::fs::write(&canary, "alive").unwrap();
    let call = json!({"name": "shredder.shred-a-file", "arguments": {"path": canary.display().to_string()}});
    let yes = json!({"action": "accept", "content": {"confirm": true}});

    // 2025 era: answers sent before the question, under guessable ids, count for nothing.
    let mut s = Session::start(home.path(), &[], Some(&extra));
    s.initialize("2025-11-25", json!({"elicitation": {"form": {}}}));
    for guess in ["cmpx-consent-1", "cmpx-consent-2", "1"] {
        s.send(&json!({"jsonrpc": "2.0", "id": guess, "result": yes}));
    }
    s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}));
    let ask = s.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["mode"], "form");
    let qid = ask["id"].as_str().unwrap().to_string();
    assert!(qid.starts_with("cmpx-consent-") && qid.len() >= 40, "{qid}");
    let message = ask["params"]["message"].as_str().unwrap();
    assert!(
        !message.chars().any(|c| c.is_control() || c == '\u{202e}'),
        "{message:?}"
    );
    assert!(message.contains("\\u{1b}[2K\\u{202e}gpj.exe"), "{message}");
    // An answer for another id is ignored; the question is still open.
    s.send(&json!({"jsonrpc": "2.0", "id": format!("{qid}x"), "result": yes}));
    assert_eq!(s.request(8, "ping", json!({}))["result"], json!({}));
    assert!(canary.exists());
    s.send(&json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "decline"}}));
    let r = s.recv();
    assert_eq!(
        (r["id"].clone(), r["result"]["isError"].clone()),
        (json!(7), json!(true))
    );
    assert!(canary.exists());
    s.finish();

    // 2026-07-28: a retry with a forged requestState and a "yes" is asked again.
    let mut s = Session::start(home.path(), &[], Some(&extra));
    let mut forged = call.clone();
    forged["_meta"] = modern(json!({"elicitation": {}}));
    forged["requestState"] = json!("00000000000000000000000000000000");
    forged["inputResponses"] = json!({"cmpx_consent": yes});
    let r = s.request(1, "tools/call", forged);
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert!(canary.exists());
    let state = r["result"]["requestState"].clone();
    let ask = &r["result"]["inputRequests"]["cmpx_consent"];
    assert_eq!(ask["method"], "elicitation/create");
    // The token is bound to the call: it does not unlock another path.
    let other = home.path().join("other");
    std::fs::write(&other, "alive").unwrap();
    let mut moved = json!({"name": "shredder.shred-a-file", "arguments": {"path": other.display().to_string()}});
    moved["_meta"] = modern(json!({"elicitation": {}}));
    moved["requestState"] = state.clone();
    moved["inputResponses"] = json!({"cmpx_consent": yes});
    let r = s.request(2, "tools/call", moved);
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert!(other.exists());
    // The real retry runs it, once.
    let mut retry = call.clone();
    retry["_meta"] = modern(json!({"elicitation": {}}));
    retry["requestState"] = state;
    retry["inputResponses"] = json!({"cmpx_consent": yes});
    let r = s.request(3, "tools/call", retry.clone());
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(!canary.exists());
    std::fs::write(&canary, "alive").unwrap();
    let r = s.request(4, "tools/call", retry);
    assert_eq!(r["result"]["resultType"], "input_required", "replayed: {r}");
    assert!(canary.exists());
    s.finish();

    // A client that can only open URLs is not sent a form; it is told what to do.
    for (version, capabilities, meta) in [
        ("2025-11-25", json!({"elicitation": {"url": {}}}), None),
        (
            "",
            json!({}),
            Some(modern(json!({"elicitation": {"url": {}}}))),
        ),
    ] {
        let mut s = Session::start(home.path(), &[], Some(&extra));
        let mut params = call.clone();
        if let Some(meta) = meta {
            params["_meta"] = meta;
        } else {
            s.initialize(version, capabilities);
        }
        let r = s.request(5, "tools/call", params);
        assert_eq!(r["result"]["isError"], true, "{r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("UNAUTHORIZED") && text.contains("--allow-destructive"),
            "{text}"
        );
        assert!(text.contains("--yes") && !text.contains("Re-run"), "{text}");
        assert!(canary.exists());
        s.finish();
    }
}

#[test]
fn progressive_mode_costs_a_constant_few_hundred_tokens() {
    let home = tempfile::tempdir().unwrap();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let mut sizes = Vec::new();
    for args in [&[][..], &["--progressive"][..]] {
        let mut s = Session::start(
            home.path(),
            &[&["--page-size", "1000"], args].concat(),
            None,
        );
        s.initialize("2025-06-18", json!({}));
        let (tools, _) = all_tools(&mut s);
        s.finish();
        let text = serde_json::to_string(&json!({"tools": tools})).unwrap();
        sizes.push((
            tools.len(),
            text.len(),
            bpe.encode_with_special_tokens(&text).len(),
        ));
    }
    let (full, progressive) = (sizes[0], sizes[1]);
    println!(
        "tools/list full: {} tools, {} chars, {} tokens",
        full.0, full.1, full.2
    );
    println!(
        "tools/list progressive: {} tools, {} chars, {} tokens",
        progressive.0, progressive.1, progressive.2
    );
    assert_eq!(progressive.0, 3);
    assert!(
        progressive.2 < 600,
        "progressive tools/list is {} tokens",
        progressive.2
    );
    assert!(full.2 > 10 * progressive.2);
    // The README states both costs (issue 39); they hold within a tenth.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let stated = |pattern: &str| -> usize {
        regex::Regex::new(pattern)
            .unwrap()
            .captures(&readme)
            .expect(pattern)[1]
            .replace(',', "")
            .parse()
            .unwrap()
    };
    for (said, measured) in [
        (
            stated(r"every tool: ~([\d,]+) tokens of definitions"),
            full.2,
        ),
        (
            stated(r"search, describe, run \(~(\d+) tokens\)"),
            progressive.2,
        ),
    ] {
        let off = said.abs_diff(measured) as f64 / measured as f64;
        assert!(off < 0.1, "README says ~{said} tokens, measured {measured}");
    }
}
