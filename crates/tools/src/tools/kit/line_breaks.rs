//! The catalogue's one line-break rule: LF, CRLF and a lone CR each end a line, as
//! line-ending-converter counts them. Every line-based tool splits and re-joins through here.
//!
//! `str::lines` splits on LF only (dropping a CR before it), so a file from classic Mac OS or a
//! terminal capture with bare CRs would be one line to some tools and many to others.

/// The lines of `text` without their endings. A final line ending does not start an empty
/// last line (as `str::lines`), and an empty text has no lines.
pub(crate) fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

pub(crate) struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match self.rest.find(['\n', '\r']) {
            Some(i) => {
                let line = &self.rest[..i];
                let width = if self.rest[i..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                self.rest = &self.rest[i + width..];
                Some(line)
            }
            None => Some(std::mem::take(&mut self.rest)),
        }
    }
}

/// Each line with its ending (`""` for an unterminated last line), for tools that rewrite
/// lines in place and must keep every ending as it was.
pub(crate) fn lines_with_endings(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['\n', '\r']) {
            Some(i) => {
                let width = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                out.push((&rest[..i], &rest[i..i + width]));
                rest = &rest[i + width..];
            }
            None => {
                out.push((rest, ""));
                rest = "";
            }
        }
    }
    out
}

/// The first line ending in `text` (LF when there is none), for joining lines a tool
/// produces in the style of its input.
pub(crate) fn first_ending(text: &str) -> &'static str {
    match text.find(['\n', '\r']) {
        Some(i) if text[i..].starts_with("\r\n") => "\r\n",
        Some(i) if text[i..].starts_with('\r') => "\r",
        _ => "\n",
    }
}

/// Whether `text` ends with a line ending.
pub(crate) fn ends_with_break(text: &str) -> bool {
    text.ends_with(['\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::kit::testing::run_ok;
    use serde_json::{Value, json};

    #[test]
    fn every_ending_splits() {
        fn all(s: &str) -> Vec<&str> {
            lines(s).collect()
        }
        assert_eq!(all("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(all("a\r\r\nb\n"), ["a", "", "b"]);
        assert_eq!(all(""), Vec::<&str>::new());
        assert_eq!(all("\n"), [""]);
        assert_eq!(all("x"), ["x"]);
        assert_eq!(
            lines_with_endings("a\r\nb\rc"),
            [("a", "\r\n"), ("b", "\r"), ("c", "")]
        );
        assert_eq!(first_ending("a\rb\nc"), "\r");
        assert_eq!(first_ending("abc"), "\n");
    }

    /// How many lines line-ending-converter sees: its endings, plus an unterminated tail.
    fn reference_count(text: &str) -> usize {
        let data = run_ok(
            "line-ending-converter",
            json!({"input": text, "target": "lf"}),
        );
        let c = &data["counts"];
        let endings = [&c["lf"], &c["crlf"], &c["cr"]]
            .iter()
            .map(|v| v.as_u64().unwrap_or(0) as usize)
            .sum::<usize>();
        endings + usize::from(!text.is_empty() && !ends_with_break(text))
    }

    fn output_lines(data: &Value) -> usize {
        lines(data["output"].as_str().unwrap_or_default()).count()
    }

    type Probe = (&'static str, fn(&str) -> Value, fn(&Value) -> usize);

    /// Every line-based tool, with how to ask it and how to read its line count back.
    const PROBES: &[Probe] = &[
        (
            "text-statistics",
            |t| json!({"input": t}),
            |d| d["lines"].as_u64().unwrap_or(0) as usize,
        ),
        ("line-sorter", |t| json!({"input": t}), output_lines),
        (
            "text-reverser",
            |t| json!({"input": t, "mode": "lines"}),
            output_lines,
        ),
        (
            "line-deduplicator",
            |t| json!({"input": t, "emptyLines": "keep"}),
            |d| d["linesIn"].as_u64().unwrap_or(0) as usize,
        ),
        ("line-numberer", |t| json!({"input": t}), output_lines),
        (
            "case-converter",
            |t| json!({"input": t, "target": "camel"}),
            output_lines,
        ),
        (
            "list-comparer",
            |t| json!({"listA": t, "listB": "x"}),
            |d| d["counts"]["a"].as_u64().unwrap_or(0) as usize,
        ),
        (
            "list-converter",
            |t| json!({"input": t, "separator": "newline"}),
            |d| d["count"].as_u64().unwrap_or(0) as usize,
        ),
        ("punycode-converter", |t| json!({"input": t}), output_lines),
    ];

    #[test]
    fn every_line_based_tool_counts_lines_as_line_ending_converter_does() {
        let inputs = [
            "alpha\rbeta\rgamma",
            "alpha\nbeta\ngamma\n",
            "alpha\r\nbeta\r\ngamma",
            "alpha\nbeta\r\ngamma\rdelta\n",
            "one",
        ];
        for text in inputs {
            let expected = reference_count(text);
            for (tool, args, count) in PROBES {
                let data = run_ok(tool, args(text));
                assert_eq!(
                    count(&data),
                    expected,
                    "{tool} on {text:?} disagrees with line-ending-converter: {data}"
                );
            }
        }
    }
}
