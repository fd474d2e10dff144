//! API tokens and console sessions: the rows that make signed credentials revocable.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{api_tokens, sessions};

/// An API token as stored; the secret itself (a signed JWT) is never stored.
#[derive(Debug, Clone, Queryable, Selectable, Identifiable)]
#[diesel(table_name = api_tokens)]
pub struct ApiToken {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
    pub last_used_at: Option<NaiveDateTime>,
}

/// A new API token.
#[derive(Debug, Insertable)]
#[diesel(table_name = api_tokens)]
pub struct NewApiToken<'a> {
    pub id: &'a str,
    pub user_id: &'a str,
    pub name: &'a str,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
}

/// Inserts a token and returns it.
pub fn insert_token(conn: &mut DbConn, new: &NewApiToken<'_>) -> QueryResult<ApiToken> {
    diesel::insert_into(api_tokens::table)
        .values(new)
        .execute(conn)?;
    find_token(conn, new.id)?.ok_or(diesel::result::Error::NotFound)
}

/// The token with this id, if any.
pub fn find_token(conn: &mut DbConn, id: &str) -> QueryResult<Option<ApiToken>> {
    api_tokens::table
        .find(id)
        .select(ApiToken::as_select())
        .first(conn)
        .optional()
}

/// The token with this id and the account it belongs to, in one query (every API request
/// asks: the account's current role is read here each time).
pub fn find_token_and_user(
    conn: &mut DbConn,
    id: &str,
) -> QueryResult<Option<(ApiToken, super::users::User)>> {
    use crate::db::schema::users;
    api_tokens::table
        .inner_join(users::table)
        .filter(api_tokens::id.eq(id))
        .select((ApiToken::as_select(), super::users::User::as_select()))
        .first(conn)
        .optional()
}

/// Tokens of one user (or of everyone with `None`), newest first.
pub fn list_tokens(conn: &mut DbConn, user_id: Option<&str>) -> QueryResult<Vec<ApiToken>> {
    let mut query = api_tokens::table
        .select(ApiToken::as_select())
        .order(api_tokens::created_at.desc())
        .into_boxed();
    if let Some(user_id) = user_id {
        query = query.filter(api_tokens::user_id.eq(user_id.to_owned()));
    }
    query.load(conn)
}

/// Marks a token revoked (once; a second call changes nothing). Returns rows changed.
pub fn revoke_token(conn: &mut DbConn, id: &str, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        api_tokens::table
            .find(id)
            .filter(api_tokens::revoked_at.is_null()),
    )
    .set(api_tokens::revoked_at.eq(Some(at)))
    .execute(conn)
}

/// Records that a token was just used.
pub fn touch_token(conn: &mut DbConn, id: &str, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(api_tokens::table.find(id))
        .set(api_tokens::last_used_at.eq(Some(at)))
        .execute(conn)
}

/// A console session as stored: the absolute end of the session and its revocation.
#[derive(Debug, Clone, Queryable, Selectable, Identifiable, Insertable)]
#[diesel(table_name = sessions)]
pub struct Session {
    pub id: String,
    pub user_id: String,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
}

/// Inserts a session.
pub fn insert_session(conn: &mut DbConn, session: &Session) -> QueryResult<usize> {
    diesel::insert_into(sessions::table)
        .values(session)
        .execute(conn)
}

/// The session with this id and its account, in one query (every console request asks: the
/// account's current role is read here each time).
pub fn find_session_and_user(
    conn: &mut DbConn,
    id: &str,
) -> QueryResult<Option<(Session, super::users::User)>> {
    use crate::db::schema::users;
    sessions::table
        .inner_join(users::table)
        .filter(sessions::id.eq(id))
        .select((Session::as_select(), super::users::User::as_select()))
        .first(conn)
        .optional()
}

/// Marks a session revoked. Returns rows changed.
pub fn revoke_session(conn: &mut DbConn, id: &str, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(
        sessions::table
            .find(id)
            .filter(sessions::revoked_at.is_null()),
    )
    .set(sessions::revoked_at.eq(Some(at)))
    .execute(conn)
}
