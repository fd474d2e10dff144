//! `/pages/{page_id}/incidents/{incident_id}/postmortem`: get, put (the draft's text), publish
//! (telling subscribers or not), revert to a draft, delete. atlassian-python-api sends POST
//! where the document says PUT; both are taken.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::{V1Result, within};
use super::flex::Flag;
use super::request::{self, Body, V1};
use super::views;
use crate::error::AppError;
use crate::http::api::run::{self, Record};
use crate::http::auth::Permission;
use crate::services::idempotency::Answer;
use crate::services::incidents as incidents_service;
use crate::services::postmortems as service;

/// `GET .../postmortem`.
pub async fn get(v1: V1, path: web::Path<(String, String)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.in_page(Permission::Read, page_id, move |c, page| {
        let incident = incidents_service::get_page_incident(c, &page.id, &id)?;
        Ok(views::postmortem(&service::get_postmortem(
            c,
            &incident.id,
        )?))
    })
    .await
}

#[derive(Debug, Deserialize)]
struct Draft {
    body_draft: Option<String>,
}

/// `PUT .../postmortem` with `{"postmortem": {"body_draft": ...}}`.
#[tracing::instrument(skip_all)]
pub async fn put(v1: V1, path: web::Path<(String, String)>, body: Body) -> V1Result<HttpResponse> {
    let draft: Draft = body.inside("postmortem", &[])?;
    let text = draft
        .body_draft
        .ok_or_else(|| AppError::field("postmortem[body_draft]", "is required"))?;
    let (page_id, id) = path.into_inner();
    let given = body.0.clone();
    v1.write_in_page(Permission::Write, page_id, given, move |c, page| {
        let incident = incidents_service::get_page_incident(c, &page.id, &id)?;
        let detail = service::save_postmortem_text(c, &incident.id, &text)
            .map_err(|e| within("postmortem", e))?;
        Ok((
            Answer::new(200, views::postmortem(&detail)),
            Record::new("postmortem.save", "incident", incident.id.as_str()),
        ))
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
struct Publish {
    notify_subscribers: Option<Flag>,
    notify_twitter: Option<Flag>,
    custom_tweet: Option<String>,
}

/// `PUT .../postmortem/publish` with `{"postmortem": {"notify_subscribers": ...}}`: the
/// subscribers are told unless `notify_subscribers` is false.
#[tracing::instrument(skip_all)]
pub async fn publish(
    v1: V1,
    path: web::Path<(String, String)>,
    body: Body,
) -> V1Result<HttpResponse> {
    let publish: Publish = body.inside("postmortem", &[])?;
    if publish.notify_twitter.is_some_and(|f| f.0)
        || publish
            .custom_tweet
            .as_deref()
            .is_some_and(|t| !t.is_empty())
    {
        return Err(AppError::field(
            "postmortem[notify_twitter]",
            "Herald does not post to Twitter; set false or leave it out",
        )
        .into());
    }
    let notify = publish.notify_subscribers.is_none_or(|f| f.0);
    let (page_id, id) = path.into_inner();
    let given = body.0.clone();
    v1.write_in_page(Permission::Write, page_id, given, move |c, page| {
        let incident = incidents_service::get_page_incident(c, &page.id, &id)?;
        let detail = service::publish_postmortem_telling(c, &incident.id, Utc::now(), notify)
            .map_err(|e| match e {
                // The report is Statuspage's body_draft.
                AppError::Validation(_) => AppError::field(
                    "postmortem[body_draft]",
                    "write the postmortem before publishing it",
                ),
                other => other,
            })?;
        Ok((
            Answer::new(200, views::postmortem(&detail)),
            Record::new("postmortem.publish", "incident", incident.id.as_str()),
        ))
    })
    .await
}

/// `PUT .../postmortem/revert`: back to a draft, off the public page.
#[tracing::instrument(skip_all)]
pub async fn revert(v1: V1, path: web::Path<(String, String)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    Ok(v1
        .write(Permission::Write, &Value::Null, move |c| {
            let page = request::page(c, &page_id)?;
            let incident = incidents_service::get_page_incident(c, &page.id, &id)?;
            let detail = service::unpublish_postmortem(c, &incident.id, Utc::now())?;
            let answer = Answer::new(200, views::postmortem(&detail));
            let audit = run::change(
                "postmortem.revert",
                "incident",
                incident.id.as_str(),
                &page.id,
                json!({}),
            );
            Ok((answer, audit))
        })
        .await?)
}

/// `DELETE .../postmortem`: 204.
#[tracing::instrument(skip_all)]
pub async fn delete(v1: V1, path: web::Path<(String, String)>) -> V1Result<HttpResponse> {
    let (page_id, id) = path.into_inner();
    v1.write(Permission::Write, &Value::Null, move |c| {
        let page = request::page(c, &page_id)?;
        let incident = incidents_service::get_page_incident(c, &page.id, &id)?;
        service::delete_postmortem(c, &incident.id, Utc::now())?;
        let audit = run::change(
            "postmortem.delete",
            "incident",
            incident.id.as_str(),
            &page.id,
            json!({}),
        );
        Ok((Answer::new(200, Value::Null), audit))
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
