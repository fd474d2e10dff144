//! Account use cases: creating responders with an argon2 password hash.

use argon2::password_hash::SaltString;
use argon2::password_hash::rand_core::OsRng;
use argon2::{Argon2, PasswordHasher};
use rand::Rng;
use rand::distributions::Alphanumeric;

use crate::db::models::users::{self, NewUser, User};
use crate::db::{DbConn, new_id, now, write_tx};
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
            role,
            created_at: at,
            updated_at: at,
        },
    )?;
    Ok(user)
}

/// Every account, by email.
pub fn list_users(conn: &mut DbConn) -> AppResult<Vec<User>> {
    Ok(users::list(conn)?)
}

/// The account with this email, if there is one.
pub fn find_by_email(conn: &mut DbConn, email: &str) -> AppResult<Option<User>> {
    Ok(users::find_by_email(conn, email)?)
}

/// The account with this id.
pub fn get_user(conn: &mut DbConn, id: &str) -> AppResult<User> {
    users::find(conn, id)?.ok_or_else(|| AppError::NotFound("user".into()))
}

/// Refuses a change that would leave the installation without an owner: `owners` is how many
/// owners there are now, `losing` whether the change takes the role from one of them.
pub fn keeps_an_owner(owners: i64, losing: bool) -> Result<(), String> {
    if losing && owners <= 1 {
        return Err(
            "the last owner cannot lose the owner role; make someone else owner first".into(),
        );
    }
    Ok(())
}

/// Changes an account's role (its sessions and tokens see the new role at once).
pub fn change_role(conn: &mut DbConn, id: &str, role: Role) -> AppResult<User> {
    write_tx(conn, |conn| {
        let user = get_user(conn, id)?;
        let losing = user.role == Role::Owner && role != Role::Owner;
        let owners = users::count_with_role(conn, Role::Owner)?;
        keeps_an_owner(owners, losing).map_err(|m| AppError::field("role", m))?;
        users::set_role(conn, id, role, now())?;
        get_user(conn, id)
    })
}

/// Removes an account with its sessions and tokens (signed-in browsers are out at once).
pub fn remove_user(conn: &mut DbConn, id: &str) -> AppResult<User> {
    write_tx(conn, |conn| {
        let user = get_user(conn, id)?;
        let owners = users::count_with_role(conn, Role::Owner)?;
        keeps_an_owner(owners, user.role == Role::Owner).map_err(|m| AppError::field("user", m))?;
        users::delete(conn, id)?;
        Ok(user)
    })
}

#[cfg(test)]
mod tests {
    use super::keeps_an_owner;

    #[test]
    fn the_last_owner_keeps_the_role() {
        assert!(keeps_an_owner(1, true).is_err());
        assert!(keeps_an_owner(2, true).is_ok());
        assert!(keeps_an_owner(1, false).is_ok());
    }
}
