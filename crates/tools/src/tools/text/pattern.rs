//! Regular expression testing: matches with offsets and groups, and replacement, on the
//! linear-time `regex` engine or, on request, the backtracking `fancy-regex` engine.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("regex-tester", regex_tester)];

/// Matches listed in the result; more are counted but not listed.
const MAX_LISTED: usize = 1000;
/// Compiled program size limit for both engines (the regex crate's default is 10 MiB too, set
/// explicitly so a change upstream cannot raise it).
const SIZE_LIMIT: usize = 10 << 20;
/// Backtracking steps fancy-regex may take per search before giving up.
const BACKTRACK_LIMIT: usize = 1_000_000;
/// Time the backtracking engine may take over all the searches of one call: the step limit
/// above bounds one search, and a long text can hold millions of them.
const FANCY_TIME: Duration = Duration::from_secs(10);
/// Group nesting the linear engine accepts: regex-syntax's own limit (it counts groups,
/// repetitions and classes).
const REGEX_DEPTH: usize = 250;
/// Group nesting the backtracking engine accepts: fancy-regex's own limit.
const FANCY_DEPTH: usize = 64;

/// Refuses a pattern whose groups nest deeper than its engine parses, before the engine's
/// parser sees it (its error would quote the whole pattern). Escapes and character classes
/// (`[(]`, `[a[b]]`) are skipped.
pub(crate) fn check_depth(what: &str, pattern: &str, fancy: bool) -> Result<(), ToolError> {
    let limit = if fancy { FANCY_DEPTH } else { REGEX_DEPTH };
    let bytes = pattern.as_bytes();
    let (mut level, mut class) = (0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => class += 1,
            b']' if class > 0 => class -= 1,
            b'(' if class == 0 => {
                level += 1;
                if level > limit {
                    return Err(depth::too_deep(what, limit, depth::place(pattern, i)));
                }
            }
            b')' if class == 0 => level = level.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// An engine's error message, which quotes the pattern, cut short for a long pattern.
pub(crate) fn shorten(message: &str) -> String {
    const MAX: usize = 4000;
    if message.len() <= MAX {
        return message.to_string();
    }
    format!(
        "{} … (message cut short)",
        crate::text::preview(message, MAX)
    )
}

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
    check_depth("pattern", pattern, engine == "fancy")?;
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
            .map_err(|e| {
                ToolError::invalid(format!(
                    "invalid regular expression: {}",
                    shorten(&e.to_string())
                ))
            });
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
            other => ToolError::invalid(format!(
                "invalid regular expression: {}",
                shorten(&other.to_string())
            )),
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
            let started = Instant::now();
            for caps in re.captures_iter(text).take(limit) {
                let caps = caps.map_err(runtime_error)?;
                out_of_time(started, count)?;
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
        let replaced = replace(&engine, text, replacement, limit)?;
        data["output"] = Value::String(replaced);
    }
    Ok(data)
}

/// The text with the first `limit` matches replaced, `$1`/`${name}` expanded as the engines'
/// own `replacen` does, within the output ceiling (the replacement repeats at every match)
/// and, for the backtracking engine, within [`FANCY_TIME`].
fn replace(
    engine: &Engine,
    text: &str,
    replacement: &str,
    limit: usize,
) -> Result<String, ToolError> {
    let ceiling = crate::tools::kit::budget::output_ceiling();
    let too_large = || {
        crate::tools::kit::budget::output_too_large(
            "the text after replacement",
            "the replacement is repeated at every match: use a shorter one, or drop the g flag",
        )
    };
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    match engine {
        Engine::Linear(re) => {
            for caps in re.captures_iter(text).take(limit) {
                let Some(m) = caps.get(0) else { continue };
                out.push_str(&text[copied..m.start()]);
                caps.expand(replacement, &mut out);
                copied = m.end();
                if out.len() > ceiling {
                    return Err(too_large());
                }
            }
        }
        Engine::Fancy(re) => {
            let started = Instant::now();
            for (n, caps) in re.captures_iter(text).take(limit).enumerate() {
                let caps = caps.map_err(runtime_error)?;
                out_of_time(started, n)?;
                let Some(m) = caps.get(0) else { continue };
                out.push_str(&text[copied..m.start()]);
                caps.expand(replacement, &mut out);
                copied = m.end();
                if out.len() > ceiling {
                    return Err(too_large());
                }
            }
        }
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

/// The backtracking engine's time budget for one call, checked between searches.
fn out_of_time(started: Instant, searches: usize) -> Result<(), ToolError> {
    if started.elapsed() <= FANCY_TIME {
        return Ok(());
    }
    Err(ToolError::invalid(format!(
        "the backtracking engine used up its {} seconds after {searches} matches (each search may take {BACKTRACK_LIMIT} steps, and the text holds many); use engine 'regex', a shorter text, or drop the g flag",
        FANCY_TIME.as_secs()
    )))
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
    use crate::tools::kit::testing::{run_err, run_ok};
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

    #[test]
    fn group_nesting_is_limited_with_one_message() {
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("(", "", ")", 1_000_000);
        assert_too_deep(
            "regex-tester",
            json!({"pattern": deep, "text": "a"}),
            "pattern",
            super::REGEX_DEPTH,
        );
        let args = json!({"pattern": deep, "text": "a", "engine": "fancy"});
        assert_too_deep("regex-tester", args, "pattern", super::FANCY_DEPTH);
        // Brackets inside classes and escapes are not groups.
        let d = run_ok(
            "regex-tester",
            json!({"pattern": format!("[(]{}", r"\(".repeat(300)), "text": "x"}),
        );
        assert_eq!(d["matched"], false);
        // Just under: 250 groups for the linear engine, 64 for the backtracking one.
        let ok = nest("(?:", "a", ")", super::REGEX_DEPTH);
        assert_eq!(
            run_ok("regex-tester", json!({"pattern": ok, "text": "a"}))["count"],
            1
        );
        let ok = nest("(?:", "a", ")", super::FANCY_DEPTH - 1);
        let d = run_ok(
            "regex-tester",
            json!({"pattern": ok, "text": "a", "engine": "fancy"}),
        );
        assert_eq!(d["count"], 1);
    }
}
