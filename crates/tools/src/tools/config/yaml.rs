//! JSON ⇄ YAML converters and the YAML formatter, all through serde_norway.
//!
//! serde_norway writes YAML 1.2: it leaves `yes`, `on`, `1_000` or `2024-01-02` unquoted, which
//! YAML 1.1 readers (PyYAML, many CI tools) turn into booleans, numbers and dates. Such strings
//! and every JSON number literal go through the serializer as unique placeholders that it is
//! certain to single-quote; the placeholders are then replaced by the quoted string or by the
//! number exactly as written in the JSON.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::json::{self, Node};
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, Capped};
use crate::tools::kit::data::with_output;
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use regex::Regex;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Value as Json, json};
use serde_norway::Value as Yaml;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("json-to-yaml", json_to_yaml),
    Tool::new("yaml-to-json", yaml_to_json),
    Tool::new("yaml-formatter", yaml_formatter),
];

/// Plain scalars that a YAML 1.1 reader resolves to something other than a string
/// (bool, null, int, float, merge, value and timestamp types of the YAML 1.1 type repository).
static YAML11_NON_STRING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF",
        r"|true|True|TRUE|false|False|FALSE|~|null|Null|NULL|<<|=",
        r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+",
        r"|[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt \t].*)?)$"
    ))
    .expect("static regex")
});

fn json_to_yaml(args: &Args) -> ToolOutcome {
    Ok(with_output(
        json_text_to_yaml(args.str("input")?)?,
        Json::Null,
    ))
}

/// JSON text to block-style YAML that YAML 1.1 and 1.2 readers read alike, number literals
/// kept as written. Other converters producing YAML go through this too.
pub(crate) fn json_text_to_yaml(input: &str) -> Result<String, ToolError> {
    let tree = json::parse(input)?;
    let ctx = Placeholders::new(input);
    let mut out = Substituting::new(&ctx);
    let written = serde_norway::to_writer(
        &mut out,
        &YamlNode {
            node: &tree,
            ctx: &ctx,
        },
    );
    out.finish(written)
}

/// A JSON value built in memory as the same YAML: the crate's one YAML 1.1-safe writer for a
/// document, not only for a tool's input (`discovery::yaml_out` writes openapi.yaml with a
/// copy of its own until it calls this).
pub fn value_to_yaml(value: &Json) -> Result<String, ToolError> {
    json_text_to_yaml(&value.to_string())
}

/// The YAML serializer's output with the placeholders replaced as it is written, so the text
/// exists once, and never past the output ceiling.
struct Substituting<'c> {
    ctx: &'c Placeholders,
    marker: Vec<u8>,
    /// Written but not yet passed on: it may end inside a placeholder.
    pending: Vec<u8>,
    out: Capped,
}

impl<'c> Substituting<'c> {
    fn new(ctx: &'c Placeholders) -> Self {
        Substituting {
            ctx,
            marker: format!("'0{}", ctx.nonce).into_bytes(),
            pending: Vec::new(),
            out: Capped::new(),
        }
    }

    /// Passes on what is certainly not part of a placeholder; with `last`, everything.
    fn drain(&mut self, last: bool) -> std::io::Result<()> {
        use std::io::Write as _;
        let subs = self.ctx.subs.borrow();
        let mut rest = 0;
        loop {
            let tail = &self.pending[rest..];
            let Some(at) = find(tail, &self.marker) else {
                let keep = if last {
                    0
                } else {
                    (self.marker.len() - 1).min(tail.len())
                };
                self.out.write_all(&tail[..tail.len() - keep])?;
                rest += tail.len() - keep;
                break;
            };
            self.out.write_all(&tail[..at])?;
            let after = &tail[at + self.marker.len()..];
            let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == after.len() && !last {
                // The placeholder may go on in the next write.
                rest += at;
                break;
            }
            let index = std::str::from_utf8(&after[..digits])
                .ok()
                .and_then(|d| d.parse::<usize>().ok());
            match (index.and_then(|i| subs.get(i)), after.get(digits)) {
                (Some(sub), Some(b'\'')) => {
                    self.out.write_all(sub.as_bytes())?;
                    rest += at + self.marker.len() + digits + 1;
                }
                _ => {
                    self.out.write_all(&self.marker)?;
                    rest += at + self.marker.len();
                }
            }
        }
        self.pending.drain(..rest);
        Ok(())
    }

