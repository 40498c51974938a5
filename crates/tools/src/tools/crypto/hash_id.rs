//! hash-identifier: names the algorithms a hash string probably came from, by its shape —
//! modular-crypt and PHC prefixes, LDAP and database formats, and plain hex or Base64 digests
//! by length — with the hashcat mode and John the Ripper format for cracking or auditing.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use regex::Regex;
use serde_json::{Value, json};
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("hash-identifier", hash_identifier)];

/// One possible algorithm: display name, hashcat mode, John the Ripper format.
type Algo = (&'static str, Option<u32>, Option<&'static str>);

/// A shape rule: a pattern over the whole (trimmed) hash, the format family it belongs to,
/// how sure a match makes us, and the algorithms it indicates, most likely first.
struct Rule {
    pattern: &'static str,
    format: &'static str,
    confidence: &'static str,
    algorithms: &'static [Algo],
}

/// The rules, most specific first. Prefixed formats are unambiguous ("high"); a bare hex
/// length fits several algorithms, so its first entry is only "likely" and the rest "possible".
const RULES: &[Rule] = &[
    Rule {
        pattern: r"^\$argon2id\$(v=\d+\$)?m=\d+,t=\d+,p=\d+[^$]*\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$",
        format: "PHC string",
        confidence: "high",
        algorithms: &[("Argon2id", None, Some("argon2"))],
    },
    Rule {
        pattern: r"^\$argon2i\$(v=\d+\$)?m=\d+,t=\d+,p=\d+[^$]*\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$",
        format: "PHC string",
        confidence: "high",
        algorithms: &[("Argon2i", None, Some("argon2"))],
    },
    Rule {
        pattern: r"^\$argon2d\$(v=\d+\$)?m=\d+,t=\d+,p=\d+[^$]*\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$",
        format: "PHC string",
        confidence: "high",
        algorithms: &[("Argon2d", None, Some("argon2"))],
    },
    Rule {
        pattern: r"^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[("bcrypt", Some(3200), Some("bcrypt"))],
    },
    Rule {
        pattern: r"^\$1\$[^$]{0,8}\$[./A-Za-z0-9]{22}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[(
            "md5crypt (MD5-based crypt, $1$)",
            Some(500),
            Some("md5crypt"),
        )],
    },
    Rule {
        pattern: r"^\$apr1\$[^$]{0,8}\$[./A-Za-z0-9]{22}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[("Apache apr1 MD5 (htpasswd)", Some(1600), Some("md5crypt"))],
    },
    Rule {
        pattern: r"^\$5\$(rounds=\d+\$)?[^$]{0,16}\$[./A-Za-z0-9]{43}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[(
            "sha256crypt (SHA-256 crypt, $5$)",
            Some(7400),
            Some("sha256crypt"),
        )],
    },
    Rule {
        pattern: r"^\$6\$(rounds=\d+\$)?[^$]{0,16}\$[./A-Za-z0-9]{86}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[(
            "sha512crypt (SHA-512 crypt, $6$)",
            Some(1800),
            Some("sha512crypt"),
        )],
    },
    Rule {
        pattern: r"^\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]*\$[./A-Za-z0-9]{43}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[("yescrypt", None, Some("crypt"))],
    },
    Rule {
        pattern: r"^\$7\$[./A-Za-z0-9]{11,}\$[./A-Za-z0-9]{43}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[("scrypt ($7$)", None, Some("scrypt"))],
    },
    Rule {
        pattern: r"^\$scrypt\$ln=\d+,r=\d+,p=\d+\$[A-Za-z0-9+/.]+\$[A-Za-z0-9+/.]+$",
        format: "PHC string",
        confidence: "high",
        algorithms: &[("scrypt (PHC)", None, None)],
    },
    Rule {
        pattern: r"^\$pbkdf2-sha256\$\d+\$[./A-Za-z0-9]*\$[./A-Za-z0-9]{43}$",
        format: "PHC string (passlib)",
        confidence: "high",
        algorithms: &[(
            "PBKDF2-HMAC-SHA256 (passlib)",
            Some(20300),
            Some("PBKDF2-HMAC-SHA256"),
        )],
    },
    Rule {
        pattern: r"^\$pbkdf2-sha512\$\d+\$[./A-Za-z0-9]*\$[./A-Za-z0-9]{86}$",
        format: "PHC string (passlib)",
        confidence: "high",
        algorithms: &[(
            "PBKDF2-HMAC-SHA512 (passlib)",
            Some(20200),
            Some("PBKDF2-HMAC-SHA512"),
        )],
    },
    Rule {
        pattern: r"^\$pbkdf2\$\d+\$[./A-Za-z0-9]*\$[./A-Za-z0-9]{27}$",
        format: "PHC string (passlib)",
        confidence: "high",
        algorithms: &[(
            "PBKDF2-HMAC-SHA1 (passlib)",
            Some(20400),
            Some("PBKDF2-HMAC-SHA1"),
        )],
    },
    Rule {
        pattern: r"^pbkdf2_sha256\$\d+\$[^$]+\$[A-Za-z0-9+/]{43}=$",
        format: "Django",
        confidence: "high",
        algorithms: &[("Django PBKDF2-SHA256", Some(10000), Some("django"))],
    },
    Rule {
        pattern: r"^argon2\$argon2(id|i|d)\$",
        format: "Django",
        confidence: "high",
        algorithms: &[("Django Argon2", None, Some("argon2"))],
    },
    Rule {
        pattern: r"^bcrypt_sha256\$\$2[aby]\$",
        format: "Django",
        confidence: "high",
        algorithms: &[("Django bcrypt-SHA256", None, None)],
    },
    Rule {
        pattern: r"^sha256:\d+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$",
        format: "hashcat PBKDF2",
        confidence: "high",
        algorithms: &[(
            "PBKDF2-HMAC-SHA256",
            Some(10900),
            Some("PBKDF2-HMAC-SHA256"),
        )],
    },
    Rule {
        pattern: r"^\$8\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}$",
        format: "Cisco",
        confidence: "high",
        algorithms: &[(
            "Cisco-IOS type 8 (PBKDF2-SHA256)",
            Some(9200),
            Some("pbkdf2-hmac-sha256"),
        )],
    },
    Rule {
        pattern: r"^\$9\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}$",
        format: "Cisco",
        confidence: "high",
        algorithms: &[("Cisco-IOS type 9 (scrypt)", Some(9300), Some("cisco9"))],
    },
    Rule {
        pattern: r"^\$[PH]\$[./A-Za-z0-9]{31}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[("phpass (WordPress, phpBB3)", Some(400), Some("phpass"))],
    },
    Rule {
        pattern: r"^\$S\$[./A-Za-z0-9]{52}$",
        format: "modular crypt",
        confidence: "high",
        algorithms: &[("Drupal 7 (SHA-512)", Some(7900), Some("drupal7"))],
    },
    Rule {
        pattern: r"(?i)^\{SSHA\}[A-Za-z0-9+/]+=*$",
        format: "LDAP",
        confidence: "high",
        algorithms: &[("LDAP salted SHA-1 {SSHA}", Some(111), Some("salted-sha1"))],
    },
    Rule {
        pattern: r"(?i)^\{SHA\}[A-Za-z0-9+/]{27}=$",
        format: "LDAP",
        confidence: "high",
        algorithms: &[("LDAP SHA-1 {SHA}", Some(101), Some("nsldap"))],
    },
    Rule {
        pattern: r"(?i)^\{SSHA256\}[A-Za-z0-9+/]+=*$",
        format: "LDAP",
        confidence: "high",
        algorithms: &[("LDAP salted SHA-256 {SSHA256}", Some(1411), None)],
    },
    Rule {
        pattern: r"(?i)^\{SSHA512\}[A-Za-z0-9+/]+=*$",
        format: "LDAP",
        confidence: "high",
        algorithms: &[("LDAP salted SHA-512 {SSHA512}", Some(1711), Some("ssha512"))],
    },
    Rule {
        pattern: r"(?i)^\{MD5\}[A-Za-z0-9+/]{22}==$",
        format: "LDAP",
        confidence: "high",
        algorithms: &[("LDAP MD5 {MD5}", None, None)],
    },
    Rule {
        pattern: r"^\*[0-9A-Fa-f]{40}$",
        format: "MySQL",
        confidence: "high",
        algorithms: &[("MySQL 4.1+ (SHA-1 of SHA-1)", Some(300), Some("mysql-sha1"))],
    },
    Rule {
        pattern: r"^md5[0-9a-f]{32}$",
        format: "PostgreSQL",
        confidence: "high",
        algorithms: &[(
            "PostgreSQL MD5 (md5 + MD5(password || username))",
            Some(12),
            None,
        )],
    },
    Rule {
        pattern: r"^SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$",
        format: "PostgreSQL",
        confidence: "high",
        algorithms: &[("PostgreSQL SCRAM-SHA-256", Some(28600), None)],
    },
    Rule {
        pattern: r"^_[./A-Za-z0-9]{19}$",
        format: "crypt",
        confidence: "high",
        algorithms: &[("BSDi extended DES crypt", Some(12400), Some("bsdicrypt"))],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{32}:.+$",
        format: "hex digest with salt",
        confidence: "possible",
        algorithms: &[
            ("md5($pass.$salt)", Some(10), None),
            ("md5($salt.$pass)", Some(20), None),
            (
                "Domain Cached Credentials (DCC, mscash)",
                Some(1100),
                Some("mscash"),
            ),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{40}:.+$",
        format: "hex digest with salt",
        confidence: "possible",
        algorithms: &[
            ("sha1($pass.$salt)", Some(110), None),
            ("sha1($salt.$pass)", Some(120), None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{64}:.+$",
        format: "hex digest with salt",
        confidence: "possible",
        algorithms: &[
            ("sha256($pass.$salt)", Some(1410), None),
            ("sha256($salt.$pass)", Some(1420), None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{8}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("CRC-32", Some(11500), Some("crc32")),
            ("Adler-32", None, None),
            ("CRC-32C", Some(27900), None),
            ("MurmurHash3 x86_32", None, None),
            ("FNV-1a 32", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{16}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("MySQL 3.23 (OLD_PASSWORD)", Some(200), Some("mysql")),
            ("LM (one half)", Some(3000), Some("lm")),
            ("Half MD5", Some(5100), None),
            ("CRC-64", Some(28000), None),
            ("FNV-1a 64", None, None),
            ("SipHash", Some(10100), None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{32}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("MD5", Some(0), Some("raw-md5")),
            ("NTLM", Some(1000), Some("nt")),
            ("MD4", Some(900), Some("raw-md4")),
            ("LM", Some(3000), Some("lm")),
            ("MD2", None, Some("md2")),
            ("RIPEMD-128", None, Some("ripemd-128")),
            ("MD5(MD5($pass))", Some(2600), None),
            ("Tiger-128", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{40}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("SHA-1", Some(100), Some("raw-sha1")),
            ("RIPEMD-160", Some(6000), Some("ripemd-160")),
            ("MySQL 4.1+ without '*'", Some(300), Some("mysql-sha1")),
            ("SHA-1(SHA-1($pass))", Some(4500), None),
            ("Tiger-160", None, None),
            ("HAS-160", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{48}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("Tiger-192", None, Some("tiger")),
            ("HAVAL-192", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{56}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("SHA-224", Some(1300), Some("raw-sha224")),
            ("SHA3-224", Some(17300), None),
            ("Keccak-224", Some(17700), None),
            ("SHA-512/224", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{64}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("SHA-256", Some(1400), Some("raw-sha256")),
            ("SHA3-256", Some(17400), None),
            ("Keccak-256 (Ethereum)", Some(17800), Some("raw-keccak-256")),
            ("BLAKE2s-256", Some(31000), None),
            ("BLAKE3", None, None),
            ("SHA-512/256", None, None),
            ("GOST R 34.11-94", Some(6900), Some("gost")),
            ("Streebog-256 (GOST R 34.11-2012)", Some(11700), None),
            ("RIPEMD-256", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{80}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[("RIPEMD-320", None, None)],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{96}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("SHA-384", Some(10800), Some("raw-sha384")),
            ("SHA3-384", Some(17500), None),
            ("Keccak-384", Some(17900), None),
            ("BLAKE2b-384", None, None),
        ],
    },
    Rule {
        pattern: r"^[0-9a-fA-F]{128}$",
        format: "hex digest",
        confidence: "likely",
        algorithms: &[
            ("SHA-512", Some(1700), Some("raw-sha512")),
            ("SHA3-512", Some(17600), Some("raw-sha3")),
            ("BLAKE2b-512", Some(600), Some("raw-blake2")),
            ("Whirlpool", Some(6100), Some("whirlpool")),
            ("Keccak-512", Some(18000), Some("raw-keccak")),
            ("Streebog-512 (GOST R 34.11-2012)", Some(11800), None),
        ],
    },
    Rule {
        pattern: r"^[./A-Za-z0-9]{13}$",
        format: "crypt",
        confidence: "likely",
        algorithms: &[(
            "DES crypt (traditional Unix crypt)",
            Some(1500),
            Some("descrypt"),
        )],
    },
    Rule {
        pattern: r"^[A-Za-z0-9+/]{22}(==)?$",
        format: "Base64 digest",
        confidence: "possible",
        algorithms: &[("MD5 (Base64)", None, None), ("NTLM (Base64)", None, None)],
    },
    Rule {
        pattern: r"^[A-Za-z0-9+/]{27}=$",
        format: "Base64 digest",
        confidence: "possible",
        algorithms: &[("SHA-1 (Base64)", None, None)],
    },
    Rule {
        pattern: r"^[A-Za-z0-9+/]{43}=$",
        format: "Base64 digest",
        confidence: "possible",
        algorithms: &[("SHA-256 (Base64, e.g. SRI or Docker content)", None, None)],
    },
    Rule {
        pattern: r"^[A-Za-z0-9+/]{64}$",
        format: "Base64 digest",
        confidence: "possible",
        algorithms: &[("SHA-384 (Base64, e.g. SRI)", None, None)],
    },
    Rule {
        pattern: r"^[A-Za-z0-9+/]{86}==$",
        format: "Base64 digest",
        confidence: "possible",
        algorithms: &[("SHA-512 (Base64)", None, None)],
    },
];

fn compiled() -> &'static [Regex] {
    static COMPILED: OnceLock<Vec<Regex>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        RULES
            .iter()
            .filter_map(|r| Regex::new(r.pattern).ok())
            .collect()
    })
}

/// Prefixes that wrap another hash: an LDAP `{CRYPT}` value holds a crypt(3) string, and
/// Subresource Integrity writes `sha256-<Base64>`.
fn unwrap_prefix(hash: &str) -> (&str, Option<&'static str>) {
    if let Some(rest) = hash
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case("{crypt}"))
        .and_then(|_| hash.get(7..))
        .filter(|rest| !rest.is_empty())
    {
        return (rest, Some("LDAP {CRYPT} wrapper"));
    }
    for prefix in ["sha256-", "sha384-", "sha512-"] {
        if let Some(rest) = hash.strip_prefix(prefix) {
            return (rest, Some("Subresource Integrity (SRI) prefix"));
        }
    }
    if let Some(rest) = hash.strip_prefix("0x").or_else(|| hash.strip_prefix("0X"))
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return (rest, Some("0x prefix"));
    }
    (hash, None)
}

fn hash_identifier(args: &Args) -> ToolOutcome {
    let raw = args.str("hash")?.trim();
    if raw.is_empty() {
        return Err(ToolError::invalid(
            "the hash is empty: paste a hash string to identify",
        ));
    }
    if raw.contains(char::is_whitespace) {
        return Err(ToolError::invalid(
            "the hash contains whitespace; give one hash at a time (a hash string has no spaces or line breaks)",
        ));
    }
    let (hash, wrapper) = unwrap_prefix(raw);
    let regexes = compiled();
    let mut candidates = Vec::new();
    let mut format: Option<&str> = None;
    for (rule, re) in RULES.iter().zip(regexes) {
        if !re.is_match(hash) {
            continue;
        }
        format.get_or_insert(rule.format);
        for (i, (name, hashcat, john)) in rule.algorithms.iter().enumerate() {
            let confidence = if i == 0 { rule.confidence } else { "possible" };
            let mut candidate = json!({ "name": name });
            // Unknown modes are left out rather than null, so every field keeps one type.
            if let Some(mode) = hashcat {
                candidate["hashcat"] = json!(mode);
            }
            if let Some(format) = john {
                candidate["john"] = json!(format);
            }
            candidate["confidence"] = json!(confidence);
            candidate["format"] = json!(rule.format);
            candidates.push(candidate);
        }
    }
    let output = candidates
        .first()
        .and_then(|c| c["name"].as_str())
        .unwrap_or("unknown")
        .to_string();
    let charset = if hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        "hex"
    } else if hash
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    {
        "base64"
    } else {
        "mixed"
    };
    let mut data = json!({
        "output": output,
        "format": format,
        "length": hash.chars().count(),
        "charset": charset,
        "wrapper": wrapper,
        "candidates": Value::Array(candidates),
    });
    if let Value::Object(m) = &mut data {
        m.retain(|_, v| !v.is_null());
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::{Value, json};

    fn identify(hash: &str) -> Value {
        run_ok("hash-identifier", json!({"hash": hash}))
    }

    fn names(data: &Value) -> Vec<String> {
        data["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn every_rule_pattern_compiles() {
        assert_eq!(super::compiled().len(), super::RULES.len());
    }

    // Plain hex digests of "" and "password" (RFC 1321 MD5 of "", FIPS 180 SHA-1/SHA-256 of "abc").
    #[test]
    fn hex_digests_by_length() {
        let md5 = identify("d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5["output"], "MD5");
        assert_eq!(md5["candidates"][0]["hashcat"], 0);
        assert_eq!(md5["candidates"][0]["john"], "raw-md5");
        assert_eq!(md5["candidates"][1]["name"], "NTLM");
        assert_eq!(md5["candidates"][1]["hashcat"], 1000);
        let sha1 = identify("A9993E364706816ABA3E25717850C26C9CD0D89D");
        assert_eq!(sha1["output"], "SHA-1");
        assert!(names(&sha1).contains(&"RIPEMD-160".to_string()));
        let sha256 = identify("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256["output"], "SHA-256");
        assert_eq!(sha256["candidates"][0]["hashcat"], 1400);
        assert!(names(&sha256).contains(&"Keccak-256 (Ethereum)".to_string()));
        assert_eq!(identify(&"ab".repeat(64))["output"], "SHA-512");
        assert_eq!(identify(&"ab".repeat(48))["output"], "SHA-384");
        assert_eq!(identify(&"ab".repeat(28))["output"], "SHA-224");
        assert_eq!(identify("cbf43926")["output"], "CRC-32");
    }

    // Examples from the hashcat wiki's "Example hashes" page.
    #[test]
    fn modular_crypt_formats() {
        let cases = [
            (
                "$1$28772684$iEwNOgGugqO9.bIz5sk8k/",
                "md5crypt (MD5-based crypt, $1$)",
                Some(500),
            ),
            (
                "$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.",
                "Apache apr1 MD5 (htpasswd)",
                Some(1600),
            ),
            (
                "$2a$05$LhayLxezLhK1LhWvKxCyLOj0j1u.Kj0jZ0pEmm134uzrQlFvQJLF6",
                "bcrypt",
                Some(3200),
            ),
            (
                "$5$rounds=5000$GX7BopJZJxPc/KEK$le16UF8I2Anb.rOrn22AUPWvzUETDGefUmAV8AZkGcD",
                "sha256crypt (SHA-256 crypt, $5$)",
                Some(7400),
            ),
            (
                "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/",
                "sha512crypt (SHA-512 crypt, $6$)",
                Some(1800),
            ),
            (
                "$P$984478476IagS59wHZvyQMArzfx58u.",
                "phpass (WordPress, phpBB3)",
                Some(400),
            ),
            (
                "*FCF7C1B8749CF99D88E5F34271D636178FB5D130",
                "MySQL 4.1+ (SHA-1 of SHA-1)",
                Some(300),
            ),
            (
                "{SSHA}AZKja92fbuuB9SpRlHqaoXxbTc43Mzc2MDM1Ng==",
                "LDAP salted SHA-1 {SSHA}",
                Some(111),
            ),
            (
                "pbkdf2_sha256$20000$H0dPx8NeajVu$GiC4k5kqbbR9qWBlsRgDywNqC2vd9kqfk7zdorEnNas=",
                "Django PBKDF2-SHA256",
                Some(10000),
            ),
        ];
        for (hash, name, mode) in cases {
            let data = identify(hash);
            assert_eq!(data["output"], name, "{hash}");
            assert_eq!(data["candidates"][0]["hashcat"], json!(mode), "{hash}");
            assert_eq!(data.get("wrapper"), None, "{hash}");
            assert_eq!(data["candidates"][0]["confidence"], "high", "{hash}");
        }
    }

    // A 13-character crypt(3) string: DES, but also any 13 Base64-ish characters, so "likely".
    #[test]
    fn des_crypt_is_likely() {
        let data = identify("48c/R8JAv757A");
        assert_eq!(data["output"], "DES crypt (traditional Unix crypt)");
        assert_eq!(data["candidates"][0]["hashcat"], 1500);
        assert_eq!(data["candidates"][0]["confidence"], "likely");
    }

    // Argon2 reference vector (phc-winner-argon2), yescrypt of "password" from libxcrypt's
    // crypt(3), and the passlib documentation's pbkdf2-sha256 example.
    #[test]
    fn phc_and_modern_formats() {
        let argon = identify(
            "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        );
        assert_eq!(argon["output"], "Argon2id");
        assert_eq!(argon["format"], "PHC string");
        assert_eq!(argon["candidates"][0]["john"], "argon2");
        let yes =
            identify("$y$j9T$F5Jx5fExrKuPp53xLKQ..1$tnSYvahCwPBHKZUspmcxMfb0.WiB9W.zEaKlOBL35rC");
        assert_eq!(yes["output"], "yescrypt");
        let passlib = identify(
            "$pbkdf2-sha256$29000$9t7be09prfXee2/NOUeotQ$Y.RDnnq8vsezSZSKy1QNy6xhKPdoBIwc.0XDdRm9sJ8",
        );
        assert_eq!(passlib["output"], "PBKDF2-HMAC-SHA256 (passlib)");
        assert_eq!(passlib["candidates"][0]["hashcat"], 20300);
        let wrapped = identify(
            "{CRYPT}$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/",
        );
        assert_eq!(wrapped["output"], "sha512crypt (SHA-512 crypt, $6$)");
        assert_eq!(wrapped["wrapper"], "LDAP {CRYPT} wrapper");
    }

    #[test]
    fn unknown_shapes_and_bad_input() {
        let data = identify("not-a-hash!");
        assert_eq!(data["output"], "unknown");
        assert_eq!(data["candidates"], json!([]));
        assert_eq!(data.get("format"), None);
        let (code, msg) = run_err("hash-identifier", json!({"hash": "   "}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("empty"), "{msg}");
        let (code, _) = run_err("hash-identifier", json!({"hash": "abc def"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        // Non-ASCII must not split a character when looking for prefixes.
        assert_eq!(identify("ééééé")["output"], "unknown");
    }
}
