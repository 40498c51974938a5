//! Message digests and MACs: hash-generator (MD5 … BLAKE3) and hmac-generator (RFC 2104).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::chunks::{Chunks, Stop};
use crate::tools::kit::data::with_output;
use crate::tools::kit::plan::{Output, Plan, run_in_memory, stop_error};
use crate::tools::kit::tool::{Stream, Tool};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use digest::Digest;
use hmac::{Hmac, KeyInit, Mac, SimpleHmac};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("hash-generator", hash_generator).streams(Stream {
        param: "input",
        plan: plan_hash,
    }),
    Tool::new("hmac-generator", hmac_generator),
];

/// A digest fed in pieces: RustCrypto's `Digest` types and BLAKE3 behind one interface.
trait Hasher {
    fn update(&mut self, data: &[u8]);
    fn finish(self: Box<Self>) -> Vec<u8>;
}

struct Crypto<D>(D);

impl<D: Digest> Hasher for Crypto<D> {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finish(self: Box<Self>) -> Vec<u8> {
        self.0.finalize().to_vec()
    }
}

impl Hasher for blake3::Hasher {
    fn update(&mut self, data: &[u8]) {
        // Disambiguated: `blake3::Hasher::update` is an inherent method returning `&mut Self`.
        blake3::Hasher::update(self, data);
    }
    fn finish(self: Box<Self>) -> Vec<u8> {
        self.finalize().as_bytes().to_vec()
    }
}

type NewHasher = fn() -> Box<dyn Hasher>;

fn crypto<D: Digest + 'static>() -> Box<dyn Hasher> {
    Box::new(Crypto(D::new()))
}

/// Every hash-generator algorithm in the order `all` lists them.
const HASHES: &[(&str, NewHasher)] = &[
    ("md5", crypto::<md5::Md5>),
    ("sha1", crypto::<sha1::Sha1>),
    ("sha224", crypto::<sha2::Sha224>),
    ("sha256", crypto::<sha2::Sha256>),
    ("sha384", crypto::<sha2::Sha384>),
    ("sha512", crypto::<sha2::Sha512>),
    ("sha512-224", crypto::<sha2::Sha512_224>),
    ("sha512-256", crypto::<sha2::Sha512_256>),
    ("sha3-224", crypto::<sha3::Sha3_224>),
    ("sha3-256", crypto::<sha3::Sha3_256>),
    ("sha3-384", crypto::<sha3::Sha3_384>),
    ("sha3-512", crypto::<sha3::Sha3_512>),
    ("keccak256", crypto::<sha3::Keccak256>),
    ("blake2b-512", crypto::<blake2::Blake2b512>),
    ("blake2s-256", crypto::<blake2::Blake2s256>),
    ("blake3", || Box::new(blake3::Hasher::new())),
    ("ripemd160", crypto::<ripemd::Ripemd160>),
];

fn hash_generator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let encoding = args.str("inputEncoding")?;
    if encoding == "text" {
        let plan = plan_hash(args, Chunks::text(input)).map_err(stop_error)?;
        return plan.map_or_else(
            || Err(ToolError::invalid("unsupported input")),
            run_in_memory,
        );
    }
    let data = decode_input("input", input, encoding)?;
    let (output, fields) = digest(args, |update| {
        update(&data);
        Ok::<(), ToolError>(())
    })?;
    Ok(with_output(output, Value::Object(fields)))
}

/// Text input is hashed piece by piece as it is read (a `@path` file as its bytes, text or
/// not, as `sha256sum` would); hex or Base64 input is decoded whole.
pub(crate) fn plan_hash<'a>(args: &Args, input: Chunks<'a>) -> Result<Option<Plan<'a>>, Stop> {
    if args.str("inputEncoding")? != "text" {
        return Ok(None);
    }
    let (output, fields) = digest(args, |update| {
        input.each(|piece| {
            update(piece);
            Ok(())
        })
    })?;
    Ok(Some(Plan {
        fields,
        output: Output::Ready(output),
    }))
}

