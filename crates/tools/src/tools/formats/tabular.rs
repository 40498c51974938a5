//! JSON ⇄ CSV converters (RFC 4180 through the csv crate).
//!
//! JSON is read with the literal-preserving reader from `json.rs`, so numbers reach the CSV
//! cells exactly as written, and CSV rows are written as JSON through the same emitter.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::json::{self, Emitter, Node};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use csv::{QuoteStyle, Terminator, Trim};
use regex::Regex;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("json-to-csv", json_to_csv),
    Tool::new("csv-to-json", csv_to_json),
];

fn delimiter_byte(name: &str) -> u8 {
    match name {
        "semicolon" => b';',
        "tab" => b'\t',
        "pipe" => b'|',
        _ => b',',
    }
}

fn delimiter_name(byte: u8) -> &'static str {
    match byte {
        b';' => "semicolon",
        b'\t' => "tab",
        b'|' => "pipe",
        _ => "comma",
    }
}

fn kind(node: &Node<'_>) -> &'static str {
    match node {
        Node::Str(_) => "a string",
        Node::Lit("null") => "null",
        Node::Lit("true" | "false") => "a boolean",
        Node::Lit(_) => "a number",
        Node::Array(_) => "an array",
        Node::Object(_) => "an object",
    }
}

/// The CSV text of a scalar; arrays and objects become compact JSON.
fn cell(node: &Node<'_>) -> String {
    match node {
        Node::Str(raw) => json::unquote(raw).into_owned(),
        Node::Lit("null") => String::new(),
        Node::Lit(s) => (*s).to_string(),
        other => json::to_compact(other),
    }
}

/// Appends `node`'s cells under `prefix`, flattening nested objects to dotted column names.
fn flatten_into(prefix: String, node: &Node<'_>, flatten: bool, out: &mut Vec<(String, String)>) {
    match node {
        Node::Object(members) if flatten && !members.is_empty() => {
            for (key, value) in members {
                let key = json::unquote(key);
                let name = if prefix.is_empty() {
                    key.into_owned()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten_into(name, value, flatten, out);
            }
        }
        other => out.push((prefix, cell(other))),
    }
}

const SHAPE: &str =
    "expected an array of objects (one row each), an array of arrays, or a single object";

fn json_to_csv(args: &Args) -> ToolOutcome {
    let tree = json::parse(args.str("input")?)?;
    let flatten = args.flag("flatten");
    let rows: Vec<&Node<'_>> = match &tree {
        Node::Array(items) => items.iter().collect(),
        Node::Object(_) => vec![&tree],
        other => {
            return Err(ToolError::invalid(format!(
                "{SHAPE}, but the input is {}",
                kind(other)
            )));
        }
    };
    let arrays = matches!(rows.first(), Some(Node::Array(_)));
    for (i, row) in rows.iter().enumerate() {
        let ok = if arrays {
            matches!(row, Node::Array(_))
        } else {
            matches!(row, Node::Object(_))
        };
        if !ok {
            return Err(ToolError::invalid(format!(
                "{SHAPE}; element {i} (0-based) is {} while element 0 is {}",
                kind(row),
                kind(rows[0])
            )));
        }
    }

    let mut w = csv::WriterBuilder::new();
    w.delimiter(delimiter_byte(args.str("delimiter")?))
        .flexible(true)
        .terminator(if args.str("lineEnding")? == "crlf" {
            Terminator::CRLF
        } else {
            Terminator::Any(b'\n')
        })
        .quote_style(if args.flag("quoteAll") {
            QuoteStyle::Always
        } else {
            QuoteStyle::Necessary
        });
    let mut writer = w.from_writer(Vec::new());
    let write_err = |e: csv::Error| ToolError::execution(format!("CSV writing failed: {e}"));

    let mut columns: Vec<String> = Vec::new();
    if arrays {
        for row in &rows {
            if let Node::Array(items) = row {
                writer
                    .write_record(items.iter().map(cell))
                    .map_err(write_err)?;
            }
        }
    } else {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut table: Vec<Vec<(usize, String)>> = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut cells = Vec::new();
            if let Node::Object(members) = row {
                for (key, value) in members {
                    flatten_into(json::unquote(key).into_owned(), value, flatten, &mut cells);
                }
            }
            let placed = cells
                .into_iter()
                .map(|(name, value)| {
                    let next = columns.len();
                    let col = *index.entry(name.clone()).or_insert(next);
                    if col == next {
                        columns.push(name);
                    }
                    (col, value)
                })
                .collect();
            table.push(placed);
        }
        if args.flag("includeHeader") && !columns.is_empty() {
            writer.write_record(&columns).map_err(write_err)?;
        }
        let mut record = vec![String::new(); columns.len()];
        for cells in table {
            record.iter_mut().for_each(String::clear);
            for (col, value) in cells {
                record[col] = value;
            }
            writer.write_record(&record).map_err(write_err)?;
        }
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| ToolError::execution(format!("CSV writing failed: {e}")))?;
    let output = String::from_utf8(bytes)
        .map_err(|e| ToolError::execution(format!("CSV output is not UTF-8: {e}")))?;
    Ok(json!({ "output": output, "rows": rows.len(), "columns": columns }))
}

