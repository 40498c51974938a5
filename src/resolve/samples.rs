//! Recognising data pasted into a request ("decode eyJhbGci…", "what date is 1700000000").
//!
//! A recognised sample is cut out of the text (its characters say nothing about the tool) and
//! replaced by the words that name what it is, which then match tools that mention them.

use regex::Regex;
use std::sync::OnceLock;

struct Detector {
    pattern: &'static str,
    /// Compiled on first use: most requests hold none of the data most detectors look for, and
    /// compiling all of them took a third of a warm `cmpx resolve`.
    re: OnceLock<Regex>,
    concepts: &'static [&'static str],
    /// A further check on each match, for what a regular expression alone cannot say.
    accept: Option<fn(&str) -> bool>,
    /// What every match contains, tested on the request before the pattern is compiled or run.
    gate: Gate,
    /// Keep the match's words of letters only in the text: they name the operation, not data
    /// ("0b1100 XOR 0b1010" asks for XOR).
    keeps_words: bool,
}

/// A condition any text holding a match satisfies (checked on the lowercased request).
#[derive(Clone, Copy)]
enum Gate {
    Always,
    /// One of these lowercase ASCII strings.
    Any(&'static [&'static str]),
    Check(fn(&str) -> bool),
}

impl Detector {
    fn new(pattern: &'static str, concepts: &'static [&'static str]) -> Self {
        Detector {
            pattern,
            re: OnceLock::new(),
            concepts,
            accept: None,
            gate: Gate::Always,
            keeps_words: false,
        }
    }

    fn keeps_words(self) -> Self {
        Detector {
            keeps_words: true,
            ..self
        }
    }

    fn accept(self, accept: fn(&str) -> bool) -> Self {
        Detector {
            accept: Some(accept),
            ..self
        }
    }

    fn needs(self, any: &'static [&'static str]) -> Self {
        Detector {
            gate: Gate::Any(any),
            ..self
        }
    }

    fn needs_that(self, check: fn(&str) -> bool) -> Self {
        Detector {
            gate: Gate::Check(check),
            ..self
        }
    }

    fn may_match(&self, lower: &str) -> bool {
        match self.gate {
            Gate::Always => true,
            Gate::Any(needles) => needles.iter().any(|n| lower.contains(n)),
            Gate::Check(check) => check(lower),
        }
    }

    fn regex(&self) -> &Regex {
        self.re
            .get_or_init(|| Regex::new(self.pattern).expect("valid detector"))
    }
}

fn non_ascii(s: &str) -> bool {
    !s.is_ascii()
}

/// `\\d` matches any Unicode decimal digit, so the gate for it does too.
fn any_digit(s: &str) -> bool {
    s.chars().any(char::is_numeric)
}