/// Runs the chosen algorithm (or all of them) over what `feed` passes to its callback.
fn digest<E: From<ToolError>>(
    args: &Args,
    feed: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<(), E>,
) -> Result<(String, Map<String, Value>), E> {
    let algorithm = args.str("algorithm")?;
    let encoding = args.str("outputEncoding")?;
    // Decoded before any input is read, so a malformed digest fails fast.
    let expected = args
        .opt_str("expected")
        .map(|e| decode_expected("expected", "digest", e))
        .transpose()?;
    let chosen: Vec<(&str, NewHasher)> =
        if algorithm == "all" {
            HASHES.to_vec()
        } else {
            let found = HASHES.iter().find(|(name, _)| *name == algorithm);
            vec![*found.ok_or_else(|| {
                ToolError::invalid(format!("unsupported algorithm '{algorithm}'"))
            })?]
        };
    let mut hashers: Vec<Box<dyn Hasher>> = chosen.iter().map(|(_, new)| new()).collect();
    let mut bytes = 0u64;
    feed(&mut |piece: &[u8]| {
        bytes += piece.len() as u64;
        for h in &mut hashers {
            h.update(piece);
        }
    })?;
    let digests: Vec<Vec<u8>> = hashers.into_iter().map(Hasher::finish).collect();
    let mut fields = Map::new();
    fields.insert("algorithm".into(), json!(algorithm));
    if algorithm != "all" {
        fields.insert("bits".into(), json!(digests[0].len() * 8));
        fields.insert("inputBytes".into(), json!(bytes));
        if let Some(expected) = &expected {
            fields.insert("matches".into(), json!(same_digest(&digests[0], expected)));
        }
        return Ok((encode_output(&digests[0], encoding), fields));
    }
    let mut hashes = Map::new();
    let mut lines = Vec::new();
    let mut matched = None;
    for ((name, _), digest) in chosen.iter().zip(&digests) {
        let text = encode_output(digest, encoding);
        lines.push(format!("{name}: {text}"));
        hashes.insert(name.to_string(), Value::String(text));
        if let Some(expected) = &expected
            && same_digest(digest, expected)
            && matched.is_none()
        {
            matched = Some(*name);
        }
    }
    fields.insert("hashes".into(), Value::Object(hashes));
    fields.insert("inputBytes".into(), json!(bytes));
    if expected.is_some() {
        fields.insert("matches".into(), json!(matched.is_some()));
        fields.insert("matchedAlgorithm".into(), json!(matched));
    }
    Ok((lines.join("\n"), fields))
}

/// Compares a digest with the expected one in constant time (for equal lengths), so a
/// comparison used to check a secret-derived digest leaks nothing through its timing.
fn same_digest(digest: &[u8], expected: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    digest.len() == expected.len() && bool::from(digest.ct_eq(expected))
}

fn mac_with<M: Mac + KeyInit + Clone>(
    key: &[u8],
    message: &[u8],
    expected: Option<&[u8]>,
) -> (Vec<u8>, Option<bool>) {
    // HMAC accepts keys of any length (RFC 2104 §2), so this cannot fail.
    let Ok(mut mac) = <M as KeyInit>::new_from_slice(key) else {
        return (Vec::new(), None);
    };
    mac.update(message);
    let matches = expected.map(|e| mac.clone().verify_slice(e).is_ok());
    (mac.finalize().into_bytes().to_vec(), matches)
}

type MacFn = fn(&[u8], &[u8], Option<&[u8]>) -> (Vec<u8>, Option<bool>);

