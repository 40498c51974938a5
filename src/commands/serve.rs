//! `cmpx serve`: the flags checked into a server configuration, then the server.

use crate::serve::Config;
use std::time::Duration;

pub(super) struct Flags {
    pub port: u16,
    pub bind: std::net::IpAddr,
    pub token: Option<String>,
    pub base_url: Option<String>,
    pub allow_origins: Vec<String>,
    pub rate_limit: Option<String>,
    pub max_concurrent: usize,
    pub timeout: u64,
    pub allow_adapters: bool,
}

/// Public servers are rate limited unless told otherwise; a loopback one serves one person.
const PUBLIC_RATE: &str = "20/40";

pub(super) fn run(flags: Flags) -> i32 {
    let rate = match flags.rate_limit.as_deref() {
        Some(raw) => crate::serve::parse_rate(raw),
        None if flags.bind.is_loopback() => Ok(None),
        None => crate::serve::parse_rate(PUBLIC_RATE),
    };
    let config = rate.and_then(|rate| {
        if flags.timeout == 0 || flags.timeout > 86_400 {
            return Err("--timeout must be 1 to 86400 seconds".to_string());
        }
        let tool_timeout = Duration::from_secs(flags.timeout);
        Config {
            bind: flags.bind,
            port: flags.port,
            token: flags.token.filter(|t| !t.is_empty()),
            base_url: flags.base_url,
            allow_origins: flags.allow_origins,
            rate,
            max_concurrent: flags.max_concurrent,
            // Room to read a large body and wait for a slot, beyond the call itself.
            request_timeout: tool_timeout + Duration::from_secs(30),
            tool_timeout,
            max_body: crate::limits::max_input(),
            allow_adapters: flags.allow_adapters,
        }
        .check()
    });
    match config {
        Ok(config) => crate::serve::serve(config),
        Err(message) => {
            eprintln!("error: {message}");
            crate::ExitCode::Usage.code()
        }
    }
}
