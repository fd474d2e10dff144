//! `/pages/{slug}/incidents` and `/pages/{slug}/maintenances`: opening, listing (open, overdue),
//! reading, editing the structured fields and posting updates.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde::Deserialize;
use serde_json::Value;

use super::body::typed;
use super::run::{self, Api, Record, change};
use super::views;
use crate::db::DbConn;
use crate::domain::{IncidentKind, PageId};
use crate::error::{AppError, AppResult};
use crate::http::auth::Permission;
use crate::services::idempotency::Answer;
use crate::services::incidents::{
    self as service, IncidentFieldsInput, IncidentFilter, OpenIncidentInput, PostUpdateInput,
};
use crate::services::{deadlines, templates};

/// The widest "due within" window, in minutes.
const MAX_DUE_WITHIN: i64 = 24 * 60;

/// The query of an incident list.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    /// `open` for unresolved ones only; `all` (the default) for every one.
    status: Option<String>,
    /// Only open ones whose promised next update is past.
    #[serde(default)]
    overdue: bool,
    /// Only open ones whose promised next update falls due within this many minutes.
    due_within: Option<i64>,
    limit: Option<i64>,
    offset: Option<i64>,
}

/// `POST /pages/{slug}/incidents`: opens an incident (or advisory) with its first update;
/// `template_id` pre-fills name, impact, body and components that the body leaves out.
#[tracing::instrument(skip_all)]
pub async fn create_incident(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    open(api, slug.into_inner(), body.into_inner(), None).await
}

/// `POST /pages/{slug}/maintenances`: schedules a maintenance (`scheduled_for`,
/// `scheduled_until`, components, body).
#[tracing::instrument(skip_all)]
pub async fn create_maintenance(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let kind = Some(IncidentKind::Maintenance);
    open(api, slug.into_inner(), body.into_inner(), kind).await
}

async fn open(
    api: Api,
    slug: String,
    fields: Value,
    kind: Option<IncidentKind>,
) -> AppResult<HttpResponse> {
    super::body::object(&fields)?;
    let action = match kind {
        Some(IncidentKind::Maintenance) => "maintenance.create",
        _ => "incident.create",
    };
    let (given, author) = (fields.clone(), api.auth().user_id.clone());
    api.write(Permission::Write, &given, move |c| {
        let page = run::page(c, &slug)?;
        let input = opening(c, &page.id, fields.clone(), kind)?;
        let posted = service::open_incident(c, &page.id, &input, Some(&author), Utc::now())?;
        let audit = change(action, "incident", &posted.incident.id, &page.id, fields);
        Ok((Answer::new(201, views::posted(&posted)), audit))
    })
    .await
}

/// The opening input: the body, pre-filled from its template, of the given kind.
fn opening(
    conn: &mut DbConn,
    page_id: &PageId,
    mut fields: Value,
    kind: Option<IncidentKind>,
) -> AppResult<OpenIncidentInput> {
    match fields.get("template_id") {
        Some(Value::String(id)) => {
            let template =
                templates::get_template(conn, page_id, &id.clone()).map_err(|e| match e {
                    AppError::NotFound(_) => {
                        AppError::NotFound(format!("template {id} (template_id)"))
                    }
                    other => other,
                })?;
            templates::prefill(&template, &mut fields)?;
        }
        None | Some(Value::Null) => {}
        Some(_) => return Err(AppError::field("template_id", "must be a string")),
    }
    // Read: the input itself does not take it.
    if let Some(object) = fields.as_object_mut() {
        object.remove("template_id");
    }
    route_kind(&mut fields, kind)?;
    named_status(&fields)?;
    typed(&fields)
}

/// The API's `status` is a status's name exactly, or null (the console's empty choice, which
/// the services take as "the first" or "the current" status, is not part of the API).
fn named_status(fields: &Value) -> AppResult<()> {
    match fields.get("status").and_then(Value::as_str) {
        Some(status) if status.is_empty() || status.trim() != status => Err(AppError::field(
            "status",
            "must be a status name, or null to leave it as it is",
        )),
        _ => Ok(()),
    }
}

/// The kind the route opens: `/maintenances` schedules maintenances only, and `/incidents`
/// opens incidents and advisories (a maintenance needs its window, which that route's body
/// does not declare).
fn route_kind(fields: &mut Value, kind: Option<IncidentKind>) -> AppResult<()> {
    let given = match fields.get("kind") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(name.as_str()),
        Some(_) => return Err(AppError::field("kind", "must be a string")),
    };
    match (kind, given) {
        (Some(IncidentKind::Maintenance), Some(name)) if name != "maintenance" => Err(
            AppError::field("kind", "this route schedules maintenances; leave kind out"),
        ),
        (None, Some("maintenance")) => Err(AppError::field(
            "kind",
            "a maintenance is scheduled with POST /api/v1/pages/{slug}/maintenances",
        )),
        _ => {
            if let Some(kind) = kind {
                fields["kind"] = Value::from(kind.as_str());
            }
            Ok(())
        }
    }
}

/// The incidents as the API lists them.
fn listed(incidents: &[crate::db::models::incidents::Incident]) -> Value {
    incidents.iter().map(views::incident).collect()
}

