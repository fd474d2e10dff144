//! Account use cases: creating responders with an argon2 password hash.

use argon2::password_hash::SaltString;
use argon2::password_hash::rand_core::OsRng;
use argon2::{Argon2, PasswordHasher};
use rand::Rng;
use rand::distributions::Alphanumeric;

use crate::db::models::users::{self, NewUser, User};
use crate::db::{DbConn, new_id, now};
use crate::domain::{EmailAddress, Role};
use crate::error::{AppError, AppResult};

/// Length of generated passwords (alphanumeric: about 119 bits).
const GENERATED_PASSWORD_LEN: usize = 20;

/// A random password for a new account.
pub fn generate_password() -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(GENERATED_PASSWORD_LEN)
        .map(char::from)
        .collect()
}

/// Hashes a password with argon2id and a random salt (PHC string format).
pub fn hash_password(password: &str) -> AppResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AppError::Internal(anyhow::anyhow!("hashing a password failed: {e}")))
}

/// Creates an account; a taken email is a [`AppError::Conflict`].
pub fn create_user(
    conn: &mut DbConn,
    email: &EmailAddress,
    role: Role,
    password: &str,
) -> AppResult<User> {
    let hash = hash_password(password)?;
    if users::find_by_email(conn, email.as_str())?.is_some() {
        return Err(AppError::Conflict(format!(
            "a user with email {email} already exists"
        )));
    }
    let at = now();
    let id = new_id();
    let user = users::insert(
        conn,
        &NewUser {
            id: &id,
            email: email.as_str(),
            password_hash: &hash,
            role: role.as_str(),
            created_at: at,
            updated_at: at,
        },
    )?;
    Ok(user)
}
