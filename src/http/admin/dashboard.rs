//! `GET /admin`: every open incident and maintenance across pages, overdue ones first and
//! marked, with each page's punctuality. Computed per request, never from a snapshot.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::incidents::TemplateLink;
use super::view::{DeadlineView, TimeView, page_zone};
use super::{ConsoleFrame, render};
use crate::db::DbConn;
use crate::db::models::incidents::Incident;
use crate::db::models::pages::StatusPage;
use crate::error::AppResult;
use crate::http::auth::Authenticated;
use crate::services::incidents::{IncidentFilter, list_incidents};
use crate::services::{deadlines, pages};
use crate::state::AppState;

/// One open incident or maintenance on the dashboard.
#[derive(Debug, Serialize)]
struct Row {
    href: String,
    reference: String,
    name: String,
    kind: String,
    page_name: String,
    impact: String,
    status: String,
    updated: TimeView,
    deadline: Option<DeadlineView>,
}

/// A page with its punctuality and the link to open an incident on it.
#[derive(Debug, Serialize)]
struct PageRow {
    name: String,
    slug: String,
    new_incident: String,
    punctuality_30: Option<f64>,
    punctuality_90: Option<f64>,
    deadlines_30: u32,
    deadlines_90: u32,
    /// Incidents integrations propose on the page, waiting for a responder.
    drafts: i64,
    /// The page's incident templates, each one click from a filled incident form.
    templates: Vec<TemplateLink>,
}

#[derive(Debug, Serialize)]
struct Dashboard {
    frame: ConsoleFrame,
    rows: Vec<Row>,
    overdue: usize,
    pages: Vec<PageRow>,
    /// Support messages per topic over the last hour.
    support: super::support::SupportPanel,
}

/// The dashboard; browsers without a session are sent to sign in.
#[tracing::instrument(skip_all)]
pub async fn show_dashboard(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> AppResult<HttpResponse> {
    let now = Utc::now();
    let (rows, pages) = state.db.run(move |c| gather(c, now)).await?;
    let support = state
        .db
        .run(move |c| super::support::dashboard_panel(c, now))
        .await?;
    let view = Dashboard {
        frame: ConsoleFrame::new(&state, &auth, "Console"),
        overdue: rows.iter().filter(|r| is_overdue(r)).count(),
        rows,
        pages,
        support,
    };
    render(&state, StatusCode::OK, "admin/dashboard", &view)
}

fn is_overdue(row: &Row) -> bool {
    row.deadline.as_ref().is_some_and(|d| d.overdue)
}

/// Open incidents of every page (overdue first, then by deadline) and each page's punctuality.
fn gather(conn: &mut DbConn, now: DateTime<Utc>) -> AppResult<(Vec<Row>, Vec<PageRow>)> {
    let mut rows = Vec::new();
    let mut page_rows = Vec::new();
    let filter = IncidentFilter {
        open_only: true,
        limit: Some(100),
        ..IncidentFilter::default()
    };
    for page in pages::list_pages(conn)? {
        for incident in list_incidents(conn, &page.id, &filter)? {
            rows.push(row(&page, incident, now)?);
        }
        let score = deadlines::punctuality(conn, &page.id, now)?;
        let drafts = crate::services::alerts::count_drafts(conn, &page.id)?;
        let templates = crate::services::templates::list_templates(conn, &page.id)?
            .into_iter()
            .map(|t| TemplateLink::new(&page.slug, t))
            .collect();
        page_rows.push(PageRow {
            drafts,
            templates,
            new_incident: format!("/admin/pages/{}/incidents/new", page.slug),
            name: page.name,
            slug: page.slug,
            punctuality_30: score.last_30_days.share().map(|s| s * 100.0),
            punctuality_90: score.last_90_days.share().map(|s| s * 100.0),
            deadlines_30: score.last_30_days.met + score.last_30_days.missed,
            deadlines_90: score.last_90_days.met + score.last_90_days.missed,
        });
    }
    // Most overdue first, then the soonest due, then those without a promise.
    rows.sort_by_key(|r| std::cmp::Reverse(r.deadline.as_ref().map(|d| d.late_minutes)));
    Ok((rows, page_rows))
}

fn row(page: &StatusPage, incident: Incident, now: DateTime<Utc>) -> AppResult<Row> {
    let tz = page_zone(&page.time_zone);
    Ok(Row {
        href: format!("/admin/incidents/{}", incident.id),
        impact: incident.impact.label().to_owned(),
        status: incident.status.label().to_owned(),
        kind: incident.kind.label().to_owned(),
        updated: TimeView::new(incident.updated_at, tz),
        deadline: DeadlineView::new(incident.next_update_by, tz, now),
        reference: incident.reference,
        name: incident.name,
        page_name: page.name.clone(),
    })
}
