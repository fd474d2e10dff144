//! `GET /audit`: the audit log, for owners.

use actix_web::{HttpResponse, web};

use super::run::read;
use super::views;
use crate::auth::{Authenticated, Permission};
use crate::error::AppResult;
use crate::services::audit::{self as service, AuditFilter};
use crate::state::AppState;

/// `GET /audit?page=&actor=&limit=&offset=`: newest first.
pub async fn list_audit(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: super::query::Query<AuditFilter>,
) -> AppResult<HttpResponse> {
    let filter = query.into_inner();
    read(&state, &auth, Permission::Admin, move |c| {
        Ok(service::list_audit(c, &filter)?
            .iter()
            .map(views::audit_entry)
            .collect())
    })
    .await
}
