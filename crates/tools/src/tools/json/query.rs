//! JSON queries and comparison: JSONPath (RFC 9535, serde_json_path) and JSON diff as an
//! RFC 6902 JSON Patch (json-patch) with a readable change list.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::json;
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, MAX_RESULTS, Tally};
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use serde_json::{Map, Value, json};
use serde_json_path::{JsonPath, PathElement};
use std::fmt::Write as _;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("jsonpath-tester", jsonpath_tester),
    Tool::new("json-diff", json_diff),
];

/// Parses a JSON document, naming which input it was in the error; `tally` counts the values
/// of every document the tool holds.
fn parse_doc(args: &Args, name: &str, tally: &mut Tally) -> Result<Value, ToolError> {
    json::parse_value_counting(args.str(name)?, tally).map_err(|e| {
        ToolError::invalid(match e.message.strip_prefix("input nests ") {
            Some(rest) => format!("{name} nests {rest}"),
            None => format!("{name}: {}", e.message),
        })
    })
}

/// JSONPath brackets and string literals, for the depth check that runs before
/// serde_json_path's recursive parser.
const PATH_SYNTAX: depth::Syntax = depth::Syntax {
    open: b"([",
    close: b")]",
    quotes: b"'\"",
    escapes: true,
    block_comments: false,
    interpolation: false,
    line_breaks: b"",
};

fn jsonpath_tester(args: &Args) -> ToolOutcome {
    let query = args.str("path")?;
    depth::check("path", query, &PATH_SYNTAX, depth::MAX_DEPTH)?;
    let doc = parse_doc(args, "input", &mut Tally::default())?;
    // Filters nest as deep as their brackets, and the parser and the query recurse per level.
    depth::with_stack(|| query_doc(&doc, query))
}

fn query_doc(doc: &Value, query: &str) -> ToolOutcome {
    let path = JsonPath::parse(query).map_err(|e| {
        ToolError::invalid(format!(
            "invalid JSONPath at character {}: {} (query: {query})",
            e.position(),
            e.message()
        ))
    })?;
    // Matches are references until here; each one listed copies its subtree and spells its
    // path twice, so both are bounded before the located query builds every path.
    let matched = path.query(doc);
    if matched.len() > MAX_RESULTS {
        return Err(too_many_matches(matched.len()));
    }
    let mut tally = Tally::default();
    for node in matched.iter() {
        if !count_values(node, &mut tally) {
            return Err(budget::too_many(
                "the matched values",
                "values in all",
                "each match carries a copy of its subtree: narrow the query (for example $.a[*].id instead of $..*)",
            ));
        }
    }
    let nodes = path.query_located(doc);
    let mut values = Vec::with_capacity(nodes.len());
    let mut paths = Vec::with_capacity(nodes.len());
    let mut pointers = Vec::with_capacity(nodes.len());
    for node in nodes.iter() {
        values.push(node.node().clone());
        paths.push(Value::String(normalized_path(node.location().iter())));
        pointers.push(Value::String(node.location().to_json_pointer()));
    }
    Ok(json!({
        "count": values.len(),
        "values": values,
        "paths": paths,
        "pointers": pointers,
    }))
}

fn too_many_matches(found: usize) -> ToolError {
    ToolError::invalid(format!(
        "the query matches {found} nodes; jsonpath-tester lists at most {MAX_RESULTS}: narrow the query, or count with jq-processor ('[..] | length')"
    ))
}

/// Adds the values of `v`'s subtree to `tally`, stopping early once it is over; false then.
/// Recursive: documents are at most `JSON_DEPTH` deep.
fn count_values(v: &Value, tally: &mut Tally) -> bool {
    if !tally.add() {
        return false;
    }
    match v {
        Value::Array(items) => items.iter().all(|i| count_values(i, tally)),
        Value::Object(map) => map.values().all(|i| count_values(i, tally)),
        _ => true,
    }
}

