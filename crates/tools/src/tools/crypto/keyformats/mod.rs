//! Key and ASN.1 formats: PEM ⇄ DER ⇄ JWK conversion with RFC 7638 thumbprints, an ASN.1
//! DER/BER tree parser in the style of `openssl asn1parse`, and OpenSSH key inspection.

mod asn1;
mod conversion;
mod ssh;
#[cfg(test)]
mod tests;

use crate::ctp::ToolError;
use crate::tools::kit::args::decode_base64_param;
use crate::tools::kit::tool::Tool;
use asn1::asn1_parser;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use conversion::pem_converter;
use rsa::pkcs8::ObjectIdentifier;
use ssh::ssh_key_parser;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("pem-converter", pem_converter),
    Tool::new("asn1-parser", asn1_parser),
    Tool::new("ssh-key-parser", ssh_key_parser),
];

const fn oid(dotted: &str) -> ObjectIdentifier {
    ObjectIdentifier::new_unwrap(dotted)
}

const OID_RSA: ObjectIdentifier = oid("1.2.840.113549.1.1.1");
const OID_EC: ObjectIdentifier = oid("1.2.840.10045.2.1");
const OID_ED25519: ObjectIdentifier = oid("1.3.101.112");
const OID_X25519: ObjectIdentifier = oid("1.3.101.110");
const OID_ED448: ObjectIdentifier = oid("1.3.101.113");
const OID_X448: ObjectIdentifier = oid("1.3.101.111");
/// JWK curve names (RFC 7518 §6.2.1.1) with their OID and coordinate size.
const CURVES: &[(&str, ObjectIdentifier, usize)] = &[
    ("P-256", oid("1.2.840.10045.3.1.7"), 32),
    ("P-384", oid("1.3.132.0.34"), 48),
    ("P-521", oid("1.3.132.0.35"), 66),
];
/// RFC 8037 octet key pair curves with their OID and key size.
const OKP_CURVES: &[(&str, ObjectIdentifier, usize)] = &[
    ("Ed25519", OID_ED25519, 32),
    ("X25519", OID_X25519, 32),
    ("Ed448", OID_ED448, 57),
    ("X448", OID_X448, 56),
];

fn b64u(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn der_error(what: &str, e: impl std::fmt::Display) -> ToolError {
    ToolError::invalid(format!("{what}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Binary input: PEM, hex or Base64

struct Block {
    label: Option<String>,
    der: Vec<u8>,
}

fn is_hex_text(text: &str) -> bool {
    let digits: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ':')
        .collect();
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_hexdigit())
}

/// Reads PEM (one or more blocks), hex or Base64 into DER blocks.
fn read_blocks(input: &str, format: &str) -> Result<Vec<Block>, ToolError> {
    let t = input.trim();
    if t.is_empty() {
        return Err(ToolError::invalid("input is empty"));
    }
    let pem_like = t.contains("-----BEGIN ");
    if format == "pem" || (format == "auto" && pem_like) {
        let blocks = pem::parse_many(t).map_err(|e| der_error("invalid PEM", e))?;
        if blocks.is_empty() {
            return Err(ToolError::invalid(
                "no PEM block found: expected -----BEGIN <LABEL>----- … -----END <LABEL>-----",
            ));
        }
        return Ok(blocks
            .into_iter()
            .map(|p| Block {
                label: Some(p.tag().to_string()),
                der: p.into_contents(),
            })
            .collect());
    }
    let der = if format == "hex" || (format == "auto" && is_hex_text(t)) {
        let digits: String = t
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ':')
            .collect();
        let digits = digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
            .unwrap_or(&digits)
            .to_string();
        if let Some(bad) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(ToolError::invalid(format!(
                "input is not hex: '{bad}' is not a hex digit"
            )));
        }
        if !digits.len().is_multiple_of(2) {
            return Err(ToolError::invalid(format!(
                "hex input has {} digits, an odd number",
                digits.len()
            )));
        }
        hex::decode(&digits).map_err(|e| der_error("invalid hex", e))?
    } else {
        decode_base64_param("input", t)?
    };
    Ok(vec![Block { label: None, der }])
}
