//! Readers of restricted pages: who a request for a private or internal page admits, what a
//! stranger gets instead, and the reader's sign-in at `/status/{slug}/access`.
//!
//! Admission, cheapest first:
//! - a read token (`Authorization: Bearer hrt_...`, or `?token=hrt_...` for feed readers)
//!   and a reader's pass (the `herald_read_{slug}` cookie of a private page) are checked in
//!   memory against the page's snapshot, on the read path ([`in_memory`]);
//! - a signed-in responder (the console session, or an API token) is checked against the
//!   database, off the read path ([`admit`]).
//!
//! A stranger's browser is sent to sign in (a private page's access page, or the console's
//! sign-in for an internal page), with the way back; a machine client gets 401. Whatever is
//! answered for a restricted page says `Cache-Control: private, no-cache`.
//!
//! The access page offers the page's password and, for its allowed e-mail domains, a sign-in
//! link by mail (15 minutes, single use: opening it asks for a click, so a mail scanner that
//! follows links cannot use it up). Its forms carry a CSRF token bound to a nonce cookie, as
//! the console's sign-in does; wrong passwords and links asked for are throttled per page or
//! address and network.

use std::sync::Arc;

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieAge};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::{Deserialize, Serialize};

use crate::domain::lang::Lang;
use crate::domain::{EmailAddress, Visibility};
use crate::error::{AppError, AppResult};
use crate::http::auth::{Authenticated, csrf};
use crate::http::public::reader_lang;
use crate::render::html::frame::Frame;
use crate::render::i18n::{text, text_with};
use crate::render::site::{Found, PageSnapshot, PublicSite};
use crate::services::access as service;
use crate::services::access::pass::{self as reader, LinkRefusal};
use crate::state::AppState;
use fluent_templates::fluent_bundle::FluentValue;

use super::CSP;

/// What every answer for a restricted page says about caching.
pub const PRIVATE_CACHE: &str = "private, no-cache";
/// The title of the pages that let a reader in: "Sign in to read Acme", in `lang`.
fn signing_in(lang: Lang, name: &str) -> String {
    crate::render::i18n::text_with(lang, "access-title", &[("name", name.to_owned().into())])
}

/// The cookie of the access forms' nonce.
const NONCE_COOKIE: &str = "herald_access";
/// What a stranger is told when a wrong or revoked read token is sent.
const BAD_TOKEN: &str =
    "This read token is not valid for this status page (it may have been revoked).";

/// Registers the access routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/status/{slug}/access", web::get().to(show))
        .route("/status/{slug}/access/password", web::post().to(password))
        .route("/status/{slug}/access/email", web::post().to(email))
        .service(
            web::resource("/status/{slug}/access/link/{token}")
                .route(web::get().to(link_page))
                .route(web::post().to(use_link)),
        )
        .route("/status/{slug}/access/leave", web::post().to(leave));
}

/// What the read path can tell about a request for a restricted page without the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InMemory {
    /// A read token or a reader's pass of the page.
    Admitted,
    /// A read token that is not the page's: refused, whatever else the request carries.
    BadToken,
    /// Nothing the snapshot can admit: a responder's session or API token may (the router
    /// decides, [`admit`]), or it is a stranger.
    Unknown,
}

/// The read token a request carries, if any: `Authorization: Bearer hrt_...` or `?token=`.
fn read_token(req: &HttpRequest) -> Option<String> {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| t.starts_with(service::TOKEN_PREFIX));
    if let Some(token) = bearer {
        return Some(token.to_owned());
    }
    let query = req.query_string();
    if !query.contains("token=") {
        return None;
    }
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
}

/// Whether the snapshot alone admits `req` to `page` (see [`InMemory`]).
pub fn in_memory(req: &HttpRequest, page: &PageSnapshot, key: &[u8]) -> InMemory {
    if let Some(token) = read_token(req) {
        return match page.access.token_admits(&token) {
            true => InMemory::Admitted,
            false => InMemory::BadToken,
        };
    }
    if page.access.visibility == Visibility::Private && holds_pass(req, page, key) {
        return InMemory::Admitted;
    }
    InMemory::Unknown
}

/// Whether `req` carries a reader's pass that admits it to `page` now.
fn holds_pass(req: &HttpRequest, page: &PageSnapshot, key: &[u8]) -> bool {
    let access = &page.access;
    req.cookie(&reader::cookie_name(&page.data.page.slug))
        .and_then(|cookie| reader::verify_pass(cookie.value(), key))
        .is_some_and(|pass| {
            pass.admits(
                access.page_id.as_str(),
                access.epoch,
                Utc::now().timestamp(),
            )
        })
}

