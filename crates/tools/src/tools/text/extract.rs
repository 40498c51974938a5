//! Extraction of structured tokens from free text: URLs (linkify), and e-mail addresses,
//! domains, IP and MAC addresses, ISO 8601 dates, hex digests, file paths and card numbers
//! (regex candidates, then validated, with context checks against common false positives).
//! Addresses and domains may be internationalised (RFC 6531 local parts, IDNA domains).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::identifiers::validators::luhn_valid;
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use indexmap::IndexMap;
use linkify::{LinkFinder, LinkKind};
use regex::Regex;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::HashSet;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("text-extractor", text_extractor)];

/// The `types` a caller can ask for.
const TYPES: &[&str] = &[
    "email",
    "url",
    "domain",
    "ipv4",
    "ipv6",
    "mac",
    "date",
    "hash",
    "path",
    "creditCard",
];

/// Result groups, in output order; a `hash` is filed under its algorithm.
const GROUPS: &[&str] = &[
    "email",
    "url",
    "domain",
    "ipv4",
    "ipv6",
    "mac",
    "date",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "path",
    "creditCard",
];

/// Candidate patterns, compiled once. Validation and context checks happen in code because
/// the regex crate has no look-around.
struct Patterns {
    email: Regex,
    domain: Regex,
    ipv4: Regex,
    ipv6: Regex,
    mac: Regex,
    date: Regex,
    hash: Regex,
    unix_path: Regex,
    windows_path: Regex,
    card: Regex,
}

fn patterns() -> Result<&'static Patterns, ToolError> {
    static P: OnceLock<Result<Patterns, String>> = OnceLock::new();
    let compiled = P.get_or_init(|| {
        let re = |p: &str| Regex::new(p).map_err(|e| e.to_string());
        // A domain label: letters, marks and digits of any script, hyphens inside (IDNA
        // U-labels and ASCII LDH labels alike); lengths are checked on the A-label later. A
        // top-level domain is letters, or Punycode tried first so "xn--p1ai" is not cut at "xn".
        let label = r"[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?";
        // RFC 5322 atext, with any letter, mark or digit for RFC 6531's UTF8-non-ascii (other
        // non-ASCII characters, such as « » or an em dash, are the text around an address).
        let atext = r"[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]";
        Ok(Patterns {
            email: re(&format!(r"{atext}+(?:\.{atext}+)*@(?:{label}\.)+{label}"))?,
            domain: re(&format!(
                r"\b(?:{label}\.)+(?:(?i:xn--)[a-z0-9-]*[a-z0-9]|[\p{{L}}][\p{{L}}\p{{M}}]+)\b"
            ))?,
            ipv4: re(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")?,
            ipv6: re(
                r"(?i)(?:[0-9a-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9a-f]{0,4})(?:%[0-9a-z._-]+)?",
            )?,
            mac: re(
                r"(?i)\b(?:[0-9a-f]{2}(?::[0-9a-f]{2}){5}|[0-9a-f]{2}(?:-[0-9a-f]{2}){5}|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4})\b",
            )?,
            date: re(
                r"\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?\b",
            )?,
            hash: re(r"(?i)\b[0-9a-f]{32,128}\b")?,
            unix_path: re(r"(?:~|\.{1,2})?(?:/[\w.@%+~-]+)+/?")?,
            windows_path: re(
                r#"\b[A-Za-z]:\\{1,2}(?:[^\\/:*?"<>|\r\n\s](?:[^\\/:*?"<>|\r\n]*[^\\/:*?"<>|\r\n\s])?\\{1,2})*[^\\/:*?"<>|\r\n\s]*|\\\\[\w.-]+\\[\w.$-]+(?:\\[^\\/:*?"<>|\r\n\s]+)*"#,
            )?,
            card: re(r"\b\d(?:[ -]?\d){12,18}\b")?,
        })
    });
    compiled
        .as_ref()
        .map_err(|e| ToolError::execution(format!("internal pattern does not compile: {e}")))
}

