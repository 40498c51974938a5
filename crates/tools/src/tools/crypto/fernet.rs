//! fernet-encryptor: Fernet symmetric encryption (github.com/fernet/spec; AES-128-CBC with
//! HMAC-SHA256, as Python's cryptography.fernet) via the `fernet` crate — key generation,
//! encryption, and decryption with an optional time-to-live.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("fernet-encryptor", fernet_encryptor)];

/// Seconds a token's timestamp may lie in the future (the spec's and the crate's allowance).
const MAX_CLOCK_SKEW: u64 = 60;
/// Version byte, timestamp, IV and HMAC: the fixed part of a token (spec "Token Format").
const FIXED_LEN: usize = 1 + 8 + 16 + 32;

fn fernet_encryptor(args: &Args) -> ToolOutcome {
    match args.str("mode")? {
        "generate-key" => Ok(json!({ "output": fernet::Fernet::generate_key() })),
        "decrypt" => decrypt(args),
        _ => encrypt(args),
    }
}

fn cipher(key: &str) -> Result<fernet::Fernet, ToolError> {
    fernet::Fernet::new(key.trim()).ok_or_else(|| {
        ToolError::invalid(
            "the key is not a Fernet key: it must be 32 bytes in URL-safe Base64 (44 characters ending in '='), as from generate-key mode or Fernet.generate_key()",
        )
    })
}

fn now() -> u64 {
    u64::try_from(chrono::Utc::now().timestamp()).unwrap_or(0)
}

