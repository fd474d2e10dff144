//! `GET /admin/audit?page=&actor=&offset=`: the audit log for owners, newest first, filtered by
//! page (slug) and actor (email or user id), a page of rows at a time.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::fields::{Choice, options};
use super::view::TimeView;
use super::{ConsoleFrame, render};
use crate::db::models::audit::AuditEntry;
use crate::db::models::pages::StatusPage;
use crate::error::AppResult;
use crate::http::auth::{Authenticated, Permission};
use crate::services::audit::{AuditFilter, list_audit};
use crate::services::pages;
use crate::state::AppState;

/// Rows per page of the console's log.
const PER_PAGE: i64 = 50;

/// The query string of the log.
#[derive(Debug, Default, Deserialize)]
pub struct AuditQuery {
    page: Option<String>,
    actor: Option<String>,
    offset: Option<i64>,
}

#[derive(Serialize)]
struct Row {
    at: TimeView,
    actor: String,
    action: String,
    entity: String,
    page: String,
    changes: String,
}

#[derive(Serialize)]
struct AuditPage {
    frame: ConsoleFrame,
    pages: Vec<Choice>,
    actor: String,
    rows: Vec<Row>,
    newer: Option<String>,
    older: Option<String>,
}

/// The log; owners only.
#[tracing::instrument(skip_all)]
pub async fn show_audit(
    auth: Authenticated,
    state: web::Data<AppState>,
    query: web::Query<AuditQuery>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let query = query.into_inner();
    let blank = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let filter = AuditFilter {
        page: blank(&query.page),
        actor: blank(&query.actor),
        // One more than shown tells whether an older page exists.
        limit: Some(PER_PAGE + 1),
        offset: Some(query.offset.unwrap_or(0).max(0)),
    };
    let wanted = filter.clone();
    let (entries, all_pages) = state
        .db
        .run(move |c| Ok((list_audit(c, &wanted)?, pages::list_pages(c)?)))
        .await?;
    let offset = filter.offset.unwrap_or(0);
    let more = entries.len() as i64 > PER_PAGE;
    let link = |offset: i64| {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("page", filter.page.as_deref().unwrap_or(""));
        q.append_pair("actor", filter.actor.as_deref().unwrap_or(""));
        q.append_pair("offset", &offset.to_string());
        format!("/admin/audit?{}", q.finish())
    };
    let choices = std::iter::once((String::new(), "Every page".to_owned()))
        .chain(all_pages.iter().map(|p| (p.slug.clone(), p.name.clone())));
    let view = AuditPage {
        frame: ConsoleFrame::new(&state, &auth, "Audit log"),
        pages: options(choices, filter.page.as_deref().unwrap_or("")),
        actor: filter.actor.clone().unwrap_or_default(),
        rows: entries
            .iter()
            .take(PER_PAGE as usize)
            .map(|e| row(e, &all_pages))
            .collect(),
        newer: (offset > 0).then(|| link((offset - PER_PAGE).max(0))),
        older: more.then(|| link(offset + PER_PAGE)),
    };
    render(&state, StatusCode::OK, "admin/audit", &view)
}

fn row(entry: &AuditEntry, all_pages: &[StatusPage]) -> Row {
    let page = entry
        .page_id
        .as_deref()
        .map(|id| {
            all_pages
                .iter()
                .find(|p| p.id == id)
                .map_or_else(|| "(deleted page)".to_owned(), |p| p.name.clone())
        })
        .unwrap_or_default();
    Row {
        at: TimeView::new(entry.at, chrono_tz::Tz::UTC),
        actor: entry.actor_email.clone(),
        action: entry.action.clone(),
        entity: match &entry.entity_id {
            Some(id) => format!("{} {id}", entry.entity_type),
            None => entry.entity_type.clone(),
        },
        page,
        changes: entry.changes.clone(),
    }
}
