//! Parameter normalisation and validation (CTP §7.2 and §7.3), shared by every way of running a tool.

use super::definition::{ParamType, Parameter, ToolDefinition};
use super::result::{ErrorCode, ToolError};
use serde_json::{Map, Number, Value};

/// Normalises raw arguments, validates them against the definition and fills in defaults.
///
/// The returned map holds every parameter that has a value, keyed by its declared name.
pub fn prepare(
    def: &ToolDefinition,
    raw: &Map<String, Value>,
) -> Result<Map<String, Value>, ToolError> {
    prepare_owned(def, raw.clone())
}

/// [`prepare`] for arguments the caller no longer needs: values move instead of being copied,
/// which matters when one is a 1 GiB file read with `@path`.
pub fn prepare_owned(
    def: &ToolDefinition,
    mut raw: Map<String, Value>,
) -> Result<Map<String, Value>, ToolError> {
    reject_unknown(def, &raw)?;
    check_sizes(&raw)?;
    let mut out = Map::new();
    for param in &def.parameters {
        let value = match raw.remove(&param.name) {
            Some(v) => normalise(param, v)?,
            None => None,
        };
        match value {
            Some(v) => {
                validate(param, &v)?;
                out.insert(param.name.clone(), v);
            }
            None if param.required => {
                return Err(ToolError::new(
                    ErrorCode::MissingRequired,
                    format!(
                        "missing required parameter '{}' ({}: {})",
                        param.name, param.label, param.description
                    ),
                ));
            }
            None => {
                if let Some(d) = &param.default_value {
                    out.insert(param.name.clone(), d.clone());
                }
            }
        }
    }
    Ok(out)
}

/// Values sent inline (a JSON request, an MCP call) obey the same size limit as `@path`.
fn check_sizes(raw: &Map<String, Value>) -> Result<(), ToolError> {
    let limit = crate::limits::max_input();
    for (name, value) in raw {
        if let Value::String(s) = value
            && s.len() as u64 > limit
        {
            return Err(ToolError::new(
                ErrorCode::ConstraintViolation,
                format!(
                    "parameter '{name}' is {}, larger than the {} input limit (set {} to allow more)",
                    crate::limits::human(s.len() as u64),
                    crate::limits::human(limit),
                    crate::limits::MAX_INPUT_ENV
                ),
            ));
        }
    }
    Ok(())
}

