//! Validators for identifiers with a registry or check digit behind them: IBANs (ISO 13616,
//! the SWIFT IBAN registry via `iban_validate`), phone numbers (ITU-T E.164, libphonenumber
//! metadata via `phonenumber`) and Luhn (ISO/IEC 7812-1 mod 10) numbers such as payment cards
//! and IMEIs.
//!
//! Both answer every string with a result: something that is not a valid IBAN or phone number
//! is `valid: false` with the reason, because saying so is the validator's job. Errors are kept
//! for bad parameters (an unknown default region).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use iban::{BaseIban, Iban, IbanLike, ParseBaseIbanError, ParseIbanError};
use phonenumber::{Mode, PhoneNumber};
use serde_json::{Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("iban-validator", iban_validator),
    Tool::new("phone-number-parser", phone_number_parser),
    Tool::new("luhn-validator", luhn_validator),
];

fn iban_validator(args: &Args) -> ToolOutcome {
    let raw = args.str("iban")?.trim();
    // The paper format groups by four with spaces and is often prefixed "IBAN"; people also
    // paste lowercase or other spacing. The electronic format is what gets validated.
    let unprefixed = match raw.get(..4) {
        Some(p) if p.eq_ignore_ascii_case("iban") => &raw[4..],
        _ => raw,
    };
    let electronic: String = unprefixed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let result = match electronic.parse::<Iban>() {
        Ok(iban) => {
            return Ok(json!({
                "valid": true,
                "reason": null,
                "countryCode": iban.country_code(),
                "checkDigits": iban.check_digits_str(),
                "bban": iban.bban(),
                "bankIdentifier": iban.bank_identifier(),
                "branchIdentifier": iban.branch_identifier(),
                "electronicFormat": iban.electronic_str(),
                "printFormat": iban.to_string(),
            }));
        }
        Err(ParseIbanError::InvalidBaseIban { source }) => invalid_base(&electronic, source),
        Err(ParseIbanError::InvalidBban(base)) => invalid_with_base(
            &base,
            format!(
                "the BBAN '{}' ({} characters) does not match the format registered for {} (wrong length or a letter where a digit belongs)",
                base.bban_unchecked(),
                base.bban_unchecked().len(),
                base.country_code()
            ),
        ),
        Err(ParseIbanError::UnknownCountry(base)) => invalid_with_base(
            &base,
            format!(
                "'{}' is not a country in the SWIFT IBAN registry",
                base.country_code()
            ),
        ),
    };
    Ok(result)
}

fn invalid_with_base(base: &BaseIban, reason: String) -> Value {
    json!({
        "valid": false,
        "reason": reason,
        "countryCode": base.country_code(),
        "checkDigits": base.check_digits_str(),
        "bban": base.bban_unchecked(),
        "bankIdentifier": null,
        "branchIdentifier": null,
        "electronicFormat": base.electronic_str(),
        "printFormat": base.to_string(),
    })
}

/// Explains a failure of the basic ISO 13616 structure more precisely than the crate does.
fn invalid_base(electronic: &str, error: ParseBaseIbanError) -> Value {
    let reason = match error {
        // With no BBAN there is nothing to check: the crate still runs MOD 97 over the country
        // code alone, and "the check digits fail" would send the user looking for a typo.
        ParseBaseIbanError::InvalidChecksum if electronic.len() <= 4 => format_problem(electronic),
        ParseBaseIbanError::InvalidChecksum => {
            let expected = check_digits(electronic)
                .map(|d| format!("; with this country code and BBAN they would be {d:02}"))
                .unwrap_or_default();
            format!(
                "the check digits {} fail the ISO 7064 MOD 97-10 check{expected} (a typo elsewhere is as likely)",
                &electronic[2..4]
            )
        }
        ParseBaseIbanError::InvalidFormat => format_problem(electronic),
    };
    let part = |range: std::ops::Range<usize>| electronic.get(range).filter(|s| !s.is_empty());
    json!({
        "valid": false,
        "reason": reason,
        "countryCode": part(0..2),
        "checkDigits": part(2..4),
        "bban": part(4..electronic.len()),
        "bankIdentifier": null,
        "branchIdentifier": null,
        "electronicFormat": electronic,
        "printFormat": null,
    })
}

