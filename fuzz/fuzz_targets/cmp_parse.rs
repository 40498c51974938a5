#![no_main]
//! CMP manifest, capability and examples parsing plus every check run on them.
//!
//! The bytes are parsed as each of the three file kinds; whatever parses is checked
//! (`Manifest::problems`, `validate::check_capability`, `placeholders`), and what serialises
//! must parse back to the same value.

use cmpx::cmp::capability::placeholders;
use cmpx::cmp::manifest::is_semver;
use cmpx::cmp::validate::check_capability;
use cmpx::cmp::{Capability, Examples, Manifest};
use libfuzzer_sys::fuzz_target;

fn round_trip<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).expect("a parsed CMP value serialises");
    let back: T = serde_json::from_str(&text).expect("serialised CMP value parses again");
    assert_eq!(&back, value, "round trip changed the value");
}

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = serde_json::from_slice::<Manifest>(data) {
        let _ = m.problems();
        round_trip(&m);
    }
    if let Ok(c) = serde_json::from_slice::<Capability>(data) {
        let _ = check_capability(&c);
        for intent in &c.intents {
            for name in placeholders(&intent.command) {
                assert!(intent.command.contains(name));
            }
            let _ = intent.needs_consent();
        }
        round_trip(&c);
    }
    if let Ok(e) = serde_json::from_slice::<Examples>(data) {
        round_trip(&e);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = is_semver(text);
        let _ = placeholders(text);
    }
});
