//! Key and ASN.1 formats: PEM ⇄ DER ⇄ JWK conversion with RFC 7638 thumbprints, an ASN.1
//! DER/BER tree parser in the style of `openssl asn1parse`, and OpenSSH key inspection.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::ToolFn;
use crate::tools::kit::args::{Args, decode_base64_param};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use num_bigint::BigInt;
use rsa::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey};
use rsa::pkcs8::der::asn1::{AnyRef, BitStringRef, OctetStringRef};
use rsa::pkcs8::der::{Decode, Encode, Tag};
use rsa::pkcs8::spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use rsa::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, ObjectIdentifier,
    PrivateKeyInfo,
};
use rsa::traits::{PrivateKeyParts, PublicKeyParts};
use rsa::{BigUint as RsaUint, RsaPrivateKey, RsaPublicKey};
use serde_json::{Map, Value, json};
use sha2::Digest;
use x509_parser::asn1_rs::{Class, FromBer, Header, Length, Oid};
use x509_parser::objects::{oid_registry, oid2sn};

pub const TOOLS: &[(&str, ToolFn)] = &[
    ("pem-converter", pem_converter),
    ("asn1-parser", asn1_parser),
    ("ssh-key-parser", ssh_key_parser),
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

// ---------------------------------------------------------------------------------------------
// pem-converter

fn pem_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let mut mode = args.str("mode")?.to_string();
    let trimmed = input.trim_start();
    if mode == "auto" {
        mode = if trimmed.starts_with('{') {
            "to-pem"
        } else if trimmed.starts_with("-----BEGIN ") {
            // The first block's label, passing over the EC PARAMETERS block that
            // `openssl ecparam -genkey` writes before its key.
            let label = trimmed
                .lines()
                .filter_map(|l| l.trim().strip_prefix("-----BEGIN "))
                .map(|l| l.trim_end_matches('-'))
                .find(|l| *l != "EC PARAMETERS")
                .unwrap_or("EC PARAMETERS");
            if label.ends_with("KEY") || label == "CERTIFICATE" {
                "to-jwk"
            } else {
                "to-der"
            }
        } else {
            "to-pem"
        }
        .to_string();
    }
    match mode.as_str() {
        "to-der" => to_der(input, args.str("derEncoding")?),
        "to-jwk" => to_jwk(input),
        _ if trimmed.starts_with('{') => jwk_to_pem(trimmed),
        _ => der_to_pem(input, args.opt_str("label")),
    }
}

fn to_der(input: &str, encoding: &str) -> ToolOutcome {
    let blocks = read_blocks(input, "pem")?;
    let items: Vec<Value> = blocks
        .iter()
        .map(|b| {
            json!({
                "label": b.label,
                "hex": hex::encode(&b.der),
                "base64": STANDARD.encode(&b.der),
                "length": b.der.len(),
                "detected": detect_structure(&b.der),
            })
        })
        .collect();
    let output = items
        .iter()
        .map(|i| i[encoding].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(json!({ "output": output, "mode": "to-der", "blocks": items }))
}

/// The PEM label a DER structure calls for (RFC 7468), found by trying each structure.
fn detect_structure(der: &[u8]) -> Option<&'static str> {
    use x509_parser::prelude::{FromDer, X509Certificate};
    if X509Certificate::from_der(der).is_ok() {
        return Some("CERTIFICATE");
    }
    if x509_parser::certification_request::X509CertificationRequest::from_der(der).is_ok() {
        return Some("CERTIFICATE REQUEST");
    }
    if x509_parser::revocation_list::CertificateRevocationList::from_der(der).is_ok() {
        return Some("X509 CRL");
    }
    if SubjectPublicKeyInfoRef::from_der(der).is_ok() {
        return Some("PUBLIC KEY");
    }
    if PrivateKeyInfo::from_der(der).is_ok() {
        return Some("PRIVATE KEY");
    }
    if looks_encrypted_pkcs8(der) {
        return Some("ENCRYPTED PRIVATE KEY");
    }
    if RsaPrivateKey::from_pkcs1_der(der).is_ok() {
        return Some("RSA PRIVATE KEY");
    }
    if RsaPublicKey::from_pkcs1_der(der).is_ok() {
        return Some("RSA PUBLIC KEY");
    }
    if ssh_key::sec1::EcPrivateKey::try_from(der).is_ok() {
        return Some("EC PRIVATE KEY");
    }
    None
}

/// EncryptedPrivateKeyInfo (RFC 5958 §3): a PBES algorithm identifier and an OCTET STRING.
fn looks_encrypted_pkcs8(der: &[u8]) -> bool {
    use rsa::pkcs8::der::{Reader, SliceReader};
    let Ok(mut r) = SliceReader::new(der) else {
        return false;
    };
    let alg = r.sequence(|r| {
        let alg = AlgorithmIdentifierRef::decode(r)?;
        OctetStringRef::decode(r)?;
        Ok(alg.oid.to_string())
    });
    r.is_finished()
        && alg.is_ok_and(|o| {
            o.starts_with("1.2.840.113549.1.5.") || o.starts_with("1.2.840.113549.1.12.")
        })
}

fn der_to_pem(input: &str, label: Option<&str>) -> ToolOutcome {
    let blocks = read_blocks(input, "auto")?;
    let mut out = Vec::new();
    let mut labels = Vec::new();
    for b in &blocks {
        let detected = detect_structure(&b.der);
        let chosen = label
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_ascii_uppercase)
            .or_else(|| b.label.clone())
            .or_else(|| detected.map(str::to_string))
            .ok_or_else(|| {
                ToolError::invalid(
                    "the DER is not a certificate, CSR, CRL or key structure I recognise; give the PEM label to use (e.g. label 'PKCS7')",
                )
            })?;
        out.push(pem::encode_config(
            &pem::Pem::new(chosen.clone(), b.der.clone()),
            pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF),
        ));
        labels.push(chosen);
    }
    Ok(json!({
        "output": out.concat().trim_end(),
        "mode": "to-pem",
        "labels": labels,
    }))
}

/// A parsed key: its JWK members in RFC 7517 order, and whether it is private.
struct KeyInfo {
    jwk: Map<String, Value>,
    private: bool,
    format: &'static str,
    bits: Option<usize>,
}

/// Every key of the input as a JWK: one key gives the JWK itself, several (a PEM bundle or a
/// certificate chain) give a JWK Set (RFC 7517 §5) with the details of each in `keys`.
fn to_jwk(input: &str) -> ToolOutcome {
    let mut blocks = read_blocks(input, "auto")?;
    // `openssl ecparam -genkey` writes the curve as an EC PARAMETERS block before the key,
    // which names its curve again; it is not a key of its own.
    blocks.retain(|b| b.label.as_deref() != Some("EC PARAMETERS"));
    match blocks.as_slice() {
        [] => Err(ToolError::invalid(
            "the PEM holds only EC PARAMETERS, no key; give the EC PRIVATE KEY or PUBLIC KEY block",
        )),
        [block] => block_to_jwk(block),
        several => {
            let mut keys = Vec::with_capacity(several.len());
            for (i, block) in several.iter().enumerate() {
                keys.push(block_to_jwk(block).map_err(|e| {
                    let label = block.label.as_deref().unwrap_or("DER");
                    ToolError::invalid(format!(
                        "PEM block {} of {} ({label}): {}",
                        i + 1,
                        several.len(),
                        e.message
                    ))
                })?);
            }
            let jwks = json!({ "keys": keys.iter().map(|k| &k["jwk"]).collect::<Vec<_>>() });
            let text = serde_json::to_string_pretty(&jwks).unwrap_or_default();
            for key in &mut keys {
                if let Some(m) = key.as_object_mut() {
                    m.shift_remove("output");
                    m.shift_remove("mode");
                }
            }
            Ok(json!({
                "output": text,
                "mode": "to-jwk",
                "jwks": jwks,
                "keyCount": keys.len(),
                "keys": keys,
            }))
        }
    }
}

