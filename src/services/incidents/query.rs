//! Reading incidents back: one, a page's list, one with its updates, and the page overview.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::db::DbConn;
use crate::db::models::components::{self, Component};
use crate::db::models::incidents::{self, Incident, IncidentUpdate, IncidentUpdateComponent};
use crate::db::models::pages;
use crate::domain::{
    IncidentId, IncidentKind, LifecycleStatus, MaintenanceStatus, PageId, PageStatus, page_status,
};
use crate::error::{AppError, AppResult};
use crate::services::components::{ComponentTree, list_components};
use crate::services::pages::{FieldCheck, found, row_time};

/// Rows per page of a list when no limit is given.
pub const DEFAULT_LIST_LIMIT: i64 = 25;
/// The largest page of a list.
pub const MAX_LIST_LIMIT: i64 = 100;

/// Which incidents of a page to list (query-string friendly).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct IncidentFilter {
    /// Only incidents that are not resolved (or completed).
    #[serde(default)]
    pub open_only: bool,
    /// Only this kind.
    pub kind: Option<IncidentKind>,
    /// At most this many (1 to 100, 25 when absent).
    pub limit: Option<i64>,
    /// Skip this many first.
    pub offset: Option<i64>,
    /// Only those whose name, status or an update's text holds this (any case).
    #[serde(default)]
    pub search: Option<String>,
}

/// An update with the component changes it made.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateWithChanges {
    pub update: IncidentUpdate,
    pub changes: Vec<IncidentUpdateComponent>,
}

/// An incident with everything its page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct IncidentDetail {
    pub incident: Incident,
    /// Newest first.
    pub updates: Vec<UpdateWithChanges>,
    /// Every component the incident affects or affected, by position.
    pub affected: Vec<Component>,
}

/// What the top of a public page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct PageOverview {
    pub components: ComponentTree,
    /// Unresolved incidents, advisories and maintenances, most recently started first.
    pub open_incidents: Vec<Incident>,
    pub status: PageStatus,
}

/// The incident with this id.
pub fn get_incident(conn: &mut DbConn, incident_id: &IncidentId) -> AppResult<Incident> {
    found(incidents::find(conn, incident_id), "incident")
}

/// The incident of a page with this reference, e.g. `INC-2026-0042` (any case).
pub fn get_incident_by_reference(
    conn: &mut DbConn,
    page_id: &PageId,
    reference: &str,
) -> AppResult<Incident> {
    let normalized = reference.trim().to_ascii_uppercase();
    incidents::find_by_reference(conn, page_id, &normalized)?
        .ok_or_else(|| AppError::NotFound(format!("incident {normalized}")))
}

/// The incident of a page named by its id or its reference (404 for none, and for one of
/// another page).
pub fn get_page_incident(conn: &mut DbConn, page_id: &PageId, key: &str) -> AppResult<Incident> {
    let incident = match get_incident(conn, &IncidentId::from(key)) {
        Err(AppError::NotFound(_)) => get_incident_by_reference(conn, page_id, key)?,
        other => other?,
    };
    if incident.page_id != page_id {
        return Err(AppError::NotFound("incident".into()));
    }
    Ok(incident)
}

impl IncidentFilter {
    /// The list's `limit` (1 to the largest, the default when absent) and `offset` (not
    /// negative), or a refusal naming each that is out of range.
    pub fn window(&self) -> AppResult<(i64, i64)> {
        let mut check = FieldCheck::default();
        let limit = self.limit.unwrap_or(DEFAULT_LIST_LIMIT);
        if !(1..=MAX_LIST_LIMIT).contains(&limit) {
            check.add("limit", format!("must be between 1 and {MAX_LIST_LIMIT}"));
        }
        let offset = self.offset.unwrap_or(0);
        if offset < 0 {
            check.add("offset", "must not be negative");
        }
        check.done(Some((limit, offset)))
    }
}

/// A page's incidents, most recently started first.
pub fn list_incidents(
    conn: &mut DbConn,
    page_id: &PageId,
    filter: &IncidentFilter,
) -> AppResult<Vec<Incident>> {
    let (limit, offset) = filter.window()?;
    found(pages::find(conn, page_id), "page")?;
    if let Some(text) = filter.search.as_deref().filter(|t| !t.trim().is_empty()) {
        return Ok(incidents::search(
            conn,
            page_id,
            text.trim(),
            limit,
            offset,
        )?);
    }
    Ok(incidents::list(
        conn,
        page_id,
        filter.open_only,
        filter.kind,
        limit,
        offset,
    )?)
}