/// Whether `req` may read `found`: anyone a public page; for a restricted page, a read token,
/// a reader's pass, or a signed-in responder (the database is asked only for the last).
pub async fn admit(req: &HttpRequest, state: &AppState, found: Found<'_>) -> bool {
    let page = match found {
        Found::Public(_) => return true,
        Found::Restricted(page) => page,
    };
    match in_memory(req, page, state.secret.expose()) {
        InMemory::Admitted => true,
        InMemory::BadToken => false,
        InMemory::Unknown => responder(req).await,
    }
}

/// Whether the request is a signed-in responder's (session cookie or API token). An unsafe
/// method with a session cookie needs the console's CSRF token, which the public forms never
/// carry: there only an API token counts.
async fn responder(req: &HttpRequest) -> bool {
    let carries = req.headers().contains_key(header::AUTHORIZATION)
        || req.cookie(crate::http::auth::SESSION_COOKIE).is_some();
    if !carries {
        return false;
    }
    // The handler's body stays where it is: the extractor gets an empty one.
    let mut payload = actix_web::dev::Payload::None;
    Authenticated::from_request(req, &mut payload).await.is_ok()
}

/// A restricted page's representation, served to an admitted reader: never kept by a shared
/// cache, and revalidated by the browser each time (access can be taken away).
pub fn private(mut res: HttpResponse) -> HttpResponse {
    let headers = res.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(PRIVATE_CACHE),
    );
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Accept-Encoding, Authorization, Cookie"),
    );
    res
}

/// What a request not admitted to a restricted page gets: a browser asking for HTML is sent
/// to sign in and back to `path`; anything else (the JSON, feeds, calendar, badge) is 401.
/// A wrong read token is 401 whatever was asked for.
pub fn refuse(req: &HttpRequest, page: &PageSnapshot, tail: &str, bad_token: bool) -> HttpResponse {
    let html = !bad_token
        && match page.get(tail) {
            Some(rep) => rep.content_type.starts_with("text/html"),
            None => !tail.starts_with("api/") && !tail.contains('.'),
        };
    if !html {
        let message = if bad_token {
            BAD_TOKEN
        } else {
            "This status page is not public. Send one of its read tokens (Authorization: Bearer, or ?token= for feed readers), or sign in."
        };
        return HttpResponse::Unauthorized()
            .insert_header((
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"status page\""),
            ))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(serde_json::json!({"error": "unauthorized", "message": message}));
    }
    let slug = &page.data.page.slug;
    let back = back_path(req);
    let to = match page.access.visibility {
        Visibility::Internal => format!("{}?next={}", super::auth::login::SIGN_IN, encode(&back)),
        _ => format!("/status/{slug}/access?next={}", encode(&back)),
    };
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// The path (and query, without a token) the request asked for, to come back to.
fn back_path(req: &HttpRequest) -> String {
    let query: Vec<(String, String)> = url::form_urlencoded::parse(req.query_string().as_bytes())
        .filter(|(k, _)| k != "token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    match query.is_empty() {
        true => req.path().to_owned(),
        false => format!(
            "{}?{}",
            req.path(),
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&query)
                .finish()
        ),
    }
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `next` when it is a plain path of the page `slug` (where a reader may be sent once in);
/// otherwise the page's overview.
fn onward(slug: &str, next: &str) -> String {
    let base = format!("/status/{slug}");
    let plain = !next.contains("//") && next.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    let below = next == base
        || next
            .strip_prefix(&base)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('?'));
    let access = next.starts_with(&format!("{base}/access"));
    match plain && below && !access {
        true => next.to_owned(),
        false => base,
    }
}

/// The restricted page of `slug` (404 for a public or unknown one).
fn restricted(site: &PublicSite, slug: &str) -> AppResult<Arc<PageSnapshot>> {
    site.snapshot()
        .restricted
        .get(slug)
        .cloned()
        .ok_or_else(|| AppError::NotFound(format!("page {slug}")))
}

/// The nonce the browser holds for the access forms, if well formed.
fn nonce(req: &HttpRequest) -> Option<String> {
    let value = req.cookie(NONCE_COOKIE)?.value().to_owned();
    (value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())).then_some(value)
}