fn block_to_jwk(block: &Block) -> ToolOutcome {
    let label = block
        .label
        .clone()
        .or_else(|| detect_structure(&block.der).map(str::to_string))
        .unwrap_or_default();
    let key = key_from_der(&label, &block.der)?;
    let thumbprint = thumbprint(&key.jwk)?;
    let mut jwk = key.jwk.clone();
    if label == "CERTIFICATE" {
        jwk.insert("x5c".into(), json!([STANDARD.encode(&block.der)]));
    }
    let text = serde_json::to_string_pretty(&jwk).unwrap_or_default();
    Ok(json!({
        "output": text,
        "mode": "to-jwk",
        "jwk": jwk,
        "thumbprint": thumbprint,
        "thumbprintUri": format!("urn:ietf:params:oauth:jwk-thumbprint:sha-256:{thumbprint}"),
        "keyType": key.jwk.get("kty"),
        "private": key.private,
        "inputFormat": key.format,
        "label": label,
        "bits": key.bits,
    }))
}

fn rsa_public_jwk(n: &RsaUint, e: &RsaUint) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kty".into(), json!("RSA"));
    m.insert("n".into(), json!(b64u(&n.to_bytes_be())));
    m.insert("e".into(), json!(b64u(&e.to_bytes_be())));
    m
}

fn rsa_private_info(key: &RsaPrivateKey, format: &'static str) -> KeyInfo {
    let mut jwk = rsa_public_jwk(key.n(), key.e());
    jwk.insert("d".into(), json!(b64u(&key.d().to_bytes_be())));
    if let [p, q] = key.primes() {
        jwk.insert("p".into(), json!(b64u(&p.to_bytes_be())));
        jwk.insert("q".into(), json!(b64u(&q.to_bytes_be())));
        if let (Some(dp), Some(dq), Some(qi)) = (key.dp(), key.dq(), key.qinv()) {
            jwk.insert("dp".into(), json!(b64u(&dp.to_bytes_be())));
            jwk.insert("dq".into(), json!(b64u(&dq.to_bytes_be())));
            let (_, qi) = qi.to_bytes_be();
            jwk.insert("qi".into(), json!(b64u(&qi)));
        }
    }
    KeyInfo {
        jwk,
        private: true,
        format,
        bits: Some(key.n().bits()),
    }
}

fn key_from_der(label: &str, der: &[u8]) -> Result<KeyInfo, ToolError> {
    match label {
        "RSA PUBLIC KEY" => {
            let k = RsaPublicKey::from_pkcs1_der(der)
                .map_err(|e| der_error("invalid PKCS#1 public key", e))?;
            Ok(KeyInfo {
                jwk: rsa_public_jwk(k.n(), k.e()),
                private: false,
                format: "PKCS#1",
                bits: Some(k.n().bits()),
            })
        }
        "RSA PRIVATE KEY" => {
            let k = RsaPrivateKey::from_pkcs1_der(der)
                .map_err(|e| der_error("invalid PKCS#1 private key", e))?;
            Ok(rsa_private_info(&k, "PKCS#1"))
        }
        "PUBLIC KEY" => spki_key(der),
        "CERTIFICATE" => {
            use x509_parser::prelude::{FromDer, X509Certificate};
            let (_, cert) =
                X509Certificate::from_der(der).map_err(|e| der_error("invalid certificate", e))?;
            spki_key(cert.tbs_certificate.subject_pki.raw)
        }
        "PRIVATE KEY" => pkcs8_key(der),
        "EC PRIVATE KEY" => {
            let k = ssh_key::sec1::EcPrivateKey::try_from(der)
                .map_err(|e| der_error("invalid SEC1 EC private key", e))?;
            let curve = k
                .parameters
                .and_then(|p| p.named_curve())
                .ok_or_else(|| ToolError::invalid("the EC private key does not name its curve"))?;
            ec_private(curve, &k, der, "SEC1")
        }
        "ENCRYPTED PRIVATE KEY" => Err(ToolError::invalid(
            "the private key is encrypted (PKCS#8 EncryptedPrivateKeyInfo); decrypt it first, e.g. openssl pkcs8 -in key.pem -out plain.pem",
        )),
        "OPENSSH PRIVATE KEY" => Err(ToolError::invalid(
            "this is an OpenSSH private key; use ssh-key-parser, or convert with ssh-keygen -p -m PKCS8",
        )),
        "" => Err(ToolError::invalid(
            "the input is not a recognised key: expected PEM (PUBLIC KEY, PRIVATE KEY, RSA PRIVATE KEY, EC PRIVATE KEY, CERTIFICATE) or its DER",
        )),
        other => Err(ToolError::invalid(format!(
            "PEM label '{other}' does not hold a key this tool converts to JWK"
        ))),
    }
}

fn curve_by_oid(o: &ObjectIdentifier) -> Option<(&'static str, ObjectIdentifier, usize)> {
    CURVES.iter().copied().find(|(_, d, _)| d == o)
}

/// An uncompressed SEC1 point 04‖X‖Y split into coordinates.
fn ec_point(point: &[u8], size: usize, crv: &str) -> Result<(Vec<u8>, Vec<u8>), ToolError> {
    match point.first() {
        Some(4) if point.len() == 1 + 2 * size => {
            Ok((point[1..=size].to_vec(), point[1 + size..].to_vec()))
        }
        Some(2 | 3) => Err(ToolError::invalid(format!(
            "the {crv} public key is in compressed form (02/03 prefix); decompressing it needs curve arithmetic this tool does not do — re-export it uncompressed (openssl ec -conv_form uncompressed)"
        ))),
        _ => Err(ToolError::invalid(format!(
            "the {crv} public key is not an uncompressed point of {} bytes",
            1 + 2 * size
        ))),
    }
}

fn ec_jwk(crv: &str, x: &[u8], y: &[u8]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kty".into(), json!("EC"));
    m.insert("crv".into(), json!(crv));
    m.insert("x".into(), json!(b64u(x)));
    m.insert("y".into(), json!(b64u(y)));
    m
}

fn okp_jwk(crv: &str, x: &[u8]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kty".into(), json!("OKP"));
    m.insert("crv".into(), json!(crv));
    m.insert("x".into(), json!(b64u(x)));
    m
}

fn spki_key(der: &[u8]) -> Result<KeyInfo, ToolError> {
    let spki = SubjectPublicKeyInfoRef::from_der(der)
        .map_err(|e| der_error("invalid SubjectPublicKeyInfo", e))?;
    let alg = spki.algorithm.oid;
    let bits = spki.subject_public_key.raw_bytes();
    if alg == OID_RSA {
        let k = RsaPublicKey::from_public_key_der(der)
            .map_err(|e| der_error("invalid RSA public key", e))?;
        return Ok(KeyInfo {
            jwk: rsa_public_jwk(k.n(), k.e()),
            private: false,
            format: "SPKI",
            bits: Some(k.n().bits()),
        });
    }
    if alg == OID_EC {
        let curve = spki
            .algorithm
            .parameters
            .and_then(|p| p.decode_as::<ObjectIdentifier>().ok())
            .ok_or_else(|| ToolError::invalid("the EC public key does not name its curve"))?;
        let (crv, _, size) = curve_by_oid(&curve).ok_or_else(|| {
            ToolError::invalid(format!(
                "EC curve {curve} has no JWK name (JWK defines P-256, P-384 and P-521)"
            ))
        })?;
        let (x, y) = ec_point(bits, size, crv)?;
        return Ok(KeyInfo {
            jwk: ec_jwk(crv, &x, &y),
            private: false,
            format: "SPKI",
            bits: Some(size * 8),
        });
    }
    if let Some((crv, _, size)) = OKP_CURVES.iter().copied().find(|(_, d, _)| *d == alg) {
        if bits.len() != size {
            return Err(ToolError::invalid(format!(
                "the {crv} public key has {} bytes, expected {size}",
                bits.len()
            )));
        }
        return Ok(KeyInfo {
            jwk: okp_jwk(crv, bits),
            private: false,
            format: "SPKI",
            bits: Some(size * 8),
        });
    }
    Err(ToolError::invalid(format!(
        "public key algorithm {alg} is not RSA, EC (P-256/384/521) or an RFC 8037 curve"
    )))
}

