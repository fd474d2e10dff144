//! The responders' side, over HTTP: `GET /api/v1/pages/{slug}/support` (filter by topic,
//! status and incident; paginated) and `PATCH /api/v1/pages/{slug}/support/{id}` (mark handled
//! or open again, link to an incident). Both need the write permission (responders, owners):
//! submissions hold people's addresses. Every change is in the audit log.

use actix_web::{HttpResponse, web};
use serde_json::{Value, json};

use crate::error::AppResult;
use crate::http::admin::actor;
use crate::http::auth::{Authenticated, Permission};
use crate::services::{self, pages};
use crate::state::AppState;
use crate::support::store::{self, TriageFilter, TriagePatch};

/// `GET /pages/{slug}/support`: newest first, with the paging used.
#[tracing::instrument(skip_all)]
pub async fn list_submissions(
    state: web::Data<AppState>,
    auth: Authenticated,
    slug: web::Path<String>,
    filter: super::query::Query<TriageFilter>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, filter) = (slug.into_inner(), filter.into_inner());
    let body = state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let rows = store::list(c, &page.id, &filter)?;
            let items: Vec<Value> = rows.iter().map(store::view).collect();
            Ok(json!({
                "items": items,
                "limit": filter.limit.unwrap_or(store::DEFAULT_LIMIT),
                "offset": filter.offset.unwrap_or(0),
            }))
        })
        .await?;
    Ok(HttpResponse::Ok().json(body))
}

/// `PATCH /pages/{slug}/support/{id}`: `{"status": "handled"|"open", "incident": id|reference|null}`;
/// `{id}` may also be the submission's reference.
#[tracing::instrument(skip_all)]
pub async fn update_submission(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, key) = path.into_inner();
    let patch: TriagePatch = super::body::typed(&body.into_inner())?;
    let actor = actor(&auth);
    let row = state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            services::write::run(c, |c| store::triage(c, &page.id, &key, &patch, &actor))
        })
        .await?;
    crate::http::committed::follow(&state, row.after).await;
    Ok(HttpResponse::Ok().json(store::view(&row.value)))
}