fn form_token(state: &AppState, slug: &str, nonce: &str) -> String {
    csrf::token_for(
        &format!("reader-access\0{slug}\0{nonce}"),
        state.secret.expose(),
    )
}

fn form_is_ours(state: &AppState, req: &HttpRequest, slug: &str, given: &str) -> bool {
    nonce(req).is_some_and(|n| secret_same(&form_token(state, slug, &n), given))
}

fn secret_same(a: &str, b: &str) -> bool {
    crate::services::signing_key::same(a, b)
}

#[derive(Serialize)]
struct AccessView {
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
fn access_page(
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
fn nonce_cookie(state: &AppState, req: &HttpRequest, slug: &str, nonce: String) -> Cookie<'static> {
    Cookie::build(NONCE_COOKIE, nonce)
        .http_only(true)
        .same_site(SameSite::Strict)
        .path(format!("/status/{slug}/access"))
        .secure(secure(state, req))
        .finish()
}

/// Whether a reader's cookies are `Secure`: when Herald's address is https, or when this
/// request came over https (a page on its own domain behind a trusted proxy that says so).
fn secure(state: &AppState, req: &HttpRequest) -> bool {
    state.settings.public_url.starts_with("https://")
        || crate::limits::client::came_over_https(req, &state.settings.trusted_proxies)
}

fn html(status: StatusCode) -> actix_web::HttpResponseBuilder {
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
struct NextQuery {
    #[serde(default)]
    next: String,
}

/// `GET /status/{slug}/access`: how to get in (an internal page's readers sign in to the
/// console; a public page needs nothing).
async fn show(
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
        let to = format!("{}?next={}", super::auth::login::SIGN_IN, encode(&back));
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

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to.to_owned()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

#[derive(Deserialize)]
struct PasswordForm {
    #[serde(default)]
    password: String,
    #[serde(default)]
    next: String,
    #[serde(default)]
    csrf_token: String,
}

/// The reader's pass for `page` under `epoch`, as a cookie.
fn pass_cookie(
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
const FORM_EXPIRED: &str = "access-form-expired";

/// `POST /status/{slug}/access/password`: the page's password lets the reader in (303 to where
/// they were going), or the access page again with the reason.
#[tracing::instrument(skip_all)]
async fn password(
    req: HttpRequest,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<PasswordForm>,
) -> AppResult<HttpResponse> {
    let page = restricted(&state.site, &slug)?;
    let form = form.into_inner();
    let lang = reader_lang(&req, &page.data.page, true);
    let again = |status, error: &str| {
        access_page(
            &state,
            &req,
            &page,
            status,
            &form.next,
            "",
            Some(text(lang, error)),
            None,
        )
    };
    if !form_is_ours(&state, &req, &slug, &form.csrf_token) {
        return again(StatusCode::FORBIDDEN, FORM_EXPIRED);
    }
    if page.access.visibility != Visibility::Private || !page.access.has_password {
        return again(StatusCode::UNPROCESSABLE_ENTITY, "access-no-password");
    }
    if form.password.is_empty() {
        return again(StatusCode::UNPROCESSABLE_ENTITY, "access-type-password");
    }
    let net = crate::limits::client_net(&req, &state.settings.trusted_proxies);
    let key = format!("page-password:{}", page.access.page_id);
    let attempt = match state.reader_limiter.reserve(&key, net) {
        Ok(attempt) => attempt,
        Err(secs) => {
            return Err(AppError::RateLimited {
                retry_after_secs: secs,
            });
        }
    };
    let page_id = page.access.page_id.clone();
    let stored = state
        .db
        .run(move |c| {
            let page = crate::services::pages::get_page(c, &page_id)?;
            Ok((service::password_hash(c, &page_id)?, page))
        })
        .await?;
    let (hash, stored_page) = stored;
    let hash_present = hash.is_some();
    let right = state.password_checks.verify(hash, form.password).await?;
    if !right || !hash_present || stored_page.visibility != Visibility::Private {
        tracing::info!(page = %slug, "refused a reader's password");
        return again(StatusCode::UNAUTHORIZED, "access-wrong-password");
    }
    state.reader_limiter.succeeded(attempt);
    let cookie = pass_cookie(
        &state,
        &req,
        &slug,
        stored_page.id.as_str(),
        stored_page.access_epoch,
    );
    let mut res = see_other(&onward(&slug, &form.next));
    res.add_cookie(&cookie)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("setting the reader's cookie: {e}")))?;
    Ok(res)
}

#[derive(Deserialize)]
struct EmailForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    next: String,
    #[serde(default)]
    csrf_token: String,
}

/// What a reader who asked for a link is told, allowed or not.
fn link_sent(lang: Lang, email: &str) -> String {
    let minutes = FluentValue::from(reader::LINK_LIFETIME.num_minutes());
    let email = FluentValue::from(email);
    text_with(
        lang,
        "access-link-sent",
        &[("email", email), ("minutes", minutes)],
    )
}

/// `POST /status/{slug}/access/email`: mails a sign-in link when the address's domain is
/// allowed; the answer is the same either way (who may read the page is not told).
#[tracing::instrument(skip_all)]
async fn email(
    req: HttpRequest,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<EmailForm>,
) -> AppResult<HttpResponse> {
    let page = restricted(&state.site, &slug)?;
    let form = form.into_inner();
    let typed = form.email.trim().to_owned();
    let lang = reader_lang(&req, &page.data.page, true);
    let again = |status, error: Option<String>, sent: Option<String>| {
        access_page(&state, &req, &page, status, &form.next, &typed, error, sent)
    };
    if !form_is_ours(&state, &req, &slug, &form.csrf_token) {
        return again(StatusCode::FORBIDDEN, Some(text(lang, FORM_EXPIRED)), None);
    }
    if state.settings.smtp_url.is_none() || page.access.email_domains.is_empty() {
        let message = text(lang, "access-no-links");
        return again(StatusCode::UNPROCESSABLE_ENTITY, Some(message), None);
    }
    let address = match EmailAddress::parse(&typed) {
        Ok(address) => address,
        Err(e) => {
            // English readers are told exactly what is wrong (the parser's words are English).
            let message = match lang {
                Lang::En => e.to_string(),
                _ => text(lang, "form-error-email"),
            };
            return again(StatusCode::UNPROCESSABLE_ENTITY, Some(message), None);
        }
    };
    let net = crate::limits::client_net(&req, &state.settings.trusted_proxies);
    let key = format!("reader-link:{}", address.as_str());
    // Each link asked for counts, sent or not: the limiter's window paces the mails.
    let _attempt = match state.reader_limiter.reserve(&key, net) {
        Ok(attempt) => attempt,
        Err(secs) => {
            return Err(AppError::RateLimited {
                retry_after_secs: secs,
            });
        }
    };
    let (page_id, next) = (page.access.page_id.clone(), onward(&slug, &form.next));
    let requested = state
        .db
        .run(move |c| {
            let page = crate::services::pages::get_page(c, &page_id)?;
            crate::services::write::run(c, |c| {
                service::request_link(c, &page, (&address, lang), &next, Utc::now())
            })
        })
        .await?;
    super::committed::follow(&state, requested.after).await;
    again(StatusCode::OK, None, Some(link_sent(lang, &typed)))
}

#[derive(Serialize)]
struct LinkView {
    frame: Frame,
    css: String,
    page_name: String,
    action: String,
    csrf_token: String,
    error: Option<String>,
    access: String,
}

/// The page of a sign-in link: a button that uses it, or why it cannot be used.
fn link_view(
    state: &AppState,
    req: &HttpRequest,
    page: &PageSnapshot,
    token: &str,
    status: StatusCode,
    error: Option<&str>,
) -> AppResult<HttpResponse> {
    let slug = &page.data.page.slug;
    let nonce = nonce(req).unwrap_or_else(|| hex::encode(rand::random::<[u8; 16]>()));
    let assets = &state.site.renderer.assets;
    let lang = reader_lang(req, &page.data.page, true);
    let view = LinkView {
        frame: Frame::site(&signing_in(lang, &page.data.page.name), assets),
        css: assets.url("forms.css"),
        page_name: page.data.page.name.clone(),
        action: format!("/status/{slug}/access/link/{token}"),
        csrf_token: form_token(state, slug, &nonce),
        error: error.map(|key| text(lang, key)),
        access: format!("/status/{slug}/access"),
    };
    let body = state
        .site
        .renderer
        .templates
        .render_in(lang, "pages/access_link", &view)?;
    Ok(html(status)
        .cookie(nonce_cookie(state, req, slug, nonce))
        .body(body))
}

// Why a sign-in link cannot be used (Fluent keys).
const LINK_EXPIRED: &str = "access-link-expired";
const LINK_INVALID: &str = "access-link-invalid";
const LINK_USED: &str = "access-link-used";

fn link_refusal(refusal: LinkRefusal) -> (StatusCode, &'static str) {
    match refusal {
        LinkRefusal::Expired => (StatusCode::GONE, LINK_EXPIRED),
        LinkRefusal::Invalid => (StatusCode::BAD_REQUEST, LINK_INVALID),
    }
}

/// `GET /status/{slug}/access/link/{token}`: asks for the click that uses the link.
async fn link_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, token) = path.into_inner();
    let page = restricted(&state.site, &slug)?;
    match reader::verify_link(&token, state.secret.expose(), Utc::now()) {
        Ok(_) => link_view(&state, &req, &page, &token, StatusCode::OK, None),
        Err(refusal) => {
            let (status, message) = link_refusal(refusal);
            link_view(&state, &req, &page, &token, status, Some(message))
        }
    }
}

