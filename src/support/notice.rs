//! Notices of a stored submission: a mail to the page's support address (Reply-To the
//! sender), a copy to the sender when they asked for one, and a signed Standard Webhooks POST
//! to the page's support webhook.
//!
//! The jobs are enqueued in the transaction that inserts the submission, and only when it did
//! insert (a replayed spool record already in the database adds none), so each submission's
//! notices are sent once. One job per target: a failing webhook is retried without sending
//! the mails again. Mail text is escaped in HTML and kept out of headers (the subject is one
//! line, addresses are parsed, never pasted).

use serde::{Deserialize, Serialize};

use crate::db::DbConn;
use crate::db::models::pages::{self, StatusPage};
use crate::db::models::support::{self as rows, SupportSubmission};
use crate::db::models::{components, page_webhooks};
use crate::domain::lang::Lang;
use crate::domain::{ComponentId, PageId};
use crate::jobs::Job;

/// Where one notice goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The page's support address.
    SupportEmail,
    /// The sender, who ticked "send me a copy".
    SenderCopy,
    /// The page's support webhook.
    SupportWebhook,
}

/// The job that sends one notice of a stored submission (`workers::support_notice`).
#[derive(Debug, Serialize, Deserialize)]
pub struct Notice {
    pub submission_id: String,
    pub target: Target,
    /// The language of the sender's copy (the form's); jobs queued before it: the page's
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Lang>,
}

impl Job for Notice {
    const NAME: &'static str = "support.notify";
}

/// Enqueues the notices of `row`, just inserted, one job per target that applies (the
/// sender's copy in `language`, the form's). Call it in the transaction of the insert.
pub fn enqueue(
    conn: &mut DbConn,
    row: &SupportSubmission,
    page: &StatusPage,
    language: Option<Lang>,
) -> diesel::QueryResult<()> {
    let mut targets = Vec::new();
    if page.support_email.is_some() {
        targets.push(Target::SupportEmail);
    }
    if row.wants_copy {
        targets.push(Target::SenderCopy);
    }
    if page_webhooks::find(conn, &page.id, "support")?.is_some() {
        targets.push(Target::SupportWebhook);
    }
    for target in targets {
        Notice {
            submission_id: row.id.clone(),
            target,
            language: (target == Target::SenderCopy).then_some(language).flatten(),
        }
        .enqueue(conn)?;
    }
    Ok(())
}

/// A submission with what its notices need.
pub struct Found {
    pub submission: SupportSubmission,
    pub page: StatusPage,
    /// The affected component's id, name, and name with its region (for people).
    pub component: Option<(String, String, String)>,
    pub webhook: Option<page_webhooks::PageWebhook>,
}

/// The submission `id` with what its notices need; `None` when it or its page is gone.
pub fn load(conn: &mut DbConn, id: &str) -> crate::error::AppResult<Option<Found>> {
    use diesel::OptionalExtension;
    let Some(submission) = rows::find(conn, id)? else {
        return Ok(None);
    };
    let Some(page) = pages::find(conn, &PageId::from(submission.page_id.as_str())).optional()?
    else {
        return Ok(None);
    };
    let component = match &submission.component_id {
        Some(cid) => components::find(conn, &ComponentId::from(cid.as_str()))
            .optional()?
            .map(|c| {
                let label = crate::domain::component_label(&c.name, c.region.as_deref());
                (c.id.into(), c.name, label)
            }),
        None => None,
    };
    let webhook = page_webhooks::find(conn, &page.id, "support")?;
    Ok(Some(Found {
        submission,
        page,
        component,
        webhook,
    }))
}
