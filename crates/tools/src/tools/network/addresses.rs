//! IP and link-layer addressing: IPv4 subnets, address forms and ranges (ipnet), random MAC
//! addresses (IEEE 802) and RFC 4193 unique local IPv6 prefixes.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use ipnet::{Ipv4Net, Ipv4Subnets};
use rand::RngExt;
use serde_json::{Value, json};
use sha1::{Digest, Sha1};
use std::net::{Ipv4Addr, Ipv6Addr};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("ipv4-subnet-calculator", ipv4_subnet_calculator),
    Tool::new("ipv4-address-converter", ipv4_address_converter),
    Tool::new("ipv4-range-expander", ipv4_range_expander),
    Tool::new("mac-address-generator", mac_address_generator),
    Tool::new("ipv6-ula-generator", ipv6_ula_generator),
];

/// A strict dotted-decimal IPv4 address; std rejects leading zeros, which some parsers read as
/// octal, so "010.0.0.1" is refused rather than silently misread.
fn parse_ipv4(text: &str, what: &str) -> Result<Ipv4Addr, ToolError> {
    let t = text.trim();
    t.parse().map_err(|_| {
        let hint = if t.split('.').any(|p| p.len() > 1 && p.starts_with('0')) {
            " (an octet with a leading zero is ambiguous: some parsers read it as octal)"
        } else {
            ""
        };
        ToolError::invalid(format!(
            "{what} '{t}' is not a dotted-decimal IPv4 address: expected four numbers 0-255 separated by dots{hint}"
        ))
    })
}

fn dotted_binary(a: Ipv4Addr) -> String {
    a.octets()
        .iter()
        .map(|o| format!("{o:08b}"))
        .collect::<Vec<_>>()
        .join(".")
}

/// The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates), most specific first.
const SPECIAL_PURPOSE: &[([u8; 4], u8, &str, &str)] = &[
    ([255, 255, 255, 255], 32, "Limited broadcast", "RFC 919"),
    ([0, 0, 0, 0], 8, "\"This network\"", "RFC 791"),
    ([10, 0, 0, 0], 8, "Private-Use", "RFC 1918"),
    (
        [100, 64, 0, 0],
        10,
        "Shared Address Space (CGN)",
        "RFC 6598",
    ),
    ([127, 0, 0, 0], 8, "Loopback", "RFC 1122"),
    ([169, 254, 0, 0], 16, "Link-Local", "RFC 3927"),
    ([172, 16, 0, 0], 12, "Private-Use", "RFC 1918"),
    ([192, 0, 0, 0], 24, "IETF Protocol Assignments", "RFC 6890"),
    ([192, 0, 2, 0], 24, "Documentation (TEST-NET-1)", "RFC 5737"),
    (
        [192, 88, 99, 0],
        24,
        "6to4 Relay Anycast (deprecated)",
        "RFC 7526",
    ),
    ([192, 168, 0, 0], 16, "Private-Use", "RFC 1918"),
    ([198, 18, 0, 0], 15, "Benchmarking", "RFC 2544"),
    (
        [198, 51, 100, 0],
        24,
        "Documentation (TEST-NET-2)",
        "RFC 5737",
    ),
    (
        [203, 0, 113, 0],
        24,
        "Documentation (TEST-NET-3)",
        "RFC 5737",
    ),
    ([224, 0, 0, 0], 4, "Multicast", "RFC 5771"),
    ([240, 0, 0, 0], 4, "Reserved", "RFC 1112"),
];

/// The special-purpose block holding `a`, as (block, name, RFC).
fn special_purpose(a: Ipv4Addr) -> Option<(Ipv4Net, &'static str, &'static str)> {
    SPECIAL_PURPOSE.iter().find_map(|(net, len, name, rfc)| {
        let block = Ipv4Net::new(Ipv4Addr::from(*net), *len).ok()?;
        block.contains(&a).then_some((block, *name, *rfc))
    })
}

/// The pre-CIDR class (RFC 791) by the leading bits of the first octet.
fn class_of(a: Ipv4Addr) -> &'static str {
    match a.octets()[0] {
        0..=127 => "A",
        128..=191 => "B",
        192..=223 => "C",
        224..=239 => "D",
        _ => "E",
    }
}

