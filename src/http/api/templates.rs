//! `/pages/{slug}/templates`: incident templates (name, title, impact, body, components).

use actix_web::{HttpResponse, web};
use serde_json::Value;

use super::body::typed;
use super::run::{self, Api, Record};
use super::views;
use crate::error::AppResult;
use crate::http::auth::Permission;
use crate::services::templates::{self as service, TemplateInput};

/// `POST /pages/{slug}/templates`.
#[tracing::instrument(skip_all)]
pub async fn create_template(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let input: TemplateInput = typed(&fields)?;
    api.page_write(Permission::Write, slug, fields, move |c, page| {
        let template = service::create_template(c, &page.id, &input)?;
        run::answered(
            201,
            views::template(&template),
            Record::new("template.create", "template", &template.id),
        )
    })
    .await
}

/// `GET /pages/{slug}/templates`.
pub async fn list_templates(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        Ok(service::list_templates(c, &page.id)?
            .iter()
            .map(views::template)
            .collect())
    })
    .await
}

/// `GET /pages/{slug}/templates/{id}`.
pub async fn get_template(api: Api, path: web::Path<(String, String)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        Ok(views::template(&service::get_template(c, &page.id, &id)?))
    })
    .await
}

/// `PATCH /pages/{slug}/templates/{id}`: replaces the template's fields.
#[tracing::instrument(skip_all)]
pub async fn update_template(
    api: Api,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    // The role first: a viewer is refused whatever the body holds.
    api.auth().require(Permission::Write)?;
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let input: TemplateInput = typed(&fields)?;
    api.page_write(Permission::Write, slug, fields, move |c, page| {
        let template = service::update_template(c, &page.id, &id, &input)?;
        run::answered(
            200,
            views::template(&template),
            Record::new("template.update", "template", &id),
        )
    })
    .await
}

/// `DELETE /pages/{slug}/templates/{id}`.
#[tracing::instrument(skip_all)]
pub async fn delete_template(
    api: Api,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Write, slug, Value::Null, move |c, page| {
        service::delete_template(c, &page.id, &id)?;
        run::deleted(Record::new("template.delete", "template", &id))
    })
    .await
}