#[derive(Deserialize)]
struct LinkForm {
    #[serde(default)]
    csrf_token: String,
}

/// `POST /status/{slug}/access/link/{token}`: uses the link (once) and lets the reader in.
#[tracing::instrument(skip_all)]
async fn use_link(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    form: web::Form<LinkForm>,
) -> AppResult<HttpResponse> {
    let (slug, token) = path.into_inner();
    let page = restricted(&state.site, &slug)?;
    if !form_is_ours(&state, &req, &slug, &form.csrf_token) {
        return link_view(
            &state,
            &req,
            &page,
            &token,
            StatusCode::FORBIDDEN,
            Some(FORM_EXPIRED),
        );
    }
    let id = match reader::verify_link(&token, state.secret.expose(), Utc::now()) {
        Ok(id) => id,
        Err(refusal) => {
            let (status, message) = link_refusal(refusal);
            return link_view(&state, &req, &page, &token, status, Some(message));
        }
    };
    let used = state
        .db
        .run(move |c| service::use_link(c, &id, Utc::now().naive_utc()))
        .await?;
    let Some((stored, next)) = used.filter(|(p, _)| p.slug == slug) else {
        tracing::info!(page = %slug, "refused a sign-in link used already or no longer allowed");
        return link_view(
            &state,
            &req,
            &page,
            &token,
            StatusCode::GONE,
            Some(LINK_USED),
        );
    };
    let cookie = pass_cookie(&state, &req, &slug, stored.id.as_str(), stored.access_epoch);
    let mut res = see_other(&onward(&slug, &next));
    res.add_cookie(&cookie)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("setting the reader's cookie: {e}")))?;
    Ok(res)
}