/// `GET /pages/{slug}/incidents?status=open&overdue=true&due_within=&limit=&offset=`.
pub async fn list_incidents(
    api: Api,
    slug: web::Path<String>,
    query: super::query::Query<ListQuery>,
) -> AppResult<HttpResponse> {
    list(api, slug.into_inner(), query.into_inner(), None).await
}

/// `GET /pages/{slug}/maintenances?status=open&limit=&offset=`.
pub async fn list_maintenances(
    api: Api,
    slug: web::Path<String>,
    query: super::query::Query<ListQuery>,
) -> AppResult<HttpResponse> {
    let kind = Some(IncidentKind::Maintenance);
    list(api, slug.into_inner(), query.into_inner(), kind).await
}

async fn list(
    api: Api,
    slug: String,
    query: ListQuery,
    kind: Option<IncidentKind>,
) -> AppResult<HttpResponse> {
    let open_only = match query.status.as_deref() {
        None | Some("all") => false,
        Some("open") => true,
        Some(_) => return Err(AppError::field("status", "must be open or all")),
    };
    if query
        .due_within
        .is_some_and(|m| !(1..=MAX_DUE_WITHIN).contains(&m))
    {
        let message = format!("must be between 1 and {MAX_DUE_WITHIN} minutes");
        return Err(AppError::field("due_within", message));
    }
    let filter = IncidentFilter {
        open_only,
        kind,
        limit: query.limit,
        offset: query.offset,
        search: None,
    };
    // The deadline lists take the same window as the plain list.
    let (limit, offset) = filter.window()?;
    api.page_read(Permission::Read, slug, move |c, page| {
        let now = Utc::now();
        let found = match (query.overdue, query.due_within) {
            (true, _) => deadlines::overdue(c, Some(&page.id), now)?,
            (false, Some(minutes)) => deadlines::due_within(c, minutes, now)?,
            (false, None) => return Ok(listed(&service::list_incidents(c, &page.id, &filter)?)),
        };
        let on_page = found
            .into_iter()
            .filter(|i| i.page_id == page.id && kind.is_none_or(|k| i.kind == k));
        let skip = usize::try_from(offset).unwrap_or(usize::MAX);
        let take = usize::try_from(limit).unwrap_or(0);
        let window: Vec<_> = on_page.skip(skip).take(take).collect();
        Ok(listed(&window))
    })
    .await
}

/// `GET /pages/{slug}/punctuality`: the share of promised updates posted in time over the
/// last 30 and 90 days.
pub async fn get_punctuality(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        let punctuality = deadlines::punctuality(c, &page.id, Utc::now())?;
        Ok(serde_json::to_value(punctuality).map_err(anyhow::Error::from)?)
    })
    .await
}

/// `GET /pages/{slug}/incidents/{id}`: the incident (by id or reference) with its updates.
pub async fn get_incident(api: Api, path: web::Path<(String, String)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        let incident = crate::services::incidents::get_page_incident(c, &page.id, &id)?;
        Ok(views::incident_detail(&service::incident_with_updates(
            c,
            &incident.id,
        )?))
    })
    .await
}

/// `PATCH /pages/{slug}/incidents/{id}`: the structured fields.
#[tracing::instrument(skip_all)]
pub async fn update_incident(
    api: Api,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    patch(api, path.into_inner(), body.into_inner(), None).await
}

/// `PATCH /pages/{slug}/maintenances/{id}`: the fields, window and auto-transition flag of a
/// maintenance (an incident's id is not found here).
#[tracing::instrument(skip_all)]
pub async fn update_maintenance(
    api: Api,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let kind = Some(IncidentKind::Maintenance);
    patch(api, path.into_inner(), body.into_inner(), kind).await
}

async fn patch(
    api: Api,
    (slug, id): (String, String),
    fields: Value,
    kind: Option<IncidentKind>,
) -> AppResult<HttpResponse> {
    let input: IncidentFieldsInput = typed(&fields)?;
    api.page_write(Permission::Write, slug, fields, move |c, page| {
        let incident = crate::services::incidents::get_page_incident(c, &page.id, &id)?;
        if kind.is_some_and(|k| incident.kind != k) {
            return Err(AppError::NotFound("maintenance".into()));
        }
        let incident = service::update_incident_fields(c, &incident.id, &input)?;
        run::answered(
            200,
            views::incident(&incident),
            Record::new("incident.update", "incident", &incident.id),
        )
    })
    .await
}

/// `POST /pages/{slug}/incidents/{id}/updates`: a new update (status, body, components,
/// next deadline).
#[tracing::instrument(skip_all)]
pub async fn post_update(
    api: Api,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    named_status(&fields)?;
    let input: PostUpdateInput = typed(&fields)?;
    let author = api.auth().user_id.clone();
    api.page_write(Permission::Write, slug, fields, move |c, page| {
        let incident = crate::services::incidents::get_page_incident(c, &page.id, &id)?;
        let posted = service::post_update(c, &incident.id, &input, Some(&author), Utc::now())?;
        run::answered(
            201,
            views::posted(&posted),
            Record::new("incident.update_posted", "incident", &incident.id),
        )
    })
    .await
}