    /// The text, or the error: the output ceiling's, or the serializer's.
    fn finish(mut self, written: Result<(), serde_norway::Error>) -> Result<String, ToolError> {
        let drained = written.is_ok().then(|| self.drain(true));
        if self.out.over {
            return Err(budget::output_too_large(
                "the YAML",
                "each level of nesting indents its lines further: give a smaller or flatter input",
            ));
        }
        written.map_err(|e| ToolError::execution(format!("YAML serialisation failed: {e}")))?;
        if let Some(Err(e)) = drained {
            return Err(ToolError::execution(format!(
                "YAML serialisation failed: {e}"
            )));
        }
        Ok(self.out.into_string())
    }
}

impl std::io::Write for Substituting<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        self.drain(false)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Placeholder strings of the form `0<nonce><index>`: digits with a leading zero are a string
/// in YAML 1.2 that looks like a number, so serde_norway always single-quotes them.
struct Placeholders {
    nonce: String,
    subs: RefCell<Vec<String>>,
}

impl Placeholders {
    fn new(input: &str) -> Self {
        let mut nonce = String::from("8642097531");
        while input.contains(&nonce) {
            nonce.push('7');
        }
        Placeholders {
            nonce,
            subs: RefCell::new(Vec::new()),
        }
    }

    fn placeholder(&self, replacement: String) -> String {
        let mut subs = self.subs.borrow_mut();
        subs.push(replacement);
        format!("0{}{}", self.nonce, subs.len() - 1)
    }
}

struct YamlNode<'t, 'a> {
    node: &'t Node<'a>,
    ctx: &'t Placeholders,
}

impl Serialize for YamlNode<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        match self.node {
            Node::Lit("true") => s.serialize_bool(true),
            Node::Lit("false") => s.serialize_bool(false),
            Node::Lit("null") => s.serialize_unit(),
            Node::Lit(number) => s.serialize_str(&ctx.placeholder(number.to_string())),
            Node::Str(raw) => {
                let text = json::unquote(raw);
                if YAML11_NON_STRING.is_match(&text) {
                    let quoted = format!("'{}'", text.replace('\'', "''"));
                    s.serialize_str(&ctx.placeholder(quoted))
                } else {
                    s.serialize_str(&text)
                }
            }
            Node::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for node in items {
                    seq.serialize_element(&YamlNode { node, ctx })?;
                }
                seq.end()
            }
            Node::Object(members) => {
                // YAML forbids duplicate keys; like JSON.parse, the last value wins and the
                // key keeps its first position.
                let mut slot: HashMap<std::borrow::Cow<'_, str>, usize> = HashMap::new();
                let mut unique: Vec<(&str, &Node<'_>)> = Vec::with_capacity(members.len());
                for (key, value) in members {
                    match slot.get(&json::unquote(key)) {
                        Some(&i) => unique[i].1 = value,
                        None => {
                            slot.insert(json::unquote(key), unique.len());
                            unique.push((key, value));
                        }
                    }
                }
                let mut map = s.serialize_map(Some(unique.len()))?;
                for (key, value) in unique {
                    map.serialize_entry(
                        &YamlNode {
                            node: &Node::Str(key),
                            ctx,
                        },
                        &YamlNode { node: value, ctx },
                    )?;
                }
                map.end()
            }
        }
    }
}

/// The largest YAML input read. serde_norway keeps every parser event of a document and then
/// its tree: up to 100 bytes per byte of dense flow input (`[1,1,1,…]`), which the general
/// input limit alone would let grow past 20 GiB.
pub(crate) const MAX_YAML: usize = 8 << 20;

