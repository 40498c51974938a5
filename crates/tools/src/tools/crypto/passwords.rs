//! Passwords and credentials: bcrypt-hasher, password-strength-analyzer (zxcvbn),
//! basic-auth-generator (RFC 7617) and string-obfuscator (masking secrets for display).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bcrypt::{BASE_64 as BCRYPT_BASE64, HashParts, Version};
use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;
use zxcvbn::matching::patterns::MatchPattern;
use zxcvbn::time_estimates::CrackTimeSeconds;

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("bcrypt-hasher", bcrypt_hasher),
    Tool::new("password-strength-analyzer", password_strength_analyzer),
    Tool::new("basic-auth-generator", basic_auth_generator),
    Tool::new("string-obfuscator", string_obfuscator),
];

/// bcrypt reads at most 72 bytes of the password; the rest is silently ignored.
const BCRYPT_MAX_BYTES: usize = 72;
/// The highest cost hashed or verified: 2^16 rounds take seconds, and each step up doubles
/// it (cost 31, which bcrypt allows, would take days). Parsing a hash of any cost is free.
const BCRYPT_MAX_COST: u32 = 16;

fn check_cost(cost: u32, doing: &str) -> Result<(), ToolError> {
    if cost > BCRYPT_MAX_COST {
        return Err(ToolError::invalid(format!(
            "cost {cost} means 2^{cost} rounds, about {} times the work of cost {BCRYPT_MAX_COST} (seconds): cmpx does not {doing} above cost {BCRYPT_MAX_COST}",
            1u64 << (cost - BCRYPT_MAX_COST)
        )));
    }
    Ok(())
}

fn bcrypt_hasher(args: &Args) -> ToolOutcome {
    match args.str("mode")? {
        "verify" => {
            let password = args.opt_str("password").unwrap_or("");
            let hash = required_hash(args)?;
            let parts = parse_bcrypt(hash)?;
            check_cost(parts.get_cost(), "verify hashes")?;
            let matches = bcrypt::verify(password, hash)
                .map_err(|e| ToolError::invalid(format!("the hash cannot be checked: {e}")))?;
            Ok(json!({
                "matches": matches,
                "version": &hash[1..3],
                "cost": parts.get_cost(),
            }))
        }
        "parse" => {
            let hash = required_hash(args)?;
            let parts = parse_bcrypt(hash)?;
            Ok(json!({
                "algorithm": "bcrypt",
                "version": &hash[1..3],
                "cost": parts.get_cost(),
                "rounds": 1u64 << parts.get_cost(),
                "salt": parts.get_salt(),
                "hash": &hash[29..],
            }))
        }
        _ => {
            let password = args.opt_str("password").unwrap_or("");
            let cost = u32::try_from(args.i64("cost")?).map_err(|_| {
                ToolError::invalid(format!("cost must be between 4 and {BCRYPT_MAX_COST}"))
            })?;
            check_cost(cost, "hash")?;
            let salt = match args
                .opt_str("salt")
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                Some(text) => decode_bcrypt_salt(text)?,
                None => {
                    use rand::RngExt;
                    rand::rng().random::<[u8; 16]>()
                }
            };
            let version = match args.str("version")? {
                "2a" => Version::TwoA,
                "2y" => Version::TwoY,
                _ => Version::TwoB,
            };
            let parts = bcrypt::hash_with_salt(password, cost, salt)
                .map_err(|e| ToolError::invalid(format!("cannot hash: {e}")))?;
            let hash = parts.format_for_version(version.clone());
            Ok(json!({
                "output": hash,
                "version": version.to_string(),
                "cost": cost,
                "salt": parts.get_salt(),
                "truncated": password.len() > BCRYPT_MAX_BYTES,
            }))
        }
    }
}

fn required_hash<'a>(args: &Args<'a>) -> Result<&'a str, ToolError> {
    args.opt_str("hash")
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| ToolError::invalid("this mode needs a bcrypt hash in 'hash'"))
}

