//! Every tool's declared output schema (`catalogue/<category>/<id>.cmpx.json`) holds for every
//! result it gives: each worked example, each select option applied to each example input,
//! each boolean flipped, and edge inputs (empty, Unicode, mixed line breaks, large). One
//! violation fails the suite.
//!
//! `CMPX_WRITE_DRAFTS=1 cargo test --test contracts draft -- --ignored` writes a draft
//! contract for each tool that has none, its schema inferred from the same corpus; a draft is a
//! starting point to review against the tool's code, never the declared contract as is.

use cmpx::contract::Contract;
use cmpx::ctp::{ParamType, ToolDefinition};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// The inputs a tool is held to its schema on.
fn corpus(def: &ToolDefinition, contract: Option<&Contract>) -> Vec<Map<String, Value>> {
    let bases: Vec<Map<String, Value>> = cmpx::contract::examples(def, contract)
        .into_iter()
        .map(|e| e.input.clone())
        .collect();
    let mut all = bases.clone();
    for base in &bases {
        for p in &def.parameters {
            for option in p.option_values() {
                let mut input = base.clone();
                input.insert(p.name.clone(), Value::String(option.to_string()));
                all.push(input);
            }
            if p.kind == ParamType::Boolean {
                let flipped = !base.get(&p.name).and_then(Value::as_bool).unwrap_or(
                    p.default_value
                        .as_ref()
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                );
                let mut input = base.clone();
                input.insert(p.name.clone(), Value::Bool(flipped));
                all.push(input);
            }
        }
    }
    // Edge values for the main input: `input` when there is one, else the first required
    // text parameter.
    let texty = |p: &&cmpx::ctp::Parameter| {
        matches!(
            p.kind,
            ParamType::Text | ParamType::Textarea | ParamType::Json
        )
    };
    let main = def
        .parameters
        .iter()
        .filter(texty)
        .find(|p| p.name == "input")
        .or_else(|| def.parameters.iter().filter(texty).find(|p| p.required));
    if let (Some(main), Some(base)) = (main, bases.first()) {
        let sample = base
            .get(&main.name)
            .and_then(Value::as_str)
            .unwrap_or("x")
            .to_string();
        let edges: Vec<String> = if main.kind == ParamType::Json {
            [
                "{}",
                "[]",
                "null",
                "\"s\"",
                "0",
                "[1,\"a\",null,{\"b\":[]}]",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect()
        } else {
            vec![
                String::new(),
                " ".into(),
                "héllo wörld 世界 😀 \u{202e}".into(),
                "a\r\nb\rc\nd".into(),
                sample.repeat((8192 / sample.len().max(1)).max(2)),
            ]
        };
        for edge in edges {
            let mut input = base.clone();
            input.insert(main.name.clone(), Value::String(edge));
            all.push(input);
        }
    }
    all
}

/// Runs every corpus input; the successful `data` values with the input that gave each.
fn results(def: &ToolDefinition, contract: Option<&Contract>) -> Vec<(Map<String, Value>, Value)> {
    corpus(def, contract)
        .into_iter()
        .filter_map(|input| {
            let result = on_big_stack(|| cmpx::exec::run_definition(def, &input));
            result
                .success
                .then(|| (input, result.data.unwrap_or(Value::Null)))
        })
        .collect()
}

/// Test threads have small stacks; tools run on the main thread of a worker process (8 MiB).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn_scoped(scope, f)
            .expect("spawn a thread")
            .join()
            .expect("the tool thread")
    })
}

#[test]
fn every_result_matches_its_declared_schema() {
    let mut violations = Vec::new();
    let mut checked = 0;
    for def in cmpx::catalogue::all() {
        let Some(contract) = cmpx::catalogue::contract(&def.id) else {
            continue; // the catalogue's own test demands a contract
        };
        let validator = match jsonschema::validator_for(&contract.output) {
            Ok(v) => v,
            Err(e) => {
                violations.push(format!("{}: the output schema is not valid: {e}", def.id));
                continue;
            }
        };
        for (input, data) in results(def, Some(&contract)) {
            checked += 1;
            let errors: Vec<String> = validator
                .iter_errors(&data)
                .take(3)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            if !errors.is_empty() {
                violations.push(format!(
                    "{}: input {} gave {} — {}",
                    def.id,
                    preview(&Value::Object(input)),
                    preview(&data),
                    errors.join("; ")
                ));
            }
        }
    }
    eprintln!("checked {checked} results against their declared schemas");
    assert!(
        violations.is_empty(),
        "{} violations:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

fn preview(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s
    }
}

#[test]
#[ignore = "writes draft contracts into catalogue/; run by hand"]
fn draft_contracts() {
    if std::env::var_os("CMPX_WRITE_DRAFTS").is_none() {
        eprintln!("set CMPX_WRITE_DRAFTS=1 to write drafts");
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogue");
    for def in cmpx::catalogue::all() {
        let path = root
            .join(&def.category)
            .join(format!("{}.cmpx.json", def.id));
        if path.exists() {
            continue;
        }
        let datas: Vec<Value> = results(def, None).into_iter().map(|(_, d)| d).collect();
        let refs: Vec<&Value> = datas.iter().collect();
        let draft = json!({ "output": infer(&refs), "modes": [], "examples": [] });
        let mut text = serde_json::to_string_pretty(&draft).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        eprintln!("wrote {}", path.display());
    }
}

/// A schema every sample satisfies: the union of their types; for objects, every key seen
/// (required when present in all); for arrays, the union of their items.
fn infer(samples: &[&Value]) -> Value {
    let mut types = BTreeSet::new();
    for s in samples {
        types.insert(match s {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        });
    }
    if types.contains("number") {
        types.remove("integer");
    }
    let mut schema = Map::new();
    match types.len() {
        0 => return json!({}),
        1 => {
            schema.insert("type".into(), json!(types.iter().next().unwrap()));
        }
        _ => {
            schema.insert("type".into(), json!(types.iter().collect::<Vec<_>>()));
        }
    }
    let objects: Vec<&Map<String, Value>> = samples.iter().filter_map(|s| s.as_object()).collect();
    if !objects.is_empty() {
        let mut keys: Vec<&String> = Vec::new();
        for o in &objects {
            for k in o.keys() {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let mut props = Map::new();
        let mut required = Vec::new();
        for k in keys {
            let values: Vec<&Value> = objects.iter().filter_map(|o| o.get(k)).collect();
            if values.len() == objects.len() {
                required.push(json!(k));
            }
            props.insert(k.clone(), infer(&values));
        }
        schema.insert("properties".into(), Value::Object(props));
        schema.insert("required".into(), Value::Array(required));
    }
    let items: Vec<&Value> = samples
        .iter()
        .filter_map(|s| s.as_array())
        .flatten()
        .collect();
    if samples.iter().any(|s| s.is_array()) && !items.is_empty() {
        schema.insert("items".into(), infer(&items));
    }
    Value::Object(schema)
}
