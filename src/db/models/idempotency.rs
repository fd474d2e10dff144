//! Stored answers to POSTs made with an `Idempotency-Key` header, kept for a day.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::idempotency_keys;

/// The first answer given to a key.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = idempotency_keys)]
pub struct StoredAnswer {
    pub user_id: String,
    /// Method and path of the request, e.g. `POST /api/v1/pages/acme/incidents`.
    pub route: String,
    pub idem_key: String,
    /// SHA-256 of the request body, hex.
    pub request_hash: String,
    pub status_code: i32,
    /// The JSON body answered.
    pub body: String,
    pub created_at: NaiveDateTime,
}

/// The answer stored for this user, route and key since `since`, if any.
pub fn find(
    conn: &mut DbConn,
    user_id: &str,
    route: &str,
    key: &str,
    since: NaiveDateTime,
) -> QueryResult<Option<StoredAnswer>> {
    idempotency_keys::table
        .find((user_id, route, key))
        .filter(idempotency_keys::created_at.ge(since))
        .select(StoredAnswer::as_select())
        .first(conn)
        .optional()
}

/// Stores an answer, replacing an expired one under the same key.
pub fn insert(conn: &mut DbConn, answer: &StoredAnswer) -> QueryResult<usize> {
    diesel::delete(idempotency_keys::table.find((
        &answer.user_id,
        &answer.route,
        &answer.idem_key,
    )))
    .execute(conn)?;
    diesel::insert_into(idempotency_keys::table)
        .values(answer)
        .execute(conn)
}

/// Deletes the answers stored before `before`; returns how many.
pub fn purge(conn: &mut DbConn, before: NaiveDateTime) -> QueryResult<usize> {
    diesel::delete(idempotency_keys::table.filter(idempotency_keys::created_at.lt(before)))
        .execute(conn)
}
