//! `Idempotency-Key` for POSTs: the first answer to a key is stored in the transaction of the
//! write it describes, and a retry within a day gets that answer back instead of a second write.
//! The same key with another body is refused on the `idempotency_key` field, as Stripe does.

use chrono::Duration;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::db::models::idempotency::{self, StoredAnswer};
use crate::db::{DbConn, now, write_tx};
use crate::error::{AppError, AppResult};

/// How long an answer is replayed.
pub const KEY_LIFETIME_HOURS: i64 = 24;
/// The longest key accepted, in characters.
pub const MAX_KEY_LEN: usize = 255;

/// A key as sent by one user on one route, with a digest of the request body.
#[derive(Debug, Clone)]
pub struct IdempotencyKey {
    pub user_id: String,
    pub route: String,
    pub key: String,
    pub request_hash: String,
}

/// A JSON answer: status code and body; `replayed` when it comes from an earlier request.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub replayed: bool,
}

impl Answer {
    /// A fresh answer.
    pub fn new(status: u16, body: Value) -> Self {
        Self {
            status,
            body,
            replayed: false,
        }
    }
}

impl IdempotencyKey {
    /// Checks the key (1 to 255 visible ASCII characters) and digests the body.
    pub fn new(user_id: &str, route: &str, key: &str, body: &Value) -> AppResult<Self> {
        let key = key.trim();
        if key.is_empty() || key.len() > MAX_KEY_LEN || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(AppError::field(
                "idempotency_key",
                format!("must be 1 to {MAX_KEY_LEN} visible ASCII characters"),
            ));
        }
        Ok(Self {
            user_id: user_id.to_owned(),
            route: route.to_owned(),
            key: key.to_owned(),
            request_hash: hex::encode(Sha256::digest(body.to_string().as_bytes())),
        })
    }
}

/// Runs `write` in one transaction with the stored answer: a repeated key answers what was
/// stored (or 422 when the body differs) without running `write`; a new key stores the answer
/// `write` gives. Without a key it only runs `write` in a transaction.
pub fn idempotent<F>(conn: &mut DbConn, key: Option<&IdempotencyKey>, write: F) -> AppResult<Answer>
where
    F: FnOnce(&mut DbConn) -> AppResult<Answer>,
{
    write_tx(conn, |conn| {
        let Some(key) = key else {
            return write(conn);
        };
        if let Some(stored) = replay(conn, key)? {
            return Ok(stored);
        }
        let answer = write(conn)?;
        let stored = StoredAnswer {
            user_id: key.user_id.clone(),
            route: key.route.clone(),
            idem_key: key.key.clone(),
            request_hash: key.request_hash.clone(),
            status_code: i32::from(answer.status),
            body: answer.body.to_string(),
            created_at: now(),
        };
        idempotency::insert(conn, &stored)?;
        // Expired answers go as new ones come; the index on created_at keeps this cheap.
        purge_expired(conn)?;
        Ok(answer)
    })
}

/// The stored answer to this key, if one younger than a day exists.
fn replay(conn: &mut DbConn, key: &IdempotencyKey) -> AppResult<Option<Answer>> {
    let since = now() - Duration::hours(KEY_LIFETIME_HOURS);
    let Some(stored) = idempotency::find(conn, &key.user_id, &key.route, &key.key, since)? else {
        return Ok(None);
    };
    if stored.request_hash != key.request_hash {
        return Err(AppError::field(
            "idempotency_key",
            "was already used with a different request body",
        ));
    }
    let body = serde_json::from_str(&stored.body)
        .map_err(|e| anyhow::anyhow!("corrupt stored idempotent answer: {e}"))?;
    Ok(Some(Answer {
        status: u16::try_from(stored.status_code).unwrap_or(200),
        body,
        replayed: true,
    }))
}

/// Deletes answers older than a day; returns how many went.
pub fn purge_expired(conn: &mut DbConn) -> AppResult<usize> {
    Ok(idempotency::purge(
        conn,
        now() - Duration::hours(KEY_LIFETIME_HOURS),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_must_be_visible_ascii_of_bounded_length() {
        let body = serde_json::json!({"name": "x"});
        assert!(IdempotencyKey::new("u", "r", "abc-123", &body).is_ok());
        assert!(IdempotencyKey::new("u", "r", "", &body).is_err());
        assert!(IdempotencyKey::new("u", "r", "a b", &body).is_err());
        assert!(IdempotencyKey::new("u", "r", &"k".repeat(256), &body).is_err());
    }

    #[test]
    fn the_same_body_digests_the_same_and_another_body_differently() {
        let a = IdempotencyKey::new("u", "r", "k", &serde_json::json!({"a": 1, "b": 2})).unwrap();
        let b = IdempotencyKey::new("u", "r", "k", &serde_json::json!({"b": 2, "a": 1})).unwrap();
        let c = IdempotencyKey::new("u", "r", "k", &serde_json::json!({"a": 2})).unwrap();
        assert_eq!(a.request_hash, b.request_hash);
        assert_ne!(a.request_hash, c.request_hash);
    }
}
