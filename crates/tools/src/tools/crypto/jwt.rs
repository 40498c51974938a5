//! JSON Web Tokens (RFC 7519, compact JWS RFC 7515): jwt-decoder and jwt-encoder.

use crate::ctp::{ErrorCode, ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use chrono::{DateTime, SecondsFormat, Utc};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey};
use serde_json::{Map, Value, json};
use std::str::FromStr;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("jwt-decoder", jwt_decoder),
    Tool::new("jwt-encoder", jwt_encoder),
];

/// base64url as RFC 7515 §2 defines it (no padding), tolerating padding some issuers add.
const BASE64URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The registered claims whose value is a NumericDate (RFC 7519 §4.1.4–4.1.6).
const TIME_CLAIMS: [&str; 3] = ["exp", "nbf", "iat"];

fn jwt_decoder(args: &Args) -> ToolOutcome {
    let raw = args.str("token")?.trim();
    let token = strip_bearer(raw);
    let parts: Vec<&str> = token.split('.').collect();
    match parts.len() {
        3 => {}
        5 => {
            return Err(ToolError::invalid(
                "the token has 5 parts, so it is an encrypted JWE (RFC 7516); only signed tokens (JWS, 3 parts) can be decoded without the decryption key",
            ));
        }
        n => {
            return Err(ToolError::invalid(format!(
                "a JWT has 3 parts separated by '.' (header.payload.signature), but this token has {n}"
            )));
        }
    }
    let header = decode_json_part(parts[0], "header (part 1)")?;
    let payload = decode_json_part(parts[1], "payload (part 2)")?;
    let signature = parts[2];
    BASE64URL.decode(signature).map_err(|e| {
        ToolError::invalid(format!("signature (part 3) is not valid base64url: {e}"))
    })?;
    let algorithm = header.get("alg").and_then(Value::as_str);

    let mut out = json!({
        "header": header,
        "payload": payload,
        "signature": signature,
        "algorithm": algorithm,
    });
    let mut dates = Map::new();
    for claim in TIME_CLAIMS {
        if let Some(iso) = payload.get(claim).and_then(numeric_date) {
            dates.insert(claim.to_string(), Value::String(iso));
        }
    }
    if !dates.is_empty() {
        out["dates"] = Value::Object(dates);
    }
    let now = Utc::now().timestamp() as f64;
    if let Some(exp) = payload.get("exp").and_then(Value::as_f64) {
        out["expired"] = Value::Bool(now >= exp);
    }
    if let Some(nbf) = payload.get("nbf").and_then(Value::as_f64) {
        out["notYetValid"] = Value::Bool(now < nbf);
    }
    let signing_input = &token[..parts[0].len() + 1 + parts[1].len()];
    if let Some(valid) = verify(args, algorithm, signing_input, signature)? {
        out["signatureValid"] = Value::Bool(valid);
    }
    Ok(out)
}

fn strip_bearer(token: &str) -> &str {
    match token.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case("bearer ") => token[7..].trim_start(),
        _ => token,
    }
}

fn decode_json_part(part: &str, what: &str) -> Result<Map<String, Value>, ToolError> {
    let bytes = BASE64URL.decode(part).map_err(|e| {
        let hint = if part.contains(['+', '/']) {
            " ('+' and '/' belong to standard Base64; JWTs use '-' and '_')"
        } else {
            ""
        };
        ToolError::invalid(format!("{what} is not valid base64url: {e}{hint}"))
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        ToolError::invalid(format!("{what} is not valid JSON: it is not UTF-8 ({e})"))
    })?;
    let value = crate::tools::json::parse_value(text)
        .map_err(|e| ToolError::invalid(format!("{what} is not valid JSON: {}", e.message)))?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(ToolError::invalid(format!(
            "{what} must be a JSON object, but it is {}",
            crate::text::preview(&other.to_string(), 40)
        ))),
    }
}

