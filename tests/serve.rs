//! `cmpx serve` over real sockets: every body form, every document, the guard (Host, Origin,
//! token, rate limit), the body limit and a graceful stop. The server picks a free port
//! (`--port 0`) and prints its URL; nothing depends on a fixed port.

use crate::common;
mod limits;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Server {
    child: Child,
    addr: String,
    _home: tempfile::TempDir,
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {} body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::start_with(args, &[])
    }

    fn start_with(args: &[&str], env: &[(&str, &str)]) -> Server {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(common::bin());
        cmd.arg("serve")
            .args(["--port", "0"])
            .args(args)
            .env("CMP_HOME", home.path())
            .env_remove("CMPX_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start cmpx serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim();
        assert!(
            url.starts_with("http://"),
            "first line is the URL: {line:?}"
        );
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        Server {
            child,
            addr,
            _home: home,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// One HTTP/1.1 request on its own connection; `headers` may override Host.
    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        let _ = stream.write_all(body);
        read_reply(stream)
    }

    fn post_json(&self, path: &str, body: &Value) -> Reply {
        self.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    }

    fn get(&self, path: &str) -> Reply {
        self.request("GET", path, &[], b"")
    }

    fn stop(mut self) -> i32 {
        unsafe_kill(self.child.id(), "TERM");
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unsafe_kill(pid: u32, signal: &str) {
    Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
}

fn read_reply(mut stream: TcpStream) -> Reply {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
}

fn schema(name: &str) -> Option<jsonschema::Validator> {
    let dir = std::env::var("CTP_SCHEMA_DIR").unwrap_or_else(|_| "../shared/ctp-schemas".into());
    let text = std::fs::read_to_string(format!("{dir}/{name}")).ok()?;
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).ok()
}

#[track_caller]
fn assert_tool_result(reply: &Reply) {
    let value = reply.json();
    if let Some(v) = schema("tool-result.schema.json") {
        let errors: Vec<String> = v.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{value}: {errors:?}");
    }
}

#[test]
fn every_body_form_runs_the_tool_and_statuses_follow_error_codes() {
    let s = Server::start(&[]);
    let r = s.post_json("/api/tools/base64-encoder", &json!({"input": "hello"}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["output"], "aGVsbG8=");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_tool_result(&r);

    // A form body is CTP's URLSearchParams: strings the executor normalises, as on the CLI.
    let r = s.request(
        "POST",
        "/api/tools/uuid-generator",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        b"count=3&version=v7",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"]["uuids"].as_array().map(Vec::len), Some(3));

    // multipart/form-data: a text part and, for a `file` parameter, the part's bytes.
    let boundary = "cmpxboundary42";
    let mut body = Vec::new();
    body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes());
    body.extend_from_slice(&[0u8, 159, 146, 150, 255]);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let ctype = format!("multipart/form-data; boundary={boundary}");
    let r = s.request(
        "POST",
        "/api/tools/base64-file-encoder",
        &[("Content-Type", &ctype)],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"]["output"], "AJ+Slv8=");

    // Errors: validation 400, unknown tool 404 with a suggestion, bad bodies 400/415.
    let r = s.post_json("/api/tools/base64-encoder", &json!({"input": 5}));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["errorCode"], "TYPE_ERROR");
    assert_tool_result(&r);
    let r = s.post_json("/api/tools/base64-encodr", &json!({}));
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["data"]["didYouMean"], "base64-encoder");
    assert_tool_result(&r);
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[("Content-Type", "application/json")],
        b"{\"input\": ",
    );
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("the body is not valid JSON")
    );
    let r = s.post_json("/api/tools/base64-encoder", &json!([1]));
    assert_eq!(r.status, 400);
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[("Content-Type", "text/plain")],
        b"hello",
    );
    assert_eq!(r.status, 415);
    assert_tool_result(&r);
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        b"input=a&input=b",
    );
    assert_eq!(r.status, 400);
    assert!(r.text().contains("given twice"));
    // Catalogue tools are POST tools: GET says so.
    let r = s.get("/api/tools/base64-encoder?input=hi");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST, OPTIONS"));
    let r = s.get("/no/such/path");
    assert_eq!(r.status, 404);
    assert_tool_result(&r);
    assert_eq!(s.stop(), 0);
}

