//! `POST /imports/statuspage`: moving from Statuspage through the API (owners), as
//! `herald import statuspage` does on the command line: the source page is read under the
//! outbound rules, then written to the Herald page (made when missing) in one transaction.

use actix_web::{HttpResponse, web};
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