fn pkcs8_key(der: &[u8]) -> Result<KeyInfo, ToolError> {
    let info =
        PrivateKeyInfo::from_der(der).map_err(|e| der_error("invalid PKCS#8 private key", e))?;
    let alg = info.algorithm.oid;
    if alg == OID_RSA {
        let k = RsaPrivateKey::from_pkcs8_der(der)
            .map_err(|e| der_error("invalid RSA private key", e))?;
        return Ok(rsa_private_info(&k, "PKCS#8"));
    }
    if alg == OID_EC {
        let curve = info
            .algorithm
            .parameters
            .and_then(|p| p.decode_as::<ObjectIdentifier>().ok())
            .ok_or_else(|| ToolError::invalid("the EC private key does not name its curve"))?;
        let k = ssh_key::sec1::EcPrivateKey::try_from(info.private_key)
            .map_err(|e| der_error("invalid EC private key inside PKCS#8", e))?;
        return ec_private(curve, &k, der, "PKCS#8");
    }
    if let Some((crv, _, size)) = OKP_CURVES.iter().copied().find(|(_, d, _)| *d == alg) {
        // RFC 8410 §7: the private key is an OCTET STRING inside the PKCS#8 OCTET STRING.
        let d = OctetStringRef::from_der(info.private_key)
            .map_err(|e| der_error("invalid CurvePrivateKey", e))?
            .as_bytes()
            .to_vec();
        let x = match info.public_key {
            Some(x) => x.to_vec(),
            None if crv == "Ed25519" => {
                let jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(
                    &jsonwebtoken::EncodingKey::from_ed_der(der),
                    jsonwebtoken::Algorithm::EdDSA,
                )
                .map_err(|e| der_error("could not derive the Ed25519 public key", e))?;
                match jwk.algorithm {
                    jsonwebtoken::jwk::AlgorithmParameters::OctetKeyPair(p) => {
                        URL_SAFE_NO_PAD.decode(p.x).unwrap_or_default()
                    }
                    _ => Vec::new(),
                }
            }
            None => {
                return Err(ToolError::invalid(format!(
                    "the {crv} private key carries no public key, and deriving it is not supported for {crv}"
                )));
            }
        };
        if d.len() != size {
            return Err(ToolError::invalid(format!(
                "the {crv} private key has {} bytes, expected {size}",
                d.len()
            )));
        }
        let mut jwk = okp_jwk(crv, &x);
        jwk.insert("d".into(), json!(b64u(&d)));
        return Ok(KeyInfo {
            jwk,
            private: true,
            format: "PKCS#8",
            bits: Some(size * 8),
        });
    }
    Err(ToolError::invalid(format!(
        "private key algorithm {alg} is not RSA, EC or an RFC 8037 curve"
    )))
}

fn ec_private(
    curve: ObjectIdentifier,
    k: &ssh_key::sec1::EcPrivateKey,
    der: &[u8],
    format: &'static str,
) -> Result<KeyInfo, ToolError> {
    let (crv, _, size) = curve_by_oid(&curve).ok_or_else(|| {
        ToolError::invalid(format!(
            "EC curve {curve} has no JWK name (JWK defines P-256, P-384 and P-521)"
        ))
    })?;
    let (x, y) = match k.public_key {
        Some(point) => ec_point(point, size, crv)?,
        None => {
            // Derive the point from the scalar; jsonwebtoken does this for P-256 and P-384
            // given PKCS#8.
            let alg = match crv {
                "P-256" => jsonwebtoken::Algorithm::ES256,
                "P-384" => jsonwebtoken::Algorithm::ES384,
                _ => {
                    return Err(ToolError::invalid(format!(
                        "the {crv} private key carries no public key and deriving it is not supported for {crv}"
                    )));
                }
            };
            let pkcs8 = if format == "PKCS#8" {
                der.to_vec()
            } else {
                let alg_id = AlgorithmIdentifierRef {
                    oid: OID_EC,
                    parameters: Some(
                        AnyRef::new(Tag::ObjectIdentifier, curve.as_bytes())
                            .map_err(|e| der_error("curve", e))?,
                    ),
                };
                PrivateKeyInfo::new(alg_id, der)
                    .to_der()
                    .map_err(|e| der_error("PKCS#8", e))?
            };
            let jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(
                &jsonwebtoken::EncodingKey::from_ec_der(&pkcs8),
                alg,
            )
            .map_err(|e| der_error("could not derive the EC public key", e))?;
            match jwk.algorithm {
                jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(p) => (
                    URL_SAFE_NO_PAD.decode(p.x).unwrap_or_default(),
                    URL_SAFE_NO_PAD.decode(p.y).unwrap_or_default(),
                ),
                _ => return Err(ToolError::execution("unexpected JWK type")),
            }
        }
    };
    let mut d = k.private_key.to_vec();
    if d.len() < size {
        let mut padded = vec![0u8; size - d.len()];
        padded.extend(d);
        d = padded;
    }
    let mut jwk = ec_jwk(crv, &x, &y);
    jwk.insert("d".into(), json!(b64u(&d)));
    Ok(KeyInfo {
        jwk,
        private: true,
        format,
        bits: Some(size * 8),
    })
}

/// RFC 7638 §3: SHA-256 over the required members in lexicographic order, no whitespace.
fn thumbprint(jwk: &Map<String, Value>) -> Result<String, ToolError> {
    let kty = jwk.get("kty").and_then(Value::as_str).unwrap_or_default();
    let members: &[&str] = match kty {
        "RSA" => &["e", "kty", "n"],
        "EC" => &["crv", "kty", "x", "y"],
        "OKP" => &["crv", "kty", "x"],
        "oct" => &["k", "kty"],
        other => {
            return Err(ToolError::invalid(format!(
                "JWK kty '{other}' is not RSA, EC, OKP or oct"
            )));
        }
    };
    let mut canonical = Map::new();
    for m in members {
        let v = jwk.get(*m).and_then(Value::as_str).ok_or_else(|| {
            ToolError::invalid(format!("JWK of kty '{kty}' needs the member '{m}'"))
        })?;
        canonical.insert((*m).to_string(), json!(v));
    }
    let text = serde_json::to_string(&Value::Object(canonical)).unwrap_or_default();
    Ok(b64u(&sha2::Sha256::digest(text.as_bytes())))
}

fn jwk_member(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, ToolError> {
    let v = jwk
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::invalid(format!("the JWK has no string member '{name}'")))?;
    URL_SAFE_NO_PAD
        .decode(v.trim_end_matches('='))
        .map_err(|e| ToolError::invalid(format!("JWK member '{name}' is not base64url: {e}")))
}

/// A JWK as PEM, or every key of a JWK Set (RFC 7517 §5): a set of one key converts like the
/// key alone; of several, their PEM blocks one after the other in `output`, and the details of
/// each in `keys`.
fn jwk_to_pem(text: &str) -> ToolOutcome {
    let value = crate::tools::json::parse_value(text)
        .map_err(|e| ToolError::invalid(format!("the JWK: {}", e.message)))?;
    let Value::Object(object) = &value else {
        return Err(ToolError::invalid("the JWK must be a JSON object"));
    };
    let Some(set) = object.get("keys") else {
        return one_jwk_to_pem(object);
    };
    let members = set
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| ToolError::invalid("the JWK Set's 'keys' is not a non-empty array"))?;
    if let [only] = members.as_slice() {
        // A set of one key converts like that key alone, as it always has.
        return member_to_pem(0, only);
    }
    let mut keys = Vec::with_capacity(members.len());
    let mut blocks = Vec::with_capacity(members.len());
    for (i, member) in members.iter().enumerate() {
        let mut key = member_to_pem(i, member)?;
        if let Some(m) = key.as_object_mut() {
            if let Some(Value::String(pem)) = m.shift_remove("output") {
                blocks.push(pem);
            }
            m.shift_remove("mode");
            m.insert(
                "kid".into(),
                member.get("kid").cloned().unwrap_or(Value::Null),
            );
        }
        keys.push(key);
    }
    Ok(json!({
        "output": blocks.join("\n"),
        "mode": "to-pem",
        "keyCount": keys.len(),
        "keys": keys,
    }))
}

/// Member `i` of a JWK Set as PEM; an error says which member it is about.
fn member_to_pem(i: usize, member: &Value) -> ToolOutcome {
    member
        .as_object()
        .ok_or_else(|| ToolError::invalid("it is not a JSON object"))
        .and_then(one_jwk_to_pem)
        .map_err(|e| ToolError::invalid(format!("JWK Set keys[{i}]: {}", e.message)))
}

