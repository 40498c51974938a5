//! jq filters over JSON with jaq (jaq-core, jaq-std, jaq-json): the jq language with its
//! standard library, options like jq's `-r`, `-c`, `-s`, `-n` and `--arg`.
//!
//! A filter can recurse without bound (`def f: 1 + f; f`), which overflows the stack, or loop
//! without yielding (`[repeat(1)]`). The worker process every built-in tool runs in
//! (`exec::worker`) contains the first; here it runs on a thread with a time limit, since jaq values are
//! reference-counted and not `Send`. Filters that yield endlessly stop at [`MAX_RESULTS`].

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::json;
use crate::tools::kit::args::Args;
use crate::tools::kit::budget::{self, Tally};
use crate::tools::kit::depth;
use crate::tools::kit::tool::Tool;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use serde_json::{Map, Value, json};
use std::sync::mpsc;
use std::time::Duration;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("jq-processor", jq_processor)];

const MAX_RESULTS: usize = 10_000;
const TIME_LIMIT: Duration = Duration::from_secs(10);
fn time_limit_error() -> ToolError {
    ToolError::invalid(format!(
        "the filter did not finish within {} seconds (an endless loop such as [repeat(1)] or a very large range?)",
        TIME_LIMIT.as_secs()
    ))
}

/// jq's brackets and string interpolations, for the depth check that runs before jaq's
/// recursive parser sees the filter.
const JQ_SYNTAX: depth::Syntax = depth::Syntax {
    open: b"([{",
    close: b")]}",
    quotes: b"\"",
    escapes: true,
    block_comments: false,
    interpolation: true,
    line_breaks: b"",
};

/// A filter that recurses without bound overflows the stack of the worker process every
/// built-in tool runs in (`exec::worker`), which reports it; the rest is bounded here.
fn jq_processor(args: &Args) -> ToolOutcome {
    let filter = args.str("filter")?.to_string();
    depth::check("filter", &filter, &JQ_SYNTAX, depth::MAX_DEPTH)?;
    let null_input = args.flag("nullInput");
    let slurp = args.flag("slurp");
    let inputs = if null_input {
        vec![Value::Null]
    } else {
        let values = read_inputs(args.str("input")?)?;
        if slurp {
            vec![Value::Array(values)]
        } else {
            values
        }
    };
    let vars = variables(args)?;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("jq-filter".into())
        // jaq parses, compiles and runs recursively; 512 levels of brackets need more than
        // the default 2 MiB in a debug build. The reservation costs nothing until used.
        .stack_size(64 << 20)
        .spawn(move || {
            let _ = tx.send(run_filter(&filter, inputs, vars));
        })
        .map_err(|e| ToolError::execution(format!("could not start the jq worker: {e}")))?;
    let results = match rx.recv_timeout(TIME_LIMIT) {
        Ok(outcome) => outcome?,
        Err(mpsc::RecvTimeoutError::Timeout) => return Err(time_limit_error()),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            return Err(ToolError::execution("the jq worker stopped unexpectedly"));
        }
    };
    let raw = args.flag("rawOutput");
    let indent = if args.flag("compact") { "0" } else { "2" };
    let mut lines = Vec::with_capacity(results.len());
    let mut length = 0usize;
    for value in &results {
        let line = match value {
            Value::String(s) if raw => s.clone(),
            other => json::write_indented(other, indent)?,
        };
        length += line.len() + 1;
        if length > budget::output_ceiling() {
            return Err(budget::output_too_large(
                "the filter's output",
                "narrow the filter, or set compact to drop the indentation",
            ));
        }
        lines.push(line);
    }
    Ok(json!({
        "output": lines.join("\n"),
        "results": results,
        "count": results.len(),
    }))
}

/// The input's JSON texts (one or several, whitespace-separated, as jq reads them).
fn read_inputs(input: &str) -> Result<Vec<Value>, ToolError> {
    let src = input.strip_prefix('\u{feff}').unwrap_or(input);
    if src.trim().is_empty() {
        return Err(ToolError::invalid(
            "input is empty: give JSON, or set nullInput to run the filter on null",
        ));
    }
    json::check_tree(src)?;
    let mut values = Vec::new();
    let mut de = serde_json::Deserializer::from_str(src);
    // check_tree has bounded the depth; serde_json's own limit would stop one level short.
    de.disable_recursion_limit();
    for value in de.into_iter::<Value>() {
        values.push(value.map_err(|e| json::json_error(&e))?);
    }
    Ok(values)
}

