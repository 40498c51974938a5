//! Line-oriented editors: sorting lines and reversing characters, words or lines.

use crate::ctp::ToolOutcome;
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use serde_json::json;
use std::cmp::Ordering;
use std::collections::HashSet;
use unicode_segmentation::UnicodeSegmentation;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("line-sorter", line_sorter),
    Tool::new("text-reverser", text_reverser),
];

/// The input's lines (without endings), its line ending and whether it ended with one.
struct Lines<'a> {
    lines: Vec<&'a str>,
    eol: &'static str,
    trailing: bool,
}

impl<'a> Lines<'a> {
    fn parse(text: &'a str) -> Self {
        Lines {
            lines: line_breaks::lines(text).collect(),
            eol: line_breaks::first_ending(text),
            trailing: line_breaks::ends_with_break(text),
        }
    }

    fn join<S: AsRef<str>>(&self, lines: &[S]) -> String {
        let mut out = lines
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(self.eol);
        if self.trailing && !lines.is_empty() {
            out.push_str(self.eol);
        }
        out
    }
}

fn line_sorter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    let descending = args.str("order")? == "desc";
    let case_sensitive = args.flag("caseSensitive");
    let parsed = Lines::parse(input);
    let mut lines: Vec<&str> = parsed.lines.clone();
    if args.flag("trim") {
        lines = lines.into_iter().map(str::trim).collect();
    }
    let before = lines.len();
    if args.flag("removeEmpty") {
        lines.retain(|l| !l.trim().is_empty());
    }
    let empty_removed = before - lines.len();

    let fold = |s: &str| {
        if case_sensitive {
            s.to_string()
        } else {
            s.to_lowercase()
        }
    };
    // Keys are computed once; `sort_by` is stable, so equal keys keep their input order.
    let mut keyed: Vec<(Key, &str)> = lines
        .iter()
        .map(|l| {
            let key = match mode {
                "natural" => Key::Natural(natural_chunks(&fold(l))),
                "length" => Key::Length(l.graphemes(true).count()),
                "numeric" => Key::Numeric(leading_number(l)),
                // The last word first (surnames, file names after a path), then the whole
                // line, so that equal last words keep a deterministic order.
                "last-word" => {
                    let last = l.split_whitespace().next_back().unwrap_or("");
                    Key::Text(format!("{}\u{0}{}", fold(last), fold(l)))
                }
                _ => Key::Text(fold(l)),
            };
            (key, *l)
        })
        .collect();
    keyed.sort_by(|(a, _), (b, _)| {
        let ord = a.cmp(b);
        // Lines without a number stay last whichever the order.
        if descending && !matches!((a, b), (Key::Numeric(None), _) | (_, Key::Numeric(None))) {
            ord.reverse()
        } else {
            ord
        }
    });
    let mut sorted: Vec<&str> = keyed.into_iter().map(|(_, l)| l).collect();
    let mut duplicates_removed = 0;
    if args.flag("unique") {
        let mut seen = HashSet::new();
        let n = sorted.len();
        sorted.retain(|l| seen.insert(fold(l)));
        duplicates_removed = n - sorted.len();
    }
    Ok(json!({
        "output": parsed.join(&sorted),
        "lines": sorted.len(),
        "duplicatesRemoved": duplicates_removed,
        "emptyRemoved": empty_removed,
    }))
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Chunk {
    /// A run of digits, compared by value: (digit count without leading zeros, digits).
    Number(usize, String),
    Text(String),
}

#[derive(PartialEq)]
enum Key {
    Text(String),
    Natural(Vec<Chunk>),
    Length(usize),
    Numeric(Option<f64>),
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Text(a), Key::Text(b)) => a.cmp(b),
            (Key::Natural(a), Key::Natural(b)) => a.cmp(b),
            (Key::Length(a), Key::Length(b)) => a.cmp(b),
            (Key::Numeric(a), Key::Numeric(b)) => match (a, b) {
                (Some(x), Some(y)) => x.total_cmp(y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            _ => Ordering::Equal,
        }
    }
}

/// Splits into digit and non-digit runs so "file10" sorts after "file2". Numbers compare by
/// magnitude without parsing, so arbitrarily long digit runs work.
fn natural_chunks(s: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut rest = s;
    while let Some(first) = rest.chars().next() {
        let is_digit = first.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != is_digit)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        chunks.push(if is_digit {
            let digits = run.trim_start_matches('0');
            Chunk::Number(digits.len(), digits.to_string())
        } else {
            Chunk::Text(run.to_string())
        });
        rest = tail;
    }
    chunks
}

/// The number a line starts with (after leading whitespace), as `sort -g` reads it.
fn leading_number(line: &str) -> Option<f64> {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = RE
        .get_or_init(|| {
            regex::Regex::new(r"^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?").ok()
        })
        .as_ref()?;
    re.find(line)?.as_str().trim().parse().ok()
}