#[test]
fn documents_name_the_address_they_were_reached_by() {
    let s = Server::start(&[]);
    let url = s.url();
    let r = s.get("/.well-known/ctp-manifest.json");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let manifest = r.json();
    assert_eq!(manifest["baseUrl"], url);
    if let Some(v) = schema("ctp-manifest.schema.json") {
        let errors: Vec<String> = v.iter_errors(&manifest).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
    let r = s.get("/api/openapi.yaml");
    assert_eq!(
        r.header("content-type"),
        Some("application/yaml; charset=utf-8")
    );
    let openapi: serde_json::Value = serde_norway::from_str(&r.text()).unwrap();
    assert_eq!(openapi["servers"][0]["url"], url, "servers names {url}");
    let r = s.get("/llms.txt");
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert!(r.text().contains(&format!("{url}/api/openapi.yaml")));
    let r = s.get("/api/ai-tools.json");
    assert_eq!(
        r.json()["tools"][0]["endpoint"]
            .as_str()
            .map(|e| e.starts_with(&format!("{url}/api/tools/"))),
        Some(true)
    );
    let r = s.get("/.well-known/ai-plugin.json");
    assert_eq!(r.json()["api"]["url"], format!("{url}/api/openapi.yaml"));
    assert_eq!(r.json()["auth"]["type"], "none");
    let r = s.get("/llms-full.txt");
    assert_eq!(r.status, 200);
    let r = s.get("/docs/json-formatter.md");
    assert_eq!(
        r.header("content-type"),
        Some("text/markdown; charset=utf-8")
    );
    assert!(r.text().starts_with("# "));
    assert_eq!(s.get("/docs/nope.md").status, 404);
    // Reached by another loopback name, the documents say that name.
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    let host = format!("localhost:{port}");
    let r = s.request(
        "GET",
        "/.well-known/ctp-manifest.json",
        &[("Host", &host)],
        b"",
    );
    assert_eq!(r.json()["baseUrl"], format!("http://{host}"));
    let list = s.get("/api/tools").json();
    assert_eq!(
        list["tools"].as_array().map(Vec::len),
        Some(cmpx::catalogue::all().len())
    );
}

#[test]
fn the_served_openapi_document_is_valid() {
    let s = Server::start(&[]);
    let text = s.get("/api/openapi.yaml").text();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("openapi.yaml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new("python3")
        .args([
            "-c",
            // PyYAML (YAML 1.1) must read no string as a date, boolean or number.
            "import sys, yaml, datetime\nfrom openapi_spec_validator import validate\nd = yaml.safe_load(open(sys.argv[1]))\ndef walk(v):\n    assert not isinstance(v, (datetime.date, datetime.datetime)), v\n    for x in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else []): walk(x)\nwalk(d)\nvalidate(d)\nprint('valid')",
        ])
        .arg(&path)
        .output();
    match out {
        Ok(o) if o.status.success() => {
            assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "valid")
        }
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named") => {
            common::skip(format!(
                "python3 lacks a module the OpenAPI check needs (pip install openapi-spec-validator pyyaml): {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ));
        }
        Ok(o) => panic!(
            "openapi-spec-validator: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("python3: {e}"),
    }
}

#[test]
fn every_tool_reproduces_its_example_over_http() {
    let s = Server::start(&[]);
    let mut checked = 0;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogue");
    for category in std::fs::read_dir(&root).unwrap() {
        let category = category.unwrap().path();
        // catalogue/versions.lock.json sits beside the category folders.
        if !category.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&category).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.ends_with(".cmpx.json") {
                continue;
            }
            let def: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let id = def["id"].as_str().unwrap();
            let example = &def["example"];
            let r = s.post_json(&format!("/api/tools/{id}"), &example["input"]);
            assert_eq!(r.status, 200, "{id}: {}", r.text());
            assert_tool_result(&r);
            if !cmpx::catalogue::flags(id).always_random() {
                assert_eq!(r.json()["data"], example["output"], "{id}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, cmpx::catalogue::all().len());
}

#[test]
fn foreign_hosts_and_origins_are_refused() {
    let s = Server::start(&["--allow-origin", "http://localhost:3000"]);
    let body = br#"{"input":"x"}"#;
    let json = ("Content-Type", "application/json");
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[json, ("Origin", "http://evil.example")],
        body,
    );
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["errorCode"], "UNAUTHORIZED");
    // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[json, ("Host", "evil.example:80")],
        body,
    );
    assert_eq!(r.status, 403);
    // The server's own origin and listed ones pass; the listed one gets CORS headers.
    let own = s.url();
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[json, ("Origin", &own)],
        body,
    );
    assert_eq!(r.status, 200);
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[json, ("Origin", "http://localhost:3000")],
        body,
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
}

#[test]
fn a_public_bind_needs_a_token_and_then_every_request_carries_it() {
    let out = common::Test::new()
        .args(["serve", "--port", "0", "--bind", "0.0.0.0"])
        .env("CMPX_TOKEN", "")
        .run();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("refusing to listen on 0.0.0.0 without a token"),
        "{}",
        out.stderr
    );

    let token = "0123456789abcdef0123";
    let s = Server::start_with(&["--bind", "127.0.0.1"], &[("CMPX_TOKEN", token)]);
    let body = br#"{"input":"x"}"#;
    let json = ("Content-Type", "application/json");
    let r = s.request("POST", "/api/tools/base64-encoder", &[json], body);
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    let wrong = "Bearer 0123456789abcdef0124";
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[json, ("Authorization", wrong)],
        body,
    );
    assert_eq!(r.status, 401);
    let right = format!("Bearer {token}");
    let r = s.request(
        "POST",
        "/api/tools/base64-encoder",
        &[json, ("Authorization", &right)],
        body,
    );
    assert_eq!(r.status, 200);
    let r = s.request(
        "GET",
        "/.well-known/ai-plugin.json",
        &[("Authorization", &right)],
        b"",
    );
    assert_eq!(r.json()["auth"]["authorization_type"], "bearer");
}

