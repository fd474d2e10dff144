//! Posting updates (status changes through the domain's state machines) and editing an
//! incident's structured fields.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;

use super::PostedUpdate;
use super::changes::{
    ComponentMap, Milestones, apply_changes, next_update_by, page_components, restorations,
};
use super::open::{
    GivenTranslations, MAX_BODY_LEN, MAX_FIELD_LEN, MAX_INCIDENT_NAME_LEN, checked_translations,
    translated_body, translated_name,
};
use crate::db::models::components::{self, Component};
use crate::db::models::incidents::{self, Incident, IncidentChanges, NewIncidentUpdate};
use crate::db::models::pages;
use crate::db::{DbConn, new_id, now, write_tx};
use crate::domain::translation::{self, Translations};
use crate::domain::{
    ComponentId, ComponentStatus, Impact, IncidentId, IncidentKind, IncidentStatus,
    LifecycleStatus, MaintenanceStatus, check_lifecycle_transition, within_reach,
};
use crate::error::{AppError, AppResult};
use crate::services::pages::{
    FieldCheck, found, nullable, optional_text, required_line, required_text, row_time,
};

/// A new update of an incident. Field names follow Statuspage's manage API
/// (`deliver_notifications` is accepted for `notify`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PostUpdateInput {
    /// In the incident kind's vocabulary; the current status when absent.
    pub status: Option<String>,
    /// Markdown.
    pub body: String,
    /// Component id → new status. Resolving without any brings the affected components back
    /// to operational (those no other open incident affects).
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub components: ComponentMap,
    /// The page's interval for the incident's impact when absent; none once resolved.
    pub next_update_by: Option<DateTime<Utc>>,
    /// Needed to move a resolved incident back to an open status.
    #[serde(default, deserialize_with = "crate::services::pages::null_as_default")]
    pub reopen: bool,
    /// Whether subscribers are told; yes when absent.
    pub notify: Option<bool>,
    /// Statuspage's name for `notify` ([`super::notify_switch`]).
    pub deliver_notifications: Option<bool>,
    /// The body in the page's other languages: `{"de": {"body": ...}}`.
    pub translations: Option<GivenTranslations>,
}

/// Changes to an incident's own fields: absent fields stay as they are; `null` clears an
/// optional text. The window fields apply to maintenances only.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct IncidentFieldsInput {
    pub name: Option<String>,
    #[serde(alias = "impact_override")]
    pub impact: Option<Impact>,
    #[serde(default, deserialize_with = "nullable")]
    pub user_impact: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub scope: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub root_cause: Option<Option<String>>,
    pub scheduled_for: Option<DateTime<Utc>>,
    pub scheduled_until: Option<DateTime<Utc>>,
    pub auto_transition: Option<bool>,
    /// The name in the page's other languages, replacing those given before:
    /// `{"de": {"name": ...}}` (`{}` removes them).
    pub translations: Option<GivenTranslations>,
}

/// Posts an update: checks the status change with the domain rules (a refused change is an
/// error on `status`), records the component changes, sets the milestone times the first time
/// each status is reached and mirrors the update's deadline on the incident.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn post_update(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    input: &PostUpdateInput,
    author_id: Option<&str>,
    now: DateTime<Utc>,
) -> AppResult<PostedUpdate> {
    write_tx(conn, |conn| {
        let incident = found(incidents::find(conn, incident_id), "incident")?;
        let from = incident.status;
        let checked = check_update(conn, &incident, from, input, now)?;
        let at = row_time(now);
        let update = NewIncidentUpdate {
            id: &new_id(),
            incident_id,
            status: checked.to,
            body: &checked.body,
            next_update_by: checked.deadline,
            author_id,
            notify: super::notify_switch(input.notify, input.deliver_notifications)?,
            created_at: at,
            updated_at: at,
        };
        let mut update = incidents::insert_update(conn, &update)?;
        if !checked.translations.is_empty() {
            let stored = translation::stored(&checked.translations);
            incidents::set_update_translations(conn, &update.id, &stored)?;
            update.translations = stored;
        }
        let closing = from.is_open() && !checked.to.is_open();
        let starting = from == LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled)
            && checked.to == LifecycleStatus::Maintenance(MaintenanceStatus::InProgress);
        let changes = match input.components.is_empty() {
            true if closing => restorations(conn, &incident)?,
            true if starting => planned_maintenance(conn, &incident)?,
            _ => checked.changes,
        };
        let changes = apply_changes(conn, &incident, &update.id, changes, at)?;
        let times = Milestones::of(&incident).reach(Some(from), checked.to, at);
        let moved = IncidentChanges {
            status: Some(checked.to),
            started_at: Some(times.started_at),
            identified_at: Some(times.identified_at),
            monitoring_at: Some(times.monitoring_at),
            resolved_at: Some(times.resolved_at),
            next_update_by: Some(checked.deadline),
            updated_at: at,
            ..IncidentChanges::default()
        };
        let incident = incidents::update(conn, incident_id, &moved)?;
        let posted = PostedUpdate {
            incident,
            update,
            changes,
        };
        crate::services::outbox::incident_posted(conn, &posted, Some(from))?;
        Ok(posted)
    })
}

/// The components a starting maintenance named when it was scheduled, put under maintenance.
fn planned_maintenance(
    conn: &mut DbConn,
    incident: &Incident,
) -> AppResult<Vec<(Component, ComponentStatus)>> {
    let ids = incidents::affected_component_ids(conn, &incident.id)?;
    let ids: Vec<&str> = ids.iter().map(ComponentId::as_str).collect();
    Ok(components::find_on_page(conn, &incident.page_id, &ids)?
        .into_iter()
        .map(|c| (c, ComponentStatus::UnderMaintenance))
        .collect())
}

