//! Key material: rsa-key-pair-generator (PKCS#1, PKCS#8, SPKI, OpenSSH) and bip39-generator
//! (BIP-39 mnemonics, entropy and seeds).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use bip39::Mnemonic;
use digest::Digest;
use rand::RngExt;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey, EncodeRsaPublicKey};
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey, LineEnding};
use rsa::traits::PublicKeyParts;
use rsa::{RsaPrivateKey, RsaPublicKey};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("rsa-key-pair-generator", rsa_key_pair_generator),
    Tool::new("bip39-generator", bip39_generator),
];

fn rsa_key_pair_generator(args: &Args) -> ToolOutcome {
    let key = if args.str("mode")? == "import" {
        import_private_key(args.opt_str("privateKey").unwrap_or(""))?
    } else {
        let bits: usize = args
            .str("bits")?
            .parse()
            .map_err(|_| ToolError::invalid("bits must be 1024, 2048, 3072 or 4096"))?;
        // rsa 0.9 takes a rand_core 0.6 RNG: a ChaCha20 CSPRNG seeded from the OS-seeded one.
        let mut rng = ChaCha20Rng::from_seed(rand::rng().random::<[u8; 32]>());
        RsaPrivateKey::new(&mut rng, bits)
            .map_err(|e| ToolError::execution(format!("key generation failed: {e}")))?
    };
    describe_key_pair(&key, args.str("privateKeyFormat")?, args.opt_str("comment"))
}

fn import_private_key(pem: &str) -> Result<RsaPrivateKey, ToolError> {
    let pem = pem.trim();
    if pem.is_empty() {
        return Err(ToolError::invalid(
            "import mode needs an RSA private key PEM in 'privateKey'",
        ));
    }
    if pem.contains("BEGIN RSA PRIVATE KEY") {
        RsaPrivateKey::from_pkcs1_pem(pem)
            .map_err(|e| ToolError::invalid(format!("the PKCS#1 RSA private key is invalid: {e}")))
    } else if pem.contains("BEGIN PRIVATE KEY") {
        RsaPrivateKey::from_pkcs8_pem(pem).map_err(|e| {
            ToolError::invalid(format!(
                "the PKCS#8 private key is invalid or not an RSA key: {e}"
            ))
        })
    } else if pem.contains("BEGIN ENCRYPTED PRIVATE KEY") {
        Err(ToolError::invalid(
            "the private key is encrypted; decrypt it first (openssl pkey -in key.pem)",
        ))
    } else if pem.contains("BEGIN OPENSSH PRIVATE KEY") {
        Err(ToolError::invalid(
            "OpenSSH private keys are not supported; convert with ssh-keygen -p -m PEM -f key",
        ))
    } else {
        Err(ToolError::invalid(
            "expected a PEM RSA private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)",
        ))
    }
}

fn describe_key_pair(key: &RsaPrivateKey, format: &str, comment: Option<&str>) -> ToolOutcome {
    let encode_err =
        |e: &dyn std::fmt::Display| ToolError::execution(format!("encoding failed: {e}"));
    let private = if format == "pkcs1" {
        key.to_pkcs1_pem(LineEnding::LF)
            .map_err(|e| encode_err(&e))?
    } else {
        key.to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| encode_err(&e))?
    };
    let public = key.to_public_key();
    let spki = public
        .to_public_key_pem(LineEnding::LF)
        .map_err(|e| encode_err(&e))?;
    let pkcs1 = public
        .to_pkcs1_pem(LineEnding::LF)
        .map_err(|e| encode_err(&e))?;
    let blob = openssh_blob(&public);
    let comment = comment.map(str::trim).filter(|c| !c.is_empty());
    let openssh = match comment {
        Some(c) => format!("ssh-rsa {} {c}", STANDARD.encode(&blob)),
        None => format!("ssh-rsa {}", STANDARD.encode(&blob)),
    };
    let exponent = u64::from_str_radix(&public.e().to_str_radix(16), 16).unwrap_or(0);
    Ok(json!({
        "privateKey": private.as_str(),
        "publicKey": spki,
        "publicKeyPkcs1": pkcs1,
        "publicKeyOpenSsh": openssh,
        "fingerprint": format!("SHA256:{}", STANDARD_NO_PAD.encode(sha2::Sha256::digest(&blob))),
        "bits": public.n().bits(),
        "publicExponent": exponent,
        "privateKeyFormat": format,
    }))
}

