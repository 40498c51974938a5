//! Identifier generators: UUIDs of every RFC 9562 version the `uuid` crate implements, and
//! ULIDs (github.com/ulid/spec) generated and decoded with the `ulid` crate.

use super::ToolFn;
use super::args::Args;
use crate::ctp::{ToolError, ToolOutcome};
use rand::RngExt;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde_json::json;
use ulid::Ulid;
use uuid::Uuid;

pub const TOOLS: &[(&str, ToolFn)] = &[
    ("uuid-generator", uuid_generator),
    ("ulid-generator", ulid_generator),
];

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

/// The largest ULID timestamp: 48 bits of milliseconds (year 10889).
const ULID_MAX_MS: u64 = (1 << 48) - 1;

fn ulid_generator(args: &Args) -> ToolOutcome {
    if args.str("mode")? == "decode" {
        return ulid_decode(args);
    }
    let count = args.usize("count")?;
    let monotonic = args.flag("monotonic");
    let lowercase = args.flag("lowercase");
    let fixed_ms = args.opt_str("timestamp").map(ulid_timestamp).transpose()?;
    // A seed makes the random part reproducible (with a fixed timestamp, the whole ULID);
    // ChaCha20 is specified, so a seed means the same ULIDs on every platform and version.
    let mut seeded = args
        .opt_i64("seed")
        .map(|s| ChaCha20Rng::seed_from_u64(s as u64));
    let mut random = || -> u128 {
        let mut bytes = [0u8; 16];
        match seeded.as_mut() {
            Some(rng) => rng.fill_bytes(&mut bytes[6..]),
            None => rand::rng().fill(&mut bytes[6..]),
        }
        u128::from_be_bytes(bytes)
    };
    let mut previous: Option<Ulid> = None;
    let mut ulids = Vec::with_capacity(count);
    for _ in 0..count {
        let ms = fixed_ms.unwrap_or_else(now_ms);
        let next = match previous {
            // The spec's monotonic rule: within the same millisecond, increment the random part.
            Some(prev) if monotonic && ms <= prev.timestamp_ms() => {
                prev.increment().map_err(|_| {
                    ToolError::execution(
                        "the random part overflowed within one millisecond; generate fewer monotonic ULIDs or leave timestamp empty",
                    )
                })?
            }
            _ => Ulid::from_parts(ms, random()),
        };
        previous = Some(next);
        let text = next.to_string();
        ulids.push(if lowercase {
            text.to_ascii_lowercase()
        } else {
            text
        });
    }
    Ok(json!({ "output": ulids.join("\n"), "ulids": ulids }))
}

fn now_ms() -> u64 {
    let ms = chrono::Utc::now().timestamp_millis();
    u64::try_from(ms).unwrap_or(0).min(ULID_MAX_MS)
}

/// Milliseconds since the Unix epoch, or an RFC 3339 date-time.
fn ulid_timestamp(text: &str) -> Result<u64, ToolError> {
    let text = text.trim();
    let ms = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse::<u64>().ok()
    } else {
        chrono::DateTime::parse_from_rfc3339(text)
            .ok()
            .and_then(|t| u64::try_from(t.timestamp_millis()).ok())
    };
    ms.filter(|ms| *ms <= ULID_MAX_MS).ok_or_else(|| {
        ToolError::invalid(format!(
            "timestamp '{}' is neither milliseconds since 1970 (0 to {ULID_MAX_MS}) nor an RFC 3339 date-time such as 2016-07-30T22:36:16.385Z",
            crate::text::preview(text, 40)
        ))
    })
}

