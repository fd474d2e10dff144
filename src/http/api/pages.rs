//! `/pages` and `/pages/{slug}`: status pages and their settings (owners write, everyone reads).

use actix_web::{HttpResponse, web};
use serde_json::{Value, json};

use super::body::{Parts, typed};
use super::run::{self, Api, Record, change};
use super::views;
use crate::error::AppResult;
use crate::http::auth::Permission;
use crate::services::idempotency::Answer;
use crate::services::page_admin;
use crate::services::page_webhooks::{self, WebhookPatch};
use crate::services::pages::{self, NewPageInput, UpdatePageInput};

/// `POST /pages`: creates a page (owners).
#[tracing::instrument(skip_all)]
pub async fn create_page(api: Api, body: web::Json<Value>) -> AppResult<HttpResponse> {
    let fields = body.into_inner();
    let input: NewPageInput = typed(&fields)?;
    api.write(Permission::Admin, &fields.clone(), move |c| {
        let page = pages::create_page(c, &input)?;
        let audit = change("page.create", "page", &page.id, &page.id, fields);
        Ok((Answer::new(201, views::page(&page)), audit))
    })
    .await
}

/// `GET /pages`: every page.
pub async fn list_pages(api: Api) -> AppResult<HttpResponse> {
    api.read(Permission::Read, |c| {
        Ok(pages::list_pages(c)?.iter().map(views::page).collect())
    })
    .await
}

/// `GET /pages/{slug}`: the page with its webhook URLs (never their secrets).
pub async fn get_page(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        let mut view = views::page(page);
        if let Some(fields) = view.as_object_mut() {
            fields.extend(page_webhooks::urls(c, &page.id)?);
        }
        Ok(view)
    })
    .await
}

/// `PATCH /pages/{slug}`: changes a page's settings (owners). `support_webhook_url` and
/// `responder_webhook_url` are checked against the outbound policy first (422 on the field);
/// a URL newly set answers its signing secret once, as `support_webhook_secret` or
/// `responder_webhook_secret`.
#[tracing::instrument(skip_all)]
pub async fn update_page(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let mut parts = Parts::of(&fields)?;
    let input: UpdatePageInput = parts.part()?;
    let hooks: WebhookPatch = parts.part()?;
    parts.finish()?;
    api.auth().require(Permission::Admin)?;
    let hooks = page_webhooks::check(&hooks, &api.state().notify.policy).await?;
    // The audit log keeps that a password was set or removed, never the password.
    let mut recorded = fields;
    if let Some(password) = recorded.get_mut("password") {
        *password = match password.is_null() {
            true => Value::Null,
            false => json!("[set]"),
        };
    }
    api.page_write(Permission::Admin, slug, recorded, move |c, page| {
        let page = pages::update_page(c, &page.id, &input)?;
        let secrets = page_webhooks::apply(c, &page.id, &hooks)?;
        let mut view = views::page(&page);
        if let Some(answer) = view.as_object_mut() {
            answer.extend(page_webhooks::urls(c, &page.id)?);
            for (purpose, secret) in secrets {
                answer.insert(purpose.secret_field().to_owned(), json!(secret));
            }
        }
        run::answered(200, view, Record::new("page.update", "page", &page.id))
    })
    .await
}

/// `DELETE /pages/{slug}`: deletes a page with everything on it (owners).
#[tracing::instrument(skip_all)]
pub async fn delete_page(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    api.page_write(Permission::Admin, slug, Value::Null, move |c, page| {
        page_admin::delete_page(c, &page.id)?;
        let fields = json!({"slug": page.slug, "name": page.name});
        run::deleted(Record::new("page.delete", "page", &page.id).with_changes(fields))
    })
    .await
}
