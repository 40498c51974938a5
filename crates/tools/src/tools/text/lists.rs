//! List and line editors: comparing two lists, removing duplicate lines, reshaping a list
//! (split, clean, quote, join) and converting line endings.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::cmp::Ordering;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("list-comparer", list_comparer),
    Tool::new("line-deduplicator", line_deduplicator),
    Tool::new("list-converter", list_converter),
    Tool::new("line-ending-converter", line_ending_converter),
];

/// The separator chosen by a `separator` select, or the `custom…` parameter's text with
/// `\n`, `\t`, `\r` and `\\` escapes read, since a literal tab or newline is awkward to type.
fn separator(args: &Args, select: &str, custom: &str) -> Result<String, ToolError> {
    Ok(match args.str(select)? {
        "newline" => "\n".into(),
        "comma" => ",".into(),
        "commaSpace" => ", ".into(),
        "semicolon" => ";".into(),
        "tab" => "\t".into(),
        "space" => " ".into(),
        "pipe" => "|".into(),
        "none" => String::new(),
        _ => {
            let text = args.opt_str(custom).unwrap_or_default();
            if text.is_empty() && select != "joinWith" {
                return Err(ToolError::invalid(format!(
                    "'{select}' is 'custom' but '{custom}' is empty; give the separator text (\\n and \\t are understood)"
                )));
            }
            unescape(text)
        }
    })
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Splits on `sep`; a newline separator also accepts CRLF, and one trailing separator (the
/// final newline of a file) does not make an extra empty item.
fn split_items<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    if text.is_empty() {
        return Vec::new();
    }
    if sep == "\n" {
        return line_breaks::lines(text).collect();
    }
    let body = text.strip_suffix(sep).unwrap_or(text);
    body.split(sep).collect()
}

/// The comparison key of an item under the case and whitespace options.
fn key(item: &str, ignore_case: bool, trim: bool) -> String {
    let item = if trim { item.trim() } else { item };
    if ignore_case {
        item.to_lowercase()
    } else {
        item.to_string()
    }
}

/// A list's distinct items by key, each with its first spelling, in order of first appearance.
fn distinct(
    text: &str,
    sep: &str,
    ignore_case: bool,
    trim: bool,
    ignore_empty: bool,
) -> (IndexMap<String, String>, usize) {
    let mut items = IndexMap::new();
    let mut total = 0;
    for raw in split_items(text, sep) {
        let shown = if trim { raw.trim() } else { raw };
        if ignore_empty && shown.trim().is_empty() {
            continue;
        }
        total += 1;
        items
            .entry(key(raw, ignore_case, trim))
            .or_insert_with(|| shown.to_string());
    }
    (items, total)
}

fn list_comparer(args: &Args) -> ToolOutcome {
    let sep = separator(args, "separator", "customSeparator")?;
    let ignore_case = args.flag("ignoreCase");
    let trim = args.flag("trim");
    let ignore_empty = args.flag("ignoreEmpty");
    let (a, a_total) = distinct(args.str("listA")?, &sep, ignore_case, trim, ignore_empty);
    let (b, b_total) = distinct(args.str("listB")?, &sep, ignore_case, trim, ignore_empty);

    let pick = |from: &IndexMap<String, String>, keep: &dyn Fn(&String) -> bool| -> Vec<String> {
        from.iter()
            .filter(|(k, _)| keep(k))
            .map(|(_, v)| v.clone())
            .collect()
    };
    let intersection = pick(&a, &|k| b.contains_key(k));
    let only_a = pick(&a, &|k| !b.contains_key(k));
    let only_b = pick(&b, &|k| !a.contains_key(k));
    let mut union: Vec<String> = a.values().cloned().collect();
    union.extend(only_b.iter().cloned());
    let mut symmetric = only_a.clone();
    symmetric.extend(only_b.iter().cloned());

    Ok(json!({
        "union": union,
        "intersection": intersection,
        "onlyInA": only_a,
        "onlyInB": only_b,
        "symmetricDifference": symmetric,
        "identical": only_a.is_empty() && only_b.is_empty(),
        "counts": {
            "a": a_total,
            "b": b_total,
            "distinctA": a.len(),
            "distinctB": b.len(),
            "union": union.len(),
            "intersection": intersection.len(),
            "onlyInA": only_a.len(),
            "onlyInB": only_b.len(),
            "symmetricDifference": symmetric.len(),
        },
    }))
}

/// A text's line ending (the first one found, LF if none) and whether it ends with one.
fn line_style(text: &str) -> (&'static str, bool) {
    (
        line_breaks::first_ending(text),
        line_breaks::ends_with_break(text),
    )
}

fn line_deduplicator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let keep_last = args.str("keep")? == "last";
    let ignore_case = args.flag("ignoreCase");
    let trim = args.flag("trim");
    let empty = args.str("emptyLines")?;
    let (eol, trailing) = line_style(input);
    let lines: Vec<&str> = line_breaks::lines(input).collect();

    // Per key: how often it occurs and the index of the occurrence that is kept.
    let mut seen: IndexMap<String, (usize, usize)> = IndexMap::new();
    let mut empty_removed = 0;
    for (i, line) in lines.iter().enumerate() {
        let blank = line.trim().is_empty();
        if blank && empty != "dedupe" {
            empty_removed += usize::from(empty == "remove");
            continue;
        }
        let entry = seen.entry(key(line, ignore_case, trim)).or_insert((0, i));
        entry.0 += 1;
        if keep_last {
            entry.1 = i;
        }
    }
    let kept: std::collections::HashSet<usize> = seen.values().map(|(_, i)| *i).collect();
    let out_lines: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, line)| {
            let blank = line.trim().is_empty();
            (blank && empty == "keep") || kept.contains(i)
        })
        .map(|(_, line)| if trim { line.trim() } else { *line })
        .collect();
    let duplicates: Vec<Value> = seen
        .values()
        .filter(|(count, _)| *count > 1)
        .map(|(count, i)| {
            let line = lines.get(*i).copied().unwrap_or_default();
            json!({ "line": if trim { line.trim() } else { line }, "count": count })
        })
        .collect();
    let mut output = out_lines.join(eol);
    if trailing && !out_lines.is_empty() {
        output.push_str(eol);
    }
    Ok(json!({
        "output": output,
        "linesIn": lines.len(),
        "linesOut": out_lines.len(),
        "duplicatesRemoved": lines.len() - out_lines.len() - empty_removed,
        "emptyRemoved": empty_removed,
        "duplicates": duplicates,
    }))
}

