//! Regular expression testing: matches with offsets and groups, and replacement, on the
//! linear-time `regex` engine or, on request, the backtracking `fancy-regex` engine.

use super::ToolFn;
use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use serde_json::{Map, Value, json};

pub const TOOLS: &[(&str, ToolFn)] = &[("regex-tester", regex_tester)];

/// Matches listed in the result; more are counted but not listed.
const MAX_LISTED: usize = 1000;
/// Compiled program size limit for both engines (the regex crate's default is 10 MiB too, set
/// explicitly so a change upstream cannot raise it).
const SIZE_LIMIT: usize = 10 << 20;
/// Backtracking steps fancy-regex may take per search before giving up.
const BACKTRACK_LIMIT: usize = 1_000_000;

enum Engine {
    Linear(regex::Regex),
    Fancy(fancy_regex::Regex),
}

struct Flags {
    case_insensitive: bool,
    multi_line: bool,
    dot_all: bool,
    extended: bool,
    global: bool,
}

impl Flags {
    fn from_args(args: &Args) -> Self {
        let letters = args.opt_str("flags");
        let has = |name: &str, letter: char| {
            args.flag(name) || letters.is_some_and(|f| f.contains(letter))
        };
        // `global` defaults to all matches unless a flags string without 'g' was given (as in
        // JavaScript, /a/i finds the first match only).
        let global = match args.get("global").and_then(Value::as_bool) {
            Some(g) => g,
            None => letters.is_none_or(|f| f.contains('g')),
        };
        Flags {
            case_insensitive: has("caseInsensitive", 'i'),
            multi_line: has("multiLine", 'm'),
            dot_all: has("dotAll", 's'),
            extended: has("extended", 'x'),
            global,
        }
    }

    fn letters(&self) -> String {
        [
            (self.global, 'g'),
            (self.case_insensitive, 'i'),
            (self.multi_line, 'm'),
            (self.dot_all, 's'),
            (self.extended, 'x'),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, c)| *c)
        .collect()
    }
}

fn compile(pattern: &str, engine: &str, f: &Flags) -> Result<Engine, ToolError> {
    if engine == "fancy" {
        return fancy_regex::RegexBuilder::new(pattern)
            .case_insensitive(f.case_insensitive)
            .multi_line(f.multi_line)
            .dot_matches_new_line(f.dot_all)
            .ignore_whitespace(f.extended)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(SIZE_LIMIT)
            .build()
            .map(Engine::Fancy)
            .map_err(|e| ToolError::invalid(format!("invalid regular expression: {e}")));
    }
    regex::RegexBuilder::new(pattern)
        .case_insensitive(f.case_insensitive)
        .multi_line(f.multi_line)
        .dot_matches_new_line(f.dot_all)
        .ignore_whitespace(f.extended)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map(Engine::Linear)
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(limit) => ToolError::invalid(format!(
                "the pattern compiles to more than {limit} bytes; reduce large counted \
                 repetitions (e.g. \\w{{1000}}) or Unicode classes"
            )),
            regex::Error::Syntax(msg)
                if msg.contains("look-around") || msg.contains("backreferences") =>
            {
                ToolError::invalid(format!(
                    "the linear-time regex engine does not support look-around or \
                     backreferences, which guarantees matching in linear time; set engine to \
                     'fancy' for a backtracking engine that supports them.\n{msg}"
                ))
            }
            other => ToolError::invalid(format!("invalid regular expression: {other}")),
        })
}

/// One match: byte spans of the whole match (index 0) and of each group.
type Spans = Vec<Option<(usize, usize)>>;

fn regex_tester(args: &Args) -> ToolOutcome {
    let pattern = args.str("pattern")?;
    let text = args.str("text")?;
    let engine_name = args.str("engine")?;
    let flags = Flags::from_args(args);
    let engine = compile(pattern, engine_name, &flags)?;
    let limit = if flags.global { usize::MAX } else { 1 };

    let mut found: Vec<Spans> = Vec::new();
    let mut count = 0usize;
    let names: Vec<Option<String>> = match &engine {
        Engine::Linear(re) => {
            for caps in re.captures_iter(text).take(limit) {
                count += 1;
                if found.len() < MAX_LISTED {
                    found.push(
                        caps.iter()
                            .map(|m| m.map(|m| (m.start(), m.end())))
                            .collect(),
                    );
                }
            }
            re.capture_names().map(|n| n.map(str::to_string)).collect()
        }
        Engine::Fancy(re) => {
            for caps in re.captures_iter(text).take(limit) {
                let caps = caps.map_err(runtime_error)?;
                count += 1;
                if found.len() < MAX_LISTED {
                    found.push(
                        (0..caps.len())
                            .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
                            .collect(),
                    );
                }
            }
            re.capture_names().map(|n| n.map(str::to_string)).collect()
        }
    };

    let mut chars_before = 0;
    let mut last_byte = 0;
    let mut matches = Vec::with_capacity(found.len());
    for spans in &found {
        let Some((start, end)) = spans.first().copied().flatten() else {
            continue;
        };
        // Matches come in order, so char offsets are counted incrementally.
        chars_before += text[last_byte..start].chars().count();
        last_byte = start;
        let char_start = chars_before;
        let char_end = char_start + text[start..end].chars().count();
        let group_text = |i: usize| {
            spans
                .get(i)
                .copied()
                .flatten()
                .map_or(Value::Null, |(s, e)| Value::String(text[s..e].to_string()))
        };
        let groups: Vec<Value> = (1..spans.len()).map(group_text).collect();
        let named: Map<String, Value> = names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.as_ref().map(|n| (n.clone(), group_text(i))))
            .collect();
        matches.push(json!({
            "match": &text[start..end],
            "start": start,
            "end": end,
            "charStart": char_start,
            "charEnd": char_end,
            "groups": groups,
            "namedGroups": named,
        }));
    }

    let mut data = json!({
        "matched": count > 0,
        "count": count,
        "matches": matches,
        "truncated": count > MAX_LISTED,
        "flags": flags.letters(),
        "engine": engine_name,
    });
    if count > MAX_LISTED {
        data["note"] = json!(format!(
            "only the first {MAX_LISTED} of {count} matches are listed"
        ));
    }
    if let Some(replacement) = args.opt_str("replacement") {
        let n = if flags.global { 0 } else { 1 };
        let replaced = match &engine {
            Engine::Linear(re) => re.replacen(text, n, replacement).into_owned(),
            Engine::Fancy(re) => re
                .try_replacen(text, n, replacement)
                .map_err(runtime_error)?
                .into_owned(),
        };
        data["output"] = json!(replaced);
    }
    Ok(data)
}

