//! The ways a reader gets in at the access page (the page's password, a sign-in link by
//! mail) and out again.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::{Deserialize, Serialize};

use crate::domain::lang::Lang;
use crate::domain::{EmailAddress, Visibility};
use crate::error::{AppError, AppResult};
use crate::http::public::reader_lang;
use crate::render::html::frame::Frame;
use crate::render::i18n::{text, text_with};
use crate::render::site::PageSnapshot;
use crate::services::access as service;
use crate::services::access::pass::{self as reader, LinkRefusal};
use crate::state::AppState;
use fluent_templates::fluent_bundle::FluentValue;

use super::page::{
    FORM_EXPIRED, access_page, form_is_ours, form_token, html, nonce, nonce_cookie, pass_cookie,
    restricted, secure, see_other,
};
use super::{onward, signing_in};

#[derive(Deserialize)]
pub(super) struct PasswordForm {
    #[serde(default)]
    password: String,
    #[serde(default)]
    next: String,
    #[serde(default)]
    csrf_token: String,
}

/// `POST /status/{slug}/access/password`: the page's password lets the reader in (303 to where
/// they were going), or the access page again with the reason.
#[tracing::instrument(skip_all)]
pub(super) async fn password(
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
pub(super) struct EmailForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    next: String,
    #[serde(default)]
    csrf_token: String,
}

/// What a reader who asked for a link is told, allowed or not.
pub(super) fn link_sent(lang: Lang, email: &str) -> String {
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
pub(super) async fn email(
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
    crate::http::committed::follow(&state, requested.after).await;
    again(StatusCode::OK, None, Some(link_sent(lang, &typed)))
}

#[derive(Serialize)]
pub(super) struct LinkView {
    frame: Frame,
    css: String,
    page_name: String,
    action: String,
    csrf_token: String,
    error: Option<String>,
    access: String,
}

/// The page of a sign-in link: a button that uses it, or why it cannot be used.
pub(super) fn link_view(
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
pub(super) const LINK_EXPIRED: &str = "access-link-expired";
pub(super) const LINK_INVALID: &str = "access-link-invalid";
pub(super) const LINK_USED: &str = "access-link-used";

pub(super) fn link_refusal(refusal: LinkRefusal) -> (StatusCode, &'static str) {
    match refusal {
        LinkRefusal::Expired => (StatusCode::GONE, LINK_EXPIRED),
        LinkRefusal::Invalid => (StatusCode::BAD_REQUEST, LINK_INVALID),
    }
}

/// `GET /status/{slug}/access/link/{token}`: asks for the click that uses the link.
pub(super) async fn link_page(
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
pub(super) struct LinkForm {
    #[serde(default)]
    csrf_token: String,
}

/// `POST /status/{slug}/access/link/{token}`: uses the link (once) and lets the reader in.
#[tracing::instrument(skip_all)]
pub(super) async fn use_link(
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
pub(super) struct LeaveForm {
    #[serde(default)]
    csrf_token: String,
}

/// `POST /status/{slug}/access/leave`: forgets the reader's pass (303 to the access page). The
/// form comes from the access page (its CSRF token), so no other site can sign a reader out.
#[tracing::instrument(skip_all)]
pub(super) async fn leave(
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
