//! Secrets: the unguessable tokens MCP consent, BTCP sessions and MCP-over-HTTP sessions hand
//! out (so nobody can guess an id, a key or a retry's token), and the one comparison of a
//! secret someone presents (a bearer token, an owner key) with the one expected.

use rand::RngExt;

/// 128 random bits as hex.
pub(crate) fn random_token() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares in time independent of where the inputs differ, so a secret cannot be guessed a
/// byte at a time.
pub(crate) fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    given.ct_eq(expected).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"0123456789abcdef", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdeX", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcde", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdef0", b"0123456789abcdef"));
        assert!(!same_secret(b"", b"0123456789abcdef"));
        assert!(same_secret(b"", b""));
    }

    #[test]
    fn tokens_are_128_bits_of_hex() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
