//! The support contact form's routes, below a page (`/status/{slug}/...`) and at the root of
//! the page a request's host maps to (custom domain or default page):
//!
//! - `GET  support`: the form (HTML, works without JavaScript), from memory;
//! - `POST support`: a form submission; 303 to `support/sent?reference=...`, or the form again
//!   with a message per field and what was typed;
//! - `GET  support/sent`: the reference and what happens next;
//! - `GET  api/support`: a form token and the choices, for scripts;
//! - `POST api/support`: a JSON submission; 201 `{"reference": ...}`.
//!
//! Nothing here touches `crate::auth`: no session, JWT, user or CSRF token.

use crate::http::public::reader_lang;
use crate::render::html::frame::with_lang;
use crate::render::i18n::{text, text_with};
use crate::services::write::AfterCommit;
use fluent_templates::fluent_bundle::FluentValue;
use std::net::IpAddr;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, guard, web};
use bytes::Bytes;
use chrono::Utc;
use serde::Deserialize;
use serde_json::json;

use crate::domain::SupportReach;
use crate::domain::lang::Lang;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::access::{admit, refuse};
use crate::limits::ClientNet;
use crate::render::site::{Found, PageSnapshot, PublicSite};
use crate::state::AppState;
use crate::support::form::{BODY_LIMIT, Refusal, SupportForm, SupportJson};
use crate::support::page::{self, Place};
use crate::support::token::TokenProblem;
use crate::support::{Submission, Support, Topic, reference};

use super::CSP;
/// What a refused submission is told, whatever gave it away.
const GENERIC_REFUSAL: &str =
    "We could not accept this message. Please check it and send it again in a few seconds.";

/// Registers the routes (before the public pages' catch-all routes).
pub fn routes(cfg: &mut web::ServiceConfig) {
    let read = || web::route().guard(guard::Any(guard::Get()).or(guard::Head()));
    let form = || {
        web::FormConfig::default()
            .limit(BODY_LIMIT)
            .error_handler(|e, _| {
                AppError::BadRequest(format!("the form could not be read: {e}")).into()
            })
    };
    let json = || {
        web::JsonConfig::default()
            .limit(BODY_LIMIT)
            .error_handler(|e, _| {
                AppError::BadRequest(format!(
                    "the request body is not a JSON object within {BODY_LIMIT} bytes: {e}"
                ))
                .into()
            })
    };
    cfg.route(
        "/admin/support",
        web::get().to(super::admin::support::show_inbox),
    )
    .route(
        "/admin/support/{id}",
        web::post().to(super::admin::support::triage_submission),
    );
    for prefix in ["/status/{slug}", ""] {
        cfg.service(
            web::resource(format!("{prefix}/support"))
                .app_data(form())
                .route(read().to(show_form))
                .route(web::post().to(submit_form)),
        )
        .service(web::resource(format!("{prefix}/support/sent")).route(read().to(show_sent)))
        .service(
            web::resource(format!("{prefix}/api/support"))
                .app_data(json())
                .route(read().to(form_token))
                .route(web::post().to(submit_json)),
        );
    }
}

/// Wakes the job runner for a submission's notices, which were queued in a transaction the
/// batcher shares with other senders' (or are spooled, and queued on replay).
async fn wake_for_notices(state: &AppState) {
    let after = AfterCommit {
        jobs: true,
        ..AfterCommit::default()
    };
    crate::http::committed::follow(state, after).await;
}

/// [`locate`] for a page of the site: an unknown page is the site's 404 page.
async fn located(
    req: &HttpRequest,
    state: &AppState,
) -> Result<(Arc<PageSnapshot>, Place), HttpResponse> {
    locate(req, state)
        .await?
        .ok_or_else(|| not_found(&state.site))
}

