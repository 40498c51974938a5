//! X.509 inspection: certificate-decoder (certificates, RFC 5280, and PKCS#10 requests, RFC 2986).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use chrono::{DateTime, SecondsFormat, Utc};
use digest::Digest;
use num_bigint::BigUint;
use serde_json::{Map, Value, json};
use std::net::IpAddr;
use x509_parser::certification_request::X509CertificationRequest;
use x509_parser::cri_attributes::ParsedCriAttribute;
use x509_parser::extensions::{
    ExtendedKeyUsage, GeneralName, KeyUsage, ParsedExtension, X509Extension,
};
use x509_parser::objects::{oid_registry, oid2sn};
use x509_parser::oid_registry::Oid;
use x509_parser::prelude::{FromDer, X509Certificate};
use x509_parser::public_key::PublicKey;
use x509_parser::time::ASN1Time;
use x509_parser::x509::SubjectPublicKeyInfo;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("certificate-decoder", certificate_decoder)];

/// PEM labels that carry a certificate (RFC 7468 §5, plus OpenSSL's trusted variant).
const CERT_LABELS: &[&str] = &["CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE"];
/// PEM labels that carry a PKCS#10 request (RFC 7468 §7, and the legacy Netscape label).
const CSR_LABELS: &[&str] = &["CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST"];

