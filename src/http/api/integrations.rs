//! `/pages/{slug}/integrations`: alerts in from monitoring. Owners make, change and remove
//! integrations and their tokens; monitoring tools post alerts to an integration's endpoint
//! with its token (`Authorization: Bearer`, or `?token=` for a tool that cannot send headers).
//! `/pages/{slug}/incident-drafts`: the incidents integrations propose, which responders
//! publish or dismiss.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::{Parts, lenient, typed};
use super::run::{self, Api, Record};
use super::views;
use crate::domain::alerts::{self, GenericAlert, WireNotification};
use crate::domain::{IntegrationId, IntegrationKind};
use crate::error::{AppError, AppResult};
use crate::http::auth::Permission;
use crate::services;
use crate::services::alerts as receiving;
use crate::services::integrations::{
    self as service, IntegrationView, NewIntegration, NewIntegrationInput, SettingsPatch,
};
use crate::state::AppState;

/// An integration as the API shows it: its settings and the path its tool posts to.
fn view(slug: &str, i: &IntegrationView) -> Value {
    let row = &i.row;
    json!({
        "id": row.id,
        "kind": row.kind,
        "name": row.name,
        "endpoint": format!("{}/pages/{slug}/integrations/{}/{}", super::PREFIX, row.id, row.kind),
        "component_label": row.component_label,
        "components": i.components,
        "severity_label": row.severity_label,
        "severities": i.mapping.severities,
        "default_status": row.default_status,
        "hold_seconds": row.hold_secs,
        "template_id": row.template_id,
        "incident_mode": row.incident_mode,
        "notify_subscribers": row.notify_subscribers,
        "last_used_at": row.last_used_at.map(views::time),
        "created_at": views::time(row.created_at),
        "updated_at": views::time(row.updated_at),
    })
}

/// The view with the token, shown this once.
fn with_token(slug: &str, i: &IntegrationView, token: &str) -> Value {
    let mut value = view(slug, i);
    value["token"] = json!(token);
    value
}

/// `POST /pages/{slug}/integrations`: 201 with the integration and its token.
#[tracing::instrument(skip_all)]
pub async fn create_integration(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let mut parts = Parts::of(&fields)?;
    let NewIntegration { kind, name } = parts.part()?;
    let settings: SettingsPatch = parts.part()?;
    parts.finish()?;
    let input = NewIntegrationInput {
        kind,
        name,
        settings,
    };
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let (integration, token) = service::create_integration(c, &page.id, &input)?;
        run::answered(
            201,
            with_token(&page.slug, &integration, &token),
            Record::new("integration.create", "integration", &integration.row.id),
        )
    })
    .await
}

/// `GET /pages/{slug}/integrations`.
pub async fn list_integrations(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    api.page_read(Permission::Read, slug.into_inner(), move |c, page| {
        Ok(service::list_integrations(c, &page.id)?
            .iter()
            .map(|i| view(&page.slug, i))
            .collect())
    })
    .await
}

/// `GET /pages/{slug}/integrations/{id}`.
pub async fn get_integration(
    api: Api,
    path: web::Path<(String, IntegrationId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        Ok(view(
            &page.slug,
            &service::get_integration(c, &page.id, &id)?,
        ))
    })
    .await
}

/// `PATCH /pages/{slug}/integrations/{id}`: its name and settings.
#[tracing::instrument(skip_all)]
pub async fn update_integration(
    api: Api,
    path: web::Path<(String, IntegrationId)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let patch: SettingsPatch = typed(&fields)?;
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let integration = service::update_integration(c, &page.id, &id, &patch)?;
        run::answered(
            200,
            view(&page.slug, &integration),
            Record::new("integration.update", "integration", &id),
        )
    })
    .await
}

/// `POST /pages/{slug}/integrations/{id}/token`: a new token; the old one stops working.
#[tracing::instrument(skip_all)]
pub async fn rotate_token(
    api: Api,
    path: web::Path<(String, IntegrationId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Admin, slug, json!({}), move |c, page| {
        let (integration, token) = service::rotate_token(c, &page.id, &id)?;
        run::answered(
            200,
            with_token(&page.slug, &integration, &token),
            Record::new("integration.token", "integration", &id),
        )
    })
    .await
}

/// `DELETE /pages/{slug}/integrations/{id}`: revokes its token and forgets its alerts.
#[tracing::instrument(skip_all)]
pub async fn delete_integration(
    api: Api,
    path: web::Path<(String, IntegrationId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Admin, slug, Value::Null, move |c, page| {
        let gone = service::delete_integration(c, &page.id, &id)?;
        run::deleted(
            Record::new("integration.delete", "integration", &id)
                .with_changes(json!({"name": gone.name, "kind": gone.kind})),
        )
    })
    .await
}

