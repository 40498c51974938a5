//! Text signalling conventions: Morse code (ITU-R M.1677-1) and defanging/refanging of
//! indicators of compromise (URLs, domains, IPs, emails) as threat-intel tools write them.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use linkify::{LinkFinder, LinkKind};
use regex::Regex;
use serde_json::json;
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("morse-code-converter", morse_code_converter),
    Tool::new("url-defanger", url_defanger),
];

// ---------------------------------------------------------------- morse

/// ITU-R M.1677-1 §1.1 (letters, figures, punctuation, including é and the
/// multiplication sign, which shares X's code), followed by the widespread non-ITU
/// extensions ! & ; _ $ used by amateur radio.
const MORSE: &[(char, &str)] = &[
    ('A', ".-"),
    ('B', "-..."),
    ('C', "-.-."),
    ('D', "-.."),
    ('E', "."),
    ('É', "..-.."),
    ('F', "..-."),
    ('G', "--."),
    ('H', "...."),
    ('I', ".."),
    ('J', ".---"),
    ('K', "-.-"),
    ('L', ".-.."),
    ('M', "--"),
    ('N', "-."),
    ('O', "---"),
    ('P', ".--."),
    ('Q', "--.-"),
    ('R', ".-."),
    ('S', "..."),
    ('T', "-"),
    ('U', "..-"),
    ('V', "...-"),
    ('W', ".--"),
    ('X', "-..-"),
    ('Y', "-.--"),
    ('Z', "--.."),
    ('1', ".----"),
    ('2', "..---"),
    ('3', "...--"),
    ('4', "....-"),
    ('5', "....."),
    ('6', "-...."),
    ('7', "--..."),
    ('8', "---.."),
    ('9', "----."),
    ('0', "-----"),
    ('.', ".-.-.-"),
    (',', "--..--"),
    (':', "---..."),
    ('?', "..--.."),
    ('\'', ".----."),
    ('-', "-....-"),
    ('/', "-..-."),
    ('(', "-.--."),
    (')', "-.--.-"),
    ('"', ".-..-."),
    ('=', "-...-"),
    ('+', ".-.-."),
    ('@', ".--.-."),
    ('!', "-.-.--"),
    ('&', ".-..."),
    (';', "-.-.-."),
    ('_', "..--.-"),
    ('$', "...-..-"),
];

fn morse_for(c: char) -> Option<&'static str> {
    let upper = c.to_uppercase().next().unwrap_or(c);
    let upper = if upper == '×' { 'X' } else { upper };
    MORSE.iter().find(|(k, _)| *k == upper).map(|(_, v)| *v)
}

fn char_for(code: &str) -> Option<char> {
    MORSE.iter().find(|(_, v)| *v == code).map(|(k, _)| *k)
}

/// A list of problem items for an error message, at most ten shown.
fn listed(items: &[String]) -> String {
    let mut shown = items
        .iter()
        .take(10)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > 10 {
        shown.push_str(&format!(" and {} more", items.len() - 10));
    }
    shown
}

