//! Credential use cases: API tokens (issue, resolve, list, revoke), password checks that do not
//! reveal whether an account exists, and console sessions (start, resolve, end).

pub mod caller;
pub mod jwt;
pub mod second_factor;
pub mod verify;

use std::sync::OnceLock;

use argon2::{Argon2, PasswordHash, PasswordVerifier};
use chrono::{Duration, NaiveDateTime};

use crate::db::models::tokens::{self, ApiToken, NewApiToken, Session};
use crate::db::models::users::{self, User};
use crate::db::{DbConn, new_id, now, write_tx};
use crate::error::{AppError, AppResult};
use crate::services::audit::{self, Actor, Change};
use crate::services::users::hash_password;
pub use caller::{AuthMethod, Authenticated, Permission};
use jwt::{Claims, Kind};
use serde_json::json;

/// Lifetime of an API token when none is asked for.
pub const DEFAULT_TOKEN_DAYS: i64 = 90;
/// The longest lifetime an API token may have.
pub const MAX_TOKEN_DAYS: i64 = 3650;
/// Lifetime of one session cookie; it is renewed once more than half of it has passed.
pub const SESSION_TTL: Duration = Duration::minutes(30);
/// A session ends this long after sign-in, however active.
pub const SESSION_MAX: Duration = Duration::hours(12);

/// A newly issued API token: its row and the secret, shown once.
#[derive(Debug)]
pub struct IssuedToken {
    pub token: ApiToken,
    pub secret: String,
}

/// Issues an API token to `user` at `actor`'s request, recorded in the audit log in the same
/// transaction. A request made with a token cannot create one that outlives it (else a leaked
/// 1-day token could mint a 10-year one).
pub fn create_token(
    conn: &mut DbConn,
    key: &[u8],
    actor: &Authenticated,
    user: &User,
    name: &str,
    days: i64,
) -> AppResult<IssuedToken> {
    write_tx(conn, |conn| {
        let mut not_after = None;
        if let AuthMethod::Token { token_id } = &actor.method
            && let Some(creator) = tokens::find_token(conn, token_id)?
        {
            let left = creator.expires_at - now();
            // Whole days, rounded up: a 90-day token may make another 90-day one, which then
            // ends with it rather than a few moments later.
            let left_days = (left.num_seconds() + 86_399).div_euclid(86_400);
            if days > left_days {
                return Err(AppError::field(
                    "expires_days",
                    format!(
                        "must not outlive the token making this request ({left_days} days at most)"
                    ),
                ));
            }
            not_after = Some(creator.expires_at);
        }
        let issued = issue_token_until(conn, key, user, name, days, not_after)?;
        let change = Change {
            action: "token.create",
            entity_type: "api_token",
            entity_id: Some(issued.token.id.clone()),
            page_id: None,
            changes: json!({
                "name": issued.token.name, "expires_days": days, "email": user.email,
                "expires_at": issued.token.expires_at.and_utc().to_rfc3339(),
            }),
        };
        audit::record(conn, &actor_of(actor), &change)?;
        Ok(issued)
    })
}

fn actor_of(auth: &Authenticated) -> Actor {
    Actor {
        user_id: auth.user_id.clone(),
        email: auth.email.clone(),
    }
}

/// Issues an API token for `user`, valid `days` days (1 to [`MAX_TOKEN_DAYS`]). Unaudited: the
/// operator's command line uses it; requests go through [`create_token`].
pub fn issue_token(
    conn: &mut DbConn,
    key: &[u8],
    user: &User,
    name: &str,
    days: i64,
) -> AppResult<IssuedToken> {
    issue_token_until(conn, key, user, name, days, None)
}

/// [`issue_token`], ending at `not_after` at the latest.
fn issue_token_until(
    conn: &mut DbConn,
    key: &[u8],
    user: &User,
    name: &str,
    days: i64,
    not_after: Option<NaiveDateTime>,
) -> AppResult<IssuedToken> {
    if !(1..=MAX_TOKEN_DAYS).contains(&days) {
        return Err(AppError::field(
            "expires_days",
            format!("must be between 1 and {MAX_TOKEN_DAYS}"),
        ));
    }
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AppError::field("name", "must be 1 to 100 characters"));
    }
    let at = now();
    let id = new_id();
    let token = tokens::insert_token(
        conn,
        &NewApiToken {
            id: &id,
            user_id: &user.id,
            name,
            created_at: at,
            expires_at: not_after.map_or(at + Duration::days(days), |end| {
                end.min(at + Duration::days(days))
            }),
        },
    )?;
    let secret = jwt::sign(
        &claims(&token.user_id, &id, at, token.expires_at, Kind::Api),
        key,
    )?;
    Ok(IssuedToken { token, secret })
}

fn claims(sub: &str, jti: &str, iat: NaiveDateTime, exp: NaiveDateTime, typ: Kind) -> Claims {
    Claims {
        sub: sub.to_owned(),
        jti: jti.to_owned(),
        exp: exp.and_utc().timestamp(),
        iat: iat.and_utc().timestamp(),
        typ,
    }
}

