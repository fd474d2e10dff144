//! Signing in over HTTP: who is calling (the [`Authenticated`] extractor), the session cookie,
//! CSRF, and the sign-in pages (`login`). The caller and their credentials' use cases are
//! `services::auth`.
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
pub mod login;
pub mod session;

use crate::error::{AppError, AppResult};

pub use crate::services::auth::{AuthMethod, Authenticated, Permission};
pub use extract::SESSION_COOKIE;
pub use session::renew_session;

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
