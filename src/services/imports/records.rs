//! Writing each kind of Statuspage record into a Herald page: groups, components, and
//! incidents or maintenances with their updates (checked first, each refused alone).

use chrono::{DateTime, Datelike, Utc};

use crate::db::models::imports;
use crate::db::models::incidents::{
    self, Incident, IncidentChanges, IncidentUpdateComponent, NewIncidentUpdate,
};
use crate::db::{DbConn, new_id, now};
use crate::domain::imports::statuspage::{self, SourceComponent, SourceIncident};
use crate::domain::{ComponentId, IncidentId, IncidentKind, LifecycleStatus, PageId};
use crate::domain::{format_reference, translation};
use crate::error::AppResult;
use crate::services::components::{self, GroupInput, NewComponentInput};
use crate::services::incidents::{MAX_BODY_LEN, MAX_INCIDENT_NAME_LEN};
use crate::services::pages::{required_line, row_time};

use super::{Report, kind, label, one};

pub(super) fn import_group(
    conn: &mut DbConn,
    page_id: &PageId,
    group: &SourceComponent,
    report: &mut Report,
) -> AppResult<()> {
    if imports::local_id(conn, page_id, kind::GROUP, &group.id)?.is_some() {
        report.skipped(kind::GROUP);
        return Ok(());
    }
    let made = one(
        conn,
        report,
        (kind::GROUP, &group.id, &group.name),
        |conn| {
            let made = components::create_group(
                conn,
                page_id,
                &GroupInput {
                    name: group.name.clone(),
                    description: group.description.clone().filter(|d| !d.trim().is_empty()),
                    position: group.position,
                },
            )?;
            imports::remember(
                conn,
                page_id,
                kind::GROUP,
                &group.id,
                made.id.as_str(),
                now(),
            )?;
            Ok(())
        },
    )?;
    if made.is_some() {
        report.created(kind::GROUP);
    }
    Ok(())
}

pub(super) fn import_component(
    conn: &mut DbConn,
    page_id: &PageId,
    component: &SourceComponent,
    report: &mut Report,
) -> AppResult<()> {
    if imports::local_id(conn, page_id, kind::COMPONENT, &component.id)?.is_some() {
        report.skipped(kind::COMPONENT);
        return Ok(());
    }
    let status = match statuspage::component_status(&component.status) {
        Ok(status) => status,
        Err(reason) => {
            report.refused(kind::COMPONENT, &component.id, &component.name, reason);
            return Ok(());
        }
    };
    let group_id = match &component.group_id {
        Some(group) => imports::local_id(conn, page_id, kind::GROUP, group)?,
        None => None,
    };
    let key = (
        kind::COMPONENT,
        component.id.as_str(),
        component.name.as_str(),
    );
    let made = one(conn, report, key, |conn| {
        let made = components::create_component(
            conn,
            page_id,
            &NewComponentInput {
                name: component.name.clone(),
                description: component
                    .description
                    .clone()
                    .filter(|d| !d.trim().is_empty()),
                group_id,
                position: component.position,
                status: Some(status),
                showcase: component.showcase,
                ..NewComponentInput::default()
            },
        )?;
        imports::remember(
            conn,
            page_id,
            kind::COMPONENT,
            &component.id,
            made.id.as_str(),
            now(),
        )?;
        Ok(())
    })?;
    if made.is_some() {
        report.created(kind::COMPONENT);
    }
    Ok(())
}

/// An incident's own fields, checked.
#[derive(Debug)]
struct Checked {
    name: String,
    status: LifecycleStatus,
    updates: Vec<(String, LifecycleStatus, String, DateTime<Utc>)>,
}

fn check(kind: IncidentKind, incident: &SourceIncident) -> Result<Checked, String> {
    let name =
        required_line(&incident.name, MAX_INCIDENT_NAME_LEN).map_err(|e| format!("name {e}"))?;
    let status = statuspage::status(kind, &incident.status)?;
    let mut updates = Vec::new();
    for update in &incident.incident_updates {
        let status = statuspage::status(kind, &update.status)
            .map_err(|e| format!("update {}: {e}", update.id))?;
        let body: String = update
            .body
            .as_deref()
            .unwrap_or_default()
            .chars()
            .filter(|c| *c != '\0')
            .take(MAX_BODY_LEN)
            .collect();
        updates.push((update.id.clone(), status, body, update.shown_at()));
    }
    updates.sort_by_key(|u| u.3);
    Ok(Checked {
        name,
        status,
        updates,
    })
}