fn iso(secs: u64) -> Option<String> {
    i64::try_from(secs)
        .ok()
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn encrypt(args: &Args) -> ToolOutcome {
    let Some(input) = args.opt_str("input") else {
        return Err(ToolError::invalid(
            "encrypt mode needs 'input': the message to encrypt",
        ));
    };
    let plaintext = match args.str("inputEncoding")? {
        "base64" => decode_base64_param("input", input)?,
        _ => input.as_bytes().to_vec(),
    };
    let (key, generated) = match args.opt_str("key") {
        Some(k) => (k.trim().to_string(), false),
        None => (fernet::Fernet::generate_key(), true),
    };
    let token = cipher(&key)?.encrypt(&plaintext);
    Ok(json!({
        "output": token,
        "key": key,
        "keyGenerated": generated,
        "issuedAt": iso(now()),
    }))
}

fn decrypt(args: &Args) -> ToolOutcome {
    let Some(token) = args.opt_str("input").map(str::trim) else {
        return Err(ToolError::invalid(
            "decrypt mode needs 'input': the Fernet token",
        ));
    };
    let Some(key) = args.opt_str("key") else {
        return Err(ToolError::invalid(
            "decrypt mode needs the 'key' the token was made with",
        ));
    };
    let f = cipher(key)?;
    let timestamp = token_timestamp(token)?;
    let now = now();
    // Checked here, before the crate adds ttl to the timestamp, to say what is wrong.
    if timestamp > now + MAX_CLOCK_SKEW {
        return Err(ToolError::invalid(format!(
            "the token's timestamp ({}) is in the future; the sender's clock is wrong or the token was forged",
            iso(timestamp).unwrap_or_default()
        )));
    }
    let ttl = u64::try_from(args.i64("ttl")?).unwrap_or(0);
    if ttl > 0 && timestamp.saturating_add(ttl) < now {
        return Err(ToolError::invalid(format!(
            "the token has expired: issued {}, valid for {ttl} s, so until {}",
            iso(timestamp).unwrap_or_default(),
            iso(timestamp.saturating_add(ttl)).unwrap_or_default()
        )));
    }
    let plain = f.decrypt(token).map_err(|_| {
        ToolError::invalid(
            "decryption failed: the key is wrong or the token was altered (HMAC verification failed)",
        )
    })?;
    let (output, encoding) = match String::from_utf8(plain) {
        Ok(text) => (text, "utf-8"),
        Err(e) => (STANDARD.encode(e.into_bytes()), "base64"),
    };
    Ok(json!({
        "output": output,
        "outputEncoding": encoding,
        "issuedAt": iso(timestamp),
        "timestamp": timestamp,
    }))
}

/// Checks the token's framing and reads its timestamp (spec "Token Format": version 0x80,
/// 64-bit big-endian seconds, 16-byte IV, whole AES blocks of ciphertext, 32-byte HMAC).
fn token_timestamp(token: &str) -> Result<u64, ToolError> {
    let unpadded = token.trim_end_matches('=');
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(unpadded)
        .map_err(|e| {
            ToolError::invalid(format!(
                "the token is not URL-safe Base64 ({e}); a Fernet token looks like gAAAAAB…"
            ))
        })?;
    if bytes.first() != Some(&0x80) {
        return Err(ToolError::invalid(
            "the token does not start with the Fernet version byte 0x80 (text 'gAAAAA')",
        ));
    }
    let body = bytes.len().saturating_sub(FIXED_LEN);
    if bytes.len() < FIXED_LEN + 16 || body % 16 != 0 {
        return Err(ToolError::invalid(format!(
            "the token is {} bytes; a Fernet token is {FIXED_LEN} bytes plus a non-empty multiple of 16, so it is truncated or corrupt",
            bytes.len()
        )));
    }
    let mut ts = [0u8; 8];
    ts.copy_from_slice(&bytes[1..9]);
    Ok(u64::from_be_bytes(ts))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use base64::Engine;
    use serde_json::json;

    // github.com/fernet/spec generate.json / verify.json.
    const KEY: &str = "cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=";
    const TOKEN: &str = "gAAAAAAdwJ6wAAECAwQFBgcICQoLDA0ODy021cpGVWKZ_eEwCGM4BLLF_5CV9dOPmrhuVUPgJobwOz7JcbmrR64jVmpU4IwqDA==";

    #[test]
    fn decrypts_the_spec_vector() {
        let data = run_ok(
            "fernet-encryptor",
            json!({"mode": "decrypt", "input": TOKEN, "key": KEY}),
        );
        assert_eq!(data["output"], "hello");
        // The spec's "now": 1985-10-26T01:20:00-07:00.
        assert_eq!(data["issuedAt"], "1985-10-26T08:20:00Z");
        assert_eq!(data["timestamp"], 499_162_800);
    }

    #[test]
    fn encrypt_round_trips_with_a_fresh_iv() {
        let a = run_ok("fernet-encryptor", json!({"input": "hello", "key": KEY}));
        let b = run_ok("fernet-encryptor", json!({"input": "hello", "key": KEY}));
        assert_ne!(a["output"], b["output"]);
        let token = a["output"].as_str().unwrap();
        let bytes = base64::engine::general_purpose::URL_SAFE
            .decode(token)
            .unwrap();
        // Version 0x80, then 8 + 16 bytes, one AES block for 5 bytes of text, 32-byte HMAC.
        assert_eq!(bytes[0], 0x80);
        assert_eq!(bytes.len(), 1 + 8 + 16 + 16 + 32);
        assert_eq!(a["keyGenerated"], false);
        let back = run_ok(
            "fernet-encryptor",
            json!({"mode": "decrypt", "input": token, "key": KEY, "ttl": 60}),
        );
        assert_eq!(back["output"], "hello");
        let key = run_ok("fernet-encryptor", json!({"mode": "generate-key"}));
        assert_eq!(key["output"].as_str().unwrap().len(), 44);
        let own = run_ok(
            "fernet-encryptor",
            json!({"input": "AP8=", "inputEncoding": "base64"}),
        );
        assert_eq!(own["keyGenerated"], true);
        let binary = run_ok(
            "fernet-encryptor",
            json!({"mode": "decrypt", "input": own["output"], "key": own["key"]}),
        );
        assert_eq!(binary["output"], "AP8=");
        assert_eq!(binary["outputEncoding"], "base64");
    }

    // verify.json says the token is valid for 60 s after 1985-10-26T08:20:00Z; today it is not.
    #[test]
    fn ttl_expiry_is_reported() {
        let (code, msg) = run_err(
            "fernet-encryptor",
            json!({"mode": "decrypt", "input": TOKEN, "key": KEY, "ttl": 60}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("expired"), "{msg}");
        assert!(msg.contains("1985-10-26T08:21:00Z"), "{msg}");
    }

    // invalid.json: "incorrect mac", "too short" and "payload padding error" (the latter two
    // rejected on framing or HMAC), plus a wrong key.
    #[test]
    fn wrong_key_and_tampered_tokens_are_rejected() {
        let other = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        let (code, msg) = run_err(
            "fernet-encryptor",
            json!({"mode": "decrypt", "input": TOKEN, "key": other}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("key is wrong"), "{msg}");
        for token in [
            "gAAAAAAdwJ6xAAECAwQFBgcICQoLDA0OD3HkMATM5lFqGaerZ-fWPAl1-szkFVzXTuGb4hR8AKtwcaX1YdykQUFBQUFBQUFBQQ==",
            "gAAAAAAdwJ6xAAECAwQFBgcICQoLDA0OD3HkMATM5lFqGaerZ-fWPA==",
            "gAAAAAAdwJ6xAAECAwQFBgcICQoLDA0ODz4LEpdELGQAad7aNEHbf-JkLPIpuiYRLQ3RtXatOYREu2FWke6CnJNYIbkuKNqOhw==",
            "%%%%%%%%%%%%%AECAwQFBgcICQoLDA0OD3HkMATM5lFqGaerZ-fWPAl1-szkFVzXTuGb4hR8AKtwcaX1YdykRtfsH-p1YsUD2Q==",
        ] {
            let (code, _) = run_err(
                "fernet-encryptor",
                json!({"mode": "decrypt", "input": token, "key": KEY}),
            );
            assert_eq!(code, ErrorCode::InvalidInput, "{token}");
        }
        let (code, msg) = run_err(
            "fernet-encryptor",
            json!({"input": "x", "key": "too-short"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("32 bytes"), "{msg}");
    }
}
