//! How a handler runs: the permission check, reads on the pool, and writes through
//! `services::write` (one transaction with their audit row and stored idempotent answer),
//! followed by what [`crate::http::committed`] does (the answer waits until the public pages
//! show the change).
//! Also the lookup of the page of its URL (a record of the page is found by the services:
//! `get_page_component`, `get_page_incident`).

use actix_web::dev::Payload;
use actix_web::http::{Method, StatusCode};
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::db::DbConn;
use crate::db::models::pages::StatusPage;
use crate::domain::PageId;
use crate::error::{AppError, AppResult};
use crate::http::auth::{Authenticated, Permission};
use crate::services;
use crate::services::audit::{Actor, Change};
use crate::services::idempotency::{Answer, IdempotencyKey};
use crate::services::pages;
use crate::state::AppState;

/// The header that makes a POST idempotent.
pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
/// Set on an answer replayed from an earlier request with the same key.
pub const IDEMPOTENT_REPLAYED: &str = "Idempotent-Replayed";

/// What an API handler runs with: the application, the request and who made it (extracted
/// like `Authenticated`: a request that is not signed in ends in 401 before the handler).
pub struct Api {
    state: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
}

impl FromRequest for Api {
    type Error = AppError;
    type Future = LocalBoxFuture<'static, AppResult<Self>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let auth = Authenticated::from_request(req, payload);
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let req = req.clone();
        Box::pin(async move {
            let state = state.ok_or_else(|| {
                AppError::Internal(anyhow::anyhow!("the application state is not registered"))
            })?;
            let auth = auth.await?;
            Ok(Self { state, req, auth })
        })
    }
}

impl Api {
    /// Who made the request.
    pub fn auth(&self) -> &Authenticated {
        &self.auth
    }

    /// The application.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Runs a read needing `permission` and answers its JSON with 200.
    pub async fn read<F>(&self, permission: Permission, f: F) -> AppResult<HttpResponse>
    where
        F: FnOnce(&mut DbConn) -> AppResult<Value> + Send + 'static,
    {
        self.auth.require(permission)?;
        let body = self.state.db.run(f).await?;
        Ok(HttpResponse::Ok().json(body))
    }

    /// [`Api::read`] within the page at `slug` (404 when there is none).
    pub async fn page_read<F>(
        &self,
        permission: Permission,
        slug: String,
        f: F,
    ) -> AppResult<HttpResponse>
    where
        F: FnOnce(&mut DbConn, &StatusPage) -> AppResult<Value> + Send + 'static,
    {
        self.read(permission, move |c| {
            let page = page(c, &slug)?;
            f(c, &page)
        })
        .await
    }

    /// Runs a write needing `permission`. `write` returns the answer and the audit change;
    /// both commit in one transaction with the stored answer of an `Idempotency-Key` (POST
    /// only). Then the engine is woken and the answer waits until the public pages show it.
    pub async fn write<F>(
        &self,
        permission: Permission,
        body: &Value,
        write: F,
    ) -> AppResult<HttpResponse>
    where
        F: FnOnce(&mut DbConn) -> AppResult<(Answer, Change)> + Send + 'static,
    {
        let auth = &self.auth;
        auth.require(permission)?;
        let key = idempotency_key(&self.req, auth, body)?;
        let actor = Actor {
            user_id: auth.user_id.clone(),
            email: auth.email.clone(),
        };
        let written = self
            .state
            .db
            .run(move |conn| services::write::audited_once(conn, &actor, key.as_ref(), write))
            .await?;
        crate::http::committed::follow(&self.state, written.after).await;
        Ok(respond(written.value))
    }

    /// [`Api::write`] of a change within the page at `slug` (404 when there is none):
    /// `write_in_page` gets the page and answers with what it recorded; the audit row names the
    /// page and carries the record's changes, by default `fields` (the body, also the
    /// idempotency digest's input).
    pub async fn page_write<F>(
        &self,
        permission: Permission,
        slug: String,
        fields: Value,
        write_in_page: F,
    ) -> AppResult<HttpResponse>
    where
        F: FnOnce(&mut DbConn, &StatusPage) -> AppResult<(Answer, Record)> + Send + 'static,
    {
        let given = fields.clone();
        self.write(permission, &given, move |c| {
            let page = page(c, &slug)?;
            let (answer, record) = write_in_page(c, &page)?;
            Ok((answer, record.change_on(&page.id, fields)))
        })
        .await
    }
}

/// What a page-scoped write records in the audit log: the action and the record, and the
/// changes (the body as sent, unless given).
pub struct Record {
    action: &'static str,
    entity: &'static str,
    id: String,
    changes: Option<Value>,
}

impl Record {
    pub fn new(action: &'static str, entity: &'static str, id: &str) -> Self {
        Self {
            action,
            entity,
            id: id.to_owned(),
            changes: None,
        }
    }

    /// Records `changes` instead of the body as sent (a delete records `{}`).
    pub fn with_changes(mut self, changes: Value) -> Self {
        self.changes = Some(changes);
        self
    }

    /// Its audit change on the page `page_id`: its changes, or `given` (the body as sent).
    pub fn change_on(self, page_id: &PageId, given: Value) -> Change {
        let changes = self.changes.unwrap_or(given);
        change(self.action, self.entity, &self.id, page_id, changes)
    }
}

/// A page write's result: `status` with `body`, and what it records.
pub fn answered(status: u16, body: Value, record: Record) -> AppResult<(Answer, Record)> {
    Ok((Answer::new(status, body), record))
}

/// A delete's result: `{"id": ..., "deleted": true}`, recording no changed fields unless the
/// record names some (what the deleted record was).
pub fn deleted(mut record: Record) -> AppResult<(Answer, Record)> {
    let body = json!({"id": record.id, "deleted": true});
    record.changes.get_or_insert_with(|| json!({}));
    Ok((Answer::new(200, body), record))
}

/// The request's idempotency key, for POSTs that carry one.
fn idempotency_key(
    req: &HttpRequest,
    auth: &Authenticated,
    body: &Value,
) -> AppResult<Option<IdempotencyKey>> {
    if req.method() != Method::POST {
        return Ok(None);
    }
    let Some(value) = req.headers().get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .map_err(|_| AppError::field("idempotency_key", "must be visible ASCII"))?;
    let route = format!("{} {}", req.method(), req.path());
    IdempotencyKey::new(&auth.user_id, &route, key, body).map(Some)
}

fn respond(answer: Answer) -> HttpResponse {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut res = HttpResponse::build(status);
    if answer.replayed {
        res.insert_header((IDEMPOTENT_REPLAYED, "true"));
    }
    res.json(answer.body)
}

/// An audit change with the request body as its changed fields.
pub fn change(
    action: &'static str,
    entity_type: &'static str,
    entity_id: &str,
    page_id: &PageId,
    fields: Value,
) -> Change {
    Change {
        action,
        entity_type,
        entity_id: Some(entity_id.to_owned()),
        page_id: Some(page_id.clone()),
        changes: fields,
    }
}

/// The page with this slug (404 when unknown).
pub fn page(conn: &mut DbConn, slug: &str) -> AppResult<StatusPage> {
    pages::get_page_by_slug(conn, slug)
}
