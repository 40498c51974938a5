//! asn1-parser: a DER/BER tree in the style of `openssl asn1parse`, and OID encoding.

use super::{der_error, read_blocks};
use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use num_bigint::BigInt;
use serde_json::{Map, Value, json};
use x509_parser::asn1_rs::{Class, FromBer, Header, Length, Oid};
use x509_parser::objects::{oid_registry, oid2sn};

/// Nesting limit of the DER tree: asn1-rs parses indefinite lengths recursively and takes 49
/// levels (its end-of-contents markers count as a 50th), so definite lengths stop there too
/// and the tool has one limit.
pub(super) const ASN1_DEPTH: usize = 49;
const MAX_NODES: usize = 20_000;

/// Whether an error is one of the walker's limits rather than malformed content.
fn is_limit(e: &ToolError) -> bool {
    e.message.starts_with("input nests deeper than")
        || e.message.starts_with("the listing would be larger than")
        || e.message.starts_with("more than ") && e.message.ends_with(" elements")
}

struct Walker {
    nodes: Vec<Value>,
    lines: Vec<String>,
    encapsulated: bool,
    /// Nodes and output bytes already recorded by the walkers this one is a trial inside.
    base_nodes: usize,
    base_bytes: usize,
    /// Output bytes recorded by this walker: every encapsulated string is shown as hex and then
    /// again decoded, so nested encapsulations repeat their content.
    bytes: usize,
}

pub(super) fn asn1_parser(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    if args.str("mode")? == "oid" {
        return oid_mode(input.trim());
    }
    let blocks = read_blocks(input, args.str("inputFormat")?)?;
    let der = &blocks[0].der;
    let mut w = Walker {
        nodes: Vec::new(),
        lines: Vec::new(),
        encapsulated: args.flag("parseEncapsulated"),
        base_nodes: 0,
        base_bytes: 0,
        bytes: 0,
    };
    let mut offset = 0;
    while offset < der.len() {
        offset += w.element(der, offset, 0, false)?;
    }
    Ok(json!({
        "output": w.lines.join("\n"),
        "nodes": w.nodes,
        "nodeCount": w.nodes.len(),
        "length": der.len(),
        "label": blocks[0].label,
    }))
}

fn universal_name(tag: u32) -> &'static str {
    match tag {
        0 => "EOC",
        1 => "BOOLEAN",
        2 => "INTEGER",
        3 => "BIT STRING",
        4 => "OCTET STRING",
        5 => "NULL",
        6 => "OBJECT",
        7 => "OBJECT DESCRIPTOR",
        8 => "EXTERNAL",
        9 => "REAL",
        10 => "ENUMERATED",
        11 => "EMBEDDED PDV",
        12 => "UTF8STRING",
        13 => "RELATIVE OID",
        16 => "SEQUENCE",
        17 => "SET",
        18 => "NUMERICSTRING",
        19 => "PRINTABLESTRING",
        20 => "T61STRING",
        21 => "VIDEOTEXSTRING",
        22 => "IA5STRING",
        23 => "UTCTIME",
        24 => "GENERALIZEDTIME",
        25 => "GRAPHICSTRING",
        26 => "VISIBLESTRING",
        27 => "GENERALSTRING",
        28 => "UNIVERSALSTRING",
        30 => "BMPSTRING",
        _ => "UNKNOWN",
    }
}

/// OpenSSL's name for an OID: the X509v3 long name for extensions, else the short name.
fn oid_names(o: &Oid) -> (Option<String>, Option<String>) {
    let reg = oid_registry();
    let sn = oid2sn(o, reg).ok().map(str::to_string);
    let description = reg.get(o).map(|e| e.description().to_string());
    (sn, description)
}

fn asn1_time(raw: &str, utc: bool) -> Option<String> {
    use chrono::NaiveDateTime;
    let body = raw.strip_suffix('Z')?;
    let (text, fmt) = if utc {
        // RFC 5280 §4.1.2.5.1: YY ≥ 50 is 19YY, else 20YY.
        let yy: u32 = body.get(..2)?.parse().ok()?;
        let century = if yy >= 50 { "19" } else { "20" };
        (
            format!("{century}{body}"),
            if body.len() == 10 {
                "%Y%m%d%H%M"
            } else {
                "%Y%m%d%H%M%S"
            },
        )
    } else {
        (
            body.to_string(),
            if body.contains('.') {
                "%Y%m%d%H%M%S%.f"
            } else {
                "%Y%m%d%H%M%S"
            },
        )
    };
    NaiveDateTime::parse_from_str(&text, fmt).ok().map(|t| {
        t.and_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    })
}