fn reject_unknown(def: &ToolDefinition, raw: &Map<String, Value>) -> Result<(), ToolError> {
    for key in raw.keys() {
        if def.parameter(key).is_none() {
            let names: Vec<&str> = def.parameters.iter().map(|p| p.name.as_str()).collect();
            let hint = crate::suggest::did_you_mean(key, names.iter().copied())
                .map(|s| format!("; did you mean '{s}'?"))
                .unwrap_or_default();
            return Err(ToolError::new(
                ErrorCode::InvalidInput,
                format!(
                    "unknown parameter '{}' for {}{hint} (parameters: {})",
                    crate::text::escape_control(key),
                    def.id,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// Applies the four CTP §7.2 rules, plus case-insensitive matching of select options.
/// `None` means the parameter is to be treated as absent.
pub fn normalise(param: &Parameter, value: Value) -> Result<Option<Value>, ToolError> {
    if value.is_null() {
        return Ok(None);
    }
    // JSON callers often send a select option such as "4" as the number 4.
    let value = match value {
        Value::Number(n) if param.kind == ParamType::Select => Value::String(n.to_string()),
        other => other,
    };
    if let Value::String(s) = &value {
        if s.is_empty() && !param.required {
            return Ok(None);
        }
        match param.kind {
            ParamType::Boolean => {
                if s.eq_ignore_ascii_case("true") {
                    return Ok(Some(Value::Bool(true)));
                }
                if s.eq_ignore_ascii_case("false") {
                    return Ok(Some(Value::Bool(false)));
                }
            }
            ParamType::Number => {
                if let Some(n) = parse_number(s.trim()) {
                    return Ok(Some(Value::Number(n)));
                }
            }
            ParamType::Json => {
                return serde_json::from_str(s).map(Some).map_err(|e| {
                    ToolError::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "parameter '{}' must be JSON, but it does not parse: {e}",
                            param.name
                        ),
                    )
                });
            }
            ParamType::Select => {
                if let Some(canonical) = param.option_values().find(|o| o.eq_ignore_ascii_case(s)) {
                    return Ok(Some(Value::String(canonical.to_string())));
                }
            }
            _ => {}
        }
    }
    Ok(Some(value))
}

fn parse_number(s: &str) -> Option<Number> {
    if let Ok(i) = s.parse::<i64>() {
        return Some(Number::from(i));
    }
    if let Ok(u) = s.parse::<u64>() {
        return Some(Number::from(u));
    }
    // Reject "inf", "NaN" and friends: JSON has no such numbers.
    s.parse::<f64>().ok().and_then(Number::from_f64)
}

/// Checks a normalised value against the parameter's type and constraints.
pub fn validate(param: &Parameter, value: &Value) -> Result<(), ToolError> {
    check_type(param, value)?;
    check_constraints(param, value)
}

fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let shown = crate::text::preview(&value.to_string(), 40);
    format!("{kind} {shown}")
}

fn check_type(param: &Parameter, value: &Value) -> Result<(), ToolError> {
    let ok = match param.kind {
        ParamType::Boolean => value.is_boolean(),
        ParamType::Number => value.is_number(),
        ParamType::Json => true,
        _ => value.is_string(),
    };
    if ok {
        return Ok(());
    }
    let expected = match param.kind {
        ParamType::Boolean => "a boolean (true or false)",
        ParamType::Number => "a number",
        _ => "a string",
    };
    Err(ToolError::new(
        ErrorCode::TypeError,
        format!(
            "parameter '{}' ({}) expects {expected}, received {}",
            param.name,
            param.kind.as_str(),
            describe(value)
        ),
    ))
}

fn violation(param: &Parameter, rule: &str, received: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorCode::ConstraintViolation,
        format!(
            "parameter '{}' violates {rule}; received {received}",
            param.name
        ),
    )
}

fn check_constraints(param: &Parameter, value: &Value) -> Result<(), ToolError> {
    if param.kind == ParamType::Select
        && let Value::String(s) = value
        && !param.options.is_empty()
        && !param.option_values().any(|o| o == s)
    {
        let allowed: Vec<&str> = param.option_values().collect();
        let hint = crate::suggest::closest_option(s, &allowed)
            .map(|h| format!(" (did you mean '{h}'?)"))
            .unwrap_or_default();
        return Err(violation(
            param,
            &format!("options [{}]", allowed.join(", ")),
            format!("'{}'{hint}", crate::text::preview(s, 40)),
        ));
    }
    let Some(v) = &param.validation else {
        return Ok(());
    };
    if let Value::String(s) = value {
        let len = s.chars().count() as u64;
        if let Some(min) = v.min_length
            && len < min
        {
            return Err(violation(
                param,
                &format!("minLength {min}"),
                format!("{len} characters"),
            ));
        }
        if let Some(max) = v.max_length
            && len > max
        {
            return Err(violation(
                param,
                &format!("maxLength {max}"),
                format!("{len} characters"),
            ));
        }
        if let Some(pattern) = &v.pattern {
            let re = regex::Regex::new(pattern).map_err(|e| {
                ToolError::new(
                    ErrorCode::InternalError,
                    format!(
                        "parameter '{}' has an invalid pattern in its definition: {e}",
                        param.name
                    ),
                )
            })?;
            if !re.is_match(s) {
                return Err(violation(
                    param,
                    &format!("pattern /{pattern}/"),
                    format!("'{}'", crate::text::preview(s, 40)),
                ));
            }
        }
    }
    if let Value::Number(n) = value {
        let x = n.as_f64().unwrap_or(f64::NAN);
        if let Some(min) = v.min
            && x < min
        {
            return Err(violation(param, &format!("min {min}"), n));
        }
        if let Some(max) = v.max
            && x > max
        {
            return Err(violation(param, &format!("max {max}"), n));
        }
        if param.is_integer() && x.fract() != 0.0 {
            return Err(violation(param, "step 1 (whole numbers only)", n));
        }
    }
    if let Value::Array(items) = value {
        let len = items.len() as u64;
        if let Some(min) = v.min_items
            && len < min
        {
            return Err(violation(
                param,
                &format!("minItems {min}"),
                format!("{len} items"),
            ));
        }
        if let Some(max) = v.max_items
            && len > max
        {
            return Err(violation(
                param,
                &format!("maxItems {max}"),
                format!("{len} items"),
            ));
        }
    }
    Ok(())
}