/// The page a request is for, and where its form lives. A restricted page's form is there
/// for its readers, and for everyone when its owner chose so: then without anything of the
/// page's state ([`PageData::for_strangers`]). Anyone else is sent to sign in.
async fn locate(
    req: &HttpRequest,
    state: &AppState,
) -> Result<Option<(Arc<PageSnapshot>, Place)>, HttpResponse> {
    let snapshot = state.site.snapshot();
    let (found, prefix) = match req.match_info().get("slug") {
        Some(slug) => (snapshot.find(slug), format!("/status/{slug}")),
        None => {
            let host = req
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("");
            (snapshot.page_for_host(host), String::new())
        }
    };
    let Some(found) = found else {
        return Ok(None);
    };
    let page = found.page().clone();
    let restricted = matches!(found, Found::Restricted(_));
    drop(snapshot);
    let place = Place {
        prefix,
        lang: reader_lang(req, &page.data.page, true),
    };
    if !restricted || admit(req, state, Found::Restricted(&page)).await {
        return Ok(Some((page, place)));
    }
    if page.access.support_reach == SupportReach::Everyone {
        let shown = PageSnapshot {
            data: Arc::new(page.data.for_strangers()),
            access: page.access.clone(),
            reps: std::collections::HashMap::new(),
            stamps: std::collections::HashMap::new(),
            rendered: Vec::new(),
            wake_at: page.wake_at,
        };
        return Ok(Some((Arc::new(shown), place)));
    }
    let tail = match req.path().contains("/api/") {
        true => "api/support",
        false => "support",
    };
    Err(refuse(req, &page, tail, false))
}

/// The client's address (trusted proxies honoured), kept with the submission.
fn client_address(req: &HttpRequest, state: &AppState) -> IpAddr {
    crate::limits::client_ip(req, &state.settings.trusted_proxies)
}

fn html(status: StatusCode, body: Bytes) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .body(body)
}

fn not_found(site: &PublicSite) -> HttpResponse {
    html(
        StatusCode::NOT_FOUND,
        site.renderer.not_found.identity.clone(),
    )
}

/// `GET support`: the blank form, rendered once per page snapshot, with a fresh token.
#[tracing::instrument(skip_all)]
pub async fn show_form(req: HttpRequest, state: web::Data<AppState>) -> AppResult<HttpResponse> {
    let site = &state.site;
    let (page, place) = or_answer!(located(&req, &state).await);
    let support = &state.support;
    let token = support.tokens.mint(&page.data.page.id, Utc::now());
    let body = support
        .pages
        .blank(&site.renderer, &page.data, &place, &token)
        .map_err(AppError::Internal)?;
    Ok(html(StatusCode::OK, body))
}

