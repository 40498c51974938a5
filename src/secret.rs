//! Unguessable tokens: what MCP consent, BTCP sessions and MCP-over-HTTP sessions hand out so
//! that nobody can guess an id, a key or a retry's token.

use rand::RngExt;

/// 128 random bits as hex.
pub fn random_token() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
