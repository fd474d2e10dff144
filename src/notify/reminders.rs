//! Reminders for responders: an email to every owner and responder a set time before an open
//! incident's promised next update (`HERALD_REMINDER_LEAD_MINUTES`, default
//! [`DEFAULT_LEAD_MINUTES`]), and an "overdue" notice once the promise passes without an
//! update; each also POSTed, signed, to the page's responder webhook when it has one. Each
//! (incident, deadline, kind) is sent once: the process whose insert of the
//! `responder_reminders` row succeeds sends it (at most once: a crash between the insert and
//! the send loses that one reminder, which is preferred to repeating it).
//!
//! The mails are direct messages to staff, not list mail: no `List-*` headers.

use crate::domain::lang::Lang;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::db::models::incidents::Incident;
use crate::db::models::notify as rows;
use crate::db::models::page_webhooks::{self, PageWebhook};
use crate::db::models::{pages, users};
use crate::db::{DbConn, now, write_tx};
use crate::delivery::Attempt;
use crate::delivery::chat::{Author, ChatMessage};
use crate::delivery::mail::{DirectMessage, Mailer};
use crate::delivery::webhook::{WebhookClient, WebhookRequest};
use crate::error::AppResult;
use crate::render::mail::Mailbook;
use crate::services::deadlines;

/// Minutes before a promised update that responders are reminded, unless configured.
pub const DEFAULT_LEAD_MINUTES: u32 = crate::config::REMINDER_LEAD_DEFAULT;
/// Tries while the webhook's host is busy or its circuit open.
const DEFERRALS: u32 = 5;

/// A reminder to send.
#[derive(Debug, Clone)]
pub struct Reminder {
    pub incident: Incident,
    pub overdue: bool,
    pub page_name: String,
    pub page_slug: String,
    pub recipients: Vec<String>,
    /// The page's responder webhook, if set.
    pub webhook: Option<PageWebhook>,
}

/// What one reminder sends: a mail per recipient, and the webhook request if the page has one.
#[derive(Debug, Clone)]
pub struct ReminderMessages {
    pub mails: Vec<DirectMessage>,
    pub webhook: Option<WebhookRequest>,
}

/// Claims every reminder due at `at` (`lead_minutes` before a deadline, or past it) that no
/// process has sent yet.
pub fn claim_due(
    conn: &mut DbConn,
    at: DateTime<Utc>,
    lead_minutes: u32,
) -> AppResult<Vec<Reminder>> {
    write_tx(conn, |c| {
        let soon = deadlines::due_within(c, i64::from(lead_minutes), at)?;
        let late = deadlines::overdue(c, None, at)?;
        let mut due = Vec::new();
        for (incident, overdue) in soon
            .into_iter()
            .map(|i| (i, false))
            .chain(late.into_iter().map(|i| (i, true)))
        {
            let Some(deadline) = incident.next_update_by else {
                continue;
            };
            let kind = if overdue { "overdue" } else { "due_soon" };
            if rows::claim_reminder(c, &incident.id, deadline, kind, now())? {
                due.push((incident, overdue));
            }
        }
        if due.is_empty() {
            return Ok(Vec::new());
        }
        let recipients: Vec<String> = users::list(c)?
            .into_iter()
            .filter(|u| u.role.can_write())
            .map(|u| u.email)
            .collect();
        let mut reminders = Vec::new();
        for (incident, overdue) in due {
            let page = pages::find(c, &incident.page_id)?;
            let webhook = page_webhooks::find(c, &page.id, "responder")?;
            reminders.push(Reminder {
                incident,
                overdue,
                page_name: page.name,
                page_slug: page.slug,
                recipients: recipients.clone(),
                webhook,
            });
        }
        Ok(reminders)
    })
}