/// Walks the candidates of `re`. `accept` returns the end and text of a real match, or None to
/// reject the candidate and resume one character later (so a rejected "1.2.3.4" inside
/// "1.2.3.4.5" does not hide the rest of the text).
fn scan(
    re: &Regex,
    text: &str,
    mut accept: impl FnMut(usize, usize) -> Option<(usize, String)>,
) -> Vec<String> {
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(m) = re.find_at(text, pos) {
        match accept(m.start(), m.end()) {
            Some((end, value)) => {
                found.push(value);
                pos = end.max(m.start() + 1);
            }
            None => pos = m.start() + 1,
        }
        while pos < text.len() && !text.is_char_boundary(pos) {
            pos += 1;
        }
        if pos >= text.len() {
            break;
        }
    }
    found
}

/// A domain as IDNA (UTS #46) turns it into ASCII for the DNS: None unless every label is
/// valid (mapped, NFC, Bidi and joiner rules, at most 63 octets) and the whole fits in 253.
fn domain_to_ascii(domain: &str) -> Option<Cow<'_, str>> {
    // Hyphens are allowed anywhere: real host names such as r3---sn-abc.example.com have "--"
    // in the third and fourth places, which only the stricter IDNA2008 check forbids.
    Uts46::new()
        .to_ascii(
            domain.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::Allow,
            DnsLength::Verify,
        )
        .ok()
}

/// Whether a domain's last label (in ASCII form) can be a top-level domain: two or more
/// letters, or an internationalised one (`xn--…`, already checked as Punycode).
fn plausible_tld(ascii_domain: &str) -> bool {
    let tld = ascii_domain.rsplit('.').next().unwrap_or_default();
    tld.starts_with("xn--") || (tld.len() >= 2 && tld.bytes().all(|b| b.is_ascii_alphabetic()))
}

fn before(text: &str, i: usize) -> Option<char> {
    text[..i].chars().next_back()
}

fn after(text: &str, i: usize) -> Option<char> {
    text[i..].chars().next()
}

/// File extensions that look like top-level domains in "main.rs" or "config.json"; names
/// ending in them are taken for file names, not domains.
const FILE_EXTENSIONS: &[&str] = &[
    "txt",
    "log",
    "md",
    "json",
    "yaml",
    "yml",
    "toml",
    "xml",
    "html",
    "htm",
    "css",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "py",
    "rs",
    "rb",
    "php",
    "java",
    "kt",
    "cpp",
    "hpp",
    "cs",
    "sh",
    "bat",
    "ps1",
    "exe",
    "dll",
    "so",
    "bin",
    "dat",
    "tmp",
    "bak",
    "cfg",
    "conf",
    "ini",
    "env",
    "lock",
    "csv",
    "tsv",
    "pdf",
    "doc",
    "docx",
    "xls",
    "xlsx",
    "ppt",
    "pptx",
    "png",
    "jpg",
    "jpeg",
    "gif",
    "svg",
    "webp",
    "ico",
    "bmp",
    "mp3",
    "mp4",
    "wav",
    "mov",
    "avi",
    "mkv",
    "zip",
    "gz",
    "tgz",
    "bz2",
    "xz",
    "tar",
    "rar",
    "jar",
    "war",
    "deb",
    "rpm",
    "iso",
    "img",
    "dmg",
    "sql",
    "db",
    "sqlite",
    "pem",
    "crt",
    "key",
    "pub",
    "asc",
    "gpg",
    "sig",
    "wasm",
    "map",
    "vue",
    "scss",
    "sass",
    "less",
    "swift",
    "lua",
    "scala",
    "exs",
    "erl",
    "hs",
    "ml",
    "clj",
    "dart",
    "gradle",
    "properties",
    "plist",
    "nix",
    "tf",
    "tfvars",
    "vim",
    "patch",
    "diff",
    "rst",
    "tex",
    "ipynb",
    "go",
    "h",
    "c",
];

/// Top-level directories that make a one-segment absolute path ("/tmp") worth reporting.
const ROOT_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "mnt",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "tmp",
    "usr",
    "var",
    "Users",
    "Applications",
    "Library",
    "Volumes",
];

fn trim_trailing_punctuation(s: &str) -> &str {
    s.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '"'])
}

