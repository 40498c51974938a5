//! Command templates to argv, without a shell: the template is split into words once
//! (shell-words), and each `{placeholder}` is replaced inside its own word, so no value can add
//! words, redirections or commands. An array parameter standing alone as a word expands to one
//! word per element. A word whose optional placeholder has no value (none given or `''`, and
//! no default) is left out.

use crate::cmp::ParamSpec;
use crate::cmp::capability::placeholders;
use crate::ctp::{ErrorCode, ToolError};
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// Checks and converts the given values to the declared CMP types; fills defaults.
pub fn prepare(
    params: &IndexMap<String, ParamSpec>,
    given: &Map<String, Value>,
) -> Result<Map<String, Value>, ToolError> {
    for key in given.keys() {
        if !params.contains_key(key) {
            let hint = crate::suggest::did_you_mean(key, params.keys().map(String::as_str))
                .map(|s| format!("; did you mean '{s}'?"))
                .unwrap_or_default();
            let known: Vec<&str> = params.keys().map(String::as_str).collect();
            return Err(ToolError::invalid(format!(
                "unknown parameter '{}'{hint} (parameters: {})",
                crate::text::preview(key, 40),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
    }
    let missing: Vec<&str> = params
        .iter()
        .filter(|(name, spec)| spec.required && given.get(*name).is_none_or(Value::is_null))
        .map(|(name, _)| name.as_str())
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|m| format!("--{m}"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ToolError::new(
            ErrorCode::MissingRequired,
            format!("missing required parameter(s): {list}"),
        )
        .with_data(serde_json::json!({ "missing": missing })));
    }
    let mut out = Map::new();
    for (name, spec) in params {
        let value = match given.get(name) {
            // `''` for an optional parameter leaves it at its default, as the snippet says (and
            // CTP §7.2 for catalogue tools): a program never receives `--max-count=`.
            Some(Value::String(s)) if s.is_empty() && !spec.required => match &spec.default {
                Some(d) => d.clone(),
                None => continue,
            },
            Some(v) if !v.is_null() => convert(name, spec, v)?,
            _ => match &spec.default {
                Some(d) => d.clone(),
                None => continue,
            },
        };
        if let Some(allowed) = &spec.enum_values {
            let ok = match &value {
                Value::Array(items) => items.iter().all(|i| allowed.contains(i)),
                v => allowed.contains(v),
            };
            if !ok {
                let list: Vec<String> = allowed
                    .iter()
                    .map(|a| a.as_str().map_or(a.to_string(), str::to_string))
                    .collect();
                return Err(ToolError::new(
                    ErrorCode::ConstraintViolation,
                    format!(
                        "parameter '{name}' violates enum [{}]; received {value}",
                        list.join(", ")
                    ),
                ));
            }
        }
        out.insert(name.clone(), value);
    }
    Ok(out)
}

fn type_error(name: &str, spec: &ParamSpec, v: &Value) -> ToolError {
    ToolError::new(
        ErrorCode::TypeError,
        format!(
            "parameter '{name}' expects {}, received {}",
            spec.kind,
            crate::text::preview(&v.to_string(), 40)
        ),
    )
}

fn convert(name: &str, spec: &ParamSpec, v: &Value) -> Result<Value, ToolError> {
    let err = || type_error(name, spec, v);
    let scalar = |kind: &str, v: &Value| -> Option<Value> {
        match (kind, v) {
            ("string", Value::String(_)) => Some(v.clone()),
            ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
            ("integer", Value::Number(n)) if n.is_i64() || n.is_u64() => Some(v.clone()),
            ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
            ("boolean", Value::Bool(_)) => Some(v.clone()),
            ("boolean", Value::String(s)) if s.eq_ignore_ascii_case("true") => {
                Some(Value::Bool(true))
            }
            ("boolean", Value::String(s)) if s.eq_ignore_ascii_case("false") => {
                Some(Value::Bool(false))
            }
            _ => None,
        }
    };
    match spec.kind.as_str() {
        "array<string>" | "array<integer>" => {
            let item_kind = if spec.kind == "array<string>" {
                "string"
            } else {
                "integer"
            };
            let items: Vec<Value> = match v {
                Value::Array(a) => a.clone(),
                // A JSON array given as text (the command line), or a single value.
                Value::String(s) if s.trim_start().starts_with('[') => {
                    match serde_json::from_str(s) {
                        Ok(Value::Array(a)) => a,
                        _ => return Err(err()),
                    }
                }
                other => vec![other.clone()],
            };
            items
                .iter()
                .map(|i| scalar(item_kind, i).ok_or_else(err))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        }
        kind => scalar(kind, v).ok_or_else(err),
    }
}

fn as_word(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(as_word).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

/// Replaces each `{name}` in one word in a single pass, so text inside a value is never
/// taken for another placeholder.
fn substitute(word: &str, values: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], close)) {
            Some((name, close)) if values.contains_key(name) => {
                out.push_str(&as_word(&values[name]));
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first `{name?}` switch in a word: its byte range and the name.
fn find_switch(word: &str) -> Option<(usize, usize, &str)> {
    let mut from = 0;
    while let Some(open) = word[from..].find('{').map(|i| i + from) {
        let close = open + word[open..].find('}')?;
        let inner = &word[open + 1..close];
        if let Some(name) = inner.strip_suffix('?')
            && !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Some((open, close + 1, name));
        }
        from = open + 1;
    }
    None
}

/// The argv for `command` with `values` (already prepared) substituted.
pub fn render(command: &str, values: &Map<String, Value>) -> Result<Vec<String>, ToolError> {
    let words = shell_words::split(command).map_err(|e| {
        ToolError::invalid(format!("command template cannot be split into words: {e}"))
    })?;
    let mut argv = Vec::with_capacity(words.len());
    'words: for mut word in words {
        // Switches first: `--staged{staged?}` becomes `--staged` when true, nothing otherwise.
        while let Some((start, end, name)) = find_switch(&word) {
            if values.get(name) != Some(&Value::Bool(true)) {
                continue 'words;
            }
            word.replace_range(start..end, "");
        }
        if word.is_empty() {
            continue;
        }
        let names = placeholders(&word);
        if names.is_empty() {
            argv.push(word);
            continue;
        }
        if names.len() == 1 && word == format!("{{{}}}", names[0]) {
            match values.get(names[0]) {
                Some(Value::Array(items)) => argv.extend(items.iter().map(as_word)),
                Some(v) => argv.push(as_word(v)),
                None => {}
            }
            continue;
        }
        if names.iter().any(|n| !values.contains_key(*n)) {
            continue 'words;
        }
        argv.push(substitute(&word, values));
    }
    if argv.is_empty() {
        return Err(ToolError::invalid("command template is empty"));
    }
    Ok(argv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(kind: &str, required: bool, default: Option<Value>) -> ParamSpec {
        ParamSpec {
            kind: kind.into(),
            required,
            default,
            description: None,
            enum_values: None,
        }
    }

    #[test]
    fn values_stay_one_word_whatever_they_contain() {
        let values = json!({"msg": "$(touch x); rm -rf y `id` 'q' \"d\"\nnext"});
        let argv = render("echo --text={msg} {msg}", values.as_object().unwrap()).unwrap();
        assert_eq!(argv.len(), 3);
        assert_eq!(
            argv[1],
            format!("--text={}", values["msg"].as_str().unwrap())
        );
        assert_eq!(argv[2], values["msg"].as_str().unwrap());
    }

    #[test]
    fn a_value_is_never_read_as_another_placeholder() {
        let values = json!({"a": "{b}", "b": "X"});
        let argv = render("echo {a}-{b}", values.as_object().unwrap()).unwrap();
        assert_eq!(argv, ["echo", "{b}-X"]);
    }

    #[test]
    fn switches_add_a_word_only_when_true() {
        let on = json!({"staged": true, "n": 3});
        let off = json!({"staged": false});
        let tpl = "git diff --staged{staged?} -U{n}";
        assert_eq!(
            render(tpl, on.as_object().unwrap()).unwrap(),
            ["git", "diff", "--staged", "-U3"]
        );
        assert_eq!(
            render(tpl, off.as_object().unwrap()).unwrap(),
            ["git", "diff"]
        );
        assert_eq!(render("ls {all?}", &Map::new()).unwrap(), ["ls"]);
    }

    #[test]
    fn arrays_expand_and_absent_optionals_drop_their_word() {
        let values = json!({"paths": ["a b", "c"], "n": 5});
        let argv = render(
            "tar -cf out.tar --max={limit} -n {n} {paths}",
            values.as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(argv, ["tar", "-cf", "out.tar", "-n", "5", "a b", "c"]);
    }

    #[test]
    fn prepare_converts_checks_and_defaults() {
        let mut params = IndexMap::new();
        params.insert("count".to_string(), spec("integer", false, Some(json!(10))));
        params.insert("file".to_string(), spec("string", true, None));
        params.insert("all".to_string(), spec("boolean", false, None));
        let got = prepare(
            &params,
            json!({"file": "x", "all": "true"}).as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"count": 10, "file": "x", "all": true})
        );
        let err = prepare(
            &params,
            json!({"count": "ten", "file": "x"}).as_object().unwrap(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::TypeError);
        // `''` for an optional parameter is its default; for a switch, off.
        let got = prepare(
            &params,
            json!({"file": "x", "count": "", "all": ""})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(Value::Object(got), json!({"count": 10, "file": "x"}));
        let err = prepare(&params, &Map::new()).unwrap_err();
        assert_eq!(err.code, ErrorCode::MissingRequired);
        assert!(err.message.contains("--file"));
        let err = prepare(
            &params,
            json!({"file": "x", "fil": "y"}).as_object().unwrap(),
        )
        .unwrap_err();
        assert!(
            err.message.contains("did you mean 'file'"),
            "{}",
            err.message
        );
    }
}
