//! `GET/POST /admin/incidents/{id}/postmortem`: writing a resolved incident's postmortem
//! (summary, root cause, scope figures, UTC timeline, follow-ups) and publishing it, which
//! moves the incident to "postmortem" and shows it on the public incident page.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{filled, messages, values};
use super::form::Submitted;
use super::postmortem_form::{figures_text, follow_ups_text, postmortem_input, timeline_text};
use super::write::{audited, change, form_changes};
use super::{ConsoleFrame, render_form, see_other};
use crate::db::models::incidents::Incident;
use crate::domain::markdown::to_safe_html;
use crate::domain::{IncidentId, IncidentKind, IncidentStatus, LifecycleStatus};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::incidents;
use crate::services::pages;
use crate::services::postmortems::{self, PostmortemDetail};
use crate::state::AppState;

const FIELDS: &[&str] = &[
    "summary",
    "root_cause",
    "scope_figures",
    "timeline",
    "follow_ups",
];

/// Registers the postmortem routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/admin/incidents/{id}/postmortem",
        web::get().to(edit_postmortem),
    )
    .route(
        "/admin/incidents/{id}/postmortem",
        web::post().to(save_postmortem),
    );
}

#[derive(Serialize)]
struct PostmortemPage {
    frame: ConsoleFrame,
    reference: String,
    name: String,
    back: String,
    public_href: String,
    action: String,
    /// Only a resolved incident (or one already in postmortem) takes a postmortem.
    writable: bool,
    published: bool,
    values: Value,
    errors: Value,
    preview: Option<Preview>,
}

#[derive(Serialize)]
struct Preview {
    summary: String,
    root_cause: String,
}

/// The incident, its page's slug and its postmortem (if one was saved).
struct Loaded {
    incident: Incident,
    slug: String,
    postmortem: Option<PostmortemDetail>,
}

/// What the form of the incident `id` shows, for responders and owners (403 for others).
async fn load(state: &AppState, auth: &Authenticated, id: IncidentId) -> AppResult<Loaded> {
    auth.require(Permission::Write)?;
    state
        .db
        .run(move |c| {
            let incident = incidents::get_incident(c, &id)?;
            let page = pages::get_page(c, &incident.page_id)?;
            let postmortem = match postmortems::get_postmortem(c, &incident.id) {
                Ok(detail) => Some(detail),
                Err(AppError::NotFound(_)) => None,
                Err(other) => return Err(other),
            };
            Ok(Loaded {
                incident,
                slug: page.slug,
                postmortem,
            })
        })
        .await
}

fn writable(incident: &Incident) -> AppResult<bool> {
    Ok(incident.kind != IncidentKind::Maintenance
        && matches!(
            incident.status,
            LifecycleStatus::Incident(IncidentStatus::Resolved | IncidentStatus::Postmortem)
        ))
}

fn show(
    state: &AppState,
    auth: &Authenticated,
    loaded: &Loaded,
    form: &Submitted,
    refused: Option<&FieldErrors>,
    preview: bool,
) -> AppResult<HttpResponse> {
    let incident = &loaded.incident;
    let view = PostmortemPage {
        frame: ConsoleFrame::new(state, auth, format!("Postmortem of {}", incident.reference)),
        reference: incident.reference.clone(),
        name: incident.name.clone(),
        back: format!("/admin/incidents/{}", incident.id),
        public_href: format!("/status/{}/incidents/{}", loaded.slug, incident.id),
        action: format!("/admin/incidents/{}/postmortem", incident.id),
        writable: writable(incident)?,
        published: loaded
            .postmortem
            .as_ref()
            .is_some_and(|p| p.postmortem.published),
        values: values(form, FIELDS),
        errors: messages(refused, FIELDS),
        preview: preview.then(|| Preview {
            summary: to_safe_html(form.get("summary")),
            root_cause: to_safe_html(form.get("root_cause")),
        }),
    };
    render_form(state, refused, "admin/postmortem", &view)
}

/// A refusal of the incident's state (not resolved yet, a maintenance) is shown on the form,
/// like a field message, rather than as an error page.
fn conflict(e: AppError) -> AppError {
    match e {
        AppError::Conflict(message) => AppError::field("incident", message),
        other => other,
    }
}

/// The form, filled with the saved draft (responders and owners).
#[tracing::instrument(skip_all)]
pub async fn edit_postmortem(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<IncidentId>,
) -> AppResult<HttpResponse> {
    let loaded = load(&state, &auth, id.into_inner()).await?;
    let form = match &loaded.postmortem {
        Some(d) => filled([
            ("summary", d.postmortem.summary.clone()),
            ("root_cause", d.postmortem.root_cause.clone()),
            (
                "scope_figures",
                figures_text(&d.postmortem.scope_figures()?),
            ),
            ("timeline", timeline_text(&d.timeline)),
            ("follow_ups", follow_ups_text(&d.follow_ups)),
        ]),
        None => Submitted::default(),
    };
    show(&state, &auth, &loaded, &form, None, false)
}

/// Saves the draft (button `action=save`), saves and publishes it (`action=publish`), or
/// shows the rendered text (`preview`); 303 back to the form, or the form again with its
/// messages (422). A refused publication keeps the saved draft.
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn save_postmortem(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<IncidentId>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let loaded = load(&state, &auth, id.into_inner()).await?;
    if !form.get("preview").is_empty() {
        return show(&state, &auth, &loaded, &form, None, true);
    }
    let input = match postmortem_input(&form) {
        Ok(input) => input,
        Err(fields) => return show(&state, &auth, &loaded, &form, Some(&fields), false),
    };
    let (incident_id, page_id) = (loaded.incident.id.clone(), loaded.incident.page_id.clone());
    let fields = form_changes(&form, &[]);
    let (target, page) = (incident_id.clone(), page_id.clone());
    let saved = audited(&state, &auth, Permission::Write, move |c| {
        postmortems::save_postmortem(c, &target, &input)?;
        let audit = change("postmortem.save", "incident", &target, Some(&page), fields);
        Ok(((), audit))
    })
    .await;
    match saved.map_err(conflict) {
        Ok(()) => {}
        Err(AppError::Validation(fields)) => {
            return show(&state, &auth, &loaded, &form, Some(&fields), false);
        }
        Err(other) => return Err(other),
    }
    if form.get("action") == "publish" {
        let target = incident_id.clone();
        let published = audited(&state, &auth, Permission::Write, move |c| {
            postmortems::publish_postmortem(c, &target, Utc::now())?;
            let audit = change(
                "postmortem.publish",
                "incident",
                &target,
                Some(&page_id),
                json!({}),
            );
            Ok(((), audit))
        })
        .await;
        match published.map_err(conflict) {
            Ok(()) => {}
            Err(AppError::Validation(fields)) => {
                return show(&state, &auth, &loaded, &form, Some(&fields), false);
            }
            Err(other) => return Err(other),
        }
    }
    Ok(see_other(&format!(
        "/admin/incidents/{incident_id}/postmortem"
    )))
}