/// `POST support`: checks, stores (database or spool) and sends the browser to the reference.
#[tracing::instrument(skip_all)]
pub async fn submit_form(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: web::Form<SupportForm>,
) -> AppResult<HttpResponse> {
    let site = &state.site;
    let (page, place) = or_answer!(located(&req, &state).await);
    let typed = form.into_inner();
    let support = &state.support;
    let again = |status: StatusCode,
                 errors: Option<&FieldErrors>,
                 notice: &str|
     -> AppResult<HttpResponse> {
        let token = keep_or_mint(support, &typed.form_token, &page.data.page.id);
        let body = page::render_form(
            &site.renderer,
            &page.data,
            &place,
            &typed,
            errors,
            Some(notice),
            &token,
        )
        .map_err(AppError::Internal)?;
        Ok(html(status, body))
    };
    let ip = client_address(&req, &state);
    if let Err(AppError::RateLimited { retry_after_secs }) = support.check_rate(ClientNet::of(ip)) {
        let seconds = FluentValue::from(retry_after_secs);
        let notice = text_with(place.lang, "support-too-many", &[("seconds", seconds)]);
        let mut res = again(StatusCode::TOO_MANY_REQUESTS, None, &notice)?;
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        return Ok(res);
    }
    let checked = match typed.check((&page.data, place.lang), &support.tokens, Utc::now()) {
        Ok(checked) => checked,
        Err(Refusal::Fields(errors)) => {
            let notice = text(place.lang, "support-fix-fields");
            return again(StatusCode::UNPROCESSABLE_ENTITY, Some(&errors), &notice);
        }
        Err(Refusal::Suspicious) => {
            let notice = text(place.lang, "support-not-accepted");
            return again(StatusCode::BAD_REQUEST, None, &notice);
        }
        Err(Refusal::Expired) => {
            let notice = text(place.lang, "support-expired");
            return again(StatusCode::UNPROCESSABLE_ENTITY, None, &notice);
        }
    };
    let mut submission = Submission::new(&page.data.page.id, checked, Some(ip));
    submission.language = Some(place.lang);
    let reference = submission.reference.clone();
    if let Err(e) = support.accept(&state.db, submission).await {
        let (notice, wait) = match &e {
            AppError::Unavailable {
                reason,
                retry_after_secs,
            } if reason == crate::support::SPOOL_FULL => ("support-overloaded", *retry_after_secs),
            _ => ("support-not-saved", 5),
        };
        let notice = text(place.lang, notice);
        let mut res = again(StatusCode::SERVICE_UNAVAILABLE, None, &notice)?;
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return Ok(res);
    }
    wake_for_notices(&state).await;
    Ok(HttpResponse::SeeOther()
        .insert_header((
            header::LOCATION,
            with_lang(
                &format!("{}/support/sent?reference={reference}", place.prefix),
                page.data.page.languages.len().gt(&1).then_some(place.lang),
            ),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

/// The token a re-rendered form carries: the one sent, when it is genuine and current (so a
/// quick correction is not refused as too fast), else a new one.
fn keep_or_mint(support: &Support, sent: &str, page_id: &str) -> String {
    let now = Utc::now();
    match support.tokens.verify(sent, page_id, now) {
        Ok(_) | Err(TokenProblem::TooFast) => sent.trim().to_owned(),
        Err(_) => support.tokens.mint(page_id, now),
    }
}

#[derive(Deserialize)]
pub struct SentQuery {
    reference: Option<String>,
}

/// `GET support/sent?reference=...`: what happens next.
pub async fn show_sent(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<SentQuery>,
) -> AppResult<HttpResponse> {
    let site = &state.site;
    let (page, place) = or_answer!(located(&req, &state).await);
    let Some(reference) = query.reference.as_deref().and_then(reference::normalize) else {
        return Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, place.action()))
            .finish());
    };
    let body = page::render_sent(&site.renderer, &page.data, &place, &reference)
        .map_err(AppError::Internal)?;
    Ok(html(StatusCode::OK, body))
}

/// `GET api/support`: a form token and the choices, for a script that builds its own form.
pub async fn form_token(req: HttpRequest, state: web::Data<AppState>) -> AppResult<HttpResponse> {
    let (page, _) = or_answer!(locate(&req, &state).await)
        .ok_or_else(|| AppError::NotFound("status page".into()))?;
    let data = &page.data;
    let token = state.support.tokens.mint(&data.page.id, Utc::now());
    let topics: Vec<_> = Topic::ALL
        .iter()
        .map(|t| json!({"value": t.as_str(), "label": t.label()}))
        .collect();
    let components: Vec<_> = data
        .components
        .iter()
        .map(|c| json!({"id": c.id, "name": c.name}))
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({
            "form_token": token,
            "min_fill_seconds": state.support.tokens.min_fill().num_seconds(),
            "topics": topics,
            "components": components,
        })))
}

/// `POST api/support`: 201 `{"reference"}`; 422 with a message per field; 400 for a refused
/// token or honeypot (without saying which); 429 with `Retry-After`.
#[tracing::instrument(skip_all)]
pub async fn submit_json(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<serde_json::Value>,
) -> AppResult<HttpResponse> {
    let (page, _) = or_answer!(locate(&req, &state).await)
        .ok_or_else(|| AppError::NotFound("status page".into()))?;
    let support = &state.support;
    let ip = client_address(&req, &state);
    support.check_rate(ClientNet::of(ip))?;
    let body: SupportJson = crate::http::api::body::typed(&body.into_inner())?;
    let typed = SupportForm::from(body);
    let checked = match typed.check((&page.data, Lang::En), &support.tokens, Utc::now()) {
        Ok(checked) => checked,
        Err(Refusal::Fields(errors)) => return Err(AppError::Validation(errors)),
        Err(Refusal::Suspicious) => return Err(AppError::BadRequest(GENERIC_REFUSAL.into())),
        Err(Refusal::Expired) => {
            return Err(AppError::field(
                "form_token",
                "has expired; fetch a new one and send again",
            ));
        }
    };
    let submission = Submission::new(&page.data.page.id, checked, Some(ip));
    let reference = submission.reference.clone();
    support.accept(&state.db, submission).await?;
    wake_for_notices(&state).await;
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({"reference": reference})))
}
