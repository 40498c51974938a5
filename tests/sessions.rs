//! BTCP and MCP sessions of `cmpx serve` against hostile or careless clients, over real
//! sockets: a registration too large to merge, a keyed session's page reloading while someone
//! else knows its id, a web page's `<img>` pointed at the event stream, one client opening
//! session after session, an MCP client that declares elicitation but takes only JSON, and a
//! flood of MCP sessions while another client's consent question is open.

use crate::common;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
    #[track_caller]
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
}

/// An open event stream: its status, and the connection to read events from (dropping it is
/// the client going away).
struct Stream {
    status: u16,
    head: String,
    reader: BufReader<TcpStream>,
}

impl Stream {
    /// The next `data:` line's JSON, waiting at most `limit`.
    #[track_caller]
    fn next_data(&mut self, limit: Duration) -> Value {
        self.reader.get_ref().set_read_timeout(Some(limit)).unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .reader
                .read_line(&mut line)
                .unwrap_or_else(|e| panic!("no event within {limit:?} ({e}) after {}", self.head));
            assert!(n > 0, "the stream ended");
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return serde_json::from_str(data).unwrap();
            }
        }
    }
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(common::bin())
            .args(["serve", "--port", "0"])
            .args(args)
            .env("CMP_HOME", home.path())
            .env("HOME", home.path())
            .env_remove("CMPX_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start cmpx serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim();
        assert!(
            url.starts_with("http://"),
            "first line is the URL: {line:?}"
        );
        Server {
            child,
            addr: url
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string(),
            _home: home,
        }
    }

    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> TcpStream {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.addr);
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        if method == "POST" {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("Connection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        stream
    }

    /// One request and its whole reply, waiting at most `limit` for it.
    #[track_caller]
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        limit: Duration,
    ) -> Reply {
        let mut stream = self.send(method, path, headers, body);
        stream.set_read_timeout(Some(limit)).unwrap();
        let mut raw = Vec::new();
        let read = stream.read_to_end(&mut raw);
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no reply to {method} {path} within {limit:?} ({read:?})"));
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .expect("status line");
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if headers.iter().any(|(n, v)| {
            n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
        }) {
            body = dechunk(&body);
        }
        Reply {
            status,
            headers,
            body,
        }
    }

    /// A request whose reply may be an endless event stream: its head only, the rest to read.
    #[track_caller]
    fn stream(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Stream {
        let stream = self.send(method, path, headers, body);
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            let n = reader
                .read_line(&mut line)
                .unwrap_or_else(|e| panic!("no reply to {method} {path}: {e}"));
            if n == 0 || line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        Stream {
            status,
            head,
            reader,
        }
    }

    /// A browser's event stream as the reference client's EventSource opens it.
    fn browser(&self, base: &str, session: &str, extra: &[(&str, &str)]) -> Stream {
        let mut headers = vec![("Accept", "text/event-stream")];
        headers.extend_from_slice(extra);
        self.stream(
            "GET",
            &format!("{base}/events?sessionId={session}&clientType=browser&version=1.0.0"),
            &headers,
            b"",
        )
    }

    /// The browser's POST of one JSON-RPC message.
    fn post_btcp(&self, base: &str, session: &str, msg: &Value, limit: Duration) -> Reply {
        self.request(
            "POST",
            &format!("{base}/message"),
            &[
                ("Content-Type", "application/json"),
                ("X-Session-ID", session),
            ],
            msg.to_string().as_bytes(),
            limit,
        )
    }

    fn mcp(&self, headers: &[(&str, &str)], msg: &Value, limit: Duration) -> Reply {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        self.request("POST", "/mcp", &all, msg.to_string().as_bytes(), limit)
    }

    /// A 2025-11-25 MCP session declaring form elicitation, linked to BTCP session `btcp`.
    #[track_caller]
    fn mcp_session(&self, btcp: Option<&str>) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "sessions-test", "version": "1"}}});
        let mut headers = vec![("Accept", "application/json, text/event-stream")];
        if let Some(b) = btcp {
            headers.push(("BTCP-Session", b));
        }
        let r = self.mcp(&headers, &init, Duration::from_secs(10));
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        r.header("mcp-session-id")
            .expect("a session id")
            .to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
        if size == 0 || data.len() < end + 2 + size {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[(end + 4 + size).min(data.len())..];
    }
}

