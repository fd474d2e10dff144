//! Signing in and out of the console: `GET /admin/login` (a plain form, no JavaScript, no
//! external assets), `POST /admin/login` (throttled per account and network, [`super::limit`];
//! a wrong email and a wrong password get the same answer; the password is verified off the
//! database pool, [`super::verify`]), `POST /admin/logout` (CSRF-protected; revokes the
//! session and clears the cookie).
//!
//! A console form posted after the session has ended comes here carried ([`Carried`], by
//! `http::error_page`): the sign-in page holds it in hidden fields, and signing in leads back
//! to the form with what was typed (or, for forms without a preview, to a page that sends it
//! again when asked). Nothing is saved without the responder's click. A console page asked for
//! without a session comes back after signing in (`?next=`).
//!
//! The sign-in form has its own CSRF token (against login CSRF: a page elsewhere signing the
//! browser in to an account of the attacker's). There is no session yet, so the form page sets
//! a random nonce in a cookie scoped to the form (`herald_login`, `HttpOnly`,
//! `SameSite=Strict`) and the form carries the nonce's HMAC under the server key; a POST needs
//! both to match.

use std::sync::OnceLock;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use handlebars::Handlebars;
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};
use crate::http::auth::{AuthMethod, Authenticated, csrf, session};
use crate::services;
use crate::state::AppState;

/// Where a signed-in browser goes.
const AFTER_SIGN_IN: &str = "/admin";
/// Where a signed-out browser goes.
pub const SIGN_IN: &str = "/admin/login";
/// The one message for an unknown email and a wrong password.
pub const BAD_CREDENTIALS: &str = "Incorrect email or password.";
const TEMPLATE: &str = include_str!("../../../templates/admin/login.html.hbs");
const RESUME_TEMPLATE: &str = include_str!("../../../templates/admin/resume.html.hbs");
/// What the sign-in page says when it carries a form.
pub const SESSION_ENDED: &str = "Your session ended before this was sent. Sign in again to go on: \
                                 what you typed is kept, and nothing has been saved yet.";
/// The cookie holding the sign-in form's nonce.
pub const LOGIN_COOKIE: &str = "herald_login";
/// What a sign-in form that fails its CSRF check says.
pub const FORM_EXPIRED: &str =
    "This sign-in form has expired or did not come from this site. Please sign in again.";

/// Registers the sign-in and sign-out routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    services::auth::warm_up();
    cfg.route(SIGN_IN, web::get().to(show_login))
        .route(SIGN_IN, web::post().to(sign_in))
        .route("/admin/logout", web::post().to(sign_out));
}

#[derive(Serialize)]
struct LoginView<'a> {
    css: String,
    /// The public forms' stylesheet (fields, buttons).
    forms_css: String,
    email: &'a str,
    error: Option<String>,
    csrf_token: String,
    /// Where to go once signed in (a console path), when not the dashboard.
    next: Option<&'a str>,
    carried: Option<CarriedView<'a>>,
}

#[derive(Serialize)]
struct CarriedView<'a> {
    action: &'a str,
    form: String,
    reviewable: bool,
}

/// A console form posted without a live session, carried through signing in again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The console path the form was posted to.
    action: String,
    /// The fields as typed, without the old CSRF token.
    fields: Vec<(String, String)>,
    /// Whether the form can be shown again without saving (it has a "Preview").
    reviewable: bool,
}

impl Carried {
    /// The form posted to `action` with the urlencoded `body`.
    pub fn new(action: &str, body: &[u8], reviewable: bool) -> Self {
        let fields = url::form_urlencoded::parse(body)
            .filter(|(k, _)| k != csrf::FIELD && k != "preview")
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Self {
            action: action.to_owned(),
            fields,
            reviewable,
        }
    }

    /// The carried form of a sign-in form's hidden fields, when they name a console path.
    fn from_sign_in(form: &SignIn) -> Option<Self> {
        console_path(&form.resume_to)?;
        Some(Self::new(
            &form.resume_to,
            form.resume_form.as_bytes(),
            form.resume_review == "1",
        ))
    }

    fn view(&self) -> CarriedView<'_> {
        CarriedView {
            action: &self.action,
            form: url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&self.fields)
                .finish(),
            reviewable: self.reviewable,
        }
    }
}

/// `path` when it is a path of the console other than the sign-in page (where a browser may be
/// sent after signing in): never another site, never a scheme-relative or odd path.
fn console_path(path: &str) -> Option<&str> {
    let console = path == "/admin" || path.starts_with("/admin/");
    let plain = !path.contains("//") && path.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    (console && plain && !path.starts_with(SIGN_IN)).then_some(path)
}

/// Where a browser may be sent after signing in: a console path, or a status page's (a reader
/// of an internal page signs in here and goes back to it).
fn next_path(path: &str) -> Option<&str> {
    let plain = !path.contains("//") && path.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    console_path(path).or((path.starts_with("/status/") && plain).then_some(path))
}