/// Whether the digits start with a card network's issuer range and have one of its lengths.
fn card_network(digits: &str) -> Option<&'static str> {
    let len = digits.len();
    let prefix = |n: usize| digits.get(..n).and_then(|p| p.parse::<u32>().ok());
    let (p1, p2, p3, p4) = (prefix(1)?, prefix(2)?, prefix(3)?, prefix(4)?);
    Some(match () {
        _ if p1 == 4 && matches!(len, 13 | 16 | 19) => "visa",
        _ if ((51..=55).contains(&p2) || (2221..=2720).contains(&p4)) && len == 16 => "mastercard",
        _ if matches!(p2, 34 | 37) && len == 15 => "amex",
        _ if (p4 == 6011 || (644..=649).contains(&p3) || p2 == 65) && (16..=19).contains(&len) => {
            "discover"
        }
        _ if (3528..=3589).contains(&p4) && (16..=19).contains(&len) => "jcb",
        _ if ((300..=305).contains(&p3) || matches!(p2, 36 | 38 | 39))
            && (14..=19).contains(&len) =>
        {
            "diners"
        }
        _ if p2 == 62 && (16..=19).contains(&len) => "unionpay",
        _ => return None,
    })
}

fn find_cards(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.card, text, |start, end| {
        if matches!(before(text, start), Some('-' | '.')) {
            return None;
        }
        let candidate = &text[start..end];
        // A run of digits may swallow a neighbouring number ("4111 1111 1111 1111 2 items"):
        // try the longest prefix that ends at a digit-group boundary first.
        let digit_ends: Vec<usize> = candidate
            .char_indices()
            .filter(|(_, c)| c.is_ascii_digit())
            .map(|(i, _)| i + 1)
            .collect();
        for n in (13..=digit_ends.len().min(19)).rev() {
            let cut = digit_ends[n - 1];
            let next = candidate[cut..].chars().next();
            if next.is_some_and(|c| c.is_ascii_digit()) {
                continue;
            }
            let digits: String = candidate[..cut]
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            let values: Vec<u8> = digits.bytes().map(|b| b - b'0').collect();
            if cut == candidate.len()
                && text[end..].starts_with('.')
                && after(text, end + 1).is_some_and(|c| c.is_ascii_digit())
            {
                return None;
            }
            if luhn_valid(&values) && card_network(&digits).is_some() {
                return Some((start + cut, candidate[..cut].to_string()));
            }
        }
        None
    })
}

fn find_unix_paths(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.unix_path, text, |start, end| {
        // A path starts the text or follows a space, quote, bracket, '=' or ','; this skips
        // URL paths ("https://host/a") and words like "and/or" or "km/h".
        if before(text, start).is_some_and(|c| !(c.is_whitespace() || "\"'`([{<=,".contains(c))) {
            return None;
        }
        let path = trim_trailing_punctuation(&text[start..end]);
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let relative = path.starts_with(['~', '.']);
        let well_known = segments.len() == 1 && ROOT_DIRS.contains(&segments[0]);
        (segments.len() >= 2 || (relative && !segments.is_empty()) || well_known)
            .then(|| (end, path.to_string()))
    })
}

fn find_windows_paths(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.windows_path, text, |start, end| {
        let path = trim_trailing_punctuation(&text[start..end]);
        Some((end, path.to_string()))
    })
}

/// E-mail addresses (RFC 5321 dot-atom local part, RFC 6531 for non-ASCII) at a domain with
/// at least one dot, a plausible top-level domain and valid IDNA labels, or at a dotted IPv4
/// address.
fn find_emails(p: &Patterns, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(m) = p.email.find_at(text, pos) {
        pos = m.end();
        let address = m.as_str();
        let (local, domain) = address.rsplit_once('@').unwrap_or_default();
        // In "@me@example.com" or "me@example.com_x" the address does not end or start here.
        if matches!(before(text, m.start()), Some('@'))
            || matches!(after(text, m.end()), Some('@' | '_' | '~'))
        {
            continue;
        }
        let domain_ok = domain.parse::<Ipv4Addr>().is_ok()
            || domain_to_ascii(domain).is_some_and(|ascii| plausible_tld(&ascii));
        // RFC 5321 §4.5.3.1.1: a local part is at most 64 octets.
        if local.len() <= 64 && domain_ok {
            found.push(address.to_string());
        }
    }
    found
}