#[test]
fn rate_limits_answer_429_with_retry_after() {
    let s = Server::start(&["--rate-limit", "0.5/2"]);
    assert_eq!(s.get("/").status, 200);
    assert_eq!(s.get("/").status, 200);
    let r = s.get("/");
    assert_eq!(r.status, 429);
    assert_eq!(r.json()["errorCode"], "RATE_LIMITED");
    assert_eq!(r.header("retry-after"), Some("2"));
}

#[test]
fn an_oversized_body_gets_413_without_being_read() {
    let s = Server::start_with(&[], &[("CMPX_MAX_INPUT", "1M")]);
    // Announced too large: refused from the head, before the body arrives.
    let mut stream = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST /api/tools/base64-encoder HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        s.addr,
        300u64 << 20
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&[b' '; 4096]).unwrap();
    let r = read_reply(stream);
    assert_eq!(r.status, 413);
    assert!(r.json()["error"].as_str().unwrap().contains("input limit"));
    // Sent in chunks without a length: cut off at the limit.
    let mut stream = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST /api/tools/base64-encoder HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        s.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b' '; 64 << 10];
    for _ in 0..40 {
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|_| stream.write_all(&chunk))
            .and_then(|_| stream.write_all(b"\r\n"))
            .is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let r = read_reply(stream);
    assert_eq!(r.status, 413);
}

#[test]
fn sigterm_lets_a_call_in_flight_finish_then_exits_zero() {
    let s = Server::start(&[]);
    let addr = s.addr.clone();
    // A call that runs for a while: a jq filter counting to ten million.
    let call = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(&addr).unwrap();
        let body = json!({"input": "null", "filter": "[range(3000000)] | length"}).to_string();
        let head = format!(
            "POST /api/tools/jq-processor HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        read_reply(stream)
    });
    std::thread::sleep(Duration::from_millis(300));
    let code = s.stop();
    let r = call.join().unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"]["results"], json!([3000000]));
    assert_eq!(code, 0);
}

/// The official Python SDK's Streamable HTTP client, in the stateless era and two handshake
/// eras: lists every tool and calls ten with their examples.
#[test]
fn the_python_sdk_lists_and_calls_tools_over_streamable_http() {
    if !common::require(
        "the MCP Python SDK (pip install mcp)",
        common::runs("python3", &["-c", "import mcp"]),
    ) {
        return;
    }
    let s = Server::start(&[]);
    let url = format!("{}/mcp", s.url());
    let catalogue = concat!(env!("CARGO_MANIFEST_DIR"), "/catalogue");
    let tools = [
        "base64-encoder",
        "json-formatter",
        "hash-generator",
        "url-encoder",
        "case-converter",
        "jwt-decoder",
        "yaml-to-json",
        "cron-parser",
        "number-base-converter",
        "html-entity-encoder",
    ];
    for era in ["auto", "2025-11-25", "2025-06-18"] {
        let out = Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/mcp/http_client.py"
            ))
            .args([url.as_str(), era, catalogue])
            .args(tools)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{era}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
        // The catalogue's tools and `pipe`.
        assert_eq!(summary["tools"], cmpx::catalogue::all().len() + 1, "{era}");
        assert_eq!(summary["called"], 10, "{era}");
    }
}

