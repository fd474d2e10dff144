//! What a notification says: built once per event from the page's public data (the same
//! [`PageData`] the status page and its v2 API are rendered from), then completed per recipient
//! with their manage and unsubscribe links.
//!
//! Email: handlebars templates under `templates/email/<name>/{subject.txt,body.txt,body.html}.hbs`
//! (HTML escaped, text not; the subject is kept on one line). Webhook: Statuspage's webhook
//! shape (`meta`, `page`, then `incident` or `component` with `component_update`) plus Herald's
//! extra keys (`event`, `event_id`, `next_update_by`).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::db::DbConn;
use crate::db::models::components;
use crate::db::models::notify::{self as rows, NotificationEvent};
use crate::delivery::body::SharedBody;
use crate::delivery::chat::{Author, ChatMessage};
use crate::delivery::mail::InlineImage;
use crate::domain::Impact;
use crate::domain::image::ImageKind;
use crate::domain::lang::Lang;
use crate::error::{AppError, AppResult};
use crate::render::api_v2::incident::Incident as V2Incident;
use crate::render::api_v2::model::{Component as V2Component, Time};
use crate::render::html::format::{StatusLook, event_status_in};
use crate::render::i18n;
use crate::services::outbox::kind;
use crate::services::public::data::Brand;
use crate::services::public::data::{IncidentInfo, PageData};
use crate::services::public::load_page_data;

/// An event's content, shared by all its recipients.
#[derive(Debug, Clone)]
pub struct EventContent {
    pub event: NotificationEvent,
    pub page_slug: String,
    pub page_name: String,
    /// The email template.
    pub template: &'static str,
    /// The email view in the page's default language, without the per-recipient links.
    pub view: Value,
    /// The page's default language, `view`'s.
    pub lang: Lang,
    /// The email view in each of the page's other languages.
    pub translated: Vec<(Lang, Value)>,
    /// The webhook body, without `meta.unsubscribe` (shared by every recipient).
    pub webhook: std::sync::Arc<SharedBody>,
    pub chat: std::sync::Arc<ChatMessage>,
    /// The incident's first event: its emails start the thread every later one replies to.
    pub thread_root: Option<String>,
    /// The page's logo, sent inside each email.
    pub logo: Option<InlineImage>,
}

impl EventContent {
    /// The email view in `language` when the page is read in it, else in the page's default.
    pub fn view_for(&self, language: Option<Lang>) -> (Lang, &Value) {
        language
            .and_then(|wanted| self.translated.iter().find(|(lang, _)| *lang == wanted))
            .map_or((self.lang, &self.view), |(lang, view)| (*lang, view))
    }
}