const MACS: &[(&str, MacFn)] = &[
    ("md5", mac_with::<Hmac<md5::Md5>>),
    ("sha1", mac_with::<Hmac<sha1::Sha1>>),
    ("sha224", mac_with::<Hmac<sha2::Sha224>>),
    ("sha256", mac_with::<Hmac<sha2::Sha256>>),
    ("sha384", mac_with::<Hmac<sha2::Sha384>>),
    ("sha512", mac_with::<Hmac<sha2::Sha512>>),
    // sha3's sponge is not an eager block hash, so it takes the generic HMAC construction.
    ("sha3-256", mac_with::<SimpleHmac<sha3::Sha3_256>>),
    ("sha3-512", mac_with::<SimpleHmac<sha3::Sha3_512>>),
];

fn hmac_generator(args: &Args) -> ToolOutcome {
    let key = decode_input("key", args.str("key")?, args.str("keyEncoding")?)?;
    let message = decode_input(
        "message",
        args.str("message")?,
        args.str("messageEncoding")?,
    )?;
    let algorithm = args.str("algorithm")?;
    let encoding = args.str("outputEncoding")?;
    let expected = args
        .opt_str("expected")
        .map(|e| decode_expected("expected", "MAC", e))
        .transpose()?;
    let f = MACS
        .iter()
        .find(|(name, _)| *name == algorithm)
        .map(|(_, f)| *f)
        .ok_or_else(|| ToolError::invalid(format!("unsupported algorithm '{algorithm}'")))?;
    let (tag, matches) = f(&key, &message, expected.as_deref());
    let mut out = json!({
        "output": encode_output(&tag, encoding),
        "algorithm": algorithm,
        "bits": tag.len() * 8,
    });
    if let Some(m) = matches {
        out["matches"] = Value::Bool(m);
    }
    Ok(out)
}

/// An expected digest or MAC given as hex (any case, whitespace ignored) or Base64 (standard
/// or URL-safe, padded or not). Hex is tried first: an even run of hex digits as long as a
/// digest is never also the Base64 of one of the same size.
fn decode_expected(name: &str, what: &str, text: &str) -> Result<Vec<u8>, ToolError> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let compact = compact
        .strip_prefix("0x")
        .or_else(|| compact.strip_prefix("0X"))
        .unwrap_or(&compact);
    if compact.bytes().all(|b| b.is_ascii_hexdigit())
        && let Ok(bytes) = hex::decode(compact)
    {
        return Ok(bytes);
    }
    decode_base64_param(name, compact).map_err(|_| {
        ToolError::invalid(format!(
            "parameter '{name}' must be the {what} in hexadecimal or Base64; '{}' is neither",
            crate::text::preview(text, 40)
        ))
    })
}

/// Decodes a text/hex/base64 parameter into the bytes to hash.
pub(crate) fn decode_input<'a>(
    name: &str,
    text: &'a str,
    encoding: &str,
) -> Result<Cow<'a, [u8]>, ToolError> {
    match encoding {
        "hex" => {
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            let digits = compact
                .strip_prefix("0x")
                .or_else(|| compact.strip_prefix("0X"))
                .unwrap_or(&compact);
            hex::decode(digits).map(Cow::Owned).map_err(|e| {
                ToolError::invalid(format!(
                    "parameter '{name}' is not valid hexadecimal: {e} (whitespace is ignored)"
                ))
            })
        }
        "base64" => decode_base64_param(name, text).map(Cow::Owned),
        _ => Ok(Cow::Borrowed(text.as_bytes())),
    }
}

