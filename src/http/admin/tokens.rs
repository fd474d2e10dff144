//! `/admin/tokens`: API tokens. Everyone signed in lists, creates and revokes their own;
//! owners see and revoke everyone's. A new token's secret is shown once, on the answer to its
//! creation, and never stored.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde::Serialize;
use serde_json::Value;

use super::fields::{messages, values};
use super::form::Submitted;
use super::view::TimeView;
use super::{ConsoleFrame, render_form, see_other};
use crate::db::models::tokens::ApiToken;
use crate::db::models::users::User;
use crate::domain::EmailAddress;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services;
use crate::services::auth::{self, DEFAULT_TOKEN_DAYS};
use crate::services::users;
use crate::state::AppState;

const FIELDS: &[&str] = &["name", "expires_days", "email"];
const LIST: &str = "/admin/tokens";

/// Registers the token routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(LIST, web::get().to(list_tokens))
        .route(LIST, web::post().to(create_token))
        .route("/admin/tokens/{id}/revoke", web::post().to(revoke_token));
}

#[derive(Serialize)]
struct Row {
    name: String,
    owner: String,
    created: TimeView,
    expires: TimeView,
    last_used: Option<TimeView>,
    state: &'static str,
    revoke_action: Option<String>,
}

#[derive(Serialize)]
struct TokensPage {
    frame: ConsoleFrame,
    rows: Vec<Row>,
    values: Value,
    errors: Value,
    /// The secret of the token just created, shown this once.
    secret: Option<String>,
}

fn row(token: ApiToken, people: &[User]) -> Row {
    let utc = |t| TimeView::new(t, chrono_tz::Tz::UTC);
    let now = Utc::now().naive_utc();
    let state = match (token.revoked_at, token.expires_at <= now) {
        (Some(_), _) => "Revoked",
        (None, true) => "Expired",
        (None, false) => "Active",
    };
    Row {
        owner: people
            .iter()
            .find(|u| u.id == token.user_id)
            .map_or_else(|| token.user_id.clone(), |u| u.email.clone()),
        created: utc(token.created_at),
        expires: utc(token.expires_at),
        last_used: token.last_used_at.map(utc),
        revoke_action: (state == "Active").then(|| format!("{LIST}/{}/revoke", token.id)),
        state,
        name: token.name,
    }
}

async fn rows(state: &AppState, auth: &Authenticated) -> AppResult<Vec<Row>> {
    let caller = auth.clone();
    let (tokens, people) = state
        .db
        .run(move |c| Ok((auth::list_tokens(c, &caller)?, users::list_users(c)?)))
        .await?;
    Ok(tokens.into_iter().map(|t| row(t, &people)).collect())
}

async fn show(
    state: &AppState,
    auth: &Authenticated,
    form: &Submitted,
    refused: Option<&FieldErrors>,
    secret: Option<String>,
) -> AppResult<HttpResponse> {
    let mut typed = values(form, FIELDS);
    if form.get("expires_days").is_empty() {
        typed["expires_days"] = Value::from(DEFAULT_TOKEN_DAYS.to_string());
    }
    let view = TokensPage {
        frame: ConsoleFrame::new(state, auth, "API tokens"),
        rows: rows(state, auth).await?,
        values: typed,
        errors: messages(refused, FIELDS),
        secret,
    };
    render_form(state, refused, "admin/tokens", &view)
}

/// The caller's tokens (everyone's for owners).
#[tracing::instrument(skip_all)]
pub async fn list_tokens(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> AppResult<HttpResponse> {
    show(&state, &auth, &Submitted::default(), None, None).await
}

/// Creates a token for the caller and shows its secret once (200), or the form (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn create_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let days = match form.get("expires_days").trim() {
        "" => Ok(DEFAULT_TOKEN_DAYS),
        d => d.parse::<i64>(),
    };
    let Ok(days) = days else {
        let mut fields = FieldErrors::new();
        let message = "is not a whole number of days".to_owned();
        fields.insert("expires_days".to_owned(), vec![message]);
        return show(&state, &auth, &form, Some(&fields), None).await;
    };
    // Owners may issue a token to another account by its email; everyone else gets their own.
    let email = form.get("email").trim().to_owned();
    let for_other = !email.is_empty() && !email.eq_ignore_ascii_case(&auth.email);
    let needed = match for_other {
        true => Permission::Admin,
        false => Permission::Read,
    };
    let (name, key, user_id) = (
        form.get("name").to_owned(),
        state.secret.clone(),
        auth.user_id.clone(),
    );
    auth.require(needed)?;
    let caller = auth.clone();
    let issued = state
        .db
        .run(move |c| {
            let user = match for_other {
                true => account(c, &email)?,
                false => users::get_user(c, &user_id)?,
            };
            services::write::run(c, |c| {
                auth::create_token(c, key.expose(), &caller, &user, &name, days)
            })
        })
        .await;
    match issued {
        Ok(issued) => {
            crate::http::committed::follow(&state, issued.after).await;
            let secret = issued.value.secret;
            show(&state, &auth, &Submitted::default(), None, Some(secret)).await
        }
        Err(AppError::Validation(fields)) => show(&state, &auth, &form, Some(&fields), None).await,
        Err(other) => Err(other),
    }
}

/// The account with the email typed, or a message on the field.
fn account(conn: &mut crate::db::DbConn, email: &str) -> AppResult<User> {
    let email = EmailAddress::parse(email).map_err(|e| AppError::field("email", e.to_string()))?;
    users::find_by_email(conn, email.as_str())?
        .ok_or_else(|| AppError::field("email", "no account has this email"))
}

/// Revokes a token (the caller's own, or anyone's for owners) and goes back (303).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn revoke_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> AppResult<HttpResponse> {
    let (id, caller) = (id.into_inner(), auth.clone());
    auth.require(Permission::Read)?;
    let revoked = state
        .db
        .run(move |c| services::write::run(c, |c| auth::revoke_token(c, &caller, &id)))
        .await?;
    crate::http::committed::follow(&state, revoked.after).await;
    Ok(see_other(LIST))
}
