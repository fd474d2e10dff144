//! The session cookie: how it is built and cleared, and its renewal — once more than half of
//! a cookie's lifetime has passed, the extractor notes a fresh one and [`renew_session`] sets
//! it on the response.

use actix_web::body::MessageBody;
use actix_web::cookie::{Cookie, SameSite, time};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest};

use super::extract::SESSION_COOKIE;
use crate::config::Settings;
use crate::db::models::tokens::Session;
use crate::db::now;
use crate::error::AppResult;
use crate::services::auth::{SESSION_TTL, sign_session};
use crate::state::AppState;

/// The session cookie carrying `value`: `HttpOnly; SameSite=Strict; Path=/`, and `Secure` when
/// Herald is served over https.
pub fn cookie(settings: &Settings, value: String) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, value)
        .http_only(true)
        .same_site(SameSite::Strict)
        .path("/")
        .secure(settings.public_url.starts_with("https://"))
        .max_age(time::Duration::seconds(SESSION_TTL.num_seconds()))
        .finish()
}

/// A cookie that removes the session cookie from the browser.
pub fn removal(settings: &Settings) -> Cookie<'static> {
    let mut gone = cookie(settings, String::new());
    gone.make_removal();
    gone
}

/// A renewed session cookie waiting to be set on the response.
#[derive(Clone)]
pub(crate) struct Renewed(Cookie<'static>);

impl Renewed {
    /// Notes a fresh cookie for `session` when the current one (issued at `iat`) is more than
    /// half way through its life.
    pub(crate) fn note_if_due(
        req: &HttpRequest,
        state: &AppState,
        session: &Session,
        iat: i64,
    ) -> AppResult<()> {
        let at = now();
        if at.and_utc().timestamp() - iat <= SESSION_TTL.num_seconds() / 2 {
            return Ok(());
        }
        let value = sign_session(session, state.secret.expose(), at)?;
        req.extensions_mut()
            .insert(Renewed(cookie(&state.settings, value)));
        Ok(())
    }
}

/// Middleware (`from_fn`): sets the renewed session cookie the extractor noted, unless the
/// handler set or removed the cookie itself (sign-in, sign-out).
pub async fn renew_session(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let renewed = res.request().extensions().get::<Renewed>().cloned();
    if let Some(Renewed(cookie)) = renewed {
        let handled = res.response().cookies().any(|c| c.name() == SESSION_COOKIE);
        if !handled {
            res.response_mut().add_cookie(&cookie)?;
        }
    }
    Ok(res)
}