/// The `ssh-rsa` public key blob of RFC 4253 §6.6: string "ssh-rsa", mpint e, mpint n.
fn openssh_blob(key: &RsaPublicKey) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, bytes: &[u8]) {
        out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(0).to_be_bytes());
        out.extend_from_slice(bytes);
    }
    // An mpint (RFC 4251 §5) is two's complement: a set top bit needs a leading zero byte.
    fn mpint(out: &mut Vec<u8>, magnitude: Vec<u8>) {
        let mut bytes: Vec<u8> = magnitude.into_iter().skip_while(|b| *b == 0).collect();
        if bytes.first().is_some_and(|b| b & 0x80 != 0) {
            bytes.insert(0, 0);
        }
        string(out, &bytes);
    }
    let mut blob = Vec::new();
    string(&mut blob, b"ssh-rsa");
    mpint(&mut blob, key.e().to_bytes_be());
    mpint(&mut blob, key.n().to_bytes_be());
    blob
}

fn bip39_generator(args: &Args) -> ToolOutcome {
    let passphrase = args.opt_str("passphrase").unwrap_or("");
    let mnemonic = match args.str("mode")? {
        "validate" => {
            let text = args.opt_str("mnemonic").unwrap_or("").trim();
            if text.is_empty() {
                return Err(ToolError::invalid(
                    "validate mode needs the words in 'mnemonic'",
                ));
            }
            let normalised = text
                .split_whitespace()
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
                .join(" ");
            match Mnemonic::parse_in(bip39::Language::English, normalised.as_str()) {
                Ok(m) => m,
                Err(e) => {
                    return Ok(json!({
                        "valid": false,
                        "error": mnemonic_error(&e, &normalised),
                        "wordCount": normalised.split(' ').count(),
                    }));
                }
            }
        }
        "fromEntropy" => {
            let hex_text: String = args
                .opt_str("entropy")
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let hex_text = hex_text.strip_prefix("0x").unwrap_or(&hex_text);
            if hex_text.is_empty() {
                return Err(ToolError::invalid(
                    "fromEntropy mode needs the entropy as hex in 'entropy'",
                ));
            }
            let entropy = hex::decode(hex_text)
                .map_err(|e| ToolError::invalid(format!("entropy is not valid hex: {e}")))?;
            Mnemonic::from_entropy(&entropy).map_err(|_| {
                ToolError::invalid(format!(
                    "entropy must be 16, 20, 24, 28 or 32 bytes (128–256 bits in steps of 32), got {} bytes",
                    entropy.len()
                ))
            })?
        }
        _ => {
            let words: usize = args
                .str("wordCount")?
                .parse()
                .map_err(|_| ToolError::invalid("wordCount must be 12, 15, 18, 21 or 24"))?;
            let entropy_bytes = words / 3 * 4;
            let mut rng = rand::rng();
            let entropy: Vec<u8> = (0..entropy_bytes).map(|_| rng.random::<u8>()).collect();
            Mnemonic::from_entropy(&entropy)
                .map_err(|e| ToolError::invalid(format!("cannot build a mnemonic: {e}")))?
        }
    };
    let phrase = mnemonic.to_string();
    let mut out = json!({
        "output": phrase,
        "wordCount": mnemonic.word_count(),
        "entropy": hex::encode(mnemonic.to_entropy()),
        "seed": hex::encode(mnemonic.to_seed(passphrase)),
    });
    if args.str("mode")? == "validate" {
        out["valid"] = Value::Bool(true);
    }
    Ok(out)
}