/// The messages of a reminder: one mail per recipient, and the signed webhook request.
pub fn messages(
    book: &Mailbook,
    base_url: &str,
    domain: &str,
    reminder: &Reminder,
    at: DateTime<Utc>,
) -> anyhow::Result<ReminderMessages> {
    let incident = &reminder.incident;
    let deadline = incident.next_update_by.map(|d| d.and_utc()).unwrap_or(at);
    let minutes = (deadline - at).num_minutes().max(0);
    let view = json!({
        "page": {"name": reminder.page_name},
        "overdue": reminder.overdue,
        "reference": incident.reference,
        "title": incident.name,
        "status": incident.status,
        "impact": incident.impact,
        "deadline": deadline.format("%Y-%m-%d %H:%M UTC").to_string(),
        "due_text": if minutes == 0 { "now".to_owned() } else { format!("in {minutes} min") },
        "console_url": format!("{base_url}/admin/incidents/{}", incident.id),
        "url": format!("{base_url}/status/{}/incidents/{}", reminder.page_slug, incident.id),
    });
    let (subject, text, html) = book.render("reminder", Lang::En, &view)?;
    let kind = if reminder.overdue { "overdue" } else { "due" };
    let stamp = deadline.timestamp();
    let mails = reminder
        .recipients
        .iter()
        .enumerate()
        .map(|(i, to)| DirectMessage {
            to: to.clone(),
            reply_to: None,
            subject: subject.clone(),
            text: text.clone(),
            html: html.clone(),
            message_id: format!("reminder.{}.{stamp}.{kind}.{i}@{domain}", incident.id),
        })
        .collect();
    let webhook = reminder.webhook.as_ref().map(|hook| WebhookRequest {
        id: format!("reminder_{}_{stamp}_{kind}", incident.id),
        url: hook.url.clone(),
        secret: hook.secret.clone(),
        body: webhook_body(reminder, &view, deadline, at).into(),
        summary: ChatMessage {
            title: subject.clone(),
            text: text.lines().next().unwrap_or_default().to_owned(),
            url: view["console_url"].as_str().unwrap_or_default().to_owned(),
            status: incident.status.to_string(),
            author: Author::Responder,
        }
        .into(),
    });
    Ok(ReminderMessages { mails, webhook })
}

fn webhook_body(
    reminder: &Reminder,
    view: &Value,
    deadline: DateTime<Utc>,
    at: DateTime<Utc>,
) -> Value {
    let incident = &reminder.incident;
    let rfc3339 = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let kind = if reminder.overdue {
        "reminder.overdue"
    } else {
        "reminder.due_soon"
    };
    json!({
        "type": kind,
        "page": {"id": incident.page_id, "slug": reminder.page_slug, "name": reminder.page_name},
        "incident": {
            "id": incident.id, "reference": incident.reference, "name": incident.name,
            "status": incident.status, "impact": incident.impact,
            "next_update_by": rfc3339(deadline), "url": view["url"],
        },
        "console_url": view["console_url"],
        "generated_at": rfc3339(at),
    })
}

/// Sends a reminder's messages (in the background: each send logs its own failure).
pub async fn send(mailer: Option<&Mailer>, webhooks: &WebhookClient, messages: ReminderMessages) {
    match mailer {
        Some(mailer) => {
            for mail in &messages.mails {
                match mailer.send_direct(mail).await {
                    Attempt::Delivered => {}
                    other => tracing::warn!(?other, "a responder reminder was not delivered"),
                }
            }
        }
        None if !messages.mails.is_empty() => {
            tracing::warn!("HERALD_SMTP_URL is not set: responder reminders are not mailed");
        }
        None => {}
    }
    if let Some(request) = &messages.webhook {
        for _ in 0..DEFERRALS {
            match webhooks.send(request).await {
                Attempt::Delivered => return,
                Attempt::Deferred { after, .. } => {
                    tokio::time::sleep(after.min(Duration::from_secs(30))).await;
                }
                other => {
                    tracing::warn!(?other, "the responder webhook did not take a reminder");
                    return;
                }
            }
        }
        tracing::warn!("the responder webhook's host stayed busy; a reminder was not posted");
    }
}