/// A checked update: its status, body, component changes and deadline.
struct CheckedUpdate {
    to: LifecycleStatus,
    body: String,
    translations: Translations,
    changes: Vec<(Component, ComponentStatus)>,
    deadline: Option<NaiveDateTime>,
}

/// Checks an update against the incident's state, answering every field error at once.
fn check_update(
    conn: &mut DbConn,
    incident: &Incident,
    from: LifecycleStatus,
    input: &PostUpdateInput,
    now: DateTime<Utc>,
) -> AppResult<CheckedUpdate> {
    let page = pages::find(conn, &incident.page_id)?;
    let mut check = FieldCheck::default();
    let to = check.check("status", next_status(incident.kind, from, input));
    let body = check.check("body", required_text(&input.body, MAX_BODY_LEN));
    let translations = check.check(
        "translations",
        checked_translations(&input.translations, &[("body", translated_body)]),
    );
    let changes = page_components(conn, &mut check, &incident.page_id, &input.components)?;
    let (to, body, translations) = check.done((|| Some((to?, body?, translations?)))())?;
    let impact = incident.impact;
    let deadline = next_update_by(input.next_update_by, to, impact, &page.intervals(), now)
        .map_err(|message| AppError::field("next_update_by", message))?;
    Ok(CheckedUpdate {
        to,
        body,
        translations,
        changes,
        deadline: deadline.map(row_time),
    })
}

/// The status an update moves to, checked against the state machine. Postmortem is reached
/// by publishing the postmortem, not by an update.
fn next_status(
    kind: IncidentKind,
    from: LifecycleStatus,
    input: &PostUpdateInput,
) -> Result<LifecycleStatus, String> {
    let to = match input
        .status
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(status) => LifecycleStatus::parse(kind, status).map_err(|e| e.to_string())?,
        None => from,
    };
    let postmortem = LifecycleStatus::Incident(IncidentStatus::Postmortem);
    if to == postmortem && from != postmortem {
        return Err("an update cannot set postmortem; publish the postmortem instead".to_owned());
    }
    check_lifecycle_transition(from, to, input.reopen).map_err(|e| e.to_string())?;
    Ok(to)
}

/// Changes an incident's name, impact, user impact, scope, root cause and, for a maintenance,
/// its window and auto-transition flag. Statuses only change through updates.
#[tracing::instrument(skip_all, fields(incident_id = %incident_id))]
pub fn update_incident_fields(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    input: &IncidentFieldsInput,
) -> AppResult<Incident> {
    write_tx(conn, |conn| {
        let incident = found(incidents::find(conn, incident_id), "incident")?;
        let mut check = FieldCheck::default();
        let name = input
            .name
            .as_deref()
            .map(|n| required_line(n, MAX_INCIDENT_NAME_LEN))
            .transpose();
        let patch = |v: &Option<Option<String>>| {
            v.as_ref()
                .map(|v| optional_text(v.as_deref(), MAX_FIELD_LEN))
                .transpose()
        };
        let window = new_window(&mut check, &incident, input)?;
        let names = input
            .translations
            .as_ref()
            .map(|given| translation::parse(given, &[("name", translated_name)]))
            .transpose();
        let names = check.check("translations", names).flatten();
        let mut changes = IncidentChanges {
            name: check.check("name", name).flatten(),
            impact: input.impact,
            user_impact: check
                .check("user_impact", patch(&input.user_impact))
                .flatten(),
            scope: check.check("scope", patch(&input.scope)).flatten(),
            root_cause: check
                .check("root_cause", patch(&input.root_cause))
                .flatten(),
            auto_transition: input.auto_transition,
            translations: names.map(|n| translation::stored(&n)),
            updated_at: now(),
            ..IncidentChanges::default()
        };
        if let Some((from, until)) = window {
            changes.scheduled_for = Some(Some(from));
            changes.scheduled_until = Some(Some(until));
            // A maintenance that has not started yet starts when its window opens.
            if incident.status == LifecycleStatus::Maintenance(MaintenanceStatus::Scheduled) {
                changes.started_at = Some(from);
            }
        }
        let changes = check.done(Some(changes))?;
        Ok(incidents::update(conn, incident_id, &changes)?)
    })
}

/// The maintenance window after applying the input, when it changes; window fields on another
/// kind, or an end not after the start, are recorded as errors.
fn new_window(
    check: &mut FieldCheck,
    incident: &Incident,
    input: &IncidentFieldsInput,
) -> AppResult<Option<(NaiveDateTime, NaiveDateTime)>> {
    if input.scheduled_for.is_none()
        && input.scheduled_until.is_none()
        && input.auto_transition.is_none()
    {
        return Ok(None);
    }
    let kind = incident.kind;
    if kind != IncidentKind::Maintenance {
        check.add(
            "scheduled_for",
            format!("only maintenances have a scheduled window, not a {kind}"),
        );
        return Ok(None);
    }
    let now = Utc::now();
    let mut in_reach = true;
    for (field, at) in [
        ("scheduled_for", input.scheduled_for),
        ("scheduled_until", input.scheduled_until),
    ] {
        if let Some(at) = at {
            in_reach &= check.check(field, within_reach(at, now)).is_some();
        }
    }
    if !in_reach {
        return Ok(None);
    }
    let from = input.scheduled_for.map(row_time).or(incident.scheduled_for);
    let until = input
        .scheduled_until
        .map(row_time)
        .or(incident.scheduled_until);
    match (from, until) {
        (Some(from), Some(until)) if until > from => Ok(Some((from, until))),
        _ => {
            check.add("scheduled_until", "must be after scheduled_for");
            Ok(None)
        }
    }
}
