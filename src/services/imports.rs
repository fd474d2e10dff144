//! Moving from Statuspage: a page's components and groups, incidents and maintenances with
//! their updates, read through the source's public API (`domain::imports::statuspage`), written to a
//! Herald page (made when missing) in one transaction. Each source record is remembered with
//! the record it became (`imported_records`), so a second import adds only what is new: new
//! records, and new updates of incidents imported before (whose status and times then follow
//! the source). Times and impacts are kept; nothing is sent to subscribers (history is not
//! news). A record Herald cannot take is refused alone, with the reason.

use std::collections::BTreeMap;

pub mod fetch;
pub mod subscribers;

pub use subscribers::import_subscribers;

use chrono::{DateTime, Datelike, Utc};
use serde::Serialize;

use crate::db::models::imports;
use crate::db::models::incidents::{
    self, IncidentChanges, IncidentUpdateComponent, NewIncident, NewIncidentUpdate,
};
use crate::db::models::pages::{self, StatusPage};
use crate::db::{DbConn, new_id, now, savepoint, write_tx};
use crate::domain::imports::statuspage::{self, SourceComponent, SourceIncident, SummaryDoc};
use crate::domain::{ComponentId, IncidentId, IncidentKind, LifecycleStatus, PageId};
use crate::domain::{format_reference, parse_time_zone};
use crate::error::{AppError, AppResult};
use crate::services::components::{self, GroupInput, NewComponentInput};
use crate::services::incidents::{MAX_BODY_LEN, MAX_INCIDENT_NAME_LEN};
use crate::services::pages::{NewPageInput, required_line, row_time};

/// What a Statuspage page holds, as read.
#[derive(Debug, Clone)]
pub struct StatuspageSource {
    pub summary: SummaryDoc,
    pub incidents: Vec<SourceIncident>,
    pub maintenances: Vec<SourceIncident>,
}

/// What an import did, per kind of record.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The page imported into.
    pub page: String,
    pub created: BTreeMap<&'static str, usize>,
    /// Already imported (and unchanged).
    pub skipped: BTreeMap<&'static str, usize>,
    pub refused: Vec<Refused>,
}

/// A source record Herald could not take, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    pub kind: &'static str,
    pub source_id: String,
    pub name: String,
    pub reason: String,
}

impl Report {
    fn created(&mut self, kind: &'static str) {
        *self.created.entry(kind).or_default() += 1;
    }

    fn skipped(&mut self, kind: &'static str) {
        *self.skipped.entry(kind).or_default() += 1;
    }

    fn refused(&mut self, kind: &'static str, source_id: &str, name: &str, reason: impl ToString) {
        // NUL is dropped: the report may be stored (an idempotent answer), and PostgreSQL's
        // text takes no NUL.
        let clean =
            |text: &str, most: usize| text.chars().filter(|c| *c != '\0').take(most).collect();
        self.refused.push(Refused {
            kind,
            source_id: clean(source_id, 100),
            name: clean(name, 200),
            reason: clean(&reason.to_string(), 1000),
        });
    }

    /// Adds what `other` (a later part of the same import) did.
    pub fn merge(&mut self, other: Report) {
        for (kind, n) in other.created {
            *self.created.entry(kind).or_default() += n;
        }
        for (kind, n) in other.skipped {
            *self.skipped.entry(kind).or_default() += n;
        }
        self.refused.extend(other.refused);
    }

