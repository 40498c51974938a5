//! IPv6 address analysis (RFC 4291 forms, RFC 5952 text, transition and special-purpose
//! blocks) and MAC-48 formatting with its modified EUI-64 interface identifier (RFC 4291 App. A).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use crate::tools::network::addresses::{format_mac, full_ipv6};
use ipnet::Ipv6Net;
use serde_json::{Map, Value, json};
use std::net::{Ipv4Addr, Ipv6Addr};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("ipv6-address-expander", ipv6_address_expander),
    Tool::new("mac-address-formatter", mac_address_formatter),
];

/// The IANA IPv6 special-purpose registry plus the RFC 4291 allocations, most specific first.
const BLOCKS: &[(&str, &str, &str)] = &[
    ("::/128", "Unspecified", "RFC 4291"),
    ("::1/128", "Loopback", "RFC 4291"),
    ("::ffff:0:0/96", "IPv4-mapped", "RFC 4291"),
    ("::/96", "IPv4-compatible (deprecated)", "RFC 4291"),
    ("64:ff9b::/96", "NAT64 well-known prefix", "RFC 6052"),
    (
        "64:ff9b:1::/48",
        "Local-use IPv4/IPv6 translation",
        "RFC 8215",
    ),
    ("100::/64", "Discard-only", "RFC 6666"),
    ("2001::/32", "Teredo", "RFC 4380"),
    ("2001:2::/48", "Benchmarking", "RFC 5180"),
    ("2001:20::/28", "ORCHIDv2", "RFC 7343"),
    ("2001:db8::/32", "Documentation", "RFC 3849"),
    ("2001::/23", "IETF protocol assignments", "RFC 2928"),
    ("3fff::/20", "Documentation", "RFC 9637"),
    ("2002::/16", "6to4", "RFC 3056"),
    ("5f00::/16", "SRv6 SIDs", "RFC 9602"),
    ("fc00::/7", "Unique local", "RFC 4193"),
    ("fe80::/10", "Link-local unicast", "RFC 4291"),
    ("fec0::/10", "Site-local (deprecated)", "RFC 3879"),
    ("ff00::/8", "Multicast", "RFC 4291"),
    ("2000::/3", "Global unicast", "RFC 4291"),
];

fn block_of(addr: Ipv6Addr) -> Option<(&'static str, &'static str, &'static str)> {
    BLOCKS
        .iter()
        .copied()
        .find(|(cidr, _, _)| cidr.parse::<Ipv6Net>().is_ok_and(|net| net.contains(&addr)))
}

/// Splits "[addr%zone]:port/len" into address text, zone and prefix length.
fn split_input(input: &str) -> Result<(String, Option<String>, Option<u8>), ToolError> {
    let mut text = input.trim().to_string();
    let mut prefix = None;
    if let Some((addr, len)) = text.rsplit_once('/') {
        let n: u8 = len
            .trim()
            .parse()
            .ok()
            .filter(|n| *n <= 128)
            .ok_or_else(|| {
                ToolError::invalid(format!(
                    "prefix length '/{}' must be a whole number from 0 to 128",
                    len.trim()
                ))
            })?;
        prefix = Some(n);
        text = addr.trim().to_string();
    }
    if let Some(rest) = text.strip_prefix('[') {
        // A bracketed literal as in URLs, possibly followed by ":port".
        let end = rest.find(']').ok_or_else(|| {
            ToolError::invalid(format!("'{text}' opens '[' without a closing ']'"))
        })?;
        text = rest[..end].to_string();
    }
    let zone = match text.split_once('%') {
        Some((addr, zone)) => {
            if zone.is_empty() || zone.chars().any(|c| c.is_whitespace() || c == '%') {
                return Err(ToolError::invalid(format!(
                    "zone id after '%' in '{text}' must be a non-empty interface name or index (fe80::1%eth0)"
                )));
            }
            let z = zone.to_string();
            text = addr.to_string();
            Some(z)
        }
        None => None,
    };
    Ok((text, zone, prefix))
}

