//! `GET /admin/pages/{slug}/incidents?offset=N`: every incident and maintenance of a page,
//! newest first, open or closed, so a resolved one can be found again (to reopen it or write
//! its postmortem).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::view::{IncidentLabels, TimeView, page_zone};
use super::{ConsoleFrame, render};
use crate::db::models::incidents::Incident;
use crate::error::AppResult;
use crate::http::auth::Authenticated;
use crate::services::incidents::{IncidentFilter, list_incidents};
use crate::services::pages;
use crate::state::AppState;

/// Incidents per page of the list.
const PER_PAGE: i64 = 25;

/// The query string of the list.
#[derive(Debug, Deserialize)]
pub struct HistoryQuery {
    offset: Option<i64>,
}

#[derive(Serialize)]
struct Row {
    href: String,
    #[serde(flatten)]
    labels: IncidentLabels,
    started: TimeView,
}

#[derive(Serialize)]
struct HistoryPage {
    frame: ConsoleFrame,
    page_name: String,
    rows: Vec<Row>,
    newer: Option<String>,
    older: Option<String>,
}

fn row(incident: &Incident, tz: chrono_tz::Tz) -> AppResult<Row> {
    Ok(Row {
        href: format!("/admin/incidents/{}", incident.id),
        labels: IncidentLabels::of(incident),
        started: TimeView::new(incident.started_at, tz),
    })
}

/// The page's incidents, a page of them at a time (every role).
#[tracing::instrument(skip_all)]
pub async fn list_page_incidents(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    query: web::Query<HistoryQuery>,
) -> AppResult<HttpResponse> {
    let offset = query.offset.unwrap_or(0).max(0);
    let slug = slug.into_inner();
    let (page, incidents) = state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let filter = IncidentFilter {
                // One more than shown tells whether an older page exists.
                limit: Some(PER_PAGE + 1),
                offset: Some(offset),
                ..IncidentFilter::default()
            };
            let incidents = list_incidents(c, &page.id, &filter)?;
            Ok((page, incidents))
        })
        .await?;
    let tz = page_zone(&page.time_zone);
    let rows = incidents
        .iter()
        .take(PER_PAGE as usize)
        .map(|i| row(i, tz))
        .collect::<AppResult<Vec<_>>>()?;
    let base = format!("/admin/pages/{}/incidents", page.slug);
    let view = HistoryPage {
        frame: ConsoleFrame::new(&state, &auth, format!("Incidents of {}", page.name)),
        newer: (offset > 0).then(|| format!("{base}?offset={}", (offset - PER_PAGE).max(0))),
        older: (incidents.len() as i64 > PER_PAGE)
            .then(|| format!("{base}?offset={}", offset + PER_PAGE)),
        page_name: page.name,
        rows,
    };
    render(&state, StatusCode::OK, "admin/history", &view)
}
