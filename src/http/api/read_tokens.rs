//! A restricted page's read tokens, for machine clients (owners): `GET/POST
//! /pages/{slug}/read-tokens`, `DELETE /pages/{slug}/read-tokens/{id}`. A new token is answered
//! once; Herald keeps only its SHA-256.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::typed;
use super::run::{self, Api, Record};
use crate::error::AppResult;
use crate::http::auth::Permission;
use crate::services::access as service;

/// The body of a new read token.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewReadToken {
    name: String,
}

/// `POST /pages/{slug}/read-tokens`: a new token (shown this once).
#[tracing::instrument(skip_all)]
pub async fn create(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let NewReadToken { name } = typed(&fields)?;
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let (view, token) = service::create_token(c, &page.id, &name)?;
        let id = view.id.clone();
        let mut body = json!(view);
        if let Some(body) = body.as_object_mut() {
            body.insert("token".into(), json!(token));
        }
        run::answered(
            201,
            body,
            Record::new("read_token.create", "read_token", &id),
        )
    })
    .await
}

/// `GET /pages/{slug}/read-tokens`: the page's tokens, without the tokens themselves.
pub async fn list(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    api.page_read(Permission::Admin, slug.into_inner(), move |c, page| {
        Ok(json!(service::list_tokens(c, &page.id)?))
    })
    .await
}

/// `DELETE /pages/{slug}/read-tokens/{id}`: the token stops working at once.
#[tracing::instrument(skip_all)]
pub async fn delete(api: Api, path: web::Path<(String, String)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Admin, slug, Value::Null, move |c, page| {
        service::revoke_token(c, &page.id, &id)?;
        run::deleted(Record::new("read_token.delete", "read_token", &id))
    })
    .await
}