/// A NumericDate (seconds since the epoch, possibly fractional) as ISO 8601 UTC.
fn numeric_date(value: &Value) -> Option<String> {
    let secs = value.as_f64()?;
    let whole = secs.floor();
    let nanos = ((secs - whole) * 1e9).round().min(999_999_999.0) as u32;
    if !whole.is_finite() || whole.abs() > 1e15 {
        return None;
    }
    DateTime::<Utc>::from_timestamp(whole as i64, nanos)
        .map(|d| d.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// The secret (HS*) or PEM key (others) for `alg`, refusing the other kind of key so an RSA
/// public key can never be used as an HMAC secret (the classic algorithm-confusion attack).
enum KeyMaterial<'a> {
    Secret(Vec<u8>),
    Pem(&'a str),
}

fn key_material<'a>(
    args: &'a Args,
    alg: Algorithm,
    pem_param: &str,
) -> Result<Option<KeyMaterial<'a>>, ToolError> {
    let secret = args.opt_str("secret");
    let pem = args.opt_str(pem_param);
    if alg.family() == AlgorithmFamily::Hmac {
        if let Some(s) = secret {
            let bytes = match args.str("secretEncoding")? {
                "base64" => decode_base64_param("secret", s)?,
                _ => s.as_bytes().to_vec(),
            };
            return Ok(Some(KeyMaterial::Secret(bytes)));
        }
        if pem.is_some() {
            return Err(ToolError::invalid(format!(
                "{alg:?} uses a shared secret: give 'secret', not '{pem_param}'"
            )));
        }
        return Ok(None);
    }
    if let Some(p) = pem {
        return Ok(Some(KeyMaterial::Pem(p)));
    }
    if secret.is_some() {
        return Err(ToolError::invalid(format!(
            "{alg:?} uses a key pair: give '{pem_param}' as PEM, not 'secret'"
        )));
    }
    Ok(None)
}

fn family_name(family: AlgorithmFamily) -> &'static str {
    match family {
        AlgorithmFamily::Hmac => "HMAC",
        AlgorithmFamily::Rsa => "RSA",
        AlgorithmFamily::Ec => "EC (PKCS#8)",
        AlgorithmFamily::Ed => "Ed25519",
    }
}

fn parse_alg(name: &str) -> Result<Algorithm, ToolError> {
    Algorithm::from_str(name).map_err(|_| {
        ToolError::invalid(format!(
            "algorithm '{}' is not supported; use one of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA",
            crate::text::preview(name, 20)
        ))
    })
}

/// Checks the signature when a secret or public key was given; `None` when none was.
fn verify(
    args: &Args,
    alg_name: Option<&str>,
    signing_input: &str,
    signature: &str,
) -> Result<Option<bool>, ToolError> {
    if !args.has("secret") && !args.has("publicKey") {
        return Ok(None);
    }
    // An unsigned token (alg "none" or no alg) never verifies.
    let Some(name) = alg_name.filter(|n| !n.eq_ignore_ascii_case("none")) else {
        return Ok(Some(false));
    };
    let alg = parse_alg(name)?;
    let key = match key_material(args, alg, "publicKey")? {
        None => return Ok(None),
        Some(KeyMaterial::Secret(bytes)) => DecodingKey::from_secret(&bytes),
        Some(KeyMaterial::Pem(pem)) => {
            let pem = pem.as_bytes();
            match alg.family() {
                AlgorithmFamily::Ec => DecodingKey::from_ec_pem(pem),
                AlgorithmFamily::Ed => DecodingKey::from_ed_pem(pem),
                _ => DecodingKey::from_rsa_pem(pem),
            }
            .map_err(|e| {
                ToolError::invalid(format!(
                    "publicKey is not a PEM {} public key for {alg:?}: {e}",
                    family_name(alg.family())
                ))
            })?
        }
    };
    jsonwebtoken::crypto::verify(signature, signing_input.as_bytes(), &key, alg)
        .map(Some)
        .map_err(|e| ToolError::invalid(format!("publicKey cannot verify {alg:?}: {e}")))
}

