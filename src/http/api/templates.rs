//! `/pages/{slug}/templates`: incident templates (name, title, impact, body, components).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::body::typed;
use super::run::{self, Record, read};
use super::views;
use crate::auth::{Authenticated, Permission};
use crate::error::AppResult;
use crate::services::idempotency::Answer;
use crate::services::templates::{self as service, TemplateInput};
use crate::state::AppState;

/// `POST /pages/{slug}/templates`.
#[tracing::instrument(skip_all)]
pub async fn create_template(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let input: TemplateInput = typed(&fields)?;
    run::page_write(
        &state,
        &req,
        &auth,
        Permission::Write,
        slug,
        fields,
        move |c, page| {
            let template = service::create_template(c, &page.id, &input)?;
            Ok((
                Answer::new(201, views::template(&template)),
                Record::new("template.create", "template", &template.id),
            ))
        },
    )
    .await
}

/// `GET /pages/{slug}/templates`.
pub async fn list_templates(
    state: web::Data<AppState>,
    auth: Authenticated,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    read(&state, &auth, Permission::Read, move |c| {
        let page = run::page(c, &slug)?;
        Ok(service::list_templates(c, &page.id)?
            .iter()
            .map(views::template)
            .collect())
    })
    .await
}

/// `GET /pages/{slug}/templates/{id}`.
pub async fn get_template(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    read(&state, &auth, Permission::Read, move |c| {
        let page = run::page(c, &slug)?;
        Ok(views::template(&service::get_template(c, &page.id, &id)?))
    })
    .await
}

/// `PATCH /pages/{slug}/templates/{id}`: replaces the template's fields.
#[tracing::instrument(skip_all)]
pub async fn update_template(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let input: TemplateInput = typed(&fields)?;
    run::page_write(
        &state,
        &req,
        &auth,
        Permission::Write,
        slug,
        fields,
        move |c, page| {
            let template = service::update_template(c, &page.id, &id, &input)?;
            Ok((
                Answer::new(200, views::template(&template)),
                Record::new("template.update", "template", &id),
            ))
        },
    )
    .await
}

/// `DELETE /pages/{slug}/templates/{id}`.
#[tracing::instrument(skip_all)]
pub async fn delete_template(
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    run::page_write(
        &state,
        &req,
        &auth,
        Permission::Write,
        slug,
        Value::Null,
        move |c, page| {
            service::delete_template(c, &page.id, &id)?;
            Ok((
                Answer::new(200, json!({"id": id, "deleted": true})),
                Record::new("template.delete", "template", &id).with_changes(json!({})),
            ))
        },
    )
    .await
}
