//! Subscribing without an account: the form at `/status/{slug}/subscribe` (no JavaScript
//! needed), `POST /status/{slug}/api/subscribe` (JSON), the confirmation link and the manage
//! page with its one-click unsubscribe (RFC 8058: a POST to the link, no cookie, no CSRF token:
//! the signed token in the URL is the authority).

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
use crate::services::subscriptions::token::Purpose;
use crate::services::subscriptions::{
    self as subscribe, Origin, SubscribeInput, Subscribed, Subscription, Target,
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
            .route(web::get().to(subscribe_form))
            .route(web::post().to(subscribe_submit)),
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
                subscribe::subscribe(c, &page_id, &subscription, Origin::Public, new_secret)
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
    let token = subscribe::link_token(
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
    let data = match subscribable(&req, &state, &slug).await? {
        Ok(data) => data,
        Err(refused) => return Ok(refused),
    };
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

/// The form's view.
#[derive(Serialize)]
struct FormView {
    frame: Frame,
    css: String,
    page_name: String,
    action: String,
    notice: Option<String>,
    values: Value,
    errors: BTreeMap<String, String>,
    components: Vec<Value>,
    /// The page's languages to choose the mails' from (none when it has one).
    languages: Vec<Choice>,
}

fn form_view(
    site: &PublicSite,
    data: &PageData,
    lang: Lang,
    fields: &[(String, String)],
) -> FormView {
    let loc = Locale::of_page(&data.page, lang);
    let value = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let chosen: Vec<&str> = fields
        .iter()
        .filter(|(k, _)| k == "components")
        .map(|(_, v)| v.as_str())
        .collect();
    let kind = value("type");
    let chosen_lang = match value("language") {
        typed if !typed.is_empty() => typed,
        _ => lang.as_str().to_owned(),
    };
    let languages = match data.page.languages.len() > 1 {
        true => data
            .page
            .languages
            .iter()
            .map(|l| Choice {
                value: l.as_str().to_owned(),
                label: l.label().to_owned(),
                selected: l.as_str() == chosen_lang,
            })
            .collect(),
        false => Vec::new(),
    };
    FormView {
        languages,
        frame: Frame::page(
            Some(&loc.text("nav-subscribe")),
            Section::Other,
            data,
            &site.renderer.assets,
            loc,
            &format!("{}/subscribe", data.page.path),
        ),
        css: site.renderer.assets.url("forms.css"),
        page_name: data.page.name.clone(),
        action: loc.href(&format!("{}/subscribe", data.page.path)),
        notice: None,
        values: json!({
            "email_type": kind != "webhook",
            "webhook_type": kind == "webhook",
            "email": value("email"),
            "url": value("url"),
            "contact_email": value("contact_email"),
            "component_updates": value("component_updates") == "true",
        }),
        errors: BTreeMap::new(),
        components: data
            .components
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "name": crate::domain::component_label(&c.name, c.region.as_deref()),
                    "checked": chosen.contains(&c.id.as_str()),
                })
            })
            .collect(),
    }
}

/// `GET /status/{slug}/subscribe`: the form.
pub async fn subscribe_form(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let data = match subscribable(&req, &state, &slug).await? {
        Ok(data) => data,
        Err(refused) => return Ok(refused),
    };
    let lang = reader_lang(&req, &data.page, true);
    let mut view = form_view(&state.site, &data, lang, &[]);
    if state.settings.smtp_url.is_none() {
        view.notice = Some(text(lang, "notice-no-mail"));
    }
    html(&state.site, lang, StatusCode::OK, "pages/subscribe", &view)
}