#[derive(Deserialize)]
struct LeaveForm {
    #[serde(default)]
    csrf_token: String,
}

/// `POST /status/{slug}/access/leave`: forgets the reader's pass (303 to the access page). The
/// form comes from the access page (its CSRF token), so no other site can sign a reader out.
#[tracing::instrument(skip_all)]
async fn leave(
    req: HttpRequest,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<LeaveForm>,
) -> AppResult<HttpResponse> {
    let page = restricted(&state.site, &slug)?;
    if !form_is_ours(&state, &req, &slug, &form.csrf_token) {
        let lang = reader_lang(&req, &page.data.page, true);
        return access_page(
            &state,
            &req,
            &page,
            StatusCode::FORBIDDEN,
            "",
            "",
            Some(text(lang, FORM_EXPIRED)),
            None,
        );
    }
    let mut removal = Cookie::build(reader::cookie_name(&slug), "")
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure(&state, &req))
        .finish();
    removal.make_removal();
    let mut res = see_other(&format!("/status/{slug}/access"));
    res.add_cookie(&removal)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("removing the reader's cookie: {e}")))?;
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::onward;

    #[test]
    fn a_reader_is_sent_back_below_the_page_only() {
        assert_eq!(
            onward("acme", "/status/acme/history?page=2"),
            "/status/acme/history?page=2"
        );
        assert_eq!(onward("acme", "/status/acme"), "/status/acme");
        assert_eq!(onward("acme", ""), "/status/acme");
        for elsewhere in [
            "https://evil.example/",
            "//evil.example/status/acme",
            "/status/acmeco",
            "/status/other",
            "/admin",
            "/status/acme/access?next=x",
            "/status/acme/\\evil",
        ] {
            assert_eq!(onward("acme", elsewhere), "/status/acme", "{elsewhere}");
        }
    }
}
