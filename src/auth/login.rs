//! Signing in and out of the console: `GET /admin/login` (a plain form, no JavaScript, no
//! external assets), `POST /admin/login` (rate limited per account and per IP; a wrong email
//! and a wrong password get the same answer), `POST /admin/logout` (CSRF-protected; revokes the
//! session and clears the cookie).

use std::sync::OnceLock;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use handlebars::Handlebars;
use serde::{Deserialize, Serialize};

use super::{AuthMethod, Authenticated, session};
use crate::error::{AppError, AppResult};
use crate::services;
use crate::startup::AppState;

/// Where a signed-in browser goes.
const AFTER_SIGN_IN: &str = "/admin";
/// Where a signed-out browser goes.
const SIGN_IN: &str = "/admin/login";
/// The one message for an unknown email and a wrong password.
pub const BAD_CREDENTIALS: &str = "Incorrect email or password.";
const TEMPLATE: &str = include_str!("../../templates/admin/login.html.hbs");

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
    email: &'a str,
    error: Option<String>,
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
    Ok(REGISTRY.get_or_init(|| registry))
}

/// The sign-in page with `status`, the email typed so far and an error message.
fn login_page(
    state: &AppState,
    status: StatusCode,
    email: &str,
    error: Option<String>,
) -> AppResult<HttpResponse> {
    let view = LoginView {
        css: state.site.renderer.assets.url("app.css"),
        email,
        error,
    };
    let html = registry()?
        .render("login", &view)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("rendering admin/login: {e}")))?;
    Ok(HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; form-action 'self'; frame-ancestors 'none'",
        ))
        .content_type("text/html; charset=utf-8")
        .body(html))
}

#[tracing::instrument(skip_all)]
async fn show_login(state: web::Data<AppState>) -> AppResult<HttpResponse> {
    login_page(&state, StatusCode::OK, "", None)
}

/// The sign-in form.
#[derive(Deserialize)]
pub struct SignIn {
    email: String,
    password: String,
}

#[tracing::instrument(skip_all)]
async fn sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: web::Form<SignIn>,
) -> AppResult<HttpResponse> {
    let SignIn { email, password } = form.into_inner();
    let email = email.trim().to_lowercase();
    let ip = crate::http::client_ip(&req, &state.settings.trusted_proxies).to_string();
    let limiter = state.login_limiter.clone();
    if let Err(wait) = limiter.check(&email, &ip) {
        return too_many(&state, &email, wait);
    }
    let key = state.secret.clone();
    let lookup = email.clone();
    let started = state
        .db
        .run(
            move |c| match services::auth::check_password(c, &lookup, &password)? {
                Some(user) => services::auth::start_session(c, key.expose(), &user).map(Some),
                None => Ok(None),
            },
        )
        .await?;
    let Some((_, value)) = started else {
        limiter.record_failure(&email, &ip);
        tracing::info!("refused a sign-in");
        let message = Some(BAD_CREDENTIALS.to_owned());
        return login_page(&state, StatusCode::UNAUTHORIZED, &email, message);
    };
    limiter.record_success(&email);
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, AFTER_SIGN_IN))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .cookie(session::cookie(&state.settings, value))
        .finish())
}

/// 429 with `Retry-After`, the sign-in page saying when to try again.
fn too_many(state: &AppState, email: &str, wait_secs: u32) -> AppResult<HttpResponse> {
    let minutes = wait_secs.div_ceil(60);
    let message = format!(
        "Too many sign-in attempts. Try again in {minutes} minute{}.",
        if minutes == 1 { "" } else { "s" }
    );
    let mut res = login_page(state, StatusCode::TOO_MANY_REQUESTS, email, Some(message))?;
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
