//! The server's settings, checked once: what `cmpx serve`'s flags and CMPX_TOKEN become.

use std::net::IpAddr;
use std::time::Duration;

/// The port `cmpx serve` listens on unless told otherwise (and the one `cmpx discover` names).
/// 7878 is unassigned by IANA and rarely taken by development servers (which favour 3000,
/// 5000, 8000 and 8080).
pub(crate) const DEFAULT_PORT: u16 = 7878;

/// Rate limit per client address: a token bucket refilled at `per_second`, holding `burst`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rate {
    pub per_second: f64,
    pub burst: f64,
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub bind: IpAddr,
    pub port: u16,
    /// Required as `Authorization: Bearer …` on every request when set.
    pub token: Option<String>,
    /// Where documents say the server lives; `None` uses the Host a request came by.
    pub base_url: Option<String>,
    /// Origins (scheme://host[:port]) besides the server's own whose pages may call it.
    pub allow_origins: Vec<String>,
    /// `None`: no rate limit.
    pub rate: Option<Rate>,
    /// Tool calls running at once; more wait for a slot (within the request timeout).
    pub max_concurrent: usize,
    /// A whole request, from its first byte to its response.
    pub request_timeout: Duration,
    /// How long one tool call may run.
    pub tool_timeout: Duration,
    /// Largest request body (CMPX_MAX_INPUT).
    pub max_body: u64,
    /// Offer installed tools (external programs) over MCP, with the consent rules of stdio.
    pub allow_adapters: bool,
}

impl Config {
    /// Checks what flags cannot: a non-loopback address needs a token.
    pub(crate) fn check(self) -> Result<Config, String> {
        if !self.bind.is_loopback() && self.token.is_none() {
            return Err(format!(
                "refusing to listen on {} without a token: anyone who can reach it could run tools; set --token <secret> (or CMPX_TOKEN) and send 'Authorization: Bearer <secret>', or bind 127.0.0.1",
                self.bind
            ));
        }
        if let Some(t) = &self.token
            && (t.len() < 16 || t.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(
                "the token must be at least 16 characters without spaces or control characters (e.g. `openssl rand -hex 32`)"
                    .to_string(),
            );
        }
        if let Some(url) = &self.base_url {
            crate::discovery::Options::new(url)?;
        }
        for origin in &self.allow_origins {
            let parsed = url::Url::parse(origin)
                .map_err(|e| format!("--allow-origin '{origin}' is not an origin: {e}"))?;
            if parsed.origin().ascii_serialization() != origin.trim_end_matches('/') {
                return Err(format!(
                    "--allow-origin '{origin}' must be an origin only, like https://example.com or http://localhost:3000"
                ));
            }
        }
        if self.max_concurrent == 0 {
            return Err("--max-concurrent must be at least 1".to_string());
        }
        Ok(self)
    }

    /// One phrase for the startup line.
    pub(crate) fn describe(&self) -> String {
        let auth = if self.token.is_some() {
            "bearer token required"
        } else {
            "loopback only, no token"
        };
        let rate = match self.rate {
            Some(r) => format!("{} requests/s per client", r.per_second),
            None => "no rate limit".to_string(),
        };
        format!("{auth}; {rate}; {} tool calls at once", self.max_concurrent)
    }
}

/// `--rate-limit`: `N` (per second, burst 2N), `N/B`, or `0` for none.
pub(crate) fn parse_rate(raw: &str) -> Result<Option<Rate>, String> {
    let (rate, burst) = match raw.split_once('/') {
        Some((r, b)) => (r, Some(b)),
        None => (raw, None),
    };
    let bad = || {
        format!(
            "--rate-limit '{raw}': expected requests per second, e.g. 20 or 20/40 (rate/burst), or 0 for none"
        )
    };
    let per_second: f64 = rate.trim().parse().map_err(|_| bad())?;
    if !per_second.is_finite() || per_second < 0.0 {
        return Err(bad());
    }
    if per_second == 0.0 {
        return Ok(None);
    }
    let burst = match burst {
        Some(b) => b.trim().parse::<f64>().map_err(|_| bad())?,
        None => (per_second * 2.0).max(1.0),
    };
    if !burst.is_finite() || burst < 1.0 {
        return Err(bad());
    }
    Ok(Some(Rate { per_second, burst }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(bind: &str, token: Option<&str>) -> Config {
        Config {
            bind: bind.parse().unwrap(),
            port: 0,
            token: token.map(str::to_string),
            base_url: None,
            allow_origins: Vec::new(),
            rate: None,
            max_concurrent: 4,
            request_timeout: Duration::from_secs(90),
            tool_timeout: Duration::from_secs(60),
            max_body: 1 << 20,
            allow_adapters: false,
        }
    }

    #[test]
    fn a_public_address_needs_a_token() {
        let err = config("0.0.0.0", None).check().unwrap_err();
        assert!(
            err.starts_with("refusing to listen on 0.0.0.0 without a token"),
            "{err}"
        );
        assert!(config("127.0.0.1", None).check().is_ok());
        assert!(config("::1", None).check().is_ok());
        assert!(config("0.0.0.0", Some("0123456789abcdef")).check().is_ok());
        assert!(config("0.0.0.0", Some("short")).check().is_err());
        assert!(
            config("0.0.0.0", Some("0123456789 abcdef"))
                .check()
                .is_err()
        );
    }

    #[test]
    fn origins_must_be_bare_origins() {
        let mut c = config("127.0.0.1", None);
        c.allow_origins = vec!["https://example.com/path".into()];
        assert!(c.check().is_err());
        let mut c = config("127.0.0.1", None);
        c.allow_origins = vec!["http://localhost:3000".into()];
        assert!(c.check().is_ok());
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("0").unwrap(), None);
        assert_eq!(
            parse_rate("20").unwrap(),
            Some(Rate {
                per_second: 20.0,
                burst: 40.0
            })
        );
        assert_eq!(
            parse_rate("0.5/3").unwrap(),
            Some(Rate {
                per_second: 0.5,
                burst: 3.0
            })
        );
        for bad in ["x", "-1", "5/0", "NaN", "inf", "5/x"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
    }
}