/// `POST /status/{slug}/subscribe` (form fields; `components` repeated).
#[tracing::instrument(skip_all)]
pub async fn subscribe_submit(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    body: web::Bytes,
) -> AppResult<HttpResponse> {
    let data = match subscribable(&req, &state, &slug).await? {
        Ok(data) => data,
        Err(refused) => return Ok(refused),
    };
    let lang = reader_lang(&req, &data.page, true);
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let chosen: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k == "components")
        .map(|(_, v)| v.clone())
        .collect();
    let kind = get("type").unwrap_or_else(|| "email".into());
    let input = SubscribeInput {
        email: get("email").filter(|_| kind == "email"),
        url: get("url").filter(|_| kind == "webhook"),
        contact_email: get("contact_email").filter(|_| kind == "webhook"),
        kind: Some(kind),
        components: (!chosen.is_empty()).then_some(chosen),
        component_updates: Some(get("component_updates").as_deref() == Some("true")),
        language: get("language"),
    };
    let outcome = match input.check() {
        Ok(subscription) => accept(&state, &req, data.page.id.clone(), subscription).await,
        Err(e) => Err(e),
    };
    let back = data.page.path.clone();
    match outcome {
        Ok(Subscribed::Email(_)) => result_page(
            &state.site,
            &data,
            lang,
            ResultView::message(
                &text(lang, "subscribe-inbox-title"),
                &text(lang, "subscribe-inbox-text"),
                &back,
            ),
        ),
        Ok(Subscribed::Webhook(s)) => {
            let answer = webhook_answer(&state, &slug, &s, None);
            let mut view = ResultView::message(
                &text(lang, "subscribe-webhook-title"),
                &text(lang, "subscribe-webhook-text"),
                &back,
            );
            view.secret = s.secret.clone();
            view.manage_url = answer["manage_url"].as_str().map(str::to_owned);
            result_page(&state.site, &data, lang, view)
        }
        Err(AppError::Validation(errors)) => {
            let mut view = form_view(&state.site, &data, lang, &fields);
            view.errors = errors
                .into_iter()
                .map(|(field, said)| {
                    let message = field_message(lang, &field, &said);
                    (field, message)
                })
                .collect();
            view.notice = Some(match state.settings.smtp_url {
                None => text(lang, "notice-no-mail"),
                Some(_) => text(lang, "notice-fix-fields"),
            });
            html(
                &state.site,
                lang,
                StatusCode::UNPROCESSABLE_ENTITY,
                "pages/subscribe",
                &view,
            )
        }
        Err(AppError::RateLimited { retry_after_secs }) => {
            let mut view = form_view(&state.site, &data, lang, &fields);
            let seconds = FluentValue::from(retry_after_secs);
            view.notice = Some(text_with(
                lang,
                "subscribe-too-many",
                &[("seconds", seconds)],
            ));
            let mut res = html(
                &state.site,
                lang,
                StatusCode::TOO_MANY_REQUESTS,
                "pages/subscribe",
                &view,
            )?;
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            Ok(res)
        }
        Err(other) => Err(other),
    }
}

/// A refused field's message on the form, in `lang`: English readers get the check's own
/// words (they say exactly what is wrong); the others are told what to type, in their language.
fn field_message(lang: Lang, field: &str, said: &[String]) -> String {
    let key = match field {
        "email" => "form-error-email",
        "url" => "subscribe-error-url",
        "contact_email" => "subscribe-error-contact",
        "components" => "subscribe-error-components",
        "language" => "subscribe-error-language",
        "type" => "subscribe-error-type",
        _ => "",
    };
    match (lang, key) {
        (Lang::En, _) | (_, "") => said.join(" "),
        (_, key) => text(lang, key),
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

    #[test]
    fn a_refused_field_is_told_in_the_readers_language() {
        let said = ["is not an email address".to_owned()];
        assert_eq!(field_message(Lang::En, "email", &said), said[0]);
        assert_eq!(
            field_message(Lang::De, "email", &said),
            text(Lang::De, "form-error-email")
        );
        assert_ne!(
            text(Lang::De, "form-error-email"),
            text(Lang::En, "form-error-email")
        );
        for field in ["url", "contact_email", "components", "language", "type"] {
            let german = field_message(Lang::De, field, &said);
            assert!(
                german != said[0] && !german.starts_with("subscribe-"),
                "{field}: {german}"
            );
        }
    }
}
