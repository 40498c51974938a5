//! pem-converter: PEM ⇄ DER ⇄ JWK, with RFC 7638 thumbprints.

use super::{Block, CURVES, OID_EC, OID_RSA, OKP_CURVES, b64u, der_error, read_blocks};
use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
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

pub(super) fn pem_converter(args: &Args) -> ToolOutcome {
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