/// Quotes an item; `sql` doubles embedded single quotes and `json` writes a JSON string, so
/// those two always give valid literals.
fn quote(item: &str, style: &str) -> String {
    match style {
        "single" => format!("'{item}'"),
        "double" => format!("\"{item}\""),
        "backtick" => format!("`{item}`"),
        "sql" => format!("'{}'", item.replace('\'', "''")),
        "json" => Value::from(item).to_string(),
        _ => item.to_string(),
    }
}

fn list_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let sep = separator(args, "separator", "customSeparator")?;
    let join = separator(args, "joinWith", "customJoin")?;
    let trim = args.flag("trim");
    let mut items: Vec<String> = split_items(input, &sep)
        .into_iter()
        .map(|s| if trim { s.trim() } else { s }.to_string())
        .collect();

    let before = items.len();
    if args.flag("removeEmpty") {
        items.retain(|s| !s.trim().is_empty());
    }
    let empty_removed = before - items.len();

    match args.str("caseChange")? {
        "lower" => items.iter_mut().for_each(|s| *s = s.to_lowercase()),
        "upper" => items.iter_mut().for_each(|s| *s = s.to_uppercase()),
        _ => {}
    }

    let before = items.len();
    if args.flag("unique") {
        let mut seen = std::collections::HashSet::new();
        items.retain(|s| seen.insert(s.clone()));
    }
    let duplicates_removed = before - items.len();

    // Case-insensitive first so 'apple' and 'Apple' sit together, then by code point.
    let order = |a: &String, b: &String| -> Ordering {
        a.to_lowercase()
            .cmp(&b.to_lowercase())
            .then_with(|| a.cmp(b))
    };
    match args.str("sort")? {
        "asc" => items.sort_by(order),
        "desc" => items.sort_by(|a, b| order(b, a)),
        _ => {}
    }
    if args.flag("reverse") {
        items.reverse();
    }

    let style = args.str("quote")?;
    let prefix = unescape(args.opt_str("itemPrefix").unwrap_or_default());
    let suffix = unescape(args.opt_str("itemSuffix").unwrap_or_default());
    let rendered: Vec<String> = items
        .iter()
        .map(|s| format!("{prefix}{}{suffix}", quote(s, style)))
        .collect();
    let output = format!(
        "{}{}{}",
        unescape(args.opt_str("listPrefix").unwrap_or_default()),
        rendered.join(&join),
        unescape(args.opt_str("listSuffix").unwrap_or_default())
    );
    Ok(json!({
        "output": output,
        "count": items.len(),
        "duplicatesRemoved": duplicates_removed,
        "emptyRemoved": empty_removed,
    }))
}