fn register(tools: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/register", "params": {"tools": tools}})
}

const SECOND: Duration = Duration::from_secs(1);

/// The `n`th of distinct capability names: dom:aaaaa, dom:aaaab, …
fn capability(mut n: usize) -> String {
    let mut action = [b'a'; 5];
    for letter in action.iter_mut().rev() {
        *letter = b'a' + (n % 26) as u8;
        n /= 26;
    }
    format!("dom:{}", String::from_utf8_lossy(&action))
}

/// Issue 37 items 5 and 6: a registration of 1,000,000 distinct capability names (their
/// quadratic merge once held the hub's lock on an async thread for as long as it took) and
/// one with a 1 MB description are refused with what is wrong, and meanwhile an unrelated
/// request is answered.
#[test]
fn a_huge_btcp_registration_is_refused_without_stalling_other_requests() {
    let server = std::sync::Arc::new(Server::start(&[]));
    let (base, session) = ("/btcp/k/owner-key-5a4b3c2d1e0f", "huge-0123456789abcdef");
    let page = server.browser(base, session, &[]);
    assert_eq!(page.status, 200, "{}", page.head);
    let names: Vec<String> = (0..1_000_000).map(capability).collect();
    let huge = register(
        json!([{"name": "greet", "inputSchema": {"type": "object"}, "capabilities": names}]),
    );
    let registering = {
        let server = server.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let r = server.post_btcp(base, session, &huge, 60 * SECOND);
            (r.json(), started.elapsed())
        })
    };
    // Unrelated requests while it is sent, parsed and checked: each answered within 5 s.
    let mut answered = 0;
    while answered == 0 || !registering.is_finished() {
        let started = Instant::now();
        let r = server.request("GET", "/api/tools", &[], b"", 5 * SECOND);
        assert_eq!(r.status, 200);
        assert!(started.elapsed() < 5 * SECOND, "{:?}", started.elapsed());
        answered += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
    let (answer, took) = registering.join().unwrap();
    eprintln!("the registration was refused in {took:?}");
    assert_eq!(
        answer["error"],
        json!({"code": -32602, "message": "tools[0] (greet) declares 1000000 capabilities; a tool declares at most 32"})
    );
    let long = register(
        json!([{"name": "greet", "description": "x".repeat(1 << 20), "inputSchema": {"type": "object"}}]),
    );
    let r = server.post_btcp(base, session, &long, 30 * SECOND);
    assert_eq!(
        r.json()["error"]["message"],
        "tools[0] (greet): the description is 1048576 bytes; at most 4096 (say more in the input schema's property descriptions)"
    );
    // Within the bounds, a registration is taken as before.
    let fine = register(
        json!([{"name": "greet", "description": "Greets", "inputSchema": {"type": "object"}, "capabilities": ["dom:read", "dom:read"]}]),
    );
    let r = server.post_btcp(base, session, &fine, 10 * SECOND);
    assert_eq!(r.json()["result"], json!({"registered": 1}));
    drop(page);
}