/// Refuses flow collections nested deeper than [`depth::YAML_DEPTH`] before serde_norway,
/// which reads every event of a document before its own limit applies (seconds and hundreds of
/// megabytes for a few megabytes of `[`). A bracket counts only where a collection can start
/// (after `[`, `{`, `,`, `:`, `-`, `?` or at the start of a line, spaces aside), so `a[b` in a
/// plain scalar is text; quoted scalars and comments are skipped. Anything this misjudges
/// still meets serde_norway's own check.
fn check_flow_depth(input: &str) -> Result<(), ToolError> {
    let bytes = input.as_bytes();
    let (mut level, mut i) = (0usize, 0usize);
    let mut before = b'\n';
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' | b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if b == b'"' && bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'#' if matches!(before, b' ' | b'\t' | b'\n') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'[' | b'{' if matches!(before, b'[' | b'{' | b',' | b':' | b'-' | b'?' | b'\n') => {
                level += 1;
                if level > depth::YAML_DEPTH {
                    return Err(depth::too_deep(
                        "input",
                        depth::YAML_DEPTH,
                        depth::place(input, i),
                    ));
                }
            }
            b']' | b'}' => level = level.saturating_sub(1),
            _ => {}
        }
        if !matches!(b, b' ' | b'\t' | b'\r') {
            before = b;
        }
        i += 1;
    }
    Ok(())
}

/// Every document of a YAML stream; `merge` resolves `<<` merge keys.
pub(crate) fn parse_documents(input: &str, merge: bool) -> Result<Vec<Yaml>, ToolError> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    if input.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected a YAML document such as 'key: value'",
        ));
    }
    check_flow_depth(input)?;
    if input.len() > MAX_YAML {
        return Err(budget::input_too_large(
            "the YAML",
            input.len(),
            MAX_YAML,
            "its parser keeps every event and node, up to 100 bytes for each byte of input",
        ));
    }
    let mut docs = Vec::new();
    for de in serde_norway::Deserializer::from_str(input) {
        let mut value = Yaml::deserialize(de).map_err(|e| yaml_error(&e))?;
        if merge {
            value.apply_merge().map_err(|e| yaml_error(&e))?;
        }
        docs.push(value);
    }
    Ok(docs)
}

fn yaml_to_json(args: &Args) -> ToolOutcome {
    let mut docs = parse_documents(args.str("input")?, true)?
        .into_iter()
        .map(to_json)
        .collect::<Result<Vec<_>, _>>()?;
    let count = docs.len();
    let value = if count == 1 {
        docs.pop().unwrap_or(Json::Null)
    } else {
        Json::Array(docs)
    };
    let output = json::write_indented(&value, args.str("indent")?)?;
    Ok(with_output(output, json!({ "documents": count })))
}

pub(crate) fn yaml_error(e: &serde_norway::Error) -> ToolError {
    let full = e.to_string();
    if full.starts_with("recursion limit exceeded") {
        let place = e
            .location()
            .map_or(depth::Place::Unknown, |loc| depth::Place::Text {
                line: loc.line(),
                column: loc.column(),
            });
        return depth::too_deep("input", depth::YAML_DEPTH, place);
    }
    match e.location() {
        Some(loc) => {
            let mark = format!(" at line {} column {}", loc.line(), loc.column());
            ToolError::invalid(format!(
                "invalid YAML at line {}, column {}: {}",
                loc.line(),
                loc.column(),
                full.replacen(&mark, "", 1)
            ))
        }
        None => ToolError::invalid(format!("invalid YAML: {full}")),
    }
}

pub(crate) fn to_json(value: Yaml) -> Result<Json, ToolError> {
    Ok(match value {
        Yaml::Null => Json::Null,
        Yaml::Bool(b) => Json::Bool(b),
        Yaml::Number(n) => {
            if let Some(u) = n.as_u64() {
                Json::from(u)
            } else if let Some(i) = n.as_i64() {
                Json::from(i)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(f).map(Json::Number).ok_or_else(|| {
                    ToolError::invalid(format!(
                        "the YAML contains the number {n}, which JSON cannot represent (no infinity or NaN in JSON)"
                    ))
                })?
            }
        }
        Yaml::String(s) => Json::String(s),
        Yaml::Sequence(items) => {
            Json::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?)
        }
        Yaml::Mapping(mapping) => {
            let mut map = serde_json::Map::with_capacity(mapping.len());
            for (k, v) in mapping {
                map.insert(key_string(k)?, to_json(v)?);
            }
            Json::Object(map)
        }
        // JSON has no tags: the tagged value itself is kept.
        Yaml::Tagged(tagged) => to_json(tagged.value)?,
    })
}

