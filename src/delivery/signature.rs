//! Standard Webhooks signatures (<https://www.standardwebhooks.com/>): a `whsec_` secret holding
//! base64 key bytes, and `webhook-signature: v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// The prefix of every secret Herald hands out.
pub const SECRET_PREFIX: &str = "whsec_";

/// A secret that cannot be used to sign.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The part after `whsec_` is not base64.
    #[error("the webhook secret is not base64 after its whsec_ prefix")]
    NotBase64,
    /// Fewer than 24 key bytes (the specification asks for 24 to 64).
    #[error("the webhook secret is too short (at least 24 bytes of key are needed)")]
    TooShort,
}

/// A new secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> String {
    let mut key = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut key);
    format!("{SECRET_PREFIX}{}", STANDARD.encode(key))
}

/// The key bytes of a secret, with or without its `whsec_` prefix.
fn key(secret: &str) -> Result<Vec<u8>, SignatureError> {
    let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    let key = STANDARD
        .decode(encoded.trim())
        .map_err(|_| SignatureError::NotBase64)?;
    if key.len() < 24 {
        return Err(SignatureError::TooShort);
    }
    Ok(key)
}

fn mac(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> Result<Hmac<Sha256>, SignatureError> {
    // HMAC accepts keys of any length; the error arm is unreachable in practice.
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(key).map_err(|_| SignatureError::TooShort)?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(mac)
}

/// The `webhook-signature` value for one message: `v1,<base64>`.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, SignatureError> {
    let key = key(secret)?;
    let tag = mac(&key, id, timestamp, body)?.finalize().into_bytes();
    Ok(format!("v1,{}", STANDARD.encode(tag)))
}

/// Whether `header` (space-separated `v1,<base64>` signatures) holds a valid signature of the
/// message, compared in constant time. Timestamp tolerance is the receiver's business.
pub fn verify(secret: &str, id: &str, timestamp: i64, body: &[u8], header: &str) -> bool {
    let Ok(key) = key(secret) else {
        return false;
    };
    header.split(' ').any(|candidate| {
        let Some(encoded) = candidate.strip_prefix("v1,") else {
            return false;
        };
        let Ok(tag) = STANDARD.decode(encoded) else {
            return false;
        };
        mac(&key, id, timestamp, body).is_ok_and(|m| m.verify_slice(&tag).is_ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The Standard Webhooks reference libraries' own test vector (libraries/python/tests).
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1614265330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;

    #[test]
    fn signing_matches_the_specifications_test_vector() {
        assert_eq!(
            sign(SECRET, ID, TIMESTAMP, BODY).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        // The libraries accept the secret without its prefix too.
        assert_eq!(
            sign(&SECRET[SECRET_PREFIX.len()..], ID, TIMESTAMP, BODY).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn verification_accepts_one_good_signature_among_several() {
        let good = sign(SECRET, ID, TIMESTAMP, BODY).unwrap();
        let header = format!("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,xyz {good}");
        assert!(verify(SECRET, ID, TIMESTAMP, BODY, &header));
        assert!(!verify(
            SECRET,
            ID,
            TIMESTAMP,
            BODY,
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="
        ));
        assert!(!verify(SECRET, ID, TIMESTAMP + 1, BODY, &good));
        assert!(!verify(SECRET, "msg_other", TIMESTAMP, BODY, &good));
    }

    #[test]
    fn new_secrets_are_random_prefixed_and_usable() {
        let a = new_secret();
        let b = new_secret();
        assert_ne!(a, b);
        assert!(a.starts_with("whsec_"));
        assert_eq!(key(&a).unwrap().len(), 32);
        let sig = sign(&a, "id", 1, b"{}").unwrap();
        assert!(verify(&a, "id", 1, b"{}", &sig));
    }

    #[test]
    fn bad_secrets_are_errors_not_panics() {
        assert_eq!(
            sign("whsec_!!!", ID, 1, b""),
            Err(SignatureError::NotBase64)
        );
        assert_eq!(
            sign("whsec_c2hvcnQ=", ID, 1, b""),
            Err(SignatureError::TooShort)
        );
        assert!(!verify("whsec_!!!", ID, 1, b"", "v1,AAAA"));
    }
}