fn morse_code_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let letter_sep = args.str("letterSeparator")?;
    let word_sep = args.str("wordSeparator")?;
    let dot = args.str("dot")?;
    let dash = args.str("dash")?;
    let skip = args.str("onUnknown")? == "skip";
    if dot.is_empty() || dash.is_empty() || dot == dash {
        return Err(ToolError::invalid(
            "dot and dash must be non-empty and different",
        ));
    }
    let mut unknown: Vec<String> = Vec::new();
    let mut lines = Vec::new();
    if args.str("mode")? == "decode" {
        for line in line_breaks::lines(input) {
            lines.push(decode_line(
                line,
                letter_sep,
                word_sep,
                dot,
                dash,
                &mut unknown,
            ));
        }
        if !unknown.is_empty() && !skip {
            return Err(ToolError::invalid(format!(
                "no character has the Morse code {} (set onUnknown to skip to drop them)",
                listed(&unknown)
            )));
        }
        return Ok(json!({ "output": lines.join("\n"), "mode": "decode" }));
    }
    let render = |code: &str| -> String {
        code.chars()
            .map(|c| if c == '.' { dot } else { dash })
            .collect()
    };
    for (n, line) in line_breaks::lines(input).enumerate() {
        let mut words = Vec::new();
        let mut letters: Vec<String> = Vec::new();
        for (col, c) in line.chars().enumerate() {
            if c.is_whitespace() {
                if !letters.is_empty() {
                    words.push(letters.join(letter_sep));
                    letters.clear();
                }
                continue;
            }
            match morse_for(c) {
                Some(code) => letters.push(render(code)),
                None => unknown.push(format!("{c:?} (line {}, column {})", n + 1, col + 1)),
            }
        }
        if !letters.is_empty() {
            words.push(letters.join(letter_sep));
        }
        lines.push(words.join(word_sep));
    }
    if !unknown.is_empty() && !skip {
        return Err(ToolError::invalid(format!(
            "no Morse code for {} (ITU-R M.1677-1 covers A-Z, 0-9, É and . , : ? ' - / ( ) \" = + @, plus ! & ; _ $; set onUnknown to skip to drop them)",
            listed(&unknown)
        )));
    }
    Ok(json!({ "output": lines.join("\n"), "mode": "encode" }))
}

/// Splits a Morse line into words and letters. The configured word separator, '/' and '|'
/// (unless used for dots or dashes) end a word; a letter separator made only of whitespace
/// matches any run of whitespace.
fn decode_line(
    line: &str,
    letter_sep: &str,
    word_sep: &str,
    dot: &str,
    dash: &str,
    unknown: &mut Vec<String>,
) -> String {
    const GAP: char = '\u{1}';
    let word_mark = if word_sep.trim().is_empty() {
        word_sep
    } else {
        word_sep.trim()
    };
    let mut normalised = if word_mark.is_empty() {
        line.to_string()
    } else {
        line.replace(word_mark, &GAP.to_string())
    };
    for mark in ["/", "|"] {
        if !dot.contains(mark) && !dash.contains(mark) {
            normalised = normalised.replace(mark, &GAP.to_string());
        }
    }
    let letter_mark = letter_sep.trim();
    let mut out_words = Vec::new();
    for word in normalised.split(GAP) {
        let letters: Vec<&str> = if letter_mark.is_empty() {
            word.split_whitespace().collect()
        } else {
            word.split(letter_mark)
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect()
        };
        let mut text = String::new();
        for letter in letters {
            let code: String = letter
                .replace(dot, "\u{0}")
                .replace(dash, "-")
                .replace('\u{0}', ".")
                .chars()
                // Common typographic stand-ins for dot and dash.
                .map(|c| match c {
                    '·' | '•' | '∙' => '.',
                    '−' | '–' | '—' | '_' => '-',
                    other => other,
                })
                .collect();
            match char_for(&code) {
                Some(c) => text.push(c),
                None => unknown.push(format!("'{letter}'")),
            }
        }
        if !text.is_empty() {
            out_words.push(text);
        }
    }
    out_words.join(" ")
}

// ---------------------------------------------------------------- defang

struct DefangOptions {
    dots: bool,
    scheme: bool,
    separator: bool,
    at: bool,
}

fn url_defanger(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "refang" {
        let (output, count) = refang(input);
        return Ok(json!({ "output": output, "mode": "refang", "replacements": count }));
    }
    let options = DefangOptions {
        dots: args.flag("escapeDots"),
        scheme: args.flag("escapeScheme"),
        separator: args.flag("escapeSeparator"),
        at: args.flag("escapeAt"),
    };
    if args.str("scope")? == "everything" {
        let output = defang(input, &options);
        return Ok(json!({ "output": output, "mode": "defang", "indicators": [] }));
    }
    let spans = indicator_spans(input);
    let mut output = String::with_capacity(input.len() + input.len() / 8);
    let mut last = 0;
    let mut indicators = Vec::new();
    for (start, end) in spans {
        output.push_str(&input[last..start]);
        let ioc = &input[start..end];
        output.push_str(&defang(ioc, &options));
        indicators.push(ioc);
        last = end;
    }
    output.push_str(&input[last..]);
    Ok(json!({ "output": output, "mode": "defang", "indicators": indicators }))
}

