//! JSON values written as block-style YAML that every YAML reader reads back as the same JSON.
//! serde_norway writes YAML 1.2, where `2024-01-05T10:00:00Z`, `yes` or `1:20` are plain
//! strings; YAML 1.1 readers (PyYAML, the most used) read them as timestamps, booleans and
//! sexagesimal numbers, so examples in openapi.yaml stopped matching their schemas. Here a
//! string stays plain only when it has no such reading in either version; every other string
//! is written double-quoted with JSON's escapes, which YAML reads identically.

use serde_json::Value;
use std::fmt::Write;

pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => mapping(&mut out, value, 0),
        Value::Array(a) if !a.is_empty() => sequence(&mut out, value, 0),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn mapping(out: &mut String, value: &Value, indent: usize) {
    let Value::Object(map) = value else { return };
    for (key, v) in map {
        let _ = write!(out, "{:indent$}{}:", "", string(key));
        child(out, v, indent);
    }
}

fn sequence(out: &mut String, value: &Value, indent: usize) {
    let Value::Array(items) = value else { return };
    for v in items {
        let _ = write!(out, "{:indent$}-", "");
        match v {
            // A mapping starts on the dash's line, its other keys aligned under the first.
            Value::Object(m) if !m.is_empty() => {
                let mut inner = String::new();
                mapping(&mut inner, v, indent + 2);
                out.push(' ');
                out.push_str(inner.trim_start());
            }
            _ => child(out, v, indent),
        }
    }
}

/// What follows `key:` or `-`: a nested block on the next lines, or a scalar on this one.
fn child(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            mapping(out, v, indent + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            sequence(out, v, indent + 2);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => string(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

fn string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        Value::String(s.to_string()).to_string()
    }
}

/// A conservative test: words, spaces and a little punctuation, starting with a letter, and
/// not one of the words YAML 1.1 reads as a boolean or null.
fn plain_is_safe(s: &str) -> bool {
    const WORDS: &[&str] = &["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    let Some(first) = s.chars().next() else {
        return false;
    };
    first.is_ascii_alphabetic()
        && !s.ends_with(' ')
        && !WORDS.contains(&s.to_ascii_lowercase().as_str())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " _-./()'`,;+=<>?!$%&*^~@".contains(c))
        && !s.contains(" #")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ambiguous_scalars_are_quoted_and_everything_reads_back() {
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
        let text = to_yaml(&doc);
        assert!(text.contains("when: \"2024-01-05T10:00:00Z\"\n"), "{text}");
        assert!(text.contains("answer: \"yes\"\n"), "{text}");
        assert!(
            text.contains("plain: Developer utilities as CTP tools\n"),
            "{text}"
        );
        let back: Value = serde_norway::from_str(&text).unwrap();
        assert_eq!(back, doc, "{text}");
    }
}