fn one_jwk_to_pem(jwk: &Map<String, Value>) -> ToolOutcome {
    let kty = jwk.get("kty").and_then(Value::as_str).unwrap_or_default();
    let private = jwk.contains_key("d");
    let lf = rsa::pkcs8::LineEnding::LF;
    let (public_pem, private_pem) = match kty {
        "RSA" => {
            let n = RsaUint::from_bytes_be(&jwk_member(jwk, "n")?);
            let e = RsaUint::from_bytes_be(&jwk_member(jwk, "e")?);
            let public = RsaPublicKey::new(n.clone(), e.clone())
                .map_err(|err| der_error("invalid RSA public key", err))?;
            let public_pem = public
                .to_public_key_pem(lf)
                .map_err(|err| der_error("encoding failed", err))?;
            let private_pem = if private {
                let d = RsaUint::from_bytes_be(&jwk_member(jwk, "d")?);
                let primes = match (jwk.get("p"), jwk.get("q")) {
                    (Some(_), Some(_)) => vec![
                        RsaUint::from_bytes_be(&jwk_member(jwk, "p")?),
                        RsaUint::from_bytes_be(&jwk_member(jwk, "q")?),
                    ],
                    _ => Vec::new(),
                };
                let key = RsaPrivateKey::from_components(n, e, d, primes)
                    .map_err(|err| der_error("inconsistent RSA private key", err))?;
                Some(
                    key.to_pkcs8_pem(lf)
                        .map_err(|err| der_error("encoding failed", err))?
                        .to_string(),
                )
            } else {
                None
            };
            (public_pem, private_pem)
        }
        "EC" => {
            let crv = jwk.get("crv").and_then(Value::as_str).unwrap_or_default();
            let (_, curve, size) = CURVES
                .iter()
                .copied()
                .find(|(n, _, _)| *n == crv)
                .ok_or_else(|| {
                    ToolError::invalid(format!("EC curve '{crv}' is not P-256, P-384 or P-521"))
                })?;
            let (x, y) = (jwk_member(jwk, "x")?, jwk_member(jwk, "y")?);
            if x.len() != size || y.len() != size {
                return Err(ToolError::invalid(format!(
                    "{crv} coordinates must be {size} bytes each, got x {} and y {}",
                    x.len(),
                    y.len()
                )));
            }
            let mut point = vec![4u8];
            point.extend(&x);
            point.extend(&y);
            let params = AnyRef::new(Tag::ObjectIdentifier, curve.as_bytes())
                .map_err(|e| der_error("curve", e))?;
            let alg = AlgorithmIdentifierRef {
                oid: OID_EC,
                parameters: Some(params),
            };
            let public_pem = spki_pem(alg, &point)?;
            let private_pem = if private {
                let d = jwk_member(jwk, "d")?;
                let sec1 = ssh_key::sec1::EcPrivateKey {
                    private_key: &d,
                    parameters: None,
                    public_key: Some(&point),
                };
                let inner = sec1.to_der().map_err(|e| der_error("SEC1 encoding", e))?;
                Some(pkcs8_pem(alg, &inner)?)
            } else {
                None
            };
            (public_pem, private_pem)
        }
        "OKP" => {
            let crv = jwk.get("crv").and_then(Value::as_str).unwrap_or_default();
            let (_, alg_oid, size) = OKP_CURVES
                .iter()
                .copied()
                .find(|(n, _, _)| *n == crv)
                .ok_or_else(|| {
                    ToolError::invalid(format!(
                        "OKP curve '{crv}' is not Ed25519, X25519, Ed448 or X448"
                    ))
                })?;
            let x = jwk_member(jwk, "x")?;
            if x.len() != size {
                return Err(ToolError::invalid(format!(
                    "{crv} key 'x' must be {size} bytes, got {}",
                    x.len()
                )));
            }
            let alg = AlgorithmIdentifierRef {
                oid: alg_oid,
                parameters: None,
            };
            let public_pem = spki_pem(alg, &x)?;
            let private_pem = if private {
                let d = jwk_member(jwk, "d")?;
                let inner = OctetStringRef::new(&d)
                    .and_then(|o| o.to_der())
                    .map_err(|e| der_error("encoding", e))?;
                Some(pkcs8_pem(alg, &inner)?)
            } else {
                None
            };
            (public_pem, private_pem)
        }
        "" => return Err(ToolError::invalid("the JWK has no 'kty' member")),
        other => {
            return Err(ToolError::invalid(format!(
                "JWK kty '{other}' cannot be written as PEM (RSA, EC and OKP can)"
            )));
        }
    };
    let thumbprint = thumbprint(jwk)?;
    let output = private_pem.clone().unwrap_or_else(|| public_pem.clone());
    Ok(json!({
        "output": output.trim_end(),
        "mode": "to-pem",
        "publicKeyPem": public_pem.trim_end(),
        "privateKeyPem": private_pem.as_deref().map(str::trim_end),
        "thumbprint": thumbprint,
        "keyType": kty,
    }))
}

fn spki_pem(alg: AlgorithmIdentifierRef, key: &[u8]) -> Result<String, ToolError> {
    let spki = SubjectPublicKeyInfoRef {
        algorithm: alg,
        subject_public_key: BitStringRef::from_bytes(key).map_err(|e| der_error("encoding", e))?,
    };
    let der = spki.to_der().map_err(|e| der_error("SPKI encoding", e))?;
    Ok(pem_text("PUBLIC KEY", der))
}

fn pkcs8_pem(alg: AlgorithmIdentifierRef, private_key: &[u8]) -> Result<String, ToolError> {
    let der = PrivateKeyInfo::new(alg, private_key)
        .to_der()
        .map_err(|e| der_error("PKCS#8 encoding", e))?;
    Ok(pem_text("PRIVATE KEY", der))
}

fn pem_text(label: &str, der: Vec<u8>) -> String {
    pem::encode_config(
        &pem::Pem::new(label, der),
        pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF),
    )
}

// ---------------------------------------------------------------------------------------------
// asn1-parser

/// Nesting limit of the DER tree: asn1-rs parses indefinite lengths recursively and takes 49
/// levels (its end-of-contents markers count as a 50th), so definite lengths stop there too
/// and the tool has one limit.
const ASN1_DEPTH: usize = 49;
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

