//! Identifier generators: UUIDs of every RFC 9562 version the `uuid` crate implements.

use super::ToolFn;
use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use rand::RngExt;
use serde_json::json;
use uuid::Uuid;

pub const TOOLS: &[(&str, ToolFn)] = &[("uuid-generator", uuid_generator)];

const NAMESPACES: &[(&str, Uuid)] = &[
    ("dns", Uuid::NAMESPACE_DNS),
    ("url", Uuid::NAMESPACE_URL),
    ("oid", Uuid::NAMESPACE_OID),
    ("x500", Uuid::NAMESPACE_X500),
];

fn uuid_generator(args: &Args) -> ToolOutcome {
    let version = args.str("version")?;
    let count = args.usize("count")?;
    let format = args.str("format")?;
    let name_based = if matches!(version, "v3" | "v5") {
        Some((
            namespace(args.opt_str("namespace"))?,
            name(args.opt_str("name"))?,
        ))
    } else {
        None
    };
    // RFC 9562 §6.10: a v1 node that is not a real MAC is random with the multicast bit set.
    // One node per request keeps a batch's UUIDs recognisably from one generator.
    let mut node: [u8; 6] = rand::rng().random();
    node[0] |= 0x01;
    let uuids: Vec<String> = (0..count)
        .map(|_| {
            let id = match (version, &name_based) {
                ("v1", _) => Uuid::now_v1(&node),
                ("v3", Some((ns, name))) => Uuid::new_v3(ns, name.as_bytes()),
                ("v5", Some((ns, name))) => Uuid::new_v5(ns, name.as_bytes()),
                ("v7", _) => Uuid::now_v7(),
                ("nil", _) => Uuid::nil(),
                ("max", _) => Uuid::max(),
                _ => Uuid::new_v4(),
            };
            render(id, format)
        })
        .collect();
    Ok(json!({
        "output": uuids.join("\n"),
        "uuids": uuids,
        "version": version,
        "format": format,
    }))
}

fn namespace(given: Option<&str>) -> Result<Uuid, ToolError> {
    let Some(given) = given.map(str::trim) else {
        return Err(ToolError::invalid(
            "v3 and v5 UUIDs need a 'namespace': dns, url, oid, x500 or a UUID",
        ));
    };
    if let Some((_, ns)) = NAMESPACES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(given))
    {
        return Ok(*ns);
    }
    Uuid::parse_str(given).map_err(|e| {
        ToolError::invalid(format!(
            "namespace '{}' is neither dns, url, oid, x500 nor a UUID: {e}",
            crate::text::preview(given, 60)
        ))
    })
}

fn name(given: Option<&str>) -> Result<&str, ToolError> {
    given.ok_or_else(|| {
        ToolError::invalid("v3 and v5 UUIDs need a 'name' to hash (e.g. a domain name or URL)")
    })
}

fn render(id: Uuid, format: &str) -> String {
    match format {
        "uppercase" => id.hyphenated().to_string().to_uppercase(),
        "no-hyphens" => id.simple().to_string(),
        "braces" => id.braced().to_string(),
        "urn" => id.urn().to_string(),
        _ => id.hyphenated().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::testing::{run_err, run_ok};
    use serde_json::json;
    use std::collections::HashSet;
    use uuid::{Uuid, Variant};

    fn generate(args: serde_json::Value) -> Vec<Uuid> {
        run_ok("uuid-generator", args)["uuids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Uuid::parse_str(v.as_str().unwrap()).unwrap())
            .collect()
    }

    // Python documentation examples for uuid.uuid3 / uuid.uuid5.
    #[test]
    fn name_based_match_python_docs() {
        let v3 = run_ok(
            "uuid-generator",
            json!({"version": "v3", "namespace": "dns", "name": "python.org"}),
        );
        assert_eq!(v3["output"], "6fa459ea-ee8a-3ca4-894e-db77e160355e");
        let v5 = run_ok(
            "uuid-generator",
            json!({"version": "v5", "namespace": "DNS", "name": "python.org"}),
        );
        assert_eq!(v5["output"], "886313e1-3b8a-5372-9b90-0c9aee199e5d");
        // A custom namespace given as a UUID is the same as the named one.
        let custom = run_ok(
            "uuid-generator",
            json!({"version": "v5", "namespace": "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "name": "python.org"}),
        );
        assert_eq!(custom["output"], v5["output"]);
    }

    #[test]
    fn random_versions_have_version_and_variant_bits() {
        for (version, num) in [("v1", 1), ("v4", 4), ("v7", 7)] {
            let ids = generate(json!({"version": version, "count": 200}));
            assert_eq!(ids.len(), 200);
            let unique: HashSet<_> = ids.iter().collect();
            assert_eq!(unique.len(), 200, "{version} repeated a UUID");
            for id in &ids {
                assert_eq!(id.get_version_num(), num);
                assert_eq!(id.get_variant(), Variant::RFC4122);
            }
        }
    }

    #[test]
    fn v7_is_time_ordered() {
        let ids = generate(json!({"version": "v7", "count": 500}));
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn nil_max_and_formats() {
        let nil = run_ok("uuid-generator", json!({"version": "nil", "format": "urn"}));
        assert_eq!(
            nil["output"],
            "urn:uuid:00000000-0000-0000-0000-000000000000"
        );
        let max = run_ok(
            "uuid-generator",
            json!({"version": "max", "format": "no-hyphens"}),
        );
        assert_eq!(max["output"], "ffffffffffffffffffffffffffffffff");
        let upper = run_ok(
            "uuid-generator",
            json!({"version": "v3", "namespace": "dns", "name": "python.org", "format": "uppercase"}),
        );
        assert_eq!(upper["output"], "6FA459EA-EE8A-3CA4-894E-DB77E160355E");
        let braces = run_ok(
            "uuid-generator",
            json!({"version": "v3", "namespace": "dns", "name": "python.org", "format": "braces"}),
        );
        assert_eq!(braces["output"], "{6fa459ea-ee8a-3ca4-894e-db77e160355e}");
    }

    #[test]
    fn name_based_needs_namespace_and_name() {
        let (code, msg) = run_err("uuid-generator", json!({"version": "v5", "name": "x"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("namespace"), "{msg}");
        let (code, msg) = run_err(
            "uuid-generator",
            json!({"version": "v3", "namespace": "nope", "name": "x"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'nope'"), "{msg}");
        let (code, _) = run_err(
            "uuid-generator",
            json!({"version": "v3", "namespace": "dns"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