/// `variables` as jq `--arg`/`--argjson` bindings: `{"name": value}` becomes `$name`.
fn variables(args: &Args) -> Result<Vec<(String, Value)>, ToolError> {
    let Some(v) = args.get("variables") else {
        return Ok(Vec::new());
    };
    let Value::Object(map) = v else {
        return Err(ToolError::invalid(
            "variables must be a JSON object such as {\"name\": \"value\"}; each key becomes $key",
        ));
    };
    let mut out = Vec::with_capacity(map.len());
    for (name, value) in map {
        let name = name.strip_prefix('$').unwrap_or(name);
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid || name == "ARGS" {
            return Err(ToolError::invalid(format!(
                "variable name '{name}' is not a jq identifier (letters, digits and _, not starting with a digit; ARGS is reserved)"
            )));
        }
        out.push((name.to_string(), value.clone()));
    }
    Ok(out)
}

/// Compiles and runs the filter on each input. Runs on the worker thread.
fn run_filter(
    filter: &str,
    inputs: Vec<Value>,
    vars: Vec<(String, Value)>,
) -> Result<Vec<Value>, ToolError> {
    type D = data::JustLut<Val>;
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    // `env` would hand the process environment (tokens, keys) to whoever writes the filter.
    let funs = jaq_core::funs::<D>()
        .chain(jaq_std::funs::<D>().filter(|f| f.0 != "env"))
        .chain(jaq_json::funs::<D>());
    let arena = Arena::default();
    let modules = Loader::new(defs)
        .load(
            &arena,
            File {
                code: filter,
                path: (),
            },
        )
        .map_err(|errors| load_error(filter, errors))?;
    let mut names: Vec<String> = vars.iter().map(|(k, _)| format!("${k}")).collect();
    names.push("$ARGS".into());
    let compiled = Compiler::default()
        .with_funs(funs)
        .with_global_vars(names.iter().map(String::as_str))
        .compile(modules)
        .map_err(|errors| compile_error(filter, errors))?;

    let named: Map<String, Value> = vars.iter().cloned().collect();
    let mut values: Vec<Val> = vars.iter().map(|(_, v)| to_val(v)).collect();
    values.push(to_val(&json!({ "positional": [], "named": named })));
    let ctx = Ctx::<D>::new(&compiled.lut, Vars::new(values));

    let mut results = Vec::new();
    let mut tally = Tally::default();
    for input in inputs {
        for item in compiled.id.run((ctx.clone(), to_val(&input))) {
            let value = match item {
                Ok(v) => v,
                Err(exn) => match exn.get_err() {
                    Ok(err) => return Err(runtime_error(err.into_val())),
                    // halt / halt_error: stop with what was produced so far, as jq does.
                    Err(_) => return Ok(results),
                },
            };
            if results.len() == MAX_RESULTS {
                return Err(ToolError::invalid(format!(
                    "the filter produced more than {MAX_RESULTS} results; narrow it (for example with limit(n; f) or first(f))"
                )));
            }
            results.push(from_val(&value, &mut tally, 1)?);
        }
    }
    Ok(results)
}

fn runtime_error(v: Val) -> ToolError {
    let message = match &v {
        Val::TStr(s) => String::from_utf8_lossy(s).into_owned(),
        other => other.to_string(),
    };
    ToolError::invalid(format!("jq error: {message}"))
}

/// Column (from 1) of `part` inside the filter, when it is a slice of it.
fn column(filter: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(filter.as_ptr() as usize)?;
    (start <= filter.len()).then(|| filter[..start].chars().count() + 1)
}

fn at(filter: &str, part: &str) -> String {
    column(filter, part).map_or(String::new(), |c| format!(" at column {c}"))
}

fn load_error<P>(filter: &str, errors: jaq_core::load::Errors<&str, P>) -> ToolError {
    use jaq_core::load::Error as E;
    let mut messages = Vec::new();
    for (_, error) in errors {
        match error {
            E::Io(items) => messages.extend(
                items
                    .into_iter()
                    .map(|(path, m)| format!("cannot load '{path}': {m}")),
            ),
            E::Lex(items) => messages.extend(items.into_iter().map(|(expect, found)| {
                format!("expected {}{}", expect.as_str(), at(filter, found))
            })),
            E::Parse(items) => messages.extend(items.into_iter().map(|(expect, found)| {
                let shown = if found.is_empty() {
                    "end of filter".to_string()
                } else {
                    format!("'{}'", found.chars().take(20).collect::<String>())
                };
                format!(
                    "expected {} but found {shown}{}",
                    expect.as_str(),
                    at(filter, found)
                )
            })),
        }
    }
    ToolError::invalid(format!("jq syntax error: {}", messages.join("; ")))
}

