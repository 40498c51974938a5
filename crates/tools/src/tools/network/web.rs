//! Web addresses and pages: WHATWG URL parsing, User-Agent parsing (woothee), unwrapping of
//! SafeLinks / URL Defense redirects, email address normalisation and SEO meta tags.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value, json};
use url::{Host, Url};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("url-parser", url_parser),
    Tool::new("user-agent-parser", user_agent_parser),
    Tool::new("safelink-decoder", safelink_decoder),
    Tool::new("email-normalizer", email_normalizer),
    Tool::new("meta-tag-generator", meta_tag_generator),
];

fn decode_lossy(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Parses a URL with the WHATWG parser, explaining the failure.
fn parse_url(text: &str, base: Option<&Url>) -> Result<Url, ToolError> {
    Url::options()
        .base_url(base)
        .parse(text.trim())
        .map_err(|e| {
            let hint = match e {
                url::ParseError::RelativeUrlWithoutBase => {
                    " (add a scheme such as https://, or give a base URL to resolve it against)"
                }
                _ => "",
            };
            ToolError::invalid(format!("'{}' is not a valid URL: {e}{hint}", text.trim()))
        })
}

/// The default ports of the WHATWG special schemes.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

fn url_parser(args: &Args) -> ToolOutcome {
    let base = match args.opt_str("base") {
        Some(b) => Some(parse_url(b, None)?),
        None => None,
    };
    let url = parse_url(args.str("url")?, base.as_ref())?;
    let (host_type, host_unicode) = match url.host() {
        Some(Host::Domain(d)) => {
            let (unicode, _) = idna::domain_to_unicode(d);
            (Some("domain"), Some(unicode))
        }
        Some(Host::Ipv4(a)) => (Some("ipv4"), Some(a.to_string())),
        Some(Host::Ipv6(a)) => (Some("ipv6"), Some(format!("[{a}]"))),
        None => (None, None),
    };
    let mut params = Map::new();
    for (k, v) in url.query_pairs() {
        let (k, v) = (k.into_owned(), Value::String(v.into_owned()));
        match params.get_mut(&k) {
            Some(Value::Array(list)) => list.push(v),
            Some(first) => *first = Value::Array(vec![first.take(), v]),
            None => {
                params.insert(k, v);
            }
        }
    }
    let segments: Option<Vec<String>> = url.path_segments().map(|s| s.map(decode_lossy).collect());
    let special = default_port(url.scheme()).is_some() || url.scheme() == "file";
    Ok(json!({
        "href": url.as_str(),
        "scheme": url.scheme(),
        "username": url.username(),
        "password": url.password(),
        "host": url.host_str(),
        "hostUnicode": host_unicode,
        "hostType": host_type,
        "port": url.port(),
        "defaultPort": default_port(url.scheme()),
        "effectivePort": url.port_or_known_default(),
        "path": url.path(),
        "pathSegments": segments,
        "query": url.query(),
        "queryParams": params,
        "fragment": url.fragment(),
        "origin": url.origin().ascii_serialization(),
        "special": special,
        "opaquePath": url.cannot_be_a_base(),
    }))
}

fn user_agent_parser(args: &Args) -> ToolOutcome {
    let agent = args.str("userAgent")?.trim();
    // woothee's Default is all-empty; new() is the all-"UNKNOWN" result its parser starts from.
    let parsed = match woothee::parser::Parser::new().parse(agent) {
        Some(r) => r,
        None => woothee::parser::WootheeResult::new(),
    };
    let category = parsed.category;
    Ok(json!({
        "name": parsed.name,
        "version": parsed.version,
        "os": parsed.os,
        "osVersion": parsed.os_version,
        "category": category,
        "vendor": parsed.vendor,
        "isCrawler": category == "crawler",
        "isMobile": category == "smartphone" || category == "mobilephone",
    }))
}

/// Host (lowercase, without port) and the rest, for a URL with or without its scheme.
fn split_host(text: &str) -> (String, &str) {
    let rest = ["https://", "http://"]
        .iter()
        .find_map(|p| {
            text.get(..p.len())
                .filter(|s| s.eq_ignore_ascii_case(p))
                .map(|_| &text[p.len()..])
        })
        .unwrap_or(text);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = rest[..end]
        .split(':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    (host, &rest[end..])
}

/// The value of `name` in a raw query string, still encoded.
fn raw_query_param<'a>(path_and_query: &'a str, name: &str) -> Option<&'a str> {
    let query = path_and_query.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or(query);
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

/// Unwraps one layer; None when the link is not a known wrapper.
fn unwrap_link(link: &str) -> Option<Result<(String, &'static str), ToolError>> {
    let (host, rest) = split_host(link);
    if host.ends_with("safelinks.protection.outlook.com")
        || (host == "statics.teams.cdn.office.net" && rest.contains("safelinks"))
    {
        let with_scheme = if link.contains("://") {
            link.to_string()
        } else {
            format!("https://{link}")
        };
        let target = Url::parse(&with_scheme).ok().and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "url")
                .map(|(_, v)| v.into_owned())
        });
        return Some(target.map(|t| (t, "microsoft-safelinks")).ok_or_else(|| {
            ToolError::invalid("this SafeLinks URL has no url= parameter to decode")
        }));
    }
    if host != "urldefense.proofpoint.com" && host != "urldefense.com" {
        return None;
    }
    let version = rest.trim_start_matches('/').split('/').next().unwrap_or("");
    Some(match version {
        "v1" => raw_query_param(rest, "u")
            .map(|u| (html_unescape(&decode_lossy(u)), "proofpoint-v1"))
            .ok_or_else(|| ToolError::invalid("this URL Defense v1 link has no u= parameter")),
        "v2" => raw_query_param(rest, "u")
            .map(|u| {
                let url_encoded = u.replace('-', "%").replace('_', "/");
                (html_unescape(&decode_lossy(&url_encoded)), "proofpoint-v2")
            })
            .ok_or_else(|| ToolError::invalid("this URL Defense v2 link has no u= parameter")),
        "v3" => decode_proofpoint_v3(rest).map(|u| (u, "proofpoint-v3")),
        other => Err(ToolError::invalid(format!(
            "unknown URL Defense version '{other}'; v1, v2 and v3 are supported"
        ))),
    })
}

