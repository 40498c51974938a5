//! Recognising data pasted into a request ("decode eyJhbGci…", "what date is 1700000000").
//!
//! A recognised sample is cut out of the text (its characters say nothing about the tool) and
//! replaced by the words that name what it is, which then match tools that mention them.

use regex::Regex;
use std::sync::OnceLock;

struct Detector {
    re: Regex,
    concepts: &'static [&'static str],
    /// A further check on each match, for what a regular expression alone cannot say.
    accept: Option<fn(&str) -> bool>,
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

fn has_letter(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// "… --- …": Morse needs both dots and dashes (an ellipsis is not Morse).
fn morse(s: &str) -> bool {
    s.contains('.') && s.contains('-')
}

/// `0xF0 AND 0x3C`, `1 << 12`: a word operator or `^` needs a hex, binary or octal operand, so
/// "between 5 and 10" or "2^10" stay what they are.
fn bitwise(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    let prefixed = ["0x", "0b", "0o"].iter().any(|p| l.contains(p));
    prefixed || l.contains("<<") || l.contains(">>") || l.contains('&') || l.contains('|')
}

/// Numeric cron fields within their ranges ("72 101 108 108 111" is character codes, not a
/// schedule).
fn cron(s: &str) -> bool {
    let fields: Vec<&str> = s.split_whitespace().collect();
    let max: &[u32] = if fields.len() == 6 {
        &[59, 59, 23, 31, 12, 7]
    } else {
        &[59, 23, 31, 12, 7]
    };
    fields.len() == 1
        || fields
            .iter()
            .zip(max)
            .all(|(f, &m)| f.parse::<u32>().map_or(true, |n| n <= m))
}

/// Latitude first, then longitude, each within range.
fn coordinates(s: &str) -> bool {
    let mut parts = s.split(',').map(|p| p.trim().parse::<f64>());
    match (parts.next(), parts.next()) {
        (Some(Ok(lat)), Some(Ok(lon))) => lat.abs() <= 90.0 && lon.abs() <= 180.0,
        _ => false,
    }
}

/// Hex digits spelling bytes: an even count, with both digits and letters.
fn hex_bytes(s: &str) -> bool {
    s.len().is_multiple_of(2) && has_digit(s) && has_letter(s)
}

fn mixed(s: &str) -> bool {
    has_digit(s) && has_letter(s)
}

/// Base58 leaves out 0, O, I and l; a real one mixes cases and digits.
fn base58(s: &str) -> bool {
    has_digit(s)
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().skip(1).any(|b| b.is_ascii_uppercase())
}

/// Padded Base32 comes in blocks of eight characters.
fn base32(s: &str) -> bool {
    s.len().is_multiple_of(8)
}

/// An IPv6 address has at least two groups of hex digits, one of them with a digit.
fn ipv6(s: &str) -> bool {
    let groups: Vec<&str> = s.split(':').filter(|g| !g.is_empty()).collect();
    groups.len() >= 2
        && groups.iter().any(|g| has_digit(g))
        && (s.contains("::") || groups.len() == 8)
}

fn detectors() -> &'static [Detector] {
    static D: OnceLock<Vec<Detector>> = OnceLock::new();
    D.get_or_init(|| {
        let d = |re: &str, concepts: &'static [&'static str]| Detector { re: Regex::new(re).expect("valid detector"), concepts, accept: None };
        let a = |re: &str, concepts: &'static [&'static str], accept: fn(&str) -> bool| Detector { re: Regex::new(re).expect("valid detector"), concepts, accept: Some(accept) };
        vec![
            d(r"-----BEGIN (?:TRUSTED |X509 )?CERTIFICATE(?: REQUEST)?-----(?s:.*?)(?:-----END [A-Z0-9 ]+-----|$)|-----BEGIN NEW CERTIFICATE REQUEST-----(?s:.*?)(?:-----END [A-Z0-9 ]+-----|$)", &["certificate"]),
            d(r"-----BEGIN OPENSSH PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]+-----|$)|\bssh-(?:rsa|ed25519|dss) AAAA[A-Za-z0-9+/=]+", &["ssh", "key"]),
            d(r#"\{[^{}]*"kty"\s*:[^{}]*\}"#, &["jwk"]),
            d(r"\bgAAAAA[A-Za-z0-9_=-]{8,}(?:\.\.\.|…)?", &["fernet", "token"]),
            d(r"\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}", &["bcrypt", "hash"]),
            d(r"\$argon2(?:id|i|d)\$\S*", &["argon2", "hash"]),
            d(r"\$(?:1|5|6|apr1|scrypt|pbkdf2[\w-]*)\$\S+", &["hash"]),
            d(r"(?:\x1b|\\x1b|\\033|\\e|\\u001b|\^\[)\[[0-9;]*[A-Za-z]?", &["ansi", "escape"]),
            d(r"(?:\\u\{[0-9a-fA-F]{1,6}\}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8})+", &["unicode", "escape"]),
            d(r"(?:\\x[0-9a-fA-F]{2}[^\s\\]*){3,}", &["bytes"]),
            d(r"<~(?s:.*?)~>", &["ascii85"]),
            a(r"(?:^|\s)[.-]{1,7}(?:[ \t]+(?:/[ \t]+)?[.-]{1,7}){2,}(?:\s|$|[?!,])", &["morse"], morse),
            d(r"(?:^|\s)s/[^/\n]+/[^/\n]*/[gimI]*(?:\s|$|[,.;])", &["find", "replace"]),
            d(r"(?i)\bhxxps?://\S+|\S+\[\.\]\S*", &["defang"]),
            d(r"(?i)\bxn--[a-z0-9-]+(?:\.[a-z0-9-]+)*", &["punycode"]),
            d(r"[^\x00-\x7F\s'\x22]+(?:\.[^\s.'\x22]+)*\.[A-Za-z]{2,}\b", &["idn"]),
            d(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b", &["email"]),
            d(r"(?:^|\s)(?://[\w*:.-]+(?:/{1,2}(?:@[\w:.-]+|[\w*:.-]+(?:\(\))?)|\[[^\]\n]+\])*|/[\w:.-]+(?:/[\w*:.-]+)*(?:/@[\w:.-]+|\[[^\]\n]+\]))", &["xpath"]),
            a(r"(?i)(?:\b0x[0-9a-f]+|\b0b[01]+|\b0o[0-7]+|\b\d+)\s*(?:<<|>>>?|&|\||\^|\b(?:and|or|xor|nand|nor|shl|shr)\b)\s*(?:0x[0-9a-f]+|0b[01]+|0o[0-7]+|\d+)\b", &["bitwise"], bitwise),
            d(r"(?i)\bpow\s*\(\s*-?\d+\s*,\s*-?\d+\s*,\s*\d+\s*\)|\b\d+\s*(?:\^|\*\*)\s*\d+\s*(?:mod|%)\s*\d+\b", &["modular", "exponentiation"]),
            a(r"-?\b\d{1,2}\.\d{2,}\s*,\s*-?\d{1,3}\.\d{2,}\b", &["latitude", "longitude"], coordinates),
            d(r"\b\d+(?:h|m|s|ms|d|w)(?:\s?\d+(?:h|m|s|ms))+\b|\bP(?:\d+[YMWD])*T(?:\d+(?:\.\d+)?[HMS])+\b", &["duration"]),
            d(r"\b(?:\d{1,3}\.){3}\d{1,3}\s*(?:-|–|\.\.|\bto\b|\bthrough\b|\bthru\b)\s*(?:\d{1,3}\.){3}\d{1,3}\b", &["ip", "range"]),
            d(r"(?i)\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b|\b[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}\b", &["mac", "address"]),
            a(r"\b[0-9A-F]{12}\b", &["mac", "address"], mixed),
            a(r"(?i)(?:\b[0-9a-f]{1,4})?(?::[0-9a-f]{0,4}){2,7}\b", &["ipv6"], ipv6),
            a(r"\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b", &["ulid"], mixed),
            a(r"\b(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|[13][1-9A-HJ-NP-Za-km-z]{25,34})\b", &["base58"], base58),
            a(r"\b[A-Z2-7]{8,}={1,6}", &["base32"], base32),
            d(r"(?i)safelinks\.protection\.outlook\.com|urldefense(?:\.proofpoint)?\.com", &["safelink"]),
            d(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?", &["jwt"]),
            d(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", &["uuid"]),
            a(r"(?m)(?:^|\s)(?:@(?:yearly|annually|monthly|weekly|daily|midnight|hourly)|(?:[0-9*?LW#/,-]+|[A-Z]{3}(?:-[A-Z]{3})?)(?:\s+(?:[0-9*?LW#/,-]+|[A-Za-z]{3}(?:[-,][A-Za-z]{3})*)){4,5})(?:\s|$)", &["cron"], cron),
            d(r"(?i)(?:^|[\s:(])\d+\s+(?:in|to|into|as)\s+(?:binary|hex|hexadecimal|octal)\b", &["decimal", "number", "base"]),
            d(r"\b0[xX][0-9a-fA-F]+\b|\b0[bB][01]+\b|\b0[oO][0-7]+\b", &["number", "base"]),
            d(r"\b1[0-9]{9}(?:[0-9]{3})?\b|\b[0-9]{13}\b", &["timestamp"]),
            d(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b", &["timestamp", "date"]),
            d(r"&(?:[a-zA-Z]{2,8}|#\d{2,6}|#x[0-9a-fA-F]{2,6});", &["html", "entity"]),
            d(r"https?://[^\s'\x22]+", &["url"]),
            d(r"%[0-9A-Fa-f]{2}", &["url", "encode"]),
            d(r"(?is)\bselect\b.+\bfrom\b|\binsert\s+into\b|\bupdate\b.+\bset\b|\bcreate\s+table\b", &["sql"]),
            d(r"(?s)<\?xml.*|<([A-Za-z][\w:.-]*)[^<>]*>.*</([A-Za-z][\w:.-]*)>", &["xml"]),
            d(r"(?s)^\s*[\[{].*[\]}]\s*$|\{\s*\x22[^\x22]+\x22\s*:", &["json"]),
            d(r"(?:^|\s)/[^/\s][^/\n]*/[gimsuxy]*(?:\s|$|[?.,])", &["regex"]),
            d(r"(?i)\bauthorization:\s*basic\b", &["basic", "auth"]),
            d(r"\bMozilla/\d\.\d[^\n]*", &["user", "agent"]),
            d(r"(?:^|\s)\$(?:\.\.?[\w*]+|\[)[^\s]*", &["jsonpath"]),
            d(r"(?:^|\s)[-dlcbps][rwxsStT-]{9}(?:\s|$|[?.,])", &["chmod"]),
            d(r"\b(?:\d{1,3}\.){3}\d{1,3}/\d{1,2}\b", &["ipv4", "subnet"]),
            d(r"\b(?:\d{1,3}\.){3}\d{1,3}\b", &["ipv4"]),
            d(r"(?m)^\s*\[[\w.-]+\]\s*$(?s:.*)^\s*[\w-]+\s*=\s*\S", &["toml"]),
            d(r"(?i)\b(?:http|status|error|returns?|response|code)\b[^\n]*\b[1-5][0-9]{2}\b|\b[1-5][0-9]{2}\b[^\n]*\b(?:status|error|code|response)\b|\b(?:40[1-9]|41[0-8]|42[2-9]|431|451|50[1-8])\b", &["http", "status"]),
            d(r"(?:^|\s)\+\d[\d \-().]{6,18}\d\b", &["phone"]),
            d(r"\b(?:sin|cos|tan|sqrt|log|ln|exp)\s*\([^)\n]*\)(?:\s*[-+*/^%]\s*[\d.]+)*|\b\d+(?:\.\d+)?\s*[+*/^%]\s*\(?\d|\b\d+\s+-\s+\(?\d", &["math", "calculate"]),
            d(r"(?m)^#{1,6} \S.*$|\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\s]+\)|(?m)^```", &["markdown"]),
            d(r"(?m)^[^,\n]+(?:,[^,\n]*)+\n(?:[^,\n]*(?:,[^,\n]*)+\n?){1,}", &["csv"]),
            d(r"(?m)^[A-Za-z_][\w-]*:(?:[ \t]+\S.*)?\n(?:(?:[ \t]+- |[ \t]*[A-Za-z_][\w-]*:|[ \t]+)\S.*\n?)+", &["yaml"]),
            d(r"\b[a-fA-F0-9]{64}\b|\b[a-fA-F0-9]{40}\b|\b[a-fA-F0-9]{32}\b", &["hash"]),
            a(r"\b[0-9a-fA-F]{10,}\b", &["hex"], hex_bytes),
            d(r"\b[A-Za-z0-9+/]{12,}={1,2}(?:\s|$)|\b[A-Za-z0-9+/]*[0-9][A-Za-z0-9+/]*[A-Z][A-Za-z0-9+/]*[a-z][A-Za-z0-9+/]{8,}={0,2}", &["base64"]),
        ]
    })
}

/// Quoted payloads ('…', "…", `…`) are data, not words about the tool. A quote must open after
/// a space or punctuation and close before one, so "what's" and "don't" are not quotes.
fn quoted() -> &'static Regex {
    static Q: OnceLock<Regex> = OnceLock::new();
    Q.get_or_init(|| {
        Regex::new(
            r#"(?s)(?:^|[\s(\[{:=,])(?:"[^"\n]+"|'[^'\n]+'|`[^`]+`|“[^”]+”)(?:$|[\s)\]}.,;:!?])"#,
        )
        .expect("valid quote pattern")
    })
}

/// What a request looks like once samples are recognised: the remaining text and the concepts.
#[derive(Debug, Default, PartialEq)]
pub struct Scrubbed {
    pub text: String,
    pub concepts: Vec<&'static str>,
    /// The pasted data itself (samples and quoted text), in order of appearance.
    pub data: Vec<String>,
}

pub fn scrub(request: &str) -> Scrubbed {
    let mut text = request.to_string();
    let mut concepts = Vec::new();
    let mut data: Vec<(usize, String)> = Vec::new();
    for d in detectors() {
        let found: Vec<(usize, usize)> =
            d.re.find_iter(&text)
                .filter(|m| d.accept.is_none_or(|ok| ok(m.as_str().trim())))
                .map(|m| (m.start(), m.end()))
                .collect();
        if found.is_empty() {
            continue;
        }
        for c in d.concepts {
            if !concepts.contains(c) {
                concepts.push(*c);
            }
        }
        data.extend(
            found
                .iter()
                .map(|&(s, e)| (s, text[s..e].trim().to_string())),
        );
        let mut rest = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e) in found {
            rest.push_str(&text[at..s]);
            rest.push(' ');
            at = e;
        }
        rest.push_str(&text[at..]);
        text = rest;
    }
    for m in quoted().find_iter(&text) {
        let inner = m
            .as_str()
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric() && !"'\"`\u{201c}\u{201d}".contains(c));
        let inner = inner.trim_matches(['\'', '"', '`', '\u{201c}', '\u{201d}']);
        data.push((m.start(), inner.to_string()));
    }
    text = quoted().replace_all(&text, " ").into_owned();
    data.sort_by_key(|(at, _)| *at);
    Scrubbed {
        text,
        concepts,
        data: data
            .into_iter()
            .map(|(_, d)| d)
            .filter(|d| !d.is_empty())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::scrub;

    #[test]
    fn recognises_pasted_samples() {
        let s = scrub("decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc please");
        assert_eq!(s.concepts, vec!["jwt"]);
        assert!(!s.text.contains("eyJ"));
        assert_eq!(scrub("what date is 1700000000").concepts, vec!["timestamp"]);
        assert_eq!(
            scrub("*/5 * * * * what does it mean").concepts,
            vec!["cron"]
        );
        assert_eq!(
            scrub("convert 0xff to decimal").concepts,
            vec!["number", "base"]
        );
        assert_eq!(scrub(r#"{"a":1} make it readable"#).concepts, vec!["json"]);
        assert_eq!(scrub("sha256 of 'hello world'").text.trim(), "sha256 of");
        assert_eq!(scrub("sha256 of 'hello world'").data, vec!["hello world"]);
        assert_eq!(scrub("what date is 1700000000").data, vec!["1700000000"]);
        assert_eq!(
            scrub("What's the blake2b checksum of 'abc'?").text.trim(),
            "What's the blake2b checksum of"
        );
        assert!(scrub("generate a uuid").concepts.is_empty());
        assert_eq!(
            scrub("id,name\n1,alice\n2,bob -> json").concepts,
            vec!["csv"]
        );
        assert_eq!(
            scrub("key: value\nlist:\n  - a\n  - b\nturn that into JSON").concepts,
            vec!["yaml"]
        );
        assert_eq!(
            scrub("# Title\n\n**bold** text -> give me the HTML").concepts,
            vec!["markdown"]
        );
        assert!(scrub("sort these lines").concepts.is_empty());
        assert_eq!(
            scrub("my API returns 422, what is that").concepts,
            vec!["http", "status"]
        );
        assert_eq!(scrub("-rw-r--r-- as a number?").concepts, vec!["chmod"]);
        assert_eq!(
            scrub("compute sin(pi/4) * 2").concepts,
            vec!["math", "calculate"]
        );
        assert!(scrub("give me 500 words").concepts.is_empty());
        assert!(scrub("char codes 72 101 108 108 111").concepts.is_empty());
        assert_eq!(scrub("decode ... --- ...").concepts, vec!["morse"]);
        assert!(scrub("wait... what - no").concepts.is_empty());
        assert_eq!(scrub("0xF0 AND 0x3C").concepts, vec!["bitwise"]);
        assert_eq!(scrub("1 << 12").concepts, vec!["bitwise"]);
        assert!(!scrub("between 5 and 10").concepts.contains(&"bitwise"));
        assert_eq!(
            scrub("compute pow(4, 13, 497)").concepts,
            vec!["modular", "exponentiation"]
        );
        assert_eq!(
            scrub("51.5074,-0.1278 to 48.8566,2.3522").concepts,
            vec!["latitude", "longitude"]
        );
        assert!(scrub("version 99.123,400.5").concepts.is_empty());
        assert_eq!(scrub("expand 2001:db8::1").concepts, vec!["ipv6"]);
        assert!(scrub("use std::fs and 10:30:00").concepts.is_empty());
        assert_eq!(
            scrub("00-1A-2B-3C-4D-5E to colons").concepts,
            vec!["mac", "address"]
        );
        assert_eq!(
            scrub("decode 01ARZ3NDEKTSV4RRFFQ69G5FAV").concepts,
            vec!["ulid"]
        );
        assert_eq!(scrub("decode gAAAAABlx3k2aQ9...").concepts[0], "fernet");
        assert_eq!(
            scrub("what is xn--bcher-kva.example").concepts,
            vec!["punycode"]
        );
        assert_eq!(
            scrub(r"unescape \u00e9\u00e8").concepts,
            vec!["unicode", "escape"]
        );
        assert_eq!(scrub("clean ^[[0;31m out").concepts, vec!["ansi", "escape"]);
        assert_eq!(
            scrub("s/teh/the/g please").concepts,
            vec!["find", "replace"]
        );
        assert_eq!(scrub("what does //a/@href return").concepts, vec!["xpath"]);
        assert!(scrub("back up /var/www nightly").concepts.is_empty());
        assert_eq!(scrub("parse '2h 15m'").concepts, vec!["duration"]);
        assert_eq!(scrub("what is 7b226964223a20317d").concepts, vec!["hex"]);
        assert!(scrub("what day was 2024-03-15").concepts.is_empty());
        assert_eq!(
            scrub("decode https://nam12.safelinks.protection.outlook.com/?url=x").concepts[0],
            "safelink"
        );
    }
}
