//! Recognising data pasted into a request ("decode eyJhbGci…", "what date is 1700000000").
//!
//! A recognised sample is cut out of the text (its characters say nothing about the tool) and
//! replaced by the words that name what it is, which then match tools that mention them.

use regex::Regex;
use std::sync::OnceLock;

struct Detector {
    re: Regex,
    concepts: &'static [&'static str],
}

fn detectors() -> &'static [Detector] {
    static D: OnceLock<Vec<Detector>> = OnceLock::new();
    D.get_or_init(|| {
        let d = |re: &str, concepts: &'static [&'static str]| Detector { re: Regex::new(re).expect("valid detector"), concepts };
        vec![
            d(r"(?i)safelinks\.protection\.outlook\.com|urldefense(?:\.proofpoint)?\.com", &["safelink"]),
            d(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?", &["jwt"]),
            d(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", &["uuid"]),
            d(r"(?m)(?:^|\s)(?:@(?:yearly|annually|monthly|weekly|daily|midnight|hourly)|(?:[0-9*?LW#/,-]+|[A-Z]{3}(?:-[A-Z]{3})?)(?:\s+(?:[0-9*?LW#/,-]+|[A-Za-z]{3}(?:[-,][A-Za-z]{3})*)){4,5})(?:\s|$)", &["cron"]),
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
            d(r"\b(?:sin|cos|tan|sqrt|log|ln|exp)\s*\(|\b\d+(?:\.\d+)?\s*[+*/^%]\s*\(?\d|\b\d+\s+-\s+\(?\d", &["math", "calculate"]),
            d(r"(?m)^#{1,6} \S.*$|\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\s]+\)|(?m)^```", &["markdown"]),
            d(r"(?m)^[^,\n]+(?:,[^,\n]*)+\n(?:[^,\n]*(?:,[^,\n]*)+\n?){1,}", &["csv"]),
            d(r"(?m)^[A-Za-z_][\w-]*:(?:[ \t]+\S.*)?\n(?:(?:[ \t]+- |[ \t]*[A-Za-z_][\w-]*:|[ \t]+)\S.*\n?)+", &["yaml"]),
            d(r"\b[a-fA-F0-9]{64}\b|\b[a-fA-F0-9]{40}\b|\b[a-fA-F0-9]{32}\b", &["hash"]),
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
        if d.re.is_match(&text) {
            for c in d.concepts {
                if !concepts.contains(c) {
                    concepts.push(*c);
                }
            }
            data.extend(
                d.re.find_iter(&text)
                    .map(|m| (m.start(), m.as_str().trim().to_string())),
            );
            text = d.re.replace_all(&text, " ").into_owned();
        }
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
        assert!(scrub("what day was 2024-03-15").concepts.is_empty());
        assert_eq!(
            scrub("decode https://nam12.safelinks.protection.outlook.com/?url=x").concepts[0],
            "safelink"
        );
    }
}
