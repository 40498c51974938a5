//! The MCP protocol apart from any transport: a message in, messages out through a `Sink`.
//! Both eras: 2026-07-28 (stateless; version and client capabilities in each request's
//! `_meta`; `server/discover`; `resultType`; consent by multi round-trip) and 2024-11-05 …
//! 2025-11-25 (an `initialize` handshake; consent by `elicitation/create`). Each `tools/call`
//! runs on its own thread, at most `Options::max_calls` at once, and can be cancelled.

use super::apps;
use super::consent::{self, Book};
use super::registry::{Kind, Registry};
use super::{Options, progressive};
use crate::ctp::{ErrorCode, ToolError, ToolResult};
use crate::exec::authorize::{self, Decision, Permit, Question};
use crate::exec::invoke::{self, Flags};
use crate::jsonrpc::{
    self, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, Message,
    UNSUPPORTED_PROTOCOL_VERSION, error, reply,
};
use serde_json::{Map, Value, json};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where messages go: the transport's one serialised writer.
pub type Sink = Arc<dyn Fn(Value) + Send + Sync>;

/// The stateless revision.
pub const MODERN: &str = "2026-07-28";
/// Revisions spoken through `initialize`, newest first.
pub const LEGACY: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Calls that run at once on stdio; one more is answered at once with a "busy" tool error.
pub const MAX_CALLS: usize = 4;
/// A call's wall-clock limit: under the 60 s a client's request timeout commonly is.
pub const CALL_TIME_LIMIT: Duration = Duration::from_secs(50);
/// Progress notifications go out this often once a call runs longer, when asked for.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER: &str = "io.modelcontextprotocol/serverInfo";

/// How one request is served.
#[derive(Debug, Clone)]
pub enum Era {
    /// After `initialize`: the negotiated version and the client's capabilities.
    Legacy {
        version: String,
        capabilities: Value,
    },
    /// 2026-07-28: the capabilities this very request declares.
    Modern { capabilities: Value },
}

pub struct Engine {
    opts: Options,
    registry: Registry,
    /// The resolver's index for progressive `search`, built once and never written to disk.
    index: Option<crate::resolve::index::Index>,
    session: Mutex<Option<Era>>,
    inflight: Mutex<HashMap<String, Arc<AtomicBool>>>,
    running: AtomicUsize,
    consent: Book,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// The BTCP session whose browser tools are listed beside the catalogue, if any.
    browser: Option<crate::btcp::Link>,
}

/// One running call.
struct Call<'a> {
    engine: &'a Arc<Engine>,
    era: Era,
    params: &'a Map<String, Value>,
    cancelled: Arc<AtomicBool>,
    sink: Sink,
    /// Whether a 2025-era consent question can reach the client on this call's channel.
    asks: bool,
}

fn server_info() -> Value {
    json!({ "name": "cmpx", "title": "cmpx developer utilities", "version": env!("CARGO_PKG_VERSION") })
}

impl Engine {
    pub fn new(opts: Options, registry: Registry) -> Engine {
        let index = opts
            .progressive
            .then(|| crate::resolve::index::build(&crate::paths::all_roots()));
        Engine {
            opts,
            registry,
            index,
            session: Mutex::new(None),
            inflight: Mutex::new(HashMap::new()),
            running: AtomicUsize::new(0),
            consent: Book::default(),
            threads: Mutex::new(Vec::new()),
            browser: None,
        }
    }

    /// An engine that also lists and calls the browser tools of one BTCP session.
    pub fn with_browser(opts: Options, registry: Registry, link: crate::btcp::Link) -> Engine {
        Engine {
            browser: Some(link),
            ..Engine::new(opts, registry)
        }
    }

    pub fn browser(&self) -> Option<&crate::btcp::Link> {
        self.browser.as_ref()
    }

    /// One classified message. Quick requests are answered before this returns; a
    /// `tools/call` is answered from its own thread.
    pub fn receive(self: &Arc<Self>, msg: Message, sink: &Sink) {
        self.receive_on(msg, sink, true);
    }

