//! The signed, stateless form token: when the form was handed out, bound to its page, signed
//! with a key derived from the server secret for this purpose only (not the session or API
//! token key path), so the form keeps working whatever happens to sign-in. It carries the
//! issue time, which gives the minimum fill time without any server-side state.
//!
//! A token is used once, also without server-side state: the submission's id and reference
//! are derived from it ([`FormStamp::identity`]), and a submission is inserted only if its id
//! is absent, in the database as from the spool. A double click, a retry or a replayed token
//! with another message gets the first submission's reference and stores nothing new.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The derivation context of the form-token key.
const CONTEXT: &[u8] = b"herald/support-form-token/v1";
/// Bytes of the MAC kept in the token.
const MAC_LEN: usize = 16;
/// Issue time (8) + nonce (8).
const PAYLOAD_LEN: usize = 16;
/// How far in the future an issue time may be (clock steps between Herald processes).
const SKEW: Duration = Duration::seconds(5);

/// Why a token was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenProblem {
    /// Missing, malformed, forged or for another page.
    Invalid,
    /// Sent sooner after the form was handed out than a person can fill it.
    TooFast,
    /// Older than the token lifetime: the form must be loaded again.
    Expired,
}

/// What a valid token vouches for: when its form was handed out, and the random nonce that
/// makes it one of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormStamp {
    issued_millis: u64,
    mac: [u8; 32],
}

/// The id and reference of the one submission a token may make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// A UUIDv7 whose time is the form's issue time.
    pub id: String,
    /// `SUP-` and eight Crockford base32 symbols.
    pub reference: String,
}

impl FormStamp {
    /// The submission id and reference this token stands for: the same every time it is sent.
    pub fn identity(&self) -> Identity {
        let mut random = [0u8; 10];
        random.copy_from_slice(&self.mac[..10]);
        let id = uuid::Builder::from_unix_timestamp_millis(self.issued_millis, &random)
            .into_uuid()
            .to_string();
        let mut bits = [0u8; 8];
        bits[3..].copy_from_slice(&self.mac[10..15]);
        let reference = super::reference::from_bits(u64::from_be_bytes(bits));
        Identity { id, reference }
    }
}

/// Mints and checks form tokens.
#[derive(Clone)]
pub struct TokenKey {
    key: [u8; 32],
    min_fill: Duration,
    max_age: Duration,
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(****)")
    }
}

impl TokenKey {
    /// The key derived from the server secret, with the minimum fill time and the lifetime.
    pub fn derive(secret: &[u8], min_fill: Duration, max_age: Duration) -> Self {
        let mut mac =
            <HmacSha256 as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable_hmac_key());
        mac.update(CONTEXT);
        let key: [u8; 32] = mac.finalize().into_bytes().into();
        Self {
            key,
            min_fill,
            max_age,
        }
    }

    /// The minimum fill time.
    pub fn min_fill(&self) -> Duration {
        self.min_fill
    }

    /// A token for the form of page `page_id`, issued at `now`.
    pub fn mint(&self, page_id: &str, now: DateTime<Utc>) -> String {
        let mut payload = [0u8; PAYLOAD_LEN];
        payload[..8].copy_from_slice(&now.timestamp_millis().to_be_bytes());
        rand::thread_rng().fill_bytes(&mut payload[8..]);
        let mut out = Vec::with_capacity(PAYLOAD_LEN + MAC_LEN);
        out.extend_from_slice(&payload);
        out.extend_from_slice(&self.mac(page_id, &payload)[..MAC_LEN]);
        URL_SAFE_NO_PAD.encode(out)
    }

    /// Checks a token for page `page_id` at `now`; what it vouches for.
    pub fn verify(
        &self,
        token: &str,
        page_id: &str,
        now: DateTime<Utc>,
    ) -> Result<FormStamp, TokenProblem> {
        let raw = URL_SAFE_NO_PAD
            .decode(token.trim())
            .map_err(|_| TokenProblem::Invalid)?;
        if raw.len() != PAYLOAD_LEN + MAC_LEN {
            return Err(TokenProblem::Invalid);
        }
        let (payload, given) = raw.split_at(PAYLOAD_LEN);
        let mut mac = self.keyed(page_id);
        mac.update(payload);
        mac.verify_truncated_left(given)
            .map_err(|_| TokenProblem::Invalid)?;
        let mut millis = [0u8; 8];
        millis.copy_from_slice(&payload[..8]);
        let issued = DateTime::<Utc>::from_timestamp_millis(i64::from_be_bytes(millis))
            .ok_or(TokenProblem::Invalid)?;
        if issued > now + SKEW {
            return Err(TokenProblem::Invalid);
        }
        if now - issued < self.min_fill {
            return Err(TokenProblem::TooFast);
        }
        if now - issued > self.max_age {
            return Err(TokenProblem::Expired);
        }
        // A separate MAC of the payload (another context than the token's own) names the
        // submission, so the identity cannot be read off the token by its holder.
        let mut named = self.keyed(page_id);
        named.update(b"submission\0");
        named.update(payload);
        Ok(FormStamp {
            issued_millis: u64::try_from(issued.timestamp_millis()).unwrap_or(0),
            mac: named.finalize().into_bytes().into(),
        })
    }

    fn keyed(&self, page_id: &str) -> HmacSha256 {
        let mut mac = <HmacSha256 as Mac>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable_hmac_key());
        mac.update(page_id.as_bytes());
        mac.update(&[0]);
        mac
    }

    fn mac(&self, page_id: &str, payload: &[u8]) -> [u8; 32] {
        let mut mac = self.keyed(page_id);
        mac.update(payload);
        mac.finalize().into_bytes().into()
    }
}

