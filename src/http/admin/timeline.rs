//! `GET /admin/incidents/{id}`: an incident with its timeline (late updates marked) and the
//! one-step update form; `POST /admin/incidents/{id}/updates` posts it (resolving and, with
//! the explicit checkbox, reopening).

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::form::{Errors, Submitted};
use super::incidents::{Choice, choices, component_choices};
use super::view::{DeadlineView, IncidentLabels, TimeView, page_zone};
use super::write::{audited, change, form_changes};
use super::{ConsoleFrame, preview_of, render_form, see_other};
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::domain::markdown::to_safe_html;
use crate::domain::{
    IncidentId, IncidentKind, IncidentStatus, MaintenanceStatus, Promise, lateness,
};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::incidents::{self, IncidentDetail};
use crate::services::{components, pages};
use crate::state::AppState;

/// Everything the incident page is built from.
struct Loaded {
    detail: IncidentDetail,
    page: StatusPage,
    parts: Vec<Component>,
}

#[derive(Serialize)]
struct IncidentPage {
    frame: ConsoleFrame,
    incident: Summary,
    timeline: Vec<Entry>,
    form: UpdateForm,
}

#[derive(Serialize)]
struct Summary {
    #[serde(flatten)]
    labels: IncidentLabels,
    page_name: String,
    public_href: String,
    time_zone: String,
    deadline: Option<DeadlineView>,
    user_impact: Option<String>,
    scope: Option<String>,
    root_cause: Option<String>,
    /// The postmortem form, for a closed incident (not a maintenance).
    postmortem_href: Option<String>,
    details_href: String,
    /// A maintenance's window, in the page's zone.
    window: Option<Window>,
}

#[derive(Serialize)]
struct Window {
    from: TimeView,
    until: TimeView,
    automatic: bool,
}

/// One update of the timeline.
#[derive(Serialize)]
struct Entry {
    status: &'static str,
    body_html: String,
    posted: TimeView,
    late: bool,
    promised: Option<TimeView>,
    changes: Vec<String>,
}

#[derive(Serialize)]
struct UpdateForm {
    action: String,
    statuses: Vec<Choice>,
    components: super::status_grid::StatusGrid,
    body: String,
    next_update_by: String,
    reopen: bool,
    errors: Errors,
    preview: Option<String>,
    /// The message in the page's other languages.
    translations: Vec<super::translations::LanguageFields>,
    /// "Next update in 15 / 30 / 60 min", beside the field.
    quick_deadlines: Vec<crate::render::html::choice::Choice>,
}

async fn load(state: &AppState, id: IncidentId) -> AppResult<Loaded> {
    state
        .db
        .run(move |c| {
            let detail = incidents::incident_with_updates(c, &id)?;
            let page = pages::get_page(c, &detail.incident.page_id)?;
            let parts = components::list_components(c, &page.id)?
                .components()
                .cloned()
                .collect();
            Ok(Loaded {
                detail,
                page,
                parts,
            })
        })
        .await
}

/// The incident with its timeline and, for responders, the update form.
#[tracing::instrument(skip_all)]
pub async fn show_incident(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<IncidentId>,
) -> AppResult<HttpResponse> {
    let loaded = load(&state, id.into_inner()).await?;
    page(&state, &auth, loaded, &Submitted::default(), None)
}

/// Posts the update and shows the incident again (303), or the form with its messages (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn post_update(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<IncidentId>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let id = id.into_inner();
    let loaded = load(&state, id.clone()).await?;
    if preview_of(&form).is_some() {
        return page(&state, &auth, loaded, &form, None);
    }
    let refused = match form.update_input(page_zone(&loaded.page.time_zone)) {
        Ok(input) => {
            let (target, author) = (id.clone(), auth.user_id.clone());
            let page_id = loaded.page.id.clone();
            let fields = form_changes(&form, &[]);
            let posted = audited(&state, &auth, Permission::Write, move |c| {
                incidents::post_update(c, &target, &input, Some(&author), Utc::now())?;
                let action = "incident.update_posted";
                let audit = change(action, "incident", &target, Some(&page_id), fields);
                Ok(((), audit))
            })
            .await;
            match posted {
                Ok(()) => {
                    return Ok(see_other(&format!("/admin/incidents/{id}")));
                }
                Err(AppError::Validation(fields)) => fields,
                Err(other) => return Err(other),
            }
        }
        Err(fields) => fields,
    };
    page(&state, &auth, loaded, &form, Some(&refused))
}

