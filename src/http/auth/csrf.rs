//! CSRF tokens for cookie-authenticated requests: an HMAC-SHA256 of the session id under the
//! server's key, so a token is valid for exactly one session (across its renewals) and dies
//! with it. Bearer-token requests need none: a browser never adds that header by itself.

use sha2::{Digest, Sha256};

/// The name of the form field that carries the token.
pub const FIELD: &str = "csrf_token";
/// The name of the header that carries the token.
pub const HEADER: &str = "X-CSRF-Token";

const BLOCK: usize = 64;

/// The CSRF token of the session `session_id` (hex).
pub fn token_for(session_id: &str, key: &[u8]) -> String {
    hex::encode(hmac_sha256(
        key,
        format!("herald-csrf\0{session_id}").as_bytes(),
    ))
}

/// Whether `given` is the CSRF token of `session_id`, compared in constant time.
pub fn matches(session_id: &str, key: &[u8], given: &str) -> bool {
    crate::services::signing_key::same(&token_for(session_id, key), given)
}

/// HMAC (RFC 2104) over SHA-256.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_the_rfc_4231_test_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_token_matches_its_session_only() {
        let token = token_for("s1", b"key");
        assert!(matches("s1", b"key", &token));
        assert!(!matches("s2", b"key", &token));
        assert!(!matches("s1", b"other", &token));
        assert!(!matches("s1", b"key", ""));
    }
}