impl Walker {
    /// Parses the element at `offset`, records it and its children; returns its total length.
    fn element(
        &mut self,
        buf: &[u8],
        offset: usize,
        depth: usize,
        inner: bool,
    ) -> Result<usize, ToolError> {
        if depth >= ASN1_DEPTH {
            return Err(crate::tools::kit::depth::too_deep(
                "input",
                ASN1_DEPTH,
                crate::tools::kit::depth::Place::Byte(offset),
            ));
        }
        if self.base_nodes + self.nodes.len() >= MAX_NODES {
            return Err(ToolError::invalid(format!(
                "more than {MAX_NODES} elements"
            )));
        }
        let bytes = &buf[offset..];
        let (after, header) = Header::from_ber(bytes).map_err(|e| {
            ToolError::invalid(format!(
                "malformed or truncated header at offset {offset}: {}",
                match e {
                    x509_parser::nom::Err::Incomplete(_) =>
                        "the input ends inside the tag or length bytes".to_string(),
                    other => other.to_string(),
                }
            ))
        })?;
        let hl = bytes.len() - after.len();
        let (content, total, definite) = match header.length() {
            Length::Definite(len) => {
                if after.len() < len {
                    return Err(ToolError::invalid(format!(
                        "truncated input: the element at offset {offset} declares {len} content bytes but only {} remain",
                        after.len()
                    )));
                }
                (&after[..len], hl + len, true)
            }
            Length::Indefinite => {
                let (rest, any) = x509_parser::asn1_rs::Any::from_ber(bytes).map_err(|e| {
                    if e.to_string().contains("BerMaxDepth") {
                        return crate::tools::kit::depth::too_deep(
                            "input",
                            ASN1_DEPTH,
                            crate::tools::kit::depth::Place::Byte(offset),
                        );
                    }
                    ToolError::invalid(format!(
                        "indefinite-length element at offset {offset} has no end-of-contents marker: {e}"
                    ))
                })?;
                let total = bytes.len() - rest.len();
                (any.data, total, false)
            }
        };
        let class = header.class();
        let tag = header.tag().0;
        let constructed = header.constructed();
        let name = match class {
            Class::Universal => universal_name(tag).to_string(),
            Class::ContextSpecific => format!("cont [ {tag} ]"),
            Class::Application => format!("appl [ {tag} ]"),
            Class::Private => format!("priv [ {tag} ]"),
        };
        let mut node = Map::new();
        node.insert("offset".into(), json!(offset));
        node.insert("depth".into(), json!(depth));
        node.insert("headerLength".into(), json!(hl));
        node.insert(
            "length".into(),
            if definite {
                json!(content.len())
            } else {
                Value::Null
            },
        );
        node.insert("class".into(), json!(format!("{class:?}").to_lowercase()));
        node.insert("tag".into(), json!(tag));
        node.insert("tagName".into(), json!(name));
        node.insert("constructed".into(), json!(constructed));
        if inner {
            node.insert("encapsulated".into(), json!(true));
        }
        let mut suffix = String::new();
        if !constructed {
            suffix = self.decode_value(class, tag, content, bytes, &mut node);
        }
        let length_text = if definite {
            format!("{:4}", content.len())
        } else {
            "inf ".to_string()
        };
        let line = format!(
            "{offset:5}:d={depth:<2} hl={hl} l={length_text} {}: {name:<18}{suffix}",
            if constructed { "cons" } else { "prim" }
        );
        // The node holds about what the line shows.
        self.bytes += 2 * line.len();
        if self.base_bytes + self.bytes > crate::tools::kit::budget::result_ceiling() {
            return Err(crate::tools::kit::budget::result_too_large(
                "the listing",
                "each encapsulated string is shown as hex and then decoded again: turn parseEncapsulated off, or parse a smaller part",
            ));
        }
        self.lines.push(line);
        let index = self.nodes.len();
        self.nodes.push(Value::Object(node));
        let start = offset + hl;
        if constructed {
            let mut pos = 0;
            while pos < content.len() {
                // Indefinite-length content ends with an end-of-contents pair, which stops here.
                if !definite && content[pos..].starts_with(&[0, 0]) {
                    break;
                }
                pos += self.element(buf, start + pos, depth + 1, inner)?;
            }
        } else if self.encapsulated && class == Class::Universal && (tag == 4 || tag == 3) {
            let skip = usize::from(tag == 3);
            if tag == 4 || content.first() == Some(&0) {
                self.try_encapsulated(
                    buf,
                    start + skip,
                    content.len().saturating_sub(skip),
                    depth + 1,
                    index,
                )?;
            }
        }
        Ok(total)
    }

