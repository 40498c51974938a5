//! Find and replace in text: literal or regular-expression search (regex crate), with
//! capture-group substitution, case folding, whole-word matching and first-only replacement.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use regex::{Captures, Regex, RegexBuilder};
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("find-replace", find_replace)];

fn find_replace(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let regex_mode = args.str("mode")? == "regex";
    let escapes = args.flag("escapes");
    let find = read_escapes(args.str("find")?, escapes);
    let replace = read_escapes(args.opt_str("replace").unwrap_or_default(), escapes);
    if find.is_empty() {
        return Err(ToolError::invalid(
            "'find' is empty; give the text or pattern to search for",
        ));
    }
    let pattern = if regex_mode {
        find.clone()
    } else {
        regex::escape(&find)
    };
    if regex_mode {
        crate::tools::text::pattern::check_depth("find", &pattern, false)?;
    }
    let re = RegexBuilder::new(&pattern)
        .case_insensitive(args.flag("ignoreCase"))
        .multi_line(args.flag("multiline"))
        .dot_matches_new_line(args.flag("dotAll"))
        .build()
        .map_err(|e| {
            ToolError::invalid(format!(
                "'find' is not a valid regular expression:\n{}",
                crate::tools::text::pattern::shorten(&e.to_string())
            ))
        })?;
    let (output, replacements) = substitute(
        &re,
        input,
        |caps, out| {
            if regex_mode {
                caps.expand(&replace, out);
            } else {
                out.push_str(&replace);
            }
        },
        args.flag("wholeWord"),
        args.flag("firstOnly"),
    )?;
    Ok(crate::tools::kit::data::with_output(
        output,
        json!({ "replacements": replacements }),
    ))
}

/// Replaces matches left to right. Written out (rather than `Regex::replace_all`) because a
/// whole-word match needs a check of the characters around it, which the regex crate cannot
/// express without look-around; a rejected candidate resumes the search one character later.
/// The output may not pass the output ceiling: a long replacement repeated at every match
/// multiplies the input.
fn substitute(
    re: &Regex,
    text: &str,
    mut expand: impl FnMut(&Captures, &mut String),
    whole_word: bool,
    first_only: bool,
) -> Result<(String, usize), ToolError> {
    let ceiling = crate::tools::kit::budget::output_ceiling();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut pos = 0;
    let mut count = 0;
    let mut previous_end = None;
    while pos <= text.len() {
        let Some(caps) = re.captures_at(text, pos) else {
            break;
        };
        let Some(m) = caps.get(0) else { break };
        // Like the regex crate's own iterators: no empty match right where the last match ended.
        let empty_after_match = m.is_empty() && previous_end == Some(m.start());
        if empty_after_match || (whole_word && !is_whole_word(text, m.start(), m.end())) {
            match next_boundary(text, m.start()) {
                Some(next) => pos = next,
                None => break,
            }
            continue;
        }
        out.push_str(&text[copied..m.start()]);
        expand(&caps, &mut out);
        if out.len() > ceiling {
            return Err(crate::tools::kit::budget::output_too_large(
                "the text after replacement",
                "the replacement is repeated at every match: use a shorter replacement, or firstOnly",
            ));
        }
        copied = m.end();
        previous_end = Some(m.end());
        count += 1;
        if first_only {
            break;
        }
        pos = if m.is_empty() {
            match next_boundary(text, m.end()) {
                Some(next) => next,
                None => break,
            }
        } else {
            m.end()
        };
    }
    out.push_str(&text[copied..]);
    Ok((out, count))
}

