//! Moving from Statuspage through the API (owners), as `herald import` does on the command
//! line: `POST /imports/statuspage` reads the source page under the outbound rules, then
//! writes it to the Herald page (made when missing) in one transaction; `POST
//! /imports/subscribers` takes a subscriber file's text and subscribes its rows to a page, a
//! thousand rows per transaction.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::Parts;
use super::run::Api;
use crate::domain::Slug;
use crate::domain::imports::statuspage;
use crate::error::{AppError, AppResult};
use crate::http::auth::Permission;
use crate::services;
use crate::services::audit::{self, Actor, Change};
use crate::services::idempotency::Answer;
use crate::services::imports::{self, Report, subscribers::SubscriberImport};

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
    let source =
        crate::services::imports::fetch::read_statuspage(&api.state().fetcher, &base, &mut quiet)
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

/// `POST /imports/subscribers`: 200 with the subscribers created, skipped and refused. The
/// rows are written a thousand per transaction (each with its audit row), so a large file
/// never holds the database from other writers; when a transaction cannot be written (the
/// database busy or gone), the answer is its error, saying how many rows were written before
/// it (a second run skips them).
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
    let rows = crate::domain::imports::subscriber_csv::read(input.csv.as_bytes())
        .map_err(|e| AppError::field("csv", e))?;
    let rows =
        crate::services::imports::fetch::check_webhooks(rows, &api.state().notify.policy).await;
    let actor = Actor {
        user_id: api.auth().user_id.clone(),
        email: api.auth().email.clone(),
    };
    let slug = String::from(slug);
    let mut import = Some(SubscriberImport::new(&slug, rows, input.confirmed));
    let mut report = Report {
        page: slug,
        ..Report::default()
    };
    let total = import.as_ref().map_or(0, SubscriberImport::total);
    while let Some(mut going) = import.take() {
        let actor = actor.clone();
        let done = going.done();
        let written = api
            .state()
            .db
            .run(move |c| {
                let part = services::write::run(c, |c| {
                    going.next_part(
                        c,
                        &mut crate::delivery::signature::new_secret,
                        &mut |c, part| audit::record(c, &actor, &part_change(part)),
                    )
                })?;
                Ok((going, part))
            })
            .await;
        let (going, part) = written.map_err(|e| stopped_at(e, done, total, &report))?;
        report.merge(part.value);
        crate::http::committed::follow(api.state(), part.after).await;
        if !going.finished() {
            api.state().db.let_others_write().await;
            import = Some(going);
        }
    }
    Ok(HttpResponse::Ok().json(report))
}

/// The audit row of one transaction of a subscriber import.
fn part_change(part: &imports::subscribers::Part<'_>) -> Change {
    let report = part.report;
    Change {
        action: "import.subscribers",
        entity_type: "page",
        entity_id: Some(part.page_id.to_string()),
        page_id: Some(part.page_id.clone()),
        changes: json!({
            "rows": format!("{}-{} of {}", part.first, part.last, part.total),
            "confirmed": part.confirmed,
            "created": report.created,
            "skipped": report.skipped,
            "refused": report.refused.len(),
        }),
    }
}

/// The error that stopped an import after `done` of `total` rows were written: as it is when
/// nothing was, otherwise saying what was.
fn stopped_at(error: AppError, done: usize, total: usize, report: &Report) -> AppError {
    if done == 0 {
        return error;
    }
    let so_far = report.lines()[1..3].join("; ");
    let what = format!(
        "{done} of {total} rows were imported before this ({so_far}); send the same file \
         again to import the rest: the rows imported already are skipped"
    );
    match error {
        AppError::Unavailable {
            reason,
            retry_after_secs,
        } => AppError::Unavailable {
            reason: format!("{reason}. {what}"),
            retry_after_secs,
        },
        AppError::Validation(mut fields) => {
            fields.entry("csv".to_owned()).or_default().push(what);
            AppError::Validation(fields)
        }
        AppError::BadRequest(message) => AppError::BadRequest(format!("{message}. {what}")),
        AppError::Conflict(message) => AppError::Conflict(format!("{message}. {what}")),
        AppError::Internal(e) => AppError::Internal(e.context(what)),
        other => other,
    }
}
