//! What Statuspage's API has and Herald does not yet: metrics and their providers, page access
//! users and groups, organization users and permissions. Each answers 501 in the document's
//! error shape, saying so; never a success. The caller is checked first (401), and the page
//! (404), as for any other operation.

use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

use super::error::V1Result;
use super::request::{self, V1};
use crate::http::auth::Permission;

/// `/pages/{page_id}/page_access_users…`, `/page_access_groups…` and the component routes
/// that give them access.
pub async fn page_access(v1: V1, req: HttpRequest) -> V1Result<HttpResponse> {
    refuse(
        v1,
        req,
        "Herald does not have page access users or groups; a restricted page is read with a \
         read token, a password or an allowed e-mail domain (see the README)",
    )
    .await
}

/// `/pages/{page_id}/metrics…` and `/metrics_providers…`.
pub async fn metrics(v1: V1, req: HttpRequest) -> V1Result<HttpResponse> {
    refuse(
        v1,
        req,
        "Herald does not have system metrics or metric providers yet",
    )
    .await
}

/// `/organizations/{organization_id}/…`.
pub async fn organization(v1: V1, req: HttpRequest) -> V1Result<HttpResponse> {
    refuse(
        v1,
        req,
        "Herald does not have organizations; its users and roles are managed in its console and \
         with `herald user`",
    )
    .await
}

async fn refuse(v1: V1, req: HttpRequest, message: &'static str) -> V1Result<HttpResponse> {
    if let Some(page_id) = req.match_info().get("page_id") {
        let page_id = page_id.to_owned();
        v1.read(Permission::Read, move |c| {
            request::page(c, &page_id)?;
            Ok(serde_json::Value::Null)
        })
        .await?;
    } else {
        v1.auth().require(Permission::Read)?;
    }
    Ok(HttpResponse::NotImplemented().json(json!({ "message": message })))
}