/// The caller behind verified API-token claims: `None` when the token is unknown, revoked,
/// expired or not the user's, or the user is gone. Records the use.
pub fn resolve_token(conn: &mut DbConn, claims: &Claims) -> AppResult<Option<Authenticated>> {
    let at = now();
    let Some((token, user)) = tokens::find_token_and_user(conn, &claims.jti)? else {
        return Ok(None);
    };
    if token.revoked_at.is_some() || token.expires_at <= at || token.user_id != claims.sub {
        return Ok(None);
    }
    // At most one write a minute per token: busy automation should not serialise on it.
    if token
        .last_used_at
        .is_none_or(|last| at - last >= Duration::minutes(1))
    {
        tokens::touch_token(conn, &token.id, at)?;
    }
    principal(user, AuthMethod::Token { token_id: token.id }, None)
}

fn principal(
    user: User,
    method: AuthMethod,
    session_id: Option<String>,
) -> AppResult<Option<Authenticated>> {
    Ok(Some(Authenticated::with_session(
        user.id, user.email, user.role, method, session_id,
    )))
}

/// Tokens `actor` may see: their own, or everyone's for an owner.
pub fn list_tokens(conn: &mut DbConn, actor: &Authenticated) -> AppResult<Vec<ApiToken>> {
    let only = (!actor.role.is_owner()).then_some(actor.user_id.as_str());
    Ok(tokens::list_tokens(conn, only)?)
}

/// Revokes a token of `actor` (an owner may revoke anyone's), recorded in the audit log; another
/// user's token is reported as not found.
pub fn revoke_token(conn: &mut DbConn, actor: &Authenticated, id: &str) -> AppResult<ApiToken> {
    write_tx(conn, |conn| {
        let token = tokens::find_token(conn, id)?
            .filter(|t| actor.role.is_owner() || t.user_id == actor.user_id)
            .ok_or_else(|| AppError::NotFound("token".into()))?;
        tokens::revoke_token(conn, id, now())?;
        let change = Change {
            action: "token.revoke",
            entity_type: "api_token",
            entity_id: Some(token.id.clone()),
            page_id: None,
            changes: json!({"name": token.name, "user_id": token.user_id}),
        };
        audit::record(conn, &actor_of(actor), &change)?;
        Ok(tokens::find_token(conn, id)?.unwrap_or(token))
    })
}

/// The account that signs in as `email`, if any. Its hash is verified afterwards, off the
/// database pool ([`verify`]), so a flood of sign-ins holds no connection.
pub fn find_account(conn: &mut DbConn, email: &str) -> AppResult<Option<User>> {
    Ok(users::find_by_email(conn, email)?)
}

/// Whether `password` matches `hash`. An unknown account (`None`) costs the same argon2
/// verification against a dummy hash, so timing does not tell it from a wrong password.
/// CPU-bound for tens of milliseconds: call it from `CpuPool::verify` (`verify`).
pub fn verify_password(hash: Option<&str>, password: &str) -> AppResult<bool> {
    let known = hash.is_some();
    let hash = match hash {
        Some(h) => h,
        None => dummy_hash()?,
    };
    let parsed = PasswordHash::new(hash)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("stored password hash: {e}")))?;
    let valid = Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok();
    // The dummy hash signs nobody in, whatever is typed.
    Ok(known && valid)
}

/// Computes the dummy hash in the background, so that even the first sign-in with an unknown
/// email costs no more than a wrong password. Runs once per process.
pub fn warm_up() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(|| {
            if let Err(e) = dummy_hash() {
                tracing::warn!(error = %e, "preparing the sign-in dummy hash failed");
            }
        });
    });
}

fn dummy_hash() -> AppResult<&'static str> {
    static DUMMY: OnceLock<String> = OnceLock::new();
    if let Some(hash) = DUMMY.get() {
        return Ok(hash);
    }
    let hash = hash_password("herald dummy password, never valid")?;
    Ok(DUMMY.get_or_init(|| hash))
}

/// Starts a session for `user`; returns it and its first signed cookie value.
pub fn start_session(conn: &mut DbConn, key: &[u8], user: &User) -> AppResult<(Session, String)> {
    let at = now();
    let session = Session {
        id: new_id(),
        user_id: user.id.clone(),
        created_at: at,
        expires_at: at + SESSION_MAX,
        revoked_at: None,
    };
    tokens::insert_session(conn, &session)?;
    let value = sign_session(&session, key, at)?;
    Ok((session, value))
}

/// A session cookie value issued at `at`: valid [`SESSION_TTL`], never past the session's end.
pub fn sign_session(session: &Session, key: &[u8], at: NaiveDateTime) -> AppResult<String> {
    let exp = (at + SESSION_TTL).min(session.expires_at);
    jwt::sign(
        &claims(&session.user_id, &session.id, at, exp, Kind::Session),
        key,
    )
}

/// The caller behind verified session claims and the session row, or `None` when the session
/// is unknown, revoked, over, or the user is gone.
pub fn resolve_session(
    conn: &mut DbConn,
    claims: &Claims,
) -> AppResult<Option<(Authenticated, Session)>> {
    let Some((session, user)) = tokens::find_session_and_user(conn, &claims.jti)? else {
        return Ok(None);
    };
    if session.revoked_at.is_some() || session.expires_at <= now() || session.user_id != claims.sub
    {
        return Ok(None);
    }
    let auth = principal(user, AuthMethod::Session, Some(session.id.clone()))?;
    Ok(auth.map(|a| (a, session)))
}

/// Ends a session: its cookies stop working at once.
pub fn end_session(conn: &mut DbConn, session_id: &str) -> AppResult<()> {
    tokens::revoke_session(conn, session_id, now())?;
    Ok(())
}