#[test]
fn mcp_over_http_keeps_its_own_rules() {
    let s = Server::start(&[]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let json_h = ("Content-Type", "application/json");
    let accept = ("Accept", "application/json, text/event-stream");
    // A page on another origin cannot reach /mcp (the DNS-rebinding rule).
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept, ("Origin", "http://evil.example")],
        init.to_string().as_bytes(),
    );
    assert_eq!(r.status, 403);
    // initialize opens a session; its id comes back in Mcp-Session-Id.
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept],
        init.to_string().as_bytes(),
    );
    assert_eq!(r.status, 200);
    let session = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    assert_eq!(session.len(), 32);
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-11-25");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let with_session = ("Mcp-Session-Id", session.as_str());
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept, with_session],
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 200);
    assert!(r.json()["result"]["tools"].is_array());
    // Without the session a handshake-era request is not initialized; an unknown session is 404.
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept],
        list.to_string().as_bytes(),
    );
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = s.request(
        "POST",
        "/mcp",
        &[
            json_h,
            accept,
            ("Mcp-Session-Id", "00000000000000000000000000000000"),
        ],
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 404);
    // A Mcp-Method header that disagrees with the body is refused.
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept, with_session, ("Mcp-Method", "tools/call")],
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 400);
    // A tools/call accepting SSE is answered as an event stream ending with its result.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "base64-encoder", "arguments": {"input": "hello"}}});
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept, with_session],
        call.to_string().as_bytes(),
    );
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let text = r.text();
    let data = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("data: "))
        .expect("an event");
    let answer: Value = serde_json::from_str(data).unwrap();
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["result"]["structuredContent"]["output"], "aGVsbG8=");
    // Malformed JSON gets its JSON-RPC error; GET has no stream; DELETE ends the session.
    let r = s.request("POST", "/mcp", &[json_h, accept], b"{not json");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    assert_eq!(s.request("GET", "/mcp", &[accept], b"").status, 405);
    assert_eq!(
        s.request("DELETE", "/mcp", &[with_session], b"").status,
        204
    );
    let r = s.request(
        "POST",
        "/mcp",
        &[json_h, accept, with_session],
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 404);
}

/// The official TypeScript SDKs installed by `.ci/run` (target/mcp-node), or `None` after a
/// skip (a failure in CI).
fn node_modules() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-node/node_modules");
    let ok = ["sdk", "client", "conformance"]
        .iter()
        .all(|p| dir.join("@modelcontextprotocol").join(p).is_dir())
        && dir.join(".bin/node").exists();
    if ok {
        return Some(dir);
    }
    common::skip("the MCP TypeScript packages in target/mcp-node (run .ci/run's npm install)");
    None
}

/// The official TypeScript SDK's StreamableHTTPClientTransport, 1.x in the handshake era (with
/// a session) and 2.x pinned to 2026-07-28 (stateless): lists every tool and calls ten with
/// their examples, each result equal to the example's output.
#[test]
fn the_typescript_sdk_lists_and_calls_tools_over_streamable_http() {
    let Some(modules) = node_modules() else {
        return;
    };
    let s = Server::start(&[]);
    let url = format!("{}/mcp", s.url());
    let catalogue = concat!(env!("CARGO_MANIFEST_DIR"), "/catalogue");
    let tools = [
        "base64-encoder",
        "json-formatter",
        "hash-generator",
        "url-encoder",
        "case-converter",
        "jwt-decoder",
        "yaml-to-json",
        "cron-parser",
        "number-base-converter",
        "html-entity-encoder",
    ];
    for (flavour, version, session) in [("v1", "2025-11-25", true), ("v2", "2026-07-28", false)] {
        let out = Command::new("node")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/mcp/ts_http_client.mjs"
            ))
            .args([modules.to_str().unwrap(), url.as_str(), flavour, catalogue])
            .args(tools)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{flavour}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(summary["protocolVersion"], version, "{summary}");
        assert_eq!(summary["session"], session, "{summary}");
        // The catalogue's tools and `pipe`.
        let tools = cmpx::catalogue::all().len() + 1;
        assert_eq!(summary["tools"], tools, "{summary}");
        assert_eq!(summary["unique"], tools, "{summary}");
        assert_eq!(summary["called"], 10, "{summary}");
    }
}

