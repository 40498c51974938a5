//! password-hash-generator: password hashing and key derivation — Argon2id/i/d (RFC 9106,
//! `argon2`), scrypt (RFC 7914, `scrypt`), PBKDF2-HMAC (RFC 8018, `pbkdf2`) and HKDF
//! (RFC 5869, `hkdf`) — with PHC strings for Argon2 and scrypt and verification of them.
//! Costs are capped so one request cannot take minutes or gigabytes.

use crate::ctp::{ErrorCode, ToolError, ToolOutcome};
use crate::tools::crypto::classic_ciphers::decode_hex;
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use argon2::password_hash::phc::{Ident, Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, AssociatedData, ParamsBuilder, Version};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::RngExt;
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new(
    "password-hash-generator",
    password_hash_generator,
)];

/// Argon2 memory × passes and scrypt memory × p, in KiB: 4 GiB of memory traffic, a few
/// seconds in a release build.
const MAX_WORK_KIB: u64 = 4 * 1024 * 1024;
/// The most memory one scrypt or Argon2 computation may take, in KiB (1 GiB).
const MAX_MEMORY_KIB: u64 = 1024 * 1024;

fn constraint(message: String) -> ToolError {
    ToolError::new(ErrorCode::ConstraintViolation, message)
}

/// A byte parameter in the request's inputEncoding (text, hex or Base64).
fn bytes(args: &Args, name: &str) -> Result<Option<Vec<u8>>, ToolError> {
    let Some(value) = args.opt_str(name) else {
        return Ok(None);
    };
    match args.str("inputEncoding")? {
        "hex" => decode_hex(name, value).map(Some),
        "base64" => decode_base64_param(name, value).map(Some),
        _ => Ok(Some(value.as_bytes().to_vec())),
    }
}

fn u32_param(args: &Args, name: &str) -> Result<u32, ToolError> {
    u32::try_from(args.i64(name)?)
        .map_err(|_| ToolError::invalid(format!("parameter '{name}' is out of range")))
}

/// HKDF-Extract then HKDF-Expand with the given hash; returns the PRK as hex.
macro_rules! hkdf_with {
    ($hash:ty, $salt:expr, $ikm:expr, $info:expr, $out:expr) => {{
        let (prk, hk) = hkdf::Hkdf::<$hash>::extract($salt, $ikm);
        hk.expand($info, $out).map_err(|_| {
            ToolError::invalid(format!(
                "HKDF can produce at most 255 × the hash size ({} bytes here); {} were asked for",
                255 * prk.len(),
                $out.len()
            ))
        })?;
        hex::encode(prk)
    }};
}

fn password_hash_generator(args: &Args) -> ToolOutcome {
    if args.str("mode")? == "verify" {
        return verify(args);
    }
    let algorithm = args.str("algorithm")?;
    let password = bytes(args, "password")?.unwrap_or_default();
    let length = args.usize("length")?;
    let given_salt = bytes(args, "salt")?;
    // HKDF's salt is optional by design (RFC 5869 §2.2); the password hashes need one.
    let generated = given_salt.is_none() && !algorithm.starts_with("hkdf");
    let salt = match given_salt {
        Some(s) => s,
        None if generated => rand::rng().random::<[u8; 16]>().to_vec(),
        None => Vec::new(),
    };
    let mut out = vec![0u8; length];
    let (phc, params, extra) = match algorithm {
        "argon2id" | "argon2i" | "argon2d" => {
            let (phc, params) = argon2_hash(args, algorithm, &password, &salt, &mut out)?;
            (phc, params, None)
        }
        "scrypt" => {
            let (phc, params) = scrypt_hash(args, &password, &salt, &mut out)?;
            (phc, params, None)
        }
        "pbkdf2-sha1" | "pbkdf2-sha256" | "pbkdf2-sha512" => {
            let rounds = u32_param(args, "iterations")?;
            check_pbkdf2_cost(algorithm, rounds, length)?;
            match algorithm {
                "pbkdf2-sha1" => {
                    pbkdf2::pbkdf2_hmac::<sha1::Sha1>(&password, &salt, rounds, &mut out)
                }
                "pbkdf2-sha512" => {
                    pbkdf2::pbkdf2_hmac::<sha2::Sha512>(&password, &salt, rounds, &mut out)
                }
                _ => pbkdf2::pbkdf2_hmac::<sha2::Sha256>(&password, &salt, rounds, &mut out),
            }
            (None, json!({ "iterations": rounds }), None)
        }
        _ => {
            let info = bytes(args, "info")?.unwrap_or_default();
            let salt_opt = (!salt.is_empty()).then_some(salt.as_slice());
            let prk = if algorithm == "hkdf-sha512" {
                hkdf_with!(sha2::Sha512, salt_opt, &password, &info, &mut out)
            } else {
                hkdf_with!(sha2::Sha256, salt_opt, &password, &info, &mut out)
            };
            (None, json!({ "info": hex::encode(&info) }), Some(prk))
        }
    };
    let hex_out = hex::encode(&out);
    let mut data = json!({
        "output": phc.clone().unwrap_or_else(|| hex_out.clone()),
        "algorithm": algorithm,
        "phc": phc,
        "hex": hex_out,
        "base64": STANDARD.encode(&out),
        "salt": hex::encode(&salt),
        "saltGenerated": generated,
        "length": length,
        "params": params,
    });
    if let Some(prk) = extra {
        data["prk"] = Value::String(prk);
    }
    // No PHC string (PBKDF2, HKDF, or sizes outside its limits): leave the field out.
    if let Value::Object(m) = &mut data {
        m.retain(|_, v| !v.is_null());
    }
    Ok(data)
}