fn html_unescape(s: &str) -> String {
    html_escape::decode_html_entities(s).into_owned()
}

/// URL Defense v3 (`/v3/__<url>__;<base64url>!…`): each `*` in the URL stands for the next
/// character of the decoded Base64, and `**X` for a run of them whose length X encodes
/// (A=2 … _=65), as in Proofpoint's reference decoder.
fn decode_proofpoint_v3(rest: &str) -> Result<String, ToolError> {
    let bad = |why: &str| ToolError::invalid(format!("malformed URL Defense v3 link: {why}"));
    let body = rest
        .find("/v3/__")
        .map(|i| &rest[i + 6..])
        .ok_or_else(|| bad("expected /v3/__ before the URL"))?;
    let (encoded_url, after) = body
        .split_once("__;")
        .ok_or_else(|| bad("expected __; after the URL"))?;
    let enc = after.split('!').next().unwrap_or("");
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let engine = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let bytes = engine.decode(enc.trim_end_matches('=')).map_err(|e| {
        bad(&format!(
            "the replacement characters '{enc}' are not Base64: {e}"
        ))
    })?;
    let replacements: Vec<char> = String::from_utf8(bytes)
        .map_err(|_| bad("the replacement characters are not UTF-8"))?
        .chars()
        .collect();
    const RUN_LENGTHS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let url = decode_lossy(encoded_url);
    let mut out = String::with_capacity(url.len());
    let mut next = 0usize;
    let mut take = |n: usize, out: &mut String| -> Result<(), ToolError> {
        let chunk = replacements
            .get(next..next + n)
            .ok_or_else(|| bad("the URL has more '*' placeholders than replacement characters"))?;
        out.extend(chunk);
        next += n;
        Ok(())
    };
    let mut chars = url.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '*' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'*') {
            chars.next();
            let code = chars
                .next()
                .ok_or_else(|| bad("'**' at the end of the URL"))?;
            let run = RUN_LENGTHS
                .find(code)
                .ok_or_else(|| bad(&format!("'**{code}' is not a valid run length")))?;
            take(run + 2, &mut out)?;
        } else {
            take(1, &mut out)?;
        }
    }
    Ok(out)
}