fn asn1_parser(args: &Args) -> ToolOutcome {
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

// ---------------------------------------------------------------------------------------------
// ssh-key-parser

fn ssh_key_parser(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let randomart = args.flag("randomart");
    let t = input.trim();
    let mut keys = Vec::new();
    if t.contains("-----BEGIN OPENSSH PRIVATE KEY-----") {
        let key = ssh_key::PrivateKey::from_openssh(t)
            .map_err(|e| ToolError::invalid(format!("invalid OpenSSH private key: {e}")))?;
        let mut info = describe_public(key.public_key(), randomart)?;
        info.insert("kind".into(), json!("private"));
        info.insert("encrypted".into(), json!(key.is_encrypted()));
        info.insert("cipher".into(), json!(key.cipher().as_str()));
        info.insert("kdf".into(), json!(key.kdf().algorithm().as_str()));
        if key.is_encrypted() {
            // The comment is stored inside the encrypted section.
            info.insert("comment".into(), Value::Null);
        } else {
            info.insert("comment".into(), json!(key.comment()));
        }
        keys.push(info);
    } else if t.contains("-----BEGIN ") {
        return Err(ToolError::invalid(
            "this is a PEM key, not an OpenSSH one; use pem-converter for PKCS#1/PKCS#8/SEC1 keys",
        ));
    } else if t.contains("---- BEGIN SSH2 PUBLIC KEY ----") {
        keys.push(rfc4716(t, randomart)?);
    } else {
        for (i, line) in t.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            keys.push(public_line(l, i + 1, randomart)?);
        }
    }
    if keys.is_empty() {
        return Err(ToolError::invalid("no SSH key found in the input"));
    }
    let output = keys
        .iter()
        .map(|k| k["keygen"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(json!({ "output": output, "count": keys.len(), "keys": keys }))
}

/// One authorized_keys or known_hosts line, or a bare public key.
fn public_line(
    line: &str,
    number: usize,
    randomart: bool,
) -> Result<Map<String, Value>, ToolError> {
    if let Ok(k) = ssh_key::PublicKey::from_openssh(line) {
        let mut info = describe_public(&k, randomart)?;
        info.insert("kind".into(), json!("public"));
        return Ok(info);
    }
    if let Ok(e) = line.parse::<ssh_key::authorized_keys::Entry>() {
        let mut info = describe_public(e.public_key(), randomart)?;
        info.insert("kind".into(), json!("authorized_keys"));
        let opts: Vec<String> = e.config_opts().iter().map(str::to_string).collect();
        info.insert("options".into(), json!(opts));
        return Ok(info);
    }
    if let Ok(e) = line.parse::<ssh_key::known_hosts::Entry>() {
        let mut info = describe_public(e.public_key(), randomart)?;
        info.insert("kind".into(), json!("known_hosts"));
        let hosts = match e.host_patterns() {
            ssh_key::known_hosts::HostPatterns::Patterns(p) => json!(p),
            ssh_key::known_hosts::HostPatterns::HashedName { .. } => json!("(hashed)"),
        };
        info.insert("hosts".into(), hosts);
        return Ok(info);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let hint = match words.as_slice() {
        [alg, ..] if !alg.contains('-') && words.len() == 1 => {
            "expected '<type> <base64> [comment]'".to_string()
        }
        [_, data, ..] if STANDARD.decode(data).is_err() => format!(
            "the key data '{}' is not valid Base64",
            crate::text::preview(data, 20)
        ),
        _ => {
            "expected '[options] <type> <base64> [comment]' such as 'ssh-ed25519 AAAAC3… user@host'"
                .to_string()
        }
    };
    Err(ToolError::invalid(format!(
        "line {number} is not an SSH public key: {hint}"
    )))
}

/// RFC 4716 §3: header lines (with '\' continuations) then the Base64 key blob.
fn rfc4716(text: &str, randomart: bool) -> Result<Map<String, Value>, ToolError> {
    let mut inside = false;
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut body = String::new();
    let mut continuing = false;
    for line in text.lines().map(str::trim) {
        if line == "---- BEGIN SSH2 PUBLIC KEY ----" {
            inside = true;
            continue;
        }
        if line == "---- END SSH2 PUBLIC KEY ----" {
            break;
        }
        if !inside {
            continue;
        }
        if continuing {
            if let Some(last) = headers.last_mut() {
                last.1.push_str(line.trim_end_matches('\\'));
            }
            continuing = line.ends_with('\\');
        } else if let Some((k, v)) = line.split_once(": ").filter(|_| body.is_empty()) {
            headers.push((k.to_string(), v.trim_end_matches('\\').to_string()));
            continuing = line.ends_with('\\');
        } else {
            body.push_str(line);
        }
    }
    let blob = STANDARD.decode(&body).map_err(|e| {
        ToolError::invalid(format!("the SSH2 public key body is not valid Base64: {e}"))
    })?;
    let mut key = ssh_key::PublicKey::from_bytes(&blob)
        .map_err(|e| ToolError::invalid(format!("invalid SSH2 public key blob: {e}")))?;
    let comment = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Comment"))
        .map(|(_, v)| v.trim_matches('"').to_string());
    if let Some(c) = &comment {
        key.set_comment(c.clone());
    }
    let mut info = describe_public(&key, randomart)?;
    info.insert("kind".into(), json!("rfc4716"));
    info.insert(
        "headers".into(),
        Value::Object(headers.into_iter().map(|(k, v)| (k, json!(v))).collect()),
    );
    info.insert(
        "openssh".into(),
        json!(key.to_openssh().unwrap_or_default()),
    );
    Ok(info)
}

fn describe_public(
    key: &ssh_key::PublicKey,
    randomart: bool,
) -> Result<Map<String, Value>, ToolError> {
    use ssh_key::public::KeyData;
    let data = key.key_data();
    let mpint_bits = |m: &ssh_key::Mpint| {
        m.as_positive_bytes().map_or(0, |b| {
            let b: Vec<u8> = b.iter().copied().skip_while(|x| *x == 0).collect();
            b.first()
                .map_or(0, |top| b.len() * 8 - top.leading_zeros() as usize)
        })
    };
    let (name, bits, curve) = match data {
        KeyData::Rsa(k) => ("RSA", mpint_bits(&k.n), None),
        KeyData::Dsa(k) => ("DSA", mpint_bits(&k.p), None),
        KeyData::Ecdsa(k) => {
            let c = k.curve();
            let bits = match c.as_str() {
                "nistp384" => 384,
                "nistp521" => 521,
                _ => 256,
            };
            ("ECDSA", bits, Some(c.as_str().to_string()))
        }
        KeyData::Ed25519(_) => ("ED25519", 256, None),
        KeyData::SkEcdsaSha2NistP256(_) => ("ECDSA-SK", 256, Some("nistp256".to_string())),
        KeyData::SkEd25519(_) => ("ED25519-SK", 256, None),
        _ => ("UNKNOWN", 0, None),
    };
    let blob = key
        .to_bytes()
        .map_err(|e| ToolError::execution(format!("could not encode the key: {e}")))?;
    let sha256 = key.fingerprint(ssh_key::HashAlg::Sha256);
    let md5 = md5::Md5::digest(&blob)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":");
    let comment = key.comment();
    let shown_comment = if comment.is_empty() {
        "no comment"
    } else {
        comment
    };
    let mut info = Map::new();
    info.insert(
        "keygen".into(),
        json!(format!("{bits} {sha256} {shown_comment} ({name})")),
    );
    info.insert("type".into(), json!(key.algorithm().as_str()));
    info.insert("algorithm".into(), json!(name));
    info.insert("bits".into(), json!(bits));
    if let Some(c) = curve {
        info.insert("curve".into(), json!(c));
    }
    info.insert("comment".into(), json!(comment));
    info.insert("fingerprintSha256".into(), json!(sha256.to_string()));
    info.insert("fingerprintMd5".into(), json!(format!("MD5:{md5}")));
    if randomart {
        info.insert(
            "randomart".into(),
            json!(sha256.to_randomart(&format!("[{name} {bits}]"))),
        );
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // Keys generated for these tests with OpenSSL 3 and OpenSSH (ssh-keygen); expected
    // values are what those tools print for them.
    const EC_SEC1: &str = "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIGutN1Nk6rgbVpd47IZ8Yqwa4VvXutSQzDzgAfDdE1fsoAoGCCqGSM49
AwEHoUQDQgAERz4WxQsZPZYHjm88GTGwj63VLAPLB0zIj7nu5oscpMmtnBIWShu5
NcigSamPOCOY/hclMUs2PLms9pSSJOhdTQ==
-----END EC PRIVATE KEY-----";
    const EC_PKCS8: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQga603U2TquBtWl3js
hnxirBrhW9e61JDMPOAB8N0TV+yhRANCAARHPhbFCxk9lgeObzwZMbCPrdUsA8sH
TMiPue7mixykya2cEhZKG7k1yKBJqY84I5j+FyUxSzY8uaz2lJIk6F1N
-----END PRIVATE KEY-----";
    const EC_SPKI: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAERz4WxQsZPZYHjm88GTGwj63VLAPL
B0zIj7nu5oscpMmtnBIWShu5NcigSamPOCOY/hclMUs2PLms9pSSJOhdTQ==
-----END PUBLIC KEY-----";
    const ED_PKCS8: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIMtLw8UpxLsDZZ8aIFgd95MCE5kMkDRN/B7S6jjzUsvY
-----END PRIVATE KEY-----";
    const ED_SPKI: &str = "-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAV1Y33HNZJYvfFeO2jMFHgBbzntBTa4Gaju3Tm5EJOh0=
-----END PUBLIC KEY-----";
    const CERT: &str = "-----BEGIN CERTIFICATE-----
MIIByDCCAW6gAwIBAgICEjQwCgYIKoZIzj0EAwIwNjELMAkGA1UEBhMCVVMxEDAO
BgNVBAoMB0V4YW1wbGUxFTATBgNVBAMMDHRlc3QuZXhhbXBsZTAeFw0yNjExMjEw
ODU3MjNaFw0zNjExMTgwODU3MjNaMDYxCzAJBgNVBAYTAlVTMRAwDgYDVQQKDAdF
eGFtcGxlMRUwEwYDVQQDDAx0ZXN0LmV4YW1wbGUwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARHPhbFCxk9lgeObzwZMbCPrdUsA8sHTMiPue7mixykya2cEhZKG7k1
yKBJqY84I5j+FyUxSzY8uaz2lJIk6F1No2wwajAdBgNVHQ4EFgQU1AHPU/bBccHB
52AF6t1PZo5YvtUwHwYDVR0jBBgwFoAU1AHPU/bBccHB52AF6t1PZo5YvtUwDwYD
VR0TAQH/BAUwAwEB/zAXBgNVHREEEDAOggx0ZXN0LmV4YW1wbGUwCgYIKoZIzj0E
AwIDSAAwRQIgF62B/3PtVu6LqP92NhtWdMjQoc+7O4pBV8M52rs9BlYCIQCrYzk5
DjXoCPPuqqC5qTioCz4O9UMqTD2Cg5UXdS0d0g==
-----END CERTIFICATE-----";
    /// RFC 7638 §3.1 example key, and its SPKI as `openssl pkey` writes it.
    const RFC7638_N: &str = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw";
    const RFC7638_PEM: &str = "-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0vx7agoebGcQSuuPiLJX
ZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tS
oc/BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ/2W+5JsGY4Hc5n9yBXArwl93lqt
7/RN5w6Cf0h4QyQ5v+65YGjQR0/FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0
zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt+bFTWhAI4vMQFh6WeZu0f
M4lFd2NcRwr3XPksINHaQ+G/xBniIqbw0Ls1jF44+csFCur+kEgU8awapJzKnqDK
gwIDAQAB
-----END PUBLIC KEY-----";
    const ED_PUB: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOZaJROksZFE/ruAAOPuTO7793Usr889YraXTWu6Et57 alice@example.com";
    const EC_PUB: &str = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBPHp4pZ9ydOeSw1jwXGcBSmew374pklY6NvoASGgfG+aYFIHPQs95kGOEuOwh3Yl4+OM0J+6S0BPOILZyQXGSHo= ec@host";
    const RSA_PUB: &str = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDlw4MzicsNGtxbc6PR0qwfmf2UBFC5DX1iTpV71EZYcx9FTLayB/Rw27HFeqSfa2JzWKVkDzWaZ5VPVGz3pSklEcBI0B0Qc7xtceoFAOiN7n0CDdgbFV8oA95ZgU58SC9EOdtuztoV52bk49kqsGG37NZQeHqzNGAtdc4iQQCUXQ== rsa-test";
    const ED_PRIVATE: &str = "-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDmWiUTpLGRRP67gADj7kzu+/d1LK/PPWK2l01ruhLeewAAAJgMb6eaDG+n
mgAAAAtzc2gtZWQyNTUxOQAAACDmWiUTpLGRRP67gADj7kzu+/d1LK/PPWK2l01ruhLeew
AAAEB3q24inNzStErNXMDKsd7DqnfBDxnjqwg1W/FCQtJ2FeZaJROksZFE/ruAAOPuTO77
93Usr889YraXTWu6Et57AAAAEWFsaWNlQGV4YW1wbGUuY29tAQIDBA==
-----END OPENSSH PRIVATE KEY-----";
    const ENCRYPTED_PRIVATE: &str = "-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABAvmaJ/+K
wN366NxLp+gIkUAAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAICn3hmqd5ljdIz7x
QfB8yg7tmEaaoKcW1o7jMKVYJfVCAAAAkHDy/Oucqn8q7WWYJ4APtimwLtpz2nKIJVxTGF
RyQpo+06WcJF2sfnUWBxOCLDu8iaEViQBYt/KhYtAS0iKhLtl4T+UNRRxtre09FQjdIXyY
xGdeISvgj/CjN0IJjssfpXJDjV2Jqd2+TFZTiDdMBraJWzzwcN1zF8XHX5LvI2Ar6PlJYt
JMEhAphE8hxc2czw==
-----END OPENSSH PRIVATE KEY-----";

    fn pem(args: serde_json::Value) -> serde_json::Value {
        run_ok("pem-converter", args)
    }

    #[test]
    fn rfc7638_thumbprint_and_jwk_to_spki_like_openssl() {
        let jwk =
            json!({"kty": "RSA", "n": RFC7638_N, "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"});
        let d = pem(json!({"input": jwk.to_string()}));
        assert_eq!(
            d["thumbprint"],
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
        assert_eq!(d["output"], RFC7638_PEM);
        let back = pem(json!({"input": RFC7638_PEM}));
        assert_eq!(back["jwk"]["n"], RFC7638_N);
        assert_eq!(back["jwk"]["e"], "AQAB");
        assert_eq!(back["bits"], 2048);
        assert_eq!(
            back["thumbprint"],
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
    }

    #[test]
    fn ec_p256_pem_to_jwk_and_back_byte_for_byte() {
        for input in [EC_SEC1, EC_PKCS8] {
            let d = pem(json!({"input": input}));
            assert_eq!(d["jwk"]["crv"], "P-256");
            assert_eq!(d["jwk"]["x"], "Rz4WxQsZPZYHjm88GTGwj63VLAPLB0zIj7nu5oscpMk");
            assert_eq!(d["jwk"]["y"], "rZwSFkobuTXIoEmpjzgjmP4XJTFLNjy5rPaUkiToXU0");
            assert_eq!(d["jwk"]["d"], "a603U2TquBtWl3jshnxirBrhW9e61JDMPOAB8N0TV-w");
            assert_eq!(d["private"], true);
        }
        let jwk = pem(json!({"input": EC_SEC1}))["jwk"].clone();
        let d = pem(json!({"input": jwk.to_string()}));
        assert_eq!(d["publicKeyPem"], EC_SPKI);
        assert_eq!(d["privateKeyPem"], EC_PKCS8);
        let cert = pem(json!({"input": CERT}));
        assert_eq!(cert["jwk"]["x"], jwk["x"]);
        assert_eq!(
            cert["thumbprint"],
            "tDCAqbxIh8rn6E_fyKwCspIQlGqEklwPf651qLnYN0U"
        );
    }

    #[test]
    fn ed25519_pkcs8_derives_public_key() {
        let d = pem(json!({"input": ED_PKCS8}));
        assert_eq!(d["jwk"]["crv"], "Ed25519");
        assert_eq!(d["jwk"]["x"], "V1Y33HNZJYvfFeO2jMFHgBbzntBTa4Gaju3Tm5EJOh0");
        assert_eq!(d["jwk"]["d"], "y0vDxSnEuwNlnxogWB33kwITmQyQNE38HtLqOPNSy9g");
        let back = pem(json!({"input": d["jwk"].to_string()}));
        assert_eq!(back["privateKeyPem"], ED_PKCS8);
        assert_eq!(back["publicKeyPem"], ED_SPKI);
    }

    #[test]
    fn pem_der_round_trip_and_label_detection() {
        let d = pem(json!({"input": ED_SPKI, "mode": "to-der"}));
        assert_eq!(
            d["output"],
            "302a300506032b65700321005756 37dc7359258bdf15e3b68cc1478016f39ed0536b819a8eedd39b91093a1d".replace(' ', "")
        );
        assert_eq!(d["blocks"][0]["detected"], "PUBLIC KEY");
        let back = pem(json!({"input": d["output"], "mode": "to-pem"}));
        assert_eq!(back["output"], ED_SPKI);
        let labelled =
            pem(json!({"input": d["blocks"][0]["base64"], "mode": "to-pem", "label": "foo"}));
        assert!(
            labelled["output"]
                .as_str()
                .unwrap()
                .starts_with("-----BEGIN FOO-----")
        );
    }

    // RFC 7517 Appendix A.1: a JWK Set of an EC P-256 key and the RSA key of RFC 7638 §3.1.
    // The EC key's PEM is `openssl pkey -pubin -inform DER` of its SPKI; its thumbprint is
    // SHA-256 over {"crv","kty","x","y"} as RFC 7638 §3 spells it.
    const RFC7517_EC_PEM: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEMKBCTNIcKUSDii11ySs3526iDZ8A
iTo7Tu6KPAqv7D7gS2XpJFbZiItSs3m9+9Ue6GnvHw/GW2ZZaVtszggXIw==
-----END PUBLIC KEY-----";

    fn rfc7517_set() -> serde_json::Value {
        json!({"keys": [
            {"kty": "EC", "crv": "P-256", "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
             "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM", "use": "enc", "kid": "1"},
            {"kty": "RSA", "n": RFC7638_N, "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"}
        ]})
    }

    #[test]
    fn every_key_of_a_jwk_set_becomes_pem() {
        let d = pem(json!({"input": rfc7517_set().to_string()}));
        assert_eq!(d["output"], format!("{RFC7517_EC_PEM}\n{RFC7638_PEM}"));
        assert_eq!(d["keyCount"], 2);
        assert_eq!(d["keys"][0]["kid"], "1");
        assert_eq!(d["keys"][0]["publicKeyPem"], RFC7517_EC_PEM);
        assert_eq!(
            d["keys"][0]["thumbprint"],
            "cn-I_WNMClehiVp51i_0VpOENW1upEerA8sEam5hn-s"
        );
        assert_eq!(d["keys"][1]["kid"], "2011-04-29");
        assert_eq!(d["keys"][1]["keyType"], "RSA");
        assert_eq!(
            d["keys"][1]["thumbprint"],
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
        // A set of one key keeps the shape of a single JWK.
        let one = json!({"keys": [rfc7517_set()["keys"][1].clone()]});
        let d = pem(json!({"input": one.to_string(), "mode": "to-pem"}));
        assert_eq!(d["output"], RFC7638_PEM);
        assert_eq!(d["publicKeyPem"], RFC7638_PEM);
        assert!(d.get("keys").is_none(), "{d}");
        // A member that cannot be PEM fails the set, and says which member it is.
        let mixed = json!({"keys": [rfc7517_set()["keys"][0].clone(), {"kty": "oct", "k": "AQ"}]});
        let (code, msg) = run_err("pem-converter", json!({"input": mixed.to_string()}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("JWK Set keys[1]: JWK kty 'oct'"), "{msg}");
    }

    #[test]
    fn every_pem_block_becomes_a_jwk_and_der() {
        let bundle = format!("{RFC7517_EC_PEM}\n{RFC7638_PEM}\n");
        let d = pem(json!({"input": bundle, "mode": "to-jwk"}));
        let expected = json!({"keys": [
            {"kty": "EC", "crv": "P-256", "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
             "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"},
            {"kty": "RSA", "n": RFC7638_N, "e": "AQAB"}
        ]});
        assert_eq!(d["jwks"], expected);
        let text: serde_json::Value = serde_json::from_str(d["output"].as_str().unwrap()).unwrap();
        assert_eq!(text, expected);
        assert_eq!(d["keyCount"], 2);
        assert_eq!(d["keys"][1]["bits"], 2048);
        assert_eq!(
            d["keys"][1]["thumbprint"],
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
        // to-der has always returned every block.
        let der = pem(json!({"input": bundle, "mode": "to-der"}));
        assert_eq!(der["blocks"].as_array().map(Vec::len), Some(2));
        assert_eq!(der["output"].as_str().unwrap().lines().count(), 2);
        // `openssl ecparam -name prime256v1 -genkey` puts the curve in a block of its own
        // first; it is not a key, so the key after it converts alone.
        let with_params = format!(
            "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n{EC_SEC1}"
        );
        let d = pem(json!({"input": with_params}));
        assert_eq!(d["jwk"]["d"], "a603U2TquBtWl3jshnxirBrhW9e61JDMPOAB8N0TV-w");
        // A block that is not a key fails the bundle, and says which block it is.
        let (code, msg) = run_err(
            "pem-converter",
            json!({"input": format!("{RFC7638_PEM}\n-----BEGIN X509 CRL-----\nMAA=\n-----END X509 CRL-----"), "mode": "to-jwk"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.starts_with("PEM block 2 of 2 (X509 CRL): PEM label"),
            "{msg}"
        );
    }

    #[test]
    fn pem_converter_errors() {
        let (code, msg) = run_err(
            "pem-converter",
            json!({"input": "{\"kty\": \"EC\", \"crv\": \"P-256\", \"x\": \"AQ\", \"y\": \"AQ\"}"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("32 bytes"), "{msg}");
        let (_, msg) = run_err(
            "pem-converter",
            json!({"input": "{\"kty\": \"RSA\", \"n\": \"AQAB\"}"}),
        );
        assert!(msg.contains("'e'"), "{msg}");
        let (_, msg) = run_err(
            "pem-converter",
            json!({"input": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----", "mode": "to-jwk"}),
        );
        assert!(msg.contains("encrypted"), "{msg}");
        let (_, msg) = run_err("pem-converter", json!({"input": "0102", "mode": "to-pem"}));
        assert!(msg.contains("label"), "{msg}");
    }

    #[test]
    fn asn1_matches_openssl_asn1parse_of_a_certificate() {
        let d = run_ok(
            "asn1-parser",
            json!({"input": CERT, "parseEncapsulated": false}),
        );
        let lines: Vec<&str> = d["output"].as_str().unwrap().lines().collect();
        // `openssl asn1parse -in cert.pem`, OpenSSL 3.
        let expected = [
            "    0:d=0  hl=4 l= 456 cons: SEQUENCE          ",
            "    4:d=1  hl=4 l= 366 cons: SEQUENCE          ",
            "    8:d=2  hl=2 l=   3 cons: cont [ 0 ]        ",
            "   10:d=3  hl=2 l=   1 prim: INTEGER           :02",
            "   13:d=2  hl=2 l=   2 prim: INTEGER           :1234",
            "   17:d=2  hl=2 l=  10 cons: SEQUENCE          ",
            "   19:d=3  hl=2 l=   8 prim: OBJECT            :ecdsa-with-SHA256",
            "   29:d=2  hl=2 l=  54 cons: SEQUENCE          ",
            "   31:d=3  hl=2 l=  11 cons: SET               ",
            "   33:d=4  hl=2 l=   9 cons: SEQUENCE          ",
            "   35:d=5  hl=2 l=   3 prim: OBJECT            :countryName",
            "   40:d=5  hl=2 l=   2 prim: PRINTABLESTRING   :US",
        ];
        assert_eq!(&lines[..expected.len()], &expected);
        assert_eq!(
            lines[21],
            "   87:d=3  hl=2 l=  13 prim: UTCTIME           :261121085723Z"
        );
        assert_eq!(
            lines[44],
            "  270:d=5  hl=2 l=   3 prim: OBJECT            :X509v3 Subject Key Identifier"
        );
        assert_eq!(
            lines[51],
            "  339:d=5  hl=2 l=   1 prim: BOOLEAN           :255"
        );
        assert_eq!(lines.len(), 59);
        assert_eq!(d["nodes"][21]["iso8601"], "2026-11-21T08:57:23Z");
        // With nested DER expanded, the SAN extension's dNSName appears.
        let d = run_ok("asn1-parser", json!({"input": CERT}));
        let san = d["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["tagName"] == "cont [ 2 ]")
            .unwrap();
        assert_eq!(san["text"], "test.example");
        assert_eq!(san["encapsulated"], true);
    }

    #[test]
    fn asn1_oid_mode_both_ways() {
        let d = run_ok(
            "asn1-parser",
            json!({"input": "1.2.840.113549.1.1.1", "mode": "oid"}),
        );
        assert_eq!(d["output"], "06 09 2A 86 48 86 F7 0D 01 01 01");
        assert_eq!(d["name"], "rsaEncryption");
        let d = run_ok(
            "asn1-parser",
            json!({"input": "06 09 2A 86 48 86 F7 0D 01 01 01", "mode": "oid"}),
        );
        assert_eq!(d["output"], "1.2.840.113549.1.1.1");
        let d = run_ok(
            "asn1-parser",
            json!({"input": "2B0601050507030A", "mode": "oid"}),
        );
        assert_eq!(d["oid"], "1.3.6.1.5.5.7.3.10");
    }

    // `openssl asn1parse` prints 2.999.1 for 06 03 88 37 01 and 2.25.3298…918 for the UUID
    // OID (X.667); the first subidentifier needs more than one octet in both.
    #[test]
    fn asn1_oids_with_large_first_subidentifiers() {
        let d = run_ok("asn1-parser", json!({"input": "3007060388370105 00"}));
        assert_eq!(d["nodes"][1]["value"], "2.999.1");
        assert!(
            d["output"]
                .as_str()
                .unwrap()
                .contains("OBJECT            :2.999.1")
        );
        let d = run_ok("asn1-parser", json!({"input": "2.999.1", "mode": "oid"}));
        assert_eq!(d["output"], "06 03 88 37 01");
        assert_eq!(d["contentHex"], "883701");
        let d = run_ok(
            "asn1-parser",
            json!({"input": "06 03 88 37 01", "mode": "oid"}),
        );
        assert_eq!(d["oid"], "2.999.1");
        let uuid = "2.25.329800735698586629295641978511506172918";
        let d = run_ok("asn1-parser", json!({"input": uuid, "mode": "oid"}));
        assert_eq!(d["derHex"], "06146983F09DA7EBCFDEE0C7A1A7B2C0948CC8F9D776");
        let back = run_ok("asn1-parser", json!({"input": d["derHex"], "mode": "oid"}));
        assert_eq!(back["oid"], uuid);
        let (code, msg) = run_err("asn1-parser", json!({"input": "1.40.3", "mode": "oid"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "'1.40.3' is not a valid OID: under arc 1 the second arc must be below 40"
        );
    }

    #[test]
    fn asn1_values_and_errors_with_offsets() {
        let d = run_ok("asn1-parser", json!({"input": "300a020180010100030201fe"}));
        assert_eq!(d["nodes"][1]["value"], "-128");
        assert_eq!(d["nodes"][2]["value"], false);
        assert_eq!(d["nodes"][3]["unusedBits"], 1);
        assert_eq!(d["nodes"][3]["bitLength"], 7);
        let (code, msg) = run_err("asn1-parser", json!({"input": "300a02010105"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("offset 0 declares 10 content bytes but only 4 remain"),
            "{msg}"
        );
        let (_, msg) = run_err("asn1-parser", json!({"input": "3006020101020500"}));
        assert!(msg.contains("offset 5 declares 5"), "{msg}");
        let (_, msg) = run_err("asn1-parser", json!({"input": "3.5.1", "mode": "oid"}));
        assert!(msg.contains("not a valid OID"), "{msg}");
    }

    #[test]
    fn ssh_fingerprints_match_ssh_keygen() {
        let d = run_ok(
            "ssh-key-parser",
            json!({"input": format!("{ED_PUB}\n# comment\n{EC_PUB}\n{RSA_PUB}\n")}),
        );
        assert_eq!(
            d["output"],
            "256 SHA256:WqPop1tOlW/+WPQB/DEkog4xEvQc+yv+CpSHulUNRI0 alice@example.com (ED25519)\n\
             256 SHA256:/+nVR06AU0zTzuySca8jVB+0KGfDjzu/9Ru8A0o1480 ec@host (ECDSA)\n\
             1024 SHA256:TEtWtCcmM0A/fmT44qchyumvc3s0X/dMx3OcRSWitCA rsa-test (RSA)"
        );
        // ssh-keygen -l -E md5
        assert_eq!(
            d["keys"][0]["fingerprintMd5"],
            "MD5:4f:ff:79:65:12:69:08:ff:97:8e:06:a5:09:6f:74:7f"
        );
        assert_eq!(
            d["keys"][1]["fingerprintMd5"],
            "MD5:4f:08:70:66:27:12:ea:a5:86:e0:29:d4:8f:1f:b9:71"
        );
        assert_eq!(
            d["keys"][2]["fingerprintMd5"],
            "MD5:be:b3:40:3a:cf:ef:6b:7a:15:62:fc:01:15:46:66:f5"
        );
        assert_eq!(d["keys"][1]["curve"], "nistp256");
    }

    #[test]
    fn ssh_private_keys_authorized_keys_and_rfc4716() {
        let d = run_ok(
            "ssh-key-parser",
            json!({"input": ED_PRIVATE, "randomart": true}),
        );
        let k = &d["keys"][0];
        assert_eq!(k["encrypted"], false);
        assert_eq!(k["comment"], "alice@example.com");
        // ssh-keygen -lv
        assert_eq!(
            k["randomart"],
            "+--[ED25519 256]--+\n|   .+o*o  . . .  |\n|     =E=.. o o   |\n|      * .   o o  |\n|     o * .   o o |\n|    + o S   . o  |\n|   o + = + . . . |\n|  . + * . o . .  |\n|   + *.. o o     |\n|  . +++o. o..    |\n+----[SHA256]-----+"
        );
        let d = run_ok("ssh-key-parser", json!({"input": ENCRYPTED_PRIVATE}));
        let k = &d["keys"][0];
        assert_eq!(k["encrypted"], true);
        assert_eq!(k["cipher"], "aes256-ctr");
        assert_eq!(k["kdf"], "bcrypt");
        assert_eq!(
            k["fingerprintSha256"],
            "SHA256:qvxp+9XlOScPm0N5zfffpQnSZq3QoGH+zo+7MaUswbw"
        );
        let d = run_ok(
            "ssh-key-parser",
            json!({"input": format!("no-pty,from=\"10.0.0.1\" {ED_PUB}")}),
        );
        assert_eq!(
            d["keys"][0]["options"],
            json!(["no-pty", "from=\"10.0.0.1\""])
        );
        // ssh-keygen -e -f ec.pub
        let rfc4716 = "---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"256-bit ECDSA, converted by root@vm from OpenSSH\"\nAAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBPHp4pZ9ydOeSw1jwX\nGcBSmew374pklY6NvoASGgfG+aYFIHPQs95kGOEuOwh3Yl4+OM0J+6S0BPOILZyQXGSHo=\n---- END SSH2 PUBLIC KEY ----";
        let d = run_ok("ssh-key-parser", json!({"input": rfc4716}));
        assert_eq!(
            d["keys"][0]["fingerprintSha256"],
            "SHA256:/+nVR06AU0zTzuySca8jVB+0KGfDjzu/9Ru8A0o1480"
        );
        assert_eq!(
            d["keys"][0]["comment"],
            "256-bit ECDSA, converted by root@vm from OpenSSH"
        );
    }

    #[test]
    fn ssh_errors_name_the_line() {
        let (code, msg) = run_err(
            "ssh-key-parser",
            json!({"input": format!("{ED_PUB}\nssh-ed25519 !!!notbase64 x")}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("line 2"), "{msg}");
        let (_, msg) = run_err("ssh-key-parser", json!({"input": EC_SEC1}));
        assert!(msg.contains("pem-converter"), "{msg}");
    }

    #[test]
    fn der_nesting_is_limited_with_one_message() {
        use crate::tools::kit::testing::assert_too_deep;
        // A million nested SEQUENCEs with definite lengths, and with indefinite ones.
        let mut lens = vec![0usize];
        for _ in 0..999_999 {
            let inner = *lens.last().unwrap();
            let len_bytes = if inner < 0x80 {
                1
            } else {
                1 + (usize::BITS - inner.leading_zeros()).div_ceil(8) as usize
            };
            lens.push(1 + len_bytes + inner);
        }
        let mut der = String::new();
        for len in lens.iter().rev() {
            der.push_str("30");
            if *len < 0x80 {
                der.push_str(&format!("{len:02x}"));
            } else {
                let bytes = len.to_be_bytes();
                let used: Vec<u8> = bytes.iter().copied().skip_while(|b| *b == 0).collect();
                der.push_str(&format!("{:02x}{}", 0x80 | used.len(), hex::encode(&used)));
            }
        }
        assert_too_deep(
            "asn1-parser",
            json!({"input": der, "inputFormat": "hex"}),
            "input",
            super::ASN1_DEPTH,
        );
        let indefinite = "3080".repeat(1_000_000) + &"0000".repeat(1_000_000);
        assert_too_deep(
            "asn1-parser",
            json!({"input": indefinite, "inputFormat": "hex"}),
            "input",
            super::ASN1_DEPTH,
        );
        // Just under: 50 levels.
        let ok = "3080".repeat(super::ASN1_DEPTH) + &"0000".repeat(super::ASN1_DEPTH);
        let d = run_ok("asn1-parser", json!({"input": ok, "inputFormat": "hex"}));
        assert_eq!(d["nodeCount"], super::ASN1_DEPTH);
    }
}