fn argon2_algorithm(name: &str) -> Algorithm {
    match name {
        "argon2i" => Algorithm::Argon2i,
        "argon2d" => Algorithm::Argon2d,
        _ => Algorithm::Argon2id,
    }
}

/// PBKDF2 HMAC computations: the iterations for each hash-sized block of output. Ten million
/// take seconds in a release build (the catalogue's iteration limit at one block).
const MAX_PBKDF2_WORK: u64 = 10_000_000;

fn check_pbkdf2_cost(algorithm: &str, rounds: u32, length: usize) -> Result<(), ToolError> {
    let hash_len: u64 = match algorithm {
        "pbkdf2-sha1" => 20,
        "pbkdf2-sha512" => 64,
        _ => 32,
    };
    let blocks = (length as u64).div_ceil(hash_len);
    if u64::from(rounds) * blocks > MAX_PBKDF2_WORK {
        return Err(constraint(format!(
            "PBKDF2 runs the iterations once per {hash_len}-byte block of output: {rounds} iterations × {blocks} blocks exceeds the limit of {MAX_PBKDF2_WORK} (seconds of work); lower iterations or length"
        )));
    }
    Ok(())
}

fn check_argon2_cost(m: u32, t: u32, p: u32) -> Result<(), ToolError> {
    if u64::from(m) > MAX_MEMORY_KIB {
        return Err(constraint(format!(
            "Argon2 memory {m} KiB exceeds the limit of {MAX_MEMORY_KIB} KiB (1 GiB)"
        )));
    }
    if u64::from(m) * u64::from(t) > MAX_WORK_KIB {
        return Err(constraint(format!(
            "Argon2 memory × iterations = {m} KiB × {t} exceeds the limit of {MAX_WORK_KIB} KiB; lower one of them"
        )));
    }
    if p > 16 {
        return Err(constraint(format!(
            "Argon2 parallelism {p} exceeds the limit of 16"
        )));
    }
    if m < 8 * p {
        return Err(ToolError::invalid(format!(
            "Argon2 memory must be at least 8 KiB per lane: {m} KiB is too little for parallelism {p}"
        )));
    }
    Ok(())
}