/// The tools an agent with the owner key sees in a session (empty once its browser left).
fn agent_sees(server: &Server, key: &str, session: &str) -> Vec<Value> {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let r = server.request(
        "POST",
        &format!("/btcp/a/{key}/message"),
        &[
            ("Content-Type", "application/json"),
            ("X-Session-ID", session),
        ],
        list.to_string().as_bytes(),
        10 * SECOND,
    );
    r.json()["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Issue 37 item 7: once a keyed session's page is away (a reload), knowing the session id is
/// not enough to become its browser: without the key, or with another, it is 403; the page
/// comes back with its key.
#[test]
fn a_keyed_session_cannot_be_taken_over_while_its_page_reloads() {
    let server = Server::start(&[]);
    let (key, session) = ("owner-key-0f1e2d3c4b5a6978", "reload-0123456789abcdef");
    let base = format!("/btcp/k/{key}");
    let page = server.browser(&base, session, &[]);
    assert_eq!(page.status, 200, "{}", page.head);
    let greet = register(
        json!([{"name": "greet", "description": "Greets", "inputSchema": {"type": "object"}, "capabilities": ["dom:read"]}]),
    );
    assert_eq!(
        server.post_btcp(&base, session, &greet, 10 * SECOND).json()["result"],
        json!({"registered": 1})
    );
    assert_eq!(agent_sees(&server, key, session).len(), 1);
    // The page reloads: its stream ends, and the server lets its tools go.
    drop(page);
    let started = Instant::now();
    while !agent_sees(&server, key, session).is_empty() {
        assert!(
            started.elapsed() < 40 * SECOND,
            "the server never saw the page leave"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Someone who knows the id but not the key: refused, with or without a key of their own,
    // over either transport.
    for (base, extra) in [
        ("/btcp".to_string(), vec![]),
        ("/btcp/k/another-key-00112233".to_string(), vec![]),
        (
            "/btcp".to_string(),
            vec![("Origin", format!("http://{}", server.addr))],
        ),
    ] {
        let extra: Vec<(&str, &str)> = extra.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let impostor = server.browser(&base, session, &extra);
        assert_eq!(impostor.status, 403, "{base}: {}", impostor.head);
    }
    let ws = server.request(
        "GET",
        &format!("/btcp/ws?sessionId={session}&clientType=browser"),
        &[
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ],
        b"",
        10 * SECOND,
    );
    assert_eq!(ws.status, 403);
    // The page itself comes back with its key and registers again.
    let back = server.browser(&base, session, &[]);
    assert_eq!(back.status, 200, "{}", back.head);
    assert_eq!(
        server.post_btcp(&base, session, &greet, 10 * SECOND).json()["result"],
        json!({"registered": 1})
    );
}

/// Issue 37 item 8: what a page's `<img src=".../btcp/events?…">` (or a no-cors fetch) sends
/// opens no session, so no page can fill the 64; and one client keeps at most 16 open, while
/// another page (origin) still gets its own.
#[test]
fn subresources_open_no_btcp_session_and_one_client_holds_only_its_share() {
    let other = "http://localhost:4000";
    let server = Server::start(&["--allow-origin", other]);
    let image = [
        (
            "Accept",
            "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
        ),
        ("Sec-Fetch-Dest", "image"),
        ("Sec-Fetch-Mode", "no-cors"),
        ("Sec-Fetch-Site", "cross-site"),
    ];
    for i in 0..64 {
        let img = server.stream(
            "GET",
            &format!("/btcp/events?sessionId=img-{i:04}-0123456789ab"),
            &image,
            b"",
        );
        assert_eq!(img.status, 403, "{}", img.head);
    }
    // A no-cors fetch may ask for text/event-stream, but the browser marks its mode.
    let fetch = server.stream(
        "GET",
        "/btcp/events?sessionId=fetch-0123456789ab",
        &[
            ("Accept", "text/event-stream"),
            ("Sec-Fetch-Dest", "empty"),
            ("Sec-Fetch-Mode", "no-cors"),
        ],
        b"",
    );
    assert_eq!(fetch.status, 403, "{}", fetch.head);
    // A browser's EventSource (same-origin: cors mode, no Origin) opens its session.
    let mut held = Vec::new();
    for i in 0..16 {
        let s = server.browser(
            "/btcp",
            &format!("mine-{i:04}-0123456789ab"),
            &[("Sec-Fetch-Dest", "empty"), ("Sec-Fetch-Mode", "cors")],
        );
        assert_eq!(s.status, 200, "{i}: {}", s.head);
        held.push(s);
    }
    let seventeenth = server.request(
        "GET",
        "/btcp/events?sessionId=mine-more-0123456789ab&clientType=browser",
        &[("Accept", "text/event-stream")],
        b"",
        10 * SECOND,
    );
    assert_eq!(seventeenth.status, 429);
    assert_eq!(
        seventeenth.json()["error"],
        "this client (address and page origin) already holds 16 BTCP sessions with a browser connected; close one first"
    );
    let elsewhere = server.browser(
        "/btcp",
        "theirs-0123456789abcdef",
        &[("Origin", other), ("Sec-Fetch-Mode", "cors")],
    );
    assert_eq!(elsewhere.status, 200, "{}", elsewhere.head);
}

/// Opens a BTCP session (its browser's stream, kept) with `paint`, which needs dom:write.
fn page_with_paint(server: &Server, session: &str) -> Stream {
    let page = server.browser("/btcp", session, &[]);
    assert_eq!(page.status, 200, "{}", page.head);
    let paint = register(
        json!([{"name": "paint", "description": "Paints the page", "inputSchema": {"type": "object"}, "capabilities": ["dom:write"]}]),
    );
    assert_eq!(
        server
            .post_btcp("/btcp", session, &paint, 10 * SECOND)
            .json()["result"],
        json!({"registered": 1})
    );
    page
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// Issue 37 item 10: a 2025-era client that declared elicitation but accepts only JSON is
/// refused a consent question at once (it could never see it), with how to proceed.
#[test]
fn a_json_only_client_is_refused_a_question_at_once() {
    let server = Server::start(&[]);
    let btcp = "json-only-0123456789ab";
    let _page = page_with_paint(&server, btcp);
    let mcp = server.mcp_session(Some(btcp));
    let json_only = [
        ("Accept", "application/json"),
        ("Mcp-Session-Id", mcp.as_str()),
    ];
    let started = Instant::now();
    let r = server.mcp(&json_only, &call(1, "paint", json!({})), 20 * SECOND);
    assert!(started.elapsed() < 10 * SECOND, "{:?}", started.elapsed());
    assert_eq!(r.status, 200);
    let result = &r.json()["result"];
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("the question cannot be asked over a JSON response")
            && text.contains("use a client that accepts text/event-stream")
            && text.contains("`cmpx policy grant dom:write --tool paint`"),
        "{text}"
    );
    let r = server.mcp(
        &json_only,
        &call(
            2,
            "__btcp_request_capabilities",
            json!({"capabilities": ["dom:write"]}),
        ),
        20 * SECOND,
    );
    let standing = &r.json()["result"]["structuredContent"];
    assert_eq!(standing["pending"], json!(["dom:write"]));
    let note = standing["message"].as_str().unwrap();
    assert!(
        note.starts_with(
            "dom:write not granted: the question cannot be asked over a JSON response"
        ) && note.contains("`cmpx policy grant dom:write --tool <browser tool>`"),
        "{note}"
    );
    assert!(started.elapsed() < 15 * SECOND, "{:?}", started.elapsed());
}

/// Issue 37 item 13: a flood of 260 MCP sessions from one client (past the 256 the server
/// keeps) ends the flood's own idle sessions, never one with a consent question open, which
/// the person then answers.
#[test]
fn a_session_with_a_question_in_flight_outlives_a_flood_of_sessions() {
    let server = Server::start(&[]);
    let btcp = "flood-0123456789abcdef";
    let _page = page_with_paint(&server, btcp);
    let mcp = server.mcp_session(Some(btcp));
    let ask = call(
        7,
        "__btcp_request_capabilities",
        json!({"capabilities": ["dom:write"]}),
    );
    let mut asking = server.stream(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", mcp.as_str()),
        ],
        ask.to_string().as_bytes(),
    );
    assert_eq!(asking.status, 200, "{}", asking.head);
    let question = asking.next_data(10 * SECOND);
    assert_eq!(question["method"], "elicitation/create", "{question}");
    for i in 0..260 {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"}}});
        let r = server.mcp(&[("Accept", "application/json")], &init, 10 * SECOND);
        assert_eq!(r.status, 200, "{i}: {}", String::from_utf8_lossy(&r.body));
    }
    let yes = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"confirm": true}}});
    let r = server.mcp(
        &[
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", mcp.as_str()),
        ],
        &yes,
        10 * SECOND,
    );
    assert_eq!(r.status, 202, "{}", String::from_utf8_lossy(&r.body));
    let answer = asking.next_data(10 * SECOND);
    assert_eq!(answer["id"], 7);
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"granted": ["dom:write"], "denied": [], "pending": []})
    );
}
