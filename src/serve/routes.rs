//! The routes and the state they share: which path does what, and the layers around them
//! (guard, access log, body limit, timeout, security headers, CORS).

use super::config::Config;
use super::rate::Limiter;
use super::{access_log, btcp, btcp_agent, documents, guard, intake, mcp, pages, tools};
use axum::Router;
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::routing::get;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;

pub(super) struct State {
    pub config: Config,
    pub local: SocketAddr,
    pub limiter: Option<Limiter>,
    /// One permit per tool call allowed to run.
    pub runs: Arc<tokio::sync::Semaphore>,
    /// Request bodies held in memory at once (read whole before routes run).
    pub body_budget: intake::Budget,
    /// The cancel flags of calls in flight, so shutdown can stop them.
    calls: Mutex<Vec<std::sync::Weak<AtomicBool>>>,
    /// MCP over HTTP: the shared stateless engine and the 2025-era sessions.
    pub mcp: mcp::Sessions,
    /// BTCP sessions of browser clients (`/btcp/…`), whose tools /mcp offers by `BTCP-Session`.
    pub btcp: Arc<crate::btcp::Hub>,
    /// Upgraded WebSocket connections, which the accept loop's drain does not see.
    pub sockets: Arc<super::sockets::Sockets>,
}

impl State {
    pub(super) fn new(config: Config, local: SocketAddr) -> State {
        let btcp = Arc::new(crate::btcp::Hub::default());
        State {
            limiter: config.rate.map(Limiter::new),
            runs: Arc::new(tokio::sync::Semaphore::new(config.max_concurrent)),
            body_budget: intake::Budget::new(config.max_concurrent, config.max_body),
            calls: Mutex::new(Vec::new()),
            mcp: mcp::Sessions::new(config.allow_adapters, config.max_concurrent, btcp.clone()),
            btcp,
            sockets: super::sockets::Sockets::new(),
            config,
            local,
        }
    }

    /// A flag the caller's call watches; [`State::cancel_all`] sets it.
    pub(super) fn register_call(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        calls.retain(|w| w.strong_count() > 0);
        calls.push(Arc::downgrade(&flag));
        flag
    }

    pub(super) fn cancel_all(&self) {
        let calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        for flag in calls.iter().filter_map(std::sync::Weak::upgrade) {
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// Whether `host` (a Host header) names this server. Behind a token any name goes; a
    /// loopback server answers only to loopback names, or the --base-url host.
    pub(super) fn host_allowed(&self, host: &str) -> bool {
        if self.config.token.is_some() {
            return true;
        }
        let Some(name) = host_name(host) else {
            return false;
        };
        if name.eq_ignore_ascii_case("localhost")
            || name
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
        {
            return true;
        }
        self.base_url_host()
            .is_some_and(|b| b.eq_ignore_ascii_case(name))
    }

    fn base_url_host(&self) -> Option<String> {
        let url = url::Url::parse(self.config.base_url.as_deref()?).ok()?;
        url.host_str().map(str::to_string)
    }

    /// Whether a page on `origin` may call: this server's own pages, the --base-url origin,
    /// and --allow-origin entries.
    pub(super) fn origin_allowed(&self, origin: &str, host: &str) -> bool {
        let origin = origin.trim_end_matches('/');
        if origin.eq_ignore_ascii_case(&format!("http://{host}"))
            || origin.eq_ignore_ascii_case(&format!("https://{host}"))
        {
            return true;
        }
        if let Some(base) = &self.config.base_url
            && let Ok(url) = url::Url::parse(base)
            && url
                .origin()
                .ascii_serialization()
                .eq_ignore_ascii_case(origin)
        {
            return true;
        }
        self.config
            .allow_origins
            .iter()
            .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
    }

    /// The base URL documents name: --base-url, else the Host this request came by (checked
    /// by the guard), else the listening address.
    pub(super) fn base_url(&self, host: Option<&str>) -> String {
        if let Some(base) = &self.config.base_url {
            return base.trim_end_matches('/').to_string();
        }
        match host.filter(|h| is_plain_host(h)) {
            Some(h) => format!("http://{h}"),
            None => format!("http://{}", self.local),
        }
    }
}

/// The name part of a Host header read as an RFC 9110 authority without user info: `[v6]`,
/// an IPv4 address or a registered name, then an optional `:port` of digits (`[::1]:80` →
/// `[::1]`, `a:1` → `a`). `None` for anything else (`[::1]evil.com`, `localhost:80@evil.com`,
/// `127.0.0.1:1,evil.com`), which no browser sends and a proxy should not forward.
fn host_name(host: &str) -> Option<&str> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        name[1..end].parse::<std::net::Ipv6Addr>().ok()?;
        (name, rest)
    } else {
        match host.find(':') {
            Some(i) => host.split_at(i),
            None => (host, ""),
        }
    };
    if !port.is_empty() {
        let digits = port.strip_prefix(':')?;
        if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u16>().ok()?;
    }
    let plain = name.starts_with('[')
        || (!name.is_empty()
            && name.len() <= 253
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'));
    plain.then_some(name)
}

/// A Host value safe to put into a URL: letters, digits, `.-:[]` only.
fn is_plain_host(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
}

pub(super) fn router(state: Arc<State>) -> Router {
    let mut app = Router::new()
        .route("/", get(pages::root))
        .route("/tools/{id}", get(pages::tool))
        .route("/embed/{id}", get(pages::embed))
        .route("/embed.js", get(pages::embed_js))
        .route("/assets/{name}", get(pages::asset))
        .route("/api/resolve", get(pages::resolve))
        .route("/api/pipe", axum::routing::post(super::pipe::post))
        .route("/api/tools", get(tools::list))
        .route(
            "/api/tools/{id}",
            get(tools::call_get)
                .post(tools::call_post)
                .options(tools::options),
        )
        .route(
            "/mcp",
            axum::routing::post(mcp::post)
                .get(mcp::get)
                .delete(mcp::delete),
        )
        .route("/btcp/events", get(btcp::events))
        .route("/btcp/message", axum::routing::post(btcp::message))
        .route("/btcp/ws", get(btcp::socket))
        .route("/btcp/k/{key}/events", get(btcp::events))
        .route("/btcp/k/{key}/message", axum::routing::post(btcp::message))
        .route("/btcp/k/{key}/ws", get(btcp::socket))
        .route("/btcp/a/{key}/events", get(btcp_agent::events))
        .route(
            "/btcp/a/{key}/message",
            axum::routing::post(btcp_agent::message),
        )
        .route("/btcp/a/{key}/ws", get(btcp_agent::socket))
        .route(
            "/.well-known/ctp-manifest.json",
            get(documents::ctp_manifest),
        )
        .route("/.well-known/ai-plugin.json", get(documents::ai_plugin))
        .route("/api/openapi.yaml", get(documents::openapi))
        .route("/api/ai-tools.json", get(documents::ai_tools))
        .route("/llms.txt", get(documents::llms_txt))
        .route("/llms-full.txt", get(documents::llms_full_txt))
        .route("/docs/{file}", get(documents::tool_doc))
        .fallback(documents::not_found)
        .layer(axum::extract::DefaultBodyLimit::max(
            usize::try_from(state.config.max_body).unwrap_or(usize::MAX),
        ))
        // Bodies are read (under the limit, a deadline and the memory budget) only once the
        // guard has admitted the request.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            intake::read_whole,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::check,
        ))
        .layer(axum::middleware::from_fn(access_log::log));
    if !state.config.allow_origins.is_empty() {
        let origins: Vec<HeaderValue> = state
            .config
            .allow_origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok())
            .collect();
        app = app.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins))
                .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
                .allow_headers([
                    header::CONTENT_TYPE,
                    header::AUTHORIZATION,
                    HeaderName::from_static("mcp-session-id"),
                    HeaderName::from_static("mcp-protocol-version"),
                    // 2026-07-28 repeats the method and the tool's name in headers.
                    HeaderName::from_static("mcp-method"),
                    HeaderName::from_static("mcp-name"),
                    HeaderName::from_static("x-session-id"),
                    HeaderName::from_static("btcp-session"),
                ])
                .expose_headers([HeaderName::from_static("mcp-session-id")])
                .max_age(std::time::Duration::from_secs(600)),
        );
    }
    app.layer(security_header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(security_header(header::REFERRER_POLICY, "no-referrer"))
        .layer(axum::middleware::map_response(pages::frame_options))
        .layer(security_header(
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; frame-ancestors 'none'",
        ))
        .with_state(state)
}

