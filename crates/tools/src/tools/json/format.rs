//! JSON formatter and minifier, plus the literal-preserving JSON reader the converters share.
//!
//! Both tools run their streaming plan (`json::stream`) on the text in memory as over a file:
//! one formatter, which copies string and number tokens verbatim and only rewrites the
//! whitespace between them, so number literals such as `1.0`, `1e3` or
//! `12345678901234567890123` and string escapes come out exactly as written. Sorted keys and
//! input the plan refuses take [`whole`]: serde_json validates (into `IgnoredAny`, so nothing is
//! built) and names the error, and the literal-preserving tree is written back.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::json::stream::{plan_format, plan_minify};
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, Capped, Tally};
use crate::tools::kit::chunks::Chunks;
use crate::tools::kit::data::with_output;
use crate::tools::kit::depth::{self, JSON_DEPTH};
use crate::tools::kit::plan::{run_in_memory, stop_error};
use crate::tools::kit::tool::{Stream, Tool};
use serde::Deserialize;
use serde_json::json;
use std::borrow::Cow;
use std::fmt::Write as _;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("json-formatter", json_formatter).streams(Stream {
        param: "input",
        plan: plan_format,
    }),
    Tool::new("json-minifier", json_minifier).streams(Stream {
        param: "input",
        plan: plan_minify,
    }),
];

/// json-formatter: the streaming plan run in memory (`kit::plan::run_in_memory`), so a call
/// with the text and one over a `@path` file are one formatter; [`whole`] where the plan
/// declines.
pub(crate) fn json_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if let Some(plan) = plan_format(args, Chunks::text(input)).map_err(stop_error)? {
        return run_in_memory(plan);
    }
    let unit = match args.str("indent")? {
        "4" => "    ",
        "8" => "        ",
        "tab" => "\t",
        _ => "  ",
    };
    let output = whole(
        input,
        Some(unit),
        args.flag("ensureAscii"),
        args.flag("sortKeys"),
    )?;
    Ok(with_output(output, serde_json::Value::Null))
}

/// json-minifier, as [`json_formatter`].
pub(crate) fn json_minifier(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if let Some(plan) = plan_minify(args, Chunks::text(input)).map_err(stop_error)? {
        return run_in_memory(plan);
    }
    let output = whole(input, None, args.flag("ensureAscii"), args.flag("sortKeys"))?;
    let sizes = json!({ "originalSize": input.len(), "minifiedSize": output.len() });
    Ok(with_output(output, sizes))
}

/// The formatter over the whole document, for what the streaming plan declines: sorted keys,
/// which need the tree, and input it refused, which serde_json reads to say what is wrong and
/// where. Also the reference the plan's tests compare it with.
pub(crate) fn whole(
    input: &str,
    unit: Option<&str>,
    ascii: bool,
    sort: bool,
) -> Result<String, ToolError> {
    let src = validate(input)?;
    let mut tree = build_tree(src)?;
    if sort {
        sort_keys(&mut tree);
    }
    let capacity = src.len() + unit.map_or(0, |_| src.len() / 2 + 16);
    let mut e = Emitter::new(unit, ascii, capacity);
    e.node(&tree);
    e.finish().ok_or_else(formatted_too_large)
}

/// The error for output past [`budget::output_ceiling`] (also `json_stream`'s).
pub(crate) fn formatted_too_large() -> ToolError {
    budget::output_too_large(
        "the formatted JSON",
        "every level of nesting indents each line further: use a smaller indent, json-minifier, or --output-file with a smaller piece of the input",
    )
}

/// The error for input that holds no JSON value (also `json_stream`'s).
pub(crate) fn empty_input() -> ToolError {
    ToolError::invalid(
        "input is empty: expected a JSON value such as {\"key\": \"value\"} or [1, 2, 3]",
    )
}

/// A JSON value as text, indented by the `indent` option the converters share ("2", "4", "tab",
/// or "0" for compact).
pub(crate) fn write_indented(value: &serde_json::Value, indent: &str) -> Result<String, ToolError> {
    use serde::Serialize;
    let unit: &[u8] = match indent {
        "0" => b"",
        "4" => b"    ",
        "tab" => b"\t",
        _ => b"  ",
    };
    let mut buf = Capped::new();
    let out = if unit.is_empty() {
        serde_json::to_writer(&mut buf, value)
    } else {
        let fmt = serde_json::ser::PrettyFormatter::with_indent(unit);
        value.serialize(&mut serde_json::Serializer::with_formatter(&mut buf, fmt))
    };
    match out {
        Ok(()) => Ok(buf.into_string()),
        Err(_) if buf.over => Err(budget::output_too_large(
            "the JSON text",
            "choose indent 0 (compact), or give a smaller input",
        )),
        Err(e) => Err(ToolError::execution(format!(
            "JSON serialisation failed: {e}"
        ))),
    }
}

