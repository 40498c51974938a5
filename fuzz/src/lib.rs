//! Helpers shared by the fuzz targets.

use cmpx::ctp::{ErrorCode, ParamType, ToolDefinition, ToolResult};
use serde_json::{Map, Value};

/// Panics when a ToolResult says a tool panicked: the executor catches panics and turns them
/// into INTERNAL_ERROR "failed unexpectedly", which would otherwise hide them from the fuzzer.
pub fn assert_no_contained_panic(context: &str, result: &ToolResult) {
    if result.error_code() == Some(ErrorCode::InternalError)
        && let Some(message) = &result.error
        && message.contains("failed unexpectedly")
    {
        panic!("{context}: contained panic: {message}");
    }
}

/// The parameter that receives the main text: the first required string-like parameter (or
/// the first string-like one).
fn primary(def: &ToolDefinition) -> Option<usize> {
    let stringly = |i: &usize| def.parameters[*i].kind.is_stringly();
    let select = |i: &usize| def.parameters[*i].kind != ParamType::Select;
    let all = 0..def.parameters.len();
    all.clone()
        .filter(stringly)
        .filter(select)
        .find(|i| def.parameters[*i].required)
        .or_else(|| all.filter(stringly).find(select))
}

/// Turns fuzz bytes into arguments for `def`.
///
/// Layout: one control byte for each select, boolean and number parameter (in declaration
/// order, skipping the primary one), then text. The text is split on NUL: the first piece is
/// the primary parameter; the following pieces go, in order, to the other text and json
/// parameters. Missing bytes or pieces leave the parameter out.
///
/// * select: `b % (n + 1)` picks an option; `n` leaves it out.
/// * boolean: `b % 3`: false, true, absent.
/// * number: `0xff` leaves it out, otherwise `b as i8` (so out-of-range values happen too).
/// * json: the piece parsed as JSON, or the raw string when it does not parse.
pub fn args_for(def: &ToolDefinition, data: &[u8]) -> Map<String, Value> {
    let primary = primary(def);
    let mut args = Map::new();
    let mut rest = data;
    let mut text_params = Vec::new();
    for (i, p) in def.parameters.iter().enumerate() {
        if Some(i) == primary {
            continue;
        }
        match p.kind {
            ParamType::Select | ParamType::Boolean | ParamType::Number => {
                let Some((&b, tail)) = rest.split_first() else {
                    continue;
                };
                rest = tail;
                let value = match p.kind {
                    ParamType::Select => {
                        let n = p.options.len();
                        let k = b as usize % (n + 1);
                        (k < n).then(|| Value::String(p.options[k].value.clone()))
                    }
                    ParamType::Boolean => match b % 3 {
                        0 => Some(Value::Bool(false)),
                        1 => Some(Value::Bool(true)),
                        _ => None,
                    },
                    _ => (b != 0xff).then(|| Value::from(b as i8)),
                };
                if let Some(v) = value {
                    args.insert(p.name.clone(), v);
                }
            }
            _ => text_params.push(i),
        }
    }
    let text = String::from_utf8_lossy(rest);
    let mut pieces = text.split('\0');
    if let Some(i) = primary
        && let Some(piece) = pieces.next()
    {
        args.insert(
            def.parameters[i].name.clone(),
            Value::String(piece.to_string()),
        );
    }
    for (i, piece) in text_params.into_iter().zip(pieces) {
        let p = &def.parameters[i];
        let value = if p.kind == ParamType::Json {
            serde_json::from_str(piece).unwrap_or_else(|_| Value::String(piece.to_string()))
        } else {
            Value::String(piece.to_string())
        };
        args.insert(p.name.clone(), value);
    }
    args
}

/// Runs catalogue tool `id` on arguments made from `data` through the public executor.
pub fn run_tool(id: &str, data: &[u8]) {
    let def = cmpx::catalogue::get(id).unwrap_or_else(|| panic!("no catalogue tool '{id}'"));
    let args = args_for(&def, data);
    let result = cmpx::exec::run_builtin(id, &args);
    assert_no_contained_panic(id, &result);
    // The envelope must serialise (it is what the CLI and MCP print).
    let _ = result.to_value();
}