fn format_problem(s: &str) -> String {
    if s.is_empty() {
        return "the input is empty: an IBAN is a country code, two check digits and the BBAN"
            .into();
    }
    if let Some((i, c)) = s.char_indices().find(|(_, c)| !c.is_ascii_alphanumeric()) {
        return format!(
            "character '{c}' at position {} is not a letter or digit",
            s[..i].chars().count() + 1
        );
    }
    let bytes = s.as_bytes();
    if !bytes.iter().take(2).all(u8::is_ascii_uppercase) || bytes.len() < 2 {
        return "an IBAN starts with a two-letter ISO 3166 country code".into();
    }
    if bytes.len() < 4 || !bytes[2..4].iter().all(u8::is_ascii_digit) {
        return "the country code must be followed by two check digits".into();
    }
    if bytes.len() > 34 {
        return format!(
            "too long: {} characters, an IBAN has at most 34",
            bytes.len()
        );
    }
    if bytes.len() <= 4 {
        return "too short: the BBAN after the check digits is missing".into();
    }
    "the text does not have the structure of an IBAN".into()
}

/// ISO 7064 MOD 97-10 check digits for the country code and BBAN of `s` (ISO 13616-1 §6.1).
fn check_digits(s: &str) -> Option<u32> {
    let rearranged = format!("{}{}00", s.get(4..)?, s.get(..2)?);
    let mut remainder: u32 = 0;
    for c in rearranged.chars() {
        let value = c.to_digit(36)?;
        remainder = if value < 10 {
            (remainder * 10 + value) % 97
        } else {
            (remainder * 100 + value) % 97
        };
    }
    Some(98 - remainder)
}

fn phone_number_parser(args: &Args) -> ToolOutcome {
    let number = args.str("number")?.trim();
    let region = match args.opt_str("defaultRegion").map(str::trim) {
        Some(code) if !code.is_empty() => Some(region_id(code)?),
        _ => None,
    };
    let parsed = match phonenumber::parse(region, number) {
        Ok(p) => p,
        Err(e) => {
            let hint = if region.is_none() && !number.starts_with('+') {
                " (a number without a leading + needs defaultRegion, e.g. CH or US)"
            } else {
                ""
            };
            return Ok(phone_result(None, Some(format!("cannot parse: {e}{hint}"))));
        }
    };
    let reason = (!parsed.is_valid()).then(|| {
        "the number does not match any numbering plan of its country (wrong length or unassigned range)"
            .to_string()
    });
    Ok(phone_result(Some(&parsed), reason))
}

fn region_id(code: &str) -> Result<phonenumber::country::Id, ToolError> {
    code.to_ascii_uppercase().parse().map_err(|_| {
        ToolError::invalid(format!(
            "defaultRegion '{}' is not an ISO 3166-1 alpha-2 region code such as US, GB or CH",
            crate::text::preview(code, 20)
        ))
    })
}

fn phone_result(number: Option<&PhoneNumber>, reason: Option<String>) -> Value {
    let Some(n) = number else {
        return json!({
            "valid": false,
            "reason": reason,
            "countryCode": null,
            "region": null,
            "nationalNumber": null,
            "extension": null,
            "type": null,
            "e164": null,
            "international": null,
            "national": null,
            "rfc3966": null,
        });
    };
    let database = &*phonenumber::metadata::DATABASE;
    let kind = format!("{:?}", n.number_type(database));
    let national_number = format!(
        "{}{}",
        "0".repeat(usize::from(n.national().zeros())),
        n.national().value()
    );
    let format = |mode| n.format().mode(mode).to_string();
    json!({
        "valid": reason.is_none(),
        "reason": reason,
        "countryCode": n.code().value(),
        "region": n.country().id().map(|id| id.as_ref().to_string()),
        "nationalNumber": national_number,
        "extension": n.extension().map(|e| e.to_string()),
        "type": heck::AsKebabCase(kind).to_string(),
        "e164": format(Mode::E164),
        "international": format(Mode::International),
        "national": format(Mode::National),
        "rfc3966": format(Mode::Rfc3966),
    })
}