/// Checks that `input` is one JSON value (RFC 8259) and returns it without a leading BOM.
pub(crate) fn validate(input: &str) -> Result<&str, ToolError> {
    // RFC 8259 §8.1 lets parsers ignore a byte order mark; editors on Windows add one.
    let src = input.strip_prefix('\u{feff}').unwrap_or(input);
    if src.trim().is_empty() {
        return Err(empty_input());
    }
    let mut de = serde_json::Deserializer::from_str(src);
    serde::de::IgnoredAny::deserialize(&mut de)
        .and_then(|_| de.end())
        .map_err(|e| json_error(&e))?;
    Ok(src)
}

/// INVALID_INPUT naming the line, column and what the parser expected.
pub(crate) fn json_error(e: &serde_json::Error) -> ToolError {
    let full = e.to_string();
    if full.starts_with("recursion limit exceeded") {
        let place = depth::Place::Text {
            line: e.line(),
            column: e.column(),
        };
        return depth::too_deep("input", JSON_DEPTH, place);
    }
    let what = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(m, _)| m);
    ToolError::invalid(format!(
        "invalid JSON at line {}, column {}: {what}",
        e.line(),
        e.column()
    ))
}

/// Validates `input` and builds its literal-preserving tree.
pub(crate) fn parse(input: &str) -> Result<Node<'_>, ToolError> {
    validate(input).and_then(build_tree)
}

/// Validates `input` and parses it into a `serde_json::Value`, within the depth and size
/// limits of a tree.
pub(crate) fn parse_value(input: &str) -> Result<serde_json::Value, ToolError> {
    parse_value_counting(input, &mut Tally::default())
}

/// [`parse_value`] with the values counted into `tally`, for tools that hold several
/// documents at once.
pub(crate) fn parse_value_counting(
    input: &str,
    tally: &mut Tally,
) -> Result<serde_json::Value, ToolError> {
    let src = validate(input)?;
    check_tree_counting(src, tally)?;
    from_checked(src)
}

/// Parses JSON that [`check_tree`] has passed. serde_json's own limit stops one level short of
/// [`JSON_DEPTH`] (it fails on the 128th bracket), so it is lifted here, where the depth is
/// known to be within bounds.
pub(crate) fn from_checked(src: &str) -> Result<serde_json::Value, ToolError> {
    let mut de = serde_json::Deserializer::from_str(src);
    de.disable_recursion_limit();
    let value = serde_json::Value::deserialize(&mut de).map_err(|e| json_error(&e))?;
    de.end().map_err(|e| json_error(&e))?;
    Ok(value)
}

/// Refuses JSON text (one value or several) that nests deeper than [`JSON_DEPTH`] or holds
/// more than [`budget::MAX_VALUES`] values, before anything builds a tree of it. The text need
/// not be valid: the lexer always advances.
pub(crate) fn check_tree(src: &str) -> Result<(), ToolError> {
    check_tree_counting(src, &mut Tally::default())
}

fn check_tree_counting(src: &str, tally: &mut Tally) -> Result<(), ToolError> {
    let mut lx = Lexer::new(src);
    let mut level = 0usize;
    while let Some(t) = lx.next() {
        match t {
            Tok::Open(_) => {
                level += 1;
                if level > JSON_DEPTH {
                    return Err(too_deep(&lx));
                }
            }
            Tok::Close(_) => level = level.saturating_sub(1),
            Tok::Comma | Tok::Colon => continue,
            Tok::Str(_) | Tok::Lit(_) => {}
        }
        if !matches!(t, Tok::Close(_)) && !tally.add() {
            return Err(too_many_values(tally.limit));
        }
    }
    Ok(())
}

