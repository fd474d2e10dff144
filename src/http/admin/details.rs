//! `GET/POST /admin/incidents/{id}/details`: correcting an incident's name, impact and
//! structured fields (user impact, scope, preliminary root cause) without posting an update.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::Value;

use super::fields::{filled, messages, text, values};
use super::form::Submitted;
use super::incidents::{Choice, choices};
use super::write::{audited, change, form_changes, submit};
use super::{ConsoleFrame, render_form, see_other};
use crate::db::models::incidents::Incident;
use crate::domain::{Impact, IncidentId};
use crate::error::{AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::incidents::{self, IncidentFieldsInput};
use crate::state::AppState;

const FIELDS: &[&str] = &["name", "impact", "user_impact", "scope", "root_cause"];

/// Registers the details routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/admin/incidents/{id}/details", web::get().to(edit_details))
        .route(
            "/admin/incidents/{id}/details",
            web::post().to(save_details),
        );
}

#[derive(Serialize)]
struct DetailsForm {
    frame: ConsoleFrame,
    heading: String,
    back: String,
    action: String,
    values: Value,
    impacts: Vec<Choice>,
    errors: Value,
}

fn show(
    state: &AppState,
    auth: &Authenticated,
    incident: &Incident,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let heading = format!("Details of {} {}", incident.reference, incident.name);
    let impacts = Impact::ALL.iter().map(|i| (i.as_str(), i.label()));
    let view = DetailsForm {
        frame: ConsoleFrame::new(state, auth, heading.clone()),
        heading,
        back: format!("/admin/incidents/{}", incident.id),
        action: format!("/admin/incidents/{}/details", incident.id),
        values: values(form, FIELDS),
        impacts: choices(impacts, form.get("impact")),
        errors: messages(refused, FIELDS),
    };
    render_form(state, refused, "admin/details", &view)
}

/// The fields as typed: blank optional fields clear.
fn details_input(form: &Submitted) -> Result<IncidentFieldsInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let impact = match form.get("impact").parse::<Impact>() {
        Ok(impact) => Some(impact),
        Err(_) => {
            let message = "is not an impact".to_owned();
            errors.insert("impact".to_owned(), vec![message]);
            None
        }
    };
    let input = IncidentFieldsInput {
        name: Some(form.get("name").to_owned()),
        impact,
        user_impact: Some(text(form, "user_impact")),
        scope: Some(text(form, "scope")),
        root_cause: Some(text(form, "root_cause")),
        ..IncidentFieldsInput::default()
    };
    errors.is_empty().then_some(input).ok_or(errors)
}

/// The incident `id`, for responders and owners (403 for others).
async fn load(state: &AppState, auth: &Authenticated, id: IncidentId) -> AppResult<Incident> {
    auth.require(Permission::Write)?;
    state.db.run(move |c| incidents::get_incident(c, &id)).await
}

/// The form, filled (responders and owners).
#[tracing::instrument(skip_all)]
pub async fn edit_details(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<IncidentId>,
) -> AppResult<HttpResponse> {
    let incident = load(&state, &auth, id.into_inner()).await?;
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let form = filled([
        ("name", incident.name.clone()),
        ("impact", incident.impact.as_str().to_owned()),
        ("user_impact", opt(&incident.user_impact)),
        ("scope", opt(&incident.scope)),
        ("root_cause", opt(&incident.root_cause)),
    ]);
    show(&state, &auth, &incident, &form, None)
}

/// Saves the fields and shows the incident (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn save_details(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<IncidentId>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let incident = load(&state, &auth, id.into_inner()).await?;
    let saved = submit(details_input(&form), |input| {
        let (id, page_id) = (incident.id.clone(), incident.page_id.clone());
        let fields = form_changes(&form, &[]);
        audited(&state, &auth, Permission::Write, move |c| {
            incidents::update_incident_fields(c, &id, &input)?;
            let audit = change("incident.update", "incident", &id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/incidents/{}", incident.id))),
        Err(refused) => refused,
    };
    show(&state, &auth, &incident, &form, Some(&refused))
}