/// A prefix length ("24", "/24") or a contiguous netmask ("255.255.255.0").
fn parse_mask(text: &str) -> Result<u8, ToolError> {
    let t = text.trim().trim_start_matches('/');
    if !t.contains('.') {
        return t.parse::<u8>().ok().filter(|n| *n <= 32).ok_or_else(|| {
            ToolError::invalid(format!(
                "prefix length '{t}' must be a whole number from 0 to 32"
            ))
        });
    }
    let mask = parse_ipv4(t, "netmask")?;
    ipnet::ipv4_mask_to_prefix(mask).map_err(|_| {
        let inverted = Ipv4Addr::from(!u32::from(mask));
        let hint = if ipnet::ipv4_mask_to_prefix(inverted).is_ok() {
            format!(" (it looks like a wildcard mask; the netmask would be {inverted})")
        } else {
            String::new()
        };
        ToolError::invalid(format!(
            "netmask {mask} is not contiguous: a netmask is ones followed by zeros{hint}"
        ))
    })
}

/// "a.b.c.d/len", "a.b.c.d/mask", "a.b.c.d mask", or an address with a separate mask.
fn parse_cidr(address: &str, mask: Option<&str>) -> Result<(Ipv4Addr, u8), ToolError> {
    let t = address.trim();
    let (addr, inline) = match t.split_once('/') {
        Some((a, m)) => (a, Some(m)),
        None => match t.split_once(char::is_whitespace) {
            Some((a, m)) => (a, Some(m)),
            None => (t, None),
        },
    };
    let addr = parse_ipv4(addr, "address")?;
    let prefix = match (inline, mask) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid(
                "give the prefix either in the address (/24) or as mask, not both",
            ));
        }
        (Some(m), None) | (None, Some(m)) => parse_mask(m)?,
        (None, None) => {
            return Err(ToolError::invalid(format!(
                "'{t}' has no prefix length: write it as {addr}/24 or give a netmask such as 255.255.255.0"
            )));
        }
    };
    Ok((addr, prefix))
}

fn ipv4_subnet_calculator(args: &Args) -> ToolOutcome {
    let (addr, prefix) = parse_cidr(args.str("address")?, args.opt_str("mask"))?;
    let net = Ipv4Net::new(addr, prefix)
        .map_err(|_| ToolError::invalid(format!("prefix length {prefix} is out of range")))?;
    let total = 1u64 << (32 - prefix);
    // RFC 3021: a /31 has two usable hosts and no broadcast; a /32 is the single host itself.
    let (first, last, usable, broadcast) = match prefix {
        32 => (addr, addr, 1, None),
        31 => (net.network(), net.broadcast(), 2, None),
        _ => (
            Ipv4Addr::from(u32::from(net.network()) + 1),
            Ipv4Addr::from(u32::from(net.broadcast()) - 1),
            total - 2,
            Some(net.broadcast()),
        ),
    };
    let special = special_purpose(addr);
    Ok(json!({
        "cidr": net.trunc().to_string(),
        "address": addr.to_string(),
        "prefixLength": prefix,
        "netmask": net.netmask().to_string(),
        "wildcardMask": net.hostmask().to_string(),
        "network": net.network().to_string(),
        "broadcast": broadcast.map(|b| b.to_string()),
        "firstHost": first.to_string(),
        "lastHost": last.to_string(),
        "totalAddresses": total,
        "usableHosts": usable,
        "class": class_of(addr),
        "private": special.is_some_and(|(_, name, _)| name == "Private-Use"),
        "specialPurpose": special.map(|(block, name, rfc)| json!({"block": block.to_string(), "name": name, "rfc": rfc})),
        "binary": {
            "address": dotted_binary(addr),
            "netmask": dotted_binary(net.netmask()),
            "wildcardMask": dotted_binary(net.hostmask()),
            "network": dotted_binary(net.network()),
            "broadcast": dotted_binary(net.broadcast()),
        },
        "hex": {
            "address": format!("0x{:08X}", u32::from(addr)),
            "netmask": format!("0x{:08X}", u32::from(net.netmask())),
        },
    }))
}

fn digits_in(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_digit(radix))
}