fn compile_error<P>(filter: &str, errors: jaq_core::compile::Errors<&str, P>) -> ToolError {
    use jaq_core::compile::Undefined;
    let messages: Vec<String> = errors
        .into_iter()
        .flat_map(|(_, errs)| errs)
        .map(|(name, undefined)| {
            let what = match &undefined {
                Undefined::Filter(arity) => format!("filter {name}/{arity}"),
                other => format!("{} {name}", other.as_str()),
            };
            format!("undefined {what}{}", at(filter, name))
        })
        .collect();
    ToolError::invalid(format!("jq compile error: {}", messages.join("; ")))
}

fn to_val(v: &Value) -> Val {
    match v {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::from(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64().and_then(|i| isize::try_from(i).ok()) {
                Val::from(i)
            } else if let Some(u) = n.as_u64() {
                Val::Num(jaq_json::Num::from_integral(u))
            } else {
                Val::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Val::from(s.clone()),
        Value::Array(a) => a.iter().map(to_val).collect(),
        Value::Object(o) => Val::obj(
            o.iter()
                .map(|(k, v)| (Val::from(k.clone()), to_val(v)))
                .collect(),
        ),
    }
}

/// jaq value → JSON, mapping what JSON lacks the way jq does: NaN → null, ±infinity → the
/// largest finite double, byte strings and non-string keys → text. Refuses results with more
/// values than `tally` allows or deeper than JSON allows (`reduce range(1e5) as $i (0; [.])`
/// builds one), before this recursion or the printer's could exhaust the stack.
fn from_val(v: &Val, tally: &mut Tally, level: usize) -> Result<Value, ToolError> {
    if !tally.add() {
        return Err(budget::too_many(
            "the filter's results",
            "values in all",
            "jaq shares values, but each result is copied out in full: narrow the filter, or count with length",
        ));
    }
    if level > depth::JSON_DEPTH && matches!(v, Val::Arr(_) | Val::Obj(_)) {
        return Err(depth::too_deep(
            "a result of the filter",
            depth::JSON_DEPTH,
            depth::Place::Unknown,
        ));
    }
    Ok(match v {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(n) => {
            let text = n.to_string();
            match text.as_str() {
                "NaN" => Value::Null,
                "Infinity" => json!(f64::MAX),
                "-Infinity" => json!(f64::MIN),
                _ => serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
            }
        }
        Val::TStr(s) | Val::BStr(s) => Value::String(String::from_utf8_lossy(s).into_owned()),
        Val::Arr(a) => Value::Array(
            a.iter()
                .map(|v| from_val(v, tally, level + 1))
                .collect::<Result<_, _>>()?,
        ),
        Val::Obj(o) => Value::Object(
            o.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Val::TStr(s) | Val::BStr(s) => String::from_utf8_lossy(s).into_owned(),
                        other => other.to_string(),
                    };
                    Ok((key, from_val(v, tally, level + 1)?))
                })
                .collect::<Result<_, ToolError>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn jq(filter: &str, input: &str, extra: Value) -> Value {
        let mut args = json!({"filter": filter, "input": input});
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        run_ok("jq-processor", args)
    }

    fn results(filter: &str, input: &str) -> Value {
        jq(filter, input, json!({}))["results"].clone()
    }

    // Examples from the jq 1.7 manual.
    #[test]
    fn manual_basic_filters() {
        assert_eq!(
            results(".foo", r#"{"foo": 42, "bar": "less interesting data"}"#),
            json!([42])
        );
        assert_eq!(
            results(
                ".[] | .name",
                r#"[{"name":"JSON", "good":true}, {"name":"XML", "good":false}]"#
            ),
            json!(["JSON", "XML"])
        );
        assert_eq!(results("map(.+1)", "[1,2,3]"), json!([[2, 3, 4]]));
        assert_eq!(
            results("map(select(. >= 2))", "[1,5,3,0,7]"),
            json!([[5, 3, 7]])
        );
        assert_eq!(
            results("keys", r#"{"abc": 1, "abcd": 2, "Foo": 3}"#),
            json!([["Foo", "abc", "abcd"]])
        );
        assert_eq!(
            results("to_entries", r#"{"a": 1, "b": 2}"#),
            json!([[{"key": "a", "value": 1}, {"key": "b", "value": 2}]])
        );
        assert_eq!(
            results("reduce .[] as $item (0; . + $item)", "[1,2,3,4,5]"),
            json!([15])
        );
        assert_eq!(
            results("@base64", r#""This is a message""#),
            json!(["VGhpcyBpcyBhIG1lc3NhZ2U="])
        );
        assert_eq!(
            results(
                "{user, title: .titles[]}",
                r#"{"user":"stedolan","titles":["JQ Primer", "More JQ"]}"#
            ),
            json!([{"user":"stedolan","title":"JQ Primer"}, {"user":"stedolan","title":"More JQ"}])
        );
    }

    #[test]
    fn output_options() {
        let data = jq(".[]", r#"["a", {"b": [1, 2]}]"#, json!({}));
        assert_eq!(
            data["output"],
            "\"a\"\n{\n  \"b\": [\n    1,\n    2\n  ]\n}"
        );
        let data = jq(
            ".[]",
            r#"["a", {"b": [1, 2]}]"#,
            json!({"rawOutput": true, "compact": true}),
        );
        assert_eq!(data["output"], "a\n{\"b\":[1,2]}");
        assert_eq!(data["count"], 2);
    }

    #[test]
    fn slurp_null_input_and_variables() {
        // jq -s 'add' over three texts; jq -n '[range(3)]'; jq --arg foo 123 '$foo'.
        assert_eq!(
            jq("add", "1 2\n3", json!({"slurp": true}))["results"],
            json!([6])
        );
        assert_eq!(jq(".", "1 [2]", json!({}))["results"], json!([1, [2]]));
        assert_eq!(
            jq("[range(3)]", "", json!({"nullInput": true}))["results"],
            json!([[0, 1, 2]])
        );
        assert_eq!(
            jq(
                "{x: $foo, n: $n, all: $ARGS.named.foo}",
                "null",
                json!({"variables": {"foo": "123", "$n": 5}})
            )["results"],
            json!([{"x": "123", "n": 5, "all": "123"}])
        );
    }

    #[test]
    fn errors_are_reported() {
        let (code, msg) = run_err("jq-processor", json!({"filter": ".foo |", "input": "{}"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("jq syntax error"), "{msg}");
        let (_, msg) = run_err(
            "jq-processor",
            json!({"filter": "nosuchfn(1)", "input": "{}"}),
        );
        assert!(
            msg.contains("undefined filter nosuchfn/1 at column 1"),
            "{msg}"
        );
        let (_, msg) = run_err(
            "jq-processor",
            json!({"filter": ".a.b", "input": "{\"a\": 1}"}),
        );
        assert!(msg.starts_with("jq error: cannot index 1"), "{msg}");
        let (_, msg) = run_err(
            "jq-processor",
            json!({"filter": "error(\"boom\")", "input": "1"}),
        );
        assert_eq!(msg, "jq error: boom");
        let (_, msg) = run_err("jq-processor", json!({"filter": ".", "input": "{\"a\":}"}));
        assert!(msg.contains("line 1, column 6"), "{msg}");
        let (_, msg) = run_err("jq-processor", json!({"filter": "env", "input": "1"}));
        assert!(msg.contains("undefined filter env/0"), "{msg}");
    }

    #[test]
    fn endless_output_is_capped() {
        let (code, msg) = run_err(
            "jq-processor",
            json!({"filter": "repeat(1)", "input": "null"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("more than 10000 results"), "{msg}");
        let (_, msg) = run_err(
            "jq-processor",
            json!({"filter": "range(1e9)", "input": "null"}),
        );
        assert!(msg.contains("more than 10000 results"), "{msg}");
        assert_eq!(
            jq("[limit(3; repeat(1))]", "null", json!({}))["results"],
            json!([[1, 1, 1]])
        );
    }

    #[test]
    fn nesting_is_limited_with_one_message() {
        use crate::tools::kit::depth::{JSON_DEPTH, MAX_DEPTH};
        use crate::tools::kit::testing::{assert_too_deep, nest};
        for filter in [
            nest("(", ".", ")", 1_000_000),
            nest("[", ".", "]", 1_000_000),
        ] {
            assert_too_deep(
                "jq-processor",
                json!({"filter": filter, "input": "1"}),
                "filter",
                MAX_DEPTH,
            );
        }
        // Interpolations nest inside strings.
        let interpolated = nest("\"\\(", "1", ")\"", 1_000_000);
        assert_too_deep(
            "jq-processor",
            json!({"filter": interpolated, "nullInput": true}),
            "filter",
            MAX_DEPTH,
        );
        let deep = nest("[", "", "]", 1_000_000);
        assert_too_deep(
            "jq-processor",
            json!({"filter": ".", "input": deep}),
            "input",
            JSON_DEPTH,
        );
        // A filter that builds a value deeper than JSON allows.
        assert_too_deep(
            "jq-processor",
            json!({"filter": "reduce range(200) as $i (0; [.])", "nullInput": true}),
            "a result of the filter",
            JSON_DEPTH,
        );
        // Just under: 512 brackets, a 128-deep input and result.
        assert_eq!(results(&nest("(", ".", ")", MAX_DEPTH), "7"), json!([7]));
        let doc = nest("[", "1", "]", JSON_DEPTH);
        let out = jq(".", &doc, json!({"compact": true}));
        assert_eq!(out["output"], doc);
    }
}
