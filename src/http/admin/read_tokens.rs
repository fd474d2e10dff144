//! `/admin/pages/{slug}/read-tokens`: a restricted page's read tokens, for owners. A new
//! token is shown once, on the page answering its creation; a revoked one stops working at
//! once (the site is refreshed before the answer).

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{messages, values};
use super::form::{Shown, Submitted};
use super::view::{TimeView, page_zone};
use super::write::{change, on_page};
use super::{ConsoleFrame, read_page, render_form, see_other};
use crate::domain::Visibility;
use crate::error::{AppError, AppResult};
use crate::http::auth::{Authenticated, Permission};
use crate::services::access;
use crate::state::AppState;

const FIELDS: &[&str] = &["name"];

/// Registers the routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    let base = "/admin/pages/{slug}/read-tokens";
    cfg.route(base, web::get().to(show_tokens))
        .route(base, web::post().to(create_token))
        .route(
            &format!("{base}/{{id}}/delete"),
            web::post().to(revoke_token),
        );
}

#[derive(Serialize)]
struct Row {
    name: String,
    created: TimeView,
    delete_action: String,
}

#[derive(Serialize)]
struct TokensPage {
    frame: ConsoleFrame,
    page_name: String,
    action: String,
    settings_href: String,
    restricted: bool,
    summary_url: String,
    rows: Vec<Row>,
    values: Value,
    errors: Value,
    /// The token just made: shown this once.
    secret: Option<Value>,
}

async fn show(
    state: &AppState,
    auth: &Authenticated,
    slug: String,
    shown: Shown<'_>,
) -> AppResult<HttpResponse> {
    let (form, refused) = (shown.form(), shown.refused);
    let (page, tokens) = read_page(state, auth, Permission::Admin, slug, |c, page| {
        access::list_tokens(c, &page.id)
    })
    .await?;
    let tz = page_zone(&page.time_zone);
    let base = format!("/admin/pages/{}/read-tokens", page.slug);
    let view = TokensPage {
        frame: ConsoleFrame::new(state, auth, format!("Read tokens · {}", page.name)),
        action: base.clone(),
        settings_href: format!("/admin/pages/{}/settings", page.slug),
        restricted: page.visibility != Visibility::Public,
        summary_url: format!(
            "{}/status/{}/api/v2/summary.json",
            state.settings.public_url.trim_end_matches('/'),
            page.slug
        ),
        rows: tokens
            .into_iter()
            .map(|t| Row {
                created: TimeView::new(t.created_at.naive_utc(), tz),
                delete_action: format!("{base}/{}/delete", t.id),
                name: t.name,
            })
            .collect(),
        values: values(form, FIELDS),
        errors: messages(refused, FIELDS),
        page_name: page.name,
        secret: shown.secret,
    };
    render_form(state, refused, "admin/read_tokens", &view)
}

/// The page's read tokens and the form for a new one (owners).
pub async fn show_tokens(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    show(&state, &auth, slug.into_inner(), Shown::default()).await
}

/// Makes a token and shows it once; or the form again with the reason (422).
#[tracing::instrument(skip_all)]
pub async fn create_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    let name = form.get("name").to_owned();
    let made = on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
        let (view, token) = access::create_token(c, &page.id, &name)?;
        let changes = json!({"name": view.name});
        let audit = change(
            "read_token.create",
            "read_token",
            &view.id,
            Some(&page.id),
            changes,
        );
        Ok(((view.name, token), audit))
    })
    .await;
    match made {
        Ok((name, token)) => {
            let secret = json!({"name": name, "token": token});
            show(&state, &auth, slug, Shown::secret(secret)).await
        }
        Err(AppError::Validation(refused)) => {
            show(&state, &auth, slug, Shown::refused(&form, &refused)).await
        }
        Err(other) => Err(other),
    }
}

/// Revokes a token (303 back to the list).
#[tracing::instrument(skip_all)]
pub async fn revoke_token(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    on_page(&state, &auth, Permission::Admin, &slug, move |c, page| {
        access::revoke_token(c, &page.id, &id)?;
        let audit = change(
            "read_token.delete",
            "read_token",
            &id,
            Some(&page.id),
            json!({}),
        );
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/pages/{slug}/read-tokens")))
}