    /// Parses the content of an OCTET/BIT STRING as DER when all of it forms universal
    /// elements; leaves the tree unchanged otherwise.
    fn try_encapsulated(
        &mut self,
        buf: &[u8],
        start: usize,
        len: usize,
        depth: usize,
        parent: usize,
    ) -> Result<(), ToolError> {
        if len < 2 || start + len > buf.len() {
            return Ok(());
        }
        let slice = &buf[..start + len];
        let first_universal = slice[start] & 0xC0 == 0 && slice[start] & 0x1F != 0;
        if !first_universal {
            return Ok(());
        }
        let mut trial = Walker {
            nodes: Vec::new(),
            lines: Vec::new(),
            encapsulated: self.encapsulated,
            base_nodes: self.base_nodes + self.nodes.len(),
            base_bytes: self.base_bytes + self.bytes,
            bytes: 0,
        };
        let mut pos = 0;
        while pos < len {
            match trial.element(slice, start + pos, depth, true) {
                Ok(n) => pos += n,
                // Limits hold for the trial too (and for trials inside it); anything else
                // means "not DER after all".
                Err(e) if is_limit(&e) => return Err(e),
                Err(_) => return Ok(()),
            }
        }
        if pos == len {
            if let Some(Value::Object(p)) = self.nodes.get_mut(parent) {
                p.insert("containsDer".into(), json!(true));
            }
            self.nodes.extend(trial.nodes);
            self.lines.extend(trial.lines);
            self.bytes += trial.bytes;
        }
        Ok(())
    }

    /// Fills the node's decoded value; returns the OpenSSL-style text after the tag name.
    fn decode_value(
        &self,
        class: Class,
        tag: u32,
        content: &[u8],
        element: &[u8],
        node: &mut Map<String, Value>,
    ) -> String {
        let hex_upper = hex::encode_upper(content);
        if class != Class::Universal {
            node.insert("hex".into(), json!(hex::encode(content)));
            if !content.is_empty() && content.iter().all(|b| (0x20..0x7F).contains(b)) {
                node.insert("text".into(), json!(String::from_utf8_lossy(content)));
            }
            return format!("[HEX DUMP]:{hex_upper}");
        }
        match tag {
            1 => {
                let v = content.first().copied().unwrap_or(0);
                node.insert("value".into(), json!(v != 0));
                format!(":{v}")
            }
            2 | 10 => {
                let n = BigInt::from_signed_bytes_be(content);
                node.insert("value".into(), json!(n.to_string()));
                node.insert("hex".into(), json!(hex::encode(content)));
                let magnitude = n.magnitude().to_bytes_be();
                let sign = if n.sign() == num_bigint::Sign::Minus {
                    "-"
                } else {
                    ""
                };
                format!(":{sign}{}", hex::encode_upper(magnitude))
            }
            3 => {
                let unused = content.first().copied().unwrap_or(0);
                let bits = content.get(1..).unwrap_or_default();
                node.insert("unusedBits".into(), json!(unused));
                node.insert(
                    "bitLength".into(),
                    json!((bits.len() * 8).saturating_sub(usize::from(unused))),
                );
                node.insert("hex".into(), json!(hex::encode(bits)));
                String::new()
            }
            4 => {
                node.insert("hex".into(), json!(hex::encode(content)));
                format!("[HEX DUMP]:{hex_upper}")
            }
            5 => {
                node.insert("value".into(), Value::Null);
                String::new()
            }
            6 => match Oid::from_ber(element).ok().and_then(|(_, o)| {
                crate::tools::crypto::oid::dotted(content)
                    .ok()
                    .map(|d| (o, d))
            }) {
                Some((o, dotted)) => {
                    let (sn, description) = oid_names(&o);
                    let shown = match (&sn, &description) {
                        (_, Some(d)) if d.starts_with("X509v3 ") => d.clone(),
                        (Some(s), _) => s.clone(),
                        _ => dotted.clone(),
                    };
                    node.insert("value".into(), json!(dotted));
                    node.insert("oidName".into(), json!(sn));
                    node.insert("oidDescription".into(), json!(description));
                    format!(":{shown}")
                }
                None => {
                    node.insert("hex".into(), json!(hex::encode(content)));
                    node.insert("error".into(), json!("malformed OBJECT IDENTIFIER"));
                    String::from(":BAD OBJECT")
                }
            },
            23 | 24 => {
                let raw = String::from_utf8_lossy(content).to_string();
                node.insert("value".into(), json!(raw));
                node.insert("iso8601".into(), json!(asn1_time(&raw, tag == 23)));
                format!(":{raw}")
            }
            30 => {
                let units: Vec<u16> = content
                    .chunks(2)
                    .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                    .collect();
                let s = String::from_utf16_lossy(&units);
                node.insert("value".into(), json!(s));
                format!(":{s}")
            }
            28 => {
                let s: String = content
                    .chunks(4)
                    .map(|c| {
                        let mut b = [0u8; 4];
                        b[..c.len()].copy_from_slice(c);
                        char::from_u32(u32::from_be_bytes(b)).unwrap_or('\u{FFFD}')
                    })
                    .collect();
                node.insert("value".into(), json!(s));
                format!(":{s}")
            }
            20 => {
                // T61String is in practice Latin-1.
                let s: String = content.iter().map(|b| char::from(*b)).collect();
                node.insert("value".into(), json!(s));
                format!(":{s}")
            }
            12 | 18 | 19 | 22 | 25 | 26 | 27 | 7 | 21 => {
                let s = String::from_utf8_lossy(content).to_string();
                node.insert("value".into(), json!(s));
                format!(":{s}")
            }
            _ => {
                node.insert("hex".into(), json!(hex::encode(content)));
                format!("[HEX DUMP]:{hex_upper}")
            }
        }
    }
}