/// `?token=` of a tool that cannot send headers.
#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// The token of a request: `?token=` when given (a tool that cannot send headers may still
/// send a credential of its own in them), else `Authorization: Bearer`.
fn token_of(req: &HttpRequest, query: &TokenQuery) -> Option<String> {
    let bearer = || {
        req.headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, rest) = v.trim().split_once(' ')?;
                scheme
                    .eq_ignore_ascii_case("bearer")
                    .then(|| rest.trim().to_owned())
            })
    };
    query.token.clone().or_else(bearer)
}

/// Reads a notification of `kind` and hands its alerts to the integration; answers what it did.
async fn receive(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: (String, IntegrationId),
    query: TokenQuery,
    body: Value,
    kind: IntegrationKind,
) -> AppResult<HttpResponse> {
    let token = token_of(&req, &query);
    let (slug, id) = path;
    let now = Utc::now();
    let outcome = state
        .db
        .run(move |conn| {
            let integration = service::authenticate(conn, &slug, &id, kind, token.as_deref())?;
            let alerts = match kind {
                IntegrationKind::Generic => {
                    let generic: GenericAlert = typed(&body)?;
                    vec![alerts::from_generic(generic, now).map_err(malformed)?]
                }
                IntegrationKind::Alertmanager | IntegrationKind::Grafana => {
                    let wire: WireNotification = lenient(&body)?;
                    alerts::from_wire(kind, wire, &integration.mapping, now).map_err(malformed)?
                }
            };
            services::write::run(conn, |conn| {
                receiving::receive(conn, &integration, &alerts, now)
            })
        })
        .await?;
    crate::http::committed::follow(&state, outcome.after).await;
    Ok(HttpResponse::Ok().json(outcome.value))
}

fn malformed(m: alerts::Malformed) -> AppError {
    AppError::field(&m.field, m.message)
}

/// `POST /pages/{slug}/integrations/{id}/alertmanager` (Prometheus Alertmanager's webhook),
/// `.../grafana` (Grafana Alerting's webhook contact point) and `.../generic`
/// (`{"component", "status", "summary"}`): the kind is the path's last segment.
#[tracing::instrument(skip_all)]
pub async fn alerts(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, IntegrationId)>,
    query: web::Query<TokenQuery>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let kind = req
        .path()
        .rsplit('/')
        .next()
        .and_then(|k| k.parse::<IntegrationKind>().ok())
        .ok_or_else(|| AppError::NotFound(format!("route {}", req.path())))?;
    let (path, query, body) = (path.into_inner(), query.into_inner(), body.into_inner());
    receive(state, req, path, query, body, kind).await
}

/// A proposed incident as the API shows it.
fn draft_view(d: &crate::db::models::integrations::IncidentDraft) -> Value {
    json!({
        "id": d.id,
        "integration_id": d.integration_id,
        "template_id": d.template_id,
        "component_id": d.component_id,
        "alert": d.alert_name,
        "summary": d.summary,
        "created_at": views::time(d.created_at),
    })
}

/// `GET /pages/{slug}/incident-drafts`.
pub async fn list_drafts(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    api.page_read(Permission::Read, slug.into_inner(), move |c, page| {
        Ok(receiving::list_drafts(c, &page.id)?
            .iter()
            .map(draft_view)
            .collect())
    })
    .await
}

/// `POST /pages/{slug}/incident-drafts/{id}/publish`: opens the incident (201).
#[tracing::instrument(skip_all)]
pub async fn publish_draft(api: Api, path: web::Path<(String, String)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    let author = api.auth().user_id.clone();
    api.page_write(Permission::Write, slug, json!({}), move |c, page| {
        let posted = receiving::publish_draft(c, &page.id, &id, Some(&author), Utc::now())?;
        run::answered(
            201,
            views::posted(&posted),
            Record::new("incident.create", "incident", &posted.incident.id)
                .with_changes(json!({"draft_id": id})),
        )
    })
    .await
}

/// `DELETE /pages/{slug}/incident-drafts/{id}`: dismisses the proposal.
#[tracing::instrument(skip_all)]
pub async fn dismiss_draft(api: Api, path: web::Path<(String, String)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Write, slug, Value::Null, move |c, page| {
        let draft = receiving::dismiss_draft(c, &page.id, &id)?;
        run::deleted(
            Record::new("incident_draft.dismiss", "incident_draft", &draft.id)
                .with_changes(json!({"alert": draft.alert_name})),
        )
    })
    .await
}