/// URLs with a scheme, by linkify. linkify takes a host's top-level domain only if it starts
/// with two ASCII letters, which loses every URL on an internationalised top-level domain
/// (https://пример.рф/). So it reads a copy of the text in which each non-ASCII letter or digit
/// after a "://" is spelt as ASCII letters of the same byte length: the ranges it finds are the
/// same as in the text, and only that check sees a difference.
fn find_urls(text: &str) -> Vec<String> {
    let masked = ascii_letters_after_schemes(text);
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]).url_must_have_scheme(true);
    finder
        .links(&masked)
        .filter_map(|l| text.get(l.start()..l.end()))
        .map(str::to_string)
        .collect()
}

fn ascii_letters_after_schemes(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_url = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            in_url = false;
        } else if text[i..].starts_with("://") {
            in_url = true;
        }
        if in_url && !c.is_ascii() && c.is_alphanumeric() {
            out.extend(std::iter::repeat_n('x', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn find_domains(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.domain, text, |start, end| {
        let domain = &text[start..end];
        if domain_to_ascii(domain).is_none_or(|ascii| !plausible_tld(&ascii)) {
            return None;
        }
        let tld = domain
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let glued = |c: Option<char>| c.is_some_and(|c| c == '_' || c == '-' || c == '.');
        if FILE_EXTENSIONS.contains(&tld.as_str()) || glued(before(text, start)) {
            return None;
        }
        // "example.com-foo" is not a domain ending here, and "first.last@" or "first.last+tag@"
        // is the local part of an e-mail address.
        if matches!(after(text, end), Some('-' | '_' | '@' | '+')) {
            return None;
        }
        Some((end, domain.to_string()))
    })
}

fn find_ipv4(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.ipv4, text, |start, end| {
        let candidate = &text[start..end];
        // Part of a longer dotted number such as a version "1.2.3.4.5".
        let dotted_before = text[..start].ends_with('.')
            && text[..start.saturating_sub(1)]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit());
        let dotted_after = text[end..].starts_with('.')
            && after(text, end + 1).is_some_and(|c| c.is_ascii_digit());
        if dotted_before || dotted_after {
            return None;
        }
        candidate
            .parse::<Ipv4Addr>()
            .ok()
            .map(|_| (end, candidate.to_string()))
    })
}

fn find_ipv6(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.ipv6, text, |start, end| {
        let candidate = &text[start..end];
        let is_part =
            |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        if is_part(before(text, start)) || is_part(after(text, end)) {
            return None;
        }
        let address = candidate.split('%').next().unwrap_or_default();
        let groups = address.split(':').filter(|g| !g.is_empty()).count();
        // "::" or a colon-separated time like 12:30:45 is not an address worth reporting.
        let shaped = (address.contains("::") || address.matches(':').count() == 7)
            && (groups >= 2 || address.eq_ignore_ascii_case("::1"));
        (shaped && address.parse::<Ipv6Addr>().is_ok()).then(|| (end, candidate.to_string()))
    })
}

fn find_macs(p: &Patterns, text: &str) -> Vec<String> {
    scan(&p.mac, text, |start, end| {
        // Part of a longer run of hex groups, not a sentence's full stop after the address.
        let separator = |c: Option<char>| matches!(c, Some(':' | '-' | '.'));
        let hex = |c: Option<char>| c.is_some_and(|c| c.is_ascii_hexdigit());
        let glued_before = separator(before(text, start))
            && hex(before(text, start.saturating_sub(1)).filter(|_| start > 0));
        let glued_after = separator(after(text, end)) && hex(after(text, end + 1));
        if glued_before || glued_after {
            return None;
        }
        Some((end, text[start..end].to_string()))
    })
}

