//! The [`Authenticated`] extractor: bearer token or session cookie, then CSRF for unsafe
//! cookie requests (header, or the `csrf_token` field of a urlencoded or multipart body that is
//! read here and handed on unchanged to the handler's own body extractor).

use actix_http::BoxedPayloadStream;
use actix_web::dev::Payload;
use actix_web::error::PayloadError;
use actix_web::http::{Method, header};
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;

use super::session::Renewed;
use super::{Authenticated, csrf};
use crate::error::{AppError, AppResult};
use crate::services;
use crate::services::auth::jwt::{self, Kind};
use crate::state::AppState;

/// The name of the session cookie.
pub const SESSION_COOKIE: &str = "herald_session";

/// The largest form body read for its CSRF field.
const FORM_LIMIT: usize = 1024 * 1024;

/// A request body taken from the request, to be read and fed back.
struct Held {
    original: Payload,
    sender: tokio::sync::oneshot::Sender<Bytes>,
}

impl FromRequest for Authenticated {
    type Error = AppError;
    type Future = LocalBoxFuture<'static, AppResult<Self>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if let Some(known) = req.extensions().get::<Authenticated>() {
            let known = known.clone();
            return Box::pin(async move { Ok(known) });
        }
        let held = needs_form_csrf(req).then(|| hold(payload));
        let req = req.clone();
        Box::pin(async move {
            let auth = authenticate(&req, held).await?;
            req.extensions_mut().insert(auth.clone());
            Ok(auth)
        })
    }
}

/// A cookie request with an unsafe method, no bearer token and no CSRF header: its CSRF token
/// can only be in the body.
fn needs_form_csrf(req: &HttpRequest) -> bool {
    is_unsafe(req.method())
        && req.headers().get(header::AUTHORIZATION).is_none()
        && req.headers().get(csrf::HEADER).is_none()
        && req.cookie(SESSION_COOKIE).is_some()
}

fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Takes the body out of the request, leaving a stream that will yield the same bytes.
fn hold(payload: &mut Payload) -> Held {
    let original = payload.take();
    let (sender, body) = tokio::sync::oneshot::channel::<Bytes>();
    let replacement = futures_util::stream::once(async move {
        body.await.map_err(|_| PayloadError::Incomplete(None))
    });
    *payload = Payload::from(Box::pin(replacement) as BoxedPayloadStream);
    Held { original, sender }
}

async fn authenticate(req: &HttpRequest, held: Option<Held>) -> AppResult<Authenticated> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("AppState is not registered")))?;
    if let Some(value) = req.headers().get(header::AUTHORIZATION) {
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or(AppError::Unauthorized)?;
        return bearer(&state, token.trim()).await;
    }
    let cookie = req.cookie(SESSION_COOKIE).ok_or(AppError::Unauthorized)?;
    let claims = jwt::verify(cookie.value(), state.secret.expose(), Kind::Session)
        .ok_or(AppError::Unauthorized)?;
    let resolved = state
        .db
        .run(move |c| services::auth::resolve_session(c, &claims).map(|r| (r, claims)))
        .await?;
    let (Some((auth, session)), claims) = resolved else {
        return Err(AppError::Unauthorized);
    };
    if is_unsafe(req.method()) {
        check_csrf(req, &auth, state.secret.expose(), held).await?;
    }
    Renewed::note_if_due(req, &state, &session, claims.iat)?;
    Ok(auth)
}

pub(crate) async fn bearer(state: &AppState, token: &str) -> AppResult<Authenticated> {
    let claims = jwt::verify(token, state.secret.expose(), Kind::Api).ok_or_else(|| {
        tracing::debug!("refused a bearer token");
        AppError::Unauthorized
    })?;
    state
        .db
        .run(move |c| services::auth::resolve_token(c, &claims))
        .await?
        .ok_or(AppError::Unauthorized)
}

async fn check_csrf(
    req: &HttpRequest,
    auth: &Authenticated,
    key: &[u8],
    held: Option<Held>,
) -> AppResult<()> {
    let given = match (req.headers().get(csrf::HEADER), held) {
        (Some(value), _) => value.to_str().unwrap_or_default().to_owned(),
        (None, Some(held)) if is_form(req) => form_field(held).await?,
        (None, Some(held)) if is_multipart(req) => multipart_field(req, held).await?,
        _ => String::new(),
    };
    super::verify_csrf(auth, key, &given)
}

fn is_form(req: &HttpRequest) -> bool {
    req.content_type()
        .eq_ignore_ascii_case("application/x-www-form-urlencoded")
}

/// A file upload from a console form (a page's logo).
fn is_multipart(req: &HttpRequest) -> bool {
    req.content_type()
        .eq_ignore_ascii_case("multipart/form-data")
}

/// Reads a whole multipart body (within [`FORM_LIMIT`]), feeds it back for the handler, and
/// returns its `csrf_token` field (the form puts it first; a file before it is read past).
async fn multipart_field(req: &HttpRequest, mut held: Held) -> AppResult<String> {
    let body = read_form(&mut held.original).await?;
    let mut parts = actix_multipart::Multipart::new(req.headers(), replay(body.clone()));
    let mut given = String::new();
    while let Some(part) = parts.next().await {
        let mut part =
            part.map_err(|e| AppError::BadRequest(format!("reading the upload: {e}")))?;
        let is_token = part.name() == Some(csrf::FIELD);
        let mut value = BytesMut::new();
        while let Some(chunk) = part.next().await {
            let chunk =
                chunk.map_err(|e| AppError::BadRequest(format!("reading the upload: {e}")))?;
            if is_token && value.len() + chunk.len() <= 256 {
                value.extend_from_slice(&chunk);
            }
        }
        if is_token {
            given = String::from_utf8_lossy(&value).into_owned();
            break;
        }
    }
    let _ = held.sender.send(body);
    Ok(given)
}

/// Reads a whole form body, at most [`FORM_LIMIT`] bytes (the console's form readers share it).
pub(crate) async fn read_form(payload: &mut Payload) -> AppResult<Bytes> {
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| AppError::BadRequest(format!("reading the body: {e}")))?;
        if body.len() + chunk.len() > FORM_LIMIT {
            return Err(AppError::BadRequest("form body too large".into()));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// A payload that yields `body` again, for a handler after its body was read.
pub(crate) fn replay(body: Bytes) -> Payload {
    let stream = futures_util::stream::once(async move { Ok(body) });
    Payload::from(Box::pin(stream) as BoxedPayloadStream)
}

/// Reads the whole form body, feeds it back for the handler, returns its `csrf_token` field.
async fn form_field(mut held: Held) -> AppResult<String> {
    let body = read_form(&mut held.original).await?;
    let given = url::form_urlencoded::parse(&body)
        .find(|(k, _)| k == csrf::FIELD)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    // The handler may have stopped listening (an error elsewhere); nothing to hand on then.
    let _ = held.sender.send(body);
    Ok(given)
}
