//! The access page of a restricted page: what it shows, its forms' CSRF token and nonce, and
//! the reader's pass cookie it hands out.

use std::sync::Arc;

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieAge};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::{Deserialize, Serialize};

use crate::domain::Visibility;
use crate::error::{AppError, AppResult};
use crate::http::auth::csrf;
use crate::http::public::reader_lang;
use crate::render::html::frame::Frame;
use crate::render::site::{PageSnapshot, PublicSite};
use crate::services::access::pass as reader;
use crate::state::AppState;

use crate::http::CSP;

use super::{NONCE_COOKIE, encode, holds_pass, onward, signing_in};

/// The restricted page of `slug` (404 for a public or unknown one).
pub(super) fn restricted(site: &PublicSite, slug: &str) -> AppResult<Arc<PageSnapshot>> {
    site.snapshot()
        .restricted
        .get(slug)
        .cloned()
        .ok_or_else(|| AppError::NotFound(format!("page {slug}")))
}

/// The nonce the browser holds for the access forms, if well formed.
pub(super) fn nonce(req: &HttpRequest) -> Option<String> {
    let value = req.cookie(NONCE_COOKIE)?.value().to_owned();
    (value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())).then_some(value)
}

pub(super) fn form_token(state: &AppState, slug: &str, nonce: &str) -> String {
    csrf::token_for(
        &format!("reader-access\0{slug}\0{nonce}"),
        state.secret.expose(),
    )
}

pub(super) fn form_is_ours(state: &AppState, req: &HttpRequest, slug: &str, given: &str) -> bool {
    nonce(req).is_some_and(|n| secret_same(&form_token(state, slug, &n), given))
}

pub(super) fn secret_same(a: &str, b: &str) -> bool {
    crate::services::signing_key::same(a, b)
}

#[derive(Serialize)]
pub(super) struct AccessView {
    frame: Frame,
    css: String,
    page_name: String,
    slug: String,
    next: String,
    csrf_token: String,
    password: bool,
    email: bool,
    /// Allowed domains exist but no mail server is set up.
    no_mail: bool,
    email_value: String,
    error: Option<String>,
    sent: Option<String>,
    /// The reader holds a pass to this page: the page offers to sign out.
    signed_in: bool,
}

/// The access page with `status`; keeps or sets the form nonce.
#[allow(clippy::too_many_arguments)]
pub(super) fn access_page(
    state: &AppState,
    req: &HttpRequest,
    page: &PageSnapshot,
    status: StatusCode,
    next: &str,
    email_value: &str,
    error: Option<String>,
    sent: Option<String>,
) -> AppResult<HttpResponse> {
    let slug = page.data.page.slug.clone();
    let nonce = nonce(req).unwrap_or_else(|| hex::encode(rand::random::<[u8; 16]>()));
    let access = &page.access;
    let domains = access.visibility == Visibility::Private && !access.email_domains.is_empty();
    let mail = state.settings.smtp_url.is_some();
    let assets = &state.site.renderer.assets;
    let lang = reader_lang(req, &page.data.page, true);
    let view = AccessView {
        frame: Frame::site(&signing_in(lang, &page.data.page.name), assets),
        css: assets.url("forms.css"),
        page_name: page.data.page.name.clone(),
        next: onward(&slug, next),
        csrf_token: form_token(state, &slug, &nonce),
        password: access.visibility == Visibility::Private && access.has_password,
        email: domains && mail,
        no_mail: domains && !mail,
        email_value: email_value.to_owned(),
        error,
        sent,
        signed_in: holds_pass(req, page, state.secret.expose()),
        slug: slug.clone(),
    };
    let body = state
        .site
        .renderer
        .templates
        .render_in(lang, "pages/access", &view)?;
    Ok(html(status)
        .cookie(nonce_cookie(state, req, &slug, nonce))
        .body(body))
}

/// The cookie of the access forms' nonce: sent back to the access pages of `slug` only.
pub(super) fn nonce_cookie(
    state: &AppState,
    req: &HttpRequest,
    slug: &str,
    nonce: String,
) -> Cookie<'static> {
    Cookie::build(NONCE_COOKIE, nonce)
        .http_only(true)
        .same_site(SameSite::Strict)
        .path(format!("/status/{slug}/access"))
        .secure(secure(state, req))
        .finish()
}

/// Whether a reader's cookies are `Secure`: when Herald's address is https, or when this
/// request came over https (a page on its own domain behind a trusted proxy that says so).
pub(super) fn secure(state: &AppState, req: &HttpRequest) -> bool {
    state.settings.public_url.starts_with("https://")
        || crate::limits::client::came_over_https(req, &state.settings.trusted_proxies)
}

pub(super) fn html(status: StatusCode) -> actix_web::HttpResponseBuilder {
    let mut res = HttpResponse::build(status);
    res.content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        // A sign-in link's token is in the URL: it must not leak to the next page.
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    res
}

#[derive(Deserialize)]
pub(super) struct NextQuery {
    #[serde(default)]
    next: String,
}

/// `GET /status/{slug}/access`: how to get in (an internal page's readers sign in to the
/// console; a public page needs nothing).
pub(super) async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    query: web::Query<NextQuery>,
) -> AppResult<HttpResponse> {
    if state.site.snapshot().pages.contains_key(slug.as_str()) {
        return Ok(see_other(&format!("/status/{slug}")));
    }
    let page = restricted(&state.site, &slug)?;
    if page.access.visibility == Visibility::Internal {
        let back = onward(&slug, &query.next);
        let to = format!(
            "{}?next={}",
            crate::http::auth::login::SIGN_IN,
            encode(&back)
        );
        return Ok(see_other(&to));
    }
    access_page(
        &state,
        &req,
        &page,
        StatusCode::OK,
        &query.next,
        "",
        None,
        None,
    )
}

pub(super) fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to.to_owned()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// The reader's pass for `page` under `epoch`, as a cookie.
pub(super) fn pass_cookie(
    state: &AppState,
    req: &HttpRequest,
    slug: &str,
    page_id: &str,
    epoch: i64,
) -> Cookie<'static> {
    let pass = reader::new_pass(page_id, epoch, Utc::now());
    let value = reader::sign_pass(&pass, state.secret.expose());
    Cookie::build(reader::cookie_name(slug), value)
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .max_age(CookieAge::seconds(reader::PASS_LIFETIME.num_seconds()))
        .secure(secure(state, req))
        .finish()
}

/// The message (a Fluent key) of a form that did not come from the page, or too long ago.
pub(super) const FORM_EXPIRED: &str = "access-form-expired";