fn digit_or_paren(s: &str) -> bool {
    any_digit(s) || s.contains('(')
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
/// schedule), and not all of them bare numbers: a schedule has a `*`, a step, a list or a
/// name ("50 4B 03 04 14 00 06 00" is bytes).
fn cron(s: &str) -> bool {
    let s = s.trim_matches(['`', '\'', '"']);
    let fields: Vec<&str> = s.split_whitespace().collect();
    if fields.len() > 1 && fields.iter().all(|f| f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
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

/// Four or more capital Roman digits in their canonical order ("MCMLXXXIV", not "MDCM" or
/// "XIIII"); shorter ones ("CLI", "MD", "CV") are far more often abbreviations.
fn roman(s: &str) -> bool {
    const DIGITS: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut value = 0;
    let mut rest = s;
    for (n, d) in DIGITS {
        while let Some(r) = rest.strip_prefix(d) {
            value += n;
            rest = r;
        }
    }
    if !rest.is_empty() || value == 0 || value > 4999 {
        return false;
    }
    let mut canonical = String::new();
    for (n, d) in DIGITS {
        while value >= n {
            canonical.push_str(d);
            value -= n;
        }
    }
    canonical == s
}

/// Four Roman digits in a row, the least a match holds: spares compiling the pattern for
/// most requests (the gate sees the text lowercased).
fn roman_run(s: &str) -> bool {
    s.as_bytes()
        .windows(4)
        .any(|w| w.iter().all(|b| b"mdclxvi".contains(b)))
}

/// The first four bytes of an ObjectId are its creation time in Unix seconds.
fn object_id(s: &str) -> bool {
    u32::from_str_radix(&s[..8], 16).is_ok_and(|t| (0x4a00_0000..0x7fff_ffff).contains(&t))
        && mixed(s)
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
/// Ten digits of ones and zeros are bits more often than a time in 2002 ("1011011101 binary
/// to decimal").
fn not_bits(s: &str) -> bool {
    !s.bytes().all(|b| b == b'0' || b == b'1')
}

/// A match without the space or quote before it (a cron line in backticks).
fn sample_text(m: &str) -> &str {
    let m = m.trim();
    if m.starts_with(['`', '\'', '"']) {
        m.trim_matches(['`', '\'', '"'])
    } else {
        m
    }
}

/// `#123` is an issue or a number more often than a colour: short forms need a letter.
fn css_color(s: &str) -> bool {
    !s.starts_with('#') || s.len() > 5 || s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Padded Base64 of a short value ("dXNlcm5hbWU=") is told from a word before `=`
/// ("password=") by its mix of cases or digits.
fn base64_like(s: &str) -> bool {
    s.len() >= 16
        || (s.bytes().any(|b| b.is_ascii_lowercase())
            && s.bytes()
                .any(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
}

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

/// ISO 13616: the country and check digits moved to the end, letters as 10..35, the whole
/// number is 1 modulo 97.
fn iban(s: &str) -> bool {
    let compact: Vec<u8> = s.bytes().filter(|b| *b != b' ').collect();
    if !(15..=34).contains(&compact.len()) {
        return false;
    }
    let (head, tail) = compact.split_at(4);
    tail.iter().chain(head).try_fold(0u32, |acc, &b| {
        let v = match b {
            b'0'..=b'9' => (b - b'0') as u32,
            b'A'..=b'Z' => (b - b'A') as u32 + 10,
            _ => return None,
        };
        Some(if v >= 10 {
            (acc * 100 + v) % 97
        } else {
            (acc * 10 + v) % 97
        })
    }) == Some(1)
}

/// The NATO code words, as a regex alternation of plain words (see `nato_words`).
macro_rules! nato {
    () => {
        "alfa|alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliett|juliet|kilo|lima|mike|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiskey|whisky|x-ray|xray|yankee|zulu"
    };
}

/// HTTP error codes people ask about by number alone.
macro_rules! error_codes {
    () => {
        "40[1-9]|41[0-8]|42[2-9]|431|451|50[1-8]"
    };
}

/// Whether the text has three NATO code words, the least a phonetic spelling holds.
fn nato_words(lower: &str) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| nato!().split('|').any(|n| n == *w))
        .nth(2)
        .is_some()
}

/// Padded Base32 comes in blocks of eight characters.
fn base32(s: &str) -> bool {
    s.len().is_multiple_of(8)
}

/// Unpadded Base32 of whole five-byte groups, with letters and digits.
fn base32_unpadded(s: &str) -> bool {
    s.len().is_multiple_of(8) && mixed(s)
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
        vec![
            Detector::new(r"-----BEGIN (?:TRUSTED |X509 )?CERTIFICATE(?: REQUEST)?-----(?s:.*?)(?:-----END [A-Z0-9 ]+-----|$)|-----BEGIN NEW CERTIFICATE REQUEST-----(?s:.*?)(?:-----END [A-Z0-9 ]+-----|$)", &["certificate"]).needs(&["-----begin"]),
            Detector::new(r"-----BEGIN OPENSSH PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]+-----|$)|\bssh-(?:rsa|ed25519|dss) AAAA[A-Za-z0-9+/=]+", &["ssh", "key"]).needs(&["-----begin", "ssh-"]),
            Detector::new(r#"\{[^{}]*"kty"\s*:[^{}]*\}"#, &["jwk"]).needs(&["kty"]),
            Detector::new(r"\bgAAAAA[A-Za-z0-9_=-]{8,}(?:\.\.\.|…)?", &["fernet", "token"]).needs(&["gaaaaa"]),
            Detector::new(r"\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}", &["bcrypt", "hash"]).needs(&["$2"]),
            Detector::new(r"\$argon2(?:id|i|d)\$\S*", &["argon2", "hash"]).needs(&["$argon2"]),
            Detector::new(r"\$scrypt\$\S+", &["scrypt", "hash"]).needs(&["$scrypt$"]),
            Detector::new(r"\$pbkdf2[\w-]*\$\S+", &["pbkdf2", "hash"]).needs(&["$pbkdf2"]),
            Detector::new(r"\$(?:1|5|6|apr1)\$\S+", &["hash"]).needs(&["$"]),
            Detector::new(r"(?:\x1b|\\x1b|\\033|\\e|\\u001b|\^\[)\[[0-9;]*[A-Za-z]?", &["ansi", "escape"]).needs(&["["]),
            Detector::new(r"(?:\\u\{[0-9a-fA-F]{1,6}\}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8})+", &["unicode", "escape"]).needs(&["\\u"]),
            Detector::new(r"(?:\\x[0-9a-fA-F]{2}[^\s\\]*){3,}", &["bytes"]).needs(&["\\x"]),
            Detector::new(r"<~(?s:.*?)~>", &["ascii85"]).needs(&["<~"]),
            Detector::new(r"(?:^|\s)[.-]{1,7}(?:[ \t]+(?:/[ \t]+)?[.-]{1,7}){2,}(?:\s|$|[?!,])", &["morse"]).accept(morse).needs(&[".", "-"]),
            // Three NATO code words in a row are phonetic spelling: what the request has.
            Detector::new(concat!(r"(?i)\b(?:", nato!(), r")(?:[\s,]+(?:", nato!(), r")){2,}\b"), &["nato"]).needs_that(nato_words),
            Detector::new(r"(?:^|\s)s/[^/\n]+/[^/\n]*/[gimI]*(?:\s|$|[,.;])", &["find", "replace"]).needs(&["s/"]),
            Detector::new(r"(?i)\bhxxps?://\S+|\S+\[\.\]\S*", &["defang"]).needs(&["hxxp", "[.]"]),
            Detector::new(r"(?i)\bxn--[a-z0-9-]+(?:\.[a-z0-9-]+)*", &["punycode"]).needs(&["xn--"]),
            Detector::new(r"[^\x00-\x7F\s'\x22]+(?:\.[^\s.'\x22]+)*\.[A-Za-z]{2,}\b", &["idn"]).needs_that(non_ascii),
            Detector::new(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b", &["email"]).needs(&["@"]),
            // An IBAN passes its mod-97 check; else it is some other code of letters and digits.
            Detector::new(r"\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b", &["iban"]).accept(iban).needs_that(any_digit),
            Detector::new(r"(?:^|\s)(?://[\w*:.-]+(?:/{1,2}(?:@[\w:.-]+|[\w*:.-]+(?:\(\))?)|\[[^\]\n]+\])*|/[\w:.-]+(?:/[\w*:.-]+)*(?:/@[\w:.-]+|\[[^\]\n]+\]))", &["xpath"]).needs(&["/"]),
            Detector::new(r"(?i)(?:\b0x[0-9a-f]+|\b0b[01]+|\b0o[0-7]+|\b\d+)\s*(?:<<|>>>?|&|\||\^|\b(?:and|or|xor|nand|nor|shl|shr)\b)\s*(?:0x[0-9a-f]+|0b[01]+|0o[0-7]+|\d+)\b", &["bitwise"]).accept(bitwise).needs_that(any_digit).keeps_words(),
            Detector::new(r"(?i)\bpow\s*\(\s*-?\d+\s*,\s*-?\d+\s*,\s*\d+\s*\)|\b\d+\s*(?:\^|\*\*)\s*\d+\s*(?:mod|%)\s*\d+\b", &["modular", "exponentiation"]).needs_that(any_digit),
            Detector::new(r"-?\b\d{1,2}\.\d{2,}\s*,\s*-?\d{1,3}\.\d{2,}\b", &["latitude", "longitude"]).accept(coordinates).needs(&[","]),
            Detector::new(r"\b\d+(?:h|m|s|ms|d|w)(?:\s?\d+(?:h|m|s|ms))+\b|\bP(?:\d+[YMWD])*T(?:\d+(?:\.\d+)?[HMS])+\b", &["duration"]).needs_that(any_digit),
            Detector::new(r"\b(?:\d{1,3}\.){3}\d{1,3}\s*(?:-|–|\.\.|\bto\b|\bthrough\b|\bthru\b)\s*(?:\d{1,3}\.){3}\d{1,3}\b", &["ip", "range"]).needs(&["."]),
            Detector::new(r"(?i)\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b|\b[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}\b", &["mac", "address"]).needs(&[":", "-", "."]),
            // Bytes written as spaced hex pairs ("50 4B 03 04"), one with a letter at least.
            Detector::new(r"\b[0-9A-Fa-f]{2}(?: [0-9A-Fa-f]{2}){3,}\b", &["bytes"]).accept(has_letter).needs_that(any_digit),
            Detector::new(r"\b[0-9A-F]{12}\b", &["mac", "address"]).accept(mixed).needs_that(any_digit),
            Detector::new(r"(?i)(?:\b[0-9a-f]{1,4})?(?::[0-9a-f]{0,4}){2,7}\b", &["ipv6"]).accept(ipv6).needs(&[":"]),
            Detector::new(r"\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b", &["ulid"]).accept(mixed).needs_that(any_digit),
            Detector::new(r"\b(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|[13][1-9A-HJ-NP-Za-km-z]{25,34})\b", &["base58"]).accept(base58).needs(&["qm", "1", "3"]),
            Detector::new(r"\b[A-Z2-7]{8,}={1,6}", &["base32"]).accept(base32).needs(&["="]),
            // Unpadded, as TOTP secrets are shown: whole blocks of eight, digits 2-7 among them.
            Detector::new(r"\b[A-Z2-7]{16,}\b", &["base32"]).accept(base32_unpadded).needs_that(any_digit),
            Detector::new(r"(?i)safelinks\.protection\.outlook\.com|urldefense(?:\.proofpoint)?\.com", &["safelink"]).needs(&["safelinks.protection.outlook.com", "urldefense"]),
            Detector::new(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?", &["jwt"]).needs(&["eyj"]),
            Detector::new(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", &["uuid"]).needs(&["-"]),
            Detector::new(r"(?m)(?:^|[\s`'\x22])(?:@(?:yearly|annually|monthly|weekly|daily|midnight|hourly)|(?:[0-9*?LW#/,-]+|[A-Z]{3}(?:-[A-Z]{3})?)(?:\s+(?:[0-9*?LW#/,-]+|[A-Za-z]{3}(?:[-,][A-Za-z]{3})*)){4,5})(?:[\s`'\x22.,;?!]|$)", &["cron"]).accept(cron),
            // "42 in binary": the number is data, "in binary" what is wanted (a mode's target).
            Detector::new(r"(?i)(?:^|[\s:(])\d+\s+(?:(?:written|expressed|represented|converted|shown)\s+)?(?:in|to|into|as)\s+(?:binary|hex|hexadecimal|octal)\b", &["decimal", "number", "base"]).needs_that(any_digit).keeps_words(),
            // A prefixed number says which base it is in: the source of a base conversion.
            Detector::new(r"\b0[xX][0-9a-fA-F]+\b", &["number", "base", "hex"]).needs(&["0x"]),
            Detector::new(r"\b0[bB][01]+\b", &["number", "base", "binary"]).needs(&["0b"]),
            Detector::new(r"\b0[oO][0-7]+\b", &["number", "base", "octal"]).needs(&["0o"]),
            Detector::new(r"\b1[0-9]{9}\b", &["timestamp"]).accept(not_bits).needs_that(any_digit),
            // Thirteen digits: what `Date.now()` and Java's `currentTimeMillis` print.
            Detector::new(r"\b[0-9]{13}\b", &["timestamp", "milliseconds"]).needs_that(any_digit),
            // A MongoDB ObjectId: 24 hex digits whose first eight are a plausible creation time
            // (2009-2037), which is what people ask of one.
            Detector::new(r"\b[0-9a-fA-F]{24}\b", &["objectid"]).accept(object_id).needs_that(any_digit),
            Detector::new(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b", &["timestamp", "date"]).needs(&["-"]),
            Detector::new(r"&(?:[a-zA-Z]{2,8}|#\d{2,6}|#x[0-9a-fA-F]{2,6});", &["html", "entity"]).needs(&["&"]),
            Detector::new(r"(?i)\bU\+[0-9A-F]{4,6}\b", &["unicode", "codepoint"]).needs(&["u+"]),
            // A shortcode as chat apps and GitHub write emoji, ":tada:".
            Detector::new(r"(?:^|\s):[a-z0-9_+-]*[a-z][a-z0-9_+-]*:(?:\s|$|[?.,!])", &["emoji"]).needs(&[":"]),
            // A CSS colour: `rgb(…)`/`hsl(…)` and friends, or `#rrggbb` (`#rgb` with a letter,
            // so an issue number "#123" is not one).
            // The notation is the source of a colour conversion ("#ff6600 to rgb").
            Detector::new(r"(?i)#(?:[0-9a-f]{8}|[0-9a-f]{6}|[0-9a-f]{3,4})\b", &["color", "hex"]).accept(css_color).needs(&["#"]),
            Detector::new(r"(?i)\brgba?\s*\(\s*[\d.]+%?\s*[, ]\s*[\d.]+%?[^)\n]*\)", &["color", "rgb"]).needs(&["rgb"]),
            Detector::new(r"(?i)\bhsla?\s*\(\s*[\d.]+%?\s*[, ]\s*[\d.]+%?[^)\n]*\)", &["color", "hsl"]).needs(&["hsl"]),
            Detector::new(r"(?i)\b(?:hsv|hwb|cmyk|lab)\s*\(\s*[\d.]+%?\s*[, ]\s*[\d.]+%?[^)\n]*\)", &["color"]).needs(&["("]),
            Detector::new(r"https?://[^\s'\x22]+", &["url"]).needs(&["http"]),
            // The whole percent-encoded token: "hello%20world" leaves no words behind.
            Detector::new(r"[^\s'\x22`]*%[0-9A-Fa-f]{2}[^\s'\x22`]*", &["url", "encode"]).needs(&["%"]),
            Detector::new(r"(?is)\bselect\b.+\bfrom\b|\binsert\s+into\b|\bupdate\b.+\bset\b|\b(?:create|drop|alter)\s+table\b|\bdelete\s+from\b", &["sql"]).needs(&["select", "insert", "update", "create", "drop", "alter", "delete"]),
            // Tags only HTML has make it HTML, not any XML (one-letter ones like `<a>` and `<b>`
            // are as common in XML examples).
            Detector::new(r"(?is)<(?:html|head|body|div|span|h[1-6]|script|style|ul|ol|table|img|br|em|strong|form|input|button|section|article|nav|footer|iframe|pre|code|label|select|textarea|a\s+href)\b[^<>]*>.*</[A-Za-z]\w*>", &["html"]).needs(&["<"]),
            Detector::new(r"(?s)<\?xml.*|<([A-Za-z][\w:.-]*)[^<>]*>.*</([A-Za-z][\w:.-]*)>", &["xml"]).needs(&["<"]),
            // A whole-text document, or an object (or array of objects) pasted among words: from its
            // first key to the last closing bracket, so its numbers and keys are not read as words.
            Detector::new(r"(?s)^\s*[\[{].*[\]}]\s*$|(?:\[\s*)?\{\s*\x22[^\x22]+\x22\s*:(?s:.*)[\]}]|\{\s*\x22[^\x22]+\x22\s*:", &["json"]).needs(&["[", "{"]),
            Detector::new(r"(?:^|\s)/[^/\s][^/\n]*/[gimsuxy]*(?:\s|$|[?.,])", &["regex"]).needs(&["/"]),
            // Anchored at both ends, "^[A-Z]{2}\d{6}$" is a regular expression.
            Detector::new(r"(?:^|\s)\^\S+\$(?:\s|$|[?.,])", &["regex"]).needs(&["^"]),
            Detector::new(r"(?i)\bauthorization:\s*basic\b", &["basic", "auth"]).needs(&["authorization"]),
            Detector::new(r"\bMozilla/\d\.\d[^\n]*", &["user", "agent"]).needs(&["mozilla/"]),
            Detector::new(r"(?:^|\s)\$(?:\.\.?[\w*]+|\[)[^\s]*", &["jsonpath"]).needs(&["$"]),
            Detector::new(r"(?:^|\s)[-dlcbps][rwxsStT-]{9}(?:\s|$|[?.,])", &["chmod"]),
            Detector::new(r"\b(?:\d{1,3}\.){3}\d{1,3}/\d{1,2}\b", &["ipv4", "subnet"]).needs(&["/"]),
            Detector::new(r"\b(?:\d{1,3}\.){3}\d{1,3}\b", &["ipv4"]).needs(&["."]),
            Detector::new(r"(?m)^\s*\[[\w.-]+\]\s*$(?s:.*)^\s*[\w-]+\s*=\s*\S", &["toml"]).needs(&["["]),
            Detector::new(r"(?i)\b(?:http|status|error|returns?|response|code)\b[^\n]*\b[1-5][0-9]{2}\b|\b[1-5][0-9]{2}\b[^\n]*\b(?:status|error|code|response)\b", &["http", "status"]).needs_that(any_digit),
            // Bare error codes are codes when they are the request's only numbers ("what does
            // 418 mean", "401 vs 403"), not when other numbers stand beside them ("37 out of
            // 412"). The match spans the request, so its words stay.
            Detector::new(concat!(r"^\D*\b(?:", error_codes!(), r")\b(?:\D+\b(?:", error_codes!(), r")\b)*\D*$"), &["http", "status"]).needs_that(any_digit).keeps_words(),
            Detector::new(r"(?:^|\s)\+\d[\d \-().]{6,18}\d\b", &["phone"]).needs(&["+"]),
            Detector::new(r"\b(?:sin|cos|tan|sqrt|log|ln|exp)\s*\([^)\n]*\)(?:\s*[-+*/^%]\s*[\d.]+)*|\b\d+(?:\.\d+)?\s*[+*/^%]\s*\(?\d|\b\d+\s+-\s+\(?\d", &["math", "calculate"]).needs_that(digit_or_paren),
            Detector::new(r"\b[MDCLXVI]{4,}\b", &["roman", "numeral"]).accept(roman).needs_that(roman_run),
            Detector::new(r"(?m)^#{1,6} \S.*$|\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\s]+\)|(?m)^```", &["markdown"]).needs(&["#", "**", "[", "```"]),
            Detector::new(r"(?m)^[^,\n]+(?:,[^,\n]*)+\n(?:[^,\n]*(?:,[^,\n]*)+\n?){1,}", &["csv"]).needs(&[","]),
            Detector::new(r"(?m)^[A-Za-z_][\w-]*:(?:[ \t]+\S.*)?\n(?:(?:[ \t]+- |[ \t]*[A-Za-z_][\w-]*:|[ \t]+)\S.*\n?)+", &["yaml"]).needs(&[":"]),
            Detector::new(r"\b[a-fA-F0-9]{64}\b|\b[a-fA-F0-9]{40}\b|\b[a-fA-F0-9]{32}\b", &["hash"]),
            Detector::new(r"\b[0-9a-fA-F]{10,}\b", &["hex"]).accept(hex_bytes),
            // Base64 of gzip data starts with the magic bytes 1f 8b 08.
            Detector::new(r"\bH4sI[A-Za-z0-9+/]{8,}={0,2}", &["gzip", "base64"]).needs(&["h4si"]),
            Detector::new(r"\b[A-Za-z0-9+/]{8,}={1,2}(?:\s|$|[,.;:!?)'\x22])|\b[A-Za-z0-9+/]*[0-9][A-Za-z0-9+/]*[A-Z][A-Za-z0-9+/]*[a-z][A-Za-z0-9+/]{8,}={0,2}", &["base64"]).accept(base64_like),
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

/// The extensions people name files by (a regex alternation).
const FILE_EXTENSIONS: &str = concat!(
    "ya?ml|json[5l]?|ndjson|toml|xml|csv|tsv|txt|md|markdown|html?|s?css|[cm]?js|jsx|ts|tsx|",
    "py|rs|go|java|kt|rb|php|c|h|cpp|hpp|cs|swift|sh|bash|zsh|ps1|sql|db|sqlite3?|log|",
    "conf|cfg|ini|env|lock|proto|pem|der|crt|cer|csr|key|pub|p12|pfx|jks|png|jpe?g|gif|",
    "svg|webp|ico|pdf|zip|gz|tgz|tar|bz2|xz|zst|lz4|7z|bin|plist|msgpack|cbor|wasm|",
    "mp[34]|tf|tfvars|gradle|properties|xlsx?|docx?",
);

/// The files a request names, in order, each once: a word that looks like a file name (a known
/// extension, as in `file_name`), or names a file that exists here (`Makefile`, `./run`).
/// Quotes and punctuation around the word are not part of it.
pub fn named_files(request: &str) -> Vec<String> {
    static F: OnceLock<Regex> = OnceLock::new();
    let looks = F.get_or_init(|| {
        Regex::new(&format!(
            r"(?i)^(?:[\w.~-]*/)*[\w~-][\w.-]*\.(?:{FILE_EXTENSIONS})$"
        ))
        .expect("valid file name pattern")
    });
    let mut out: Vec<String> = Vec::new();
    for word in request.split_whitespace() {
        let word = word
            .trim_start_matches(|c: char| "([{<'\"`“‘".contains(c))
            .trim_end_matches(|c: char| ")]}>'\"`”’,;:!?.".contains(c));
        // `@data.json` is already the file's content, as an agent writes it.
        let word = word.strip_prefix('@').unwrap_or(word);
        if word.is_empty() {
            continue;
        }
        let exists = || {
            (word.contains('/') || word.contains('.') || word.chars().any(|c| c.is_uppercase()))
                && std::path::Path::new(word).is_file()
        };
        if (looks.is_match(word) || exists()) && !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

/// A file name or path ending in an extension people name files by, with what comes before it.
fn file_name() -> &'static Regex {
    static F: OnceLock<Regex> = OnceLock::new();
    F.get_or_init(|| {
        Regex::new(&format!(
            r"(?i)(?P<lead>^|[\s(\[,:=])(?:[\w.~-]*/)*[\w~-][\w.-]*\.(?P<ext>{FILE_EXTENSIONS})\b(?P<tail>$|[\s)\],.;:!?'\x22])"
        ))
        .expect("valid file name pattern")
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
    scrub_gated(request, true)
}

fn scrub_gated(request: &str, gated: bool) -> Scrubbed {
    let mut text = request.to_string();
    let mut lower = text.to_ascii_lowercase();
    let mut concepts = Vec::new();
    let mut data: Vec<(usize, String)> = Vec::new();
    for d in detectors() {
        if gated && !d.may_match(&lower) {
            continue;
        }
        let found: Vec<(usize, usize)> = d
            .regex()
            .find_iter(&text)
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
                .map(|&(s, e)| (s, sample_text(&text[s..e]).to_string())),
        );
        let mut rest = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e) in found {
            rest.push_str(&text[at..s]);
            rest.push(' ');
            if d.keeps_words {
                // "I'm" stays one word, as the tokeniser reads it.
                let letters = |c: char| c.is_alphabetic() || c == '\'' || c == '’';
                for w in text[s..e]
                    .split(|c: char| !c.is_alphanumeric() && !letters(c))
                    .filter(|w| w.chars().any(char::is_alphabetic) && w.chars().all(letters))
                {
                    rest.push_str(w);
                    rest.push(' ');
                }
                // An operator written as symbols names the operation as its words would.
                for (symbol, words) in [("<<", "shift left "), (">>", "shift right ")] {
                    if text[s..e].contains(symbol) {
                        rest.push_str(words);
                    }
                }
            }
            at = e;
        }
        rest.push_str(&text[at..]);
        text = rest;
        lower = text.to_ascii_lowercase();
    }
    if let Some((s, e, k)) = super::shifted::find(&text) {
        // Shifted English is a message to decipher: ROT13 when shifted by thirteen.
        let named: &[&'static str] = if k == 13 { &["rot13"] } else { &["caesar"] };
        for c in named {
            if !concepts.contains(c) {
                concepts.push(*c);
            }
        }
        data.push((s, text[s..e].to_string()));
        text = format!("{} {}", &text[..s], &text[e..]);
    }
    if text.contains('.') {
        // "docker-compose.override.yml", "src/settings.json": a file's name says nothing about
        // the tool; that there is a file, and what its extension says it holds, do.
        text = file_name()
            .replace_all(&text, "${lead} file ${ext} ${tail}")
            .into_owned();
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
    use super::{scrub, scrub_gated};

    #[test]
    fn gates_never_skip_a_detector_that_would_match() {
        // Every labelled request, positive or negative, scrubs the same with and without the
        // gates that spare compiling detectors.
        let mut texts: Vec<String> = Vec::new();
        for file in [
            include_str!("../../tests/data/resolve-requests.json"),
            include_str!("../../tests/data/resolve-requests-2a.json"),
            include_str!("../../tests/data/resolve-requests-2b.json"),
            include_str!("../../tests/data/resolve-requests-3.json"),
        ] {
            let doc: serde_json::Value = serde_json::from_str(file).unwrap();
            for list in doc.as_object().unwrap().values() {
                for item in list.as_array().into_iter().flatten() {
                    let text = item.as_str().or_else(|| item["text"].as_str());
                    texts.extend(text.map(str::to_string));
                }
            }
        }
        assert!(texts.len() > 1000, "{}", texts.len());
        texts.extend(
            [
                "what is ٣٤٥ in hex",
                "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
                "DRWXR-XR-X what does it mean",
                "drwxrwxrwx",
                "MON-FRI JAN FEB MAR APR",
                "SELECT * FROM t",
                "ESC[1;31m red",
                "\\U0001F600",
            ]
            .map(String::from),
        );
        for text in &texts {
            assert_eq!(scrub_gated(text, true), scrub_gated(text, false), "{text}");
        }
    }

    #[test]
    fn roman_numerals_object_ids_and_millisecond_times_are_samples() {
        assert_eq!(
            scrub("MCMLXXXIV as a number").concepts,
            vec!["roman", "numeral"]
        );
        assert_eq!(scrub("MMXXIV").concepts, vec!["roman", "numeral"]);
        // Not canonical, or short enough to be an abbreviation.
        for text in ["XIIII in decimal", "MDCM", "the CLI prints MD", "VIVID"] {
            assert!(scrub(text).concepts.is_empty(), "{text}");
        }
        assert_eq!(
            scrub("what date is 1718035200123?").concepts,
            vec!["timestamp", "milliseconds"]
        );
        assert_eq!(scrub("what date is 1718035200").concepts, vec!["timestamp"]);
        assert_eq!(
            scrub("_id 64b7f3a2c9e77a1d2f0a1b2c created when").concepts,
            vec!["objectid"]
        );
        // 24 hex digits that start far from any plausible creation time are just hex.
        assert_eq!(scrub("ffb7f3a2c9e77a1d2f0a1b2c").concepts, vec!["hex"]);
    }

    #[test]
    fn html_unpadded_base32_and_shifts_are_told_apart() {
        assert_eq!(
            scrub("escape <script>alert(1)</script> now").concepts,
            vec!["html"]
        );
        assert_eq!(
            scrub("pretty print <a><b x=\"1\">t</b></a>").concepts,
            vec!["xml"]
        );
        // A link is HTML, even once its address is cut out as a URL.
        assert_eq!(
            scrub("as plain text: <p>Hi <a href=\"https://x.example/1\">#1</a></p>").concepts,
            vec!["url", "html"]
        );
        assert_eq!(
            scrub("what <meta> tags do I need").concepts,
            Vec::<&str>::new()
        );
        assert_eq!(
            scrub("secret JBSWY3DPEHPK3PXP in hex").concepts,
            vec!["base32"]
        );
        // Not whole blocks of eight, or no digit.
        assert!(scrub("JBSWY3DPEHPK3PX").concepts.is_empty());
        assert!(scrub("ABCDEFGHABCDEFGH").concepts.is_empty());
        let s = scrub("what is 1 << 40");
        assert_eq!(s.concepts, vec!["bitwise"]);
        assert_eq!(
            s.text.split_whitespace().collect::<Vec<_>>(),
            ["what", "is", "shift", "left"]
        );
        assert_eq!(
            scrub("what's 255 written in binary").concepts,
            vec!["decimal", "number", "base"]
        );
    }

    #[test]
    fn percent_encoding_takes_its_whole_token() {
        let s = scrub("url decode hello%20world%3F now");
        assert_eq!(s.concepts, vec!["url", "encode"]);
        assert_eq!(s.data, vec!["hello%20world%3F"]);
        assert_eq!(
            s.text.split_whitespace().collect::<Vec<_>>(),
            ["url", "decode", "now"]
        );
    }

    #[test]
    fn named_files_are_the_words_that_look_like_or_are_files() {
        assert_eq!(super::named_files("diff a.txt b.txt"), ["a.txt", "b.txt"]);
        assert_eq!(
            super::named_files("count rows in 'data.csv', then sort ./out/data.csv."),
            ["data.csv", "./out/data.csv"]
        );
        assert_eq!(super::named_files("pretty print @data.json"), ["data.json"]);
        // Domains, versions and plain words are not files (unless one exists here).
        assert!(super::named_files("punycode of münchen.de v1.2.3 json").is_empty());
        assert_eq!(
            super::named_files("hash Cargo.lock and src"),
            ["Cargo.lock"]
        );
    }

    #[test]
    fn a_file_name_leaves_the_word_file_and_its_extension() {
        let words = |t: &str| {
            scrub(t)
                .text
                .split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words("where is docker-compose.override.yml?"),
            ["where", "is", "file", "yml", "?"]
        );
        assert_eq!(
            words("convert src/config/settings.json, then"),
            ["convert", "file", "json", ",", "then"]
        );
        assert_eq!(words("(inventory.txt)"), ["(", "file", "txt", ")"]);
        // Domains, versions and quoted names are left alone.
        assert_eq!(
            words("punycode of münchen.de"),
            ["punycode", "of", "münchen.de"]
        );
        assert_eq!(
            words("bump to 1.2.3 on example.com"),
            ["bump", "to", "1.2.3", "on", "example.com"]
        );
        assert_eq!(scrub("hash 'notes.txt'").data, vec!["notes.txt"]);
    }

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
        let quoted = scrub("does schedule `30 2 * * 0` run nightly?");
        assert_eq!(
            (quoted.concepts, quoted.data),
            (vec!["cron"], vec!["30 2 * * 0".into()])
        );
        assert_eq!(
            scrub("decode 93 48 65 6C 6F 94 as Windows-1252").concepts,
            vec!["bytes"]
        );
        // Bare numbers are bytes or codes, not a schedule.
        assert!(
            !scrub("starts with 50 4B 03 04 14 00 06 00")
                .concepts
                .contains(&"cron")
        );
        assert_eq!(
            scrub("convert 0xff to decimal").concepts,
            vec!["number", "base", "hex"]
        );
        assert_eq!(scrub(r#"{"a":1} make it readable"#).concepts, vec!["json"]);
        let s = scrub(r#"{"a":1,"b":{"c":[1,2,3]}} make it readable"#);
        assert_eq!(
            (s.concepts, s.text.trim()),
            (vec!["json"], "make it readable")
        );
        assert_eq!(scrub("sha256 of 'hello world'").text.trim(), "sha256 of");
        assert_eq!(scrub("sha256 of 'hello world'").data, vec!["hello world"]);
        assert_eq!(scrub("what date is 1700000000").data, vec!["1700000000"]);
        assert_eq!(
            scrub("What's the blake2b checksum of 'abc'?").text.trim(),
            "What's the blake2b checksum of"
        );
        assert!(scrub("generate a uuid").concepts.is_empty());
        assert_eq!(
            scrub("what does 'Whiskey Hotel Oscar Alpha Mike India' spell").concepts,
            vec!["nato"]
        );
        // An IBAN is told from a hex string by its mod-97 check, spaced or not.
        assert_eq!(
            scrub("is DE89370400440532013000 valid?").concepts,
            vec!["iban"]
        );
        assert_eq!(scrub("GB82 WEST 1234 5698 7654 32").concepts, vec!["iban"]);
        assert_ne!(
            scrub("is DE89370400440532013001 valid?").concepts,
            vec!["iban"]
        );
        assert_eq!(
            scrub("check against $scrypt$ln=15,r=8,p=1$aM15713r3X$nFNh2CVH").concepts,
            vec!["scrypt", "hash"]
        );
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
        // The operator is a word about the operation, not data.
        assert_eq!(
            scrub("what is 0b1100 XOR 0b1010?")
                .text
                .split_whitespace()
                .collect::<Vec<_>>(),
            vec!["what", "is", "XOR", "?"]
        );
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
        assert_eq!(
            scrub("What's rgb(34, 139, 34) in HSL?").concepts,
            vec!["color", "rgb"]
        );
        assert_eq!(
            scrub("brand color #FF5733 as cmyk").concepts,
            vec!["color", "hex"]
        );
        assert_eq!(scrub("lighten #fff").concepts, vec!["color", "hex"]);
        assert_eq!(
            scrub("hsl(210, 50%, 40%) to hex").concepts,
            vec!["color", "hsl"]
        );
        assert!(scrub("fix issue #123").concepts.is_empty());
        assert_eq!(
            scrub("the secret is dXNlcm5hbWU=, what does it say").concepts,
            vec!["base64"]
        );
        assert_eq!(
            scrub("I have U+1F600 U+2764").concepts,
            vec!["unicode", "codepoint"]
        );
        assert!(scrub("set password= in the config").concepts.is_empty());
        assert!(scrub("what day was 2024-03-15").concepts.is_empty());
        assert_eq!(
            scrub("decode https://nam12.safelinks.protection.outlook.com/?url=x").concepts[0],
            "safelink"
        );
    }
}
