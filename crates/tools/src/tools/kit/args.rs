//! Typed access to a tool's prepared parameters.
//!
//! The executor has already normalised and validated the values and filled in defaults, so a
//! getter that fails here points at a catalogue/implementation mismatch, reported as
//! `INTERNAL_ERROR` rather than a panic.

use crate::ctp::{ErrorCode, ToolError};
use serde_json::{Map, Value};

pub struct Args<'a> {
    map: &'a Map<String, Value>,
}

fn missing(name: &str) -> ToolError {
    ToolError::new(
        ErrorCode::InternalError,
        format!("parameter '{name}' has no value and no default in the tool definition"),
    )
}

impl<'a> Args<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Args { map }
    }

    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// A string parameter that must have a value (required, or optional with a default).
    pub fn str(&self, name: &str) -> Result<&'a str, ToolError> {
        self.opt_str(name).ok_or_else(|| missing(name))
    }

    pub fn opt_str(&self, name: &str) -> Option<&'a str> {
        self.map.get(name).and_then(Value::as_str)
    }

    /// A boolean parameter; absent means false.
    pub fn flag(&self, name: &str) -> bool {
        self.map.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    pub fn f64(&self, name: &str) -> Result<f64, ToolError> {
        self.opt_f64(name).ok_or_else(|| missing(name))
    }

    pub fn opt_f64(&self, name: &str) -> Option<f64> {
        self.map.get(name).and_then(Value::as_f64)
    }

    /// A whole-number parameter. Validation has checked range and integrality already.
    pub fn i64(&self, name: &str) -> Result<i64, ToolError> {
        self.opt_i64(name).ok_or_else(|| missing(name))
    }

    pub fn opt_i64(&self, name: &str) -> Option<i64> {
        let v = self.map.get(name)?;
        v.as_i64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        })
    }

    /// A `usize` count or size; negative values are a validation bug and reported as such.
    pub fn usize(&self, name: &str) -> Result<usize, ToolError> {
        let n = self.i64(name)?;
        usize::try_from(n).map_err(|_| {
            ToolError::invalid(format!(
                "parameter '{name}' must not be negative, received {n}"
            ))
        })
    }

    /// A `json` parameter's parsed value.
    pub fn json(&self, name: &str) -> Result<&'a Value, ToolError> {
        self.map.get(name).ok_or_else(|| missing(name))
    }

    /// A `file` parameter: its Base64 text decoded to bytes (standard alphabet, padding optional).
    pub fn bytes(&self, name: &str) -> Result<Vec<u8>, ToolError> {
        decode_base64_param(name, self.str(name)?)
    }
}

/// Decodes Base64 given for a parameter, accepting standard or URL-safe alphabets, with or
/// without padding, ignoring ASCII whitespace (line-wrapped Base64 is common).
pub fn decode_base64_param(name: &str, text: &str) -> Result<Vec<u8>, ToolError> {
    crate::tools::kit::b64::decode_str(name, text)
}