fn safelink_decoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let lines: Vec<(usize, &str)> = line_breaks::lines(input)
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return Err(ToolError::invalid("no link given"));
    }
    let mut results = Vec::new();
    for (line, link) in &lines {
        let mut current = link.to_string();
        let mut wrappers = Vec::new();
        // Mail gateways can wrap an already wrapped link; peel until a plain URL remains.
        while wrappers.len() < 10 {
            match unwrap_link(&current) {
                Some(Ok((inner, kind))) => {
                    wrappers.push(kind);
                    current = inner;
                }
                Some(Err(e)) => {
                    return Err(ToolError::invalid(if lines.len() > 1 {
                        format!("line {line}: {}", e.message)
                    } else {
                        e.message
                    }));
                }
                None => break,
            }
        }
        if wrappers.is_empty() {
            let shown = crate::text::preview(link, 60);
            return Err(ToolError::invalid(format!(
                "{}'{shown}' is not a SafeLink: expected an Outlook *.safelinks.protection.outlook.com link or a Proofpoint urldefense.com / urldefense.proofpoint.com link",
                if lines.len() > 1 {
                    format!("line {line}: ")
                } else {
                    String::new()
                }
            )));
        }
        results.push(json!({"input": link, "output": current, "wrappers": wrappers}));
    }
    let output = results
        .iter()
        .filter_map(|r| r["output"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if results.len() == 1 {
        let r = &results[0];
        return Ok(json!({"output": output, "wrappers": r["wrappers"]}));
    }
    Ok(json!({"output": output, "results": results}))
}

/// A mailbox provider whose local parts are case-insensitive, with its subaddress separator.
struct Provider {
    name: &'static str,
    domains: &'static [&'static str],
    /// The domain all aliases deliver to.
    canonical: Option<&'static str>,
    tag: char,
    ignores_dots: bool,
}

const PROVIDERS: &[Provider] = &[
    Provider {
        name: "Gmail",
        domains: &["gmail.com", "googlemail.com"],
        canonical: Some("gmail.com"),
        tag: '+',
        ignores_dots: true,
    },
    Provider {
        name: "Outlook.com",
        domains: &[
            "outlook.com",
            "hotmail.com",
            "live.com",
            "msn.com",
            "outlook.co.uk",
            "hotmail.co.uk",
            "live.co.uk",
            "hotmail.fr",
            "hotmail.de",
            "hotmail.it",
            "hotmail.es",
        ],
        canonical: None,
        tag: '+',
        ignores_dots: false,
    },
    Provider {
        name: "Yahoo",
        domains: &[
            "yahoo.com",
            "ymail.com",
            "rocketmail.com",
            "yahoo.co.uk",
            "yahoo.fr",
            "yahoo.de",
            "yahoo.it",
            "yahoo.es",
            "yahoo.ca",
            "yahoo.com.au",
        ],
        canonical: None,
        tag: '-',
        ignores_dots: false,
    },
    Provider {
        name: "Fastmail",
        domains: &["fastmail.com", "fastmail.fm"],
        canonical: None,
        tag: '+',
        ignores_dots: false,
    },
    Provider {
        name: "Proton Mail",
        domains: &["proton.me", "protonmail.com", "protonmail.ch", "pm.me"],
        canonical: None,
        tag: '+',
        ignores_dots: false,
    },
    Provider {
        name: "iCloud",
        domains: &["icloud.com", "me.com", "mac.com"],
        canonical: None,
        tag: '+',
        ignores_dots: false,
    },
    Provider {
        name: "Yandex",
        domains: &["yandex.com", "yandex.ru", "ya.ru"],
        canonical: None,
        tag: '+',
        ignores_dots: false,
    },
];

/// RFC 5322 `atext` plus the dot of a dot-atom; non-ASCII is allowed as in RFC 6531.
fn local_char_ok(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c) || !c.is_ascii()
}