fn security_header(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn state(token: Option<&str>, base: Option<&str>) -> State {
        State::new(
            Config {
                bind: "127.0.0.1".parse().unwrap(),
                port: 0,
                token: token.map(str::to_string),
                base_url: base.map(str::to_string),
                allow_origins: vec!["http://localhost:3000".into()],
                rate: None,
                max_concurrent: 2,
                request_timeout: Duration::from_secs(5),
                tool_timeout: Duration::from_secs(5),
                max_body: 1 << 20,
                allow_adapters: false,
            },
            "127.0.0.1:7878".parse().unwrap(),
        )
    }

    #[test]
    fn loopback_servers_answer_to_loopback_names_only() {
        let s = state(None, None);
        for ok in [
            "localhost:7878",
            "127.0.0.1:7878",
            "[::1]:7878",
            "LOCALHOST",
            "127.0.0.2",
        ] {
            assert!(s.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:7878",
            "",
            "localhost.evil.example:7878",
            // Loose authorities a proxy might forward raw (issue 37, item 12).
            "[::1]evil.com",
            "localhost:80@evil.com",
            "127.0.0.1:1,evil.com",
            "[::1]:80:81",
            "localhost:",
            "localhost:99999",
            "localhost:+80",
            "127.0.0.1 ",
            "[::1",
            "[evil.com]",
            "user@localhost",
        ] {
            assert!(!s.host_allowed(bad), "{bad}");
        }
        let proxied = state(None, Some("https://tools.example.com"));
        assert!(proxied.host_allowed("tools.example.com"));
        assert!(state(Some("0123456789abcdef"), None).host_allowed("anything"));
    }

    #[test]
    fn origins_are_same_origin_or_listed() {
        let s = state(None, None);
        assert!(s.origin_allowed("http://127.0.0.1:7878", "127.0.0.1:7878"));
        assert!(s.origin_allowed("http://localhost:3000", "127.0.0.1:7878"));
        assert!(!s.origin_allowed("http://evil.example", "127.0.0.1:7878"));
        assert!(!s.origin_allowed("null", "127.0.0.1:7878"));
        assert!(!s.origin_allowed("http://127.0.0.1:7879", "127.0.0.1:7878"));
    }

    #[test]
    fn documents_name_the_host_they_were_reached_by() {
        let s = state(None, None);
        assert_eq!(s.base_url(Some("localhost:7878")), "http://localhost:7878");
        assert_eq!(s.base_url(Some("a b")), "http://127.0.0.1:7878");
        assert_eq!(s.base_url(None), "http://127.0.0.1:7878");
        let proxied = state(None, Some("https://tools.example.com/"));
        assert_eq!(proxied.base_url(Some("x")), "https://tools.example.com");
    }
}