fn certificate_decoder(args: &Args) -> ToolOutcome {
    let input = args.str("input")?.trim();
    if input.is_empty() {
        return Err(ToolError::invalid(
            "the input is empty: paste a PEM certificate (-----BEGIN CERTIFICATE-----) or Base64 DER",
        ));
    }
    let now = ASN1Time::now();
    let mut items = Vec::new();
    let mut ignored = Vec::new();
    if input.contains("-----BEGIN") {
        let blocks = pem::parse_many(input)
            .map_err(|e| ToolError::invalid(format!("the PEM text could not be read: {e}")))?;
        if blocks.is_empty() {
            return Err(ToolError::invalid(
                "no complete PEM block found: each block needs matching -----BEGIN …----- and -----END …----- lines",
            ));
        }
        for (n, block) in blocks.iter().enumerate() {
            let label = block.tag();
            let position = format!("PEM block {} ({label})", n + 1);
            if CERT_LABELS.contains(&label) {
                items.push(decode_certificate(block.contents(), now, &position)?);
            } else if CSR_LABELS.contains(&label) {
                items.push(decode_request(block.contents(), &position)?);
            } else {
                ignored.push(Value::String(label.to_string()));
            }
        }
        if items.is_empty() {
            return Err(ToolError::invalid(format!(
                "the PEM input holds no certificate or certificate request, only: {}",
                ignored
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    } else {
        let der = decode_base64_param("input", input).map_err(|_| {
            ToolError::invalid(
                "the input is neither PEM (-----BEGIN CERTIFICATE-----) nor Base64-encoded DER",
            )
        })?;
        let item = if X509Certificate::from_der(&der).is_ok() {
            decode_certificate(&der, now, "the DER input")?
        } else if X509CertificationRequest::from_der(&der).is_ok() {
            decode_request(&der, "the DER input")?
        } else {
            return Err(ToolError::invalid(
                "the Base64 input decodes to bytes that are not a DER X.509 certificate or PKCS#10 certificate request",
            ));
        };
        items.push(item);
    }
    Ok(json!({
        "count": items.len(),
        "certificates": items,
        "ignoredBlocks": ignored,
    }))
}

fn decode_certificate(der: &[u8], now: ASN1Time, position: &str) -> Result<Value, ToolError> {
    let (rest, cert) = X509Certificate::from_der(der).map_err(|e| {
        ToolError::invalid(format!("{position} is not a valid X.509 certificate: {e}"))
    })?;
    if !rest.is_empty() {
        return Err(ToolError::invalid(format!(
            "{position} has {} bytes of trailing data after the certificate",
            rest.len()
        )));
    }
    let tbs = &cert.tbs_certificate;
    let validity = &tbs.validity;
    let (not_before, not_after) = (validity.not_before, validity.not_after);
    let mut out = Map::new();
    out.insert("type".into(), json!("certificate"));
    out.insert("version".into(), json!(tbs.version.0.saturating_add(1)));
    out.insert("subject".into(), json!(tbs.subject.to_string()));
    out.insert("issuer".into(), json!(tbs.issuer.to_string()));
    out.insert("selfIssued".into(), json!(tbs.subject == tbs.issuer));
    // DER prefixes a zero byte to keep a serial with its top bit set positive; drop it.
    let raw = tbs.raw_serial();
    let first = raw
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(raw.len().saturating_sub(1));
    out.insert("serialNumber".into(), json!(hex::encode(&raw[first..])));
    out.insert(
        "serialNumberDecimal".into(),
        json!(BigUint::from_bytes_be(raw).to_string()),
    );
    out.insert("notBefore".into(), json!(iso8601(not_before)));
    out.insert("notAfter".into(), json!(iso8601(not_after)));
    out.insert(
        "validityDays".into(),
        json!((not_after.timestamp() - not_before.timestamp()) / 86_400),
    );
    out.insert("expired".into(), json!(now > not_after));
    out.insert("notYetValid".into(), json!(now < not_before));
    out.insert("publicKey".into(), public_key(&tbs.subject_pki));
    out.insert(
        "signatureAlgorithm".into(),
        json!(oid_name(&cert.signature_algorithm.algorithm)),
    );
    describe_extensions(tbs.extensions(), &mut out);
    out.insert("fingerprints".into(), fingerprints(der));
    Ok(Value::Object(out))
}

fn decode_request(der: &[u8], position: &str) -> Result<Value, ToolError> {
    let (rest, csr) = X509CertificationRequest::from_der(der).map_err(|e| {
        ToolError::invalid(format!(
            "{position} is not a valid PKCS#10 certificate request: {e}"
        ))
    })?;
    if !rest.is_empty() {
        return Err(ToolError::invalid(format!(
            "{position} has {} bytes of trailing data after the certificate request",
            rest.len()
        )));
    }
    let info = &csr.certification_request_info;
    let mut out = Map::new();
    out.insert("type".into(), json!("certificateRequest"));
    out.insert("version".into(), json!(info.version.0.saturating_add(1)));
    out.insert("subject".into(), json!(info.subject.to_string()));
    out.insert("publicKey".into(), public_key(&info.subject_pki));
    out.insert(
        "signatureAlgorithm".into(),
        json!(oid_name(&csr.signature_algorithm.algorithm)),
    );
    let requested: &[X509Extension] = info
        .iter_attributes()
        .find_map(|attr| match attr.parsed_attribute() {
            ParsedCriAttribute::ExtensionRequest(req) => Some(req.extensions.as_slice()),
            _ => None,
        })
        .unwrap_or(&[]);
    describe_extensions(requested, &mut out);
    out.insert("fingerprints".into(), fingerprints(der));
    Ok(Value::Object(out))
}

fn iso8601(t: ASN1Time) -> String {
    DateTime::<Utc>::from_timestamp(t.timestamp(), 0)
        .map(|d| d.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_else(|| t.to_string())
}

/// The registry's short name for an OID (`sha256WithRSAEncryption`), or its dotted form.
fn oid_name(oid: &Oid) -> String {
    oid2sn(oid, oid_registry()).map_or_else(
        |_| crate::tools::crypto::oid::dotted_of(oid),
        str::to_string,
    )
}

fn public_key(spki: &SubjectPublicKeyInfo) -> Value {
    let alg = &spki.algorithm.algorithm;
    let name = oid_name(alg);
    let mut key = Map::new();
    match spki.parsed() {
        Ok(PublicKey::RSA(rsa)) => {
            key.insert("algorithm".into(), json!("RSA"));
            let significant = rsa.modulus.iter().skip_while(|b| **b == 0).count();
            let bits = rsa
                .modulus
                .iter()
                .find(|b| **b != 0)
                .map_or(0, |top| significant * 8 - top.leading_zeros() as usize);
            key.insert("size".into(), json!(bits));
            if let Ok(e) = rsa.try_exponent() {
                key.insert("exponent".into(), json!(e));
            }
        }
        Ok(PublicKey::EC(point)) => {
            key.insert("algorithm".into(), json!("EC"));
            key.insert("size".into(), json!(point.key_size()));
            let curve = spki
                .algorithm
                .parameters
                .as_ref()
                .and_then(|p| p.as_oid().ok());
            if let Some(curve) = curve {
                let sn = oid_name(&curve);
                let nist = match sn.as_str() {
                    "prime256v1" => "P-256",
                    "secp384r1" => "P-384",
                    "secp521r1" => "P-521",
                    other => other,
                };
                key.insert("curve".into(), json!(nist));
            }
        }
        Ok(PublicKey::DSA(y)) => {
            key.insert("algorithm".into(), json!("DSA"));
            key.insert("size".into(), json!(y.len() * 8));
        }
        Ok(PublicKey::Unknown(raw)) if name == "ed25519" || name == "ed448" => {
            key.insert(
                "algorithm".into(),
                json!(if name == "ed25519" {
                    "Ed25519"
                } else {
                    "Ed448"
                }),
            );
            key.insert(
                "size".into(),
                json!(if name == "ed25519" { 256 } else { 456 }),
            );
            key.insert("publicKey".into(), json!(hex::encode(raw)));
        }
        _ => {
            key.insert("algorithm".into(), json!(name));
        }
    }
    key.insert(
        "oid".into(),
        json!(crate::tools::crypto::oid::dotted_of(alg)),
    );
    Value::Object(key)
}

/// SANs in OpenSSL's `x509 -text` notation (`DNS:…`, `IP:…`, `email:…`, `URI:…`).
fn general_name(name: &GeneralName) -> String {
    match name {
        GeneralName::DNSName(s) => format!("DNS:{s}"),
        GeneralName::RFC822Name(s) => format!("email:{s}"),
        GeneralName::URI(s) => format!("URI:{s}"),
        GeneralName::IPAddress(bytes) => {
            let ip = match bytes.len() {
                4 => <[u8; 4]>::try_from(*bytes).ok().map(IpAddr::from),
                16 => <[u8; 16]>::try_from(*bytes).ok().map(IpAddr::from),
                _ => None,
            };
            ip.map_or_else(
                || format!("IP:{}", hex::encode(bytes)),
                |ip| format!("IP:{ip}"),
            )
        }
        GeneralName::DirectoryName(dn) => format!("DirName:{dn}"),
        GeneralName::RegisteredID(oid) => {
            format!("RID:{}", crate::tools::crypto::oid::dotted_of(oid))
        }
        GeneralName::OtherName(oid, _) => format!("othername:{}", oid_name(oid)),
        other => other.to_string(),
    }
}

/// Key usage bits by their RFC 5280 §4.2.1.3 names, in bit order.
fn key_usage(ku: &KeyUsage) -> Vec<&'static str> {
    [
        (ku.digital_signature(), "digitalSignature"),
        (ku.non_repudiation(), "nonRepudiation"),
        (ku.key_encipherment(), "keyEncipherment"),
        (ku.data_encipherment(), "dataEncipherment"),
        (ku.key_agreement(), "keyAgreement"),
        (ku.key_cert_sign(), "keyCertSign"),
        (ku.crl_sign(), "cRLSign"),
        (ku.encipher_only(), "encipherOnly"),
        (ku.decipher_only(), "decipherOnly"),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect()
}

/// Extended key usage purposes by their RFC 5280 §4.2.1.12 names; others by registry name or OID.
fn extended_key_usage(eku: &ExtendedKeyUsage) -> Vec<String> {
    let mut out: Vec<String> = [
        (eku.any, "anyExtendedKeyUsage"),
        (eku.server_auth, "serverAuth"),
        (eku.client_auth, "clientAuth"),
        (eku.code_signing, "codeSigning"),
        (eku.email_protection, "emailProtection"),
        (eku.time_stamping, "timeStamping"),
        (eku.ocsp_signing, "OCSPSigning"),
    ]
    .into_iter()
    .filter(|(set, _)| *set)
    .map(|(_, name)| name.to_string())
    .collect();
    out.extend(eku.other.iter().map(oid_name));
    out
}

fn colon_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn describe_extensions(exts: &[X509Extension], out: &mut Map<String, Value>) {
    let mut sans = Vec::new();
    let (mut ku, mut eku, mut bc, mut ski, mut aki) = (
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
    );
    let mut list = Vec::new();
    for ext in exts {
        match ext.parsed_extension() {
            ParsedExtension::SubjectAlternativeName(san) => {
                sans.extend(san.general_names.iter().map(general_name));
            }
            ParsedExtension::KeyUsage(k) => ku = json!(key_usage(k)),
            ParsedExtension::ExtendedKeyUsage(e) => eku = json!(extended_key_usage(e)),
            ParsedExtension::BasicConstraints(b) => {
                bc = json!({ "ca": b.ca, "pathLength": b.path_len_constraint });
            }
            ParsedExtension::SubjectKeyIdentifier(id) => ski = json!(colon_hex(id.0)),
            ParsedExtension::AuthorityKeyIdentifier(a) => {
                aki = a
                    .key_identifier
                    .as_ref()
                    .map_or(Value::Null, |id| json!(colon_hex(id.0)));
            }
            _ => {}
        }
        list.push(json!({
            "name": oid_name(&ext.oid),
            "oid": crate::tools::crypto::oid::dotted_of(&ext.oid),
            "critical": ext.critical,
        }));
    }
    let is_ca = bc.get("ca").and_then(Value::as_bool).unwrap_or(false);
    out.insert("isCA".into(), json!(is_ca));
    out.insert("subjectAltNames".into(), json!(sans));
    out.insert("basicConstraints".into(), bc);
    out.insert("keyUsage".into(), ku);
    out.insert("extendedKeyUsage".into(), eku);
    out.insert("subjectKeyIdentifier".into(), ski);
    out.insert("authorityKeyIdentifier".into(), aki);
    out.insert("extensions".into(), json!(list));
}

fn fingerprints(der: &[u8]) -> Value {
    json!({
        "sha1": colon_hex(&sha1::Sha1::digest(der)),
        "sha256": colon_hex(&sha2::Sha256::digest(der)),
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // Certificates made with `openssl ca` (fixed -startdate/-enddate so the validity flags are
    // stable); the expected values are what `openssl x509 -text` and `-fingerprint` print.
    /// Self-signed P-256 leaf, 2000-01-01 to 2099-12-31, SANs, critical KU, EKU.
    const EC_LEAF: &str = "\
-----BEGIN CERTIFICATE-----\n\
MIICCzCCAbKgAwIBAgIGGis8TV5vMAoGCCqGSM49BAMCMDoxCzAJBgNVBAYTAlVT\n\
MRUwEwYDVQQKDAxFeGFtcGxlIENvcnAxFDASBgNVBAMMC2V4YW1wbGUuY29tMCAX\n\
DTAwMDEwMTAwMDAwMFoYDzIwOTkxMjMxMjM1OTU5WjA6MQswCQYDVQQGEwJVUzEV\n\
MBMGA1UECgwMRXhhbXBsZSBDb3JwMRQwEgYDVQQDDAtleGFtcGxlLmNvbTBZMBMG\n\
ByqGSM49AgEGCCqGSM49AwEHA0IABEKEgD/Y5XNAwi6JCMrlKLfJ6uu2Yc0B9xtg\n\
lLvdBZj46VEIN0qQ6RlDwqmiUo64lhZ8EGxISB8kESrVLqsk+FejgaEwgZ4wDAYD\n\
VR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMCB4AwHQYDVR0lBBYwFAYIKwYBBQUHAwEG\n\
CCsGAQUFBwMCMEAGA1UdEQQ5MDeCC2V4YW1wbGUuY29tgg93d3cuZXhhbXBsZS5j\n\
b22HBH8AAAGBEWFkbWluQGV4YW1wbGUuY29tMB0GA1UdDgQWBBSuMZwuY9riXFjC\n\
6wjmHw8eprNZkjAKBggqhkjOPQQDAgNHADBEAiB+RvqEQUnJD9U3oiW/L2lMWvW0\n\
rp9WMDkIjYaTPtovpgIgcCratsaJ1qL/0WuVb8osPEmUzgk0fd34N54upKLGpF8=\n\
-----END CERTIFICATE-----";
    /// RSA-2048 root CA, serial 0x1000, pathlen 1.
    const RSA_CA: &str = "\
-----BEGIN CERTIFICATE-----\n\
MIIDjzCCAnegAwIBAgICEAAwDQYJKoZIhvcNAQELBQAwZjELMAkGA1UEBhMCREUx\n\
DzANBgNVBAgMBkJlcmxpbjEPMA0GA1UEBwwGQmVybGluMRAwDgYDVQQKDAdUZXN0\n\
IENBMQwwCgYDVQQLDANQS0kxFTATBgNVBAMMDFRlc3QgUm9vdCBDQTAgFw0wMDAx\n\
MDEwMDAwMDBaGA8yMDk5MTIzMTIzNTk1OVowZjELMAkGA1UEBhMCREUxDzANBgNV\n\
BAgMBkJlcmxpbjEPMA0GA1UEBwwGQmVybGluMRAwDgYDVQQKDAdUZXN0IENBMQww\n\
CgYDVQQLDANQS0kxFTATBgNVBAMMDFRlc3QgUm9vdCBDQTCCASIwDQYJKoZIhvcN\n\
AQEBBQADggEPADCCAQoCggEBAMI5WEgcMCOtVdtPZPKErvxG/7JPvjix8SF//1h9\n\
a1PEJp0Xo6HSH0gN+3l2dmlZTmLKuYODB797CEbYC1X5KH8nlZypLwvWIPBwAdLK\n\
WP2oHCEln38yq9/A3kWrM81SZRlP2TKqKXI4sP8C5E15pdcH202uJ32pbnIJuYK9\n\
GFYyB32zfxM46RJmJTNialHm3AHxd3Qh30s7u8RF4SLdU3mcElm/e+Mma3NphnIS\n\
q99XO2GKWXQifcuKKArd/C2Zz8/SFerGrSpQ5yw/YSlugx/iGeqJSgQ/v0xcOYxm\n\
5y6gdbS5a+b/aAwfbbM+dHo99jbkr4p0IUCZGbT7ewf8HkECAwEAAaNFMEMwEgYD\n\
VR0TAQH/BAgwBgEB/wIBATAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFGAj+WDt\n\
lJkyY+/2lkPdJTBqt6QAMA0GCSqGSIb3DQEBCwUAA4IBAQCiqxGo8zGEXmRnIjFI\n\
lbQ63HzBxLjJxU1dn36tNOeEp2PAXGspkD2HK9njQP+R781/DmKdaCG7mPLesQke\n\
fgooBN+TuP8bzz0g2CA/fhuZCRMPkUF+IrxrMxy00HR1h/l3+7rW1aqNixpght75\n\
dKKkLbpsso79E7z4RQGyUi3v5HwhuZutSXwY9t39wvIZ036XPGM5n1zNIQSKtcBZ\n\
1mt/c3cDvFPuSU5/qhrWZB9KrATqY7G4sFmlp8sMT/rDXW5MJjb4Sw0xT7w5ogiV\n\
aQsOpNg91Knno65aHiF7cZsRhX5XiW18Ft12IGcC49xOhqphZXFwAL7SBfbf4zbx\n\
k86n\n\
-----END CERTIFICATE-----";
    /// RSA-2048 leaf issued by RSA_CA, valid during 2001 only, serial 0xff.
    const EXPIRED: &str = "\
-----BEGIN CERTIFICATE-----\n\
MIIDiTCCAnGgAwIBAgICAP8wDQYJKoZIhvcNAQELBQAwZjELMAkGA1UEBhMCREUx\n\
DzANBgNVBAgMBkJlcmxpbjEPMA0GA1UEBwwGQmVybGluMRAwDgYDVQQKDAdUZXN0\n\
IENBMQwwCgYDVQQLDANQS0kxFTATBgNVBAMMDFRlc3QgUm9vdCBDQTAeFw0wMTAx\n\
MDEwMDAwMDBaFw0wMjAxMDEwMDAwMDBaMBoxGDAWBgNVBAMMD29sZC5leGFtcGxl\n\
Lm5ldDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAKyTW4K+CBaA6DXE\n\
a8UrRzEhQNbnI1BfbjjxhoY4c7jedPa1GeoJuvmZZjTjYwAgRY6x21BZxQXR4Qtn\n\
c1GvW4+W3WugkuBI26igyCbKZp7V9z8SDjmBIMAEG2oN2lq6JQbSibXQXKy2wcS9\n\
tV6hH5WPd9lqJW7z0HmFLicPt4X9lDaViC3IRwisvDsvJMa7Ve0/ksDHYhHZ8npe\n\
WvzkD20PyYK2akktN+pzQvUkJs1MUjZ9/9zFFSW0s+YcgcaqAgIyZ71iaxFSu8iw\n\
tWIX/JvdGRR/8iDua95Oudwwat83Vv7fYIDIHrdzupEp6rd1T2dCTcVt+m7Daq5C\n\
zcsSB9cCAwEAAaOBjDCBiTAJBgNVHRMEAjAAMAsGA1UdDwQEAwIFoDATBgNVHSUE\n\
DDAKBggrBgEFBQcDATAaBgNVHREEEzARgg9vbGQuZXhhbXBsZS5uZXQwHQYDVR0O\n\
BBYEFCPJqnpPREncwBwMEaYjTsSh1sKnMB8GA1UdIwQYMBaAFGAj+WDtlJkyY+/2\n\
lkPdJTBqt6QAMA0GCSqGSIb3DQEBCwUAA4IBAQB6bprhEm+Q1w2bXBt+AowiucNR\n\
bXHySXeHJcGJhWl4u6uNue/kXnsNEpjQPMHUk004wVhkYGHr5xvkyjgPCS7OtCsW\n\
P3cr5RMeeL36mF0e4xCV3nwZxnv+e4+YeQwlpg61ex3vUFCskQAB6V+n/xa48Ud/\n\
oPrmK5Z9ytJB59s5GlSTktZv3iCuf9nVTqGqcdcw+c5BpLCC+8WWV+QP/DxtnMC5\n\
86wv1NIY3tE+KJE4oP2O23WONuFOdGhrJw/42Xz/qWCATqQvixyUJE/FjrOTqRNJ\n\
FDAIHb9dnQLb6rRIy06PxiwKJMpruAwzWpRjCQrUUXtQrwJxXVrfsSDm7zt7\n\
-----END CERTIFICATE-----";
    /// X.509 v1 (no extensions), valid from 2098.
    const FUTURE: &str = "\
-----BEGIN CERTIFICATE-----\n\
MIICMDCCARgCAQIwDQYJKoZIhvcNAQELBQAwZjELMAkGA1UEBhMCREUxDzANBgNV\n\
BAgMBkJlcmxpbjEPMA0GA1UEBwwGQmVybGluMRAwDgYDVQQKDAdUZXN0IENBMQww\n\
CgYDVQQLDANQS0kxFTATBgNVBAMMDFRlc3QgUm9vdCBDQTAiGA8yMDk4MDEwMTAw\n\
MDAwMFoYDzIwOTkxMjMxMjM1OTU5WjAdMRswGQYDVQQDDBJmdXR1cmUuZXhhbXBs\n\
ZS5jb20wWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARChIA/2OVzQMIuiQjK5Si3\n\
yerrtmHNAfcbYJS73QWY+OlRCDdKkOkZQ8KpolKOuJYWfBBsSEgfJBEq1S6rJPhX\n\
MA0GCSqGSIb3DQEBCwUAA4IBAQBGuHFTFMABYtD6hWwpYJbBKeWZEmu7VU9Iuh7X\n\
H2aW17Oihd+T/IhV29Te6oZe7xoO+czO+lFhZN2HWqbk9sAuxej7Bff0nmqXyHoc\n\
nIu/v1bqGG8mmQRCpzBdHFStJc5IOrpbx0rcIm0RMwiMmk/ZpqTQHGYv9BLzANbe\n\
+pagCv+FenqHwH9dms89QxNFE/9R9zUtazB5efov1GmcWp1eCiYRmx8Kra87V4/b\n\
/wxRcI4oIrIFqQqeRYAW3bQ50at1h7ehP6Oy28Xyxp3Xpy3F6ISal7G23upKUhdA\n\
+5sNrfGyAhIYdQXUVL2qV5KXY5O2APQqe61PiaH5RhOElfLx\n\
-----END CERTIFICATE-----";
    /// PKCS#10 request with a SAN and a key usage extension request.
    const CSR: &str = "\
-----BEGIN CERTIFICATE REQUEST-----\n\
MIIBOTCB3wIBADAwMRgwFgYDVQQDDA9hcGkuZXhhbXBsZS5vcmcxFDASBgNVBAoM\n\
C0V4YW1wbGUgT3JnMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEQoSAP9jlc0DC\n\
LokIyuUot8nq67ZhzQH3G2CUu90FmPjpUQg3SpDpGUPCqaJSjriWFnwQbEhIHyQR\n\
KtUuqyT4V6BNMEsGCSqGSIb3DQEJDjE+MDwwLQYDVR0RBCYwJIIPYXBpLmV4YW1w\n\
bGUub3JnghEqLmFwaS5leGFtcGxlLm9yZzALBgNVHQ8EBAMCB4AwCgYIKoZIzj0E\n\
AwIDSQAwRgIhAJBOCjcCcBoYZ+16ABgQLDrjFZChfAYJ+MtsbdEdfH2GAiEAkMMk\n\
+d8BFTq36+j0gH61IRW4fVLY4L4E1n5KMBbB8Ic=\n\
-----END CERTIFICATE REQUEST-----";
    /// The EC private key, to check that keys are skipped.
    const EC_KEY: &str = "\
-----BEGIN EC PRIVATE KEY-----\n\
MHcCAQEEIJWlSrDPbxNwJoJ091pyQMV8S8hOXxNNaS7Cquxd+zSjoAoGCCqGSM49\n\
AwEHoUQDQgAEQoSAP9jlc0DCLokIyuUot8nq67ZhzQH3G2CUu90FmPjpUQg3SpDp\n\
GUPCqaJSjriWFnwQbEhIHyQRKtUuqyT4Vw==\n\
-----END EC PRIVATE KEY-----";

    fn decode(input: &str) -> serde_json::Value {
        let data = run_ok("certificate-decoder", json!({ "input": input }));
        assert_eq!(data["count"], 1);
        data["certificates"][0].clone()
    }

    #[test]
    fn ec_leaf_matches_openssl_text() {
        let c = decode(EC_LEAF);
        assert_eq!(c["version"], 3);
        assert_eq!(c["subject"], "C=US, O=Example Corp, CN=example.com");
        assert_eq!(c["selfIssued"], true);
        assert_eq!(c["serialNumber"], "1a2b3c4d5e6f");
        assert_eq!(c["serialNumberDecimal"], "28772997619311");
        assert_eq!(c["notBefore"], "2000-01-01T00:00:00Z");
        assert_eq!(c["notAfter"], "2099-12-31T23:59:59Z");
        assert_eq!(c["expired"], false);
        assert_eq!(c["notYetValid"], false);
        assert_eq!(
            c["publicKey"],
            json!({"algorithm": "EC", "size": 256, "curve": "P-256", "oid": "1.2.840.10045.2.1"})
        );
        assert_eq!(c["signatureAlgorithm"], "ecdsa-with-SHA256");
        assert_eq!(
            c["subjectAltNames"],
            json!([
                "DNS:example.com",
                "DNS:www.example.com",
                "IP:127.0.0.1",
                "email:admin@example.com"
            ])
        );
        assert_eq!(
            c["basicConstraints"],
            json!({"ca": false, "pathLength": null})
        );
        assert_eq!(c["keyUsage"], json!(["digitalSignature"]));
        assert_eq!(c["extendedKeyUsage"], json!(["serverAuth", "clientAuth"]));
        assert_eq!(
            c["subjectKeyIdentifier"],
            "AE:31:9C:2E:63:DA:E2:5C:58:C2:EB:08:E6:1F:0F:1E:A6:B3:59:92"
        );
        assert_eq!(
            c["extensions"][0],
            json!({"name": "basicConstraints", "oid": "2.5.29.19", "critical": true})
        );
        assert_eq!(
            c["fingerprints"],
            json!({
                "sha1": "41:C2:0B:B3:CA:46:8D:30:83:A0:5C:24:74:E0:C1:0A:A2:C9:36:54",
                "sha256": "5C:06:BB:76:EA:65:1A:C2:3C:F1:5E:9D:CE:E8:F4:08:4F:51:53:DD:F8:2A:E6:FE:83:6A:99:95:73:A7:C1:15"
            })
        );
    }

    #[test]
    fn rsa_ca_and_expired_leaf_as_a_chain() {
        let data = run_ok(
            "certificate-decoder",
            json!({ "input": format!("{EXPIRED}\n{RSA_CA}\n") }),
        );
        assert_eq!(data["count"], 2);
        let (leaf, ca) = (&data["certificates"][0], &data["certificates"][1]);
        assert_eq!(leaf["subject"], "CN=old.example.net");
        assert_eq!(
            leaf["issuer"],
            "C=DE, ST=Berlin, L=Berlin, O=Test CA, OU=PKI, CN=Test Root CA"
        );
        // DER stores 0xff as 00 ff; openssl prints 255 (0xff).
        assert_eq!(leaf["serialNumber"], "ff");
        assert_eq!(leaf["serialNumberDecimal"], "255");
        assert_eq!(leaf["expired"], true);
        assert_eq!(leaf["notYetValid"], false);
        assert_eq!(leaf["validityDays"], 365);
        assert_eq!(
            leaf["keyUsage"],
            json!(["digitalSignature", "keyEncipherment"])
        );
        assert_eq!(leaf["authorityKeyIdentifier"], ca["subjectKeyIdentifier"]);
        assert_eq!(
            leaf["fingerprints"]["sha256"],
            "4D:AC:23:1F:D2:4E:C8:69:83:7E:C7:03:54:5D:0B:F7:FD:59:7D:07:AB:2D:7C:80:7F:43:CD:3C:1E:97:4E:A9"
        );
        assert_eq!(ca["serialNumber"], "1000");
        assert_eq!(ca["isCA"], true);
        assert_eq!(ca["basicConstraints"], json!({"ca": true, "pathLength": 1}));
        assert_eq!(ca["keyUsage"], json!(["keyCertSign", "cRLSign"]));
        assert_eq!(
            ca["publicKey"],
            json!({"algorithm": "RSA", "size": 2048, "exponent": 65537, "oid": "1.2.840.113549.1.1.1"})
        );
        assert_eq!(ca["signatureAlgorithm"], "sha256WithRSAEncryption");
        assert_eq!(
            ca["fingerprints"]["sha1"],
            "EA:F8:86:D7:4F:96:F0:A1:0C:AA:8E:A6:63:50:96:95:8E:81:00:97"
        );
    }

    #[test]
    fn v1_certificate_not_yet_valid() {
        let c = decode(FUTURE);
        assert_eq!(c["version"], 1);
        assert_eq!(c["notYetValid"], true);
        assert_eq!(c["expired"], false);
        assert_eq!(c["extensions"], json!([]));
        assert_eq!(c["subjectAltNames"], json!([]));
        assert_eq!(c["keyUsage"], json!(null));
        assert_eq!(c["serialNumber"], "02");
    }

    #[test]
    fn certificate_request() {
        let c = decode(CSR);
        assert_eq!(c["type"], "certificateRequest");
        assert_eq!(c["version"], 1);
        assert_eq!(c["subject"], "CN=api.example.org, O=Example Org");
        assert_eq!(
            c["subjectAltNames"],
            json!(["DNS:api.example.org", "DNS:*.api.example.org"])
        );
        assert_eq!(c["keyUsage"], json!(["digitalSignature"]));
        assert_eq!(c["signatureAlgorithm"], "ecdsa-with-SHA256");
        assert_eq!(c["publicKey"]["curve"], "P-256");
    }

    #[test]
    fn base64_der_input_and_skipped_private_key() {
        let body: String = EC_LEAF
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect();
        let c = decode(&body);
        assert_eq!(c["serialNumber"], "1a2b3c4d5e6f");
        let data = run_ok(
            "certificate-decoder",
            json!({ "input": format!("{EC_KEY}\n{EC_LEAF}") }),
        );
        assert_eq!(data["count"], 1);
        assert_eq!(data["ignoredBlocks"], json!(["EC PRIVATE KEY"]));
    }

    #[test]
    fn garbage_is_invalid_input() {
        let (code, msg) = run_err(
            "certificate-decoder",
            json!({ "input": "not a certificate!" }),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("neither PEM"), "{msg}");
        let (code, msg) = run_err("certificate-decoder", json!({ "input": EC_KEY }));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("EC PRIVATE KEY"), "{msg}");
        let truncated = format!("{}\n-----END CERTIFICATE-----", &EC_LEAF[..300]);
        let (code, msg) = run_err("certificate-decoder", json!({ "input": truncated }));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("PEM block 1"), "{msg}");
        let (code, _) = run_err(
            "certificate-decoder",
            json!({ "input": "aGVsbG8gd29ybGQ=" }),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