/// A bip39 error restated with the offending word where there is one.
fn mnemonic_error(e: &bip39::Error, words: &str) -> String {
    match e {
        bip39::Error::UnknownWord(i) => format!(
            "word {} '{}' is not in the BIP-39 English word list",
            i + 1,
            words.split(' ').nth(*i).unwrap_or("")
        ),
        bip39::Error::BadWordCount(n) => {
            format!("a mnemonic has 12, 15, 18, 21 or 24 words, this one has {n}")
        }
        bip39::Error::InvalidChecksum => {
            "the checksum does not match: a word is wrong or the words are out of order".to_string()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
    use rsa::{Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
    use serde_json::json;
    use sha2::Digest;

    /// A 1024-bit PKCS#1 key from `openssl genrsa -traditional 1024`; the expected values are
    /// what `openssl pkcs8 -topk8`, `openssl rsa -pubout` and `ssh-keygen -y` / `-l` print.
    const PKCS1_KEY: &str = "\
-----BEGIN RSA PRIVATE KEY-----
MIICXgIBAAKBgQDgr5VkvmQoXwnmolMLknlk3M+CcIdGnPiYtVt8RlOVObNtOZ/A
SC0cuZnt8perixkqVq3czb6G2qrKQCdDqbo6PZgLW5YbSmVhqnX+00v1OzjE6RBY
Y+Oyh9qOqrKZsSSsOmCqS2MdhIC5PhKwMOlwDXKY07KJoay4yCcJCYXr7wIDAQAB
AoGAbP3fm1ocHdVUaTOO00s/ZeUTKDRL+r4EfZdkBJncy8OMvUw5qT2Z3JhQCjQm
zMkR8Q7REg4gASyrsqaCJXl84wD0cg15hreKdlSbOF90nOPmNJOdjSd0HyyTTruc
fLydiVMGtEI0sexjOvMOT3xVSMbSz4lihOJp3tjVUM8QgHkCQQDxOssDAKzu964z
txqT30uQ8Q5iuJvZeTZQGDU7PSOKUFFHVyyzjMO46ZT90rIAzdvI6+k6JykU6mVc
aRnbF2mjAkEA7nF4qqB+adlp3uKrX/khIRp6TQX46TNokmlRQS3GSD7eDqIRn+oY
PQrKTRudcFpppPmwr3Bh97cx8MkbK2zxRQJBAJqM1GxEDoe737v6X+jFcyCVkGXn
aNJYOlfuaoxdi1ueQbS3QUh3sx3RaUeFqc2iFmIP4wkC9esUkYQ3Qf2AbokCQQCR
O9BRrXwSIPkZZ1sXE/mX3jbMH20jLcruEvQJDUaOzqwWoaS2kLG+zIm4Oa/FtWxP
rj5uPbeOWKk0jmncI3k5AkEA0Adm/obTNf4icvpRSc+Y6QhDFfLqeRCIvZrF0kP9
v7Vp4R1fFcV9glc3q0bmLo0o1xoQ/mkdLVeeLFctUddIMg==
-----END RSA PRIVATE KEY-----
";

    #[test]
    fn import_pkcs1_matches_openssl_and_ssh_keygen() {
        let data = run_ok(
            "rsa-key-pair-generator",
            json!({"mode": "import", "privateKey": PKCS1_KEY, "comment": "demo"}),
        );
        assert_eq!(data["bits"], 1024);
        assert_eq!(data["publicExponent"], 65537);
        let private = data["privateKey"].as_str().unwrap();
        assert!(private.starts_with(
            "-----BEGIN PRIVATE KEY-----\nMIICeAIBADANBgkqhkiG9w0BAQEFAASCAmIwggJeAgEAAoGBAOCvlWS+ZChfCeai\n"
        ));
        assert!(data["publicKey"].as_str().unwrap().starts_with(
            "-----BEGIN PUBLIC KEY-----\nMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDgr5VkvmQoXwnmolMLknlk3M+C\n"
        ));
        assert!(data["publicKeyPkcs1"].as_str().unwrap().starts_with(
            "-----BEGIN RSA PUBLIC KEY-----\nMIGJAoGBAOCvlWS+ZChfCeaiUwuSeWTcz4Jwh0ac+Ji1W3xGU5U5s205n8BILRy5\n"
        ));
        assert_eq!(
            data["publicKeyOpenSsh"],
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDgr5VkvmQoXwnmolMLknlk3M+CcIdGnPiYtVt8RlOVObNtOZ/ASC0cuZnt8perixkqVq3czb6G2qrKQCdDqbo6PZgLW5YbSmVhqnX+00v1OzjE6RBYY+Oyh9qOqrKZsSSsOmCqS2MdhIC5PhKwMOlwDXKY07KJoay4yCcJCYXr7w== demo"
        );
        assert_eq!(
            data["fingerprint"],
            "SHA256:dpPkyUClwNUeCMZzg1r9NkQaS8ZprEoo6LjIz1alFYQ"
        );
    }

    #[test]
    fn pkcs8_back_to_pkcs1_round_trip() {
        let pkcs8 = run_ok(
            "rsa-key-pair-generator",
            json!({"mode": "import", "privateKey": PKCS1_KEY}),
        );
        let back = run_ok(
            "rsa-key-pair-generator",
            json!({"mode": "import", "privateKey": pkcs8["privateKey"], "privateKeyFormat": "pkcs1"}),
        );
        assert_eq!(back["privateKey"], PKCS1_KEY);
        assert_eq!(back["fingerprint"], pkcs8["fingerprint"]);
    }

    #[test]
    fn generated_key_signs_and_verifies() {
        let data = run_ok("rsa-key-pair-generator", json!({"bits": "1024"}));
        assert_eq!(data["bits"], 1024);
        assert_eq!(data["privateKeyFormat"], "pkcs8");
        let private = RsaPrivateKey::from_pkcs8_pem(data["privateKey"].as_str().unwrap()).unwrap();
        let public =
            RsaPublicKey::from_public_key_pem(data["publicKey"].as_str().unwrap()).unwrap();
        let digest = sha2::Sha256::digest(b"cmpx");
        let signature = private
            .sign(Pkcs1v15Sign::new_unprefixed(), &digest)
            .unwrap();
        assert!(
            public
                .verify(Pkcs1v15Sign::new_unprefixed(), &digest, &signature)
                .is_ok()
        );
        assert!(
            data["publicKeyOpenSsh"]
                .as_str()
                .unwrap()
                .starts_with("ssh-rsa AAAAB3NzaC1yc2EAAAADAQAB")
        );
    }

    #[test]
    fn import_rejects_bad_keys() {
        let (code, msg) = run_err(
            "rsa-key-pair-generator",
            json!({"mode": "import", "privateKey": "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("PKCS#1"), "{msg}");
        let (code, msg) = run_err("rsa-key-pair-generator", json!({"mode": "import"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("privateKey"), "{msg}");
    }

    // BIP-39 reference vectors (trezor/python-mnemonic vectors.json, passphrase "TREZOR").
    #[test]
    fn bip39_entropy_to_mnemonic_vectors() {
        let vectors = [
            (
                "00000000000000000000000000000000",
                "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
                "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
            ),
            (
                "7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f",
                "legal winner thank year wave sausage worth useful legal winner thank yellow",
                "2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607",
            ),
            (
                "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
                "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote",
                "dd48c104698c30cfe2b6142103248622fb7bb0ff692eebb00089b32d22484e1613912f0a5b694407be899ffd31ed3992c456cdf60f5d4564b8ba3f05a69890ad",
            ),
            (
                "00ac97c48106f0aeb8ba061e0250a559b3251dc35854e694780ba51d53a50120",
                "absent gorilla van acoustic humor firm title dolphin bulk barely citizen recall crane moment aspect appear track phrase actual enforce steel spoon afraid benefit",
                "2e3c58340e28b1e70f1bec7393459fd4c16058aacd6c87d99439616742daf02f9d18d919fe7c74a34a2a9d2b417e9a9021fcc8f820e257e355762cbbece5eea2",
            ),
        ];
        for (entropy, mnemonic, seed) in vectors {
            let data = run_ok(
                "bip39-generator",
                json!({"mode": "fromEntropy", "entropy": entropy, "passphrase": "TREZOR"}),
            );
            assert_eq!(data["output"], mnemonic);
            assert_eq!(data["seed"], seed);
            let back = run_ok(
                "bip39-generator",
                json!({"mode": "validate", "mnemonic": mnemonic, "passphrase": "TREZOR"}),
            );
            assert_eq!(back["valid"], true);
            assert_eq!(back["entropy"], entropy);
            assert_eq!(back["seed"], seed);
        }
    }

    #[test]
    fn bip39_generate_has_valid_checksum() {
        let data = run_ok("bip39-generator", json!({"wordCount": "24"}));
        assert_eq!(data["wordCount"], 24);
        assert_eq!(data["entropy"].as_str().unwrap().len(), 64);
        let check = run_ok(
            "bip39-generator",
            json!({"mode": "validate", "mnemonic": data["output"]}),
        );
        assert_eq!(check["valid"], true);
        assert_eq!(check["seed"], data["seed"]);
    }

    #[test]
    fn bip39_invalid_mnemonics_and_entropy() {
        let bad_checksum = run_ok(
            "bip39-generator",
            json!({"mode": "validate", "mnemonic": "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon"}),
        );
        assert_eq!(bad_checksum["valid"], false);
        assert!(bad_checksum["error"].as_str().unwrap().contains("checksum"));
        let unknown = run_ok(
            "bip39-generator",
            json!({"mode": "validate", "mnemonic": "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abott"}),
        );
        assert_eq!(
            unknown["error"],
            "word 12 'abott' is not in the BIP-39 English word list"
        );
        let (code, msg) = run_err(
            "bip39-generator",
            json!({"mode": "fromEntropy", "entropy": "00ff"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("got 2 bytes"), "{msg}");
    }
}