/// RFC 9535 §2.7 normalized path: `$['name'][0]`, names in single quotes with `'` and `\`
/// escaped and control characters as `\b \f \n \r \t` or `\u00XX`.
fn normalized_path<'a>(elements: impl Iterator<Item = &'a PathElement<'a>>) -> String {
    let mut out = String::from("$");
    for element in elements {
        match element {
            PathElement::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
            PathElement::Name(name) => {
                out.push_str("['");
                for c in name.chars() {
                    match c {
                        '\'' => out.push_str("\\'"),
                        '\\' => out.push_str("\\\\"),
                        '\u{8}' => out.push_str("\\b"),
                        '\u{c}' => out.push_str("\\f"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        c if u32::from(c) < 0x20 => {
                            let _ = write!(out, "\\u{:04x}", u32::from(c));
                        }
                        c => out.push(c),
                    }
                }
                out.push_str("']");
            }
        }
    }
    out
}

fn json_diff(args: &Args) -> ToolOutcome {
    let mut tally = Tally::default();
    let original = parse_doc(args, "original", &mut tally)?;
    let modified = parse_doc(args, "modified", &mut tally)?;
    // The change list is made first, since it stops at MAX_RESULTS; the patch has one
    // operation per change.
    let mut changes = Vec::new();
    walk(&original, &modified, &mut String::new(), &mut changes);
    if changes.len() > MAX_RESULTS {
        return Err(ToolError::invalid(format!(
            "the documents differ in more than {MAX_RESULTS} places, the most json-diff lists; compare smaller parts of them (select each with jq-processor), or use text-diff on their formatted text"
        )));
    }
    let patch = json_patch::diff(&original, &modified);
    let count = |kind: &str| changes.iter().filter(|c| c["type"] == kind).count();
    let (added, removed, changed) = (count("added"), count("removed"), count("changed"));
    let patch = serde_json::to_value(&patch)
        .map_err(|e| ToolError::execution(format!("JSON Patch serialisation failed: {e}")))?;
    Ok(json!({
        "identical": changes.is_empty(),
        "patch": patch,
        "changes": changes,
        "added": added,
        "removed": removed,
        "changed": changed,
    }))
}

/// Lists differences the way `json_patch::diff` finds them (objects by key, arrays by index),
/// but with paths into the original document for removals and changes and into the modified
/// one for additions, and with the values on both sides. Stops one past [`MAX_RESULTS`].
fn walk(a: &Value, b: &Value, pointer: &mut String, out: &mut Vec<Value>) {
    if out.len() > MAX_RESULTS {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => walk_object(x, y, pointer, out),
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                if out.len() > MAX_RESULTS {
                    return;
                }
                let len = pointer.len();
                let _ = write!(pointer, "/{i}");
                match (x.get(i), y.get(i)) {
                    (Some(l), Some(r)) => walk(l, r, pointer, out),
                    (Some(l), None) => {
                        out.push(json!({"type": "removed", "path": pointer, "from": l}))
                    }
                    (None, Some(r)) => out.push(json!({"type": "added", "path": pointer, "to": r})),
                    (None, None) => {}
                }
                pointer.truncate(len);
            }
        }
        _ if a == b => {}
        _ => out.push(json!({"type": "changed", "path": pointer, "from": a, "to": b})),
    }
}

fn walk_object(
    x: &Map<String, Value>,
    y: &Map<String, Value>,
    pointer: &mut String,
    out: &mut Vec<Value>,
) {
    for (key, r) in y {
        if out.len() > MAX_RESULTS {
            return;
        }
        let len = pointer.len();
        push_token(pointer, key);
        match x.get(key) {
            Some(l) => walk(l, r, pointer, out),
            None => out.push(json!({"type": "added", "path": pointer, "to": r})),
        }
        pointer.truncate(len);
    }
    for (key, l) in x {
        if out.len() > MAX_RESULTS {
            return;
        }
        if !y.contains_key(key) {
            let len = pointer.len();
            push_token(pointer, key);
            out.push(json!({"type": "removed", "path": pointer, "from": l}));
            pointer.truncate(len);
        }
    }
}