fn jwt_encoder(args: &Args) -> ToolOutcome {
    let Value::Object(claims) = args.json("payload")? else {
        return Err(ToolError::invalid(
            "payload must be a JSON object (the JWT claims set, RFC 7519 §4)",
        ));
    };
    let mut payload = claims.clone();
    let alg = parse_alg(args.str("algorithm")?)?;
    let alg_name = args.str("algorithm")?;

    let mut header = Map::new();
    header.insert("alg".into(), Value::String(alg_name.to_string()));
    header.insert("typ".into(), Value::String("JWT".into()));
    if let Some(extra) = args.get("header") {
        let Value::Object(extra) = extra else {
            return Err(ToolError::invalid(
                "header must be a JSON object of extra header parameters, e.g. {\"kid\":\"key-1\"}",
            ));
        };
        for (k, v) in extra {
            match (k.as_str(), v) {
                ("alg", v) if v.as_str() != Some(alg_name) => {
                    return Err(ToolError::invalid(format!(
                        "header sets alg {v} but algorithm is {alg_name}; choose the algorithm with the 'algorithm' parameter"
                    )));
                }
                (_, Value::Null) => {
                    header.shift_remove(k);
                }
                _ => {
                    header.insert(k.clone(), v.clone());
                }
            }
        }
    }

    let now = Utc::now().timestamp();
    if args.flag("addIat") {
        payload.insert("iat".into(), json!(now));
    }
    if let Some(secs) = args.opt_i64("expiresIn") {
        payload.insert("exp".into(), json!(now.saturating_add(secs)));
    }

    let mut warnings = Vec::new();
    let key = match key_material(args, alg, "privateKey")? {
        None => {
            let needed = if alg.family() == AlgorithmFamily::Hmac {
                "'secret'"
            } else {
                "'privateKey' (PEM)"
            };
            return Err(ToolError::new(
                ErrorCode::MissingRequired,
                format!("{alg_name} needs {needed} to sign the token"),
            ));
        }
        Some(KeyMaterial::Secret(bytes)) => {
            let min = hmac_min_key_bytes(alg);
            if bytes.len() < min {
                warnings.push(format!(
                    "the secret is {} byte{}; RFC 7518 §3.2 asks for at least {min} bytes for {alg_name}",
                    bytes.len(),
                    if bytes.len() == 1 { "" } else { "s" }
                ));
            }
            EncodingKey::from_secret(&bytes)
        }
        Some(KeyMaterial::Pem(pem)) => {
            let key = match alg.family() {
                AlgorithmFamily::Ec => EncodingKey::from_ec_pem(pem.as_bytes()),
                AlgorithmFamily::Ed => EncodingKey::from_ed_pem(pem.as_bytes()),
                _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
            }
            .map_err(|e| {
                ToolError::invalid(format!(
                    "privateKey is not a PEM {} private key for {alg_name}: {e}",
                    family_name(alg.family())
                ))
            })?;
            if alg.family() == AlgorithmFamily::Rsa {
                check_rsa_key_size(pem, alg_name)?;
            }
            key
        }
    };

    // Built by hand rather than with jsonwebtoken::encode so the header keeps alg, typ, then
    // the extras, and the payload keeps the caller's key order.
    let encode_part = |map: &Map<String, Value>| {
        serde_json::to_vec(map)
            .map(|bytes| URL_SAFE_NO_PAD.encode(bytes))
            .map_err(|e| ToolError::execution(format!("cannot serialise JSON: {e}")))
    };
    let signing_input = format!("{}.{}", encode_part(&header)?, encode_part(&payload)?);
    let signature = jsonwebtoken::crypto::sign(signing_input.as_bytes(), &key, alg)
        .map_err(|e| ToolError::invalid(format!("cannot sign with {alg_name}: {e}")))?;

    let mut out = json!({
        "output": format!("{signing_input}.{signature}"),
        "header": header,
        "payload": payload,
        "algorithm": alg_name,
    });
    if !warnings.is_empty() {
        out["warnings"] = json!(warnings);
    }
    Ok(out)
}

/// RFC 7518 §3.3 (RS*) and §3.5 (PS*): "A key of size 2048 bits or larger MUST be used". A
/// smaller key is refused, not warned about: a token signed with it is weak for as long as it
/// is trusted. `pem` has already been read as an RSA key by jsonwebtoken, which does not tell
/// the size, so the modulus is read again here.
fn check_rsa_key_size(pem: &str, alg_name: &str) -> Result<(), ToolError> {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs8::DecodePrivateKey;
    use rsa::traits::PublicKeyParts;
    let block = pem::parse(pem.trim())
        .map_err(|e| ToolError::invalid(format!("privateKey is not PEM: {e}")))?;
    let key = match block.tag() {
        "RSA PRIVATE KEY" => {
            rsa::RsaPrivateKey::from_pkcs1_der(block.contents()).map_err(|e| e.to_string())
        }
        _ => rsa::RsaPrivateKey::from_pkcs8_der(block.contents()).map_err(|e| e.to_string()),
    }
    .map_err(|e| {
        ToolError::invalid(format!(
            "privateKey is not a PEM RSA private key for {alg_name}: {e}"
        ))
    })?;
    let bits = key.n().bits();
    if bits < 2048 {
        let section = if alg_name.starts_with("PS") {
            "3.5"
        } else {
            "3.3"
        };
        return Err(ToolError::invalid(format!(
            "privateKey is a {bits}-bit RSA key; RFC 7518 §{section} requires a key of 2048 bits or larger for {alg_name}"
        )));
    }
    Ok(())
}