fn registry() -> AppResult<&'static Handlebars<'static>> {
    static REGISTRY: OnceLock<Handlebars<'static>> = OnceLock::new();
    if let Some(registry) = REGISTRY.get() {
        return Ok(registry);
    }
    let mut registry = Handlebars::new();
    registry.set_strict_mode(true);
    registry
        .register_template_string("login", TEMPLATE)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("admin/login template: {e}")))?;
    registry
        .register_template_string("resume", RESUME_TEMPLATE)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("admin/resume template: {e}")))?;
    Ok(REGISTRY.get_or_init(|| registry))
}

/// Where the sign-in page leads, and what it carries there.
#[derive(Debug, Default)]
struct Onward<'a> {
    next: Option<&'a str>,
    carried: Option<&'a Carried>,
}

/// The sign-in page with `status`, the email typed so far and an error message; it keeps the
/// browser's form nonce when it has a well-formed one, else sets a new one.
fn login_page(
    state: &AppState,
    req: &HttpRequest,
    status: StatusCode,
    email: &str,
    error: Option<String>,
    onward: &Onward<'_>,
) -> AppResult<HttpResponse> {
    let nonce = form_nonce(req).unwrap_or_else(|| hex::encode(rand::random::<[u8; 16]>()));
    let view = LoginView {
        css: state.site.renderer.assets.url("app.css"),
        forms_css: state.site.renderer.assets.url("forms.css"),
        email,
        error,
        csrf_token: form_token(state, &nonce),
        next: onward.next,
        carried: onward.carried.map(Carried::view),
    };
    let html = registry()?
        .render("login", &view)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("rendering admin/login: {e}")))?;
    let cookie = actix_web::cookie::Cookie::build(LOGIN_COOKIE, nonce)
        .http_only(true)
        .same_site(actix_web::cookie::SameSite::Strict)
        .path(SIGN_IN)
        .secure(state.settings.public_url.starts_with("https://"))
        .finish();
    Ok(HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, crate::http::CSP))
        .cookie(cookie)
        .content_type("text/html; charset=utf-8")
        .body(html))
}

/// The browser's sign-in form nonce, when it sent a well-formed one.
fn form_nonce(req: &HttpRequest) -> Option<String> {
    let value = req.cookie(LOGIN_COOKIE)?.value().to_owned();
    (value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())).then_some(value)
}

/// What a sign-in form's CSRF token is bound to (never a session id: those are UUIDs).
fn form_subject(nonce: &str) -> String {
    format!("sign-in\0{nonce}")
}

/// The token a sign-in form with `nonce` carries.
fn form_token(state: &AppState, nonce: &str) -> String {
    csrf::token_for(&form_subject(nonce), state.secret.expose())
}

/// Whether the posted form token belongs to the browser's nonce.
fn form_is_ours(state: &AppState, req: &HttpRequest, given: &str) -> bool {
    form_nonce(req)
        .is_some_and(|nonce| csrf::matches(&form_subject(&nonce), state.secret.expose(), given))
}

/// `?next=` on the sign-in page.
#[derive(Deserialize)]
struct Next {
    #[serde(default)]
    next: String,
}

#[tracing::instrument(skip_all)]
async fn show_login(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<Next>,
) -> AppResult<HttpResponse> {
    let onward = Onward {
        next: next_path(&query.next),
        carried: None,
    };
    login_page(&state, &req, StatusCode::OK, "", None, &onward)
}

/// The sign-in page (401) for a console form posted after the session ended, carrying it.
pub fn sign_in_again(req: &HttpRequest, carried: &Carried) -> AppResult<HttpResponse> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("AppState is not registered")))?;
    let onward = Onward {
        next: None,
        carried: Some(carried),
    };
    let message = Some(SESSION_ENDED.to_owned());
    login_page(state, req, StatusCode::UNAUTHORIZED, "", message, &onward)
}

/// The sign-in form.
#[derive(Deserialize)]
pub struct SignIn {
    email: String,
    password: String,
    #[serde(default)]
    csrf_token: String,
    /// Where to go once signed in.
    #[serde(default)]
    next: String,
    /// A carried form: the path it was posted to, its fields (urlencoded) and whether it has
    /// a preview.
    #[serde(default)]
    resume_to: String,
    #[serde(default)]
    resume_form: String,
    #[serde(default)]
    resume_review: String,
}

#[derive(Serialize)]
struct ResumeView<'a> {
    css: String,
    csrf_token: String,
    action: &'a str,
    fields: Vec<ResumeField<'a>>,
    reviewable: bool,
}

#[derive(Serialize)]
struct ResumeField<'a> {
    name: &'a str,
    value: &'a str,
}

/// The page after signing in again that leads back to a carried form: the form's own page
/// with what was typed (by its preview), or, for a form without one, the fields as sent and a
/// button that sends them again. It carries the new session's CSRF token.
fn resume_page(state: &AppState, session_id: &str, carried: &Carried) -> AppResult<String> {
    let view = ResumeView {
        css: state.site.renderer.assets.url("app.css"),
        csrf_token: csrf::token_for(session_id, state.secret.expose()),
        action: &carried.action,
        fields: carried
            .fields
            .iter()
            .map(|(name, value)| ResumeField { name, value })
            .collect(),
        reviewable: carried.reviewable,
    };
    registry()?
        .render("resume", &view)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("rendering admin/resume: {e}")))
}