/// HMAC accepts keys of any length; this cannot happen.
#[allow(clippy::expect_used, reason = "HMAC takes a key of any length")]
fn unreachable_hmac_key() -> HmacSha256 {
    <HmacSha256 as Mac>::new_from_slice(&[0u8; 32]).expect("a 32-byte HMAC key")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> TokenKey {
        TokenKey::derive(
            b"0123456789abcdef0123456789abcdef",
            Duration::seconds(3),
            Duration::hours(24),
        )
    }

    #[test]
    fn a_token_is_accepted_after_the_minimum_fill_time_and_before_it_expires() {
        let k = key();
        let t0 = Utc::now();
        let token = k.mint("page-1", t0);
        assert!(
            k.verify(&token, "page-1", t0 + Duration::seconds(3))
                .is_ok()
        );
        assert!(k.verify(&token, "page-1", t0 + Duration::hours(23)).is_ok());
        assert_eq!(
            k.verify(&token, "page-1", t0 + Duration::milliseconds(2900)),
            Err(TokenProblem::TooFast)
        );
        assert_eq!(
            k.verify(&token, "page-1", t0 + Duration::hours(25)),
            Err(TokenProblem::Expired)
        );
    }

    #[test]
    fn forged_foreign_and_malformed_tokens_are_invalid() {
        let k = key();
        let t0 = Utc::now();
        let later = t0 + Duration::seconds(10);
        let token = k.mint("page-1", t0);
        assert_eq!(
            k.verify(&token, "page-2", later),
            Err(TokenProblem::Invalid)
        );
        let other = TokenKey::derive(
            b"another secret entirely, 32 chars!",
            Duration::seconds(3),
            Duration::hours(1),
        );
        assert_eq!(
            other.verify(&token, "page-1", later),
            Err(TokenProblem::Invalid)
        );
        let mut raw = URL_SAFE_NO_PAD.decode(&token).unwrap();
        raw[0] ^= 1; // an earlier issue time, to get past the fill time
        let forged = URL_SAFE_NO_PAD.encode(&raw);
        assert_eq!(
            k.verify(&forged, "page-1", later),
            Err(TokenProblem::Invalid)
        );
        for bad in ["", "x", "not base64 !!", &token[..20]] {
            assert_eq!(
                k.verify(bad, "page-1", later),
                Err(TokenProblem::Invalid),
                "{bad}"
            );
        }
        let future = k.mint("page-1", t0 + Duration::minutes(5));
        assert_eq!(
            k.verify(&future, "page-1", later),
            Err(TokenProblem::Invalid)
        );
    }

    #[test]
    fn a_token_always_names_the_same_submission_and_two_tokens_different_ones() {
        let key = key();
        let at = Utc::now();
        let later = at + Duration::seconds(10);
        let token = key.mint("page-1", at);
        let first = key.verify(&token, "page-1", later).unwrap().identity();
        let again = key
            .verify(&token, "page-1", later + Duration::minutes(5))
            .unwrap()
            .identity();
        assert_eq!(first, again);
        assert!(first.reference.starts_with("SUP-") && first.reference.len() == 12);
        let uuid = uuid::Uuid::parse_str(&first.id).unwrap();
        assert_eq!(uuid.get_version_num(), 7);
        let (secs, _) = uuid.get_timestamp().unwrap().to_unix();
        assert_eq!(
            secs as i64,
            at.timestamp(),
            "its time is the form's issue time"
        );
        let other = key.mint("page-1", at);
        let second = key.verify(&other, "page-1", later).unwrap().identity();
        assert_ne!(first.id, second.id);
        assert_ne!(first.reference, second.reference);
    }

    #[test]
    fn the_form_key_differs_from_the_secret_itself() {
        let secret = b"0123456789abcdef0123456789abcdef";
        let k = key();
        assert_ne!(&k.key[..], &secret[..]);
    }
}