/// RFC 7518 §3.2: an HMAC key at least as long as the hash output.
fn hmac_min_key_bytes(alg: Algorithm) -> usize {
    match alg {
        Algorithm::HS384 => 48,
        Algorithm::HS512 => 64,
        _ => 32,
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use jsonwebtoken::{Algorithm, DecodingKey, Validation};
    use serde_json::{Value, json};

    const JWT_IO: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    // RFC 7519 §3.1 example token, signed with the RFC 7515 Appendix A.1 HMAC key.
    const RFC7519: &str = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const RFC7515_A1_KEY: &str =
        "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";

    // Test keys made with `openssl genpkey` for these tests only.
    const RSA_PRIVATE: &str = "-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCYZlWbg9K9Pq1Y
fVPtd3hNNy6iA6Dn0I4gi0QoSKHVLygG3n9+NcBzm/1roMyW9yU+rBfej/BxGD5v
cAa80S3oG3FXryr5Z0Nq70hTbAtsqjeYWHASIx8+bBpKAvrcd5q1tsXg7zYkD5XV
93shxsKDooC5EibtQxIjGhmB2kTmqYWIYpfU3IIDe77Sm6q9w3Y7l1ZxmVTSYtpa
kvW87/gUveWXXzRo9XZnw++UlUaA6laF5t8EF4N+RMC73bBwbirHP/Nu+fmoJJCV
X27kAkNRtAOc1lNo8JA3EBmjlweQ6g7lEAu7DLRAjMM5xm21/HKC2P/XT+TBL4cu
YqIVSLGzAgMBAAECggEAHshQ01wxlWsTDXQnHyiKAqK6RxxPhHNiOd2Xc0GUeqCP
R6/qdZ461L811WcB3B5ohfuxyJEvYlCgz9aDbeEckiz03F6z4fODMRbK95qzxgut
thZq8KbqeSvRtZBbhmucMscLug7nUypYvALEesKQaJFKydcKSNNK1w8/BrUFRMe6
B26QIsmLcQL/0FQbvqZnEi6VrDg5+/mJfpCMH3UZnqa9bzLP0iRY3Dl8/u3ZweVc
hdU76Duvgar2nX7tTBAz24G32hd69MG0btUCWI/1ltOZxIJ8rGteOWEljo67Rm9e
nY6qV0XKkz8CeIhsT8YPunmvRIcbTBE0GmUfaaVpvQKBgQDTiUZklLH71/NKCUED
/zcMFcT0mL+7AKpdkaQH3Fv/1k516BJOT+usW5C8rI53bQ0VGEsqpp1KJ/4YJAaV
hNf7ejeHCcFTl1MI5/q3MYO/CJZytVWoZmBslWLUH2uyVT/4qJnhcUYNLJNEgqIp
wPrQVUB9Nz+8huylk+su6tD2zQKBgQC4bu+myOOr12FqBJ62qj1cuY8fvZCLOVuh
v9pUXTueNNEdq1TE+JMRLNPrx3P5VBsrw8SmdgbI7BiHkpRIgxuTuWq3dCd8AiqD
xScKxDtZdqoyiZtaLznEuHrikHkUNk4A1E5ULXsAXY7OpIUvlGGrwobtKOEZXLks
tFj0u2NKfwKBgBf4HBPVjX1d8OFYvxc22gPyi4izrjYAU02a7R0+6OXKYMWXcEuT
Xr7++R2H5/S8VJkpUYsZqgT3FyGhI2XZ0adbJ+OTRWa1ZOFDd/M+FxGUZYfF6FjW
kOJ84t/qV4ezhTYl1Jno/ekMPfurWbild0YYAuCtW/l+yF3Srvl3/gmZAoGAXaoh
VV+imEvKsi/kdrogba3jLOh1tu8LRSsM81liBKeoJ9wyMdJXxhoxCgYCNPZs0h4b
CbrZGUMl9fwQCH9lCvHYa5C22Li05LTEbihYR8gHCaFu3y8qtGhIKDXc99HYbX1k
xkVOuVHKS9Grvg0qSTOCmIDxSJMZi8WPg8KC23sCgYAEJk4KImxzIR+BmOCfTWyp
nCz9yCXHD/boIceQAlvRay+q+tXwlR/j4QYrYcbrJroU2UE+hQzuKBlB03Kq1vpH
bo6qgFpgQtzPlWpSm/dF/+aw+rKwMk8XrDgO+rS/AKqwK8MKYEXW3l5ZSxpRS2IH
g4WTkZEo6jyk0OoITwFe4g==
-----END PRIVATE KEY-----
";
    const RSA_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAmGZVm4PSvT6tWH1T7Xd4
TTcuogOg59COIItEKEih1S8oBt5/fjXAc5v9a6DMlvclPqwX3o/wcRg+b3AGvNEt
6BtxV68q+WdDau9IU2wLbKo3mFhwEiMfPmwaSgL63HeatbbF4O82JA+V1fd7IcbC
g6KAuRIm7UMSIxoZgdpE5qmFiGKX1NyCA3u+0puqvcN2O5dWcZlU0mLaWpL1vO/4
FL3ll180aPV2Z8PvlJVGgOpWhebfBBeDfkTAu92wcG4qxz/zbvn5qCSQlV9u5AJD
UbQDnNZTaPCQNxAZo5cHkOoO5RALuwy0QIzDOcZttfxygtj/10/kwS+HLmKiFUix
swIDAQAB
-----END PUBLIC KEY-----
";
    const EC_PRIVATE: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRcDOwktdIg2DoJPt
7LPLd0x6mTdD7/Bvp2GVdxcTGYOhRANCAAR3y/GwpGqO1KmYN09m3tLZT4s50bYu
30D8yliEVugoxL8DauAdqaGUhxaRV5mKijT42nEE1eZF/ZQw2rNtaH0C
-----END PRIVATE KEY-----
";
    const EC_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEd8vxsKRqjtSpmDdPZt7S2U+LOdG2
Lt9A/MpYhFboKMS/A2rgHamhlIcWkVeZioo0+NpxBNXmRf2UMNqzbWh9Ag==
-----END PUBLIC KEY-----
";
    const ED_PRIVATE: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIKBKSuR9HgNwiGMQs/P1JBt7n0Hsn7VLL+BXsfelGb+I
-----END PRIVATE KEY-----
";
    const ED_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEApYQKriqntXiHfDGaIpzZ8h2cyxSWTCfkgPvcedk09Ps=
-----END PUBLIC KEY-----
";

    // `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024`, and the same key as
    // PKCS#1 (`openssl rsa -traditional`): too small for RS*/PS* (RFC 7518 §3.3, §3.5).
    const RSA_1024_PKCS8: &str = "-----BEGIN PRIVATE KEY-----
MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAMPG7eMUMMzN0wLj
wIlBP5cp5k6UDT1KftBgTozL3DgY/JiMmZahg/pStKkJ1zs1QaWDkOa6SoHc9jV0
098TUGNGY+vYetxevrZufN6U7jBlXgvn9fBmlxxKNvJjD3ZIMnkl9NEHX/s1CD0J
86pSqGvN3nKXnoQJrc/30YcN5DKDAgMBAAECgYBl7ospMff+iiOVW5OBYxGC2PPq
cbc69DB2uc3sDLBKHOhXXM0S2mFm0ezyHgeL8jyNuqSVHOVyG+OtDXjKqrmtLXdy
I7zuYZhPhFok6vDIUksN/4EbRG3agGXq4KyUOZQPxKeBAiu91FfhJf4Qm5TwtU7n
0AcFKF7ba93p60e5AQJBAOBLAOcKJDWVlzRv6wvQbNTGnizJqwlv3oIwI24zFtbA
0BbzXxtjlHyh9jNpd5/Zp/gRwR5AWY3+vT2M4v7vRsMCQQDfc/S3rZf8dKI69BQa
cReVqvpaiFXyp46Uz7sGgsGem1lgdUk3OvT/NdB+pYSCHrHAld8kaxs6RuzVqD7b
GilBAkALSltCRhVqiRwybIvVbWl9EH533LL6Z6I4xXmTG4lDyDLxZNDdzRZ1a6W8
EswNxOQarbId9rlLV45pIcVvddYHAkEAnCiFFPgUBzHbTifVBMWUHdxnKW2t4u6G
Dik+IsauWRFn3KkaiaaCIPiSxG8Xs3eP8W7Lir/vP0LhsE7r3mLiAQJAEJI4ucfY
YT1LaIeWpMpA4lkoXDg4LnnCjgft4361GwIikaaO42+7EMzwHhTagaFlNAs21LoS
mto3JiAN5BGhZw==
-----END PRIVATE KEY-----
";
    const RSA_1024_PKCS1: &str = "-----BEGIN RSA PRIVATE KEY-----
MIICXAIBAAKBgQDDxu3jFDDMzdMC48CJQT+XKeZOlA09Sn7QYE6My9w4GPyYjJmW
oYP6UrSpCdc7NUGlg5DmukqB3PY1dNPfE1BjRmPr2HrcXr62bnzelO4wZV4L5/Xw
ZpccSjbyYw92SDJ5JfTRB1/7NQg9CfOqUqhrzd5yl56ECa3P99GHDeQygwIDAQAB
AoGAZe6LKTH3/oojlVuTgWMRgtjz6nG3OvQwdrnN7AywShzoV1zNEtphZtHs8h4H
i/I8jbqklRzlchvjrQ14yqq5rS13ciO87mGYT4RaJOrwyFJLDf+BG0Rt2oBl6uCs
lDmUD8SngQIrvdRX4SX+EJuU8LVO59AHBShe22vd6etHuQECQQDgSwDnCiQ1lZc0
b+sL0GzUxp4syasJb96CMCNuMxbWwNAW818bY5R8ofYzaXef2af4EcEeQFmN/r09
jOL+70bDAkEA33P0t62X/HSiOvQUGnEXlar6WohV8qeOlM+7BoLBnptZYHVJNzr0
/zXQfqWEgh6xwJXfJGsbOkbs1ag+2xopQQJAC0pbQkYVaokcMmyL1W1pfRB+d9yy
+meiOMV5kxuJQ8gy8WTQ3c0WdWulvBLMDcTkGq2yHfa5S1eOaSHFb3XWBwJBAJwo
hRT4FAcx204n1QTFlB3cZyltreLuhg4pPiLGrlkRZ9ypGommgiD4ksRvF7N3j/Fu
y4q/7z9C4bBO695i4gECQBCSOLnH2GE9S2iHlqTKQOJZKFw4OC55wo4H7eN+tRsC
IpGmjuNvuxDM8B4U2oGhZTQLNtS6EpraNyYgDeQRoWc=
-----END RSA PRIVATE KEY-----
";

    fn jwt_io_payload() -> Value {
        json!({"sub": "1234567890", "name": "John Doe", "iat": 1516239022})
    }

    #[test]
    fn decodes_the_jwt_io_example() {
        let data = run_ok(
            "jwt-decoder",
            json!({"token": format!("Bearer {JWT_IO}"), "secret": "your-256-bit-secret"}),
        );
        assert_eq!(data["header"], json!({"alg": "HS256", "typ": "JWT"}));
        assert_eq!(data["payload"], jwt_io_payload());
        assert_eq!(data["algorithm"], "HS256");
        assert_eq!(
            data["signature"],
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        );
        assert_eq!(data["dates"], json!({"iat": "2018-01-18T01:30:22Z"}));
        assert!(data.get("expired").is_none());
        assert_eq!(data["signatureValid"], true);
        let wrong = run_ok(
            "jwt-decoder",
            json!({"token": JWT_IO, "secret": "not-the-secret"}),
        );
        assert_eq!(wrong["signatureValid"], false);
    }

    #[test]
    fn decodes_and_verifies_the_rfc7519_example() {
        let data = run_ok(
            "jwt-decoder",
            json!({"token": RFC7519, "secret": RFC7515_A1_KEY, "secretEncoding": "base64"}),
        );
        assert_eq!(
            data["payload"],
            json!({"iss": "joe", "exp": 1300819380, "http://example.com/is_root": true})
        );
        assert_eq!(data["header"], json!({"typ": "JWT", "alg": "HS256"}));
        assert_eq!(data["dates"]["exp"], "2011-03-22T18:43:00Z");
        assert_eq!(data["expired"], true);
        assert_eq!(data["signatureValid"], true);
    }

    #[test]
    fn malformed_tokens_name_the_part_at_fault() {
        let cases = [
            ("abc.def", "has 2"),
            ("a.b.c.d.e", "encrypted JWE"),
            (
                "eyJhbGciOiJIUzI1NiJ9.e$$.sig",
                "payload (part 2) is not valid base64url",
            ),
            ("bm90IGpzb24.e30.", "header (part 1) is not valid JSON"),
            ("WzFd.e30.", "header (part 1) must be a JSON object"),
            ("e30.e30.a*b", "signature (part 3) is not valid base64url"),
        ];
        for (token, expected) in cases {
            let (code, msg) = run_err("jwt-decoder", json!({"token": token}));
            assert_eq!(code, ErrorCode::InvalidInput, "{token}");
            assert!(msg.contains(expected), "{token}: {msg}");
        }
    }

    #[test]
    fn refuses_a_public_key_for_an_hmac_token() {
        let (code, msg) = run_err(
            "jwt-decoder",
            json!({"token": JWT_IO, "publicKey": RSA_PUBLIC}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("give 'secret', not 'publicKey'"), "{msg}");
    }

    #[test]
    fn encodes_the_jwt_io_example_exactly() {
        let data = run_ok(
            "jwt-encoder",
            json!({"payload": jwt_io_payload(), "secret": "your-256-bit-secret"}),
        );
        assert_eq!(data["output"], JWT_IO);
        assert_eq!(data["warnings"].as_array().unwrap().len(), 1);
        // The same payload given as JSON text keeps its key order too.
        let text = run_ok(
            "jwt-encoder",
            json!({
                "payload": r#"{"sub":"1234567890","name":"John Doe","iat":1516239022}"#,
                "secret": "your-256-bit-secret",
            }),
        );
        assert_eq!(text["output"], JWT_IO);
    }

    #[test]
    fn encoded_hs512_is_accepted_by_decoder_and_jsonwebtoken() {
        let secret = "a-long-enough-secret-for-hs512-a-long-enough-secret-for-hs512!!!";
        let data = run_ok(
            "jwt-encoder",
            json!({
                "payload": {"sub": "42", "role": "admin"},
                "algorithm": "HS512",
                "secret": secret,
                "header": {"kid": "key-1"},
                "addIat": true,
                "expiresIn": 3600,
            }),
        );
        assert!(data.get("warnings").is_none());
        let token = data["output"].as_str().unwrap();
        let header: Vec<&str> = data["header"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(header, ["alg", "typ", "kid"]);
        let iat = data["payload"]["iat"].as_i64().unwrap();
        assert_eq!(data["payload"]["exp"].as_i64().unwrap(), iat + 3600);

        let decoded = run_ok("jwt-decoder", json!({"token": token, "secret": secret}));
        assert_eq!(decoded["signatureValid"], true);
        assert_eq!(decoded["expired"], false);
        assert_eq!(decoded["header"]["kid"], "key-1");

        let lib = jsonwebtoken::decode::<Value>(
            token,
            &DecodingKey::from_secret(secret.as_bytes()),
            &Validation::new(Algorithm::HS512),
        )
        .unwrap();
        assert_eq!(lib.claims["role"], "admin");
    }

    // The expected token was signed independently with
    // `openssl dgst -sha256 -sign key.pem` over the same signing input.
    #[test]
    fn rs256_matches_openssl_and_verifies() {
        let data = run_ok(
            "jwt-encoder",
            json!({"payload": jwt_io_payload(), "algorithm": "RS256", "privateKey": RSA_PRIVATE}),
        );
        let token = data["output"].as_str().unwrap();
        assert_eq!(
            token,
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.l-ihDr1QF1Kp-GtBB9FJ6QBXUPMlM4ooPrwPk_NiOZBA57o5fsI1z_k-daHD7N58baxdc9D0CMv2Eby1DsFObnCl0cgwzmvOUj8YSSoGolcATrEV3KNjsNvnu7tItJFXVgrWptod0Wz9HHHvnLoVUuANGoOVERQKLqh97Qw1AWukCQ6qU6GF3DuvE0t_N5nekqNhrehGSnSZe2oQBMwY7hQXuJB5R655VtaBZmLylTwIh9JOQZ7ySwHDdXtoJBA5WbIuAypj-fxSivva197fMULDSdA8NKBCuQDplC9C6EzAzVq7sJSKDfRYjwtmZwpYaJi0_CZf0V_W_gtWH5KjwQ"
        );
        let decoded = run_ok(
            "jwt-decoder",
            json!({"token": token, "publicKey": RSA_PUBLIC}),
        );
        assert_eq!(decoded["signatureValid"], true);
        let mut validation = Validation::new(Algorithm::RS256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let key = DecodingKey::from_rsa_pem(RSA_PUBLIC.as_bytes()).unwrap();
        let lib = jsonwebtoken::decode::<Value>(token, &key, &validation).unwrap();
        assert_eq!(lib.claims, jwt_io_payload());
    }

    // Ed25519 signatures are deterministic (RFC 8032), so openssl's `pkeyutl -sign` gives the
    // same token; ECDSA is randomised, so ES256 is checked by verification only.
    #[test]
    fn eddsa_and_es256_round_trip() {
        let ed = run_ok(
            "jwt-encoder",
            json!({"payload": jwt_io_payload(), "algorithm": "EdDSA", "privateKey": ED_PRIVATE}),
        );
        assert_eq!(
            ed["output"],
            "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.DD2IyZmA-eR6khBN67qd8-8-2Nj0FpnlUn2ltwhTrnZ2msL7z8klOOdlZ3efhyKlDBIHMLFdY6NBtJw1p95UDw"
        );
        let ok = run_ok(
            "jwt-decoder",
            json!({"token": ed["output"], "publicKey": ED_PUBLIC}),
        );
        assert_eq!(ok["signatureValid"], true);

        let es = run_ok(
            "jwt-encoder",
            json!({"payload": {"sub": "x"}, "algorithm": "ES256", "privateKey": EC_PRIVATE}),
        );
        let ok = run_ok(
            "jwt-decoder",
            json!({"token": es["output"], "publicKey": EC_PUBLIC}),
        );
        assert_eq!(ok["signatureValid"], true);
        // A token whose payload was altered after signing must fail.
        let token = es["output"].as_str().unwrap();
        let parts: Vec<&str> = token.split('.').collect();
        let forged = format!("{}.eyJzdWIiOiJ5In0.{}", parts[0], parts[2]);
        let bad = run_ok(
            "jwt-decoder",
            json!({"token": forged, "publicKey": EC_PUBLIC}),
        );
        assert_eq!(bad["signatureValid"], false);
    }

    #[test]
    fn refuses_rsa_keys_under_2048_bits() {
        for (alg, key, section) in [
            ("RS256", RSA_1024_PKCS8, "§3.3"),
            ("RS512", RSA_1024_PKCS1, "§3.3"),
            ("PS256", RSA_1024_PKCS8, "§3.5"),
            ("PS384", RSA_1024_PKCS1, "§3.5"),
        ] {
            let (code, msg) = run_err(
                "jwt-encoder",
                json!({"payload": jwt_io_payload(), "algorithm": alg, "privateKey": key}),
            );
            assert_eq!(code, ErrorCode::InvalidInput, "{alg}");
            assert_eq!(
                msg,
                format!(
                    "privateKey is a 1024-bit RSA key; RFC 7518 {section} requires a key of 2048 bits or larger for {alg}"
                )
            );
        }
        // The 2048-bit key signs with every RSA algorithm.
        for alg in ["RS384", "PS256", "PS512"] {
            let data = run_ok(
                "jwt-encoder",
                json!({"payload": {"sub": "x"}, "algorithm": alg, "privateKey": RSA_PRIVATE}),
            );
            let ok = run_ok(
                "jwt-decoder",
                json!({"token": data["output"], "publicKey": RSA_PUBLIC}),
            );
            assert_eq!(ok["signatureValid"], true, "{alg}");
        }
    }

    #[test]
    fn encoder_errors() {
        let (code, msg) = run_err("jwt-encoder", json!({"payload": {"a": 1}}));
        assert_eq!(code, ErrorCode::MissingRequired);
        assert!(msg.contains("HS256 needs 'secret'"), "{msg}");
        let (code, msg) = run_err("jwt-encoder", json!({"payload": [1, 2], "secret": "s"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("payload must be a JSON object"), "{msg}");
        let (code, msg) = run_err(
            "jwt-encoder",
            json!({"payload": {}, "algorithm": "RS256", "privateKey": "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("privateKey is not a PEM RSA private key"),
            "{msg}"
        );
        let (code, msg) = run_err(
            "jwt-encoder",
            json!({"payload": {}, "secret": "s", "header": {"alg": "none"}}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("header sets alg"), "{msg}");
    }
}
