//! OBJECT IDENTIFIER content octets ⇄ dotted arcs (X.690 §8.19), for every arc size.
//!
//! Written here because the crates in the tree get the first subidentifier wrong once it needs
//! more than one octet: asn1-rs splits the first *octet* (2.999.1 reads as 3.16.55.1) and
//! const-oid refuses a second arc above 39 under arc 2. X.690 packs the first two arcs into one
//! subidentifier, 40·X + Y, which for X = 2 can be any size.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// The dotted form of OID content octets, or why they are not a valid OID.
pub(crate) fn dotted(content: &[u8]) -> Result<String, String> {
    if content.is_empty() {
        return Err("an OBJECT IDENTIFIER has at least one subidentifier".into());
    }
    let mut arcs = Vec::new();
    let mut value = BigUint::zero();
    let mut fresh = true;
    for (i, &b) in content.iter().enumerate() {
        // X.690 §8.19.2: a subidentifier is as short as possible, so it never starts with 0x80.
        if fresh && b == 0x80 {
            return Err(format!(
                "subidentifier at octet {i} has a leading 0x80 padding octet"
            ));
        }
        value = (value << 7u32) | BigUint::from(b & 0x7f);
        fresh = b & 0x80 == 0;
        if fresh {
            arcs.push(std::mem::take(&mut value));
        }
    }
    if !fresh {
        return Err(
            "the last subidentifier is cut off (its final octet has the high bit set)".into(),
        );
    }
    let first = arcs.remove(0);
    let (x, y) = match first.to_u64() {
        Some(f) if f < 40 => (0u32, BigUint::from(f)),
        Some(f) if f < 80 => (1, BigUint::from(f - 40)),
        _ => (2, first - 80u32),
    };
    let mut out = format!("{x}.{y}");
    for arc in arcs {
        out.push('.');
        out.push_str(&arc.to_string());
    }
    Ok(out)
}

/// The dotted form of an OID parsed by x509-parser (whose own `to_id_string` has the bug).
pub(crate) fn dotted_of(oid: &x509_parser::asn1_rs::Oid) -> String {
    dotted(oid.as_bytes()).unwrap_or_else(|_| oid.to_id_string())
}

/// The content octets of a dotted OID, or why it is not one.
pub(crate) fn encode(dotted: &str) -> Result<Vec<u8>, String> {
    let arcs: Vec<BigUint> = dotted
        .split('.')
        .map(|a| {
            if a.is_empty() || !a.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("'{a}' is not an arc (arcs are decimal numbers)"));
            }
            a.parse::<BigUint>().map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    if arcs.len() < 2 {
        return Err("an OID has at least two arcs".into());
    }
    let x = arcs[0].to_u32().filter(|x| *x <= 2);
    let Some(x) = x else {
        return Err("the first arc must be 0, 1 or 2".into());
    };
    if x < 2 && arcs[1] >= BigUint::from(40u32) {
        return Err(format!("under arc {x} the second arc must be below 40"));
    }
    let mut out = Vec::new();
    push_subidentifier(&mut out, &(BigUint::from(x * 40) + &arcs[1]));
    for arc in &arcs[2..] {
        push_subidentifier(&mut out, arc);
    }
    Ok(out)
}

/// Base 128, most significant group first, the high bit set on all but the last octet.
fn push_subidentifier(out: &mut Vec<u8>, value: &BigUint) {
    let mut groups = value.to_radix_be(128);
    let last = groups.len() - 1;
    for g in &mut groups[..last] {
        *g |= 0x80;
    }
    out.extend(groups);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Octets checked with `openssl asn1parse` (OpenSSL 3) and by hand from X.690 §8.19.
    #[test]
    fn large_first_subidentifiers_both_ways() {
        for (dotted_form, hex) in [
            ("2.999.1", "883701"),
            ("2.999", "8837"),
            ("2.47", "7f"),
            ("2.48", "8100"),
            ("1.39", "4f"),
            ("0.0", "00"),
            ("1.2.840.113549.1.1.1", "2a864886f70d010101"),
            (
                "2.25.329800735698586629295641978511506172918",
                "6983f09da7ebcfdee0c7a1a7b2c0948cc8f9d776",
            ),
        ] {
            assert_eq!(
                encode(dotted_form).map(hex::encode),
                Ok(hex.into()),
                "{dotted_form}"
            );
            assert_eq!(
                dotted(&hex::decode(hex).unwrap()),
                Ok(dotted_form.into()),
                "{hex}"
            );
        }
    }

    #[test]
    fn malformed_oids_are_refused() {
        assert!(dotted(&[]).is_err());
        assert!(dotted(&[0x2a, 0x86]).unwrap_err().contains("cut off"));
        assert!(dotted(&[0x2a, 0x80, 0x01]).unwrap_err().contains("0x80"));
        assert_eq!(encode("3.1"), Err("the first arc must be 0, 1 or 2".into()));
        assert_eq!(
            encode("1.40"),
            Err("under arc 1 the second arc must be below 40".into())
        );
        assert!(encode("1").is_err());
        assert!(encode("1..2").is_err());
    }
}