fn parse_bcrypt(hash: &str) -> Result<HashParts, ToolError> {
    if !hash.starts_with('$') {
        return Err(ToolError::invalid(
            "a bcrypt hash starts with $2a$, $2b$, $2x$ or $2y$ followed by the cost, e.g. $2b$12$…",
        ));
    }
    let parts: HashParts = hash
        .parse()
        .map_err(|e| ToolError::invalid(format!("not a valid bcrypt hash: {e}")))?;
    if !(4..=31).contains(&parts.get_cost()) {
        return Err(ToolError::invalid(format!(
            "the hash's cost {} is outside bcrypt's 4–31",
            parts.get_cost()
        )));
    }
    Ok(parts)
}

/// A salt in bcrypt's own Base64 alphabet (./A–Za–z0–9), 22 characters for 16 bytes.
fn decode_bcrypt_salt(text: &str) -> Result<[u8; 16], ToolError> {
    if text.len() != 22 {
        return Err(ToolError::invalid(format!(
            "the salt must be 22 characters of bcrypt Base64 (./A-Za-z0-9), got {} characters",
            text.chars().count()
        )));
    }
    let mut salt = [0u8; 16];
    BCRYPT_BASE64
        .decode_slice(text, &mut salt)
        .map_err(|e| ToolError::invalid(format!("the salt is not valid bcrypt Base64: {e}")))?;
    Ok(salt)
}

fn password_strength_analyzer(args: &Args) -> ToolOutcome {
    let password = args.str("password")?;
    if password.is_empty() {
        return Err(ToolError::invalid("the password is empty"));
    }
    let user_inputs: Vec<&str> = args
        .opt_str("userInputs")
        .unwrap_or("")
        .split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let entropy = zxcvbn::zxcvbn(password, &user_inputs);
    let score = u8::from(entropy.score());
    let times = entropy.crack_times();
    let saturated = entropy.guesses() == u64::MAX;
    // zxcvbn reads 100 characters at most, which keeps the sum far below f64's 1e308.
    let log10 = if saturated {
        unsaturated_guesses_log10(&entropy, password).min(300.0)
    } else {
        entropy.guesses_log10()
    };
    // Exact while zxcvbn's count holds; past u64 a float (serde_json writes e.g. 1e30).
    let guesses = if saturated {
        json!(10f64.powf(log10))
    } else {
        json!(entropy.guesses())
    };
    // Attempts per second of each scenario, as zxcvbn's time_estimates define them.
    let crack = |t: CrackTimeSeconds, per_second: f64| {
        let t = if saturated {
            CrackTimeSeconds::Float(10f64.powf(log10) / per_second)
        } else {
            t
        };
        let seconds = match t {
            CrackTimeSeconds::Integer(i) => json!(i),
            CrackTimeSeconds::Float(f) => json!(f),
        };
        json!({ "seconds": seconds, "display": t.to_string() })
    };
    let (warning, suggestions) = match entropy.feedback() {
        Some(f) => (
            f.warning().map(|w| w.to_string()),
            f.suggestions().iter().map(ToString::to_string).collect(),
        ),
        None => (None, Vec::new()),
    };
    let sequence: Vec<Value> = entropy
        .sequence()
        .iter()
        .map(|m| json!({ "pattern": pattern_name(&m.pattern), "token": m.token }))
        .collect();
    let classes = CharClasses::of(password);
    let length = password.chars().count();
    let charset = classes.charset_size();
    let entropy_bits = if charset > 0 {
        length as f64 * (charset as f64).log2()
    } else {
        0.0
    };
    Ok(json!({
        "score": score,
        "strength": STRENGTH[usize::from(score.min(4))],
        "guesses": guesses,
        "guessesLog10": round2(log10),
        "crackTimes": {
            "onlineThrottled": crack(times.online_throttling_100_per_hour(), 1.0 / 36.0),
            "onlineUnthrottled": crack(times.online_no_throttling_10_per_second(), 10.0),
            "offlineSlowHash": crack(times.offline_slow_hashing_1e4_per_second(), 1e4),
            "offlineFastHash": crack(times.offline_fast_hashing_1e10_per_second(), 1e10),
        },
        "feedback": { "warning": warning, "suggestions": suggestions },
        "length": length,
        "characterClasses": {
            "lowercase": classes.lower,
            "uppercase": classes.upper,
            "digits": classes.digits,
            "symbols": classes.symbols,
            "other": classes.other.len(),
        },
        "charsetSize": charset,
        "entropyBits": round2(entropy_bits),
        "sequence": sequence,
    }))
}

