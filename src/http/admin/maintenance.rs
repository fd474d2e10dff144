//! `GET/POST /admin/pages/{slug}/maintenances/new`: scheduling maintenance (window in the
//! page's zone, components and the status they take when it starts, automatic transitions).
//! The POST is [`super::open`]'s.

use actix_web::{HttpResponse, web};
use serde::Serialize;

use super::form::{Errors, Submitted};
use super::incidents::{component_choices, page_and_components};
use super::open::Opened;
use super::{ConsoleFrame, preview_of};
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::error::AppResult;
use crate::http::auth::{Authenticated, Permission};
use crate::state::AppState;

/// What `admin/maintenance_new` shows.
#[derive(Serialize)]
pub struct MaintenanceForm {
    frame: ConsoleFrame,
    page_name: String,
    time_zone: String,
    action: String,
    name: String,
    body: String,
    scheduled_for: String,
    scheduled_until: String,
    auto_transition: bool,
    components: super::status_grid::StatusGrid,
    errors: Errors,
    preview: Option<String>,
    /// The name and message in the page's other languages.
    translations: Vec<super::translations::LanguageFields>,
}

/// The view of the maintenance form.
pub fn view(
    frame: ConsoleFrame,
    page: StatusPage,
    parts: &[Component],
    form: &Submitted,
    errors: Errors,
) -> MaintenanceForm {
    MaintenanceForm {
        translations: super::translations::fields(&page, form, super::translations::OPENING),
        frame,
        action: format!("/admin/pages/{}/maintenances/new", page.slug),
        page_name: page.name,
        time_zone: page.time_zone,
        name: form.get("name").to_owned(),
        body: form.get("body").to_owned(),
        scheduled_for: form.get("scheduled_for").to_owned(),
        scheduled_until: form.get("scheduled_until").to_owned(),
        auto_transition: !form.get("auto_transition").is_empty() || form.0.is_empty(),
        components: component_choices(parts, form, &errors),
        preview: preview_of(form),
        errors,
    }
}

/// The empty form (responders and owners).
#[tracing::instrument(skip_all)]
pub async fn new_maintenance_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let loaded = page_and_components(&state, slug.into_inner()).await?;
    let empty = Submitted::default();
    Opened::Maintenance.show((&state, &auth), loaded, &empty, None)
}