    /// [`Engine::receive`] for a request answered by one JSON body (an HTTP client that does
    /// not accept an event stream): a 2025-era consent question would have nowhere to go, so a
    /// call that needs one is refused at once instead of waiting for an answer that cannot come.
    pub fn receive_without_questions(self: &Arc<Self>, msg: Message, sink: &Sink) {
        self.receive_on(msg, sink, false);
    }

    /// Whether a call is running (a consent question waits inside one).
    pub fn busy(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0
    }

    fn receive_on(self: &Arc<Self>, msg: Message, sink: &Sink, asks: bool) {
        match msg {
            Message::Invalid(e) => sink(e),
            Message::Ignore => {}
            Message::Response { id, body } => self.consent.answer(&id, &body),
            Message::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    self.cancel(params.get("requestId"));
                }
            }
            Message::Request { id, method, params } => {
                self.request(id, &method, params, sink, asks)
            }
        }
    }

    /// End of input: nobody is left to answer a question; let running calls finish.
    pub fn finish(&self) {
        self.consent.close_all();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            let _ = t.join();
        }
    }

    fn cancel(&self, id: Option<&Value>) {
        let Some(id) = id.filter(|i| jsonrpc::valid_id(i)) else {
            return;
        };
        if let Ok(inflight) = self.inflight.lock()
            && let Some(flag) = inflight.get(&id.to_string())
        {
            flag.store(true, Ordering::SeqCst);
        }
    }

    fn request(
        self: &Arc<Self>,
        id: Value,
        method: &str,
        params: Map<String, Value>,
        sink: &Sink,
        asks: bool,
    ) {
        let era = match self.era(method, &params) {
            Ok(era) => era,
            Err(e) => return sink(error_value(id, e)),
        };
        let result = match method {
            "initialize" => self.initialize(&params),
            "ping" => match era {
                Era::Modern { .. } => Err(Failure::new(
                    METHOD_NOT_FOUND,
                    "ping does not exist in 2026-07-28; any request (tools/list) shows the server is alive",
                )),
                Era::Legacy { .. } => Ok(json!({})),
            },
            "server/discover" => Ok(self.discover(&era)),
            "tools/list" => self.list(&params, &era),
            "resources/list" if self.apps(&era) => {
                apps::list(params.get("cursor"), self.opts.page_size)
                    .map_err(|m| Failure::new(INVALID_PARAMS, m))
            }
            "resources/read" if self.apps(&era) => self.read_resource(&params),
            "tools/call" => return self.call(id, params, era, sink, asks),
            other => Err(Failure::new(
                METHOD_NOT_FOUND,
                format!("method not found: {}", crate::text::preview(other, 64)),
            )),
        };
        sink(match result {
            Ok(r) => reply(id, finished(r, &era)),
            Err(e) => error_value(id, e),
        });
    }

    /// Which era serves this request, or why none does.
    fn era(&self, method: &str, params: &Map<String, Value>) -> Result<Era, Failure> {
        let meta = params.get("_meta");
        let asked = meta
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str);
        let session = self.session.lock().ok().and_then(|s| s.clone());
        if method == "server/discover" && asked.is_none() {
            // Discovery is the era probe itself: always answered, in the modern shape.
            return Ok(Era::Modern {
                capabilities: json!({}),
            });
        }
        if method == "initialize" {
            return Ok(Era::Legacy {
                version: String::new(),
                capabilities: json!({}),
            });
        }
        match asked {
            Some(MODERN) => Ok(Era::Modern {
                capabilities: meta
                    .and_then(|m| m.get(META_CAPABILITIES))
                    .cloned()
                    .unwrap_or(json!({})),
            }),
            Some(v) if !LEGACY.contains(&v) => Err(Failure {
                code: UNSUPPORTED_PROTOCOL_VERSION,
                message: "Unsupported protocol version".into(),
                data: Some(json!({ "supported": supported(), "requested": v })),
            }),
            _ => match session {
                Some(era) => Ok(era),
                None if method == "ping" => Ok(Era::Legacy {
                    version: String::new(),
                    capabilities: json!({}),
                }),
                None => Err(Failure::new(
                    INVALID_REQUEST,
                    format!(
                        "not initialized: send initialize first, or use protocol {MODERN} by putting {META_VERSION} in params._meta"
                    ),
                )),
            },
        }
    }

    fn initialize(&self, params: &Map<String, Value>) -> Result<Value, Failure> {
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        if session.is_some() {
            return Err(Failure::new(
                INVALID_REQUEST,
                "already initialized: initialize is sent once per connection",
            ));
        }
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let version = LEGACY
            .iter()
            .find(|v| **v == asked)
            .unwrap_or(&LEGACY[0])
            .to_string();
        let era = Era::Legacy {
            version: version.clone(),
            capabilities: params.get("capabilities").cloned().unwrap_or(json!({})),
        };
        let capabilities = self.capabilities(&era);
        *session = Some(era);
        Ok(json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": server_info(),
            "instructions": self.instructions(),
        }))
    }

    /// Whether this request's client declared MCP Apps (views exist for catalogue tools in
    /// full mode only: progressive mode lists meta-tools).
    fn apps(&self, era: &Era) -> bool {
        let caps = match era {
            Era::Legacy { capabilities, .. } | Era::Modern { capabilities } => capabilities,
        };
        !self.opts.progressive && apps::negotiated(caps)
    }

    fn read_resource(&self, params: &Map<String, Value>) -> Result<Value, Failure> {
        let uri = params
            .get("uri")
            .and_then(Value::as_str)
            .ok_or_else(|| Failure::new(INVALID_PARAMS, "resources/read needs a uri"))?;
        apps::read(uri).ok_or_else(|| Failure {
            code: apps::RESOURCE_NOT_FOUND,
            message: format!(
                "resource not found: {}; views are ui://cmpx/<tool id> (resources/list names them)",
                crate::text::preview(uri, 80)
            ),
            data: Some(json!({ "uri": uri })),
        })
    }

    fn capabilities(&self, era: &Era) -> Value {
        let mut caps = self.base_capabilities();
        if self.apps(era) {
            apps::add_capabilities(&mut caps);
        }
        caps
    }

    fn base_capabilities(&self) -> Value {
        let mode = if self.opts.progressive {
            "progressive"
        } else {
            "full"
        };
        json!({
            "tools": { "listChanged": self.browser.is_some() },
            "experimental": {
                "ctp": {
                    "version": "1.0.0",
                    "features": ["tools", "validation", "structured-results", "cmp-adapters", "progressive-discovery"],
                    "mode": mode,
                }
            }
        })
    }

    fn instructions(&self) -> String {
        // The count follows the embedded catalogue (its files, none parsed).
        let n = crate::catalogue::ids().count();
        if self.opts.progressive {
            format!(
                "cmpx: about {n} offline developer utilities (JSON/YAML/CSV/XML formatting and conversion, Base64 and other encodings, hashes, JWT, UUIDs, regex, diff, dates and cron, case and text tools) plus installed CLIs (git, ripgrep, fd, jq, tar, sqlite, curl, files). Call `search` with the task in plain words, `describe` the best match for its input schema, then `run` it. Tools that change files ask the user first."
            )
        } else {
            format!(
                "cmpx: about {n} offline developer utilities (JSON/YAML/CSV/XML formatting and conversion, Base64 and other encodings, hashes, JWT, UUIDs, regex, diff, dates and cron, case and text tools) plus installed CLIs. Tool names say what they do: a utility's id (json-formatter, base64-encoder, jwt-decoder) or <program>.<action> (git.recent-commits, ripgrep.search-text-or-a-regex-in-files); search tool names by keyword. Results are JSON; tools that change files ask the user first."
            )
        }
    }

    fn discover(&self, era: &Era) -> Value {
        json!({
            "supportedVersions": supported(),
            "capabilities": self.capabilities(era),
            "instructions": self.instructions(),
            "ttlMs": 3_600_000,
            "cacheScope": "public",
        })
    }

    fn definitions(&self) -> Vec<Value> {
        if self.opts.progressive {
            progressive::definitions()
        } else {
            let mut all: Vec<Value> = self
                .registry
                .tools
                .iter()
                .map(|t| t.definition.clone())
                .collect();
            if let Some(link) = &self.browser {
                // Browser tools follow the catalogue; a name the catalogue has stays its.
                all.extend(link.definitions().into_iter().filter(|d| {
                    d["name"]
                        .as_str()
                        .is_some_and(|n| self.registry.get(n).is_none())
                }));
            }
            all
        }
    }

    fn list(&self, params: &Map<String, Value>, era: &Era) -> Result<Value, Failure> {
        let all = self.definitions();
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= all.len())
                .ok_or_else(|| {
                    Failure::new(
                        INVALID_PARAMS,
                        format!("invalid cursor: {}", crate::text::preview(c, 32)),
                    )
                })?,
            Some(_) => return Err(Failure::new(INVALID_PARAMS, "cursor must be a string")),
        };
        let size = self.opts.page_size.max(1);
        let end = (start + size).min(all.len());
        let page = &all[start..end];
        let mut result = if self.apps(era) {
            let tools: Vec<Value> = page
                .iter()
                .map(|d| {
                    let name = d.get("name").and_then(Value::as_str).unwrap_or("");
                    match self.registry.get(name).map(|t| &t.kind) {
                        Some(Kind::Builtin(_)) => apps::with_view(d.clone(), name),
                        _ => d.clone(),
                    }
                })
                .collect();
            json!({ "tools": tools })
        } else {
            json!({ "tools": page })
        };
        if end < all.len() {
            result["nextCursor"] = json!(end.to_string());
        }
        if matches!(era, Era::Modern { .. }) {
            // The list changes only when folders are installed, which a restart picks up;
            // installed folders are this user's, so no shared cache.
            result["ttlMs"] = json!(300_000);
            result["cacheScope"] = json!("private");
        }
        Ok(result)
    }

    /// `tools/call`: checked here, run on a thread of its own.
    fn call(
        self: &Arc<Self>,
        id: Value,
        params: Map<String, Value>,
        era: Era,
        sink: &Sink,
        asks: bool,
    ) {
        let name = match params.get("name").and_then(Value::as_str) {
            Some(n) => n.to_string(),
            None => {
                return sink(error(id, INVALID_PARAMS, "tools/call needs a tool name"));
            }
        };
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return sink(error(id, INVALID_PARAMS, "arguments must be an object")),
        };
        if let Err(e) = self.known(&name) {
            return sink(error_value(id, e));
        }
        let max = self.opts.max_calls;
        if self.running.fetch_add(1, Ordering::SeqCst) >= max {
            self.running.fetch_sub(1, Ordering::SeqCst);
            let busy = ToolResult::from(ToolError::new(
                ErrorCode::RateLimited,
                format!(
                    "busy: {max} calls are already running; call again when one of them has answered"
                ),
            ));
            return sink(reply(id, finished(call_result(&busy), &era)));
        }
        let key = id.to_string();
        let cancelled = Arc::new(AtomicBool::new(false));
        {
            let mut inflight = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
            if inflight.contains_key(&key) {
                drop(inflight);
                self.running.fetch_sub(1, Ordering::SeqCst);
                return sink(error(
                    id,
                    INVALID_REQUEST,
                    "a request with this id is still running; use a new id",
                ));
            }
            inflight.insert(key.clone(), Arc::clone(&cancelled));
        }
        let engine = Arc::clone(self);
        let sink = Arc::clone(sink);
        let handle = std::thread::spawn(move || {
            let call = Call {
                engine: &engine,
                era: era.clone(),
                params: &params,
                cancelled: Arc::clone(&cancelled),
                sink: Arc::clone(&sink),
                asks,
            };
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call.run(&name, &args)));
            let stopped = {
                let mut inflight = engine.inflight.lock().unwrap_or_else(|e| e.into_inner());
                inflight.remove(&key);
                cancelled.load(Ordering::SeqCst)
            };
            engine.running.fetch_sub(1, Ordering::SeqCst);
            match outcome {
                // Cancelled: no answer at all, as the protocol asks.
                _ if stopped => {}
                Ok(Some(result)) => sink(reply(id, finished(result, &era))),
                Ok(None) => {}
                Err(_) => sink(error(
                    id,
                    INTERNAL_ERROR,
                    "the call failed inside cmpx (a bug, please report it); the server goes on",
                )),
            }
        });
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        threads.retain(|t| !t.is_finished());
        threads.push(handle);
    }

    /// An unknown tool is a protocol error (-32602), with a suggestion.
    fn known(&self, name: &str) -> Result<(), Failure> {
        let browser = self.browser.as_ref().map(|l| l.names()).unwrap_or_default();
        let names: Vec<&str> = if self.opts.progressive {
            vec!["search", "describe", "run"]
        } else {
            self.registry
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .chain(browser.iter().map(String::as_str))
                .collect()
        };
        if names.contains(&name) {
            return Ok(());
        }
        let hint = crate::suggest::did_you_mean(name, names.iter().copied())
            .map(|s| format!("; did you mean '{s}'?"))
            .unwrap_or_default();
        Err(Failure::new(
            INVALID_PARAMS,
            format!("unknown tool: {}{hint}", crate::text::preview(name, 64)),
        ))
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn index(&self) -> Option<&crate::resolve::index::Index> {
        self.index.as_ref()
    }
}