/// Splits and checks an address; the error says what is wrong with it.
fn check_address(addr: &str) -> Result<(&str, String), String> {
    let (local, domain) = addr
        .rsplit_once('@')
        .ok_or_else(|| "no '@' separating local part and domain".to_string())?;
    if local.is_empty() {
        return Err("the local part before '@' is empty".into());
    }
    if local.len() > 64 {
        return Err(format!(
            "the local part is {} bytes; RFC 5321 allows 64",
            local.len()
        ));
    }
    let quoted = local.len() >= 2 && local.starts_with('"') && local.ends_with('"');
    if !quoted {
        if let Some(c) = local.chars().find(|c| !local_char_ok(*c)) {
            return Err(format!("'{c}' is not allowed in an unquoted local part"));
        }
        if local.starts_with('.') || local.ends_with('.') || local.contains("..") {
            return Err("the local part has a leading, trailing or doubled dot".into());
        }
    }
    let domain = domain.to_lowercase();
    let is_literal = domain.starts_with('[') && domain.ends_with(']');
    if !is_literal {
        let ascii = idna::domain_to_ascii(&domain)
            .map_err(|_| format!("'{domain}' is not a valid domain name"))?;
        let labels_ok = ascii.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
        if !labels_ok || !ascii.contains('.') {
            return Err(format!("'{domain}' is not a valid domain name"));
        }
    }
    Ok((local, domain))
}

/// The address inside "Name <addr>" or "mailto:addr", else the text itself.
fn bare_address(line: &str) -> &str {
    let t = line.trim();
    let t = match (t.rfind('<'), t.ends_with('>')) {
        (Some(i), true) => &t[i + 1..t.len() - 1],
        _ => t,
    };
    t.strip_prefix("mailto:").unwrap_or(t).trim()
}

fn email_normalizer(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let remove_tags = args.flag("removeTags");
    let remove_dots = args.flag("removeDots");
    let lowercase = args.str("lowercaseLocal")?;
    let dedupe = args.flag("deduplicate");
    let mut results = Vec::new();
    let mut invalid = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut output = Vec::new();
    for (i, line) in line_breaks::lines(input).enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let addr = bare_address(line);
        let (local, domain) = match check_address(addr) {
            Ok(parts) => parts,
            Err(reason) => {
                invalid.push(json!({"line": i + 1, "input": line.trim(), "reason": reason}));
                continue;
            }
        };
        let provider = PROVIDERS
            .iter()
            .find(|p| p.domains.contains(&domain.as_str()));
        let mut local = local.to_string();
        let mut domain_out = domain.clone();
        if let Some(p) = provider {
            if remove_tags && let Some(i) = local.find(p.tag) {
                local.truncate(i);
            }
            if remove_dots && p.ignores_dots {
                local.retain(|c| c != '.');
            }
            if let Some(c) = p.canonical {
                domain_out = c.to_string();
            }
        }
        if lowercase == "always" || (lowercase == "provider" && provider.is_some()) {
            local = local.to_lowercase();
        }
        if local.is_empty() {
            invalid.push(json!({"line": i + 1, "input": line.trim(), "reason": "nothing is left of the local part once the tag is removed"}));
            continue;
        }
        let normalized = format!("{local}@{domain_out}");
        let duplicate = !seen.insert(normalized.clone());
        if !(dedupe && duplicate) {
            output.push(normalized.clone());
        }
        results.push(json!({
            "input": addr,
            "normalized": normalized,
            "provider": provider.map(|p| p.name),
            "changed": normalized != addr,
            "duplicate": duplicate,
        }));
    }
    Ok(json!({
        "output": output.join("\n"),
        "results": results,
        "invalid": invalid,
        "validCount": results.len(),
        "invalidCount": invalid.len(),
        "uniqueCount": seen.len(),
    }))
}

