//! `/pages` and `/pages/{slug}`: status pages and their settings (owners write, everyone reads).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::body::{Parts, typed};
use super::run::{self, Record, change, read, write};
use super::views;
use crate::auth::{Authenticated, Permission};
use crate::error::AppResult;
use crate::services::idempotency::Answer;
use crate::services::page_admin;
use crate::services::page_webhooks::{self, WebhookPatch};
use crate::services::pages::{self, NewPageInput, UpdatePageInput};
use crate::state::AppState;

/// `POST /pages`: creates a page (owners).
#[tracing::instrument(skip_all)]
pub async fn create_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let fields = body.into_inner();
    let input: NewPageInput = typed(&fields)?;
    write(
        &state,
        &req,
        &auth,
        Permission::Admin,
        &fields.clone(),
        move |c| {
            let page = pages::create_page(c, &input)?;
            let audit = change("page.create", "page", &page.id, &page.id, fields);
            Ok((Answer::new(201, views::page(&page)), audit))
        },
    )
    .await
}

/// `GET /pages`: every page.
pub async fn list_pages(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> AppResult<HttpResponse> {
    read(&state, &auth, Permission::Read, |c| {
        Ok(pages::list_pages(c)?.iter().map(views::page).collect())
    })
    .await
}

/// `GET /pages/{slug}`: the page with its webhook URLs (never their secrets).
pub async fn get_page(
    state: web::Data<AppState>,
    auth: Authenticated,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    read(&state, &auth, Permission::Read, move |c| {
        let page = run::page(c, &slug)?;
        let mut view = views::page(&page);
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
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let mut parts = Parts::of(&fields)?;
    let input: UpdatePageInput = parts.part()?;
    let hooks: WebhookPatch = parts.part()?;
    parts.finish()?;
    auth.require(Permission::Admin)?;
    let hooks = page_webhooks::check(&hooks, &state.notify.policy).await?;
    run::page_write(
        &state,
        &req,
        &auth,
        Permission::Admin,
        slug,
        fields,
        move |c, page| {
            let page = pages::update_page(c, &page.id, &input)?;
            let secrets = page_webhooks::apply(c, &page.id, &hooks)?;
            let mut view = views::page(&page);
            if let Some(answer) = view.as_object_mut() {
                answer.extend(page_webhooks::urls(c, &page.id)?);
                for (purpose, secret) in secrets {
                    answer.insert(purpose.secret_field().to_owned(), json!(secret));
                }
            }
            Ok((
                Answer::new(200, view),
                Record::new("page.update", "page", &page.id),
            ))
        },
    )
    .await
}

/// `DELETE /pages/{slug}`: deletes a page with everything on it (owners).
#[tracing::instrument(skip_all)]
pub async fn delete_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    write(
        &state,
        &req,
        &auth,
        Permission::Admin,
        &Value::Null,
        move |c| {
            let page = run::page(c, &slug)?;
            page_admin::delete_page(c, &page.id)?;
            let fields = json!({"slug": page.slug, "name": page.name});
            let audit = change("page.delete", "page", &page.id, &page.id, fields);
            Ok((
                Answer::new(200, json!({"id": page.id, "deleted": true})),
                audit,
            ))
        },
    )
    .await
}