/// Builds an event's content from the database; `None` when the event is gone.
pub fn build(conn: &mut DbConn, event_id: &str, base_url: &str) -> AppResult<Option<EventContent>> {
    let Some(event) = rows::find_event(conn, event_id)? else {
        return Ok(None);
    };
    let data = load_page_data(conn, &event.page_id, Utc::now(), base_url)?;
    let generated_at = Time(Utc::now());
    let page = json!({
        "id": data.page.id,
        "status_indicator": data.status.indicator,
        "status_description": data.status.description,
    });
    let mut webhook = json!({
        "meta": {"unsubscribe": Value::Null, "documentation": Value::Null, "generated_at": generated_at},
        "page": page,
    });
    let logo = mail_logo(&data.page.brand);
    let page_view = json!({
        "name": data.page.name,
        "url": data.page.url,
        "link": {"href": data.page.url, "label": data.page.name},
        "brand_color": mail_color(&data.page.brand),
        "logo_cid": logo.as_ref().map(|l| l.cid.clone()),
    });
    let default = data.page.default_language;
    let incident = event.incident_id.as_deref().and_then(|id| {
        data.incidents
            .iter()
            .chain(&data.maintenances)
            .find(|i| i.id == id)
    });
    // The view in one language, from the page's data in it (its translations put in); the
    // webhook and the chat message (Statuspage's shape, the page's default) from the first.
    let mut view_in = |lang: Lang, webhook: &mut Value| -> AppResult<_> {
        let in_lang = match lang == default && !data.translated_into(lang) {
            true => None,
            false => Some(data.in_language(lang)),
        };
        let data = in_lang.as_ref().unwrap_or(&data);
        let incident = incident.and_then(|i| {
            data.incidents
                .iter()
                .chain(&data.maintenances)
                .find(|t| t.id == i.id)
        });
        let (template, mut view, chat) = match (event.kind.as_str(), incident) {
            (kind::SUBSCRIBER_CONFIRMATION, _) => ("confirm", json!({}), ChatMessage::default()),
            (kind::SUBSCRIBER_MOVED, _) => ("confirm_moved", json!({}), ChatMessage::default()),
            (kind::SUBSCRIBER_QUARANTINED, _) => ("quarantined", json!({}), ChatMessage::default()),
            (kind::COMPONENT_STATUS_CHANGED | kind::VENDOR_STATUS_CHANGED, _) => {
                let (view, chat) = component_event(conn, &event, data, webhook, lang)?;
                ("notification", view, chat)
            }
            (_, Some(incident)) => {
                let (view, chat) = incident_event(&event, data, incident, webhook, lang)?;
                ("notification", view, chat)
            }
            (_, None) => {
                return Err(AppError::NotFound(format!(
                    "the incident of event {}",
                    event.id
                )));
            }
        };
        // Every mail names its page the same way, with its logo and colour.
        view["page"] = page_view.clone();
        Ok((template, view, chat))
    };
    let (template, view, chat) = view_in(default, &mut webhook)?;
    let mut translated = Vec::new();
    for lang in data.page.languages.iter().filter(|l| **l != default) {
        let (_, theirs, _) = view_in(*lang, &mut json!({}))?;
        translated.push((*lang, theirs));
    }
    webhook["event"] = json!(event.kind);
    webhook["event_id"] = json!(event.id);
    let thread_root = match &event.incident_id {
        Some(id) if event.subscriber_id.is_none() => rows::first_incident_event(conn, id)?,
        _ => None,
    };
    Ok(Some(EventContent {
        page_slug: data.page.slug.clone(),
        page_name: data.page.name.clone(),
        event,
        template,
        view,
        lang: default,
        translated,
        webhook: std::sync::Arc::new(SharedBody::new(webhook)),
        chat: chat.into(),
        thread_root,
        logo,
    }))
}

/// The colour a page's mails draw links and headings in: its brand colour, which reads on
/// white as mail is drawn, or Herald's own link colour.
fn mail_color(brand: &Brand) -> String {
    brand
        .color
        .map_or(crate::domain::brand::HERALD_LINK, |c| c.light())
        .to_string()
}

/// The page's logo as mail carries it: inside the message. A PNG or WebP only: the common
/// mail clients do not draw SVG, so a page with an SVG logo is named in its mails instead.
fn mail_logo(brand: &Brand) -> Option<InlineImage> {
    let logo = brand.logo.as_ref()?;
    if logo.kind == ImageKind::Svg {
        return None;
    }
    let short = logo.digest.get(..16).unwrap_or(&logo.digest);
    Some(InlineImage {
        cid: format!("logo.{short}@herald"),
        content_type: logo.kind.content_type(),
        bytes: logo.bytes.clone(),
    })
}

