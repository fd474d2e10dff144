//! Who is calling and what they may do.
//!
//! [`Authenticated`] is an extractor: a bearer API token (`Authorization: Bearer <jwt>`) or the
//! console session cookie (`herald_session`), both HS256 JWTs signed with the server's key and
//! checked against their table on every request (revocation is immediate), with the user's
//! *current* role read from the users table. Anything absent or invalid is 401.
//!
//! CSRF: a cookie-authenticated request with an unsafe method (anything but GET, HEAD,
//! OPTIONS) must carry [`csrf_token`] either in the `X-CSRF-Token` header or, for
//! `application/x-www-form-urlencoded` bodies, in the `csrf_token` form field; otherwise 403.
//! The extractor reads the form body itself and hands the same bytes on, so a handler taking
//! `(auth: Authenticated, form: web::Form<T>)` is protected without doing anything (put
//! `Authenticated` *before* the body extractor; the other way round fails closed with 403).
//! Bearer requests need no CSRF token.

pub mod csrf;
pub(crate) mod extract;
pub mod jwt;
pub mod limit;
pub mod session;
pub mod verify;

use crate::domain::Role;
use crate::error::{AppError, AppResult};

pub use extract::SESSION_COOKIE;
pub use session::renew_session;

/// The caller of a request, resolved from a valid credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub user_id: String,
    pub email: String,
    pub role: Role,
    pub method: AuthMethod,
    session_id: Option<String>,
}

/// How the caller proved who they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMethod {
    /// The console session cookie.
    Session,
    /// A bearer API token.
    Token { token_id: String },
}

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Reading anything behind sign-in: every role.
    Read,
    /// Changing incidents, maintenance, components, postmortems, subscribers: responders, owners.
    Write,
    /// Users, tokens of others, settings: owners.
    Admin,
}

impl Authenticated {
    /// A caller (for tests and callers that resolved one themselves); no session id.
    pub fn new(user_id: String, email: String, role: Role, method: AuthMethod) -> Self {
        Self::with_session(user_id, email, role, method, None)
    }

    pub(crate) fn with_session(
        user_id: String,
        email: String,
        role: Role,
        method: AuthMethod,
        session_id: Option<String>,
    ) -> Self {
        Self {
            user_id,
            email,
            role,
            method,
            session_id,
        }
    }

    /// Whether the caller's role grants `p`.
    pub fn can(&self, p: Permission) -> bool {
        match p {
            Permission::Read => true,
            Permission::Write => self.role.can_write(),
            Permission::Admin => self.role.is_owner(),
        }
    }

    /// `Ok` when the caller's role grants `p`, else [`AppError::Forbidden`] (403).
    pub fn require(&self, p: Permission) -> AppResult<()> {
        if self.can(p) {
            Ok(())
        } else {
            Err(AppError::Forbidden)
        }
    }

    /// The console session id, for session callers.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

/// The CSRF token console forms embed (field `csrf_token`) for this session; empty for a
/// bearer-token caller, who needs none.
pub fn csrf_token(session: &Authenticated, secret: &[u8]) -> String {
    session
        .session_id()
        .map(|id| csrf::token_for(id, secret))
        .unwrap_or_default()
}

/// For handlers that read a CSRF token themselves (multipart bodies, say): `Ok` for bearer
/// callers and for a session caller whose token matches, else [`AppError::Forbidden`].
pub fn verify_csrf(auth: &Authenticated, secret: &[u8], given: &str) -> AppResult<()> {
    match auth.session_id() {
        None => Ok(()),
        Some(id) if csrf::matches(id, secret, given) => Ok(()),
        Some(_) => Err(AppError::Forbidden),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: Role) -> Authenticated {
        Authenticated::new(
            "u".into(),
            "u@example.com".into(),
            role,
            AuthMethod::Session,
        )
    }

    #[test]
    fn viewers_read_responders_write_owners_administer() {
        use Permission::*;
        let grants = |role| [Read, Write, Admin].map(|p| caller(role).require(p).is_ok());
        assert_eq!(grants(Role::Viewer), [true, false, false]);
        assert_eq!(grants(Role::Responder), [true, true, false]);
        assert_eq!(grants(Role::Owner), [true, true, true]);
    }

    #[test]
    fn a_refused_permission_is_forbidden() {
        let err = caller(Role::Viewer).require(Permission::Write).unwrap_err();
        assert!(matches!(err, AppError::Forbidden));
    }
}
