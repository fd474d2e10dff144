//! The server's signing key: from configuration, or generated once and kept in the database.
//! It is never logged.

use base64::Engine;
use diesel::prelude::*;
use rand::RngCore;

use crate::db::schema::settings;
use crate::db::{DbConn, now};

/// Bytes of randomness in a generated key.
const GENERATED_KEY_BYTES: usize = 48;
const SETTINGS_KEY: &str = "secret_key";

/// A signing key; `Debug` prints nothing of it.
#[derive(Clone)]
pub struct SigningKey(String);

impl SigningKey {
    /// The key material.
    pub fn expose(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(****)")
    }
}

/// Uses the configured key, or the one stored in the database, generating and storing it on the
/// first start. Two processes starting together end up with the same key (the first insert wins).
pub fn load_or_create(conn: &mut DbConn, configured: Option<&str>) -> anyhow::Result<SigningKey> {
    if let Some(key) = configured {
        return Ok(SigningKey(key.to_owned()));
    }
    if let Some(stored) = stored_key(conn)? {
        return Ok(SigningKey(stored));
    }
    let mut bytes = [0u8; GENERATED_KEY_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let key = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let inserted = diesel::insert_into(settings::table)
        .values((
            settings::key.eq(SETTINGS_KEY),
            settings::value.eq(&key),
            settings::updated_at.eq(now()),
        ))
        .execute(conn);
    match inserted {
        Ok(_) => {
            tracing::info!("generated a signing key and stored it in the database");
            Ok(SigningKey(key))
        }
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => stored_key(conn)?
            .map(SigningKey)
            .ok_or_else(|| anyhow::anyhow!("signing key vanished")),
        Err(e) => Err(e.into()),
    }
}

fn stored_key(conn: &mut DbConn) -> anyhow::Result<Option<String>> {
    Ok(settings::table
        .filter(settings::key.eq(SETTINGS_KEY))
        .select(settings::value)
        .first::<String>(conn)
        .optional()?)
}

/// Whether two secrets (or their digests) are equal, compared in constant time: how long it
/// takes says nothing about where they differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}