/// What an incident event's email says, plus its webhook keys.
fn incident_event(
    event: &NotificationEvent,
    data: &PageData,
    incident: &IncidentInfo,
    webhook: &mut Value,
    lang: Lang,
) -> AppResult<(Value, ChatMessage)> {
    let update = event
        .update_id
        .as_deref()
        .and_then(|id| incident.updates.iter().find(|u| u.id == id))
        .or_else(|| incident.updates.first());
    webhook["incident"] = serde_json::to_value(V2Incident::new(data, incident))
        .map_err(|e| AppError::Internal(e.into()))?;
    webhook["next_update_by"] = json!(
        incident
            .next_update_by
            .filter(|_| incident.status.is_open())
            .map(Time)
    );
    let headline = match event.kind.as_str() {
        kind::INCIDENT_OPENED => "mail-headline-opened",
        kind::INCIDENT_RESOLVED => "mail-headline-resolved",
        kind::POSTMORTEM_PUBLISHED => "mail-headline-postmortem",
        kind::MAINTENANCE_SCHEDULED => "mail-headline-maintenance-scheduled",
        kind::MAINTENANCE_STARTING_SOON => "mail-headline-maintenance-soon",
        kind::MAINTENANCE_STARTED => "mail-headline-maintenance-started",
        kind::MAINTENANCE_COMPLETED => "mail-headline-maintenance-completed",
        _ => "mail-headline-update",
    };
    let headline = i18n::text(lang, headline);
    let (body, body_html) = match (event.kind.as_str(), &incident.postmortem) {
        (kind::POSTMORTEM_PUBLISHED, Some(pm)) => (pm.summary.clone(), pm.summary_html.clone()),
        _ => update
            .map(|u| (u.body.clone(), u.body_html.clone()))
            .unwrap_or_default(),
    };
    let window = match (incident.scheduled_for, incident.scheduled_until) {
        (Some(from), Some(until)) => Some(format!("{} – {}", utc_text(from), utc_text(until))),
        _ => None,
    };
    let view = json!({
        "headline": headline,
        "title": incident.name,
        "reference": incident.reference,
        "status": event_status_in(incident.status, lang),
        "impact": (incident.impact != Impact::None).then(|| StatusLook::impact_in(incident.impact, lang).label),
        "body": body,
        "body_html": body_html,
        "url": incident.url,
        "window": window,
        "next_update_by": incident.next_update_by.filter(|_| incident.status.is_open()).map(utc_text),
        "components": incident.affected_components.iter()
            .map(|c| json!({
                "name": c.label(),
                "status": c.status.map(|s| StatusLook::component_in(s, lang).label),
            }))
            .collect::<Vec<_>>(),
    });
    let chat = ChatMessage {
        title: format!("{}: {}", data.page.name, incident.name),
        text: body,
        url: incident.url.clone(),
        status: incident.status.as_str().to_owned(),
        author: Author::Responder,
    };
    Ok((view, chat))
}

/// What a component status change says, plus its webhook keys.
fn component_event(
    conn: &mut DbConn,
    event: &NotificationEvent,
    data: &PageData,
    webhook: &mut Value,
    lang: Lang,
) -> AppResult<(Value, ChatMessage)> {
    let Some(id) = &event.component_id else {
        return Err(AppError::NotFound("the event's component".into()));
    };
    let component = data
        .component(id)
        .ok_or_else(|| AppError::NotFound(format!("component {id}")))?;
    let change = components::history(conn, id, event.created_at, event.created_at)?
        .into_iter()
        .next_back();
    let (old, new) = match &change {
        Some(c) => (c.old_status, c.new_status),
        None => (None, component.status),
    };
    webhook["component_update"] = json!({
        "created_at": Time(event.created_at.and_utc()),
        "new_status": new,
        "old_status": old,
        "id": change.as_ref().map(|c| c.id.clone()).unwrap_or_else(|| event.id.clone()),
        "component_id": id,
    });
    webhook["component"] = serde_json::to_value(V2Component::of_component(data, component))
        .map_err(|e| AppError::Internal(e.into()))?;
    let url = data.page.url.clone();
    let status = StatusLook::component_in(component.status, lang).label;
    let in_sentence = crate::render::html::format::in_sentence(&status, lang);
    let named = |key, vendor: Option<&str>| {
        let mut args = vec![
            ("component", component.name.clone().into()),
            ("status", in_sentence.clone().into()),
        ];
        if let Some(vendor) = vendor {
            args.push(("vendor", vendor.to_owned().into()));
        }
        i18n::text_with(lang, key, &args)
    };
    // A vendor's change says whose report it is.
    let said = match (&component.vendor, event.kind == kind::VENDOR_STATUS_CHANGED) {
        (Some(vendor), true) => named("mail-component-vendor", Some(&vendor.name)),
        _ => named("mail-component-now", None),
    };
    let view = json!({
        "headline": i18n::text(lang, "mail-headline-component"),
        "title": component.name,
        "reference": Value::Null,
        "status": status,
        "impact": Value::Null,
        "body": said.clone(),
        "body_html": handlebars::html_escape(&said),
        "url": url,
        "window": Value::Null,
        "next_update_by": Value::Null,
        "components": [json!({"name": component.name, "status": status})],
    });
    let chat = ChatMessage {
        title: format!("{}: {}", data.page.name, component.name),
        text: said,
        url,
        status: component.status.as_str().to_owned(),
        author: Author::Responder,
    };
    Ok((view, chat))
}

fn utc_text(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}
