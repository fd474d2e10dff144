//! `GET /audit`: the audit log, for owners.

use actix_web::HttpResponse;

use super::run::Api;
use super::views;
use crate::error::AppResult;
use crate::http::auth::Permission;
use crate::services::audit::{self as service, AuditFilter};

/// `GET /audit?page=&actor=&limit=&offset=`: newest first.
pub async fn list_audit(
    api: Api,
    query: super::query::Query<AuditFilter>,
) -> AppResult<HttpResponse> {
    let filter = query.into_inner();
    api.read(Permission::Admin, move |c| {
        Ok(service::list_audit(c, &filter)?
            .iter()
            .map(views::audit_entry)
            .collect())
    })
    .await
}