fn luhn_validator(args: &Args) -> ToolOutcome {
    let raw = args.str("number")?.trim();
    let mut digits = Vec::with_capacity(raw.len());
    for (i, c) in raw.chars().enumerate() {
        match c {
            '0'..='9' => digits.push(c as u8 - b'0'),
            ' ' | '-' | '.' => {}
            _ => {
                return Err(ToolError::invalid(format!(
                    "'{c}' at position {} is not a digit: a Luhn number has only digits (spaces and dashes may separate groups)",
                    i + 1
                )));
            }
        }
    }
    if digits.is_empty() {
        return Err(ToolError::invalid(
            "the number is empty: give the digits to check",
        ));
    }
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    if args.str("mode")? == "compute" {
        let check = luhn_check_digit(&digits);
        let full = format!("{text}{check}");
        let brand = card_brand(&full);
        let mut data = json!({
            "output": full,
            "checkDigit": check,
            "number": full,
            "length": full.len(),
            "possibleImei": full.len() == 15,
        });
        add_brand(&mut data, brand);
        return Ok(data);
    }
    if digits.len() < 2 {
        return Err(ToolError::invalid(
            "a Luhn number needs at least two digits: the payload and the check digit (use mode 'compute' to get a check digit)",
        ));
    }
    let (payload, last) = digits.split_at(digits.len() - 1);
    let expected = luhn_check_digit(payload);
    let valid = expected == last[0];
    let brand = card_brand(&text);
    let reason = (!valid).then(|| {
        format!(
            "the check digit is {} but the other digits require {expected}",
            last[0]
        )
    });
    let mut data = json!({
        "valid": valid,
        "reason": reason,
        "number": text,
        "length": text.len(),
        "checkDigit": last[0],
        "expectedCheckDigit": expected,
        // An IMEI is 15 digits whose last one is its Luhn check digit.
        "possibleImei": valid && text.len() == 15,
    });
    add_brand(&mut data, brand);
    Ok(data)
}

/// Adds the card network when the number is one of its cards (absent otherwise, rather than
/// null, so the field keeps one type).
fn add_brand(data: &mut Value, brand: Option<&str>) {
    if let Some(brand) = brand {
        data["brand"] = json!(brand);
    }
}

/// Whether `digits` (values 0 to 9) end with their Luhn check digit: the one Luhn check,
/// shared with text-extractor's card numbers.
pub(crate) fn luhn_valid(digits: &[u8]) -> bool {
    digits
        .split_last()
        .is_some_and(|(&last, payload)| luhn_check_digit(payload) == last)
}

/// The Luhn check digit for `payload`: from the rightmost digit leftwards, double every other
/// digit (starting with the rightmost), add the digits of the products, and take what brings
/// the total to a multiple of 10 (ISO/IEC 7812-1 Annex B).
pub(crate) fn luhn_check_digit(payload: &[u8]) -> u8 {
    let sum: u32 = payload
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 0 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    u8::try_from((10 - sum % 10) % 10).unwrap_or(0)
}

