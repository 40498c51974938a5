//! pem-converter, asn1-parser and ssh-key-parser against what OpenSSL and OpenSSH print.

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
        "302a300506032b65700321005756 37dc7359258bdf15e3b68cc1478016f39ed0536b819a8eedd39b91093a1d"
            .replace(' ', "")
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
        super::asn1::ASN1_DEPTH,
    );
    let indefinite = "3080".repeat(1_000_000) + &"0000".repeat(1_000_000);
    assert_too_deep(
        "asn1-parser",
        json!({"input": indefinite, "inputFormat": "hex"}),
        "input",
        super::asn1::ASN1_DEPTH,
    );
    // Just under: 50 levels.
    let ok = "3080".repeat(super::asn1::ASN1_DEPTH) + &"0000".repeat(super::asn1::ASN1_DEPTH);
    let d = run_ok("asn1-parser", json!({"input": ok, "inputFormat": "hex"}));
    assert_eq!(d["nodeCount"], super::asn1::ASN1_DEPTH);
}