/// Counts of each line ending in `bytes`, a CRLF counting once (not as a CR and an LF).
fn count_endings(bytes: &[u8]) -> (usize, usize, usize) {
    let (mut lf, mut crlf, mut cr) = (0, 0, 0);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                crlf += 1;
                i += 1;
            }
            b'\r' => cr += 1,
            b'\n' => lf += 1,
            _ => {}
        }
        i += 1;
    }
    (lf, crlf, cr)
}

/// Replaces every line ending (LF, CRLF or a lone CR) with `eol`. Works on bytes: the three
/// endings are ASCII, so any ASCII-compatible encoding passes through untouched.
fn convert_endings(bytes: &[u8], eol: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' => {
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                out.extend_from_slice(eol);
            }
            b'\n' => out.extend_from_slice(eol),
            b => out.push(b),
        }
        i += 1;
    }
    out
}

fn ends_with_eol(bytes: &[u8]) -> bool {
    matches!(bytes.last(), Some(b'\n' | b'\r'))
}

fn line_ending_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let base64_io = args.str("inputEncoding")? == "base64";
    let bytes = if base64_io {
        decode_base64_param("input", input)?
    } else {
        input.as_bytes().to_vec()
    };
    let target = args.str("target")?;
    let eol: &[u8] = match target {
        "crlf" => b"\r\n",
        "cr" => b"\r",
        _ => b"\n",
    };
    let (lf, crlf, cr) = count_endings(&bytes);
    let detected = match (lf > 0, crlf > 0, cr > 0) {
        (false, false, false) => "none",
        (true, false, false) => "lf",
        (false, true, false) => "crlf",
        (false, false, true) => "cr",
        _ => "mixed",
    };
    let mut out = convert_endings(&bytes, eol);
    match args.str("finalNewline")? {
        "add" if !out.is_empty() && !ends_with_eol(&out) => out.extend_from_slice(eol),
        "remove" => {
            while ends_with_eol(&out) {
                out.truncate(out.len() - eol.len());
            }
        }
        _ => {}
    }
    let changed = out != bytes;
    let output = if base64_io {
        STANDARD.encode(&out)
    } else {
        // Only ASCII line-ending bytes changed, so valid UTF-8 in means valid UTF-8 out.
        String::from_utf8(out).map_err(|e| ToolError::execution(e.to_string()))?
    };
    Ok(json!({
        "output": output,
        "detected": detected,
        "counts": { "lf": lf, "crlf": crlf, "cr": cr },
        "target": target,
        "changed": changed,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // Set algebra as in Python's set operations, with order of first appearance.
    #[test]
    fn compare_lists_set_operations() {
        let data = run_ok(
            "list-comparer",
            json!({"listA": "apple\nbanana\ncherry\napple", "listB": "cherry\ndate\nbanana\nelder"}),
        );
        assert_eq!(data["intersection"], json!(["banana", "cherry"]));
        assert_eq!(data["onlyInA"], json!(["apple"]));
        assert_eq!(data["onlyInB"], json!(["date", "elder"]));
        assert_eq!(
            data["union"],
            json!(["apple", "banana", "cherry", "date", "elder"])
        );
        assert_eq!(
            data["symmetricDifference"],
            json!(["apple", "date", "elder"])
        );
        assert_eq!(data["counts"]["a"], 4);
        assert_eq!(data["counts"]["distinctA"], 3);
        assert_eq!(data["identical"], false);
    }

    #[test]
    fn compare_lists_case_insensitive_with_custom_separator() {
        let data = run_ok(
            "list-comparer",
            json!({"listA": "Foo; bar ;BAZ", "listB": "baz;FOO", "separator": "custom",
                   "customSeparator": ";", "ignoreCase": true}),
        );
        assert_eq!(data["intersection"], json!(["Foo", "BAZ"]));
        assert_eq!(data["onlyInA"], json!(["bar"]));
        assert_eq!(data["onlyInB"], json!([]));
        let exact = run_ok(
            "list-comparer",
            json!({"listA": "a, b", "listB": "b,a", "separator": "comma", "trim": false}),
        );
        assert_eq!(exact["intersection"], json!(["a"]));
        assert_eq!(exact["onlyInA"], json!([" b"]));
    }

    #[test]
    fn compare_identical_lists_ignoring_empty_lines_and_crlf() {
        let data = run_ok(
            "list-comparer",
            json!({"listA": "x\r\n\r\ny\r\n", "listB": "y\nx\n"}),
        );
        assert_eq!(data["identical"], true);
        assert_eq!(data["counts"]["a"], 2);
    }

    #[test]
    fn compare_rejects_empty_custom_separator() {
        let (code, msg) = run_err(
            "list-comparer",
            json!({"listA": "a", "listB": "b", "separator": "custom"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("customSeparator"), "{msg}");
    }

    // Same result as `awk '!seen[$0]++'` (keep first) on the input.
    #[test]
    fn dedupe_keeps_first_and_reports_counts() {
        let data = run_ok("line-deduplicator", json!({"input": "b\na\nb\nc\na\nb\n"}));
        assert_eq!(data["output"], "b\na\nc\n");
        assert_eq!(data["duplicatesRemoved"], 3);
        assert_eq!(
            data["duplicates"],
            json!([{"line": "b", "count": 3}, {"line": "a", "count": 2}])
        );
        assert_eq!(data["linesIn"], 6);
        assert_eq!(data["linesOut"], 3);
    }

    // Same result as `tac | awk '!seen[$0]++' | tac` (keep last).
    #[test]
    fn dedupe_keeps_last_occurrence() {
        let data = run_ok(
            "line-deduplicator",
            json!({"input": "b\na\nb\nc\na", "keep": "last"}),
        );
        assert_eq!(data["output"], "b\nc\na");
    }

    #[test]
    fn dedupe_case_trim_and_empty_line_options() {
        let data = run_ok(
            "line-deduplicator",
            json!({"input": "Apple\r\n\r\n apple \r\nPear\r\n\r\n", "ignoreCase": true, "trim": true, "emptyLines": "keep"}),
        );
        assert_eq!(data["output"], "Apple\r\n\r\nPear\r\n\r\n");
        assert_eq!(data["duplicatesRemoved"], 1);
        let removed = run_ok(
            "line-deduplicator",
            json!({"input": "a\n\nb\n\na", "emptyLines": "remove"}),
        );
        assert_eq!(removed["output"], "a\nb");
        assert_eq!(removed["emptyRemoved"], 2);
        assert_eq!(removed["duplicatesRemoved"], 1);
    }

    #[test]
    fn dedupe_rejects_unknown_keep() {
        let (code, _) = run_err("line-deduplicator", json!({"input": "a", "keep": "middle"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }

    // The it-tools list converter's SQL IN use case.
    #[test]
    fn convert_lines_to_sql_in_list() {
        let data = run_ok(
            "list-converter",
            json!({"input": "apple\nbanana\napple\nO'Brien\n", "unique": true, "quote": "sql",
                   "listPrefix": "(", "listSuffix": ")"}),
        );
        assert_eq!(data["output"], "('apple', 'banana', 'O''Brien')");
        assert_eq!(data["count"], 3);
        assert_eq!(data["duplicatesRemoved"], 1);
    }

    #[test]
    fn convert_comma_list_sorted_lowercase_to_lines_with_affixes() {
        let data = run_ok(
            "list-converter",
            json!({"input": "Cherry, apple ,BANANA,,", "separator": "comma", "sort": "asc",
                   "caseChange": "lower", "joinWith": "newline", "itemPrefix": "- "}),
        );
        assert_eq!(data["output"], "- apple\n- banana\n- cherry");
        assert_eq!(data["emptyRemoved"], 1);
    }

    #[test]
    fn convert_to_json_array_descending_and_reversed() {
        let data = run_ok(
            "list-converter",
            json!({"input": "b\na \"q\"\nc", "quote": "json", "joinWith": "comma",
                   "listPrefix": "[", "listSuffix": "]", "sort": "desc"}),
        );
        assert_eq!(data["output"], r#"["c","b","a \"q\""]"#);
        let reversed = run_ok(
            "list-converter",
            json!({"input": "1|2|3", "separator": "custom", "customSeparator": "|",
                   "reverse": true, "joinWith": "custom", "customJoin": "\\t"}),
        );
        assert_eq!(reversed["output"], "3\t2\t1");
    }

    #[test]
    fn convert_rejects_unknown_quote_style() {
        let (code, msg) = run_err("list-converter", json!({"input": "a", "quote": "fancy"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("sql"), "{msg}");
    }

    #[test]
    fn line_endings_detect_mixed_and_convert() {
        let data = run_ok("line-ending-converter", json!({"input": "a\r\nb\nc\rd"}));
        assert_eq!(data["output"], "a\nb\nc\nd");
        assert_eq!(data["detected"], "mixed");
        assert_eq!(data["counts"], json!({"lf": 1, "crlf": 1, "cr": 1}));
        let crlf = run_ok(
            "line-ending-converter",
            json!({"input": "a\nb\n", "target": "crlf"}),
        );
        assert_eq!(crlf["output"], "a\r\nb\r\n");
        assert_eq!(crlf["detected"], "lf");
        assert_eq!(crlf["changed"], true);
    }

    #[test]
    fn line_endings_final_newline_and_cr() {
        let data = run_ok(
            "line-ending-converter",
            json!({"input": "a\r\nb", "target": "cr", "finalNewline": "add"}),
        );
        assert_eq!(data["output"], "a\rb\r");
        assert_eq!(data["detected"], "crlf");
        let trimmed = run_ok(
            "line-ending-converter",
            json!({"input": "a\n\n\n", "finalNewline": "remove"}),
        );
        assert_eq!(trimmed["output"], "a");
        let none = run_ok("line-ending-converter", json!({"input": "abc"}));
        assert_eq!(none["detected"], "none");
        assert_eq!(none["changed"], false);
    }

    #[test]
    fn line_endings_base64_bytes() {
        // "caf\xE9\r\n" in Latin-1 (not UTF-8) → "caf\xE9\n".
        let data = run_ok(
            "line-ending-converter",
            json!({"input": "Y2Fm6Q0K", "inputEncoding": "base64"}),
        );
        assert_eq!(data["output"], "Y2Fm6Qo=");
        let (code, msg) = run_err(
            "line-ending-converter",
            json!({"input": "not base64!", "inputEncoding": "base64"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("Base64"), "{msg}");
    }

    #[test]
    fn line_endings_rejects_unknown_target() {
        let (code, msg) = run_err(
            "line-ending-converter",
            json!({"input": "a\n", "target": "nel"}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("crlf"), "{msg}");
        // The HTTP/1.1 header block (RFC 9112 §2.1) written with CRLF from LF text.
        let http = run_ok(
            "line-ending-converter",
            json!({"input": "GET / HTTP/1.1\nHost: example.com\n\n", "target": "crlf"}),
        );
        assert_eq!(
            http["output"],
            "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"
        );
    }
}
