//! `GET/POST /admin/pages/new` (owners): creating a status page from its slug, name and time
//! zone; the rest is set on its settings page afterwards.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::Value;

use super::fields::{messages, values};
use super::form::Submitted;
use super::write::{audited, change, form_changes};
use super::{ConsoleFrame, render_form, see_other};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::pages::{self, NewPageInput};
use crate::state::AppState;

const FIELDS: &[&str] = &["slug", "name", "time_zone"];
const PATH: &str = "/admin/pages/new";

/// Registers the page creation routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(PATH, web::get().to(new_page_form))
        .route(PATH, web::post().to(create_page));
}

#[derive(Serialize)]
struct NewPageForm {
    frame: ConsoleFrame,
    values: Value,
    errors: Value,
}

fn show(
    state: &AppState,
    auth: &Authenticated,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let mut typed = values(form, FIELDS);
    if form.get("time_zone").is_empty() {
        typed["time_zone"] = Value::from("UTC");
    }
    let view = NewPageForm {
        frame: ConsoleFrame::new(state, auth, "Create a status page"),
        values: typed,
        errors: messages(refused, FIELDS),
    };
    render_form(state, refused, "admin/page_new", &view)
}

/// The empty form (owners).
#[tracing::instrument(skip_all)]
pub async fn new_page_form(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    show(&state, &auth, &Submitted::default(), None)
}

/// Creates the page and opens its settings (303), or shows the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn create_page(
    auth: Authenticated,
    state: web::Data<AppState>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let input = NewPageInput {
        slug: form.get("slug").to_owned(),
        name: form.get("name").to_owned(),
        time_zone: Some(form.get("time_zone").to_owned()).filter(|z| !z.trim().is_empty()),
        ..NewPageInput::default()
    };
    let fields = form_changes(&form, &[]);
    let created = audited(&state, &auth, Permission::Admin, move |c| {
        let page = pages::create_page(c, &input)?;
        let audit = change("page.create", "page", &page.id, Some(&page.id), fields);
        Ok((page, audit))
    })
    .await;
    match created {
        Ok(page) => Ok(see_other(&format!("/admin/pages/{}/settings", page.slug))),
        Err(AppError::Validation(fields) | AppError::Taken(fields)) => {
            show(&state, &auth, &form, Some(&fields))
        }
        Err(other) => Err(other),
    }
}
