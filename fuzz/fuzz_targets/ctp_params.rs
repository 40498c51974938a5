#![no_main]
//! Parameter normalisation and validation (`ctp::params::prepare`) against real catalogue
//! definitions: the first byte picks the definition, the rest is a JSON object of arguments.

use cmpx::ctp::params;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let defs = cmpx::catalogue::all();
    let def = &defs[pick as usize % defs.len()];
    let Ok(raw) = serde_json::from_slice::<Map<String, Value>>(rest) else {
        return;
    };
    if let Ok(prepared) = params::prepare(def, &raw) {
        // Every prepared value belongs to a declared parameter and validates again.
        for (name, value) in &prepared {
            let param = def
                .parameter(name)
                .unwrap_or_else(|| panic!("prepare returned undeclared '{name}'"));
            if raw.contains_key(name) {
                params::validate(param, value).unwrap_or_else(|e| {
                    panic!(
                        "prepared value for '{name}' fails validation: {}",
                        e.message
                    )
                });
            }
        }
        // Required parameters are all present.
        for p in def.parameters.iter().filter(|p| p.required) {
            assert!(
                prepared.contains_key(&p.name),
                "required '{}' missing",
                p.name
            );
        }
        // Preparing prepared arguments again changes nothing (normalisation is idempotent).
        let again = params::prepare(def, &prepared).expect("prepared arguments prepare again");
        assert_eq!(again, prepared, "prepare is not idempotent");
    }
    let _ = params::prepare_owned(def, raw);
});
