//! Signed credentials: HS256 JWTs made and checked with the server's key, nothing else.
//!
//! Only `HS256` is accepted: a token whose header names another algorithm (`none`, `HS512`,
//! `RS256` ...) fails before its signature is looked at, as does one signed with another key,
//! an expired one, or one of the wrong kind (`typ` claim).

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};

/// What a credential is for: the `typ` claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// An API token (bearer), revocable through the `api_tokens` table.
    Api,
    /// A console session (cookie), revocable through the `sessions` table.
    Session,
}

/// The claims Herald signs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The user id.
    pub sub: String,
    /// The token or session id, checked against its table on every request.
    pub jti: String,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
    /// Issue time, seconds since the epoch.
    pub iat: i64,
    /// What the credential is for.
    pub typ: Kind,
}

/// Signs `claims` with HS256 and `key`.
pub fn sign(claims: &Claims, key: &[u8]) -> AppResult<String> {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(key),
    )
    .map_err(|e| AppError::Internal(anyhow::anyhow!("signing a token failed: {e}")))
}

/// The claims of `token` when it is an unexpired HS256 JWT of kind `kind` signed with `key`;
/// `None` for anything else (the reason is not told to the client).
pub fn verify(token: &str, key: &[u8], kind: Kind) -> Option<Claims> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.algorithms = vec![Algorithm::HS256];
    validation.leeway = 0;
    validation.set_required_spec_claims(&["exp", "sub"]);
    let data =
        jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(key), &validation).ok()?;
    (data.claims.typ == kind).then_some(data.claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp_offset: i64, typ: Kind) -> Claims {
        let now = chrono::Utc::now().timestamp();
        Claims {
            sub: "u1".into(),
            jti: "t1".into(),
            exp: now + exp_offset,
            iat: now,
            typ,
        }
    }

    #[test]
    fn a_token_signed_with_the_key_verifies_with_its_claims() {
        let c = claims(60, Kind::Api);
        let token = sign(&c, b"key").unwrap();
        assert_eq!(verify(&token, b"key", Kind::Api), Some(c));
    }

    #[test]
    fn another_key_another_kind_or_an_expired_token_is_refused() {
        let token = sign(&claims(60, Kind::Api), b"key").unwrap();
        assert_eq!(verify(&token, b"other", Kind::Api), None);
        assert_eq!(verify(&token, b"key", Kind::Session), None);
        let expired = sign(&claims(-5, Kind::Api), b"key").unwrap();
        assert_eq!(verify(&expired, b"key", Kind::Api), None);
    }

    #[test]
    fn hs512_and_none_headers_are_refused_even_with_the_right_key() {
        let c = claims(60, Kind::Api);
        let hs512 = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &c,
            &EncodingKey::from_secret(b"key"),
        )
        .unwrap();
        assert_eq!(verify(&hs512, b"key", Kind::Api), None);
        let body = token_part(&serde_json::to_vec(&c).unwrap());
        let none = format!("{}.{body}.", token_part(br#"{"alg":"none","typ":"JWT"}"#));
        assert_eq!(verify(&none, b"key", Kind::Api), None);
    }

    fn token_part(bytes: &[u8]) -> String {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }
}