/// JSON keys are strings: scalars become their text, collections their compact JSON.
pub(crate) fn key_string(key: Yaml) -> Result<String, ToolError> {
    Ok(match key {
        Yaml::String(s) => s,
        Yaml::Null => "null".into(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => n.to_string(),
        Yaml::Tagged(tagged) => key_string(tagged.value)?,
        other => to_json(other)?.to_string(),
    })
}

fn yaml_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mut docs = parse_documents(input, false)?;
    if args.flag("sortKeys") {
        docs.iter_mut().for_each(sort_mapping_keys);
    }
    let ctx = Placeholders::new(input);
    let mut out = Substituting::new(&ctx);
    let mut written = Ok(());
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            use std::io::Write as _;
            written = out
                .write_all(b"---\n")
                .map_err(<serde_norway::Error as serde::ser::Error>::custom);
        }
        if written.is_ok() {
            written = serde_norway::to_writer(
                &mut out,
                &Styled {
                    value: doc,
                    ctx: &ctx,
                },
            );
        }
        if written.is_err() {
            break;
        }
    }
    let output = out.finish(written)?;
    Ok(with_output(output, json!({ "documents": docs.len() })))
}

/// Sorts every mapping's keys: strings by text, other scalars by their YAML text after them.
fn sort_mapping_keys(value: &mut Yaml) {
    match value {
        Yaml::Sequence(items) => items.iter_mut().for_each(sort_mapping_keys),
        Yaml::Tagged(tagged) => sort_mapping_keys(&mut tagged.value),
        Yaml::Mapping(mapping) => {
            let mut entries: Vec<(Yaml, Yaml)> = std::mem::take(mapping).into_iter().collect();
            entries.sort_by_cached_key(|(k, _)| match k {
                Yaml::String(s) => (0, s.clone()),
                other => (1, serde_norway::to_string(other).unwrap_or_default()),
            });
            for (k, mut v) in entries {
                sort_mapping_keys(&mut v);
                mapping.insert(k, v);
            }
        }
        _ => {}
    }
}

/// A YAML value written back with YAML 1.1-ambiguous strings single-quoted (see `Placeholders`).
struct Styled<'t> {
    value: &'t Yaml,
    ctx: &'t Placeholders,
}