/// Reads an IPv4 address in one of the forms the converter prints.
fn parse_any_ipv4(input: &str, from: &str) -> Result<(Ipv4Addr, &'static str), ToolError> {
    let t = input.trim();
    let lower = t.to_ascii_lowercase();
    let number = |digits: &str, radix: u32, form: &'static str| {
        let clean: String = digits.chars().filter(|c| *c != '_').collect();
        if !digits_in(&clean, radix) {
            return Err(ToolError::invalid(format!(
                "'{t}' is not a {form} number (allowed digits: {})",
                match radix {
                    2 => "0-1",
                    8 => "0-7",
                    10 => "0-9",
                    _ => "0-9, a-f",
                }
            )));
        }
        u32::from_str_radix(&clean, radix)
            .map(|n| (Ipv4Addr::from(n), form))
            .map_err(|_| {
                ToolError::invalid(format!(
                    "'{t}' is larger than 32 bits; the largest IPv4 address is 255.255.255.255 = 4294967295"
                ))
            })
    };
    let dotted_binary = |s: &str| -> Option<Ipv4Addr> {
        let parts: Vec<&str> = s.split('.').collect();
        if parts.len() != 4 || !parts.iter().all(|p| p.len() == 8 && digits_in(p, 2)) {
            return None;
        }
        let mut octets = [0u8; 4];
        for (o, p) in octets.iter_mut().zip(&parts) {
            *o = u8::from_str_radix(p, 2).ok()?;
        }
        Some(Ipv4Addr::from(octets))
    };
    match from {
        "dotted" => parse_ipv4(t, "address").map(|a| (a, "dotted")),
        "decimal" => number(t, 10, "decimal"),
        "hex" => number(lower.strip_prefix("0x").unwrap_or(&lower), 16, "hex"),
        "octal" => number(lower.strip_prefix("0o").unwrap_or(&lower), 8, "octal"),
        "binary" => match dotted_binary(t) {
            Some(a) => Ok((a, "binary")),
            None => number(lower.strip_prefix("0b").unwrap_or(&lower), 2, "binary"),
        },
        _ => {
            if let Some(h) = lower.strip_prefix("0x") {
                number(h, 16, "hex")
            } else if let Some(b) = lower.strip_prefix("0b") {
                number(b, 2, "binary")
            } else if let Some(o) = lower.strip_prefix("0o") {
                number(o, 8, "octal")
            } else if t.contains('.') {
                match dotted_binary(t) {
                    Some(a) => Ok((a, "binary")),
                    None => parse_ipv4(t, "address").map(|a| (a, "dotted")),
                }
            } else if digits_in(t, 10) {
                number(t, 10, "decimal")
            } else if digits_in(&lower, 16) {
                number(&lower, 16, "hex")
            } else {
                Err(ToolError::invalid(format!(
                    "'{t}' is not an IPv4 address in dotted, decimal, 0x hex, 0b binary or 0o octal form"
                )))
            }
        }
    }
}