fn runtime_error(e: fancy_regex::Error) -> ToolError {
    ToolError::invalid(format!(
        "the backtracking engine gave up: {e} (limit {BACKTRACK_LIMIT} steps); the pattern \
         likely has nested quantifiers such as (a+)+ — simplify it or use engine 'regex'"
    ))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::testing::{run_err, run_ok};
    use serde_json::json;

    // The date example from the regex crate's documentation.
    #[test]
    fn matches_with_groups_and_offsets() {
        let d = run_ok(
            "regex-tester",
            json!({
                "pattern": r"(?<y>\d{4})-(?<m>\d{2})-(?<d>\d{2})",
                "text": "What do 1865-04-14, 1881-07-02, 1901-09-06 and 1963-11-22 have in common?"
            }),
        );
        assert_eq!(d["matched"], true);
        assert_eq!(d["count"], 4);
        let first = &d["matches"][0];
        assert_eq!(first["match"], "1865-04-14");
        assert_eq!(first["start"], 8);
        assert_eq!(first["end"], 18);
        assert_eq!(first["groups"], json!(["1865", "04", "14"]));
        assert_eq!(
            first["namedGroups"],
            json!({"y": "1865", "m": "04", "d": "14"})
        );
        assert_eq!(d["flags"], "g");
    }

    #[test]
    fn flags_string_char_offsets_and_replacement() {
        let d = run_ok(
            "regex-tester",
            json!({"pattern": "é(x)?", "text": "ÉTÉ été", "flags": "i"}),
        );
        // No 'g' in the flags string: first match only.
        assert_eq!(d["count"], 1);
        assert_eq!(d["matches"][0]["start"], 0);
        assert_eq!(d["matches"][0]["groups"], json!([null]));
        let all = run_ok(
            "regex-tester",
            json!({"pattern": "é", "text": "ÉTÉ été", "flags": "gi"}),
        );
        assert_eq!(all["count"], 4);
        assert_eq!(all["matches"][1]["start"], 3);
        assert_eq!(all["matches"][1]["charStart"], 2);
        assert_eq!(all["matches"][3]["charEnd"], 7);
        // Replacement syntax of Regex::replace ($2, ${name}).
        let r = run_ok(
            "regex-tester",
            json!({"pattern": r"(?<last>[^,\s]+),\s+(\S+)", "text": "Springsteen, Bruce", "replacement": "$2 ${last}"}),
        );
        assert_eq!(r["output"], "Bruce Springsteen");
    }

    #[test]
    fn lookaround_needs_the_fancy_engine() {
        let (code, msg) = run_err(
            "regex-tester",
            json!({"pattern": r"foo(?=bar)", "text": "foobar"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("linear-time") && msg.contains("fancy"),
            "{msg}"
        );
        let d = run_ok(
            "regex-tester",
            json!({"pattern": r"(\w)\1|foo(?=bar)", "text": "foobar book", "engine": "fancy"}),
        );
        let found: Vec<&str> = d["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["match"].as_str().unwrap())
            .collect();
        assert_eq!(found, ["foo", "oo"]);
    }

    #[test]
    fn invalid_pattern_and_limits() {
        let (code, msg) = run_err("regex-tester", json!({"pattern": "a(b", "text": "ab"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("unclosed group"), "{msg}");
        let (code, msg) = run_err(
            "regex-tester",
            json!({"pattern": r"(?:\w{100}){100}", "text": "a"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("compiles to more than"), "{msg}");
        let many = run_ok(
            "regex-tester",
            json!({"pattern": "a", "text": "a".repeat(1500)}),
        );
        assert_eq!(many["count"], 1500);
        assert_eq!(many["matches"].as_array().unwrap().len(), 1000);
        assert_eq!(many["truncated"], true);
        let (code, _) = run_err(
            "regex-tester",
            json!({"pattern": "a", "text": "a", "flags": "gq"}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }
}
