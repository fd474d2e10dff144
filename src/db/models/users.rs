//! Responder accounts.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::users;

/// An account as stored. The hash never leaves the server.
#[derive(Debug, Clone, Queryable, Selectable, Identifiable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: String,
    pub email: String,
    pub password_hash: String,
    pub role: String,
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
    pub role: &'a str,
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