/// The first byte of valid JSON text and, for an object or array, how many members it has;
/// no tree is built.
pub(crate) fn top_level(src: &str) -> (u8, usize) {
    let mut lx = Lexer::new(src.strip_prefix('\u{feff}').unwrap_or(src));
    let Some(first) = lx.next() else {
        return (b' ', 0);
    };
    let kind = match first {
        Tok::Open(c) => c,
        Tok::Str(_) => return (b'"', 0),
        _ => return (b'0', 0),
    };
    let (mut level, mut commas, mut any) = (1usize, 0usize, false);
    for t in lx.by_ref() {
        match t {
            Tok::Close(_) => {
                level -= 1;
                if level == 0 {
                    break;
                }
            }
            Tok::Comma if level == 1 => commas += 1,
            Tok::Open(_) => {
                any = true;
                level += 1;
            }
            _ => any = true,
        }
    }
    (kind, if any { commas + 1 } else { 0 })
}

fn too_many_values(limit: usize) -> ToolError {
    budget::too_many_of(
        limit,
        "the JSON",
        "values",
        "this tool holds the whole document in memory: split the input, or select the part you need with jq-processor first",
    )
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Open(u8),
    Close(u8),
    Comma,
    Colon,
    /// A string token including its quotes, escapes untouched.
    Str(&'a str),
    /// A number, `true`, `false` or `null`, exactly as written.
    Lit(&'a str),
}

/// Splits already-validated JSON into tokens; it does not check grammar (serde_json did).
#[derive(Clone, Copy)]
struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    fn slice(&self, start: usize) -> &'a str {
        // Token boundaries sit on ASCII bytes, so this never fails on validated input.
        self.src.get(start..self.pos).unwrap_or_default()
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Tok<'a>;

    fn next(&mut self) -> Option<Tok<'a>> {
        let bytes = self.src.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.pos) {
            self.pos += 1;
        }
        let start = self.pos;
        let c = *bytes.get(start)?;
        self.pos += 1;
        Some(match c {
            b'{' | b'[' => Tok::Open(c),
            b'}' | b']' => Tok::Close(c),
            b',' => Tok::Comma,
            b':' => Tok::Colon,
            b'"' => {
                while let Some(&b) = bytes.get(self.pos) {
                    self.pos += 1;
                    match b {
                        b'\\' => self.pos += 1,
                        b'"' => break,
                        _ => {}
                    }
                }
                self.pos = self.pos.min(bytes.len());
                Tok::Str(self.slice(start))
            }
            _ => {
                while let Some(&b) = bytes.get(self.pos) {
                    if matches!(b, b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
                Tok::Lit(self.slice(start))
            }
        })
    }
}

/// A JSON value whose scalars are slices of the source text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node<'a> {
    /// A string token with quotes and escapes as written.
    Str(&'a str),
    /// A number, `true`, `false` or `null` as written.
    Lit(&'a str),
    Array(Vec<Node<'a>>),
    /// Members in document order; keys are raw string tokens (quotes included).
    Object(Vec<(&'a str, Node<'a>)>),
}

fn build_tree(src: &str) -> Result<Node<'_>, ToolError> {
    check_tree(src)?;
    let mut lx = Lexer::new(src);
    match lx.next() {
        Some(first) => node_from(&mut lx, first),
        None => Ok(Node::Lit("null")),
    }
}

/// The depth error at the bracket the lexer has just read.
fn too_deep(lx: &Lexer<'_>) -> ToolError {
    depth::too_deep(
        "input",
        JSON_DEPTH,
        depth::place(lx.src, lx.pos.saturating_sub(1)),
    )
}

/// Recursive, one frame per level: [`check_tree`] has bounded the depth.
fn node_from<'a>(lx: &mut Lexer<'a>, first: Tok<'a>) -> Result<Node<'a>, ToolError> {
    Ok(match first {
        Tok::Open(b'[') => {
            let mut items = Vec::new();
            while let Some(t) = lx.next() {
                match t {
                    Tok::Close(_) => break,
                    Tok::Comma => {}
                    t => items.push(node_from(lx, t)?),
                }
            }
            Node::Array(items)
        }
        Tok::Open(_) => {
            let mut members = Vec::new();
            while let Some(t) = lx.next() {
                match t {
                    Tok::Close(_) => break,
                    Tok::Str(key) => {
                        let _colon = lx.next();
                        let value = match lx.next() {
                            Some(v) => node_from(lx, v)?,
                            None => Node::Lit("null"),
                        };
                        members.push((key, value));
                    }
                    _ => {}
                }
            }
            Node::Object(members)
        }
        Tok::Str(s) => Node::Str(s),
        Tok::Lit(s) => Node::Lit(s),
        Tok::Close(_) | Tok::Comma | Tok::Colon => Node::Lit("null"),
    })
}

/// The text of a raw string token (`"a\u0062"` → `ab`), borrowed when it has no escapes.
pub(crate) fn unquote(raw: &str) -> Cow<'_, str> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(raw);
    if inner.contains('\\') {
        serde_json::from_str::<String>(raw).map_or(Cow::Borrowed(inner), Cow::Owned)
    } else {
        Cow::Borrowed(inner)
    }
}

/// Sorts object members by key, recursively; stable, so duplicate keys keep their order.
/// Keys compare by their decoded text in code point order, as `jq -S` does.
fn sort_keys(node: &mut Node<'_>) {
    match node {
        Node::Array(items) => items.iter_mut().for_each(sort_keys),
        Node::Object(members) => {
            members.sort_by_cached_key(|(k, _)| unquote(k));
            members.iter_mut().for_each(|(_, v)| sort_keys(v));
        }
        Node::Str(_) | Node::Lit(_) => {}
    }
}

/// Writes JSON tokens into one pre-sized String, with indentation or none, up to
/// [`budget::output_ceiling`]: at most [`JSON_DEPTH`] levels of indentation per token, but
/// that is still a thousand bytes per input byte at indent 8.
pub(crate) struct Emitter<'u> {
    out: String,
    unit: Option<&'u str>,
    /// "\n" followed by indentation, grown on demand and sliced per line.
    pad: String,
    depth: usize,
    ascii: bool,
    limit: usize,
}

