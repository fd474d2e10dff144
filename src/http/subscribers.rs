//! Subscribing without an account: the form at `/status/{slug}/subscribe` (no JavaScript
//! needed), `POST /status/{slug}/api/subscribe` (JSON), the confirmation link and the manage
//! page with its one-click unsubscribe (RFC 8058: a POST to the link, no cookie, no CSRF token:
//! the signed token in the URL is the authority).

mod form;
mod links;

use std::collections::BTreeMap;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::Serialize;
use serde_json::{Value, json};

use crate::db::states::SubscriberState;
use crate::delivery::outbound;
use crate::delivery::signature::new_secret;
use crate::domain::lang::Lang;
use crate::error::{AppError, AppResult};
use crate::http::access::{admit, refuse};
use crate::http::public::reader_lang;
use crate::render::html::choice::Choice;
use crate::render::html::format::Locale;
use crate::render::html::frame::{Frame, Section};
use crate::render::site::{Found, PublicSite};
use crate::services::public::data::PageData;
use crate::services::subscribers::token::Purpose;
use crate::services::subscribers::{
    self as service, Origin, SubscribeInput, Subscribed, Subscription, Target,
};
use crate::state::AppState;

use super::CSP;
use crate::domain::PageId;
use crate::render::i18n::{text, text_with};
use fluent_templates::fluent_bundle::FluentValue;

/// The message of every accepted email subscription, known address or not.
/// What an email subscription gets when the server has no mail server (`HERALD_SMTP_URL`).
pub const NO_MAIL: &str = "Email notifications are not available here: this status page has no mail server set up. You can subscribe with a webhook instead, or follow the page's Atom feed.";

const EMAIL_ACCEPTED: &str = "If this address can receive mail, a confirmation link is on its way. \
                              Nothing else is sent until it is opened.";

/// Registers the routes (before the public pages' catch-all).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/status/{slug}/subscribe")
            .route(web::get().to(form::subscribe_form))
            .route(web::post().to(form::subscribe_submit)),
    )
    .route(
        "/status/{slug}/api/subscribe",
        web::post().to(subscribe_json),
    )
    .route(
        "/status/{slug}/confirm/{token}",
        web::get().to(links::confirm),
    )
    .service(
        web::resource("/status/{slug}/unsubscribe/{token}")
            .route(web::get().to(links::manage))
            .route(web::post().to(links::unsubscribe)),
    );
}

/// The page data of a page, or 404. A restricted page's shows nothing of its state
/// ([`PageData::for_strangers`]): the subscription links, which carry their own authority,
/// name the page and no more.
fn page(site: &PublicSite, slug: &str) -> AppResult<Arc<PageData>> {
    match site.snapshot().find(slug) {
        Some(Found::Public(page)) => Ok(page.data.clone()),
        Some(Found::Restricted(page)) => Ok(Arc::new(page.data.for_strangers())),
        None => Err(AppError::NotFound(format!("page {slug}"))),
    }
}

/// The page data of a page the request may subscribe to: any public page, a restricted one
/// for those it admits (anyone else is sent to sign in, or gets 401), or 404.
async fn subscribable(
    req: &HttpRequest,
    state: &AppState,
    slug: &str,
) -> AppResult<Result<Arc<PageData>, HttpResponse>> {
    let snapshot = state.site.snapshot();
    let Some(found) = snapshot.find(slug) else {
        return Err(AppError::NotFound(format!("page {slug}")));
    };
    let page = found.page().clone();
    let restricted = matches!(found, Found::Restricted(_));
    drop(snapshot);
    if !restricted || admit(req, state, Found::Restricted(&page)).await {
        return Ok(Ok(page.data.clone()));
    }
    let tail = match req.path().contains("/api/") {
        true => "api/subscribe",
        false => "subscribe",
    };
    Ok(Err(refuse(req, &page, tail, false)))
}

/// Checks, rate-limits and stores a public subscription.
async fn accept(
    state: &AppState,
    req: &HttpRequest,
    page_id: String,
    subscription: Subscription,
) -> AppResult<Subscribed> {
    let target = match &subscription.target {
        Target::Email(email) => email.as_str().to_owned(),
        Target::Webhook { url, .. } => url.clone(),
    };
    if matches!(subscription.target, Target::Email(_)) && state.settings.smtp_url.is_none() {
        // Said before anything is stored or counted: nothing would ever be sent.
        return Err(AppError::field("email", NO_MAIL));
    }
    let client = crate::limits::client_net(req, &state.settings.trusted_proxies);
    state.notify.limits.check_client(client)?;
    if let Target::Webhook { url, .. } = &subscription.target {
        check_webhook_url(state, url).await?;
    }
    state.notify.limits.check_target(&target)?;
    let subscribed = state
        .db
        .run(move |c| {
            let page_id = PageId::from(page_id);
            crate::services::write::run(c, |c| {
                service::subscribe(c, &page_id, &subscription, Origin::Public, new_secret)
            })
        })
        .await?;
    crate::http::committed::follow(state, subscribed.after).await;
    Ok(subscribed.value)
}

