//! The console's support inbox, `/admin/support`: submissions of every page (or one), filtered
//! by topic, status and incident, each with a form to mark it handled (or open again) and link
//! it to an incident. Responders and owners only: submissions hold people's addresses. Forms
//! carry the session's CSRF token like every console form; each change is audited.

use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::{ConsoleFrame, actor, render, see_other};
use crate::db::models::support::SubmissionQuery;
use crate::domain::IncidentId;
use crate::error::{AppError, AppResult};
use crate::http::auth::{Authenticated, Permission};
use crate::render::html::choice::Choice;
use crate::services::{self, pages};
use crate::state::AppState;
use crate::support::Topic;
use crate::support::store::{self, TriagePatch};

/// Rows shown at once.
const SHOWN: i64 = 100;

/// The inbox's query string.
#[derive(Debug, Default, Deserialize)]
pub struct InboxFilter {
    page: Option<String>,
    topic: Option<String>,
    status: Option<String>,
}

/// The triage form body.
#[derive(Debug, Deserialize)]
pub struct TriageForm {
    status: Option<String>,
    incident: Option<String>,
    back: Option<String>,
}

#[derive(Serialize)]
struct Inbox {
    frame: ConsoleFrame,
    rows: Vec<Row>,
    pages: Vec<Choice>,
    topics: Vec<Choice>,
    statuses: Vec<Choice>,
    back: String,
}

#[derive(Serialize)]
struct Row {
    action: String,
    reference: String,
    page_name: String,
    submitted: String,
    name: String,
    email: String,
    topic: &'static str,
    account: Option<String>,
    message: String,
    handled: bool,
    handled_by: Option<String>,
    incident: String,
    spooled: bool,
}

/// `GET /admin/support`.
#[tracing::instrument(skip_all)]
pub async fn show_inbox(
    auth: Authenticated,
    state: web::Data<AppState>,
    filter: web::Query<InboxFilter>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let filter = filter.into_inner();
    let blank = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let (page, topic, status) = (
        blank(&filter.page),
        blank(&filter.topic),
        blank(&filter.status),
    );
    let topic = topic.filter(|t| t.parse::<Topic>().is_ok());
    let status = status.filter(|s| s == "open" || s == "handled");
    let back = format!(
        "/admin/support?page={}&topic={}&status={}",
        page.as_deref().unwrap_or(""),
        topic.as_deref().unwrap_or(""),
        status.as_deref().unwrap_or("")
    );
    let (all_pages, found) = {
        let (page, topic, status) = (page.clone(), topic.clone(), status.clone());
        state
            .db
            .run(move |c| {
                let all = pages::list_pages(c)?;
                let page_id = match &page {
                    Some(slug) => Some(
                        all.iter()
                            .find(|p| &p.slug == slug)
                            .map(|p| p.id.to_string())
                            .ok_or_else(|| AppError::NotFound(format!("page {slug}")))?,
                    ),
                    None => None,
                };
                let query = SubmissionQuery {
                    page_id,
                    topic,
                    status,
                    limit: SHOWN,
                    ..SubmissionQuery::default()
                };
                let found = store::query(c, &query)?;
                let mut references = HashMap::new();
                for id in found.iter().filter_map(|r| r.incident_id.clone()) {
                    if let Ok(i) =
                        crate::services::incidents::get_incident(c, &IncidentId::from(id.as_str()))
                    {
                        references.insert(id, i.reference);
                    }
                }
                Ok((all, (found, references)))
            })
            .await?
    };
    let (found, references) = found;
    let names: HashMap<&str, &str> = all_pages
        .iter()
        .map(|p| (p.id.as_str(), p.name.as_str()))
        .collect();
    let rows = found
        .iter()
        .map(|r| Row {
            action: format!("/admin/support/{}", r.id),
            reference: r.reference.clone(),
            page_name: names
                .get(r.page_id.as_str())
                .copied()
                .unwrap_or("")
                .to_owned(),
            submitted: r
                .submitted_at
                .and_utc()
                .format("%-d %b %Y, %H:%M UTC")
                .to_string(),
            name: r.name.clone(),
            email: r.email.clone(),
            topic: r.topic.parse::<Topic>().map_or("Unknown", Topic::label),
            account: r.account.clone(),
            message: r.message.clone(),
            handled: r.status == "handled",
            handled_by: r.handled_by.clone(),
            incident: r
                .incident_id
                .as_ref()
                .and_then(|id| references.get(id).cloned())
                .unwrap_or_default(),
            spooled: r.spooled,
        })
        .collect();
    let choice = |value: &str, label: &str, current: &Option<String>| Choice {
        value: value.to_owned(),
        label: label.to_owned(),
        selected: current.as_deref() == Some(value) || (value.is_empty() && current.is_none()),
    };
    let mut page_choices = vec![choice("", "All pages", &page)];
    page_choices.extend(all_pages.iter().map(|p| choice(&p.slug, &p.name, &page)));
    let mut topics = vec![choice("", "All topics", &topic)];
    topics.extend(
        Topic::ALL
            .iter()
            .map(|t| choice(t.as_str(), t.label(), &topic)),
    );
    let statuses = vec![
        choice("", "Any status", &status),
        choice("open", "Open", &status),
        choice("handled", "Handled", &status),
    ];
    let view = Inbox {
        frame: ConsoleFrame::new(&state, &auth, "Support messages"),
        rows,
        pages: page_choices,
        topics,
        statuses,
        back,
    };
    render(&state, StatusCode::OK, "admin/support", &view)
}

