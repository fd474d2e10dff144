//! `/pages/{slug}/incidents/{id}/postmortem`: writing, reading and publishing a postmortem.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde_json::Value;

use super::body::typed;
use super::run::{self, change, read, write};
use super::views;
use crate::auth::{Authenticated, Permission};
use crate::error::AppResult;
use crate::services::idempotency::Answer;
use crate::services::postmortems::{self as service, PostmortemInput};
use crate::state::AppState;

/// `GET .../postmortem`.
pub async fn get_postmortem(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    read(&state, &auth, Permission::Read, move |c| {
        let page = run::page(c, &slug)?;
        let incident = run::incident(c, &page.id, &id)?;
        Ok(views::postmortem(&service::get_postmortem(
            c,
            &incident.id,
        )?))
    })
    .await
}

/// `PUT .../postmortem`: writes (or rewrites) the draft of a resolved incident.
#[tracing::instrument(skip_all)]
pub async fn save_postmortem(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let input: PostmortemInput = typed(&fields)?;
    write(
        &state,
        &req,
        &auth,
        Permission::Write,
        &fields.clone(),
        move |c| {
            let page = run::page(c, &slug)?;
            let incident = run::incident(c, &page.id, &id)?;
            let detail = service::save_postmortem(c, &incident.id, &input)?;
            let audit = change(
                "postmortem.save",
                "incident",
                &incident.id,
                &page.id,
                fields,
            );
            Ok((Answer::new(200, views::postmortem(&detail)), audit))
        },
    )
    .await
}

/// `POST .../postmortem/publish`.
#[tracing::instrument(skip_all)]
pub async fn publish_postmortem(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    write(
        &state,
        &req,
        &auth,
        Permission::Write,
        &Value::Null,
        move |c| {
            let page = run::page(c, &slug)?;
            let incident = run::incident(c, &page.id, &id)?;
            let detail = service::publish_postmortem(c, &incident.id, Utc::now())?;
            let audit = change(
                "postmortem.publish",
                "incident",
                &incident.id,
                &page.id,
                Value::Null,
            );
            Ok((Answer::new(200, views::postmortem(&detail)), audit))
        },
    )
    .await
}