/// A digest as text. `binary` is its bits as '0'/'1' digits (it-tools' "binary"); raw bytes
/// have no place in a JSON result.
fn encode_output(bytes: &[u8], encoding: &str) -> String {
    match encoding {
        "hex-upper" => hex::encode_upper(bytes),
        "base64" => STANDARD.encode(bytes),
        "base64url" => URL_SAFE_NO_PAD.encode(bytes),
        "binary" => bytes.iter().map(|b| format!("{b:08b}")).collect(),
        _ => hex::encode(bytes),
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn hash(algorithm: &str, input: &str) -> String {
        let data = run_ok(
            "hash-generator",
            json!({"input": input, "algorithm": algorithm}),
        );
        data["output"].as_str().unwrap().to_string()
    }

    // FIPS 180-4 examples (csrc.nist.gov/projects/cryptographic-standards-and-guidelines/example-values).
    #[test]
    fn sha2_fips_180_4_abc() {
        assert_eq!(
            hash("sha1", "abc"),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hash("sha224", "abc"),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
        assert_eq!(
            hash("sha256", "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hash("sha384", "abc"),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
        );
        assert_eq!(
            hash("sha512", "abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        );
        assert_eq!(
            hash("sha512-224", "abc"),
            "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"
        );
        assert_eq!(
            hash("sha512-256", "abc"),
            "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"
        );
        assert_eq!(
            hash(
                "sha256",
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            ),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
    }

    #[test]
    fn empty_string_digests() {
        assert_eq!(hash("md5", ""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hash("sha1", ""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hash("sha256", ""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hash("sha3-256", ""),
            "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"
        );
        // The Ethereum keccak256 of nothing, with the original Keccak padding.
        assert_eq!(
            hash("keccak256", ""),
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
        assert_eq!(
            hash("blake3", ""),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
    }

    // RFC 1321 appendix A.5 test suite.
    #[test]
    fn md5_rfc1321_suite() {
        let suite = [
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (input, expected) in suite {
            assert_eq!(hash("md5", input), expected, "md5({input:?})");
        }
    }

    // FIPS 202 "abc" examples, RIPEMD-160 "abc" from the authors' page, BLAKE2 RFC 7693
    // appendices A and B, BLAKE3's test_vectors.json (input of 1 byte: 0x00).
    #[test]
    fn sha3_blake_ripemd_vectors() {
        assert_eq!(
            hash("sha3-224", "abc"),
            "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf"
        );
        assert_eq!(
            hash("sha3-256", "abc"),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
        assert_eq!(
            hash("sha3-384", "abc"),
            "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25"
        );
        assert_eq!(
            hash("sha3-512", "abc"),
            "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"
        );
        assert_eq!(
            hash("ripemd160", "abc"),
            "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"
        );
        assert_eq!(
            hash("blake2b-512", "abc"),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
        );
        assert_eq!(
            hash("blake2s-256", "abc"),
            "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"
        );
        let data = run_ok(
            "hash-generator",
            json!({"input": "00", "inputEncoding": "hex", "algorithm": "blake3"}),
        );
        assert_eq!(
            data["output"],
            "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"
        );
    }

    // Expected values from Python's hashlib and base64 (base64.urlsafe_b64encode, unpadded).
    #[test]
    fn base64url_and_binary_digests() {
        let url = run_ok(
            "hash-generator",
            json!({"input": "abc", "outputEncoding": "base64url"}),
        );
        assert_eq!(url["output"], "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
        let bits = run_ok(
            "hash-generator",
            json!({"input": "", "algorithm": "md5", "outputEncoding": "binary"}),
        );
        assert_eq!(
            bits["output"],
            "11010100000111011000110011011001100011110000000010110010000001001110100110000000000010011001100011101100111110000100001001111110"
        );
        assert_eq!(bits["bits"], 128);
    }

    #[test]
    fn expected_digest_is_compared_in_any_form() {
        let check = |expected: &str| {
            run_ok(
                "hash-generator",
                json!({"input": "abc", "expected": expected}),
            )["matches"]
                .clone()
        };
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(check(hex), true);
        assert_eq!(check(&hex.to_uppercase()), true);
        assert_eq!(check(&format!("0x{hex}")), true);
        assert_eq!(check("ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="), true);
        assert_eq!(check("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0"), true);
        // One digit off, and a digest of another size (SHA-1 of 'abc').
        assert_eq!(
            check("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae"),
            false
        );
        assert_eq!(check("a9993e364706816aba3e25717850c26c9cd0d89d"), false);
        let plain = run_ok("hash-generator", json!({"input": "abc"}));
        assert_eq!(plain.get("matches"), None);
    }

    #[test]
    fn expected_digest_with_all_names_the_algorithm() {
        let found = run_ok(
            "hash-generator",
            json!({"input": "abc", "algorithm": "all", "expected": "A9993E364706816ABA3E25717850C26C9CD0D89D"}),
        );
        assert_eq!(found["matches"], true);
        assert_eq!(found["matchedAlgorithm"], "sha1");
        let none = run_ok(
            "hash-generator",
            json!({"input": "abc", "algorithm": "all", "expected": "00112233"}),
        );
        assert_eq!(none["matches"], false);
        assert_eq!(none["matchedAlgorithm"], Value::Null);
    }

    #[test]
    fn expected_digest_must_be_hex_or_base64() {
        let (code, message) = run_err(
            "hash-generator",
            json!({"input": "abc", "expected": "not a digest!"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            message,
            "parameter 'expected' must be the digest in hexadecimal or Base64; 'not a digest!' is neither"
        );
    }

    #[test]
    fn output_encodings_and_all() {
        let upper = run_ok(
            "hash-generator",
            json!({"input": "abc", "algorithm": "md5", "outputEncoding": "hex-upper"}),
        );
        assert_eq!(upper["output"], "900150983CD24FB0D6963F7D28E17F72");
        let b64 = run_ok(
            "hash-generator",
            json!({"input": "YWJj", "inputEncoding": "base64", "algorithm": "md5", "outputEncoding": "base64"}),
        );
        assert_eq!(b64["output"], "kAFQmDzST7DWlj99KOF/cg==");
        let all = run_ok(
            "hash-generator",
            json!({"input": "abc", "algorithm": "all"}),
        );
        let hashes = all["hashes"].as_object().unwrap();
        assert_eq!(hashes.len(), 17);
        assert_eq!(hashes["md5"], "900150983cd24fb0d6963f7d28e17f72");
        assert!(
            all["output"]
                .as_str()
                .unwrap()
                .starts_with("md5: 900150983cd24fb0d6963f7d28e17f72\nsha1: a9993e")
        );
    }

    #[test]
    fn hash_rejects_bad_hex_input() {
        let (code, msg) = run_err(
            "hash-generator",
            json!({"input": "abcg", "inputEncoding": "hex"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid hexadecimal"), "{msg}");
        assert!(msg.contains("'g' at position 3"), "{msg}");
    }

    fn hmac(algorithm: &str, key_hex: &str, data_hex: &str) -> Value {
        run_ok(
            "hmac-generator",
            json!({
                "algorithm": algorithm,
                "key": key_hex,
                "keyEncoding": "hex",
                "message": data_hex,
                "messageEncoding": "hex",
            }),
        )["output"]
            .clone()
    }

    // RFC 4231 §4.2–4.8 test cases 1, 2, 3, 4, 6 and 7.
    #[test]
    fn hmac_rfc4231() {
        let key131 = "aa".repeat(131);
        let cases: [(String, String, [&str; 4]); 6] = [
            (
                "0b".repeat(20),
                hex::encode("Hi There"),
                [
                    "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22",
                    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                    "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6",
                    "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
                ],
            ),
            (
                hex::encode("Jefe"),
                hex::encode("what do ya want for nothing?"),
                [
                    "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44",
                    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                    "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
                    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
                ],
            ),
            (
                "aa".repeat(20),
                "dd".repeat(50),
                [
                    "7fb3cb3588c6c1f6ffa9694d7d6ad2649365b0c1f65d69d1ec8333ea",
                    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
                    "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27",
                    "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb",
                ],
            ),
            (
                "0102030405060708090a0b0c0d0e0f10111213141516171819".to_string(),
                "cd".repeat(50),
                [
                    "6c11506874013cac6a2abc1bb382627cec6a90d86efc012de7afec5a",
                    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
                    "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e6801dd23c4a7d679ccf8a386c674cffb",
                    "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd",
                ],
            ),
            (
                key131.clone(),
                hex::encode("Test Using Larger Than Block-Size Key - Hash Key First"),
                [
                    "95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e",
                    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
                    "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952",
                    "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598",
                ],
            ),
            (
                key131,
                hex::encode(
                    "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
                ),
                [
                    "3a854166ac5d9f023f54d517d0b39dbd946770db9c2b95c9f6f565d1",
                    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
                    "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5a678cc31e799176d3860e6110c46523e",
                    "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58",
                ],
            ),
        ];
        for (key, data, expected) in cases {
            for (alg, mac) in ["sha224", "sha256", "sha384", "sha512"]
                .iter()
                .zip(expected)
            {
                assert_eq!(hmac(alg, &key, &data), mac, "HMAC-{alg} key={key}");
            }
        }
    }

    // RFC 2202 §2 and §3, test cases 1 and 2.
    #[test]
    fn hmac_rfc2202_md5_sha1() {
        assert_eq!(
            hmac("md5", &"0b".repeat(16), &hex::encode("Hi There")),
            "9294727a3638bb1c13f48ef8158bfc9d"
        );
        assert_eq!(
            hmac("sha1", &"0b".repeat(20), &hex::encode("Hi There")),
            "b617318655057264e28bc0b6fb378c8ef146be00"
        );
        let text = run_ok(
            "hmac-generator",
            json!({"algorithm": "md5", "key": "Jefe", "message": "what do ya want for nothing?"}),
        );
        assert_eq!(text["output"], "750c783e6ab0b503eaa86e310a5db738");
        let text = run_ok(
            "hmac-generator",
            json!({"algorithm": "sha1", "key": "Jefe", "message": "what do ya want for nothing?"}),
        );
        assert_eq!(text["output"], "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
    }

    // The "Jefe" case of the HMAC-SHA-3 test vectors (RFC 4231 case 2 inputs), as also
    // produced by Python's hmac module.
    #[test]
    fn hmac_sha3() {
        let args = |alg: &str| json!({"algorithm": alg, "key": "Jefe", "message": "what do ya want for nothing?"});
        assert_eq!(
            run_ok("hmac-generator", args("sha3-256"))["output"],
            "c7d4072e788877ae3596bbb0da73b887c9171f93095b294ae857fbe2645e1ba5"
        );
        assert_eq!(
            run_ok("hmac-generator", args("sha3-512"))["output"],
            "5a4bfeab6166427c7a3647b747292b8384537cdb89afb3bf5665e4c5e709350b287baec921fd7ca0ee7a0c31d022a95e1fc92ba9d77df883960275beb4e62024"
        );
    }

    #[test]
    fn hmac_verifies_expected_mac() {
        let args = |expected: &str| {
            json!({
                "key": "Jefe",
                "message": "what do ya want for nothing?",
                "expected": expected,
            })
        };
        let good = run_ok(
            "hmac-generator",
            args("5BDCC146BF60754E6A042426089575C75A003F089D2739839DEC58B964EC3843"),
        );
        assert_eq!(good["matches"], true);
        let b64 = run_ok(
            "hmac-generator",
            args("W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM="),
        );
        assert_eq!(b64["matches"], true);
        let bad = run_ok(
            "hmac-generator",
            args("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3844"),
        );
        assert_eq!(bad["matches"], false);
        let without = run_ok(
            "hmac-generator",
            json!({"key": "Jefe", "message": "what do ya want for nothing?"}),
        );
        assert!(without.get("matches").is_none());
    }

    #[test]
    fn hmac_rejects_bad_key_encoding() {
        let (code, msg) = run_err(
            "hmac-generator",
            json!({"key": "abc", "keyEncoding": "hex", "message": "x"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("parameter 'key' is not valid hexadecimal"),
            "{msg}"
        );
        let (code, msg) = run_err(
            "hmac-generator",
            json!({"key": "k", "message": "x", "expected": "not a mac!"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'expected'"), "{msg}");
    }
}
