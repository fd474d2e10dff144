//! What a `/v1` handler starts from: the caller, named by a Herald API token given as
//! Statuspage's clients give their key (`Authorization: OAuth <key>`, `Bearer <key>`, or
//! `?api_key=<key>`), and the request's body, JSON or form-encoded, as one JSON value.

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use bytes::Bytes;
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{V1Error, within};
use crate::db::DbConn;
use crate::db::models::pages::StatusPage;
use crate::domain::PageId;
use crate::error::{AppError, AppResult};
use crate::http::api::body::typed;
use crate::http::api::run::{Api, Record};
use crate::http::auth::Permission;
use crate::http::auth::extract;
use crate::services::idempotency::Answer;
use crate::services::pages;
use crate::state::AppState;
use actix_web::HttpResponse;

/// The largest body `/v1` reads, in bytes (the same as `/api/v1`).
const BODY_LIMIT: usize = crate::http::api::BODY_LIMIT;

/// The caller of a `/v1` request, as [`Api`] (the same permission checks, writes and audit).
pub struct V1(pub Api);

impl std::ops::Deref for V1 {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.0
    }
}

impl FromRequest for V1 {
    type Error = V1Error;
    type Future = LocalBoxFuture<'static, Result<Self, V1Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = req
                .app_data::<web::Data<AppState>>()
                .cloned()
                .ok_or_else(|| AppError::Internal(anyhow::anyhow!("AppState is not registered")))?;
            let key = key(&req).ok_or(AppError::Unauthorized)?;
            let auth = extract::bearer(&state, &key).await?;
            req.extensions_mut().insert(auth);
            Ok(Self(Api::from_request(&req, &mut Payload::None).await?))
        })
    }
}

impl V1 {
    /// A read needing `permission` within the page `page_id` names (by id or slug); its JSON
    /// answered with 200.
    pub async fn in_page<F>(
        &self,
        permission: Permission,
        page_id: String,
        read: F,
    ) -> Result<HttpResponse, V1Error>
    where
        F: FnOnce(&mut DbConn, &StatusPage) -> AppResult<Value> + Send + 'static,
    {
        Ok(self
            .0
            .read(permission, move |c| {
                let page = page(c, &page_id)?;
                read(c, &page)
            })
            .await?)
    }

    /// A write needing `permission` within the page `page_id` names: `write` answers and names
    /// the record it wrote; the audit row carries its changes, by default `given` (the body as
    /// sent). One transaction, as every write of `/api/v1`.
    pub async fn write_in_page<F>(
        &self,
        permission: Permission,
        page_id: String,
        given: Value,
        write: F,
    ) -> Result<HttpResponse, V1Error>
    where
        F: FnOnce(&mut DbConn, &StatusPage) -> AppResult<(Answer, Record)> + Send + 'static,
    {
        let body = given.clone();
        Ok(self
            .0
            .write(permission, &body, move |c| {
                let page = page(c, &page_id)?;
                let (answer, record) = write(c, &page)?;
                Ok((answer, record.change_on(&page.id, given)))
            })
            .await?)
    }
}

/// The key of a request: `Authorization: OAuth <key>` or `Bearer <key>` (either scheme in any
/// case), else the `api_key` query parameter. A header of another scheme is no key.
fn key(req: &HttpRequest) -> Option<String> {
    if let Some(value) = req.headers().get(header::AUTHORIZATION) {
        let value = value.to_str().ok()?.trim();
        let (scheme, key) = value.split_once(' ')?;
        let known = scheme.eq_ignore_ascii_case("oauth") || scheme.eq_ignore_ascii_case("bearer");
        return (known && !key.trim().is_empty()).then(|| key.trim().to_owned());
    }
    form_urlencoded::parse(req.query_string().as_bytes())
        .find(|(name, _)| name == "api_key")
        .map(|(_, key)| key.trim().to_owned())
        .filter(|key| !key.is_empty())
}

/// The page a path names, by its Herald id or its slug (404 when neither).
pub fn page(conn: &mut DbConn, id_or_slug: &str) -> AppResult<StatusPage> {
    // A slug has no room for a UUID's shape (it is at most 64 of `[a-z0-9-]`, but never
    // 8-4-4-4-12 hex: Herald's ids are), so one lookup is enough.
    if uuid::Uuid::try_parse(id_or_slug).is_err() {
        return pages::get_page_by_slug(conn, id_or_slug);
    }
    match pages::get_page(conn, &PageId::from(id_or_slug.to_owned())) {
        Err(AppError::NotFound(_)) => pages::get_page_by_slug(conn, id_or_slug),
        found => found,
    }
}

/// The query string as `T`: a value that cannot be read is a 422 naming its parameter.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = V1Error;
    type Future = std::future::Ready<Result<Self, V1Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let parsed = crate::http::api::query::parse(req.query_string());
        std::future::ready(parsed.map(Query).map_err(V1Error::from))
    }
}