/// The official MCP conformance suite against /mcp: every scenario of both eras (`--suite
/// all`) and exactly what 2026-07-28 requires. Scenarios that cannot apply to cmpx (the
/// suite's own fixture tools, capabilities cmpx does not offer) are listed with the reason in
/// tests/mcp/conformance-baseline.yml; the suite fails on any other failure, and on an entry
/// there that starts passing.
#[test]
fn the_official_conformance_suite_passes_against_mcp() {
    let Some(modules) = node_modules() else {
        return;
    };
    let s = Server::start(&[]);
    let url = format!("{}/mcp", s.url());
    let baseline = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/mcp/conformance-baseline.yml"
    );
    let results = tempfile::tempdir().unwrap();
    // The suite needs Node 22 (fs.globSync); .ci/run installs it beside the packages.
    let node = modules.join(".bin/node");
    let suite = modules.join("@modelcontextprotocol/conformance/dist/index.js");
    for selection in [&["--suite", "all"][..], &["--requirements", "2026-07-28"]] {
        let out = Command::new(&node)
            .arg(&suite)
            .args(["server", "--url", url.as_str()])
            .args(selection)
            .args(["--expected-failures", baseline, "-o"])
            .arg(results.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let summary = stdout
            .rsplit_once("=== SUMMARY ===")
            .map_or(stdout.as_ref(), |(_, s)| s);
        assert!(
            out.status.success(),
            "conformance {selection:?}:\n{summary}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(summary.contains("passed"), "{summary}");
    }
}

/// 2026-07-28 over HTTP: the `_meta` envelope and the routing headers are checked before the
/// engine, and errors carry the request's id with the status their code implies.
#[test]
fn the_stateless_era_checks_envelope_and_headers() {
    let s = Server::start(&[]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let post = |method: &str, params: Value, headers: &[(&str, &str)]| {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
        let mut all = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        all.extend_from_slice(headers);
        s.request("POST", "/mcp", &all, body.to_string().as_bytes())
    };
    let modern = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ];
    let r = post("tools/list", json!({"_meta": meta}), &modern);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"]["tools"].as_array().unwrap().len(), 50);
    assert_eq!(r.json()["result"]["nextCursor"], "50");
    // No envelope: -32602, 400.
    let r = post("tools/list", json!({}), &modern);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );
    assert_eq!(r.json()["id"], 9);
    // Mcp-Method missing, or Mcp-Name disagreeing with the body: -32020, 400.
    let r = post(
        "tools/list",
        json!({"_meta": meta}),
        &[("MCP-Protocol-Version", "2026-07-28")],
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let call = json!({"_meta": meta, "name": "base64-encoder", "arguments": {"input": "hi"}});
    let r = post(
        "tools/call",
        call.clone(),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "hash-generator"),
        ],
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let r = post(
        "tools/call",
        call,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "base64-encoder"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("aGk="), "{}", r.text());
    // A version cmpx does not speak: -32022 naming those it does, with the request's id.
    let r = post(
        "server/discover",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999",
            "io.modelcontextprotocol/clientCapabilities": {}}}),
        &[
            ("MCP-Protocol-Version", "v999"),
            ("Mcp-Method", "server/discover"),
        ],
    );
    assert_eq!(r.status, 400);
    let v = r.json();
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(9), json!(-32022))
    );
    assert_eq!(v["error"]["data"]["requested"], "v999");
    assert_eq!(v["error"]["data"]["supported"][0], "2026-07-28");
    // Methods 2026-07-28 removed, and unknown ones: -32601, 404.
    for method in ["initialize", "ping", "no/such"] {
        let r = post(
            method,
            json!({"_meta": meta}),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", method),
            ],
        );
        assert_eq!(r.status, 404, "{method}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], -32601, "{method}");
        assert!(r.header("mcp-session-id").is_none());
    }
}