/// log10 of zxcvbn's guesses for the match sequence it chose, summed in logarithms.
/// zxcvbn-rs counts in a u64 that saturates at 1.8e19 (a 20-character random password), after
/// which its guesses, their log and the crack times stop growing. Its formula is
/// l!·∏ guesses(match) + 10000^(l−1) for a sequence of l matches; a brute-force match of n
/// characters is 10^n guesses (at least 11 for one character, 51 for more).
fn unsaturated_guesses_log10(entropy: &zxcvbn::Entropy, password: &str) -> f64 {
    let sequence = entropy.sequence();
    let l = sequence.len();
    if l == 0 || password.is_empty() {
        return entropy.guesses_log10();
    }
    let mut product: f64 = (1..=l).map(|k| (k as f64).log10()).sum();
    for m in sequence {
        let n = m.token.chars().count();
        product += match m.pattern {
            MatchPattern::BruteForce => (n as f64).max(if n == 1 { 11f64 } else { 51f64 }.log10()),
            _ => (m.guesses.unwrap_or(1).max(1) as f64).log10(),
        };
    }
    let additive = if l == 1 { 0.0 } else { 4.0 * (l - 1) as f64 };
    let (high, low) = (product.max(additive), product.min(additive));
    high + (1.0 + 10f64.powf(low - high)).log10()
}

const STRENGTH: [&str; 5] = ["very weak", "weak", "fair", "strong", "very strong"];

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn pattern_name(p: &MatchPattern) -> &'static str {
    match p {
        MatchPattern::Dictionary(_) => "dictionary",
        MatchPattern::Spatial(_) => "spatial",
        MatchPattern::Repeat(_) => "repeat",
        MatchPattern::Sequence(_) => "sequence",
        MatchPattern::Regex(_) => "regex",
        MatchPattern::Date(_) => "date",
        MatchPattern::BruteForce => "bruteforce",
    }
}

/// How many characters of each class a password uses; non-ASCII characters are kept distinct.
struct CharClasses {
    lower: usize,
    upper: usize,
    digits: usize,
    symbols: usize,
    other: Vec<char>,
}

impl CharClasses {
    fn of(text: &str) -> Self {
        let mut c = CharClasses {
            lower: 0,
            upper: 0,
            digits: 0,
            symbols: 0,
            other: Vec::new(),
        };
        for ch in text.chars() {
            match ch {
                'a'..='z' => c.lower += 1,
                'A'..='Z' => c.upper += 1,
                '0'..='9' => c.digits += 1,
                ' '..='~' => c.symbols += 1,
                _ => {
                    if !c.other.contains(&ch) {
                        c.other.push(ch);
                    }
                }
            }
        }
        c
    }

    /// The alphabet a brute-force attacker must cover: 26 + 26 + 10 + 33 printable ASCII
    /// symbols (space included) for each class used, plus each distinct non-ASCII character.
    fn charset_size(&self) -> usize {
        [
            (self.lower, 26),
            (self.upper, 26),
            (self.digits, 10),
            (self.symbols, 33),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(_, size)| size)
        .sum::<usize>()
            + self.other.len()
    }
}

