//! Reminders for responders: an email to every owner and responder a set time before an open
//! incident's promised next update (`LEAD_MINUTES`), and an "overdue" notice once the promise
//! passes without an update. Each (incident, deadline, kind) is sent once: the process whose
//! insert of the `responder_reminders` row succeeds sends it (at most once: a crash between the
//! insert and the send loses that one reminder, which is preferred to repeating it).

use chrono::{DateTime, Utc};
use serde_json::json;

use super::content::Mailbook;
use crate::db::models::incidents::Incident;
use crate::db::models::notify as rows;
use crate::db::models::{pages, users};
use crate::db::{DbConn, now, write_tx};
use crate::delivery::mail::EmailMessage;
use crate::error::AppResult;
use crate::services::deadlines;

/// Minutes before a promised update that responders are reminded.
pub const LEAD_MINUTES: i64 = 10;

/// A reminder to send.
#[derive(Debug, Clone)]
pub struct Reminder {
    pub incident: Incident,
    pub overdue: bool,
    pub page_name: String,
    pub page_slug: String,
    pub recipients: Vec<String>,
}

/// Claims every reminder due at `now` that no process has sent yet.
pub fn claim_due(conn: &mut DbConn, at: DateTime<Utc>) -> AppResult<Vec<Reminder>> {
    write_tx(conn, |c| {
        let soon = deadlines::due_within(c, LEAD_MINUTES, at)?;
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
            .filter(|u| u.role == "owner" || u.role == "responder")
            .map(|u| u.email)
            .collect();
        let mut reminders = Vec::new();
        for (incident, overdue) in due {
            let page = pages::find(c, &incident.page_id)?;
            reminders.push(Reminder {
                incident,
                overdue,
                page_name: page.name,
                page_slug: page.slug,
                recipients: recipients.clone(),
            });
        }
        Ok(reminders)
    })
}

/// The messages of a reminder, one per recipient.
pub fn messages(
    book: &Mailbook,
    base_url: &str,
    domain: &str,
    reminder: &Reminder,
    at: DateTime<Utc>,
) -> anyhow::Result<Vec<EmailMessage>> {
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
    let (subject, text, html) = book.render("reminder", &view)?;
    let kind = if reminder.overdue { "overdue" } else { "due" };
    let stamp = deadline.timestamp();
    Ok(reminder
        .recipients
        .iter()
        .enumerate()
        .map(|(i, to)| EmailMessage {
            to: to.clone(),
            subject: subject.clone(),
            text: text.clone(),
            html: html.clone(),
            message_id: format!("reminder.{}.{stamp}.{kind}.{i}@{domain}", incident.id),
            in_reply_to: None,
            references: Vec::new(),
            list_id: format!("responders.{}.{domain}", reminder.page_slug),
            unsubscribe_url: format!("{base_url}/admin"),
            manage_url: None,
        })
        .collect())
}
