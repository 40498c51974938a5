//! The checks detectors name in resolver/detectors.toml, for what a pattern alone cannot say.

/// A check on a lowercased request (a gate) or on one match (an accept check).
pub(super) type Check = fn(&str) -> bool;

/// The check a detector names, if there is one by that name.
pub(super) fn named(name: &str) -> Option<Check> {
    Some(match name {
        "any_digit" => any_digit,
        "base32" => base32,
        "base32_unpadded" => base32_unpadded,
        "base58" => base58,
        "base64_like" => base64_like,
        "bitwise" => bitwise,
        "coordinates" => coordinates,
        "cron" => cron,
        "css_color" => css_color,
        "digit_or_paren" => digit_or_paren,
        "has_letter" => has_letter,
        "hex_bytes" => hex_bytes,
        "iban" => iban,
        "ipv6" => ipv6,
        "mixed" => mixed,
        "morse" => morse,
        "nato_words" => nato_words,
        "non_ascii" => |s| !s.is_ascii(),
        "not_bits" => not_bits,
        "object_id" => object_id,
        "roman" => roman,
        "roman_run" => roman_run,
        _ => return None,
    })
}

/// `\d` matches any Unicode decimal digit, so the gate for it does too.
fn any_digit(s: &str) -> bool {
    s.chars().any(char::is_numeric)
}

fn digit_or_paren(s: &str) -> bool {
    any_digit(s) || s.contains('(')
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

fn has_letter(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_alphabetic())
}

fn mixed(s: &str) -> bool {
    has_digit(s) && has_letter(s)
}

/// "… --- …": Morse needs both dots and dashes (an ellipsis is not Morse).
fn morse(s: &str) -> bool {
    s.contains('.') && s.contains('-')
}

/// `0xF0 AND 0x3C`, `1 << 12`: a word operator or `^` needs a hex, binary or octal operand, so
/// "between 5 and 10" or "2^10" stay what they are.
fn bitwise(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    let prefixed = ["0x", "0b", "0o"].iter().any(|p| l.contains(p));
    prefixed || l.contains("<<") || l.contains(">>") || l.contains('&') || l.contains('|')
}

/// Numeric cron fields within their ranges ("72 101 108 108 111" is character codes, not a
/// schedule), and not all of them bare numbers: a schedule has a `*`, a step, a list or a
/// name ("50 4B 03 04 14 00 06 00" is bytes).
fn cron(s: &str) -> bool {
    let s = s.trim_matches(['`', '\'', '"']);
    let fields: Vec<&str> = s.split_whitespace().collect();
    if fields.len() > 1 && fields.iter().all(|f| f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let max: &[u32] = if fields.len() == 6 {
        &[59, 59, 23, 31, 12, 7]
    } else {
        &[59, 23, 31, 12, 7]
    };
    fields.len() == 1
        || fields
            .iter()
            .zip(max)
            .all(|(f, &m)| f.parse::<u32>().map_or(true, |n| n <= m))
}

/// Four or more capital Roman digits in their canonical order ("MCMLXXXIV", not "MDCM" or
/// "XIIII"); shorter ones ("CLI", "MD", "CV") are far more often abbreviations.
fn roman(s: &str) -> bool {
    const DIGITS: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut value = 0;
    let mut rest = s;
    for (n, d) in DIGITS {
        while let Some(r) = rest.strip_prefix(d) {
            value += n;
            rest = r;
        }
    }
    if !rest.is_empty() || value == 0 || value > 4999 {
        return false;
    }
    let mut canonical = String::new();
    for (n, d) in DIGITS {
        while value >= n {
            canonical.push_str(d);
            value -= n;
        }
    }
    canonical == s
}

/// Four Roman digits in a row, the least a match holds: spares compiling the pattern for
/// most requests (the gate sees the text lowercased).
fn roman_run(s: &str) -> bool {
    s.as_bytes()
        .windows(4)
        .any(|w| w.iter().all(|b| b"mdclxvi".contains(b)))
}

/// The first four bytes of an ObjectId are its creation time in Unix seconds.
fn object_id(s: &str) -> bool {
    u32::from_str_radix(&s[..8], 16).is_ok_and(|t| (0x4a00_0000..0x7fff_ffff).contains(&t))
        && mixed(s)
}

/// Latitude first, then longitude, each within range.
fn coordinates(s: &str) -> bool {
    let mut parts = s.split(',').map(|p| p.trim().parse::<f64>());
    match (parts.next(), parts.next()) {
        (Some(Ok(lat)), Some(Ok(lon))) => lat.abs() <= 90.0 && lon.abs() <= 180.0,
        _ => false,
    }
}

/// Ten digits of ones and zeros are bits more often than a time in 2002 ("1011011101 binary
/// to decimal").
fn not_bits(s: &str) -> bool {
    !s.bytes().all(|b| b == b'0' || b == b'1')
}

/// `#123` is an issue or a number more often than a colour: short forms need a letter.
fn css_color(s: &str) -> bool {
    !s.starts_with('#') || s.len() > 5 || s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Padded Base64 of a short value ("dXNlcm5hbWU=") is told from a word before `=`
/// ("password=") by its mix of cases or digits.
fn base64_like(s: &str) -> bool {
    s.len() >= 16
        || (s.bytes().any(|b| b.is_ascii_lowercase())
            && s.bytes()
                .any(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
}

/// Hex digits spelling bytes: an even count, with both digits and letters.
fn hex_bytes(s: &str) -> bool {
    s.len().is_multiple_of(2) && mixed(s)
}

/// Base58 leaves out 0, O, I and l; a real one mixes cases and digits.
fn base58(s: &str) -> bool {
    has_digit(s)
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().skip(1).any(|b| b.is_ascii_uppercase())
}

/// ISO 13616: the country and check digits moved to the end, letters as 10..35, the whole
/// number is 1 modulo 97.
fn iban(s: &str) -> bool {
    let compact: Vec<u8> = s.bytes().filter(|b| *b != b' ').collect();
    if !(15..=34).contains(&compact.len()) {
        return false;
    }
    let (head, tail) = compact.split_at(4);
    tail.iter().chain(head).try_fold(0u32, |acc, &b| {
        let v = match b {
            b'0'..=b'9' => (b - b'0') as u32,
            b'A'..=b'Z' => (b - b'A') as u32 + 10,
            _ => return None,
        };
        Some(if v >= 10 {
            (acc * 100 + v) % 97
        } else {
            (acc * 10 + v) % 97
        })
    }) == Some(1)
}

/// Whether the text has three NATO code words, the least a phonetic spelling holds.
fn nato_words(lower: &str) -> bool {
    let words = &super::samples::data_file().words.nato;
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| words.iter().any(|n| n == w))
        .nth(2)
        .is_some()
}

/// Padded Base32 comes in blocks of eight characters.
fn base32(s: &str) -> bool {
    s.len().is_multiple_of(8)
}

/// Unpadded Base32 of whole five-byte groups, with letters and digits.
fn base32_unpadded(s: &str) -> bool {
    s.len().is_multiple_of(8) && mixed(s)
}

/// An IPv6 address has at least two groups of hex digits, one of them with a digit.
fn ipv6(s: &str) -> bool {
    let groups: Vec<&str> = s.split(':').filter(|g| !g.is_empty()).collect();
    groups.len() >= 2
        && groups.iter().any(|g| has_digit(g))
        && (s.contains("::") || groups.len() == 8)
}