/// The payment card network whose IIN range the number starts with, when its length is one
/// that network issues: a 15-digit IMEI starting with 4 is not a Visa card. Ranges from the
/// networks' published IIN tables (Mastercard's 2-series since 2017, Discover's UnionPay
/// co-branded range 622126-622925).
fn card_brand(number: &str) -> Option<&'static str> {
    let prefix = |n: usize| number.get(..n).and_then(|p| p.parse::<u32>().ok());
    let within = |n: usize, lo: u32, hi: u32| prefix(n).is_some_and(|p| (lo..=hi).contains(&p));
    let len = number.len();
    const LONG: &[usize] = &[16, 17, 18, 19];
    let rules: [(&str, bool, &[usize]); 10] = [
        (
            "American Express",
            within(2, 34, 34) || within(2, 37, 37),
            &[15],
        ),
        (
            "Diners Club",
            within(3, 300, 305) || within(4, 3095, 3095) || within(2, 36, 36) || within(2, 38, 39),
            &[14, 15, 16, 17, 18, 19],
        ),
        ("JCB", within(4, 3528, 3589), LONG),
        ("Mir", within(4, 2200, 2204), LONG),
        (
            "Mastercard",
            within(2, 51, 55) || within(4, 2221, 2720),
            &[16],
        ),
        (
            "Maestro",
            [5018, 5020, 5038, 5893, 6304, 6759, 6761, 6762, 6763]
                .iter()
                .any(|p| within(4, *p, *p)),
            &[12, 13, 14, 15, 16, 17, 18, 19],
        ),
        (
            "Discover",
            within(4, 6011, 6011)
                || within(6, 622126, 622925)
                || within(3, 644, 649)
                || within(2, 65, 65),
            LONG,
        ),
        ("UnionPay", within(2, 62, 62), LONG),
        ("Visa", within(1, 4, 4), &[13, 16, 19]),
        ("RuPay", within(2, 60, 60) || within(2, 81, 82), &[16]),
    ];
    // The first network whose range and lengths both fit: ranges overlap (Discover inside
    // UnionPay's 62), and a length that fits none is no card at all.
    rules
        .iter()
        .find(|(_, matches, lengths)| *matches && lengths.contains(&len))
        .map(|(name, _, _)| *name)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn iban(input: &str) -> serde_json::Value {
        run_ok("iban-validator", json!({"iban": input}))
    }

    // SWIFT IBAN registry (release 99) examples for GB and DE.
    #[test]
    fn registry_examples_are_valid() {
        let gb = iban("GB82WEST12345698765432");
        assert_eq!(gb["valid"], true);
        assert_eq!(gb["countryCode"], "GB");
        assert_eq!(gb["checkDigits"], "82");
        assert_eq!(gb["bban"], "WEST12345698765432");
        assert_eq!(gb["bankIdentifier"], "WEST");
        assert_eq!(gb["branchIdentifier"], "123456");
        assert_eq!(gb["printFormat"], "GB82 WEST 1234 5698 7654 32");
        let de = iban("DE89 3704 0044 0532 0130 00");
        assert_eq!(de["valid"], true);
        assert_eq!(de["electronicFormat"], "DE89370400440532013000");
        assert_eq!(de["bankIdentifier"], "37040044");
        assert_eq!(de["branchIdentifier"], serde_json::Value::Null);
    }

    #[test]
    fn accepts_paper_format_with_prefix_and_lowercase() {
        let data = iban("IBAN fr14 2004 1010 0505 0001 3m02 606");
        assert_eq!(data["valid"], true);
        assert_eq!(data["electronicFormat"], "FR1420041010050500013M02606");
        assert_eq!(data["bankIdentifier"], "20041");
    }

    #[test]
    fn wrong_check_digits_say_what_they_should_be() {
        let data = iban("GB83WEST12345698765432");
        assert_eq!(data["valid"], false);
        let reason = data["reason"].as_str().unwrap();
        assert!(reason.contains("MOD 97-10"), "{reason}");
        assert!(reason.contains("would be 82"), "{reason}");
    }

    #[test]
    fn length_country_and_character_problems() {
        // DE has an 18-character BBAN; one digit dropped, check digits recomputed (valid checksum).
        let short = iban("DE5137040044053201300");
        assert_eq!(short["valid"], false);
        let reason = short["reason"].as_str().unwrap();
        assert!(reason.contains("format registered for DE"), "{reason}");
        let country = iban("XX82WEST12345698765432");
        assert_eq!(country["valid"], false);
        let reason = country["reason"].as_str().unwrap();
        assert!(
            reason.contains("'XX' is not a country") || reason.contains("MOD 97-10"),
            "{reason}"
        );
        let bad = iban("GB82 WEST 1234 5698 7654 3!");
        assert!(bad["reason"].as_str().unwrap().contains("'!'"));
        let long = iban("GB82WEST123456987654321234567890123456");
        assert!(long["reason"].as_str().unwrap().contains("too long"));
        // Country code and check digits only: too short, not a checksum failure.
        let bare = iban("DE89");
        assert_eq!(bare["valid"], false);
        assert_eq!(
            bare["reason"],
            "too short: the BBAN after the check digits is missing"
        );
        assert_eq!(bare["bban"], serde_json::Value::Null);
    }

    // libphonenumber's documented Swiss example (Google's ZRH office number).
    #[test]
    fn parses_swiss_number_in_all_formats() {
        for (number, region) in [("+41 44 668 18 00", None), ("044 668 18 00", Some("CH"))] {
            let mut args = json!({"number": number});
            if let Some(r) = region {
                args["defaultRegion"] = json!(r);
            }
            let data = run_ok("phone-number-parser", args);
            assert_eq!(data["valid"], true, "{number}");
            assert_eq!(data["countryCode"], 41);
            assert_eq!(data["region"], "CH");
            assert_eq!(data["nationalNumber"], "446681800");
            assert_eq!(data["type"], "fixed-line");
            assert_eq!(data["e164"], "+41446681800");
            assert_eq!(data["international"], "+41 44 668 18 00");
            assert_eq!(data["national"], "044 668 18 00");
            assert_eq!(data["rfc3966"], "tel:+41-44-668-18-00");
        }
    }

    // The example numbers in libphonenumber's metadata (GB mobile, IT fixed line).
    #[test]
    fn classifies_mobile_and_keeps_italian_leading_zero() {
        let uk = run_ok(
            "phone-number-parser",
            json!({"number": "07400 123456", "defaultRegion": "gb"}),
        );
        assert_eq!(uk["valid"], true);
        assert_eq!(uk["type"], "mobile");
        assert_eq!(uk["e164"], "+447400123456");
        let it = run_ok("phone-number-parser", json!({"number": "+39 02 1234 5678"}));
        assert_eq!(it["nationalNumber"], "0212345678");
        assert_eq!(it["e164"], "+390212345678");
    }

    #[test]
    fn invalid_numbers_are_results_and_bad_regions_errors() {
        let data = run_ok("phone-number-parser", json!({"number": "+41 44 668"}));
        assert_eq!(data["valid"], false);
        assert!(data["reason"].as_str().is_some());
        let none = run_ok("phone-number-parser", json!({"number": "hello"}));
        assert_eq!(none["valid"], false);
        assert!(none["reason"].as_str().unwrap().contains("cannot parse"));
        let (code, msg) = run_err(
            "phone-number-parser",
            json!({"number": "044 668 18 00", "defaultRegion": "Switzerland"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("ISO 3166"), "{msg}");
    }

    fn luhn(number: &str) -> serde_json::Value {
        run_ok("luhn-validator", json!({"number": number}))
    }

    // The worked example of ISO/IEC 7812-1 Annex B and Wikipedia's "Luhn algorithm".
    #[test]
    fn luhn_reference_example() {
        let data = luhn("79927398713");
        assert_eq!(data["valid"], true);
        assert_eq!(data["checkDigit"], 3);
        assert_eq!(data["reason"], serde_json::Value::Null);
        let computed = run_ok(
            "luhn-validator",
            json!({"number": "7992739871", "mode": "compute"}),
        );
        assert_eq!(computed["checkDigit"], 3);
        assert_eq!(computed["output"], "79927398713");
        for wrong in ["79927398710", "79927398711", "79927398712", "79927398714"] {
            assert_eq!(luhn(wrong)["valid"], false, "{wrong}");
        }
    }

    // The shared check (text-extractor's card numbers use it too) against the whole-sum form
    // of ISO/IEC 7812-1: the weighted digit sum of a valid number is a multiple of 10.
    #[test]
    fn luhn_valid_agrees_with_the_digit_sum() {
        let digits = |s: &str| s.bytes().map(|b| b - b'0').collect::<Vec<u8>>();
        assert!(super::luhn_valid(&digits("79927398713")));
        assert!(!super::luhn_valid(&digits("79927398710")));
        assert!(!super::luhn_valid(&[]));
        let mut n: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..2000 {
            n ^= n << 13;
            n ^= n >> 7;
            n ^= n << 17;
            let number = digits(&(n % 10u64.pow(16)).to_string());
            let sum: u32 = number
                .iter()
                .rev()
                .enumerate()
                .map(|(i, &d)| match (i % 2, u32::from(d) * 2) {
                    (1, x) if x > 9 => x - 9,
                    (1, x) => x,
                    _ => u32::from(d),
                })
                .sum();
            assert_eq!(
                super::luhn_valid(&number),
                sum.is_multiple_of(10),
                "{number:?}"
            );
        }
    }

    // Test card numbers published by Stripe and PayPal for sandbox use.
    #[test]
    fn luhn_card_brands() {
        let visa = luhn("4111 1111 1111 1111");
        assert_eq!(visa["valid"], true);
        assert_eq!(visa["brand"], "Visa");
        assert_eq!(visa["number"], "4111111111111111");
        let cases = [
            ("5555555555554444", "Mastercard"),
            ("2223003122003222", "Mastercard"),
            ("378282246310005", "American Express"),
            ("6011111111111117", "Discover"),
            ("3566002020360505", "JCB"),
            ("36227206271667", "Diners Club"),
            ("6200000000000005", "UnionPay"),
            ("6759649826438453", "Maestro"),
        ];
        for (number, brand) in cases {
            let data = luhn(number);
            assert_eq!(data["valid"], true, "{number}");
            assert_eq!(data["brand"], brand, "{number}");
        }
    }

    #[test]
    fn luhn_invalid_number_reports_expected_digit() {
        let data = luhn("4111-1111-1111-1112");
        assert_eq!(data["valid"], false);
        assert_eq!(data["checkDigit"], 2);
        assert_eq!(data["expectedCheckDigit"], 1);
        assert!(data["reason"].as_str().unwrap().contains("require 1"));
        // An IMEI is 15 digits with a Luhn check digit (3GPP TS 23.003 example 49015420323751).
        let imei = luhn("490154203237518");
        assert_eq!(imei["valid"], true);
        assert_eq!(imei["possibleImei"], true);
        // It starts with 4, Visa's IIN, but no Visa card has 15 digits: no brand.
        assert_eq!(imei.get("brand"), None);
        // Fifteen digits that fail the check cannot be an IMEI.
        let wrong_digit = luhn("490154203237517");
        assert_eq!(wrong_digit["valid"], false);
        assert_eq!(wrong_digit["possibleImei"], false);
        // Most IMEIs start with 35 (JCB's 3528-3589, which issues 16-19 digits).
        let jcb_like = luhn("356938035643809");
        assert_eq!(jcb_like["valid"], true);
        assert_eq!(jcb_like.get("brand"), None);
        assert_eq!(luhn("79927398713").get("brand"), None);
    }

    #[test]
    fn luhn_rejects_letters_and_empty_input() {
        let (code, msg) = run_err("luhn-validator", json!({"number": "4111 1111 abcd"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("'a' at position 11"), "{msg}");
        let (code, _) = run_err("luhn-validator", json!({"number": " - "}));
        assert_eq!(code, ErrorCode::InvalidInput);
    }
}
