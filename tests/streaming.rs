//! A `@path` input that streams (base64-encoder, hash-generator) prints exactly the bytes the
//! in-memory path prints for the same text given on stdin, apart from the execution time.

use crate::common;

use common::Test;
use std::path::Path;

/// stdout with `executionTime`'s value blanked, so two runs can be compared byte for byte.
fn normalised(stdout: &str) -> String {
    let re = regex::Regex::new(r#""executionTime":[0-9.e+-]+"#).unwrap();
    re.replace(stdout, r#""executionTime":0"#).into_owned()
}

/// Runs `tool` with `--input @file` and with the same bytes on stdin (`--input -`) and checks
/// both print the same result and exit code; returns the streamed result.
#[track_caller]
fn same_both_ways(
    env: &[(&str, &str)],
    dir: &Path,
    content: &[u8],
    tool: &str,
    extra: &[&str],
) -> String {
    let file = dir.join("input");
    std::fs::write(&file, content).unwrap();
    let at = format!("@{}", file.display());
    let mut args = vec!["run", tool, "--input", at.as_str()];
    args.extend_from_slice(extra);
    let with_env = || {
        let mut t = Test::new();
        for (k, v) in env {
            t.env(k, v);
        }
        t
    };
    let streamed = with_env().args(&args).run();
    args[3] = "-";
    let in_memory = with_env().args(&args).stdin(content.to_vec()).run();
    assert_eq!(streamed.code, in_memory.code, "{}", streamed.stderr);
    assert_eq!(streamed.stderr, in_memory.stderr);
    assert_eq!(normalised(&streamed.stdout), normalised(&in_memory.stdout));
    streamed.stdout
}

/// Text that needs JSON escapes, multi-byte characters cut by every chunk boundary, and more
/// than one 1 MiB chunk.
fn awkward_text(len: usize) -> String {
    let unit = "line \"one\"\t\\ café 東京 😀\r\n\u{1}";
    unit.repeat(len / unit.len() + 1)
}

#[test]
fn base64_streams_exactly_as_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let big = awkward_text(2_500_000);
    let out = same_both_ways(&[], dir.path(), big.as_bytes(), "base64-encoder", &[]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    use base64::Engine;
    let expected = base64::engine::general_purpose::STANDARD.encode(big.as_bytes());
    assert_eq!(v["data"]["output"], expected);
    assert_eq!(v["metadata"]["outputSize"], expected.len() + 50);

    for extra in [
        &["--lineLength", "76"][..],
        &["--variant", "urlsafe", "--padding", "false"],
        &["--lineLength", "1"],
    ] {
        same_both_ways(&[], dir.path(), big.as_bytes(), "base64-encoder", extra);
    }
    same_both_ways(&[], dir.path(), b"x", "base64-encoder", &[]);

    // Decoding: text comes back escaped, binary as Base64, wrapped and URL-safe input too.
    let encoded = base64::engine::general_purpose::STANDARD.encode(big.as_bytes());
    let out = same_both_ways(
        &[],
        dir.path(),
        encoded.as_bytes(),
        "base64-encoder",
        &["--mode", "decode"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["data"]["output"], big.as_str());
    assert_eq!(v["data"]["outputEncoding"], "utf-8");

    let binary: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let wrapped = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(&binary)
        .as_bytes()
        .chunks(76)
        .map(|l| String::from_utf8(l.to_vec()).unwrap())
        .collect::<Vec<_>>()
        .join("\r\n");
    let out = same_both_ways(
        &[],
        dir.path(),
        wrapped.as_bytes(),
        "base64-encoder",
        &["--mode", "decode"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["data"]["outputEncoding"], "base64");
    assert_eq!(
        v["data"]["output"],
        base64::engine::general_purpose::STANDARD.encode(&binary)
    );
}

#[test]
fn streamed_errors_match_the_in_memory_ones() {
    let mut t = Test::new();
    let dir = tempfile::tempdir().unwrap();
    // A bad character in the second megabyte, found by the first pass before anything prints.
    let mut encoded = "QUJD".repeat(400_000);
    encoded.replace_range(1_300_001..1_300_002, "*");
    let out = same_both_ways(
        &[],
        dir.path(),
        encoded.as_bytes(),
        "base64-encoder",
        &["--mode", "decode"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["success"], false);
    assert_eq!(v["errorCode"], "INVALID_INPUT");
    assert_eq!(v["data"]["offset"], 1_300_001);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("'*' at offset 1300001")
    );

    // A file that is not UTF-8 is hashed and encoded as its bytes, like sha256sum and base64
    // do; only a Base64 text to decode must be Base64.
    let mut bytes = awkward_text(1_200_000).into_bytes();
    bytes[1_100_000] = 0xff;
    let file = dir.path().join("bad");
    std::fs::write(&file, &bytes).unwrap();
    let at = format!("@{}", file.display());
    use base64::Engine;
    use sha2::Digest;
    let hashed = t
        .args(["run", "hash-generator", "--input", &at])
        .run()
        .json();
    assert_eq!(
        hashed["data"]["output"],
        hex::encode(sha2::Sha256::digest(&bytes))
    );
    let encoded = t
        .args(["run", "base64-encoder", "--input", &at])
        .run()
        .json();
    assert_eq!(
        encoded["data"]["output"],
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let decoded = t
        .args(["run", "base64-encoder", "--mode", "decode", "--input", &at])
        .run();
    assert_eq!(decoded.code, 1);
    assert!(
        decoded.json()["error"]
            .as_str()
            .unwrap()
            .contains("'\"' at offset 5 is not")
    );

    // Unknown options are reported by the ordinary path, file or not.
    same_both_ways(
        &[],
        dir.path(),
        b"abc",
        "hash-generator",
        &["--algorithm", "nope"],
    );
    let missing = t
        .args(["run", "base64-encoder", "--input", "@/nonexistent/file"])
        .run();
    assert_eq!(missing.code, 2);
    assert!(
        missing.stdout.contains("cannot read the file"),
        "{}",
        missing.stdout
    );
}

#[test]
fn hashes_stream_exactly_as_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let big = awkward_text(3_000_000);
    let out = same_both_ways(
        &[],
        dir.path(),
        big.as_bytes(),
        "hash-generator",
        &["--algorithm", "sha256"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    use sha2::Digest;
    assert_eq!(
        v["data"]["output"],
        hex::encode(sha2::Sha256::digest(big.as_bytes()))
    );
    assert_eq!(v["data"]["inputBytes"], big.len());
    same_both_ways(
        &[],
        dir.path(),
        big.as_bytes(),
        "hash-generator",
        &["--algorithm", "all"],
    );
    same_both_ways(
        &[],
        dir.path(),
        big.as_bytes(),
        "hash-generator",
        &["--algorithm", "md5", "--outputEncoding", "base64"],
    );
    // Hex input is decoded whole, by the ordinary path.
    same_both_ways(
        &[],
        dir.path(),
        b"616263",
        "hash-generator",
        &["--inputEncoding", "hex"],
    );
}

#[test]
fn limits_and_output_files_take_the_ordinary_path() {
    let mut t = Test::new();
    let dir = tempfile::tempdir().unwrap();
    let text = "a".repeat(300_000);
    // An output over the limit is the same error as without streaming.
    let out = same_both_ways(
        &[("CMPX_MAX_OUTPUT", "1K")],
        dir.path(),
        text.as_bytes(),
        "base64-encoder",
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["success"], false);
    assert_eq!(v["data"]["outputTooLarge"], true);
    // The output, and `{"output":"","mode":"encode","variant":"standard"}` around it.
    assert_eq!(v["data"]["size"], 400_000 + 50);

    // --output-file gets the whole output; --pretty prints indented JSON.
    let file = dir.path().join("in.txt");
    std::fs::write(&file, &text).unwrap();
    let saved = dir.path().join("out.b64");
    let out = t
        .args([
            "run",
            "base64-encoder",
            "--input",
            &format!("@{}", file.display()),
            "--output-file",
            &saved.display().to_string(),
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let written = std::fs::read(&saved).unwrap();
    assert_eq!(written.len(), 400_000);
    use sha2::Digest;
    let v = out.json();
    assert_eq!(v["data"]["outputFile"]["bytes"], 400_000);
    assert_eq!(
        v["data"]["outputFile"]["sha256"],
        hex::encode(sha2::Sha256::digest(&written))
    );
    let pretty = t
        .args([
            "run",
            "hash-generator",
            "--input",
            &format!("@{}", file.display()),
            "--pretty",
        ])
        .run();
    assert!(pretty.stdout.starts_with("{\n"), "{}", pretty.stdout);
}
