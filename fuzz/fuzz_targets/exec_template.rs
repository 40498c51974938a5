#![no_main]
//! Command templates to argv (`exec::template::prepare` and `render`).
//!
//! Input: `<command template>\0<params: JSON object of CMP ParamSpecs>\0<given: JSON object>`.
//! A missing or unparsable params/given part counts as `{}`.

use cmpx::cmp::ParamSpec;
use cmpx::exec::template;
use indexmap::IndexMap;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\0');
    let command = parts.next().unwrap_or("");
    let params: IndexMap<String, ParamSpec> = parts
        .next()
        .and_then(|p| serde_json::from_str(p).ok())
        .unwrap_or_default();
    let given: Map<String, Value> = parts
        .next()
        .and_then(|g| serde_json::from_str(g).ok())
        .unwrap_or_default();

    // Raw values straight into render (what a caller that skipped prepare would do).
    if let Ok(argv) = template::render(command, &given) {
        assert!(!argv.is_empty(), "render returned an empty argv");
    }
    if let Ok(values) = template::prepare(&params, &given) {
        for key in values.keys() {
            assert!(
                params.contains_key(key),
                "prepare returned undeclared '{key}'"
            );
        }
        if let Ok(argv) = template::render(command, &values) {
            assert!(!argv.is_empty(), "render returned an empty argv");
            // No value can add words: with no arrays, argv is at most one word per
            // template word.
            let arrays = values.values().any(Value::is_array);
            if !arrays && let Ok(words) = shell_words::split(command) {
                assert!(argv.len() <= words.len(), "a value added words: {argv:?}");
            }
        }
    }
});