fn parse_ipv6(text: &str) -> Result<Ipv6Addr, ToolError> {
    text.parse().map_err(|_| {
        let groups = text.split(':').count();
        let hint = if text.contains(":::") {
            "':::' is not allowed; '::' stands for one run of zero groups".to_string()
        } else if text.matches("::").count() > 1 {
            "'::' may appear only once".to_string()
        } else if let Some(g) = text.split(':').find(|g| {
            g.len() > 4 && !g.contains('.') || g.chars().any(|c| !c.is_ascii_hexdigit() && c != '.')
        }) {
            format!("group '{g}' is not 1-4 hex digits")
        } else if !text.contains("::") && groups != 8 {
            format!("it has {groups} groups; without '::' it needs 8")
        } else {
            "expected up to eight groups of 1-4 hex digits separated by ':'".to_string()
        };
        ToolError::invalid(format!(
            "'{}' is not a valid IPv6 address: {hint}",
            crate::text::preview(text, 60)
        ))
    })
}

fn binary(a: Ipv6Addr) -> String {
    a.segments()
        .iter()
        .map(|s| format!("{s:016b}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The RFC 3596 reverse-lookup name: nibbles in reverse order under ip6.arpa.
fn reverse_name(a: Ipv6Addr) -> String {
    let nibbles: Vec<String> = a
        .octets()
        .iter()
        .rev()
        .flat_map(|b| [b & 0xF, b >> 4])
        .map(|n| format!("{n:x}"))
        .collect();
    format!("{}.ip6.arpa", nibbles.join("."))
}

fn v4(bits: u32) -> String {
    Ipv4Addr::from(bits).to_string()
}

fn multicast_scope(a: Ipv6Addr) -> &'static str {
    match a.octets()[1] & 0x0F {
        0x1 => "interface-local",
        0x2 => "link-local",
        0x3 => "realm-local",
        0x4 => "admin-local",
        0x5 => "site-local",
        0x8 => "organization-local",
        0xE => "global",
        0x0 | 0xF => "reserved",
        _ => "unassigned",
    }
}

/// Addresses that carry an IPv4 address or other fields, decoded.
fn embedded(a: Ipv6Addr, kind: &str) -> Option<Value> {
    let n = u128::from(a);
    let low32 = n as u32;
    match kind {
        "IPv4-mapped" | "IPv4-compatible (deprecated)" | "NAT64 well-known prefix" => {
            Some(json!({ "ipv4": v4(low32) }))
        }
        "6to4" => {
            let gw = (n >> 80) as u32;
            Some(
                json!({ "ipv4": v4(gw), "prefix": format!("{}/48", Ipv6Addr::from(n & !((1u128 << 80) - 1))) }),
            )
        }
        "Teredo" => {
            // RFC 4380 §4: server IPv4, flags, then port and client IPv4 both inverted.
            let server = (n >> 64) as u32;
            let flags = (n >> 48) as u16;
            let port = !((n >> 32) as u16);
            let client = !low32;
            Some(json!({
                "server": v4(server),
                "client": v4(client),
                "port": port,
                "flags": format!("0x{flags:04x}"),
                "cone": flags & 0x8000 != 0,
            }))
        }
        "Multicast" => {
            let flags = a.octets()[1] >> 4;
            Some(json!({
                "scope": multicast_scope(a),
                "flags": format!("{flags:04b}"),
                "transient": flags & 0x1 != 0,
                "prefixBased": flags & 0x2 != 0,
                "embeddedRendezvousPoint": flags & 0x4 != 0,
                // ff02::1:ff00:0/104 (RFC 4291 §2.7.1).
                "solicitedNode": (n >> 24) == 0x00ff_0200_0000_0000_0000_0000_01ff,
            }))
        }
        _ => None,
    }
}

fn scope_of(a: Ipv6Addr, kind: &str) -> &'static str {
    match kind {
        "Loopback" => "host",
        "Unspecified" => "none",
        "Link-local unicast" => "link-local",
        "Site-local (deprecated)" => "site-local",
        "Unique local" => "private",
        "Multicast" => multicast_scope(a),
        _ => "global",
    }
}

fn ipv6_address_expander(args: &Args) -> ToolOutcome {
    let input = args.str("address")?;
    let (text, zone, prefix) = split_input(input)?;
    let addr = parse_ipv6(&text)?;
    let zone_suffix = zone.as_deref().map(|z| format!("%{z}")).unwrap_or_default();
    let compressed = format!("{addr}{zone_suffix}");
    let (block, kind, rfc) = block_of(addr).unwrap_or(("::/0", "Reserved by IETF", "RFC 4291"));
    let mut out = Map::new();
    out.insert(
        "output".into(),
        json!(format!("{}{zone_suffix}", full_ipv6(addr))),
    );
    out.insert("expanded".into(), json!(full_ipv6(addr)));
    out.insert("compressed".into(), json!(compressed));
    if let Some(z) = &zone {
        out.insert("zone".into(), json!(z));
    }
    out.insert("type".into(), json!(kind));
    out.insert("block".into(), json!(block));
    out.insert("rfc".into(), json!(rfc));
    out.insert("scope".into(), json!(scope_of(addr, kind)));
    if let Some(e) = embedded(addr, kind) {
        out.insert("embedded".into(), e);
    }
    let octets = addr.octets();
    if !matches!(kind, "Multicast" | "Unspecified" | "Loopback") {
        let iid = &octets[8..];
        let mut id = Map::new();
        id.insert(
            "value".into(),
            json!(
                addr.segments()[4..]
                    .iter()
                    .map(|s| format!("{s:04x}"))
                    .collect::<Vec<_>>()
                    .join(":")
            ),
        );
        if iid[3] == 0xFF && iid[4] == 0xFE {
            let mac = [iid[0] ^ 0x02, iid[1], iid[2], iid[5], iid[6], iid[7]];
            id.insert("eui64Mac".into(), json!(format_mac(&mac, "colon", false)));
        }
        out.insert("interfaceId".into(), Value::Object(id));
    }
    out.insert("reverseDns".into(), json!(reverse_name(addr)));
    out.insert("binary".into(), json!(binary(addr)));
    out.insert("hex".into(), json!(format!("0x{:032x}", u128::from(addr))));
    out.insert("integer".into(), json!(u128::from(addr).to_string()));
    if let Some(len) = prefix {
        let net = Ipv6Net::new(addr, len)
            .map_err(|_| ToolError::invalid(format!("prefix length {len} is out of range")))?;
        let count = if len == 0 {
            "340282366920938463463374607431768211456".to_string()
        } else {
            (1u128 << (128 - len)).to_string()
        };
        out.insert(
            "network".into(),
            json!({
                "cidr": net.trunc().to_string(),
                "prefixLength": len,
                "netmask": net.netmask().to_string(),
                "first": net.network().to_string(),
                "last": net.broadcast().to_string(),
                "firstExpanded": full_ipv6(net.network()),
                "lastExpanded": full_ipv6(net.broadcast()),
                "addressCount": count,
                "subnets64": if len <= 64 { json!((1u128 << (64 - len)).to_string()) } else { Value::Null },
            }),
        );
    }
    Ok(Value::Object(out))
}

/// One MAC-48 in any of the usual notations; the name of the notation found.
fn parse_mac(text: &str) -> Option<([u8; 6], &'static str)> {
    let t = text.trim();
    let hex_groups = |sep: char, count: usize, max: usize| -> Option<Vec<u8>> {
        let groups: Vec<&str> = t.split(sep).collect();
        let ok = groups.len() == count
            && groups.iter().all(|g| {
                !g.is_empty() && g.len() <= max && g.chars().all(|c| c.is_ascii_hexdigit())
            });
        if !ok {
            return None;
        }
        let digits: String = groups.iter().map(|g| format!("{g:0>max$}")).collect();
        hex::decode(digits).ok()
    };
    let (bytes, notation) = if let Some(b) = hex_groups(':', 6, 2) {
        (b, "colon")
    } else if let Some(b) = hex_groups('-', 6, 2) {
        (b, "hyphen")
    } else if let Some(b) = hex_groups('.', 3, 4) {
        (b, "dot")
    } else if let Some(b) = hex_groups('-', 3, 4) {
        (b, "hyphen-4")
    } else if t.len() == 12 && t.chars().all(|c| c.is_ascii_hexdigit()) {
        (hex::decode(t).ok()?, "none")
    } else {
        return None;
    };
    Some((bytes.try_into().ok()?, notation))
}

fn mac_address_formatter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let separator = args.str("separator")?;
    let upper = args.str("case")? == "upper";
    let mut addresses = Vec::new();
    let mut lines = Vec::new();
    for (i, line) in line_breaks::lines(input).enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (mac, notation) = parse_mac(line).ok_or_else(|| {
            ToolError::invalid(format!(
                "line {}: '{}' is not a MAC address; expected 6 bytes as aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or aabbccddeeff",
                i + 1,
                crate::text::preview(line.trim(), 40)
            ))
        })?;
        let formatted = format_mac(&mac, separator, upper);
        // RFC 4291 Appendix A: insert FFFE in the middle and invert the U/L bit.
        let eui = [
            mac[0] ^ 0x02,
            mac[1],
            mac[2],
            0xFF,
            0xFE,
            mac[3],
            mac[4],
            mac[5],
        ];
        let iid_groups: Vec<u16> = eui
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        let mut ll = [0u16; 8];
        ll[0] = 0xfe80;
        ll[4..].copy_from_slice(&iid_groups);
        let link_local = Ipv6Addr::from(ll);
        let oui = format_mac(&mac, separator, upper);
        let oui: String = match separator {
            "dot" | "none" => oui.replace('.', "").chars().take(6).collect(),
            _ => oui.chars().take(8).collect(),
        };
        lines.push(formatted.clone());
        addresses.push(json!({
            "input": line.trim(),
            "inputFormat": notation,
            "formatted": formatted,
            "oui": oui,
            "multicast": mac[0] & 1 == 1,
            "broadcast": mac == [0xFF; 6],
            "locallyAdministered": mac[0] & 2 == 2,
            "castType": if mac[0] & 1 == 1 { "multicast" } else { "unicast" },
            "administration": if mac[0] & 2 == 2 { "local" } else { "universal" },
            "eui64": eui.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":"),
            "interfaceId": iid_groups.iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":"),
            "ipv6LinkLocal": link_local.to_string(),
        }));
    }
    if addresses.is_empty() {
        return Err(ToolError::invalid(
            "input has no MAC addresses: give one per line, e.g. 00:00:5e:00:53:01",
        ));
    }
    Ok(json!({
        "output": lines.join("\n"),
        "count": addresses.len(),
        "addresses": addresses,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn v6(address: &str) -> serde_json::Value {
        run_ok("ipv6-address-expander", json!({ "address": address }))
    }

    #[test]
    fn rfc5952_section4_canonical_text() {
        // §4.1 leading zeros, §4.2.1 shorten fully, §4.2.2 no '::' for one group,
        // §4.2.3 longest run then first run, §4.3 lowercase.
        let cases = [
            ("2001:0db8::0001", "2001:db8::1"),
            ("2001:db8:0:0:0:0:2:1", "2001:db8::2:1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
            ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("2001:DB8::ABCD", "2001:db8::abcd"),
        ];
        for (input, canonical) in cases {
            assert_eq!(v6(input)["compressed"], canonical, "{input}");
        }
        let d = v6("2001:db8::1");
        assert_eq!(d["output"], "2001:0db8:0000:0000:0000:0000:0000:0001");
        assert_eq!(d["type"], "Documentation");
    }

    #[test]
    fn transition_addresses() {
        // RFC 4380 §4 example Teredo address.
        let d = v6("2001:0000:4136:e378:8000:63bf:3fff:fdd2");
        assert_eq!(d["type"], "Teredo");
        assert_eq!(d["embedded"]["server"], "65.54.227.120");
        assert_eq!(d["embedded"]["client"], "192.0.2.45");
        assert_eq!(d["embedded"]["port"], 40000);
        assert_eq!(d["embedded"]["cone"], true);
        let d = v6("2002:c000:0204::1");
        assert_eq!(d["type"], "6to4");
        assert_eq!(d["embedded"]["ipv4"], "192.0.2.4");
        // RFC 6052 §2.4 example with the well-known prefix.
        let d = v6("64:ff9b::c000:221");
        assert_eq!(d["embedded"]["ipv4"], "192.0.2.33");
        let d = v6("::ffff:192.0.2.128");
        assert_eq!(d["type"], "IPv4-mapped");
        assert_eq!(d["compressed"], "::ffff:192.0.2.128");
        assert_eq!(d["embedded"]["ipv4"], "192.0.2.128");
        assert_eq!(v6("::1")["type"], "Loopback");
        assert_eq!(v6("::")["type"], "Unspecified");
    }

    #[test]
    fn scopes_prefix_and_reverse() {
        let d = v6("ff02::1:ff00:1");
        assert_eq!(d["type"], "Multicast");
        assert_eq!(d["scope"], "link-local");
        assert_eq!(d["embedded"]["solicitedNode"], true);
        let d = v6("fe80::200:5eff:fe00:5301%eth0");
        assert_eq!(d["compressed"], "fe80::200:5eff:fe00:5301%eth0");
        assert_eq!(d["zone"], "eth0");
        assert_eq!(d["scope"], "link-local");
        assert_eq!(d["interfaceId"]["eui64Mac"], "00:00:5e:00:53:01");
        assert_eq!(v6("fd12:3456:789a::1")["type"], "Unique local");
        // RFC 3596 §2.5 example.
        let d = v6("4321:0:1:2:3:4:567:89ab");
        assert_eq!(
            d["reverseDns"],
            "b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa"
        );
        assert_eq!(d["type"], "Reserved by IETF");
        let d = v6("2001:db8:abcd:12::5/48");
        assert_eq!(d["network"]["cidr"], "2001:db8:abcd::/48");
        assert_eq!(
            d["network"]["last"],
            "2001:db8:abcd:ffff:ffff:ffff:ffff:ffff"
        );
        assert_eq!(d["network"]["addressCount"], "1208925819614629174706176");
        assert_eq!(d["network"]["subnets64"], "65536");
    }

    #[test]
    fn invalid_addresses() {
        let (code, msg) = run_err(
            "ipv6-address-expander",
            json!({"address": "2001:db8::1::2"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("only once"), "{msg}");
        let (_, msg) = run_err(
            "ipv6-address-expander",
            json!({"address": "2001:db8:12345::1"}),
        );
        assert!(msg.contains("'12345'"), "{msg}");
        let (_, msg) = run_err(
            "ipv6-address-expander",
            json!({"address": "2001:db8::/129"}),
        );
        assert!(msg.contains("0 to 128"), "{msg}");
        let (_, msg) = run_err("ipv6-address-expander", json!({"address": "fe80::1%"}));
        assert!(msg.contains("zone"), "{msg}");
    }

    #[test]
    fn mac_rfc4291_eui64_link_local() {
        // RFC 7042 documentation MAC; RFC 4291 App. A modified EUI-64.
        let d = run_ok(
            "mac-address-formatter",
            json!({"input": "00-00-5E-00-53-01"}),
        );
        let a = &d["addresses"][0];
        assert_eq!(d["output"], "00:00:5e:00:53:01");
        assert_eq!(a["inputFormat"], "hyphen");
        assert_eq!(a["oui"], "00:00:5e");
        assert_eq!(a["eui64"], "02:00:5e:ff:fe:00:53:01");
        assert_eq!(a["interfaceId"], "200:5eff:fe00:5301");
        assert_eq!(a["ipv6LinkLocal"], "fe80::200:5eff:fe00:5301");
        assert_eq!(a["castType"], "unicast");
        assert_eq!(a["administration"], "universal");
    }

    #[test]
    fn mac_many_formats_and_options() {
        let d = run_ok(
            "mac-address-formatter",
            json!({"input": "aabb.ccdd.eeff\nAABBCCDDEEFF\n1:2:3:a:b:c", "separator": "hyphen", "case": "upper"}),
        );
        assert_eq!(
            d["output"],
            "AA-BB-CC-DD-EE-FF\nAA-BB-CC-DD-EE-FF\n01-02-03-0A-0B-0C"
        );
        assert_eq!(d["addresses"][0]["inputFormat"], "dot");
        assert_eq!(d["addresses"][0]["locallyAdministered"], true);
        let d = run_ok(
            "mac-address-formatter",
            json!({"input": "01:00:5e:00:00:fb", "separator": "dot"}),
        );
        assert_eq!(d["output"], "0100.5e00.00fb");
        assert_eq!(d["addresses"][0]["oui"], "01005e");
        assert_eq!(d["addresses"][0]["multicast"], true);
        let d = run_ok(
            "mac-address-formatter",
            json!({"input": "ff:ff:ff:ff:ff:ff", "separator": "none"}),
        );
        assert_eq!(d["output"], "ffffffffffff");
        assert_eq!(d["addresses"][0]["broadcast"], true);
    }

    #[test]
    fn mac_invalid_line_named() {
        let (code, msg) = run_err(
            "mac-address-formatter",
            json!({"input": "00:00:5e:00:53:01\n00:00:5e:00:53\n"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("line 2:"), "{msg}");
        let (_, msg) = run_err(
            "mac-address-formatter",
            json!({"input": "zz:00:5e:00:53:01"}),
        );
        assert!(msg.contains("not a MAC address"), "{msg}");
    }
}