fn ulid_decode(args: &Args) -> ToolOutcome {
    let Some(text) = args.opt_str("input").map(str::trim) else {
        return Err(ToolError::invalid(
            "decode mode needs 'input': the ULID to decode, e.g. 01ARZ3NDEKTSV4RRFFQ69G5FAV",
        ));
    };
    let length = text.chars().count();
    if length != 26 {
        return Err(ToolError::invalid(format!(
            "a ULID has 26 characters, '{}' has {length}",
            crate::text::preview(text, 40)
        )));
    }
    if let Some((i, c)) = text.chars().enumerate().find(|(_, c)| {
        !c.is_ascii_alphanumeric() || matches!(c.to_ascii_uppercase(), 'I' | 'L' | 'O' | 'U')
    }) {
        return Err(ToolError::invalid(format!(
            "character '{c}' at position {} is not in the ULID alphabet (Crockford Base32: 0-9 and A-Z without I, L, O, U)",
            i + 1
        )));
    }
    // 26 characters carry 130 bits; the spec rejects anything above 7ZZZZZZZZZZZZZZZZZZZZZZZZZ
    // rather than silently dropping the top bits as the crate's decoder does.
    if text.as_bytes()[0] > b'7' {
        return Err(ToolError::invalid(format!(
            "'{text}' overflows 128 bits: the first character of a ULID is at most 7"
        )));
    }
    let id = Ulid::from_string(text)
        .map_err(|e| ToolError::invalid(format!("'{text}' is not a ULID: {e}")))?;
    let ms = id.timestamp_ms();
    let time = i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    let canonical = id.to_string();
    Ok(json!({
        "output": canonical,
        "timestamp": ms,
        "time": time,
        "randomness": &canonical[10..],
        "randomnessHex": format!("{:020x}", id.random()),
        "uuid": Uuid::from_bytes(id.to_bytes()).hyphenated().to_string(),
    }))
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

    // The reference implementation's README (github.com/ulid/javascript):
    // decodeTime("01ARYZ6S41TSV4RRFFQ69G5FAV") is 1469918176385; the spec's own example
    // 01ARZ3NDEKTSV4RRFFQ69G5FAV shares its randomness and carries 1469922850259.
    #[test]
    fn ulid_decodes_reference_examples() {
        let data = run_ok(
            "ulid-generator",
            json!({"mode": "decode", "input": "01ARYZ6S41TSV4RRFFQ69G5FAV"}),
        );
        assert_eq!(data["timestamp"], 1469918176385u64);
        assert_eq!(data["time"], "2016-07-30T22:36:16.385Z");
        assert_eq!(data["randomness"], "TSV4RRFFQ69G5FAV");
        assert_eq!(data["output"], "01ARYZ6S41TSV4RRFFQ69G5FAV");
        let spec = run_ok(
            "ulid-generator",
            json!({"mode": "decode", "input": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
        );
        assert_eq!(spec["timestamp"], 1469922850259u64);
        assert_eq!(spec["randomnessHex"], data["randomnessHex"]);
        // Lowercase is accepted and canonicalised.
        let lower = run_ok(
            "ulid-generator",
            json!({"mode": "decode", "input": "01arz3ndektsv4rrffq69g5fav"}),
        );
        assert_eq!(lower["output"], "01ARZ3NDEKTSV4RRFFQ69G5FAV");
        assert_eq!(lower["uuid"], spec["uuid"]);
    }

    // The spec's bounds: 00000000000000000000000000 and 7ZZZZZZZZZZZZZZZZZZZZZZZZZ.
    #[test]
    fn ulid_decode_bounds_and_errors() {
        let max = run_ok(
            "ulid-generator",
            json!({"mode": "decode", "input": "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"}),
        );
        assert_eq!(max["timestamp"], 281474976710655u64);
        assert_eq!(max["uuid"], "ffffffff-ffff-ffff-ffff-ffffffffffff");
        let (code, msg) = run_err(
            "ulid-generator",
            json!({"mode": "decode", "input": "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("at most 7"), "{msg}");
        let (_, msg) = run_err(
            "ulid-generator",
            json!({"mode": "decode", "input": "01ARZ3NDEKTSV4RRFFQ69G5FAU"}),
        );
        assert!(msg.contains("'U' at position 26"), "{msg}");
        let (_, msg) = run_err(
            "ulid-generator",
            json!({"mode": "decode", "input": "01ARZ"}),
        );
        assert!(msg.contains("26 characters"), "{msg}");
    }

    #[test]
    fn ulid_seed_and_timestamp_reproduce() {
        let args = json!({"count": 3, "timestamp": "2016-07-30T22:36:16.385Z", "seed": 42});
        let a = run_ok("ulid-generator", args.clone());
        let b = run_ok("ulid-generator", args);
        assert_eq!(a, b);
        for id in a["ulids"].as_array().unwrap() {
            assert!(id.as_str().unwrap().starts_with("01ARYZ6S41"), "{id}");
        }
        let by_ms = run_ok(
            "ulid-generator",
            json!({"count": 3, "timestamp": "1469918176385", "seed": 42}),
        );
        assert_eq!(by_ms, a);
        let (code, _) = run_err("ulid-generator", json!({"timestamp": "yesterday"}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn ulid_monotonic_increments_within_a_millisecond() {
        let data = run_ok(
            "ulid-generator",
            json!({"count": 3, "monotonic": true, "timestamp": "1469918176385", "seed": 1, "lowercase": true}),
        );
        let ids: Vec<ulid::Ulid> = data["ulids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                let s = v.as_str().unwrap();
                assert_eq!(s, s.to_ascii_lowercase());
                ulid::Ulid::from_string(s).unwrap()
            })
            .collect();
        assert_eq!(ids[1].0, ids[0].0 + 1);
        assert_eq!(ids[2].0, ids[1].0 + 1);
        let fresh = run_ok("ulid-generator", json!({"count": 500}));
        let list = fresh["ulids"].as_array().unwrap();
        let unique: HashSet<_> = list.iter().collect();
        assert_eq!(unique.len(), 500);
        assert!(list.iter().all(|v| v.as_str().unwrap().len() == 26));
    }
}
