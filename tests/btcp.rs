//! BTCP: `cmpx discover --format btcp` against the manifest schema of the BTCP specification
//! (tests/data/btcp/manifest.schema.json, copied from the spec repository with its commit).

mod common;

use common::Test;
use serde_json::Value;

#[test]
fn the_btcp_manifest_validates_and_names_map_back() {
    let out = Test::new().args(["discover", "--format", "btcp"]).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    let schema: Value =
        serde_json::from_str(include_str!("data/btcp/manifest.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the BTCP manifest schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .take(10)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert_eq!(doc["btcp"], "1.0");
    let tools = doc["tools"].as_array().unwrap();
    assert_eq!(tools.len(), cmpx::catalogue::all().len());
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"json_formatter"), "{names:?}");
    // Every tool's capabilities are within the manifest's union, as BTCP requires.
    let union: Vec<&Value> = doc["capabilities"].as_array().unwrap().iter().collect();
    for t in tools {
        for c in t["capabilities"].as_array().unwrap() {
            assert!(union.contains(&c), "{c} of {} not in {union:?}", t["name"]);
        }
    }
    let uuid = tools
        .iter()
        .find(|t| t["name"] == "uuid_generator")
        .unwrap();
    assert_eq!(
        uuid["capabilities"],
        serde_json::json!(["system:random", "system:clock"])
    );
    assert_eq!(
        doc["capabilities"],
        serde_json::json!(["system:clock", "system:random"])
    );
    // A schema that can fail: a hyphenated name is refused.
    let mut bad = doc.clone();
    bad["tools"][0]["name"] = Value::String("json-formatter".into());
    assert!(!validator.is_valid(&bad));
}