#[tracing::instrument(skip_all)]
async fn sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: web::Form<SignIn>,
) -> AppResult<HttpResponse> {
    let form = form.into_inner();
    let carried = Carried::from_sign_in(&form);
    let onward = Onward {
        next: next_path(&form.next),
        carried: carried.as_ref(),
    };
    let SignIn {
        email,
        password,
        csrf_token,
        ..
    } = form;
    let email = email.trim().to_lowercase();
    if !form_is_ours(&state, &req, &csrf_token) {
        tracing::info!("refused a sign-in form without its CSRF token");
        let message = Some(FORM_EXPIRED.to_owned());
        return login_page(
            &state,
            &req,
            StatusCode::FORBIDDEN,
            &email,
            message,
            &onward,
        );
    }
    let net = crate::limits::client_net(&req, &state.settings.trusted_proxies);
    let attempt = match state.login_limiter.reserve(&email, net) {
        Ok(attempt) => attempt,
        Err(wait) => return too_many(&state, &req, &email, wait, &onward),
    };
    match check(&state, &email, password).await {
        Ok(Some((session_id, value))) => {
            state.login_limiter.succeeded(attempt);
            let cookie = session::cookie(&state.settings, value);
            if let Some(carried) = onward.carried {
                let html = resume_page(&state, &session_id, carried)?;
                return Ok(HttpResponse::Ok()
                    .insert_header((header::CACHE_CONTROL, "no-store"))
                    .insert_header((header::CONTENT_SECURITY_POLICY, crate::http::CSP))
                    .cookie(cookie)
                    .content_type("text/html; charset=utf-8")
                    .body(html));
            }
            Ok(HttpResponse::SeeOther()
                .insert_header((header::LOCATION, onward.next.unwrap_or(AFTER_SIGN_IN)))
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .cookie(cookie)
                .finish())
        }
        Ok(None) => {
            tracing::info!("refused a sign-in");
            let message = Some(BAD_CREDENTIALS.to_owned());
            login_page(
                &state,
                &req,
                StatusCode::UNAUTHORIZED,
                &email,
                message,
                &onward,
            )
        }
        Err(AppError::Unavailable {
            reason,
            retry_after_secs,
        }) => {
            tracing::warn!(%reason, "sign-in answered 503");
            let message = format!(
                "Sign-in is busy right now. Please try again in {retry_after_secs} seconds."
            );
            let status = StatusCode::SERVICE_UNAVAILABLE;
            let mut res = login_page(&state, &req, status, &email, Some(message), &onward)?;
            res.headers_mut().insert(
                header::RETRY_AFTER,
                header::HeaderValue::from(retry_after_secs),
            );
            Ok(res)
        }
        Err(other) => Err(other),
    }
}

/// Checks the credentials and starts a session: its id and cookie value, or `None` when they
/// are wrong. The account is read and the session written on the pool; the password is verified
/// between the two, holding no connection.
async fn check(
    state: &AppState,
    email: &str,
    password: String,
) -> AppResult<Option<(String, String)>> {
    let lookup = email.to_owned();
    let account = state
        .db
        .run(move |c| services::auth::find_account(c, &lookup))
        .await?;
    let hash = account.as_ref().map(|u| u.password_hash.clone());
    if !state.password_checks.verify(hash, password).await? {
        return Ok(None);
    }
    let Some(user) = account else {
        return Ok(None);
    };
    let key = state.secret.clone();
    let (session, value) = state
        .db
        .run(move |c| services::auth::start_session(c, key.expose(), &user))
        .await?;
    Ok(Some((session.id, value)))
}

/// 429 with `Retry-After`, the sign-in page saying when to try again.
fn too_many(
    state: &AppState,
    req: &HttpRequest,
    email: &str,
    wait_secs: u32,
    onward: &Onward<'_>,
) -> AppResult<HttpResponse> {
    let minutes = wait_secs.div_ceil(60);
    let message = format!(
        "Too many sign-in attempts. Try again in {minutes} minute{}.",
        if minutes == 1 { "" } else { "s" }
    );
    let status = StatusCode::TOO_MANY_REQUESTS;
    let mut res = login_page(state, req, status, email, Some(message), onward)?;
    res.headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from(wait_secs));
    Ok(res)
}

/// The sign-out form: only its CSRF token (already checked by the extractor, which hands the
/// body on unchanged).
#[derive(Deserialize)]
pub struct SignOut {
    #[serde(rename = "csrf_token")]
    _csrf_token: String,
}

#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn sign_out(
    auth: Authenticated,
    state: web::Data<AppState>,
    _form: web::Form<SignOut>,
) -> AppResult<HttpResponse> {
    if auth.method == AuthMethod::Session
        && let Some(id) = auth.session_id().map(str::to_owned)
    {
        state
            .db
            .run(move |c| services::auth::end_session(c, &id))
            .await?;
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, SIGN_IN))
        .cookie(session::removal(&state.settings))
        .finish())
}