impl Serialize for Styled<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        match self.value {
            Yaml::String(text) if YAML11_NON_STRING.is_match(text) => {
                let quoted = format!("'{}'", text.replace('\'', "''"));
                s.serialize_str(&ctx.placeholder(quoted))
            }
            Yaml::Sequence(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for value in items {
                    seq.serialize_element(&Styled { value, ctx })?;
                }
                seq.end()
            }
            Yaml::Mapping(mapping) => {
                let mut map = s.serialize_map(Some(mapping.len()))?;
                for (k, v) in mapping {
                    map.serialize_entry(&Styled { value: k, ctx }, &Styled { value: v, ctx })?;
                }
                map.end()
            }
            // serde_norway writes a one-entry map whose key displays as "!tag" as a tagged node.
            Yaml::Tagged(tagged) => {
                struct TagKey<'a>(&'a serde_norway::value::Tag);
                impl Serialize for TagKey<'_> {
                    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                        s.collect_str(self.0)
                    }
                }
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry(
                    &TagKey(&tagged.tag),
                    &Styled {
                        value: &tagged.value,
                        ctx,
                    },
                )?;
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn to_yaml(input: &str) -> String {
        run_ok("json-to-yaml", json!({ "input": input }))["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn json_to_yaml_basic_document() {
        let out = to_yaml(
            r#"{"name":"Ada","langs":["en","fr"],"age":36,"ok":true,"none":null,"nested":{"a":1}}"#,
        );
        assert_eq!(
            out,
            "name: Ada\nlangs:\n- en\n- fr\nage: 36\nok: true\nnone: null\nnested:\n  a: 1\n"
        );
    }

    // The YAML 1.1 "Norway problem": these strings must stay strings for YAML 1.1 readers.
    #[test]
    fn json_to_yaml_quotes_yaml11_ambiguous_strings() {
        let out = to_yaml(
            r#"{"country":"no","answer":"yes","switch":"on","ver":"1.0","n":"null","t":"true","oct":"012","big":"1_000","date":"2001-12-14","merge":"<<","plain":"hello world"}"#,
        );
        assert_eq!(
            out,
            "country: 'no'\nanswer: 'yes'\nswitch: 'on'\nver: '1.0'\n'n': 'null'\nt: 'true'\noct: '012'\nbig: '1_000'\ndate: '2001-12-14'\nmerge: '<<'\nplain: hello world\n"
        );
    }

    // The cases of the OpenAPI document's writer (`discovery::yaml_out`): timestamps, YAML 1.1
    // booleans and sexagesimal numbers stay strings, and everything reads back as written.
    #[test]
    fn values_with_yaml11_readings_are_quoted_and_read_back() {
        let doc = json!({
            "when": "2024-01-05T10:00:00Z",
            "day": "2024-01-05",
            "answer": "yes",
            "Off": "on",
            "time": "1:20",
            "number": "0x1F",
            "empty": "",
            "plain": "Developer utilities as CTP tools",
            "multi": "line one\nline two: with colon # and hash",
            "list": [{"a": 1, "b": [true, null, 2.5]}, "x", [], {}],
            "nested": {"deep": {"k": -1}},
            "key: with colon": "v",
        });
        let text = super::value_to_yaml(&doc).unwrap();
        for line in [
            "when: '2024-01-05T10:00:00Z'\n",
            "answer: 'yes'\n",
            "'Off': 'on'\n",
            "time: '1:20'\n",
            "plain: Developer utilities as CTP tools\n",
        ] {
            assert!(text.contains(line), "{line:?} in {text}");
        }
        let back: serde_json::Value = serde_norway::from_str(&text).unwrap();
        assert_eq!(back, doc, "{text}");
    }

    #[test]
    fn json_to_yaml_keeps_number_literals() {
        let out = to_yaml(r#"{"big":12345678901234567890123,"f":1.0,"e":1e3,"neg":-0.5}"#);
        assert_eq!(
            out,
            "big: 12345678901234567890123\nf: 1.0\ne: 1e3\nneg: -0.5\n"
        );
        // Round trip through yaml-to-json keeps values.
        let back = run_ok(
            "yaml-to-json",
            json!({"input": "f: 1.0\ne: 1e3\n", "indent": "0"}),
        );
        assert_eq!(back["output"], r#"{"f":1.0,"e":1000.0}"#);
    }

    #[test]
    fn json_to_yaml_rejects_malformed_json() {
        let (code, msg) = run_err("json-to-yaml", json!({"input": "{\"a\": tru}"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid JSON at line 1, column"), "{msg}");
    }

    // The merge-key example from https://yaml.org/type/merge.html.
    #[test]
    fn yaml_to_json_resolves_anchors_and_merge_keys() {
        let input = "- &CENTER { x: 1, y: 2 }\n- &LEFT { x: 0, y: 2 }\n- &BIG { r: 10 }\n- &SMALL { r: 1 }\n- # Explicit keys\n  x: 1\n  y: 2\n  r: 10\n  label: center/big\n- # Merge one map\n  << : *CENTER\n  r: 10\n  label: center/big\n- # Override\n  << : [ *BIG, *LEFT, *SMALL ]\n  x: 1\n  label: center/big\n";
        let data = run_ok("yaml-to-json", json!({ "input": input, "indent": "0" }));
        let v: serde_json::Value = serde_json::from_str(data["output"].as_str().unwrap()).unwrap();
        let expected = json!({"x": 1, "y": 2, "r": 10, "label": "center/big"});
        for i in 4..7 {
            let mut obj = v[i].as_object().unwrap().clone();
            obj.sort_keys();
            let mut exp = expected.as_object().unwrap().clone();
            exp.sort_keys();
            assert_eq!(obj, exp, "item {i}");
        }
    }

    #[test]
    fn yaml_to_json_formats_and_types_scalars() {
        let data = run_ok(
            "yaml-to-json",
            json!({"input": "name: Ada\nyes: no\n1: one\nnull: ~\nlist: [a, 'b']\nver: 1.10\n"}),
        );
        // YAML 1.2 core schema: yes/no are strings, ~ is null, 1.10 is a float.
        assert_eq!(
            data["output"],
            "{\n  \"name\": \"Ada\",\n  \"yes\": \"no\",\n  \"1\": \"one\",\n  \"null\": null,\n  \"list\": [\n    \"a\",\n    \"b\"\n  ],\n  \"ver\": 1.1\n}"
        );
        assert_eq!(data["documents"], 1);
    }

    #[test]
    fn yaml_to_json_multiple_documents_become_an_array() {
        let data = run_ok(
            "yaml-to-json",
            json!({"input": "---\na: 1\n---\n- x\n...\n", "indent": "0"}),
        );
        assert_eq!(data["output"], r#"[{"a":1},["x"]]"#);
        assert_eq!(data["documents"], 2);
    }

    #[test]
    fn yaml_to_json_reports_errors_with_position() {
        let (code, msg) = run_err("yaml-to-json", json!({"input": "a: 1\nb: [1, 2\nc: 3\n"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid YAML at line"), "{msg}");
        let (code, msg) = run_err("yaml-to-json", json!({"input": "a: .inf\n"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("infinity"), "{msg}");
    }

    // "Billion laughs": nine levels of nine-fold aliases would expand to 9^9 strings.
    #[test]
    fn yaml_to_json_refuses_alias_bombs() {
        let mut doc = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(",");
            doc.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
        }
        let (code, msg) = run_err("yaml-to-json", json!({ "input": doc }));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("repetition limit exceeded"), "{msg}");
    }

    fn fmt_yaml(input: &str, sort: bool) -> serde_json::Value {
        run_ok("yaml-formatter", json!({"input": input, "sortKeys": sort}))
    }

    // YAML 1.2 spec examples 2.3 and 2.6.
    #[test]
    fn yaml_formatter_spec_examples_to_block_style() {
        let data = fmt_yaml(
            "american:\n    - Boston Red Sox\n    - Detroit Tigers\nnational:\n    - New York Mets  # comment\n",
            false,
        );
        assert_eq!(
            data["output"],
            "american:\n- Boston Red Sox\n- Detroit Tigers\nnational:\n- New York Mets\n"
        );
        let data = fmt_yaml(
            "Mark McGwire: {hr: 65, avg: 0.278}\nSammy Sosa: {\n    hr: 63,\n    avg: 0.288,\n }\n",
            false,
        );
        assert_eq!(
            data["output"],
            "Mark McGwire:\n  hr: 65\n  avg: 0.278\nSammy Sosa:\n  hr: 63\n  avg: 0.288\n"
        );
        assert_eq!(data["documents"], 1);
    }

    // YAML 1.2 spec example 2.10 (aliases are expanded) and a multi-document stream.
    #[test]
    fn yaml_formatter_expands_aliases_and_keeps_documents() {
        let data = fmt_yaml(
            "---\nhr:\n  - Mark McGwire\n  # Following node labeled SS\n  - &SS Sammy Sosa\nrbi:\n  - *SS # Subsequent occurrence\n  - Ken Griffey\n",
            false,
        );
        assert_eq!(
            data["output"],
            "hr:\n- Mark McGwire\n- Sammy Sosa\nrbi:\n- Sammy Sosa\n- Ken Griffey\n"
        );
        let data = fmt_yaml("a: 1\n---\n[x, y]\n", false);
        assert_eq!(data["output"], "a: 1\n---\n- x\n- 'y'\n");
        assert_eq!(data["documents"], 2);
    }

    // 'no', 'on' and the key y are booleans to YAML 1.1 readers, so they come out quoted.
    #[test]
    fn yaml_formatter_sorts_keys_and_keeps_strings_strings() {
        let data = fmt_yaml(
            "zeta: {b: 2, a: 1}\nalpha: ['no', \"on\", 0x1F, !custom {y: 1, x: 2}]\n3: three\n",
            true,
        );
        assert_eq!(
            data["output"],
            "alpha:\n- 'no'\n- 'on'\n- 31\n- !custom\n  x: 2\n  'y': 1\nzeta:\n  a: 1\n  b: 2\n3: three\n"
        );
    }

    #[test]
    fn yaml_formatter_reports_errors_with_position() {
        let (code, msg) = run_err("yaml-formatter", json!({"input": "a: 1\n  b: 2\n"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid YAML at line 2, column"), "{msg}");
        let (code, _) = run_err("yaml-formatter", json!({"input": "  \n"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::{JSON_DEPTH, YAML_DEPTH};
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep_json = nest("[", "", "]", 1_000_000);
        assert_too_deep(
            "json-to-yaml",
            json!({"input": deep_json}),
            "input",
            JSON_DEPTH,
        );
        // Block sequences on one line: "- - - x" nests as deep as it has dashes.
        let deep_yaml = "- ".repeat(1_000_000) + "x\n";
        for id in ["yaml-to-json", "yaml-formatter"] {
            assert_too_deep(id, json!({"input": deep_yaml}), "input", YAML_DEPTH);
        }
        let (_, msg) = run_err("yaml-to-json", json!({"input": deep_yaml}));
        assert!(msg.contains("(at line 1, column"), "{msg}");
        // Just under the limits.
        let ok = to_yaml(&nest("[", "1", "]", JSON_DEPTH));
        assert_eq!(ok.lines().count(), 1);
        let yaml = "- ".repeat(YAML_DEPTH - 1) + "x\n";
        let data = run_ok("yaml-to-json", json!({"input": yaml, "indent": "0"}));
        assert_eq!(data["output"], nest("[", "\"x\"", "]", YAML_DEPTH - 1));
        let data = run_ok("yaml-formatter", json!({"input": yaml}));
        assert_eq!(data["documents"], 1);
    }

    #[test]
    fn deep_flow_collections_are_refused_before_parsing() {
        use crate::tools::kit::depth::YAML_DEPTH;
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("[", "1", "]", 1_000_000);
        assert_too_deep("yaml-to-json", json!({"input": deep}), "input", YAML_DEPTH);
        let (_, msg) = run_err("yaml-to-json", json!({"input": deep}));
        assert!(msg.contains("(at line 1, column 129)"), "{msg}");
        // Brackets inside plain scalars, quotes and comments are text.
        let text = "- x[y\n".repeat(300) + &"- '[[[['\n".repeat(100) + "# [[[[[[\n";
        let data = run_ok("yaml-to-json", json!({"input": text, "indent": "0"}));
        assert!(
            data["output"]
                .as_str()
                .unwrap()
                .starts_with("[\"x[y\",\"x[y\""),
            "{data}"
        );
        let ok = nest("[", "1", "]", YAML_DEPTH);
        let data = run_ok("yaml-to-json", json!({"input": ok, "indent": "0"}));
        assert_eq!(data["output"], nest("[", "1", "]", YAML_DEPTH));
    }

    #[test]
    fn yaml_over_its_size_limit_is_refused() {
        let big = "a: b\n".repeat((super::MAX_YAML / 5) + 1);
        let (code, msg) = run_err("yaml-to-json", json!({"input": big}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with(
                "the YAML is 8.0 MiB, more than the 8.0 MiB cmpx parses in this format"
            ),
            "{msg}"
        );
    }
}
