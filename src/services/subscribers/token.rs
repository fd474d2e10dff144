//! Signed links for subscribers: the double opt-in confirmation (expiring) and the
//! manage/unsubscribe link (valid until the subscriber's manage token id changes).
//!
//! A token is `base64url(purpose-free payload) "." base64url(HMAC-SHA256)`; the MAC covers a
//! purpose label too, so a manage token is never accepted as a confirmation and the server key
//! is not reused across purposes with the same message.

use crate::domain::SubscriberId;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// What a token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Confirms an email subscription; expires.
    Confirm,
    /// Opens the manage page and unsubscribes; lasts while the manage token id is unchanged.
    Manage,
}

impl Purpose {
    fn label(self) -> &'static str {
        match self {
            Self::Confirm => "herald/subscriber-confirm/v1",
            Self::Manage => "herald/subscriber-manage/v1",
        }
    }
}

/// What a valid token says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims {
    pub subscriber_id: SubscriberId,
    /// The subscriber's manage token id when the token was made.
    pub token_id: String,
    /// Unix seconds; `0` for no expiry.
    pub expires: i64,
}

/// Makes a token.
pub fn sign(key: &[u8], purpose: Purpose, claims: &Claims) -> String {
    let payload = format!(
        "{}|{}|{}",
        claims.subscriber_id, claims.token_id, claims.expires
    );
    let mac = mac(key, purpose, payload.as_bytes())
        .finalize()
        .into_bytes();
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(payload),
        URL_SAFE_NO_PAD.encode(mac)
    )
}

/// Why a token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the link is malformed or was not issued by this server")]
    Invalid,
    #[error("the link has expired")]
    Expired,
}

/// Checks a token's signature (in constant time) and expiry.
pub fn verify(
    key: &[u8],
    purpose: Purpose,
    token: &str,
    now: DateTime<Utc>,
) -> Result<Claims, TokenError> {
    let (payload, tag) = token.split_once('.').ok_or(TokenError::Invalid)?;
    let payload = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| TokenError::Invalid)?;
    let tag = URL_SAFE_NO_PAD
        .decode(tag)
        .map_err(|_| TokenError::Invalid)?;
    mac(key, purpose, &payload)
        .verify_slice(&tag)
        .map_err(|_| TokenError::Invalid)?;
    let payload = String::from_utf8(payload).map_err(|_| TokenError::Invalid)?;
    let mut parts = payload.split('|');
    let (Some(subscriber_id), Some(token_id), Some(expires), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Invalid);
    };
    let expires: i64 = expires.parse().map_err(|_| TokenError::Invalid)?;
    if expires != 0 && expires < now.timestamp() {
        return Err(TokenError::Expired);
    }
    Ok(Claims {
        subscriber_id: SubscriberId::from(subscriber_id),
        token_id: token_id.to_owned(),
        expires,
    })
}

fn mac(key: &[u8], purpose: Purpose, payload: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length; this cannot fail.
    let mut mac = <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    mac.update(purpose.label().as_bytes());
    mac.update(&[0]);
    mac.update(payload);
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(expires: i64) -> Claims {
        Claims {
            subscriber_id: "s1".into(),
            token_id: "t1".into(),
            expires,
        }
    }

    #[test]
    fn a_token_verifies_for_its_purpose_only() {
        let now = Utc::now();
        let token = sign(b"key", Purpose::Confirm, &claims(now.timestamp() + 60));
        assert_eq!(
            verify(b"key", Purpose::Confirm, &token, now).unwrap(),
            claims(now.timestamp() + 60)
        );
        assert_eq!(
            verify(b"key", Purpose::Manage, &token, now),
            Err(TokenError::Invalid)
        );
        assert_eq!(
            verify(b"other", Purpose::Confirm, &token, now),
            Err(TokenError::Invalid)
        );
    }

    #[test]
    fn expired_and_forged_tokens_are_refused() {
        let now = Utc::now();
        let token = sign(b"key", Purpose::Confirm, &claims(now.timestamp() - 1));
        assert_eq!(
            verify(b"key", Purpose::Confirm, &token, now),
            Err(TokenError::Expired)
        );
        let forged = format!("{}.{}", URL_SAFE_NO_PAD.encode("s2|t1|0"), "AAAA");
        assert_eq!(
            verify(b"key", Purpose::Confirm, &forged, now),
            Err(TokenError::Invalid)
        );
        let manage = sign(b"key", Purpose::Manage, &claims(0));
        assert!(verify(b"key", Purpose::Manage, &manage, now).is_ok());
    }
}
