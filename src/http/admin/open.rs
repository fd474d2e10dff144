//! `POST /admin/pages/{slug}/incidents/new` and `POST /admin/pages/{slug}/maintenances/new`:
//! opening an incident or scheduling a maintenance from its form, written once. A preview
//! shows the form again with the rendered message; a refused form comes back (422) with what
//! was typed and a message per field.

use actix_web::{HttpResponse, web};
use chrono::Utc;

use super::form::{Errors, Submitted};
use super::incidents::{open_form, page_and_components};
use super::maintenance;
use super::view::page_zone;
use super::write::{audited, change, form_changes, submit};
use super::{ConsoleFrame, preview_of, render_form, see_other};
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::error::{AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::incidents::{self, OpenIncidentInput};
use crate::state::AppState;

/// What a console form opens on a page.
#[derive(Debug, Clone, Copy)]
pub enum Opened {
    /// An incident (`incidents/new`).
    Incident,
    /// A scheduled maintenance (`maintenances/new`).
    Maintenance,
}

/// The kind a handler opens, as a type: [`Incident`] or [`Maintenance`].
pub trait Opening {
    /// What is opened.
    const OPENED: Opened;
}

/// Opens incidents.
pub struct Incident;

impl Opening for Incident {
    const OPENED: Opened = Opened::Incident;
}

/// Schedules maintenance.
pub struct Maintenance;

impl Opening for Maintenance {
    const OPENED: Opened = Opened::Maintenance;
}

impl Opened {
    /// The audit action of opening one.
    fn action(self) -> &'static str {
        match self {
            Self::Incident => "incident.create",
            Self::Maintenance => "maintenance.create",
        }
    }

    /// The input read from the form (times in the page's zone).
    fn read(self, form: &Submitted, page: &StatusPage) -> Result<OpenIncidentInput, FieldErrors> {
        let tz = page_zone(&page.time_zone);
        match self {
            Self::Incident => form.open_input(tz),
            Self::Maintenance => form.maintenance_input(tz),
        }
    }

    /// The form as typed (200), or with the messages it was refused with (422).
    pub fn show(
        self,
        (state, auth): (&AppState, &Authenticated),
        loaded: (StatusPage, Vec<Component>),
        form: &Submitted,
        refused: Option<&FieldErrors>,
    ) -> AppResult<HttpResponse> {
        let ((page, parts), errors) = (loaded, refused.map(Errors::from_fields));
        let errors = errors.unwrap_or_default();
        match self {
            Self::Incident => {
                let title = format!("Open an incident on {}", page.name);
                let frame = ConsoleFrame::new(state, auth, title);
                let view = open_form(frame, page, parts, form, errors);
                render_form(state, refused, "admin/incident_new", &view)
            }
            Self::Maintenance => {
                let title = format!("Schedule maintenance on {}", page.name);
                let frame = ConsoleFrame::new(state, auth, title);
                let view = maintenance::view(frame, page, &parts, form, errors);
                render_form(state, refused, "admin/maintenance_new", &view)
            }
        }
    }
}

/// Opens the incident (or schedules the maintenance) and shows it (303); shows the form again
/// with the rendered message when a preview was asked for (200), or with its messages (422).
#[tracing::instrument(skip_all, fields(opened = ?O::OPENED, user = %auth.user_id))]
pub async fn open_from_form<O: Opening>(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (page, parts) = page_and_components(&state, slug.into_inner()).await?;
    let opened = O::OPENED;
    if preview_of(&form).is_some() {
        return opened.show((&state, &auth), (page, parts), &form, None);
    }
    let checked = opened.read(&form, &page);
    let saved = submit(checked, |input| {
        let (page_id, author) = (page.id.clone(), auth.user_id.clone());
        let (fields, action) = (form_changes(&form, &[]), opened.action());
        audited(&state, &auth, Permission::Write, move |c| {
            let posted = incidents::open_incident(c, &page_id, &input, Some(&author), Utc::now())?;
            let id = posted.incident.id;
            Ok((
                id.clone(),
                change(action, "incident", &id, Some(&page_id), fields),
            ))
        })
    })
    .await?;
    match saved {
        Ok(id) => Ok(see_other(&format!("/admin/incidents/{id}"))),
        Err(refused) => opened.show((&state, &auth), (page, parts), &form, Some(&refused)),
    }
}