/// Picks the candidate delimiter that occurs most often, outside quotes, in the first record.
fn detect_delimiter(text: &str) -> u8 {
    const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];
    let mut counts = [0usize; 4];
    let mut quoted = false;
    for b in text.bytes() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' | b'\r' if !quoted => break,
            _ if !quoted => {
                if let Some(i) = CANDIDATES.iter().position(|&c| c == b) {
                    counts[i] += 1;
                }
            }
            _ => {}
        }
    }
    let best = (0..4).fold(0, |best, i| if counts[i] > counts[best] { i } else { best });
    CANDIDATES[best]
}

static JSON_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$").expect("static regex")
});

/// Largest integer a JavaScript number (IEEE double) holds exactly: 2^53 − 1.
const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// A field as a JSON token: a quoted string, or with dynamic typing a number, boolean or null.
fn field_token(field: &str, dynamic: bool) -> String {
    if dynamic {
        match field {
            "" => return "null".into(),
            "true" | "True" | "TRUE" => return "true".into(),
            "false" | "False" | "FALSE" => return "false".into(),
            _ => {}
        }
        if JSON_NUMBER.is_match(field) {
            let integer = !field.contains(['.', 'e', 'E']);
            // Integers past 2^53 (IDs, card numbers) would lose digits in JavaScript.
            let safe = !integer
                || field
                    .trim_start_matches('-')
                    .parse::<u64>()
                    .is_ok_and(|n| n <= MAX_SAFE_INTEGER);
            if safe {
                return field.to_string();
            }
        }
    }
    serde_json::to_string(field).unwrap_or_else(|_| "\"\"".into())
}

fn csv_to_json(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    if input.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected CSV text such as 'name,age\\nAda,36'",
        ));
    }
    let delimiter = match args.str("delimiter")? {
        "auto" => detect_delimiter(input),
        name => delimiter_byte(name),
    };
    let header = args.flag("header");
    let flexible = args.flag("flexible");
    let dynamic = args.flag("dynamicTyping");
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(flexible)
        .trim(if args.flag("trim") {
            Trim::All
        } else {
            Trim::None
        })
        .from_reader(input.as_bytes());

    let mut records: Vec<Vec<String>> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (i, result) in reader.records().enumerate() {
        let record = result.map_err(|e| csv_error(&e, header))?;
        if header && i == 0 {
            names = unique_names(record.iter());
            continue;
        }
        records.push(record.iter().map(|f| field_token(f, dynamic)).collect());
    }

    let keys: Vec<String> = names
        .iter()
        .map(|n| serde_json::to_string(n).unwrap_or_default())
        .collect();
    let rows: Vec<Node<'_>> = records
        .iter()
        .map(|fields| {
            if !header {
                return Node::Array(fields.iter().map(|t| node_of(t)).collect());
            }
            let mut members: Vec<(&str, Node<'_>)> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    (
                        k.as_str(),
                        fields.get(i).map_or(Node::Lit("null"), |t| node_of(t)),
                    )
                })
                .collect();
            if fields.len() > keys.len() {
                let extra = fields[keys.len()..].iter().map(|t| node_of(t)).collect();
                members.push(("\"_extra\"", Node::Array(extra)));
            }
            Node::Object(members)
        })
        .collect();
    let mut emitter = Emitter::new(Some("  "), false, input.len() * 2 + 16);
    emitter.node(&Node::Array(rows));
    let mut data = json!({
        "output": emitter.finish(),
        "rows": records.len(),
        "delimiter": delimiter_name(delimiter),
    });
    if header {
        data["columns"] = json!(names);
    }
    Ok(data)
}