impl Call<'_> {
    /// The call's result (a CallToolResult or an input_required result); `None` once
    /// cancelled.
    fn run(&self, name: &str, args: &Map<String, Value>) -> Option<Value> {
        if self.engine.opts.progressive {
            return progressive::call(self.engine, name, args, &|n, a| self.tool(n, a));
        }
        self.tool(name, args)
    }

    /// Polled by the worker about every 20 ms: sends progress when it is due, and says
    /// whether the call was cancelled.
    fn poller(&self) -> impl Fn() -> bool + '_ {
        let token = self
            .params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| jsonrpc::valid_id(t))
            .cloned();
        let started = Instant::now();
        let next = Cell::new(PROGRESS_EVERY);
        move || {
            if self.cancelled.load(Ordering::SeqCst) {
                // Nothing more goes out for a cancelled call, progress included.
                return true;
            }
            if let Some(token) = &token
                && started.elapsed() >= next.get()
            {
                let seconds = next.get().as_secs();
                next.set(next.get() + PROGRESS_EVERY);
                (self.sink)(jsonrpc::notification(
                    "notifications/progress",
                    Some(
                        json!({ "progressToken": token, "progress": seconds, "message": format!("running for {seconds} s") }),
                    ),
                ));
            }
            self.cancelled.load(Ordering::SeqCst)
        }
    }

    fn tool(&self, name: &str, args: &Map<String, Value>) -> Option<Value> {
        if self.engine.registry.get(name).is_none()
            && let Some(link) = &self.engine.browser
        {
            return self.browser_tool(link, name, args);
        }
        let Some(tool) = self.engine.registry.get(name) else {
            return Some(call_result(&ToolResult::from(ToolError::invalid(format!(
                "no tool named '{}'; use search to find one",
                crate::text::preview(name, 64)
            )))));
        };
        let poll = self.poller();
        match &tool.kind {
            Kind::Builtin(def) => {
                let call = authorize::Call::Builtin {
                    id: &def.id,
                    reads: &[],
                    output: None,
                };
                let permit = match self.authorize(&call)? {
                    Ok(permit) => permit,
                    Err(answer) => return Some(answer),
                };
                let bounds = crate::exec::worker::Bounds {
                    time: CALL_TIME_LIMIT,
                    memory: crate::limits::max_memory(),
                };
                crate::exec::worker::run_cancellable(permit, def, args.clone(), None, bounds, &poll)
                    .map(|r| call_result(&r))
            }
            Kind::Intent(target) => {
                let call = authorize::Call::Intent { target, args };
                let permit = match self.authorize(&call)? {
                    Ok(permit) => permit,
                    Err(answer) => return Some(answer),
                };
                let flags = Flags {
                    limits: crate::exec::external::Limits {
                        timeout: CALL_TIME_LIMIT,
                        ..Default::default()
                    },
                    ..Flags::default()
                };
                invoke::invoke_cancellable(permit, target, args, &flags, &poll)
                    .map(|r| call_result(&r))
            }
            Kind::Pipe => {
                crate::pipe::call::call(args, CALL_TIME_LIMIT, &poll).map(|r| call_result(&r))
            }
        }
    }

    /// A browser tool of the linked BTCP session, after the policy and consent rules.
    fn browser_tool(
        &self,
        link: &crate::btcp::Link,
        name: &str,
        args: &Map<String, Value>,
    ) -> Option<Value> {
        if let Some(remote) = &link.remote {
            return self.remote_tool(remote, name, args);
        }
        if name == crate::btcp::REQUEST_CAPABILITIES {
            return self.request_capabilities(link, args);
        }
        let Some(tool) = link.tool(name) else {
            return Some(call_result(&ToolResult::from(ToolError::invalid(format!(
                "the browser tool '{}' is no longer registered in this BTCP session",
                crate::text::preview(name, 64)
            )))));
        };
        let call = link.call_for(name, &tool);
        let permit = match authorize::decide(&call) {
            Decision::Run(permit) => permit,
            Decision::Refuse(e) => return Some(call_result(&ToolResult::err(e, None))),
            Decision::Ask(question) => {
                // Accepted once, the capabilities hold for the rest of this BTCP session.
                let asked = question.capabilities().to_vec();
                let permit = match self.settle(question)? {
                    Ok(permit) => permit,
                    Err(answer) => return Some(answer),
                };
                link.grant(&asked);
                permit
            }
        };
        let poll = self.poller();
        link.call(permit, name, &Value::Object(args.clone()), &poll)
    }

    /// `__btcp_request_capabilities`: the pending ones are put to the person (denied ones
    /// never); accepted, they are granted to this BTCP session alone.
    fn request_capabilities(
        &self,
        link: &crate::btcp::Link,
        args: &Map<String, Value>,
    ) -> Option<Value> {
        let asked = crate::btcp::Link::requested(&Value::Object(args.clone()));
        if let Some(bad) = asked.iter().find(|c| !crate::capability::well_formed(c)) {
            return Some(call_result(&ToolResult::from(ToolError::invalid(format!(
                "'{}' is not a capability name: give names like dom:write or storage:local:read (category:action or category:resource:action, lowercase)",
                crate::text::preview(bad, 60)
            )))));
        }
        if asked.is_empty() {
            return Some(call_result(&ToolResult::from(ToolError::invalid(
                "give the capabilities to request as {\"capabilities\": [\"dom:write\", …]}",
            ))));
        }
        let mut standing = link.standing(&asked);
        if standing.pending.is_empty() {
            return Some(standing.result(None));
        }
        let pending = std::mem::take(&mut standing.pending);
        if !self.engine.opts.allow_destructive {
            let what = format!(
                "grant {} to the browser tools of BTCP session {} until it ends",
                pending.join(", "),
                link.session
            );
            match self.gate(
                crate::btcp::REQUEST_CAPABILITIES,
                &what,
                &crate::cmp::effects::Caution::Capability,
            )? {
                Gate::Run => {}
                Gate::Answer(v) if v.get("resultType") == Some(&json!("input_required")) => {
                    return Some(v);
                }
                Gate::Answer(v) => {
                    standing.pending = pending;
                    let note = crate::btcp::pending_note(&standing.pending, &unaccepted(&v));
                    return Some(standing.result(Some(&note)));
                }
            }
        }
        link.grant(&pending);
        standing.granted.extend(pending);
        Some(standing.result(None))
    }

    /// A browser tool of a session on another `cmpx serve` (`cmpx mcp --btcp-server`): that
    /// server applies the policy; when it needs consent, the person is asked here, and the
    /// call is made again with the server's question answered.
    fn remote_tool(
        &self,
        remote: &crate::btcp::remote::Remote,
        name: &str,
        args: &Map<String, Value>,
    ) -> Option<Value> {
        use crate::btcp::remote::Outcome;
        let arguments = Value::Object(args.clone());
        let state = match remote.call(name, &arguments, None) {
            Outcome::Done(v) => return Some(v),
            Outcome::Ask { state, .. } => state,
        };
        if !self.engine.opts.allow_destructive {
            let what = if name == crate::btcp::REQUEST_CAPABILITIES {
                // What the server leaves to the person: neither granted nor denied there.
                format!(
                    "grant {} to the browser tools of BTCP session {} until it ends",
                    remote.pending(&arguments).join(", "),
                    remote.session
                )
            } else {
                format!(
                    "browser tool {name} (needs {}) with {arguments}",
                    remote.capabilities(name).join(", ")
                )
            };
            if let Gate::Answer(v) =
                self.gate(name, &what, &crate::cmp::effects::Caution::Capability)?
            {
                let question = v.get("resultType") == Some(&json!("input_required"));
                if name == crate::btcp::REQUEST_CAPABILITIES && !question {
                    // Not accepted: the server's standing, with why it stayed pending here.
                    return Some(remote.standing(&arguments, &unaccepted(&v)));
                }
                return Some(v);
            }
        }
        match remote.call(name, &arguments, Some(&state)) {
            Outcome::Done(v) => Some(v),
            Outcome::Ask { .. } => Some(call_result(&consent::denied(
                name,
                "the BTCP server asked again after the person accepted",
            ))),
        }
    }

    /// The one authorization point for this call, asking the person through the client
    /// when the policy leaves it open: the permit, or the result to return instead (a
    /// refusal, or 2026-07-28's `input_required`); `None` when the call was cancelled.
    fn authorize(&self, call: &authorize::Call) -> Option<Result<Permit, Value>> {
        match authorize::decide(call) {
            Decision::Run(permit) => Some(Ok(permit)),
            Decision::Refuse(e) => Some(Err(call_result(&ToolResult::err(e, None)))),
            Decision::Ask(question) => self.settle(question),
        }
    }

    /// The person's answer to `question`, in the era's way (or consent given for everything
    /// with `--allow-destructive`).
    fn settle(&self, question: Question) -> Option<Result<Permit, Value>> {
        if self.engine.opts.allow_destructive {
            return Some(Ok(question.accept()));
        }
        let refused = |e: ToolError| Err(call_result(&ToolResult::err(e, None)));
        Some(
            match self.ask(question.tool(), question.command(), question.caution())? {
                Reply::Yes => Ok(question.accept()),
                Reply::No => refused(question.decline()),
                Reply::CannotAsk(why) => refused(question.cannot_ask(&why, consent::HINT)),
                Reply::Pending(v) => Err(v),
            },
        )
    }

    /// [`Call::ask`] for a question that is not a call's (a capability request): a refusal
    /// or a decline in the MCP consent wording.
    fn gate(
        &self,
        tool: &str,
        command: &str,
        caution: &crate::cmp::effects::Caution,
    ) -> Option<Gate> {
        Some(match self.ask(tool, command, caution)? {
            Reply::Yes => Gate::Run,
            Reply::No => Gate::Answer(call_result(&consent::declined(command))),
            Reply::CannotAsk(why) => {
                Gate::Answer(call_result(&consent::refusal(tool, command, caution, &why)))
            }
            Reply::Pending(v) => Gate::Answer(v),
        })
    }

    /// The consent question for `command` of `tool`, in the era's way; `None` when the call
    /// was cancelled meanwhile.
    fn ask(
        &self,
        _tool: &str,
        command: &str,
        caution: &crate::cmp::effects::Caution,
    ) -> Option<Reply> {
        let command = command.to_string();
        let refuse = |why: &str| Some(Reply::CannotAsk(why.to_string()));
        match &self.era {
            Era::Modern { capabilities } => {
                let outer = consent::binding(
                    self.params
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                    self.params
                        .get("arguments")
                        .and_then(Value::as_object)
                        .unwrap_or(&Map::new()),
                );
                let state = self.params.get("requestState").and_then(Value::as_str);
                if let Some(state) = state
                    && self.engine.consent.redeem(state, &outer)
                {
                    let answer = self
                        .params
                        .get("inputResponses")
                        .and_then(|r| r.get(consent::INPUT_KEY));
                    match answer {
                        Some(a) if consent::accepted(a) => return Some(Reply::Yes),
                        Some(a) if a.get("action").is_some() => return Some(Reply::No),
                        // No answer to our question: ask again.
                        _ => {}
                    }
                }
                if !consent::form_capable(capabilities) {
                    return refuse(
                        "this client cannot ask the person (it declares no form elicitation)",
                    );
                }
                Some(Reply::Pending(json!({
                    "resultType": "input_required",
                    "inputRequests": {
                        consent::INPUT_KEY: {
                            "method": "elicitation/create",
                            "params": consent::question(&command, caution.warning(), true),
                        }
                    },
                    "requestState": self.engine.consent.issue(outer),
                })))
            }
            Era::Legacy {
                version,
                capabilities,
            } => {
                if !consent::form_capable(capabilities) {
                    return refuse(
                        "this client cannot ask the person (it declared no form elicitation)",
                    );
                }
                if !self.asks {
                    return refuse(consent::JSON_ONLY);
                }
                let (qid, answers) = self.engine.consent.ask();
                (self.sink)(jsonrpc::request(
                    json!(qid),
                    "elicitation/create",
                    consent::question(
                        &command,
                        caution.warning(),
                        version.as_str() >= "2025-11-25",
                    ),
                ));
                let asked = Instant::now();
                let answer = loop {
                    match answers.recv_timeout(Duration::from_millis(50)) {
                        Ok(a) => break a,
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                            if self.cancelled.load(Ordering::SeqCst) {
                                self.engine.consent.close(&qid);
                                return None;
                            }
                            if asked.elapsed() >= consent::TIME_LIMIT {
                                self.engine.consent.close(&qid);
                                return refuse("nobody answered the question within 120 s");
                            }
                        }
                        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                            return refuse("the client went away before answering");
                        }
                    }
                };
                if consent::accepted(&answer) {
                    Some(Reply::Yes)
                } else {
                    Some(Reply::No)
                }
            }
        }
    }
}

