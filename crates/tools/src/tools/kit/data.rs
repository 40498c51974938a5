//! Building a tool's `data` object without copying its (possibly very large) output.

use serde_json::{Map, Value};

/// `{"output": output, …fields}`, with `output` moved in. `json!` would copy it (the macro
/// serialises its arguments), which for a 1 GiB result means a second gigabyte.
pub fn with_output(output: String, fields: Value) -> Value {
    let mut map = Map::new();
    map.insert("output".to_string(), Value::String(output));
    if let Value::Object(rest) = fields {
        map.extend(rest);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_comes_first_then_the_fields_in_order() {
        let v = with_output("x".into(), json!({"b": 1, "a": 2}));
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"output":"x","b":1,"a":2}"#
        );
        assert_eq!(with_output("y".into(), Value::Null), json!({"output": "y"}));
    }
}