fn find_dates(p: &Patterns, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(caps) = p.date.captures_at(text, pos) {
        let Some(m) = caps.get(0) else { break };
        pos = m.end();
        let num = |i: usize| caps.get(i).and_then(|g| g.as_str().parse::<u32>().ok());
        let (Some(y), Some(mo), Some(d)) = (num(1), num(2), num(3)) else {
            continue;
        };
        let date_ok = chrono::NaiveDate::from_ymd_opt(y as i32, mo, d).is_some();
        let time_ok = num(4).is_none_or(|h| h < 24)
            && num(5).is_none_or(|mi| mi < 60)
            && num(6).is_none_or(|s| s <= 60);
        if date_ok && time_ok && !matches!(before(text, m.start()), Some('-' | '/')) {
            found.push(m.as_str().to_string());
        }
    }
    found
}

fn find_hashes(p: &Patterns, text: &str) -> Vec<(&'static str, String)> {
    p.hash
        .find_iter(text)
        .filter_map(|m| {
            let hex = m.as_str();
            // Needs a letter: a long run of decimal digits is a number, not a digest.
            if !hex.bytes().any(|b| b.is_ascii_alphabetic()) {
                return None;
            }
            let kind = match hex.len() {
                32 => "md5",
                40 => "sha1",
                56 => "sha224",
                64 => "sha256",
                96 => "sha384",
                128 => "sha512",
                _ => return None,
            };
            Some((kind, hex.to_string()))
        })
        .collect()
}

/// Reads the `types` list: comma or space separated, case-insensitive, plurals accepted.
fn requested_types(list: &str) -> Result<Vec<&'static str>, ToolError> {
    let mut wanted = Vec::new();
    for word in list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        let w = word.to_ascii_lowercase();
        if w == "all" {
            return Ok(TYPES.to_vec());
        }
        let singular = w
            .strip_suffix("es")
            .filter(|s| *s == "hash" || *s == "address")
            .or_else(|| w.strip_suffix('s'))
            .unwrap_or(&w);
        let found = TYPES.iter().find(|t| {
            t.eq_ignore_ascii_case(&w)
                || t.eq_ignore_ascii_case(singular)
                || (**t == "creditCard" && matches!(singular, "card" | "credit-card" | "cc"))
                || (**t == "mac" && singular == "mac-address")
        });
        match found {
            Some(t) if !wanted.contains(t) => wanted.push(*t),
            Some(_) => {}
            None => {
                return Err(ToolError::invalid(format!(
                    "unknown type '{word}' in 'types'; choose from all, {}",
                    TYPES.join(", ")
                )));
            }
        }
    }
    if wanted.is_empty() {
        return Err(ToolError::invalid(format!(
            "'types' lists no type; use 'all' or some of {}",
            TYPES.join(", ")
        )));
    }
    Ok(wanted)
}

/// The key two finds are the same under: case-insensitive where case carries no meaning.
fn dedupe_key(group: &str, value: &str) -> String {
    match group {
        "url" | "path" | "date" => value.to_string(),
        "creditCard" => value.chars().filter(char::is_ascii_digit).collect(),
        _ => value.to_lowercase(),
    }
}