/// The server's child processes (its warm and running workers).
fn workers(server: u32) -> Vec<u32> {
    let mut pids = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{server}/task")).unwrap() {
        let children = std::fs::read_to_string(task.unwrap().path().join("children"));
        pids.extend(
            children
                .unwrap_or_default()
                .split_whitespace()
                .map(|p| p.parse::<u32>().unwrap()),
        );
    }
    pids.sort_unstable();
    pids
}

/// Calls reuse a warm worker; one that ran out of memory, overflowed its stack or ran past the
/// timeout is stopped and replaced, and the calls after it are unaffected.
#[test]
fn a_worker_that_fails_is_replaced_and_later_calls_are_unaffected() {
    let s = Server::start_with(
        &["--max-concurrent", "1", "--timeout", "5"],
        &[("CMPX_MAX_MEMORY", "128M")],
    );
    let ok = |s: &Server| {
        let r = s.post_json("/api/tools/base64-encoder", &json!({"input": "hello"}));
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["data"]["output"], "aGVsbG8=");
    };
    ok(&s);
    let warm = workers(s.child.id());
    assert_eq!(warm.len(), 1, "one warm worker after a call: {warm:?}");
    ok(&s);
    assert_eq!(workers(s.child.id()), warm, "the warm worker served again");
    let jq = |filter: &str| {
        s.post_json(
            "/api/tools/jq-processor",
            &json!({"filter": filter, "input": "null"}),
        )
    };
    let r = jq("[range(1e9)]");
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(
        r.json()["error"].as_str().unwrap().contains("memory"),
        "{}",
        r.text()
    );
    assert!(
        !workers(s.child.id()).contains(&warm[0]),
        "the failed worker is gone"
    );
    ok(&s);
    let r = jq("def f: [f]; f");
    assert_eq!(r.json()["success"], false, "{}", r.text());
    ok(&s);
    let r = jq("last(range(1e15))");
    assert_eq!(r.status, 504, "{}", r.text());
    assert_eq!(r.json()["errorCode"], "TIMEOUT");
    ok(&s);
    let r = s.post_json("/api/tools/base64-encoder", &json!({"input": "again"}));
    assert_eq!(r.json()["data"]["output"], "YWdhaW4=");
    assert_eq!(workers(s.child.id()).len(), 1);
}

/// More connections than run slots wait for one instead of failing: 64 at once, 2 slots.
#[test]
fn sixty_four_connections_queue_for_two_slots() {
    let s = Server::start(&["--max-concurrent", "2"]);
    let addr = s.addr.clone();
    let calls: Vec<_> = (0..64)
        .map(|i| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let body = json!({ "input": format!("call {i}") }).to_string();
                let mut stream = TcpStream::connect(&addr).unwrap();
                let head = format!(
                    "POST /api/tools/base64-encoder HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).unwrap();
                stream.write_all(body.as_bytes()).unwrap();
                (i, read_reply(stream))
            })
        })
        .collect();
    for call in calls {
        let (i, r) = call.join().unwrap();
        assert_eq!(r.status, 200, "call {i}: {}", r.text());
        let expected = data_encoding::BASE64.encode(format!("call {i}").as_bytes());
        assert_eq!(r.json()["data"]["output"], expected.as_str());
    }
    assert!(workers(s.child.id()).len() <= 2);
}

/// Stateless /mcp calls from many clients at once, all with the same JSON-RPC id (ids are
/// unique only per client) and more than the run slots: each gets its own answer under its id.
#[test]
fn stateless_calls_with_the_same_id_from_many_clients_all_succeed() {
    let s = Server::start(&["--max-concurrent", "2"]);
    let addr = s.addr.clone();
    let calls: Vec<_> = (0..24)
        .map(|i| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "name": "base64-encoder", "arguments": {"input": format!("call {i}")},
                    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}}}})
                .to_string();
                let mut stream = TcpStream::connect(&addr).unwrap();
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: base64-encoder\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).unwrap();
                stream.write_all(body.as_bytes()).unwrap();
                (i, read_reply(stream))
            })
        })
        .collect();
    for call in calls {
        let (i, r) = call.join().unwrap();
        assert_eq!(r.status, 200, "call {i}: {}", r.text());
        let v = r.json();
        assert_eq!(v["id"], 1, "{v}");
        let expected = data_encoding::BASE64.encode(format!("call {i}").as_bytes());
        assert_eq!(
            v["result"]["structuredContent"]["output"],
            expected.as_str(),
            "{v}"
        );
    }
}