/// The byte index of the character after the one starting at `i`, if any.
fn next_boundary(text: &str, i: usize) -> Option<usize> {
    text[i..].chars().next().map(|c| i + c.len_utf8())
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether the match is not glued to a word character on either side.
fn is_whole_word(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
}

/// Reads `\n`, `\r`, `\t`, `\0`, `\\`, `\xHH` and `\u{H…}` when escapes are on (a newline or tab
/// is awkward to type into a one-line field). Unknown escapes stay as written.
pub(super) fn read_escapes(text: &str, on: bool) -> String {
    if !on {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let (decoded, used) = match tail.chars().next() {
            Some('n') => (Some('\n'), 1),
            Some('r') => (Some('\r'), 1),
            Some('t') => (Some('\t'), 1),
            Some('0') => (Some('\0'), 1),
            Some('\\') => (Some('\\'), 1),
            Some('x') => (
                tail.get(1..3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .filter(u8::is_ascii)
                    .map(char::from),
                3,
            ),
            Some('u') if tail[1..].starts_with('{') => match tail.find('}') {
                Some(close) => (
                    u32::from_str_radix(&tail[2..close], 16)
                        .ok()
                        .and_then(char::from_u32),
                    close + 1,
                ),
                None => (None, 0),
            },
            _ => (None, 0),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &tail[used..];
            }
            None => {
                out.push('\\');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn replace(args: Value) -> (String, u64) {
        let data = run_ok("find-replace", args);
        (
            data["output"].as_str().unwrap().to_string(),
            data["replacements"].as_u64().unwrap(),
        )
    }

    #[test]
    fn literal_replacement_treats_pattern_characters_literally() {
        assert_eq!(
            replace(json!({"input": "a.b.c", "find": ".", "replace": "-"})),
            ("a-b-c".into(), 2)
        );
        // '$1' is literal text in literal mode.
        assert_eq!(
            replace(json!({"input": "price: 5", "find": "5", "replace": "$1"})),
            ("price: $1".into(), 1)
        );
        assert_eq!(
            replace(
                json!({"input": "Hello hello HELLO", "find": "hello", "replace": "bye", "ignoreCase": true, "firstOnly": true})
            ),
            ("bye hello HELLO".into(), 1)
        );
    }

    // Capture-group syntax from the regex crate's `Captures::expand` documentation.
    #[test]
    fn regex_capture_groups_numbered_and_named() {
        assert_eq!(
            replace(json!({
                "input": "Springsteen, Bruce\nSmith, Patti",
                "find": r"(?<last>[^,\s]+),\s+(\S+)",
                "replace": "$2 ${last}",
                "mode": "regex"
            })),
            ("Bruce Springsteen\nPatti Smith".into(), 2)
        );
        assert_eq!(
            replace(
                json!({"input": "2024-01-15", "find": r"(\d+)-(\d+)-(\d+)", "replace": "${3}.${2}.$1", "mode": "regex"})
            ),
            ("15.01.2024".into(), 1)
        );
        // `$$` is a literal dollar sign.
        assert_eq!(
            replace(
                json!({"input": "5 USD", "find": r"(\d+) USD", "replace": "$$$1", "mode": "regex"})
            ),
            ("$5".into(), 1)
        );
    }

    #[test]
    fn whole_word_multiline_and_empty_matches() {
        assert_eq!(
            replace(
                json!({"input": "cat concat cat_x cat.", "find": "cat", "replace": "dog", "wholeWord": true})
            ),
            ("dog concat cat_x dog.".into(), 2)
        );
        assert_eq!(
            replace(
                json!({"input": "a\nb", "find": "^", "replace": "> ", "mode": "regex", "multiline": true})
            ),
            ("> a\n> b".into(), 2)
        );
        assert_eq!(
            replace(
                json!({"input": "<a\nb>", "find": "<.*>", "replace": "X", "mode": "regex", "dotAll": true})
            ),
            ("X".into(), 1)
        );
        // Same result as `Regex::replace_all`: "-b-c-".
        assert_eq!(
            replace(json!({"input": "baaac", "find": "a*", "replace": "-", "mode": "regex"})),
            ("-b-c-".into(), 3)
        );
        assert_eq!(
            replace(json!({"input": "a b", "find": " ", "replace": "\\n", "escapes": true})),
            ("a\nb".into(), 1)
        );
    }

    #[test]
    fn empty_replacement_deletes() {
        assert_eq!(
            replace(json!({"input": "one, two, three", "find": ", "})),
            ("onetwothree".into(), 2)
        );
    }

    #[test]
    fn invalid_regex_and_empty_find_are_errors() {
        let (code, msg) = run_err(
            "find-replace",
            json!({"input": "x", "find": "(unclosed", "mode": "regex"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unclosed group"), "{msg}");
        let (code, msg) = run_err("find-replace", json!({"input": "x", "find": ""}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'find' is empty"), "{msg}");
    }

    #[test]
    fn group_nesting_is_limited_with_one_message() {
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("(", "", ")", 1_000_000);
        let args = json!({"input": "a", "find": deep, "replace": "b", "mode": "regex"});
        assert_too_deep("find-replace", args, "find", 250);
        // Literal mode escapes the pattern: parentheses are text there.
        let (out, n) = replace(json!({"input": "((a))", "find": "((", "replace": "[["}));
        assert_eq!((out.as_str(), n), ("[[a))", 1));
        let ok = nest("(", "a", ")", 250);
        assert_eq!(
            replace(json!({"input": "a", "find": ok, "replace": "b", "mode": "regex"})).0,
            "b"
        );
    }
}