fn basic_auth_generator(args: &Args) -> ToolOutcome {
    if args.str("mode")? == "decode" {
        return basic_auth_decode(args.opt_str("header").unwrap_or(""));
    }
    let username = args.opt_str("username").unwrap_or("");
    let password = args.opt_str("password").unwrap_or("");
    if let Some(i) = username.find(':') {
        return Err(ToolError::invalid(format!(
            "the username must not contain ':' (found at character {}): RFC 7617 §2 splits user-id and password at the first colon",
            username[..i].chars().count() + 1
        )));
    }
    for (name, value) in [("username", username), ("password", password)] {
        if let Some(c) = value.chars().find(|c| c.is_control()) {
            return Err(ToolError::invalid(format!(
                "the {name} contains the control character U+{:04X}, which RFC 7617 §2 does not allow",
                c as u32
            )));
        }
    }
    let credentials = STANDARD.encode(format!("{username}:{password}"));
    Ok(json!({
        "output": format!("Authorization: Basic {credentials}"),
        "value": format!("Basic {credentials}"),
        "credentials": credentials,
        "curl": format!("curl -H 'Authorization: Basic {credentials}'"),
    }))
}

fn basic_auth_decode(header: &str) -> ToolOutcome {
    let mut rest = header.trim();
    if let Some((name, value)) = rest.split_once(':')
        && name.trim().eq_ignore_ascii_case("authorization")
    {
        rest = value.trim();
    }
    if let Some((scheme, token)) = rest.split_once(char::is_whitespace) {
        if !scheme.eq_ignore_ascii_case("basic") {
            return Err(ToolError::invalid(format!(
                "the authorization scheme is '{scheme}', not 'Basic'"
            )));
        }
        rest = token.trim();
    }
    if rest.is_empty() {
        return Err(ToolError::invalid(
            "decode mode needs a header such as 'Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==' in 'header'",
        ));
    }
    let bytes = decode_base64_param("header", rest)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::invalid("the decoded credentials are not UTF-8 (RFC 7617 §2.1 charset)")
    })?;
    let Some((username, password)) = text.split_once(':') else {
        return Err(ToolError::invalid(
            "the decoded credentials have no ':' separating user-id and password",
        ));
    };
    Ok(json!({
        "output": text,
        "username": username,
        "password": password,
    }))
}