pub(super) fn import_incident(
    conn: &mut DbConn,
    page_id: &PageId,
    kind: IncidentKind,
    incident: &SourceIncident,
    report: &mut Report,
) -> AppResult<()> {
    let label = label(kind);
    let checked = match check(kind, incident) {
        Ok(checked) => checked,
        Err(reason) => {
            report.refused(label, &incident.id, &incident.name, reason);
            return Ok(());
        }
    };
    let at = now();
    let started = incident
        .started_at
        .or(incident
            .scheduled_for
            .filter(|_| kind == IncidentKind::Maintenance))
        .unwrap_or(incident.created_at);
    let times = IncidentChanges {
        name: Some(checked.name.clone()),
        impact: Some(statuspage::impact(incident.impact.as_deref())),
        status: Some(checked.status),
        started_at: Some(row_time(started)),
        monitoring_at: Some(incident.monitoring_at.map(row_time)),
        resolved_at: Some(incident.resolved_at.map(row_time)),
        scheduled_for: Some(incident.scheduled_for.map(row_time)),
        scheduled_until: Some(incident.scheduled_until.map(row_time)),
        next_update_by: Some(None),
        updated_at: at,
        ..IncidentChanges::default()
    };
    let local = imports::local_id(conn, page_id, label, &incident.id)?;
    let (id, created) = match local {
        Some(id) => (IncidentId::from(id.as_str()), false),
        None => {
            let year = started.year();
            let seq = incidents::max_reference_seq(conn, page_id, kind, year)? + 1;
            let id = IncidentId::new();
            incidents::insert(
                conn,
                &Incident {
                    id: id.clone(),
                    page_id: page_id.clone(),
                    reference: format_reference(kind, year, seq),
                    name: checked.name.clone(),
                    kind,
                    impact: statuspage::impact(incident.impact.as_deref()),
                    status: checked.status,
                    user_impact: None,
                    scope: None,
                    root_cause: None,
                    started_at: row_time(started),
                    identified_at: None,
                    monitoring_at: incident.monitoring_at.map(row_time),
                    resolved_at: incident.resolved_at.map(row_time),
                    scheduled_for: incident.scheduled_for.map(row_time),
                    scheduled_until: incident.scheduled_until.map(row_time),
                    auto_transition: false,
                    next_update_by: None,
                    created_at: row_time(incident.created_at),
                    updated_at: at,
                    translations: translation::NONE.to_owned(),
                    metadata: crate::domain::metadata::NONE.to_owned(),
                    maintenance_plan: crate::domain::maintenance_plan::HERALDS.to_owned(),
                },
            )?;
            imports::remember(conn, page_id, label, &incident.id, id.as_str(), at)?;
            report.created(label);
            (id, true)
        }
    };
    for component in &incident.components {
        if let Some(local) = imports::local_id(conn, page_id, kind::COMPONENT, &component.id)? {
            incidents::add_affected_component(conn, &id, &ComponentId::from(local.as_str()))?;
        }
    }
    let mut added = 0;
    for (source_id, status, body, shown) in &checked.updates {
        if imports::local_id(conn, page_id, kind::UPDATE, source_id)?.is_some() {
            report.skipped(kind::UPDATE);
            continue;
        }
        let update_id = new_id();
        incidents::insert_update(
            conn,
            &NewIncidentUpdate {
                id: &update_id,
                incident_id: &id,
                status: *status,
                body,
                next_update_by: None,
                author_id: None,
                notify: false,
                created_at: row_time(*shown),
                updated_at: row_time(*shown),
            },
        )?;
        let source = incident
            .incident_updates
            .iter()
            .find(|u| &u.id == source_id);
        for change in source
            .and_then(|u| u.affected_components.as_deref())
            .unwrap_or_default()
        {
            let Some(component) = imports::local_id(conn, page_id, kind::COMPONENT, &change.code)?
            else {
                continue;
            };
            let parse = |s: &Option<String>| {
                s.as_deref()
                    .and_then(|s| statuspage::component_status(s).ok())
            };
            if let (Some(old), Some(new)) = (parse(&change.old_status), parse(&change.new_status)) {
                incidents::insert_update_component(
                    conn,
                    &IncidentUpdateComponent {
                        incident_update_id: update_id.clone(),
                        component_id: ComponentId::from(component.as_str()),
                        old_status: old,
                        new_status: new,
                    },
                )?;
            }
        }
        imports::remember(conn, page_id, kind::UPDATE, source_id, &update_id, at)?;
        report.created(kind::UPDATE);
        added += 1;
    }
    if created || added > 0 {
        // The source's word on the incident now: its status, times and impact.
        incidents::update(conn, &id, &times)?;
    } else {
        report.skipped(label);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incident(status: &str, updates: &[(&str, &str, &str)]) -> SourceIncident {
        let doc = serde_json::json!({
            "id": "i1", "name": "  Elevated errors ", "status": status, "impact": "major",
            "created_at": "2026-11-30T09:00:00Z",
            "incident_updates": updates.iter().map(|(id, status, at)| serde_json::json!({
                "id": id, "status": status, "body": "text", "created_at": at,
            })).collect::<Vec<_>>(),
        });
        serde_json::from_value(doc).unwrap()
    }

    #[test]
    fn an_incident_is_checked_and_its_updates_put_in_time_order() {
        let checked = check(
            IncidentKind::Incident,
            &incident(
                "resolved",
                &[
                    ("u2", "resolved", "2026-11-30T10:00:00Z"),
                    ("u1", "investigating", "2026-11-30T09:00:00Z"),
                ],
            ),
        )
        .unwrap();
        assert_eq!(checked.name, "Elevated errors");
        let order: Vec<&str> = checked.updates.iter().map(|u| u.0.as_str()).collect();
        assert_eq!(order, ["u1", "u2"]);
    }

    #[test]
    fn a_word_herald_does_not_know_refuses_the_incident_with_the_reason() {
        let err = check(IncidentKind::Incident, &incident("exploded", &[])).unwrap_err();
        assert!(
            err.contains("'exploded' is not a valid incident status"),
            "{err}"
        );
        let err = check(
            IncidentKind::Maintenance,
            &incident(
                "scheduled",
                &[("u9", "investigating", "2026-11-30T09:00:00Z")],
            ),
        )
        .unwrap_err();
        assert!(err.starts_with("update u9:"), "{err}");
        let mut report = Report::default();
        report.refused(kind::INCIDENT, "i1", "Elevated errors", err);
        assert!(
            report
                .lines()
                .iter()
                .any(|l| l.starts_with("  incidents i1 (Elevated errors): update u9:"))
        );
    }
}