impl<'u> Emitter<'u> {
    pub(crate) fn new(unit: Option<&'u str>, ascii: bool, capacity: usize) -> Self {
        let limit = budget::output_ceiling();
        Emitter {
            out: String::with_capacity(capacity.min(limit)),
            unit,
            pad: String::from("\n"),
            depth: 0,
            ascii,
            limit,
        }
    }

    /// The text, or None when it passed the output ceiling (and was cut short).
    pub(crate) fn finish(self) -> Option<String> {
        (self.out.len() <= self.limit).then_some(self.out)
    }

    fn over(&self) -> bool {
        self.out.len() > self.limit
    }

    fn newline(&mut self) {
        if self.over() {
            return;
        }
        if let Some(unit) = self.unit {
            let need = 1 + unit.len() * self.depth;
            while self.pad.len() < need {
                self.pad.push_str(unit);
            }
            self.out.push_str(&self.pad[..need]);
        }
    }

    fn open(&mut self, c: u8) {
        self.out.push(c as char);
        self.depth += 1;
        self.newline();
    }

    fn close(&mut self, c: u8) {
        self.depth = self.depth.saturating_sub(1);
        self.newline();
        self.out.push(c as char);
    }

    fn comma(&mut self) {
        self.out.push(',');
        self.newline();
    }

    fn colon(&mut self) {
        self.out
            .push_str(if self.unit.is_some() { ": " } else { ":" });
    }

    fn string(&mut self, raw: &str) {
        if self.over() {
            return;
        }
        if !self.ascii || raw.is_ascii() {
            self.out.push_str(raw);
            return;
        }
        for ch in raw.chars() {
            if ch.is_ascii() {
                self.out.push(ch);
            } else {
                let mut units = [0u16; 2];
                for u in ch.encode_utf16(&mut units) {
                    let _ = write!(self.out, "\\u{u:04x}");
                }
            }
        }
    }

    pub(crate) fn node(&mut self, node: &Node<'_>) {
        match node {
            Node::Str(s) => self.string(s),
            Node::Lit(s) => self.out.push_str(s),
            Node::Array(items) if items.is_empty() => self.out.push_str("[]"),
            Node::Object(members) if members.is_empty() => self.out.push_str("{}"),
            Node::Array(items) => {
                self.open(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.comma();
                    }
                    self.node(item);
                }
                self.close(b']');
            }
            Node::Object(members) => {
                self.open(b'{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        self.comma();
                    }
                    self.string(key);
                    self.colon();
                    self.node(value);
                }
                self.close(b'}');
            }
        }
    }
}

