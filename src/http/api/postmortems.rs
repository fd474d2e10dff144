//! `/pages/{slug}/incidents/{id}/postmortem`: writing, reading and publishing a postmortem.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde_json::Value;

use super::body::typed;
use super::run::{self, Api, Record};
use super::views;
use crate::error::AppResult;
use crate::http::auth::Permission;
use crate::services::postmortems::{self as service, PostmortemInput};

/// `GET .../postmortem`.
pub async fn get_postmortem(
    api: Api,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        let incident = crate::services::incidents::get_page_incident(c, &page.id, &id)?;
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
    api: Api,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let input: PostmortemInput = typed(&fields)?;
    api.page_write(Permission::Write, slug, fields, move |c, page| {
        let incident = crate::services::incidents::get_page_incident(c, &page.id, &id)?;
        let detail = service::save_postmortem(c, &incident.id, &input)?;
        let record = Record::new("postmortem.save", "incident", &incident.id);
        run::answered(200, views::postmortem(&detail), record)
    })
    .await
}

/// `POST .../postmortem/publish`.
#[tracing::instrument(skip_all)]
pub async fn publish_postmortem(
    api: Api,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Write, slug, Value::Null, move |c, page| {
        let incident = crate::services::incidents::get_page_incident(c, &page.id, &id)?;
        let detail = service::publish_postmortem(c, &incident.id, Utc::now())?;
        let record = Record::new("postmortem.publish", "incident", &incident.id);
        run::answered(200, views::postmortem(&detail), record)
    })
    .await
}