fn oid_mode(input: &str) -> ToolOutcome {
    let t = input.trim();
    let looks_dotted = t.contains('.') && t.chars().all(|c| c.is_ascii_digit() || c == '.');
    let (content, der) = if looks_dotted {
        let content = crate::tools::crypto::oid::encode(t)
            .map_err(|why| ToolError::invalid(format!("'{t}' is not a valid OID: {why}")))?;
        let mut der = vec![6u8];
        der.extend(length_bytes(content.len()));
        der.extend(&content);
        (content, der)
    } else {
        let bytes = read_blocks(t, "hex")?.remove(0).der;
        // With the 06 tag and length, or the bare content octets.
        let full = if bytes.first() == Some(&6)
            && Oid::from_ber(&bytes).is_ok_and(|(r, _)| r.is_empty())
        {
            bytes
        } else {
            let mut v = vec![6u8];
            v.extend(length_bytes(bytes.len()));
            v.extend(&bytes);
            v
        };
        let (_, o) =
            Oid::from_ber(&full).map_err(|e| der_error("not a DER OBJECT IDENTIFIER", e))?;
        (o.as_bytes().to_vec(), full)
    };
    let dotted = crate::tools::crypto::oid::dotted(&content)
        .map_err(|why| ToolError::invalid(format!("not a DER OBJECT IDENTIFIER: {why}")))?;
    let o = Oid::new(std::borrow::Cow::Borrowed(&content));
    let (sn, description) = oid_names(&o);
    let spaced = der
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(json!({
        "output": if looks_dotted { spaced.clone() } else { dotted.clone() },
        "oid": dotted,
        "der": spaced,
        "derHex": hex::encode_upper(&der),
        "contentHex": hex::encode_upper(&content),
        "name": sn,
        "description": description,
    }))
}

/// DER definite length octets (X.690 §8.1.3).
fn length_bytes(len: usize) -> Vec<u8> {
    if len < 128 {
        return vec![len as u8];
    }
    let bytes: Vec<u8> = len
        .to_be_bytes()
        .into_iter()
        .skip_while(|b| *b == 0)
        .collect();
    let mut out = vec![0x80 | bytes.len() as u8];
    out.extend(bytes);
    out
}