fn string_obfuscator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let keep_first = args.usize("keepFirst")?;
    let keep_last = args.usize("keepLast")?;
    let keep_spaces = args.flag("keepSpaces");
    let mask_length = args.usize("maskLength")?;
    let mask = args.str("maskCharacter")?;
    let mut mask_chars = mask.graphemes(true);
    let (Some(mask), None) = (mask_chars.next(), mask_chars.next()) else {
        return Err(ToolError::invalid(format!(
            "maskCharacter must be a single character, got '{mask}'"
        )));
    };
    let graphemes: Vec<&str> = input.graphemes(true).collect();
    let n = graphemes.len();
    let hidden = |i: usize, g: &str| {
        !(i < keep_first
            || i >= n.saturating_sub(keep_last)
            || (keep_spaces && g.chars().all(char::is_whitespace)))
    };
    let masked = graphemes
        .iter()
        .enumerate()
        .filter(|(i, g)| hidden(*i, g))
        .count();
    let output = if mask_length > 0 && masked > 0 {
        // A fixed-width mask hides how long the secret is: visible head, mask, visible tail.
        let head: String = graphemes.iter().take(keep_first.min(n)).copied().collect();
        let tail_start = n.saturating_sub(keep_last).max(keep_first.min(n));
        let tail: String = graphemes[tail_start..].concat();
        format!("{head}{}{tail}", mask.repeat(mask_length))
    } else {
        graphemes
            .iter()
            .enumerate()
            .map(|(i, g)| if hidden(i, g) { mask } else { g })
            .collect()
    };
    Ok(json!({
        "output": output,
        "maskedCount": masked,
        "visibleCount": n - masked,
    }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    // Hashes from the bcrypt crate's test suite (generated by an online tool, Python and Node).
    #[test]
    fn bcrypt_verify_known_hashes() {
        for (password, hash) in [
            (
                "password",
                "$2a$04$UuTkLRZZ6QofpDOlMz32MuuxEHA43WOemOYHPz6.SjsVsyO1tDU96",
            ),
            (
                "correctbatteryhorsestapler",
                "$2b$04$EGdrhbKUv8Oc9vGiXX0HQOxSg445d458Muh7DAHskb6QbtCvdxcie",
            ),
            (
                "correctbatteryhorsestapler",
                "$2a$04$n4Uy0eSnMfvnESYL.bLwuuj0U/ETSsoTpRT9GVk5bektyVVa5xnIi",
            ),
        ] {
            let data = run_ok(
                "bcrypt-hasher",
                json!({"mode": "verify", "password": password, "hash": hash}),
            );
            assert_eq!(data["matches"], true, "{hash}");
        }
        let wrong = run_ok(
            "bcrypt-hasher",
            json!({"mode": "verify", "password": "Password",
                   "hash": "$2a$04$UuTkLRZZ6QofpDOlMz32MuuxEHA43WOemOYHPz6.SjsVsyO1tDU96"}),
        );
        assert_eq!(wrong["matches"], false);
    }

    #[test]
    fn bcrypt_hash_with_fixed_salt() {
        // The bcrypt crate's hash_with_fixed_salt vector: salt bytes 26 71 d4 8d … 68 12.
        let data = run_ok(
            "bcrypt-hasher",
            json!({"password": "My S3cre7 P@55w0rd!", "cost": 5, "salt": "HlFShUxTu4ZHHfOLJwfmCe"}),
        );
        assert_eq!(
            data["output"],
            "$2b$05$HlFShUxTu4ZHHfOLJwfmCeDj/kuKFKboanXtDJXxCC7aIPTUgxNDe"
        );
        let y = run_ok(
            "bcrypt-hasher",
            json!({"password": "hunter2", "cost": 4, "salt": "......................", "version": "2y"}),
        );
        assert!(
            y["output"]
                .as_str()
                .unwrap()
                .starts_with("$2y$04$......................")
        );
        let random = run_ok("bcrypt-hasher", json!({"password": "pw", "cost": 4}));
        let verified = run_ok(
            "bcrypt-hasher",
            json!({"mode": "verify", "password": "pw", "hash": random["output"]}),
        );
        assert_eq!(verified["matches"], true);
    }

    #[test]
    fn bcrypt_parse() {
        let data = run_ok(
            "bcrypt-hasher",
            json!({"mode": "parse", "hash": "$2y$12$L6Bc/AlTQHyd9liGgGEZyOFLPHNgyxeEPfgYfBCVxJ7JIlwxyVU3u"}),
        );
        assert_eq!(
            data,
            json!({"algorithm": "bcrypt", "version": "2y", "cost": 12, "rounds": 4096,
                   "salt": "L6Bc/AlTQHyd9liGgGEZyO", "hash": "FLPHNgyxeEPfgYfBCVxJ7JIlwxyVU3u"})
        );
        let (code, msg) = run_err(
            "bcrypt-hasher",
            json!({"mode": "parse", "hash": "$2y$12$L6Bc/AlTQHyd9lGEZyOFLPHNgyxeEPfgYfBCVxJ7JIlwxyVU3u"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("60"), "{msg}");
        let (code, _) = run_err(
            "bcrypt-hasher",
            json!({"mode": "verify", "password": "x", "hash": "md5:abc"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    // zxcvbn's documented behaviour: "password" is a top-10 password (3 guesses, score 0);
    // "correcthorsebatterystaple" (xkcd 936) is strong.
    #[test]
    fn zxcvbn_scores() {
        let weak = run_ok(
            "password-strength-analyzer",
            json!({"password": "password"}),
        );
        assert_eq!(weak["score"], 0);
        assert_eq!(weak["guesses"], 3);
        assert_eq!(
            weak["feedback"]["warning"],
            "This is a top-10 common password."
        );
        assert_eq!(
            weak["sequence"],
            json!([{"pattern": "dictionary", "token": "password"}])
        );
        let strong = run_ok(
            "password-strength-analyzer",
            json!({"password": "correcthorsebatterystaple"}),
        );
        assert!(strong["score"].as_u64().unwrap() >= 3, "{strong}");
        assert_eq!(strong["length"], 25);
        assert_eq!(strong["charsetSize"], 26);
        let keyboard = run_ok("password-strength-analyzer", json!({"password": "qwerty"}));
        assert_eq!(keyboard["score"], 0);
    }

    // zxcvbn-rs's u64 saturates at 1.8e19; past it the count is redone in logarithms.
    #[test]
    fn long_passwords_keep_growing_past_u64() {
        let random30 = "xq7#Vt!9pL@2zR$w8kY^m4Nc&6bH*j";
        let d30 = run_ok("password-strength-analyzer", json!({"password": random30}));
        let d40 = run_ok(
            "password-strength-analyzer",
            json!({"password": format!("{random30}Qe%3uJd!0G")}),
        );
        let (g30, g40) = (
            d30["guessesLog10"].as_f64().unwrap(),
            d40["guessesLog10"].as_f64().unwrap(),
        );
        assert!(g30 > 25.0, "{d30}");
        assert!(g40 > g30 + 5.0, "{g30} {g40}");
        let guesses = d40["guesses"].as_f64().unwrap();
        assert!((guesses.log10() - g40).abs() < 0.01, "{guesses} {g40}");
        let fast = d40["crackTimes"]["offlineFastHash"]["seconds"]
            .as_f64()
            .unwrap();
        assert!(
            (fast - guesses / 1e10).abs() <= guesses / 1e10 * 1e-9,
            "{fast}"
        );
        assert_eq!(d40["crackTimes"]["offlineFastHash"]["display"], "centuries");
    }

    #[test]
    fn log_sum_agrees_with_zxcvbn_below_saturation() {
        for password in [
            "password",
            "Tr0ub4dor&3",
            "correcthorsebatterystaple",
            "qwerty123!",
            "a",
        ] {
            let entropy = zxcvbn::zxcvbn(password, &[]);
            assert!(entropy.guesses() < u64::MAX);
            let ours = super::unsaturated_guesses_log10(&entropy, password);
            assert!(
                (ours - entropy.guesses_log10()).abs() < 1e-9,
                "{password}: {ours} vs {}",
                entropy.guesses_log10()
            );
        }
    }

    #[test]
    fn character_classes_and_user_inputs() {
        let data = run_ok(
            "password-strength-analyzer",
            json!({"password": "Tr0ub4dor&3"}),
        );
        assert_eq!(
            data["characterClasses"],
            json!({"lowercase": 6, "uppercase": 1, "digits": 3, "symbols": 1, "other": 0})
        );
        assert_eq!(data["charsetSize"], 95);
        assert_eq!(data["entropyBits"], 72.27);
        let plain = run_ok(
            "password-strength-analyzer",
            json!({"password": "alicesmith1987"}),
        );
        let penalised = run_ok(
            "password-strength-analyzer",
            json!({"password": "alicesmith1987", "userInputs": "alicesmith, alice@example.com"}),
        );
        assert!(penalised["guesses"].as_f64() < plain["guesses"].as_f64());
        let (code, _) = run_err("password-strength-analyzer", json!({"password": ""}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn basic_auth_rfc7617_example() {
        let data = run_ok(
            "basic-auth-generator",
            json!({"username": "Aladdin", "password": "open sesame"}),
        );
        assert_eq!(
            data["output"],
            "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        assert_eq!(data["credentials"], "QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        // RFC 7617 §2.1: UTF-8, e.g. "test" / "123£" → dGVzdDoxMjPCow==.
        let utf8 = run_ok(
            "basic-auth-generator",
            json!({"username": "test", "password": "123£"}),
        );
        assert_eq!(utf8["credentials"], "dGVzdDoxMjPCow==");
    }

    #[test]
    fn basic_auth_decode() {
        for header in [
            "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
            "basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
            "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
        ] {
            let data = run_ok(
                "basic-auth-generator",
                json!({"mode": "decode", "header": header}),
            );
            assert_eq!(data["username"], "Aladdin", "{header}");
            assert_eq!(data["password"], "open sesame");
        }
        let colon = run_ok(
            "basic-auth-generator",
            json!({"mode": "decode", "header": "Basic dXNlcjpwYTpzcw=="}),
        );
        assert_eq!(colon["password"], "pa:ss");
        let (code, msg) = run_err(
            "basic-auth-generator",
            json!({"mode": "decode", "header": "Authorization: Bearer abc"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'Bearer'"), "{msg}");
        let (code, msg) = run_err(
            "basic-auth-generator",
            json!({"username": "a:b", "password": "x"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("character 2"), "{msg}");
    }

    // it-tools' string obfuscator behaviour: keep N first/last characters, mask the rest,
    // optionally keep spaces.
    #[test]
    fn obfuscate_keeps_ends() {
        let data = run_ok(
            "string-obfuscator",
            json!({"input": "Lorem ipsum dolor sit amet"}),
        );
        assert_eq!(data["output"], "Lore* ***** ***** *** amet");
        let no_spaces = run_ok(
            "string-obfuscator",
            json!({"input": "Lorem ipsum dolor sit amet", "keepSpaces": false, "keepFirst": 0, "keepLast": 0, "maskCharacter": "#"}),
        );
        assert_eq!(no_spaces["output"], "##########################");
        let card = run_ok(
            "string-obfuscator",
            json!({"input": "4111111111111111", "keepFirst": 0, "keepLast": 4, "maskCharacter": "•"}),
        );
        assert_eq!(card["output"], "••••••••••••1111");
        assert_eq!(card["maskedCount"], 12);
    }

    #[test]
    fn obfuscate_fixed_mask_and_graphemes() {
        let data = run_ok(
            "string-obfuscator",
            json!({"input": "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "maskLength": 8}),
        );
        assert_eq!(data["output"], "ghp_********8B4a");
        let short = run_ok("string-obfuscator", json!({"input": "abc"}));
        assert_eq!(short["output"], "abc");
        assert_eq!(short["maskedCount"], 0);
        let emoji = run_ok(
            "string-obfuscator",
            json!({"input": "a👍🏽b", "keepFirst": 1, "keepLast": 1}),
        );
        assert_eq!(emoji["output"], "a*b");
        let (code, _) = run_err(
            "string-obfuscator",
            json!({"input": "abc", "maskCharacter": "**"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn bcrypt_costs_above_sixteen_are_refused() {
        // The catalogue's maximum is 16: higher costs fail validation before the tool runs.
        let (code, msg) = run_err("bcrypt-hasher", json!({"password": "pw", "cost": 31}));
        assert_eq!(code, ErrorCode::ConstraintViolation, "{msg}");
        // Verifying a hash of cost 31 would take days; parsing it is free.
        let hash = "$2b$31$HlFShUxTu4ZHHfOLJwfmCeDj/kuKFKboanXtDJXxCC7aIJkxt2xa2";
        let (code, msg) = run_err(
            "bcrypt-hasher",
            json!({"mode": "verify", "password": "pw", "hash": hash}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert_eq!(
            msg,
            "cost 31 means 2^31 rounds, about 32768 times the work of cost 16 (seconds): cmpx does not verify hashes above cost 16"
        );
        let d = run_ok("bcrypt-hasher", json!({"mode": "parse", "hash": hash}));
        assert_eq!(d["cost"], 31);
    }
}