/// Header names made unique the way PapaParse does: a repeated `a` becomes `a_1`, `a_2`, …
/// A JSON token made by `field_token` as a tree leaf.
fn node_of(t: &str) -> Node<'_> {
    if t.starts_with('"') {
        Node::Str(t)
    } else {
        Node::Lit(t)
    }
}

fn unique_names<'r>(fields: impl Iterator<Item = &'r str>) -> Vec<String> {
    let mut seen = HashSet::new();
    fields
        .map(|f| {
            let mut name = f.to_string();
            let mut n = 0;
            while !seen.insert(name.clone()) {
                n += 1;
                name = format!("{f}_{n}");
            }
            name
        })
        .collect()
}

fn csv_error(e: &csv::Error, header: bool) -> ToolError {
    if let csv::ErrorKind::UnequalLengths {
        pos,
        expected_len,
        len,
    } = e.kind()
    {
        let line = pos
            .as_ref()
            .map_or(String::from("a row"), |p| format!("line {}", p.line()));
        let first = if header {
            "the header row"
        } else {
            "the first row"
        };
        return ToolError::invalid(format!(
            "{line} has {len} field(s) but {first} has {expected_len}; check for a missing or extra delimiter or an unclosed quote, or set flexible to accept ragged rows"
        ));
    }
    let at = e
        .position()
        .map(|p| format!(" at line {}", p.line()))
        .unwrap_or_default();
    ToolError::invalid(format!("invalid CSV{at}: {e}"))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // RFC 4180 §2: fields containing delimiters, quotes or line breaks are quoted, and quotes
    // inside are doubled; rows end with CRLF.
    #[test]
    fn json_to_csv_rfc4180_quoting_and_crlf() {
        let data = run_ok(
            "json-to-csv",
            json!({"input": r#"[{"a":"x,y","b":"say \"hi\"","c":"two\nlines"},{"a":"plain","b":"","c":null}]"#, "lineEnding": "crlf"}),
        );
        assert_eq!(
            data["output"],
            "a,b,c\r\n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\r\nplain,,\r\n"
        );
        assert_eq!(data["rows"], 2);
    }

    #[test]
    fn json_to_csv_flattens_and_unions_keys() {
        let input =
            r#"[{"id":1,"user":{"name":"Ada","langs":["en","fr"]}},{"id":2.50,"extra":true}]"#;
        let data = run_ok("json-to-csv", json!({ "input": input }));
        assert_eq!(
            data["output"],
            "id,user.name,user.langs,extra\n1,Ada,\"[\"\"en\"\",\"\"fr\"\"]\",\n2.50,,,true\n"
        );
        assert_eq!(
            data["columns"],
            json!(["id", "user.name", "user.langs", "extra"])
        );
        let data = run_ok(
            "json-to-csv",
            json!({"input": input, "flatten": false, "delimiter": "semicolon", "includeHeader": false}),
        );
        assert_eq!(
            data["output"],
            "1;\"{\"\"name\"\":\"\"Ada\"\",\"\"langs\"\":[\"\"en\"\",\"\"fr\"\"]}\";\n2.50;;true\n"
        );
    }

    #[test]
    fn json_to_csv_single_object_and_array_of_arrays() {
        let data = run_ok(
            "json-to-csv",
            json!({"input": r#"{"x":1,"y":"b"}"#, "delimiter": "tab"}),
        );
        assert_eq!(data["output"], "x\ty\n1\tb\n");
        let data = run_ok(
            "json-to-csv",
            json!({"input": r#"[["h1","h2"],[1,null],[true,[2]]]"#}),
        );
        assert_eq!(data["output"], "h1,h2\n1,\ntrue,[2]\n");
        assert_eq!(data["rows"], 3);
    }

    #[test]
    fn json_to_csv_rejects_wrong_shapes() {
        let (code, msg) = run_err("json-to-csv", json!({"input": "\"text\""}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("but the input is a string"), "{msg}");
        let (_, msg) = run_err("json-to-csv", json!({"input": r#"[{"a":1}, 5]"#}));
        assert!(msg.contains("element 1 (0-based) is a number"), "{msg}");
        let (_, msg) = run_err("json-to-csv", json!({"input": r#"[{"a":1}"#}));
        assert!(msg.starts_with("invalid JSON at line 1"), "{msg}");
    }

    // The RFC 4180 §2 examples: a quoted field with an embedded line break, comma and
    // doubled quote.
    #[test]
    fn csv_to_json_parses_rfc4180_fields() {
        let input =
            "field_name,field_name2\r\n\"aaa\",\"b\r\nbb\"\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n";
        let data = run_ok("csv-to-json", json!({ "input": input }));
        assert_eq!(
            data["output"],
            "[\n  {\n    \"field_name\": \"aaa\",\n    \"field_name2\": \"b\\r\\nbb\"\n  },\n  {\n    \"field_name\": \"a,b\",\n    \"field_name2\": \"say \\\"hi\\\"\"\n  }\n]"
        );
        assert_eq!(data["rows"], 2);
        assert_eq!(data["columns"], json!(["field_name", "field_name2"]));
    }

    #[test]
    fn csv_to_json_detects_delimiter_and_types_values() {
        let input = "id;price;ok;note;zip;card\n1;2.50;TRUE;;007;12345678901234567890\n";
        let data = run_ok(
            "csv-to-json",
            json!({"input": input, "dynamicTyping": true}),
        );
        assert_eq!(data["delimiter"], "semicolon");
        let rows: serde_json::Value =
            serde_json::from_str(data["output"].as_str().unwrap()).unwrap();
        assert_eq!(
            rows,
            json!([{"id": 1, "price": 2.5, "ok": true, "note": null, "zip": "007", "card": "12345678901234567890"}])
        );
        assert!(data["output"].as_str().unwrap().contains("\"price\": 2.50"));
    }

    #[test]
    fn csv_to_json_without_header_trim_and_duplicates() {
        let data = run_ok(
            "csv-to-json",
            json!({"input": "a | b\n1 | 2\n", "header": false, "trim": true}),
        );
        assert_eq!(
            data["output"],
            "[\n  [\n    \"a\",\n    \"b\"\n  ],\n  [\n    \"1\",\n    \"2\"\n  ]\n]"
        );
        let data = run_ok("csv-to-json", json!({"input": "a,a,b\n1,2,3\n"}));
        assert_eq!(data["columns"], json!(["a", "a_1", "b"]));
    }

    #[test]
    fn csv_to_json_ragged_rows() {
        let (code, msg) = run_err("csv-to-json", json!({"input": "a,b,c\n1,2,3\n4,5\n"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("line 3 has 2 field(s) but the header row has 3"),
            "{msg}"
        );
        let data = run_ok(
            "csv-to-json",
            json!({"input": "a,b\n1\n2,3,4\n", "flexible": true, "delimiter": "comma"}),
        );
        let rows: serde_json::Value =
            serde_json::from_str(data["output"].as_str().unwrap()).unwrap();
        assert_eq!(
            rows,
            json!([{"a": "1", "b": null}, {"a": "2", "b": "3", "_extra": ["4"]}])
        );
    }

    #[test]
    fn json_nesting_is_limited() {
        use crate::tools::kit::depth::JSON_DEPTH;
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = format!("[{{\"a\": {}}}]", nest("[", "", "]", 1_000_000));
        assert_too_deep("json-to-csv", json!({"input": deep}), "input", JSON_DEPTH);
        let ok = format!("[{{\"a\": {}}}]", nest("[", "1", "]", JSON_DEPTH - 2));
        let data = run_ok("json-to-csv", json!({"input": ok}));
        assert!(
            data["output"].as_str().unwrap().starts_with("a\n"),
            "{data}"
        );
    }
}
