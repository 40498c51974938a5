//! ssh-key-parser: OpenSSH and RFC 4716 keys, fingerprints and randomart.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use sha2::Digest;

pub(super) fn ssh_key_parser(args: &Args) -> ToolOutcome {
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