    /// The report in one line per heading, for a terminal.
    pub fn lines(&self) -> Vec<String> {
        let list = |counts: &BTreeMap<&'static str, usize>| {
            if counts.is_empty() {
                return "nothing".to_owned();
            }
            counts
                .iter()
                .map(|(kind, n)| format!("{n} {kind}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lines = vec![
            format!("page: {}", self.page),
            format!("created: {}", list(&self.created)),
            format!("skipped (already there): {}", list(&self.skipped)),
            format!("refused: {}", self.refused.len()),
        ];
        lines.extend(
            self.refused
                .iter()
                .map(|r| format!("  {} {} ({}): {}", r.kind, r.source_id, r.name, r.reason)),
        );
        lines
    }
}

/// Kinds of records, as remembered and reported.
mod kind {
    pub const PAGE: &str = "page";
    pub const GROUP: &str = "groups";
    pub const COMPONENT: &str = "components";
    pub const INCIDENT: &str = "incidents";
    pub const MAINTENANCE: &str = "maintenances";
    pub const UPDATE: &str = "updates";
}

/// Imports `source` into the page `slug` (made when missing, named and zoned as the source),
/// in one transaction; `progress` hears of each step.
pub fn import_statuspage(
    conn: &mut DbConn,
    slug: &str,
    source: &StatuspageSource,
    progress: &mut dyn FnMut(&str),
) -> AppResult<Report> {
    write_tx(conn, |conn| {
        let mut report = Report {
            page: slug.to_owned(),
            ..Report::default()
        };
        let page = page(conn, slug, &source.summary, &mut report)?;
        progress(&format!(
            "page {}: {} components",
            page.slug,
            source.summary.components.len()
        ));
        let components = source.summary.components.as_slice();
        for group in components.iter().filter(|c| c.group) {
            import_group(conn, &page.id, group, &mut report)?;
        }
        for component in components.iter().filter(|c| !c.group) {
            import_component(conn, &page.id, component, &mut report)?;
        }
        for (kind, list) in [
            (IncidentKind::Incident, &source.incidents),
            (IncidentKind::Maintenance, &source.maintenances),
        ] {
            let mut list: Vec<&SourceIncident> = list.iter().collect();
            list.sort_by_key(|i| i.created_at);
            for (n, incident) in list.iter().enumerate() {
                import_incident(conn, &page.id, kind, incident, &mut report)?;
                if (n + 1) % 10 == 0 || n + 1 == list.len() {
                    progress(&format!("{}: {}/{}", label(kind), n + 1, list.len()));
                }
            }
        }
        Ok(report)
    })
}

fn label(kind: IncidentKind) -> &'static str {
    match kind {
        IncidentKind::Maintenance => kind::MAINTENANCE,
        _ => kind::INCIDENT,
    }
}

/// The page at `slug`, made from the source's name and time zone when there is none.
fn page(
    conn: &mut DbConn,
    slug: &str,
    summary: &SummaryDoc,
    report: &mut Report,
) -> AppResult<StatusPage> {
    if let Some(page) = pages::find_by_slug(conn, slug)? {
        report.skipped(kind::PAGE);
        return Ok(page);
    }
    let time_zone = summary
        .page
        .time_zone
        .clone()
        .filter(|zone| parse_time_zone(zone).is_ok());
    let name: String = summary.page.name.trim().chars().take(100).collect();
    let page = crate::services::pages::create_page(
        conn,
        &NewPageInput {
            slug: slug.to_owned(),
            name: if name.is_empty() {
                slug.to_owned()
            } else {
                name
            },
            time_zone,
            ..NewPageInput::default()
        },
    )?;
    imports::remember(
        conn,
        &page.id,
        kind::PAGE,
        &summary.page.id,
        page.id.as_str(),
        now(),
    )?;
    report.created(kind::PAGE);
    Ok(page)
}

/// Runs one record's writes in a nested transaction: a refusal leaves nothing of it behind
/// and is reported; any other error ends the import.
fn one<T>(
    conn: &mut DbConn,
    report: &mut Report,
    (kind, source_id, name): (&'static str, &str, &str),
    write: impl FnOnce(&mut DbConn) -> AppResult<T>,
) -> AppResult<Option<T>> {
    match savepoint(conn, write) {
        Ok(value) => Ok(Some(value)),
        Err(AppError::Validation(fields)) => {
            let reason = fields
                .iter()
                .map(|(field, messages)| format!("{field} {}", messages.join("; ")))
                .collect::<Vec<_>>()
                .join(", ");
            report.refused(kind, source_id, name, reason);
            Ok(None)
        }
        Err(other) => Err(other),
    }
}

fn import_group(
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

fn import_component(
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

fn import_incident(
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
                &NewIncident {
                    id: &id,
                    page_id,
                    reference: &format_reference(kind, year, seq),
                    name: &checked.name,
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