fn text_extractor(args: &Args) -> ToolOutcome {
    let text = args.str("input")?;
    let wanted = requested_types(args.str("types")?)?;
    let p = patterns()?;
    let mut groups: IndexMap<&'static str, Vec<String>> = IndexMap::new();
    let mut add = |group: &'static str, values: Vec<String>| {
        groups.entry(group).or_default().extend(values);
    };
    for &kind in &wanted {
        match kind {
            "email" => add(kind, find_emails(p, text)),
            "url" => add(kind, find_urls(text)),
            "domain" => add(kind, find_domains(p, text)),
            "ipv4" => add(kind, find_ipv4(p, text)),
            "ipv6" => add(kind, find_ipv6(p, text)),
            "mac" => add(kind, find_macs(p, text)),
            "date" => add(kind, find_dates(p, text)),
            "hash" => {
                for (algorithm, value) in find_hashes(p, text) {
                    add(algorithm, vec![value]);
                }
            }
            "path" => {
                let mut paths = find_unix_paths(p, text);
                paths.extend(find_windows_paths(p, text));
                add(kind, paths);
            }
            _ => add(kind, find_cards(p, text)),
        }
    }

    let unique = args.flag("unique");
    let sort = args.flag("sort");
    let mut results = Map::new();
    let mut counts = Map::new();
    let mut total = 0;
    for &group in GROUPS {
        let Some(mut values) = groups.shift_remove(group) else {
            continue;
        };
        if unique {
            let mut seen = HashSet::new();
            values.retain(|v| seen.insert(dedupe_key(group, v)));
        }
        if sort {
            if group == "ipv4" {
                values.sort_by_key(|v| v.parse::<Ipv4Addr>().ok());
            } else {
                values.sort_by_key(|v| v.to_lowercase());
            }
        }
        if values.is_empty() {
            continue;
        }
        total += values.len();
        counts.insert(group.into(), json!(values.len()));
        results.insert(group.into(), json!(values));
    }
    Ok(json!({
        "results": Value::Object(results),
        "counts": Value::Object(counts),
        "total": total,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn extract(input: &str, types: &str) -> Value {
        run_ok("text-extractor", json!({"input": input, "types": types}))
    }

    #[test]
    fn emails_urls_and_domains() {
        let data = extract(
            "Mail alice@example.com or bob.smith+tag@mail.co.uk; docs at https://crates.io/crates/regex (see https://example.com/a?b=1).",
            "email,url,domain",
        );
        assert_eq!(
            data["results"]["email"],
            json!(["alice@example.com", "bob.smith+tag@mail.co.uk"])
        );
        assert_eq!(
            data["results"]["url"],
            json!([
                "https://crates.io/crates/regex",
                "https://example.com/a?b=1"
            ])
        );
        assert_eq!(
            data["results"]["domain"],
            json!(["example.com", "mail.co.uk", "crates.io"])
        );
        assert_eq!(data["counts"]["domain"], 3);
        assert_eq!(data["total"], 7);
    }

    // RFC 6531 addresses and IDNA domains; the Punycode forms are what `idn2` gives
    // (пример.рф = xn--e1afmkfd.xn--p1ai, bücher.de = xn--bcher-kva.de).
    #[test]
    fn internationalised_addresses_domains_and_urls() {
        let data = extract(
            "Write to user@пример.рф or info@example.com, 用户@例子.广告, Pelé@bücher.de \
             and admin@xn--e1afmkfd.xn--p1ai; site https://пример.рф/путь and bücher.de.",
            "email,url,domain",
        );
        assert_eq!(
            data["results"]["email"],
            json!([
                "user@пример.рф",
                "info@example.com",
                "用户@例子.广告",
                "Pelé@bücher.de",
                "admin@xn--e1afmkfd.xn--p1ai"
            ])
        );
        assert_eq!(data["results"]["url"], json!(["https://пример.рф/путь"]));
        assert_eq!(
            data["results"]["domain"],
            json!([
                "пример.рф",
                "example.com",
                "例子.广告",
                "bücher.de",
                "xn--e1afmkfd.xn--p1ai"
            ])
        );
    }

    #[test]
    fn non_addresses_are_still_rejected() {
        // A top-level domain of digits, a domain without a dot, a doubled '@', a local part
        // over 64 octets (RFC 5321 §4.5.3.1.1), a label over 63 octets, a label that opens with a
        // combining mark (UTS #46 validity criteria);
        // French quotes and an em dash are text around an address, not part of it.
        let long_local = format!("{}@example.com", "a".repeat(65));
        let long_label = format!("x@{}.com", "b".repeat(64));
        let text = format!(
            "v@host.c0m, root@localhost, x@me@example.org, {long_local} {long_label} \
             z@\u{301}ab.com; «marie@exemple.fr»—ok, jo@пример.рф—",
        );
        let data = extract(&text, "email");
        assert_eq!(
            data["results"]["email"],
            json!(["marie@exemple.fr", "jo@пример.рф"])
        );
    }

    // Documentation addresses: RFC 5737 (IPv4), RFC 3849 (IPv6), RFC 7042 (MAC 00-00-5E).
    #[test]
    fn ip_and_mac_addresses_without_false_positives() {
        let data = extract(
            "hosts 192.0.2.1, 198.51.100.23 and 192.0.2.1 again; version 1.2.3.4.5 and 999.1.1.1 are not IPs. \
             v6 2001:db8::8a2e:370:7334, fe80::1%eth0 and ::1; not std::io or 12:30:45. \
             NIC 00:00:5e:00:53:01, 00-00-5E-00-53-02, cisco 0000.5e00.5303.",
            "ipv4,ipv6,mac",
        );
        assert_eq!(
            data["results"]["ipv4"],
            json!(["192.0.2.1", "198.51.100.23"])
        );
        assert_eq!(
            data["results"]["ipv6"],
            json!(["2001:db8::8a2e:370:7334", "fe80::1%eth0", "::1"])
        );
        assert_eq!(
            data["results"]["mac"],
            json!(["00:00:5e:00:53:01", "00-00-5E-00-53-02", "0000.5e00.5303"])
        );
    }

    // Digests of "" (RFC 1321, FIPS 180-4 examples as published by NIST/Wikipedia).
    #[test]
    fn hashes_dates_and_paths() {
        let text = "md5 d41d8cd98f00b204e9800998ecf8427e sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 \
            sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 \
            id 12345678901234567890123456789012 on 2024-02-29 and 2024-01-15T10:30:00Z, not 2023-02-29. \
            Logs in /var/log/syslog and ~/.bashrc, see C:\\Program Files\\App\\app.exe or \\\\server\\share\\x.txt; \
            not https://example.com/a/b nor and/or.";
        let data = extract(text, "all");
        let r = &data["results"];
        assert_eq!(r["md5"], json!(["d41d8cd98f00b204e9800998ecf8427e"]));
        assert_eq!(
            r["sha1"],
            json!(["da39a3ee5e6b4b0d3255bfef95601890afd80709"])
        );
        assert_eq!(
            r["sha256"],
            json!(["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"])
        );
        assert_eq!(r["date"], json!(["2024-02-29", "2024-01-15T10:30:00Z"]));
        assert_eq!(
            r["path"],
            json!([
                "/var/log/syslog",
                "~/.bashrc",
                "C:\\Program Files\\App\\app.exe",
                "\\\\server\\share\\x.txt"
            ])
        );
        // File names are not domains.
        assert_eq!(r["domain"], json!(["example.com"]));
    }

    // Test card numbers published by the networks (Visa 4111…, Mastercard 5555…, Amex 3782…).
    #[test]
    fn credit_cards_are_luhn_checked() {
        let data = extract(
            "pay with 4111 1111 1111 1111 2 items, 5555-5555-5555-4444, 378282246310005; \
             not 4111 1111 1111 1112 nor timestamp 1700000000000.",
            "creditCard",
        );
        assert_eq!(
            data["results"]["creditCard"],
            json!([
                "4111 1111 1111 1111",
                "5555-5555-5555-4444",
                "378282246310005"
            ])
        );
    }

    #[test]
    fn unique_and_sort_options() {
        let input = "10.0.0.2 10.0.0.10 10.0.0.2 9.9.9.9";
        let data = run_ok(
            "text-extractor",
            json!({"input": input, "types": "ipv4", "sort": true}),
        );
        assert_eq!(
            data["results"]["ipv4"],
            json!(["9.9.9.9", "10.0.0.2", "10.0.0.10"])
        );
        let data = run_ok(
            "text-extractor",
            json!({"input": input, "types": "ipv4", "unique": false}),
        );
        assert_eq!(data["counts"]["ipv4"], 4);
        let none = extract("nothing here, e.g. this.", "all");
        assert_eq!(none["total"], 0);
        assert_eq!(none["results"], json!({}));
    }

    #[test]
    fn unknown_type_is_an_error() {
        let (code, msg) = run_err(
            "text-extractor",
            json!({"input": "x", "types": "email,phone"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unknown type 'phone'"), "{msg}");
        assert!(msg.contains("creditCard"), "{msg}");
    }
}