fn text_reverser(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mode = args.str("mode")?;
    let output = match mode {
        "words" => {
            let parsed = Lines::parse(input);
            let lines: Vec<String> = parsed
                .lines
                .iter()
                .map(|line| {
                    let indent = &line[..line.len() - line.trim_start().len()];
                    let words: Vec<&str> = line.split_whitespace().rev().collect();
                    format!("{indent}{}", words.join(" "))
                })
                .collect();
            parsed.join(&lines)
        }
        "lines" => {
            let parsed = Lines::parse(input);
            let reversed: Vec<&str> = parsed.lines.iter().rev().copied().collect();
            parsed.join(&reversed)
        }
        // Grapheme clusters keep emoji sequences, combining marks and "\r\n" intact.
        _ => input.graphemes(true).rev().collect(),
    };
    Ok(json!({ "output": output, "mode": mode }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn sort(args: Value) -> String {
        run_ok("line-sorter", args)["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn sorts_alphabetically_case_insensitive_by_default() {
        assert_eq!(
            sort(json!({"input": "banana\nApple\ncherry\napple"})),
            "Apple\napple\nbanana\ncherry"
        );
        assert_eq!(
            sort(json!({"input": "banana\nApple\ncherry", "caseSensitive": true})),
            "Apple\nbanana\ncherry"
        );
        assert_eq!(
            sort(json!({"input": "b\r\na\r\nc\r\n", "order": "desc"})),
            "c\r\nb\r\na\r\n"
        );
    }

    // The natural-order example of the classic strnatcmp documentation (Martin Pool).
    #[test]
    fn natural_and_numeric_modes() {
        assert_eq!(
            sort(json!({"input": "rfc822.txt\nrfc1.txt\nrfc2086.txt", "mode": "natural"})),
            "rfc1.txt\nrfc822.txt\nrfc2086.txt"
        );
        assert_eq!(
            sort(json!({"input": "file10\nfile2\nFile1\nfile02", "mode": "natural"})),
            "File1\nfile2\nfile02\nfile10"
        );
        assert_eq!(
            sort(json!({"input": "10 ten\nn/a\n-1.5 neg\n2 two\n1e2 hundred", "mode": "numeric"})),
            "-1.5 neg\n2 two\n10 ten\n1e2 hundred\nn/a"
        );
        assert_eq!(
            sort(json!({"input": "10\nx\n2", "mode": "numeric", "order": "desc"})),
            "10\n2\nx"
        );
    }

    #[test]
    fn length_unique_trim_and_empty() {
        assert_eq!(
            sort(json!({"input": "ccc\na\nbb\nd", "mode": "length"})),
            "a\nd\nbb\nccc"
        );
        let data = run_ok(
            "line-sorter",
            json!({"input": " b \na\n\nB\na\n", "trim": true, "unique": true, "removeEmpty": true}),
        );
        assert_eq!(data["output"], "a\nb\n");
        assert_eq!(data["lines"], 2);
        assert_eq!(data["duplicatesRemoved"], 2);
        assert_eq!(data["emptyRemoved"], 1);
    }

    #[test]
    fn line_sorter_sorts_by_last_word() {
        let sort = |input: &str, extra: serde_json::Value| {
            let mut args = json!({"input": input, "mode": "last-word"});
            if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
                a.extend(e.clone());
            }
            run_ok("line-sorter", args)["output"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(
            sort(
                "Ada Lovelace\nAlan Turing\nGrace Hopper\nedsger dijkstra\n",
                json!({})
            ),
            "edsger dijkstra\nGrace Hopper\nAda Lovelace\nAlan Turing\n"
        );
        assert_eq!(
            sort("x b\ny a\n\nz", json!({"order": "desc"})),
            "z\nx b\ny a\n"
        );
        // Python: sorted(lines, key=lambda l: (l.split()[-1:] or [''])[0].lower())
        assert_eq!(sort("b 2\r\na 10\r\nc 1", json!({})), "c 1\r\na 10\r\nb 2");
    }

    #[test]
    fn line_sorter_rejects_unknown_mode() {
        let (code, msg) = run_err("line-sorter", json!({"input": "a", "mode": "random"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("natural"), "{msg}");
    }

    fn reverse(input: &str, mode: &str) -> String {
        run_ok("text-reverser", json!({"input": input, "mode": mode}))["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // Grapheme clusters per UAX #29: the ZWJ family and e + U+0301 stay whole.
    #[test]
    fn reverses_grapheme_clusters() {
        assert_eq!(reverse("👨‍👩‍👧 e\u{301}x", "characters"), "xe\u{301} 👨‍👩‍👧");
        assert_eq!(reverse("🇫🇷🇩🇪", "characters"), "🇩🇪🇫🇷");
        assert_eq!(reverse("ab\r\ncd", "characters"), "dc\r\nba");
    }

    #[test]
    fn reverses_words_and_lines() {
        assert_eq!(
            reverse("  one two  three\nfour five", "words"),
            "  three two one\nfive four"
        );
        assert_eq!(reverse("1\n2\n3\n", "lines"), "3\n2\n1\n");
        assert_eq!(reverse("", "lines"), "");
    }

    #[test]
    fn text_reverser_rejects_unknown_mode() {
        let (code, _) = run_err("text-reverser", json!({"input": "a", "mode": "bytes"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }
}