/// `POST /admin/support/{id}`: mark handled / open, link an incident; back to the inbox.
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn triage_submission(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<String>,
    form: web::Form<TriageForm>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let form = form.into_inner();
    let id = id.into_inner();
    let patch = TriagePatch {
        status: form.status.clone(),
        incident: form
            .incident
            .as_ref()
            .map(|i| Some(i.trim().to_owned()).filter(|i| !i.is_empty())),
    };
    let actor = actor(&auth);
    let triaged = state
        .db
        .run(move |c| {
            let row = store::find(c, &id)?;
            services::write::run(c, |c| {
                store::triage(c, &row.page_id, &row.id, &patch, &actor)
            })
        })
        .await?;
    crate::http::committed::follow(&state, triaged.after).await;
    let back = form
        .back
        .filter(|b| b.starts_with("/admin/support") && !b.contains("//"))
        .unwrap_or_else(|| "/admin/support".to_owned());
    Ok(see_other(&back))
}

/// The dashboard's panel: support submissions per topic over the last hour, all pages
/// together, so a surge of `sign_in` reports shows before anyone opens an incident.
#[derive(Debug, Serialize)]
pub struct SupportPanel {
    pub total: i64,
    pub topics: Vec<TopicCount>,
    /// The topic with a surge (at least [`SURGE`] in the hour), if any.
    pub surge: Option<&'static str>,
}

/// One topic's count in the panel.
#[derive(Debug, Serialize)]
pub struct TopicCount {
    pub label: &'static str,
    pub count: i64,
    pub href: String,
}

/// Submissions on one topic within an hour that the panel calls a surge.
pub const SURGE: i64 = 10;

/// The panel as of `now` (for `GET /admin`).
pub fn dashboard_panel(
    conn: &mut crate::db::DbConn,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<SupportPanel> {
    let counts = store::last_hour(conn, now)?;
    let topics: Vec<TopicCount> = Topic::ALL
        .iter()
        .map(|t| TopicCount {
            label: t.label(),
            count: counts
                .iter()
                .filter(|(_, topic, _)| topic == t.as_str())
                .map(|(_, _, n)| n)
                .sum(),
            href: format!("/admin/support?topic={}&status=open", t.as_str()),
        })
        .collect();
    let surge = topics
        .iter()
        .filter(|t| t.count >= SURGE)
        .max_by_key(|t| t.count)
        .map(|t| t.label);
    Ok(SupportPanel {
        total: topics.iter().map(|t| t.count).sum(),
        topics,
        surge,
    })
}
