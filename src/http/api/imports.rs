//! Moving from Statuspage through the API (owners), as `herald import` does on the command
//! line: `POST /imports/statuspage` reads the source page under the outbound rules, then
//! writes it to the Herald page (made when missing) in one transaction; `POST
//! /imports/subscribers` takes a subscriber file's text and subscribes its rows to a page.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::Parts;
use super::run::Api;
use crate::auth::Permission;
use crate::domain::{Slug, statuspage};
use crate::error::{AppError, AppResult};
use crate::services::audit::Change;
use crate::services::idempotency::Answer;
use crate::services::imports;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatuspageImport {
    /// The source page: its address or its `/api/v2/` base.
    from: String,
    /// The Herald page to import into (made when missing).
    page: String,
}

/// `POST /imports/statuspage`: 200 with what was created, skipped and refused.
#[tracing::instrument(skip_all)]
pub async fn import_statuspage(api: Api, body: web::Json<Value>) -> AppResult<HttpResponse> {
    let fields = body.into_inner();
    let mut parts = Parts::of(&fields)?;
    let input: StatuspageImport = parts.part()?;
    parts.finish()?;
    // Only an owner makes Herald read another site.
    api.auth().require(Permission::Admin)?;
    let slug = Slug::parse(&input.page).map_err(|e| AppError::field("page", e.to_string()))?;
    let base = statuspage::api_base(&input.from).map_err(|e| AppError::field("from", e))?;
    let mut quiet = |_: &str| {};
    let source = crate::importer::read_statuspage(&api.state().fetcher, &base, &mut quiet)
        .await
        .map_err(|e| AppError::field("from", e))?;
    let slug = String::from(slug);
    api.write(Permission::Admin, &fields, move |c| {
        let report = imports::import_statuspage(c, &slug, &source, &mut |_| {})?;
        let page = crate::services::pages::get_page_by_slug(c, &slug)?;
        let change = Change {
            action: "import.statuspage",
            entity_type: "page",
            entity_id: Some(page.id.to_string()),
            page_id: Some(page.id.clone()),
            changes: json!({"from": base.as_str(), "created": report.created, "refused": report.refused.len()}),
        };
        Ok((Answer::new(200, json!(report)), change))
    })
    .await
}

/// The largest body `POST /imports/subscribers` reads (about 100,000 subscribers).
pub const SUBSCRIBERS_BODY_LIMIT: usize = 8 * 1024 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SubscribersImport {
    /// The Herald page (it must exist).
    page: String,
    /// The subscriber file's text (CSV).
    csv: String,
    /// The addresses were confirmed where they come from: no mail to confirm.
    #[serde(default)]
    confirmed: bool,
}

/// `POST /imports/subscribers`: 200 with the subscribers created, skipped and refused.
#[tracing::instrument(skip_all)]
pub async fn import_subscribers(
    api: Api,
    req: HttpRequest,
    payload: web::Payload,
) -> AppResult<HttpResponse> {
    // Only an owner adds subscribers wholesale; refused before the body is read.
    api.auth().require(Permission::Admin)?;
    let fields = super::body::json_within(&req, payload, SUBSCRIBERS_BODY_LIMIT).await?;
    let mut parts = Parts::of(&fields)?;
    let input: SubscribersImport = parts.part()?;
    parts.finish()?;
    let slug = Slug::parse(&input.page).map_err(|e| AppError::field("page", e.to_string()))?;
    let rows = crate::domain::subscriber_csv::read(input.csv.as_bytes())
        .map_err(|e| AppError::field("csv", e))?;
    let rows = crate::importer::check_webhooks(rows, &api.state().notify.policy).await;
    let slug = String::from(slug);
    let confirmed = input.confirmed;
    let answer = api
        .write(Permission::Admin, &fields, move |c| {
            let report = imports::import_subscribers(
                c,
                &slug,
                &rows,
                confirmed,
                &mut crate::delivery::signature::new_secret,
                &mut |_| {},
            )?;
            let page = crate::services::pages::get_page_by_slug(c, &slug)?;
            let change = Change {
                action: "import.subscribers",
                entity_type: "page",
                entity_id: Some(page.id.to_string()),
                page_id: Some(page.id.clone()),
                changes: json!({
                    "confirmed": confirmed,
                    "created": report.created,
                    "skipped": report.skipped,
                    "refused": report.refused.len(),
                }),
            };
            Ok((Answer::new(200, json!(report)), change))
        })
        .await?;
    crate::http::committed::notifications_queued(api.state());
    Ok(answer)
}
