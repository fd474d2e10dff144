//! Responder accounts.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::users;
use crate::domain::Role;

/// An account as stored. The hash never leaves the server.
#[derive(Debug, Clone, Queryable, Selectable, Identifiable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: String,
    pub email: String,
    pub password_hash: String,
    pub role: Role,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// A new account.
#[derive(Debug, Insertable)]
#[diesel(table_name = users)]
pub struct NewUser<'a> {
    pub id: &'a str,
    pub email: &'a str,
    pub password_hash: &'a str,
    pub role: Role,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Inserts an account and returns it.
pub fn insert(conn: &mut DbConn, new: &NewUser<'_>) -> QueryResult<User> {
    diesel::insert_into(users::table)
        .values(new)
        .execute(conn)?;
    users::table
        .find(new.id)
        .select(User::as_select())
        .first(conn)
}

/// The account with this (already normalised) email, if any.
pub fn find_by_email(conn: &mut DbConn, email: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(users::email.eq(email))
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// Every account, by email.
pub fn list(conn: &mut DbConn) -> QueryResult<Vec<User>> {
    users::table
        .order(users::email.asc())
        .select(User::as_select())
        .load(conn)
}

/// The account with this id, if any.
pub fn find(conn: &mut DbConn, id: &str) -> QueryResult<Option<User>> {
    users::table
        .find(id)
        .select(User::as_select())
        .first(conn)
        .optional()
}

/// Sets an account's role. Returns rows changed.
pub fn set_role(conn: &mut DbConn, id: &str, role: Role, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(users::table.find(id))
        .set((users::role.eq(role), users::updated_at.eq(at)))
        .execute(conn)
}

/// How many accounts have this role.
pub fn count_with_role(conn: &mut DbConn, role: Role) -> QueryResult<i64> {
    users::table
        .filter(users::role.eq(role))
        .count()
        .get_result(conn)
}

/// Deletes an account; its sessions and tokens go with it (ON DELETE CASCADE), its updates
/// stay without an author. Returns rows deleted.
pub fn delete(conn: &mut DbConn, id: &str) -> QueryResult<usize> {
    diesel::delete(users::table.find(id)).execute(conn)
}