/// Refuses a webhook URL the outbound policy would not send to (a 422 on `url`).
pub async fn check_webhook_url(state: &AppState, url: &str) -> AppResult<()> {
    let policy = &state.notify.policy;
    let parsed =
        outbound::check_url(url, policy).map_err(|e| AppError::field("url", e.to_string()))?;
    outbound::check_destination(&parsed, policy)
        .await
        .map_err(|e| AppError::field("url", e.to_string()))
}

/// The JSON answer for a webhook subscriber: its secret, shown once, and its manage link.
pub fn webhook_answer(
    state: &AppState,
    slug: &str,
    s: &crate::db::models::notify::Subscriber,
    components: Option<Vec<String>>,
) -> Value {
    let token = service::link_token(
        state.secret.expose(),
        &s.id,
        &s.manage_token_id,
        Purpose::Manage,
        Utc::now(),
    );
    json!({
        "id": s.id,
        "type": "webhook",
        "url": s.url,
        "contact_email": s.contact_email,
        "components": components,
        "component_updates": s.component_updates,
        "state": s.state,
        "secret": s.secret,
        "manage_url": format!("{}/status/{slug}/unsubscribe/{token}", state.settings.public_url),
    })
}

/// `POST /status/{slug}/api/subscribe`: `202` for email (the same answer whether or not the
/// address was known), `201` with the signing secret for a webhook.
#[tracing::instrument(skip_all)]
pub async fn subscribe_json(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    body: web::Bytes,
) -> AppResult<HttpResponse> {
    let data = or_answer!(subscribable(&req, &state, &slug).await?);
    let input: SubscribeInput = serde_json::from_slice(&body)
        .map_err(|e| AppError::BadRequest(format!("the body is not a subscription: {e}")))?;
    let subscription = input.check()?;
    let components = subscription.components.clone();
    match accept(&state, &req, data.page.id.clone(), subscription).await? {
        Subscribed::Email(_) => Ok(HttpResponse::Accepted()
            .json(json!({"status": "pending_confirmation", "message": EMAIL_ACCEPTED}))),
        Subscribed::Webhook(s) => {
            Ok(HttpResponse::Created().json(webhook_answer(&state, &slug, &s, components)))
        }
    }
}

/// A message page.
#[derive(Serialize)]
struct ResultView {
    frame: Option<Frame>,
    css: String,
    title: String,
    message: String,
    secret: Option<String>,
    manage_url: Option<String>,
    button: Option<Value>,
    back: String,
}

impl ResultView {
    fn message(title: &str, message: &str, back: &str) -> Self {
        Self {
            frame: None,
            css: String::new(),
            title: title.to_owned(),
            message: message.to_owned(),
            secret: None,
            manage_url: None,
            button: None,
            back: back.to_owned(),
        }
    }
}

fn result_page(
    site: &PublicSite,
    data: &PageData,
    lang: Lang,
    view: ResultView,
) -> AppResult<HttpResponse> {
    result_page_status(site, data, lang, view, StatusCode::OK)
}

fn result_page_status(
    site: &PublicSite,
    data: &PageData,
    lang: Lang,
    mut view: ResultView,
    status: StatusCode,
) -> AppResult<HttpResponse> {
    let loc = Locale::of_page(&data.page, lang);
    view.frame = Some(Frame::page(
        Some(&view.title),
        Section::Other,
        data,
        &site.renderer.assets,
        loc,
        &data.page.path,
    ));
    view.css = site.renderer.assets.url("forms.css");
    html(site, lang, status, "pages/subscribe_result", &view)
}

fn html<T: Serialize>(
    site: &PublicSite,
    lang: Lang,
    status: StatusCode,
    template: &str,
    view: &T,
) -> AppResult<HttpResponse> {
    let body = site.renderer.templates.render_in(lang, template, view)?;
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        // The token in the URL must not leak to the pages a visitor goes to next.
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_answers_say_what_the_english_form_says() {
        // The JSON API answers in English (machine clients); the form reads Fluent's English.
        assert_eq!(text(Lang::En, "notice-no-mail"), NO_MAIL);
        assert_eq!(text(Lang::En, "subscribe-inbox-text"), EMAIL_ACCEPTED);
        assert_ne!(text(Lang::De, "notice-no-mail"), NO_MAIL);
    }
}