enum Gate {
    Run,
    Answer(Value),
}

/// What came of a consent question.
enum Reply {
    Yes,
    No,
    /// Nobody could be asked: why.
    CannotAsk(String),
    /// 2026-07-28: the `input_required` result that asks; the call comes again with the answer.
    Pending(Value),
}

/// Why a consent question's answer (a refusal or a decline) did not let anything run.
fn unaccepted(answer: &Value) -> String {
    let text = answer
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    if text.contains("\"declined\":true") {
        "the person declined".into()
    } else if text.contains(consent::JSON_ONLY) {
        consent::JSON_ONLY.into()
    } else if text.contains("cannot ask the person") {
        "this client cannot ask the person (it declares no form elicitation)".into()
    } else {
        "nobody accepted the question".into()
    }
}

/// A JSON-RPC error to send.
#[derive(Debug)]
pub struct Failure {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl Failure {
    fn new(code: i64, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            data: None,
        }
    }
}

fn error_value(id: Value, f: Failure) -> Value {
    let mut e = error(id, f.code, f.message);
    if let Some(data) = f.data {
        e["error"]["data"] = data;
    }
    e
}

/// Every version spoken, newest first.
fn supported() -> Vec<&'static str> {
    std::iter::once(MODERN)
        .chain(LEGACY.iter().copied())
        .collect()
}

/// A result as the era wants it: 2026-07-28 results say `resultType` and who answered.
fn finished(mut result: Value, era: &Era) -> Value {
    if let (Era::Modern { .. }, Some(r)) = (era, result.as_object_mut()) {
        r.entry("resultType").or_insert(json!("complete"));
        let meta = r.entry("_meta").or_insert(json!({}));
        if let Some(m) = meta.as_object_mut() {
            m.insert(META_SERVER.into(), server_info());
        }
    }
    result
}

/// A CTP ToolResult as an MCP CallToolResult: the data as text and as structured content, or
/// the CTP error with `isError`.
pub fn call_result(result: &ToolResult) -> Value {
    if result.success {
        let data = result.data.clone().unwrap_or(json!({}));
        let text = serde_json::to_string(&data).unwrap_or_default();
        json!({ "content": [{ "type": "text", "text": text }], "structuredContent": data, "isError": false })
    } else {
        let text = serde_json::to_string(&result.to_value()).unwrap_or_default();
        json!({ "content": [{ "type": "text", "text": text }], "isError": true })
    }
}