fn ipv4_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b",
        )
        .expect("static pattern compiles")
    })
}

/// URLs (with or without scheme), email addresses and IPv4 addresses in `text`, as sorted,
/// non-overlapping byte ranges.
fn indicator_spans(text: &str) -> Vec<(usize, usize)> {
    let mut finder = LinkFinder::new();
    finder
        .url_must_have_scheme(false)
        .kinds(&[LinkKind::Url, LinkKind::Email]);
    let mut spans: Vec<(usize, usize)> = finder
        .links(text)
        .filter(|l| l.as_str().contains(['.', '@']) || l.as_str().contains("://"))
        .map(|l| (l.start(), l.end()))
        .collect();
    for m in ipv4_pattern().find_iter(text) {
        if !spans.iter().any(|&(s, e)| m.start() < e && s < m.end()) {
            spans.push((m.start(), m.end()));
        }
    }
    spans.sort_unstable();
    spans
}

fn defang(text: &str, o: &DefangOptions) -> String {
    static SCHEME: OnceLock<Regex> = OnceLock::new();
    let scheme = SCHEME.get_or_init(|| {
        Regex::new(r"(?i)\b(h)tt(ps?)(://)|\b(f)t(p)(://)").expect("static pattern compiles")
    });
    let mut out = if o.scheme {
        scheme
            .replace_all(text, |c: &regex::Captures| {
                let get = |i| c.get(i).map_or("", |m| m.as_str());
                // Keep the writer's case: HTTP becomes HXXP.
                let x = |s: &str| {
                    if s.chars().all(|ch| ch.is_ascii_uppercase()) {
                        "XX"
                    } else {
                        "xx"
                    }
                };
                if c.get(1).is_some() {
                    format!("{}{}{}{}", get(1), x(get(2)), get(2), get(3))
                } else {
                    format!("{}{}{}{}", get(4), &x(get(5))[..1], get(5), get(6))
                }
            })
            .into_owned()
    } else {
        text.to_string()
    };
    if o.separator {
        out = out.replace("://", "[://]");
    }
    if o.dots {
        out = out.replace('.', "[.]");
    }
    if o.at {
        out = out.replace('@', "[@]");
    }
    out
}