fn argon2_hash(
    args: &Args,
    name: &str,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> Result<(Option<String>, Value), ToolError> {
    let (m, t, p) = (
        u32_param(args, "memory")?,
        u32_param(args, "timeCost")?,
        u32_param(args, "parallelism")?,
    );
    check_argon2_cost(m, t, p)?;
    if salt.len() < argon2::MIN_SALT_LEN {
        return Err(ToolError::invalid(format!(
            "Argon2 needs a salt of at least 8 bytes; this one has {}",
            salt.len()
        )));
    }
    let mut builder = ParamsBuilder::new();
    builder.m_cost(m).t_cost(t).p_cost(p);
    if let Some(ad) = bytes(args, "associatedData")? {
        let ad = AssociatedData::new(&ad)
            .map_err(|e| ToolError::invalid(format!("associatedData: {e} (at most 32 bytes)")))?;
        builder.data(ad);
    }
    let params = builder
        .build()
        .map_err(|e| ToolError::invalid(format!("invalid Argon2 parameters: {e}")))?;
    let secret = bytes(args, "secret")?;
    let algorithm = argon2_algorithm(name);
    let context = match &secret {
        Some(key) => Argon2::new_with_secret(key, algorithm, Version::V0x13, params.clone())
            .map_err(|e| ToolError::invalid(format!("secret: {e}")))?,
        None => Argon2::new(algorithm, Version::V0x13, params.clone()),
    };
    context
        .hash_password_into(password, salt, out)
        .map_err(|e| ToolError::invalid(format!("Argon2 failed: {e}")))?;
    // A PHC string holds 8-48 salt bytes and 10-64 output bytes; outside that only raw output.
    let phc = (|| {
        Some(
            PasswordHash {
                algorithm: algorithm.ident(),
                version: Some(Version::V0x13.into()),
                params: ParamsString::try_from(&params).ok()?,
                salt: Some(Salt::new(salt).ok()?),
                hash: Some(Output::new(out).ok()?),
            }
            .to_string(),
        )
    })();
    Ok((
        phc,
        json!({ "memory": m, "timeCost": t, "parallelism": p, "version": 19, "secret": secret.is_some() }),
    ))
}

fn check_scrypt_cost(log_n: u32, r: u32, p: u32) -> Result<(), ToolError> {
    if log_n > 20 {
        return Err(constraint(format!(
            "scrypt log2(N) {log_n} exceeds the limit of 20"
        )));
    }
    // ROMix uses 128·r·N bytes; p runs it that many times.
    let memory_kib = (128u64 * u64::from(r)) << log_n >> 10;
    if memory_kib > MAX_MEMORY_KIB {
        return Err(constraint(format!(
            "scrypt memory 128·r·N = {memory_kib} KiB exceeds the limit of {MAX_MEMORY_KIB} KiB (1 GiB); lower logN or blockSize"
        )));
    }
    if memory_kib * u64::from(p) > MAX_WORK_KIB {
        return Err(constraint(format!(
            "scrypt memory × parallelism = {memory_kib} KiB × {p} exceeds the limit of {MAX_WORK_KIB} KiB"
        )));
    }
    Ok(())
}

fn scrypt_params(log_n: u32, r: u32, p: u32) -> Result<scrypt::Params, ToolError> {
    check_scrypt_cost(log_n, r, p)?;
    let log_n = u8::try_from(log_n).unwrap_or(u8::MAX);
    scrypt::Params::new(log_n, r, p).map_err(|e| {
        ToolError::invalid(format!(
            "invalid scrypt parameters (logN {log_n}, r {r}, p {p}): {e}"
        ))
    })
}

fn scrypt_hash(
    args: &Args,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> Result<(Option<String>, Value), ToolError> {
    let (log_n, r, p) = (
        u32_param(args, "logN")?,
        u32_param(args, "blockSize")?,
        u32_param(args, "parallelism")?,
    );
    let params = scrypt_params(log_n, r, p)?;
    scrypt::scrypt(password, salt, &params, out)
        .map_err(|e| ToolError::invalid(format!("scrypt failed: {e}")))?;
    let phc = (|| {
        let mut ps = ParamsString::new();
        ps.add_decimal("ln", log_n).ok()?;
        ps.add_decimal("r", r).ok()?;
        ps.add_decimal("p", p).ok()?;
        Some(
            PasswordHash {
                algorithm: Ident::new("scrypt").ok()?,
                version: None,
                params: ps,
                salt: Some(Salt::new(salt).ok()?),
                hash: Some(Output::new(out).ok()?),
            }
            .to_string(),
        )
    })();
    Ok((
        phc,
        json!({ "logN": log_n, "N": 1u64 << log_n, "blockSize": r, "parallelism": p }),
    ))
}

/// Checks a password against an Argon2 or scrypt PHC string, after capping its costs.
fn verify(args: &Args) -> ToolOutcome {
    let Some(text) = args.opt_str("hash").map(str::trim) else {
        return Err(ToolError::invalid(
            "verify mode needs 'hash': a PHC string such as $argon2id$v=19$m=19456,t=2,p=1$… or $scrypt$ln=17,r=8,p=1$…",
        ));
    };
    let password = bytes(args, "password")?.unwrap_or_default();
    let parsed = PasswordHash::new(text).map_err(|e| {
        ToolError::invalid(format!(
            "'{}' is not a PHC string: {e}",
            crate::text::preview(text, 60)
        ))
    })?;
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else {
        return Err(ToolError::invalid(
            "the PHC string has no salt and hash fields to verify against",
        ));
    };
    let algorithm = parsed.algorithm.as_str().to_string();
    let decimal = |name: &str| parsed.params.get_decimal(name);
    let (valid, params) = match algorithm.as_str() {
        "argon2id" | "argon2i" | "argon2d" => {
            let (Some(m), Some(t), Some(p)) = (decimal("m"), decimal("t"), decimal("p")) else {
                return Err(ToolError::invalid(
                    "an Argon2 PHC string needs m, t and p parameters",
                ));
            };
            check_argon2_cost(m, t, p)?;
            let version = parsed.version.unwrap_or(0x10);
            let params = argon2::Params::try_from(&parsed)
                .map_err(|e| ToolError::invalid(format!("invalid Argon2 parameters: {e}")))?;
            let version = Version::try_from(version)
                .map_err(|e| ToolError::invalid(format!("Argon2 version {version}: {e}")))?;
            let secret = bytes(args, "secret")?;
            let context = match &secret {
                Some(key) => {
                    Argon2::new_with_secret(key, argon2_algorithm(&algorithm), version, params)
                        .map_err(|e| ToolError::invalid(format!("secret: {e}")))?
                }
                None => Argon2::new(argon2_algorithm(&algorithm), version, params),
            };
            let mut out = vec![0u8; expected.len()];
            context
                .hash_password_into(&password, salt.as_ref(), &mut out)
                .map_err(|e| ToolError::invalid(format!("Argon2 failed: {e}")))?;
            (
                Output::new(&out).is_ok_and(|o| o == *expected),
                json!({ "memory": m, "timeCost": t, "parallelism": p, "version": u32::from(version) }),
            )
        }
        "scrypt" => {
            let (Some(log_n), Some(r), Some(p)) = (decimal("ln"), decimal("r"), decimal("p"))
            else {
                return Err(ToolError::invalid(
                    "a scrypt PHC string needs ln, r and p parameters",
                ));
            };
            let params = scrypt_params(log_n, r, p)?;
            let mut out = vec![0u8; expected.len()];
            scrypt::scrypt(&password, salt.as_ref(), &params, &mut out)
                .map_err(|e| ToolError::invalid(format!("scrypt failed: {e}")))?;
            (
                Output::new(&out).is_ok_and(|o| o == *expected),
                json!({ "logN": log_n, "N": 1u64 << log_n.min(63), "blockSize": r, "parallelism": p }),
            )
        }
        other => {
            return Err(ToolError::invalid(format!(
                "verify supports Argon2 and scrypt PHC strings, not '${other}$'; for bcrypt use bcrypt-hasher, and for PBKDF2 or HKDF derive again with the same salt and compare"
            )));
        }
    };
    Ok(json!({
        "valid": valid,
        "algorithm": algorithm,
        "params": params,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn derive(args: Value) -> Value {
        run_ok("password-hash-generator", args)
    }

    // RFC 6070 PBKDF2-HMAC-SHA1 vectors 1 and 3, and RFC 7914 §11 for PBKDF2-HMAC-SHA256.
    #[test]
    fn pbkdf2_rfc_vectors() {
        let one = derive(json!({
            "algorithm": "pbkdf2-sha1", "password": "password", "salt": "salt",
            "iterations": 1, "length": 20,
        }));
        assert_eq!(one["hex"], "0c60c80f961f0e71f3a9b524af6012062fe037a6");
        assert_eq!(one["output"], one["hex"]);
        assert_eq!(one.get("phc"), None);
        let many = derive(json!({
            "algorithm": "pbkdf2-sha1", "password": "password", "salt": "salt",
            "iterations": 4096, "length": 20,
        }));
        assert_eq!(many["hex"], "4b007901b765489abead49d926f721d065a429c1");
        let sha256 = derive(json!({
            "algorithm": "pbkdf2-sha256", "password": "passwd", "salt": "salt",
            "iterations": 1, "length": 64,
        }));
        assert_eq!(
            sha256["hex"],
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        );
    }

    // RFC 7914 §12, second vector.
    #[test]
    fn scrypt_rfc7914_vector_and_verify() {
        let data = derive(json!({
            "algorithm": "scrypt", "password": "password", "salt": "NaCl",
            "logN": 10, "blockSize": 8, "parallelism": 16, "length": 64,
        }));
        assert_eq!(
            data["hex"],
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        );
        // A 4-byte salt is below the PHC minimum of 8, so only raw output is given.
        assert_eq!(data.get("phc"), None);
        let small = derive(json!({
            "algorithm": "scrypt", "password": "password", "salt": "saltsalt",
            "logN": 4, "blockSize": 1, "parallelism": 1,
        }));
        let phc = small["phc"].as_str().unwrap();
        assert!(
            phc.starts_with("$scrypt$ln=4,r=1,p=1$c2FsdHNhbHQ$"),
            "{phc}"
        );
        let ok = derive(json!({"mode": "verify", "password": "password", "hash": phc}));
        assert_eq!(ok["valid"], true);
        let bad = derive(json!({"mode": "verify", "password": "Password", "hash": phc}));
        assert_eq!(bad["valid"], false);
    }

    // RFC 5869 Appendix A, test cases 1 and 3.
    #[test]
    fn hkdf_rfc5869_vectors() {
        let one = derive(json!({
            "algorithm": "hkdf-sha256", "inputEncoding": "hex",
            "password": "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            "salt": "000102030405060708090a0b0c", "info": "f0f1f2f3f4f5f6f7f8f9", "length": 42,
        }));
        assert_eq!(
            one["prk"],
            "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
        );
        assert_eq!(
            one["hex"],
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        );
        let three = derive(json!({
            "algorithm": "hkdf-sha256", "inputEncoding": "hex",
            "password": "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "length": 42,
        }));
        assert_eq!(
            three["hex"],
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        );
        assert_eq!(three["saltGenerated"], false);
    }

    // The argon2 crate's known-answer tests: the reference implementation's PHC vector, and
    // RFC 9106 §5.3 (Argon2id with secret and associated data).
    #[test]
    fn argon2_reference_vectors() {
        let data = derive(json!({
            "password": "password", "salt": "somesalt", "memory": 256, "timeCost": 2, "parallelism": 1,
        }));
        assert_eq!(
            data["phc"],
            "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"
        );
        let rfc = derive(json!({
            "algorithm": "argon2id", "inputEncoding": "hex",
            "password": "01".repeat(32), "salt": "02".repeat(16),
            "secret": "03".repeat(8), "associatedData": "04".repeat(12),
            "memory": 32, "timeCost": 3, "parallelism": 4,
        }));
        assert_eq!(
            rfc["hex"],
            "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"
        );
        let verified = derive(json!({
            "mode": "verify", "password": "password",
            "hash": "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        }));
        assert_eq!(verified["valid"], true);
        assert_eq!(verified["algorithm"], "argon2id");
    }

    #[test]
    fn random_salt_is_reported() {
        let data = derive(json!({
            "algorithm": "argon2i", "password": "x", "memory": 64, "timeCost": 1,
        }));
        assert_eq!(data["saltGenerated"], true);
        assert_eq!(data["salt"].as_str().unwrap().len(), 32);
        assert!(
            data["phc"]
                .as_str()
                .unwrap()
                .starts_with("$argon2i$v=19$m=64,t=1,p=1$")
        );
    }

    #[test]
    fn costs_are_capped_and_bad_input_rejected() {
        let (code, _) = run_err(
            "password-hash-generator",
            json!({"password": "x", "memory": 2_000_000}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        let (code, msg) = run_err(
            "password-hash-generator",
            json!({"algorithm": "scrypt", "password": "x", "logN": 20, "blockSize": 16}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("1 GiB"), "{msg}");
        let (code, msg) = run_err(
            "password-hash-generator",
            json!({"mode": "verify", "password": "x",
                   "hash": "$argon2id$v=19$m=4194304,t=1,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("exceeds the limit"), "{msg}");
        let (code, msg) = run_err(
            "password-hash-generator",
            json!({"password": "x", "salt": "short"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("at least 8 bytes"), "{msg}");
        let (code, _) = run_err(
            "password-hash-generator",
            json!({"mode": "verify", "password": "x", "hash": "$2b$10$abc"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn pbkdf2_work_counts_every_block_of_output() {
        let (code, msg) = run_err(
            "password-hash-generator",
            json!({"algorithm": "pbkdf2-sha1", "password": "p", "salt": "s", "iterations": 10_000_000, "length": 1024}),
        );
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert_eq!(
            msg,
            "PBKDF2 runs the iterations once per 20-byte block of output: 10000000 iterations × 52 blocks exceeds the limit of 10000000 (seconds of work); lower iterations or length"
        );
    }
}
