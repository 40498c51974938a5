//! Identifier generators and analysers: UUIDs of every RFC 9562 version the `uuid` crate
//! implements, UUID analysis (version, variant, embedded time and node), and ULIDs
//! (github.com/ulid/spec) generated and decoded with the `ulid` crate.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use rand::RngExt;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde_json::json;
use ulid::Ulid;
use uuid::Uuid;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("uuid-generator", uuid_generator),
    Tool::new("ulid-generator", ulid_generator),
    Tool::new("uuid-analyzer", uuid_analyzer),
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
    let uppercase = args.flag("uppercase");
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
            render(id, format, uppercase)
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

fn render(id: Uuid, format: &str, uppercase: bool) -> String {
    let text = render_lower(id, format);
    if uppercase {
        // Only hex digits change: "urn:uuid:" stays lower case, as RFC 9562 writes it.
        match text.strip_prefix("urn:uuid:") {
            Some(hex) => format!("urn:uuid:{}", hex.to_uppercase()),
            None => text.to_uppercase(),
        }
    } else {
        text
    }
}

fn render_lower(id: Uuid, format: &str) -> String {
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

/// Seconds from the Gregorian epoch of RFC 9562 time-based UUIDs (1582-10-15) to 1970-01-01.
const GREGORIAN_TO_UNIX_SECS: i64 = 12_219_292_800;

fn uuid_analyzer(args: &Args) -> ToolOutcome {
    let text = args.str("uuid")?.trim();
    let id = Uuid::parse_str(text).map_err(|e| {
        ToolError::invalid(format!(
            "'{}' is not a UUID: {e}. Accepted forms: 8-4-4-4-12 hex digits, optionally in braces or after urn:uuid:, or 32 hex digits",
            crate::text::preview(text, 60)
        ))
    })?;
    let bytes = id.as_bytes();
    let number = id.get_version_num();
    let variant = match id.get_variant() {
        uuid::Variant::NCS => "NCS (reserved, backward compatibility)",
        uuid::Variant::RFC4122 => "RFC 9562 (formerly RFC 4122)",
        uuid::Variant::Microsoft => "Microsoft (reserved, backward compatibility)",
        _ => "Future (reserved)",
    };
    let standard = id.get_variant() == uuid::Variant::RFC4122;
    // Versions only mean something in the RFC 9562 variant; Nil and Max are their own cases.
    let version_name = if id.is_nil() {
        "Nil UUID"
    } else if id.is_max() {
        "Max UUID"
    } else if !standard {
        "none (not the RFC 9562 variant)"
    } else {
        match number {
            1 => "time-based, Gregorian (v1)",
            2 => "DCE Security (v2)",
            3 => "name-based, MD5 (v3)",
            4 => "random (v4)",
            5 => "name-based, SHA-1 (v5)",
            6 => "reordered time-based, Gregorian (v6)",
            7 => "Unix time-based (v7)",
            8 => "custom (v8)",
            _ => "unassigned version",
        }
    };
    let version = (standard && !id.is_nil() && !id.is_max()).then_some(number);
    let gregorian_ticks: Option<u64> = match version {
        // RFC 9562 §5.1: time_low | time_mid | time_high (12 bits), 100 ns since 1582-10-15.
        Some(1) => Some(
            (u64::from(bytes[6] & 0x0f) << 56)
                | (u64::from(bytes[7]) << 48)
                | (u64::from(bytes[4]) << 40)
                | (u64::from(bytes[5]) << 32)
                | u64::from(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        ),
        // §5.6: the same 60 bits most-significant first, the version nibble taken out.
        Some(6) => Some(
            (u64::from_be_bytes([
                0, 0, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5],
            ]) << 12)
                | (u64::from(bytes[6] & 0x0f) << 8)
                | u64::from(bytes[7]),
        ),
        _ => None,
    };
    let (time, unix_ms) = if let Some(ticks) = gregorian_ticks {
        let ticks = i64::try_from(ticks).unwrap_or(i64::MAX);
        let secs = ticks / 10_000_000 - GREGORIAN_TO_UNIX_SECS;
        let nanos = u32::try_from(ticks % 10_000_000 * 100).unwrap_or(0);
        let time = chrono::DateTime::from_timestamp(secs, nanos)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true));
        (time, Some(secs * 1000 + i64::from(nanos / 1_000_000)))
    } else if version == Some(7) {
        // §5.7: the first 48 bits are Unix milliseconds.
        let ms = i64::try_from(u64::from_be_bytes([
            0, 0, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5],
        ]))
        .unwrap_or(i64::MAX);
        let time = chrono::DateTime::from_timestamp_millis(ms)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        (time, Some(ms))
    } else {
        (None, None)
    };
    let (clock_sequence, node, node_kind) = if gregorian_ticks.is_some() {
        let seq = (u16::from(bytes[8] & 0x3f) << 8) | u16::from(bytes[9]);
        let node: Vec<String> = bytes[10..].iter().map(|b| format!("{b:02x}")).collect();
        // §6.10: a random node has the multicast bit set so it cannot collide with a real MAC.
        let kind = if bytes[10] & 0x01 == 1 {
            "random (multicast bit set)"
        } else {
            "IEEE 802 MAC address"
        };
        (Some(seq), Some(node.join(":")), Some(kind))
    } else {
        (None, None, None)
    };
    // Microsoft GUID structures store the first three fields little-endian.
    let mut guid = *bytes;
    guid[..4].reverse();
    guid[4..6].reverse();
    guid[6..8].reverse();
    let hyphenated = id.hyphenated().to_string();
    let mut data = json!({
        "output": hyphenated,
        "version": version,
        "versionName": version_name,
        "variant": variant,
        "isNil": id.is_nil(),
        "isMax": id.is_max(),
        "time": time,
        "unixMs": unix_ms,
        "gregorianTicks": gregorian_ticks,
        "clockSequence": clock_sequence,
        "node": node,
        "nodeKind": node_kind,
        "formats": {
            "hyphenated": hyphenated,
            "uppercase": hyphenated.to_uppercase(),
            "simple": id.simple().to_string(),
            "braced": id.braced().to_string(),
            "urn": id.urn().to_string(),
            "base64": base64::engine::general_purpose::STANDARD.encode(bytes),
            "base64url": base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
            "integer": id.as_u128().to_string(),
            "guidBytesLittleEndian": hex::encode(guid),
        },
    });
    // Fields a version does not have are left out rather than null, so each keeps one type.
    if let serde_json::Value::Object(m) = &mut data {
        m.retain(|_, v| !v.is_null());
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
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

    #[test]
    fn uppercase_applies_to_every_format_as_python_writes_it() {
        let gen_ = |format: &str| {
            run_ok(
                "uuid-generator",
                json!({"version": "v5", "namespace": "dns", "name": "python.org",
                       "format": format, "uppercase": true}),
            )["output"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(gen_("standard"), "886313E1-3B8A-5372-9B90-0C9AEE199E5D");
        assert_eq!(gen_("no-hyphens"), "886313E13B8A53729B900C9AEE199E5D");
        assert_eq!(gen_("braces"), "{886313E1-3B8A-5372-9B90-0C9AEE199E5D}");
        assert_eq!(gen_("urn"), "urn:uuid:886313E1-3B8A-5372-9B90-0C9AEE199E5D");
        if let Some(py) = crate::tools::kit::testing::python(
            "import uuid; u = uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org'); print(str(u).upper()); print(u.hex.upper())",
        ) {
            assert_eq!(py, format!("{}\n{}", gen_("standard"), gen_("no-hyphens")));
        }
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

    // RFC 9562 Appendix A test vectors.
    #[test]
    fn uuid_analyzer_rfc9562_v1_and_v6() {
        let v1 = run_ok(
            "uuid-analyzer",
            json!({"uuid": "C232AB00-9414-11EC-B3C8-9F6BDECED846"}),
        );
        assert_eq!(v1["version"], 1);
        assert_eq!(v1["time"], "2022-02-22T19:22:22Z");
        assert_eq!(v1["clockSequence"], 0x33c8);
        assert_eq!(v1["node"], "9f:6b:de:ce:d8:46");
        assert_eq!(v1["nodeKind"], "random (multicast bit set)");
        assert_eq!(v1["variant"], "RFC 9562 (formerly RFC 4122)");
        assert_eq!(v1["output"], "c232ab00-9414-11ec-b3c8-9f6bdeced846");
        let v6 = run_ok(
            "uuid-analyzer",
            json!({"uuid": "1EC9414C-232A-6B00-B3C8-9F6BDECED846"}),
        );
        assert_eq!(v6["version"], 6);
        assert_eq!(v6["time"], "2022-02-22T19:22:22Z");
        assert_eq!(v6["gregorianTicks"], v1["gregorianTicks"]);
        assert_eq!(v6["clockSequence"], 0x33c8);
    }

    #[test]
    fn uuid_analyzer_rfc9562_v7_v4_v8() {
        let v7 = run_ok(
            "uuid-analyzer",
            json!({"uuid": "017F22E2-79B0-7CC3-98C4-DC0C0C07398F"}),
        );
        assert_eq!(v7["version"], 7);
        assert_eq!(v7["time"], "2022-02-22T19:22:22.000Z");
        assert_eq!(v7["unixMs"], 1_645_557_742_000i64);
        assert_eq!(v7.get("node"), None);
        let v4 = run_ok(
            "uuid-analyzer",
            json!({"uuid": "{919108F7-52D1-4320-9BAC-F847DB4148A8}"}),
        );
        assert_eq!(v4["version"], 4);
        assert_eq!(v4["versionName"], "random (v4)");
        assert_eq!(v4.get("time"), None);
        let v8 = run_ok(
            "uuid-analyzer",
            json!({"uuid": "urn:uuid:2489E9AD-2EE2-8E00-8EC9-32D5F69181C0"}),
        );
        assert_eq!(v8["version"], 8);
    }

    #[test]
    fn uuid_analyzer_renderings_nil_and_max() {
        let data = run_ok(
            "uuid-analyzer",
            json!({"uuid": "6ba7b8109dad11d180b400c04fd430c8"}),
        );
        let f = &data["formats"];
        assert_eq!(f["hyphenated"], "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
        assert_eq!(f["braced"], "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}");
        assert_eq!(f["urn"], "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8");
        assert_eq!(f["integer"], "143098242404177361603877621312831893704");
        assert_eq!(
            f["guidBytesLittleEndian"],
            "10b8a76bad9dd11180b400c04fd430c8"
        );
        // The DNS namespace UUID (RFC 9562 §6.6) is a v1 from 1998 with a real MAC node.
        assert_eq!(data["nodeKind"], "IEEE 802 MAC address");
        assert_eq!(data["time"], "1998-02-04T22:13:53.151182400Z");
        let nil = run_ok(
            "uuid-analyzer",
            json!({"uuid": "00000000-0000-0000-0000-000000000000"}),
        );
        assert_eq!(nil["isNil"], true);
        assert_eq!(nil.get("version"), None);
        assert_eq!(nil["versionName"], "Nil UUID");
        let max = run_ok(
            "uuid-analyzer",
            json!({"uuid": "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"}),
        );
        assert_eq!(max["isMax"], true);
        assert_eq!(max["versionName"], "Max UUID");
    }

    #[test]
    fn uuid_analyzer_rejects_malformed_input() {
        let (code, msg) = run_err(
            "uuid-analyzer",
            json!({"uuid": "c232ab00-9414-11ec-b3c8-9f6bdeced84"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("is not a UUID"), "{msg}");
        let (code, msg) = run_err(
            "uuid-analyzer",
            json!({"uuid": "g232ab00-9414-11ec-b3c8-9f6bdeced846"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'g'") || msg.contains("`g`"), "{msg}");
    }
}