/// Undoes the defanging notations in common use: [.] (.) {.} [dot] (dot) {dot} \.,
/// hxxp(s) hXXp h**p fxp, [:] [://] (://), [@] [at] (at) {at}, [/].
fn refang(text: &str) -> (String, usize) {
    static RULES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        [
            (r"(?i)\bh(?:xx|\*\*|XX)p(s?)\b", "http$1"),
            (r"(?i)\bfxp(s?)\b", "ftp$1"),
            (r"[\[\(\{]://[\]\)\}]", "://"),
            (r"[\[\(\{]:[\]\)\}]", ":"),
            (r"(?i) ?[\[\(\{] ?(?:\.|dot) ?[\]\)\}] ?", "."),
            (r"\\\.", "."),
            (r"(?i) ?[\[\(\{] ?(?:@|at) ?[\]\)\}] ?", "@"),
            (r"[\[\(\{]/[\]\)\}]", "/"),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("static pattern compiles"), r))
        .collect()
    });
    let mut out = text.to_string();
    let mut count = 0;
    for (re, replacement) in rules {
        count += re.find_iter(&out).count();
        out = re.replace_all(&out, *replacement).into_owned();
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{output_with, run_err, run_ok};
    use serde_json::json;

    // --- morse-code-converter (ITU-R M.1677-1) ---

    #[test]
    fn morse_encodes_itu_table() {
        assert_eq!(
            output_with("morse-code-converter", "SOS", json!({})),
            "... --- ..."
        );
        assert_eq!(
            output_with("morse-code-converter", "Hello, World", json!({})),
            ".... . .-.. .-.. --- --..-- / .-- --- .-. .-.. -.."
        );
        assert_eq!(
            output_with("morse-code-converter", "73 @ 1/2?", json!({})),
            "--... ...-- / .--.-. / .---- -..-. ..--- ..--.."
        );
    }

    #[test]
    fn morse_decodes_and_accepts_custom_symbols() {
        assert_eq!(
            output_with(
                "morse-code-converter",
                ".... . .-.. .-.. --- / .-- --- .-. .-.. -..",
                json!({"mode": "decode"})
            ),
            "HELLO WORLD"
        );
        assert_eq!(
            output_with(
                "morse-code-converter",
                "SOS",
                json!({"dot": "·", "dash": "−", "letterSeparator": "  "})
            ),
            "···  −−−  ···"
        );
        assert_eq!(
            output_with(
                "morse-code-converter",
                "··· −−− ···",
                json!({"mode": "decode"})
            ),
            "SOS"
        );
        // ITU É (..-..) and a word gap written with '|'.
        assert_eq!(
            output_with(
                "morse-code-converter",
                ".--. --- .-. - . | ..-.. - .",
                json!({"mode": "decode"})
            ),
            "PORTE ÉTE"
        );
    }

    #[test]
    fn morse_unknown_characters() {
        let (code, msg) = run_err("morse-code-converter", json!({"input": "a#b%"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("'#' (line 1, column 2)") && msg.contains("'%' (line 1, column 4)"),
            "{msg}"
        );
        assert_eq!(
            output_with("morse-code-converter", "a#b", json!({"onUnknown": "skip"})),
            ".- -..."
        );
        // The SOS procedure signal is sent as one run, which is no character.
        let (_, msg) = run_err(
            "morse-code-converter",
            json!({"input": "...---... .-", "mode": "decode"}),
        );
        assert!(msg.contains("'...---...'"), "{msg}");
    }

    // --- url-defanger ---

    #[test]
    fn defangs_urls_domains_ips_and_emails() {
        let data = run_ok(
            "url-defanger",
            json!({"input": "Beacon to https://evil.example.com/a.php from 10.0.0.1, mail bob@evil.example or see bad.org."}),
        );
        assert_eq!(
            data["output"],
            "Beacon to hxxps[://]evil[.]example[.]com/a[.]php from 10[.]0[.]0[.]1, mail bob[@]evil[.]example or see bad[.]org."
        );
        assert_eq!(
            data["indicators"],
            json!([
                "https://evil.example.com/a.php",
                "10.0.0.1",
                "bob@evil.example",
                "bad.org"
            ])
        );
    }

    #[test]
    fn defang_options() {
        // CyberChef "Defang URL" with only dots escaped.
        assert_eq!(
            output_with(
                "url-defanger",
                "http://example.com",
                json!({"escapeScheme": false, "escapeSeparator": false})
            ),
            "http://example[.]com"
        );
        assert_eq!(
            output_with(
                "url-defanger",
                "HTTP://X.ORG ftp://f.org",
                json!({"escapeSeparator": false})
            ),
            "HXXP://X[.]ORG fxp://f[.]org"
        );
    }

    #[test]
    fn refangs_common_notations() {
        let data = run_ok(
            "url-defanger",
            json!({"input": "hxxps[://]evil[.]com hXXp://a(.)b{.}c x[dot]y 1.2.3(.)4 bob[@]ex[.]org eve[at]ex(dot)org hxxp[:]//z[.]io[/]p", "mode": "refang"}),
        );
        assert_eq!(
            data["output"],
            "https://evil.com http://a.b.c x.y 1.2.3.4 bob@ex.org eve@ex.org http://z.io/p"
        );
    }

    #[test]
    fn refang_is_the_inverse_of_defang() {
        let text =
            "GET https://cdn.bad-site.net/x.js and http://192.168.1.20:8080/ from ops@corp.example";
        let defanged = output_with("url-defanger", text, json!({}));
        assert!(!defanged.contains("https://"));
        assert_eq!(
            output_with("url-defanger", &defanged, json!({"mode": "refang"})),
            text
        );
    }
}
