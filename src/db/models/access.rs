//! Who may read a restricted page (`page_passwords`, `page_read_tokens`, `page_reader_links`):
//! its password hash, the hashes of its read tokens, and the sign-in links mailed to readers.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{page_passwords, page_read_tokens, page_reader_links};
use crate::domain::PageId;

/// A read token as stored: the SHA-256 (hex) of the token, never the token.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = page_read_tokens)]
pub struct ReadToken {
    pub id: String,
    pub page_id: PageId,
    pub name: String,
    pub token_hash: String,
    pub created_at: NaiveDateTime,
}

/// A sign-in link mailed to a reader.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = page_reader_links)]
pub struct ReaderLink {
    pub id: String,
    pub page_id: PageId,
    pub email: String,
    /// Where on the page the reader was going (a path below it).
    pub next_path: String,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
}

/// The page's password hash, if it has a password.
pub fn password_hash(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Option<String>> {
    page_passwords::table
        .find(page_id)
        .select(page_passwords::password_hash)
        .first(conn)
        .optional()
}

/// Sets (or replaces) the page's password hash.
pub fn set_password(
    conn: &mut DbConn,
    page_id: &PageId,
    hash: &str,
    at: NaiveDateTime,
) -> QueryResult<()> {
    diesel::delete(page_passwords::table.find(page_id)).execute(conn)?;
    diesel::insert_into(page_passwords::table)
        .values((
            page_passwords::page_id.eq(page_id),
            page_passwords::password_hash.eq(hash),
            page_passwords::set_at.eq(at),
        ))
        .execute(conn)?;
    Ok(())
}

/// Removes the page's password; answers whether it had one.
pub fn clear_password(conn: &mut DbConn, page_id: &PageId) -> QueryResult<bool> {
    Ok(diesel::delete(page_passwords::table.find(page_id)).execute(conn)? > 0)
}

/// The page's read tokens, oldest first.
pub fn tokens(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<ReadToken>> {
    page_read_tokens::table
        .filter(page_read_tokens::page_id.eq(page_id))
        .order((page_read_tokens::created_at, page_read_tokens::id))
        .select(ReadToken::as_select())
        .load(conn)
}

/// Stores a read token.
pub fn insert_token(conn: &mut DbConn, token: &ReadToken) -> QueryResult<()> {
    diesel::insert_into(page_read_tokens::table)
        .values(token)
        .execute(conn)
        .map(drop)
}

/// Deletes one of the page's read tokens; answers whether it was there.
pub fn delete_token(conn: &mut DbConn, page_id: &PageId, id: &str) -> QueryResult<bool> {
    let deleted = diesel::delete(
        page_read_tokens::table
            .filter(page_read_tokens::page_id.eq(page_id))
            .filter(page_read_tokens::id.eq(id)),
    )
    .execute(conn)?;
    Ok(deleted > 0)
}

/// Stores a sign-in link.
pub fn insert_link(conn: &mut DbConn, link: &ReaderLink) -> QueryResult<()> {
    diesel::insert_into(page_reader_links::table)
        .values(link)
        .execute(conn)
        .map(drop)
}

/// The sign-in link `id`.
pub fn find_link(conn: &mut DbConn, id: &str) -> QueryResult<Option<ReaderLink>> {
    page_reader_links::table
        .find(id)
        .select(ReaderLink::as_select())
        .first(conn)
        .optional()
}

/// Marks the link used if it is unused and unexpired at `now`; answers whether this call did
/// (one statement, so two clicks at once cannot both use it).
pub fn use_link(conn: &mut DbConn, id: &str, now: NaiveDateTime) -> QueryResult<bool> {
    let used = diesel::update(
        page_reader_links::table
            .filter(page_reader_links::id.eq(id))
            .filter(page_reader_links::used_at.is_null())
            .filter(page_reader_links::expires_at.gt(now)),
    )
    .set(page_reader_links::used_at.eq(now))
    .execute(conn)?;
    Ok(used == 1)
}

/// Deletes links whose time ended before `before` (used or not).
pub fn delete_old_links(conn: &mut DbConn, before: NaiveDateTime) -> QueryResult<usize> {
    diesel::delete(page_reader_links::table.filter(page_reader_links::expires_at.lt(before)))
        .execute(conn)
}