fn ipv4_address_converter(args: &Args) -> ToolOutcome {
    let (addr, detected) = parse_any_ipv4(args.str("input")?, args.str("from")?)?;
    let n = u32::from(addr);
    let mapped = addr.to_ipv6_mapped();
    let [a, b, c, d] = addr.octets();
    let hex_mapped = format!(
        "::ffff:{:x}:{:x}",
        u16::from_be_bytes([a, b]),
        u16::from_be_bytes([c, d])
    );
    let fields = [
        ("dotted", addr.to_string()),
        ("decimal", n.to_string()),
        ("hex", format!("0x{n:08X}")),
        ("octal", format!("0{n:o}")),
        ("binary", format!("{n:032b}")),
        ("binaryDotted", dotted_binary(addr)),
        ("ipv6Mapped", mapped.to_string()),
        ("ipv6MappedHex", hex_mapped),
        ("ipv6MappedFull", full_ipv6(mapped)),
    ];
    let mut out = serde_json::Map::new();
    out.insert(
        "output".into(),
        Value::String(
            fields
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    );
    for (k, v) in fields {
        let value = if k == "decimal" {
            json!(n)
        } else {
            Value::String(v)
        };
        out.insert(k.into(), value);
    }
    out.insert("detectedFormat".into(), json!(detected));
    Ok(Value::Object(out))
}

/// All eight groups, four hex digits each.
pub(super) fn full_ipv6(a: Ipv6Addr) -> String {
    a.segments()
        .iter()
        .map(|s| format!("{s:04x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// A range "a-b" (hyphen or en dash, optional spaces) in one parameter.
fn split_range(text: &str) -> Option<(&str, &str)> {
    text.split_once('-')
        .or_else(|| text.split_once('\u{2013}'))
        .map(|(a, b)| (a.trim(), b.trim()))
}

fn ipv4_range_expander(args: &Args) -> ToolOutcome {
    let start_text = args.str("start")?.trim();
    let end_text = args.opt_str("end").map(str::trim);
    if start_text.contains('/') {
        if end_text.is_some() {
            return Err(ToolError::invalid(
                "give either a CIDR block in start, or start and end addresses, not both",
            ));
        }
        let (addr, prefix) = parse_cidr(start_text, None)?;
        let net = Ipv4Net::new(addr, prefix)
            .map_err(|_| ToolError::invalid(format!("prefix length {prefix} is out of range")))?;
        let count = 1u64 << (32 - prefix);
        let (first, last) = (net.network(), net.broadcast());
        return Ok(json!({
            "output": format!("{first} - {last}"),
            "cidr": net.trunc().to_string(),
            "start": first.to_string(),
            "end": last.to_string(),
            "addressCount": count,
            "netmask": net.netmask().to_string(),
        }));
    }
    let (a, b) = match (end_text, split_range(start_text)) {
        (Some(end), _) => (start_text, end),
        (None, Some(pair)) => pair,
        (None, None) => {
            return Err(ToolError::invalid(format!(
                "'{start_text}' is neither a CIDR block nor a range: give an end address, write start-end, or a block such as 10.0.0.0/8"
            )));
        }
    };
    let start = parse_ipv4(a, "start address")?;
    let end = parse_ipv4(b, "end address")?;
    if start > end {
        return Err(ToolError::invalid(format!(
            "start address {start} is after end address {end}"
        )));
    }
    let blocks: Vec<String> = Ipv4Subnets::new(start, end, 0)
        .map(|n| n.to_string())
        .collect();
    let count = u64::from(u32::from(end)) - u64::from(u32::from(start)) + 1;
    // The smallest single block containing both ends: the common leading bits.
    let common = (u32::from(start) ^ u32::from(end)).leading_zeros() as u8;
    let covering = Ipv4Net::new(start, common)
        .map(|n| n.trunc())
        .map_err(|_| ToolError::execution("could not build the covering block"))?;
    Ok(json!({
        "output": blocks.join("\n"),
        "start": start.to_string(),
        "end": end.to_string(),
        "addressCount": count,
        "cidrs": blocks,
        "blockCount": blocks.len(),
        "coveringCidr": {
            "cidr": covering.to_string(),
            "start": covering.network().to_string(),
            "end": covering.broadcast().to_string(),
            "addressCount": 1u64 << (32 - common),
        },
    }))
}

/// A MAC address or prefix of whole bytes, hex digits with optional ':', '-' or '.' separators.
fn parse_mac_bytes(text: &str, what: &str) -> Result<Vec<u8>, ToolError> {
    let t = text.trim();
    let hex: String = t
        .chars()
        .filter(|c| !matches!(c, ':' | '-' | '.'))
        .collect();
    if let Some(bad) = hex.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(ToolError::invalid(format!(
            "{what} '{t}' contains '{bad}', which is not a hex digit or separator"
        )));
    }
    if !hex.len().is_multiple_of(2) {
        return Err(ToolError::invalid(format!(
            "{what} '{t}' has {} hex digits; it must be whole bytes (an even number)",
            hex.len()
        )));
    }
    hex::decode(&hex).map_err(|e| ToolError::invalid(format!("{what} '{t}': {e}")))
}

pub(super) fn format_mac(bytes: &[u8; 6], separator: &str, upper: bool) -> String {
    let hex = if upper {
        hex::encode_upper(bytes)
    } else {
        hex::encode(bytes)
    };
    let groups = |n: usize, sep: &str| {
        hex.as_bytes()
            .chunks(n)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join(sep)
    };
    match separator {
        "hyphen" => groups(2, "-"),
        "dot" => groups(4, "."),
        "none" => hex,
        _ => groups(2, ":"),
    }
}

fn mac_address_generator(args: &Args) -> ToolOutcome {
    let count = args.usize("count")?;
    let prefix = match args.opt_str("prefix") {
        Some(p) => parse_mac_bytes(p, "prefix")?,
        None => Vec::new(),
    };
    if prefix.len() > 5 {
        return Err(ToolError::invalid(format!(
            "prefix has {} bytes; at most 5 leave room for a random part (an OUI is 3 bytes)",
            prefix.len()
        )));
    }
    let multicast = args.str("castType")? == "multicast";
    let local = args.str("administration")? == "local";
    let separator = args.str("separator")?;
    let upper = args.str("case")? == "upper";
    let mut rng = rand::rng();
    let addresses: Vec<String> = (0..count)
        .map(|_| {
            let mut mac: [u8; 6] = rng.random();
            if prefix.is_empty() {
                // IEEE 802: bit 0 of the first octet is I/G (group), bit 1 is U/L (local).
                mac[0] = (mac[0] & !0b11) | u8::from(multicast) | (u8::from(local) << 1);
            } else {
                mac[..prefix.len()].copy_from_slice(&prefix);
            }
            format_mac(&mac, separator, upper)
        })
        .collect();
    let first_octet = prefix.first().copied().unwrap_or(
        u8::from(multicast) | (u8::from(local) << 1), // the bits every generated address carries
    );
    Ok(json!({
        "output": addresses.join("\n"),
        "addresses": addresses,
        "multicast": first_octet & 1 == 1,
        "locallyAdministered": first_octet & 2 == 2,
    }))
}

/// NTP epoch (1900-01-01) to Unix epoch, in seconds (RFC 5905).
const NTP_UNIX_OFFSET: i64 = 2_208_988_800;

/// An RFC 3339 date-time or Unix seconds (fractions allowed).
fn parse_timestamp(text: &str) -> Result<chrono::DateTime<chrono::Utc>, ToolError> {
    let t = text.trim();
    if let Ok(dt) = chrono::DateTime::parse_from_rfc3339(t) {
        return Ok(dt.with_timezone(&chrono::Utc));
    }
    if let Ok(secs) = t.parse::<f64>()
        && secs.is_finite()
    {
        let whole = secs.floor();
        let nanos = ((secs - whole) * 1e9).round().min(999_999_999.0) as u32;
        if let Some(dt) = chrono::DateTime::from_timestamp(whole as i64, nanos) {
            return Ok(dt);
        }
    }
    Err(ToolError::invalid(format!(
        "timestamp '{t}' is neither an RFC 3339 date-time (2024-05-01T12:00:00Z) nor Unix seconds"
    )))
}

fn ipv6_ula_generator(args: &Args) -> ToolOutcome {
    let mac: [u8; 6] = match args.opt_str("mac") {
        Some(m) => parse_mac_bytes(m, "MAC address")?
            .try_into()
            .map_err(|v: Vec<u8>| {
                ToolError::invalid(format!(
                    "MAC address '{}' has {} bytes; a MAC-48 has 6",
                    m.trim(),
                    v.len()
                ))
            })?,
        None => {
            let mut m: [u8; 6] = rand::rng().random();
            m[0] = (m[0] & !1) | 2;
            m
        }
    };
    let time = match args.opt_str("timestamp") {
        Some(t) => parse_timestamp(t)?,
        None => chrono::Utc::now(),
    };
    let ntp_secs = time.timestamp() + NTP_UNIX_OFFSET;
    if ntp_secs < 0 {
        return Err(ToolError::invalid(
            "timestamp is before 1900, the start of the NTP epoch",
        ));
    }
    // NTP 64-bit format: 32-bit seconds (wrapping each 2^32 s era) and a 32-bit binary fraction.
    let fraction = (u64::from(time.timestamp_subsec_nanos()) << 32) / 1_000_000_000;
    let ntp = ((ntp_secs as u64 & 0xFFFF_FFFF) << 32) | fraction;
    // RFC 4291 Appendix A: modified EUI-64 from a MAC-48 inserts FFFE and inverts the U/L bit.
    let eui64 = [
        mac[0] ^ 0x02,
        mac[1],
        mac[2],
        0xFF,
        0xFE,
        mac[3],
        mac[4],
        mac[5],
    ];
    let mut key = ntp.to_be_bytes().to_vec();
    key.extend_from_slice(&eui64);
    let digest = Sha1::digest(&key);
    let global_id = &digest[digest.len() - 5..];
    let mut octets = [0u8; 16];
    octets[0] = 0xFD; // FC00::/7 with the L bit set
    octets[1..6].copy_from_slice(global_id);
    let prefix = Ipv6Addr::from(octets);
    let mut first_host = octets;
    first_host[15] = 1;
    Ok(json!({
        "output": format!("{prefix}/48"),
        "prefix": format!("{prefix}/48"),
        "globalId": hex::encode(global_id),
        "firstSubnet": format!("{prefix}/64"),
        "firstAddress": Ipv6Addr::from(first_host).to_string(),
        "subnetCount": 65536,
        "mac": format_mac(&mac, "colon", false),
        "eui64": eui64.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":"),
        "timestamp": time.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        "ntpTimestamp": format!("{ntp:016x}"),
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn subnet_192_168_1_0_24() {
        let d = run_ok(
            "ipv4-subnet-calculator",
            json!({"address": "192.168.1.0/24"}),
        );
        assert_eq!(d["netmask"], "255.255.255.0");
        assert_eq!(d["wildcardMask"], "0.0.0.255");
        assert_eq!(d["network"], "192.168.1.0");
        assert_eq!(d["broadcast"], "192.168.1.255");
        assert_eq!(d["firstHost"], "192.168.1.1");
        assert_eq!(d["lastHost"], "192.168.1.254");
        assert_eq!(d["totalAddresses"], 256);
        assert_eq!(d["usableHosts"], 254);
        assert_eq!(d["class"], "C");
        assert_eq!(d["private"], true);
        assert_eq!(
            d["binary"]["netmask"],
            "11111111.11111111.11111111.00000000"
        );
    }

    #[test]
    fn subnet_host_address_with_separate_mask() {
        let d = run_ok(
            "ipv4-subnet-calculator",
            json!({"address": "10.0.0.1", "mask": "255.0.0.0"}),
        );
        assert_eq!(d["cidr"], "10.0.0.0/8");
        assert_eq!(d["address"], "10.0.0.1");
        assert_eq!(d["broadcast"], "10.255.255.255");
        assert_eq!(d["lastHost"], "10.255.255.254");
        assert_eq!(d["usableHosts"], 16_777_214);
        assert_eq!(d["class"], "A");
        assert_eq!(d["specialPurpose"]["rfc"], "RFC 1918");
    }

    // RFC 3021 §2: both addresses of a /31 are hosts and there is no broadcast.
    #[test]
    fn subnet_31_and_32() {
        let d = run_ok(
            "ipv4-subnet-calculator",
            json!({"address": "203.0.113.4/31"}),
        );
        assert_eq!(d["firstHost"], "203.0.113.4");
        assert_eq!(d["lastHost"], "203.0.113.5");
        assert_eq!(d["usableHosts"], 2);
        assert!(d["broadcast"].is_null());
        assert_eq!(d["specialPurpose"]["name"], "Documentation (TEST-NET-3)");
        let d = run_ok("ipv4-subnet-calculator", json!({"address": "8.8.8.8/32"}));
        assert_eq!(d["firstHost"], "8.8.8.8");
        assert_eq!(d["usableHosts"], 1);
        assert_eq!(d["totalAddresses"], 1);
        assert!(d["specialPurpose"].is_null());
    }

    #[test]
    fn subnet_rejects_bad_masks() {
        let (code, msg) = run_err(
            "ipv4-subnet-calculator",
            json!({"address": "192.168.1.0/255.0.255.0"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not contiguous"), "{msg}");
        let (_, msg) = run_err(
            "ipv4-subnet-calculator",
            json!({"address": "10.0.0.0", "mask": "0.0.0.255"}),
        );
        assert!(msg.contains("wildcard"), "{msg}");
        let (_, msg) = run_err(
            "ipv4-subnet-calculator",
            json!({"address": "192.168.1.0/33"}),
        );
        assert!(msg.contains("0 to 32"), "{msg}");
        let (_, msg) = run_err("ipv4-subnet-calculator", json!({"address": "192.168.1.0"}));
        assert!(msg.contains("no prefix length"), "{msg}");
    }

    // it-tools' example: 192.168.1.1 = 3232235777 = 0xC0A80101.
    #[test]
    fn converter_all_forms() {
        for input in [
            "192.168.1.1",
            "3232235777",
            "0xC0A80101",
            "0b11000000101010000000000100000001",
            "0o30052000401",
            "11000000.10101000.00000001.00000001",
        ] {
            let d = run_ok("ipv4-address-converter", json!({"input": input}));
            assert_eq!(d["dotted"], "192.168.1.1", "{input}");
            assert_eq!(d["decimal"], 3_232_235_777u64, "{input}");
            assert_eq!(d["hex"], "0xC0A80101");
            assert_eq!(d["octal"], "030052000401");
            assert_eq!(d["binary"], "11000000101010000000000100000001");
            assert_eq!(d["ipv6Mapped"], "::ffff:192.168.1.1");
            assert_eq!(d["ipv6MappedHex"], "::ffff:c0a8:101");
            assert_eq!(
                d["ipv6MappedFull"],
                "0000:0000:0000:0000:0000:ffff:c0a8:0101"
            );
        }
    }

    #[test]
    fn converter_explicit_formats() {
        let d = run_ok(
            "ipv4-address-converter",
            json!({"input": "7f000001", "from": "hex"}),
        );
        assert_eq!(d["dotted"], "127.0.0.1");
        let d = run_ok(
            "ipv4-address-converter",
            json!({"input": "4294967295", "from": "decimal"}),
        );
        assert_eq!(d["dotted"], "255.255.255.255");
        assert_eq!(d["hex"], "0xFFFFFFFF");
    }

    #[test]
    fn converter_errors() {
        let (code, msg) = run_err("ipv4-address-converter", json!({"input": "4294967296"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("larger than 32 bits"), "{msg}");
        let (_, msg) = run_err("ipv4-address-converter", json!({"input": "010.0.0.1"}));
        assert!(msg.contains("leading zero"), "{msg}");
        let (_, msg) = run_err("ipv4-address-converter", json!({"input": "256.1.1.1"}));
        assert!(msg.contains("not a dotted-decimal"), "{msg}");
    }

    // 192.168.1.1-10 by hand: .1/32, .2-.3/31, .4-.7/30, .8-.9/31, .10/32.
    #[test]
    fn range_to_minimal_cidrs() {
        let d = run_ok(
            "ipv4-range-expander",
            json!({"start": "192.168.1.1", "end": "192.168.1.10"}),
        );
        assert_eq!(
            d["cidrs"],
            json!([
                "192.168.1.1/32",
                "192.168.1.2/31",
                "192.168.1.4/30",
                "192.168.1.8/31",
                "192.168.1.10/32"
            ])
        );
        assert_eq!(d["addressCount"], 10);
        assert_eq!(d["coveringCidr"]["cidr"], "192.168.1.0/28");
        assert_eq!(d["coveringCidr"]["addressCount"], 16);
        let d = run_ok(
            "ipv4-range-expander",
            json!({"start": "10.0.0.0 - 10.0.255.255"}),
        );
        assert_eq!(d["cidrs"], json!(["10.0.0.0/16"]));
        let d = run_ok(
            "ipv4-range-expander",
            json!({"start": "0.0.0.0-255.255.255.255"}),
        );
        assert_eq!(d["cidrs"], json!(["0.0.0.0/0"]));
        assert_eq!(d["addressCount"], 4_294_967_296u64);
    }

    #[test]
    fn range_from_cidr() {
        let d = run_ok("ipv4-range-expander", json!({"start": "172.16.0.0/12"}));
        assert_eq!(d["start"], "172.16.0.0");
        assert_eq!(d["end"], "172.31.255.255");
        assert_eq!(d["addressCount"], 1_048_576);
        assert_eq!(d["output"], "172.16.0.0 - 172.31.255.255");
    }

    #[test]
    fn range_errors() {
        let (code, msg) = run_err(
            "ipv4-range-expander",
            json!({"start": "10.0.0.9", "end": "10.0.0.1"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("after end"), "{msg}");
        let (_, msg) = run_err("ipv4-range-expander", json!({"start": "10.0.0.1"}));
        assert!(msg.contains("neither a CIDR"), "{msg}");
    }

    #[test]
    fn mac_default_is_unicast_local() {
        let d = run_ok("mac-address-generator", json!({"count": 50}));
        let list = d["addresses"].as_array().unwrap();
        assert_eq!(list.len(), 50);
        for m in list {
            let m = m.as_str().unwrap();
            assert_eq!(m.len(), 17);
            let first = u8::from_str_radix(&m[..2], 16).unwrap();
            assert_eq!(first & 1, 0, "{m} must be unicast");
            assert_eq!(first & 2, 2, "{m} must be locally administered");
            assert_eq!(m, m.to_uppercase());
        }
        assert_eq!(d["locallyAdministered"], true);
    }

    #[test]
    fn mac_multicast_universal_and_formats() {
        let d = run_ok(
            "mac-address-generator",
            json!({"count": 20, "castType": "multicast", "administration": "universal", "separator": "dot", "case": "lower"}),
        );
        for m in d["addresses"].as_array().unwrap() {
            let m = m.as_str().unwrap();
            assert_eq!(m.len(), 14);
            assert_eq!(m.matches('.').count(), 2);
            let first = u8::from_str_radix(&m[..2], 16).unwrap();
            assert_eq!(first & 0b11, 0b01, "{m}");
        }
        assert_eq!(d["multicast"], true);
    }

    #[test]
    fn mac_prefix_is_kept() {
        let d = run_ok(
            "mac-address-generator",
            json!({"count": 5, "prefix": "00-1A-2B", "separator": "hyphen"}),
        );
        for m in d["addresses"].as_array().unwrap() {
            assert!(m.as_str().unwrap().starts_with("00-1A-2B-"), "{m}");
        }
        assert_eq!(d["locallyAdministered"], false);
        let d = run_ok(
            "mac-address-generator",
            json!({"prefix": "001a2b", "separator": "none"}),
        );
        assert!(d["output"].as_str().unwrap().starts_with("001A2B"));
        assert_eq!(d["output"].as_str().unwrap().len(), 12);
    }

    #[test]
    fn mac_bad_prefix() {
        let (code, msg) = run_err("mac-address-generator", json!({"prefix": "00:1G"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'G'"), "{msg}");
        let (_, msg) = run_err("mac-address-generator", json!({"prefix": "00:1"}));
        assert!(msg.contains("whole bytes"), "{msg}");
        let (_, msg) = run_err(
            "mac-address-generator",
            json!({"prefix": "00:11:22:33:44:55"}),
        );
        assert!(msg.contains("at most 5"), "{msg}");
    }

    // Expected values computed independently with Python's hashlib over the RFC 4193 §3.2.2
    // key: NTP(2024-01-01T00:00:00Z) = e93c7f0000000000, modified EUI-64 of 00:1a:2b:3c:4d:5e.
    #[test]
    fn ula_is_reproducible() {
        let d = run_ok(
            "ipv6-ula-generator",
            json!({"mac": "00:1A:2B:3C:4D:5E", "timestamp": "2024-01-01T00:00:00Z"}),
        );
        assert_eq!(d["ntpTimestamp"], "e93c7f0000000000");
        assert_eq!(d["eui64"], "02:1a:2b:ff:fe:3c:4d:5e");
        assert_eq!(d["globalId"], ULA_GLOBAL_ID);
        assert_eq!(d["prefix"], ULA_PREFIX);
        let same = run_ok(
            "ipv6-ula-generator",
            json!({"mac": "001a.2b3c.4d5e", "timestamp": "1704067200"}),
        );
        assert_eq!(same["prefix"], ULA_PREFIX);
    }

    const ULA_GLOBAL_ID: &str = "44cb2cadc5";
    const ULA_PREFIX: &str = "fd44:cb2c:adc5::/48";

    #[test]
    fn ula_random_has_fd_prefix() {
        let d = run_ok("ipv6-ula-generator", json!({}));
        let p = d["prefix"].as_str().unwrap();
        assert!(p.starts_with("fd") && p.ends_with("::/48"), "{p}");
        assert_eq!(d["globalId"].as_str().unwrap().len(), 10);
        let first = d["firstSubnet"].as_str().unwrap();
        assert!(first.ends_with("::/64"), "{first}");
    }

    #[test]
    fn ula_errors() {
        let (code, msg) = run_err("ipv6-ula-generator", json!({"mac": "00:1a:2b:3c:4d"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("6"), "{msg}");
        let (_, msg) = run_err("ipv6-ula-generator", json!({"timestamp": "yesterday"}));
        assert!(msg.contains("RFC 3339"), "{msg}");
    }
}