/// A request body as one JSON value: a JSON document, or a form (`incident[name]=...`,
/// `incident[component_ids][]=...`, read as Rack reads it) whose values are all text. No body
/// is `{}`.
pub struct Body(pub Value);

impl FromRequest for Body {
    type Error = V1Error;
    type Future = LocalBoxFuture<'static, Result<Self, V1Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let payload = web::Payload::from_request(&req, payload).into_inner();
        Box::pin(async move {
            let payload = payload.map_err(|e| AppError::BadRequest(e.to_string()))?;
            let bytes = match payload.to_bytes_limited(BODY_LIMIT).await {
                Ok(Ok(bytes)) => bytes,
                Err(_) => {
                    let message = format!("the request body is larger than {BODY_LIMIT} bytes");
                    return Err(AppError::BadRequest(message).into());
                }
                Ok(Err(e)) => {
                    let message = format!("the request body could not be read: {e}");
                    return Err(AppError::BadRequest(message).into());
                }
            };
            Ok(Self(read(&req, &bytes)?))
        })
    }
}

/// The body's value by its content type.
fn read(req: &HttpRequest, bytes: &Bytes) -> AppResult<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    let mime = req.mime_type().ok().flatten();
    let is = |sub: &str| mime.as_ref().is_some_and(|m| m.subtype() == sub);
    if is("x-www-form-urlencoded") {
        return form(bytes);
    }
    if mime.is_none() || is("json") {
        return serde_json::from_slice(bytes)
            .map_err(|e| AppError::BadRequest(format!("the request body is not valid JSON: {e}")));
    }
    Err(AppError::BadRequest(
        "the request body must be JSON (application/json) or a form \
         (application/x-www-form-urlencoded)"
            .to_owned(),
    ))
}

/// A form body as nested objects and arrays of text.
pub fn form(bytes: &[u8]) -> AppResult<Value> {
    let config = serde_qs::Config::new().max_depth(5).use_form_encoding(true);
    config
        .deserialize_bytes::<Value>(bytes)
        .map_err(|e| AppError::BadRequest(format!("the form body cannot be read: {e}")))
}

impl Body {
    /// The object under `root` (`{"incident": {...}}`) as `T`; the body may hold nothing else
    /// at its top level than `root` and `siblings`. Errors name the field inside `root`.
    pub fn inside<T: DeserializeOwned>(&self, root: &str, siblings: &[&str]) -> AppResult<T> {
        self.top_level(std::iter::once(root).chain(siblings.iter().copied()))?;
        let inner = match self.0.get(root) {
            Some(Value::Object(_)) => self.0[root].clone(),
            None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
            Some(_) => return Err(AppError::field(root, "must be an object")),
        };
        typed(&inner).map_err(|e| within(root, e))
    }

    /// The whole body as `T`, whose fields are the body's top-level ones.
    pub fn whole<T: DeserializeOwned>(&self) -> AppResult<T> {
        typed(&self.0)
    }

    /// Refuses a top-level field that is none of `known`.
    fn top_level<'a>(&self, known: impl Iterator<Item = &'a str> + Clone) -> AppResult<()> {
        let Some(object) = self.0.as_object() else {
            return Err(AppError::field("body", "must be a JSON object or a form"));
        };
        match object.keys().find(|k| !known.clone().any(|n| n == *k)) {
            Some(unknown) => Err(AppError::field(
                unknown,
                "is not a field of this request (check its spelling)",
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_form_reads_as_rack_reads_it() {
        let body = form(
            b"incident%5Bname%5D=DB+down&incident[components][c1]=major_outage\
              &incident[component_ids][]=c1&incident[component_ids][]=c2",
        )
        .unwrap();
        assert_eq!(
            body,
            json!({"incident": {
                "name": "DB down",
                "components": {"c1": "major_outage"},
                "component_ids": ["c1", "c2"],
            }})
        );
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Named {
        name: String,
    }

    #[test]
    fn an_unknown_field_is_refused_by_its_form_name() {
        let body = Body(json!({"incident": {"name": "x", "nmae": "y"}}));
        let e = body.inside::<Named>("incident", &[]).unwrap_err();
        assert_eq!(
            super::super::error::message(&e),
            "incident[nmae] is not a field of this request (check its spelling)"
        );
        let body = Body(json!({"incident": {"name": "x"}, "extra": 1}));
        let e = body.inside::<Named>("incident", &[]).unwrap_err();
        assert!(super::super::error::message(&e).starts_with("extra "));
        assert_eq!(
            Body(json!({"incident": {"name": "x"}}))
                .inside::<Named>("incident", &[])
                .unwrap()
                .name,
            "x"
        );
    }
}