/// Appends an RFC 6901 reference token (`~` → `~0`, `/` → `~1`).
fn push_token(pointer: &mut String, key: &str) {
    pointer.push('/');
    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    /// RFC 9535 Figure 1 (after Goessner's original JSONPath article).
    const BOOKSTORE: &str = r#"{ "store": {
    "book": [
      { "category": "reference",
        "author": "Nigel Rees",
        "title": "Sayings of the Century",
        "price": 8.95
      },
      { "category": "fiction",
        "author": "Evelyn Waugh",
        "title": "Sword of Honour",
        "price": 12.99
      },
      { "category": "fiction",
        "author": "Herman Melville",
        "title": "Moby Dick",
        "isbn": "0-553-21311-3",
        "price": 8.99
      },
      { "category": "fiction",
        "author": "J. R. R. Tolkien",
        "title": "The Lord of the Rings",
        "isbn": "0-395-19395-8",
        "price": 22.99
      }
    ],
    "bicycle": {
      "color": "red",
      "price": 399
    }
  }
}"#;

    fn query(path: &str) -> Value {
        run_ok("jsonpath-tester", json!({"input": BOOKSTORE, "path": path}))
    }

    // RFC 9535 Table 2 examples.
    #[test]
    fn rfc9535_authors_of_all_books() {
        let data = query("$.store.book[*].author");
        assert_eq!(
            data["values"],
            json!([
                "Nigel Rees",
                "Evelyn Waugh",
                "Herman Melville",
                "J. R. R. Tolkien"
            ])
        );
        assert_eq!(data["paths"][0], "$['store']['book'][0]['author']");
        assert_eq!(data["pointers"][3], "/store/book/3/author");
        assert_eq!(data["count"], 4);
        // $..author finds the same four.
        assert_eq!(query("$..author")["count"], 4);
    }

    #[test]
    fn rfc9535_third_book_last_book_and_first_two() {
        let data = query("$..book[2].author");
        assert_eq!(data["values"], json!(["Herman Melville"]));
        assert_eq!(data["paths"], json!(["$['store']['book'][2]['author']"]));
        assert_eq!(query("$..book[2].publisher")["count"], 0);
        assert_eq!(
            query("$..book[-1]")["values"][0]["title"],
            "The Lord of the Rings"
        );
        assert_eq!(query("$..book[-1]")["paths"][0], "$['store']['book'][3]");
        let first_two = query("$..book[:2]");
        assert_eq!(
            first_two["paths"],
            json!(["$['store']['book'][0]", "$['store']['book'][1]"])
        );
        assert_eq!(query("$..book[0,1]")["paths"], first_two["paths"]);
    }

    #[test]
    fn rfc9535_filters() {
        let isbn = query("$..book[?@.isbn]");
        assert_eq!(
            isbn["paths"],
            json!(["$['store']['book'][2]", "$['store']['book'][3]"])
        );
        let cheap = query("$..book[?@.price<10].title");
        assert_eq!(
            cheap["values"],
            json!(["Sayings of the Century", "Moby Dick"])
        );
        let prices = query("$.store..price");
        assert_eq!(prices["count"], 5);
        let all = query("$..*");
        assert_eq!(all["count"], 27);
    }

    // RFC 9535 §2.7 Table 16: escaping in normalized paths.
    #[test]
    fn normalized_paths_escape_names() {
        let data = run_ok(
            "jsonpath-tester",
            json!({"input": r#"{"a'b": 1, "c\\d": 2, "e\u000bf": 3, "g\nh": 4}"#, "path": "$.*"}),
        );
        assert_eq!(
            data["paths"],
            json!(["$['a\\'b']", "$['c\\\\d']", "$['e\\u000bf']", "$['g\\nh']"])
        );
    }

    #[test]
    fn jsonpath_errors_name_position_and_document() {
        let (code, msg) = run_err(
            "jsonpath-tester",
            json!({"input": BOOKSTORE, "path": "$.store[?@.price <]"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("invalid JSONPath at character"), "{msg}");
        let (code, msg) = run_err(
            "jsonpath-tester",
            json!({"input": "{\"a\": }", "path": "$.a"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("input: invalid JSON at line 1, column 7"),
            "{msg}"
        );
    }

    fn diff(a: &str, b: &str) -> Value {
        run_ok("json-diff", json!({"original": a, "modified": b}))
    }

    /// The patch must turn the original into the modified document.
    fn check_applies(a: &str, b: &str) -> Value {
        let data = diff(a, b);
        let mut doc: Value = serde_json::from_str(a).unwrap();
        let patch: json_patch::Patch = serde_json::from_value(data["patch"].clone()).unwrap();
        json_patch::patch(&mut doc, &patch).unwrap();
        assert_eq!(doc, serde_json::from_str::<Value>(b).unwrap());
        data
    }

    // RFC 6902 Appendix A.1 and A.3: adding and removing an object member.
    #[test]
    fn rfc6902_object_member_add_and_remove() {
        let data = check_applies(r#"{"foo":"bar"}"#, r#"{"baz":"qux","foo":"bar"}"#);
        assert_eq!(
            data["patch"],
            json!([{"op": "add", "path": "/baz", "value": "qux"}])
        );
        assert_eq!(
            data["changes"],
            json!([{"type": "added", "path": "/baz", "to": "qux"}])
        );
        assert_eq!(data["identical"], false);
        let data = check_applies(r#"{"baz":"qux","foo":"bar"}"#, r#"{"foo":"bar"}"#);
        assert_eq!(data["patch"], json!([{"op": "remove", "path": "/baz"}]));
        assert_eq!(
            data["changes"],
            json!([{"type": "removed", "path": "/baz", "from": "qux"}])
        );
    }

    // RFC 6902 Appendix A.5 (replacing a value) and A.10 (adding a nested member object).
    #[test]
    fn rfc6902_replace_and_nested_add() {
        let data = check_applies(
            r#"{"baz":"qux","foo":"bar"}"#,
            r#"{"baz":"boo","foo":"bar"}"#,
        );
        assert_eq!(
            data["patch"],
            json!([{"op": "replace", "path": "/baz", "value": "boo"}])
        );
        assert_eq!(
            data["changes"],
            json!([{"type": "changed", "path": "/baz", "from": "qux", "to": "boo"}])
        );
        let data = check_applies(
            r#"{"foo":"bar"}"#,
            r#"{"foo":"bar","child":{"grandchild":{}}}"#,
        );
        assert_eq!(
            data["patch"],
            json!([{"op": "add", "path": "/child", "value": {"grandchild": {}}}])
        );
        assert_eq!(
            (
                data["added"].clone(),
                data["removed"].clone(),
                data["changed"].clone()
            ),
            (json!(1), json!(0), json!(0))
        );
    }

    // RFC 6902 Appendix A.2 and A.4 (array elements) and A.14 (~ and / in keys).
    #[test]
    fn rfc6902_arrays_and_escaped_keys() {
        let data = check_applies(r#"{"foo":["bar","baz"]}"#, r#"{"foo":["bar","qux","baz"]}"#);
        assert_eq!(
            data["changes"],
            json!([
                {"type": "changed", "path": "/foo/1", "from": "baz", "to": "qux"},
                {"type": "added", "path": "/foo/2", "to": "baz"}
            ])
        );
        let data = check_applies(r#"{"foo":["bar","qux","baz"]}"#, r#"{"foo":["bar","baz"]}"#);
        assert_eq!(data["removed"], 1);
        let data = check_applies(r#"{"/":9,"~1":10}"#, r#"{"/":9,"~1":11}"#);
        assert_eq!(
            data["patch"],
            json!([{"op": "replace", "path": "/~01", "value": 11}])
        );
        assert_eq!(data["changes"][0]["path"], "/~01");
        // Removing two trailing elements: the patch indices shift, the change list does not.
        let data = check_applies("[1,2,3,4]", "[1,3]");
        assert_eq!(
            data["patch"],
            json!([
                {"op": "replace", "path": "/1", "value": 3},
                {"op": "remove", "path": "/2"},
                {"op": "remove", "path": "/2"}
            ])
        );
        assert_eq!(
            data["changes"][2],
            json!({"type": "removed", "path": "/3", "from": 4})
        );
    }

    #[test]
    fn diff_identical_and_errors() {
        let data = diff(
            r#"{"a":[1,{"b":null}]}"#,
            "{ \"a\" : [ 1 , { \"b\" : null } ] }",
        );
        assert_eq!(data["identical"], true);
        assert_eq!(data["patch"], json!([]));
        let data = check_applies("{\"a\":1}", "[1]");
        assert_eq!(
            data["patch"],
            json!([{"op": "replace", "path": "", "value": [1]}])
        );
        let (code, msg) = run_err(
            "json-diff",
            json!({"original": "{}", "modified": "{\"a\":"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("modified: invalid JSON at line 1"), "{msg}");
    }

    #[test]
    fn deep_documents_and_paths_are_refused_clearly() {
        use crate::tools::kit::depth::{JSON_DEPTH, MAX_DEPTH};
        use crate::tools::kit::testing::{assert_too_deep, nest};
        let deep = nest("[", "", "]", 1_000_000);
        assert_too_deep(
            "jsonpath-tester",
            json!({"input": deep, "path": "$"}),
            "input",
            JSON_DEPTH,
        );
        let path = format!("$[?{}]", nest("(", "@.a", ")", 1_000_000));
        assert_too_deep(
            "jsonpath-tester",
            json!({"input": "{}", "path": path}),
            "path",
            MAX_DEPTH,
        );
        assert_too_deep(
            "json-diff",
            json!({"original": deep, "modified": "[]"}),
            "original",
            JSON_DEPTH,
        );
        assert_too_deep(
            "json-diff",
            json!({"original": "[]", "modified": deep}),
            "modified",
            JSON_DEPTH,
        );
        // Just under: a filter of 511 brackets inside the selector's, a 128-deep document.
        let path = format!("$[?{}]", nest("(", "@.a == 1", ")", MAX_DEPTH - 1));
        let d = run_ok(
            "jsonpath-tester",
            json!({"input": r#"[{"a": 1}, {"a": 2}]"#, "path": path}),
        );
        assert_eq!(d["paths"], json!(["$[0]"]));
        let doc = nest("[", "1", "]", JSON_DEPTH);
        let d = run_ok("jsonpath-tester", json!({"input": doc, "path": "$..*"}));
        assert_eq!(d["count"], JSON_DEPTH);
        let changed = nest("[", "2", "]", JSON_DEPTH);
        let d = run_ok("json-diff", json!({"original": doc, "modified": changed}));
        assert_eq!(d["changes"][0]["path"], "/0".repeat(JSON_DEPTH - 1) + "/0");
    }

    #[test]
    fn long_result_lists_are_refused() {
        let many = format!("[{}1]", "1,".repeat(100_000));
        let (code, msg) = run_err("jsonpath-tester", json!({"input": many, "path": "$[*]"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "the query matches 100001 nodes; jsonpath-tester lists at most 100000: narrow the query, or count with jq-processor ('[..] | length')"
        );
        let other = format!("[{}2]", "2,".repeat(100_000));
        let (_, msg) = run_err("json-diff", json!({"original": many, "modified": other}));
        assert!(
            msg.starts_with("the documents differ in more than 100000 places"),
            "{msg}"
        );
    }
}
