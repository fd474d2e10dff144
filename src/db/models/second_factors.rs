//! An account's second factors: its TOTP secret (confirmed or not, with the last step used)
//! and its recovery codes' digests.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{user_recovery_codes, user_totp};

/// An account's TOTP factor as stored.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = user_totp)]
pub struct UserTotp {
    pub user_id: String,
    /// Base32 (`domain::second_factor::TotpSecret`).
    pub secret: String,
    pub created_at: NaiveDateTime,
    /// Set once a code from it was typed: only then does sign-in ask for it.
    pub confirmed_at: Option<NaiveDateTime>,
    /// The last step whose code opened a sign-in.
    pub last_step: Option<i64>,
}

/// The account's TOTP factor, if it has one.
pub fn find_totp(conn: &mut DbConn, user_id: &str) -> QueryResult<Option<UserTotp>> {
    user_totp::table
        .find(user_id)
        .select(UserTotp::as_select())
        .first(conn)
        .optional()
}

/// Replaces the account's TOTP factor (and forgets its recovery codes).
pub fn replace_totp(conn: &mut DbConn, totp: &UserTotp) -> QueryResult<()> {
    delete_factors(conn, &totp.user_id)?;
    diesel::insert_into(user_totp::table)
        .values(totp)
        .execute(conn)?;
    Ok(())
}

/// Marks the factor confirmed at `at`, with `step` used; replaces its recovery codes.
pub fn confirm_totp(
    conn: &mut DbConn,
    user_id: &str,
    step: i64,
    at: NaiveDateTime,
    recovery_digests: &[String],
) -> QueryResult<usize> {
    diesel::delete(user_recovery_codes::table.filter(user_recovery_codes::user_id.eq(user_id)))
        .execute(conn)?;
    for digest in recovery_digests {
        diesel::insert_into(user_recovery_codes::table)
            .values((
                user_recovery_codes::user_id.eq(user_id),
                user_recovery_codes::digest.eq(digest),
            ))
            .execute(conn)?;
    }
    diesel::update(user_totp::table.find(user_id))
        .set((
            user_totp::confirmed_at.eq(Some(at)),
            user_totp::last_step.eq(Some(step)),
        ))
        .execute(conn)
}

/// Records `step` as used, unless a step as late or later already is (another sign-in took
/// it first): whether this one took it.
pub fn take_step(conn: &mut DbConn, user_id: &str, step: i64) -> QueryResult<bool> {
    let taken = diesel::update(
        user_totp::table.find(user_id).filter(
            user_totp::last_step
                .is_null()
                .or(user_totp::last_step.lt(step)),
        ),
    )
    .set(user_totp::last_step.eq(Some(step)))
    .execute(conn)?;
    Ok(taken == 1)
}

/// Uses the unused recovery code with this digest: whether there was one.
pub fn use_recovery_code(
    conn: &mut DbConn,
    user_id: &str,
    digest: &str,
    at: NaiveDateTime,
) -> QueryResult<bool> {
    let used = diesel::update(
        user_recovery_codes::table
            .find((user_id, digest))
            .filter(user_recovery_codes::used_at.is_null()),
    )
    .set(user_recovery_codes::used_at.eq(Some(at)))
    .execute(conn)?;
    Ok(used == 1)
}

/// How many of the account's recovery codes are left.
pub fn recovery_codes_left(conn: &mut DbConn, user_id: &str) -> QueryResult<i64> {
    user_recovery_codes::table
        .filter(user_recovery_codes::user_id.eq(user_id))
        .filter(user_recovery_codes::used_at.is_null())
        .count()
        .get_result(conn)
}

/// Removes the account's TOTP factor and recovery codes.
pub fn delete_factors(conn: &mut DbConn, user_id: &str) -> QueryResult<usize> {
    diesel::delete(user_recovery_codes::table.filter(user_recovery_codes::user_id.eq(user_id)))
        .execute(conn)?;
    diesel::delete(user_totp::table.find(user_id)).execute(conn)
}