fn page(
    state: &AppState,
    auth: &Authenticated,
    loaded: Loaded,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let Loaded {
        detail,
        page,
        parts,
    } = loaded;
    let tz = page_zone(&page.time_zone);
    let incident = &detail.incident;
    let kind = incident.kind;
    let status = incident.status;
    let errors = refused.map(Errors::from_fields).unwrap_or_default();
    let chosen = match form.get("status") {
        "" => status.as_str(),
        s => s,
    };
    let update_form = UpdateForm {
        action: format!("/admin/incidents/{}/updates", incident.id),
        statuses: choices(statuses(kind), chosen),
        components: component_choices(&parts, form, &errors),
        body: form.get("body").to_owned(),
        next_update_by: form.get("next_update_by").to_owned(),
        reopen: !form.get("reopen").is_empty(),
        errors,
        preview: preview_of(form),
        translations: super::translations::fields(&page, form, super::translations::UPDATE),
        quick_deadlines: super::form::quick_choices(form),
    };
    let view = IncidentPage {
        frame: ConsoleFrame::new(
            state,
            auth,
            format!("{} {}", incident.reference, incident.name),
        ),
        incident: Summary {
            labels: IncidentLabels::of(incident),
            public_href: format!("/status/{}", page.slug),
            page_name: page.name.clone(),
            time_zone: page.time_zone.clone(),
            deadline: DeadlineView::new(incident.next_update_by, tz, Utc::now()),
            user_impact: incident.user_impact.clone(),
            scope: incident.scope.clone(),
            root_cause: incident.root_cause.clone(),
            details_href: format!("/admin/incidents/{}/details", incident.id),
            postmortem_href: (kind != IncidentKind::Maintenance && !status.is_open())
                .then(|| format!("/admin/incidents/{}/postmortem", incident.id)),
            window: match (incident.scheduled_for, incident.scheduled_until) {
                (Some(from), Some(until)) => Some(Window {
                    from: TimeView::new(from, tz),
                    until: TimeView::new(until, tz),
                    automatic: incident.auto_transition,
                }),
                _ => None,
            },
        },
        timeline: timeline(&detail, &parts, tz)?,
        form: update_form,
    };
    render_form(state, refused, "admin/incident", &view)
}

/// The statuses an update of a `kind` may carry.
fn statuses(kind: IncidentKind) -> Vec<(&'static str, &'static str)> {
    match kind {
        IncidentKind::Maintenance => MaintenanceStatus::ALL
            .iter()
            .map(|s| (s.as_str(), s.label()))
            .collect(),
        _ => IncidentStatus::ALL
            .iter()
            .filter(|s| **s != IncidentStatus::Postmortem)
            .map(|s| (s.as_str(), s.label()))
            .collect(),
    }
}

/// The updates newest first, each marked late when posted after the previous one's deadline.
fn timeline(
    detail: &IncidentDetail,
    parts: &[Component],
    tz: chrono_tz::Tz,
) -> AppResult<Vec<Entry>> {
    let utc = |t: chrono::NaiveDateTime| -> DateTime<Utc> { t.and_utc() };
    let promises: Vec<Promise> = detail
        .updates
        .iter()
        .rev()
        .map(|u| Promise {
            posted_at: utc(u.update.created_at),
            next_update_by: u.update.next_update_by.map(utc),
        })
        .collect();
    let mut late = lateness(&promises);
    late.reverse();
    let name_of = |id: &str| {
        parts.iter().find(|c| c.id == id).map_or_else(
            || id.to_owned(),
            |c| crate::domain::component_label(&c.name, c.region.as_deref()),
        )
    };
    detail
        .updates
        .iter()
        .zip(late)
        .map(|(u, late)| {
            let mut changes = Vec::new();
            for ch in &u.changes {
                let (old, new) = (ch.old_status, ch.new_status);
                changes.push(format!(
                    "{}: {} → {}",
                    name_of(&ch.component_id),
                    old.label(),
                    new.label()
                ));
            }
            Ok(Entry {
                status: u.update.status.label(),
                body_html: to_safe_html(&u.update.body),
                posted: TimeView::new(u.update.created_at, tz),
                late,
                promised: u.update.next_update_by.map(|t| TimeView::new(t, tz)),
                changes,
            })
        })
        .collect()
}