fn check_http_url(name: &str, text: &str) -> Result<String, ToolError> {
    let t = text.trim();
    let url = Url::parse(t).map_err(|e| {
        ToolError::invalid(format!(
            "{name} '{t}' is not an absolute URL ({e}); Open Graph needs full https:// URLs"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::invalid(format!(
            "{name} '{t}' must be an http or https URL"
        )));
    }
    Ok(t.to_string())
}

fn meta_tag_generator(args: &Args) -> ToolOutcome {
    use html_escape::{encode_double_quoted_attribute as attr, encode_text};
    let title = args.str("title")?.trim();
    // Line breaks in a pasted paragraph mean nothing in a content attribute.
    let description = args
        .opt_str("description")
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| !d.is_empty());
    let description = description.as_deref();
    let url = args
        .opt_str("url")
        .map(|u| check_http_url("url", u))
        .transpose()?;
    let image = args
        .opt_str("image")
        .map(|u| check_http_url("image", u))
        .transpose()?;
    let image_alt = args.opt_str("imageAlt").map(str::trim);
    let site_name = args.opt_str("siteName").map(str::trim);
    let handle = |name: &str| -> Result<Option<String>, ToolError> {
        let Some(h) = args.opt_str(name) else {
            return Ok(None);
        };
        let h = h.trim().trim_start_matches('@');
        if h.is_empty()
            || h.len() > 15
            || !h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(ToolError::invalid(format!(
                "{name} '{h}' is not an X/Twitter handle: 1-15 letters, digits or underscores"
            )));
        }
        Ok(Some(format!("@{h}")))
    };
    let site = handle("twitterSite")?;
    let creator = handle("twitterCreator")?;
    let locale = match args.opt_str("locale") {
        Some(l) => {
            let l = l.trim().replace('-', "_");
            let ok = l.split_once('_').is_some_and(|(lang, region)| {
                (2..=3).contains(&lang.len())
                    && lang.bytes().all(|b| b.is_ascii_alphabetic())
                    && region.len() == 2
                    && region.bytes().all(|b| b.is_ascii_alphabetic())
            });
            if !ok {
                return Err(ToolError::invalid(format!(
                    "locale '{l}' must be language_TERRITORY, e.g. en_US"
                )));
            }
            let (lang, region) = l.split_once('_').unwrap_or_default();
            Some(format!("{}_{}", lang.to_lowercase(), region.to_uppercase()))
        }
        None => None,
    };
    let og_type = args.str("type")?;
    let card = match args.str("twitterCard")? {
        "auto" if image.is_some() => "summary_large_image",
        "auto" => "summary",
        other => other,
    };

    let mut tags = vec![format!("<title>{}</title>", encode_text(title))];
    let mut meta = |kind: &str, key: &str, value: Option<&str>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            tags.push(format!("<meta {kind}=\"{key}\" content=\"{}\">", attr(v)));
        }
    };
    meta("name", "description", description);
    meta("property", "og:type", Some(og_type));
    meta("property", "og:title", Some(title));
    meta("property", "og:description", description);
    meta("property", "og:url", url.as_deref());
    meta("property", "og:image", image.as_deref());
    meta("property", "og:image:alt", image_alt);
    meta("property", "og:site_name", site_name);
    meta("property", "og:locale", locale.as_deref());
    meta("name", "twitter:card", Some(card));
    meta("name", "twitter:site", site.as_deref());
    meta("name", "twitter:creator", creator.as_deref());
    meta("name", "twitter:title", Some(title));
    meta("name", "twitter:description", description);
    meta("name", "twitter:image", image.as_deref());
    meta("name", "twitter:image:alt", image_alt);
    if let Some(u) = &url {
        tags.insert(1, format!("<link rel=\"canonical\" href=\"{}\">", attr(u)));
    }
    let mut warnings = Vec::new();
    let title_len = title.chars().count();
    if title_len > 60 {
        warnings.push(format!(
            "title is {title_len} characters; search results show about 60"
        ));
    }
    if let Some(d) = description {
        let n = d.chars().count();
        if n > 160 {
            warnings.push(format!(
                "description is {n} characters; search results show about 160"
            ));
        }
    } else {
        warnings.push(
            "no description: search engines and link previews will pick their own text".to_string(),
        );
    }
    if image.is_none() {
        warnings.push("no image: link previews will show no picture".to_string());
    }
    Ok(json!({
        "output": tags.join("\n"),
        "tagCount": tags.len(),
        "warnings": warnings,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // The URL Standard's own example of the components (§ 4.1, "URL representation").
    #[test]
    fn url_components() {
        let d = run_ok(
            "url-parser",
            json!({"url": "https://user:pass@example.com:1234/foo/bar?baz#quux"}),
        );
        assert_eq!(d["scheme"], "https");
        assert_eq!(d["username"], "user");
        assert_eq!(d["password"], "pass");
        assert_eq!(d["host"], "example.com");
        assert_eq!(d["port"], 1234);
        assert_eq!(d["defaultPort"], 443);
        assert_eq!(d["path"], "/foo/bar");
        assert_eq!(d["pathSegments"], json!(["foo", "bar"]));
        assert_eq!(d["query"], "baz");
        assert_eq!(d["fragment"], "quux");
        assert_eq!(d["origin"], "https://example.com:1234");
    }

    // Host parsing examples from the URL Standard § 3.5 and § 4.3.
    #[test]
    fn url_normalises_hosts() {
        let d = run_ok("url-parser", json!({"url": "https://faß.ExAmPlE/"}));
        assert_eq!(d["href"], "https://xn--fa-hia.example/");
        assert_eq!(d["hostUnicode"], "faß.example");
        let d = run_ok("url-parser", json!({"url": "http://0x7F.1/"}));
        assert_eq!(d["host"], "127.0.0.1");
        assert_eq!(d["hostType"], "ipv4");
        let d = run_ok("url-parser", json!({"url": "https://[0:0::1]/"}));
        assert_eq!(d["host"], "[::1]");
        let d = run_ok("url-parser", json!({"url": "https://EXAMPLE.com/../x"}));
        assert_eq!(d["href"], "https://example.com/x");
        let d = run_ok("url-parser", json!({"url": "https://example.com:443/"}));
        assert!(d["port"].is_null());
        assert_eq!(d["effectivePort"], 443);
    }

    #[test]
    fn url_query_params_and_base() {
        let d = run_ok(
            "url-parser",
            json!({"url": "/search?q=caf%C3%A9+au+lait&tag=a&tag=b&empty=", "base": "https://example.org/docs/"}),
        );
        assert_eq!(
            d["href"],
            "https://example.org/search?q=caf%C3%A9+au+lait&tag=a&tag=b&empty="
        );
        assert_eq!(d["queryParams"]["q"], "café au lait");
        assert_eq!(d["queryParams"]["tag"], json!(["a", "b"]));
        assert_eq!(d["queryParams"]["empty"], "");
        let d = run_ok("url-parser", json!({"url": "mailto:someone@example.com"}));
        assert_eq!(d["opaquePath"], true);
        assert!(d["pathSegments"].is_null());
        assert_eq!(d["origin"], "null");
    }

    // Failures the URL Standard lists: missing scheme, bad port, space in host.
    #[test]
    fn url_invalid() {
        let (code, msg) = run_err("url-parser", json!({"url": "example"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("relative URL without a base"), "{msg}");
        let (_, msg) = run_err("url-parser", json!({"url": "https://example.com:demo"}));
        assert!(msg.contains("invalid port number"), "{msg}");
        let (_, msg) = run_err("url-parser", json!({"url": "https://ex ample.org/"}));
        assert!(msg.contains("invalid international domain name"), "{msg}");
    }

    // woothee's own test-set entries.
    #[test]
    fn ua_chrome_on_windows() {
        let d = run_ok(
            "user-agent-parser",
            json!({"userAgent": "Mozilla/5.0 (Windows; U; Windows NT 5.1; en-US) AppleWebKit/525.13 (KHTML, like Gecko) Chrome/0.2.149.27 Safari/525.13"}),
        );
        assert_eq!(d["name"], "Chrome");
        assert_eq!(d["version"], "0.2.149.27");
        assert_eq!(d["os"], "Windows XP");
        assert_eq!(d["osVersion"], "NT 5.1");
        assert_eq!(d["category"], "pc");
        assert_eq!(d["vendor"], "Google");
    }

    #[test]
    fn ua_safari_on_iphone() {
        let d = run_ok(
            "user-agent-parser",
            json!({"userAgent": "Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12B411 Safari/600.1.4"}),
        );
        assert_eq!(d["name"], "Safari");
        assert_eq!(d["version"], "8.0");
        assert_eq!(d["os"], "iPhone");
        assert_eq!(d["osVersion"], "8.1");
        assert_eq!(d["category"], "smartphone");
        assert_eq!(d["isMobile"], true);
    }

    #[test]
    fn ua_googlebot() {
        let d = run_ok(
            "user-agent-parser",
            json!({"userAgent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}),
        );
        assert_eq!(d["name"], "Googlebot");
        assert_eq!(d["category"], "crawler");
        assert_eq!(d["isCrawler"], true);
        assert_eq!(d["os"], "UNKNOWN");
    }

    #[test]
    fn ua_unknown_is_not_an_error() {
        let d = run_ok("user-agent-parser", json!({"userAgent": "my-script/0.1"}));
        assert_eq!(d["name"], "UNKNOWN");
        assert_eq!(d["category"], "UNKNOWN");
        assert_eq!(d["isCrawler"], false);
    }

    #[test]
    fn safelinks_outlook() {
        let d = run_ok(
            "safelink-decoder",
            json!({"input": "https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fwww.example.com%2Fpath%3Fa%3D1%26b%3D2&data=05%7C01%7C%7Cabc&sdata=xyz%3D&reserved=0"}),
        );
        assert_eq!(d["output"], "https://www.example.com/path?a=1&b=2");
        assert_eq!(d["wrappers"], json!(["microsoft-safelinks"]));
    }

    // Vectors from Proofpoint's reference decoder behaviour and its published test cases.
    #[test]
    fn safelinks_proofpoint_v2_v3() {
        let d = run_ok(
            "safelink-decoder",
            json!({"input": "https://urldefense.proofpoint.com/v2/url?u=https-3A__www.example.com_-40-40-21-40foobar&d=DwMFAg&c=x&r=y&m=z&s=w&e="}),
        );
        assert_eq!(d["output"], "https://www.example.com/@@!@foobar");
        let d = run_ok(
            "safelink-decoder",
            json!({"input": "https://urldefense.com/v3/__https://google.com:443/search?q=a*test&gs=ps__;Kw!-612Flbf0JvQ3kNJkRi5Jg!Ue6tQudNKaShHg93trcdjqDP8se2ySE65jyCIe2K1D_uNjZ1Lnf6YLQERujngZv9UWf66ujQIQ$"}),
        );
        assert_eq!(d["output"], "https://google.com:443/search?q=a+test&gs=ps");
        let d = run_ok(
            "safelink-decoder",
            json!({"input": "https://urldefense.com/v3/__http://example.com/?=a1!b2@c3*d4$5e*6*5E7&8*9(10*7C*5C**B7D*7B__;IyUlKiUlW10lJQ!!foo!bar$"}),
        );
        assert_eq!(
            d["output"],
            "http://example.com/?=a1!b2@c3#d4$5e%6%5E7&8*9(10%7C%5C[]%7D%7B"
        );
        let long = format!(
            "https://urldefense.com/v3/__http://www.example.com/**_*test__;{}!!foo!bar$",
            "IyMj".repeat(22)
        );
        let d = run_ok("safelink-decoder", json!({"input": long}));
        assert_eq!(
            d["output"],
            format!("http://www.example.com/{}test", "#".repeat(66))
        );
    }

    #[test]
    fn safelinks_nested_and_multiline() {
        let inner = "https://urldefense.com/v3/__https://example.com/a__;!!x!y$";
        let outer = format!(
            "https://eur01.safelinks.protection.outlook.com/?url={}&data=1",
            url::form_urlencoded::byte_serialize(inner.as_bytes()).collect::<String>()
        );
        let d = run_ok(
            "safelink-decoder",
            json!({"input": format!("{outer}\n\nhttps://urldefense.proofpoint.com/v1/url?u=http://www.example.org/&k=abc")}),
        );
        assert_eq!(
            d["output"],
            "https://example.com/a\nhttp://www.example.org/"
        );
        assert_eq!(
            d["results"][0]["wrappers"],
            json!(["microsoft-safelinks", "proofpoint-v3"])
        );
    }

    #[test]
    fn safelinks_rejects_plain_urls() {
        let (code, msg) = run_err("safelink-decoder", json!({"input": "https://example.com/"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not a SafeLink"), "{msg}");
        let (_, msg) = run_err(
            "safelink-decoder",
            json!({"input": "https://urldefense.com/v3/__http://a/**A__;Iw!!x$"}),
        );
        assert!(msg.contains("more '*' placeholders"), "{msg}");
    }

    #[test]
    fn email_provider_rules() {
        let d = run_ok(
            "email-normalizer",
            json!({"input": "John.Doe+news@GoogleMail.com\nJane.Roe+x@Outlook.com\nbob-shop@yahoo.com\nAlice+tag@Example.ORG"}),
        );
        assert_eq!(
            d["output"],
            "johndoe@gmail.com\njane.roe@outlook.com\nbob@yahoo.com\nAlice+tag@example.org"
        );
        assert_eq!(d["results"][0]["provider"], "Gmail");
        assert!(d["results"][3]["provider"].is_null());
    }

    #[test]
    fn email_options_and_dedupe() {
        let d = run_ok(
            "email-normalizer",
            json!({"input": "a.b+1@gmail.com\nAB@gmail.com\n\"Quoted Name\" <ab@gmail.com>", "deduplicate": true}),
        );
        assert_eq!(d["output"], "ab@gmail.com");
        assert_eq!(d["uniqueCount"], 1);
        assert_eq!(d["validCount"], 3);
        let d = run_ok(
            "email-normalizer",
            json!({"input": "A.B+1@gmail.com", "removeTags": false, "removeDots": false, "lowercaseLocal": "never"}),
        );
        assert_eq!(d["output"], "A.B+1@gmail.com");
        let d = run_ok(
            "email-normalizer",
            json!({"input": "Bob@Example.com", "lowercaseLocal": "always"}),
        );
        assert_eq!(d["output"], "bob@example.com");
    }

    #[test]
    fn email_invalid_lines_are_listed() {
        let d = run_ok(
            "email-normalizer",
            json!({"input": "ok@example.com\nno-at-sign\n@example.com\na..b@example.com\nx@-bad-.com\n+tag@gmail.com"}),
        );
        assert_eq!(d["output"], "ok@example.com");
        assert_eq!(d["invalidCount"], 5);
        assert_eq!(d["invalid"][0]["line"], 2);
        assert!(d["invalid"][0]["reason"].as_str().unwrap().contains("'@'"));
        assert!(d["invalid"][2]["reason"].as_str().unwrap().contains("dot"));
    }

    #[test]
    fn meta_tags_full_block() {
        let d = run_ok(
            "meta-tag-generator",
            json!({
                "title": "Example Site",
                "description": "An example page",
                "url": "https://example.com/",
                "image": "https://example.com/og.png",
                "siteName": "Example",
                "twitterSite": "example",
                "locale": "en-us"
            }),
        );
        assert_eq!(
            d["output"],
            "<title>Example Site</title>\n\
             <link rel=\"canonical\" href=\"https://example.com/\">\n\
             <meta name=\"description\" content=\"An example page\">\n\
             <meta property=\"og:type\" content=\"website\">\n\
             <meta property=\"og:title\" content=\"Example Site\">\n\
             <meta property=\"og:description\" content=\"An example page\">\n\
             <meta property=\"og:url\" content=\"https://example.com/\">\n\
             <meta property=\"og:image\" content=\"https://example.com/og.png\">\n\
             <meta property=\"og:site_name\" content=\"Example\">\n\
             <meta property=\"og:locale\" content=\"en_US\">\n\
             <meta name=\"twitter:card\" content=\"summary_large_image\">\n\
             <meta name=\"twitter:site\" content=\"@example\">\n\
             <meta name=\"twitter:title\" content=\"Example Site\">\n\
             <meta name=\"twitter:description\" content=\"An example page\">\n\
             <meta name=\"twitter:image\" content=\"https://example.com/og.png\">"
        );
        assert_eq!(d["warnings"], json!([]));
    }

    #[test]
    fn meta_tags_escape_values() {
        let d = run_ok(
            "meta-tag-generator",
            json!({"title": "Tom & \"Jerry\" <3", "description": "a \"quoted\" <b>bold</b> & more"}),
        );
        let out = d["output"].as_str().unwrap();
        assert!(
            out.starts_with("<title>Tom &amp; \"Jerry\" &lt;3</title>\n"),
            "{out}"
        );
        assert!(out.contains(
            "<meta name=\"description\" content=\"a &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; &amp; more\">"
        ), "{out}");
        assert!(out.contains(
            "<meta property=\"og:title\" content=\"Tom &amp; &quot;Jerry&quot; &lt;3\">"
        ));
        assert!(out.contains("<meta name=\"twitter:card\" content=\"summary\">"));
        let d = run_ok(
            "meta-tag-generator",
            json!({"title": "t", "description": "two\n  lines"}),
        );
        assert!(
            d["output"]
                .as_str()
                .unwrap()
                .contains("content=\"two lines\"")
        );
    }

    #[test]
    fn meta_tags_reject_bad_values() {
        let (code, msg) = run_err(
            "meta-tag-generator",
            json!({"title": "x", "image": "/og.png"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("absolute URL"), "{msg}");
        let (_, msg) = run_err(
            "meta-tag-generator",
            json!({"title": "x", "twitterSite": "@not a handle"}),
        );
        assert!(msg.contains("handle"), "{msg}");
        let d = run_ok("meta-tag-generator", json!({"title": "t".repeat(70)}));
        assert!(d["warnings"][0].as_str().unwrap().contains("70 characters"));
    }
}