/// Minified JSON text of a node, literals preserved (never longer than the input it came from).
pub(crate) fn to_compact(node: &Node<'_>) -> String {
    let mut e = Emitter::new(None, false, 64);
    e.node(node);
    e.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};

    fn fmt(input: &str, extra: serde_json::Value) -> String {
        let mut args = json!({ "input": input });
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        run_ok("json-formatter", args)["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // RFC 8259 §13 example (the "Image" object), formatted as `jq --indent 2 .` prints it.
    #[test]
    fn formats_rfc8259_example_like_jq() {
        let input = r#"{"Image": {"Width": 800, "Height": 600, "Title": "View from 15th Floor",
            "Thumbnail": {"Url": "http://www.example.com/image/481989943", "Height": 125, "Width": 100},
            "Animated" : false, "IDs": [116, 943, 234, 38793]}}"#;
        let expected = "{\n  \"Image\": {\n    \"Width\": 800,\n    \"Height\": 600,\n    \"Title\": \"View from 15th Floor\",\n    \"Thumbnail\": {\n      \"Url\": \"http://www.example.com/image/481989943\",\n      \"Height\": 125,\n      \"Width\": 100\n    },\n    \"Animated\": false,\n    \"IDs\": [\n      116,\n      943,\n      234,\n      38793\n    ]\n  }\n}";
        assert_eq!(fmt(input, json!({})), expected);
    }

    #[test]
    fn keeps_number_literals_escapes_and_key_order() {
        let input = r#"{"z":12345678901234567890123,"a":[1.0,1e3,-0.5E-7],"s":"\u00e9\n\/","e":{},"l":[ ]}"#;
        let expected = "{\n    \"z\": 12345678901234567890123,\n    \"a\": [\n        1.0,\n        1e3,\n        -0.5E-7\n    ],\n    \"s\": \"\\u00e9\\n\\/\",\n    \"e\": {},\n    \"l\": []\n}";
        assert_eq!(fmt(input, json!({"indent": "4"})), expected);
        assert_eq!(
            fmt("[1,[2]]", json!({"indent": "tab"})),
            "[\n\t1,\n\t[\n\t\t2\n\t]\n]"
        );
        assert_eq!(fmt(" \"x\" ", json!({})), "\"x\"");
    }

    // `jq -S` orders keys by code point and recurses; literals stay as written.
    #[test]
    fn sorts_keys_recursively() {
        let input = r#"{"b":{"d":1.50,"c":2},"a":[{"y":1,"x":2}],"\u0041":0}"#;
        let out = fmt(input, json!({"sortKeys": true, "indent": "2"}));
        assert_eq!(
            out,
            "{\n  \"\\u0041\": 0,\n  \"a\": [\n    {\n      \"x\": 2,\n      \"y\": 1\n    }\n  ],\n  \"b\": {\n    \"c\": 2,\n    \"d\": 1.50\n  }\n}"
        );
    }

    // Python's json.dumps(ensure_ascii=True) escapes as \u00e9 and astral characters as
    // UTF-16 surrogate pairs: "é😀" → "\u00e9\ud83d\ude00".
    #[test]
    fn ensure_ascii_escapes_like_python() {
        let out = fmt(r#"{"k":"é😀"}"#, json!({"ensureAscii": true}));
        assert_eq!(out, "{\n  \"k\": \"\\u00e9\\ud83d\\ude00\"\n}");
    }

    #[test]
    fn malformed_json_reports_line_and_column() {
        let (code, msg) = run_err("json-formatter", json!({"input": "[\n  1,\n]"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(msg, "invalid JSON at line 3, column 1: expected value");
        let (_, msg) = run_err("json-formatter", json!({"input": "{\"a\" 1}"}));
        assert_eq!(msg, "invalid JSON at line 1, column 6: expected `:`");
        let (_, msg) = run_err("json-formatter", json!({"input": "[1] [2]"}));
        assert!(msg.contains("trailing characters"), "{msg}");
        let (code, msg) = run_err("json-formatter", json!({"input": "  \n "}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("empty"), "{msg}");
    }

    #[test]
    fn minifies_and_reports_sizes() {
        let input = "{\n  \"a\": [1.0, 2e10, \"x y\"],\n  \"b\": { }\n}\n";
        let data = run_ok("json-minifier", json!({ "input": input }));
        assert_eq!(data["output"], r#"{"a":[1.0,2e10,"x y"],"b":{}}"#);
        assert_eq!(data["originalSize"], input.len());
        assert_eq!(data["minifiedSize"], 29);
    }

    // RFC 8259 §13 second example (an array of two objects), minified.
    #[test]
    fn minifies_rfc8259_array_example_keeping_literals() {
        let input = "[\n  {\n     \"precision\": \"zip\",\n     \"Latitude\":  37.7668,\n     \"Longitude\": -122.3959,\n     \"Address\":   \"\",\n     \"City\":      \"SAN FRANCISCO\",\n     \"State\":     \"CA\",\n     \"Zip\":       \"94107\",\n     \"Country\":   \"US\"\n  },\n  {\n     \"precision\": \"zip\",\n     \"Latitude\":  37.371991,\n     \"Longitude\": -122.026020,\n     \"Address\":   \"\",\n     \"City\":      \"SUNNYVALE\",\n     \"State\":     \"CA\",\n     \"Zip\":       \"94085\",\n     \"Country\":   \"US\"\n  }\n]";
        let data = run_ok(
            "json-minifier",
            json!({ "input": input, "ensureAscii": true }),
        );
        assert_eq!(
            data["output"],
            r#"[{"precision":"zip","Latitude":37.7668,"Longitude":-122.3959,"Address":"","City":"SAN FRANCISCO","State":"CA","Zip":"94107","Country":"US"},{"precision":"zip","Latitude":37.371991,"Longitude":-122.026020,"Address":"","City":"SUNNYVALE","State":"CA","Zip":"94085","Country":"US"}]"#
        );
    }

    #[test]
    fn minifier_sorts_and_strips_bom() {
        let data = run_ok(
            "json-minifier",
            json!({"input": "\u{feff}{ \"b\" : true , \"a\" : null }", "sortKeys": true}),
        );
        assert_eq!(data["output"], r#"{"a":null,"b":true}"#);
    }

    #[test]
    fn minifier_rejects_malformed_json() {
        let (code, msg) = run_err("json-minifier", json!({"input": "[1, 2"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "invalid JSON at line 1, column 5: EOF while parsing a list"
        );
        let (code, _) = run_err("json-minifier", json!({"input": "{'a': 1}"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn nesting_is_limited_to_json_depth() {
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("[", "", "]", 1_000_000);
        for id in ["json-formatter", "json-minifier"] {
            assert_too_deep(id, json!({"input": deep}), "input", JSON_DEPTH);
            assert_too_deep(
                id,
                json!({"input": deep, "sortKeys": true}),
                "input",
                JSON_DEPTH,
            );
        }
        let (_, msg) = run_err("json-formatter", json!({"input": deep}));
        assert!(msg.contains("(at line 1, column 129)"), "{msg}");
        let objects = nest("{\"a\":", "1", "}", 1_000_000);
        assert_too_deep(
            "json-formatter",
            json!({"input": objects}),
            "input",
            JSON_DEPTH,
        );
        // Just under the limit: 128 levels format, sorted or not.
        let ok = nest("[", "", "]", JSON_DEPTH);
        assert_eq!(fmt(&ok, json!({})).lines().count(), 2 * JSON_DEPTH - 1);
        assert_eq!(
            fmt(&ok, json!({"sortKeys": true})).lines().count(),
            2 * JSON_DEPTH - 1
        );
        let data = run_ok("json-minifier", json!({"input": ok}));
        assert_eq!(data["minifiedSize"], 2 * JSON_DEPTH);
    }

    #[test]
    fn check_tree_counts_values_and_depth() {
        assert!(check_tree("[1, {\"a\": [true, null]}] \"x\"").is_ok());
        let mut tally = Tally::new(4);
        let e = check_tree_counting("[1, 2, 3, 4]", &mut tally).unwrap_err();
        assert_eq!(
            e.message,
            "the JSON has more than 4 values, the most this tool holds in memory for one call; this tool holds the whole document in memory: split the input, or select the part you need with jq-processor first"
        );
        assert_eq!(top_level("{\"a\": [1, 2], \"b\": {}}"), (b'{', 2));
        assert_eq!(top_level("[]"), (b'[', 0));
        assert_eq!(top_level("\"s\""), (b'"', 0));
    }

    #[test]
    fn unquote_decodes_escapes() {
        assert_eq!(unquote(r#""a\u0062\n""#), "ab\n");
        assert_eq!(unquote(r#""plain""#), "plain");
    }
}