/// An incident with its updates (newest first), each with its component changes, and the
/// components it affects.
pub fn incident_with_updates(
    conn: &mut DbConn,
    incident_id: &IncidentId,
) -> AppResult<IncidentDetail> {
    let incident = get_incident(conn, incident_id)?;
    let page_id = incident.page_id.clone();
    let mut details = incidents_with_updates(conn, &page_id, vec![incident])?;
    details
        .pop()
        .ok_or_else(|| AppError::NotFound("incident".into()))
}

/// Incidents of one page, each with its updates (newest first) and their component changes
/// and the components it affects, in the order given: four queries, however many incidents.
pub fn incidents_with_updates(
    conn: &mut DbConn,
    page_id: &PageId,
    incidents: Vec<Incident>,
) -> AppResult<Vec<IncidentDetail>> {
    let ids: Vec<&str> = incidents.iter().map(|i| i.id.as_str()).collect();
    let mut changes: HashMap<String, Vec<IncidentUpdateComponent>> = HashMap::new();
    for change in incidents::update_components_of(conn, &ids)? {
        changes
            .entry(change.incident_update_id.clone())
            .or_default()
            .push(change);
    }
    let mut updates: HashMap<IncidentId, Vec<UpdateWithChanges>> = HashMap::new();
    for update in incidents::updates_of(conn, &ids)? {
        let mine = changes.remove(&update.id).unwrap_or_default();
        updates
            .entry(update.incident_id.clone())
            .or_default()
            .push(UpdateWithChanges {
                update,
                changes: mine,
            });
    }
    let pairs = incidents::affected_of(conn, &ids)?;
    let component_ids: Vec<&str> = pairs.iter().map(|(_, c)| c.as_str()).collect();
    let mut components = components::find_on_page(conn, page_id, &component_ids)?;
    components.sort_by(|a, b| (a.position, &a.id).cmp(&(b.position, &b.id)));
    let mut affects: HashMap<&IncidentId, std::collections::HashSet<&str>> = HashMap::new();
    for (incident, component) in &pairs {
        affects
            .entry(incident)
            .or_default()
            .insert(component.as_str());
    }
    Ok(incidents
        .iter()
        .map(|incident| {
            let mine = affects.get(&incident.id);
            let affected = components
                .iter()
                .filter(|c| mine.is_some_and(|m| m.contains(c.id.as_str())))
                .cloned()
                .collect();
            IncidentDetail {
                updates: updates.remove(&incident.id).unwrap_or_default(),
                incident: incident.clone(),
                affected,
            }
        })
        .collect())
}

/// The page's components, open incidents and overall status. Maintenance counts as in progress
/// when a maintenance is in progress or verifying, or when one that transitions on its own is
/// inside its window at `now` (the transition job may not have run yet).
pub fn page_overview(
    conn: &mut DbConn,
    page_id: &PageId,
    now: DateTime<Utc>,
) -> AppResult<PageOverview> {
    found(pages::find(conn, page_id), "page")?;
    let components = list_components(conn, page_id)?;
    let open_incidents = incidents::list_open(conn, page_id)?;
    let mut impacts = Vec::new();
    let mut maintenance = false;
    for incident in &open_incidents {
        match incident.status {
            LifecycleStatus::Maintenance(status) => {
                maintenance |= in_progress(incident, status, now)
            }
            LifecycleStatus::Incident(_) => impacts.push(incident.impact),
        }
    }
    let status = page_status(&components.statuses()?, &impacts, maintenance);
    Ok(PageOverview {
        components,
        open_incidents,
        status,
    })
}

/// Whether a maintenance is under way at `now`.
fn in_progress(incident: &Incident, status: MaintenanceStatus, now: DateTime<Utc>) -> bool {
    let now = row_time(now);
    let in_window = matches!((incident.scheduled_for, incident.scheduled_until), (Some(from), Some(until)) if from <= now && now < until);
    match status {
        MaintenanceStatus::InProgress | MaintenanceStatus::Verifying => true,
        MaintenanceStatus::Scheduled => incident.auto_transition && in_window,
        MaintenanceStatus::Completed => false,
    }
}
