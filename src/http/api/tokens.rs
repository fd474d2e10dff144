//! JSON routes about the caller and their API tokens: `GET /api/v1/me`, and
//! `GET/POST /api/v1/tokens`, `DELETE /api/v1/tokens/{id}` (the secret is shown once, at
//! creation; owners see and revoke everyone's and may create tokens for others).

use actix_web::{HttpResponse, web};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::db::models::tokens::ApiToken;
use crate::domain::EmailAddress;
use crate::error::{AppError, AppResult};
use crate::http::auth::{Authenticated, Permission};
use crate::services;
use crate::services::auth::{self, DEFAULT_TOKEN_DAYS};
use crate::state::AppState;

/// Registers the routes of this module.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/me", web::get().to(get_me))
        .route("/api/v1/tokens", web::get().to(list_tokens))
        .route("/api/v1/tokens", web::post().to(create_token))
        .route("/api/v1/tokens/{id}", web::delete().to(revoke_token));
}

#[derive(Serialize)]
struct Me<'a> {
    id: &'a str,
    email: &'a str,
    role: &'a str,
}

/// The caller: `{id, email, role}`.
#[tracing::instrument(skip_all)]
async fn get_me(auth: Authenticated) -> HttpResponse {
    HttpResponse::Ok().json(Me {
        id: &auth.user_id,
        email: &auth.email,
        role: auth.role.as_str(),
    })
}

/// A token as listed (never its secret).
#[derive(Serialize)]
struct TokenView {
    id: String,
    user_id: String,
    name: String,
    created_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    revoked_at: Option<DateTime<Utc>>,
    last_used_at: Option<DateTime<Utc>>,
}

fn utc(t: NaiveDateTime) -> DateTime<Utc> {
    t.and_utc()
}

impl From<ApiToken> for TokenView {
    fn from(t: ApiToken) -> Self {
        Self {
            id: t.id,
            user_id: t.user_id,
            name: t.name,
            created_at: utc(t.created_at),
            expires_at: utc(t.expires_at),
            revoked_at: t.revoked_at.map(utc),
            last_used_at: t.last_used_at.map(utc),
        }
    }
}

#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn list_tokens(auth: Authenticated, state: web::Data<AppState>) -> AppResult<HttpResponse> {
    auth.require(Permission::Read)?;
    let tokens = state.db.run(move |c| auth::list_tokens(c, &auth)).await?;
    let views: Vec<TokenView> = tokens.into_iter().map(TokenView::from).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `POST /api/v1/tokens` body; `email` (owners only) issues the token to another account.
#[derive(Deserialize)]
struct CreateToken {
    name: Option<String>,
    expires_days: Option<i64>,
    email: Option<String>,
}

#[derive(Serialize)]
struct Created {
    #[serde(flatten)]
    token: TokenView,
    /// The bearer secret, shown this once.
    token_secret: String,
}

#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn create_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: web::Json<serde_json::Value>,
) -> AppResult<HttpResponse> {
    let body: CreateToken = super::body::typed(&body.into_inner())?;
    let email = match body.email.as_deref() {
        Some(raw) => EmailAddress::parse(raw)
            .map_err(|e| AppError::field("email", e.to_string()))?
            .as_str()
            .to_owned(),
        None => auth.email.clone(),
    };
    if email != auth.email {
        auth.require(Permission::Admin)?;
    }
    let name = body.name.unwrap_or_else(|| "api".to_owned());
    let days = body.expires_days.unwrap_or(DEFAULT_TOKEN_DAYS);
    let key = state.secret.clone();
    let issued = state
        .db
        .run(move |c| {
            let user = services::users::find_by_email(c, &email)?
                .ok_or_else(|| AppError::NotFound("an account with this email".into()))?;
            services::write::run(c, |c| {
                auth::create_token(c, key.expose(), &auth, &user, &name, days)
            })
        })
        .await?;
    crate::http::committed::follow(&state, issued.after).await;
    let issued = issued.value;
    Ok(HttpResponse::Created().json(Created {
        token: issued.token.into(),
        token_secret: issued.secret,
    }))
}

#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn revoke_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> AppResult<HttpResponse> {
    let id = path.into_inner();
    let token = state
        .db
        .run(move |c| services::write::run(c, |c| auth::revoke_token(c, &auth, &id)))
        .await?;
    crate::http::committed::follow(&state, token.after).await;
    Ok(HttpResponse::Ok().json(TokenView::from(token.value)))
}
