//! `GET/POST /admin/pages/{slug}/maintenances/new`: scheduling maintenance (window in the
//! page's zone, components and the status they take when it starts, automatic transitions).

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde::Serialize;

use super::form::{Errors, Submitted};
use super::incidents::{ComponentChoice, component_choices, page_and_components};
use super::view::page_zone;
use super::write::{audited, change, form_changes};
use super::{ConsoleFrame, preview_of, render_form, see_other};
use crate::auth::{Authenticated, Permission};
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::services::incidents;
use crate::state::AppState;

#[derive(Serialize)]
struct MaintenanceForm {
    frame: ConsoleFrame,
    page_name: String,
    time_zone: String,
    action: String,
    name: String,
    body: String,
    scheduled_for: String,
    scheduled_until: String,
    auto_transition: bool,
    components: Vec<ComponentChoice>,
    errors: Errors,
    preview: Option<String>,
}

fn view(
    frame: ConsoleFrame,
    page: StatusPage,
    parts: &[Component],
    form: &Submitted,
    errors: Errors,
) -> MaintenanceForm {
    MaintenanceForm {
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

fn show(
    state: &AppState,
    auth: &Authenticated,
    (page, parts): (StatusPage, Vec<Component>),
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let frame = ConsoleFrame::new(
        state,
        auth,
        format!("Schedule maintenance on {}", page.name),
    );
    let errors = refused.map(Errors::from_fields).unwrap_or_default();
    let view = view(frame, page, &parts, form, errors);
    render_form(state, refused, "admin/maintenance_new", &view)
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
    show(&state, &auth, loaded, &Submitted::default(), None)
}

/// Schedules the maintenance and shows it (303), or the form with its messages (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn schedule_maintenance(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let form = Submitted(form.into_inner());
    let (page, parts) = page_and_components(&state, slug.into_inner()).await?;
    if preview_of(&form).is_some() {
        return show(&state, &auth, (page, parts), &form, None);
    }
    let refused = match form.maintenance_input(page_zone(&page.time_zone)) {
        Ok(input) => {
            let (page_id, author) = (page.id.clone(), auth.user_id.clone());
            let fields = form_changes(&form, &[]);
            let opened = audited(&state, &auth, Permission::Write, move |c| {
                let posted =
                    incidents::open_incident(c, &page_id, &input, Some(&author), Utc::now())?;
                let id = posted.incident.id.clone();
                let audit = change(
                    "maintenance.create",
                    "incident",
                    &id,
                    Some(&page_id),
                    fields,
                );
                Ok((posted, audit))
            })
            .await;
            match opened {
                Ok(posted) => {
                    let to = format!("/admin/incidents/{}", posted.incident.id);
                    return Ok(see_other(&to));
                }
                Err(AppError::Validation(fields)) => fields,
                Err(other) => return Err(other),
            }
        }
        Err(fields) => fields,
    };
    show(&state, &auth, (page, parts), &form, Some(&refused))
}
